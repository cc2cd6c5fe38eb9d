//! The ML-KEM-1024 (0x0A) prekeys against RustCrypto's independent `ml-kem`, both directions, and
//! the typed encodings' checks. (Kyber1024, 0x08, is checked against libsignal itself in
//! alibi-channel's interop tests.)

use alibi_identity::{KemKeyPair, KemKeyType, KemPublicKey, KemSecretKey};
use ml_kem::{
    Decapsulate, DecapsulationKey, Encapsulate, EncapsulationKey, KeyExport, MlKem1024, TryKeyInit,
};
use rand_chacha::rand_core::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;

#[test]
#[allow(deprecated)] // ml-kem 0.3 keeps the expanded FIPS 203 key encoding as a legacy form.
fn mlkem1024_agrees_with_rustcrypto() {
    let mut rng = ChaCha20Rng::from_seed([30; 32]);
    for _ in 0..10 {
        // Our key: they encapsulate, we decapsulate.
        let ours = KemKeyPair::generate(KemKeyType::MlKem1024, &mut rng);
        let enc = ours.public.serialize();
        assert_eq!(enc[0], 0x0A);
        let ek = EncapsulationKey::<MlKem1024>::new_from_slice(&enc[1..]).unwrap();
        let (ct, ss) = ek.encapsulate_with_rng(&mut rng);
        let typed: Vec<u8> = [&[0x0A][..], &ct[..]].concat();
        assert_eq!(ours.secret.decapsulate(&typed).unwrap()[..], ss[..]);

        // Their key: we encapsulate, they decapsulate.
        let mut seed = [0u8; 64];
        rng.fill_bytes(&mut seed);
        let dk = DecapsulationKey::<MlKem1024>::from_seed(seed.into());
        let ek = dk.encapsulation_key().to_bytes();
        let pk = KemPublicKey::deserialize(&[&[0x0A][..], &ek[..]].concat()).unwrap();
        let (ss, ct) = pk.encapsulate(&mut rng);
        assert_eq!(dk.decapsulate_slice(&ct[1..]).unwrap()[..], ss[..]);
        // Their secret key decodes in our typed form and decapsulates the same.
        let expanded = ml_kem::ExpandedKeyEncoding::to_expanded_bytes(&dk);
        let sk = KemSecretKey::deserialize(&[&[0x0A][..], &expanded[..]].concat()).unwrap();
        assert_eq!(sk.decapsulate(&ct).unwrap()[..], ss[..]);
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
    assert_eq!(sk.public_key(), k.public);
    let fresh = KemSecretKey::generate(KemKeyType::MlKem1024, &mut rng);
    assert_eq!(fresh.public_key().key_type(), KemKeyType::MlKem1024);
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
