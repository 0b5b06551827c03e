use super::*;

#[test]
fn gather_covers_every_address_once() {
    let k = KernelPlan {
        name: "k".into(),
        log_n: 6,
        active: vec![1, 4],
        steps: vec![],
        dest: (0..6).collect(),
        hop: Hop::InputToOutput,
        io: Io::default(),
    };
    let mut seen = [false; 64];
    for p in 0..k.pieces() {
        for j in 0..4 {
            let a = k.gather(p, j) as usize;
            assert!(!seen[a]);
            seen[a] = true;
        }
    }
    assert!(seen.iter().all(|&s| s));
    assert_eq!(k.gather(0, 1), 2);
    assert_eq!(k.gather(0, 2), 16);
    assert_eq!(k.gather(1, 0), 1);
    assert_eq!(k.gather(2, 0), 4);
}

#[test]
fn maps_that_are_not_bijections_are_refused() {
    // DFT(64) by radix-4 Cooley–Tukey in pieces of 4: three kernels.
    let f = crate::exec::tests::cooley_tukey(64, 4);
    let opts = PlanOptions {
        max_local_bits: 2,
        ..PlanOptions::default()
    };
    let good = Plan::lower(&f, opts).unwrap();
    assert_eq!(good.check_maps(), Ok(()));
    // Two address bits scattered to one: half the addresses written twice.
    let mut twice = good.clone();
    twice.kernels[1].dest[0] = twice.kernels[1].dest[1];
    assert!(matches!(
        twice.check_maps(),
        Err(PlanError::NotBijective { kernel: 1, .. })
    ));
    // A scatter bit beyond the size: writes out of bounds.
    let mut beyond = good.clone();
    beyond.kernels[0].dest[5] = 6;
    assert!(beyond.check_maps().is_err());
    // An active bit named twice: a piece reads one element twice.
    let mut repeated = good;
    repeated.kernels[2].active = vec![0, 0];
    let err = repeated.check_maps().unwrap_err();
    assert!(err.to_string().contains("kernel 2"), "{err}");
}

#[test]
fn one_kernel_when_the_whole_transform_fits_a_piece() {
    let f = Formula::dft(16).unwrap();
    let plan = Plan::lower(&f, PlanOptions::default()).unwrap();
    assert_eq!(plan.kernels.len(), 1);
    assert_eq!(plan.kernels[0].local_bits(), 4);
}

#[test]
fn low_bit_stages_join_the_kernel_before_up_to_the_contiguous_limit() {
    use fermat_dsl::derive::{derive, Options, Strategy};
    // DFT(2^10) by radix-4 Cooley–Tukey: five stages of two bits, high bits first.
    let f = derive(
        &Formula::dft(1 << 10).unwrap(),
        Strategy::Ct,
        &Options::radix(4),
    )
    .unwrap()
    .final_formula();
    let actives = |max_contiguous_bits| {
        let opts = PlanOptions {
            max_local_bits: 4,
            max_contiguous_bits,
            output_order: Order::BitReversed,
            ..PlanOptions::default()
        };
        let plan = Plan::lower(&f, opts).unwrap();
        plan.kernels
            .iter()
            .map(|k| k.active.clone())
            .collect::<Vec<_>>()
    };
    let split = vec![vec![6, 7, 8, 9], vec![2, 3, 4, 5], vec![0, 1]];
    assert_eq!(actives(0), split);
    assert_eq!(actives(4), split);
    // Bits 0..6 are a run of 64 consecutive elements: the last stage joins.
    assert_eq!(actives(6), vec![vec![6, 7, 8, 9], vec![0, 1, 2, 3, 4, 5]]);
    // Bits 6..9 are not low: a larger limit merges nothing more.
    assert_eq!(actives(9), actives(6));
    // In natural order the last kernel writes bits 0..5 to bits 4..9: not consecutive
    // there, so the plan keeps to the piece limit.
    let natural = PlanOptions {
        max_local_bits: 4,
        max_contiguous_bits: 6,
        output_order: Order::Natural,
        ..PlanOptions::default()
    };
    let plan = Plan::lower(&f, natural).unwrap();
    assert_eq!(plan.kernels.len(), 3);
    assert!(plan.kernels.iter().all(|k| k.local_bits() <= 4));
}

#[test]
fn pieces_grow_beyond_the_limit_only_where_that_saves_a_pass() {
    use fermat_dsl::derive::{derive, Options, Strategy};
    // DFT(2^8) by radix-4: four stages of two bits; with bit-reversed input the first
    // ones touch the low bits.
    let f = derive(
        &Formula::dft(1 << 8).unwrap(),
        Strategy::Ct,
        &Options::radix(4),
    )
    .unwrap()
    .final_formula();
    let bits = |max_local_bits, max_contiguous_bits| {
        let opts = PlanOptions {
            max_local_bits,
            max_contiguous_bits,
            input_order: Order::BitReversed,
            output_order: Order::Natural,
            ..PlanOptions::default()
        };
        let plan = Plan::lower(&f, opts).unwrap();
        plan.kernels
            .iter()
            .map(|k| k.local_bits())
            .collect::<Vec<_>>()
    };
    // 6 low bits would join, but 6 + 2 takes as many passes as 4 + 4.
    assert_eq!(bits(4, 6), vec![4, 4]);
    // With pieces of 2 bits, 6 + 2 saves two passes of 2 + 2 + 2 + 2.
    assert_eq!(bits(2, 6), vec![6, 2]);
}

#[test]
fn refuses_leaves_larger_than_a_piece() {
    let f = Formula::dft(1 << 8).unwrap();
    let opts = PlanOptions {
        max_local_bits: 4,
        ..PlanOptions::default()
    };
    assert!(matches!(
        Plan::lower(&f, opts),
        Err(PlanError::LeafTooLarge { bits: 8, .. })
    ));
}
