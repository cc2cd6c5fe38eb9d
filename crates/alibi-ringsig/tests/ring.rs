//! Ring signatures at both levels and several ring sizes: correctness, rejection of every kind of
//! mismatch, typed errors, and the deniability statistics.

use alibi_falcon::{Level, SigningKey, VerifyingKey};
use alibi_ringsig::{bound, signature_len, Error, Ring, RingSignature};
use proptest::prelude::*;
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use std::sync::OnceLock;

fn keys(level: Level, count: usize, seed: u64) -> Vec<SigningKey> {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    (0..count)
        .map(|_| SigningKey::generate(level, &mut rng))
        .collect()
}

fn ring_of(keys: &[SigningKey]) -> Ring {
    Ring::new(keys.iter().map(|k| k.verifying_key().clone()).collect()).unwrap()
}

#[test]
fn every_member_signs_at_both_levels_and_several_sizes() {
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    for (level, sizes) in [
        (Level::Falcon512, vec![2, 3, 5, 8]),
        (Level::Falcon1024, vec![2, 4]),
    ] {
        let ks = keys(level, 8, level.logn() as u64);
        for &n in &sizes {
            let ring = ring_of(&ks[..n]);
            assert_eq!(ring.signature_len(), signature_len(level, n));
            for (j, k) in ks[..n].iter().enumerate() {
                let msg = format!("member {j} of {n}");
                let sig = ring.sign(&k.expand(), msg.as_bytes(), &mut rng).unwrap();
                let bytes = sig.to_bytes();
                assert_eq!(bytes.len(), ring.signature_len());
                let back = RingSignature::from_bytes(&ring, &bytes).unwrap();
                assert_eq!(back, sig);
                assert_eq!(ring.verify(msg.as_bytes(), &back), Ok(()));
                assert_eq!(ring.verify(b"other", &back), Err(Error::InvalidSignature));
            }
        }
    }
    assert_eq!(bound(Level::Falcon512, 2), 62_798_289);
}

#[test]
fn sixty_four_members() {
    let mut rng = ChaCha20Rng::seed_from_u64(2);
    let ks = keys(Level::Falcon512, 64, 64);
    let ring = ring_of(&ks);
    let sig = ring.sign(&ks[37].expand(), b"big ring", &mut rng).unwrap();
    assert_eq!(sig.to_bytes().len(), 64 * 626 + 24);
    assert!(ring.verify(b"big ring", &sig).is_ok());
}

#[test]
fn wrong_ring_member_order_or_tampering_is_rejected() {
    let mut rng = ChaCha20Rng::seed_from_u64(3);
    let ks = keys(Level::Falcon512, 4, 9);
    let ring = ring_of(&ks[..3]);
    let sig = ring.sign(&ks[1].expand(), b"m", &mut rng).unwrap();
    let bytes = sig.to_bytes();
    // Reordered members.
    let swapped = Ring::new(vec![
        ks[1].verifying_key().clone(),
        ks[0].verifying_key().clone(),
        ks[2].verifying_key().clone(),
    ])
    .unwrap();
    let s = RingSignature::from_bytes(&swapped, &bytes).unwrap();
    assert!(swapped.verify(b"m", &s).is_err());
    // A substituted member (the signer's place, or another's).
    for pos in 0..3 {
        let mut m: Vec<VerifyingKey> = ring.members().to_vec();
        m[pos] = ks[3].verifying_key().clone();
        let other = Ring::new(m).unwrap();
        let s = RingSignature::from_bytes(&other, &bytes).unwrap();
        assert!(other.verify(b"m", &s).is_err(), "substituted member {pos}");
    }
    // A ring of another size: wrong length.
    let two = ring_of(&ks[..2]);
    assert!(matches!(
        RingSignature::from_bytes(&two, &bytes),
        Err(Error::Length(_))
    ));
    // Flipped salt bit, flipped body bits.
    let mut t = bytes.clone();
    *t.last_mut().unwrap() ^= 1;
    assert!(ring
        .verify(b"m", &RingSignature::from_bytes(&ring, &t).unwrap())
        .is_err());
    for i in [0usize, 5, 300, 700, 1300] {
        let mut t = bytes.clone();
        t[i] ^= 0x10;
        if let Ok(s) = RingSignature::from_bytes(&ring, &t) {
            assert!(ring.verify(b"m", &s).is_err(), "byte {i}");
        }
    }
}

#[test]
fn out_of_bound_norms_are_rejected() {
    // Large but well-formed parts: every coefficient 400 compresses (4 bits of unary each, 12 bits
    // per coefficient = 768 bytes > 626), so use 100s: 512 * 100^2 * 2 = 10.2M per part; with a v
    // that is essentially uniform mod q the total far exceeds the bound.
    let ks = keys(Level::Falcon512, 2, 21);
    let ring = ring_of(&ks);
    let u = vec![100i16; 512];
    let mut bytes = Vec::new();
    for _ in 0..2 {
        bytes.extend(alibi_falcon::compress_padded(&u, 626).unwrap());
    }
    bytes.extend([7u8; 24]);
    let sig = RingSignature::from_bytes(&ring, &bytes).unwrap();
    assert_eq!(ring.verify(b"m", &sig), Err(Error::InvalidSignature));
    // All-zero parts: v = c is uniform mod q, so ||v||^2 ~ n q^2 / 12 >> bound.
    let zero = alibi_falcon::compress_padded(&[0; 512], 626).unwrap();
    let mut bytes = zero.clone();
    bytes.extend(&zero);
    bytes.extend([0u8; 24]);
    let sig = RingSignature::from_bytes(&ring, &bytes).unwrap();
    assert_eq!(ring.verify(b"m", &sig), Err(Error::InvalidSignature));
}

#[test]
fn malformed_rings_have_typed_errors() {
    let ks = keys(Level::Falcon512, 2, 31);
    let k1024 = keys(Level::Falcon1024, 1, 32);
    let a = ks[0].verifying_key();
    assert_eq!(Ring::new(vec![a.clone()]), Err(Error::RingTooSmall(1)));
    assert_eq!(
        Ring::new(vec![a.clone(), a.clone()]),
        Err(Error::DuplicateMember(1))
    );
    assert_eq!(
        Ring::new(vec![a.clone(), k1024[0].verifying_key().clone()]),
        Err(Error::MixedLevels)
    );
    assert!(matches!(
        Ring::from_public_keys(&[a.to_bytes(), vec![0x09, 1, 2]]),
        Err(Error::Falcon(_))
    ));
    let ring = ring_of(&ks);
    let mut rng = ChaCha20Rng::seed_from_u64(0);
    let outsider = keys(Level::Falcon512, 1, 99);
    assert_eq!(
        ring.sign(&outsider[0].expand(), b"m", &mut rng)
            .unwrap_err(),
        Error::SignerNotInRing
    );
}

/// Deniability, measured: across many signatures by member 0, the signer's part u_0 and the
/// non-signer's part u_1 must have the same norm distribution. Both concentrate at n sigma^2 with a
/// relative spread of sqrt(2 / n) per signature; we compare means (Welch) and spreads.
#[test]
fn signer_and_non_signer_parts_have_the_same_norms() {
    let mut rng = ChaCha20Rng::seed_from_u64(77);
    let ks = keys(Level::Falcon512, 2, 41);
    let ring = ring_of(&ks);
    let esk = ks[0].expand();
    let k = 400;
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for i in 0..k {
        let sig = ring
            .sign(&esk, &(i as u32).to_le_bytes(), &mut rng)
            .unwrap();
        let n2 = |u: &[i16]| u.iter().map(|&x| (x as f64) * (x as f64)).sum::<f64>();
        a.push(n2(&sig.parts()[0]));
        b.push(n2(&sig.parts()[1]));
    }
    let stats = |v: &[f64]| {
        let m = v.iter().sum::<f64>() / v.len() as f64;
        let var = v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (v.len() - 1) as f64;
        (m, var)
    };
    let ((ma, va), (mb, vb)) = (stats(&a), stats(&b));
    let t = (ma - mb) / (va / k as f64 + vb / k as f64).sqrt();
    assert!(t.abs() < 4.0, "means {ma} vs {mb}, Welch t = {t}");
    let expect = 512.0 * Level::Falcon512.sigma().powi(2);
    assert!(
        (mb / expect - 1.0).abs() < 0.01,
        "non-signer mean {mb} vs {expect}"
    );
    assert!((va / vb - 1.0).abs() < 0.35, "variances {va} vs {vb}");
}

fn fixture() -> &'static (Ring, Vec<u8>) {
    static F: OnceLock<(Ring, Vec<u8>)> = OnceLock::new();
    F.get_or_init(|| {
        let ks = keys(Level::Falcon512, 2, 51);
        let ring = ring_of(&ks);
        let mut rng = ChaCha20Rng::seed_from_u64(52);
        let sig = ring
            .sign(&ks[0].expand(), b"fixture", &mut rng)
            .unwrap()
            .to_bytes();
        (ring, sig)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Hostile bytes: typed errors, no panic; accepted encodings are canonical.
    #[test]
    fn decoder_is_strict(data in proptest::collection::vec(any::<u8>(), 1276..=1276), cut in 0usize..3) {
        let (ring, _) = fixture();
        let d = &data[..data.len() - cut];
        if let Ok(s) = RingSignature::from_bytes(ring, d) {
            prop_assert_eq!(s.to_bytes(), d.to_vec());
            let _ = ring.verify(b"x", &s);
        }
    }

    #[test]
    fn mutations_never_verify(i in 0usize..1276, x in 1u8..) {
        let (ring, sig) = fixture();
        let mut t = sig.clone();
        t[i] ^= x;
        if let Ok(s) = RingSignature::from_bytes(ring, &t) {
            prop_assert!(ring.verify(b"fixture", &s).is_err());
        }
    }
}

/// `verify_encoded` (the decapsulation's uniform-work check) agrees with `from_bytes` then
/// `verify` on the signature, on every single-byte change of it, and on wrong lengths.
#[test]
fn verify_encoded_agrees_with_decoding_then_verifying() {
    let mut rng = ChaCha20Rng::seed_from_u64(11);
    let ks = keys(Level::Falcon512, 2, 11);
    let ring = ring_of(&ks);
    let good = ring
        .sign(&ks[1].expand(), b"m", &mut rng)
        .unwrap()
        .to_bytes();
    let separate = |b: &[u8]| {
        RingSignature::from_bytes(&ring, b)
            .map_err(|_| ())
            .and_then(|s| ring.verify(b"m", &s).map_err(|_| ()))
    };
    assert_eq!(ring.verify_encoded(b"m", &good), Ok(()));
    assert_eq!(
        ring.verify_encoded(b"other", &good),
        Err(Error::InvalidSignature)
    );
    let mut refused = 0;
    for i in (0..good.len()).step_by(7) {
        let mut b = good.clone();
        b[i] ^= 0x40;
        let got = ring.verify_encoded(b"m", &b);
        assert_eq!(got.is_ok(), separate(&b).is_ok(), "byte {i}");
        refused += usize::from(got.is_err());
    }
    assert!(refused > 0);
    assert!(ring.verify_encoded(b"m", &good[1..]).is_err());
}
