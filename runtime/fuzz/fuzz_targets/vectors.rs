//! Fuzzes the reader of reference-vector files: any text is either refused with a typed
//! error or read into DFTs whose every list holds one value below p per point.

#![no_main]

use fermat::vectors::DftFile;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    match DftFile::parse(text) {
        Ok(file) => {
            for d in &file.ffts {
                assert_eq!(d.input.len() as u64, d.n);
                assert_eq!(d.output.len() as u64, d.n);
                assert!(d.input.iter().chain(&d.output).all(|v| *v < file.p));
            }
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
});
