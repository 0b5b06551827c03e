//! AVX-512 butterflies, chosen at run time (`is_x86_feature_detected!`):
//!
//! - `u32`, p < 2^31: 16 lanes of Montgomery products (REDC with R = 2^32, twiddles in
//!   Montgomery form), the even and odd lanes through two `vpmuludq` each per product;
//! - `u64`, p < 2^62: 8 lanes of Shoup products with an approximate quotient (below).
//!
//! u32 values stay canonical: sums and differences are corrected with an unsigned minimum,
//! min(s, s − p) for s = a + b and min(d, d + p) for d = a − b — exact because a + b < 2p
//! fits the word (p < R/2) and a wrapped value is above every canonical one. u64 values
//! are kept in [0, 2p) between layers (the same minimum with 2p; 4p < 2^64) and made
//! canonical at the end of the transform.
//!
//! Layers whose stride is a whole vector or more pair whole vectors; the last
//! log2(lanes) + 1 layers of a DIF (the first of a DIT) run on pairs of vectors (a "tail" of 2·lanes
//! elements) whose lanes are rearranged with `vpermt2d`/`vpermt2q` before each layer so
//! that every butterfly pairs lane l of one vector with lane l of the other.

use super::ntt::Butterflies;
use super::scalar::Word;
use std::arch::x86_64::*;

/// The lane arrangement and twiddles of one layer of a tail.
#[derive(Clone, Debug)]
struct Step<W> {
    /// Lane sources for the new first and second vectors (index ≥ lanes: second vector).
    perm: Option<(Vec<W>, Vec<W>)>,
    /// Twiddle of each lane, in the backend's form, and its companion (Shoup quotient for
    /// u64; unused for u32).
    w: Vec<W>,
    ws: Vec<W>,
    /// The layer of stride 1 multiplies by ω_2^0 = 1: skipped.
    unit: bool,
}

#[derive(Clone, Debug)]
struct Tail<W> {
    steps: Vec<Step<W>>,
    /// Back to the natural arrangement.
    last: Option<(Vec<W>, Vec<W>)>,
}

/// The arrangement for the layer of stride s within 2L elements: the first vector holds the
/// positions with bit s clear in increasing order, the second their partners (+ s).
fn arrangement(lanes: usize, s: usize) -> Vec<usize> {
    let firsts: Vec<usize> = (0..2 * lanes).filter(|i| i & s == 0).collect();
    firsts
        .iter()
        .copied()
        .chain(firsts.iter().map(|i| i + s))
        .collect()
}

fn permutation<W: Word>(cur: &[usize], new: &[usize]) -> Option<(Vec<W>, Vec<W>)> {
    if cur == new {
        return None;
    }
    let slot = |pos: usize| W::from_u64(cur.iter().position(|&c| c == pos).unwrap() as u64);
    let lanes = cur.len() / 2;
    Some((
        new[..lanes].iter().map(|&q| slot(q)).collect(),
        new[lanes..].iter().map(|&q| slot(q)).collect(),
    ))
}

/// The tail of the DIF (`dif`) or DIT: layers 2^(L), …, 1 or 1, …, L within 2L elements.
fn tail<W: Word>(lanes: usize, dif: bool, tw: impl Fn(usize) -> (W, W)) -> Tail<W> {
    let mut strides: Vec<usize> = (0..=lanes.trailing_zeros()).map(|b| 1 << b).collect();
    if dif {
        strides.reverse();
    }
    let mut cur: Vec<usize> = (0..2 * lanes).collect();
    let mut steps = Vec::new();
    for s in strides {
        let new = arrangement(lanes, s);
        let perm = permutation(&cur, &new);
        let (w, ws) = new[..lanes].iter().map(|&i| tw(s + i % (2 * s))).unzip();
        steps.push(Step {
            perm,
            w,
            ws,
            unit: s == 1,
        });
        cur = new;
    }
    let natural: Vec<usize> = (0..2 * lanes).collect();
    Tail {
        steps,
        last: permutation(&cur, &natural),
    }
}

/// AVX-512 butterflies of one transform; only built where the CPU has AVX-512 F and DQ.
pub(crate) struct Avx512<W: Word> {
    p: W,
    /// p^(−1) mod 2^32 (u32 only).
    mu: W,
    /// `tw[s + j]` = ω_{2s}^j: Montgomery form for u32, canonical for u64.
    tw: Vec<W>,
    /// Shoup quotients ⌊w·2^64/p⌋ of `tw` (u64 only).
    tws: Vec<W>,
    scale: Option<(W, W)>,
    dif_tail: Tail<W>,
    dit_tail: Tail<W>,
}

pub(super) fn detected() -> bool {
    is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512dq")
}

impl Avx512<u32> {
    const LANES: usize = 16;

    /// The backend for p < 2^31 and n ≥ 32 on a CPU with AVX-512, else `None`.
    pub(crate) fn new(p: u32, canonical: &[u32], scale: Option<u32>, log_n: u32) -> Option<Self> {
        if !detected() || p >= 1 << 31 || log_n < 5 {
            return None;
        }
        let m = super::scalar::Mont::<u32>::new(p);
        let tw: Vec<u32> = canonical.iter().map(|&w| m.enter(w)).collect();
        let form = |i: usize| (tw[i], 0);
        Some(Avx512 {
            p,
            mu: m.p_inv,
            dif_tail: tail(Self::LANES, true, form),
            dit_tail: tail(Self::LANES, false, form),
            tw: tw.clone(),
            tws: Vec::new(),
            scale: scale.map(|c| (m.enter(c), 0)),
        })
    }
}

/// ⌊w·2^64/p⌋, the Shoup quotient of w < p.
fn shoup(w: u64, p: u64) -> u64 {
    ((u128::from(w) << 64) / u128::from(p)) as u64
}

impl Avx512<u64> {
    const LANES: usize = 8;

    /// The backend for p < 2^62 and n ≥ 16 on a CPU with AVX-512, else `None`.
    pub(crate) fn new(p: u64, canonical: &[u64], scale: Option<u64>, log_n: u32) -> Option<Self> {
        if !detected() || p >= 1 << 62 || log_n < 4 {
            return None;
        }
        let n = canonical.len();
        let mut tws = vec![0u64; n];
        // Layer s is every other entry of layer 2s: divide once per distinct twiddle.
        for j in n / 2..n {
            tws[j] = shoup(canonical[j], p);
        }
        let mut s = n / 4;
        while s >= 1 {
            for j in 0..s {
                tws[s + j] = tws[2 * s + 2 * j];
            }
            s /= 2;
        }
        let form = |i: usize| (canonical[i], tws[i]);
        Some(Avx512 {
            p,
            mu: 0,
            dif_tail: tail(Self::LANES, true, form),
            dit_tail: tail(Self::LANES, false, form),
            tw: canonical.to_vec(),
            tws,
            scale: scale.map(|c| (c, shoup(c, p))),
        })
    }
}

/// The shared butterfly loops; each module defines `Tw`, `add`, `sub`, `mul`, `perm`,
/// `tw_at`, `tw_vec`, `splat_tw` and `Consts` for its word.
macro_rules! loops {
    ($W:ty, $LANES:expr, $feat:literal) => {
        #[inline]
        #[target_feature(enable = $feat)]
        unsafe fn load(x: *const $W) -> __m512i {
            unsafe { _mm512_loadu_si512(x.cast()) }
        }

        #[inline]
        #[target_feature(enable = $feat)]
        unsafe fn store(x: *mut $W, v: __m512i) {
            unsafe { _mm512_storeu_si512(x.cast(), v) }
        }

        /// # Safety
        /// AVX-512 F and DQ are available; `a.len() == b.len()` is a multiple of the lane
        /// count and `s + j0 + a.len() <= tw.len()`.
        #[target_feature(enable = $feat)]
        pub(super) unsafe fn radix2(
            be: &Avx512<$W>,
            forward_dif: bool,
            s: usize,
            j0: usize,
            a: &mut [$W],
            b: &mut [$W],
            last: bool,
        ) {
            let c = consts(be);
            let g = a.len();
            assert!(b.len() == g && g % $LANES == 0 && s + j0 + g <= be.tw.len());
            let (pa, pb) = (a.as_mut_ptr(), b.as_mut_ptr());
            let mut j = 0;
            while j < g {
                // SAFETY: j + LANES ≤ g, the lengths checked above.
                unsafe {
                    let w = tw_at(be, s + j0 + j);
                    let (x, y) = (load(pa.add(j)), load(pb.add(j)));
                    let (mut x, mut y) = if forward_dif {
                        dif(&c, x, y, w)
                    } else {
                        dit(&c, x, y, w)
                    };
                    if last {
                        (x, y) = (canon(&c, x), canon(&c, y));
                    }
                    store(pa.add(j), x);
                    store(pb.add(j), y);
                }
                j += $LANES;
            }
        }

        /// # Safety
        /// As [`radix2`], for the four quarters (layers s and s/2).
        #[target_feature(enable = $feat)]
        pub(super) unsafe fn radix4(
            be: &Avx512<$W>,
            forward_dif: bool,
            s: usize,
            j0: usize,
            q: [&mut [$W]; 4],
            last: bool,
        ) {
            let c = consts(be);
            let [q0, q1, q2, q3] = q;
            let g = q0.len();
            let h = s / 2;
            assert!(q1.len() == g && q2.len() == g && q3.len() == g);
            assert!(g % $LANES == 0 && s + h + j0 + g <= be.tw.len());
            let (p0, p1, p2, p3) = (
                q0.as_mut_ptr(),
                q1.as_mut_ptr(),
                q2.as_mut_ptr(),
                q3.as_mut_ptr(),
            );
            let mut j = 0;
            while j < g {
                // SAFETY: j + LANES ≤ g, the lengths checked above.
                unsafe {
                    let t0 = tw_at(be, s + j0 + j);
                    let t1 = tw_at(be, s + h + j0 + j);
                    let t2 = tw_at(be, h + j0 + j);
                    let (x0, x1, x2, x3) = (
                        load(p0.add(j)),
                        load(p1.add(j)),
                        load(p2.add(j)),
                        load(p3.add(j)),
                    );
                    let (mut y0, mut y1, mut y2, mut y3) = if forward_dif {
                        let (x0, x2) = dif(&c, x0, x2, t0);
                        let (x1, x3) = dif(&c, x1, x3, t1);
                        let (x0, x1) = dif(&c, x0, x1, t2);
                        let (x2, x3) = dif(&c, x2, x3, t2);
                        (x0, x1, x2, x3)
                    } else {
                        let (x0, x1) = dit(&c, x0, x1, t2);
                        let (x2, x3) = dit(&c, x2, x3, t2);
                        let (x0, x2) = dit(&c, x0, x2, t0);
                        let (x1, x3) = dit(&c, x1, x3, t1);
                        (x0, x1, x2, x3)
                    };
                    if last {
                        (y0, y1, y2, y3) =
                            (canon(&c, y0), canon(&c, y1), canon(&c, y2), canon(&c, y3));
                    }
                    store(p0.add(j), y0);
                    store(p1.add(j), y1);
                    store(p2.add(j), y2);
                    store(p3.add(j), y3);
                }
                j += $LANES;
            }
        }

        /// # Safety
        /// AVX-512 F and DQ are available; `x.len()` is a multiple of 2·lanes.
        #[target_feature(enable = $feat)]
        pub(super) unsafe fn tail(be: &Avx512<$W>, forward_dif: bool, x: &mut [$W]) {
            // SAFETY: forwarded.
            unsafe {
                if forward_dif {
                    tail_of::<true>(be, x)
                } else {
                    tail_of::<false>(be, x)
                }
            }
        }

        /// The tail with its shape fixed at compile time, so that the step loop unrolls
        /// and every index and twiddle vector stays in a register: a DIF's first layer
        /// (stride L) needs no rearrangement and its last (stride 1) no product; a DIT's
        /// first layer has no product and it ends in the natural arrangement.
        ///
        /// # Safety
        /// As [`tail`].
        #[target_feature(enable = $feat)]
        unsafe fn tail_of<const DIF: bool>(be: &Avx512<$W>, x: &mut [$W]) {
            const STEPS: usize = ($LANES as usize).trailing_zeros() as usize + 1;
            let c = consts(be);
            let t = if DIF { &be.dif_tail } else { &be.dit_tail };
            assert!(x.len() % (2 * $LANES) == 0 && t.steps.len() == STEPS);
            let zero = _mm512_setzero_si512();
            let mut perms = [(zero, zero); STEPS];
            let mut tws = [splat_tw(0, 0); STEPS];
            for (i, st) in t.steps.iter().enumerate() {
                // SAFETY: every index and twiddle vector holds exactly LANES words.
                unsafe {
                    if let Some((a, b)) = &st.perm {
                        perms[i] = (load(a.as_ptr()), load(b.as_ptr()));
                    }
                    tws[i] = tw_vec(&st.w, &st.ws);
                }
            }
            assert_eq!(t.steps[0].perm.is_none(), DIF);
            assert!(t.steps[if DIF { STEPS - 1 } else { 0 }].unit);
            assert_eq!(t.last.is_some(), DIF);
            // SAFETY: as above.
            let last = t
                .last
                .as_ref()
                .map(|(a, b)| unsafe { (load(a.as_ptr()), load(b.as_ptr())) })
                .unwrap_or((zero, zero));
            let px = x.as_mut_ptr();
            let mut k = 0;
            while k < x.len() {
                // SAFETY: k + 2·LANES ≤ x.len().
                unsafe {
                    let mut u = load(px.add(k));
                    let mut v = load(px.add(k + $LANES));
                    for i in 0..STEPS {
                        if !(DIF && i == 0) {
                            let (ia, ib) = perms[i];
                            (u, v) = (perm2(u, ia, v), perm2(u, ib, v));
                        }
                        (u, v) = if i == if DIF { STEPS - 1 } else { 0 } {
                            unit(&c, u, v)
                        } else if DIF {
                            dif(&c, u, v, tws[i])
                        } else {
                            dit(&c, u, v, tws[i])
                        };
                    }
                    if DIF {
                        (u, v) = (perm2(u, last.0, v), perm2(u, last.1, v));
                    }
                    store(px.add(k), u);
                    store(px.add(k + $LANES), v);
                }
                k += 2 * $LANES;
            }
        }

        /// Whether any value of `x` is p or more.
        #[target_feature(enable = $feat)]
        pub(super) fn any_out_of_range(be: &Avx512<$W>, x: &[$W]) -> bool {
            let c = consts(be);
            let mut chunks = x.chunks_exact($LANES);
            let mut mask = 0;
            for v in &mut chunks {
                // SAFETY: v holds LANES words.
                mask |= at_least_p(&c, unsafe { load(v.as_ptr()) });
            }
            mask != 0 || chunks.remainder().iter().any(|&v| v >= be.p)
        }

        /// # Safety
        /// AVX-512 F and DQ are available; `x.len()` is a multiple of the lane count.
        #[target_feature(enable = $feat)]
        pub(super) unsafe fn canonical(be: &Avx512<$W>, x: &mut [$W]) {
            let c = consts(be);
            assert!(x.len() % $LANES == 0);
            let px = x.as_mut_ptr();
            let mut k = 0;
            while k < x.len() {
                // SAFETY: k + LANES ≤ x.len().
                unsafe { store(px.add(k), canon(&c, load(px.add(k)))) };
                k += $LANES;
            }
        }

        /// # Safety
        /// AVX-512 F and DQ are available; `x.len()` is a multiple of the lane count.
        #[target_feature(enable = $feat)]
        pub(super) unsafe fn scale(be: &Avx512<$W>, x: &mut [$W]) {
            let Some((w, ws)) = be.scale else { return };
            let c = consts(be);
            assert!(x.len() % $LANES == 0);
            let w = splat_tw(w, ws);
            let px = x.as_mut_ptr();
            let mut k = 0;
            while k < x.len() {
                // SAFETY: k + LANES ≤ x.len().
                unsafe { store(px.add(k), mul(&c, load(px.add(k)), w)) };
                k += $LANES;
            }
        }
    };
}

pub(super) mod m32 {
    use super::*;

    pub(super) struct Consts {
        p: __m512i,
        mu: __m512i,
    }
    type Tw = __m512i;

    #[inline]
    #[target_feature(enable = "avx512f,avx512dq")]
    fn consts(be: &Avx512<u32>) -> Consts {
        Consts {
            p: _mm512_set1_epi32(be.p as i32),
            mu: _mm512_set1_epi32(be.mu as i32),
        }
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512dq")]
    unsafe fn tw_at(be: &Avx512<u32>, i: usize) -> Tw {
        // SAFETY: callers check i + 16 ≤ tw.len().
        unsafe { load(be.tw.as_ptr().add(i)) }
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512dq")]
    unsafe fn tw_vec(w: &[u32], _ws: &[u32]) -> Tw {
        // SAFETY: tail twiddle vectors hold 16 words.
        unsafe { load(w.as_ptr()) }
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512dq")]
    fn splat_tw(w: u32, _ws: u32) -> Tw {
        _mm512_set1_epi32(w as i32)
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512dq")]
    fn perm2(a: __m512i, idx: __m512i, b: __m512i) -> __m512i {
        _mm512_permutex2var_epi32(a, idx, b)
    }

    /// a + b mod p for canonical a, b (p < 2^31).
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq")]
    fn add(c: &Consts, a: __m512i, b: __m512i) -> __m512i {
        let s = _mm512_add_epi32(a, b);
        _mm512_min_epu32(s, _mm512_sub_epi32(s, c.p))
    }

    /// a − b mod p for canonical a, b.
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq")]
    fn sub(c: &Consts, a: __m512i, b: __m512i) -> __m512i {
        let d = _mm512_sub_epi32(a, b);
        _mm512_min_epu32(d, _mm512_add_epi32(d, c.p))
    }

    /// The DIF butterfly: (x + y, (x − y)·w). The difference enters the product as
    /// x − y + p ∈ (0, 2p), unreduced: REDC only needs t = a·w' < p·2^32, true for
    /// a < 2p < 2^32 as (x − y + p)·w' < 2p·p ≤ p·2^32.
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq")]
    fn dif(c: &Consts, x: __m512i, y: __m512i, w: Tw) -> (__m512i, __m512i) {
        let d = _mm512_add_epi32(_mm512_sub_epi32(x, y), c.p);
        (add(c, x, y), mul(c, d, w))
    }

    /// The DIT butterfly: (x + w·y, x − w·y).
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq")]
    fn dit(c: &Consts, x: __m512i, y: __m512i, w: Tw) -> (__m512i, __m512i) {
        let t = mul(c, y, w);
        (add(c, x, t), sub(c, x, t))
    }

    /// The butterfly of ω_2^0 = 1.
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq")]
    fn unit(c: &Consts, x: __m512i, y: __m512i) -> (__m512i, __m512i) {
        (add(c, x, y), sub(c, x, y))
    }

    /// The lanes holding p or more.
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq")]
    fn at_least_p(c: &Consts, x: __m512i) -> u32 {
        u32::from(_mm512_cmpge_epu32_mask(x, c.p))
    }

    /// Values are always canonical here.
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq")]
    fn canon(_c: &Consts, x: __m512i) -> __m512i {
        x
    }

    /// The odd 32-bit halves copied down into the even ones.
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq")]
    fn odd(x: __m512i) -> __m512i {
        _mm512_castps_si512(_mm512_movehdup_ps(_mm512_castsi512_ps(x)))
    }

    /// REDC(a·w') = a·w mod p, canonical, for a < p and w' = w·2^32 mod p.
    ///
    /// Per 64-bit lane pair: t = a·w' < p·2^32, q = (t mod 2^32)·p^(−1) mod 2^32, so
    /// t ≡ q·p (mod 2^32) and (t − q·p)/2^32 = hi(t) − hi(q·p) ∈ (−p, p); adding p to a
    /// negative difference (the minimum trick) makes it canonical.
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq")]
    fn mul(c: &Consts, a: __m512i, w: __m512i) -> __m512i {
        let te = _mm512_mul_epu32(a, w);
        let to = _mm512_mul_epu32(odd(a), odd(w));
        let qe = _mm512_mul_epu32(te, c.mu);
        let qo = _mm512_mul_epu32(to, c.mu);
        let qpe = _mm512_mul_epu32(qe, c.p);
        let qpo = _mm512_mul_epu32(qo, c.p);
        // High words: the even lanes' shifted down, the odd lanes' already in place.
        let th = _mm512_mask_blend_epi32(0xAAAA, _mm512_srli_epi64(te, 32), to);
        let qh = _mm512_mask_blend_epi32(0xAAAA, _mm512_srli_epi64(qpe, 32), qpo);
        let d = _mm512_sub_epi32(th, qh);
        _mm512_min_epu32(d, _mm512_add_epi32(d, c.p))
    }

    loops!(u32, 16, "avx512f,avx512dq");

    /// x ← REDC(x·y) lane by lane over the whole vectors of x and y (x·x without y;
    /// Montgomery residues, canonical, p < 2^31): the pointwise products of a cyclic
    /// product. Returns how many elements it did; the caller does the rest.
    ///
    /// # Safety
    /// AVX-512 F and DQ are available.
    #[target_feature(enable = "avx512f,avx512dq")]
    pub(in crate::cpu) unsafe fn mul_pointwise(
        (p, mu): (u32, u32),
        x: &mut [u32],
        y: Option<&[u32]>,
    ) -> usize {
        let c = Consts {
            p: _mm512_set1_epi32(p as i32),
            mu: _mm512_set1_epi32(mu as i32),
        };
        let whole = x.len().min(y.map_or(x.len(), <[u32]>::len)) / 16 * 16;
        let px = x.as_mut_ptr();
        let py = y.map_or(px.cast_const(), <[u32]>::as_ptr);
        for k in (0..whole).step_by(16) {
            // SAFETY: k + 16 ≤ whole ≤ both lengths.
            unsafe { store(px.add(k), mul(&c, load(px.add(k)), load(py.add(k)))) };
        }
        whole
    }

    /// acc ← acc − REDC(c·x) lane by lane over the whole vectors of acc and x (Montgomery
    /// residues, canonical, p < 2^31): the multiply-subtract of a long division's step.
    /// Returns how many elements it did; the caller does the rest.
    ///
    /// # Safety
    /// AVX-512 F and DQ are available.
    #[target_feature(enable = "avx512f,avx512dq")]
    pub(in crate::cpu) unsafe fn submul(
        (p, mu): (u32, u32),
        acc: &mut [u32],
        c: u32,
        x: &[u32],
    ) -> usize {
        let k = Consts {
            p: _mm512_set1_epi32(p as i32),
            mu: _mm512_set1_epi32(mu as i32),
        };
        let c = _mm512_set1_epi32(c as i32);
        let whole = acc.len().min(x.len()) / 16 * 16;
        let (pa, px) = (acc.as_mut_ptr(), x.as_ptr());
        for j in (0..whole).step_by(16) {
            // SAFETY: j + 16 ≤ whole ≤ both lengths.
            unsafe {
                let product = mul(&k, load(px.add(j)), c);
                store(pa.add(j), sub(&k, load(pa.add(j)), product));
            }
        }
        whole
    }
}

mod m64 {
    use super::*;

    pub(super) struct Consts {
        p: __m512i,
        p2: __m512i,
    }
    type Tw = (__m512i, __m512i);

    #[inline]
    #[target_feature(enable = "avx512f,avx512dq")]
    fn consts(be: &Avx512<u64>) -> Consts {
        Consts {
            p: _mm512_set1_epi64(be.p as i64),
            p2: _mm512_set1_epi64((2 * be.p) as i64),
        }
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512dq")]
    unsafe fn tw_at(be: &Avx512<u64>, i: usize) -> Tw {
        // SAFETY: callers check i + 8 ≤ tw.len() = tws.len().
        unsafe { (load(be.tw.as_ptr().add(i)), load(be.tws.as_ptr().add(i))) }
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512dq")]
    unsafe fn tw_vec(w: &[u64], ws: &[u64]) -> Tw {
        // SAFETY: tail twiddle vectors hold 8 words.
        unsafe { (load(w.as_ptr()), load(ws.as_ptr())) }
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512dq")]
    fn splat_tw(w: u64, ws: u64) -> Tw {
        (_mm512_set1_epi64(w as i64), _mm512_set1_epi64(ws as i64))
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512dq")]
    fn perm2(a: __m512i, idx: __m512i, b: __m512i) -> __m512i {
        _mm512_permutex2var_epi64(a, idx, b)
    }

    /// Values between layers are kept in [0, 2p) (4p < 2^64 leaves room): a + b for
    /// a, b < 2p, reduced below 2p.
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq")]
    fn add(c: &Consts, a: __m512i, b: __m512i) -> __m512i {
        let s = _mm512_add_epi64(a, b);
        _mm512_min_epu64(s, _mm512_sub_epi64(s, c.p2))
    }

    /// x − y + 2p ∈ (0, 4p) for x, y < 2p, reduced below 2p.
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq")]
    fn sub(c: &Consts, x: __m512i, y: __m512i) -> __m512i {
        let d = _mm512_add_epi64(_mm512_sub_epi64(x, y), c.p2);
        _mm512_min_epu64(d, _mm512_sub_epi64(d, c.p2))
    }

    /// a·w mod p, in [0, 2p), for any a < 2^64 and w < p < 2^62, w_s = ⌊w·2^64/p⌋
    /// (Shoup; Harvey 2014, for a < 2^64).
    ///
    /// The exact quotient q = ⌊a·w_s/2^64⌋ gives a·w − q·p ∈ [0, 2p). We take
    /// q' = a_h·s_h + ⌊a_l·s_h/2^32⌋ + ⌊a_h·s_l/2^32⌋ (32-bit halves; the low product and
    /// the carries dropped): the dropped part of a·w_s/2^64 is below 2^32·2^32·2/2^64 +
    /// 2^64/2^64 = 3, so q − 2 ≤ q' ≤ q and r = a·w − q'·p ∈ [0, 4p) ⊂ [0, 2^64). One
    /// minimum step brings r below 2p; r itself is computed modulo 2^64 from the low
    /// words, which is exact because r < 2^64.
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq")]
    fn mul(c: &Consts, a: __m512i, (w, ws): Tw) -> __m512i {
        // Half of the shifts by 32 are shuffles (port 5) so that they do not queue behind
        // the multiplications (port 0): `vpmuludq` reads only the low half of each lane.
        let ah = _mm512_shuffle_epi32::<0xF5>(a);
        let sh = _mm512_srli_epi64(ws, 32);
        let hh = _mm512_mul_epu32(ah, sh);
        let lh = _mm512_mul_epu32(a, sh);
        let hl = _mm512_mul_epu32(ah, ws);
        let lh_hi = _mm512_maskz_shuffle_epi32::<0xF5>(0x5555, lh);
        let q = _mm512_add_epi64(hh, _mm512_add_epi64(lh_hi, _mm512_srli_epi64(hl, 32)));
        let r = _mm512_sub_epi64(_mm512_mullo_epi64(a, w), _mm512_mullo_epi64(q, c.p));
        _mm512_min_epu64(r, _mm512_sub_epi64(r, c.p2))
    }

    /// The DIF butterfly on values below 2p: (x + y, (x − y + 2p)·w), the difference
    /// unreduced (below 4p: any a < 2^64 suits `mul`).
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq")]
    fn dif(c: &Consts, x: __m512i, y: __m512i, w: Tw) -> (__m512i, __m512i) {
        let d = _mm512_add_epi64(_mm512_sub_epi64(x, y), c.p2);
        (add(c, x, y), mul(c, d, w))
    }

    /// The DIT butterfly on values below 2p: (x + w·y, x − w·y).
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq")]
    fn dit(c: &Consts, x: __m512i, y: __m512i, w: Tw) -> (__m512i, __m512i) {
        let t = mul(c, y, w);
        (add(c, x, t), sub(c, x, t))
    }

    /// The butterfly of ω_2^0 = 1.
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq")]
    fn unit(c: &Consts, x: __m512i, y: __m512i) -> (__m512i, __m512i) {
        (add(c, x, y), sub(c, x, y))
    }

    /// The lanes holding p or more.
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq")]
    fn at_least_p(c: &Consts, x: __m512i) -> u32 {
        u32::from(_mm512_cmpge_epu64_mask(x, c.p))
    }

    /// [0, 2p) → [0, p).
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq")]
    fn canon(c: &Consts, x: __m512i) -> __m512i {
        _mm512_min_epu64(x, _mm512_sub_epi64(x, c.p))
    }

    loops!(u64, 8, "avx512f,avx512dq");
}

macro_rules! butterflies {
    ($W:ty, $m:ident, $bits:expr, $lazy:expr) => {
        impl Butterflies for Avx512<$W> {
            type W = $W;

            fn tail_bits(&self) -> u32 {
                $bits
            }

            fn dif2(&self, s: usize, j0: usize, a: &mut [$W], b: &mut [$W]) {
                // SAFETY: built only where AVX-512 F and DQ were detected; the loop checks
                // its lengths.
                unsafe { $m::radix2(self, true, s, j0, a, b, false) }
            }

            fn dit2(&self, s: usize, j0: usize, a: &mut [$W], b: &mut [$W], last: bool) {
                // SAFETY: as in dif2.
                unsafe { $m::radix2(self, false, s, j0, a, b, last && $lazy) }
            }

            fn dif4(&self, s: usize, j0: usize, q: [&mut [$W]; 4]) {
                // SAFETY: as in dif2.
                unsafe { $m::radix4(self, true, s, j0, q, false) }
            }

            fn dit4(&self, s: usize, j0: usize, q: [&mut [$W]; 4], last: bool) {
                // SAFETY: as in dif2.
                unsafe { $m::radix4(self, false, s, j0, q, last && $lazy) }
            }

            fn any_out_of_range(&self, x: &[$W]) -> bool {
                // SAFETY: as in dif2.
                unsafe { $m::any_out_of_range(self, x) }
            }

            fn canonical(&self, x: &mut [$W]) {
                if $lazy {
                    // SAFETY: as in dif2.
                    unsafe { $m::canonical(self, x) }
                }
            }

            fn tail_dif(&self, x: &mut [$W]) {
                // SAFETY: as in dif2.
                unsafe { $m::tail(self, true, x) }
            }

            fn tail_dit(&self, x: &mut [$W]) {
                // SAFETY: as in dif2.
                unsafe { $m::tail(self, false, x) }
            }

            fn kernels(&self) -> super::ntt::Kernels {
                super::ntt::Kernels::Avx512
            }

            fn scale(&self, x: &mut [$W]) {
                // SAFETY: as in dif2.
                unsafe { $m::scale(self, x) }
            }
        }
    };
}

butterflies!(u32, m32, 5, false);
butterflies!(u64, m64, 4, true);
