//! The formula parser from the outside: malformed inputs give errors positioned at the
//! offending character, the papers' formulas read back in both notations (and mean what
//! the papers say), printing and parsing are inverse, and no input makes it panic.

use fermat_dsl::formula::arbitrary::any_formula;
use fermat_dsl::formula::{Formula, ParseError, ParseErrorKind};
use fermat_dsl::interp;
use fermat_dsl::{AnyField, FieldSpec};
use proptest::prelude::*;
use proptest::sample::select;

fn dft(n: u64) -> Formula {
    Formula::dft(n).unwrap()
}

fn id(n: u64) -> Formula {
    Formula::identity(n).unwrap()
}

fn l(n: u64, m: u64) -> Formula {
    Formula::stride(n, m).unwrap()
}

fn d(m: u64, n: u64) -> Formula {
    Formula::twiddle(m, n).unwrap()
}

fn tensor(fs: Vec<Formula>) -> Formula {
    Formula::tensor(fs).unwrap()
}

fn compose(fs: Vec<Formula>) -> Formula {
    Formula::compose(fs).unwrap()
}

/// Checks what every error must satisfy, whatever the input: the column is a character
/// position of the input (or one past its end), the byte offset is the same position, and
/// the caret line of the `Display` points at that character.
fn check_error_invariants(input: &str, err: &ParseError) {
    let chars: Vec<char> = input.chars().collect();
    let col = err.column();
    assert!(
        (1..=chars.len() + 1).contains(&col),
        "{input:?}: column {col} outside 1..={}",
        chars.len() + 1
    );
    assert!(
        input.is_char_boundary(err.offset()),
        "{input:?}: offset {} is not a character boundary",
        err.offset()
    );
    assert_eq!(
        input[..err.offset()].chars().count(),
        col - 1,
        "{input:?}: offset {} and column {col} disagree",
        err.offset()
    );
    assert_eq!(err.input(), input);

    let text = err.to_string();
    let lines: Vec<&str> = text.split('\n').collect();
    assert_eq!(lines.len(), 3, "{input:?}: message, input, caret: {text}");
    assert!(lines[0].contains(&format!("column {col}")), "{text}");
    let shown: Vec<char> = lines[1].chars().collect();
    let caret = lines[2]
        .chars()
        .position(|c| c == '^')
        .unwrap_or_else(|| panic!("{input:?}: no caret in {text}"));
    assert!(lines[2].chars().skip(caret + 1).all(|c| c == ' '));
    if let Some(&c) = chars.get(col - 1) {
        let c = if c.is_control() { ' ' } else { c };
        assert_eq!(
            shown.get(caret),
            Some(&c),
            "{input:?}: caret misplaced\n{text}"
        );
    } else {
        assert_eq!(
            caret,
            shown.len(),
            "{input:?}: caret not past the end\n{text}"
        );
    }
}

#[test]
fn malformed_inputs_give_positioned_errors() {
    let too_deep = format!("{}DFT(2){}", "(".repeat(200), ")".repeat(200));
    let cases: Vec<(&str, usize, &str)> = vec![
        // Implicit juxtaposition.
        (
            "DFT(2) I(2)",
            8,
            "expected an operator ⊗, ·, ⊕ or end of input at column 8",
        ),
        ("DFT(2)\tI(2)", 8, "found 'I'"),
        // Unknown operator names (the names are case-sensitive).
        (
            "FFT(4)",
            1,
            "expected a formula: DFT, I, L, D or '(' at column 1, found 'FFT'",
        ),
        ("DFT(2) ⊗ Id(2)", 10, "found 'Id'"),
        ("dft(4)", 1, "found 'dft'"),
        // Missing parentheses and braces.
        ("DFT(4", 6, "expected ')' at column 6, found end of input"),
        ("(DFT(2) ⊗ I(2)", 15, "')' closing the '(' at column 1"),
        ("DFT_{16", 8, "expected '}'"),
        ("DFT 16", 5, "'(' or '_' after DFT"),
        // Empty input, missing operands.
        (
            "",
            1,
            "expected a formula: DFT, I, L, D or '(' at column 1, found end of input",
        ),
        ("  \n ", 5, "found end of input"),
        ("DFT(2) ⊗", 9, "expected a formula"),
        ("I(2) (+)", 9, "expected a formula"),
        ("D(2,)", 5, "expected a number at column 5, found ')'"),
        ("L^{8}2", 6, "'_' and the stride"),
        // Sizes that do not compose, reported at the operator.
        (
            "DFT(16) · DFT(8)",
            9,
            "cannot compose DFT_16 (size 16) with DFT_8 (size 8): sizes differ at column 9",
        ),
        ("I(2) * D(2,2)", 6, "I_2 (size 2) with D_{2,2} (size 4)"),
        ("I(2) ⊕ DFT(2) · I(3)", 15, "cannot compose"),
        (
            "I(4) · I(4) · I(4) * I(8)",
            20,
            "cannot compose I_4 (size 4) with I_8",
        ),
        // Ill-formed leaves, reported at their name.
        (
            "L(8,3)",
            1,
            "L(8, 3) needs the stride 3 to divide the size 8",
        ),
        ("I(4) ⊗ L(8,3)", 8, "the stride 3 to divide the size 8"),
        ("DFT(0)", 1, "size 0"),
        ("D(0,4)", 1, "size 0"),
        // Trailing garbage.
        (
            "DFT(2) ⊗ I(2) )",
            15,
            "end of input at column 15, found ')'",
        ),
        ("I(4) · DFT(4)garbage", 14, "found 'garbage'"),
        // Non-ASCII garbage: columns count characters, not bytes.
        ("DFT(2) ∘ I(2)", 8, "found '∘'"),
        ("DFT_2⊗🦀", 7, "found '🦀'"),
        ("I_2 ⊗ DFT_２", 11, "found '２'"),
        // Overflowing numbers and sizes.
        (
            "DFT(18446744073709551616)",
            5,
            "the number 18446744073709551616 at column 5 is too large",
        ),
        ("DFT(4294967296) ⊗ DFT(4294967296)", 17, "overflows 64 bits"),
        ("D(4294967296,4294967296)", 1, "overflows 64 bits"),
        // Nesting beyond the limit is refused rather than risking the stack.
        (&too_deep, 129, "nest too deeply"),
    ];
    for (input, column, fragment) in cases {
        let err =
            Formula::parse(input).expect_err(&format!("{input:?} parsed, but it is malformed"));
        let text = err.to_string();
        assert_eq!(err.column(), column, "{input:?}: column\n{text}");
        assert!(
            text.contains(fragment),
            "{input:?}: the message lacks {fragment:?}:\n{text}"
        );
        check_error_invariants(input, &err);
        assert_eq!(
            input.parse::<Formula>(),
            Err(err),
            "FromStr and parse differ"
        );
    }
}

#[test]
fn errors_say_what_kind_of_problem_they_report() {
    let kind = |s: &str| Formula::parse(s).unwrap_err().kind().clone();
    assert_eq!(kind("DFT(2) I(2)"), ParseErrorKind::Syntax);
    assert_eq!(
        kind("DFT(99999999999999999999)"),
        ParseErrorKind::NumberTooLarge
    );
    assert_eq!(
        kind(&"(".repeat(1000)),
        ParseErrorKind::TooDeep,
        "nesting is refused before the input runs out"
    );
    assert!(matches!(kind("L(8,3)"), ParseErrorKind::Formula(_)));

    let err = Formula::parse("DFT(2) ∘ I(2)").unwrap_err();
    assert_eq!((err.offset(), err.column()), (7, 8));
    assert_eq!(err.found(), "'∘'");
    assert!(err.expected().contains('⊗'), "{}", err.expected());
    let err = Formula::parse("DFT_2⊗🦀").unwrap_err();
    assert_eq!((err.offset(), err.column()), (8, 7), "⊗ is three bytes");
    let err = Formula::parse("I(2) * D(2,2)").unwrap_err();
    let source = std::error::Error::source(&err).map(|s| s.to_string());
    assert_eq!(
        source.as_deref(),
        Some("cannot compose I_2 (size 2) with D_{2,2} (size 4): sizes differ")
    );
}

/// A field with enough 2-adicity for the papers' formulas below, to check what they mean.
fn p469762049() -> AnyField {
    FieldSpec::parse("469762049").unwrap().build().unwrap()
}

/// Checks that `text` reads as `expected`, that both printed forms read back as the same
/// tree, and, where the formula is a factorisation of DFT(n), that it equals DFT(n).
fn check_paper_formula(text: &str, expected: &Formula, equals_dft: bool) {
    let parsed = Formula::parse(text).unwrap_or_else(|e| panic!("{text:?}:\n{e}"));
    assert_eq!(&parsed, expected, "{text:?} read as {parsed}");
    for printed in [
        expected.to_string(),
        expected.ascii(),
        format!("{expected:#}"),
    ] {
        assert_eq!(
            Formula::parse(&printed).as_ref(),
            Ok(expected),
            "{printed:?} does not read back"
        );
    }
    if equals_dft {
        let n = expected.size();
        let AnyField::Fp32(f) = p469762049() else {
            panic!("469762049 is a 32-bit prime");
        };
        assert_eq!(
            interp::dense_matrix(&f, &parsed).unwrap(),
            interp::dense_matrix(&f, &dft(n)).unwrap(),
            "{text:?} is not DFT({n})"
        );
    }
}

#[test]
fn worked_check_round_trips_in_both_notations() {
    // The 2010 paper, formula (8).
    let expected = compose(vec![
        tensor(vec![dft(2), id(2)]),
        d(2, 2),
        tensor(vec![id(2), dft(2)]),
        l(4, 2),
    ]);
    assert_eq!(
        expected.to_string(),
        "DFT_2 ⊗ I_2 · D_{2,2} · I_2 ⊗ DFT_2 · L^{4}_{2}"
    );
    assert_eq!(
        expected.ascii(),
        "DFT(2) (x) I(2) * D(2,2) * I(2) (x) DFT(2) * L(4,2)"
    );
    for text in [
        "(DFT(2) ⊗ I(2)) · D(2,2) · (I(2) ⊗ DFT(2)) · L(4,2)",
        "(DFT(2) (x) I(2)) * D(2,2) * (I(2) (x) DFT(2)) * L(4,2)",
        "(DFT_2 ⊗ I_2) · D_{2,2} · (I_2 ⊗ DFT_2) · L^{4}_{2}",
        "DFT_{2}⊗I_{2}⋅D_{2,2}⋅I_{2}⊗DFT_{2}⋅L^4_2",
        "(DFT(2) (x) I_2) * D_{2,2} · (I(2) ⊗ DFT_2) * L^{4}_2",
    ] {
        check_paper_formula(text, &expected, true);
    }
}

#[test]
fn thesis_dft16_expansion_round_trips() {
    // The base case DFT16 of the thesis.
    let expected = compose(vec![
        l(16, 2),
        tensor(vec![id(8), dft(2)]),
        l(16, 8),
        d(2, 8),
        tensor(vec![id(2), dft(8)]),
        l(16, 2),
    ]);
    for text in [
        "L(16,2) · (I(8) ⊗ DFT(2)) · L(16,8) · D(2,8) · (I(2) ⊗ DFT(8)) · L(16,2)",
        "L(16,2) * (I(8) (x) DFT(2)) * L(16,8) * D(2,8) * (I(2) (x) DFT(8)) * L(16,2)",
        "L^{16}_{2} · I_8 ⊗ DFT_2 · L^{16}_{8} · D_{2,8} · I_2 ⊗ DFT_8 · L^{16}_{2}",
    ] {
        check_paper_formula(text, &expected, true);
    }
}

#[test]
fn radix2_and_stockham_formulas_round_trip() {
    // 2010, (11) with k = 3.
    let eleven = compose(vec![
        tensor(vec![dft(2), id(4)]),
        d(2, 4),
        l(8, 2),
        tensor(vec![dft(4), id(2)]),
    ]);
    check_paper_formula(
        "(DFT(2) ⊗ I(4)) · D(2,4) · L(8,2) · (DFT(4) ⊗ I(2))",
        &eleven,
        true,
    );

    // 2010, (12) (Stockham) with k = 3: a product of three products, so the nesting
    // must survive printing.
    let stage = |i: u32| {
        compose(vec![
            tensor(vec![dft(2), id(4)]),
            tensor(vec![d(2, 1 << (2 - i)), id(1 << i)]),
            tensor(vec![l(1 << (3 - i), 2), id(1 << i)]),
        ])
    };
    let stockham = compose(vec![stage(0), stage(1), stage(2)]);
    let text = "((DFT(2) ⊗ I(4)) · (D(2,4) ⊗ I(1)) · (L(8,2) ⊗ I(1))) \
                · ((DFT(2) ⊗ I(4)) · (D(2,2) ⊗ I(2)) · (L(4,2) ⊗ I(2))) \
                · ((DFT(2) ⊗ I(4)) · (D(2,1) ⊗ I(4)) · (L(2,2) ⊗ I(4)))";
    check_paper_formula(text, &stockham, true);
    assert!(
        stockham.to_string().starts_with("(DFT_2 ⊗ I_4 · "),
        "nested products keep their parentheses: {stockham}"
    );
}

#[test]
fn proposition3_round_trips() {
    // 2017, Proposition 3 with K = 4, e = 2: DFT(16) = U_0 · U_1 · V_1 · V_0.
    let u0 = compose(vec![
        tensor(vec![id(1), dft(4), id(4)]),
        tensor(vec![id(1), d(4, 4)]),
    ]);
    let u1 = compose(vec![
        tensor(vec![id(4), dft(4), id(1)]),
        tensor(vec![id(4), d(4, 1)]),
    ]);
    let v1 = tensor(vec![id(4), l(4, 4)]);
    let v0 = tensor(vec![id(1), l(16, 4)]);
    let expected = compose(vec![u0, u1, v1, v0]);
    check_paper_formula(
        "((I_1 ⊗ DFT_4 ⊗ I_4) · (I_1 ⊗ D_{4,4})) · ((I_4 ⊗ DFT_4 ⊗ I_1) · (I_4 ⊗ D_{4,1})) \
         · (I_4 ⊗ L^{4}_{4}) · (I_1 ⊗ L^{16}_{4})",
        &expected,
        true,
    );
}

#[test]
fn precedence_and_grouping() {
    // ⊗ binds tighter than ·, · tighter than ⊕.
    let expected = Formula::direct_sum(vec![
        dft(2),
        tensor(vec![id(2), dft(2)]),
        compose(vec![l(4, 2), d(2, 2)]),
    ])
    .unwrap();
    check_paper_formula(
        "DFT(2) (+) I(2) (x) DFT(2) (+) L(4,2) * D(2,2)",
        &expected,
        false,
    );
    check_paper_formula(
        "DFT_2 ⊕ I_2 ⊗ DFT_2 ⊕ L^{4}_{2} · D_{2,2}",
        &expected,
        false,
    );
    assert_eq!(
        expected.to_string(),
        "DFT_2 ⊕ I_2 ⊗ DFT_2 ⊕ L^{4}_{2} · D_{2,2}"
    );

    // Parentheses override precedence, and nested chains of one operator stay nested.
    let grouped = tensor(vec![
        Formula::direct_sum(vec![dft(2), id(2)]).unwrap(),
        compose(vec![dft(2), l(2, 2)]),
    ]);
    check_paper_formula("(DFT(2) ⊕ I(2)) ⊗ (DFT(2) · L(2,2))", &grouped, false);
    let left = tensor(vec![tensor(vec![dft(2), id(2)]), id(3)]);
    let flat = tensor(vec![dft(2), id(2), id(3)]);
    check_paper_formula("(DFT(2) ⊗ I(2)) ⊗ I(3)", &left, false);
    check_paper_formula("DFT(2) ⊗ I(2) ⊗ I(3)", &flat, false);
    assert_ne!(left, flat);
    check_paper_formula("((((DFT(2)))))", &dft(2), false);
}

/// Pieces of the grammar, to build strings that get deep into the parser more often than
/// uniformly random text does.
const PIECES: [&str; 30] = [
    "DFT",
    "I",
    "L",
    "D",
    "(",
    ")",
    "{",
    "}",
    ",",
    "_",
    "^",
    "⊗",
    "(x)",
    "·",
    "⋅",
    "*",
    "⊕",
    "(+)",
    "0",
    "1",
    "2",
    "4",
    "16",
    "3",
    " ",
    "18446744073709551616",
    "4294967296",
    "🦀",
    "x",
    "\n",
];

fn grammar_soup() -> impl Strategy<Value = String> {
    prop::collection::vec(select(PIECES.to_vec()), 0..40).prop_map(|ps| ps.concat())
}

/// Whatever the input: no panic; an error is positioned inside the input; a success is a
/// well-formed formula whose printed forms read back as the same tree.
fn check_any_input(input: &str) -> Result<(), TestCaseError> {
    match Formula::parse(input) {
        Ok(f) => {
            prop_assert!(
                f.checked_size().is_ok(),
                "{:?} gave a malformed {:?}",
                input,
                f
            );
            prop_assert_eq!(Formula::parse(&f.to_string()), Ok(f.clone()));
            prop_assert_eq!(Formula::parse(&f.ascii()), Ok(f.clone()));
        }
        Err(e) => check_error_invariants(input, &e),
    }
    Ok(())
}

/// A printed formula with one edit: a character deleted, a piece of the grammar inserted,
/// or the text cut short — inputs next to well-formed ones, where most bugs hide.
fn near_miss() -> impl Strategy<Value = String> {
    (
        any_formula(),
        any::<bool>(),
        0usize..3,
        any::<prop::sample::Index>(),
        select(PIECES.to_vec()),
    )
        .prop_map(|(f, ascii, edit, at, piece)| {
            let text = if ascii { f.ascii() } else { f.to_string() };
            let mut chars: Vec<char> = text.chars().collect();
            let i = at.index(chars.len() + 1);
            match edit {
                0 if i < chars.len() => {
                    chars.remove(i);
                }
                1 => chars.splice(i..i, piece.chars()).for_each(drop),
                _ => chars.truncate(i),
            }
            chars.into_iter().collect()
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn arbitrary_strings_never_panic(input in any::<String>()) {
        check_any_input(&input)?;
    }

    #[test]
    fn grammar_soup_never_panics(input in grammar_soup()) {
        check_any_input(&input)?;
    }

    #[test]
    fn near_misses_never_panic(input in near_miss()) {
        check_any_input(&input)?;
    }
}

proptest! {
    #[test]
    fn printing_then_parsing_gives_the_same_formula(f in any_formula()) {
        prop_assert_eq!(Formula::parse(&f.to_string()), Ok(f.clone()));
        prop_assert_eq!(Formula::parse(&f.ascii()), Ok(f.clone()));
        // Whitespace is optional between tokens.
        let tight: String = f.to_string().chars().filter(|c| *c != ' ').collect();
        prop_assert_eq!(Formula::parse(&tight), Ok(f.clone()));
        let tight: String = f.ascii().chars().filter(|c| *c != ' ').collect();
        prop_assert_eq!(Formula::parse(&tight), Ok(f.clone()));
    }
}
