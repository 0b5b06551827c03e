//! Where tile elements live in shared memory: XOR maps and paddings against bank
//! conflicts, chosen per kernel by counting wavefronts.

use crate::cuda::Expr;

/// Where tile element i lives in shared memory: either i with its bank bits (the low
/// `mask` bits) XORed with the bits above them shifted down, `i ^ (((i >> a) ^ (i >> b)) &
/// mask)`, or i padded, `i + (i >> a) + (i >> b)` (one spare word after every 2^a).
///
/// Rounds read the tile at power-of-two strides, and gathers and scatters at digit-reversed
/// indices; laid out plainly, 16 threads of a warp hit one bank in the worst rounds. Both
/// maps are one-to-one and split over disjoint bit fields — the XOR map is linear over
/// GF(2), the padding additive — so an access `base | offset` becomes `swz(base) ^
/// swz(offset)` or `pad(base) + pad(offset)`: with the offset known at compile time, one XOR
/// per access, or nothing at all (the addition folds into the load's immediate offset). The
/// map is chosen per kernel by counting the shared-memory wavefronts of the first warp's
/// accesses in every phase of the kernel, an XOR counting as one more
/// ([`Swizzle::choose`]); the other warps' accesses differ from those by a constant,
/// which either map turns into a constant XOR or offset of the words, so they conflict
/// alike.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Swizzle {
    pub(super) shifts: Vec<u32>,
    pub(super) mask: u64,
    /// Padding (additive) rather than XOR.
    pub(super) pad: bool,
}

/// Banks of shared memory, 4 bytes wide.
pub(super) const BANKS: u64 = 32;

impl Swizzle {
    pub(super) fn none() -> Swizzle {
        Swizzle {
            shifts: Vec::new(),
            mask: 0,
            pad: true,
        }
    }

    pub(super) fn apply(&self, i: u64) -> u64 {
        if self.pad {
            return self.shifts.iter().fold(i, |acc, &a| acc + (i >> a));
        }
        let fold = self.shifts.iter().fold(0, |acc, &a| acc ^ (i >> a));
        i ^ (fold & self.mask)
    }

    /// Words of shared memory a tile of `size` elements spans.
    pub(super) fn span(&self, size: u64) -> u64 {
        // A padding grows with i; an XOR map permutes the tile.
        if self.pad {
            self.apply(size - 1) + 1
        } else {
            size
        }
    }

    pub(super) fn expr(&self, i: Expr) -> Expr {
        let parts = self.shifts.iter().map(|&a| i.clone() >> Expr::u32(a));
        if self.pad {
            return parts.fold(i.clone(), |acc, x| acc + x);
        }
        let Some(fold) = parts.reduce(|x, y| x ^ y) else {
            return i;
        };
        i ^ (fold & Expr::u32(self.mask as u32))
    }

    /// `swz(a | b)` from `swz(a)` (an expression) and `swz(b)` for disjoint a and b.
    pub(super) fn join(&self, a: Expr, b: Expr) -> Expr {
        if self.pad {
            a + b
        } else {
            a ^ b
        }
    }

    /// Shared-memory wavefronts of one warp access to the tile indices `idx` (one per
    /// lane), for elements of `word_bytes`-byte words: 8-byte words go half a warp at a
    /// time, each word over two banks.
    pub(super) fn wavefronts(&self, idx: &[u64], word_bytes: u64) -> u64 {
        // Lanes served per wavefront, and as many bank slots (one word each).
        let slots = BANKS * 4 / word_bytes;
        idx.chunks(slots as usize)
            .map(|part| {
                let mut words: Vec<u64> = part.iter().map(|&i| self.apply(i)).collect();
                words.sort_unstable();
                words.dedup();
                let mut per_slot = vec![0u64; slots as usize];
                for w in words {
                    per_slot[(w % slots) as usize] += 1;
                }
                per_slot.into_iter().max().unwrap_or(0)
            })
            .sum()
    }

    /// The shifts of the maps [`choose`](Self::choose) considers for a tile of 2^bits
    /// elements: one or two, from 1 up.
    pub(super) fn shift_sets(bits: u32) -> Vec<Vec<u32>> {
        (1..bits)
            .flat_map(|a| (a..bits).map(move |b| if a == b { vec![a] } else { vec![a, b] }))
            .collect()
    }

    /// The map with the fewest wavefronts over `accesses` (each the tile indices of one
    /// warp access, made once per each of an element's `digits` words), an XOR map paying
    /// one more per access for its instruction (once per element: the digits sit at fixed
    /// offsets from it), among the plain layout and XOR maps and paddings of one or two
    /// shifts, for a tile of 2^bits elements spanning at most `max_words` words and at most
    /// an eighth more than its size.
    pub(super) fn choose(
        accesses: &[Vec<u64>],
        bits: u32,
        word_bytes: u64,
        digits: u64,
        max_words: u64,
    ) -> Swizzle {
        let mask_bits = (BANKS * 4 / word_bytes).trailing_zeros();
        let cost = |s: &Swizzle| -> u64 {
            let xor = if s.pad { 0 } else { accesses.len() as u64 };
            digits
                * accesses
                    .iter()
                    .map(|a| s.wavefronts(a, word_bytes))
                    .sum::<u64>()
                + xor
        };
        let mut best = Swizzle::none();
        let mut best_cost = cost(&best);
        if bits <= mask_bits {
            return best;
        }
        let mask = (1u64 << mask_bits) - 1;
        // Shifts below the bank bits count too: a round whose lanes span tile bits 0, 1, 4
        // and 5 needs bits 4 and 5 folded onto bits 2 and 3. Either map stays a bijection
        // (an XOR map is unipotent triangular over GF(2), a padding increasing).
        for pad in [true, false] {
            for shifts in Swizzle::shift_sets(bits) {
                let candidate = Swizzle { shifts, mask, pad };
                // A padding that grows the tile by more than an eighth would cost resident
                // blocks where shared memory bounds them.
                let span = candidate.span(1 << bits);
                if span > max_words || span > (1 << bits) + (1 << bits) / 8 {
                    continue;
                }
                let c = cost(&candidate);
                if c < best_cost {
                    best = candidate;
                    best_cost = c;
                }
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xor_swizzles_are_bijections() {
        // Every map `choose` may pick for a tile of 2^12 elements.
        for shifts in Swizzle::shift_sets(12) {
            let s = Swizzle {
                shifts,
                mask: 31,
                pad: false,
            };
            let mut seen: Vec<u64> = (0..1 << 12).map(|i| s.apply(i)).collect();
            seen.sort_unstable();
            assert_eq!(seen, (0..1 << 12).collect::<Vec<_>>(), "{s:?}");
            assert_eq!(s.span(1 << 12), 1 << 12);
        }
    }

    #[test]
    fn paddings_are_one_to_one_within_their_span() {
        for shifts in Swizzle::shift_sets(12) {
            let s = Swizzle {
                shifts,
                mask: 31,
                pad: true,
            };
            let mut seen: Vec<u64> = (0..1 << 12).map(|i| s.apply(i)).collect();
            seen.sort_unstable();
            seen.dedup();
            assert_eq!(seen.len(), 1 << 12, "{s:?}");
            assert!(seen.iter().all(|&w| w < s.span(1 << 12)));
        }
    }

    proptest::proptest! {
        /// The kernels address `base | offset` as the join of the two parts' maps.
        #[test]
        fn maps_split_over_disjoint_bits(
            a in 1u32..12,
            b in 1u32..12,
            pad: bool,
            mask_bits in 4u32..=5,
            i in 0u64..1 << 12,
            split in 0u64..1 << 12,
        ) {
            // 8-byte words fold onto 16 bank slots, 4-byte words onto 32.
            let s = Swizzle {
                shifts: if a == b { vec![a] } else { vec![a.min(b), a.max(b)] },
                mask: (1 << mask_bits) - 1,
                pad,
            };
            let (x, y) = (i & split, i & !split);
            let joined = if pad { s.apply(x) + s.apply(y) } else { s.apply(x) ^ s.apply(y) };
            proptest::prop_assert_eq!(s.apply(i), joined);
        }
    }

    #[test]
    fn the_chosen_layout_removes_strided_conflicts() {
        // A warp reading 4-byte words at stride 16 (a radix-16 round along the low bits):
        // 16 lanes per bank laid out plainly.
        let strided: Vec<u64> = (0..32).map(|g| g * 16).collect();
        assert_eq!(Swizzle::none().wavefronts(&strided, 4), 16);
        // With consecutive words read too, the chosen map keeps both conflict-free.
        let unit: Vec<u64> = (0..32).collect();
        let both = [strided.clone(), unit.clone()];
        let s = Swizzle::choose(&both, 12, 4, 1, 1 << 13);
        assert_eq!(s.wavefronts(&strided, 4), 1);
        assert_eq!(s.wavefronts(&unit, 4), 1);
        // 8-byte words: 16 lanes per wavefront at best.
        assert_eq!(Swizzle::none().wavefronts(&unit, 8), 2);
        let s8 = Swizzle::choose(std::slice::from_ref(&strided), 12, 8, 1, 1 << 13);
        assert_eq!(s8.wavefronts(&strided, 8), 2);
        // Without room for padding the XOR map is the one left.
        let tight = Swizzle::choose(std::slice::from_ref(&strided), 12, 4, 1, 1 << 12);
        assert!(!tight.pad);
        assert_eq!(tight.wavefronts(&strided, 4), 1);
    }

    #[test]
    fn shifts_below_the_bank_bits_fold_middle_bits() {
        // A radix-4 round along tile bits 2 and 3 of 8-byte digits: the lanes span tile
        // bits 0, 1, 4, 5 and 6, and a half warp covers bits 0, 1, 4 and 5. Only a map
        // that folds bits 4 and 5 onto bits 2 and 3 (a shift by 2, below the 4 bank bits
        // of 8-byte words) serves each half warp in one wavefront.
        let round: Vec<u64> = (0..32u64).map(|l| (l & 3) | (l >> 2) << 4).collect();
        let accesses = [round.clone()];
        let s = Swizzle::choose(&accesses, 9, 8, 8, 768);
        assert_eq!(s.wavefronts(&round, 8), 2);
        assert!(s.shifts.iter().any(|&a| a < 4), "{s:?}");
        // The map is one-to-one on the tile.
        let mut words: Vec<u64> = (0..512).map(|i| s.apply(i)).collect();
        words.sort_unstable();
        words.dedup();
        assert_eq!(words.len(), 512);
    }
}
