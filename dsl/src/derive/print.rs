//! How derivations print: numbered steps with the rule, the position and the rewritten
//! node before and after, the form `fermat derive` shows and the snapshots pin.

use super::{show_position, Derivation};
use crate::formula::Formula;
use std::fmt;

/// A derivation ready to print, in Unicode or ASCII notation:
///
/// ```text
/// start  DFT_16
///  1. base_case_dft2k at root
///       DFT_16
///     → L^{16}_{2} · (I_8 ⊗ DFT_2) · …
///  2. …
/// final  …
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Rendered<'a> {
    pub(super) derivation: &'a Derivation,
    pub(super) ascii: bool,
}

impl Rendered<'_> {
    fn formula(&self, f: &Formula) -> String {
        if self.ascii {
            f.ascii()
        } else {
            f.to_string()
        }
    }
}

impl fmt::Display for Rendered<'_> {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = self.derivation;
        let arrow = if self.ascii { "->" } else { "→" };
        let width = d.steps.len().to_string().len();
        let pad = " ".repeat(width + 2);
        let under_arrow = " ".repeat(arrow.chars().count() + 1);
        writeln!(out, "start  {}", self.formula(&d.start))?;
        for (n, step) in d.steps.iter().enumerate() {
            writeln!(
                out,
                "{:>width$}. {} at {}",
                n + 1,
                step.rule,
                show_position(&step.position)
            )?;
            writeln!(out, "{pad}{under_arrow}{}", self.formula(&step.before))?;
            writeln!(out, "{pad}{arrow} {}", self.formula(&step.after))?;
        }
        writeln!(out, "final  {}", self.formula(&d.final_formula()))
    }
}

#[cfg(test)]
mod tests {
    use crate::derive::{derive, Options, Strategy};
    use crate::formula::Formula;

    fn dft256(strategy: Strategy) -> String {
        derive(&Formula::Dft(256), strategy, &Options::radix(16))
            .unwrap()
            .render(false)
            .to_string()
    }

    #[test]
    fn dft256_by_ct() {
        insta::assert_snapshot!(dft256(Strategy::Ct));
    }

    #[test]
    fn dft256_by_radix2() {
        insta::assert_snapshot!(dft256(Strategy::Radix2));
    }

    #[test]
    fn dft256_by_stockham() {
        insta::assert_snapshot!(dft256(Strategy::Stockham));
    }

    #[test]
    fn dft256_by_prop3() {
        insta::assert_snapshot!(dft256(Strategy::Prop3));
    }

    #[test]
    fn dft256_by_prop3_with_prop2() {
        let opts = Options {
            prop2: true,
            ..Options::radix(16)
        };
        let d = derive(&Formula::Dft(256), Strategy::Prop3, &opts).unwrap();
        insta::assert_snapshot!(d.render(false).to_string());
    }

    /// The thesis' DFT16 in DFT(2)s, in ASCII.
    #[test]
    fn dft16_base_case_expansion() {
        let opts = Options {
            expand_base: true,
            ..Options::radix(16)
        };
        let d = derive(&Formula::Dft(16), Strategy::Prop3, &opts).unwrap();
        insta::assert_snapshot!(d.render(true).to_string());
    }

    #[test]
    fn ascii_rendering_is_ascii_and_aligned() {
        let d = derive(&Formula::Dft(16), Strategy::Ct, &Options::radix(4)).unwrap();
        let text = d.render(true).to_string();
        assert!(text.is_ascii(), "{text}");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "start  DFT(16)");
        assert_eq!(lines[1], "1. cooley_tukey at root");
        assert_eq!(lines[2], "      DFT(16)");
        assert_eq!(
            lines[3],
            "   -> DFT(4) (x) I(4) * D(4,4) * I(4) (x) DFT(4) * L(16,4)"
        );
        assert!(lines.last().unwrap().starts_with("final  "));
    }
}
