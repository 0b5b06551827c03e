//! The parser: formulas in the Unicode notation of the papers, in ASCII, or any mix of the
//! two (the notations of [the printer](super::print)).
//!
//! Grammar (whitespace may separate any two tokens):
//!
//! ```text
//! sum     = product { ("⊕" | "(+)") product }
//! product = tensor  { ("·" | "⋅" | "*") tensor }
//! tensor  = atom    { ("⊗" | "(x)") atom }
//! atom    = "(" sum ")" | leaf
//! leaf    = "DFT" one | "I" one | "L" two_l | "D" two_d
//! one     = "(" NUM ")" | "_" script
//! two_l   = "(" NUM "," NUM ")" | "^" script "_" script
//! two_d   = "(" NUM "," NUM ")" | "_" "{" NUM "," NUM "}"
//! script  = NUM | "{" NUM "}"
//! ```
//!
//! A chain of one operator is one n-ary node (`A · B · C` is `Compose([A, B, C])`);
//! parentheses make nested nodes (`(A · B) · C` is `Compose([Compose([A, B]), C])`), which
//! is what lets every printed formula read back as the same tree. There is no implicit
//! juxtaposition. Sizes are checked as the formula is read, with the checked constructors,
//! and a mismatch is reported at the operator that joins the mismatched operands.

use super::{Formula, FormulaError};
use std::fmt;
use std::str::FromStr;

/// The deepest nesting of parentheses the parser accepts; deeper input is refused
/// rather than risking the stack.
///
/// ```
/// use fermat_dsl::formula::{parse::MAX_NESTING, Formula, ParseErrorKind};
///
/// let nested = |depth: usize| "(".repeat(depth) + "I(2)" + &")".repeat(depth);
/// assert_eq!(Formula::parse(&nested(MAX_NESTING))?, Formula::Identity(2));
/// let err = Formula::parse(&nested(MAX_NESTING + 1)).unwrap_err();
/// assert_eq!(*err.kind(), ParseErrorKind::TooDeep);
/// # Ok::<(), fermat_dsl::formula::ParseError>(())
/// ```
pub const MAX_NESTING: usize = 128;

/// What kind of problem a [`ParseError`] reports: a caller can tell a typing mistake
/// from a well-formed formula whose sizes do not fit.
///
/// ```
/// use fermat_dsl::formula::{Formula, FormulaError, ParseErrorKind};
///
/// let kind = |text: &str| Formula::parse(text).unwrap_err().kind().clone();
/// assert_eq!(kind("DFT(4"), ParseErrorKind::Syntax);
/// assert_eq!(kind("DFT(99999999999999999999)"), ParseErrorKind::NumberTooLarge);
/// assert_eq!(
///     kind("L(8,3)"),
///     ParseErrorKind::Formula(FormulaError::StrideDoesNotDivide { n: 8, m: 3 })
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ParseErrorKind {
    /// A token that the grammar does not allow here.
    Syntax,
    /// A number that does not fit 64 bits.
    NumberTooLarge,
    /// Parentheses nested deeper than [`MAX_NESTING`].
    TooDeep,
    /// Well-formed text whose sizes are inconsistent (or zero, or overflow).
    Formula(FormulaError),
}

/// Why a text is not a formula, and where: the position (byte offset and 1-based column,
/// counted in characters), what was found there and what was expected.
///
/// Its `Display` names the problem and shows the input with a caret under the column.
///
/// ```
/// use fermat_dsl::formula::{Formula, ParseErrorKind};
///
/// let err = Formula::parse("DFT(4) ⊗ (I(2").unwrap_err();
/// assert_eq!(err.input(), "DFT(4) ⊗ (I(2");
/// assert_eq!(*err.kind(), ParseErrorKind::Syntax);
/// assert_eq!((err.found(), err.expected()), ("end of input", "')'"));
/// // Columns count characters, offsets count bytes ('⊗' takes three).
/// assert_eq!((err.column(), err.offset()), (14, 15));
/// assert!(err.to_string().starts_with("expected ')' at column 14, found end of input"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError(Box<Details>);

/// The contents of a [`ParseError`], boxed to keep `Result<_, ParseError>` small.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Details {
    input: String,
    offset: usize,
    column: usize,
    found: String,
    expected: String,
    kind: ParseErrorKind,
}

impl ParseError {
    /// The byte offset of the problem in the input ([`ParseError`] has an example).
    pub fn offset(&self) -> usize {
        self.0.offset
    }

    /// The 1-based column of the problem, counted in characters (one past the last
    /// character for a problem at the end of the input; [`ParseError`] has an example).
    pub fn column(&self) -> usize {
        self.0.column
    }

    /// What was found at the column: a token in quotes, or `end of input` ([`ParseError`]
    /// has an example).
    pub fn found(&self) -> &str {
        &self.0.found
    }

    /// What would have been allowed there ([`ParseError`] has an example).
    pub fn expected(&self) -> &str {
        &self.0.expected
    }

    /// The kind of problem ([`ParseErrorKind`] has an example).
    pub fn kind(&self) -> &ParseErrorKind {
        &self.0.kind
    }

    /// The text that was parsed ([`ParseError`] has an example).
    pub fn input(&self) -> &str {
        &self.0.input
    }

    /// The input (a window of it, for long inputs) and a caret line under the column.
    fn caret_lines(&self) -> (String, String) {
        const WIDTH: usize = 100;
        let chars: Vec<char> = self
            .0
            .input
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        let col = self.0.column - 1;
        let start = col.saturating_sub(WIDTH / 2);
        let end = (start + WIDTH).min(chars.len());
        let mut line = String::new();
        let mut caret = col - start;
        if start > 0 {
            line.push('…');
            caret += 1;
        }
        line.extend(&chars[start..end]);
        if end < chars.len() {
            line.push('…');
        }
        (line, format!("{}^", " ".repeat(caret)))
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = &self.0;
        let col = d.column;
        match &d.kind {
            ParseErrorKind::Syntax => write!(
                f,
                "expected {} at column {col}, found {}",
                d.expected, d.found
            )?,
            ParseErrorKind::NumberTooLarge => write!(
                f,
                "the number {} at column {col} is too large: expected {}",
                d.found, d.expected
            )?,
            ParseErrorKind::TooDeep => write!(
                f,
                "parentheses nest too deeply at column {col}: expected {}",
                self.0.expected
            )?,
            ParseErrorKind::Formula(e) => write!(f, "{e} at column {col}")?,
        }
        let (line, caret) = self.caret_lines();
        write!(f, "\n  {line}\n  {caret}")
    }
}

impl std::error::Error for ParseError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.0.kind {
            ParseErrorKind::Formula(e) => Some(e),
            _ => None,
        }
    }
}

impl Formula {
    /// Reads a formula in the Unicode notation (`DFT_2 ⊗ I_2 · L^{4}_{2}`), the ASCII one
    /// (`DFT(2) (x) I(2) * L(4,2)`) or a mix; see the [module documentation](self) for
    /// the grammar. `Formula::parse(&f.to_string())` and `Formula::parse(&f.ascii())` give
    /// back `f` for every formula built by the checked constructors.
    ///
    /// ```
    /// use fermat_dsl::formula::{Formula, ParseError};
    ///
    /// let unicode = Formula::parse("DFT_2 ⊗ I_2 · L^{4}_{2}")?;
    /// let ascii: Formula = "DFT(2) (x) I(2) * L(4,2)".parse()?;
    /// assert_eq!(unicode, ascii);
    /// assert_eq!(unicode.size(), 4);
    /// // Sizes are checked as the text is read: DFT(4) and I(8) do not compose.
    /// assert!(Formula::parse("DFT(4) * I(8)").is_err());
    /// # Ok::<(), ParseError>(())
    /// ```
    pub fn parse(text: &str) -> Result<Formula, ParseError> {
        let mut parser = Parser {
            input: text,
            tokens: lex(text),
            pos: 0,
        };
        let formula = parser.sum(0)?;
        let next = parser.peek();
        if next.kind != Kind::End {
            return Err(parser.unexpected(&next, "an operator ⊗, ·, ⊕ or end of input"));
        }
        Ok(formula)
    }
}

impl FromStr for Formula {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Formula::parse(s)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// A decimal number; `None` when it does not fit 64 bits.
    Number(Option<u64>),
    /// A run of ASCII letters.
    Word,
    LParen,
    RParen,
    LBrace,
    RBrace,
    Comma,
    Underscore,
    Caret,
    Tensor,
    Compose,
    Sum,
    /// Any other character.
    Other,
    End,
}

#[derive(Clone, Copy, Debug)]
struct Token<'a> {
    kind: Kind,
    text: &'a str,
    offset: usize,
    column: usize,
}

impl Token<'_> {
    fn describe(&self) -> String {
        match self.kind {
            Kind::End => "end of input".to_string(),
            _ => format!("'{}'", self.text),
        }
    }
}

/// Splits the input into tokens, ending with one `End` token; never fails (characters
/// outside the grammar become `Other` tokens, reported when the parser reaches them).
fn lex(input: &str) -> Vec<Token<'_>> {
    let mut tokens = Vec::new();
    let mut chars = input.char_indices().peekable();
    let mut column = 0;
    while let Some((offset, c)) = chars.next() {
        column += 1;
        if c.is_whitespace() {
            continue;
        }
        let (kind, len_chars, end) = match c {
            '0'..='9' | 'A'..='Z' | 'a'..='z' => {
                let digit = c.is_ascii_digit();
                let mut end = offset + 1;
                let mut len = 1;
                while let Some(&(o, d)) = chars.peek() {
                    let same = if digit {
                        d.is_ascii_digit()
                    } else {
                        d.is_ascii_alphabetic()
                    };
                    if !same {
                        break;
                    }
                    chars.next();
                    end = o + 1;
                    len += 1;
                }
                let kind = if digit {
                    Kind::Number(input[offset..end].parse().ok())
                } else {
                    Kind::Word
                };
                (kind, len, end)
            }
            '(' if input[offset..].starts_with("(x)") || input[offset..].starts_with("(+)") => {
                chars.next();
                chars.next();
                let kind = if input[offset..].starts_with("(x)") {
                    Kind::Tensor
                } else {
                    Kind::Sum
                };
                (kind, 3, offset + 3)
            }
            _ => {
                let kind = match c {
                    '(' => Kind::LParen,
                    ')' => Kind::RParen,
                    '{' => Kind::LBrace,
                    '}' => Kind::RBrace,
                    ',' => Kind::Comma,
                    '_' => Kind::Underscore,
                    '^' => Kind::Caret,
                    '⊗' => Kind::Tensor,
                    '·' | '⋅' | '*' => Kind::Compose,
                    '⊕' => Kind::Sum,
                    _ => Kind::Other,
                };
                (kind, 1, offset + c.len_utf8())
            }
        };
        tokens.push(Token {
            kind,
            text: &input[offset..end],
            offset,
            column,
        });
        column += len_chars - 1;
    }
    tokens.push(Token {
        kind: Kind::End,
        text: "",
        offset: input.len(),
        column: column + 1,
    });
    tokens
}

struct Parser<'a> {
    input: &'a str,
    tokens: Vec<Token<'a>>,
    pos: usize,
}

const FORMULA_START: &str = "a formula: DFT, I, L, D or '('";

impl<'a> Parser<'a> {
    fn peek(&self) -> Token<'a> {
        self.tokens[self.pos.min(self.tokens.len() - 1)]
    }

    fn next(&mut self) -> Token<'a> {
        let t = self.peek();
        if t.kind != Kind::End {
            self.pos += 1;
        }
        t
    }

    fn error(
        &self,
        at: &Token<'_>,
        kind: ParseErrorKind,
        found: String,
        expected: &str,
    ) -> ParseError {
        ParseError(Box::new(Details {
            input: self.input.to_string(),
            offset: at.offset,
            column: at.column,
            found,
            expected: expected.to_string(),
            kind,
        }))
    }

    fn unexpected(&self, at: &Token<'_>, expected: &str) -> ParseError {
        self.error(at, ParseErrorKind::Syntax, at.describe(), expected)
    }

    /// A formula error reported at `at` (an operator or a leaf's name).
    fn formula_error(&self, at: &Token<'_>, e: FormulaError) -> ParseError {
        let expected = match e {
            FormulaError::ZeroSize { .. } => "sizes of at least 1",
            FormulaError::StrideDoesNotDivide { .. } => "a stride that divides the size",
            FormulaError::ComposeSizes { .. } => "factors of equal size",
            FormulaError::Overflow { .. } => "a size below 2^64",
            _ => "a well-formed formula",
        };
        self.error(at, ParseErrorKind::Formula(e), at.describe(), expected)
    }

    fn expect(&mut self, kind: Kind, expected: &str) -> Result<Token<'a>, ParseError> {
        let t = self.next();
        if t.kind == kind {
            Ok(t)
        } else {
            Err(self.unexpected(&t, expected))
        }
    }

    fn number(&mut self) -> Result<u64, ParseError> {
        let t = self.next();
        match t.kind {
            Kind::Number(Some(n)) => Ok(n),
            Kind::Number(None) => Err(self.error(
                &t,
                ParseErrorKind::NumberTooLarge,
                t.text.to_string(),
                "a size of at most 18446744073709551615 (2^64 − 1)",
            )),
            _ => Err(self.unexpected(&t, "a number")),
        }
    }

    /// `NUM` or `{NUM}`.
    fn script(&mut self) -> Result<u64, ParseError> {
        if self.peek().kind == Kind::LBrace {
            self.next();
            let n = self.number()?;
            self.expect(Kind::RBrace, "'}'")?;
            Ok(n)
        } else {
            match self.peek().kind {
                Kind::Number(_) => self.number(),
                _ => {
                    let t = self.next();
                    Err(self.unexpected(&t, "a number or '{'"))
                }
            }
        }
    }

    /// `(NUM, NUM)`, after the opening parenthesis.
    fn pair_in_parens(&mut self) -> Result<(u64, u64), ParseError> {
        let a = self.number()?;
        self.expect(Kind::Comma, "','")?;
        let b = self.number()?;
        self.expect(Kind::RParen, "')'")?;
        Ok((a, b))
    }

    /// One n-ary level: operands from `operand`, joined by `op` tokens, sizes combined by
    /// `combine` (which reports a mismatch at the operator) and built by `build`.
    fn chain(
        &mut self,
        depth: usize,
        op: Kind,
        operand: fn(&mut Self, usize) -> Result<Formula, ParseError>,
        combine: fn(u64, &Formula, &Formula) -> Result<u64, FormulaError>,
        build: fn(Vec<Formula>) -> Result<Formula, FormulaError>,
    ) -> Result<Formula, ParseError> {
        let first = operand(self, depth)?;
        if self.peek().kind != op {
            return Ok(first);
        }
        let first_op = self.peek();
        let mut size = first
            .checked_size()
            .map_err(|e| self.formula_error(&first_op, e))?;
        let mut factors = vec![first];
        while self.peek().kind == op {
            let op_token = self.next();
            let rhs = operand(self, depth)?;
            let prev = factors.last().unwrap_or(&rhs);
            size = combine(size, prev, &rhs).map_err(|e| self.formula_error(&op_token, e))?;
            factors.push(rhs);
        }
        build(factors).map_err(|e| self.formula_error(&first_op, e))
    }

    fn sum(&mut self, depth: usize) -> Result<Formula, ParseError> {
        self.chain(
            depth,
            Kind::Sum,
            Self::product,
            |acc, _, rhs| {
                acc.checked_add(rhs.checked_size()?)
                    .ok_or_else(|| FormulaError::Overflow {
                        what: "a direct sum".into(),
                    })
            },
            Formula::direct_sum,
        )
    }

    fn product(&mut self, depth: usize) -> Result<Formula, ParseError> {
        self.chain(
            depth,
            Kind::Compose,
            Self::tensor,
            |acc, prev, rhs| {
                let size = rhs.checked_size()?;
                if size == acc {
                    Ok(acc)
                } else {
                    Err(FormulaError::ComposeSizes {
                        left: prev.to_string(),
                        left_size: acc,
                        right: rhs.to_string(),
                        right_size: size,
                    })
                }
            },
            Formula::compose,
        )
    }

    fn tensor(&mut self, depth: usize) -> Result<Formula, ParseError> {
        self.chain(
            depth,
            Kind::Tensor,
            Self::atom,
            |acc, _, rhs| {
                acc.checked_mul(rhs.checked_size()?)
                    .ok_or_else(|| FormulaError::Overflow {
                        what: "a tensor product".into(),
                    })
            },
            Formula::tensor,
        )
    }

    fn atom(&mut self, depth: usize) -> Result<Formula, ParseError> {
        let t = self.next();
        match t.kind {
            Kind::LParen => {
                if depth >= MAX_NESTING {
                    return Err(self.error(
                        &t,
                        ParseErrorKind::TooDeep,
                        t.describe(),
                        &format!("at most {MAX_NESTING} nested parentheses"),
                    ));
                }
                let inner = self.sum(depth + 1)?;
                let close = self.next();
                if close.kind != Kind::RParen {
                    let expected = format!(
                        "an operator ⊗, ·, ⊕ or ')' closing the '(' at column {}",
                        t.column
                    );
                    return Err(self.unexpected(&close, &expected));
                }
                Ok(inner)
            }
            Kind::Word => self.leaf(t),
            _ => Err(self.unexpected(&t, FORMULA_START)),
        }
    }

    fn leaf(&mut self, name: Token<'a>) -> Result<Formula, ParseError> {
        let built = match name.text {
            "DFT" | "I" => {
                let open = self.next();
                let n = match open.kind {
                    Kind::LParen => {
                        let n = self.number()?;
                        self.expect(Kind::RParen, "')'")?;
                        n
                    }
                    Kind::Underscore => self.script()?,
                    _ => {
                        let expected = format!("'(' or '_' after {}", name.text);
                        return Err(self.unexpected(&open, &expected));
                    }
                };
                if name.text == "DFT" {
                    Formula::dft(n)
                } else {
                    Formula::identity(n)
                }
            }
            "L" => {
                let open = self.next();
                let (n, m) = match open.kind {
                    Kind::LParen => self.pair_in_parens()?,
                    Kind::Caret => {
                        let n = self.script()?;
                        self.expect(Kind::Underscore, "'_' and the stride")?;
                        (n, self.script()?)
                    }
                    _ => return Err(self.unexpected(&open, "'(' or '^' after L")),
                };
                Formula::stride(n, m)
            }
            "D" => {
                let open = self.next();
                let (m, n) = match open.kind {
                    Kind::LParen => self.pair_in_parens()?,
                    Kind::Underscore => {
                        self.expect(Kind::LBrace, "'{' (as in D_{2,8})")?;
                        let m = self.number()?;
                        self.expect(Kind::Comma, "','")?;
                        let n = self.number()?;
                        self.expect(Kind::RBrace, "'}'")?;
                        (m, n)
                    }
                    _ => return Err(self.unexpected(&open, "'(' or '_' after D")),
                };
                Formula::twiddle(m, n)
            }
            _ => return Err(self.unexpected(&name, FORMULA_START)),
        };
        built.map_err(|e| self.formula_error(&name, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formula::arbitrary::{any_formula, formula_of_size};
    use proptest::prelude::*;

    fn dft(n: u64) -> Formula {
        Formula::dft(n).unwrap()
    }
    fn id(n: u64) -> Formula {
        Formula::identity(n).unwrap()
    }

    #[test]
    fn reads_both_notations_and_mixtures() {
        let expected = Formula::compose(vec![
            Formula::tensor(vec![dft(2), id(2)]).unwrap(),
            Formula::twiddle(2, 2).unwrap(),
            Formula::tensor(vec![id(2), dft(2)]).unwrap(),
            Formula::stride(4, 2).unwrap(),
        ])
        .unwrap();
        for text in [
            "DFT_2 ⊗ I_2 · D_{2,2} · I_2 ⊗ DFT_2 · L^{4}_{2}",
            "DFT(2) (x) I(2) * D(2,2) * I(2) (x) DFT(2) * L(4,2)",
            "DFT_{2}⊗I_{2}⋅D(2, 2)*I(2) (x) DFT_2 · L^4_2",
            "  (DFT(2) ⊗ I_2) * D_{ 2 , 2 } · ((I(2) (x) DFT(2))) * L( 4 ,2 )\n",
        ] {
            assert_eq!(Formula::parse(text), Ok(expected.clone()), "{text}");
            assert_eq!(text.parse::<Formula>(), Ok(expected.clone()), "{text}");
        }
    }

    #[test]
    fn precedence_is_tensor_then_compose_then_sum() {
        let f = Formula::parse("I(2) (+) I(2) * DFT(2) (x) I(1)").unwrap();
        let expected = Formula::direct_sum(vec![
            id(2),
            Formula::compose(vec![id(2), Formula::tensor(vec![dft(2), id(1)]).unwrap()]).unwrap(),
        ])
        .unwrap();
        assert_eq!(f, expected);
    }

    #[test]
    fn parentheses_keep_nesting() {
        let f = Formula::parse("(DFT(2) * I(2)) * I(2)").unwrap();
        let inner = Formula::compose(vec![dft(2), id(2)]).unwrap();
        assert_eq!(f, Formula::compose(vec![inner, id(2)]).unwrap());
    }

    #[test]
    fn reports_juxtaposition_at_the_second_operand() {
        let err = Formula::parse("DFT(2) I(2)").unwrap_err();
        assert_eq!(err.column(), 8);
        assert_eq!(err.offset(), 7);
        assert_eq!(err.found(), "'I'");
        assert_eq!(err.kind(), &ParseErrorKind::Syntax);
        let text = err.to_string();
        assert!(
            text.starts_with("expected an operator ⊗, ·, ⊕ or end of input at column 8"),
            "{text}"
        );
        assert!(text.ends_with("\n  DFT(2) I(2)\n         ^"), "{text}");
    }

    #[test]
    fn reports_size_mismatches_at_the_operator() {
        let err = Formula::parse("DFT_16 · DFT_8").unwrap_err();
        assert_eq!(err.column(), 8);
        assert!(matches!(
            err.kind(),
            ParseErrorKind::Formula(FormulaError::ComposeSizes {
                left_size: 16,
                right_size: 8,
                ..
            })
        ));
        let text = err.to_string();
        assert!(
            text.contains("DFT_16 (size 16)") && text.contains("DFT_8 (size 8)"),
            "{text}"
        );
        assert!(std::error::Error::source(&err).is_some());
    }

    #[test]
    fn columns_count_characters_not_bytes() {
        // '⊗' and '·' take 2 and 3 bytes in UTF-8 but one column each.
        let err = Formula::parse("I_2 ⊗ I_2 · I_2 ⊗ ?").unwrap_err();
        assert_eq!(err.column(), 19);
        assert_eq!(err.offset(), "I_2 ⊗ I_2 · I_2 ⊗ ".len());
        assert_eq!(err.found(), "'?'");
    }

    #[test]
    fn long_inputs_show_a_window_around_the_caret() {
        let mut text = "I(1) * ".repeat(100);
        text.push_str("I(2)");
        let err = Formula::parse(&text).unwrap_err();
        assert_eq!(err.column(), 700 - 1);
        let shown = err.to_string();
        let lines: Vec<&str> = shown.lines().collect();
        assert_eq!(lines.len(), 3);
        assert!(lines[1].chars().count() < 110, "{shown}");
        let caret_col = lines[2].chars().count() - 1;
        assert_eq!(lines[1].chars().nth(caret_col), Some('*'), "{shown}");
    }

    #[test]
    fn refuses_deep_nesting_without_overflowing_the_stack() {
        let text = format!("{}I(1){}", "(".repeat(10_000), ")".repeat(10_000));
        let err = Formula::parse(&text).unwrap_err();
        assert_eq!(err.kind(), &ParseErrorKind::TooDeep);
        assert_eq!(err.column(), MAX_NESTING + 1);
        let ok = format!("{}I(1){}", "(".repeat(MAX_NESTING), ")".repeat(MAX_NESTING));
        assert_eq!(Formula::parse(&ok), Ok(id(1)));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn unicode_round_trips(f in any_formula()) {
            prop_assert_eq!(Formula::parse(&f.to_string()), Ok(f));
        }

        #[test]
        fn ascii_round_trips(f in any_formula()) {
            prop_assert_eq!(Formula::parse(&f.ascii()), Ok(f));
        }

        #[test]
        fn large_sizes_round_trip(f in formula_of_size(1 << 40, 2)) {
            prop_assert_eq!(Formula::parse(&f.to_string()), Ok(f.clone()));
            prop_assert_eq!(Formula::parse(&f.ascii()), Ok(f));
        }

        #[test]
        fn arbitrary_text_never_panics(text in "\\PC{0,40}") {
            if let Err(e) = Formula::parse(&text) {
                prop_assert!(e.column() >= 1 && e.column() <= text.chars().count() + 1);
                prop_assert!(text.is_char_boundary(e.offset()));
                let _ = e.to_string();
            }
        }

        #[test]
        fn formula_like_text_never_panics(
            text in "[DFTIL()_^{},0-9 *⊗·⊕x+]{0,40}"
        ) {
            if let Err(e) = Formula::parse(&text) {
                prop_assert!(e.column() >= 1 && e.column() <= text.chars().count() + 1);
                let _ = e.to_string();
            }
        }
    }
}
