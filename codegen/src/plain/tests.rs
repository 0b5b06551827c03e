use super::*;
use fermat_dsl::field::Field;
use fermat_dsl::field::Fp32;

type E = <Fp32 as Field>::Elem;

fn schoolbook(f: &Fp32, a: &[E], b: &[E]) -> Vec<E> {
    let mut c = vec![f.zero(); a.len() + b.len() - 1];
    for (i, x) in a.iter().enumerate() {
        for (j, y) in b.iter().enumerate() {
            c[i + j] = f.add(&c[i + j], &f.mul(x, y));
        }
    }
    c
}

#[test]
fn tiles_fit_shared_memory() {
    for bytes in [4, 8, 64, 128, 256, 512] {
        let t = Tile::for_element_bytes(bytes);
        assert!(
            (t.window() + u64::from(t.chunk)) * bytes <= SHARED_BYTES,
            "{bytes}"
        );
        assert!(t.outputs >= 16);
    }
    assert_eq!(Tile::for_element_bytes(64).outputs, 128);
}

#[test]
fn the_decomposition_gives_products_and_middle_products() {
    let f = Fp32::new(469762049).unwrap();
    let tile = Tile {
        outputs: 8,
        chunk: 8,
        series: 16,
        inverts: true,
    };
    for (la, lb, chunk) in [(1, 1, 8), (5, 13, 4), (40, 3, 8), (17, 17, 2), (9, 30, 8)] {
        let a: Vec<E> = (0..la).map(|i| f.from_u64(i * i + 3)).collect();
        let b: Vec<E> = (0..lb).map(|i| f.from_u64(7 * i + 1)).collect();
        let want = schoolbook(&f, &a, &b);
        let mut c = vec![f.zero(); want.len()];
        plain_mul(&f, &a, &b, 0, tile, chunk, &mut c);
        assert!(c == want, "{la} × {lb}");
        let lo = want.len() / 3;
        let mut mid = vec![f.zero(); want.len() / 2];
        plain_mul(&f, &a, &b, lo, tile, chunk, &mut mid);
        assert!(mid == want[lo..lo + mid.len()], "middle of {la} × {lb}");
    }
}

#[test]
fn series_steps_invert_power_series() {
    let f = Fp32::new(469762049).unwrap();
    let s: Vec<E> = (0..40).map(|i| f.from_u64(3 * i * i + 2)).collect();
    for (lo, n) in [(1, 1), (1, 2), (1, 37), (3, 40), (5, 64)] {
        // The seed: the inverse's first lo coefficients by the schoolbook recurrence.
        let mut g = vec![f.inv(&s[0]).unwrap()];
        plain_series(&f, &s, &mut g, lo);
        assert_eq!(g.len(), lo);
        plain_series(&f, &s, &mut g, n);
        let product = schoolbook(&f, &s, &g);
        assert!(product[0] == f.one(), "{lo} → {n}");
        assert!(product[1..n].iter().all(|c| *c == f.zero()), "{lo} → {n}");
        // From nothing, 1/f_0 first: the same series.
        let mut from_nothing = Vec::new();
        plain_series(&f, &s, &mut from_nothing, n);
        assert_eq!(from_nothing, g, "0 → {n}");
    }
    for bytes in [4, 8, 32, 64, 128, 256, 512] {
        let t = Tile::for_element_bytes(bytes);
        assert!(
            series_elements(u64::from(t.series)) * bytes <= SHARED_BYTES,
            "{bytes}"
        );
        assert!(t.series >= 16 && t.series.is_power_of_two(), "{bytes}");
    }
    assert_eq!(Tile::for_element_bytes(4).series, 512);
    assert_eq!(Tile::for_element_bytes(64).series, 32);
}

#[test]
fn kernels_take_their_arguments() {
    for pass in PlainPass::ALL {
        crate::contract::assert_takes(&pass.kernel(Tile::for_element_bytes(8)), pass.args());
    }
}
