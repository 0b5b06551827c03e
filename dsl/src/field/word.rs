//! Word-size prime fields (placeholder: being written).
use super::FieldError;

/// A prime field with p < 2^32.
#[derive(Clone, Debug)]
pub struct Fp32 {}
/// A prime field with p < 2^64.
#[derive(Clone, Debug)]
pub struct Fp64 {}
impl Fp32 {
    /// Builds the field.
    pub fn new(_p: u32) -> Result<Self, FieldError> {
        todo!()
    }
    /// Sets the name.
    pub fn with_name(self, _name: Option<&'static str>) -> Self {
        todo!()
    }
}
impl Fp64 {
    /// Builds the field.
    pub fn new(_p: u64) -> Result<Self, FieldError> {
        todo!()
    }
    /// Sets the name.
    pub fn with_name(self, _name: Option<&'static str>) -> Self {
        todo!()
    }
}
macro_rules! stub_field {
    ($t:ty) => {
        impl super::Field for $t {
            type Elem = u64;
            fn name(&self) -> String { todo!() }
            fn modulus(&self) -> num_bigint::BigUint { todo!() }
            fn two_adicity(&self) -> u32 { todo!() }
            fn zero(&self) -> u64 { todo!() }
            fn one(&self) -> u64 { todo!() }
            fn add(&self, _a: &u64, _b: &u64) -> u64 { todo!() }
            fn sub(&self, _a: &u64, _b: &u64) -> u64 { todo!() }
            fn neg(&self, _a: &u64) -> u64 { todo!() }
            fn mul(&self, _a: &u64, _b: &u64) -> u64 { todo!() }
            fn from_biguint(&self, _x: &num_bigint::BigUint) -> Result<u64, FieldError> { todo!() }
            fn to_biguint(&self, _a: &u64) -> num_bigint::BigUint { todo!() }
        }
    };
}
stub_field!(Fp32);
stub_field!(Fp64);
