use super::*;
use fermat_dsl::field::Fp32;
use fermat_dsl::formula::Formula;
use fermat_dsl::interp::Interpreter;

/// The forward pass after an exchange is the split's last stages, (I(G) ⊗ DFT(G) ⊗
/// I(s)) · D(G, M) taken on the exchanged index, and the inverse undoes it.
#[test]
fn the_passes_are_the_twiddled_dft_and_its_inverse() {
    let f = Fp32::new(469762049).unwrap();
    let mut interp = Interpreter::new(&f);
    let (n, g) = (256u64, 4u64);
    let (m, s) = (n / g, n / g / g);
    let omega = interp.root(n).unwrap();
    let gu = g as usize;
    // The whole vector before the twiddles, in blocks.
    let x: Vec<_> = (0..n).map(|i| f.from_u64(i * 31 + 5)).collect();
    let twiddled: Vec<_> = (0..n)
        .map(|i| f.mul(&x[i as usize], &f.pow_u64(&omega, (i / m) * (i % m))))
        .collect();
    let dft_g = Formula::tensor(vec![Formula::Dft(g), Formula::Identity(m)]).unwrap();
    let want = interp.apply(&dft_g, &twiddled).unwrap();
    // Both layouts of the twiddles: two short tables, and one row per column.
    for (c, block) in (0..g).flat_map(|c| [(c, low_rows(s)), (c, s)]) {
        // Device c's slots after the exchange: chunk c of every block.
        let slots: Vec<_> = (0..g)
            .flat_map(|b| (0..s).map(move |j| b * m + c * s + j))
            .map(|i| x[i as usize])
            .collect();
        let mut y = vec![f.zero(); slots.len()];
        let shape = (gu, block as usize);
        let table = SplitPass::Forward.table(&f, &omega, (n, g, c), block);
        forward(&f, shape, &table, &slots, &mut y);
        for k in 0..g {
            for j in 0..s {
                assert_eq!(y[(k * s + j) as usize], want[(k * m + c * s + j) as usize]);
            }
        }
        let mut back = vec![f.zero(); y.len()];
        let table = SplitPass::Inverse.table(&f, &omega, (n, g, c), block);
        inverse(&f, shape, &table, &y, None, &mut back);
        assert_eq!(back, slots, "device {c}");
        let ones = vec![f.one(); y.len()];
        inverse(&f, shape, &table, &y, Some(&ones), &mut back);
        assert_eq!(back, slots, "device {c}, a product by ones");
    }
}

/// A cyclic split's passes around the sub-transforms DFT(s) make DFT(N), cyclic in and
/// out, and the passes that undo them do.
#[test]
fn the_cyclic_passes_make_the_dft() {
    let f = Fp32::new(469762049).unwrap();
    let mut interp = Interpreter::new(&f);
    for (n, g, full) in [
        (64u64, 2u64, false),
        (64, 2, true),
        (256, 4, true),
        (512, 8, false),
        (16, 4, false),
    ] {
        let (gu, m, s) = (g as usize, (n / g) as usize, (n / g / g) as usize);
        let block = if full { s } else { low_rows(s as u64) as usize };
        let shape = (gu, block);
        let omega = interp.root(n).unwrap();
        let times =
            |v: &[_], c: u64| -> Vec<_> { v.iter().map(|x| f.mul(x, &f.from_u64(c))).collect() };
        let x: Vec<_> = (0..n).map(|i| f.from_u64(i * 31 + 5)).collect();
        let want = interp.apply(&Formula::Dft(n), &x).unwrap();
        // rows[d][e]: device d's row e after its fold and its sub-transforms.
        let mut rows = vec![vec![Vec::new(); gu]; gu];
        for (d, row) in rows.iter_mut().enumerate() {
            let y: Vec<_> = (0..m).map(|i| x[i * gu + d]).collect();
            let table = |pass: CyclicPass| pass.table(&f, &omega, (n, g, d as u64), block as u64);
            let mut folded = vec![f.zero(); m];
            inverse(&f, shape, &table(CyclicPass::Fold), &y, None, &mut folded);
            for (e, r) in row.iter_mut().enumerate() {
                let part = &folded[e * s..(e + 1) * s];
                *r = interp.apply(&Formula::Dft(s as u64), part).unwrap();
            }
            let mut back = vec![f.zero(); m];
            forward(&f, shape, &table(CyclicPass::Unfold), &folded, &mut back);
            assert_eq!(back, times(&y, g), "unfold, N = {n}, G = {g}");
        }
        for e in 0..gu {
            let table = |pass: CyclicPass| pass.table(&f, &omega, (n, g, e as u64), block as u64);
            let received: Vec<_> = (0..gu).flat_map(|d| rows[d][e].clone()).collect();
            let mut out = vec![f.zero(); m];
            forward(
                &f,
                shape,
                &table(CyclicPass::Butterfly),
                &received,
                &mut out,
            );
            for (j, v) in out.iter().enumerate() {
                assert_eq!(*v, want[gu * j + e], "N = {n}, G = {g}, device {e}");
            }
            let mut back = vec![f.zero(); m];
            inverse(
                &f,
                shape,
                &table(CyclicPass::Unbutterfly),
                &out,
                None,
                &mut back,
            );
            let inv_g = f.inv(&f.from_u64(g)).unwrap();
            let scaled: Vec<_> = received.iter().map(|v| f.mul(v, &inv_g)).collect();
            assert_eq!(back, scaled, "unbutterfly, N = {n}, G = {g}");
        }
    }
}

#[test]
fn transposes_are_the_stride_permutations() {
    let f = Fp32::new(17).unwrap();
    let mut interp = Interpreter::new(&f);
    let x: Vec<_> = (0..32u64).map(|i| f.from_u64(i)).collect();
    for g in [2usize, 4, 8] {
        let mut y = vec![f.zero(); 32];
        transpose(&x, g, &mut y);
        let l = Formula::Stride { n: 32, m: g as u64 };
        assert_eq!(y, interp.apply(&l, &x).unwrap(), "G = {g}");
        let mut back = vec![f.zero(); 32];
        transpose(&y, 32 / g, &mut back);
        assert_eq!(back, x);
    }
}

#[test]
fn kernels_take_their_arguments() {
    for pass in SplitPass::ALL {
        crate::contract::assert_takes(&pass.kernel(), pass.args());
    }
}
