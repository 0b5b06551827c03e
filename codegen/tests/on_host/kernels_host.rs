//! The emitted kernels, compiled as plain C++ and run block by block on the CPU, give
//! exactly what the CPU executor gives for the same plan.
//!
//! Every kernel is written as loops over work items with a stride of `blockDim.x`
//! between barriers, so one thread per block computes what a full block computes; the
//! harness defines the CUDA built-ins for that case. This checks the generated index maps,
//! tiles, codelets and twiddles without a GPU; the device itself is checked by
//! `fermat selftest --gpu`.

use crate::host;

use fermat_codegen::cost::FieldShape;
use fermat_codegen::header::Header;
use fermat_codegen::kernel::{emit, twiddle_table, EmitOptions, Emitted};
use fermat_codegen::{execute, unit, Buffer, Direction, Order, Plan, PlanOptions, Roots};
use fermat_dsl::field::{AnyField, Field, FieldSpec};
use fermat_dsl::formula::Formula;
use fermat_dsl::with_field;
use host::compiler;
use rand::{Rng, SeedableRng};
use std::path::PathBuf;

const HARNESS: &str = r#"
#include "kernels.cu"
typedef void (*kernel_fn)(const fe_word_t*, fe_word_t*, const fe_word_t*, unsigned int*, unsigned int);
struct fermat_block { size_t k; unsigned y; unsigned long long x; };
int main() {
    size_t words, rows_words, count, batch, counters;
    if (scanf("%zu %zu %zu %zu %zu", &words, &rows_words, &count, &batch, &counters) != 5) return 2;
    std::vector<fe_word_t> buf[3];
    for (auto& b : buf) b.assign(words * batch, 0);
    std::vector<fe_word_t> tw(rows_words ? rows_words : 1);
    for (size_t i = 0; i < rows_words; i++) { unsigned long long w; scanf("%llu", &w); tw[i] = (fe_word_t)w; }
    for (size_t i = 0; i < words * batch; i++) { unsigned long long w; scanf("%llu", &w); buf[0][i] = (fe_word_t)w; }
    for (auto& w : buf[1]) w = (fe_word_t)0x5a5a5a5a5a5a5a5aull;
    for (auto& w : buf[2]) w = (fe_word_t)0xa5a5a5a5a5a5a5a5ull;
    std::vector<unsigned int> flags(counters * batch + 1, 0);
    kernel_fn kernels[] = { KERNEL_LIST };
    // Every block of every pass, in a scrambled order: a block whose hand-off groups are not
    // complete refuses to start (fe_tile_not_ready) and is tried again on the next sweep,
    // so the passes interleave wherever their counters allow, in any order a device could
    // take, and wrong groups read stale or poisoned words.
    // A pass without hand-offs from the one before (no counters) waits for all of it.
    std::vector<fermat_block> pending;
    std::vector<int> src(count), dst(count), grouped(count);
    std::vector<unsigned long long> total(count), done(count, 0);
    for (size_t k = 0; k < count; k++) {
        unsigned long long blocks;
        if (scanf("%llu %d %d %d", &blocks, &src[k], &dst[k], &grouped[k]) != 4) return 3;
        total[k] = blocks * batch;
        for (unsigned y = 0; y < batch; y++)
            for (unsigned long long x = 0; x < blocks; x++) pending.push_back({k, y, x});
    }
    unsigned long long seed = 0x9e3779b97f4a7c15ull;
    for (size_t i = pending.size(); i > 1; i--) {
        seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17;
        std::swap(pending[i - 1], pending[seed % i]);
    }
    while (!pending.empty()) {
        std::vector<fermat_block> later;
        for (const auto& b : pending) {
            if (b.k > 0 && !grouped[b.k] && done[b.k - 1] < total[b.k - 1]) {
                later.push_back(b);
                continue;
            }
            blockIdx.x = (unsigned)b.x; blockIdx.y = b.y;
            try {
                kernels[b.k](buf[src[b.k]].data(), buf[dst[b.k]].data(), tw.data(), flags.data(), 1u);
                done[b.k]++;
            } catch (const fe_tile_not_ready&) {
                later.push_back(b);
            }
        }
        // No block could start: the hand-offs wait for something no block signals.
        if (later.size() == pending.size()) return 4;
        pending.swap(later);
    }
    for (size_t i = 0; i < words * batch; i++) printf("%llu\n", (unsigned long long)buf[1][i]);
    return 0;
}
"#;

fn workdir(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("kernels_host_{name}"));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Device words of a vector in the field's memory layout (digit-major for SRGFNs).
fn to_words<F: Field>(field: &F, xs: &[F::Elem], k: usize) -> Vec<u64> {
    let n = xs.len();
    let mut words = vec![0u64; n * k];
    for (i, x) in xs.iter().enumerate() {
        let v = field.to_biguint(x);
        if k == 1 {
            words[i] = u64::try_from(v).unwrap();
        } else {
            let p = field.modulus();
            let r = (&p - 1u32).nth_root(k as u32);
            if v == &p - 1u32 {
                words[(k - 1) * n + i] = u64::try_from(&r).unwrap();
            } else {
                let mut rest = v;
                for c in 0..k {
                    words[c * n + i] = u64::try_from(&rest % &r).unwrap();
                    rest /= &r;
                }
            }
        }
    }
    words
}

fn run_host(
    name: &str,
    source: &str,
    emitted: &Emitted,
    table: &[u64],
    input: &[u64],
    batch: usize,
) -> Option<Vec<u64>> {
    let cxx = compiler()?;
    let dir = workdir(name);
    std::fs::write(dir.join("kernels.cu"), source).unwrap();
    let list: Vec<String> = emitted.kernels.iter().map(|k| k.name.clone()).collect();
    let exe = host::build_harness(&cxx, &dir, HARNESS, &list, "the emitted kernels");
    let counters: u64 = emitted.launches.iter().map(|l| l.signals).sum();
    let mut text = format!(
        "{} {} {} {} {}\n",
        input.len() / batch,
        table.len(),
        emitted.launches.len(),
        batch,
        counters
    );
    for w in table.iter().chain(input) {
        text.push_str(&format!("{w}\n"));
    }
    let index = |b: Buffer| match b {
        Buffer::Input => 0,
        Buffer::Output => 1,
        Buffer::Scratch => 2,
    };
    let mut grouped = false;
    for l in &emitted.launches {
        text.push_str(&format!(
            "{} {} {} {}\n",
            l.blocks,
            index(l.hop.src()),
            index(l.hop.dst()),
            grouped as u8
        ));
        grouped = l.signals > 0;
    }
    Some(host::parse_words(&host::run_harness(
        &exe,
        &text,
        "the harness",
    )))
}

/// Recursive Cooley–Tukey: DFT(JK) = (DFT(J) ⊗ I(K))·D(J,K)·(I(J) ⊗ DFT(K))·L(JK,J).
fn cooley_tukey(n: u64, k: u64) -> Formula {
    if n <= k {
        return Formula::dft(n).unwrap();
    }
    let j = n / k;
    Formula::compose(vec![
        Formula::tensor(vec![cooley_tukey(j, k), Formula::identity(k).unwrap()]).unwrap(),
        Formula::twiddle(j, k).unwrap(),
        Formula::tensor(vec![
            Formula::identity(j).unwrap(),
            Formula::dft(k).unwrap(),
        ])
        .unwrap(),
        Formula::stride(n, j).unwrap(),
    ])
    .unwrap()
}

fn check_field<F: Field>(
    name: &str,
    any: &AnyField,
    field: &F,
    n: u64,
    radix: u64,
    options: PlanOptions,
    emit_options: EmitOptions,
) -> String {
    let plan = Plan::lower(&cooley_tukey(n, radix), options).unwrap();
    let shape = FieldShape::of(any);
    let roots = Roots::canonical(field, plan.max_log_order(), plan.n()).unwrap();
    let emitted = emit(field, &shape, &plan, &roots, &emit_options, "fft").unwrap();
    let table = twiddle_table(field, &shape, &roots, &emitted.layout);
    let k = (shape.element_bytes / if shape.element_bytes == 4 { 4 } else { 8 }) as usize;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(n ^ radix);
    let batch = 2;
    let mut input_words = Vec::new();
    let mut want_words = Vec::new();
    for _ in 0..batch {
        let x: Vec<F::Elem> = (0..n).map(|_| field.random(&mut rng)).collect();
        let mut y = vec![field.zero(); n as usize];
        execute(field, &plan, &x, &mut y).unwrap();
        input_words.extend(to_words(field, &x, k));
        want_words.extend(to_words(field, &y, k));
    }
    let _ = rng.gen::<u8>();
    let header = Header::new("kernels_host test", any.name());
    let source = unit::render(&header, any, &emitted.tables, &emitted.kernels).unwrap();
    let Some(got) = run_host(name, &source, &emitted, &table, &input_words, batch) else {
        return source;
    };
    assert_eq!(got.len(), want_words.len());
    let bad = got.iter().zip(&want_words).position(|(a, b)| a != b);
    assert!(
        bad.is_none(),
        "{name}: first difference at word {bad:?} ({} kernels)",
        emitted.kernels.len()
    );
    source
}

/// Runs the kernels of `DFT(n)` split at `radix` on the host against the executor, and
/// returns their source.
fn check(
    spec: &str,
    n: u64,
    radix: u64,
    options: PlanOptions,
    emit_options: EmitOptions,
) -> String {
    let any = FieldSpec::parse(spec).unwrap().build().unwrap();
    let name = format!(
        "{}_{n}_{radix}_{}_{:?}_{:?}_{:?}_{}",
        any.name(),
        options.max_local_bits,
        options.direction,
        options.input_order,
        options.output_order,
        emit_options.table_bytes
    );
    with_field!(&any, f => check_field(&name, &any, f, n, radix, options, emit_options))
}

/// How often the kernels (the source after the prelude) contain `text`.
fn in_kernels(source: &str, text: &str) -> usize {
    let kernels = source
        .split_once("// ---- kernels")
        .expect("the unit has a kernels section")
        .1;
    kernels.matches(text).count()
}

fn opts(max_local_bits: u32, direction: Direction, output_order: Order) -> PlanOptions {
    PlanOptions {
        max_local_bits,
        direction,
        output_order,
        ..PlanOptions::default()
    }
}

#[test]
fn word_prime_kernels_match_the_executor() {
    let e = EmitOptions::default();
    check(
        "babybear",
        1 << 10,
        16,
        opts(8, Direction::Forward, Order::Natural),
        e,
    );
    check(
        "babybear",
        1 << 10,
        16,
        opts(4, Direction::Inverse, Order::Natural),
        e,
    );
    check(
        "goldilocks",
        1 << 12,
        8,
        opts(6, Direction::Forward, Order::BitReversed),
        e,
    );
    check(
        "4179340454199820289",
        1 << 6,
        4,
        opts(12, Direction::Inverse, Order::Natural),
        e,
    );
    check(
        "469762049",
        16,
        2,
        opts(2, Direction::Forward, Order::Natural),
        e,
    );
}

#[test]
fn split_twiddle_tables_match_the_executor() {
    // Above 2^12 powers the word-prime table splits into ω^(e mod 2^h) and ω^(2^h·⌊e/2^h⌋)
    // rows; both halves, the inverse's negated exponents and n^(−1) must land right.
    let e = EmitOptions::default();
    check(
        "babybear",
        1 << 14,
        16,
        opts(8, Direction::Forward, Order::BitReversed),
        e,
    );
    check(
        "goldilocks",
        1 << 13,
        2,
        opts(7, Direction::Inverse, Order::Natural),
        e,
    );
}

#[test]
fn codelet_tables_match_the_executor() {
    // A round after the first of a kernel reads its input twiddles from a `__device__`
    // table of its own, indexed by the output index of the round before, and hands their
    // common factor to its output twist: every direction and order, 32- and 64-bit words,
    // the goldilocks reduction, and the inverse's 1/n scale on the same outputs.
    let e = EmitOptions::default();
    let cases = [
        (
            "babybear",
            1 << 15,
            16,
            opts(8, Direction::Forward, Order::BitReversed),
        ),
        (
            "babybear",
            1 << 14,
            16,
            opts(8, Direction::Inverse, Order::Natural),
        ),
        (
            "babybear",
            1 << 16,
            16,
            opts(8, Direction::Forward, Order::Natural),
        ),
        (
            "goldilocks",
            1 << 14,
            16,
            opts(8, Direction::Inverse, Order::BitReversed),
        ),
        (
            "4179340454199820289",
            1 << 12,
            8,
            opts(6, Direction::Forward, Order::Natural),
        ),
    ];
    for (spec, n, radix, options) in cases {
        let source = check(spec, n, radix, options, e);
        let tables: Vec<&str> = source
            .split("__device__ const fe_word_t ")
            .skip(1)
            .filter_map(|rest| rest.split('[').next())
            .collect();
        assert!(
            !tables.is_empty(),
            "{spec} n = {n}: no round read its twiddles from a table"
        );
        for table in tables {
            assert!(
                in_kernels(&source, &format!("{table}[")) > 0,
                "{spec} n = {n}: table {table} is never read"
            );
        }
    }
}

#[test]
fn srgfn_kernels_match_the_executor() {
    let e = EmitOptions::default();
    check("P1", 64, 4, opts(4, Direction::Forward, Order::Natural), e);
    let p2 = check("P2", 512, 8, opts(6, Direction::Inverse, Order::Natural), e);
    check(
        "P3",
        256,
        16,
        opts(8, Direction::Forward, Order::BitReversed),
        e,
    );
    let p3 = check(
        "P3",
        4096,
        16,
        opts(8, Direction::Inverse, Order::Natural),
        e,
    );
    // P2's twists skip their multiplication where the exponent is 0; P3's do not.
    let skips = |source: &str| in_kernels(source, "== 0u ? ");
    assert!(skips(&p2) > 0 && in_kernels(&p3, "fe_mul_mont(") > 0 && skips(&p3) == 0);
}

#[test]
fn srgfn_run_time_shifts_match_the_executor() {
    // Radix-4 and radix-2 splits put twiddles of order ≤ 2k, whose exponents are known only
    // at run time, inside a kernel: fe_mul_rpow_rt where the exponent's bits differ within
    // a warp (a block of fewer than 32 threads has them all in its lanes) or where their
    // cases would hold too many compile-time shifts (P3's codelets of 4 at 1024 points
    // take the exponent bits in the warp index but keep the run-time shifts).
    let e = EmitOptions::default();
    let sources = [
        check(
            "P3",
            1024,
            4,
            opts(8, Direction::Forward, Order::Natural),
            e,
        ),
        check(
            "P3",
            256,
            4,
            opts(4, Direction::Inverse, Order::BitReversed),
            e,
        ),
        check("P4", 64, 2, opts(6, Direction::Inverse, Order::Natural), e),
    ];
    for source in &sources {
        assert!(in_kernels(source, "fe_mul_rpow_rt(") > 0);
    }
}

#[test]
fn srgfn_contiguous_pieces_match_the_executor() {
    // With pieces of 4 bits, the last radix-4 stage of 1024 points (bits 0 and 1) joins the
    // kernel of bits 2..5: one pass less, a piece of 64 consecutive elements.
    let e = EmitOptions::default();
    for (direction, order) in [
        (Direction::Forward, Order::BitReversed),
        (Direction::Inverse, Order::BitReversed),
    ] {
        let options = PlanOptions {
            max_contiguous_bits: 6,
            ..opts(4, direction, order)
        };
        let source = check("P3", 1024, 4, options, e);
        assert_eq!(in_kernels(&source, "__global__"), 2, "{direction:?}");
    }
}

#[test]
fn srgfn_uniform_shifts_match_the_executor() {
    // Radix-2 splits in blocks of a whole warp or more: the shifts' exponent bits go to the
    // warp index (or come from the block index), and each value gets a case of a switch
    // with compile-time shifts.
    let e = EmitOptions::default();
    let sources = [
        check("P2", 256, 2, opts(5, Direction::Forward, Order::Natural), e),
        check(
            "P2",
            256,
            2,
            opts(5, Direction::Inverse, Order::BitReversed),
            e,
        ),
        check(
            "P4",
            1024,
            2,
            opts(8, Direction::Forward, Order::Natural),
            e,
        ),
    ];
    for source in &sources {
        assert!(in_kernels(source, "switch (") > 0);
    }
    assert_eq!(in_kernels(&sources[0], "fe_mul_rpow_rt("), 0);
}

#[test]
fn srgfn_shifted_and_coarse_tables_match_the_executor() {
    // A small budget for rows read without a shift splits the table as large transforms
    // do: ω^i rows with a digit shift for the high part (the first pass's twist), the
    // whole powers of ω_{2^C} for twiddles of order up to 2^C, and no coarse rows at all
    // when they would cover only shifts.
    //
    // P2 at 512 = 8^3: L = 9, 2k = 8, 32-byte rows; C = 5, then C = 3 (no coarse rows).
    // P3 at 4096 = 16^3: L = 12, 2k = 16, 64-byte rows, C = 6. P1 at 256: C = 4.
    let cases = [
        ("P2", 512, 8, 6, Direction::Forward, Order::Natural, 32 << 5),
        (
            "P2",
            512,
            8,
            6,
            Direction::Inverse,
            Order::BitReversed,
            32 << 3,
        ),
        (
            "P3",
            4096,
            16,
            8,
            Direction::Inverse,
            Order::Natural,
            64 << 6,
        ),
        (
            "P1",
            256,
            4,
            4,
            Direction::Forward,
            Order::BitReversed,
            16 << 4,
        ),
    ];
    for (spec, n, radix, local_bits, direction, order, table_bytes) in cases {
        let emit = EmitOptions {
            table_bytes,
            ..EmitOptions::default()
        };
        check(spec, n, radix, opts(local_bits, direction, order), emit);
    }
}

/// SRGFN plans of three and four passes large enough for their hand-offs to have groups, in
/// both output orders: the last pass's relabelling makes a reader overwrite what other groups of
/// the pass before still read, so its blocks wait on two groups. The harness starts the
/// blocks of all passes in a scrambled order, as far as the counters allow.
#[test]
fn hand_offs_let_passes_interleave() {
    let e = EmitOptions::default();
    let cases = [
        ("P2", 1 << 18, 8, 6, Direction::Forward, Order::BitReversed),
        ("P2", 1 << 18, 8, 6, Direction::Inverse, Order::Natural),
        ("P1", 1 << 16, 4, 4, Direction::Forward, Order::BitReversed),
        ("P3", 1 << 16, 16, 6, Direction::Forward, Order::BitReversed),
    ];
    let mut double_waits = 0;
    for (spec, n, radix, bits, direction, order) in cases {
        let source = check(spec, n, radix, opts(bits, direction, order), e);
        let waits = in_kernels(&source, "fe_tile_wait(");
        let waiting = in_kernels(&source, "const uint32_t* __restrict__ waits");
        assert!(waiting >= 2, "{spec} {n}: {waiting} kernels wait on groups");
        assert!(
            in_kernels(&source, "waits + ((size_t)blk") >= 1,
            "{spec} {n}: every hand-off has a single group"
        );
        double_waits += waits - waiting;
    }
    assert!(double_waits > 0, "no reader waited on a second group");
}
