//! Group messaging between our own parties: sender keys, sender certificates, sealed sender v1
//! and v2 (multi-recipient), and the rejections the issue names.

use crate::common;

use std::time::SystemTime;

use alibi_channel::cipher::{encrypt, process_prekey_bundle};
use alibi_channel::sealed_sender;
use alibi_channel::sender_keys::{
    create_distribution_message, group_decrypt, group_encrypt, process_distribution_message,
    SenderKeyDistributionMessage, SenderKeyRecord, SenderKeyStore,
};
use alibi_channel::{Address, Error, InMemoryStore, ProtocolStore, RedbStore};
use alibi_identity::{IdentityKeyPair, KemKeyType, PrivateKey};
use alibi_sealed_sender::v2::{Recipient, SentMessage};
use alibi_sealed_sender::{v1, v2, ContentType, ServiceId, UnidentifiedSenderMessageContent};
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha20Rng;
use uuid::Uuid;

const NOW: u64 = 1_800_000_000_000;
const LATER: u64 = NOW + 86_400_000;

fn uuid(i: u8) -> String {
    format!("aaaaaaaa-7000-11eb-b32a-33b8a8a487{i:02x}")
}

#[test]
fn sender_keys_in_order_out_of_order_and_tampered() {
    let mut rng = ChaCha20Rng::from_seed([40; 32]);
    let dist = Uuid::from_bytes([7; 16]);
    let (a_at, b_at) = (Address::new(uuid(1), 1), Address::new(uuid(2), 1));
    let mut alice = common::party(&mut rng, 1);
    let mut bob = common::party(&mut rng, 2);
    let skdm = create_distribution_message(&a_at, dist, &mut alice, &mut rng).unwrap();
    assert_eq!(skdm.serialized()[0], 0x33);
    let skdm = SenderKeyDistributionMessage::deserialize(skdm.serialized()).unwrap();
    process_distribution_message(&a_at, &skdm, &mut bob).unwrap();

    let msgs: Vec<_> = (0..50)
        .map(|i| {
            group_encrypt(
                &mut alice,
                &a_at,
                dist,
                format!("m{i}").as_bytes(),
                &mut rng,
            )
            .unwrap()
        })
        .collect();
    assert_eq!(msgs[0].serialized()[0], 0x33);
    let mut order: Vec<usize> = (0..50).collect();
    common::shuffle(&mut order, &mut rng);
    for i in order {
        let pt = group_decrypt(msgs[i].serialized(), &mut bob, &a_at).unwrap();
        assert_eq!(pt, format!("m{i}").as_bytes());
    }
    // Replays are duplicates; nothing changes.
    let before = bob
        .load_sender_key(&a_at, dist)
        .unwrap()
        .unwrap()
        .serialize();
    assert!(matches!(
        group_decrypt(msgs[3].serialized(), &mut bob, &a_at),
        Err(Error::Duplicate { .. })
    ));
    // Every bit flip fails (signature or parse), leaving the record as it was.
    let m = group_encrypt(&mut alice, &a_at, dist, b"x", &mut rng).unwrap();
    let wire = m.serialized().to_vec();
    for i in 0..wire.len() {
        let mut bad = wire.clone();
        bad[i] ^= 0x20;
        assert!(group_decrypt(&bad, &mut bob, &a_at).is_err(), "byte {i}");
    }
    assert_eq!(
        bob.load_sender_key(&a_at, dist)
            .unwrap()
            .unwrap()
            .serialize(),
        before
    );
    assert_eq!(group_decrypt(&wire, &mut bob, &a_at).unwrap(), b"x");
    // Unknown sender, unknown distribution.
    assert!(matches!(
        group_decrypt(&wire, &mut bob, &b_at),
        Err(Error::NoSenderKey(_))
    ));
    // Too far ahead.
    for _ in 0..25_001 {
        group_encrypt(&mut alice, &a_at, dist, b"", &mut rng).unwrap();
    }
    let far = group_encrypt(&mut alice, &a_at, dist, b"far", &mut rng).unwrap();
    assert!(matches!(
        group_decrypt(far.serialized(), &mut bob, &a_at),
        Err(Error::TooFarAhead(_))
    ));
}

#[test]
fn sender_key_records_keep_five_states_and_restore() {
    let mut rng = ChaCha20Rng::from_seed([41; 32]);
    let dist = Uuid::from_bytes([8; 16]);
    let a_at = Address::new(uuid(1), 1);
    let mut bob = common::party(&mut rng, 2);
    let mut skdms = vec![];
    for _ in 0..7 {
        let mut alice = common::party(&mut rng, 1);
        skdms.push((
            create_distribution_message(&a_at, dist, &mut alice, &mut rng).unwrap(),
            alice,
        ));
    }
    for (s, _) in &skdms {
        process_distribution_message(&a_at, s, &mut bob).unwrap();
    }
    // The two oldest chains are gone, the five newest work.
    for (i, (_, alice)) in skdms.iter_mut().enumerate() {
        let m = group_encrypt(alice, &a_at, dist, b"hi", &mut rng).unwrap();
        assert_eq!(
            group_decrypt(m.serialized(), &mut bob, &a_at).is_ok(),
            i >= 2,
            "chain {i}"
        );
    }
    let rec = bob.load_sender_key(&a_at, dist).unwrap().unwrap();
    let enc = rec.serialize();
    assert_eq!(SenderKeyRecord::deserialize(&enc).unwrap().serialize(), enc);
    assert!(SenderKeyRecord::deserialize(&enc[..enc.len() - 3]).is_err());

    // The redb store keeps sender keys across a reopen.
    let dir = tempfile::tempdir().unwrap();
    let mut disk = RedbStore::create(
        dir.path().join("s.redb"),
        &IdentityKeyPair::generate(&mut rng),
        3,
    )
    .unwrap();
    disk.store_sender_key(&a_at, dist, &rec).unwrap();
    drop(disk);
    let disk = RedbStore::open(dir.path().join("s.redb")).unwrap();
    assert_eq!(
        disk.load_sender_key(&a_at, dist)
            .unwrap()
            .unwrap()
            .serialize(),
        enc
    );
}

/// Alice with pairwise sessions to Bob (and Bob's answer read), both with certificates.
struct Pair {
    alice: InMemoryStore,
    bob: InMemoryStore,
    a_at: Address,
    b_at: Address,
    auth: common::Authority,
}

fn pair(rng: &mut ChaCha20Rng) -> Pair {
    let (a_at, b_at) = (Address::new(uuid(1), 1), Address::new(uuid(2), 1));
    let mut alice = common::party(rng, 1);
    let mut bob = common::party(rng, 2);
    let bundle = common::publish(&mut bob, rng, true, Some(KemKeyType::Kyber1024));
    process_prekey_bundle(&b_at, &mut alice, &bundle, SystemTime::now(), rng).unwrap();
    Pair {
        alice,
        bob,
        a_at,
        b_at,
        auth: common::Authority::new(rng),
    }
}

#[test]
fn sealed_sender_v1_roundtrip_and_rejections() {
    let mut rng = ChaCha20Rng::from_seed([43; 32]);
    let mut p = pair(&mut rng);
    let root = [p.auth.root.public_key()];
    let cert = p.auth.certify(&p.alice, &uuid(1), 1, LATER, &mut rng);
    let bob_id = p.bob.identity_key_pair().unwrap().identity.0;
    let alice_id = p.alice.identity_key_pair().unwrap();

    // A PreKey message, sealed.
    let inner = encrypt(&p.b_at, &mut p.alice, b"sealed hello", SystemTime::now()).unwrap();
    let usmc = common::usmc(ContentType::PreKey, cert.clone(), inner.serialize());
    let sealed = v1::encrypt(&usmc, &alice_id, &bob_id, &mut rng);
    assert_eq!(sealed[0], 0x11);
    // Tampering anywhere fails before any session state is made (the version byte's low nibble is
    // not checked, as in libsignal; its high nibble is).
    let mut bad = sealed.clone();
    bad[0] = 0x31;
    assert!(sealed_sender::decrypt(&bad, &root, NOW, &p.b_at, &mut p.bob, &mut rng).is_err());
    for i in (1..sealed.len()).step_by(5) {
        let mut bad = sealed.clone();
        bad[i] ^= 0x01;
        assert!(
            sealed_sender::decrypt(&bad, &root, NOW, &p.b_at, &mut p.bob, &mut rng).is_err(),
            "byte {i}"
        );
    }
    assert!(p.bob.load_session(&p.a_at).unwrap().is_none());
    // The wrong trust root, or too late.
    let wrong = [PrivateKey::generate(&mut rng).public_key()];
    assert!(matches!(
        sealed_sender::decrypt(&sealed, &wrong, NOW, &p.b_at, &mut p.bob, &mut rng),
        Err(Error::Certificate(_))
    ));
    assert!(matches!(
        sealed_sender::decrypt(&sealed, &root, LATER + 1, &p.b_at, &mut p.bob, &mut rng),
        Err(Error::Certificate(_))
    ));
    let d = sealed_sender::decrypt(&sealed, &root, NOW, &p.b_at, &mut p.bob, &mut rng).unwrap();
    assert_eq!(d.plaintext, b"sealed hello");
    assert_eq!(
        (d.sender_uuid.as_str(), d.device_id, d.msg_type),
        (uuid(1).as_str(), 1, ContentType::PreKey)
    );

    // A certificate naming another identity key than the one that sealed is refused.
    let carol = common::party(&mut rng, 3);
    let carols = p.auth.certify(&carol, &uuid(3), 1, LATER, &mut rng);
    let usmc =
        UnidentifiedSenderMessageContent::new(ContentType::Whisper, carols, vec![1, 2, 3], 0, None);
    let sealed = v1::encrypt(&usmc, &alice_id, &bob_id, &mut rng);
    assert!(matches!(
        sealed_sender::decrypt(&sealed, &root, NOW, &p.b_at, &mut p.bob, &mut rng),
        Err(Error::SealedSender(_))
    ));
    // Our own message is refused.
    let bobs = p.auth.certify(&p.bob, &uuid(2), 1, LATER, &mut rng);
    let usmc = UnidentifiedSenderMessageContent::new(ContentType::Whisper, bobs, vec![1], 0, None);
    let sealed = v1::encrypt(
        &usmc,
        &p.bob.identity_key_pair().unwrap(),
        &bob_id,
        &mut rng,
    );
    assert_eq!(
        sealed_sender::decrypt(&sealed, &root, NOW, &p.b_at, &mut p.bob, &mut rng).err(),
        Some(Error::SelfSend)
    );
}

#[test]
fn sealed_sender_v2_to_three_recipients_with_sender_keys() {
    let mut rng = ChaCha20Rng::from_seed([44; 32]);
    let auth = common::Authority::new(&mut rng);
    let root = [auth.root.public_key()];
    let dist = Uuid::from_bytes([9; 16]);
    let a_at = Address::new(uuid(1), 1);
    let mut alice = common::party(&mut rng, 1);
    let cert = auth.certify(&alice, &uuid(1), 1, LATER, &mut rng);
    let skdm = create_distribution_message(&a_at, dist, &mut alice, &mut rng).unwrap();
    // Three accounts; the second has two devices sharing an identity key.
    let id2 = IdentityKeyPair::generate(&mut rng);
    let mut members: Vec<(Address, InMemoryStore)> = vec![
        (Address::new(uuid(2), 1), common::party(&mut rng, 20)),
        (
            Address::new(uuid(3), 1),
            InMemoryStore::new(id2.clone(), 30),
        ),
        (
            Address::new(uuid(3), 2),
            InMemoryStore::new(id2.clone(), 31),
        ),
        (Address::new(uuid(4), 1), common::party(&mut rng, 40)),
    ];
    for (_, s) in members.iter_mut() {
        process_distribution_message(&a_at, &skdm, s).unwrap();
    }
    let ident = |s: &InMemoryStore| s.identity_key_pair().unwrap().identity;
    let recipients = vec![
        Recipient {
            service_id: ServiceId::parse(&uuid(2)).unwrap(),
            identity: ident(&members[0].1),
            devices: vec![(1, 20)],
        },
        Recipient {
            service_id: ServiceId::parse(&uuid(3)).unwrap(),
            identity: ident(&members[1].1),
            devices: vec![(1, 30), (2, 31)],
        },
        Recipient {
            service_id: ServiceId::parse(&uuid(4)).unwrap(),
            identity: ident(&members[3].1),
            devices: vec![(1, 40)],
        },
    ];
    let excluded = [ServiceId::parse(&uuid(5)).unwrap()];
    let skm = group_encrypt(&mut alice, &a_at, dist, b"to the group", &mut rng).unwrap();
    let usmc = UnidentifiedSenderMessageContent::new(
        ContentType::SenderKey,
        cert.clone(),
        skm.serialized().to_vec(),
        1,
        Some(vec![0xAB; 32]),
    );
    let sent = v2::encrypt(
        &usmc,
        &alice.identity_key_pair().unwrap(),
        &recipients,
        &excluded,
        &mut rng,
    )
    .unwrap();
    assert_eq!(sent[0], 0x23);

    let parsed = SentMessage::parse(&sent).unwrap();
    assert_eq!(parsed.recipients.len(), 4);
    assert_eq!(parsed.recipients[1].devices, vec![(1, 30), (2, 31)]);
    assert!(parsed.recipients[3].devices.is_empty());
    assert!(parsed.received_message(&parsed.recipients[3]).is_none());
    let for_account = |i: usize| parsed.received_message(&parsed.recipients[i]).unwrap();
    let received = [
        for_account(0),
        for_account(1),
        for_account(1),
        for_account(2),
    ];
    for ((at, store), msg) in members.iter_mut().zip(&received) {
        assert_eq!(msg[0], 0x22);
        let d = sealed_sender::decrypt(msg, &root, NOW, at, store, &mut rng).unwrap();
        assert_eq!(d.plaintext, b"to the group");
        assert_eq!(d.msg_type, ContentType::SenderKey);
        let usmc =
            alibi_sealed_sender::decrypt_to_usmc(msg, &store.identity_key_pair().unwrap()).unwrap();
        assert_eq!(
            (usmc.content_hint, usmc.group_id.as_deref()),
            (1, Some(&[0xAB; 32][..]))
        );
    }

    // Rejections: a message for someone else, any altered byte of C, AT, E or the ciphertext.
    let (at0, s0) = &mut members[0];
    assert!(
        alibi_sealed_sender::decrypt_to_usmc(&received[3], &s0.identity_key_pair().unwrap())
            .is_err()
    );
    let msg = &received[0];
    for i in (1..msg.len()).step_by(3) {
        let mut bad = msg.clone();
        bad[i] ^= 0x01;
        assert!(
            alibi_sealed_sender::decrypt_to_usmc(&bad, &s0.identity_key_pair().unwrap()).is_err(),
            "byte {i}"
        );
    }
    // A forged certificate (another trust root) and an expired one.
    let rogue = common::Authority::new(&mut rng);
    let forged = rogue.certify(&alice, &uuid(1), 1, LATER, &mut rng);
    let skm = group_encrypt(&mut alice, &a_at, dist, b"forged", &mut rng).unwrap();
    let short = auth.certify(&alice, &uuid(1), 1, NOW - 1, &mut rng);
    for cert in [forged, short] {
        let usmc = common::usmc(ContentType::SenderKey, cert, skm.serialized());
        let sent = v2::encrypt(
            &usmc,
            &alice.identity_key_pair().unwrap(),
            &recipients[..1],
            &[],
            &mut rng,
        )
        .unwrap();
        let parsed = SentMessage::parse(&sent).unwrap();
        let msg = parsed.received_message(&parsed.recipients[0]).unwrap();
        assert!(matches!(
            sealed_sender::decrypt(&msg, &root, NOW, at0, s0, &mut rng),
            Err(Error::Certificate(_))
        ));
    }

    // Malformed SentMessages are typed errors.
    assert!(SentMessage::parse(&[]).is_err());
    assert!(SentMessage::parse(&[0x23, 0x05]).is_err());
    assert!(SentMessage::parse(&[0x33, 0x00]).is_err());
    assert!(SentMessage::parse(&sent[..40]).is_err());
}

/// A distribution message's `Debug` names its ids and public signing key, not its chain key.
#[test]
fn debug_of_a_distribution_message_hides_the_chain_key() {
    let mut rng = ChaCha20Rng::from_seed([44; 32]);
    let a_at = Address::new(uuid(1), 1);
    let mut alice = common::party(&mut rng, 1);
    let skdm = create_distribution_message(&a_at, Uuid::from_bytes([7; 16]), &mut alice, &mut rng)
        .unwrap();
    let text = format!("{skdm:?}");
    assert!(!text.contains('['), "no byte list: {text}");
    assert!(
        !text.contains("chain_key") && !text.contains("serialized"),
        "{text}"
    );
    assert!(
        text.contains("chain_id") && text.contains("signing_key"),
        "{text}"
    );
}

/// Sender-key signatures checked in a batch: every valid one vouched for, a forged one not (and
/// the others still are, found one by one); a vouch carries over to nothing but its own message
/// under its own chain's key, so a forged message presented with another's vouch still fails.
#[test]
fn sender_key_signatures_in_a_batch() {
    use alibi_channel::sender_keys::{group_decrypt_checked, signing_key_of, verify_signatures};
    let mut rng = ChaCha20Rng::from_seed([41; 32]);
    let dist = Uuid::from_bytes([8; 16]);
    let (a_at, b_at) = (Address::new(uuid(1), 1), Address::new(uuid(2), 1));
    let mut alice = common::party(&mut rng, 1);
    let mut bob = common::party(&mut rng, 2);
    let skdm = create_distribution_message(&a_at, dist, &mut alice, &mut rng).unwrap();
    process_distribution_message(&a_at, &skdm, &mut bob).unwrap();
    let mut wires: Vec<Vec<u8>> = (0..6)
        .map(|i| {
            group_encrypt(&mut alice, &a_at, dist, &[i], &mut rng)
                .unwrap()
                .serialized()
                .to_vec()
        })
        .collect();
    let key = signing_key_of(&wires[0], &mut bob, &a_at).unwrap();
    assert_eq!(signing_key_of(&wires[0], &mut bob, &b_at), None);

    let all: Vec<(&[u8], _)> = wires.iter().map(|w| (w.as_slice(), key)).collect();
    assert!(verify_signatures(&all, &mut rng)
        .iter()
        .all(Option::is_some));

    // Forge message 2's signature: the batch fails, and the single checks name only it.
    let n = wires[2].len();
    wires[2][n - 1] ^= 1;
    let some: Vec<(&[u8], _)> = wires.iter().map(|w| (w.as_slice(), key)).collect();
    let checked = verify_signatures(&some, &mut rng);
    let valid: Vec<bool> = checked.iter().map(Option::is_some).collect();
    assert_eq!(valid, [true, true, false, true, true, true]);

    // Message 1 with message 0's vouch is checked itself (and passes); the forged one with
    // message 0's vouch is checked itself and fails; message 0 with its own decrypts.
    let vouch = checked[0].as_ref();
    assert_eq!(
        group_decrypt_checked(&wires[1], &mut bob, &a_at, vouch).unwrap(),
        [1]
    );
    assert!(group_decrypt_checked(&wires[2], &mut bob, &a_at, vouch).is_err());
    assert_eq!(
        group_decrypt_checked(&wires[0], &mut bob, &a_at, vouch).unwrap(),
        [0]
    );
    // A vouch under another key counts for nothing: a message whose signature is bad under the
    // chain's key fails with it too.
    let other = verify_signatures(
        &[(wires[3].as_slice(), key), (wires[4].as_slice(), key)],
        &mut rng,
    );
    assert!(group_decrypt_checked(&wires[2], &mut bob, &a_at, other[0].as_ref()).is_err());
}
