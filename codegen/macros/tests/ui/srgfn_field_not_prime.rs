// (2^63 + 2^34)^4 + 1 is not prime.
fermat_macros::fft! {
    pub struct NotAField;
    field = "srgfn:63,34,+,4", n = 16
}

fn main() {}
