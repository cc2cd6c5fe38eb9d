//! Known answers for signing: the signatures of fixed keys, messages and randomness, at both
//! levels, hashed. The digests were recorded from the code before the floating-point half of
//! signing got its AVX2 + FMA build (commit 84b00921), so a change that moved a single rounding
//! anywhere in expansion, ffSampling or SamplerZ shows here.

use alibi_falcon::{Level, SigningKey};
use alibi_keccak::Sha3_256;
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

fn digest(level: Level) -> String {
    let mut h = Sha3_256::new();
    for key in 0..3u64 {
        let sk = SigningKey::generate(level, &mut ChaCha20Rng::seed_from_u64(1000 + key));
        let esk = sk.expand();
        let mut rng = ChaCha20Rng::seed_from_u64(2000 + key);
        for m in 0..16u8 {
            let msg = vec![m; m as usize * 7];
            // Both entry points: from the encoded key's expansion, and the expanded key.
            h.update(&sk.sign(&msg, &mut rng).to_bytes());
            h.update(&esk.sign(&msg, &mut rng).to_bytes());
        }
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn signatures_of_fixed_randomness_are_what_they_were() {
    assert_eq!(
        digest(Level::Falcon512),
        "ea159ecc60bc681c46db170be48bbd8a78b0943028d61a5bf85450ad7dfffdbd"
    );
    assert_eq!(
        digest(Level::Falcon1024),
        "bef5c5907342a1319e00adb5d6b9c1cc752dc7b21d9b2d80b3812f2c87ebfa1b"
    );
}
