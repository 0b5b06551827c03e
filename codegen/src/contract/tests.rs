use super::*;

const HOPS: [Hop; 5] = [
    Hop::InputToOutput,
    Hop::InputToScratch,
    Hop::OutputToScratch,
    Hop::ScratchToOutput,
    Hop::ScratchToInput,
];

#[test]
fn passes_alternate_and_end_in_the_output() {
    assert_eq!(Hop::of_pass(0, 1, false), Hop::InputToOutput);
    assert_eq!(Hop::of_pass(0, 2, false), Hop::InputToScratch);
    assert_eq!(Hop::of_pass(1, 2, false), Hop::ScratchToOutput);
    assert_eq!(Hop::of_pass(0, 3, false), Hop::InputToOutput);
    assert_eq!(Hop::of_pass(1, 3, false), Hop::OutputToScratch);
    assert_eq!(Hop::of_pass(2, 3, false), Hop::ScratchToOutput);
    for clobber in [false, true] {
        for count in 1..8 {
            let hops: Vec<Hop> = (0..count)
                .map(|i| Hop::of_pass(i, count, clobber))
                .collect();
            assert_eq!(hops[0].src(), Buffer::Input);
            assert_eq!(hops[count - 1].dst(), Buffer::Output);
            for i in 1..count {
                assert_eq!(
                    hops[i].src(),
                    hops[i - 1].dst(),
                    "pass {i} of {count} reads what the pass before wrote"
                );
            }
            // Clobbering plans write the output once, by the last pass; the others
            // never write their input.
            let writes = |b: Buffer| hops.iter().filter(|h| h.dst() == b).count();
            if clobber {
                assert_eq!(writes(Buffer::Output), 1, "{count} passes");
            } else {
                assert_eq!(writes(Buffer::Input), 0, "{count} passes");
            }
        }
    }
}

#[test]
fn hops_never_read_what_they_write() {
    for hop in HOPS {
        assert_ne!(hop.src(), hop.dst(), "{hop:?}");
        assert_eq!(
            hop.select(Buffer::Input, Buffer::Output, Buffer::Scratch),
            (hop.src(), hop.dst())
        );
    }
}

#[test]
fn host_buffers_resolve_like_handles() {
    for hop in HOPS {
        let input = [1u8];
        let (mut output, mut scratch) = ([2u8], [3u8]);
        let mut b = Buffers::new(Input::shared(&input), &mut output, &mut scratch);
        let (src, dst) = b.pass(hop);
        assert_eq!((src[0], dst[0]), hop.select(1, 2, 3), "{hop:?}");
        dst[0] = 9;
        assert_eq!(input, [1], "a shared input is never written");
    }
    // A clobbered input is written in place.
    let mut input = [1u8];
    let (mut output, mut scratch) = ([2u8], [3u8]);
    let mut b = Buffers::new(Input::Clobbered(&mut input), &mut output, &mut scratch);
    b.pass(Hop::ScratchToInput).1[0] = 9;
    assert_eq!(input, [9]);
}

#[test]
fn launches_serialize_their_hop_as_two_buffers() {
    let launch = Launch {
        kernel: Cow::Borrowed("fwd_k0"),
        blocks: 8,
        threads: 128,
        shared_bytes: 0,
        pieces_per_block: 1,
        hop: Hop::OutputToScratch,
        signals: 0,
        args: &TRANSFORM_ARGS,
    };
    let json = serde_json::to_string(&launch).unwrap();
    assert_eq!(
        json,
        r#"{"kernel":"fwd_k0","blocks":8,"threads":128,"shared_bytes":0,"pieces_per_block":1,"src":"output","dst":"scratch","signals":0}"#
    );
}
