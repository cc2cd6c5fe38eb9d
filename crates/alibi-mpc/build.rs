//! Tells the build scripts of dependent crates whether the misbehaviour hooks are compiled in
//! (`DEP_ALIBI_MPC_ADVERSARY`), so that the CLI offers `--misbehave` exactly when they are: in
//! test builds, never in a shipped one.

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    if std::env::var_os("CARGO_FEATURE_ADVERSARY").is_some() {
        println!("cargo::metadata=adversary=1");
    }
}
