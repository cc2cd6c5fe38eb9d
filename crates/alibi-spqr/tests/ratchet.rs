//! Two SPQR parties over a lossy, reordering link: every key one side sends is the key the
//! other side receives, epochs advance, and the states survive a save and restore at every
//! step. Bad input (a forged chunk, a replay, a wrong epoch) is refused and changes nothing.

use alibi_spqr::{ChainParams, Direction, Error, Params, State, Version};
use rand_chacha::rand_core::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;

fn pair(min: Version) -> (State, State) {
    let p = |direction| Params {
        direction,
        version: Version::V1,
        min_version: min,
        auth_key: &[41u8; 32],
        chain_params: ChainParams::default(),
    };
    (
        State::new(&p(Direction::A2B)),
        State::new(&p(Direction::B2A)),
    )
}

fn epoch_of(field: &[u8]) -> u64 {
    field[1] as u64
}

#[test]
fn keys_agree_over_a_lossy_reordering_link() {
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    let (mut a, mut b) = pair(Version::V1);
    // In flight: (field, key) per direction.
    let mut to_b: Vec<(Vec<u8>, Option<[u8; 32]>)> = Vec::new();
    let mut to_a: Vec<(Vec<u8>, Option<[u8; 32]>)> = Vec::new();
    let mut max_epoch = 0;
    for step in 0..3000 {
        let r = rng.next_u32();
        if r % 2 == 0 {
            let s = a.send(&mut rng).unwrap();
            to_b.push((s.message, s.key.map(|k| *k)));
        } else {
            let s = b.send(&mut rng).unwrap();
            to_a.push((s.message, s.key.map(|k| *k)));
        }
        // Deliver a random in-flight message now and then; drop one in ten.
        for (q, st) in [(&mut to_b, &mut b), (&mut to_a, &mut a)] {
            if !q.is_empty() && rng.next_u32() % 3 != 0 {
                let i = (rng.next_u32() as usize) % q.len().min(4);
                let (field, key) = q.remove(i);
                max_epoch = max_epoch.max(epoch_of(&field));
                if rng.next_u32() % 10 == 0 {
                    continue;
                }
                match st.recv(&field) {
                    Ok(got) => assert_eq!(got.map(|k| *k), key, "step {step}"),
                    // A message of an old epoch may be too late for its keys.
                    Err(Error::EpochOutOfRange(_)) | Err(Error::KeyTrimmed(_)) => {}
                    Err(e) => panic!("step {step}: {e}"),
                }
            }
        }
        if step % 97 == 0 {
            a = State::from_bytes(&a.to_bytes()).unwrap();
            b = State::from_bytes(&b.to_bytes()).unwrap();
        }
    }
    assert!(max_epoch >= 5, "epochs advanced only to {max_epoch}");
}

/// Drives a ping-pong until the first epoch completes; returns the states.
fn ping_pong(rounds: usize) -> (State, State, ChaCha20Rng) {
    let mut rng = ChaCha20Rng::seed_from_u64(2);
    let (mut a, mut b) = pair(Version::V1);
    for _ in 0..rounds {
        let s = a.send(&mut rng).unwrap();
        assert_eq!(b.recv(&s.message).unwrap().map(|k| *k), s.key.map(|k| *k));
        let s = b.send(&mut rng).unwrap();
        assert_eq!(a.recv(&s.message).unwrap().map(|k| *k), s.key.map(|k| *k));
    }
    (a, b, rng)
}

#[test]
fn epochs_advance_in_a_conversation() {
    let (a, _b, _) = ping_pong(200);
    let f = State::from_bytes(&a.to_bytes()).unwrap();
    assert_eq!(f, a);
    assert!(a.chain_epoch() >= 4, "epoch {}", a.chain_epoch());
}

#[test]
fn bad_input_is_refused_and_changes_nothing() {
    let (mut a, mut b, mut rng) = ping_pong(3);
    let s = a.send(&mut rng).unwrap();
    let before = b.clone();
    // A replay of an accepted message.
    b.recv(&s.message).unwrap();
    let after = b.clone();
    assert!(matches!(b.recv(&s.message), Err(Error::KeyAlreadyUsed(_))));
    assert_eq!(b, after);
    // A wrong (future) epoch.
    let mut wrong = s.message.clone();
    wrong[1] += 5;
    assert!(matches!(b.recv(&wrong), Err(Error::EpochOutOfRange(_))));
    assert_eq!(b, after);
    // Garbage and truncation.
    assert!(b.recv(&[1, 1]).is_err());
    assert!(b.recv(&s.message[..s.message.len() - 1]).is_err());
    assert_eq!(b, after);
    // A version 0 message after negotiation ended.
    assert_eq!(b.recv(&[]), Err(Error::VersionMismatch));
    assert_eq!(b, after);
    let _ = before;
}

/// A forged header chunk reaches the decoder but fails the header MAC when the header
/// completes: the error leaves the receiving state as it was.
#[test]
fn a_forged_header_chunk_fails_the_mac() {
    let mut rng = ChaCha20Rng::seed_from_u64(3);
    let (mut a, mut b) = pair(Version::V1);
    let first = a.send(&mut rng).unwrap().message;
    let second = a.send(&mut rng).unwrap().message;
    let mut third = a.send(&mut rng).unwrap().message;
    b.recv(&first).unwrap();
    b.recv(&second).unwrap();
    third[10] ^= 0x40; // inside the chunk's data
    let saved = b.clone();
    assert_eq!(b.recv(&third), Err(Error::HeaderMac));
    assert_eq!(b, saved);
}

#[test]
fn negotiation_drops_to_v0_only_when_allowed() {
    let mut rng = ChaCha20Rng::seed_from_u64(4);
    // Willing to drop: an empty field settles version 0.
    let (mut a, _) = pair(Version::V0);
    let s = a.send(&mut rng).unwrap();
    assert!(s.key.is_none(), "no keys before the version is settled");
    assert_eq!(a.recv(&[]).unwrap(), None);
    assert_eq!(a.version(), Version::V0);
    assert!(a.send(&mut rng).unwrap().message.is_empty());
    // Minimum version 1: an empty field is refused.
    let (mut a, _) = pair(Version::V1);
    assert_eq!(a.recv(&[]), Err(Error::BelowMinimumVersion));
    // A version we do not know is ignored.
    assert_eq!(a.recv(&[7, 1, 2]).unwrap(), None);
    assert!(a.negotiating());
}

#[test]
fn corrupted_records_are_errors() {
    let (a, _b, _) = ping_pong(20);
    let bytes = a.to_bytes();
    for cut in [1, bytes.len() / 3, bytes.len() - 1] {
        let _ = State::from_bytes(&bytes[..cut]);
    }
    assert!(State::from_bytes(&[0xff, 0xff]).is_err());
}

/// A state's `Debug` names epochs and versions, never key material: no byte list in it, and the
/// handshake key's bytes do not show, at any point of a session.
#[test]
fn debug_shows_no_key_material() {
    let mut rng = ChaCha20Rng::seed_from_u64(7);
    let (mut a, mut b) = pair(Version::V1);
    let check = |s: &State| {
        let text = format!("{s:?}");
        assert!(
            !text.contains('['),
            "a byte list in a state's Debug: {text}"
        );
        assert!(!text.contains("41, 41"), "{text}");
        assert!(text.len() < 400, "{text}");
    };
    check(&a);
    for _ in 0..200 {
        let m = a.send(&mut rng).unwrap().message;
        b.recv(&m).unwrap();
        let m = b.send(&mut rng).unwrap().message;
        a.recv(&m).unwrap();
        check(&a);
        check(&b);
    }
    let p = format!(
        "{:?}",
        Params {
            direction: Direction::A2B,
            version: Version::V1,
            min_version: Version::V0,
            auth_key: &[41u8; 32],
            chain_params: ChainParams::default(),
        }
    );
    assert!(!p.contains("41"), "{p}");
}
