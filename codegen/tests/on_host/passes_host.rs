//! The product passes besides transforms — fold, recombine and overlap-add of FFT-based
//! products, and the plain products' tile and reduce kernels — compiled as plain C++ from
//! the file the GPU runs (`fermat_codegen::poly::source`) and run block by block on the
//! CPU, one thread per block: they give what the CPU's runs of the same passes give
//! (`poly::{fold, recombine, overlap_add}`, `plain::plain_mul`) and the schoolbook
//! product, for a word prime of each width and an SRGFN.
//!
//! Outputs start poisoned; vectors sit in buffers of larger capacity (junk beyond their
//! length), digit-major for SRGFNs, and products of a batch at a distance of their own.

use crate::host;

use fermat_codegen::cost::FieldShape;
use fermat_codegen::kernel::table_form;
use fermat_codegen::plain::{plain_mul, plain_series, Tile};
use fermat_codegen::poly::{self, ProductPass};
use fermat_dsl::field::{AnyField, Field, FieldSpec};
use fermat_dsl::with_field;
use host::{build_harness, compiler, elements, parse_words, run_harness, words};
use rand::{Rng, SeedableRng};
use std::path::PathBuf;

const HARNESS: &str = r#"
#include "kernels.cu"
int main() {
    size_t nbufs;
    if (scanf("%zu", &nbufs) != 1) return 2;
    std::vector<std::vector<fe_word_t>> buf(nbufs);
    for (auto& b : buf) {
        size_t words;
        if (scanf("%zu", &words) != 1) return 2;
        b.resize(words ? words : 1);
        for (size_t i = 0; i < words; i++) {
            unsigned long long x; if (scanf("%llu", &x) != 1) return 2; b[i] = (fe_word_t)x;
        }
    }
    size_t launches, out_buf;
    if (scanf("%zu %zu", &launches, &out_buf) != 2) return 3;
    for (size_t l = 0; l < launches; l++) {
        char name[32]; unsigned gx, gy; size_t s, f, d, a[13];
        if (scanf("%31s %u %u %zu %zu %zu", name, &gx, &gy, &s, &f, &d) != 6) return 3;
        for (auto& v : a) if (scanf("%zu", &v) != 1) return 3;
        // src_len, src_stride, src_dist, fac_len, fac_stride, fac_dist, dst_len,
        // dst_stride, dst_dist, lo, terms, block, m
        gridDim = {gx, gy, 1};
        const fe_word_t* src = buf[s].data();
        const fe_word_t* fac = buf[f].data();
        fe_word_t* dst = buf[d].data();
        for (unsigned y = 0; y < gy; y++) for (unsigned x = 0; x < gx; x++) {
            blockIdx = {x, y, 0};
            if (!strcmp(name, "plain_product"))
                plain_product(src, a[0], a[1], a[2], fac, a[3], a[4], a[5], dst, a[6], a[7],
                              a[8], a[9], a[10], a[11]);
            else if (!strcmp(name, "plain_reduce"))
                plain_reduce(src, a[1], a[2], dst, a[6], a[7], a[8], a[10]);
            else if (!strcmp(name, "plain_reverse"))
                plain_reverse(src, a[0], a[1], dst, a[6], a[7]);
            else if (!strcmp(name, "plain_difference"))
                plain_difference(src, a[0], a[1], fac, a[3], a[4], dst, a[6], a[7]);
            else if (!strcmp(name, "plain_series"))
                plain_series(src, a[0], a[1], dst, a[6], a[7], a[9]);
            else if (!strcmp(name, "product_fold"))
                product_fold(src, dst, fac, a[0], a[1], a[12], a[10]);
            else if (!strcmp(name, "product_recombine"))
                product_recombine(src, dst, fac, a[6], a[7], a[12], a[10]);
            else if (!strcmp(name, "product_overlap_add"))
                product_overlap_add(src, dst, a[1], a[6], a[7], a[12], a[10], a[11]);
            else return 4;
        }
    }
    for (auto w : buf[out_buf]) printf("%llu\n", (unsigned long long)w);
    return 0;
}
"#;

/// One launch: the kernel, its grid, its buffers (source, factor or table, destination)
/// and its sizes.
#[derive(Default)]
struct Launch {
    name: &'static str,
    grid: (u64, u64),
    bufs: (usize, usize, usize),
    src: [u64; 3],
    fac: [u64; 3],
    dst: [u64; 3],
    lo: u64,
    terms: u64,
    block: u64,
    m: u64,
}

/// Runs `launches` on `buffers` (words) with the harness built for `field`, and returns the
/// words of buffer `out`.
fn run(
    name: &str,
    field: &AnyField,
    buffers: &[Vec<u64>],
    launches: &[Launch],
    out: usize,
) -> Option<Vec<u64>> {
    let cxx = compiler()?;
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("passes_host_{name}"));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("kernels.cu"), poly::source(field).unwrap()).unwrap();
    let exe = build_harness(&cxx, &dir, HARNESS, &[], "the product passes");
    let mut text = format!("{}\n", buffers.len());
    for b in buffers {
        text.push_str(&format!("{}\n", b.len()));
        for w in b {
            text.push_str(&format!("{w} "));
        }
        text.push('\n');
    }
    text.push_str(&format!("{} {out}\n", launches.len()));
    for l in launches {
        let [a0, a1, a2] = l.src;
        let [a3, a4, a5] = l.fac;
        let [a6, a7, a8] = l.dst;
        text.push_str(&format!(
            "{} {} {} {} {} {} {a0} {a1} {a2} {a3} {a4} {a5} {a6} {a7} {a8} {} {} {} {}\n",
            l.name, l.grid.0, l.grid.1, l.bufs.0, l.bufs.1, l.bufs.2, l.lo, l.terms, l.block, l.m
        ));
    }
    // Kept beside the harness, to rerun a failure by hand.
    std::fs::write(dir.join("input.txt"), &text).unwrap();
    Some(parse_words(&run_harness(
        &exe,
        &text,
        &format!("{name}: the harness"),
    )))
}

fn schoolbook<F: Field>(field: &F, a: &[F::Elem], b: &[F::Elem]) -> Vec<F::Elem> {
    let mut c = vec![field.zero(); a.len() + b.len() - 1];
    for (i, x) in a.iter().enumerate() {
        for (j, y) in b.iter().enumerate() {
            c[i + j] = field.add(&c[i + j], &field.mul(x, y));
        }
    }
    c
}

fn random<F: Field>(field: &F, rng: &mut rand::rngs::StdRng, len: usize) -> Vec<F::Elem> {
    (0..len).map(|_| field.from_u64(rng.gen())).collect()
}

/// Words that no element has in any layout (all ones), so that a missed output shows.
const POISON: u64 = u64::MAX;

/// A batch of two plain products of `la` × `lb` (the second operands' layout at a
/// distance), outputs lo..lo + len, in chunks of `chunk` terms: kernels against
/// `plain_mul` and the schoolbook product.
fn check_plain<F: Field>(
    any: &AnyField,
    field: &F,
    shapes: &[(usize, usize, usize, usize, usize)],
) {
    let k = any.srgfn_params().map_or(1, |p| p.k as usize);
    let tile = Tile::for_element_bytes(FieldShape::of(any).element_bytes);
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    for &(la, lb, lo, len, chunk) in shapes {
        // A launch sums at most the tile's chunk of terms per block.
        let chunk = chunk.min(tile.chunk as usize);
        let batch = 2usize;
        let (a_dist, b_dist) = (la + 3, lb + 5);
        let (a_cap, b_cap) = (batch * a_dist, batch * b_dist);
        let xs: Vec<Vec<F::Elem>> = (0..batch).map(|_| random(field, &mut rng, la)).collect();
        let ys: Vec<Vec<F::Elem>> = (0..batch).map(|_| random(field, &mut rng, lb)).collect();
        let lay = |vs: &[Vec<F::Elem>], dist: usize, cap: usize| {
            let mut flat = vec![field.zero(); cap];
            for (q, v) in vs.iter().enumerate() {
                flat[q * dist..q * dist + v.len()].copy_from_slice(v);
            }
            words(field, &flat, cap, k)
        };
        let terms = la.div_ceil(chunk) as u64;
        let rows = batch as u64 * terms;
        let partial_cap = rows * len as u64;
        let c_dist = len + 1;
        let c_cap = batch * c_dist;
        let buffers = vec![
            lay(&xs, a_dist, a_cap),
            lay(&ys, b_dist, b_cap),
            vec![POISON; partial_cap as usize * k],
            // The outputs poisoned, the gaps between the products zero (never written).
            (0..c_cap * k)
                .map(|w| if w % c_cap % c_dist < len { POISON } else { 0 })
                .collect(),
        ];
        let product = Launch {
            name: "plain_product",
            grid: ((len as u64).div_ceil(u64::from(tile.outputs)), rows),
            bufs: (0, 1, 2),
            src: [la as u64, a_cap as u64, a_dist as u64],
            fac: [lb as u64, b_cap as u64, b_dist as u64],
            dst: [len as u64, partial_cap, len as u64],
            lo: lo as u64,
            terms,
            block: chunk as u64,
            ..Launch::default()
        };
        let reduce = Launch {
            name: "plain_reduce",
            grid: (1, batch as u64),
            bufs: (2, 2, 3),
            src: [0, partial_cap, len as u64],
            dst: [len as u64, c_cap as u64, c_dist as u64],
            terms,
            ..Launch::default()
        };
        let name = format!("plain_{}", any.name());
        let Some(out) = run(&name, any, &buffers, &[product, reduce], 3) else {
            return;
        };
        let got = elements(field, &out, c_cap, c_cap, k);
        for q in 0..batch {
            let whole = schoolbook(field, &xs[q], &ys[q]);
            let want: Vec<F::Elem> = (lo..lo + len)
                .map(|t| whole.get(t).copied().unwrap_or(field.zero()))
                .collect();
            let mut cpu = vec![field.zero(); len];
            plain_mul(field, &xs[q], &ys[q], lo, tile, chunk, &mut cpu);
            assert!(cpu == want, "{name}: plain_mul {la} × {lb} [{lo}, +{len})");
            assert!(
                got[q * c_dist..q * c_dist + len] == want[..],
                "{name}: product {q} of {la} × {lb}, outputs [{lo}, +{len}), chunks of {chunk}"
            );
        }
    }
}

/// Shapes (len a, len b, lo, outputs, chunk): whole products, middle products, one and
/// many chunks, tiles cut short, a tile beyond every term.
const SHAPES: [(usize, usize, usize, usize, usize); 6] = [
    (1, 1, 0, 1, 256),
    (7, 300, 0, 306, 3),
    (300, 7, 0, 306, 256),
    (40, 41, 0, 80, 16),
    (64, 128, 63, 64, 32),
    (30, 20, 0, 600, 8),
];

#[test]
fn plain_products_match_the_schoolbook_product() {
    for spec in ["babybear", "goldilocks", "P3"] {
        let any = FieldSpec::parse(spec).unwrap().build().unwrap();
        with_field!(&any, f => check_plain(&any, f, &SHAPES));
    }
}

fn check_fft_passes<F: Field>(any: &AnyField, field: &F) {
    let k = any.srgfn_params().map_or(1, |p| p.k as usize);
    let shape = FieldShape::of(any);
    let mut rng = rand::rngs::StdRng::seed_from_u64(11);
    let (n, m) = (64usize, 16usize);
    let terms = (n / m) as u64;
    let theta = field.root_of_unity(2 * n as u64).unwrap();
    let name = format!("fft_passes_{}", any.name());
    // Fold an input of 70 coefficients (terms + 1 of them) at capacity 80.
    let (len, cap) = (70usize, 80usize);
    let x = random(field, &mut rng, len);
    let fold_rows = ProductPass::Fold.table(field, &theta, m as u64, terms + 1);
    let fold = Launch {
        name: "product_fold",
        grid: (1, 1),
        bufs: (0, 1, 2),
        src: [len as u64, cap as u64, 0],
        terms: terms + 1,
        m: m as u64,
        ..Launch::default()
    };
    let buffers = vec![
        words(field, &x, cap, k),
        table_form(field, &shape, &fold_rows),
        vec![POISON; m * k],
    ];
    let Some(out) = run(&name, any, &buffers, &[fold], 2) else {
        return;
    };
    let mut want = vec![field.zero(); m];
    poly::fold(field, &fold_rows, &x, &mut want);
    assert!(elements(field, &out, m, m, k) == want, "{name}: fold");
    // Recombine R₁ (n coefficients, of a product of n + 10) with R₂ (m).
    let lc = n + 10;
    let (r1, r2) = (random(field, &mut rng, n), random(field, &mut rng, m));
    let rows = ProductPass::Recombine.table(field, &theta, m as u64, terms);
    let mut c = r1.clone();
    c.resize(lc, field.zero());
    let mut words_c = words(field, &c, lc + 2, k);
    for c in 0..k {
        // The coefficients beyond R₁ are written, never read: poison them.
        for e in n..lc + 2 {
            words_c[c * (lc + 2) + e] = POISON;
        }
    }
    let recombine = Launch {
        name: "product_recombine",
        grid: (1, 1),
        bufs: (0, 1, 2),
        dst: [lc as u64, (lc + 2) as u64, 0],
        terms,
        m: m as u64,
        ..Launch::default()
    };
    let buffers = vec![
        words(field, &r2, m, k),
        table_form(field, &shape, &rows),
        words_c,
    ];
    let out = run(&name, any, &buffers, &[recombine], 2).unwrap();
    poly::recombine(field, &rows, &r2, &mut c);
    assert!(
        elements(field, &out, lc, lc + 2, k) == c,
        "{name}: recombine"
    );
    // Overlap-add 5 block products of m points, blocks of 12 coefficients.
    let (count, block) = (5usize, 12usize);
    let r = random(field, &mut rng, count * m);
    let lc = (count - 1) * block + m - 2;
    let add = Launch {
        name: "product_overlap_add",
        grid: (1, 1),
        bufs: (0, 0, 1),
        src: [0, (count * m) as u64, 0],
        dst: [lc as u64, lc as u64, 0],
        terms: count as u64,
        block: block as u64,
        m: m as u64,
        ..Launch::default()
    };
    let buffers = vec![words(field, &r, count * m, k), vec![POISON; lc * k]];
    let out = run(&name, any, &buffers, &[add], 1).unwrap();
    let mut want = vec![field.zero(); lc];
    poly::overlap_add(field, &r, m, block, &mut want);
    assert!(
        elements(field, &out, lc, lc, k) == want,
        "{name}: overlap-add"
    );
}

#[test]
fn fft_product_passes_match_their_cpu_runs() {
    for spec in ["babybear", "p4179340454199820289", "P2"] {
        let any = FieldSpec::parse(spec).unwrap().build().unwrap();
        with_field!(&any, f => check_fft_passes(&any, f));
    }
}

/// The operands of the division's elementwise kernels: a and b of 300 and 170
/// coefficients in buffers of 310.
struct DivisionCase<'a, F: Field> {
    any: &'a AnyField,
    field: &'a F,
    name: &'a str,
    /// Words an element.
    k: usize,
    cap: usize,
    a: Vec<F::Elem>,
    b: Vec<F::Elem>,
}

impl<F: Field> DivisionCase<'_, F> {
    /// The field (both ways), the name, words an element, the capacity, a and b.
    #[allow(clippy::type_complexity)]
    fn parts(&self) -> (&AnyField, &F, &str, usize, usize, &[F::Elem], &[F::Elem]) {
        (
            self.any, self.field, self.name, self.k, self.cap, &self.a, &self.b,
        )
    }
}

/// The division's elementwise kernels: the reversal of a polynomial cut short and padded
/// with zeros, and differences of operands of unequal lengths (a negation and a copy
/// among them), from vectors of larger capacity into poisoned outputs.
fn check_division_passes<F: Field>(any: &AnyField, field: &F) {
    let mut rng = rand::rngs::StdRng::seed_from_u64(13);
    let name = format!("division_passes_{}", any.name());
    let case = DivisionCase {
        any,
        field,
        name: &name,
        k: any.srgfn_params().map_or(1, |p| p.k as usize),
        cap: 310,
        a: random(field, &mut rng, 300),
        b: random(field, &mut rng, 170),
    };
    if check_reversals(&case) {
        check_series(&case);
        check_differences(&case);
    }
}

/// The reversals of a, shorter than a, as long, and longer (zeros past its length); false
/// where no compiler runs the kernels.
fn check_reversals<F: Field>(case: &DivisionCase<F>) -> bool {
    let (any, field, name, k, cap, a, _) = case.parts();
    let la = a.len();
    for out_len in [100usize, la, 305] {
        let reverse = Launch {
            name: "plain_reverse",
            grid: (1, 1),
            bufs: (0, 0, 1),
            src: [la as u64, cap as u64, 0],
            dst: [out_len as u64, cap as u64, 0],
            ..Launch::default()
        };
        let buffers = vec![words(field, a, cap, k), vec![POISON; cap * k]];
        let Some(out) = run(name, any, &buffers, &[reverse], 1) else {
            return false;
        };
        let want: Vec<F::Elem> = (0..out_len)
            .map(|t| if t < la { a[la - 1 - t] } else { field.zero() })
            .collect();
        let got = elements(field, &out, out_len, cap, k);
        assert!(got == want, "{name}: reverse to {out_len}");
    }
    true
}

/// Power-series inverses of a (and of its first 7 coefficients) from seeds of 1, 5 and
/// 16 coefficients, to 1, 2, 200 and 300 coefficients; where the tile inverts, also from
/// nothing: 1/f_0 on chip.
fn check_series<F: Field>(case: &DivisionCase<F>) {
    let (any, field, name, k, cap, a, _) = case.parts();
    let la = a.len();
    let tile = Tile::for_element_bytes(FieldShape::of(any).element_bytes);
    let capacity = tile.series as usize;
    let from_nothing: &[(usize, usize, usize)] = if tile.inverts {
        &[(la, 0, 1), (la, 0, 300), (7, 0, 2)]
    } else {
        &[]
    };
    for &(f_len, lo, n) in [
        (la, 1, 1),
        (la, 1, 2),
        (la, 5, 200),
        (7, 16, 300),
        (la, 1, la),
    ]
    .iter()
    .chain(from_nothing)
    {
        let n = n.min(capacity);
        let mut seed = Vec::new();
        if lo > 0 {
            seed.push(field.inv(&a[0]).unwrap());
        }
        plain_series(field, &a[..f_len], &mut seed, lo);
        let series = Launch {
            name: "plain_series",
            grid: (1, 1),
            bufs: (0, 0, 1),
            src: [f_len as u64, cap as u64, 0],
            dst: [n as u64, cap as u64, 0],
            lo: lo as u64,
            ..Launch::default()
        };
        let mut g = words(field, &seed, cap, k);
        // Past the seed, poison: the kernel writes g there, and nothing past n.
        for digit in 0..k {
            g[digit * cap + lo..(digit + 1) * cap].fill(POISON);
        }
        let buffers = vec![words(field, a, cap, k), g];
        let out = run(name, any, &buffers, &[series], 1).unwrap();
        let mut want = seed.clone();
        plain_series(field, &a[..f_len], &mut want, n);
        let got = elements(field, &out, n, cap, k);
        assert!(got == want, "{name}: series of {f_len} from {lo} to {n}");
        let product = schoolbook(field, &a[..f_len], &got);
        assert!(
            product[0] == field.one() && product[1..n].iter().all(|c| *c == field.zero()),
            "{name}: f·g ≢ 1 mod x^{n}"
        );
        for digit in 0..k {
            // Words of 32 bits come back as the poison's low half.
            assert!(
                out[digit * cap + n..(digit + 1) * cap]
                    .iter()
                    .all(|&w| w as u32 == POISON as u32),
                "{name}: series to {n} wrote past it"
            );
        }
    }
}

/// Differences: a − b over the longer length, −b (a empty), a (b empty), and a − b cut to
/// 50 outputs.
fn check_differences<F: Field>(case: &DivisionCase<F>) {
    let (any, field, name, k, cap, a, b) = case.parts();
    let (la, lb) = (a.len(), b.len());
    let at = |v: &[F::Elem], t: usize| v.get(t).copied().unwrap_or(field.zero());
    let none: &[F::Elem] = &[];
    let cases = [
        (a, b, la),
        (b, a, la),
        (none, b, lb),
        (a, none, la),
        (a, b, 50),
    ];
    for (x, y, out_len) in cases {
        let difference = Launch {
            name: "plain_difference",
            grid: (1, 1),
            bufs: (0, 1, 2),
            src: [x.len() as u64, cap as u64, 0],
            fac: [y.len() as u64, cap as u64, 0],
            dst: [out_len as u64, cap as u64, 0],
            ..Launch::default()
        };
        // An empty operand's buffer holds junk: the kernel must not read it.
        let junk = |v: &[F::Elem]| if v.is_empty() { b.to_vec() } else { v.to_vec() };
        let buffers = vec![
            words(field, &junk(x), cap, k),
            words(field, &junk(y), cap, k),
            vec![POISON; cap * k],
        ];
        let out = run(name, any, &buffers, &[difference], 2).unwrap();
        let want: Vec<F::Elem> = (0..out_len)
            .map(|t| field.sub(&at(x, t), &at(y, t)))
            .collect();
        let got = elements(field, &out, out_len, cap, k);
        assert!(
            got == want,
            "{name}: difference of {} and {} to {out_len}",
            x.len(),
            y.len()
        );
    }
}

#[test]
fn division_passes_reverse_and_subtract() {
    for spec in ["babybear", "goldilocks", "P3"] {
        let any = FieldSpec::parse(spec).unwrap().build().unwrap();
        with_field!(&any, f => check_division_passes(&any, f));
    }
}
