fermat_macros::fft! {
    pub struct Twice;
    field = P3, n = 4096, radix = 16, n = 256
}

fn main() {}
