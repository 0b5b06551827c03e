fermat_macros::fft! {
    pub struct Radix12;
    field = goldilocks, n = 4096, radix = 12
}

fn main() {}
