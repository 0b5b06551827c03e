// 426037461 is the canonical 16th root of unity of 469762049: its order is 16, not 32.
fermat_macros::fft! {
    pub struct WrongRoot;
    field = 469762049, n = 32, root = 426037461
}

fn main() {}
