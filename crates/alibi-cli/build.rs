//! `cfg(adversary)` when alibi-mpc was built with its misbehaviour hooks (its feature
//! `adversary`, which this crate's tests turn on): only then does `alibi mpc keygen` take
//! `--misbehave`.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(adversary)");
    println!("cargo::rerun-if-env-changed=DEP_ALIBI_MPC_ADVERSARY");
    if std::env::var_os("DEP_ALIBI_MPC_ADVERSARY").is_some() {
        println!("cargo::rustc-cfg=adversary");
    }
}
