//! Interoperability with PQClean's Falcon through pqcrypto-falcon, at both levels, over several
//! key pairs made by each side: signatures in both directions, and secret and public keys in both
//! directions.

use alibi_falcon::{Level, Signature, SigningKey, VerifyingKey};
use pqcrypto_traits::sign::{DetachedSignature as _, PublicKey as _, SecretKey as _};
use rand_chacha::ChaCha20Rng;
use rand_core::{Rng, SeedableRng};

const MESSAGES: usize = 200;

/// Key pairs made by each side; the messages are shared among them.
const KEY_PAIRS: usize = 4;

macro_rules! interop {
    ($name:ident, $m:ident, $level:expr) => {
        #[test]
        fn $name() {
            use pqcrypto_falcon::$m as pq;
            let level: Level = $level;
            let mut rng = ChaCha20Rng::seed_from_u64(level.logn() as u64);
            let msgs: Vec<Vec<u8>> = (0..MESSAGES)
                .map(|i| {
                    let mut m = vec![0u8; i % 97];
                    rng.fill_bytes(&mut m);
                    m
                })
                .collect();

            for pair in 0..KEY_PAIRS {
                // Their key pair: both halves decode under ours and round-trip byte for byte.
                let (pq_pk, pq_sk) = pq::keypair();
                assert_eq!(pq_pk.as_bytes().len(), level.public_key_len());
                assert_eq!(pq_sk.as_bytes().len(), level.secret_key_len());
                let their_vk = VerifyingKey::from_bytes(pq_pk.as_bytes()).unwrap();
                assert_eq!(their_vk.to_bytes(), pq_pk.as_bytes());
                let their_sk = SigningKey::from_bytes(pq_sk.as_bytes()).unwrap();
                assert_eq!(&their_sk.to_bytes()[..], pq_sk.as_bytes());
                assert_eq!(their_sk.verifying_key(), &their_vk);
                // The public key made on first use by an expansion of a fresh decoding too.
                let fresh = SigningKey::from_bytes(pq_sk.as_bytes()).unwrap().expand();
                assert_eq!(fresh.verifying_key(), &their_vk);
                let their_esk = their_sk.expand();

                // Our key pair, encoded, loads into theirs.
                let ours = SigningKey::generate(level, &mut rng);
                let our_vk = ours.verifying_key();
                let our_pk_pq = pq::PublicKey::from_bytes(&our_vk.to_bytes()).unwrap();
                let our_sk_pq = pq::SecretKey::from_bytes(&ours.to_bytes()).unwrap();
                let our_esk = ours.expand();

                for m in msgs.iter().skip(pair).step_by(KEY_PAIRS) {
                    // Their signatures verify under ours, and re-encode identically.
                    let s = pq::detached_sign(m, &pq_sk);
                    let sig = Signature::from_bytes(s.as_bytes()).unwrap();
                    assert_eq!(sig.to_bytes(), s.as_bytes());
                    assert_eq!(their_vk.verify(m, &sig), Ok(()));
                    assert!(their_vk.verify(b"not the message", &sig).is_err());

                    // Our signatures (with their secret key, decoded by us) verify under theirs.
                    let ours_sig = their_esk.sign(m, &mut rng).to_bytes();
                    let d = pq::DetachedSignature::from_bytes(&ours_sig).unwrap();
                    assert!(pq::verify_detached_signature(&d, m, &pq_pk).is_ok());

                    // Our key: our signatures verify under theirs, and theirs made with our key under ours.
                    let ours_sig = our_esk.sign(m, &mut rng).to_bytes();
                    let d = pq::DetachedSignature::from_bytes(&ours_sig).unwrap();
                    assert!(pq::verify_detached_signature(&d, m, &our_pk_pq).is_ok());
                    let s = pq::detached_sign(m, &our_sk_pq);
                    let sig = Signature::from_bytes(s.as_bytes()).unwrap();
                    assert_eq!(our_vk.verify(m, &sig), Ok(()));
                    assert!(pq::verify_detached_signature(&s, m, &our_pk_pq).is_ok());
                }

                // A corrupted signature fails under both.
                let mut bad = our_esk.sign(b"x", &mut rng).to_bytes();
                bad[10] ^= 1;
                let d = pq::DetachedSignature::from_bytes(&bad).unwrap();
                assert!(pq::verify_detached_signature(&d, b"x", &our_pk_pq).is_err());
                let sig = Signature::from_bytes(&bad).unwrap();
                assert!(our_vk.verify(b"x", &sig).is_err());
            }
        }
    };
}

interop!(falcon512_interop, falcon512, Level::Falcon512);
interop!(falcon1024_interop, falcon1024, Level::Falcon1024);
