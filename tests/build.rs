//! Gives the tests the workspace's root folder as `TOOLSMITH_WORKSPACE` (this package lives in its
//! `tests/` folder; the files the tests read are named from the root).

fn main() {
    let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let root = std::path::Path::new(&manifest)
        .parent()
        .expect("tests/ has a parent folder");
    println!("cargo:rustc-env=TOOLSMITH_WORKSPACE={}", root.display());
    println!("cargo:rerun-if-changed=build.rs");
}
