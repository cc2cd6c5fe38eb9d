//! The ML-KEM-1024 (0x0A) prekeys against RustCrypto's independent `ml-kem`, both directions, and
//! the typed encodings' checks. (Kyber1024, 0x08, is checked against libsignal itself in
//! alibi-channel's interop tests.)

use alibi_handshake::{KemKeyPair, KemKeyType, KemPublicKey, KemSecretKey};
use kem::{Decapsulate, Encapsulate};
use ml_kem::{EncodedSizeUser, KemCore, MlKem1024};
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha20Rng;

#[test]
fn mlkem1024_agrees_with_rustcrypto() {
    let mut rng = ChaCha20Rng::from_seed([30; 32]);
    for _ in 0..10 {
        // Our key: they encapsulate, we decapsulate.
        let ours = KemKeyPair::generate(KemKeyType::MlKem1024, &mut rng);
        let enc = ours.public.serialize();
        assert_eq!(enc[0], 0x0A);
        let ek = <MlKem1024 as KemCore>::EncapsulationKey::from_bytes(
            &ml_kem::Encoded::<<MlKem1024 as KemCore>::EncapsulationKey>::try_from(&enc[1..])
                .unwrap(),
        );
        let (ct, ss) = ek.encapsulate(&mut rng).unwrap();
        let typed: Vec<u8> = [&[0x0A][..], &ct[..]].concat();
        assert_eq!(ours.secret.decapsulate(&typed).unwrap()[..], ss[..]);

        // Their key: we encapsulate, they decapsulate.
        let (dk, ek) = MlKem1024::generate(&mut rng);
        let pk = KemPublicKey::deserialize(&[&[0x0A][..], &ek.as_bytes()[..]].concat()).unwrap();
        let (ss, ct) = pk.encapsulate(&mut rng);
        let ct = ml_kem::Ciphertext::<MlKem1024>::try_from(&ct[1..]).unwrap();
        assert_eq!(dk.decapsulate(&ct).unwrap()[..], ss[..]);
        // Their secret key decodes in our typed form and decapsulates the same.
        let sk = KemSecretKey::deserialize(&[&[0x0A][..], &dk.as_bytes()[..]].concat()).unwrap();
        let typed: Vec<u8> = [&[0x0A][..], &ct[..]].concat();
        assert_eq!(sk.decapsulate(&typed).unwrap()[..], ss[..]);
    }
}

#[test]
fn typed_encodings_are_checked() {
    let mut rng = ChaCha20Rng::from_seed([31; 32]);
    let k = KemKeyPair::generate(KemKeyType::Kyber1024, &mut rng);
    let enc = k.public.serialize();
    assert_eq!(enc.len(), 1569);
    assert_eq!(enc[0], 0x08);
    assert_eq!(KemPublicKey::deserialize(&enc).unwrap(), k.public);
    assert!(KemPublicKey::deserialize(&enc[..1568]).is_err());
    assert!(KemPublicKey::deserialize(&[]).is_err());
    let mut bad = enc.clone();
    bad[0] = 0x07;
    assert!(KemPublicKey::deserialize(&bad).is_err());
    // A coefficient >= q fails the modulus check.
    let mut bad = enc.clone();
    bad[1] = 0xFF;
    bad[2] |= 0x0F;
    assert!(KemPublicKey::deserialize(&bad).is_err());
    // A Kyber ciphertext is refused by an ML-KEM key and vice versa.
    let (_, ct) = k.public.encapsulate(&mut rng);
    let m = KemKeyPair::generate(KemKeyType::MlKem1024, &mut rng);
    assert!(m.secret.decapsulate(&ct).is_err());
    // The secret key round-trips through its typed encoding.
    let (ss, ct) = k.public.encapsulate(&mut rng);
    assert_eq!(k.secret.decapsulate(&ct).unwrap()[..], ss[..]);
    let sk = KemSecretKey::deserialize(&k.secret.serialize()).unwrap();
    assert_eq!(sk.decapsulate(&ct).unwrap()[..], ss[..]);
}

#[test]
fn kyber_round3_is_not_mlkem() {
    // From the same 64 random bytes, round-3 Kyber and FIPS 203 ML-KEM give different keys
    // (FIPS 203 adds the parameter k to the seed expansion), so 0x08 really is pre-standard Kyber.
    let k = KemKeyPair::generate(KemKeyType::Kyber1024, &mut ChaCha20Rng::from_seed([32; 32]));
    let m = KemKeyPair::generate(KemKeyType::MlKem1024, &mut ChaCha20Rng::from_seed([32; 32]));
    assert_ne!(k.public.serialize()[1..], m.public.serialize()[1..]);
}
