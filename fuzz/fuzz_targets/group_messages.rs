//! The group layer's decoders on untrusted bytes: sender-key messages and distribution messages,
//! sender-key records, server and sender certificates, USMCs, sealed-sender v1 and v2 messages and
//! multi-recipient requests. No panic; whatever parses re-encodes or splits consistently, and
//! opening it with a fixed identity fails cleanly, with the same verdict in a batch as alone.
#![no_main]
use std::sync::OnceLock;

use alibi_channel::sender_keys::{
    group_decrypt, SenderKeyDistributionMessage, SenderKeyMessage, SenderKeyRecord,
};
use alibi_channel::{Address, InMemoryStore};
use alibi_identity::IdentityKeyPair;
use alibi_sealed_sender::v2::SentMessage;
use alibi_sealed_sender::{
    self as sealed_sender, SenderCertificate, ServerCertificate, UnidentifiedSenderMessageContent,
};
use libfuzzer_sys::fuzz_target;
use rand_chacha::rand_core::SeedableRng;

fn identity() -> &'static IdentityKeyPair {
    static I: OnceLock<IdentityKeyPair> = OnceLock::new();
    I.get_or_init(|| IdentityKeyPair::generate(&mut rand_chacha::ChaCha20Rng::seed_from_u64(3)))
}

fuzz_target!(|data: &[u8]| {
    if let Ok(m) = SenderKeyMessage::deserialize(data) {
        assert_eq!(m.serialized(), data);
        let mut store = InMemoryStore::new(identity().clone(), 1);
        let _ = group_decrypt(data, &mut store, &Address::new("x", 1));
    }
    if let Ok(m) = SenderKeyDistributionMessage::deserialize(data) {
        assert_eq!(m.serialized(), data);
    }
    if let Ok(r) = SenderKeyRecord::deserialize(data) {
        let _ = SenderKeyRecord::deserialize(&r.serialize()).expect("re-encoded record parses");
    }
    let _ = ServerCertificate::deserialize(data);
    if let Ok(c) = SenderCertificate::deserialize(data) {
        let _ = c.validate(&[identity().identity.0], 0);
    }
    let _ = UnidentifiedSenderMessageContent::deserialize(data);
    let alone = sealed_sender::decrypt_to_usmc(data, identity());
    // The batch opener on the input cut into pieces that each start at one of its 0x22 bytes
    // (a v2 message's version), the whole input last: each piece gets its verdict alone.
    let starts: Vec<usize> = (0..data.len()).filter(|&i| data[i] == 0x22).collect();
    let mut pieces: Vec<&[u8]> = starts
        .iter()
        .zip(starts.iter().skip(1).chain([&data.len()]))
        .map(|(&a, &b)| &data[a..b])
        .collect();
    pieces.push(data);
    let together = sealed_sender::decrypt_to_usmc_many(&pieces, identity());
    assert_eq!(together.last(), Some(&alone));
    for (p, t) in pieces.iter().zip(&together) {
        assert_eq!(*t, sealed_sender::decrypt_to_usmc(p, identity()));
    }
    let _ = sealed_sender::v2::announced_recipients(data);
    if let Ok(sent) = SentMessage::parse(data) {
        for r in &sent.recipients {
            if let Some(m) = sent.received_message(r) {
                assert_eq!(m[0], 0x22);
                let _ = sealed_sender::decrypt_to_usmc(&m, identity());
            }
        }
    }
});
