//! Key generation and signing in round-based's simulator, for both schemes, the signatures checked
//! by ed25519-dalek's strict verification and k256's BIP-340 verification directly.

use alibi_frost::suite::{Ed25519, Secp256k1Tr};
use alibi_frost::{
    keygen, public_key_at, sign, verify, DerivationPath, Error, FrostSuite, KeyShare, OsRng,
    Scheme, Signature,
};
use alibi_threshold::SignerFault;

/// Every party's share of one simulated key generation.
fn run_keygen<C: FrostSuite>(n: u16, t: u16, session: &[u8]) -> Vec<KeyShare> {
    round_based::sim::run(n, |i, party| async move {
        keygen::<C, _, _>(&mut OsRng, session, i, n, t, party).await
    })
    .expect("simulation")
    .expect_ok()
    .into_vec()
}

/// The signature of the signers `signers` (key-generation indices), which must all agree.
fn run_sign<C: FrostSuite>(shares: &[KeyShare], signers: &[u16], msg: &[u8]) -> Signature {
    run_sign_at::<C>(shares, &DerivationPath::master(), signers, msg)
}

/// [`run_sign`] under the key at `path`.
fn run_sign_at<C: FrostSuite>(
    shares: &[KeyShare],
    path: &DerivationPath,
    signers: &[u16],
    msg: &[u8],
) -> Signature {
    let count = u16::try_from(signers.len()).expect("few signers");
    round_based::sim::run(count, |j, party| {
        let share = &shares[usize::from(signers[usize::from(j)])];
        async move { sign::<C, _, _>(&mut OsRng, share, path, signers, msg, party).await }
    })
    .expect("simulation")
    .expect_ok()
    .expect_eq()
}

/// The independent verifiers, called directly rather than through `alibi_frost::verify`.
fn independent_check(scheme: Scheme, pk: &[u8], msg: &[u8], sig: &[u8; 64]) {
    match scheme {
        Scheme::Ed25519 => {
            let key = ed25519_dalek::VerifyingKey::from_bytes(pk.try_into().expect("32 bytes"))
                .expect("Ed25519 key");
            let sig = ed25519_dalek::Signature::from_bytes(sig);
            key.verify_strict(msg, &sig).expect("ed25519-dalek strict");
        }
        Scheme::Secp256k1Tr => {
            let key = k256::schnorr::VerifyingKey::from_bytes(pk).expect("BIP-340 key");
            let sig = k256::schnorr::Signature::try_from(&sig[..]).expect("BIP-340 sig");
            key.verify_raw(msg, &sig).expect("k256 BIP-340");
        }
    }
}

fn keygen_then_sign<C: FrostSuite>(n: u16, t: u16, subsets: &[&[u16]]) {
    let shares = run_keygen::<C>(n, t, b"test session");
    let pk = shares[0].public_key();
    assert_eq!(pk.len(), 32);
    for (i, share) in shares.iter().enumerate() {
        assert_eq!(share.scheme(), C::SCHEME);
        assert_eq!(usize::from(share.index()), i);
        assert_eq!((share.parties(), share.threshold()), (n, t));
        assert_eq!(share.public_key(), pk, "every party has the same group key");
    }
    for (k, signers) in subsets.iter().enumerate() {
        let msg = format!("message {k} for {}", C::SCHEME);
        let sig = run_sign::<C>(&shares, signers, msg.as_bytes());
        assert_eq!(sig.scheme(), C::SCHEME);
        independent_check(C::SCHEME, &pk, msg.as_bytes(), sig.as_bytes());
        verify(C::SCHEME, &pk, msg.as_bytes(), sig.as_bytes()).expect("verify");
        assert!(matches!(
            verify(C::SCHEME, &pk, b"another message", sig.as_bytes()),
            Err(Error::InvalidSignature)
        ));
    }
}

#[test]
fn ed25519_3_parties_2_signers() {
    keygen_then_sign::<Ed25519>(3, 1, &[&[0, 1], &[2, 0]]);
}

#[test]
fn ed25519_5_parties_3_signers() {
    keygen_then_sign::<Ed25519>(5, 2, &[&[0, 2, 4], &[3, 1, 2]]);
}

#[test]
fn secp256k1_tr_3_parties_2_signers() {
    keygen_then_sign::<Secp256k1Tr>(3, 1, &[&[1, 2], &[2, 0]]);
}

#[test]
fn secp256k1_tr_5_parties_3_signers() {
    keygen_then_sign::<Secp256k1Tr>(5, 2, &[&[4, 3, 0], &[1, 2, 3]]);
}

#[test]
fn key_share_round_trip_signs_again() {
    let shares = run_keygen::<Secp256k1Tr>(3, 1, b"round trip");
    let decoded: Vec<KeyShare> = shares
        .iter()
        .map(|s| KeyShare::from_bytes(&s.to_bytes()).expect("decode"))
        .collect();
    for (a, b) in shares.iter().zip(&decoded) {
        assert_eq!(a.public_key(), b.public_key());
        assert_eq!(
            (a.scheme(), a.index(), a.parties(), a.threshold()),
            (b.scheme(), b.index(), b.parties(), b.threshold())
        );
        assert_eq!(*a.to_bytes(), *b.to_bytes(), "encoding is stable");
    }
    let sig = run_sign::<Secp256k1Tr>(&decoded, &[2, 1], b"after decoding");
    independent_check(
        Scheme::Secp256k1Tr,
        &shares[0].public_key(),
        b"after decoding",
        sig.as_bytes(),
    );
}

#[test]
fn share_refused_by_the_other_scheme_and_bad_signer_lists() {
    let shares = run_keygen::<Ed25519>(3, 1, b"params");
    let sim = |signers: Vec<u16>| {
        round_based::sim::run(2, |_, party| {
            let signers = signers.clone();
            let share = &shares[0];
            async move {
                sign::<Ed25519, _, _>(
                    &mut OsRng,
                    share,
                    &Default::default(),
                    &signers,
                    b"m",
                    party,
                )
                .await
            }
        })
        .expect("simulation")
        .into_vec()
    };
    // Too few, duplicated, out of range, and this share's party not among them: each refused
    // with its typed fault before any message is sent.
    let faults = [
        (
            vec![0],
            SignerFault::Count {
                needed: 2,
                given: 1,
            },
        ),
        (vec![0, 0], SignerFault::Twice(0)),
        (vec![0, 7], SignerFault::Unknown { index: 7, n: 3 }),
        (vec![1, 2], SignerFault::NotAmong(0)),
    ];
    for (signers, fault) in faults {
        for out in sim(signers.clone()) {
            assert!(
                matches!(out, Err(Error::Threshold(alibi_threshold::Error::Signers(f))) if f == fault),
                "{signers:?}: {out:?}"
            );
        }
    }
    let wrong = round_based::sim::run(2, |j, party| {
        let share = &shares[usize::from(j)];
        async move {
            sign::<Secp256k1Tr, _, _>(&mut OsRng, share, &Default::default(), &[0, 1], b"m", party)
                .await
        }
    })
    .expect("simulation")
    .into_vec();
    for out in wrong {
        assert!(matches!(
            out,
            Err(Error::SchemeMismatch {
                expected: Scheme::Secp256k1Tr,
                got: Scheme::Ed25519
            })
        ));
    }
}

#[test]
fn keygen_parameters_refused() {
    for (n, t) in [(3u16, 0u16), (3, 3), (1, 0)] {
        let outs = round_based::sim::run(n, |i, party| async move {
            keygen::<Ed25519, _, _>(&mut OsRng, b"bad", i, n, t, party).await
        })
        .expect("simulation")
        .into_vec();
        for out in outs {
            assert!(
                matches!(
                    out,
                    Err(Error::Threshold(alibi_threshold::Error::Parameters(_)))
                ),
                "n={n} t={t}"
            );
        }
    }
}

#[test]
fn debug_prints_no_secret() {
    let shares = run_keygen::<Ed25519>(2, 1, b"debug");
    let shown = format!("{:?}", shares[0]);
    assert!(shown.contains("frost") || shown.contains("Ed25519"));
    let encoded = shares[0].to_bytes();
    let json: serde_json::Value = serde_json::from_slice(&encoded[6..]).expect("json");
    // The secret share is the JSON's `x`; it must not appear in the Debug output.
    let x_hex = json["x"].as_str().expect("x is a hex string");
    assert!(x_hex.len() >= 64);
    assert!(!shown.contains(x_hex));
}

/// Signing under a child key: the signature verifies under the key `public_key_at` derives
/// from the group's extended public key alone (the independent verifiers), not under the
/// group key. At `m` the derivation gives the group key itself, which for taproot checks this
/// crate's BIP-341 tweak (k256) against givre's.
fn derived_keys_sign<C: FrostSuite>() {
    let shares = run_keygen::<C>(3, 1, b"derived");
    let xpub = shares[0].extended_public_key().expect("a chain code");
    assert!(shares
        .iter()
        .all(|s| s.extended_public_key() == Some(xpub.clone())));
    let master = public_key_at(C::SCHEME, &xpub, &DerivationPath::master()).expect("m");
    assert_eq!(master.to_vec(), shares[0].public_key());
    let path: DerivationPath = "m/0/7".parse().expect("path");
    let child = public_key_at(C::SCHEME, &xpub, &path).expect("child");
    assert_eq!(
        shares[2].public_key_at(&path).expect("child"),
        child.to_vec()
    );
    assert_ne!(child.to_vec(), shares[0].public_key());
    let sig = run_sign_at::<C>(&shares, &path, &[2, 0], b"under a child key");
    independent_check(C::SCHEME, &child, b"under a child key", sig.as_bytes());
    let under_group = verify(
        C::SCHEME,
        &shares[0].public_key(),
        b"under a child key",
        sig.as_bytes(),
    );
    assert!(matches!(under_group, Err(Error::InvalidSignature)));
    let other = match C::SCHEME {
        Scheme::Ed25519 => Scheme::Secp256k1Tr,
        Scheme::Secp256k1Tr => Scheme::Ed25519,
    };
    assert!(
        public_key_at(other, &xpub, &path).is_err(),
        "the xpub's curve is checked"
    );
}

#[test]
fn ed25519_signs_under_a_derived_key() {
    derived_keys_sign::<Ed25519>();
}

#[test]
fn secp256k1_tr_signs_under_a_derived_key() {
    derived_keys_sign::<Secp256k1Tr>();
}

/// A share's sharing (what alibi-mpc's refresh deals from) goes back into an equal share; a
/// secret or public shares that do not belong are refused by key-share's validation.
#[test]
fn a_sharing_goes_back_into_its_share_and_a_wrong_one_is_refused() {
    let both = [
        run_keygen::<Ed25519>(3, 1, b"sharing"),
        run_keygen::<Secp256k1Tr>(3, 1, b"sharing"),
    ];
    for shares in both {
        let s = &shares[1];
        let sh = s.sharing().expect("sharing");
        assert_eq!((sh.threshold, sh.position), (1, 1));
        assert_eq!(sh.points, [1, 2, 3]);
        let same = s
            .refreshed(&sh.points, &sh.public_shares, &sh.secret)
            .expect("the same sharing");
        assert_eq!(*same.to_bytes(), *s.to_bytes());
        let other = shares[0].sharing().expect("sharing");
        let wrong_secret = s.refreshed(&sh.points, &sh.public_shares, &other.secret);
        assert!(wrong_secret.is_err(), "{:?}", s.scheme());
        // X_3, X_2, X_1 lie on a line too, but through another key.
        let mut swapped = sh.public_shares.clone();
        swapped.swap(0, 2);
        assert!(s.refreshed(&sh.points, &swapped, &sh.secret).is_err());
        assert!(s
            .refreshed(&sh.points[..2], &sh.public_shares, &sh.secret)
            .is_err());
    }
}
