fermat_macros::fft! {
    pub struct Sized;
    field = P3, size = 4096
}

fn main() {}
