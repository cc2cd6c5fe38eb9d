//! Hostile clients of the relay (issue 41, findings N2, N3, N4, N7): each test is an attack that
//! worked before its defence, and checks the defence holds. The tests run one at a time (the
//! allocator below counts the whole process, so a memory measurement must run alone).

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use alibi_identity::IdentityKeyPair;
use alibi_messenger::relay::{RelayClient, SendError};
use alibi_relay::local::LocalRelay;
use alibi_relay::server::{Config, MAX_BODY};
use alibi_relay::store::{
    Delivery, DeviceBundle, DeviceInfo, KeysUpload, MailboxQuota, MailboxUsage, RelayStore, Sender,
};
use alibi_relay_api::access::AccessKey;
use alibi_relay_api::messages::{OutgoingMessage, OutgoingMessages};
use alibi_relay_api::proto::Envelope;
use alibi_relay_api::{access, b64, paths};
use alibi_testkit::alloc::Counting;
use common::clients::{cheap, PASSWORD};
use uuid::Uuid;

#[global_allocator]
static ALLOC: Counting = Counting::new();

/// One test at a time (see the module comment).
static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

const KEY: AccessKey = [0x3C; 16];

/// A new account (registration id `reg`) with the access key [`KEY`].
async fn register(relay: &LocalRelay, reg: u16) -> RelayClient {
    register_from(relay, reg, [127, 0, 0, 1]).await
}

/// [`register`], the account's requests leaving from `local` (another loopback address is
/// another host to the relay).
async fn register_from(relay: &LocalRelay, reg: u16, local: [u8; 4]) -> RelayClient {
    let id = IdentityKeyPair::generate(&mut rand_core::UnwrapErr(getrandom::SysRng));
    let endpoint = alibi_messenger::Endpoint::new(&relay.url)
        .with_local_address(std::net::IpAddr::from(local));
    let c = RelayClient::register(endpoint, &id.identity.serialize(), reg, PASSWORD)
        .await
        .unwrap();
    c.set_access_key(&KEY).await.unwrap();
    c
}

fn message(kind: u32, reg: u16) -> OutgoingMessage {
    OutgoingMessage {
        kind,
        destination_device_id: 1,
        destination_registration_id: reg,
        content: vec![0x42; 64],
    }
}

/// A recipient of a multi-recipient send: service id and devices `(id, registration id)`.
type Listed = ([u8; 17], Vec<(u8, u16)>);

/// A sealed-sender v2 `SentMessage` (0x23): each recipient is a 17-byte service id (kind byte 0
/// for an ACI, 1 for a PNI) with its devices `(id, registration id)`; then a 64-byte shared part.
/// The relay checks the form, not the cryptography.
fn sent_message(recipients: &[Listed]) -> Vec<u8> {
    let mut b = vec![0x23];
    prost::encode_length_delimiter(recipients.len(), &mut b).unwrap();
    for (id, devices) in recipients {
        b.extend_from_slice(id);
        for (i, (d, reg)) in devices.iter().enumerate() {
            b.push(*d);
            let more = if i + 1 < devices.len() { 0x8000 } else { 0 };
            b.extend_from_slice(&(reg | more).to_be_bytes());
        }
        b.extend_from_slice(&[0xC0; 48]);
    }
    b.extend(std::iter::repeat_n(0x5A, 64));
    b
}

fn aci(u: Uuid) -> [u8; 17] {
    let mut id = [0u8; 17];
    id[1..].copy_from_slice(u.as_bytes());
    id
}

fn pni(u: Uuid) -> [u8; 17] {
    let mut id = aci(u);
    id[0] = 1;
    id
}

async fn put_multi(url: &str, key: &AccessKey, body: Vec<u8>) -> (u16, String) {
    let r = reqwest::Client::new()
        .put(format!("{url}{}", paths::MULTI_RECIPIENT))
        .header(access::HEADER, b64::encode(key))
        .header("content-type", paths::MRM_CONTENT_TYPE)
        .body(body)
        .send()
        .await
        .unwrap();
    (r.status().as_u16(), r.text().await.unwrap_or_default())
}

/// N2: one recipient's device 1 listed ~699,000 times in a 2 MiB body (with the right access key).
/// Before, the relay built, cloned and encoded an envelope for each (+700 MB, 2.4 s) and then
/// answered 413 for the full mailbox.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn duplicate_devices_in_multi_recipient_are_refused_400_in_bounded_memory() {
    let _one = SERIAL.lock().await;
    let relay = LocalRelay::start(cheap()).await.unwrap();
    let victim = register(&relay, 7).await;
    let fixed = 1 + 1 + 17 + 48 + 64;
    let n = (MAX_BODY - fixed) / 3;
    let body = sent_message(&[(aci(victim.account), vec![(1, 7); n])]);
    assert!(body.len() <= MAX_BODY, "{}", body.len());
    // Warm up the connection path, then measure from here.
    let _ = put_multi(&relay.url, &KEY, sent_message(&[])).await;
    let base = ALLOC.start();
    let start = Instant::now();
    let (status, text) = put_multi(&relay.url, &KEY, body).await;
    let took = start.elapsed();
    let grew = ALLOC.grown_since(base);
    println!(
        "{n} duplicate device entries: {status} in {took:?}, peak memory +{:.1} MiB",
        grew as f64 / f64::from(1 << 20)
    );
    assert_eq!(status, 400, "{text}");
    assert!(text.contains("twice"), "{text}");
    // The test's own 2 MiB body is counted too (the allocator sees the whole process).
    assert!(grew < 20 << 20, "peak memory grew by {grew} bytes");
    // Refused before any envelope was built: well under the 2.4 s the relay took before (a
    // generous bound; the memory bound above is the tight one).
    assert!(took < Duration::from_secs(1), "{took:?}");
}

/// N2: more device entries than [`alibi_relay::server::MAX_DEVICE_ENTRIES`], each distinct, are
/// refused before any account is read.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn too_many_device_entries_in_multi_recipient_are_refused() {
    let _one = SERIAL.lock().await;
    let relay = LocalRelay::start(cheap()).await.unwrap();
    // 1,000 recipients of 127 devices each: 127,000 distinct pairs in about 200 KB.
    let all: Vec<(u8, u16)> = (1..=127).map(|d| (d, 1)).collect();
    let recipients: Vec<_> = (0..1000)
        .map(|_| (aci(Uuid::new_v4()), all.clone()))
        .collect();
    let (status, text) = put_multi(&relay.url, &KEY, sent_message(&recipients)).await;
    let text = &text[..text.len().min(300)];
    assert_eq!(status, 413, "{text}");
    assert!(text.contains("device entries"), "{text}");
}

/// N3: the victim listed once as ACI and once as PNI: their access keys cancel in the XOR, so
/// an all-zero key passed (200) and the 410 that followed told the registration ids.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_account_listed_as_aci_and_pni_does_not_cancel_its_access_key() {
    let _one = SERIAL.lock().await;
    let relay = LocalRelay::start(cheap()).await.unwrap();
    let victim = register(&relay, 7).await;
    for reg in [7, 8] {
        let body = sent_message(&[
            (aci(victim.account), vec![(1, reg)]),
            (pni(victim.account), vec![(1, reg)]),
        ]);
        let (status, text) = put_multi(&relay.url, &[0; 16], body).await;
        assert_eq!(status, 401, "registration id {reg}: {text}");
    }
    // With the right key the double listing is refused as such.
    let body = sent_message(&[
        (aci(victim.account), vec![(1, 7)]),
        (pni(victim.account), vec![(1, 7)]),
    ]);
    let (status, text) = put_multi(&relay.url, &KEY, body).await;
    assert_eq!(status, 400, "{text}");
    assert!(text.contains("twice"), "{text}");
    // The honest form still goes through.
    let body = sent_message(&[(aci(victim.account), vec![(1, 7)])]);
    let (status, text) = put_multi(&relay.url, &KEY, body).await;
    assert_eq!(status, 200, "{text}");
}

/// N4: 10,000 copies for device 1 in one plain send (duplicate device ids passed the device
/// check) filled the victim's mailbox in one request; every honest sender then got 413.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn duplicate_devices_in_one_send_are_refused_400() {
    let _one = SERIAL.lock().await;
    let relay = LocalRelay::start(cheap()).await.unwrap();
    let (attacker, victim, honest) = (
        register(&relay, 1).await,
        register(&relay, 2).await,
        register(&relay, 3).await,
    );
    let body = OutgoingMessages {
        messages: vec![message(1, 2); 10_000],
        timestamp: 1,
    };
    let auth = format!(
        "Basic {}",
        b64::encode(format!("{}.1:{PASSWORD}", attacker.account).as_bytes())
    );
    let r = reqwest::Client::new()
        .put(format!(
            "{}{}/{}",
            relay.url,
            paths::MESSAGES,
            victim.account
        ))
        .header("authorization", auth)
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = r.status().as_u16();
    let text = r.text().await.unwrap_or_default();
    assert_eq!(status, 400, "{text}");
    assert!(text.contains("twice"), "{text}");
    // Sealed, with the victim's access key: the same.
    let r = reqwest::Client::new()
        .put(format!(
            "{}{}/{}",
            relay.url,
            paths::MESSAGES,
            victim.account
        ))
        .header(access::HEADER, b64::encode(&KEY))
        .json(&OutgoingMessages {
            messages: vec![message(6, 2); 2],
            timestamp: 1,
        })
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 400);
    honest
        .send(victim.account, vec![message(1, 2)])
        .await
        .unwrap()
        .expect("an honest sender is accepted");
}

/// Sends one message to `to` as `from` (identified, or sealed with the access key) until refused;
/// how many were accepted, and the refusal.
async fn flood(from: &RelayClient, to: Uuid, sealed: bool, most: usize) -> (usize, SendError) {
    for sent in 0..most {
        let r = if sealed {
            from.send_unidentified(to, vec![message(6, 2)], &KEY).await
        } else {
            from.send(to, vec![message(1, 2)]).await
        };
        if let Err(e) = r.unwrap() {
            return (sent, e);
        }
    }
    panic!("{most} sends accepted");
}

/// N4: one account's flood filled the whole mailbox; now it meets its share (a quarter) and an
/// honest sender on another host is still accepted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_sender_s_flood_leaves_room_for_the_others() {
    let _one = SERIAL.lock().await;
    let relay = LocalRelay::start(Config {
        mailbox_messages: 40,
        ..cheap()
    })
    .await
    .unwrap();
    let (attacker, victim, honest) = (
        register(&relay, 1).await,
        register(&relay, 2).await,
        register_from(&relay, 3, [127, 0, 0, 2]).await,
    );
    let (accepted, refused) = flood(&attacker, victim.account, false, 100).await;
    assert_eq!(accepted, 10, "a quarter of 40");
    assert!(
        matches!(&refused, SendError::Undeliverable { status: 413, reason, accounts }
            if reason.contains("share") && accounts == &[victim.account]),
        "{refused:?}"
    );
    honest
        .send(victim.account, vec![message(1, 2)])
        .await
        .unwrap()
        .expect("an honest sender is accepted after the flood");
    // Sealed sends (the sender unnamed) count against the same share, the host's: its quarter is
    // used up, and another host's senders are still accepted.
    let (accepted, refused) = flood(&attacker, victim.account, true, 100).await;
    assert_eq!(accepted, 0, "{refused:?}");
    honest
        .send(victim.account, vec![message(1, 2)])
        .await
        .unwrap()
        .expect("an identified sender is accepted after a sealed flood");
}

/// Issue 65, item 8: four accounts made on one host, each within its own share, filled a
/// party's mailbox in 3.2 s (every run then stopped). A share is the host's now, however many
/// accounts it makes: together they get a quarter, and another host is still accepted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn accounts_made_on_one_host_share_one_share_of_a_mailbox() {
    let _one = SERIAL.lock().await;
    let relay = LocalRelay::start(Config {
        mailbox_messages: 40,
        ..cheap()
    })
    .await
    .unwrap();
    let victim = register(&relay, 2).await;
    let mut accepted = 0;
    let mut refusals = vec![];
    for reg in 10..14 {
        let attacker = register(&relay, reg).await;
        let (n, refused) = flood(&attacker, victim.account, false, 100).await;
        accepted += n;
        refusals.push(refused);
    }
    assert_eq!(
        accepted, 10,
        "four accounts of one host: one quarter of 40 in all"
    );
    assert!(
        refusals.iter().all(|r| matches!(r,
            SendError::Undeliverable { status: 413, reason, .. } if reason.contains("share"))),
        "{refusals:?}"
    );
    let honest = register_from(&relay, 3, [127, 0, 0, 3]).await;
    honest
        .send(victim.account, vec![message(1, 2)])
        .await
        .unwrap()
        .expect("another host's sender is accepted");
}

/// A redb store whose count of queued envelopes takes 2.3 s (a large PostgreSQL mailbox table
/// under load), counting how often it is asked.
struct SlowCount {
    inner: alibi_relay::store::redb::RedbRelayStore,
    counts: AtomicUsize,
    /// Told when a count has ended.
    counted: tokio::sync::Notify,
}

#[async_trait::async_trait]
impl RelayStore for SlowCount {
    async fn queued(&self) -> alibi_relay::Result<u64> {
        self.counts.fetch_add(1, Ordering::SeqCst);
        tokio::time::sleep(Duration::from_millis(2300)).await;
        let n = self.inner.queued().await;
        self.counted.notify_one();
        n
    }
    async fn create_account(&self, a: Uuid, ik: &[u8], d: DeviceInfo) -> alibi_relay::Result<()> {
        self.inner.create_account(a, ik, d).await
    }
    async fn add_device(&self, a: Uuid, d: DeviceInfo) -> alibi_relay::Result<()> {
        self.inner.add_device(a, d).await
    }
    async fn identity_key(&self, a: Uuid) -> alibi_relay::Result<Option<Vec<u8>>> {
        self.inner.identity_key(a).await
    }
    async fn set_access_key(&self, a: Uuid, k: AccessKey) -> alibi_relay::Result<()> {
        self.inner.set_access_key(a, k).await
    }
    async fn access_key(&self, a: Uuid) -> alibi_relay::Result<Option<AccessKey>> {
        self.inner.access_key(a).await
    }
    async fn devices(&self, a: Uuid) -> alibi_relay::Result<Vec<DeviceInfo>> {
        self.inner.devices(a).await
    }
    async fn upload_keys(&self, a: Uuid, d: u8, k: KeysUpload) -> alibi_relay::Result<()> {
        self.inner.upload_keys(a, d, k).await
    }
    async fn take_bundle(&self, a: Uuid, d: u8) -> alibi_relay::Result<Option<DeviceBundle>> {
        self.inner.take_bundle(a, d).await
    }
    async fn key_counts(&self, a: Uuid, d: u8) -> alibi_relay::Result<(usize, usize)> {
        self.inner.key_counts(a, d).await
    }
    async fn enqueue(
        &self,
        deliveries: Vec<Delivery>,
        shared: Option<(Uuid, Vec<u8>)>,
        sender: Sender,
        quota: MailboxQuota,
    ) -> alibi_relay::Result<()> {
        self.inner.enqueue(deliveries, shared, sender, quota).await
    }
    async fn pending(&self, a: Uuid, d: u8, limit: usize) -> alibi_relay::Result<Vec<Envelope>> {
        self.inner.pending(a, d, limit).await
    }
    async fn shared(&self, key: Uuid) -> alibi_relay::Result<Option<Vec<u8>>> {
        self.inner.shared(key).await
    }
    async fn ack(&self, a: Uuid, d: u8, guid: Uuid) -> alibi_relay::Result<bool> {
        self.inner.ack(a, d, guid).await
    }
    async fn expire(&self, before_ms: u64) -> alibi_relay::Result<u64> {
        self.inner.expire(before_ms).await
    }
    async fn mailbox_usage(
        &self,
        a: Uuid,
        d: u8,
        sender: Sender,
    ) -> alibi_relay::Result<MailboxUsage> {
        self.inner.mailbox_usage(a, d, sender).await
    }
}

/// N7: every unauthenticated `/health` or `/metrics` request ran a count of the store while the
/// cached one was stale, and a count over 2 s was never cached: 40 requests, 40 counts. Now one
/// count runs at a time, and a slow one is kept when it ends.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_and_metrics_requests_share_one_store_count() {
    let _one = SERIAL.lock().await;
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(SlowCount {
        inner: alibi_relay::store::redb::RedbRelayStore::create(dir.path().join("r.redb")).unwrap(),
        counts: AtomicUsize::new(0),
        counted: tokio::sync::Notify::new(),
    });
    let relay = LocalRelay::start_on(store.clone(), cheap()).await.unwrap();
    let http = reqwest::Client::new();
    let get = |path: &'static str| {
        let (http, url) = (http.clone(), relay.url.clone());
        async move {
            let r = http.get(format!("{url}{path}")).send().await.unwrap();
            r.status().as_u16()
        }
    };
    let all: Vec<_> = (0..40)
        .map(|i| {
            get(if i % 2 == 0 {
                paths::HEALTH
            } else {
                paths::METRICS
            })
        })
        .collect();
    let statuses = futures_util::future::join_all(all).await;
    // The count outlasts the 2 s a request waits: /health says the store is slow.
    assert!(statuses.contains(&503), "{statuses:?}");
    assert_eq!(
        store.counts.load(Ordering::SeqCst),
        1,
        "one count for 40 requests"
    );
    // The slow count, once done, answers the next requests (asked as soon as it has ended,
    // well within the second it is kept for, not after a guessed sleep).
    tokio::time::timeout(Duration::from_secs(10), store.counted.notified())
        .await
        .expect("the count ended");
    assert_eq!(get(paths::HEALTH).await, 200);
    assert_eq!(store.counts.load(Ordering::SeqCst), 1);
}
