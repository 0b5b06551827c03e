fermat_macros::fft! {
    pub struct Fast;
    field = P3, n = 4096, strategy = fastest
}

fn main() {}
