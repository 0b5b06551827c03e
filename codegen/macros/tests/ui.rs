//! Compile-fail cases of `fft!`: each file in `ui/` must fail to compile with exactly the
//! message pinned beside it (`ui/NAME.stderr`), pointing at the argument at fault.
//! Regenerate the pins with `TRYBUILD=overwrite cargo test -p fermat-macros --test ui`
//! and review them.

#[test]
fn bad_arguments_are_compile_errors_at_the_argument() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
