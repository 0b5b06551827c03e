fermat_macros::fft! {
    pub struct P3x2048;
    field = P3, n = 2048, strategy = prop3
}

fn main() {}
