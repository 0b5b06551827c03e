//! Types and literals.

/// A CUDA C type.
///
/// Printed (`Display`) as CUDA C:
///
/// ```
/// use fermat_codegen::cuda::Type;
/// assert_eq!(Type::SizeT.to_string(), "size_t");
/// assert_eq!(Type::Word.to_string(), "fe_word_t");
/// let raw = Type::Ptr { to: Box::new(Type::U32), is_const: false, restrict: false };
/// assert_eq!(raw.to_string(), "uint32_t*");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    /// `void` (kernel results).
    Void,
    /// `bool`.
    Bool,
    /// `int`: loop counters and small compile-time indices.
    Int,
    /// `uint32_t`.
    U32,
    /// `uint64_t`.
    U64,
    /// `int64_t`.
    I64,
    /// `size_t`: element indices and sizes.
    SizeT,
    /// `fe_t`: one field element in registers (the prelude defines it).
    Fe,
    /// `fe_dot_t`: a sum of products being accumulated, unreduced where the prelude can
    /// ([`fe::dot_add`](crate::cuda::fe::dot_add)).
    FeDot,
    /// `fe_warp_t`: 32 elements across a warp, one a lane (all 32 in the host's one
    /// thread): a polynomial of degree below 32 ([`fe::warp_up`](crate::cuda::fe::warp_up)).
    FeWarp,
    /// `fe_word_t`: one memory word of a field vector (`uint32_t` for 32-bit primes,
    /// `uint64_t` otherwise; the prelude defines it).
    Word,
    /// A pointer, optionally to const data and marked `__restrict__`.
    Ptr {
        /// The pointee.
        to: Box<Type>,
        /// Whether the pointee is `const`.
        is_const: bool,
        /// Whether the pointer is `__restrict__` (no aliasing with other parameters).
        restrict: bool,
    },
}

impl Type {
    /// `T* __restrict__`: a writable kernel argument.
    ///
    /// ```
    /// use fermat_codegen::cuda::Type;
    /// assert_eq!(Type::ptr(Type::Word).to_string(), "fe_word_t* __restrict__");
    /// ```
    pub fn ptr(to: Type) -> Type {
        Type::Ptr {
            to: Box::new(to),
            is_const: false,
            restrict: true,
        }
    }

    /// `const T* __restrict__`: a read-only kernel argument.
    ///
    /// ```
    /// use fermat_codegen::cuda::Type;
    /// let t = Type::const_ptr(Type::Word);
    /// assert_eq!(t.to_string(), "const fe_word_t* __restrict__");
    /// assert!(matches!(t, Type::Ptr { is_const: true, restrict: true, .. }));
    /// ```
    pub fn const_ptr(to: Type) -> Type {
        Type::Ptr {
            to: Box::new(to),
            is_const: true,
            restrict: true,
        }
    }
}

/// A literal constant.
///
/// ```
/// use fermat_codegen::cuda::{Expr, Lit};
/// assert_eq!(Expr::Lit(Lit::U64(5)).to_string(), "5ull");
/// assert_eq!(Expr::u32(5), Expr::Lit(Lit::U32(5)));
/// assert_eq!(Expr::Lit(Lit::Bool(false)).to_string(), "false");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Lit {
    /// An `int` literal.
    Int(i64),
    /// A `uint32_t` literal (`u` suffix).
    U32(u32),
    /// A `uint64_t` literal (`ull` suffix).
    U64(u64),
    /// `true` or `false`.
    Bool(bool),
}
