//! Example kernels built with the typed CUDA AST, shared by the snapshot and NVRTC tests.
//! They exercise what lowered kernel plans need: grid-stride and one-piece-per-thread
//! loops, index arithmetic with shifts and masks, register arrays, straight-line
//! butterflies, twiddles from a global or constant table, shared-memory exchange with
//! barriers, and stores.

#![allow(dead_code)]

use fermat_codegen::cuda::{fe, Expr, Kernel, Param, SharedArray, Stmt, Table, Type};

fn v(name: &str) -> Expr {
    Expr::var(name)
}

/// One radix-2 Cooley–Tukey pass over any field: for each of the n/2 butterflies t, with
/// half = 2^log_half and j = t mod half, the pair i0 = 2·half·⌊t/half⌋ + j, i1 = i0 + half
/// becomes (a + w·b, a − w·b), w = twiddles[j] in table form.
pub fn butterfly_r2() -> Kernel {
    let (data, tw, n) = (v("data"), v("twiddles"), v("n"));
    let body = vec![
        Stmt::const_(
            Type::SizeT,
            "half",
            Expr::u64(1).cast(Type::SizeT) << v("log_half"),
        ),
        Stmt::grid_stride_loop(
            "t",
            n.clone() >> Expr::int(1),
            vec![
                Stmt::const_(Type::SizeT, "j", v("t") & (v("half") - Expr::int(1))),
                Stmt::const_(
                    Type::SizeT,
                    "i0",
                    ((v("t") >> v("log_half")) << (v("log_half") + Expr::int(1))) | v("j"),
                ),
                Stmt::const_(Type::SizeT, "i1", v("i0") + v("half")),
                Stmt::const_(Type::Fe, "a", fe::load(data.clone(), v("i0"), n.clone())),
                Stmt::const_(
                    Type::Fe,
                    "b",
                    fe::mul_mont(
                        fe::load(data.clone(), v("i1"), n.clone()),
                        fe::load(tw, v("j"), v("half")),
                    ),
                ),
                fe::store(data.clone(), v("i0"), n.clone(), fe::add(v("a"), v("b"))),
                fe::store(data, v("i1"), n, fe::sub(v("a"), v("b"))),
            ],
        ),
    ];
    Kernel::new(
        "butterfly_r2",
        vec![
            Param::new("data", Type::ptr(Type::Word)),
            Param::new("twiddles", Type::const_ptr(Type::Word)),
            Param::new("n", Type::SizeT),
            Param::new("log_half", Type::U32),
        ],
        body,
    )
    .doc("One radix-2 pass: (a, b) -> (a + w*b, a - w*b), twiddles in table form.")
    .doc("Per butterfly: 1 fe_mul_mont, 1 fe_add, 1 fe_sub.")
    .launch_bounds(256)
}

/// Threads per block of [`dft4_shared`].
pub const DFT4_THREADS: u32 = 128;

/// DFT_4 at ω_4 = r^(k/2) on the points (t, t + q, t + 2q, t + 3q), q = n/4, for an SRGFN
/// with k digits (shifts only), the outputs 4t..4t+3 written through shared memory so that
/// the global writes are coalesced. Needs q to be a multiple of the block size.
pub fn dft4_shared(words: u64, k: u32) -> Kernel {
    let (x, y, n) = (v("x"), v("y"), v("n"));
    let threads = u64::from(DFT4_THREADS);
    let pt = |i: i64| v("p").at(Expr::int(i));
    let load = |c: i64| {
        Stmt::assign(
            pt(c),
            fe::load(
                x.clone(),
                v("t") + Expr::int(c) * (n.clone() >> Expr::int(2)),
                n.clone(),
            ),
        )
    };
    let body = vec![
        Stmt::const_(Type::SizeT, "t", Expr::global_thread_index()),
        Stmt::array(Type::Fe, "p", 4),
        load(0),
        load(1),
        load(2),
        load(3),
        Stmt::comment("DFT_2 (x) I_2, the twiddle r^(k/2) = omega_4, then I_2 (x) DFT_2."),
        Stmt::const_(Type::Fe, "y0", fe::add(pt(0), pt(2))),
        Stmt::const_(Type::Fe, "y1", fe::sub(pt(0), pt(2))),
        Stmt::const_(Type::Fe, "y2", fe::add(pt(1), pt(3))),
        Stmt::const_(Type::Fe, "y3", fe::mul_rpow(fe::sub(pt(1), pt(3)), k / 2)),
        Stmt::assign(pt(0), fe::add(v("y0"), v("y2"))),
        Stmt::assign(pt(1), fe::add(v("y1"), v("y3"))),
        Stmt::assign(pt(2), fe::sub(v("y0"), v("y2"))),
        Stmt::assign(pt(3), fe::sub(v("y1"), v("y3"))),
        Stmt::comment("Exchange through shared memory: thread-major in, slot-major out."),
        Stmt::unrolled(
            "c",
            4,
            vec![fe::store(
                v("buf"),
                (Expr::thread_idx().cast(Type::SizeT) << Expr::int(2)) + v("c"),
                Expr::u64(4 * threads),
                v("p").at(v("c")),
            )],
        ),
        Stmt::sync(),
        Stmt::const_(
            Type::SizeT,
            "base",
            Expr::block_idx().cast(Type::SizeT) * Expr::u64(4 * threads),
        ),
        Stmt::unrolled(
            "c",
            4,
            vec![
                Stmt::const_(
                    Type::SizeT,
                    "slot",
                    v("c") * Expr::u64(threads) + Expr::thread_idx(),
                ),
                fe::store(
                    y,
                    v("base") + v("slot"),
                    n,
                    fe::load(v("buf"), v("slot"), Expr::u64(4 * threads)),
                ),
            ],
        ),
    ];
    Kernel::new(
        "dft4_shared",
        vec![
            Param::new("x", Type::const_ptr(Type::Word)),
            Param::new("y", Type::ptr(Type::Word)),
            Param::new("n", Type::SizeT),
        ],
        body,
    )
    .doc("DFT_4 by shifts (omega_4 = r^(k/2)), outputs exchanged through shared memory.")
    .doc("Per DFT_4: 4 fe_add, 4 fe_sub, 1 fe_mul_rpow.")
    .launch_bounds(DFT4_THREADS)
    .shared(SharedArray::new(Type::Word, "buf", 4 * threads * words))
}

/// Multiplies x[i] by the constant tw[i mod 4] of a `__constant__` table, one element per
/// thread.
pub fn scale_const() -> Kernel {
    let mut body = Stmt::one_per_thread("i", v("n"));
    body.push(fe::store(
        v("x"),
        v("i"),
        v("n"),
        fe::mul_mont(
            fe::load(v("x"), v("i"), v("n")),
            fe::load(v("tw"), v("i") & Expr::int(3), Expr::int(4)),
        ),
    ));
    Kernel::new(
        "scale_const",
        vec![
            Param::new("x", Type::ptr(Type::Word)),
            Param::new("n", Type::SizeT),
        ],
        body,
    )
    .doc("x[i] *= tw[i mod 4], from constant memory.")
}

/// A constant table of four elements for [`scale_const`], digit-major: four ones in table
/// form (R mod p for word primes with R = 2^bits, the digit vector of 1 for SRGFNs).
pub fn ones_table(words: usize, mont_one: u64) -> Table {
    let mut w = vec![0u64; 4 * words];
    // Digit 0 (or the only word) of each of the four elements.
    w[..4].fill(mont_one);
    Table::new("tw", w)
}
