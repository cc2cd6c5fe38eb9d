//! The one mapping between envelope types and what they carry (relay and clients share it).

use alibi_relay_api::proto::envelope::Type;

#[test]
fn only_the_four_sendable_types_are_accepted() {
    let accepted: Vec<u32> = (0..=300).filter(|&k| Type::sendable(k).is_some()).collect();
    assert_eq!(accepted, vec![1, 3, 6, 8]);
    assert_eq!(Type::sendable(6), Some(Type::UnidentifiedSender));
    assert_eq!(Type::sendable(u32::MAX), None);
}

#[test]
fn pairwise_messages_travel_as_ciphertext_or_prekey_envelopes_and_back() {
    // libsignal's CiphertextMessageType: 2 Whisper, 3 PreKey; RingXKEM's first message (5)
    // travels as a PreKey envelope.
    assert_eq!(Type::of_pairwise(2), Type::Ciphertext);
    assert_eq!(Type::of_pairwise(3), Type::PrekeyBundle);
    assert_eq!(Type::of_pairwise(5), Type::PrekeyBundle);
    for t in [2u8, 3] {
        assert_eq!(Type::of_pairwise(t).pairwise_message_type(), t);
    }
}
