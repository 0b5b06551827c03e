// p − 1 = 7·2^26: no transform of 2^27 points exists.
fermat_macros::fft! {
    pub struct TooLong;
    field = 469762049, n = 134217728
}

fn main() {}
