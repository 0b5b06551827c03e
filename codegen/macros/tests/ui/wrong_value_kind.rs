fermat_macros::fft! {
    pub struct Named;
    field = P3, n = big
}

fn main() {}
