//! DGSP end to end over all twelve parameter sets, the published crate's
//! defects as tests, revocation, and the sizes of the paper.

use alibi_dgsp::storage::{MemoryPlm, MemoryRevokedList, Plm};
use alibi_dgsp::{csr, judge, verify, Error, GroupSignature, Manager, Params, UserKey};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use std::collections::HashSet;
use std::sync::Arc;

type M = Manager<MemoryPlm, MemoryRevokedList>;

fn manager(p: Params) -> M {
    let mut rng = ChaCha20Rng::seed_from_u64(p.tag() as u64);
    Manager::generate(
        p,
        MemoryPlm::default(),
        MemoryRevokedList::default(),
        &mut rng,
    )
}

#[test]
fn sizes_match_the_paper() {
    let want = [17_696, 8_464, 36_952, 17_512, 52_080, 32_016];
    for (i, p) in Params::ALL.into_iter().enumerate() {
        assert_eq!(p.signature_len(), want[i % 6], "{p}");
    }
}

#[test]
fn join_certify_sign_verify_open_judge() {
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    let sets = [
        Params::Sha2_128f,
        Params::Sha2_192f,
        Params::Sha2_256f,
        Params::Shake128f,
        Params::Shake192f,
        Params::Shake256f,
        Params::Shake128s,
    ];
    for p in sets {
        end_to_end(p, &mut rng, &[b"first", b"second"]);
    }
}

/// Join, certify, sign each message, verify, open and judge at `p`.
fn end_to_end(p: Params, rng: &mut ChaCha20Rng, msgs: &[&[u8]]) {
    let m = manager(p);
    let (_, _) = m.join("carol").unwrap();
    let (id, cid_star) = m.join("alice").unwrap();
    let alice = UserKey::generate(p, id, rng);
    let (seeds, pks) = csr(&alice, msgs.len(), rng);
    let certs = m.gen_cert(id, &cid_star, &pks).unwrap();
    let mut keys = alice.accept(seeds, certs, m.public_key()).unwrap();
    for &msg in msgs {
        let sig = alice.sign(keys.pop().unwrap(), msg);
        let bytes = sig.to_bytes();
        assert_eq!(bytes.len(), p.signature_len());
        let sig = GroupSignature::from_bytes(p, &bytes).unwrap();
        assert_eq!(verify(m.public_key(), msg, &sig, m.revoked()), Ok(()));
        assert_eq!(
            verify(m.public_key(), b"other", &sig, m.revoked()),
            Err(Error::InvalidSignature)
        );
        let o = m.open(msg, &sig).unwrap();
        assert_eq!((o.id, o.username.as_str()), (id, "alice"));
        assert_eq!(judge(m.public_key(), msg, &sig, id, &o.pi), Ok(()));
        // The judge rejects a manager that names someone else.
        assert_eq!(
            judge(m.public_key(), msg, &sig, 0, &o.pi),
            Err(Error::WrongOpening)
        );
    }
}

/// The five small ("s") sets the test above leaves out: their manager signs certificates with
/// SPHINCS+-s, seconds each, so one message each.
#[test]
fn the_small_parameter_sets_end_to_end() {
    let mut rng = ChaCha20Rng::seed_from_u64(3);
    for p in [
        Params::Sha2_128s,
        Params::Sha2_192s,
        Params::Sha2_256s,
        Params::Shake192s,
        Params::Shake256s,
    ] {
        end_to_end(p, &mut rng, &[b"only"]);
    }
}

#[test]
fn open_and_judge_verify_first() {
    let mut rng = ChaCha20Rng::seed_from_u64(2);
    let p = Params::Shake128f;
    let m = manager(p);
    let (id, cid_star) = m.join("alice").unwrap();
    let alice = UserKey::generate(p, id, &mut rng);
    let (seeds, pks) = csr(&alice, 1, &mut rng);
    let certs = m.gen_cert(id, &cid_star, &pks).unwrap();
    let key = alice
        .accept(seeds, certs, m.public_key())
        .unwrap()
        .pop()
        .unwrap();
    let sig = alice.sign(key, b"m");
    let pi = m.open(b"m", &sig).unwrap().pi;
    // A forged message under the same signature: open and judge refuse it.
    assert_eq!(
        m.open(b"forged", &sig).unwrap_err(),
        Error::InvalidSignature
    );
    assert_eq!(
        judge(m.public_key(), b"forged", &sig, id, &pi).unwrap_err(),
        Error::InvalidSignature
    );
    let mut bytes = sig.to_bytes();
    bytes[0] ^= 1;
    let bad = GroupSignature::from_bytes(p, &bytes).unwrap();
    assert_eq!(m.open(b"m", &bad).unwrap_err(), Error::InvalidSignature);
    // A pi of the wrong length is malformed, not a wrong opening.
    assert!(matches!(
        judge(m.public_key(), b"m", &sig, id, &pi[..2]),
        Err(Error::Length(_))
    ));
}

#[test]
fn bad_credentials_and_revocation() {
    let mut rng = ChaCha20Rng::seed_from_u64(3);
    let p = Params::Shake128f;
    let m = manager(p);
    let (id, cid_star) = m.join("alice").unwrap();
    let (bob, bob_cid) = m.join("bob").unwrap();
    assert_eq!(m.join("alice").unwrap_err(), Error::UsernameTaken);
    let alice = UserKey::generate(p, id, &mut rng);
    let (seeds, pks) = csr(&alice, 3, &mut rng);
    // Bob's cid* does not get certificates for Alice's id; unknown ids are refused.
    assert_eq!(m.gen_cert(id, &bob_cid, &pks).unwrap_err(), Error::BadCid);
    assert_eq!(
        m.gen_cert(99, &cid_star, &pks).unwrap_err(),
        Error::UnknownId(99)
    );
    let certs = m.gen_cert(id, &cid_star, &pks).unwrap();
    // A certificate for another key is refused by the member's check.
    let mut swapped = certs.clone();
    swapped.swap(0, 1);
    let (s2, _) = csr(&alice, 3, &mut rng);
    assert_eq!(
        alice.accept(s2, swapped, m.public_key()).err(),
        Some(Error::InvalidCertificate)
    );
    let mut keys = alice.accept(seeds, certs, m.public_key()).unwrap();
    let sig = alice.sign(keys.pop().unwrap(), b"before");
    assert!(verify(m.public_key(), b"before", &sig, m.revoked()).is_ok());
    m.revoke(&[id]).unwrap();
    assert_eq!(
        verify(m.public_key(), b"before", &sig, m.revoked()),
        Err(Error::Revoked)
    );
    let later = alice.sign(keys.pop().unwrap(), b"after");
    assert_eq!(
        verify(m.public_key(), b"after", &later, m.revoked()),
        Err(Error::Revoked)
    );
    let (_, pks) = csr(&alice, 1, &mut rng);
    assert_eq!(m.gen_cert(id, &cid_star, &pks).unwrap_err(), Error::Revoked);
    // Bob is unaffected.
    assert!(m.plm().member(bob).unwrap().active);
}

/// Concurrent certificate requests for one member never share a position zeta.
#[test]
fn concurrent_gen_cert_never_repeats_a_position() {
    let p = Params::Shake128f;
    let m = Arc::new(manager(p));
    let (id, cid_star) = m.join("alice").unwrap();
    let mut rng = ChaCha20Rng::seed_from_u64(4);
    let alice = UserKey::generate(p, id, &mut rng);
    let (_, pks) = csr(&alice, 2, &mut rng);
    let handles: Vec<_> = (0..4)
        .map(|_| {
            let (m, cid, pks) = (m.clone(), cid_star.clone(), pks.clone());
            std::thread::spawn(move || {
                (0..3)
                    .flat_map(|_| m.gen_cert(id, &cid, &pks).unwrap())
                    .map(|c| c.zeta)
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let zetas: Vec<[u8; 16]> = handles
        .into_iter()
        .flat_map(|h| h.join().unwrap())
        .collect();
    let distinct: HashSet<_> = zetas.iter().collect();
    assert_eq!(zetas.len(), 24);
    assert_eq!(distinct.len(), 24);
    assert_eq!(m.plm().member(id).unwrap().ctr, 24);
}

#[test]
fn malformed_inputs_have_typed_errors() {
    let p = Params::Shake128f;
    assert!(matches!(
        GroupSignature::from_bytes(p, &[0; 10]),
        Err(Error::Length(_))
    ));
    assert_eq!(
        alibi_dgsp::ManagerPublicKey::from_bytes(&[0]).unwrap_err(),
        Error::UnknownParams
    );
    assert!(matches!(
        alibi_dgsp::ManagerSecretKey::from_bytes(&[7, 1]),
        Err(Error::Length(_))
    ));
    let m = manager(p);
    let sk = alibi_dgsp::ManagerSecretKey::from_bytes(&m.secret_key().to_bytes()).unwrap();
    assert_eq!(sk.public_key(), m.public_key());
    assert_eq!(m.secret_key().to_bytes().len(), 1 + 96);
}
