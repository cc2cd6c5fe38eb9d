//! Sealed messages from parties the messenger must not hear (issue 41, N9): a stranger with a
//! genuine certificate, and the relay itself, which holds the trust root's secret and so can
//! issue any certificate. Each message is built here as an attacker would (a real PQXDH first
//! message on the victim's published bundle, sealed under a certificate) and handed to the
//! victim's inbound path; the victim's store must be left exactly as it was.

use std::time::SystemTime;

use alibi_channel::cipher::{encrypt, process_prekey_bundle};
use alibi_channel::store::InMemoryStore;
use alibi_channel::Address;
use alibi_identity::{IdentityKey, IdentityKeyPair, PrivateKey};
use alibi_messenger::{fuzzing, ContactCard, Device, Handshake, Messenger, Options, RelayClient};
use alibi_relay::local::LocalRelay;
use alibi_relay::server::Config;
use alibi_relay_api::proto::{envelope, Envelope};
use alibi_sealed_sender::{
    v1, ContentType, SenderCertificate, ServerCertificate, UnidentifiedSenderMessageContent,
};
use getrandom::SysRng;
use rand_core::UnwrapErr;
use uuid::Uuid;

/// The trust root and a server certificate under it: what the relay holds, and what the victim
/// pins (its registration is given this root), so the certificates made here chain.
struct Root {
    key: PrivateKey,
    server_key: PrivateKey,
    server: ServerCertificate,
}

impl Root {
    fn new() -> Self {
        let mut rng = UnwrapErr(SysRng);
        let key = PrivateKey::generate(&mut rng);
        let server_key = PrivateKey::generate(&mut rng);
        let server = ServerCertificate::new(1, server_key.public_key(), &key, &mut rng);
        Self {
            key,
            server_key,
            server,
        }
    }

    /// A sender certificate for (`account`, `device`) under identity `key`, valid for an hour.
    fn certify(&self, account: Uuid, device: u32, key: &IdentityKeyPair) -> SenderCertificate {
        SenderCertificate::new(
            account.to_string(),
            None,
            key.identity.0,
            device,
            alibi_relay_api::now_ms() + 3_600_000,
            self.server.clone(),
            &self.server_key,
            &mut UnwrapErr(SysRng),
        )
    }
}

impl Root {
    /// A relay that holds this root's secret (the victim's registration checks that the relay
    /// announces the root it pins).
    async fn relay(&self) -> LocalRelay {
        let config = Config {
            trust_root: *self.key.to_bytes(),
            ..Config::default()
        };
        LocalRelay::start(config).await.expect("relay")
    }
}

/// The victim, registered on `relay` with `root` pinned.
async fn victim(relay: &LocalRelay, root: &Root) -> Messenger {
    let options = Options {
        trust_root: Some(root.key.public_key().serialize().to_vec()),
        ..Options::default()
    };
    Messenger::ephemeral(&relay.url, "V", &options)
        .await
        .expect("register")
}

/// A sealed PreKey message to `victim` from `sender` (identity `key`, certificate `cert`): a
/// fresh bundle of the victim fetched from the relay (which hands its one-time prekeys out),
/// a PQXDH session opened on it, one message. Returns the envelope and the ids of the one-time
/// EC and KEM prekeys the message uses.
async fn sealed_prekey_message(
    relay: &LocalRelay,
    victim: &Messenger,
    key: &IdentityKeyPair,
    cert: SenderCertificate,
) -> (Envelope, u32, u32) {
    let mut rng = UnwrapErr(SysRng);
    let fetcher = RelayClient::register(
        &relay.url,
        &IdentityKeyPair::generate(&mut rng).identity.serialize(),
        9,
        "a-fetching-device-secret",
    )
    .await
    .expect("register the fetcher");
    let response = fetcher
        .fetch_bundles(victim.account(), Some(1))
        .await
        .expect("the victim's bundle");
    let theirs = IdentityKey::deserialize(&response.identity_key).expect("identity key");
    let b = &response.devices[0];
    let one_time = b.pre_key.as_ref().expect("a one-time EC prekey").id;
    let kem = b.pq_pre_key.as_ref().expect("a KEM prekey").id;
    let bundle = alibi_messenger::to_prekey_bundle(b, &theirs, false).expect("bundle");
    let mut store = InMemoryStore::new(key.clone(), 9);
    let to = Address::new(victim.account().to_string(), 1);
    process_prekey_bundle(&to, &mut store, &bundle, SystemTime::now(), &mut rng)
        .expect("session on the victim's bundle");
    let m = encrypt(&to, &mut store, b"planted", SystemTime::now()).expect("encrypt");
    assert_eq!(m.message_type(), 3, "a PreKey message");
    let usmc = UnidentifiedSenderMessageContent::new(
        ContentType::PreKey,
        cert,
        m.serialize().to_vec(),
        0,
        None,
    );
    let sealed = v1::encrypt(&usmc, key, &theirs.0, &mut rng);
    let env = Envelope {
        r#type: Some(envelope::Type::UnidentifiedSender.into()),
        content: Some(sealed),
        ..Default::default()
    };
    (env, one_time, kem)
}

/// A contact card for `key` on `account` (devices: 1 only), pinning `root`.
fn card(name: &str, account: Uuid, key: &IdentityKeyPair, root: &Root, url: &str) -> ContactCard {
    ContactCard {
        name: name.into(),
        account,
        devices: vec![Device {
            id: 1,
            registration_id: 7,
        }],
        identity_key: key.identity.serialize().to_vec(),
        relay: url.into(),
        trust_root: root.key.public_key().serialize().to_vec(),
        access_key: vec![3; 16],
        legacy: false,
        pq_identity: vec![],
        handshake: Handshake::Pqxdh,
        fixed_devices: false,
    }
}

/// A stranger with a genuine certificate seals a PQXDH first message to the victim: refused, and
/// before anything reaches the store: no session, no pinned identity, and the one-time prekeys
/// it used are still there (a stranger used to plant sessions and use prekeys up).
#[tokio::test]
async fn non_contact_sealed_message_leaves_the_store_untouched() {
    let root = Root::new();
    let relay = root.relay().await;
    let v = victim(&relay, &root).await;
    let stranger = IdentityKeyPair::generate(&mut UnwrapErr(SysRng));
    let account = Uuid::new_v4();
    let cert = root.certify(account, 1, &stranger);
    let (env, one_time, kem) = sealed_prekey_message(&relay, &v, &stranger, cert).await;
    assert!(!fuzzing::inbound(&v, &env), "a stranger is not heard");
    assert_eq!(
        fuzzing::stored(&v, account, 1, one_time, kem),
        (false, None, true, true),
        "(session, identity, one-time prekey kept, KEM prekey kept)"
    );
}

/// The relay, holding the trust root's secret, certifies a device the contact's card does not
/// list: under its own key, or under the contact's (a device of the contact the card does not
/// name). Refused, and nothing is pinned for that device. The same message from the card's own
/// device is decrypted (so the refusals are the checks, not a broken message).
#[tokio::test]
async fn certificate_for_a_device_the_card_does_not_list_is_refused_and_not_pinned() {
    let root = Root::new();
    let relay = root.relay().await;
    let v = victim(&relay, &root).await;
    let mut rng = UnwrapErr(SysRng);
    let contact = IdentityKeyPair::generate(&mut rng);
    let account = Uuid::new_v4();
    v.import(&card("C", account, &contact, &root, &relay.url))
        .expect("import");

    let forged = IdentityKeyPair::generate(&mut rng);
    for (who, key) in [
        ("the relay's key", &forged),
        ("the contact's key", &contact),
    ] {
        let cert = root.certify(account, 5, key);
        let (env, one_time, kem) = sealed_prekey_message(&relay, &v, key, cert).await;
        assert!(!fuzzing::inbound(&v, &env), "device 5 under {who} refused");
        assert_eq!(
            fuzzing::stored(&v, account, 5, one_time, kem),
            (false, None, true, true),
            "device 5 under {who}: (session, identity, one-time prekey kept, KEM prekey kept)"
        );
    }

    let cert = root.certify(account, 1, &contact);
    let (env, one_time, kem) = sealed_prekey_message(&relay, &v, &contact, cert).await;
    fuzzing::inbound(&v, &env); // its content is no message; the session is what counts
    assert_eq!(
        fuzzing::stored(&v, account, 1, one_time, kem),
        (true, Some(contact.identity), false, false),
        "the listed device: a session, the card's identity, its prekeys used"
    );
}
