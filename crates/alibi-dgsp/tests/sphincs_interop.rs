//! Our SPHINCS+-SHAKE against PQClean's (pqcrypto-sphincsplus): the same public key from the same
//! seeds, and signatures accepted in both directions, for all six SHAKE sets.

use alibi_dgsp::sphincs::{self, SpxParams};
use pqcrypto_traits::sign::{DetachedSignature, PublicKey, SecretKey};
use rand_chacha::rand_core::{Rng, SeedableRng};

macro_rules! interop {
    ($name:ident, $m:ident, $params:expr, $messages:expr) => {
        #[test]
        fn $name() {
            use pqcrypto_sphincsplus::$m as theirs;
            let p: SpxParams = $params;
            let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(0x5c5c);
            let (their_pk, their_sk) = theirs::keypair();
            assert_eq!(p.signature_len(), theirs::signature_bytes());
            assert_eq!(p.secret_key_len(), theirs::secret_key_bytes());
            // Key generation: PQClean's secret key is SK.seed || SK.prf || PK.seed || PK.root.
            let (pk, sk) = sphincs::keypair_from_seed(&p, &their_sk.as_bytes()[..3 * p.n]).unwrap();
            // Wrong lengths are refused, not a panic.
            assert!(sphincs::keypair_from_seed(&p, &[0u8; 5]).is_none());
            assert!(sphincs::sign(&p, b"m", &sk[1..], &vec![0u8; p.n]).is_none());
            assert!(sphincs::sign(&p, b"m", &sk, &[0u8; 3]).is_none());
            assert_eq!(pk, their_pk.as_bytes());
            assert_eq!(&sk[..], their_sk.as_bytes());
            for i in 0..$messages {
                let mut msg = vec![0u8; 1 + i * 37];
                rng.fill_bytes(&mut msg);
                let mut optrand = vec![0u8; p.n];
                rng.fill_bytes(&mut optrand);
                // Ours, checked by PQClean.
                let sig = sphincs::sign(&p, &msg, &sk, &optrand).unwrap();
                let their_sig = theirs::DetachedSignature::from_bytes(&sig).unwrap();
                assert!(theirs::verify_detached_signature(&their_sig, &msg, &their_pk).is_ok());
                assert!(sphincs::verify(&p, &msg, &sig, &pk).is_ok());
                // PQClean's, checked by ours.
                let sig2 = theirs::detached_sign(&msg, &their_sk);
                assert!(sphincs::verify(&p, &msg, sig2.as_bytes(), &pk).is_ok());
                // Rejections: another message, a flipped bit anywhere, wrong lengths.
                let mut other = msg.clone();
                other[0] ^= 1;
                assert!(sphincs::verify(&p, &other, &sig, &pk).is_err());
                let mut bad = sig.clone();
                let at = (rng.next_u32() as usize) % bad.len();
                bad[at] ^= 1 << (rng.next_u32() % 8);
                assert!(sphincs::verify(&p, &msg, &bad, &pk).is_err());
                assert!(sphincs::verify(&p, &msg, &sig[1..], &pk).is_err());
                assert!(sphincs::verify(&p, &msg, &sig, &pk[1..]).is_err());
                let mut bad_pk = pk.clone();
                bad_pk[p.n] ^= 0x80;
                assert!(sphincs::verify(&p, &msg, &sig, &bad_pk).is_err());
            }
        }
    };
}

interop!(shake_128f, sphincsshake128fsimple, sphincs::SHAKE_128F, 8);
interop!(shake_128s, sphincsshake128ssimple, sphincs::SHAKE_128S, 2);
interop!(shake_192f, sphincsshake192fsimple, sphincs::SHAKE_192F, 8);
interop!(shake_192s, sphincsshake192ssimple, sphincs::SHAKE_192S, 2);
interop!(shake_256f, sphincsshake256fsimple, sphincs::SHAKE_256F, 8);
interop!(shake_256s, sphincsshake256ssimple, sphincs::SHAKE_256S, 2);
