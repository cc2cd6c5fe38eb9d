//! FROST (givre) and CGGMP24 ECDSA (cggmp24) run over a real relay through the round-based
//! adapter: every party in its own task with its own messenger; the signatures checked by
//! ed25519-dalek's strict verification and by k256; a relay that loses a delivery or swaps a
//! bundle never gets a party blamed.

use crate::common;

use std::sync::atomic::Ordering;
use std::time::Duration;

use alibi_mpc::dkg::Misbehaviour;
use alibi_mpc::endpoint::{Endpoint, Keygen, PrimeSource, Signing};
use alibi_mpc::local::{endpoints, keygen_each, prepare_all, register_parties, sign_each};
use alibi_mpc::relay::{Mode, RelayParty};
use alibi_mpc::scheme::{self, Presignatures, Primes, Scheme, Share};
use alibi_mpc::transport::Transport;
use alibi_mpc::{Error, PartyIndex};
use alibi_relay::local::LocalRelay;

/// Test-only safe primes (public!), made by alibi-threshold-ecdsa's `pregenerate_primes`.
fn fixture_primes() -> Vec<Primes> {
    include_str!("../../../alibi-threshold-ecdsa/tests/vectors/primes.hex")
        .lines()
        .map(|l| Primes::from_bytes(&hex::decode(l.trim()).expect("hex")).expect("primes"))
        .collect()
}

/// The schemes of established crates (BLS has its own tests: agreement.rs and others).
const EXTERNAL: [Scheme; 3] = [
    Scheme::FrostEd25519,
    Scheme::FrostSecp256k1Tr,
    Scheme::EcdsaSecp256k1,
];

/// A round's wait: long enough for CGGMP24's auxiliary information, whose proofs take each
/// party tens of seconds on a busy machine; a few seconds for FROST.
fn timeout(scheme: Scheme) -> Duration {
    match scheme {
        Scheme::EcdsaSecp256k1 => Duration::from_secs(120),
        _ => Duration::from_secs(5),
    }
}

/// Key generation by every party at once; their shares (or errors) and the endpoints back.
async fn keygen_all(
    parties: Vec<RelayParty>,
    scheme: Scheme,
    t: usize,
    (session, wait): ([u8; 16], Duration),
) -> (Vec<Endpoint<RelayParty>>, Vec<alibi_mpc::Result<Share>>) {
    let all: Vec<PartyIndex> = parties.iter().map(Transport::me).collect();
    let mut primes = fixture_primes().into_iter();
    let (back, shares, _) = keygen_each(endpoints(parties), |_| Keygen {
        primes: scheme
            .needs_primes()
            .then(|| PrimeSource::Given(primes.next().expect("primes"))),
        ..Keygen::new(scheme, session, t, all.clone(), wait)
    })
    .await
    .expect("tasks");
    (back, shares)
}

/// Signing by `signers` (group indices) with their shares; every signer's result and all
/// endpoints back.
async fn sign_all(
    parties: Vec<Endpoint<RelayParty>>,
    shares: &[Share],
    signers: &[PartyIndex],
    session: [u8; 16],
    msg: &'static [u8],
) -> (Vec<Endpoint<RelayParty>>, Vec<alibi_mpc::Result<Vec<u8>>>) {
    let job = Signing::new(session, signers.to_vec(), timeout(shares[0].scheme()));
    let (back, results, _) = sign_each(parties, shares, &job, msg).await.expect("tasks");
    (
        back,
        results.into_iter().map(|r| r.map(|s| s.bytes)).collect(),
    )
}

fn independent_verify(scheme: Scheme, pk: &[u8], msg: &[u8], sig: &[u8]) {
    match scheme {
        Scheme::FrostEd25519 => {
            let key =
                ed25519_dalek::VerifyingKey::from_bytes(pk.try_into().expect("32")).expect("key");
            let sig = ed25519_dalek::Signature::from_slice(sig).expect("sig");
            key.verify_strict(msg, &sig).expect("ed25519-dalek accepts");
        }
        Scheme::FrostSecp256k1Tr => {
            let key = k256::schnorr::VerifyingKey::from_bytes(pk).expect("key");
            let sig = k256::schnorr::Signature::try_from(sig).expect("sig");
            key.verify_raw(msg, &sig).expect("k256 BIP-340 accepts");
        }
        Scheme::Bls => assert!(common::blst_verifies(pk, msg, sig), "blst accepts"),
        Scheme::EcdsaSecp256k1 => {
            use k256::ecdsa::signature::Verifier;
            let key = k256::ecdsa::VerifyingKey::from_sec1_bytes(pk).expect("key");
            let sig = k256::ecdsa::Signature::from_slice(sig).expect("sig");
            key.verify(msg, &sig).expect("k256 ECDSA accepts");
        }
    }
}

/// No party is blamed: the run either finished or failed as a transport fault.
fn unblamed<T>(r: &alibi_mpc::Result<T>) -> bool {
    matches!(
        r,
        Ok(_) | Err(Error::Unreachable { .. } | Error::Stopped { .. } | Error::Transport(_))
    )
}

/// BLS and FROST over a relay, the signatures checked by independent verifiers. Threshold
/// ECDSA's key generation and signing over a relay, checked the same way, is the clean run of
/// `a_lost_delivery_in_signing_blames_no_party` (one ECDSA key generation fewer for the suite).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bls_and_frost_over_a_relay_verified_independently() {
    let relay = LocalRelay::start(Default::default()).await.expect("relay");
    for (scheme, n, t, mode) in [
        (Scheme::Bls, 3, 1, Mode::Group),
        (Scheme::FrostEd25519, 3, 1, Mode::Group),
        (Scheme::FrostEd25519, 5, 2, Mode::Pairwise),
        (Scheme::FrostSecp256k1Tr, 3, 1, Mode::Group),
    ] {
        let indices: Vec<PartyIndex> = (1..=n).collect();
        let parties = register_parties(&relay.url, &indices, mode)
            .await
            .expect("parties");
        let (parties, shares) = keygen_all(parties, scheme, t, ([1; 16], timeout(scheme))).await;
        let shares: Vec<Share> = shares.into_iter().map(|s| s.expect("keygen")).collect();
        let pk = shares[0].public_key().to_vec();
        assert!(shares.iter().all(|s| s.public_key() == pk), "{scheme}");
        let signers: Vec<PartyIndex> = indices.iter().copied().rev().take(t + 1).collect();
        let (_, sigs) = sign_all(parties, &shares, &signers, [2; 16], b"any protocol").await;
        for sig in sigs {
            let sig = sig.expect("signed");
            independent_verify(scheme, &pk, b"any protocol", &sig);
            assert!(scheme::verify(scheme, &pk, b"any protocol", &sig).is_ok());
            assert!(scheme::verify(scheme, &pk, b"another", &sig).is_err());
        }
    }
}

/// A relay that loses one delivery of a signing run, at every position (FROST, both suites) or at the
/// first, a middle and the last (ECDSA, whose runs are longer): the signers finish with a valid
/// signature or stop as a transport fault, never blaming a party.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lost_delivery_in_signing_blames_no_party() {
    let relay = LocalRelay::start(Default::default()).await.expect("relay");
    let proxy = alibi_testkit::proxy::Proxy::start(&relay.url).await;
    for scheme in EXTERNAL {
        let parties = register_parties(&proxy.url, &[1, 2, 3], Mode::Group)
            .await
            .expect("parties");
        let (parties, _) = prepare_all(parties).await.expect("prepare");
        let (parties, shares) = keygen_all(parties, scheme, 1, ([3; 16], timeout(scheme))).await;
        let shares: Vec<Share> = shares.into_iter().map(|s| s.expect("keygen")).collect();
        let pk = shares[0].public_key().to_vec();
        assert!(shares.iter().all(|s| s.public_key() == pk), "{scheme}");
        proxy.count_from_zero();
        let (mut parties, clean) = sign_all(parties, &shares, &[1, 3], [4; 16], b"m").await;
        for r in &clean {
            let sig = r
                .as_ref()
                .unwrap_or_else(|e| panic!("{scheme}, nothing lost: {e}"));
            independent_verify(scheme, &pk, b"m", sig);
            assert!(scheme::verify(scheme, &pk, b"another", sig).is_err());
        }
        let total = proxy.deliveries.load(Ordering::SeqCst);
        assert!(
            total > 0,
            "{scheme}: nothing was delivered through the proxy"
        );
        let positions: Vec<usize> = match scheme {
            Scheme::EcdsaSecp256k1 => vec![0, total / 2, total.saturating_sub(1)],
            _ => (0..total).collect(),
        };
        for want in positions {
            // A run may make fewer deliveries than the clean one did (an ECDSA run after the
            // first often makes 17 of its 24), and a position past its end loses nothing. Such
            // a run proves nothing: it is run again losing that run's last delivery instead.
            let mut k = want;
            for attempt in 0u8.. {
                proxy.rules.lock().expect("rules").drop_delivery = Some(k);
                proxy.count_from_zero();
                let mut session = [5u8; 16];
                (session[0], session[1], session[15]) = (k as u8, attempt, scheme as u8);
                let (back, results) = sign_all(parties, &shares, &[1, 3], session, b"m").await;
                parties = back;
                for r in &results {
                    assert!(
                        unblamed(r),
                        "{scheme}, delivery {k} of {total} lost: {:?}",
                        r.as_ref().err()
                    );
                    // A signer that finished despite the loss holds a valid signature.
                    if let Ok(sig) = r {
                        independent_verify(scheme, &pk, b"m", sig);
                        assert!(
                            scheme::verify(scheme, &pk, b"other", sig).is_err(),
                            "{scheme}, delivery {k} lost: valid for another message too"
                        );
                    }
                }
                // The loss happened: the proxy counted delivery k, which it did not pass on.
                let seen = proxy.deliveries.load(Ordering::SeqCst);
                if seen > k {
                    break;
                }
                assert!(
                    attempt < 2 && seen > 0,
                    "{scheme}: delivery {k} never came ({seen} did) in {} runs, nothing lost",
                    attempt + 1
                );
                k = seen - 1;
            }
        }
        proxy.rules.lock().expect("rules").drop_delivery = None;
    }
}

/// A relay that answers requests for party 2's bundle with party 3's: key generation fails
/// closed as a transport fault at the parties that asked, nobody blamed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_substituted_bundle_fails_frost_and_ecdsa_closed() {
    let relay = LocalRelay::start(Default::default()).await.expect("relay");
    let proxy = alibi_testkit::proxy::Proxy::start(&relay.url).await;
    for scheme in EXTERNAL {
        let parties = register_parties(&proxy.url, &[1, 2, 3], Mode::Group)
            .await
            .expect("parties");
        let account = |i: usize| parties[i].messenger().account().to_string();
        proxy.rules.lock().expect("rules").rewrite = vec![(
            format!("/v2/keys/{}/", account(1)),
            format!("/v2/keys/{}/", account(2)),
        )];
        proxy.rewritten.store(0, Ordering::SeqCst);
        let (_, results) = keygen_all(parties, scheme, 1, ([6; 16], Duration::from_secs(3))).await;
        // The substitution happened: the proxy served party 3's bundle for party 2's.
        assert!(
            proxy.rewritten.load(Ordering::SeqCst) > 0,
            "{scheme}: no request for party 2's bundle was rewritten"
        );
        for (i, r) in results.iter().enumerate() {
            assert!(r.is_err(), "{scheme}: party {} finished", i + 1);
            assert!(
                unblamed(r),
                "{scheme}: party {}: {:?}",
                i + 1,
                r.as_ref().err()
            );
        }
        let named = results
            .iter()
            .any(|r| matches!(r, Err(e) if e.to_string().contains("does not match its card")));
        assert!(named, "{scheme}: the swapped contact is named");
        proxy.rules.lock().expect("rules").rewrite.clear();
    }
}

/// Issue 65: a party that deals one victim another party's pairwise message (a share only the
/// victim can check) is named at every honest party: by the victim, whose check fails, and at
/// the other honest party by the victim's signed accusation, which stops it at once (it would
/// otherwise wait out the round and report the victim silent).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_misdealt_share_is_named_at_every_honest_party() {
    let relay = LocalRelay::start(Default::default()).await.expect("relay");
    for scheme in [Scheme::FrostEd25519, Scheme::EcdsaSecp256k1] {
        let all: [PartyIndex; 3] = [1, 2, 3];
        let parties = register_parties(&relay.url, &all, Mode::Group)
            .await
            .expect("parties");
        let mut primes = fixture_primes().into_iter();
        let (_, results, _) = keygen_each(endpoints(parties), |i| Keygen {
            primes: scheme
                .needs_primes()
                .then(|| PrimeSource::Given(primes.next().expect("primes"))),
            misbehaviour: (i == 1).then_some(Misbehaviour::MisdealTo(3)),
            ..Keygen::new(scheme, [7; 16], 1, all.to_vec(), timeout(scheme))
        })
        .await
        .expect("tasks");
        match &results[2] {
            Err(Error::Aborted { blamed, .. }) => {
                let named: Vec<PartyIndex> = blamed.iter().map(|b| b.party).collect();
                assert_eq!(named, [1], "{scheme}: the victim names the dealer");
            }
            other => panic!("{scheme}: the victim: {:?}", other.as_ref().err()),
        }
        match &results[1] {
            Err(Error::Accused { accusations }) => {
                assert_eq!(accusations.len(), 1, "{scheme}: {accusations:?}");
                assert_eq!(accusations[0].by, 3, "{scheme}");
                let named: Vec<PartyIndex> =
                    accusations[0].blamed.iter().map(|b| b.party).collect();
                assert_eq!(named, [1], "{scheme}: party 2 hears the dealer named");
            }
            other => panic!("{scheme}: party 2: {:?}", other.as_ref().err()),
        }
    }
}

/// Every party of `shares` refreshes its share at once; each result and the endpoints back.
async fn refresh_each(
    parties: Vec<Endpoint<RelayParty>>,
    shares: &[Share],
    session: [u8; 16],
    cheat: Option<(PartyIndex, Misbehaviour)>,
) -> (Vec<Endpoint<RelayParty>>, Vec<alibi_mpc::Result<Share>>) {
    let all: Vec<PartyIndex> = shares.iter().map(Share::me).collect();
    let mut tasks = vec![];
    for (mut e, share) in parties.into_iter().zip(shares.iter().cloned()) {
        let job = Keygen {
            misbehaviour: cheat.filter(|(p, _)| *p == e.me()).map(|(_, m)| m),
            ..Keygen::new(
                share.scheme(),
                session,
                share.threshold(),
                all.clone(),
                timeout(share.scheme()),
            )
        };
        tasks.push(tokio::spawn(async move {
            let r = e.refresh(&share, job).await;
            (e, r)
        }));
    }
    let (mut back, mut results) = (vec![], vec![]);
    for t in tasks {
        let (e, r) = t.await.expect("task");
        back.push(e);
        results.push(r);
    }
    (back, results)
}

/// Issue 68: a FROST key refreshed over a relay by alibi's key generation rounds on its curve.
/// The key stays and the new shares sign (checked by ed25519-dalek and k256); an old share and
/// a new one do not sign together. A party that deals another secret in a refresh is named by
/// every honest party, and nobody gets a new share.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn frost_keys_refresh_and_old_shares_do_not_sign_with_new() {
    let relay = LocalRelay::start(Default::default()).await.expect("relay");
    for scheme in [Scheme::FrostEd25519, Scheme::FrostSecp256k1Tr] {
        let all: Vec<PartyIndex> = vec![1, 2, 3];
        let parties = register_parties(&relay.url, &all, Mode::Group)
            .await
            .expect("parties");
        let (parties, shares) = keygen_all(parties, scheme, 1, ([21; 16], timeout(scheme))).await;
        let old: Vec<Share> = shares.into_iter().map(|s| s.expect("keygen")).collect();
        let pk = old[0].public_key().to_vec();

        let (parties, results) = refresh_each(parties, &old, [22; 16], None).await;
        let fresh: Vec<Share> = results.into_iter().map(|s| s.expect("refresh")).collect();
        for (o, f) in old.iter().zip(&fresh) {
            assert_eq!(f.public_key(), pk.as_slice(), "{scheme}: the same key");
            assert_ne!(*o.to_bytes(), *f.to_bytes(), "{scheme}: a new share");
            assert_eq!(f.extended_public_key(), o.extended_public_key(), "{scheme}");
        }
        let (parties, sigs) = sign_all(parties, &fresh, &[1, 3], [23; 16], b"refreshed").await;
        for sig in sigs {
            independent_verify(scheme, &pk, b"refreshed", &sig.expect("signed"));
        }
        // Party 1's old share beside party 3's new one: no signature.
        let mixed = [old[0].clone(), fresh[1].clone(), fresh[2].clone()];
        let (parties, sigs) = sign_all(parties, &mixed, &[1, 3], [24; 16], b"mixed").await;
        assert!(
            sigs.iter().all(|s| s.is_err()),
            "{scheme}: old and new mixed"
        );

        // Party 2 deals its share plus one: named at both honest parties, no new share.
        let cheat = Some((2, Misbehaviour::DealOtherSecret));
        let (_, results) = refresh_each(parties, &fresh, [25; 16], cheat).await;
        for p in [0, 2] {
            match &results[p] {
                Err(Error::Aborted { blamed, .. }) => {
                    let named: Vec<PartyIndex> = blamed.iter().map(|b| b.party).collect();
                    assert_eq!(named, [2], "{scheme}");
                }
                other => panic!("{scheme}: party {}: {:?}", p + 1, other.as_ref().err()),
            }
        }
    }
}

/// Threshold ECDSA with presignatures over a relay: the signers presign (their presignatures
/// through the encoding, as a party stores them), then sign in one round; the signature is
/// checked by k256. A presignature offered for other signers or another key is refused before
/// anything is sent.
/// A presignature through a party's store: numbered, taken once and counted in the share (which
/// keeps the count through its encoding); the store's older copy is refused, then empty.
fn stored_and_taken(
    mut share: Share,
    presig: scheme::Presignature,
) -> (Share, scheme::Presignature) {
    let mut store = Presignatures::default();
    assert_eq!(store.push(&share, [8; 16], presig).expect("push"), 0);
    let backup = store.to_bytes().expect("encode");
    let mut store = Presignatures::from_bytes(&backup).expect("decode");
    let taken = store.take(&mut share).expect("take");
    assert_eq!((taken.number, taken.made_by), (0, [8; 16]));
    assert!(store.is_empty() && store.next_number() == 1);
    let share = Share::from_bytes(&share.to_bytes()).expect("the counted share decodes");
    assert_eq!(share.presignatures_used(), 1);
    let mut counted = share.clone();
    let mut restored = Presignatures::from_bytes(&backup).expect("decode");
    let r = restored.take(&mut counted);
    assert!(
        matches!(r, Err(Error::PresignatureUsed { number: 0, next: 1 })),
        "a restored copy: {r:?}"
    );
    assert!(restored.is_empty(), "the used one is thrown away");
    let r = restored.take(&mut counted);
    assert!(matches!(r, Err(Error::Parameters(_))), "none left: {r:?}");
    (share, taken.presignature)
}

/// Parties 1 and 3 presign twice; party 1 signs with the first presignature, party 3 with the
/// second, in one run: each partial fails against the other's presignature.
async fn presign_twice_sign_with_different(
    e: &mut Endpoint<RelayParty>,
    share: &Share,
    signers: &[PartyIndex],
) -> Result<(), Error> {
    let scheme = Scheme::EcdsaSecp256k1;
    let job = |s: u8| Signing::new([s; 16], signers.to_vec(), timeout(scheme));
    let first = e.presign(share, &job(13)).await.expect("presign");
    let second = e.presign(share, &job(14)).await.expect("presign");
    let mine = if e.me() == 1 { first } else { second };
    e.sign_presigned(share, mine, &job(15), b"cheat")
        .await
        .map(|_| ())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ecdsa_presignatures_sign_in_one_round_over_a_relay() {
    let relay = LocalRelay::start(Default::default()).await.expect("relay");
    let scheme = Scheme::EcdsaSecp256k1;
    let parties = register_parties(&relay.url, &[1, 2, 3], Mode::Group)
        .await
        .expect("parties");
    let (parties, shares) = keygen_all(parties, scheme, 1, ([7; 16], timeout(scheme))).await;
    let shares: Vec<Share> = shares.into_iter().map(|s| s.expect("keygen")).collect();
    let pk = shares[0].public_key().to_vec();
    let signers: Vec<PartyIndex> = vec![1, 3];
    let presign_job = Signing::new([8; 16], signers.clone(), timeout(scheme));
    let sign_job = Signing::new([9; 16], signers.clone(), timeout(scheme));
    let msg: &'static [u8] = b"signed in one round";
    let mut tasks = vec![];
    let mut idle = vec![];
    for mut e in parties {
        let share = shares[usize::from(e.me()) - 1].clone();
        if !signers.contains(&e.me()) {
            idle.push((e, share));
            continue;
        }
        let pk2 = pk.clone();
        let (presign_job, sign_job) = (presign_job.clone(), sign_job.clone());
        let whole_job = Signing::new([12; 16], signers.clone(), timeout(scheme));
        let signing = signers.clone();
        tasks.push(tokio::spawn(async move {
            // Never with a derivation path (the check sign_presigned shares): refused before
            // anything is sent.
            let derived = Signing {
                path: "m/1".parse().expect("path"),
                ..presign_job.clone()
            };
            let refused = e.presign(&share, &derived).await;
            assert!(matches!(refused, Err(Error::Parameters(_))), "{refused:?}");
            let start = std::time::Instant::now();
            let presig = e.presign(&share, &presign_job).await.expect("presign");
            let offline = start.elapsed();
            assert_eq!(presig.signers(), &[1, 3]);
            let (share, presig) = stored_and_taken(share, presig);
            let start = std::time::Instant::now();
            let online = e.sign_presigned(&share, presig, &sign_job, msg).await;
            let online_took = start.elapsed();
            // The interactive signing of the same message, for comparison (--nocapture shows it).
            let start = std::time::Instant::now();
            let whole = e.sign(&share, &whole_job, msg).await.expect("interactive");
            eprintln!(
                "party {}: presign {offline:.1?}, online {online_took:.1?}, interactive {:.1?}",
                e.me(),
                start.elapsed()
            );
            independent_verify(scheme, &pk2, msg, &whole.bytes);
            // A partial made with another presignature (a cheater's, or a signer's whose
            // store is out of step) names its sender, and only it.
            let cheat = presign_twice_sign_with_different(&mut e, &share, &signing).await;
            let other = if e.me() == 1 { 3 } else { 1 };
            assert!(
                matches!(&cheat, Err(Error::Aborted { blamed, .. })
                    if blamed.iter().map(|b| b.party).collect::<Vec<_>>() == [other]),
                "party {}: {cheat:?}",
                e.me()
            );
            online
        }));
    }
    for task in tasks {
        let sig = task.await.expect("task").expect("signed online");
        independent_verify(scheme, &pk, msg, &sig.bytes);
    }

    // Party 2 holds no presignature for {1, 3}; one made for {1, 3} is refused for {1, 2}, and
    // a FROST share cannot presign.
    let (mut e2, share2) = idle.pop().expect("party 2");
    let job = Signing::new([10; 16], vec![1, 2], timeout(scheme));
    let foreign = shares[0].clone();
    let r = e2.presign(&foreign, &job).await;
    assert!(
        matches!(r, Err(Error::Parameters(_))),
        "another party's share: {r:?}"
    );
    let r = e2
        .presign(&share2, &Signing::new([11; 16], vec![2], timeout(scheme)))
        .await;
    assert!(
        matches!(r, Err(Error::Parameters(_))),
        "too few signers: {r:?}"
    );
}
