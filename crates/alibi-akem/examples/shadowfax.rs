//! SHADOWFAX, the hybrid deniable AKEM, between two parties, and what deniability means in code:
//! the receiver alone can make a ciphertext that decapsulates as if the sender had made it. Then
//! DH-AKEM with an explicit key-confirmation tag, since it authenticates only implicitly.
//!
//! `cargo run --release -p alibi-akem --example shadowfax`

use alibi_akem::dh::{self, rfc9180};
use alibi_akem::pq::Suite;
use alibi_akem::{confirm, shadowfax};
use getrandom::SysRng;
use rand_core::UnwrapErr;

fn main() -> Result<(), alibi_akem::Error> {
    let mut rng = UnwrapErr(SysRng);
    for suite in [Suite::MlKem512Falcon512, Suite::MlKem768Falcon1024] {
        let alice = shadowfax::SecretKey::generate(suite, &mut rng);
        let bob = shadowfax::SecretKey::generate(suite, &mut rng);
        // Alice sends Bob a fresh key, authenticated as hers.
        let (ct, key) = shadowfax::encap(&alice, bob.public_key(), &mut rng)?;
        let received = shadowfax::decap(&bob, alice.public_key(), &ct)?;
        assert_eq!(key, received);
        // The wrong sender key: rejected.
        let eve = shadowfax::SecretKey::generate(suite, &mut rng);
        assert!(shadowfax::decap(&bob, eve.public_key(), &ct).is_err());
        // Bob alone makes one "from Alice" that decapsulates the same way: a transcript proves
        // nothing about Alice to a third party.
        let (fake_ct, fake_key) = shadowfax::fake_encap(&bob, alice.public_key(), &mut rng)?;
        assert_eq!(
            shadowfax::decap(&bob, alice.public_key(), &fake_ct)?,
            fake_key
        );
        println!(
            "{suite:?}: public key {} B, ciphertext {} B; key agreed, wrong sender rejected, Bob's forgery accepted",
            bob.public_key().to_bytes().len(),
            ct.len()
        );
    }

    // DH-AKEM (RFC 9180 AuthEncap/AuthDecap): a wrong sender key still "works", with a different
    // key; a confirmation tag makes the receiver notice at once.
    let alice = dh::SecretKey::generate(&mut rng);
    let bob = dh::SecretKey::generate(&mut rng);
    let eve = dh::SecretKey::generate(&mut rng);
    let (enc, key) = rfc9180::encap(&alice, bob.public(), &mut rng)?;
    let tag = confirm::tag(&key, &enc);
    let k_bob = rfc9180::decap(&bob, alice.public(), &enc)?;
    confirm::verify(&k_bob, &enc, &tag)?;
    let k_wrong = rfc9180::decap(&bob, eve.public(), &enc)?;
    assert_ne!(k_wrong, key);
    assert!(confirm::verify(&k_wrong, &enc, &tag).is_err());
    println!("DH-AKEM: the tag confirms Alice's key and exposes a wrong sender key");
    Ok(())
}
