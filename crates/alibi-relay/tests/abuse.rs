//! The relay under abuse (issue 21): each test is an attack that worked on the relay before its
//! defence, and checks the defence holds.

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use alibi_identity::IdentityKeyPair;
use alibi_messenger::relay::{RelayClient, SendError};
use alibi_messenger::Error as ClientError;
use alibi_relay::local::LocalRelay;
use alibi_relay::server::{Config, Rate, MAX_RECIPIENTS};
use alibi_relay::store::redb::RedbRelayStore;
use alibi_relay_api::accounts::CreateAccount;
use alibi_relay_api::messages::OutgoingMessage;
use alibi_relay_api::{access, b64, paths};
use common::clients::{basic, cheap, identity, median, register, PASSWORD};
use futures_util::StreamExt;
use uuid::Uuid;

fn message(reg: u16, bytes: usize) -> OutgoingMessage {
    OutgoingMessage {
        kind: 1,
        destination_device_id: 1,
        destination_registration_id: reg,
        content: vec![0x42; bytes],
    }
}

/// A sealed-sender v2 `SentMessage` (0x23) listing `excluded` accounts, all excluded (no device),
/// and a shared part of `shared` bytes (the ephemeral key and ciphertext).
fn excluded_only(excluded: &[Uuid], shared: usize) -> Vec<u8> {
    let mut body = vec![0x23];
    prost::encode_length_delimiter(excluded.len(), &mut body).unwrap();
    for u in excluded {
        body.push(0x00);
        body.extend_from_slice(u.as_bytes());
        body.push(0);
    }
    body.extend(std::iter::repeat_n(0x5a, shared));
    body
}

async fn put_multi(url: &str, body: Vec<u8>) -> (u16, String) {
    let r = reqwest::Client::new()
        .put(format!("{url}{}", paths::MULTI_RECIPIENT))
        .header(access::HEADER, b64::encode(&[0u8; 16]))
        .header("content-type", "application/vnd.signal-messenger.mrm")
        .body(body)
        .send()
        .await
        .unwrap();
    (r.status().as_u16(), r.text().await.unwrap_or_default())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn multi_recipient_sends_with_nobody_to_deliver_to_store_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("relay.redb");
    let store = RedbRelayStore::create(&path).unwrap();
    let relay = LocalRelay::start_on(Arc::new(store), Config::default())
        .await
        .unwrap();
    let before = std::fs::metadata(&path).unwrap().len();
    // No recipient at all, and only excluded ones: the access key of nobody is all zero.
    for excluded in [vec![], vec![Uuid::new_v4(), Uuid::new_v4()]] {
        for _ in 0..8 {
            let (status, text) = put_multi(&relay.url, excluded_only(&excluded, 1 << 20)).await;
            assert_eq!(status, 400, "{text}");
            assert!(text.contains("no recipient"), "{text}");
        }
    }
    let after = std::fs::metadata(&path).unwrap().len();
    assert_eq!(
        before, after,
        "the store grew from {before} to {after} bytes"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_recipients_is_refused_at_once() {
    let relay = LocalRelay::start(Config::default()).await.unwrap();
    let many: Vec<Uuid> = (0..100_000).map(|_| Uuid::new_v4()).collect();
    let body = excluded_only(&many, 64);
    let start = Instant::now();
    let (status, text) = put_multi(&relay.url, body).await;
    let took = start.elapsed();
    assert_eq!(status, 413, "{text}");
    // It took 13.6 s when every recipient was parsed and merged with a linear search.
    assert!(took < Duration::from_secs(1), "{took:?}");
    // At the bound the body is parsed (in linear time) and refused for having nobody to deliver to.
    let body = excluded_only(&many[..MAX_RECIPIENTS], 64);
    let (status, text) = put_multi(&relay.url, body).await;
    assert_eq!(status, 400, "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_burst_of_account_creations_from_one_address_meets_429() {
    let relay = LocalRelay::start(cheap()).await.unwrap();
    let http = reqwest::Client::new();
    let ik = identity();
    for created in 0..300u32 {
        let r = http
            .post(format!("{}{}", relay.url, paths::ACCOUNTS))
            .json(&CreateAccount {
                identity_key: ik.clone(),
                registration_id: 1,
                password: PASSWORD.into(),
            })
            .send()
            .await
            .unwrap();
        if r.status() == 429 {
            let wait: u64 = r.headers()["retry-after"]
                .to_str()
                .unwrap()
                .parse()
                .unwrap();
            assert!(wait >= 1, "{wait}");
            assert_eq!(
                created,
                Config::default().per_address.account_creations.burst
            );
            return;
        }
        assert_eq!(r.status(), 200);
    }
    panic!("300 accounts created from one address without a 429");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_mailbox_refuses_and_loses_nothing() {
    let relay = LocalRelay::start(Config {
        mailbox_messages: 5,
        // The whole mailbox to one sender: this test is about the mailbox's bound.
        mailbox_share_percent: 100,
        ..cheap()
    })
    .await
    .unwrap();
    let (sender, receiver) = (register(&relay.url, 1).await, register(&relay.url, 2).await);
    for _ in 0..5 {
        sender
            .send(receiver.account, vec![message(2, 100)])
            .await
            .unwrap()
            .unwrap();
    }
    let refused = sender
        .send(receiver.account, vec![message(2, 100)])
        .await
        .unwrap();
    match refused {
        Err(SendError::Undeliverable {
            accounts,
            status: 413,
            reason,
        }) => {
            assert!(reason.contains("full"), "{reason}");
            assert_eq!(accounts, [receiver.account], "the answer names the account");
        }
        other => panic!("a sixth envelope into a full mailbox: {other:?}"),
    }
    let mut rx = receiver.receive();
    for _ in 0..5 {
        let e = tokio::time::timeout(Duration::from_secs(10), rx.next())
            .await
            .unwrap()
            .unwrap();
        rx.ack(&e);
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    sender
        .send(receiver.account, vec![message(2, 100)])
        .await
        .unwrap()
        .expect("room again once acknowledged");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_linked_device_cannot_add_or_replace_devices() {
    let relay = LocalRelay::start(cheap()).await.unwrap();
    let primary = register(&relay.url, 1).await;
    let linked = primary
        .add_device(2, 2, "second-device-secret-12")
        .await
        .unwrap();
    for (id, pw) in [
        (3, "a-third-device-secret-1"),
        (2, "replaced-by-the-second-1"),
    ] {
        match linked.add_device(id, 9, pw).await {
            Err(ClientError::Refused { status: 403, .. }) => {}
            other => panic!("a linked device added device {id}: {:?}", other.map(|_| ())),
        }
    }
    // Device 2 still answers to its own password, and the primary can still link devices.
    linked.key_counts().await.expect("device 2 untouched");
    primary
        .add_device(3, 3, "a-third-device-secret-1")
        .await
        .unwrap()
        .key_counts()
        .await
        .unwrap();
}

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// A delivery WebSocket of `who`'s device 1.
async fn connect(
    relay: &LocalRelay,
    who: &RelayClient,
) -> Result<(Socket, impl Sized), tokio_tungstenite::tungstenite::Error> {
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let ws_url = format!(
        "{}{}",
        relay.url.replacen("http", "ws", 1),
        paths::WEBSOCKET
    );
    let mut req = ws_url.as_str().into_client_request().unwrap();
    req.headers_mut().insert(
        "authorization",
        basic(who.account, 1, PASSWORD).parse().unwrap(),
    );
    tokio_tungstenite::connect_async(req).await
}

/// The time of one authenticated request (`GET /v2/keys`) with these credentials, and its status.
async fn login(http: &reqwest::Client, url: &str, auth: &str) -> (Duration, u16) {
    let start = Instant::now();
    let r = http
        .get(format!("{url}{}", paths::KEYS))
        .header("authorization", auth)
        .send()
        .await
        .unwrap();
    (start.elapsed(), r.status().as_u16())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn login_time_does_not_tell_whether_an_account_exists() {
    // The real password cost; no failure delay, so the time measured is the check's own.
    let config = Config {
        auth_failure_delay: Duration::ZERO,
        ..Config::default()
    };
    // The fastest of four hashes: the first pays for mapping Argon2's memory (41 ms against 20 ms
    // on the CI machine), and the other tests running beside this one can slow any single run.
    let one_hash = {
        use argon2::password_hash::PasswordHasher;
        let a = argon2::Argon2::from(config.password_params.clone());
        (0..4)
            .map(|_| {
                let start = Instant::now();
                a.hash_password_with_salt(b"x", &[7; 16]).unwrap();
                start.elapsed()
            })
            .min()
            .unwrap()
    };
    let relay = LocalRelay::start(config).await.unwrap();
    let known = register(&relay.url, 1).await;
    let http = reqwest::Client::new();
    // Up to three measurements: the other tests of this binary run in parallel on this 2-core
    // machine and can slow one side's samples; a real difference shows in every measurement.
    let mut last = String::new();
    let mut order = <rand_chacha::ChaCha8Rng as rand_core::SeedableRng>::seed_from_u64(7);
    for _ in 0..3 {
        let (mut k, mut u) = (vec![], vec![]);
        for _ in 0..9 {
            // In random order: with strict alternation the two sides fell on different blocking
            // threads, one with its Argon2 memory already mapped and one without (16 ms against
            // 25 ms whatever the account), which is a property of the thread, not the account.
            let known_first = rand_core::Rng::next_u32(&mut order) & 1 == 1;
            for side in [known_first, !known_first] {
                let who = if side { known.account } else { Uuid::new_v4() };
                let (t, status) =
                    login(&http, &relay.url, &basic(who, 1, "wrong-password-0123")).await;
                assert_eq!(status, 401);
                if side {
                    k.push(t)
                } else {
                    u.push(t)
                }
            }
        }
        let (k, u) = (median(k), median(u));
        println!(
            "one Argon2id hash {one_hash:?}; 401 for a known account {k:?}, an unknown one {u:?}"
        );
        // Both pay an Argon2id run (an unknown account is checked against a dummy hash; a 401
        // without one took 1.5 ms here, against 20-38 ms with one) ...
        let both_hash = k > one_hash / 4 && u > one_hash / 4;
        // ... so neither answer is distinguishable by its time.
        let ratio = k.as_secs_f64() / u.as_secs_f64();
        if both_hash && (0.67..1.5).contains(&ratio) {
            return;
        }
        last = format!("known {k:?}, unknown {u:?}, one hash {one_hash:?}");
    }
    panic!("{last}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_passwords_wait_and_are_limited_per_address() {
    let relay = LocalRelay::start(Config {
        per_address: alibi_relay::server::AddressLimits {
            password_checks: Rate::new(5, 0.01),
            ..Default::default()
        },
        auth_failure_delay: Duration::from_millis(200),
        ..cheap()
    })
    .await
    .unwrap();
    let device = register(&relay.url, 1).await;
    let http = reqwest::Client::new();
    let wrong = basic(device.account, 1, "wrong-password-0123");
    for _ in 0..5 {
        let (t, status) = login(&http, &relay.url, &wrong).await;
        assert_eq!(status, 401);
        assert!(t >= Duration::from_millis(200), "{t:?}");
    }
    let r = http
        .get(format!("{}{}", relay.url, paths::KEYS))
        .header("authorization", &wrong)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 429);
    assert!(r.headers().contains_key("retry-after"));
    // The device's own password, checked once already, costs no check and still works.
    let (_, status) = login(&http, &relay.url, &basic(device.account, 1, PASSWORD)).await;
    assert_eq!(status, 200);
}

/// A client whose connections come from `ip` (any 127.0.0.0/8 address is this host's loopback):
/// another client address for the relay's limits.
fn client_from(ip: &str) -> reqwest::Client {
    reqwest::Client::builder()
        .local_address(ip.parse::<std::net::IpAddr>().unwrap())
        .build()
        .unwrap()
}

/// Issue 65, item 3: wrong passwords sent for an account from one address spend that address's
/// budget for it, not the account's: its owner, logging in from another address to a relay node
/// that has not seen its password yet (another process, a restart), still gets in. Before, the
/// account's one budget was at zero and the owner met 429 on every login.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_passwords_from_one_address_do_not_lock_the_owner_out() {
    let config = || Config {
        password_work_per_account: Rate::new(5, 0.01),
        auth_failure_delay: Duration::ZERO,
        ..cheap()
    };
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(RedbRelayStore::create(dir.path().join("relay.redb")).unwrap());
    let first = LocalRelay::start_on(store.clone(), config()).await.unwrap();
    let victim = register(&first.url, 1).await;
    // A second node on the same store: it has verified nobody's password yet.
    let node = LocalRelay::start_on(store, config()).await.unwrap();
    let attacker = client_from("127.0.0.2");
    let wrong = basic(victim.account, 1, "wrong-password-0123");
    let mut statuses = vec![];
    for _ in 0..8 {
        statuses.push(login(&attacker, &node.url, &wrong).await.1);
    }
    // The attack happened: five wrong passwords were checked, then the budget was spent.
    assert_eq!(statuses, [401, 401, 401, 401, 401, 429, 429, 429]);
    let owner = client_from("127.0.0.3");
    let (_, status) = login(&owner, &node.url, &basic(victim.account, 1, PASSWORD)).await;
    assert_eq!(
        status, 200,
        "the owner is not locked out from its own address"
    );
    // The attacker's address stays limited for that account.
    assert_eq!(login(&attacker, &node.url, &wrong).await.1, 429);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_account_cannot_drain_another_accounts_one_time_prekeys() {
    use rand_chacha::rand_core::SeedableRng;
    let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(21);
    let relay = LocalRelay::start(Config {
        prekey_fetches: Rate::new(3, 0.01),
        ..cheap()
    })
    .await
    .unwrap();
    let id = IdentityKeyPair::generate(&mut rng);
    let target = RelayClient::register(&relay.url, &id.identity.serialize(), 1, PASSWORD)
        .await
        .unwrap();
    let mut store = alibi_channel::InMemoryStore::new(id, 1);
    let keys = alibi_messenger::generate_keys(&mut store, 10, 10, &mut rng).unwrap();
    target.upload_keys(&keys).await.unwrap();
    let attacker = register(&relay.url, 2).await;
    let mut refused = 0;
    for _ in 0..10 {
        match attacker.fetch_bundles(target.account, Some(1)).await {
            Ok(_) => {}
            Err(ClientError::Refused { status: 429, .. }) => refused += 1,
            Err(e) => panic!("{e}"),
        }
    }
    assert_eq!(refused, 7);
    let left = target.key_counts().await.unwrap();
    assert_eq!((left.count, left.pq_count), (7, 7));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_reader_is_cut_off_and_loses_nothing() {
    let relay = LocalRelay::start(Config {
        send_timeout: Duration::from_millis(300),
        ..cheap()
    })
    .await
    .unwrap();
    let (sender, receiver) = (register(&relay.url, 1).await, register(&relay.url, 2).await);
    // A socket that reads nothing: the kernel's buffers fill, then the relay's writes stall.
    let (mut slow, _) = connect(&relay, &receiver).await.unwrap();
    const N: usize = 30;
    for _ in 0..N {
        sender
            .send(receiver.account, vec![message(2, 1 << 20)])
            .await
            .unwrap()
            .unwrap();
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    // The relay has given up on it: reading now ends before all 30 arrived.
    let mut got = 0;
    let ended = tokio::time::timeout(Duration::from_secs(10), async {
        while let Some(Ok(m)) = slow.next().await {
            got += usize::from(m.is_binary());
        }
    })
    .await;
    assert!(ended.is_ok(), "the slow socket was never closed");
    assert!(
        got < N,
        "{got} of {N} frames went out to a reader that did not read"
    );
    // Nothing was lost: a reader that reads gets all of them.
    let mut rx = receiver.receive();
    for i in 0..N {
        let e = tokio::time::timeout(Duration::from_secs(10), rx.next())
            .await
            .unwrap_or_else(|_| panic!("every envelope kept in the store: {i} of {N} came"))
            .unwrap();
        rx.ack(&e);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sockets_are_bounded_per_device_and_in_total() {
    let relay = LocalRelay::start(Config {
        max_sockets: 2,
        ..cheap()
    })
    .await
    .unwrap();
    let (a, b, c) = (
        register(&relay.url, 1).await,
        register(&relay.url, 2).await,
        register(&relay.url, 3).await,
    );
    let (mut first, _) = connect(&relay, &a).await.unwrap();
    // A second socket of the same device replaces the first, which is closed.
    let (_second, _) = connect(&relay, &a).await.unwrap();
    let closed = tokio::time::timeout(Duration::from_secs(5), async {
        while let Some(Ok(_)) = first.next().await {}
    })
    .await;
    assert!(closed.is_ok(), "the replaced socket stayed open");
    tokio::time::sleep(Duration::from_millis(200)).await;
    let (_other, _) = connect(&relay, &b).await.unwrap();
    match connect(&relay, &c).await {
        Err(tokio_tungstenite::tungstenite::Error::Http(r)) => assert_eq!(r.status(), 503),
        other => panic!("a third socket past the cap of 2: {:?}", other.map(|_| ())),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_socket_is_closed_and_undelivered_mail_expires() {
    let relay = LocalRelay::start(Config {
        idle_timeout: Duration::from_millis(600),
        message_expiry: Duration::from_millis(400),
        ..cheap()
    })
    .await
    .unwrap();
    let (sender, receiver) = (register(&relay.url, 1).await, register(&relay.url, 2).await);
    // A raw TCP peer that completes the handshake, then never answers a ping.
    let addr = relay.url.trim_start_matches("http://").to_string();
    let mut tcp = tokio::net::TcpStream::connect(&addr).await.unwrap();
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let hello = format!(
        "GET {} HTTP/1.1\r\nHost: {addr}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\
         Authorization: {}\r\n\r\n",
        paths::WEBSOCKET,
        basic(receiver.account, 1, PASSWORD)
    );
    tcp.write_all(hello.as_bytes()).await.unwrap();
    let mut buf = vec![0u8; 1 << 16];
    let closed = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            match tcp.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
        }
    })
    .await;
    assert!(
        closed.is_ok(),
        "a socket that answered no ping was kept open"
    );

    sender
        .send(receiver.account, vec![message(2, 100)])
        .await
        .unwrap()
        .unwrap();
    // The envelope was stored for the receiver, and nobody took it.
    assert_eq!(
        metric(&relay.url, "alibi_relay_envelopes_accepted_total").await,
        Some(1)
    );
    // The expiry sweep removes it: the store's count falls to 0 (instead of a sleep).
    let deadline = Instant::now() + Duration::from_secs(10);
    while metric(&relay.url, "alibi_relay_envelopes_queued").await != Some(0) {
        assert!(Instant::now() < deadline, "the envelope never expired");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // Past its expiry the envelope is gone: the next socket is told the queue is empty, and
    // nothing came before (an envelope still there would be pushed first, and the queue not
    // announced empty until it was acknowledged).
    let (mut ws, _) = connect(&relay, &receiver).await.unwrap();
    loop {
        let frame = tokio::time::timeout(Duration::from_secs(5), ws.next())
            .await
            .expect("the queue was announced empty")
            .expect("the socket stayed open")
            .unwrap();
        let Ok(msg) = <alibi_relay_api::proto::WebSocketMessage as prost::Message>::decode(
            &frame.into_data()[..],
        ) else {
            continue;
        };
        let Some(req) = msg.request else { continue };
        assert_ne!(
            req.path(),
            paths::WS_MESSAGE,
            "an expired envelope was delivered"
        );
        if req.path() == paths::WS_QUEUE_EMPTY {
            break;
        }
    }
    assert_eq!(
        metric(&relay.url, "alibi_relay_envelopes_pushed_total").await,
        Some(0)
    );
}

/// The value of one metric of the relay's `GET /metrics`, if it is there.
async fn metric(url: &str, name: &str) -> Option<u64> {
    let text = reqwest::get(format!("{url}{}", paths::METRICS))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_are_capped_and_silent_ones_closed() {
    let relay = LocalRelay::start(Config {
        max_connections: 2,
        head_timeout: Duration::from_secs(3),
        ..cheap()
    })
    .await
    .unwrap();
    let addr = relay.url.trim_start_matches("http://").to_string();
    // Two connections that never send a byte take every place (the kernel hands connections
    // to the relay in the order they were made, so these two are accepted before the third).
    let mut silent = vec![];
    for _ in 0..2 {
        silent.push(tokio::net::TcpStream::connect(&addr).await.unwrap());
    }
    let http = reqwest::Client::new();
    let trust_root = format!("{}{}", relay.url, paths::TRUST_ROOT);
    // A third waits in the backlog: connected (the kernel accepted it) but never answered, so
    // its request times out (well before the 3 s head deadline frees a place); not refused.
    let waited = http
        .get(&trust_root)
        .timeout(Duration::from_millis(700))
        .send()
        .await;
    match waited {
        Err(e) => assert!(e.is_timeout() && !e.is_connect(), "{e:?}"),
        Ok(r) => panic!(
            "a third connection was served past the cap of 2: {}",
            r.status()
        ),
    }
    // The silent ones are closed at the head deadline, and the relay accepts again.
    use tokio::io::AsyncReadExt;
    for mut s in silent {
        let mut b = [0u8; 16];
        let n = tokio::time::timeout(Duration::from_secs(5), s.read(&mut b))
            .await
            .expect("a silent connection was kept open");
        assert!(matches!(n, Ok(0) | Err(_)), "{n:?}");
    }
    let r = http.get(&trust_root).send().await.unwrap();
    assert_eq!(r.status(), 200);
}
