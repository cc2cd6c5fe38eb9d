//! The messenger end to end on a real relay (in this process, over loopback), and against a relay
//! that lies (`alibi_testkit::proxy`): substituted bundles, a foreign trust root, a downgrade, a
//! sender key held back.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use alibi_identity::PrivateKey;
use alibi_messenger::{Error, Group, Kind, Messenger, Options, Received};
use alibi_relay::local::LocalRelay;
use alibi_relay::server::Config;
use alibi_relay_api::proto::{Envelope, WebSocketMessage};
use alibi_sealed_sender::{SenderCertificate, ServerCertificate};
use alibi_testkit::proxy::Proxy;
use getrandom::SysRng;
use prost::Message as _;
use rand_core::UnwrapErr;
use uuid::Uuid;

async fn party(url: &str, name: &str) -> Messenger {
    Messenger::ephemeral(url, name, &Options::default())
        .await
        .expect("register")
}

fn introduce(all: &[&Messenger]) {
    for a in all {
        for b in all {
            if a.account() != b.account() {
                a.import(&b.card()).expect("import");
            }
        }
    }
}

async fn next(inbox: &mut alibi_messenger::Inbox) -> Received {
    tokio::time::timeout(Duration::from_secs(10), inbox.next())
        .await
        .expect("a message within 10 s")
        .expect("inbox open")
}

/// A relay, a proxy in front of it that a test can make misbehave, and two parties registered
/// through the proxy, each holding the other's card.
async fn two_behind_a_proxy() -> (LocalRelay, Proxy, Messenger, Messenger) {
    let relay = LocalRelay::start(Config::default()).await.expect("relay");
    let proxy = Proxy::start(&relay.url).await;
    let (a, b) = (party(&proxy.url, "A").await, party(&proxy.url, "B").await);
    introduce(&[&a, &b]);
    (relay, proxy, a, b)
}

/// As [`two_behind_a_proxy`], with a third party C.
async fn three_behind_a_proxy() -> (LocalRelay, Proxy, Messenger, Messenger, Messenger) {
    let (relay, proxy, a, b) = two_behind_a_proxy().await;
    let c = party(&proxy.url, "C").await;
    introduce(&[&a, &b, &c]);
    (relay, proxy, a, b, c)
}

async fn nothing(inbox: &mut alibi_messenger::Inbox, ms: u64) {
    let got = tokio::time::timeout(Duration::from_millis(ms), inbox.next()).await;
    assert!(got.is_err(), "nothing may arrive, got {got:?}");
}

#[tokio::test]
async fn direct_and_group_messages() {
    let relay = LocalRelay::start(Config::default()).await.expect("relay");
    let (a, b, c) = (
        party(&relay.url, "A").await,
        party(&relay.url, "B").await,
        party(&relay.url, "C").await,
    );
    introduce(&[&a, &b, &c]);
    let (mut ib, mut ic, mut ia) = (b.receive(), c.receive(), a.receive());
    a.send("B", b"hello B").await.expect("send");
    let r = next(&mut ib).await;
    assert_eq!(
        (r.sender.as_str(), r.kind, r.data.as_slice()),
        ("A", Kind::Direct, &b"hello B"[..])
    );
    let group = Group {
        id: Uuid::new_v4(),
        members: vec!["B".into(), "C".into()],
    };
    for i in 0..3u8 {
        a.send_group(&group, &[i; 5], &[("B".into(), vec![i, 42])])
            .await
            .expect("group send");
    }
    for i in 0..3u8 {
        let r = next(&mut ib).await;
        assert_eq!(
            (r.kind, r.data, r.private),
            (Kind::Group(group.id), vec![i; 5], Some(vec![i, 42]))
        );
        let r = next(&mut ic).await;
        assert_eq!(
            (r.kind, r.data, r.private),
            (Kind::Group(group.id), vec![i; 5], None)
        );
    }
    c.send("A", b"reply").await.expect("reply");
    assert_eq!(next(&mut ia).await.data, b"reply");
    // Later group sends are one request each: the sender key and sessions are in place.
    let before = a.requests();
    a.send_group(&group, b"x", &[]).await.expect("group send");
    assert_eq!(a.requests() - before, 1);
    assert_eq!(ib.rejected().0 + ic.rejected().0, 0);
}

/// A group round's private part reaches its member alone; a relay that moves a part from one
/// message to the next (here: each held back and delivered with the following message) gets
/// neither accepted: a part is taken only with the message whose signed content names its digest.
#[tokio::test]
async fn a_private_part_moved_to_another_message_is_not_accepted() {
    let (_relay, proxy, a, b, c) = three_behind_a_proxy().await;
    let group = Group {
        id: Uuid::new_v4(),
        members: vec!["B".into(), "C".into()],
    };
    let (mut ib, mut ic) = (b.receive(), c.receive());
    let send = |i: u8| {
        let (a, group) = (&a, &group);
        async move {
            let private = [("B".to_string(), vec![i, 42])];
            a.send_group(group, &[i; 5], &private).await
        }
    };
    send(0).await.expect("group send");
    assert_eq!(next(&mut ib).await.private, Some(vec![0, 42]));
    assert_eq!(next(&mut ic).await.private, None, "C gets no part");
    let held: Arc<Mutex<Option<Vec<u8>>>> = Arc::default();
    proxy.rules.lock().expect("rules").tamper = Some(Arc::new(move |frame| {
        let mut ws = WebSocketMessage::decode(&frame[..]).expect("frame");
        let Some(req) = ws.request.as_mut() else {
            return frame;
        };
        let Ok(mut env) = Envelope::decode(req.body()) else {
            return frame;
        };
        let Some(part) = env.device_part.take() else {
            return frame;
        };
        env.device_part = held.lock().expect("held").replace(part);
        req.body = Some(env.encode_to_vec());
        ws.encode_to_vec()
    }));
    for i in 1..3u8 {
        send(i).await.expect("group send");
        let r = next(&mut ib).await;
        assert_eq!((r.data, r.private), (vec![i; 5], None), "message {i}");
    }
}

/// The relay answers a request for B's bundle with C's genuine one: A refuses, naming B, and
/// nothing reaches anyone.
#[tokio::test]
async fn substituted_bundle_is_refused_naming_the_contact() {
    let (_relay, proxy, a, b, c) = three_behind_a_proxy().await;
    proxy.rules.lock().expect("rules").rewrite = vec![(
        format!("/v2/keys/{}/", b.account()),
        format!("/v2/keys/{}/", c.account()),
    )];
    let (mut ib, mut ic) = (b.receive(), c.receive());
    match a.send("B", b"secret share").await {
        Err(Error::IdentityMismatch { contact, .. }) => assert_eq!(contact, "B"),
        other => panic!("expected an identity mismatch naming B, got {other:?}"),
    }
    let group = Group {
        id: Uuid::new_v4(),
        members: vec!["B".into(), "C".into()],
    };
    let err = a
        .send_group(&group, b"round", &[])
        .await
        .expect_err("refused");
    assert!(err.to_string().contains("contact B"), "{err}");
    nothing(&mut ib, 500).await;
    nothing(&mut ic, 100).await;
}

/// A relay that signs sender certificates under its own root: the sender refuses to use them,
/// and a card pinning another root is not imported.
#[tokio::test]
async fn foreign_trust_root_is_refused() {
    let (_relay, proxy, a, b) = two_behind_a_proxy().await;
    let mut rng = UnwrapErr(SysRng);
    let root = PrivateKey::generate(&mut rng);
    let server = PrivateKey::generate(&mut rng);
    let cert = SenderCertificate::new(
        a.account().to_string(),
        None,
        a.identity_key_pair().identity.0,
        1,
        u64::MAX / 2,
        ServerCertificate::new(1, server.public_key(), &root, &mut rng),
        &server,
        &mut rng,
    );
    let body = format!(
        r#"{{"certificate":"{}"}}"#,
        alibi_relay_api::b64::encode(cert.serialized())
    );
    proxy.rules.lock().expect("rules").answer =
        vec![("GET".into(), "/v1/certificate/delivery".into(), 200, body)];
    let mut ib = b.receive();
    let group = Group {
        id: Uuid::new_v4(),
        members: vec!["B".into()],
    };
    assert!(matches!(
        a.send_group(&group, b"x", &[]).await,
        Err(Error::TrustRoot(_))
    ));
    nothing(&mut ib, 300).await;
    let mut card = b.card();
    card.trust_root = root.public_key().serialize().to_vec();
    assert!(matches!(a.import(&card), Err(Error::TrustRoot(_))));
}

/// A bundle without its post-quantum prekey is a downgrade to X3DH: refused.
#[tokio::test]
async fn bundle_without_pq_prekey_is_refused() {
    let (_relay, proxy, a, _b) = two_behind_a_proxy().await;
    proxy.rules.lock().expect("rules").strip = vec![("/v2/keys/".into(), "pqPreKey".into())];
    match a.send("B", b"x").await {
        Err(Error::Downgrade(name)) => assert_eq!(name, "B"),
        other => panic!("expected a refused downgrade, got {other:?}"),
    }
}

/// The relay delays B's pairwise mail (the sender key) while the group message goes straight
/// through: B keeps the group message and reads it once the sender key is there.
#[tokio::test]
async fn group_message_waits_for_its_sender_key() {
    let (_relay, proxy, a, b) = two_behind_a_proxy().await;
    let mut ib = b.receive();
    proxy.rules.lock().expect("rules").delay = Some((format!("/v1/messages/{}", b.account()), 700));
    let group = Group {
        id: Uuid::new_v4(),
        members: vec!["B".into()],
    };
    a.send_group(&group, b"early", &[]).await.expect("send");
    let r = next(&mut ib).await;
    assert_eq!(
        (r.kind, r.data.as_slice()),
        (Kind::Group(group.id), &b"early"[..])
    );
    assert_eq!(ib.rejected().0, 0, "{:?}", ib.rejected());
}

/// On disk: the identity sealed (a wrong passphrase does not open it), secrets 0600, no secret
/// key in the store's bytes, and sessions that survive a reopen.
#[tokio::test]
async fn on_disk_messenger_reopens() {
    let relay = LocalRelay::start(Config::default()).await.expect("relay");
    let dir = tempfile::tempdir().expect("tmp");
    let options = Options {
        kdf: alibi_keyfile::Params::TEST,
        ..Options::default()
    };
    let path = dir.path().join("a");
    let a = Messenger::register(&path, &relay.url, "A", b"pass phrase", &options)
        .await
        .expect("register");
    let b = party(&relay.url, "B").await;
    a.import(&b.card()).expect("import");
    b.import(&a.card()).expect("import");
    let mut ib = b.receive();
    a.send("B", b"one").await.expect("send");
    assert_eq!(next(&mut ib).await.data, b"one");
    let secret = a.identity_key_pair().private.to_bytes();
    drop(a);
    assert!(matches!(
        Messenger::open(&path, b"wrong").await,
        Err(Error::Keyfile(alibi_keyfile::Error::WrongPassphrase))
    ));
    let a = Messenger::open(&path, b"pass phrase").await.expect("open");
    a.send("B", b"two").await.expect("send after reopen");
    assert_eq!(next(&mut ib).await.data, b"two");
    let requests = a.requests();
    assert_eq!(requests, 1, "the session survived: no bundle fetched");
    #[cfg(unix)]
    for f in ["identity.sealed", "store.redb", "contacts.json"] {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path.join(f))
            .expect(f)
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600, "{f}");
    }
    let store = std::fs::read(path.join("store.redb")).expect("store");
    assert!(
        !store.windows(32).any(|w| w == &secret[..]),
        "the identity key is not in the store"
    );
}

/// Symlinks planted in the messenger's directory at the temporary names its private files were
/// written through (`identity.tmp`, `contacts.tmp`) are not followed: the files they point at
/// keep their contents, and the identity and contacts land in regular files of their own.
#[cfg(unix)]
#[tokio::test]
async fn symlinks_planted_at_temporary_names_are_not_followed() {
    let relay = LocalRelay::start(Config::default()).await.expect("relay");
    let dir = tempfile::tempdir().expect("tmp");
    let path = dir.path().join("a");
    std::fs::create_dir(&path).expect("mkdir");
    let victim = dir.path().join("victim");
    std::fs::write(&victim, b"not yours").expect("victim");
    for name in ["identity.tmp", "contacts.tmp"] {
        std::os::unix::fs::symlink(&victim, path.join(name)).expect("symlink");
    }
    let options = Options {
        kdf: alibi_keyfile::Params::TEST,
        ..Options::default()
    };
    let a = Messenger::register(&path, &relay.url, "A", b"pass phrase", &options)
        .await
        .expect("register");
    let b = party(&relay.url, "B").await;
    a.import(&b.card()).expect("import");
    assert_eq!(std::fs::read(&victim).expect("victim"), b"not yours");
    for f in ["identity.sealed", "contacts.json"] {
        let meta = std::fs::symlink_metadata(path.join(f)).expect(f);
        assert!(meta.file_type().is_file(), "{f} is a regular file");
    }
    drop(a);
    let a = Messenger::open(&path, b"pass phrase")
        .await
        .expect("reopen");
    assert_eq!(a.contact_cards().len(), 1);
}

/// Plain http to a relay that is not on loopback would carry the device password (HTTP Basic)
/// in clear: refused with a typed error before any connection is tried; loopback is fine.
#[tokio::test]
async fn plain_http_to_a_remote_relay_is_refused_before_any_connection() {
    match Messenger::ephemeral("http://example.invalid", "A", &Options::default()).await {
        Err(Error::InsecureRelay(node)) => assert_eq!(node, "http://example.invalid"),
        Err(e) => panic!("expected the relay refused as insecure, got {e}"),
        Ok(_) => panic!("expected the relay refused as insecure"),
    }
    let key = alibi_identity::IdentityKeyPair::generate(&mut UnwrapErr(SysRng));
    let r = alibi_messenger::RelayClient::register(
        "https://a.invalid,http://example.invalid:8080",
        &key.identity.serialize(),
        7,
        "a-device-secret-000000",
    )
    .await;
    assert!(matches!(r, Err(Error::InsecureRelay(_))), "{:?}", r.err());
    let relay = LocalRelay::start(Config::default()).await.expect("relay");
    assert!(relay.url.starts_with("http://127."), "{}", relay.url);
    party(&relay.url, "B").await;
    let opted_in = Options {
        insecure_http: true,
        ..Options::default()
    };
    Messenger::ephemeral(&relay.url, "C", &opted_in)
        .await
        .expect("opting in changes nothing for loopback");
}

/// Only contacts are heard, and only their messages wait for a missing sender key: a stranger's
/// group message is given up on at once, so strangers cannot fill the waiting room.
#[tokio::test]
async fn strangers_are_not_heard_and_do_not_wait() {
    let relay = LocalRelay::start(Config::default()).await.expect("relay");
    let (b, c) = (party(&relay.url, "B").await, party(&relay.url, "C").await);
    c.import(&b.card()).expect("import");
    let mut ib = b.receive();
    let group = Group {
        id: Uuid::new_v4(),
        members: vec!["B".into()],
    };
    c.send_group(&group, b"from a stranger", &[])
        .await
        .expect("send");
    c.send("B", b"hello?").await.expect("send");
    nothing(&mut ib, 500).await;
    // The sender key (pairwise), the group message and the direct one: all three given up on.
    let (count, why) = ib.rejected();
    assert_eq!(count, 3, "{why:?}");
    assert!(why.iter().all(|w| w == "from no contact"), "{why:?}");
}

/// A genuine certificate (signed under the pinned root) but for another account: the relay
/// could otherwise make this messenger send under someone else's name. Refused before use.
#[tokio::test]
async fn another_accounts_certificate_is_refused() {
    let (relay, proxy, a, b) = two_behind_a_proxy().await;
    let d = alibi_identity::IdentityKeyPair::generate(&mut UnwrapErr(SysRng));
    let other = alibi_messenger::RelayClient::register(
        &relay.url,
        &d.identity.serialize(),
        77,
        "another-device-secret-1",
    )
    .await
    .expect("register");
    let cert = other.sender_certificate().await.expect("certificate");
    let body = format!(
        r#"{{"certificate":"{}"}}"#,
        alibi_relay_api::b64::encode(&cert)
    );
    proxy.rules.lock().expect("rules").answer =
        vec![("GET".into(), "/v1/certificate/delivery".into(), 200, body)];
    let mut ib = b.receive();
    let group = Group {
        id: Uuid::new_v4(),
        members: vec!["B".into()],
    };
    match a.send_group(&group, b"x", &[]).await {
        Err(Error::TrustRoot(m)) => assert!(m.contains("another account"), "{m}"),
        other => panic!("expected the certificate refused, got {other:?}"),
    }
    nothing(&mut ib, 300).await;
}

/// A relay cannot make the client buffer without bound: an answer over 4 MiB is refused.
#[tokio::test]
async fn oversized_answers_are_refused() {
    let (_relay, proxy, a, _b) = two_behind_a_proxy().await;
    let huge = format!(
        r#"{{"identityKey":"{}","devices":[]}}"#,
        "A".repeat(5 << 20)
    );
    proxy.rules.lock().expect("rules").answer = vec![("GET".into(), "/v2/keys/".into(), 200, huge)];
    match a.send("B", b"x").await {
        Err(Error::Relay(m)) => assert!(m.contains("refused"), "{m}"),
        other => panic!("expected an oversized answer refused, got {other:?}"),
    }
}

/// Both sides set each other to RingXKEM: direct messages both ways, group messages, and the
/// relay serving another party's RingXKEM bundle is refused, naming the contact.
#[tokio::test]
async fn ringxkem_contacts_talk_and_refuse_a_substituted_bundle() {
    let relay = LocalRelay::start(Config::default()).await.expect("relay");
    let proxy = Proxy::start(&relay.url).await;
    let (a, b, c) = (
        party(&proxy.url, "A").await,
        party(&proxy.url, "B").await,
        party(&proxy.url, "C").await,
    );
    for (x, y) in [(&a, &b), (&b, &a), (&a, &c), (&c, &a), (&b, &c), (&c, &b)] {
        let mut card = y.card();
        assert!(!card.pq_identity.is_empty(), "cards carry the PQ identity");
        card.handshake = alibi_messenger::Handshake::Ringxkem;
        x.import(&card).expect("import");
    }
    let (mut ia, mut ib, mut ic) = (a.receive(), b.receive(), c.receive());
    for i in 0..3u8 {
        a.send("B", &[i; 3]).await.expect("send");
    }
    for i in 0..3u8 {
        assert_eq!(next(&mut ib).await.data, vec![i; 3]);
    }
    b.send("A", b"answer").await.expect("answer");
    assert_eq!(next(&mut ia).await.data, b"answer");
    for i in 0..20u8 {
        a.send("B", &[i]).await.expect("send");
        b.send("A", &[i]).await.expect("send");
    }
    for i in 0..20u8 {
        assert_eq!(next(&mut ib).await.data, vec![i]);
        assert_eq!(next(&mut ia).await.data, vec![i]);
    }
    let group = Group {
        id: Uuid::new_v4(),
        members: vec!["A".into(), "C".into()],
    };
    b.send_group(&group, b"to all", &[]).await.expect("group");
    assert_eq!(next(&mut ia).await.data, b"to all");
    assert_eq!(next(&mut ic).await.data, b"to all");
    assert_eq!(ia.rejected().0 + ib.rejected().0 + ic.rejected().0, 0);
    // A fresh party D, set to RingXKEM with A: the relay hands C's RingXKEM bundle out as A's,
    // and D refuses it, naming A.
    let d = party(&proxy.url, "D").await;
    let mut card = a.card();
    card.handshake = alibi_messenger::Handshake::Ringxkem;
    d.import(&card).expect("import");
    proxy.rules.lock().expect("rules").rewrite = vec![(
        format!("/v2/keys/{}/", a.account()),
        format!("/v2/keys/{}/", c.account()),
    )];
    match d.send("A", b"secret").await {
        Err(Error::IdentityMismatch { contact, .. }) => assert_eq!(contact, "A"),
        other => panic!("expected an identity mismatch naming A, got {other:?}"),
    }
}

/// Issue 65, item 1: a contact links a second device that has no bundle. The relay answers
/// 409 "missing [2]"; the device is not added to the contact (nor its identity pinned) before
/// its bundle was fetched and checked, and as there is none the send fails naming the contact.
/// Before, device 2 was added first (registration id 0) and stayed in the contact list, so every
/// later send failed the same way. With the card authoritative (`fixed_devices`), the send goes
/// to the carded device alone and arrives.
#[tokio::test]
async fn a_device_without_a_bundle_is_not_added_and_a_fixed_card_ignores_it() {
    let relay = LocalRelay::start(Config::default()).await.expect("relay");
    let (a, b) = (party(&relay.url, "A").await, party(&relay.url, "B").await);
    introduce(&[&a, &b]);
    b.relay_client()
        .add_device(2, 99, "a-second-device-password")
        .await
        .expect("B links device 2");
    let err = a
        .send("B", b"hello")
        .await
        .expect_err("no bundle for device 2");
    assert!(
        matches!(&err, Error::Send { contact, .. } if contact == "B"),
        "{err}"
    );
    let ids = |m: &Messenger| -> Vec<u8> {
        let card = m
            .contact_cards()
            .into_iter()
            .find(|c| c.name == "B")
            .expect("B");
        card.devices.iter().map(|d| d.id).collect()
    };
    assert_eq!(ids(&a), [1], "device 2 was not added");
    let mut fixed = b.card();
    fixed.fixed_devices = true;
    a.import(&fixed).expect("import");
    let mut ib = b.receive();
    a.send("B", b"to the carded device").await.expect("send");
    assert_eq!(next(&mut ib).await.data, b"to the carded device");
}
