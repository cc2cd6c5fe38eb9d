//! The member values of `alibi_dgsp::member`: their byte layouts (the files of `alibi group`,
//! which must not change), a whole join-request-certify-sign round through bytes, typed errors,
//! and round trips and hostile bytes as properties.

use alibi_dgsp::storage::{MemoryPlm, MemoryRevokedList};
use alibi_dgsp::{
    csr, request_keys, take_one_time_key, verify, Certificate, CertificateList, CertificateRequest,
    Credential, Error, Manager, Params, PendingKeys, UserKey, WotsSeed,
};
use proptest::prelude::*;
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

/// A manager of `p` over in-memory stores, and the generator it was drawn from.
fn manager(p: Params, seed: u64) -> (Manager<MemoryPlm, MemoryRevokedList>, ChaCha20Rng) {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let m = Manager::generate(
        p,
        MemoryPlm::default(),
        MemoryRevokedList::default(),
        &mut rng,
    );
    (m, rng)
}

/// The member's two steps on its stored state: `request_keys` numbers the keys in the
/// credential, `take_one_time_key` counts each used and refuses a restored copy of the pending
/// keys, an empty list and another member's credential.
#[test]
fn request_and_take_keep_the_credential_counting() {
    let p = Params::Shake128f;
    let (m, mut rng) = manager(p, 8);
    let (id, cid_star) = m.join("alice").unwrap();
    let mut cred = Credential::new(p, id, &cid_star).unwrap();
    let user = UserKey::generate(p, id, &mut rng);
    let (req, mut pending) = request_keys(&mut cred, &user, 2, &mut rng).unwrap();
    assert_eq!(pending.next_index(), Some(0));
    let issued = m
        .gen_cert(id, req.credential().cid_star(), req.public_keys())
        .unwrap();
    let mut certs = CertificateList::new(p, issued).unwrap();
    // A backup of the member's files, restored below after a key was used.
    let backup = (
        PendingKeys::from_file_bytes(p, &pending.to_file_bytes()).unwrap(),
        certs.clone(),
    );
    let take = |pending: &mut PendingKeys, certs: &mut CertificateList, cred: &mut Credential| {
        take_one_time_key(&user, pending, certs, Some(cred), m.public_key())
    };
    let key = take(&mut pending, &mut certs, &mut cred).unwrap();
    let sig = user.sign(key, b"m");
    verify(m.public_key(), b"m", &sig, m.revoked()).unwrap();
    assert_eq!(cred.next_unused(), 1);
    let (mut old_pending, mut old_certs) = backup;
    assert!(matches!(
        take(&mut old_pending, &mut old_certs, &mut cred),
        Err(Error::OneTimeKeyUsed { index: 0, next: 1 })
    ));
    take(&mut pending, &mut certs, &mut cred).unwrap();
    assert!(matches!(
        take(&mut pending, &mut certs, &mut cred),
        Err(Error::NoPendingKey)
    ));
    let (other_id, other_star) = m.join("bob").unwrap();
    let mut other = Credential::new(p, other_id, &other_star).unwrap();
    assert!(matches!(
        request_keys(&mut other, &user, 1, &mut rng),
        Err(Error::OtherMember { .. })
    ));
}

#[test]
fn layouts_are_the_files_of_alibi_group() {
    let p = Params::Shake128f;
    let (m, mut rng) = manager(p, 7);
    m.join("carol").unwrap();
    let (id, cid_star) = m.join("alice").unwrap();
    assert_eq!(id, 1);
    let head = [&[p.tag()][..], &1u64.to_be_bytes()].concat();

    // Credential: tag || id (big-endian) || cid*.
    let cred = Credential::new(p, id, &cid_star).unwrap();
    let cred_bytes = cred.to_bytes();
    assert_eq!(&cred_bytes[..], &[&head[..], &cid_star].concat()[..]);
    assert_eq!(cred_bytes.len(), Credential::encoded_len(p));
    let cred = Credential::from_bytes(&cred_bytes).unwrap();
    assert_eq!(
        (cred.params(), cred.id(), cred.cid_star()),
        (p, id, &cid_star[..])
    );

    // Member secret key: tag || id || seed.
    let user = UserKey::generate(p, id, &mut rng);
    let user_bytes = user.to_bytes();
    assert_eq!(&user_bytes[..], &[&head[..], user.seed()].concat()[..]);
    let user = UserKey::from_bytes(&user_bytes).unwrap();

    // Request: the credential's bytes, then the public keys; pending seeds: the seeds in order.
    let (seeds, pks) = csr(&user, 3, &mut rng);
    let seed_bytes: Vec<u8> = seeds.iter().flat_map(|s| s.as_bytes().to_vec()).collect();
    let pending = PendingKeys::new(p, seeds).unwrap().to_bytes();
    assert_eq!(&pending[..], &seed_bytes[..]);
    let req = CertificateRequest::new(cred, pks.clone())
        .unwrap()
        .to_bytes();
    assert_eq!(req, [&cred_bytes[..], &pks.concat()].concat());

    // The manager certifies what it decodes; certificates: each one's bytes, in order.
    let req = CertificateRequest::from_bytes(&req).unwrap();
    assert_eq!(
        (req.params(), req.id(), req.public_keys()),
        (p, id, &pks[..])
    );
    let issued = m
        .gen_cert(req.id(), req.credential().cid_star(), req.public_keys())
        .unwrap();
    let cert_bytes: Vec<u8> = issued.iter().flat_map(Certificate::to_bytes).collect();
    let certs = CertificateList::new(p, issued).unwrap().to_bytes();
    assert_eq!(certs, cert_bytes);

    // The member signs with the first key of each file and keeps the rest.
    let mut pending = PendingKeys::from_bytes(p, &pending).unwrap();
    let mut certs = CertificateList::from_bytes(p, &certs).unwrap();
    assert_eq!((pending.len(), certs.len()), (3, 3));
    let (seed, cert) = (pending.take_next().unwrap(), certs.take_next().unwrap());
    assert_eq!(&pending.to_bytes()[..], &seed_bytes[p.n()..]);
    assert_eq!(certs.to_bytes(), cert_bytes[Certificate::encoded_len(p)..]);
    let key = user
        .accept(vec![seed], vec![cert], m.public_key())
        .unwrap()
        .pop()
        .unwrap();
    let sig = user.sign(key, b"hello");
    assert!(verify(m.public_key(), b"hello", &sig, m.revoked()).is_ok());
    assert_eq!(m.open(b"hello", &sig).unwrap().username, "alice");
}

#[test]
fn malformed_member_values_have_typed_errors() {
    let p = Params::Shake128f;
    let cred = Credential::new(p, 5, &[9; 16]).unwrap().to_bytes();
    for bad in [&[][..], &[0][..], &[13, 0, 0][..]] {
        assert_eq!(
            Credential::from_bytes(bad).err(),
            Some(Error::UnknownParams)
        );
        assert_eq!(UserKey::from_bytes(bad).err(), Some(Error::UnknownParams));
        assert_eq!(
            CertificateRequest::from_bytes(bad).err(),
            Some(Error::UnknownParams)
        );
    }
    let long = [&cred[..], &[0]].concat();
    assert!(
        matches!(Credential::from_bytes(&long), Err(Error::Length(l)) if l.expected == 25 && l.got == 26)
    );
    assert!(matches!(
        UserKey::from_bytes(&cred[..24]),
        Err(Error::Length(_))
    ));
    assert!(matches!(
        Credential::new(p, 5, &[9; 15]),
        Err(Error::Length(_))
    ));

    // A credential is no request; a request must hold whole keys.
    assert_eq!(
        CertificateRequest::from_bytes(&cred).err(),
        Some(Error::NoOneTimeKey)
    );
    for len in [10, 24, 26, 40, 42] {
        let b = [&cred[..], &[1; 32]].concat();
        assert!(
            matches!(CertificateRequest::from_bytes(&b[..len]), Err(Error::ListLength { got, .. }) if got == len),
            "{len}"
        );
    }
    let c = Credential::from_bytes(&cred).unwrap();
    assert_eq!(
        CertificateRequest::new(c.clone(), vec![]).err(),
        Some(Error::NoOneTimeKey)
    );
    assert!(matches!(
        CertificateRequest::new(c, vec![vec![0; 15]]),
        Err(Error::Length(_))
    ));

    // Pending seeds and certificates: whole entries only.
    assert!(matches!(
        PendingKeys::from_bytes(p, &[0; 17]),
        Err(Error::ListLength { got: 17, .. })
    ));
    let cl = Certificate::encoded_len(p);
    assert!(matches!(
        CertificateList::from_bytes(p, &vec![0; cl + 1]),
        Err(Error::ListLength { .. })
    ));
    let cert = Certificate::from_bytes(p, &vec![0; cl]).unwrap();
    assert!(matches!(
        CertificateList::new(Params::Shake192f, vec![cert]),
        Err(Error::Length(_))
    ));
    assert!(PendingKeys::from_bytes(p, &[]).unwrap().is_empty());
    assert!(CertificateList::from_bytes(p, &[]).unwrap().is_empty());
}

fn params() -> impl Strategy<Value = Params> {
    (0..Params::ALL.len()).prop_map(|i| Params::ALL[i])
}

/// A parameter set and `count` random n-byte values of it.
fn n_bytes(count: std::ops::Range<usize>) -> impl Strategy<Value = (Params, Vec<Vec<u8>>)> {
    (params(), count).prop_flat_map(|(p, k)| {
        (
            Just(p),
            proptest::collection::vec(proptest::collection::vec(any::<u8>(), p.n()), k),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn credentials_and_user_keys_round_trip((p, v) in n_bytes(1..2), id in any::<u64>()) {
        let c = Credential::new(p, id, &v[0]).unwrap();
        let b = c.to_bytes();
        let d = Credential::from_bytes(&b).unwrap();
        prop_assert_eq!((d.params(), d.id(), d.cid_star()), (p, id, &v[0][..]));
        prop_assert_eq!(&d.to_bytes()[..], &b[..]);
        let u = UserKey::from_parts(p, id, &v[0]).unwrap();
        let b = u.to_bytes();
        let d = UserKey::from_bytes(&b).unwrap();
        prop_assert_eq!((d.params(), d.id(), d.seed()), (p, id, &v[0][..]));
        prop_assert_eq!(&d.to_bytes()[..], &b[..]);
    }

    #[test]
    fn requests_round_trip((p, v) in n_bytes(2..10), id in any::<u64>()) {
        let cred = Credential::new(p, id, &v[0]).unwrap();
        let r = CertificateRequest::new(cred, v[1..].to_vec()).unwrap();
        let b = r.to_bytes();
        prop_assert_eq!(b.len(), Credential::encoded_len(p) + (v.len() - 1) * p.n());
        let d = CertificateRequest::from_bytes(&b).unwrap();
        prop_assert_eq!((d.params(), d.id()), (p, id));
        prop_assert_eq!(d.credential().cid_star(), &v[0][..]);
        prop_assert_eq!(d.public_keys(), &v[1..]);
        prop_assert_eq!(d.to_bytes(), b);
    }

    #[test]
    fn pending_keys_round_trip((p, v) in n_bytes(0..10)) {
        let seeds = v.iter().map(|s| WotsSeed::from_bytes(p, s).unwrap()).collect();
        let b = PendingKeys::new(p, seeds).unwrap().to_bytes();
        prop_assert_eq!(&b[..], &v.concat()[..]);
        let mut d = PendingKeys::from_bytes(p, &b).unwrap();
        prop_assert_eq!(d.len(), v.len());
        prop_assert_eq!(&d.to_bytes()[..], &b[..]);
        for s in &v {
            let next = d.take_next().unwrap();
            prop_assert_eq!(next.as_bytes(), &s[..]);
        }
        prop_assert!(d.take_next().is_none());
    }

    #[test]
    fn certificate_lists_round_trip(p in params(), seeds in proptest::collection::vec(any::<u8>(), 0..4)) {
        // Certificates are long (up to 30 kB): each is one byte repeated.
        let certs: Vec<Certificate> = seeds
            .iter()
            .map(|&x| Certificate::from_bytes(p, &vec![x; Certificate::encoded_len(p)]).unwrap())
            .collect();
        let b = CertificateList::new(p, certs.clone()).unwrap().to_bytes();
        let mut d = CertificateList::from_bytes(p, &b).unwrap();
        prop_assert_eq!(d.to_bytes(), b);
        for c in certs {
            prop_assert_eq!(d.take_next(), Some(c));
        }
        prop_assert!(d.is_empty());
    }

    /// Bytes that start with any tag (valid or not) and have lengths around the values' sizes:
    /// a typed error or a value that re-encodes to the same bytes, never a panic.
    #[test]
    fn hostile_bytes_decode_or_fail_cleanly(tag in 0u8..14, body in proptest::collection::vec(any::<u8>(), 0..130)) {
        let b = [&[tag][..], &body].concat();
        if let Ok(c) = Credential::from_bytes(&b) {
            prop_assert_eq!(&c.to_bytes()[..], &b[..]);
        }
        if let Ok(u) = UserKey::from_bytes(&b) {
            prop_assert_eq!(&u.to_bytes()[..], &b[..]);
        }
        if let Ok(r) = CertificateRequest::from_bytes(&b) {
            prop_assert_eq!(r.to_bytes(), b.clone());
        }
        for p in Params::ALL {
            if let Ok(k) = PendingKeys::from_bytes(p, &b) {
                prop_assert_eq!(&k.to_bytes()[..], &b[..]);
            }
            if let Ok(k) = CertificateList::from_bytes(p, &b) {
                prop_assert_eq!(k.to_bytes(), b.clone());
            }
        }
    }
}

/// The member's files number its one-time keys: a credential file carries issued and used, a
/// pending file its first index; both still read in their older, unnumbered form. A key below
/// the credential's next unused index (a restored backup of the pending file) is refused.
#[test]
fn one_time_keys_are_numbered_and_a_used_one_is_refused() {
    let p = Params::Shake128f;
    let mut cred = Credential::new(p, 7, &[3; 16]).unwrap();
    assert_eq!(
        Credential::from_file_bytes(&cred.to_bytes())
            .unwrap()
            .next_unused(),
        0,
        "a bare credential reads with numbers 0"
    );
    assert_eq!(cred.issue(3), Ok(0));
    assert_eq!(cred.issue(2), Ok(3));
    let file = cred.to_file_bytes();
    assert_eq!(file.len(), Credential::encoded_len(p) + 8);
    let mut back = Credential::from_file_bytes(&file).unwrap();
    assert_eq!(
        back.to_bytes(),
        cred.to_bytes(),
        "requests carry no numbers"
    );
    assert_eq!(back.use_key(1), Ok(()));
    assert_eq!(back.next_unused(), 2);
    assert_eq!(
        back.use_key(0),
        Err(Error::OneTimeKeyUsed { index: 0, next: 2 })
    );
    assert_eq!(
        back.use_key(1).err(),
        Some(Error::OneTimeKeyUsed { index: 1, next: 2 })
    );
    assert_eq!(back.use_key(4), Ok(()));
    assert_eq!(back.issue(1), Ok(5));
    assert!(matches!(
        Credential::from_file_bytes(&file[..file.len() - 1]),
        Err(Error::Length(_))
    ));
    // A credential file is no certificate request.
    assert!(CertificateRequest::from_bytes(&file).is_err());

    let seeds = |k: u8| {
        (0..k)
            .map(|i| WotsSeed::from_bytes(p, &[i; 16]).unwrap())
            .collect()
    };
    let mut pending = PendingKeys::numbered(p, seeds(2), 5).unwrap();
    let b = pending.to_file_bytes();
    assert_eq!(b.len(), 4 + 2 * 16);
    assert_eq!(&b[4..], &pending.to_bytes()[..]);
    let mut back = PendingKeys::from_file_bytes(p, &b).unwrap();
    assert_eq!(back.next_index(), Some(5));
    assert_eq!(back.take_next().unwrap().as_bytes(), &[0; 16]);
    assert_eq!(back.next_index(), Some(6));
    assert!(pending.take_next().is_some());
    assert_eq!(pending.to_file_bytes()[..], back.to_file_bytes()[..]);
    let bare = PendingKeys::from_file_bytes(p, &PendingKeys::new(p, seeds(1)).unwrap().to_bytes())
        .unwrap();
    assert_eq!((bare.len(), bare.next_index()), (1, None));
    assert!(matches!(
        PendingKeys::from_file_bytes(p, &[0; 7]),
        Err(Error::ListLength { got: 7, .. })
    ));
}
