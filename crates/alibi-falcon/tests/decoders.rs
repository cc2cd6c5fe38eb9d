//! The decoders on hostile bytes: typed errors and no panics, and strictness (what decodes re-encodes
//! to the same bytes). Mutations start from valid encodings so that deep paths are reached.

use alibi_falcon::{Error, Level, Signature, SigningKey, VerifyingKey};
use proptest::prelude::*;
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use std::sync::OnceLock;

struct Fixtures {
    sk: Vec<u8>,
    pk: Vec<u8>,
    sig: Vec<u8>,
}

fn fixtures() -> &'static Fixtures {
    static F: OnceLock<Fixtures> = OnceLock::new();
    F.get_or_init(|| {
        let mut rng = ChaCha20Rng::seed_from_u64(11);
        let sk = SigningKey::generate(Level::Falcon512, &mut rng);
        Fixtures {
            sk: sk.to_bytes().to_vec(),
            pk: sk.verifying_key().to_bytes(),
            sig: sk.sign(b"fixture", &mut rng).to_bytes(),
        }
    })
}

fn mutate(base: &[u8], edits: &[(usize, u8)], cut: usize, extra: &[u8]) -> Vec<u8> {
    let mut v = base.to_vec();
    for &(i, x) in edits {
        let i = i % v.len();
        v[i] ^= x;
    }
    v.truncate(v.len() - cut % v.len());
    v.extend_from_slice(extra);
    v
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn arbitrary_bytes(data in proptest::collection::vec(any::<u8>(), 0..2400)) {
        if let Ok(k) = VerifyingKey::from_bytes(&data) { prop_assert_eq!(k.to_bytes(), data.clone()); }
        if let Ok(k) = SigningKey::from_bytes(&data) { prop_assert_eq!(k.to_bytes().to_vec(), data.clone()); }
        if let Ok(s) = Signature::from_bytes(&data) { prop_assert_eq!(s.to_bytes(), data.clone()); }
    }

    #[test]
    fn mutated_encodings(
        edits in proptest::collection::vec((any::<usize>(), 1u8..), 0..4),
        cut in 0usize..4,
        extra in proptest::collection::vec(any::<u8>(), 0..3),
    ) {
        let f = fixtures();
        let pk = mutate(&f.pk, &edits, cut, &extra);
        if let Ok(k) = VerifyingKey::from_bytes(&pk) { prop_assert_eq!(k.to_bytes(), pk); }
        let sk = mutate(&f.sk, &edits, cut, &extra);
        if let Ok(k) = SigningKey::from_bytes(&sk) { prop_assert_eq!(k.to_bytes().to_vec(), sk); }
        let sig = mutate(&f.sig, &edits, cut, &extra);
        if let Ok(s) = Signature::from_bytes(&sig) {
            prop_assert_eq!(s.to_bytes(), sig.clone());
            let vk = VerifyingKey::from_bytes(&f.pk).unwrap();
            if sig != f.sig { prop_assert!(vk.verify(b"fixture", &s).is_err()); }
        }
    }
}

#[test]
fn each_malformation_has_its_error() {
    let f = fixtures();
    // Wrong header.
    let mut pk = f.pk.clone();
    pk[0] = 0x0b;
    assert_eq!(VerifyingKey::from_bytes(&pk), Err(Error::Header(0x0b)));
    let mut sk = f.sk.clone();
    sk[0] = 0x49;
    assert_eq!(
        SigningKey::from_bytes(&sk).unwrap_err(),
        Error::Header(0x49)
    );
    let mut sig = f.sig.clone();
    sig[0] = 0x3b;
    assert_eq!(Signature::from_bytes(&sig), Err(Error::Header(0x3b)));
    // Wrong length, trailing bytes.
    assert!(matches!(
        VerifyingKey::from_bytes(&f.pk[..896]),
        Err(Error::Length(_))
    ));
    let mut long = f.pk.clone();
    long.push(0);
    assert!(matches!(
        VerifyingKey::from_bytes(&long),
        Err(Error::Length(_))
    ));
    let mut long = f.sk.clone();
    long.push(0);
    assert!(matches!(
        SigningKey::from_bytes(&long),
        Err(Error::Length(_))
    ));
    let mut long = f.sig.clone();
    long.push(0);
    assert_eq!(Signature::from_bytes(&long), Err(Error::TrailingBytes));
    // Truncated compressed body.
    assert_eq!(
        Signature::from_bytes(&f.sig[..f.sig.len() - 1]),
        Err(Error::Compression)
    );
    // Out-of-range coefficient: h_0 = 0x3FFF >= q.
    let mut pk = f.pk.clone();
    pk[1] = 0xFF;
    pk[2] |= 0xFC;
    assert_eq!(VerifyingKey::from_bytes(&pk), Err(Error::CoefficientRange));
    // The forbidden value -2^(bits-1) in f (6 bits: 100000).
    let mut sk = f.sk.clone();
    sk[1] = (sk[1] & 0x03) | 0x80;
    assert_eq!(
        SigningKey::from_bytes(&sk).unwrap_err(),
        Error::CoefficientRange
    );
    // A key whose f is not invertible mod q (f = 0) is rejected as inconsistent.
    let zero_f = {
        let mut v = vec![0x59u8];
        v.extend(std::iter::repeat_n(0u8, 384));
        v.extend_from_slice(&f.sk[385..]);
        v
    };
    assert_eq!(
        SigningKey::from_bytes(&zero_f).unwrap_err(),
        Error::InvalidSecretKey
    );
}
