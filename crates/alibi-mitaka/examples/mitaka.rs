//! Antrag keys, the Mitaka preimage sampler and plain Mitaka signatures, end to end:
//!
//!   cargo run --release -p alibi-mitaka --example mitaka

use alibi_mitaka::{Signature, SigningKey, VerifyingKey, N, Q};

fn main() -> Result<(), alibi_mitaka::Error> {
    let mut rng = rand_core::UnwrapErr(getrandom::SysRng);
    let sk = SigningKey::generate(&mut rng);
    println!(
        "Antrag key: quality alpha = {:.4} (at most {}), secret key {} bytes, public key {} bytes",
        sk.quality(),
        alibi_mitaka::ALPHA,
        sk.to_bytes().len(),
        sk.verifying_key().to_bytes().len()
    );

    // The open sampler: a short (s1, s2) with s1 + s2 h = c for an arbitrary target c.
    let c: Vec<u16> = (0..N).map(|i| ((i * 7919) % Q as usize) as u16).collect();
    let p = sk.expand().sample_preimage(&c, &mut rng)?;
    println!(
        "preimage of a fixed target: ||(s1, s2)|| = {:.0}, sigma sqrt(2n) = {:.0}",
        (p.norm_sq() as f64).sqrt(),
        alibi_mitaka::sigma() * (2.0 * N as f64).sqrt()
    );

    // A plain signature through the encodings.
    let vk = VerifyingKey::from_bytes(&sk.verifying_key().to_bytes())?;
    let sig = Signature::from_bytes(&sk.sign(b"hello", &mut rng).to_bytes())?;
    vk.verify(b"hello", &sig)?;
    println!("Mitaka signature ({} bytes) verifies", sig.to_bytes().len());
    assert!(vk.verify(b"hullo", &sig).is_err());
    Ok(())
}
