//! DGSP member values (`alibi_dgsp::member`): credentials, member secret keys, certificate
//! requests, pending one-time seeds and certificate lists, every decoder on every input; no panic,
//! and accepted encodings re-encode to the same bytes. Inputs edit valid values of each kind
//! (`alibi_fuzz::input`), so the fuzzer starts past the tag and length checks.
#![no_main]
use alibi_dgsp::storage::{MemoryPlm, MemoryRevokedList};
use alibi_dgsp::{
    csr, CertificateList, CertificateRequest, Credential, Manager, Params, PendingKeys, UserKey,
};
use libfuzzer_sys::fuzz_target;
use rand_chacha::rand_core::SeedableRng;
use std::sync::OnceLock;

/// A credential, a member secret key, a request for two keys, their pending seeds and their
/// certificates, at SHAKE-128f.
fn samples() -> &'static Vec<Vec<u8>> {
    static S: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    S.get_or_init(|| {
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(1);
        let p = Params::Shake128f;
        let m = Manager::generate(
            p,
            MemoryPlm::default(),
            MemoryRevokedList::default(),
            &mut rng,
        );
        let (id, cid_star) = m.join("fuzz").expect("a fresh name");
        let cred = Credential::new(p, id, &cid_star).expect("n bytes");
        let user = UserKey::generate(p, id, &mut rng);
        let (seeds, pks) = csr(&user, 2, &mut rng);
        let certs = m.gen_cert(id, &cid_star, &pks).expect("a member's request");
        vec![
            cred.to_bytes().to_vec(),
            user.to_bytes().to_vec(),
            CertificateRequest::new(cred, pks).expect("two keys").to_bytes(),
            PendingKeys::new(p, seeds).expect("n bytes").to_bytes().to_vec(),
            CertificateList::new(p, certs).expect("SHAKE-128f").to_bytes(),
        ]
    })
}

fuzz_target!(|data: &[u8]| {
    let data = &alibi_fuzz::input(data, samples())[..];
    if let Ok(c) = Credential::from_bytes(data) {
        assert_eq!(&c.to_bytes()[..], data);
    }
    // The credential file (with its key numbers, or bare) reads back what it writes.
    if let Ok(c) = Credential::from_file_bytes(data) {
        let again = Credential::from_file_bytes(&c.to_file_bytes()).expect("re-reads");
        assert_eq!(again.to_file_bytes(), c.to_file_bytes());
    }
    if let Ok(k) = UserKey::from_bytes(data) {
        assert_eq!(&k.to_bytes()[..], data);
    }
    if let Ok(r) = CertificateRequest::from_bytes(data) {
        assert_eq!(r.to_bytes(), data);
    }
    for p in Params::ALL {
        if let Ok(k) = PendingKeys::from_bytes(p, data) {
            assert_eq!(&k.to_bytes()[..], data);
        }
        if let Ok(k) = PendingKeys::from_file_bytes(p, data) {
            let again = PendingKeys::from_file_bytes(p, &k.to_file_bytes()).expect("re-reads");
            assert_eq!(again.to_file_bytes(), k.to_file_bytes());
        }
        if let Ok(c) = CertificateList::from_bytes(p, data) {
            assert_eq!(c.to_bytes(), data);
        }
    }
});
