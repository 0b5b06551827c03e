//! SRGFN fields (placeholder: being written).
use super::{FieldError, SrgfnParams};
/// p = r^k + 1.
#[derive(Clone, Debug)]
pub struct Srgfn<const K: usize> {}
/// An element.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SrgfnElem<const K: usize>([u64; K]);
impl<const K: usize> Srgfn<K> {
    /// Builds the field.
    pub fn new(_params: SrgfnParams, _name: Option<&'static str>) -> Result<Self, FieldError> {
        todo!()
    }
    /// Parameters.
    pub fn params(&self) -> SrgfnParams {
        todo!()
    }
}
impl<const K: usize> super::Field for Srgfn<K> {
    type Elem = SrgfnElem<K>;
    fn name(&self) -> String { todo!() }
    fn modulus(&self) -> num_bigint::BigUint { todo!() }
    fn two_adicity(&self) -> u32 { todo!() }
    fn zero(&self) -> Self::Elem { todo!() }
    fn one(&self) -> Self::Elem { todo!() }
    fn add(&self, _a: &Self::Elem, _b: &Self::Elem) -> Self::Elem { todo!() }
    fn sub(&self, _a: &Self::Elem, _b: &Self::Elem) -> Self::Elem { todo!() }
    fn neg(&self, _a: &Self::Elem) -> Self::Elem { todo!() }
    fn mul(&self, _a: &Self::Elem, _b: &Self::Elem) -> Self::Elem { todo!() }
    fn from_biguint(&self, _x: &num_bigint::BigUint) -> Result<Self::Elem, FieldError> { todo!() }
    fn to_biguint(&self, _a: &Self::Elem) -> num_bigint::BigUint { todo!() }
}
