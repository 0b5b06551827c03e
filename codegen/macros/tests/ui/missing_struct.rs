fermat_macros::fft! {
    field = P3, n = 4096
}

fn main() {}
