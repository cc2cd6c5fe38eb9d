//! Keys of the SHADOWFAX artifact's GANDALF[Antrag, Mitaka] (vectors/shadowfax-artifact-bat-mitaka,
//! gandalf_mitaka.jsonl): each member's secret key decodes, has Antrag quality, derives the public
//! key the artifact printed, re-encodes to the same bytes, and samples preimages of the right width.

use alibi_mitaka::{sigma, SigningKey, ALPHA, N, Q};
use rand_core::SeedableRng;

fn lines() -> Vec<serde_json::Value> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../vectors/shadowfax-artifact-bat-mitaka/gandalf_mitaka.jsonl"
    );
    std::fs::read_to_string(path)
        .expect("vector file")
        .lines()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect()
}

fn field(v: &serde_json::Value, k: &str) -> Vec<u8> {
    hex::decode(v[k].as_str().expect("hex field")).expect("hex")
}

#[test]
fn artifact_keys_decode_to_their_public_keys() {
    let lines = lines();
    assert_eq!(lines.len(), 25);
    for (i, v) in lines.iter().enumerate() {
        for m in 0..2 {
            let sk_bytes = field(v, &format!("sk{m}"));
            let sk = SigningKey::from_bytes(&sk_bytes).expect("artifact key decodes");
            assert_eq!(
                sk.verifying_key().to_bytes(),
                &field(v, &format!("h{m}"))[..],
                "line {i}"
            );
            assert_eq!(&sk.to_bytes()[..], &sk_bytes[..]);
            assert!(sk.quality() <= ALPHA + 1e-9);
        }
    }
}

#[test]
fn malformed_keys_are_refused() {
    let v = &lines()[0];
    let sk = field(v, "sk0");
    assert!(SigningKey::from_bytes(&sk[..2047]).is_err());
    // Any change to F breaks the NTRU equation.
    let mut bad = sk.clone();
    bad[2 * N] ^= 1;
    assert!(SigningKey::from_bytes(&bad).is_err());
    // -128 is outside the signed-byte range the artifact uses.
    let mut bad = sk;
    bad[0] = 0x80;
    assert!(SigningKey::from_bytes(&bad).is_err());
}

/// The sampler's output is a Gaussian of width sigma in 2n dimensions: the mean squared norm is
/// 2 n sigma^2. A wrong perturbation width or projection moves it by far more than the 4% allowed.
#[test]
fn preimages_are_short_and_exact_for_artifact_and_fresh_keys() {
    let mut rng = rand_chacha::ChaCha20Rng::from_seed([3; 32]);
    let fresh = SigningKey::generate(&mut rng);
    let artifact = SigningKey::from_bytes(&field(&lines()[1], "sk1")).expect("key");
    for sk in [fresh, artifact] {
        let ek = sk.expand();
        let rounds = 40;
        let mut total = 0.0;
        for k in 0..rounds {
            let c: Vec<u16> = (0..N)
                .map(|i| ((i * 7919 + k * 104_729) % Q as usize) as u16)
                .collect();
            let p = ek.sample_preimage(&c, &mut rng).expect("sample");
            let hs2 =
                alibi_falcon::sum_mul_h(&[(sk.verifying_key().lattice_key(), p.s2.as_slice())])
                    .expect("mul");
            for i in 0..N {
                assert_eq!(
                    (p.s1[i] as i64 + hs2[i] as i64 - c[i] as i64).rem_euclid(Q as i64),
                    0
                );
            }
            total += p.norm_sq() as f64;
        }
        let ratio = total / rounds as f64 / (2.0 * N as f64 * sigma() * sigma());
        assert!(
            (ratio - 1.0).abs() < 0.04,
            "mean norm / 2 n sigma^2 = {ratio}"
        );
    }
}

#[test]
fn sigma_is_the_artifacts() {
    // The artifact's samplerZ_table.c header: standard deviation 162.90351261574722.
    assert!((sigma() - 162.903_512_615_747_22).abs() < 1e-9);
}

#[test]
fn plain_signatures_sign_and_verify() {
    use alibi_mitaka::{signature::SIGNATURE_LEN, Signature, VerifyingKey};
    let mut rng = rand_chacha::ChaCha20Rng::from_seed([5; 32]);
    let sk = SigningKey::from_bytes(&field(&lines()[0], "sk0")).expect("key");
    let vk = VerifyingKey::from_bytes(&field(&lines()[0], "h0")).expect("public key");
    assert_eq!(&vk, sk.verifying_key());
    let ek = sk.expand();
    for msg in [&b""[..], b"prekey 42"] {
        let sig = ek.sign(msg, &mut rng);
        let bytes = sig.to_bytes();
        assert_eq!(bytes.len(), SIGNATURE_LEN);
        let back = Signature::from_bytes(&bytes).expect("decode");
        assert!(vk.verify(msg, &back).is_ok());
        assert!(vk.verify(b"other", &back).is_err());
        // Another key's h refuses it.
        let other = VerifyingKey::from_bytes(&field(&lines()[0], "h1")).expect("public key");
        assert!(other.verify(msg, &back).is_err());
        // A changed salt changes c.
        let mut bad = bytes.clone();
        bad[SIGNATURE_LEN - 1] ^= 1;
        assert!(vk
            .verify(msg, &Signature::from_bytes(&bad).expect("decodes"))
            .is_err());
    }
    assert!(Signature::from_bytes(&[0; 649]).is_err());
    assert!(VerifyingKey::from_bytes(&[0; 895]).is_err());
}

#[test]
fn lattice_keys_convert_at_falcon_512_only() {
    use alibi_mitaka::VerifyingKey;
    let vk = VerifyingKey::from_bytes(&field(&lines()[0], "h0")).expect("public key");
    assert_eq!(
        VerifyingKey::from_lattice_key(vk.lattice_key().clone()).expect("Falcon-512"),
        vk
    );
    let mut rng = rand_chacha::ChaCha20Rng::from_seed([6; 32]);
    let big = alibi_falcon::SigningKey::generate(alibi_falcon::Level::Falcon1024, &mut rng);
    assert!(VerifyingKey::from_lattice_key(big.verifying_key().clone()).is_err());
}
