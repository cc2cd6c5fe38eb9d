//! TACHYON at every parameter set: sign/verify, encodings, rejection of tampering, the
//! pre-computation variant, typed errors, and the distribution of s.

use alibi_tachyon::{Error, Level, Signature, SigningKey, VerifyingKey, INPUT};
use proptest::prelude::*;
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use std::sync::OnceLock;

#[test]
fn every_level_signs_and_verifies() {
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    for level in Level::ALL {
        let sk = SigningKey::generate(level, &mut rng);
        let vk = sk.verifying_key();
        let vkb = vk.to_bytes();
        assert_eq!(vkb.len(), level.public_key_len());
        let vk2 = VerifyingKey::from_bytes(&vkb).unwrap();
        assert_eq!(&vk2, vk);
        let sk2 = SigningKey::from_bytes(&sk.to_bytes()).unwrap();
        assert_eq!(sk2.verifying_key(), vk);
        assert_eq!(sk2.precomputation_len(), 0);
        let pre = sk2.with_precomputation();
        // Every x_i, mu * N = 2,048 bits each (the paper's 256 to 768 KB).
        assert_eq!(pre.precomputation_len(), 256 * level.t());
        for i in 0..10u32 {
            let msg = i.to_le_bytes();
            for signer in [&sk, &pre] {
                let sig = signer.sign(&msg, &mut rng);
                let b = sig.to_bytes();
                assert_eq!(b.len(), level.signature_len());
                let back = Signature::from_bytes(level, &b).unwrap();
                assert_eq!(back, sig);
                assert_eq!(vk2.verify(&msg, &back), Ok(()));
                assert_eq!(vk2.verify(b"other", &back), Err(Error::InvalidSignature));
            }
        }
    }
    assert_eq!(Level::T128.signature_len(), 4160);
    assert_eq!(Level::T192.signature_len(), 4416);
    assert_eq!(Level::T256.signature_len(), 4416);
    assert_eq!(Level::T128.public_key_len(), 1 + 32 + 884_736);
}

#[test]
fn another_key_or_level_does_not_verify() {
    let mut rng = ChaCha20Rng::seed_from_u64(2);
    let sk = SigningKey::generate(Level::T128, &mut rng);
    let other = SigningKey::generate(Level::T128, &mut rng)
        .verifying_key()
        .clone();
    let sig = sk.sign(b"m", &mut rng);
    assert!(other.verify(b"m", &sig).is_err());
    let vk192 = SigningKey::generate(Level::T192, &mut rng)
        .verifying_key()
        .clone();
    assert!(vk192.verify(b"m", &sig).is_err());
}

/// s = r' + sum of k binary vectors must look like a uniform vector on [k, xi - k): its mean and
/// spread match, so it does not reveal which coefficients the x_i set.
#[test]
fn accepted_s_is_uniform_on_the_window() {
    let mut rng = ChaCha20Rng::seed_from_u64(3);
    let level = Level::T128;
    let sk = SigningKey::generate(level, &mut rng);
    let (k, xi) = (level.k() as f64, level.xi() as f64);
    let mut sum = 0.0;
    let mut sq = 0.0;
    let mut n = 0.0;
    for i in 0..20u32 {
        let b = sk.sign(&i.to_le_bytes(), &mut rng).to_bytes();
        for w in b[..INPUT * 2].chunks_exact(2) {
            let v = u16::from_be_bytes([w[0], w[1]]) as f64;
            assert!(v >= k && v < xi - k);
            sum += v;
            sq += v * v;
            n += 1.0;
        }
    }
    let mean = sum / n;
    let var = sq / n - mean * mean;
    let width = xi - 2.0 * k;
    assert!(
        (mean - (k + width / 2.0)).abs() < width * 0.01,
        "mean {mean}"
    );
    assert!(
        (var / (width * width / 12.0) - 1.0).abs() < 0.03,
        "var {var}"
    );
}

fn fixture() -> &'static (VerifyingKey, Vec<u8>) {
    static F: OnceLock<(VerifyingKey, Vec<u8>)> = OnceLock::new();
    F.get_or_init(|| {
        let mut rng = ChaCha20Rng::seed_from_u64(4);
        let sk = SigningKey::generate(Level::T128, &mut rng);
        let vk = sk.verifying_key().clone();
        let sig = sk.sign(b"fixture", &mut rng).to_bytes();
        (vk, sig)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn tampered_signatures_fail(i in 0usize..4160, x in 1u8..) {
        let (vk, sig) = fixture();
        let mut t = sig.clone();
        t[i] ^= x;
        let s = Signature::from_bytes(Level::T128, &t).unwrap();
        prop_assert!(vk.verify(b"fixture", &s).is_err());
    }

    /// Every decoder on valid encodings of every level with bytes changed and cut short (random
    /// bytes of random length almost never get past the length check): a typed error or a value,
    /// never a panic; what decodes is verified without panicking too.
    #[test]
    fn decoders_never_panic(
        lvl in 0usize..4,
        which in 0usize..3,
        changes in proptest::collection::vec((any::<usize>(), any::<u8>()), 0..6),
        cut in proptest::option::weighted(0.2, any::<usize>()),
    ) {
        let (level, vk, sk, sig) = &encodings()[lvl];
        let mut b = [&vk[..], &sk[..], &sig[..]][which].to_vec();
        for (i, v) in changes {
            let n = b.len();
            // Headers and the first coefficients, where the decoders branch, half the time.
            let at = if i % 2 == 0 { (i / 2) % n.min(64) } else { (i / 2) % n };
            b[at] = v;
        }
        if let Some(c) = cut {
            b.truncate(c % (b.len() + 1));
        }
        let key = VerifyingKey::from_bytes(&b);
        let _ = SigningKey::from_bytes(&b).map(|k| k.verifying_key().clone());
        for l in Level::ALL {
            let _ = Signature::from_bytes(l, &b);
        }
        if let Ok(s) = Signature::from_bytes(*level, &b) {
            let vk = VerifyingKey::from_bytes(vk).unwrap();
            let _ = vk.verify(b"fixture", &s);
        }
        if let Ok(k) = key {
            let s = Signature::from_bytes(*level, sig).unwrap();
            let _ = k.verify(b"fixture", &s);
        }
    }
}

/// Per level: a public key, a secret key and a signature, encoded.
#[allow(clippy::type_complexity)]
fn encodings() -> &'static Vec<(Level, Vec<u8>, Vec<u8>, Vec<u8>)> {
    static E: OnceLock<Vec<(Level, Vec<u8>, Vec<u8>, Vec<u8>)>> = OnceLock::new();
    E.get_or_init(|| {
        let mut rng = ChaCha20Rng::seed_from_u64(11);
        Level::ALL
            .iter()
            .map(|&level| {
                let sk = SigningKey::generate(level, &mut rng);
                let sig = sk.sign(b"fixture", &mut rng);
                (
                    level,
                    sk.verifying_key().to_bytes(),
                    sk.to_bytes().to_vec(),
                    sig.to_bytes(),
                )
            })
            .collect()
    })
}

#[test]
fn malformed_inputs_have_typed_errors() {
    let (vk, sig) = fixture();
    let mut b = vk.to_bytes();
    assert_eq!(
        VerifyingKey::from_bytes(&b[..100]).unwrap_err(),
        Error::Length(alibi_encoding::LengthError {
            what: "TACHYON public key",
            expected: b.len(),
            got: 100
        })
    );
    b[0] = 0x99;
    assert_eq!(
        VerifyingKey::from_bytes(&b).unwrap_err(),
        Error::Header(0x99)
    );
    let mut b = vk.to_bytes();
    b[33] = 0xff; // first y coefficient >= 2^26: its top bits set
    b[34] = 0xff;
    b[35] = 0xff;
    b[36] = 0xff;
    assert_eq!(
        VerifyingKey::from_bytes(&b).unwrap_err(),
        Error::CoefficientRange
    );
    assert!(matches!(
        Signature::from_bytes(Level::T128, &sig[1..]),
        Err(Error::Length(_))
    ));
    assert!(matches!(
        SigningKey::from_bytes(&[0x71, 1, 2]),
        Err(Error::Length(_))
    ));
}
