//! Key generation, auxiliary info and signing by a subset, each party its own future over
//! round-based's simulated network (the same `Delivery` interface a real transport offers),
//! with the signatures checked by k256's verifier; plus the key share's round trip.

use alibi_threshold::hd::DerivationPath;
use alibi_threshold::Error as Run;
use alibi_threshold_ecdsa::round_based::sim::async_env::Network;
use alibi_threshold_ecdsa::round_based::MpcParty;
use alibi_threshold_ecdsa::{
    aux_info_gen, keygen, presign, rand_core::OsRng, sign, sign_prehash, verify, verify_prehash,
    Error, KeyShare, Partial, Presignature, Presigned, Primes,
};
use futures_util::future::{join_all, try_join_all};
use k256::ecdsa::signature::Verifier;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Test-only primes, one set per party (tests/vectors/README.md says how they were made).
fn fixture_primes(n: usize) -> Vec<Primes> {
    let text = include_str!("vectors/primes.hex");
    let primes: Vec<Primes> = text
        .lines()
        .take(n)
        .map(|line| Primes::from_bytes(&hex::decode(line).expect("hex")).expect("primes"))
        .collect();
    assert_eq!(primes.len(), n, "the fixture holds fewer parties' primes");
    primes
}

/// No run of these tests takes a tenth of this; a lost message fails the test instead of
/// hanging it.
const RUN_LIMIT: Duration = Duration::from_secs(300);

/// Runs one future per party, each a task of the multi-threaded runtime (which also checks
/// that the protocols' futures are `Send`, as a real transport's tasks need), in party order.
///
/// Every party is connected before any starts: the simulated network is a broadcast channel,
/// which gives a party only what was sent after it connected, so a party spawned while the
/// next were still connecting could send its first round to no one (the test then hung).
async fn parties<T, F>(futures: impl IntoIterator<Item = F>) -> Result<Vec<T>, Error>
where
    T: Send + 'static,
    F: std::future::Future<Output = Result<T, Error>> + Send + 'static,
{
    let connected: Vec<F> = futures.into_iter().collect();
    let tasks: Vec<_> = connected.into_iter().map(tokio::spawn).collect();
    let joined = tokio::time::timeout(RUN_LIMIT, try_join_all(tasks))
        .await
        .expect("every party finishes within the limit")
        .expect("no task panics");
    joined.into_iter().collect()
}

/// Keygen and aux info for `n` parties, `t` of whom sign: every party's complete key share.
async fn dealerless_setup(session: &'static [u8], n: u16, t: u16) -> Vec<Arc<KeyShare>> {
    let start = Instant::now();
    let mut net = Network::new();
    let cores = parties((0..n).map(|i| {
        let delivery = net.connect_new_party();
        async move { keygen(&mut OsRng, session, i, n, t, MpcParty::connected(delivery)).await }
    }))
    .await
    .expect("keygen");
    eprintln!("n = {n}, t = {t}: keygen {:.1?}", start.elapsed());
    let start = Instant::now();
    let mut net = Network::new();
    let auxes = parties((0..n).zip(fixture_primes(n.into())).map(|(i, primes)| {
        let delivery = net.connect_new_party();
        async move {
            aux_info_gen(
                &mut OsRng,
                session,
                i,
                n,
                primes,
                MpcParty::connected(delivery),
            )
            .await
        }
    }))
    .await
    .expect("aux info");
    eprintln!("n = {n}, t = {t}: aux info {:.1?}", start.elapsed());
    let shares: Vec<Arc<KeyShare>> = cores
        .into_iter()
        .zip(auxes)
        .map(|(core, aux)| Arc::new(KeyShare::from_parts(core, aux).expect("parts")))
        .collect();
    let public_key = shares[0].public_key();
    for (i, share) in (0u16..).zip(&shares) {
        assert_eq!(share.public_key(), public_key, "all parties hold one key");
        assert_eq!(
            (share.index(), share.parties(), share.threshold()),
            (i, n, t)
        );
    }
    shares
}

/// The 3-party key (t = 1) of the tests that need one: one dealerless setup, the slowest step
/// of each, for all of them, made by the first to ask (the others wait for it).
async fn three_parties() -> &'static [Arc<KeyShare>] {
    static THREE: tokio::sync::OnceCell<Vec<Arc<KeyShare>>> = tokio::sync::OnceCell::const_new();
    THREE
        .get_or_init(|| dealerless_setup(b"test 3-1", 3, 1))
        .await
}

/// The signers (keygen indices) sign `msg`; every signer returns the same signature.
async fn sign_by(
    shares: &[Arc<KeyShare>],
    signers: &'static [u16],
    session: &'static [u8],
    msg: &'static [u8],
) -> [u8; 64] {
    let start = Instant::now();
    let mut net = Network::new();
    let sigs = parties(signers.iter().map(|&s| {
        let delivery = net.connect_new_party();
        let share = shares[usize::from(s)].clone();
        async move {
            sign(
                &mut OsRng,
                session,
                &share,
                &DerivationPath::master(),
                signers,
                msg,
                MpcParty::connected(delivery),
            )
            .await
        }
    }))
    .await
    .expect("signing");
    eprintln!("signers {signers:?}: signing {:.1?}", start.elapsed());
    assert!(sigs.iter().all(|s| *s == sigs[0]), "signers agree");
    sigs[0]
}

/// k256 on its own, without this crate's `verify`.
fn k256_accepts(public_key: &[u8], msg: &[u8], sig: &[u8; 64]) -> bool {
    let key = k256::ecdsa::VerifyingKey::from_sec1_bytes(public_key).expect("key");
    let sig = k256::ecdsa::Signature::from_slice(sig).expect("sig");
    key.verify(msg, &sig).is_ok()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_parties_two_sign() {
    let shares = three_parties().await;
    let pk = shares[0].public_key();
    for (signers, msg) in [(&[0u16, 2][..], &b"first"[..]), (&[2, 1][..], b"second")] {
        let sig = sign_by(shares, signers, b"sign 3-2", msg).await;
        assert!(k256_accepts(&pk, msg, &sig));
        verify(&pk, msg, &sig).expect("verify");
        assert!(matches!(
            verify(&pk, b"other", &sig),
            Err(Error::InvalidSignature)
        ));
    }

    // The encoded shares sign as the originals do.
    let decoded: Vec<Arc<KeyShare>> = shares
        .iter()
        .map(|s| {
            let bytes = s.to_bytes().expect("encode");
            let back = KeyShare::from_bytes(&bytes).expect("decode");
            assert_eq!(*back.to_bytes().expect("encode"), *bytes);
            Arc::new(back)
        })
        .collect();
    let sig = sign_by(&decoded, &[1, 0], b"decoded", b"third").await;
    assert!(k256_accepts(&pk, b"third", &sig));

    bad_signer_lists_are_refused(&shares[0]).await;
    assert!(format!("{:?}", shares[0]).contains("threshold: 1"));
}

/// A signer list of the wrong size, with a duplicate or without this party fails before any
/// message; so do keygen's index and threshold out of range.
async fn bad_signer_lists_are_refused(share: &KeyShare) {
    let cases: [&[u16]; 5] = [&[0], &[0, 1, 2], &[0, 0], &[1, 2], &[0, 3]];
    let mut net = Network::new();
    let results = join_all(cases.iter().map(|signers| {
        let delivery = net.connect_new_party();
        async move {
            sign(
                &mut OsRng,
                b"s",
                share,
                &DerivationPath::master(),
                signers,
                b"m",
                MpcParty::connected(delivery),
            )
            .await
        }
    }))
    .await;
    for result in results {
        assert!(
            matches!(result, Err(Error::Threshold(Run::Signers(_)))),
            "{result:?}"
        );
    }
    let mut net = Network::new();
    let delivery = net.connect_new_party();
    let r = keygen(&mut OsRng, b"s", 3, 3, 2, MpcParty::connected(delivery)).await;
    assert!(matches!(r, Err(Error::Threshold(Run::Parameters(_)))));
    let delivery = net.connect_new_party();
    let r = keygen(&mut OsRng, b"s", 0, 3, 3, MpcParty::connected(delivery)).await;
    assert!(matches!(r, Err(Error::Threshold(Run::Parameters(_)))));
}

/// A 5-party key with threshold 2 from the fixtures (tests/vectors/README.md): its auxiliary
/// information alone takes minutes to make, and the dealerless setup is tested at n = 3 above
/// (and at n = 5 over processes by the CLI's tests). The shares are checked as the setup checks
/// its own.
fn five_party_fixture() -> Vec<Arc<KeyShare>> {
    let shares: Vec<Arc<KeyShare>> = include_str!("vectors/key_shares_5_2.hex")
        .lines()
        .map(|l| Arc::new(KeyShare::from_bytes(&hex::decode(l).expect("hex")).expect("share")))
        .collect();
    assert_eq!(shares.len(), 5);
    for (i, share) in (0u16..).zip(&shares) {
        assert_eq!(share.public_key(), shares[0].public_key());
        assert_eq!(
            (share.index(), share.parties(), share.threshold()),
            (i, 5, 2)
        );
    }
    shares
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn five_parties_three_sign() {
    let shares = five_party_fixture();
    let pk = shares[0].public_key();
    let sig = sign_by(&shares, &[1, 3, 4], b"sign 5-3", b"five parties").await;
    assert!(k256_accepts(&pk, b"five parties", &sig));
    verify(&pk, b"five parties", &sig).expect("verify");

    // A prehash is signed as it is, here under the key's BIP-32 child m/0/7: the signature
    // verifies under the child key from the extended public key alone, not under the key.
    let path: DerivationPath = "m/0/7".parse().expect("path");
    let xpub = shares[0].extended_public_key().expect("a chain code");
    let child = xpub.derive(&path).expect("child");
    assert_eq!(
        child.public_key(),
        shares[3].public_key_at(&path).expect("child")
    );
    assert_eq!(xpub.public_key(), pk);
    let prehash = [7u8; 32];
    let mut net = Network::new();
    let signers = [4u16, 0, 2];
    let signing = try_join_all(signers.iter().map(|&s| {
        let delivery = net.connect_new_party();
        let (share, path) = (&shares[usize::from(s)], &path);
        async move {
            sign_prehash(
                &mut OsRng,
                b"pre",
                share,
                path,
                &signers,
                &prehash,
                MpcParty::connected(delivery),
            )
            .await
        }
    }));
    let sigs = tokio::time::timeout(RUN_LIMIT, signing)
        .await
        .expect("every signer finishes within the limit")
        .expect("signing");
    verify_prehash(child.public_key(), &prehash, &sigs[0]).expect("verify prehash");
    assert!(verify_prehash(&pk, &prehash, &sigs[0]).is_err());
}

/// The signers (keygen indices) presign together; each gets its own presignature.
async fn presign_by(
    shares: &[Arc<KeyShare>],
    signers: &'static [u16],
    session: &'static [u8],
) -> Vec<Presignature> {
    let mut net = Network::new();
    parties(signers.iter().map(|&s| {
        let delivery = net.connect_new_party();
        let share = shares[usize::from(s)].clone();
        async move {
            let party = MpcParty::connected(delivery);
            presign(&mut OsRng, session, &share, signers, party).await
        }
    }))
    .await
    .expect("presigning")
}

/// Presignatures: offline with two of three, then one round online: the partials combine into a
/// signature k256 accepts; a presignature survives its encoding; a partial that is not its
/// signer's is refused naming that signer's position; a missing or repeated partial is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn presignatures_sign_in_one_round() {
    let shares = three_parties().await;
    let pk = shares[0].public_key();
    let presigs = presign_by(shares, &[2, 0], b"presign 1").await;
    assert_eq!(presigs[0].public().signers(), &[2, 0]);
    // Through the encoding, as a party stores it between the two phases.
    let presigs: Vec<Presignature> = presigs
        .iter()
        .map(|p| Presignature::from_bytes(&p.to_bytes().expect("encode")).expect("decode"))
        .collect();
    let msg = b"signed online";
    let (partials, publics): (Vec<Partial>, Vec<Presigned>) =
        presigs.into_iter().map(|p| p.issue(msg)).unzip();
    assert_eq!(
        publics[0], publics[1],
        "every signer holds the same public part"
    );
    let wire: Vec<Partial> = partials
        .iter()
        .map(|p| Partial::from_bytes(&p.to_bytes()).expect("partial"))
        .collect();
    let sig = publics[1].combine(&wire, msg).expect("combine");
    assert!(k256_accepts(&pk, msg, &sig));
    assert_eq!(
        publics[0]
            .combine(&[wire[1], wire[0]], msg)
            .expect("any order"),
        sig
    );

    // Another presignature's partial in position 1: position 1 is blamed.
    let other = presign_by(shares, &[2, 0], b"presign 2").await;
    let (stray, _) = other.into_iter().nth(1).expect("two").issue(msg);
    match publics[0].combine(&[wire[0], stray], msg) {
        Err(Error::Threshold(Run::Aborted { blamed, .. })) => assert_eq!(blamed, [1]),
        other => panic!("expected position 1 blamed, got {other:?}"),
    }
    // The partials of one message do not sign another.
    assert!(matches!(
        publics[0].combine(&wire, b"another message"),
        Err(Error::Threshold(Run::Aborted { .. }))
    ));
    for bad in [&wire[..1], &[wire[0], wire[0]][..]] {
        assert!(matches!(
            publics[0].combine(bad, msg),
            Err(Error::Threshold(Run::Parameters(_)))
        ));
    }
}
