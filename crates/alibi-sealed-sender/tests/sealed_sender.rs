//! Sender certificates and sealed sender v2 on their own, without sessions: the chain of
//! certificates and its rejections, and one multi-recipient message opened by each of 100
//! recipients. (Sealed sender with sessions and sender keys is tested in alibi-channel.)

mod common;

use alibi_identity::{IdentityKeyPair, PrivateKey};
use alibi_sealed_sender::v2::{self, Recipient, SentMessage};
use alibi_sealed_sender::{
    self as sealed_sender, ContentType, SenderCertificate, ServerCertificate, ServiceId,
    UnidentifiedSenderMessageContent,
};
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha20Rng;
use uuid::Uuid;

const NOW: u64 = 1_800_000_000_000;
const LATER: u64 = NOW + 86_400_000;

fn uuid(i: u8) -> String {
    format!("aaaaaaaa-7000-11eb-b32a-33b8a8a487{i:02x}")
}

#[test]
fn certificates_chain_expire_and_refuse_forgeries() {
    let mut rng = ChaCha20Rng::from_seed([42; 32]);
    let auth = common::Authority::new(&mut rng);
    let alice = common::party(&mut rng, 1);
    let root = [auth.root.public_key()];
    let cert = auth.certify(&alice, &uuid(1), 1, LATER, &mut rng);
    let cert = SenderCertificate::deserialize(cert.serialized()).unwrap();
    assert!(cert.validate(&root, NOW));
    assert!(cert.validate(&root, LATER));
    assert!(!cert.validate(&root, LATER + 1), "expired");
    let other = PrivateKey::generate(&mut rng).public_key();
    assert!(!cert.validate(&[other], NOW), "another trust root");
    assert!(
        cert.validate(&[other, root[0]], NOW),
        "one of several roots"
    );
    // A server certificate signed by someone else.
    let rogue = ServerCertificate::new(
        1,
        auth.server_key.public_key(),
        &PrivateKey::generate(&mut rng),
        &mut rng,
    );
    let forged = SenderCertificate::new(
        uuid(1),
        None,
        cert.key,
        1,
        LATER,
        rogue,
        &auth.server_key,
        &mut rng,
    );
    assert!(!forged.validate(&root, NOW));
    // A sender certificate signed by a key other than the server certificate's.
    let forged = SenderCertificate::new(
        uuid(1),
        None,
        cert.key,
        1,
        LATER,
        auth.server.clone(),
        &PrivateKey::generate(&mut rng),
        &mut rng,
    );
    assert!(!forged.validate(&root, NOW));
    // A revoked server key id.
    let revoked = ServerCertificate::new(
        0xDEADC357,
        auth.server_key.public_key(),
        &auth.root,
        &mut rng,
    );
    let c = SenderCertificate::new(
        uuid(1),
        None,
        cert.key,
        1,
        LATER,
        revoked,
        &auth.server_key,
        &mut rng,
    );
    assert!(!c.validate(&root, NOW));
    // Bit flips anywhere are refused or do not validate.
    let wire = cert.serialized().to_vec();
    for i in 0..wire.len() {
        let mut bad = wire.clone();
        bad[i] ^= 0x01;
        if let Ok(c) = SenderCertificate::deserialize(&bad) {
            assert!(!c.validate(&root, NOW) || c == cert, "byte {i}");
        }
    }
}

#[test]
fn v2_to_many_recipients() {
    let mut rng = ChaCha20Rng::from_seed([45; 32]);
    let auth = common::Authority::new(&mut rng);
    let alice = common::party(&mut rng, 1);
    let cert = auth.certify(&alice, &uuid(1), 1, LATER, &mut rng);
    let ids: Vec<IdentityKeyPair> = (0..100)
        .map(|_| IdentityKeyPair::generate(&mut rng))
        .collect();
    let recipients: Vec<Recipient> = ids
        .iter()
        .enumerate()
        .map(|(i, id)| Recipient {
            service_id: ServiceId::aci(Uuid::from_u128(i as u128 + 1)),
            identity: id.identity,
            devices: vec![(1, i as u16)],
        })
        .collect();
    let usmc =
        UnidentifiedSenderMessageContent::new(ContentType::Whisper, cert, vec![5; 100], 0, None);
    let sent = v2::encrypt(
        &usmc,
        &alice.identity_key_pair().unwrap(),
        &recipients,
        &[],
        &mut rng,
    )
    .unwrap();
    let parsed = SentMessage::parse(&sent).unwrap();
    for (r, id) in parsed.recipients.iter().zip(&ids) {
        let u = sealed_sender::decrypt_to_usmc(&parsed.received_message(r).unwrap(), id).unwrap();
        assert_eq!(u.contents, vec![5; 100]);
    }
}

/// Messages opened together get the verdicts they get alone: good v2 messages, v2 messages with
/// each part spoiled (C, so M and the ephemeral key disagree; E; the tag; the ciphertext), one
/// sealed to another recipient, truncated ones, a v1 message and an unknown version.
#[test]
fn v2_opened_together_as_alone() {
    let mut rng = ChaCha20Rng::from_seed([46; 32]);
    let auth = common::Authority::new(&mut rng);
    let alice = common::party(&mut rng, 1);
    let alice_keys = alice.identity_key_pair().unwrap();
    let cert = auth.certify(&alice, &uuid(1), 1, LATER, &mut rng);
    let bob = IdentityKeyPair::generate(&mut rng);
    let carol = IdentityKeyPair::generate(&mut rng);
    let sealed_to = |who: &IdentityKeyPair, n: u8, rng: &mut ChaCha20Rng| {
        let usmc = UnidentifiedSenderMessageContent::new(
            ContentType::Whisper,
            cert.clone(),
            vec![n; 50 + n as usize],
            0,
            None,
        );
        let recipient = Recipient {
            service_id: ServiceId::aci(Uuid::from_u128(7)),
            identity: who.identity,
            devices: vec![(1, 7)],
        };
        let sent = v2::encrypt(&usmc, &alice_keys, &[recipient], &[], rng).unwrap();
        let parsed = SentMessage::parse(&sent).unwrap();
        parsed.received_message(&parsed.recipients[0]).unwrap()
    };
    let mut messages: Vec<Vec<u8>> = (0..4).map(|n| sealed_to(&bob, n, &mut rng)).collect();
    // 0x22 || C (1..33) || AT (33..49) || E (49..81) || ciphertext.
    for (n, at) in [(10, 5), (11, 40), (12, 60), (13, 90)] {
        let mut m = sealed_to(&bob, n, &mut rng);
        m[at] ^= 0x04;
        messages.push(m);
    }
    messages.push(sealed_to(&carol, 20, &mut rng));
    messages.push(sealed_to(&bob, 21, &mut rng)[..60].to_vec());
    messages.push(vec![0x22]);
    messages.push(vec![]);
    messages.push(vec![0x52; 120]);
    let usmc = UnidentifiedSenderMessageContent::new(
        ContentType::Whisper,
        cert.clone(),
        vec![9; 9],
        0,
        None,
    );
    messages.push(alibi_sealed_sender::v1::encrypt(
        &usmc,
        &alice_keys,
        &bob.identity.0,
        &mut rng,
    ));
    messages.push(sealed_to(&bob, 30, &mut rng));

    let refs: Vec<&[u8]> = messages.iter().map(Vec::as_slice).collect();
    let together = sealed_sender::decrypt_to_usmc_many(&refs, &bob);
    let alone: Vec<_> = refs
        .iter()
        .map(|m| sealed_sender::decrypt_to_usmc(m, &bob))
        .collect();
    assert_eq!(together, alone);
    let opened: Vec<bool> = together.iter().map(Result::is_ok).collect();
    let mut expected = vec![true; 4];
    expected.extend([false; 9]);
    expected.extend([true, true]);
    assert_eq!(opened, expected);
    assert!(sealed_sender::decrypt_to_usmc_many(&[], &bob).is_empty());
}
