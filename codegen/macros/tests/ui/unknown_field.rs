fermat_macros::fft! {
    pub struct P7x16;
    field = P7, n = 16
}

fn main() {}
