//! The word-prime rings of the multi-modular route: the fields it multiplies over, the
//! form its residues leave the products in, and one ring per prime, built on first use and
//! kept with its operands' vectors from one product to the next.

use super::primes::{PrimeSet, Width};
use crate::fft::Backend;
use crate::host::HostField;
use crate::poly::{PolyRing, Shape};
use crate::Error;
use fermat_codegen::crt::ResidueWord;
use fermat_dsl::field::{Field, Fp32, Fp64};
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
/// A word-prime field the CRT route multiplies over: residues in and out as `u64`.
///
/// ```
/// use fermat::crt::CrtField;
/// use fermat::dsl::{Fp32, Fp64};
///
/// let f = Fp32::of_prime(2013265921)?;
/// assert_eq!(f.residue(&f.of_residue(2013265922)), 1); // reduced modulo p
/// assert!(Fp32::of_prime(1 << 40).is_err()); // not a 32-bit prime
/// let g = Fp64::of_prime(0xffff_ffff_0000_0001)?;
/// assert_eq!(g.residue(&g.of_residue(5)), 5);
/// # Ok::<(), fermat::Error>(())
/// ```
pub trait CrtField: HostField {
    /// The words the device's kernels hold its residues in.
    const RESIDUE: ResidueWord;
    /// The field of the prime p.
    fn of_prime(p: u64) -> Result<Self, Error>;
    /// The element x mod p.
    fn of_residue(&self, x: u64) -> Self::Elem;
    /// The canonical residue of an element.
    fn residue(&self, e: &Self::Elem) -> u64;
    /// The element whose Montgomery residue is the canonical word x (x·R^−1 mod p, R the
    /// field's Montgomery radix): a residue vector's words taken as they are stored.
    fn of_montgomery_word(&self, x: u64) -> Self::Elem;
    /// The Montgomery residue of an element.
    fn montgomery_word(&self, e: &Self::Elem) -> u64;
    /// R² mod p: the Montgomery product by it, REDC(w·R²) = w·R, takes the residue w of a
    /// product of two [`of_montgomery_word`](Self::of_montgomery_word) operands, (ab)·R^−1,
    /// back to ab.
    fn radix_squared(&self) -> u64;
}

impl CrtField for Fp32 {
    const RESIDUE: ResidueWord = ResidueWord::U32;
    fn of_prime(p: u64) -> Result<Self, Error> {
        let p = u32::try_from(p).map_err(|_| fermat_dsl::FieldError::NotOdd { p: p.into() })?;
        Ok(Fp32::new(p)?)
    }
    fn of_residue(&self, x: u64) -> Self::Elem {
        self.from_u64(x)
    }
    fn residue(&self, e: &Self::Elem) -> u64 {
        u64::from(self.value(*e))
    }
    fn of_montgomery_word(&self, x: u64) -> Self::Elem {
        let word = u32::try_from(x).expect("a canonical residue below a 32-bit prime");
        self.from_montgomery_raw(word)
            .expect("a canonical residue below p")
    }
    fn montgomery_word(&self, e: &Self::Elem) -> u64 {
        u64::from(self.to_montgomery_raw(*e))
    }
    fn radix_squared(&self) -> u64 {
        ((1u128 << 64) % u128::from(self.p())) as u64
    }
}

impl CrtField for Fp64 {
    const RESIDUE: ResidueWord = ResidueWord::U64;
    fn of_prime(p: u64) -> Result<Self, Error> {
        Ok(Fp64::new(p)?)
    }
    fn of_residue(&self, x: u64) -> Self::Elem {
        self.from_u64(x)
    }
    fn residue(&self, e: &Self::Elem) -> u64 {
        self.value(*e)
    }
    fn of_montgomery_word(&self, x: u64) -> Self::Elem {
        self.from_montgomery_raw(x)
            .expect("a canonical residue below p")
    }
    fn montgomery_word(&self, e: &Self::Elem) -> u64 {
        self.to_montgomery_raw(*e)
    }
    fn radix_squared(&self) -> u64 {
        let p = u128::from(self.p());
        let r = (1u128 << 64) % p;
        (r * r % p) as u64
    }
}

/// How the host's word-prime products write their residues.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Form {
    /// The residue x itself, in [0, p): what Garner's recombination reads.
    Canonical,
    /// x·R^−1 mod p for the prime field's Montgomery radix R (2^64 for 62-bit primes,
    /// 2^32 for 31-bit ones), the words as the products leave them: the explicit CRT
    /// folds R into its constants, saving a Montgomery product a residue.
    Montgomery,
}

impl Form {
    /// log2 R for the residues of primes of `width` in this form: 0 for canonical ones.
    pub(super) fn radix_bits(self, width: Width) -> u32 {
        match (self, width) {
            (Form::Canonical, _) => 0,
            (Form::Montgomery, Width::Bits31) => 32,
            (Form::Montgomery, Width::Bits62) => 64,
        }
    }
}

/// The rings of one width's primes, built on first use.
pub(super) struct Rings<F: CrtField> {
    pub(super) backend: Backend,
    rings: Mutex<HashMap<u64, Arc<PolyRing<F>>>>,
    /// Each prime's operands and product, kept from one product to the next.
    kept: Mutex<HashMap<u64, Operands<F::Elem>>>,
}

/// A prime's operands and product in its field's elements, and the product's words as
/// the route reads them. Kept between products: a fresh vector faults in each of its
/// pages on first touch, and the word primes' fresh vectors took most of the route's page
/// faults (bench/RESULTS.md, "CPU round 4").
pub(super) struct Operands<E> {
    a: Vec<E>,
    b: Vec<E>,
    c: Vec<E>,
    /// The words' row, while the caller holds it: given back by [`Rings::recycle`].
    words: Vec<u64>,
}

impl<F: CrtField> Rings<F> {
    pub(super) fn new(backend: Backend) -> Rings<F> {
        Rings {
            backend,
            rings: Mutex::new(HashMap::new()),
            kept: Mutex::new(HashMap::new()),
        }
    }

    /// Prime p's kept vectors, or empty ones while another product holds them.
    pub(super) fn operands(&self, p: u64) -> Operands<F::Elem> {
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        kept.remove(&p).unwrap_or(Operands {
            a: Vec::new(),
            b: Vec::new(),
            c: Vec::new(),
            words: Vec::new(),
        })
    }

    pub(super) fn keep(&self, p: u64, operands: Operands<F::Elem>) {
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        kept.insert(p, operands);
    }

    /// Takes back the rows [`products`](Self::products) returned, row i for prime i of
    /// `set`, for the next product's words.
    pub(super) fn recycle(&self, set: &PrimeSet, rows: Vec<Vec<u64>>) {
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        for (p, row) in set.primes().iter().zip(rows) {
            if let Some(operands) = kept.get_mut(p) {
                if operands.words.capacity() < row.capacity() {
                    operands.words = row;
                }
            }
        }
    }

    pub(super) fn get(&self, p: u64) -> Result<Arc<PolyRing<F>>, Error> {
        let mut rings = self.rings.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(r) = rings.get(&p) {
            return Ok(r.clone());
        }
        let ring = Arc::new(PolyRing::new(&F::of_prime(p)?, self.backend)?);
        rings.insert(p, ring.clone());
        Ok(ring)
    }

    /// The rings of the primes of `set`, each ready for products of `lens` coefficients:
    /// their transforms built in parallel.
    pub(super) fn prepared(
        &self,
        set: &PrimeSet,
        lens: (usize, usize),
    ) -> Result<Vec<Arc<PolyRing<F>>>, Error> {
        let rings = set
            .primes()
            .iter()
            .map(|&p| self.get(p))
            .collect::<Result<Vec<_>, _>>()?;
        rings
            .par_iter()
            .try_for_each(|ring| ring.prepare(lens.0, lens.1))?;
        Ok(rings)
    }

    /// Row i of the result: the coefficients `shape` names of the product of rows i of
    /// `a` and `b` modulo p_i, `shape.len(whole)` of them (zeros past the normalised
    /// product), in `form`; `b` the very rows of `a` for a square (two transforms a prime
    /// instead of three).
    pub(super) fn products(
        &self,
        set: &PrimeSet,
        (a, b): (&[Vec<u64>], &[Vec<u64>]),
        (shape, whole): (Shape, usize),
        parallel: bool,
        form: Form,
    ) -> Result<Vec<Vec<u64>>, Error> {
        let square = std::ptr::eq(a, b);
        let one = |i: usize| -> Result<Vec<u64>, Error> {
            let p = set.primes()[i];
            let ring = self.get(p)?;
            let f = ring.field();
            // The residues go in as Montgomery words as they are stored (a factor R^−1 in
            // each), so the product's words are (ab)·R^−1; in canonical form one
            // Montgomery product by R² a coefficient takes them back to ab: one reduction a
            // coefficient, where converting into and out of the field took a division and
            // three.
            let load = |x: &[u64], into: &mut Vec<F::Elem>| {
                into.clear();
                into.extend(x.iter().map(|&x| f.of_montgomery_word(x)));
            };
            let mut kept = self.operands(p);
            let Operands {
                a: ea,
                b: eb,
                c,
                words,
            } = &mut kept;
            load(&a[i], ea);
            if !square {
                load(&b[i], eb);
            }
            let done = ring.product_into((ea, (!square).then_some(&eb[..])), shape, c);
            let done = done.map(|()| {
                let mut out = std::mem::take(words);
                out.clear();
                match form {
                    Form::Canonical => {
                        let r2 = f.of_montgomery_word(f.radix_squared());
                        let back = |e| f.montgomery_word(&f.mul(e, &r2));
                        out.extend(c.iter().map(back));
                    }
                    Form::Montgomery => out.extend(c.iter().map(|e| f.montgomery_word(e))),
                }
                out.resize(shape.len(whole), 0);
                out
            });
            self.keep(p, kept);
            done
        };
        if parallel {
            (0..set.len()).into_par_iter().map(one).collect()
        } else {
            (0..set.len()).map(one).collect()
        }
    }
}
