//! The sealed redb store: the identity never written, every value sealed under the store key and
//! bound to its table and key, so a wrong key or a value moved to another row does not open.

use alibi_channel::store::RedbStore;
use alibi_channel::ProtocolStore;
use alibi_identity::{IdentityKeyPair, KeyPair};
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha20Rng;

#[test]
fn values_are_sealed_and_bound_to_their_row() {
    let mut rng = ChaCha20Rng::seed_from_u64(7);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.redb");
    let identity = IdentityKeyPair::generate(&mut rng);
    let pre_key = KeyPair::generate(&mut rng);
    {
        let mut s = RedbStore::open_sealed(&path, identity.clone(), 42, &[1; 32]).unwrap();
        s.save_pre_key(5, &pre_key).unwrap();
        assert_eq!(s.local_registration_id().unwrap(), 42);
        assert_eq!(s.identity_key_pair().unwrap().identity, identity.identity);
    }
    let raw = std::fs::read(&path).unwrap();
    for secret in [identity.private.to_bytes(), pre_key.private.to_bytes()] {
        assert!(
            !raw.windows(32).any(|w| w == &secret[..]),
            "a secret in the file"
        );
    }
    let s = RedbStore::open_sealed(&path, identity.clone(), 42, &[1; 32]).unwrap();
    let got = s.get_pre_key(5).unwrap().unwrap();
    assert_eq!(got.public, pre_key.public);
    drop(s);
    // Another store key: the value does not open (an error, not a wrong key).
    let s = RedbStore::open_sealed(&path, identity, 42, &[2; 32]).unwrap();
    assert!(s.get_pre_key(5).is_err());
}

/// A store another handle holds is [`alibi_channel::Error::Busy`], naming its file, not a store
/// fault: a second command of one party is told the store is busy, not corrupt.
#[test]
fn a_held_store_is_busy() {
    let mut rng = ChaCha20Rng::seed_from_u64(8);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.redb");
    let identity = IdentityKeyPair::generate(&mut rng);
    let _held = RedbStore::open_sealed(&path, identity.clone(), 1, &[1; 32]).unwrap();
    for r in [
        RedbStore::open_sealed(&path, identity.clone(), 1, &[1; 32]).map(drop),
        RedbStore::open(&path).map(drop),
        RedbStore::create(&path, &identity, 1).map(drop),
    ] {
        assert_eq!(r, Err(alibi_channel::Error::Busy(path.clone())));
    }
}
