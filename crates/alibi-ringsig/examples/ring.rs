//! A deniable ring signature over Falcon keys: any member signs for the ring, and the signature
//! shows that a member signed, not which one.
//!
//! `cargo run --release -p alibi-ringsig --example ring`

use alibi_falcon::{Level, SigningKey};
use alibi_ringsig::{Ring, RingSignature};
use getrandom::SysRng;
use rand_core::UnwrapErr;

fn main() -> Result<(), alibi_ringsig::Error> {
    let mut rng = UnwrapErr(SysRng);
    let members: Vec<SigningKey> = (0..3)
        .map(|_| SigningKey::generate(Level::Falcon512, &mut rng))
        .collect();
    // A ring is an ordered list of plain Falcon public keys (the order is signed).
    let keys: Vec<Vec<u8>> = members
        .iter()
        .map(|k| k.verifying_key().to_bytes())
        .collect();
    let ring = Ring::from_public_keys(&keys)?;
    let msg = b"one of us said this";
    let sig = ring.sign(&members[1].expand(), msg, &mut rng)?;
    let bytes = sig.to_bytes();
    println!(
        "{}-member Falcon-512 ring signature: {} bytes",
        ring.len(),
        bytes.len()
    );
    // A verifier decodes it against the same ring and checks it.
    let decoded = RingSignature::from_bytes(&ring, &bytes)?;
    ring.verify(msg, &decoded)?;
    assert!(ring.verify(b"nobody said this", &decoded).is_err());
    // An outsider cannot sign for the ring.
    let outsider = SigningKey::generate(Level::Falcon512, &mut rng);
    assert!(ring.sign(&outsider.expand(), msg, &mut rng).is_err());
    println!("verifies; another message does not; an outsider cannot sign");
    Ok(())
}
