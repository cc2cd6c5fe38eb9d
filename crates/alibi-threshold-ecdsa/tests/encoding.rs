//! The decoders and `verify` on bad bytes: errors, never panics; signatures from k256's own
//! signer stand in for the protocol's (same format: `r || s`, low S).

use alibi_threshold_ecdsa::{
    verify, verify_prehash, Error, KeyShare, Partial, Presignature, Primes, PARTIAL_LEN,
    PRIME_BITS, PRIME_COUNT,
};
use k256::ecdsa::signature::Signer;
use k256::ecdsa::{Signature, SigningKey};

fn signed(msg: &[u8]) -> ([u8; 33], [u8; 64]) {
    let key = SigningKey::from_slice(&[0x42; 32]).expect("key");
    let sig: Signature = key.sign(msg);
    let sig = sig.normalize_s().unwrap_or(sig);
    let pk: [u8; 33] = key
        .verifying_key()
        .to_encoded_point(true)
        .as_bytes()
        .try_into()
        .expect("33");
    (pk, sig.to_bytes().into())
}

#[test]
fn verify_accepts_k256_and_rejects_every_flipped_bit() {
    let (pk, sig) = signed(b"message");
    verify(&pk, b"message", &sig).expect("valid");
    for bit in 0..(64 * 8) {
        let mut bad = sig;
        bad[bit / 8] ^= 1 << (bit % 8);
        assert!(verify(&pk, b"message", &bad).is_err(), "bit {bit}");
    }
    for bit in 0..(7 * 8) {
        let mut msg = *b"message";
        msg[bit / 8] ^= 1 << (bit % 8);
        assert!(matches!(
            verify(&pk, &msg, &sig),
            Err(Error::InvalidSignature)
        ));
    }
    let mut other = pk;
    other[0] ^= 1; // the other y: a different, valid key
    assert!(matches!(
        verify(&other, b"message", &sig),
        Err(Error::InvalidSignature)
    ));
}

#[test]
fn verify_rejects_high_s_and_bad_lengths() {
    let (pk, sig) = signed(b"message");
    let low = Signature::from_slice(&sig).expect("sig");
    let (r, s) = low.split_scalars();
    let high = Signature::from_scalars(r, -*s).expect("high s");
    assert!(matches!(
        verify(&pk, b"message", &high.to_bytes()),
        Err(Error::InvalidSignature)
    ));
    for len in [0, 32, 63, 65, 128] {
        let bad = vec![1u8; len];
        assert!(matches!(
            verify(&pk, b"message", &bad),
            Err(Error::Malformed(_))
        ));
    }
    for len in [0, 32, 34, 65] {
        let bad = vec![2u8; len];
        assert!(matches!(
            verify(&bad, b"message", &sig),
            Err(Error::Malformed(_))
        ));
    }
    assert!(matches!(
        verify(&[5u8; 33], b"message", &sig),
        Err(Error::Malformed(_))
    ));
    assert!(matches!(
        verify(&pk, b"message", &[0u8; 64]),
        Err(Error::Malformed(_))
    ));
    assert!(matches!(
        verify_prehash(&pk, &[0u8; 31], &sig),
        Err(Error::Malformed(_))
    ));
}

#[test]
fn key_share_from_garbage_is_an_error() {
    let mut inputs: Vec<Vec<u8>> = vec![vec![], b"ATEK".to_vec(), b"ATEK\x03{}".to_vec()];
    inputs.push(b"ATEK\x02".to_vec());
    inputs.push(b"ATEK\x02{}".to_vec());
    inputs.push(b"ATEK\x02{\"core\":1,\"aux\":[]}".to_vec());
    inputs.push(b"ATEK\x02[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[".to_vec());
    let mut x = 0x9e37_79b9u32;
    for len in [1, 5, 6, 100, 4000] {
        let mut bytes = b"ATEK\x02".to_vec();
        bytes.extend((0..len).map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x as u8
        }));
        inputs.push(bytes);
    }
    for input in &inputs {
        assert!(KeyShare::from_bytes(input).is_err());
    }
}

/// The committed test-only share (tests/vectors/README.md) decodes and re-encodes to itself;
/// every truncation of it is an error, and bytes flipped along it decode to an error or (a flip
/// in a public number only the protocol's proofs would catch) a share, never a panic.
#[test]
fn fixture_key_share_round_trip_and_damage() {
    let line = include_str!("vectors/key_share.hex")
        .lines()
        .next()
        .expect("a line");
    let bytes = hex::decode(line).expect("hex");
    let share = KeyShare::from_bytes(&bytes).expect("decode");
    assert_eq!(*share.to_bytes().expect("encode"), bytes);
    assert_eq!(
        (share.index(), share.parties(), share.threshold()),
        (0, 2, 1)
    );
    let debug = format!("{share:?}");
    assert!(debug.contains("public_key") && debug.len() < 200, "{debug}");
    // A share from before key generation gave a chain code still signs under its key, and
    // says it has no children rather than inventing a chain code.
    assert!(share.extended_public_key().is_none());
    let master = alibi_threshold::hd::DerivationPath::master();
    assert_eq!(share.public_key_at(&master).expect("m"), share.public_key());
    let child = "m/0".parse().expect("path");
    let e = share.public_key_at(&child).unwrap_err().to_string();
    assert!(e.contains("without a chain code"), "{e}");
    for len in (0..bytes.len()).step_by(7) {
        assert!(KeyShare::from_bytes(&bytes[..len]).is_err());
    }
    for at in (0..bytes.len()).step_by(11) {
        let mut damaged = bytes.clone();
        damaged[at] ^= 0x41;
        let _ = KeyShare::from_bytes(&damaged);
    }
}

#[test]
fn primes_round_trip_and_refuse_bad_bytes() {
    let line = include_str!("vectors/primes.hex")
        .lines()
        .next()
        .expect("a line");
    let bytes = hex::decode(line).expect("hex");
    let primes = Primes::from_bytes(&bytes).expect("decode");
    assert_eq!(*primes.to_bytes(), bytes);
    assert_eq!(
        bytes.len(),
        5 + usize::from(PRIME_COUNT) * (PRIME_BITS as usize / 8)
    );
    assert!(format!("{primes:?}").len() < 20, "Debug shows no secret");

    assert!(Primes::from_bytes(&bytes[..bytes.len() - 1]).is_err());
    let mut even = bytes.clone();
    *even.last_mut().expect("byte") &= 0xfe;
    assert!(Primes::from_bytes(&even).is_err());
    let mut short = bytes.clone();
    short[5] = 0; // p loses its top bits
    assert!(Primes::from_bytes(&short).is_err());
    let width = PRIME_BITS as usize / 8;
    for (i, j) in [(0, 1), (0, 3), (2, 3)] {
        let mut same = bytes.clone();
        let prime = same[5 + i * width..5 + (i + 1) * width].to_vec();
        same[5 + j * width..5 + (j + 1) * width].copy_from_slice(&prime);
        assert!(
            Primes::from_bytes(&same).is_err(),
            "primes {i} and {j} equal"
        );
    }
    let mut version = bytes.clone();
    version[4] = 3;
    assert!(Primes::from_bytes(&version).is_err());
    assert!(Primes::from_bytes(b"ATEK\x02").is_err());
}

/// A big integer with a radix outside 2..=36 is refused, not a panic: fast-paillier passes the
/// radix to num-bigint unchecked, which asserts (the fuzz target found it, 2026-12-05).
#[test]
fn a_radix_out_of_range_is_an_error_not_a_panic() {
    let line = include_str!("vectors/key_share.hex")
        .lines()
        .next()
        .expect("a line");
    let bytes = hex::decode(line).expect("hex");
    let text = String::from_utf8(bytes[5..].to_vec()).expect("JSON");
    for radix in ["99", "1", "0", "37", "-3", "\"16\""] {
        let edited = text.replacen("\"radix\":16", &format!("\"radix\":{radix}"), 1);
        assert_ne!(edited, text, "the sample has a radix to edit");
        let mut damaged = bytes[..5].to_vec();
        damaged.extend_from_slice(edited.as_bytes());
        assert!(
            matches!(KeyShare::from_bytes(&damaged), Err(Error::Malformed(_))),
            "radix {radix}"
        );
    }
}

/// Files written by alibi before CGGMP24 (cggmp21's two primes; cggmp21's key share, whose
/// ring-Pedersen parameters reused the Paillier modulus) are refused by name, not as garbage.
#[test]
fn cggmp21_files_are_refused_with_their_reason() {
    for (text, what) in [
        (include_str!("vectors/primes_cggmp21.hex"), "primes"),
        (include_str!("vectors/key_share_cggmp21.hex"), "share"),
    ] {
        let bytes = hex::decode(text.trim()).expect("hex");
        let err = match what {
            "primes" => Primes::from_bytes(&bytes).map(|_| ()),
            _ => KeyShare::from_bytes(&bytes).map(|_| ()),
        }
        .expect_err("a cggmp21 file");
        assert!(
            matches!(&err, Error::Malformed(m) if m.contains("cggmp21")),
            "{what}: {err}"
        );
    }
}

/// The fixture presignature decodes and re-encodes; every truncation of it, and a partial
/// signature of the wrong length or with a scalar not below the order, is refused.
#[test]
fn presignature_and_partial_encodings() {
    let bytes = hex::decode(include_str!("vectors/presignature.hex").trim()).expect("hex");
    let presig = Presignature::from_bytes(&bytes).expect("decode");
    assert_eq!(presig.public().signers(), &[0, 1]);
    let again = presig.to_bytes().expect("encode");
    assert_eq!(*again, bytes);
    for len in (0..bytes.len()).step_by(7) {
        assert!(Presignature::from_bytes(&bytes[..len]).is_err(), "{len}");
    }
    let (partial, _) = presig.issue(b"m");
    let wire = partial.to_bytes();
    assert_eq!(Partial::from_bytes(&wire).expect("partial"), partial);
    assert!(Partial::from_bytes(&wire[..33]).is_err());
    let mut over = [0xffu8; PARTIAL_LEN];
    over[..2].copy_from_slice(&[0, 1]);
    assert!(matches!(
        Partial::from_bytes(&over),
        Err(Error::Malformed(_))
    ));
}
