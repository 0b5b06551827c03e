fermat_macros::fft! {
    pub struct P3x1000;
    field = P3, n = 1000
}

fn main() {}
