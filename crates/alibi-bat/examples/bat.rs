//! BAT-257 in a few lines: a key pair, an encapsulation, its decapsulation, the encodings, a
//! tampered ciphertext (implicitly rejected), and the 48- and 64-byte secrets the SHADOWFAX
//! artifact's AKEMs ask for.
//!
//! `cargo run --release -p alibi-bat --example bat`

use alibi_bat::{
    decapsulate, decapsulate_into, encapsulate, encapsulate_into, PublicKey, SecretKey,
};
use getrandom::SysRng;
use rand_core::UnwrapErr;
use std::time::Instant;

fn main() -> Result<(), alibi_bat::Error> {
    let mut rng = UnwrapErr(SysRng);

    let t = Instant::now();
    let sk = SecretKey::generate(&mut rng);
    let keygen = t.elapsed();
    // The receiver publishes 521 bytes.
    let pk = PublicKey::from_bytes(&sk.public_key().to_bytes())?;

    // The sender encapsulates: 473 bytes on the wire, a 32-byte secret kept.
    let (ct, key) = encapsulate(&pk, &mut rng)?;
    let t = Instant::now();
    let received = decapsulate(&sk, &ct)?;
    let decap = t.elapsed();
    assert_eq!(received, key);

    // A flipped bit: still a secret, but an unrelated one (implicit rejection).
    let mut tampered = ct.clone();
    tampered[200] ^= 0x10;
    assert_ne!(decapsulate(&sk, &tampered)?, key);

    // The secret key survives both encodings.
    let restored = SecretKey::from_bytes(&sk.to_bytes())?;
    let from_short = SecretKey::from_bytes(&sk.to_short_bytes())?;
    assert_eq!(decapsulate(&restored, &ct)?, key);
    assert_eq!(decapsulate(&from_short, &ct)?, key);

    // PQ-AKEM takes 48 bytes of KEM secret, SHADOWFAX 64.
    for len in [48, 64] {
        let mut sent = vec![0u8; len];
        let ct = encapsulate_into(&pk, &mut rng, &mut sent)?;
        let mut got = vec![0u8; len];
        decapsulate_into(&sk, &ct, &mut got)?;
        assert_eq!(sent, got);
    }

    println!(
        "BAT-257: public key {} B, ciphertext {} B, secret key {} B (short {} B)",
        pk.to_bytes().len(),
        ct.len(),
        sk.to_bytes().len(),
        sk.to_short_bytes().len()
    );
    println!("key generation {keygen:?}, decapsulation {decap:?}; tampered ciphertext rejected");
    Ok(())
}
