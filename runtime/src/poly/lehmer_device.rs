//! The gcd of long device polynomials by Lehmer's rounds ([`fermat_codegen::euclid`]'s
//! `Window` and `Apply` kernels): each round takes Euclid's steps on a window of the top
//! 2h + 1 coefficients in one block and multiplies their cofactor matrix into the whole
//! pair on every multiprocessor, so the degree drops by h per round. The rounds keep
//! their state on the device: the host queues as many as a normal sequence needs and reads
//! the state back once, then queues more if degrees dropped by less. A quotient of degree
//! above h stalls the rounds; the host divides once on the device and starts them again.
//! The extended gcd runs the same rounds with a second row of apply blocks that multiply
//! each matrix into a's cofactors of the pair; the resultant runs them with a window that
//! logs each division it takes (`resultant_device`).

use super::device::DevicePoly;
use super::euclid::{xgcd_euclid, Bezout};
use super::host::Poly;
use super::ring::PolyRing;
use crate::error::Error;
use crate::gpu::{driver, GpuError, LehmerBuffers};
use crate::host::HostField;
use cudarc::driver::CudaSlice;
use fermat_codegen::cost::FieldShape;
use fermat_codegen::euclid::{EuclidPass, LehmerState, LehmerStatus, APPLY_THREADS};

/// Operands longer than this many coefficients take [`PolyRing::lehmer_half`]'s larger
/// windows.
const LEHMER_LONG: usize = 1 << 17;

/// The half of the rounds that take on the extended gcd's last pair where the rounds of a
/// wider half end on one whose shorter polynomial has more than [`LAST_PAIR_ROUNDS_FROM`]
/// coefficients: a window's pair of up to 2·half + 1 coefficients would otherwise take a
/// few hundred of Euclid's steps on the host, each a pass over the pair and its cofactors.
const LAST_PAIR_HALF: usize = 16;

/// See [`LAST_PAIR_HALF`]: a shorter pair's few steps are cheaper on the host than a
/// launch of rounds.
const LAST_PAIR_ROUNDS_FROM: usize = 64;

/// The extended gcd of device polynomials, (g, s, t) with s·a + t·b = g: g on the host,
/// the cofactors on the device ([`PolyRing::xgcd_device`] has an example).
pub type DeviceBezout<F> = (Poly<F>, DevicePoly<F>, DevicePoly<F>);

impl<F: HostField> PolyRing<F> {
    /// The half of [`Self::gcd_lehmer_device`]'s windows that [`Self::gcd_device`] and the
    /// extended gcd on the device use for operands whose longer has `len` coefficients: by
    /// the bytes of an element, 128 for primes below 2^32 (whose windows take their steps
    /// a warp at a time), 32 for 64-bit primes and 256-bit elements, 16 for wider ones
    /// (whose products cost the window's one block most) — those two doubled up to 64 for
    /// operands longer than 2^17 coefficients —, within what the device's shared memory
    /// holds. A round costs a launch's drain and its window about its half whatever the
    /// length, and its apply pass about the length times (a + b·half), the a for staging
    /// its tiles: long operands and cheap windows take larger halves and fewer rounds.
    /// These were the fastest measured on an H200 (bench/RESULTS.md, "GCD rounds 10 and
    /// 11"): 469762049's 10^4 gcd takes 3.82 ms at 128 against 3.97 at 64 and 4.17 at 256,
    /// its 2^16 gcd 26.3 against 27.3 and 28.7, its 2^20 900 ms against 981 and 913;
    /// goldilocks' 10^4 9.47 at 32 against 9.81 at 64; P3's 4097 66.8 at 16 against 69.7
    /// at 8. The resultant's rounds take [`Self::trail_half`].
    ///
    /// Errors: [`Error::NotOnGpu`] on the CPU backend.
    ///
    /// ```
    /// use fermat::dsl::Fp32;
    /// use fermat::poly::PolyRing;
    /// use fermat::{Backend, Error};
    ///
    /// let ring = PolyRing::new(&Fp32::new(469762049)?, Backend::Auto)?;
    /// match (ring.lehmer_half(10_000), ring.lehmer_half(1 << 20)) {
    ///     (Ok(short), Ok(long)) => assert_eq!((short, long), (128, 128)),
    ///     (Err(Error::NotOnGpu), _) => {}
    ///     (Err(e), _) | (_, Err(e)) => return Err(e),
    /// }
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn lehmer_half(&self, len: usize) -> Result<usize, Error> {
        let bytes = FieldShape::of(&self.any).element_bytes;
        let half = match bytes {
            ..=4 => 128,
            5..=32 => 32,
            _ => 16,
        };
        let half = if len > LEHMER_LONG && bytes > 4 {
            (2 * half).min(64)
        } else {
            half
        };
        Ok(half.min(self.lehmer_max_half()?))
    }

    /// The half of the resultant's rounds ([`Self::resultant_lehmer`]) for operands whose
    /// longer has `len` coefficients: [`Self::lehmer_half`]'s, at most 64. Their windows
    /// keep a trail of every division and take their steps on the whole block, for which
    /// 64 is the better half: 469762049's 10^4 resultant takes 5.25 ms at 64 against 5.9
    /// at 128 on an H200 (bench/RESULTS.md, "GCD round 11").
    ///
    /// Errors: [`Error::NotOnGpu`] on the CPU backend.
    ///
    /// ```
    /// use fermat::dsl::Fp32;
    /// use fermat::poly::PolyRing;
    /// use fermat::{Backend, Error};
    ///
    /// let ring = PolyRing::new(&Fp32::new(469762049)?, Backend::Auto)?;
    /// match ring.trail_half(10_000) {
    ///     Ok(half) => assert_eq!(half, 64),
    ///     Err(Error::NotOnGpu) => {}
    ///     Err(e) => return Err(e),
    /// }
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn trail_half(&self, len: usize) -> Result<usize, Error> {
        Ok(self.lehmer_half(len)?.min(64))
    }

    /// The largest half whose window fits one block's shared memory on this device.
    pub(super) fn lehmer_max_half(&self) -> Result<usize, Error> {
        let bytes = FieldShape::of(&self.any).element_bytes;
        let limit = self.passes()?.lehmer_shared_bytes as u64;
        let fits = |h: u64| {
            let threads = u64::from(APPLY_THREADS);
            EuclidPass::Window.shared_bytes((h, 0), bytes) <= limit
                && EuclidPass::Apply.shared_bytes((h, threads), bytes) <= limit
        };
        let mut h = 1u64;
        while fits(2 * h) {
            h *= 2;
        }
        Ok(if fits(h) { h as usize } else { 0 })
    }

    /// The monic gcd of device polynomials of any length by Lehmer's rounds with windows
    /// of 2·`half` + 1 coefficients (gcd(0, 0) = 0), on the device. A round costs one
    /// block about 2·`half` steps and the device a product of the pair by polynomials of
    /// degree `half`; larger halves take fewer rounds.
    ///
    /// Errors: [`Error::LehmerHalf`] for a half of 0 or one whose window outgrows shared
    /// memory, [`Error::NotOnGpu`] on the CPU backend, and device errors.
    ///
    /// ```
    /// use fermat::dsl::Fp32;
    /// use fermat::poly::{Poly, PolyRing};
    /// use fermat::{Backend, Error};
    ///
    /// let f = Fp32::new(469762049)?;
    /// let ring = PolyRing::new(&f, Backend::Auto)?;
    /// let g = Poly::from_u64s(&f, &[5, 1]); // x + 5
    /// let u: Vec<u64> = (1..=300).collect();
    /// let v: Vec<u64> = (7..=290).rev().collect();
    /// let a = ring.mul(&g, &Poly::from_u64s(&f, &u))?;
    /// let b = ring.mul(&g, &Poly::from_u64s(&f, &v))?;
    /// let (da, db) = match (ring.to_device(&a), ring.to_device(&b)) {
    ///     (Ok(da), Ok(db)) => (da, db),
    ///     (Err(Error::NotOnGpu), _) => return Ok(()), // on the CPU: `gcd` of host polynomials
    ///     (Err(e), _) | (_, Err(e)) => return Err(e),
    /// };
    /// let want = ring.gcd(&a, &b)?;
    /// assert_eq!(ring.from_device(&ring.gcd_lehmer_device(&da, &db, 16)?)?, want);
    /// assert!(matches!(ring.gcd_lehmer_device(&da, &db, 0), Err(Error::LehmerHalf { half: 0, .. })));
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn gcd_lehmer_device(
        &self,
        a: &DevicePoly<F>,
        b: &DevicePoly<F>,
        half: usize,
    ) -> Result<DevicePoly<F>, Error> {
        let max = self.lehmer_max_half()?;
        if half == 0 || half > max {
            return Err(Error::LehmerHalf { half, max });
        }
        let cap = a.len.max(b.len).max(1);
        let mut rounds = self.lehmer_work(cap, half, Keeps::Pair)?;
        self.place(&mut rounds, 0, a)?;
        self.place(&mut rounds, 1, b)?;
        let mut lens = (a.len, b.len);
        loop {
            let (status, words) = self.lehmer_rounds(&mut rounds, lens, (0, 0))?;
            if status == LehmerStatus::Done {
                let mut g = rounds.out;
                g.set_len(words[LehmerState::RESULT_LEN] as usize);
                return self.make_monic(g);
            }
            // A quotient of degree above half: (u, v) → (v, u mod v) by one division.
            let set = (words[LehmerState::ROUND] % 2) as usize;
            let (lu, lv) = (
                words[LehmerState::len_u(set)] as usize,
                words[LehmerState::len_v(set)] as usize,
            );
            let x = self.take(&rounds, 2 * set, lu)?;
            let y = self.take(&rounds, 2 * set + 1, lv)?;
            let (u, v) = if lu >= lv { (x, y) } else { (y, x) };
            let (_, r) = self.divrem_device(&u, &v)?;
            self.place(&mut rounds, 0, &v)?;
            self.place(&mut rounds, 1, &r)?;
            lens = (v.len, r.len);
        }
    }

    /// The buffers of the rounds on pairs of up to `cap` coefficients, with room for what
    /// they keep beside the pair.
    pub(super) fn lehmer_work(
        &self,
        cap: usize,
        half: usize,
        keeps: Keeps,
    ) -> Result<LehmerWork<F>, Error> {
        let device = self.device()?;
        let k = self.field.words();
        Ok(LehmerWork {
            work: device.alloc_unset::<F::Word>(4 * cap * k)?,
            cap,
            mat: device.alloc_unset::<F::Word>(4 * (half + 1) * k)?,
            state: device.alloc::<u64>(LehmerState::WORDS)?,
            out: self.scratch(cap)?,
            half,
            cofs: match keeps {
                Keeps::Cofactors => Some(device.alloc_unset::<F::Word>(4 * cap * k)?),
                _ => None,
            },
            trail: match keeps {
                Keeps::Trail => Some((self.scratch(cap)?, device.alloc_unset::<u64>(cap)?)),
                _ => None,
            },
        })
    }

    /// The extended gcd (g, s, t) of a and b, s·a + t·b = g, by Lehmer's rounds with
    /// windows of 2·`half` + 1 coefficients carrying a's cofactors on the device: each
    /// round's matrix multiplied into the pair and into a's cofactors of the pair alike,
    /// so that the pair of every round is (s·a + t·b, s′·a + t′·b) with (s, s′) on the
    /// device. The last round's pair is short (a window's) or ends the sequence (a
    /// constant or zero beside it); a window's pair of more than 64 coefficients takes
    /// rounds of half 16 from where it is, and the short pair they end on its own
    /// extended gcd (g, x, y) on the host, which gives s = x·s + y·s′, then
    /// t = (g − s·a)/b, exact, on the device. A stalled round (a quotient of degree
    /// above `half`) takes its division on the ring. The result is [`xgcd_euclid`]'s, with
    /// FLINT's conventions and bounds: the rounds follow its sequence of remainders, whose
    /// cofactors keep deg s < deg b − deg g and deg t < deg a − deg g (von zur Gathen and
    /// Gerhard, Lemma 3.10), and only one pair does: if s·a + t·b = s′·a + t′·b, then b/g
    /// divides s − s′, of lower degree, so s = s′.
    /// [`Self::xgcd`] takes this route for long operands on a GPU, with
    /// [`Self::lehmer_half`].
    ///
    /// Errors: [`Error::LehmerHalf`] for a half of 0 or one whose window outgrows shared
    /// memory, [`Error::FieldMismatch`] when an operand is over another field,
    /// [`Error::NotOnGpu`] on the CPU backend, and device errors.
    ///
    /// ```
    /// use fermat::dsl::Fp32;
    /// use fermat::poly::{xgcd_euclid, Poly, PolyRing};
    /// use fermat::{Backend, Error};
    ///
    /// let f = Fp32::new(469762049)?;
    /// let ring = PolyRing::new(&f, Backend::Auto)?;
    /// let g = Poly::from_u64s(&f, &[5, 1]); // x + 5
    /// let u: Vec<u64> = (1..=300).collect();
    /// let v: Vec<u64> = (7..=290).rev().collect();
    /// let a = ring.mul(&g, &Poly::from_u64s(&f, &u))?;
    /// let b = ring.mul(&g, &Poly::from_u64s(&f, &v))?;
    /// match ring.xgcd_lehmer(&a, &b, 16) {
    ///     Ok(bezout) => assert_eq!(bezout, xgcd_euclid(&a, &b)?),
    ///     Err(Error::NotOnGpu) => {} // on the CPU: `xgcd`
    ///     Err(e) => return Err(e),
    /// }
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn xgcd_lehmer(&self, a: &Poly<F>, b: &Poly<F>, half: usize) -> Result<Bezout<F>, Error> {
        self.check_field(a)?;
        self.check_field(b)?;
        let max = self.lehmer_max_half()?;
        if half == 0 || half > max {
            return Err(Error::LehmerHalf { half, max });
        }
        if a.is_zero() || b.is_zero() {
            // FLINT's conventions, in O(n) on the host.
            return xgcd_euclid(a, b);
        }
        let (da, db) = (self.to_device(a)?, self.to_device(b)?);
        let (g, s, t) = self.xgcd_by_rounds([&da, &db], half)?;
        Ok((g, self.from_device(&s)?, self.from_device(&t)?))
    }

    /// The extended gcd (g, s, t) of device polynomials, s·a + t·b = g, with g on the host
    /// and s and t on the device: for long operands on a GPU, [`Self::xgcd_lehmer`]'s
    /// rounds with [`Self::lehmer_half`], which leave s where they end and read neither
    /// operand back; otherwise [`Self::xgcd`] of the operands read back. The triple is
    /// [`xgcd_euclid`]'s, with FLINT's conventions and bounds.
    ///
    /// Errors: [`Error::NotOnGpu`] on the CPU backend, and device errors.
    ///
    /// ```
    /// use fermat::dsl::Fp32;
    /// use fermat::poly::{xgcd_euclid, Poly, PolyRing};
    /// use fermat::{Backend, Error};
    ///
    /// let f = Fp32::new(469762049)?;
    /// let ring = PolyRing::new(&f, Backend::Auto)?; // the GPU if there is one
    /// let g = Poly::from_u64s(&f, &[5, 1]); // x + 5
    /// let u: Vec<u64> = (1..=1500).collect();
    /// let v: Vec<u64> = (7..=1490).rev().collect();
    /// let a = ring.mul(&g, &Poly::from_u64s(&f, &u))?;
    /// let b = ring.mul(&g, &Poly::from_u64s(&f, &v))?;
    /// let (da, db) = match (ring.to_device(&a), ring.to_device(&b)) {
    ///     (Ok(da), Ok(db)) => (da, db),
    ///     (Err(Error::NotOnGpu), _) => return Ok(()), // on the CPU: `xgcd` of host polynomials
    ///     (Err(e), _) | (_, Err(e)) => return Err(e),
    /// };
    /// let (g, s, t) = ring.xgcd_device(&da, &db)?;
    /// assert_eq!((g, ring.from_device(&s)?, ring.from_device(&t)?), xgcd_euclid(&a, &b)?);
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn xgcd_device(
        &self,
        a: &DevicePoly<F>,
        b: &DevicePoly<F>,
    ) -> Result<DeviceBezout<F>, Error> {
        self.device()?;
        let rounds =
            self.rounds_on_device(a.len, b.len) && self.top_nonzero(a)? && self.top_nonzero(b)?;
        if !rounds {
            // Short operands, or a zero at the top of either: the host's route.
            let (g, s, t) = self.xgcd(&self.from_device(a)?, &self.from_device(b)?)?;
            return Ok((g, self.to_device(&s)?, self.to_device(&t)?));
        }
        self.xgcd_by_rounds([a, b], self.lehmer_half(a.len.max(b.len))?)
    }

    /// Whether p's top coefficient is nonzero: known for a polynomial copied up, else
    /// read back (one coefficient).
    fn top_nonzero(&self, p: &DevicePoly<F>) -> Result<bool, Error> {
        if p.top_nonzero || p.len == 0 {
            return Ok(p.len > 0);
        }
        let stream = self.device()?.stream().clone();
        let mut top = self.scratch(1)?;
        for c in 0..self.field.words() {
            let at = c * p.cap + p.len - 1;
            stream
                .memcpy_dtod(&p.data.slice(at..at + 1), &mut top.data.slice_mut(c..c + 1))
                .map_err(driver("cuMemcpyDtoD"))?;
        }
        top.set_len(1);
        Ok(!self.from_device(&top)?.is_zero())
    }

    /// [`Self::xgcd_device`] by the rounds, of nonzero a and b (top coefficients nonzero),
    /// `half` checked.
    fn xgcd_by_rounds(
        &self,
        operands: [&DevicePoly<F>; 2],
        half: usize,
    ) -> Result<DeviceBezout<F>, Error> {
        let f = &self.field;
        let cap = operands[0].len.max(operands[1].len);
        let mut rounds = self.lehmer_work(cap, half, Keeps::Cofactors)?;
        // The next rounds start from a and b, from a pair on the host (after a stalled
        // round's division) or from a pair left on the device (after rounds of a wider half).
        let mut pair = [Poly::zero(f), Poly::zero(f)];
        let mut cofactors = [Poly::one(f), Poly::zero(f)];
        let mut restart = false;
        let mut resume: Option<[[DevicePoly<F>; 2]; 2]> = None;
        loop {
            let (lens, carried) = match &resume {
                Some([p, s]) => ((p[0].len, p[1].len), (s[0].len, s[1].len)),
                None => (
                    if restart {
                        (pair[0].len(), pair[1].len())
                    } else {
                        (operands[0].len, operands[1].len)
                    },
                    (cofactors[0].len(), cofactors[1].len()),
                ),
            };
            for j in 0..2 {
                let cofs = rounds.cofs.as_mut().expect("the rounds carry cofactors");
                if let Some([from_pair, from_cofactors]) = &resume {
                    self.place_in(&mut rounds.work, cap, j, &from_pair[j])?;
                    self.place_in(cofs, cap, j, &from_cofactors[j])?;
                    continue;
                }
                if !cofactors[j].is_zero() {
                    self.place_in(cofs, cap, j, &self.to_device(&cofactors[j])?)?;
                }
                if !restart {
                    self.place(&mut rounds, j, operands[j])?;
                } else if !pair[j].is_zero() {
                    self.place(&mut rounds, j, &self.to_device(&pair[j])?)?;
                }
            }
            resume = None;
            let (status, words) = self.lehmer_rounds(&mut rounds, lens, carried)?;
            let set = (words[LehmerState::ROUND] % 2) as usize;
            let cofs = rounds.cofs.as_ref().expect("the rounds carry cofactors");
            let mut on_device = Vec::with_capacity(2);
            let mut pair_on_device = Vec::with_capacity(2);
            for j in 0..2 {
                let [len, len_s] = [
                    [LehmerState::len_u(set), LehmerState::len_su(set)],
                    [LehmerState::len_v(set), LehmerState::len_sv(set)],
                ][j]
                    .map(|w| words[w] as usize);
                pair_on_device.push(self.take(&rounds, 2 * set + j, len)?);
                on_device.push(self.take_from(cofs, cap, 2 * set + j, len_s)?);
            }
            let on_device: [DevicePoly<F>; 2] =
                on_device.try_into().expect("one cofactor a vector");
            let pair_on_device: [DevicePoly<F>; 2] =
                pair_on_device.try_into().expect("one polynomial a vector");
            if status == LehmerStatus::Done
                && rounds.half > LAST_PAIR_HALF
                && pair_on_device[0].len.min(pair_on_device[1].len) > LAST_PAIR_ROUNDS_FROM
            {
                // The rounds ended on a window's pair: rounds of a narrower half take it on
                // from where it is, instead of a few hundred of Euclid's steps on the host.
                rounds.half = LAST_PAIR_HALF;
                resume = Some([pair_on_device, on_device]);
                continue;
            }
            for (j, p) in pair_on_device.iter().enumerate() {
                pair[j] = self.from_device(p)?;
            }
            if status == LehmerStatus::Done {
                // The rounds have ended: a's cofactors of the pair, a and b stay on the device.
                let [s_u, s_v] = &on_device;
                return self.bezout_from_pair(&pair, [s_u, s_v], operands);
            }
            for (j, s) in on_device.iter().enumerate() {
                cofactors[j] = self.from_device(s)?;
            }
            // A quotient of degree above half: (u, v) → (v, u − q·v), cofactors alike.
            let [x, y] = pair;
            let [sx, sy] = cofactors;
            let ((u, su), (v, sv)) = if x.len() >= y.len() {
                ((x, sx), (y, sy))
            } else {
                ((y, sy), (x, sx))
            };
            let (q, r) = self.divrem(&u, &v)?;
            let sr = su.sub(&self.mul(&q, &sv)?)?;
            (pair, cofactors) = ([v, r], [sv, sr]);
            restart = true;
        }
    }

    /// The Bézout triple of a and b (on the device) from the last pair (u, v) of their
    /// remainder sequence and a's cofactors s_u, s_v of it: u and v's own extended gcd on
    /// the host, g = x·u + y·v, then s = x·s_u + y·s_v and t = (g − s·a)/b, an exact
    /// division, on the device (g on the host, s and t on the device).
    fn bezout_from_pair(
        &self,
        pair: &[Poly<F>; 2],
        [s_u, s_v]: [&DevicePoly<F>; 2],
        [a, b]: [&DevicePoly<F>; 2],
    ) -> Result<DeviceBezout<F>, Error> {
        let (g, x, y) = xgcd_euclid(&pair[0], &pair[1])?;
        // x·s_u − (−y)·s_v: the difference kernel serves as the sum.
        let xs = self.mul_device(&self.to_device(&x)?, s_u)?;
        let ys = self.mul_device(&self.to_device(&y.neg())?, s_v)?;
        let s = self.sub_device(&xs, &ys)?;
        let sa = self.mul_device(&s, a)?;
        let (t, _) = self.divrem_device(&self.sub_device(&self.to_device(&g)?, &sa)?, b)?;
        Ok((g, s, t))
    }

    /// Runs rounds from the pair in vectors 0 and 1 of the work buffer, of lengths `lens`
    /// (and a's cofactors of lengths `carried`, where the rounds carry them), until they
    /// end or stall: the status and the state's words.
    pub(super) fn lehmer_rounds(
        &self,
        rounds: &mut LehmerWork<F>,
        lens: (usize, usize),
        carried: (usize, usize),
    ) -> Result<(LehmerStatus, [u64; LehmerState::WORDS]), Error> {
        let passes = self.passes()?;
        let stream = self.device()?.stream().clone();
        let bytes = FieldShape::of(&self.any).element_bytes;
        let half = rounds.half;
        let mut words = [0u64; LehmerState::WORDS];
        words[LehmerState::len_u(0)] = lens.0 as u64;
        words[LehmerState::len_v(0)] = lens.1 as u64;
        words[LehmerState::len_su(0)] = carried.0 as u64;
        words[LehmerState::len_sv(0)] = carried.1 as u64;
        stream
            .memcpy_htod(&words, &mut rounds.state)
            .map_err(driver("cuMemcpyHtoD"))?;
        let mut longest = lens.0.max(lens.1);
        let carried_cap = rounds.cofs.as_ref().map(|_| rounds.cap);
        let mut round = 0u64;
        loop {
            // A normal sequence loses `half` of its degree per round until the window
            // holds the pair, which the last round runs to its end.
            let batch = longest.saturating_sub(2 * half + 1).div_ceil(half) + 1;
            {
                let mut buffers = LehmerBuffers {
                    work: rounds.work.slice_mut(..),
                    cap: rounds.cap as u64,
                    mat: rounds.mat.slice_mut(..),
                    state: rounds.state.slice_mut(..),
                    dst: rounds.out.data.slice_mut(..),
                    dst_stride: rounds.out.cap as u64,
                    cofs: rounds.cofs.as_mut().map(|c| c.slice_mut(..)),
                    trail: rounds
                        .trail
                        .as_mut()
                        .map(|(leads, steps)| (leads.data.slice_mut(..), steps.slice_mut(..))),
                };
                for k in 0..batch {
                    let blocks = apply_blocks(longest, k, half, carried_cap);
                    passes.run_lehmer_round(
                        &stream,
                        round,
                        &mut buffers,
                        (half as u64, bytes),
                        blocks,
                    )?;
                    round += 1;
                }
            }
            stream
                .memcpy_dtoh(&rounds.state, &mut words)
                .map_err(driver("cuMemcpyDtoH"))?;
            let word = words[LehmerState::STATUS];
            match LehmerStatus::of_word(word) {
                Some(LehmerStatus::Running) => {
                    longest = words[LehmerState::len_u((round % 2) as usize)] as usize;
                }
                Some(status) => return Ok((status, words)),
                None => {
                    return Err(GpuError::Status {
                        kernel: EuclidPass::Window.name(),
                        word,
                    }
                    .into())
                }
            }
        }
    }

    /// Copies `p` into vector `j` of the work buffer.
    pub(super) fn place(
        &self,
        rounds: &mut LehmerWork<F>,
        j: usize,
        p: &DevicePoly<F>,
    ) -> Result<(), Error> {
        self.place_in(&mut rounds.work, rounds.cap, j, p)
    }

    /// Copies `p` into vector `j` of a buffer of four vectors of `cap` coefficients.
    fn place_in(
        &self,
        buffer: &mut CudaSlice<F::Word>,
        cap: usize,
        j: usize,
        p: &DevicePoly<F>,
    ) -> Result<(), Error> {
        if p.len == 0 {
            return Ok(());
        }
        let stream = self.device()?.stream().clone();
        for c in 0..self.field.words() {
            let at = c * 4 * cap + j * cap;
            let src = p.data.slice(c * p.cap..c * p.cap + p.len);
            let mut dst = buffer.slice_mut(at..at + p.len);
            stream
                .memcpy_dtod(&src, &mut dst)
                .map_err(driver("cuMemcpyDtoD"))?;
        }
        Ok(())
    }

    /// The first `len` coefficients of vector `j` of the work buffer, as a polynomial.
    pub(super) fn take(
        &self,
        rounds: &LehmerWork<F>,
        j: usize,
        len: usize,
    ) -> Result<DevicePoly<F>, Error> {
        self.take_from(&rounds.work, rounds.cap, j, len)
    }

    /// The first `len` coefficients of vector `j` of a buffer of four vectors of `cap`
    /// coefficients, as a polynomial.
    fn take_from(
        &self,
        buffer: &CudaSlice<F::Word>,
        cap: usize,
        j: usize,
        len: usize,
    ) -> Result<DevicePoly<F>, Error> {
        let stream = self.device()?.stream().clone();
        let mut p = self.scratch(len)?;
        // An empty vector (a zero cofactor) copies nothing.
        let digits = if len == 0 { 0 } else { self.field.words() };
        for c in 0..digits {
            let at = c * 4 * cap + j * cap;
            let src = buffer.slice(at..at + len);
            let mut dst = p.data.slice_mut(c * p.cap..c * p.cap + len);
            stream
                .memcpy_dtod(&src, &mut dst)
                .map_err(driver("cuMemcpyDtoD"))?;
        }
        p.set_len(len);
        Ok(p)
    }
}

/// The blocks of round `k` of a batch's apply pass, from a pair of `longest` coefficients
/// at the batch's start: a tile of [`APPLY_THREADS`] for each coefficient the round can
/// write while a normal sequence loses `half` a round — of the pair, and of a's
/// cofactors, which grow as it shrinks, up to `cofs_cap` where the rounds carry them
/// (deg s_i < deg b − deg r_(i−1), von zur Gathen–Gerhard Lemma 3.10). A pair that
/// shrinks less has more tiles than blocks, which the pass's blocks stride over; a grid
/// of every tile from the start spent most of its blocks on nothing late in the rounds.
fn apply_blocks(longest: usize, k: usize, half: usize, cofs_cap: Option<usize>) -> u64 {
    let pair = longest.saturating_sub(k * half);
    let widest = match cofs_cap {
        Some(cap) => pair.max((cap + 2 * half).saturating_sub(pair).min(cap)),
        None => pair,
    };
    widest.div_ceil(APPLY_THREADS as usize).max(1) as u64
}

/// The device buffers of one gcd's Lehmer rounds: two pairs of vectors of `cap`
/// coefficients (digit-major, 4·`cap` words between digits), the cofactor matrix of a
/// window of 2·`half` + 1, the state, the destination of the last remainder, and two
/// pairs of a's cofactors, laid out as the work buffer, where the rounds carry them, and
/// the trail of their divisions (`cap` leading coefficients and step words) where they
/// keep one.
pub(super) struct LehmerWork<F: HostField> {
    work: CudaSlice<F::Word>,
    cap: usize,
    mat: CudaSlice<F::Word>,
    state: CudaSlice<u64>,
    pub(super) out: DevicePoly<F>,
    half: usize,
    cofs: Option<CudaSlice<F::Word>>,
    pub(super) trail: Option<(DevicePoly<F>, CudaSlice<u64>)>,
}

/// What the rounds keep beside the pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Keeps {
    /// Nothing: the gcd.
    Pair,
    /// a's cofactors: the extended gcd.
    Cofactors,
    /// The trail of the divisions: the resultant.
    Trail,
}

#[cfg(test)]
mod tests {
    use super::apply_blocks;

    #[test]
    fn apply_grids_follow_a_normal_sequence() {
        // The pair alone: a tile for each coefficient, one block at least.
        assert_eq!(apply_blocks(65_537, 0, 128, None), 513);
        assert_eq!(apply_blocks(65_537, 256, 128, None), 257);
        assert_eq!(apply_blocks(65_537, 600, 128, None), 1);
        // With a's cofactors: the longer of the pair and the cofactors, never past `cap`.
        assert_eq!(apply_blocks(65_537, 0, 128, Some(65_537)), 513);
        assert_eq!(apply_blocks(65_537, 256, 128, Some(65_537)), 258);
        assert_eq!(apply_blocks(65_537, 500, 128, Some(65_537)), 502);
        assert_eq!(apply_blocks(300, 0, 128, Some(300)), 3);
    }
}
