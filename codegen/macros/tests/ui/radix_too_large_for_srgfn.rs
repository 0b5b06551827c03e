// P3 has k = 8: its radix divides 2k = 16.
fermat_macros::fft! {
    pub struct P3Radix32;
    field = P3, n = 4096, radix = 32
}

fn main() {}
