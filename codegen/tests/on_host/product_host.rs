//! The kernels of an FFT-based product — forward transforms that read short polynomials
//! (zero padding in the gather), and the inverse with the pointwise product folded into
//! its first pass and a short output written by its last — compiled as plain C++ and run
//! block by block on the CPU, give the schoolbook product; the CPU executor runs the same
//! plans to the same result.
//!
//! Blocks of a plan run in a scrambled order with the hand-off counters, as in
//! `kernels_host`; vectors of polynomials are laid out as the device keeps them, digit c
//! of coefficient e at word c·capacity + e, with a capacity above the length.

use crate::host;

use fermat_codegen::contract::{Arg, Buffer, Input, Launch};
use fermat_codegen::cost::FieldShape;
use fermat_codegen::design::{design, DesignOptions};
use fermat_codegen::kernel::{
    emit, emit_middle, emit_product, twiddle_table, EmitOptions, Emitted, MiddleProduct,
};
use fermat_codegen::{execute_io, unit, Plan, Roots};
use fermat_dsl::field::{AnyField, Field, FieldSpec};
use fermat_dsl::with_field;
use host::{compiler, elements, parse_words, run_harness, words};
use rand::SeedableRng;
use std::path::PathBuf;

const HARNESS: &str = r#"
#include "kernels.cu"
typedef void (*kernel_fn)(const fe_word_t*, fe_word_t*, const fe_word_t*, unsigned int*,
    unsigned int, const fe_word_t*, size_t, size_t, size_t, size_t, size_t, size_t, size_t,
    size_t, size_t);
struct block { size_t k; unsigned y; unsigned long long x; };
struct launch { unsigned long long blocks; unsigned batch; int src, dst, op, grouped;
    size_t op_dist, s[4], d[4]; };
static bool read_words(std::vector<fe_word_t>& v) {
    for (auto& w : v) { unsigned long long x; if (scanf("%llu", &x) != 1) return false; w = (fe_word_t)x; }
    return true;
}
int main() {
    size_t nbufs, table_words, plans, out_buf;
    if (scanf("%zu %zu %zu %zu", &nbufs, &table_words, &plans, &out_buf) != 4) return 2;
    std::vector<std::vector<fe_word_t>> buf(nbufs);
    for (auto& b : buf) {
        size_t words; int poison;
        if (scanf("%zu %d", &words, &poison) != 2) return 2;
        b.resize(words);
        if (poison) { for (auto& w : b) w = (fe_word_t)0x5a5a5a5a5a5a5a5aull; }
        else if (!read_words(b)) return 2;
    }
    std::vector<fe_word_t> tw(table_words ? table_words : 1);
    if (!read_words(tw)) return 2;
    kernel_fn kernels[] = { KERNEL_LIST };
    size_t next_kernel = 0;
    for (size_t plan = 0; plan < plans; plan++) {
        size_t count, counters;
        if (scanf("%zu %zu", &count, &counters) != 2) return 3;
        std::vector<launch> ls(count);
        std::vector<block> pending;
        for (size_t k = 0; k < count; k++) {
            launch& l = ls[k];
            if (scanf("%llu %u %d %d %d %d %zu", &l.blocks, &l.batch, &l.src, &l.dst, &l.op,
                      &l.grouped, &l.op_dist) != 7) return 3;
            for (auto& v : l.s) if (scanf("%zu", &v) != 1) return 3;
            for (auto& v : l.d) if (scanf("%zu", &v) != 1) return 3;
            for (unsigned y = 0; y < l.batch; y++)
                for (unsigned long long x = 0; x < l.blocks; x++) pending.push_back({k, y, x});
        }
        std::vector<unsigned int> flags(counters * ls[0].batch + 1, 0);
        std::vector<unsigned long long> done(count, 0);
        unsigned long long seed = 0x9e3779b97f4a7c15ull ^ plan;
        for (size_t i = pending.size(); i > 1; i--) {
            seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17;
            std::swap(pending[i - 1], pending[seed % i]);
        }
        while (!pending.empty()) {
            std::vector<block> later;
            for (const auto& b : pending) {
                const launch& l = ls[b.k];
                if (b.k > 0 && !l.grouped && done[b.k - 1] < ls[b.k - 1].blocks * ls[b.k - 1].batch) {
                    later.push_back(b);
                    continue;
                }
                blockIdx.x = (unsigned)b.x; blockIdx.y = b.y;
                const fe_word_t* op = l.op >= 0 ? buf[l.op].data() : nullptr;
                try {
                    kernels[next_kernel + b.k](buf[l.src].data(), buf[l.dst].data(), tw.data(),
                        flags.data(), counters ? 1u : 0u, op, l.op_dist, l.s[0], l.s[1], l.s[2], l.s[3],
                        l.d[0], l.d[1], l.d[2], l.d[3]);
                    done[b.k]++;
                } catch (const fe_tile_not_ready&) {
                    later.push_back(b);
                }
            }
            if (later.size() == pending.size()) return 4;
            pending.swap(later);
        }
        next_kernel += count;
    }
    for (auto w : buf[out_buf]) printf("%llu\n", (unsigned long long)w);
    return 0;
}
"#;

/// The harness of a fused product kernel: the batch's factors, products and twiddles, then
/// one block per product.
const FUSED_HARNESS: &str = r#"
#include "kernels.cu"
typedef void (*kernel_fn)(const fe_word_t*, fe_word_t*, const fe_word_t*, size_t, size_t,
    size_t, size_t, const fe_word_t*, size_t, size_t, size_t, size_t, size_t, size_t, size_t,
    size_t);
static bool read_words(std::vector<fe_word_t>& v) {
    for (auto& w : v) { unsigned long long x; if (scanf("%llu", &x) != 1) return false; w = (fe_word_t)x; }
    return true;
}
int main() {
    size_t na, nb, nc, nt, batch, s[4], f[4], d[4];
    if (scanf("%zu %zu %zu %zu %zu", &na, &nb, &nc, &nt, &batch) != 5) return 2;
    for (auto* e : {s, f, d})
        for (int i = 0; i < 4; i++) if (scanf("%zu", &e[i]) != 1) return 2;
    std::vector<fe_word_t> a(na), b(nb), c(nc, (fe_word_t)0x5a5a5a5a5a5a5a5aull), tw(nt ? nt : 1);
    if (!read_words(a) || !read_words(b) || !read_words(tw)) return 2;
    kernel_fn kernels[] = { KERNEL_LIST };
    for (unsigned y = 0; y < batch; y++) {
        blockIdx.y = y;
        kernels[0](a.data(), c.data(), tw.data(), s[0], s[1], s[2], s[3], b.data(), f[0], f[1],
            f[2], f[3], d[0], d[1], d[2], d[3]);
    }
    for (auto w : c) printf("%llu\n", (unsigned long long)w);
    return 0;
}
"#;

/// The buffers of the harness.
const A: usize = 0;
const B: usize = 1;
const TA: usize = 2;
const TB: usize = 3;
const SCRATCH: usize = 4;
const C: usize = 5;

fn schoolbook<F: Field>(field: &F, a: &[F::Elem], b: &[F::Elem]) -> Vec<F::Elem> {
    let mut c = vec![field.zero(); a.len() + b.len() - 1];
    for (i, x) in a.iter().enumerate() {
        for (j, y) in b.iter().enumerate() {
            c[i + j] = field.add(&c[i + j], &field.mul(x, y));
        }
    }
    c
}

/// The forward plan (short input, natural in, bit-reversed out) and the inverse (pointwise
/// product and short output, bit-reversed in, natural out) of a cyclic product of n points.
fn plans(any: &AnyField, n: u64, max_local_bits: Option<u32>) -> (Plan, Plan) {
    let options = DesignOptions {
        max_local_bits,
        ..DesignOptions::default()
    };
    design(any, n, &options)
        .unwrap()
        .convolution_plans()
        .unwrap()
}

/// A launch line: blocks, batch, buffers, the operand and the extents of the source and
/// the destination.
struct Line {
    src: usize,
    dst: usize,
    op: Option<usize>,
    source: [u64; 4],
    destination: [u64; 4],
}

fn launch_lines(launches: &[Launch], bufs: [usize; 3], line: &Line, text: &mut String) {
    let counters: u64 = launches.iter().map(|l| l.signals).sum();
    text.push_str(&format!("{} {counters}\n", launches.len()));
    let index = |b: Buffer| match b {
        Buffer::Input => bufs[0],
        Buffer::Output => bufs[1],
        Buffer::Scratch => bufs[2],
    };
    let mut grouped = false;
    for (i, l) in launches.iter().enumerate() {
        assert_eq!(
            l.args.len(),
            15,
            "poly-mode kernels take the poly arguments"
        );
        assert!(l.args.contains(&Arg::Operand));
        let (first, last) = (i == 0, i + 1 == launches.len());
        // Only the first pass reads the source's extent and only the last writes with the
        // destination's.
        let source = if first { line.source } else { [0; 4] };
        let destination = if last { line.destination } else { [0; 4] };
        text.push_str(&format!(
            "{} 1 {} {} {} {} 0 {} {} {} {} {} {} {} {}\n",
            l.blocks,
            if first { line.src } else { index(l.hop.src()) },
            if last { line.dst } else { index(l.hop.dst()) },
            if first {
                line.op.map_or(-1, |o| o as i64)
            } else {
                -1
            },
            grouped as u8,
            source[0],
            source[1],
            source[2],
            source[3],
            destination[0],
            destination[1],
            destination[2],
            destination[3],
        ));
        grouped = l.signals > 0;
    }
}

/// The harness's input up to its launch lists: the six buffers — the `factors`' words
/// (A, B), three poisoned work vectors of `words.0` words (TA, TB, SCRATCH) and the
/// poisoned product of `words.1` (C) — the twiddle `table`, and the count of launch lists
/// (`plans`) that follow.
fn harness_buffers(
    factors: [Vec<u64>; 2],
    words: (usize, usize),
    table: &[u64],
    plans: usize,
) -> String {
    let mut text = format!("6 {} {plans} {C}\n", table.len());
    for w in &factors {
        text.push_str(&format!("{} 0\n", w.len()));
        for x in w {
            text.push_str(&format!("{x}\n"));
        }
    }
    for len in [words.0, words.0, words.0, words.1] {
        text.push_str(&format!("{len} 1\n"));
    }
    for w in table {
        text.push_str(&format!("{w}\n"));
    }
    text
}

/// Every digit of the product's vector beyond its `len` coefficients (of `cap`, `k`
/// digits each) still holds the poison the harness wrote.
fn untouched_beyond(got: &[u64], (len, cap, k): (usize, usize, usize), name: &str) {
    for digit in 0..k {
        for i in len..cap {
            assert_eq!(
                got[digit * cap + i] & 0xffff_ffff,
                0x5a5a_5a5a,
                "{name}: element {i} beyond the product was written"
            );
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn check_product<F: Field>(
    name: &str,
    any: &AnyField,
    field: &F,
    n: u64,
    la: usize,
    lb: usize,
    max_local_bits: Option<u32>,
) -> Option<()> {
    let (forward, inverse) = plans(any, n, max_local_bits);
    let lc = la + lb - 1;
    assert!(lc as u64 <= n);
    let roots = Roots::canonical(field, forward.max_log_order(), n).unwrap();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(n ^ la as u64 ^ (lb as u64) << 20);
    let a: Vec<F::Elem> = (0..la).map(|_| field.random(&mut rng)).collect();
    let b: Vec<F::Elem> = (0..lb).map(|_| field.random(&mut rng)).collect();
    let want = schoolbook(field, &a, &b);

    // The CPU executor, on the same plans.
    let mut ta = vec![field.zero(); n as usize];
    let mut tb = vec![field.zero(); n as usize];
    execute_io(field, &forward, &roots, Input::shared(&a), None, &mut ta).unwrap();
    execute_io(field, &forward, &roots, Input::shared(&b), None, &mut tb).unwrap();
    let mut c = vec![field.zero(); lc];
    execute_io(
        field,
        &inverse,
        &roots,
        Input::Clobbered(&mut tb),
        Some(&ta),
        &mut c,
    )
    .unwrap();
    assert!(
        c == want,
        "{name}: the executor's product of {la} × {lb} in {n} points"
    );

    // The kernels, on the host.
    let cxx = compiler()?;
    let shape = FieldShape::of(any);
    let opts = EmitOptions::default();
    let fwd = emit(field, &shape, &forward, &roots, &opts, "fwd").unwrap();
    let inv = emit(field, &shape, &inverse, &roots, &opts, "inv").unwrap();
    let table = twiddle_table(field, &shape, &roots, &fwd.layout);
    let header = fermat_codegen::header::Header::new("product_host", "test");
    let tables: Vec<_> = fwd.tables.iter().chain(&inv.tables).cloned().collect();
    let kernels: Vec<_> = fwd.kernels.iter().chain(&inv.kernels).cloned().collect();
    let source = unit::render(&header, any, &tables, &kernels).unwrap();
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("product_host_{name}"));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("kernels.cu"), &source).unwrap();
    let list: Vec<String> = [&fwd, &fwd, &inv]
        .iter()
        .flat_map(|e: &&Emitted| e.kernels.iter().map(|k| k.name.clone()))
        .collect();
    let exe = host::build_harness(&cxx, &dir, HARNESS, &list, "the product kernels");
    let k = (shape.element_bytes / if shape.element_bytes == 4 { 4 } else { 8 }) as usize;
    // Capacities above the lengths: the kernels must use the strides, not the lengths.
    let (cap_a, cap_b, cap_c) = (la + 3, lb + 5, lc + 7);
    let nn = n as usize;
    let factors = [words(field, &a, cap_a, k), words(field, &b, cap_b, k)];
    let mut text = harness_buffers(factors, (nn * k, cap_c * k), &table, 3);
    let whole = [n, n, n, n];
    let ext = |len: usize, cap: usize| [len as u64, len as u64, 0, cap as u64];
    for (src, t, cap, len) in [(A, TA, cap_a, la), (B, TB, cap_b, lb)] {
        let line = Line {
            src,
            dst: t,
            op: None,
            source: ext(len, cap),
            destination: whole,
        };
        launch_lines(&fwd.launches, [src, t, SCRATCH], &line, &mut text);
    }
    let line = Line {
        src: TB,
        dst: C,
        op: Some(TA),
        source: whole,
        destination: ext(lc, cap_c),
    };
    launch_lines(&inv.launches, [TB, C, SCRATCH], &line, &mut text);
    let got = parse_words(&run_harness(&exe, &text, &format!("{name}: the harness")));
    let c = elements(field, &got, lc, cap_c, k);
    assert!(
        c == want,
        "{name}: the kernels' product of {la} × {lb} in {n} points"
    );
    // Nothing beyond the product's length was written.
    untouched_beyond(&got, (lc, cap_c, k), name);
    Some(())
}

/// Factors of a batch laid out as a device batch: factor q at elements q·dist.., junk in the
/// gaps (a kernel must read only `len` elements of each).
fn batch_vector<F: Field>(field: &F, parts: &[Vec<F::Elem>], dist: usize) -> Vec<F::Elem> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(dist as u64);
    let mut flat: Vec<F::Elem> = (0..parts.len() * dist)
        .map(|_| field.random(&mut rng))
        .collect();
    for (q, part) in parts.iter().enumerate() {
        flat[q * dist..q * dist + part.len()].clone_from_slice(part);
    }
    flat
}

/// A batch of `batch` products of `la` × `lb` coefficients by the fused kernel of n points,
/// compiled as C++ and run block by block: each the schoolbook product, nothing written
/// outside the products. `None` where the plans do not fuse.
fn check_fused<F: Field>(
    name: &str,
    any: &AnyField,
    field: &F,
    n: u64,
    (la, lb): (usize, usize),
    batch: usize,
) -> Option<()> {
    let (forward, inverse) = plans(any, n, None);
    let lc = (la + lb - 1).min(n as usize);
    let roots = Roots::canonical(field, forward.max_log_order(), n).unwrap();
    let shape = FieldShape::of(any);
    let opts = EmitOptions::default();
    let fused = emit_product(field, &shape, &forward, &inverse, &roots, &opts, "mul")
        .unwrap()
        .unwrap_or_else(|| panic!("{name}: {n} points do not fuse"));
    let cxx = compiler()?;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(n ^ (la as u64) << 8);
    let mut random =
        |len: usize| -> Vec<F::Elem> { (0..len).map(|_| field.random(&mut rng)).collect() };
    let a: Vec<Vec<F::Elem>> = (0..batch).map(|_| random(la)).collect();
    let b: Vec<Vec<F::Elem>> = (0..batch).map(|_| random(lb)).collect();
    let k = (shape.element_bytes / if shape.element_bytes == 4 { 4 } else { 8 }) as usize;
    let (dist_a, dist_b, dist_c) = (la + 3, lb + 1, lc + 2);
    let (cap_a, cap_b, cap_c) = (batch * dist_a + 1, batch * dist_b, batch * dist_c + 5);
    let words_a = words(field, &batch_vector(field, &a, dist_a), cap_a, k);
    let words_b = words(field, &batch_vector(field, &b, dist_b), cap_b, k);
    let table = twiddle_table(field, &shape, &roots, &fused_layout(&shape, &roots, &opts));
    let header = fermat_codegen::header::Header::new("product_host", "test");
    let source = unit::render(
        &header,
        any,
        &fused.tables,
        std::slice::from_ref(&fused.kernel),
    )
    .unwrap();
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("fused_host_{name}"));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("kernels.cu"), &source).unwrap();
    let exe = host::build_harness(
        &cxx,
        &dir,
        FUSED_HARNESS,
        &["mul".into()],
        "the fused kernel",
    );
    let ext = |len: usize, cap: usize, dist: usize| format!("{len} {} {dist} {cap}", batch * dist);
    let mut text = format!(
        "{} {} {} {} {batch}\n{}\n{}\n{}\n",
        words_a.len(),
        words_b.len(),
        cap_c * k,
        table.len(),
        ext(la, cap_a, dist_a),
        ext(lb, cap_b, dist_b),
        ext(lc, cap_c, dist_c),
    );
    for w in words_a.iter().chain(&words_b).chain(&table) {
        text.push_str(&format!("{w}\n"));
    }
    let got = parse_words(&run_harness(&exe, &text, &format!("{name}: the harness")));
    for q in 0..batch {
        // Digit c of element i of product q at word c·cap + q·dist + i.
        let product = elements(field, &got[q * dist_c..], lc, cap_c, k);
        let mut want = schoolbook(field, &a[q], &b[q]);
        // Cyclic: coefficients at and above n wrap around.
        for i in (n as usize..want.len()).rev() {
            let top = want.pop().expect("i < len");
            want[i - n as usize] = field.add(&want[i - n as usize], &top);
        }
        want.truncate(lc);
        assert!(
            product == want,
            "{name}: product {q} of {la} × {lb} in {n} points"
        );
    }
    let written: Vec<usize> = (0..batch)
        .flat_map(|q| q * dist_c..q * dist_c + lc)
        .collect();
    for c_digit in 0..k {
        for i in (0..cap_c).filter(|i| !written.contains(i)) {
            assert_eq!(
                got[c_digit * cap_c + i] as u64 & 0xffff_ffff,
                0x5a5a_5a5a,
                "{name}: element {i} outside the products was written"
            );
        }
    }
    Some(())
}

/// The twiddle table's rows, as the transforms' kernels lay them out.
fn fused_layout<F: Field>(
    shape: &FieldShape,
    roots: &Roots<F>,
    opts: &EmitOptions,
) -> fermat_codegen::kernel::TableLayout {
    fermat_codegen::kernel::TableLayout::of(shape, roots, opts.table_bytes)
}

#[test]
fn fused_products_of_a_batch_on_the_host() {
    for (spec, n, la, lb, batch) in [
        ("babybear", 64, 30, 35, 3),
        ("babybear", 2048, 1024, 1024, 2),
        ("469762049", 256, 1, 200, 2),
        ("goldilocks", 512, 300, 200, 3),
        ("P1", 64, 33, 32, 2),
        ("P3", 256, 100, 157, 2),
    ] {
        let any = FieldSpec::parse(spec).unwrap().build().unwrap();
        let name = format!("{spec}_{n}_{la}_{lb}");
        with_field!(&any, f => check_fused(&name, &any, f, n, (la, lb), batch));
    }
}

#[test]
fn plans_of_several_passes_do_not_fuse() {
    let any = FieldSpec::parse("babybear").unwrap().build().unwrap();
    let (forward, inverse) = plans(&any, 512, Some(3));
    with_field!(&any, f => {
        let roots = Roots::canonical(f, forward.max_log_order(), 512).unwrap();
        let opts = EmitOptions::default();
        let fused = emit_product(f, &FieldShape::of(&any), &forward, &inverse, &roots, &opts, "mul");
        assert!(fused.unwrap().is_none());
    });
}

fn check(spec: &str, n: u64, la: usize, lb: usize, max_local_bits: Option<u32>) {
    let any = FieldSpec::parse(spec).unwrap().build().unwrap();
    let name = format!("{spec}_{n}_{la}_{lb}_{}", max_local_bits.unwrap_or(0));
    with_field!(&any, f => check_product(&name, &any, f, n, la, lb, max_local_bits));
}

#[test]
fn word_prime_products_in_one_and_several_passes() {
    check("babybear", 64, 30, 35, None);
    check("469762049", 256, 1, 200, None);
    // Pieces of 2^3: three passes, so the inverse clobbers its input between them.
    check("babybear", 512, 257, 200, Some(3));
    check("goldilocks", 1024, 600, 425, Some(4));
    check("4179340454199820289", 128, 64, 65, Some(3));
    // 2^21 points: the forward from the formula with its leftover first (9 + 12 bits), the
    // inverse from the one with it last (12 + 9).
    check("babybear", 1 << 21, (1 << 20) + 1, 5, None);
}

#[test]
fn srgfn_products_in_one_and_several_passes() {
    check("P1", 64, 33, 32, None);
    check("P2", 512, 300, 100, Some(3));
    check("P3", 256, 128, 129, Some(4));
    check("P3", 4096, 2000, 2000, None);
}

/// A product of `la` × `lb` coefficients (a square of `la` without `lb`) by the middle
/// kernel of n points, compiled as C++ and run block by block in a scrambled order: the
/// first forward pass of each factor, then the middle kernel and the last inverse pass.
/// It gives the schoolbook product and writes nothing beyond it.
fn check_middle<F: Field>(
    name: &str,
    any: &AnyField,
    field: &F,
    n: u64,
    (la, lb): (usize, Option<usize>),
    max_local_bits: Option<u32>,
) -> Option<()> {
    let (forward, inverse) = plans(any, n, max_local_bits);
    let lc = la + lb.unwrap_or(la) - 1;
    assert!(lc as u64 <= n);
    let roots = Roots::canonical(field, forward.max_log_order(), n).unwrap();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(n ^ (la as u64) << 24);
    let a: Vec<F::Elem> = (0..la).map(|_| field.random(&mut rng)).collect();
    let b: Option<Vec<F::Elem>> = lb.map(|lb| (0..lb).map(|_| field.random(&mut rng)).collect());
    let want = schoolbook(field, &a, b.as_ref().unwrap_or(&a));
    let shape = FieldShape::of(any);
    let opts = EmitOptions::default();
    let middle = emit_middle(field, &shape, &forward, &inverse, &roots, &opts, "mid")
        .unwrap()
        .unwrap_or_else(|| panic!("{name}: {n} points have no middle kernel"));
    let cxx = compiler()?;
    let fwd = emit(field, &shape, &forward, &roots, &opts, "fwd").unwrap();
    let inv = emit(field, &shape, &inverse, &roots, &opts, "inv").unwrap();
    let table = twiddle_table(field, &shape, &roots, &fwd.layout);
    let header = fermat_codegen::header::Header::new("product_host", "test");
    let tables: Vec<_> = [&fwd.tables, &inv.tables, &middle.tables]
        .into_iter()
        .flatten()
        .cloned()
        .collect();
    let kernels = fwd.kernels.iter().chain(&inv.kernels);
    let kernels: Vec<_> = kernels.chain([&middle.kernel]).cloned().collect();
    let source = unit::render(&header, any, &tables, &kernels).unwrap();
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("middle_host_{name}"));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("kernels.cu"), &source).unwrap();
    let head = MiddleProduct::head(&fwd).expect("a first pass");
    let tail = middle.tail(&inv).expect("two inverse passes");
    let heads = if b.is_some() { 2 } else { 1 };
    let list: Vec<String> = std::iter::repeat_n(&head, heads)
        .chain(&tail)
        .map(|l| l.kernel.to_string())
        .collect();
    let exe = host::build_harness(&cxx, &dir, HARNESS, &list, "the middle's kernels");
    let k = (shape.element_bytes / if shape.element_bytes == 4 { 4 } else { 8 }) as usize;
    let (cap_a, cap_b, cap_c) = (la + 3, lb.unwrap_or(la) + 5, lc + 7);
    let nn = n as usize;
    let factors = [
        words(field, &a, cap_a, k),
        words(field, b.as_ref().unwrap_or(&a), cap_b, k),
    ];
    let mut text = harness_buffers(factors, (nn * k, cap_c * k), &table, heads + 1);
    let whole = [n, n, n, n];
    let ext = |len: usize, cap: usize| [len as u64, len as u64, 0, cap as u64];
    for (src, t, cap, len) in [(A, TA, cap_a, la), (B, TB, cap_b, lb.unwrap_or(0))] {
        if src == B && b.is_none() {
            continue;
        }
        let line = Line {
            src,
            dst: t,
            op: None,
            source: ext(len, cap),
            destination: whole,
        };
        launch_lines(
            std::slice::from_ref(&head),
            [src, t, SCRATCH],
            &line,
            &mut text,
        );
    }
    let line = Line {
        src: TA,
        dst: C,
        op: Some(if b.is_some() { TB } else { TA }),
        source: whole,
        destination: ext(lc, cap_c),
    };
    launch_lines(&tail, [TA, C, SCRATCH], &line, &mut text);
    let got = parse_words(&run_harness(&exe, &text, &format!("{name}: the harness")));
    let c = elements(field, &got, lc, cap_c, k);
    assert!(c == want, "{name}: the middle's product in {n} points");
    untouched_beyond(&got, (lc, cap_c, k), name);
    Some(())
}

#[test]
fn products_by_the_middle_kernel_on_the_host() {
    for (spec, n, la, lb, max_local_bits) in [
        ("babybear", 1 << 16, 30_000, Some(35_000), None),
        ("babybear", 1 << 16, 32_768, None, None),
        // The forward's own tile would leave a bit of the inverse's pieces to other blocks.
        ("P3", 1024, 300, Some(400), Some(3)),
        ("469762049", 512, 200, Some(300), Some(5)),
        ("goldilocks", 1024, 600, Some(425), Some(6)),
        ("P3", 1024, 500, Some(524), None),
        ("P3", 2048, 1024, None, Some(5)),
    ] {
        let any = FieldSpec::parse(spec).unwrap().build().unwrap();
        let name = format!("{spec}_{n}_{la}_{}", lb.unwrap_or(0));
        with_field!(&any, f => check_middle(&name, &any, f, n, (la, lb), max_local_bits));
    }
}

#[test]
fn plans_of_one_or_three_passes_have_no_middle() {
    let any = FieldSpec::parse("babybear").unwrap().build().unwrap();
    for (n, max_local_bits) in [(256, None), (512, Some(3))] {
        let (forward, inverse) = plans(&any, n, max_local_bits);
        with_field!(&any, f => {
            let roots = Roots::canonical(f, forward.max_log_order(), n).unwrap();
            let opts = EmitOptions::default();
            let middle = emit_middle(f, &FieldShape::of(&any), &forward, &inverse, &roots, &opts, "mid");
            assert!(middle.unwrap().is_none(), "{n} points");
        });
    }
}
