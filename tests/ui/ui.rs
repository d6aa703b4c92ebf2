//! Compile-fail and compile-pass cases of the macros: the error text a user reads is reviewed
//! like code (`tests/ui/fail/*.stderr`). `TRYBUILD=overwrite cargo test -p toolsmith-trybuild`
//! rewrites the expected text after a deliberate change.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("fail/*.rs");
    t.pass("pass/*.rs");
}
