//! Sign, verify, and use the open trapdoor sampler on an arbitrary target.
//!
//! `cargo run --release -p alibi-falcon --example preimage`

use alibi_falcon::{hash_to_point, Level, Signature, SigningKey, VerifyingKey};
use getrandom::SysRng;
use rand_core::UnwrapErr;

fn main() -> Result<(), alibi_falcon::Error> {
    let sk = SigningKey::generate(Level::Falcon512, &mut UnwrapErr(SysRng));
    let pk_bytes = sk.verifying_key().to_bytes();

    // Expand once (FFT basis and Falcon tree), sign many times.
    let esk = sk.expand();
    let sig_bytes = esk.sign(b"message", &mut UnwrapErr(SysRng)).to_bytes();

    let vk = VerifyingKey::from_bytes(&pk_bytes)?;
    let sig = Signature::from_bytes(&sig_bytes)?;
    vk.verify(b"message", &sig)?;
    println!("signature of {} bytes verifies", sig_bytes.len());

    // The trapdoor sampler: a short (s1, s2) with s1 + s2 h = c for a target we choose.
    let c = hash_to_point(
        b"my salt",
        b"my ring-signature transcript",
        Level::Falcon512,
    );
    let p = esk.sample_short_preimage(&c, &mut UnwrapErr(SysRng))?;
    assert_eq!(vk.recover_s1(&c, &p.s2)?, p.s1);
    println!("preimage with ||(s1, s2)||^2 = {}", p.norm_sq());
    Ok(())
}
