//! The word-prime NTT: decimation in frequency (natural order in, bit-reversed out) and in
//! time (bit-reversed in, natural out) with radix-4 passes (two radix-2 layers per pass
//! over memory), recursive cache blocking and rayon; an explicit, tiled bit-reversal
//! permutation only where both ends want the same order.
//!
//! Layer s (stride s, a power of two below n) pairs the elements k + j and k + j + s of
//! every chunk of 2s starting at k, j < s, with the twiddle ω_{2s}^j (ω_{2s} = ω_n^(n/2s)):
//!
//! - DIF (Gentleman–Sande): (a, b) ← (a + b, (a − b)·ω_{2s}^j), for s = n/2, …, 1; the
//!   output is y_i = Σ_j ω_n^(ij) x_j at address bitrev(i).
//! - DIT (Cooley–Tukey): (a, b) ← (a + ω_{2s}^j b, a − ω_{2s}^j b), for s = 1, …, n/2,
//!   from x_j at address bitrev(j), gives y_i at address i.
//!
//! After layer s of the DIF, every chunk of 2s is an independent DIF of size 2s (and before
//! layer s of the DIT, every chunk of 2s is one): so once a chunk fits in cache it is
//! finished there (a block), and above that the array is split recursively into quarters
//! that are transformed in parallel.

use crate::error::Error;
use fermat_codegen::plan::{Direction, Order};
use fermat_dsl::FieldError;
use num_bigint::BigUint;
use rayon::prelude::*;

use super::scalar::{pow_mod, twiddles, Mont, Scalar, Word};

/// The butterflies of one transform (one prime, root and direction), on contiguous runs.
///
/// Twiddles are read from the backend's own table: layer s at offset j is ω_{2s}^j.
/// Runs passed to `dif2`/`dit2`/`dif4`/`dit4` have a length that is a multiple of
/// `2^(tail_bits − 1)` (the vector width), and chunks passed to the tails a multiple of
/// `2^tail_bits`.
pub(crate) trait Butterflies: Sync {
    /// The word.
    type W: Word;
    /// log2 of the chunk the tails handle: they run the layers s < 2^tail_bits.
    fn tail_bits(&self) -> u32;
    /// DIF layer s on `a[j] = x[k + j0 + j]`, `b[j] = x[k + j0 + j + s]`.
    fn dif2(&self, s: usize, j0: usize, a: &mut [Self::W], b: &mut [Self::W]);
    /// DIT layer s on the same pairs; `last`: the transform's last layer, whose outputs
    /// must be canonical.
    fn dit2(&self, s: usize, j0: usize, a: &mut [Self::W], b: &mut [Self::W], last: bool);
    /// DIF layers s then s/2 on the quarters `q[i][j] = x[k + j0 + j + i·s/2]` of a chunk.
    fn dif4(&self, s: usize, j0: usize, q: [&mut [Self::W]; 4]);
    /// DIT layers s/2 then s on the same quarters (`last` as for `dit2`).
    fn dit4(&self, s: usize, j0: usize, q: [&mut [Self::W]; 4], last: bool);
    /// DIF layers 2^(tail_bits−1), …, 1 on every chunk of 2^tail_bits of `x`.
    fn tail_dif(&self, x: &mut [Self::W]);
    /// DIT layers 1, …, 2^(tail_bits−1) on every chunk of 2^tail_bits of `x`.
    fn tail_dit(&self, x: &mut [Self::W]);
    /// Multiplies by n^(−1) (inverse transforms; nothing for forward ones).
    fn scale(&self, x: &mut [Self::W]);
    /// Makes values kept below 2p between layers canonical (nothing where they already
    /// are).
    fn canonical(&self, _x: &mut [Self::W]) {}
    /// Whether any value of `x` is p or more (the input check).
    fn any_out_of_range(&self, x: &[Self::W]) -> bool;
    /// The instruction set.
    fn kernels(&self) -> Kernels;
}

/// Which instructions the word-prime CPU transform may use.
///
/// ```
/// use fermat::cpu::{Isa, Kernels, WordNtt};
/// use fermat::{Direction, Order};
///
/// // The portable butterflies, whatever the CPU: the reference the SIMD ones are tested against.
/// let ntt = WordNtt::<u32>::new(17, 4, 4, Direction::Forward, Order::Natural, Order::Natural, Isa::Portable)?;
/// assert_eq!(ntt.kernels(), Kernels::Portable);
/// # Ok::<(), fermat::Error>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Isa {
    /// The fastest the running CPU supports (AVX-512 where detected, else portable).
    #[default]
    Auto,
    /// Portable scalar Rust only.
    Portable,
}

/// The instruction set a [`WordNtt`] runs on ([`Isa`] has an example).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kernels {
    /// Portable scalar Montgomery butterflies.
    Portable,
    /// AVX-512: 16 lanes of u32 Montgomery (p < 2^31) or 8 lanes of u64 Shoup products
    /// with an approximate quotient (p < 2^62).
    Avx512,
}

/// Elements per cache block: the layers below it run on one block while it stays in L1.
const BLOCK_BYTES: usize = 16 << 10;
/// Butterflies per rayon task in the passes over whole (sub)arrays.
const GROUP: usize = 1 << 11;

/// Butterflies behind one pointer, whatever their word and instruction set.
trait Engine<W>: Send + Sync {
    fn kernels(&self) -> Kernels;
    fn any_out_of_range(&self, x: &[W]) -> bool;
    /// Runs the transforms; `false` (and `data` unchanged) if the input check that the
    /// orders fold into the bit reversal found a value ≥ p.
    fn run(&self, log_n: u32, orders: (Order, Order), data: &mut [W]) -> bool;
}

impl<B: Butterflies + Send> Engine<B::W> for B {
    fn kernels(&self) -> Kernels {
        Butterflies::kernels(self)
    }
    fn any_out_of_range(&self, x: &[B::W]) -> bool {
        Butterflies::any_out_of_range(self, x)
    }
    fn run(&self, log_n: u32, orders: (Order, Order), data: &mut [B::W]) -> bool {
        run(self, log_n, orders, data)
    }
}

/// A word-prime NTT of one size, root, direction and pair of orders, with its twiddles
/// precomputed: exactly the transform of a `fermat` kernel plan with the same parameters,
/// on canonical residues (`u32` for primes below 2^32, `u64` below 2^64), in place.
///
/// Forward: y_i = Σ_j ω^(ij) x_j; inverse: x_j = n^(−1) Σ_i ω^(−ij) y_i (Direction in
/// fermat-codegen). Orders say where element i lives: at i ([`Order::Natural`]) or at
/// bitrev(i) ([`Order::BitReversed`]).
///
/// ```
/// use fermat::cpu::{Isa, WordNtt};
/// use fermat::{Direction, Order};
///
/// // n = 4 over F_17 at ω = 4 (4^2 = −1): y_i = Σ_j 4^(ij) x_j.
/// let ntt = WordNtt::<u32>::new(17, 4, 4, Direction::Forward, Order::Natural, Order::Natural, Isa::Auto)?;
/// assert_eq!(ntt.n(), 4);
/// println!("{:?}", ntt.kernels()); // the instruction set of this machine's butterflies
/// let mut x = [0, 1, 0, 0, /* a second transform: */ 1, 0, 0, 0];
/// ntt.apply(&mut x)?;
/// assert_eq!(x, [1, 4, 16, 13, 1, 1, 1, 1]);
/// // Bit-reversed output, as a product's forward transforms leave it:
/// let dif = WordNtt::<u32>::new(17, 4, 4, Direction::Forward, Order::Natural, Order::BitReversed, Isa::Auto)?;
/// let mut y = [0, 1, 0, 0];
/// dif.apply(&mut y)?;
/// assert_eq!(y, [1, 16, 4, 13]);
/// // A value that is not a residue is refused before anything is written.
/// assert!(ntt.apply(&mut [17, 0, 0, 0]).is_err());
/// // 2 is not a primitive 4th root modulo 17 (2^4 = −1): refused.
/// assert!(WordNtt::<u32>::new(17, 2, 4, Direction::Forward, Order::Natural, Order::Natural, Isa::Auto).is_err());
/// # Ok::<(), fermat::Error>(())
/// ```
pub struct WordNtt<W: Word> {
    p: W,
    log_n: u32,
    input_order: Order,
    output_order: Order,
    engine: Box<dyn Engine<W>>,
}

impl<W: Word> std::fmt::Debug for WordNtt<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WordNtt")
            .field("p", &self.p)
            .field("n", &(1u64 << self.log_n))
            .field("input_order", &self.input_order)
            .field("output_order", &self.output_order)
            .field("kernels", &self.kernels())
            .finish()
    }
}

macro_rules! word_ntt_new {
    ($w:ty, $simd:expr) => {
        impl WordNtt<$w> {
            /// Plans the transform of `n` points modulo the odd prime `p` at `omega`, a
            /// primitive n-th root of unity (canonical value).
            ///
            /// Errors: [`FieldError::SizeNotPowerOfTwo`] unless n is a power of two,
            /// [`FieldError::NotOdd`] for an even p or p < 3,
            /// [`FieldError::SizeBeyondTwoAdicity`] unless n divides p − 1,
            /// [`FieldError::OutOfRange`] for `omega ≥ p`, and
            /// [`FieldError::NotPrimitiveRoot`] if `omega` is not a primitive n-th root.
            /// (That p is prime is the field's business: build it with `Fp32::new` /
            /// `Fp64::new`.) [`WordNtt`] has an example.
            pub fn new(
                p: $w,
                omega: $w,
                n: u64,
                direction: Direction,
                input_order: Order,
                output_order: Order,
                isa: Isa,
            ) -> Result<Self, Error> {
                if n == 0 || !n.is_power_of_two() {
                    return Err(FieldError::SizeNotPowerOfTwo { n }.into());
                }
                if p < 3 || p % 2 == 0 {
                    return Err(FieldError::NotOdd {
                        p: BigUint::from(p),
                    }
                    .into());
                }
                let two_adicity = (p - 1).trailing_zeros();
                if n.trailing_zeros() > two_adicity {
                    return Err(FieldError::SizeBeyondTwoAdicity { n, two_adicity }.into());
                }
                let (p64, w64) = (u64::from(p), u64::from(omega));
                if omega >= p {
                    return Err(FieldError::OutOfRange {
                        value: BigUint::from(omega),
                        p: BigUint::from(p),
                    }
                    .into());
                }
                let primitive =
                    pow_mod(w64, n, p64) == 1 && (n == 1 || pow_mod(w64, n / 2, p64) != 1);
                if !primitive {
                    return Err(FieldError::NotPrimitiveRoot {
                        root: BigUint::from(omega),
                        n,
                    }
                    .into());
                }
                let (root, scale) = match direction {
                    Direction::Forward => (w64, None),
                    Direction::Inverse => (
                        pow_mod(w64, n - 1, p64),
                        // n^(−1) = n^(p−2) (Fermat); n < p since n | p − 1.
                        Some(pow_mod(n % p64, p64 - 2, p64)),
                    ),
                };
                let arith = Mont::<$w>::new(p);
                let canonical = twiddles(&arith, p64, root, n as usize);
                let scale = scale.map(|c| c as $w);
                let log_n = n.trailing_zeros();
                let simd = match isa {
                    Isa::Portable => None,
                    Isa::Auto => $simd(p, &canonical, scale, log_n),
                };
                let engine = simd.unwrap_or_else(|| {
                    Box::new(Scalar::new(arith, &canonical, scale)) as Box<dyn Engine<$w>>
                });
                Ok(WordNtt {
                    p,
                    log_n,
                    input_order,
                    output_order,
                    engine,
                })
            }
        }
    };
}

type Simd<W> = Option<Box<dyn Engine<W>>>;

#[cfg(target_arch = "x86_64")]
fn simd32(p: u32, canonical: &[u32], scale: Option<u32>, log_n: u32) -> Simd<u32> {
    let b = super::avx512::Avx512::<u32>::new(p, canonical, scale, log_n)?;
    Some(Box::new(b))
}

#[cfg(target_arch = "x86_64")]
fn simd64(p: u64, canonical: &[u64], scale: Option<u64>, log_n: u32) -> Simd<u64> {
    let b = super::avx512::Avx512::<u64>::new(p, canonical, scale, log_n)?;
    Some(Box::new(b))
}

#[cfg(not(target_arch = "x86_64"))]
fn simd32(_: u32, _: &[u32], _: Option<u32>, _: u32) -> Simd<u32> {
    None
}

#[cfg(not(target_arch = "x86_64"))]
fn simd64(_: u64, _: &[u64], _: Option<u64>, _: u32) -> Simd<u64> {
    None
}

word_ntt_new!(u32, simd32);
word_ntt_new!(u64, simd64);

impl<W: Word> WordNtt<W> {
    /// The transform size ([`WordNtt`] has an example).
    pub fn n(&self) -> u64 {
        1 << self.log_n
    }

    /// The instruction set the butterflies run on ([`WordNtt`] has an example).
    pub fn kernels(&self) -> Kernels {
        self.engine.kernels()
    }

    /// Transforms every run of n elements of `data` in place (a batch), on all cores.
    ///
    /// Errors: [`Error::Length`] unless `data.len()` is a positive multiple of n;
    /// [`FieldError::OutOfRange`] (naming the first bad value) if any value is not below
    /// p — checked before anything is written. [`WordNtt`] has an example.
    pub fn apply(&self, data: &mut [W]) -> Result<(), Error> {
        let n = 1usize << self.log_n;
        if data.is_empty() || !data.len().is_multiple_of(n) {
            return Err(Error::Length {
                what: "data",
                len: data.len(),
                n: n as u64,
            });
        }
        let p = self.p;
        let orders = (self.input_order, self.output_order);
        // Bit-reversed to bit-reversed starts with a bit reversal, which checks the values
        // it moves (and is undone if one is out of range); the other orders check them in
        // a pass of their own, before anything is written.
        let checked_by_run = n > 1 && orders == (Order::BitReversed, Order::BitReversed);
        let over = !checked_by_run
            && data
                .par_chunks(1 << 14)
                .any(|c| self.engine.any_out_of_range(c));
        if over || !self.engine.run(self.log_n, orders, data) {
            let bad = data
                .iter()
                .find(|&&x| x >= p)
                .expect("a value ≥ p was seen");
            return Err(FieldError::OutOfRange {
                value: BigUint::from(bad.to_u64()),
                p: BigUint::from(p.to_u64()),
            }
            .into());
        }
        Ok(())
    }
}

fn run<B: Butterflies>(b: &B, log_n: u32, orders: (Order, Order), data: &mut [B::W]) -> bool {
    let n = 1usize << log_n;
    if n == 1 {
        // DFT_1 is the identity and 1^(−1) = 1.
        return true;
    }
    let block = (BLOCK_BYTES / std::mem::size_of::<B::W>()).max(1 << b.tail_bits());
    match orders {
        (Order::Natural, Order::BitReversed) => dif_all(b, data, n, block),
        (Order::BitReversed, Order::Natural) => dit_all(b, data, n, block),
        (Order::Natural, Order::Natural) => {
            dif_all(b, data, n, block);
            data.par_chunks_mut(n).for_each(bit_reverse);
        }
        (Order::BitReversed, Order::BitReversed) => {
            let check = |x: &[B::W]| b.any_out_of_range(x);
            let bad = data
                .par_chunks_mut(n)
                .map(|x| bit_reverse_tiled_dispatch(x, Some(&check)))
                .reduce(|| false, |a, c| a || c);
            if bad {
                // A permutation of order two: applying it again restores the input.
                data.par_chunks_mut(n).for_each(bit_reverse);
                return false;
            }
            dif_all(b, data, n, block);
        }
    }
    true
}

/// Runs the DIF of every transform of `data`: the blocks of all transforms together.
fn dif_all<B: Butterflies>(b: &B, data: &mut [B::W], n: usize, block: usize) {
    if n <= block {
        data.par_chunks_mut(n).for_each(|x| dif_block(b, x));
    } else {
        data.par_chunks_mut(n).for_each(|x| dif_rec(b, x, block));
    }
}

fn dit_all<B: Butterflies>(b: &B, data: &mut [B::W], n: usize, block: usize) {
    if n <= block {
        data.par_chunks_mut(n).for_each(|x| dit_block(b, x, true));
    } else {
        data.par_chunks_mut(n)
            .for_each(|x| dit_rec(b, x, block, true));
    }
}

/// Splits a chunk into its four quarters.
fn quarters<W>(x: &mut [W]) -> [&mut [W]; 4] {
    let q = x.len() / 4;
    let (a, rest) = x.split_at_mut(q);
    let (b, rest) = rest.split_at_mut(q);
    let (c, d) = rest.split_at_mut(q);
    [a, b, c, d]
}

/// One radix-4 DIF (or DIT) pass at the top of `x` (s = len/2), in parallel groups;
/// `last`: the DIT's final pass.
fn pass4<B: Butterflies>(b: &B, x: &mut [B::W], dif: bool, last: bool) {
    let s = x.len() / 2;
    let [q0, q1, q2, q3] = quarters(x);
    let g = GROUP.min(q0.len());
    (
        q0.par_chunks_mut(g),
        q1.par_chunks_mut(g),
        q2.par_chunks_mut(g),
        q3.par_chunks_mut(g),
    )
        .into_par_iter()
        .enumerate()
        .for_each(|(i, (a, c, d, e))| {
            if dif {
                b.dif4(s, i * g, [a, c, d, e]);
            } else {
                b.dit4(s, i * g, [a, c, d, e], last);
            }
        });
}

/// One radix-2 pass at the top of `x` (s = len/2), in parallel groups.
fn pass2<B: Butterflies>(b: &B, x: &mut [B::W], dif: bool, last: bool) {
    let s = x.len() / 2;
    let (lo, hi) = x.split_at_mut(s);
    let g = GROUP.min(s);
    lo.par_chunks_mut(g)
        .zip(hi.par_chunks_mut(g))
        .enumerate()
        .for_each(|(i, (a, c))| {
            if dif {
                b.dif2(s, i * g, a, c);
            } else {
                b.dit2(s, i * g, a, c, last);
            }
        });
}

fn dif_rec<B: Butterflies>(b: &B, x: &mut [B::W], block: usize) {
    let len = x.len();
    if len <= block {
        dif_block(b, x);
    } else if len / 4 >= block {
        pass4(b, x, true, false);
        x.par_chunks_mut(len / 4).for_each(|q| dif_rec(b, q, block));
    } else {
        pass2(b, x, true, false);
        x.par_chunks_mut(len / 2).for_each(|h| dif_rec(b, h, block));
    }
}

fn dit_rec<B: Butterflies>(b: &B, x: &mut [B::W], block: usize, top: bool) {
    let len = x.len();
    if len <= block {
        dit_block(b, x, top);
    } else if len / 4 >= block {
        x.par_chunks_mut(len / 4)
            .for_each(|q| dit_rec(b, q, block, false));
        pass4(b, x, false, top);
    } else {
        x.par_chunks_mut(len / 2)
            .for_each(|h| dit_rec(b, h, block, false));
        pass2(b, x, false, top);
    }
}

/// A whole DIF of a chunk that fits in cache (every layer below its length), then the
/// inverse's scaling while the chunk is still there.
fn dif_block<B: Butterflies>(b: &B, x: &mut [B::W]) {
    let tail = 1usize << b.tail_bits();
    let mut s = x.len() / 2;
    while s >= tail {
        if s / 2 >= tail {
            for c in x.chunks_exact_mut(2 * s) {
                b.dif4(s, 0, quarters(c));
            }
            s /= 4;
        } else {
            for c in x.chunks_exact_mut(2 * s) {
                let (lo, hi) = c.split_at_mut(s);
                b.dif2(s, 0, lo, hi);
            }
            s /= 2;
        }
    }
    b.tail_dif(x);
    b.scale(x);
    b.canonical(x);
}

/// A whole DIT of a chunk that fits in cache, scaled first for the inverse; `top`: the
/// chunk is the whole transform.
fn dit_block<B: Butterflies>(b: &B, x: &mut [B::W], top: bool) {
    b.scale(x);
    b.tail_dit(x);
    let len = x.len();
    let mut s = 1usize << b.tail_bits();
    while s < len {
        if 4 * s <= len {
            for c in x.chunks_exact_mut(4 * s) {
                b.dit4(2 * s, 0, quarters(c), false);
            }
            s *= 4;
        } else {
            for c in x.chunks_exact_mut(2 * s) {
                let (lo, hi) = c.split_at_mut(s);
                b.dit2(s, 0, lo, hi, false);
            }
            s *= 2;
        }
    }
    if top {
        b.canonical(x);
    }
}

/// A shared pointer for the tiles of the bit reversal: every task owns the two tiles it
/// swaps, and no tile belongs to two tasks.
#[derive(Clone, Copy)]
struct Tiles<W>(*mut W);
// SAFETY: see the type's documentation.
unsafe impl<W: Send> Send for Tiles<W> {}
unsafe impl<W: Send> Sync for Tiles<W> {}

impl<W> Tiles<W> {
    fn at(&self, i: usize) -> *mut W {
        // SAFETY: callers pass in-bounds addresses (see `bit_reverse`).
        unsafe { self.0.add(i) }
    }
}

fn reverse(i: usize, bits: u32) -> usize {
    if bits == 0 {
        0
    } else {
        i.reverse_bits() >> (usize::BITS - bits)
    }
}

/// x[i] ↔ x[bitrev(i)], in place.
///
/// With i = (a, b, c) — t high bits a, m middle bits b, t low bits c — bitrev(i) =
/// (rev c, rev b, rev a): the tile of b (2^t rows a of 2^t contiguous c) goes, transposed
/// and reversed, to the tile of rev b. Each task swaps one pair of tiles through two
/// small buffers, reading and writing whole rows of 2^t elements (Carter & Gatlin's
/// COBRA idea); the transposition happens in the buffers, in L1.
pub(crate) fn bit_reverse<W: Word>(x: &mut [W]) {
    bit_reverse_tiled_dispatch(x, None);
}

/// Values checked by `check` on their way (whole tiles at a time): whether any failed.
type Check<'a, W> = Option<&'a (dyn Fn(&[W]) -> bool + Sync)>;

/// [`bit_reverse`], also returning whether `check` failed on any value (all are moved).
fn bit_reverse_tiled_dispatch<W: Word>(x: &mut [W], check: Check<'_, W>) -> bool {
    bit_reverse_tiled::<W, 5>(x, check)
}

fn bit_reverse_tiled<W: Word, const T: u32>(x: &mut [W], check: Check<'_, W>) -> bool {
    let log_n = x.len().trailing_zeros();
    if log_n < 2 * T + 1 {
        let bad = check.is_some_and(|c| c(x));
        for i in 0..x.len() {
            let j = reverse(i, log_n);
            if i < j {
                x.swap(i, j);
            }
        }
        return bad;
    }
    let m = log_n - 2 * T;
    let side = 1usize << T;
    let rev: Vec<usize> = (0..side).map(|i| reverse(i, T)).collect();
    let offsets: Vec<usize> = rev.iter().map(|&r| r * side).collect();
    let ptr = Tiles(x.as_mut_ptr());
    let len = x.len();
    let row = |a: usize, mid: usize| (a << (m + T)) | (mid << T);
    let tiles = 1usize << m;
    // Runs of tiles per task: the buffers are allocated once per run, and the rows of the
    // next pair are prefetched while the current pair is transposed.
    let run = 64.min(tiles);
    let prefetch_rows = |b: usize| {
        let rb = reverse(b, m);
        for a in 0..side {
            for mid in [b, rb] {
                let first = ptr.at(row(a, mid));
                for line in (0..side).step_by(64 / std::mem::size_of::<W>()) {
                    prefetch(first.wrapping_add(line));
                }
            }
        }
    };
    (0..tiles / run)
        .into_par_iter()
        .map(|r| {
            let mut raw = vec![W::default(); 2 * side * side];
            let mut buf_b = vec![W::default(); side * side];
            let mut buf_r = vec![W::default(); side * side];
            let pairs = (r * run..(r + 1) * run).filter(|&b| b <= reverse(b, m));
            let mut next = pairs.clone().skip(1);
            let mut bad = false;
            for b in pairs {
                let rb = reverse(b, m);
                if let Some(nb) = next.next() {
                    prefetch_rows(nb);
                }
                // SAFETY: rows of tiles b and rb are in bounds (row(side − 1, ·) + side ≤ len)
                // and touched by no other task: tile b's task is the one of min(b, rev b).
                unsafe {
                    debug_assert!(row(side - 1, b.max(rb)) + side <= len);
                    // Whole rows first, so that all their cache misses are in flight together.
                    for a in 0..side {
                        let dst = raw.as_mut_ptr().add(2 * a * side);
                        std::ptr::copy_nonoverlapping(ptr.at(row(a, b)), dst, side);
                        std::ptr::copy_nonoverlapping(ptr.at(row(a, rb)), dst.add(side), side);
                    }
                    if let Some(c) = check {
                        bad |= c(&raw);
                    }
                    let (pb, pr, src) = (buf_b.as_mut_ptr(), buf_r.as_mut_ptr(), raw.as_ptr());
                    for (a, &ra) in rev.iter().enumerate() {
                        let (src_b, src_r) = (src.add(2 * a * side), src.add(2 * a * side + side));
                        for (c, &to) in offsets.iter().enumerate() {
                            // to + ra < side²: both below side.
                            *pb.add(to + ra) = *src_b.add(c);
                            *pr.add(to + ra) = *src_r.add(c);
                        }
                    }
                    for rc in 0..side {
                        let (from_b, from_r) = (buf_b.as_ptr(), buf_r.as_ptr());
                        std::ptr::copy_nonoverlapping(
                            from_b.add(rc * side),
                            ptr.at(row(rc, rb)),
                            side,
                        );
                        std::ptr::copy_nonoverlapping(
                            from_r.add(rc * side),
                            ptr.at(row(rc, b)),
                            side,
                        );
                    }
                }
            }
            bad
        })
        .reduce(|| false, |a, c| a || c)
}

/// A hint to fetch the cache line of `p` (nothing on other targets).
#[inline(always)]
fn prefetch<W>(p: *const W) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch never faults, whatever the address.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bit_reverse_is_the_permutation() {
        for log_n in 0..=14 {
            let n = 1usize << log_n;
            let mut x: Vec<u32> = (0..n as u32).collect();
            bit_reverse(&mut x);
            for (i, &v) in x.iter().enumerate() {
                assert_eq!(v as usize, reverse(i, log_n), "n={n} i={i}");
            }
            let mut x: Vec<u64> = (0..n as u64).collect();
            bit_reverse(&mut x);
            for (i, &v) in x.iter().enumerate() {
                assert_eq!(v as usize, reverse(i, log_n), "n={n} i={i}");
            }
        }
    }
}
