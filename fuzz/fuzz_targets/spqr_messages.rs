//! SPQR's and RingXKEM's decoders on untrusted bytes: the `pq_ratchet` field, SPQR state records,
//! RingXKEM first messages and bundles. No panic; a parsed SPQR message re-encodes to the same
//! bytes; a live SPQR state that refuses the bytes is left as it was.
#![no_main]
use std::sync::{Mutex, OnceLock};

use alibi_akem::pq::Suite;
use alibi_channel::ringxkem::{RingXkemBundle, RingXkemMessage};
use alibi_spqr::message::Message;
use alibi_spqr::{ChainParams, Direction, Params, State, Version};
use libfuzzer_sys::fuzz_target;
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha20Rng;

/// A responder's SPQR state that has taken one message (its version settled).
fn fixture() -> &'static Mutex<State> {
    static F: OnceLock<Mutex<State>> = OnceLock::new();
    F.get_or_init(|| {
        let mut rng = ChaCha20Rng::seed_from_u64(1);
        let p = |direction| Params {
            direction,
            version: Version::V1,
            min_version: Version::V1,
            auth_key: &[9; 32],
            chain_params: ChainParams::default(),
        };
        let mut a = State::new(&p(Direction::A2B));
        let mut b = State::new(&p(Direction::B2A));
        let m = a.send(&mut rng).unwrap().message;
        b.recv(&m).unwrap();
        Mutex::new(b)
    })
}

fuzz_target!(|data: &[u8]| {
    if let Ok(m) = Message::from_bytes(data) {
        assert_eq!(m.to_bytes(), data);
    }
    let _ = State::from_bytes(data);
    let mut b = fixture().lock().unwrap();
    let before = b.clone();
    if b.recv(data).is_err() {
        assert!(*b == before, "a refused field changed the state");
    } else {
        *b = before;
    }
    let _ = RingXkemMessage::deserialize(data);
    for suite in [Suite::MlKem512Falcon512, Suite::MlKem768Falcon1024] {
        if let Ok(bundle) = RingXkemBundle::from_bytes(suite, data) {
            let _ = bundle.verify();
        }
    }
});
