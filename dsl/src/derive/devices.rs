//! Transforms split over G devices: the four-step Cooley–Tukey split with one factor of G,
//! its stride permutations turned into all-to-all exchanges.
//!
//! With N = G·M, Cooley–Tukey (2017, (9)) with the radix M gives
//!
//! DFT(N) = (DFT(G) ⊗ I(M)) · D(G, M) · (I(G) ⊗ DFT(M)) · L(N, G),
//!
//! and `device_commute` turns the only factor that mixes blocks into exchanges around a
//! local one:
//!
//! DFT(N) = E · (I(G) ⊗ DFT(G) ⊗ I(M/G)) · E · D(G, M) · (I(G) ⊗ DFT(M)) · L(N, G),
//!
//! E = L(G², G) ⊗ I(N/G²) being the all-to-all exchange (see
//! [`exchange`](crate::rules::exchange)). Every other factor is local to the device
//! holding the block it acts on; DFT(M) is derived further by the usual strategy.
//!
//! Where the data lives decides how many exchanges run (the [`Distribution`]s):
//!
//! - **cyclic input** (element i on device i mod G, at i div G): L(N, G) is the
//!   distribution itself, and moves nothing;
//! - **blocks input** (element i on device i div (N/G)): `device_stride` rewrites L(N, G) =
//!   E · (I(G) ⊗ L(M, G)), one more exchange;
//! - **blocks output**: the last E runs;
//! - **transposed output**: the last E is left out, and device d holds y[k·M + d·M/G + j]
//!   at k·M/G + j (k < G, j < M/G);
//! - **cyclic output**, from a cyclic input only: `device_fold` splits DFT(N) the other
//!   way round (s = M/G),
//!
//!   DFT(N) = L(N, M) · (I(G) ⊗ DFT(G) ⊗ I(s)) · L(N, G) · D(G, M) · L(N, M) · E ·
//!   (I(G) ⊗ I(G) ⊗ DFT(s)) · (I(G) ⊗ D(G, s)) · (I(G) ⊗ DFT(G) ⊗ I(s)) · L(N, G),
//!
//!   L(N, M) being the output distribution as L(N, G) is the input's. Each device folds
//!   its block into G rows of s points (DFT(G) ⊗ I(s), then D(G, s)), transforms the
//!   rows one by one (I(G) ⊗ DFT(s)), and one exchange sends row e to device e, which
//!   twiddles what it received ([`DeviceStage::TwiddleExchanged`]) and combines it by
//!   DFT(G) ⊗ I(s). The rows are G independent transforms, so that a runtime can send
//!   one row while it computes the next: the exchange overlaps the local work instead of
//!   following it.
//!
//! Cyclic in and transposed or cyclic out take one exchange, blocks in and out three (the
//! six-step form). The inverse of a split runs the same stages backwards (transposed or
//! blocks in, cyclic or blocks out), so that a product of polynomials held cyclically
//! needs one exchange per transform.

use super::{derive, Derivation, DeriveError, Options, Rewriter, Strategy};
use crate::formula::Formula;
use crate::rules::{self, exchange, Params};
use std::fmt;
use std::str::FromStr;

/// How a vector of N elements is laid out over G devices, N/G elements each.
///
/// ```
/// use fermat_dsl::derive::Distribution;
///
/// let d: Distribution = "blocks".parse()?;
/// assert_eq!(d.place(9, 16, 2), (1, 1)); // natural order: device 1, position 1
/// # Ok::<(), fermat_dsl::derive::DeriveError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Distribution {
    /// Element i on device i mod G, at position i div G.
    Cyclic,
    /// Element i on device i div (N/G), at position i mod (N/G): natural order.
    Blocks,
    /// What a split leaves without its last exchange: element k·M + d·M/G + j (k < G,
    /// j < M/G, M = N/G) on device d, at position k·M/G + j.
    Transposed,
}

impl Distribution {
    /// Every distribution, in the order the command line lists them.
    ///
    /// ```
    /// use fermat_dsl::derive::Distribution;
    ///
    /// let names: Vec<&str> = Distribution::ALL.iter().map(|d| d.name()).collect();
    /// assert_eq!(names, ["cyclic", "blocks", "transposed"]);
    /// ```
    pub const ALL: [Distribution; 3] = [
        Distribution::Cyclic,
        Distribution::Blocks,
        Distribution::Transposed,
    ];

    /// Every pair of input and output distributions a split joins: cyclic in, transposed
    /// or cyclic out (one exchange), and the rest.
    ///
    /// ```
    /// use fermat_dsl::derive::Distribution;
    /// assert_eq!(Distribution::JOINED[0], (Distribution::Cyclic, Distribution::Transposed));
    /// assert!(!Distribution::JOINED.contains(&(Distribution::Blocks, Distribution::Cyclic)));
    /// ```
    pub const JOINED: [(Distribution, Distribution); 5] = [
        (Distribution::Cyclic, Distribution::Transposed),
        (Distribution::Cyclic, Distribution::Blocks),
        (Distribution::Blocks, Distribution::Transposed),
        (Distribution::Blocks, Distribution::Blocks),
        (Distribution::Cyclic, Distribution::Cyclic),
    ];

    /// The name on the command line ([`ALL`](Self::ALL) has an example).
    pub fn name(self) -> &'static str {
        match self {
            Distribution::Cyclic => "cyclic",
            Distribution::Blocks => "blocks",
            Distribution::Transposed => "transposed",
        }
    }

    /// The device and the position on it of element `i` of a vector of `n` elements
    /// over `g` devices.
    ///
    /// ```
    /// use fermat_dsl::derive::Distribution;
    /// assert_eq!(Distribution::Cyclic.place(5, 16, 2), (1, 2));
    /// assert_eq!(Distribution::Blocks.place(5, 16, 2), (0, 5));
    /// // M = 8, M/G = 4: 5 = 0·8 + 1·4 + 1 lives on device 1 at 0·4 + 1.
    /// assert_eq!(Distribution::Transposed.place(5, 16, 2), (1, 1));
    /// ```
    pub fn place(self, i: u64, n: u64, g: u64) -> (u64, u64) {
        let m = n / g;
        match self {
            Distribution::Cyclic => (i % g, i / g),
            Distribution::Blocks => (i / m, i % m),
            Distribution::Transposed => {
                let (k, rest) = (i / m, i % m);
                let s = m / g;
                (rest / s, k * s + rest % s)
            }
        }
    }
}

impl fmt::Display for Distribution {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Distribution {
    type Err = DeriveError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Distribution::ALL
            .into_iter()
            .find(|d| d.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| DeriveError::UnknownDistribution {
                name: s.to_string(),
            })
    }
}

/// One stage of a split, in the order a forward transform runs them: what a runtime
/// executes, device by device.
///
/// ```
/// use fermat_dsl::derive::{derive_devices, DeviceStage, Distribution, Options, Strategy};
/// use fermat_dsl::formula::Formula;
///
/// let (blocks, ct) = (Distribution::Blocks, Strategy::Ct);
/// let split = derive_devices(&Formula::Dft(64), 2, blocks, blocks, ct, &Options::radix(4))?;
/// let kinds: Vec<&str> = split
///     .stages()
///     .iter()
///     .map(|s| match s {
///         DeviceStage::Local(_) => "local",
///         DeviceStage::Twiddle => "twiddle",
///         DeviceStage::Exchange => "exchange",
///         DeviceStage::TwiddleExchanged => "twiddle exchanged",
///     })
///     .collect();
/// // The six-step form: three exchanges between local work.
/// assert_eq!(kinds, ["local", "exchange", "local", "twiddle", "exchange", "local", "exchange"]);
/// assert_eq!(split.stages()[0], DeviceStage::Local(Formula::stride(32, 2)?));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DeviceStage {
    /// Every device applies this formula of N/G points to its own block.
    Local(Formula),
    /// D(G, M): device d scales its element j by ω_N^(d·j).
    Twiddle,
    /// The all-to-all exchange E: chunk c of device d (N/G² elements) goes to slot d of
    /// device c.
    Exchange,
    /// Device e scales its element d·s + j by ω_N^(d·(G·j + e)): D(G, M) read on the
    /// exchanged, digit-rotated index (a cyclic output's twiddles).
    ///
    /// ```
    /// use fermat_dsl::derive::{derive_devices, DeviceStage, Distribution, Options, Strategy};
    /// use fermat_dsl::formula::Formula;
    ///
    /// let split = derive_devices(
    ///     &Formula::Dft(64),
    ///     2,
    ///     Distribution::Cyclic,
    ///     Distribution::Cyclic,
    ///     Strategy::Ct,
    ///     &Options::radix(4),
    /// )?;
    /// assert_eq!(split.exchanges(), 1);
    /// assert_eq!(
    ///     split.stages()[3..],
    ///     [
    ///         DeviceStage::Exchange,
    ///         DeviceStage::TwiddleExchanged,
    ///         DeviceStage::Local("DFT(2) ⊗ I(16)".parse()?),
    ///     ]
    /// );
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    TwiddleExchanged,
}

/// `DFT(N)` derived for G devices, with where its input and output live.
///
/// ```
/// use fermat_dsl::derive::{derive_devices, DeviceStage, Distribution, Options, Strategy};
/// use fermat_dsl::formula::Formula;
///
/// let split = derive_devices(
///     &Formula::Dft(64),
///     4,
///     Distribution::Cyclic,
///     Distribution::Transposed,
///     Strategy::Ct,
///     &Options::radix(16),
/// )?;
/// assert_eq!(split.exchanges(), 1);
/// assert_eq!(
///     split.stages()[2..],
///     [DeviceStage::Exchange, DeviceStage::Local("DFT(4) ⊗ I(4)".parse()?)]
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceSplit {
    /// N.
    pub n: u64,
    /// G, the number of devices.
    pub devices: u64,
    /// Where the input lives: cyclic or blocks.
    pub input: Distribution,
    /// Where the output lives: blocks, transposed, or cyclic (with a cyclic input).
    pub output: Distribution,
    /// DFT(N) rewritten into local factors and exchanges (the whole identity: with a
    /// transposed output the last exchange is in the formula, and left out when it runs).
    pub derivation: Derivation,
}

/// Derives `formula` = DFT(N) for `devices` = G devices (a power of two, N ≥ G²), the
/// local DFT(N/G) (DFT(N/G²) for a cyclic output) by `strategy` with `options`.
///
/// ```
/// use fermat_dsl::derive::{
///     derive_devices, DeriveError, DeviceStage, Distribution, Options, Strategy,
/// };
/// use fermat_dsl::formula::Formula;
///
/// let (blocks, ct) = (Distribution::Blocks, Strategy::Ct);
/// let split = derive_devices(&Formula::Dft(64), 2, blocks, blocks, ct, &Options::radix(4))?;
/// assert_eq!((split.local_size(), split.exchanges()), (32, 3));
/// assert_eq!(split.stages().last(), Some(&DeviceStage::Exchange)); // back to blocks
/// // Four devices need N ≥ 4² points.
/// let err = derive_devices(&Formula::Dft(8), 4, blocks, blocks, ct, &Options::radix(2));
/// assert_eq!(err, Err(DeriveError::TooFewPointsForDevices { n: 8, devices: 4, min: 16 }));
/// # Ok::<(), DeriveError>(())
/// ```
pub fn derive_devices(
    formula: &Formula,
    devices: u64,
    input: Distribution,
    output: Distribution,
    strategy: Strategy,
    options: &Options,
) -> Result<DeviceSplit, DeriveError> {
    let &Formula::Dft(n) = formula else {
        return Err(DeriveError::NotADft {
            formula: formula.to_string(),
        });
    };
    check_split(n, devices, input, output)?;
    let g = devices;
    let mut r = Rewriter::new(formula.clone());
    if output == Distribution::Cyclic {
        fold(&mut r, g, n / (g * g), strategy, options)?;
    } else {
        let m = n / g;
        let local = derive(&Formula::Dft(m), strategy, options)?;
        // [DFT(G) ⊗ I(M), D(G, M), I(G) ⊗ DFT(M), L(N, G)]
        r.apply_at(rule("cooley_tukey"), &Params::radix(m), &[])?;
        r.embed(&local, &[2, 1])?;
        if input == Distribution::Blocks {
            r.apply_at(rule("device_stride"), &Params::devices(g), &[3])?;
        }
        r.apply_at(rule("device_commute"), &Params::devices(g), &[0])?;
    }
    r.normalise();
    Ok(DeviceSplit {
        n,
        devices,
        input,
        output,
        derivation: r.finish(),
    })
}

fn rule(name: &str) -> &'static rules::Rule {
    rules::find(name).expect("the registry has the device rules")
}

/// Cyclic in and out: `device_fold` at the root, its DFT(s) derived by the strategy.
fn fold(
    r: &mut Rewriter,
    g: u64,
    s: u64,
    strategy: Strategy,
    options: &Options,
) -> Result<(), DeriveError> {
    r.apply_at(rule("device_fold"), &Params::devices(g), &[])?;
    // DFT(1) is left to normalisation, which makes it I(1); some strategies (prop3)
    // cannot derive it.
    if s > 1 {
        let local = derive(&Formula::Dft(s), strategy, options)?;
        // Factor 6 is I(G) ⊗ I(G) ⊗ DFT(s).
        r.embed(&local, &[6, 2])?;
    }
    Ok(())
}

fn check_split(
    n: u64,
    g: u64,
    input: Distribution,
    output: Distribution,
) -> Result<(), DeriveError> {
    if !n.is_power_of_two() {
        return Err(DeriveError::SizeNotPowerOfTwo { n });
    }
    if g < 2 || !g.is_power_of_two() {
        return Err(DeriveError::DevicesNotPowerOfTwo { devices: g });
    }
    let min = g.saturating_mul(g);
    if n < min {
        return Err(DeriveError::TooFewPointsForDevices { n, devices: g, min });
    }
    if input == Distribution::Transposed {
        return Err(DeriveError::DistributionNotAllowed {
            side: "input",
            distribution: input.name(),
            allowed: "cyclic or blocks",
        });
    }
    if output == Distribution::Cyclic && input != Distribution::Cyclic {
        return Err(DeriveError::DistributionsNotJoined {
            input: input.name(),
            output: output.name(),
            reason: "a cyclic output needs a cyclic input",
        });
    }
    Ok(())
}

impl DeviceSplit {
    /// M = N/G, the points on each device ([`derive_devices`] has an example).
    pub fn local_size(&self) -> u64 {
        self.n / self.devices
    }

    /// The stages a forward transform runs, first to last: the factors of the derived
    /// formula from right to left, less the distributions (L(N, G) for a cyclic input,
    /// the last exchange for a transposed output, L(N, M) for a cyclic output).
    /// ([`DeviceStage`] has an example.)
    ///
    /// A cyclic output's stages are [Local(DFT(G) ⊗ I(s)), Local(D(G, s)),
    /// Local(I(G) ⊗ DFT(s) as derived), Exchange, TwiddleExchanged, Local(DFT(G) ⊗ I(s))],
    /// the twiddles being the three factors L(N, G) · D(G, M) · L(N, M). With N = G²
    /// (s = 1) normalisation removes DFT(1), D(G, 1) and the rows' transforms, and cancels
    /// the twiddles' L(G², G) against the exchange, itself L(G², G); D(G, G) is then left
    /// before the exchange. It is symmetric, so it equals the twiddles after it, and the
    /// stages are [Local(DFT(G)), Exchange, TwiddleExchanged, Local(DFT(G))].
    pub fn stages(&self) -> Vec<DeviceStage> {
        let (g, n) = (self.devices, self.n);
        let whole = self.derivation.final_formula();
        let Formula::Compose(factors) = whole else {
            unreachable!("a split is a composition of its stages: {whole}")
        };
        let mut factors: Vec<&Formula> = factors.iter().rev().collect();
        if self.input == Distribution::Cyclic {
            factors.remove(0);
        }
        if self.output == Distribution::Cyclic {
            let last = factors.pop();
            assert_eq!(last, Some(&stride(n, n / g)), "the output distribution");
            return cyclic_stages(g, n, &factors);
        }
        let mut stages: Vec<DeviceStage> = factors.into_iter().map(|f| stage(g, n, f)).collect();
        if self.output == Distribution::Transposed {
            assert_eq!(stages.pop(), Some(DeviceStage::Exchange));
        }
        stages
    }

    /// How many exchanges a forward transform runs ([`derive_devices`] has an example).
    pub fn exchanges(&self) -> usize {
        self.stages()
            .iter()
            .filter(|s| **s == DeviceStage::Exchange)
            .count()
    }
}

fn e_normal(g: u64) -> Formula {
    stride(g * g, g)
}

fn stride(n: u64, m: u64) -> Formula {
    Formula::Stride { n, m }
}

/// The stage of one factor of a split of DFT(n) over `g` devices.
fn stage(g: u64, n: u64, f: &Formula) -> DeviceStage {
    // With N = G², E = L(G², G) ⊗ I(1) is normalised into L(G², G).
    if *f == exchange(g, n) || (n == g * g && *f == e_normal(g)) {
        return DeviceStage::Exchange;
    }
    match f {
        Formula::Twiddle { m, n: cols } if (*m, *cols) == (g, n / g) => DeviceStage::Twiddle,
        // I(G) ⊗ A, or I(G·a) ⊗ A where normalisation merged I(G) with A's own I(a).
        Formula::Tensor(fs) => match fs.first() {
            Some(&Formula::Identity(a)) if a % g == 0 => {
                let mut rest = fs[1..].to_vec();
                if a > g {
                    rest.insert(0, Formula::Identity(a / g));
                }
                DeviceStage::Local(match rest.len() {
                    1 => rest.pop().expect("one factor"),
                    _ => Formula::Tensor(rest),
                })
            }
            _ => unreachable!("{f} is neither local nor an exchange"),
        },
        other => unreachable!("{other} is neither local nor an exchange"),
    }
}

/// The stages of a split with a cyclic output, from its factors right to left less the
/// distributions: L(N, G) · D(G, M) · L(N, M) is one stage, the twiddles on the exchanged
/// index (see [`DeviceSplit::stages`] for N = G²).
fn cyclic_stages(g: u64, n: u64, factors: &[&Formula]) -> Vec<DeviceStage> {
    let m = n / g;
    let twiddles = [stride(n, m), Formula::Twiddle { m: g, n: m }, stride(n, g)];
    // With N = G²: D(G, G) before the exchange L(G², G).
    let square = [Formula::Twiddle { m: g, n: g }, e_normal(g)];
    let starts_with = |rest: &[&Formula], pattern: &[Formula]| {
        rest.len() >= pattern.len() && rest.iter().zip(pattern).all(|(a, b)| *a == b)
    };
    let mut stages = Vec::new();
    let mut rest = factors;
    while let Some(&f) = rest.first() {
        if starts_with(rest, &twiddles) {
            stages.push(DeviceStage::TwiddleExchanged);
            rest = &rest[twiddles.len()..];
        } else if n == g * g && starts_with(rest, &square) {
            stages.extend([DeviceStage::Exchange, DeviceStage::TwiddleExchanged]);
            rest = &rest[square.len()..];
        } else {
            stages.push(stage(g, n, f));
            rest = &rest[1..];
        }
    }
    stages
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field::{Field, Fp32, Fp64};
    use crate::interp::Interpreter;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;
    use Distribution::{Blocks, Cyclic, Transposed};

    type Elem = <Fp64 as Field>::Elem;

    /// (N, G), N = G² among them.
    const SIZES: [(u64, u64); 7] = [
        (4, 2),
        (64, 2),
        (64, 4),
        (64, 8),
        (4096, 8),
        (256, 16),
        (256, 4),
    ];

    const PAIRS: [(Distribution, Distribution); 5] = Distribution::JOINED;

    fn split(n: u64, g: u64, input: Distribution, output: Distribution) -> DeviceSplit {
        derive_devices(
            &Formula::Dft(n),
            g,
            input,
            output,
            Strategy::Ct,
            &Options::radix(4),
        )
        .unwrap()
    }

    #[test]
    fn every_distribution_checks_out() {
        let f = Fp32::new(469762049).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        for (n, g) in SIZES {
            for (input, output) in PAIRS {
                let s = split(n, g, input, output);
                let report = s.derivation.check(&f, &mut rng).unwrap();
                assert!(report.all_agree(), "N = {n}, G = {g}, {input} → {output}");
                let want = 1 + usize::from(input == Blocks) + usize::from(output == Blocks);
                assert_eq!(s.exchanges(), want, "N = {n}, G = {g}, {input} → {output}");
            }
        }
    }

    /// A cyclic output's stages: the fold, the rows' transforms, one exchange, the
    /// twiddles and the combination, whatever normalisation did to the formula.
    #[test]
    fn a_cyclic_output_folds_exchanges_and_combines() {
        let local = |f: &str| DeviceStage::Local(f.parse().unwrap());
        for (n, g) in SIZES {
            let s = n / (g * g);
            let stages = split(n, g, Cyclic, Cyclic).stages();
            let combine = local(&format!("DFT({g}) ⊗ I({s})"));
            let want = if s == 1 {
                let dft = local(&format!("DFT({g})"));
                vec![
                    dft.clone(),
                    DeviceStage::Exchange,
                    DeviceStage::TwiddleExchanged,
                    dft,
                ]
            } else {
                let rows = derive(&Formula::Dft(s), Strategy::Ct, &Options::radix(4))
                    .unwrap()
                    .final_formula();
                vec![
                    combine.clone(),
                    local(&format!("D({g},{s})")),
                    DeviceStage::Local(Formula::tensor(vec![Formula::Identity(g), rows]).unwrap()),
                    DeviceStage::Exchange,
                    DeviceStage::TwiddleExchanged,
                    combine,
                ]
            };
            assert_eq!(stages, want, "N = {n}, G = {g}");
        }
    }

    /// The blocks of G devices after the stages of `split` run on `x`, as the devices
    /// would run them, each exchange a permutation of blocks.
    fn run_on_blocks(
        interp: &mut Interpreter<Fp64>,
        split: &DeviceSplit,
        x: &[Elem],
    ) -> Vec<Vec<Elem>> {
        let f = interp.field().clone();
        let (n, g) = (split.n, split.devices);
        let (m, s) = ((n / g) as usize, (n / g / g) as usize);
        let omega = interp.root(n).unwrap();
        let power = |e: usize| f.pow_u64(&omega, e as u64);
        let mut blocks = vec![vec![f.zero(); m]; g as usize];
        for (i, v) in x.iter().enumerate() {
            let (d, at) = split.input.place(i as u64, n, g);
            blocks[d as usize][at as usize] = *v;
        }
        for stage in split.stages() {
            match stage {
                DeviceStage::Local(local) => {
                    for b in &mut blocks {
                        *b = interp.apply(&local, b).unwrap();
                    }
                }
                DeviceStage::Twiddle => {
                    for (d, b) in blocks.iter_mut().enumerate() {
                        for (j, v) in b.iter_mut().enumerate() {
                            *v = f.mul(v, &power(d * j));
                        }
                    }
                }
                DeviceStage::TwiddleExchanged => {
                    for (e, b) in blocks.iter_mut().enumerate() {
                        for (i, v) in b.iter_mut().enumerate() {
                            let (d, j) = (i / s, i % s);
                            *v = f.mul(v, &power(d * (g as usize * j + e)));
                        }
                    }
                }
                DeviceStage::Exchange => {
                    let old = blocks.clone();
                    for (d, b) in old.iter().enumerate() {
                        for (c, chunk) in b.chunks(s).enumerate() {
                            blocks[c][d * s..(d + 1) * s].copy_from_slice(chunk);
                        }
                    }
                }
            }
        }
        blocks
    }

    /// Runs the stages as G separate devices would and compares with the DFT: the stages
    /// mean what the runtime makes them.
    #[test]
    fn the_stages_run_on_separate_blocks() {
        let f = Fp64::new(0xffff_ffff_0000_0001).unwrap();
        let mut interp = Interpreter::new(&f);
        for (n, g) in SIZES {
            let x: Vec<_> = (0..n).map(|i| f.from_u64(i * i + 7)).collect();
            let want = interp.apply(&Formula::Dft(n), &x).unwrap();
            for (input, output) in PAIRS {
                let blocks = run_on_blocks(&mut interp, &split(n, g, input, output), &x);
                for (i, v) in want.iter().enumerate() {
                    let (d, at) = output.place(i as u64, n, g);
                    assert_eq!(
                        blocks[d as usize][at as usize], *v,
                        "N = {n}, G = {g}, {input} → {output}"
                    );
                }
            }
        }
    }

    #[test]
    fn bad_splits_are_named() {
        let result = |n, g, input, output| {
            derive_devices(
                &Formula::Dft(n),
                g,
                input,
                output,
                Strategy::Ct,
                &Options::default(),
            )
        };
        let err = |n, g, input, output| result(n, g, input, output).unwrap_err().to_string();
        let e = err(64, 3, Cyclic, Transposed);
        assert!(
            e.contains("G = 3 devices") && e.contains("power of two"),
            "{e}"
        );
        let e = err(64, 1, Cyclic, Transposed);
        assert!(e.contains("G = 1 devices"), "{e}");
        let e = err(32, 8, Cyclic, Transposed);
        assert!(e.contains("N ≥ G² = 64"), "{e}");
        let e = err(64, 2, Transposed, Blocks);
        assert!(e.contains("input of a split cannot be transposed"), "{e}");
        assert_eq!(
            result(64, 2, Blocks, Cyclic),
            Err(DeriveError::DistributionsNotJoined {
                input: "blocks",
                output: "cyclic",
                reason: "a cyclic output needs a cyclic input",
            })
        );
        let e = err(64, 2, Blocks, Cyclic);
        assert!(
            e.contains("cannot take a blocks input to a cyclic output")
                && e.contains("a cyclic output needs a cyclic input"),
            "{e}"
        );
        let e = err(64, 2, Transposed, Cyclic);
        assert!(e.contains("input of a split cannot be transposed"), "{e}");
        assert!(result(64, 2, Cyclic, Cyclic).is_ok());
        assert!("rows".parse::<Distribution>().is_err());
        assert_eq!("Blocks".parse::<Distribution>(), Ok(Blocks));
    }
}
