//! Sign/verify round trips, key encodings, and the open preimage sampler, at both levels.

use alibi_falcon::{hash_to_point, is_short, Error, Level, Signature, SigningKey, VerifyingKey, Q};
use rand_chacha::ChaCha20Rng;
use rand_core::{Rng, SeedableRng};

#[test]
fn sign_verify_and_encodings() {
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    for level in Level::ALL {
        let sk = SigningKey::generate(level, &mut rng);
        let (lo, hi) = sk.expand().leaf_sigma_range();
        assert!(lo >= level.sigma_min() && hi <= 1.8205, "{lo} {hi}");
        let skb = sk.to_bytes();
        assert_eq!(skb.len(), level.secret_key_len());
        let sk2 = SigningKey::from_bytes(&skb).unwrap();
        assert_eq!(sk2.to_bytes(), skb);
        let vk = sk.verifying_key();
        let vkb = vk.to_bytes();
        assert_eq!(vkb.len(), level.public_key_len());
        assert_eq!(VerifyingKey::from_bytes(&vkb).unwrap(), *vk);
        let esk = sk2.expand();
        for i in 0..50u32 {
            let msg = i.to_le_bytes();
            let sig = esk.sign(&msg, &mut rng);
            let b = sig.to_bytes();
            assert!(b.len() <= level.sig_max_len());
            let sig2 = Signature::from_bytes(&b).unwrap();
            assert_eq!(sig2, sig);
            assert_eq!(vk.verify(&msg, &sig2), Ok(()));
            assert_eq!(vk.verify(b"other", &sig2), Err(Error::InvalidSignature));
        }
    }
}

#[test]
fn preimages_hit_any_target() {
    let mut rng = ChaCha20Rng::seed_from_u64(2);
    for level in Level::ALL {
        let sk = SigningKey::generate(level, &mut rng);
        let esk = sk.expand();
        let vk = sk.verifying_key();
        for _ in 0..20 {
            let c: Vec<u16> = (0..level.n())
                .map(|_| (rng.next_u32() % Q) as u16)
                .collect();
            let p = esk.sample_short_preimage(&c, &mut rng).unwrap();
            assert!(is_short(level, &p.s1, &p.s2));
            assert_eq!(vk.recover_s1(&c, &p.s2).unwrap(), p.s1);
            // A single draw is short with overwhelming probability, and still a preimage.
            let p = esk.sample_preimage(&c, &mut rng).unwrap();
            assert_eq!(vk.recover_s1(&c, &p.s2).unwrap(), p.s1);
        }
        assert_eq!(
            esk.sample_preimage(&[0; 8], &mut rng),
            Err(Error::LevelMismatch)
        );
        let c = hash_to_point(b"salt", b"msg", level);
        assert!(c.iter().all(|&x| (x as u32) < Q));
    }
}

/// The signature distribution: E||(s1, s2)||^2 = 2 n sigma^2 for a Gaussian of parameter sigma over
/// the lattice. A wrong sigma, a broken tree or a biased SamplerZ moves the mean by far more than 2%.
#[test]
fn signature_norms_match_the_gaussian() {
    let mut rng = ChaCha20Rng::seed_from_u64(3);
    for level in Level::ALL {
        let esk = SigningKey::generate(level, &mut rng).expand();
        let k = 200;
        let c = hash_to_point(b"s", b"m", level);
        let mean = (0..k)
            .map(|_| esk.sample_preimage(&c, &mut rng).unwrap().norm_sq() as f64)
            .sum::<f64>()
            / k as f64;
        let want = 2.0 * level.n() as f64 * level.sigma() * level.sigma();
        assert!(
            (mean / want - 1.0).abs() < 0.02,
            "{level}: mean {mean}, expected {want}"
        );
    }
}
