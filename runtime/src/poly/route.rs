//! Which route a product over an SRGFN takes: the field's own transforms, or the CRT route
//! (the coefficients as integers, multiplied modulo word primes and recombined, then
//! reduced modulo p). §7 of the 2017 paper weighs the two building blocks; which is faster
//! depends on the device and the length, so `fermat tune` measures it
//! ([`Crossover::crt_from`]).
//!
//! On the route a product need not be whole: a middle product (Newton's steps, the
//! quotient of a division) or a product folded mod x^n − 1 (its remainder) asks each
//! prime for just those coefficients, and the explicit CRT recombines only them
//! ([`Shape`]).

use super::product::{Algorithm, ProductPlan};
use super::ring::PolyRing;
use super::Poly;
use crate::crt::{CrtPlan, Digits, Integers, ModPolyRing};
use crate::host::HostField;
use crate::Error;
use fermat_dsl::field::FieldError;
use rayon::prelude::*;

#[cfg(doc)]
use super::product::Crossover;

/// Which coefficients of a product a·b are asked for: all of them, a window of them (a
/// middle product), or the product folded modulo x^n − 1 (a cyclic product).
///
/// A coefficient of any shape is a sum of at most min(len a, len b) products of
/// coefficients, as one of the whole product is: the primes the CRT route takes for the
/// whole product serve every shape of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    /// All len a + len b − 1 coefficients.
    Whole,
    /// Coefficients [lo, lo + len).
    Middle {
        /// The first.
        lo: usize,
        /// How many.
        len: usize,
    },
    /// a·b mod (x^n − 1): n coefficients, for operands of at most n.
    Cyclic {
        /// The points.
        n: usize,
    },
}

impl Shape {
    /// The coefficients of this shape of a product whose whole has `whole`.
    pub(crate) fn len(self, whole: usize) -> usize {
        match self {
            Shape::Whole => whole,
            Shape::Middle { len, .. } => len,
            Shape::Cyclic { n } => n,
        }
    }
}

/// `coeffs` folded modulo x^n − 1: coefficient t the sum of those at t, t + n, t + 2n, …;
/// min(n, len) of them.
pub(crate) fn fold<F: HostField>(field: &F, coeffs: &[F::Elem], n: usize) -> Vec<F::Elem> {
    let mut folded = vec![field.zero(); n.min(coeffs.len())];
    for chunk in coeffs.chunks(n.max(1)) {
        for (f, c) in folded.iter_mut().zip(chunk) {
            *f = field.add(f, c);
        }
    }
    folded
}

/// How a product runs, and why.
///
/// ```
/// use fermat::dsl::{AnyField, FieldSpec};
/// use fermat::poly::{Crossover, PolyRing, Route};
/// use fermat::Backend;
///
/// let AnyField::Srgfn8(p3) = FieldSpec::parse("P3")?.build()? else { unreachable!() };
/// let ring = PolyRing::new(&p3, Backend::Cpu)?
///     .with_crossover(Crossover::never().with_crt_from(Some(1 << 12)));
/// assert!(matches!(ring.route(100, 100)?, Route::Field(_)));
/// let route = ring.route(1 << 12, 1 << 12)?;
/// assert!(matches!(route, Route::Crt { .. }));
/// println!("{route}"); // CRT over 18 primes …, because …
/// # Ok::<(), fermat::Error>(())
/// ```
#[derive(Clone, Debug)]
pub enum Route {
    /// The field's own products.
    Field(ProductPlan),
    /// The CRT route.
    Crt {
        /// The primes.
        plan: CrtPlan,
        /// Why the ring took it.
        why: String,
    },
}

impl std::fmt::Display for Route {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Route::Field(plan) => write!(f, "{plan}"),
            Route::Crt { plan, why } => write!(f, "{plan}, because {why}"),
        }
    }
}

impl<F: HostField> PolyRing<F> {
    /// The route of a product of `len_a` by `len_b` coefficients: over an SRGFN, the CRT
    /// route from [`Crossover::crt_from`] coefficients of the product on (where it is not
    /// plain); otherwise the field's own [`ProductPlan`].
    ///
    /// Errors: those of [`product_plan`](Self::product_plan) and, on the CRT route,
    /// [`Error::CrtPrimes`]. [`Route`] has an example.
    pub fn route(&self, len_a: usize, len_b: usize) -> Result<Route, Error> {
        let plan = self.product_plan(len_a, len_b)?;
        let len = plan.len();
        let from = self.crossover().crt_from;
        let crt = self.any.srgfn_params().is_some()
            && !matches!(
                plan.algorithm,
                Algorithm::Zero | Algorithm::Schoolbook | Algorithm::Plain
            )
            && from.is_some_and(|from| len >= from);
        if !crt {
            return Ok(Route::Field(plan));
        }
        let why = format!(
            "the CRT route is the faster one for products over {} of at least {} coefficients ({})",
            self.field.name(),
            from.unwrap_or_default(),
            self.crossover_source()
        );
        Ok(Route::Crt {
            plan: self.crt_ring()?.plan(len_a, len_b)?,
            why,
        })
    }

    /// The CRT ring of the field's modulus, made on first use.
    fn crt_ring(&self) -> Result<&ModPolyRing, Error> {
        if let Some(ring) = self.crt.get() {
            return Ok(ring);
        }
        let ring = ModPolyRing::new(&self.field.modulus(), self.backend)?;
        Ok(self.crt.get_or_init(|| ring))
    }

    /// The product a·b (`b`: None for a²) by the CRT route: on the host in the field's
    /// digits where it keeps some ([`crt_product_in_digits`](Self::crt_product_in_digits));
    /// otherwise the coefficients' canonical values go to the ring in 64-bit limbs and
    /// come back as limbs of residues in [0, p), with no big integer between.
    pub(super) fn crt_product(&self, a: &Poly<F>, b: Option<&Poly<F>>) -> Result<Poly<F>, Error> {
        if let Some(c) = self.crt_product_in_digits(a, b, Shape::Whole)? {
            return Ok(c);
        }
        let f = &self.field;
        let limbs = (f.modulus().bits().div_ceil(64) as usize).max(1);
        let integers = |p: &Poly<F>| -> Result<Integers, Error> {
            let mut words = vec![0u64; p.len() * limbs];
            words
                .par_chunks_mut(limbs)
                .zip(p.coeffs().par_iter())
                .try_for_each(|(w, e)| f.to_limbs(e, w))?;
            Integers::from_words(limbs, words)
        };
        let ia = integers(a)?;
        let c = match b {
            Some(b) => self.crt_ring()?.mul_residues(&ia, &integers(b)?)?,
            None => self.crt_ring()?.mul_residues(&ia, &ia)?,
        };
        let values: Vec<&[u64]> = (0..c.len()).map(|i| c.magnitude(i)).collect();
        let c = values
            .par_chunks(1024)
            .map(|chunk| f.from_limbs_many(chunk))
            .collect::<Result<Vec<_>, _>>()?
            .concat();
        Ok(Poly::new(f, c))
    }

    /// The coefficients `shape` names of the product a·b (`b`: None for a²) by the CRT
    /// route in base r, for an SRGFN p = r^k + 1 on the host: the coefficients' digits are
    /// projected where they are stored (borrowed, not copied), and the explicit CRT's
    /// column sums come back through [`Field::from_radix_sums`] — no conversion to
    /// integers and back (bench/RESULTS.md, "CPU round 3"). `None` for a field without
    /// digits or a ring on a GPU.
    ///
    /// [`Field::from_radix_sums`]: fermat_dsl::field::Field::from_radix_sums
    pub(super) fn crt_product_in_digits(
        &self,
        a: &Poly<F>,
        b: Option<&Poly<F>>,
        shape: Shape,
    ) -> Result<Option<Poly<F>>, Error> {
        let f = &self.field;
        let (Some(params), Some(k), Some(da)) = (
            self.any.srgfn_params(),
            f.radix_digits(&f.zero()).map(<[u64]>::len),
            f.radix_digits_many(a.coeffs()),
        ) else {
            return Ok(None);
        };
        let db = match b.map(|b| f.radix_digits_many(b.coeffs())) {
            Some(None) => return Ok(None),
            db => db.flatten(),
        };
        let ring = self.crt_ring()?;
        if ring.on_gpu() {
            return Ok(None); // the device's kernels take integers
        }
        let digits_of = |limbs: &[u64]| -> Result<Vec<u64>, Error> {
            let e = f.from_limbs(limbs)?;
            let digits = f
                .radix_digits(&e)
                .ok_or_else(|| FieldError::NoRadixDigits { field: f.name() })?;
            Ok(digits.to_vec())
        };
        let c = ring.mul_in_radix(
            (params.radix()?, digits_of),
            Digits { digits: da, k },
            db.map(|digits| Digits { digits, k }),
            shape,
            |sums| Ok(f.from_radix_sums(sums)?),
        )?;
        Ok(c.map(|c| Poly::new(f, c)))
    }
}
