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
//!   at k·M/G + j (k < G, j < M/G).
//!
//! Cyclic in and transposed out take one exchange, blocks in and out three (the six-step
//! form). The inverse of a split runs the same stages backwards (transposed or blocks in,
//! cyclic or blocks out), so that a product of polynomials held cyclically needs one
//! exchange per transform.

use super::{derive, Derivation, DeriveError, Options, Rewriter, Strategy};
use crate::formula::Formula;
use crate::rules::{self, exchange, Params};
use std::fmt;
use std::str::FromStr;

/// How a vector of N elements is laid out over G devices, N/G elements each.
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
    pub const ALL: [Distribution; 3] = [
        Distribution::Cyclic,
        Distribution::Blocks,
        Distribution::Transposed,
    ];

    /// The name on the command line.
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

/// One stage of a split, in the order a forward transform runs them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DeviceStage {
    /// Every device applies this formula of N/G points to its own block.
    Local(Formula),
    /// D(G, M): device d scales its element j by ω_N^(d·j).
    Twiddle,
    /// The all-to-all exchange E: chunk c of device d (N/G² elements) goes to slot d of
    /// device c.
    Exchange,
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
    /// Where the output lives: blocks or transposed.
    pub output: Distribution,
    /// DFT(N) rewritten into local factors and exchanges (the whole identity: with a
    /// transposed output the last exchange is in the formula, and left out when it runs).
    pub derivation: Derivation,
}

/// Derives `formula` = DFT(N) for `devices` = G devices (a power of two, N ≥ G²), the
/// local DFT(N/G) by `strategy` with `options`.
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
    let m = n / g;
    let local = derive(&Formula::Dft(m), strategy, options)?;
    let rule = |name| rules::find(name).expect("the registry has the device rules");
    let mut r = Rewriter::new(formula.clone());
    // [DFT(G) ⊗ I(M), D(G, M), I(G) ⊗ DFT(M), L(N, G)]
    r.apply_at(rule("cooley_tukey"), &Params::radix(m), &[])?;
    r.embed(&local, &[2, 1])?;
    if input == Distribution::Blocks {
        r.apply_at(rule("device_stride"), &Params::devices(g), &[3])?;
    }
    r.apply_at(rule("device_commute"), &Params::devices(g), &[0])?;
    r.normalise();
    Ok(DeviceSplit {
        n,
        devices,
        input,
        output,
        derivation: r.finish(),
    })
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
    if output == Distribution::Cyclic {
        return Err(DeriveError::DistributionNotAllowed {
            side: "output",
            distribution: output.name(),
            allowed: "blocks or transposed",
        });
    }
    Ok(())
}

impl DeviceSplit {
    /// M = N/G, the points on each device.
    pub fn local_size(&self) -> u64 {
        self.n / self.devices
    }

    /// The stages a forward transform runs, first to last: the factors of the derived
    /// formula from right to left, less the distributions (L(N, G) for a cyclic input,
    /// the last exchange for a transposed output).
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
        let e = exchange(g, n);
        // With N = G², E = L(G², G) ⊗ I(1) is normalised into L(G², G).
        let is_exchange = |f: &Formula| *f == e || (n == g * g && *f == e_normal(g));
        let mut stages: Vec<DeviceStage> = factors
            .into_iter()
            .map(|f| match f {
                f if is_exchange(f) => DeviceStage::Exchange,
                Formula::Twiddle { m, n: cols } if (*m, *cols) == (g, n / g) => {
                    DeviceStage::Twiddle
                }
                Formula::Tensor(fs) if fs.first() == Some(&Formula::Identity(g)) => {
                    DeviceStage::Local(match &fs[1..] {
                        [one] => one.clone(),
                        rest => Formula::Tensor(rest.to_vec()),
                    })
                }
                other => unreachable!("{other} is neither local nor an exchange"),
            })
            .collect();
        if self.output == Distribution::Transposed {
            assert_eq!(stages.pop(), Some(DeviceStage::Exchange));
        }
        stages
    }

    /// How many exchanges a forward transform runs.
    pub fn exchanges(&self) -> usize {
        self.stages()
            .iter()
            .filter(|s| **s == DeviceStage::Exchange)
            .count()
    }
}

fn e_normal(g: u64) -> Formula {
    Formula::Stride { n: g * g, m: g }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field::{Field, Fp32, Fp64};
    use crate::interp::Interpreter;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

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
        for (n, g) in [(4, 2), (64, 2), (64, 4), (64, 8), (4096, 8), (256, 16)] {
            for input in [Distribution::Cyclic, Distribution::Blocks] {
                for output in [Distribution::Blocks, Distribution::Transposed] {
                    let s = split(n, g, input, output);
                    let report = s.derivation.check(&f, &mut rng).unwrap();
                    assert!(report.all_agree(), "N = {n}, G = {g}, {input} → {output}");
                    let want = 1
                        + usize::from(input == Distribution::Blocks)
                        + usize::from(output == Distribution::Blocks);
                    assert_eq!(s.exchanges(), want, "N = {n}, G = {g}, {input} → {output}");
                }
            }
        }
    }

    /// Runs the stages as G separate devices would, each exchange a permutation of
    /// blocks, and compares with the DFT: the stages mean what the runtime makes them.
    #[test]
    fn the_stages_run_on_separate_blocks() {
        let f = Fp64::new(0xffff_ffff_0000_0001).unwrap();
        let mut interp = Interpreter::new(&f);
        let (n, g) = (256u64, 4u64);
        let (m, s) = ((n / g) as usize, (n / g / g) as usize);
        let x: Vec<_> = (0..n).map(|i| f.from_u64(i * i + 7)).collect();
        let want = interp.apply(&Formula::Dft(n), &x).unwrap();
        let omega = interp.root(n).unwrap();
        for input in [Distribution::Cyclic, Distribution::Blocks] {
            for output in [Distribution::Blocks, Distribution::Transposed] {
                let split = split(n, g, input, output);
                let mut blocks = vec![vec![f.zero(); m]; g as usize];
                for (i, v) in x.iter().enumerate() {
                    let (d, at) = input.place(i as u64, n, g);
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
                                    *v = f.mul(v, &f.pow_u64(&omega, (d * j) as u64));
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
                for (i, v) in want.iter().enumerate() {
                    let (d, at) = output.place(i as u64, n, g);
                    assert_eq!(blocks[d as usize][at as usize], *v, "{input} → {output}");
                }
            }
        }
    }

    #[test]
    fn bad_splits_are_named() {
        let err = |n, g, input, output| {
            derive_devices(
                &Formula::Dft(n),
                g,
                input,
                output,
                Strategy::Ct,
                &Options::default(),
            )
            .unwrap_err()
            .to_string()
        };
        use Distribution::*;
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
        let e = err(64, 2, Cyclic, Cyclic);
        assert!(e.contains("output of a split cannot be cyclic"), "{e}");
        assert!("rows".parse::<Distribution>().is_err());
        assert_eq!("Blocks".parse::<Distribution>(), Ok(Blocks));
    }
}
