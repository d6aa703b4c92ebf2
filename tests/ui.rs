//! Compile-fail and compile-pass cases of the macros: the error text a user reads is reviewed
//! like code (`tests/ui/fail/*.stderr`).

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/fail/*.rs");
    t.pass("tests/ui/pass/*.rs");
}
