fermat_macros::fft! {
    pub struct NoSize;
    field = P3
}

fn main() {}
