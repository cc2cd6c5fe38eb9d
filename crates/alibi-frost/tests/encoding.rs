//! Untrusted bytes: signatures with a flipped bit or a wrong length, keys that are no keys, and
//! key-share encodings that are truncated, altered or random. None of them panics.

use std::sync::OnceLock;

use alibi_frost::suite::{Ed25519, Secp256k1Tr};
use alibi_frost::{keygen, sign, verify, Error, FrostSuite, KeyShare, OsRng, Scheme};
use proptest::prelude::*;

/// One key (2 of 2) per scheme, its encoded shares, and a signature on `MSG`.
struct Fixture {
    shares: Vec<Vec<u8>>,
    public_key: Vec<u8>,
    sig: [u8; 64],
}

const MSG: &[u8] = b"fixture message";

fn make<C: FrostSuite>() -> Fixture {
    let shares: Vec<KeyShare> = round_based::sim::run(2, |i, party| async move {
        keygen::<C, _, _>(&mut OsRng, b"fixture", i, 2, 1, party).await
    })
    .expect("simulation")
    .expect_ok()
    .into_vec();
    let sig =
        round_based::sim::run(2, |j, party| {
            let share = &shares[usize::from(j)];
            async move {
                sign::<C, _, _>(&mut OsRng, share, &Default::default(), &[0, 1], MSG, party).await
            }
        })
        .expect("simulation")
        .expect_ok()
        .expect_eq();
    Fixture {
        shares: shares.iter().map(|s| s.to_bytes().to_vec()).collect(),
        public_key: shares[0].public_key(),
        sig: sig.to_bytes(),
    }
}

fn fixture(scheme: Scheme) -> &'static Fixture {
    static ED: OnceLock<Fixture> = OnceLock::new();
    static TR: OnceLock<Fixture> = OnceLock::new();
    match scheme {
        Scheme::Ed25519 => ED.get_or_init(make::<Ed25519>),
        Scheme::Secp256k1Tr => TR.get_or_init(make::<Secp256k1Tr>),
    }
}

#[test]
fn every_flipped_bit_is_refused() {
    for scheme in Scheme::ALL {
        let f = fixture(scheme);
        verify(scheme, &f.public_key, MSG, &f.sig).expect("the fixture verifies");
        for bit in 0..64 * 8 {
            let mut sig = f.sig;
            sig[bit / 8] ^= 1 << (bit % 8);
            assert!(
                verify(scheme, &f.public_key, MSG, &sig).is_err(),
                "{scheme} sig bit {bit}"
            );
        }
        for bit in 0..32 * 8 {
            let mut pk = f.public_key.clone();
            pk[bit / 8] ^= 1 << (bit % 8);
            assert!(
                verify(scheme, &pk, MSG, &f.sig).is_err(),
                "{scheme} key bit {bit}"
            );
        }
        for bit in 0..MSG.len() * 8 {
            let mut msg = MSG.to_vec();
            msg[bit / 8] ^= 1 << (bit % 8);
            assert!(matches!(
                verify(scheme, &f.public_key, &msg, &f.sig),
                Err(Error::InvalidSignature)
            ));
        }
    }
}

#[test]
fn wrong_lengths_and_the_other_scheme_are_refused() {
    for scheme in Scheme::ALL {
        let f = fixture(scheme);
        for len in [0, 1, 31, 33, 63, 65, 128] {
            let sig = vec![7u8; len];
            assert!(matches!(
                verify(scheme, &f.public_key, MSG, &sig),
                Err(Error::Length(_))
            ));
            let pk = vec![7u8; len];
            assert!(matches!(
                verify(scheme, &pk, MSG, &f.sig),
                Err(Error::Length(_))
            ));
        }
    }
    let (ed, tr) = (fixture(Scheme::Ed25519), fixture(Scheme::Secp256k1Tr));
    assert!(verify(Scheme::Secp256k1Tr, &ed.public_key, MSG, &ed.sig).is_err());
    assert!(verify(Scheme::Ed25519, &tr.public_key, MSG, &tr.sig).is_err());
}

#[test]
fn scheme_names_round_trip() {
    for scheme in Scheme::ALL {
        assert_eq!(scheme.name().parse::<Scheme>().expect("parse"), scheme);
        assert_eq!(Scheme::from_tag(scheme.tag()), Some(scheme));
    }
    assert_eq!(Scheme::Ed25519.name(), "frost-ed25519");
    assert_eq!(Scheme::Secp256k1Tr.name(), "frost-secp256k1-tr");
    assert!(matches!(
        "bls".parse::<Scheme>(),
        Err(Error::UnknownScheme(_))
    ));
}

#[test]
fn every_truncation_of_a_share_is_refused() {
    for scheme in Scheme::ALL {
        let bytes = &fixture(scheme).shares[1];
        let share = KeyShare::from_bytes(bytes).expect("whole share decodes");
        assert_eq!((share.scheme(), share.index()), (scheme, 1));
        for len in 0..bytes.len() {
            assert!(
                KeyShare::from_bytes(&bytes[..len]).is_err(),
                "{scheme} {len}"
            );
        }
    }
}

#[test]
fn altered_headers_are_refused() {
    let bytes = &fixture(Scheme::Ed25519).shares[0];
    for (at, value) in [(0usize, b'X'), (4, 2), (4, 0), (5, 0), (5, 3), (5, 2)] {
        let mut b = bytes.clone();
        b[at] = value;
        assert!(KeyShare::from_bytes(&b).is_err(), "byte {at} = {value}");
    }
}

#[test]
fn a_share_whose_secret_does_not_match_is_refused() {
    // Swapping the two parties' secrets keeps the JSON well-formed but breaks validation.
    let f = fixture(Scheme::Secp256k1Tr);
    let json = |b: &[u8]| serde_json::from_slice::<serde_json::Value>(&b[6..]).expect("json");
    let (mut share0, share1) = (json(&f.shares[0]), json(&f.shares[1]));
    assert_ne!(share0["x"], share1["x"]);
    share0["x"] = share1["x"].clone();
    let mut b = f.shares[0][..6].to_vec();
    b.extend_from_slice(&serde_json::to_vec(&share0).expect("json"));
    assert!(matches!(KeyShare::from_bytes(&b), Err(Error::Malformed(_))));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
        let _ = KeyShare::from_bytes(&bytes);
        let mut framed = b"AFKS\x01\x02".to_vec();
        framed.extend_from_slice(&bytes);
        let _ = KeyShare::from_bytes(&framed);
    }

    #[test]
    fn altered_share_bytes_never_panic(at in 0usize..4096, value in any::<u8>(), ed in any::<bool>()) {
        let scheme = if ed { Scheme::Ed25519 } else { Scheme::Secp256k1Tr };
        let mut bytes = fixture(scheme).shares[0].clone();
        let at = at % bytes.len();
        bytes[at] = value;
        if let Ok(share) = KeyShare::from_bytes(&bytes) {
            // A change that still decodes must leave a consistent share (e.g. JSON whitespace).
            prop_assert_eq!(share.public_key(), fixture(scheme).public_key.clone());
        }
    }

    #[test]
    fn random_signatures_do_not_verify(sig in proptest::collection::vec(any::<u8>(), 64), ed in any::<bool>()) {
        let scheme = if ed { Scheme::Ed25519 } else { Scheme::Secp256k1Tr };
        prop_assert!(verify(scheme, &fixture(scheme).public_key, MSG, &sig).is_err());
    }
}
