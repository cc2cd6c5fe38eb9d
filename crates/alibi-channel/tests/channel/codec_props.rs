//! Property tests for the wire codecs: every message we build parses back to itself, keeps its
//! bytes, and authenticates only under the right keys; arbitrary bytes never panic the parsers.

use alibi_channel::cipher::CiphertextMessage;
use alibi_channel::{PreKeySignalMessage, SessionRecord, SignalMessage};
use alibi_identity::{IdentityKey, PrivateKey};
use proptest::prelude::*;

fn key(seed: u8) -> alibi_identity::PublicKey {
    PrivateKey::from_bytes([seed; 32]).public_key()
}

proptest! {
    #[test]
    fn signal_message_roundtrip(
        version in 3u8..=4,
        mac_key in any::<[u8; 32]>(),
        counter in any::<u32>(),
        previous in any::<u32>(),
        body in proptest::collection::vec(any::<u8>(), 0..300),
        seeds in (1u8..=255, 1u8..=255, 1u8..=255),
    ) {
        let (s, r) = (IdentityKey(key(seeds.0)), IdentityKey(key(seeds.1)));
        let m = SignalMessage::new(version, &mac_key, key(seeds.2), counter, previous, body.clone(), &s, &r, &[1, 1, 1, 0]);
        prop_assert_eq!(m.serialized()[0], (version << 4) | 4);
        let p = SignalMessage::deserialize(m.serialized()).unwrap();
        prop_assert_eq!(&p, &m);
        prop_assert_eq!(p.counter(), counter);
        prop_assert_eq!(p.previous_counter(), previous);
        prop_assert_eq!(p.ciphertext(), &body[..]);
        prop_assert_eq!(p.pq_ratchet(), &[1, 1, 1, 0][..]);
        prop_assert!(p.verify_mac(&s, &r, &mac_key));
        prop_assert!(!p.verify_mac(&r, &s, &mac_key) || s == r);
        let mut other = mac_key;
        other[0] ^= 1;
        prop_assert!(!p.verify_mac(&s, &r, &other));
    }

    #[test]
    fn prekey_message_roundtrip(
        reg in any::<u32>(),
        pre_key_id in proptest::option::of(any::<u32>()),
        spk in any::<u32>(),
        kyber in proptest::option::of((any::<u32>(), proptest::collection::vec(any::<u8>(), 1..64))),
        body in proptest::collection::vec(any::<u8>(), 0..64),
    ) {
        let version = if kyber.is_some() { 4 } else { 3 };
        let id = IdentityKey(key(9));
        let inner = SignalMessage::new(version, &[1; 32], key(3), 0, 0, body, &id, &IdentityKey(key(4)), &[]);
        let m = PreKeySignalMessage::new(version, reg, pre_key_id, spk, kyber.clone(), key(5), id, inner);
        let p = PreKeySignalMessage::deserialize(m.serialized()).unwrap();
        prop_assert_eq!(&p, &m);
        prop_assert_eq!(p.kyber, kyber);
        prop_assert_eq!(p.pre_key_id, pre_key_id);
    }

    #[test]
    fn parsers_never_panic(data in proptest::collection::vec(any::<u8>(), 0..400)) {
        for ty in 0..5u8 {
            if let Ok(m) = CiphertextMessage::deserialize(ty, &data) {
                prop_assert_eq!(m.serialize(), &data[..]);
            }
        }
        let _ = SessionRecord::deserialize(&data);
        // The group layer's parsers.
        use alibi_sealed_sender::{v2::SentMessage, SenderCertificate, UnidentifiedSenderMessageContent};
        use alibi_channel::sender_keys::{SenderKeyDistributionMessage, SenderKeyMessage, SenderKeyRecord};
        if let Ok(m) = SenderKeyMessage::deserialize(&data) {
            prop_assert_eq!(m.serialized(), &data[..]);
        }
        let _ = SenderKeyDistributionMessage::deserialize(&data);
        let _ = SenderKeyRecord::deserialize(&data);
        let _ = SenderCertificate::deserialize(&data);
        let _ = UnidentifiedSenderMessageContent::deserialize(&data);
        let id = alibi_identity::IdentityKeyPair::from_private(PrivateKey::from_bytes([3; 32]));
        let _ = alibi_sealed_sender::decrypt_to_usmc(&data, &id);
        for v in [0x22u8, 0x23] {
            let mut d = data.clone();
            d.insert(0, v);
            if let Ok(sent) = SentMessage::parse(&d) {
                for r in &sent.recipients {
                    let _ = sent.received_message(r);
                }
            }
        }
    }
}
