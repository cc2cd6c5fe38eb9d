//! A multi-recipient send to an account with 127 connected devices, its shared part near the
//! body limit: the relay's memory must not grow by a copy per device (issue 21; before, delivery
//! built 127 full copies, +240 MB). Alone in its test binary: the allocator below counts the
//! whole process, so nothing else may run beside it.

use std::time::Duration;

use alibi_identity::IdentityKeyPair;
use alibi_messenger::relay::RelayClient;
use alibi_relay::local::LocalRelay;
use alibi_relay::server::{AddressLimits, Config, Rate};
use alibi_relay_api::access::AccessKey;
use alibi_relay_api::{b64, paths};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use alibi_testkit::alloc::Counting;

#[global_allocator]
static ALLOC: Counting = Counting::new();

const PASSWORD: &str = "a-long-device-secret-123";
const DEVICES: u8 = 127;

/// A `SentMessage` (0x23) for one account's devices 1..=127 (registration id 100 + device id) with
/// a shared part of `shared` bytes; the relay checks its form, not its cryptography.
fn sent_message(account: uuid::Uuid, shared: usize) -> Vec<u8> {
    let mut b = vec![0x23, 1, 0x00];
    b.extend_from_slice(account.as_bytes());
    for d in 1..=DEVICES {
        b.push(d);
        let more = if d < DEVICES { 0x8000 } else { 0 };
        b.extend_from_slice(&((100 + u16::from(d)) | more).to_be_bytes());
    }
    b.extend_from_slice(&[0xC0; 48]);
    b.extend(std::iter::repeat_n(0x5A, shared));
    b
}

/// A raw WebSocket reader: the handshake, then bytes counted and dropped, 64 KiB at a time, until
/// `want` arrived (so the test's own side holds no message).
async fn count_bytes(addr: String, auth: String, want: usize) -> usize {
    let mut tcp = tokio::net::TcpStream::connect(&addr).await.unwrap();
    let hello = format!(
        "GET {} HTTP/1.1\r\nHost: {addr}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\
         Authorization: {auth}\r\n\r\n",
        paths::WEBSOCKET
    );
    tcp.write_all(hello.as_bytes()).await.unwrap();
    let mut buf = vec![0u8; 1 << 16];
    let mut got = 0;
    while got < want {
        match tcp.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => got += n,
        }
    }
    got
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_127_device_fan_out_takes_memory_for_one_copy_not_127() {
    let relay = LocalRelay::start(Config {
        password_params: argon2::Params::new(256, 1, 1, None).unwrap(),
        // 126 devices linked at once: more Argon2id runs than one account, or one address, is
        // allowed by default.
        password_work_per_account: Rate::new(1000, 1000.0),
        // 127 sockets and a sender, all from 127.0.0.1.
        max_connections_per_address: 1000,
        per_address: AddressLimits {
            password_checks: Rate::new(1000, 1000.0),
            ..AddressLimits::default()
        },
        ..Config::default()
    })
    .await
    .unwrap();
    let id = IdentityKeyPair::generate(&mut rand_core::UnwrapErr(getrandom::SysRng));
    let primary = RelayClient::register(&relay.url, &id.identity.serialize(), 101, PASSWORD)
        .await
        .unwrap();
    let key: AccessKey = [7; 16];
    primary.set_access_key(&key).await.unwrap();
    for d in 2..=DEVICES {
        primary
            .add_device(d, 100 + u16::from(d), PASSWORD)
            .await
            .unwrap();
    }
    let shared = (2 << 20) - 64 * 1024;
    let body = sent_message(primary.account, shared);
    let addr = relay.url.trim_start_matches("http://").to_string();
    let readers: Vec<_> = (1..=DEVICES)
        .map(|d| {
            let auth = format!(
                "Basic {}",
                b64::encode(format!("{}.{d}:{PASSWORD}", primary.account).as_bytes())
            );
            tokio::spawn(count_bytes(addr.clone(), auth, shared))
        })
        .collect();
    // Every socket connected and told its queue is empty; then the baseline.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let http = reqwest::Client::new();
    let base = ALLOC.start();
    let r = http
        .put(format!("{}{}", relay.url, paths::MULTI_RECIPIENT))
        .header("content-type", paths::MRM_CONTENT_TYPE)
        .header(alibi_relay_api::access::HEADER, b64::encode(&key))
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap_or_default());
    for reader in readers {
        let got = tokio::time::timeout(Duration::from_secs(60), reader)
            .await
            .expect("every device receives the message")
            .unwrap();
        assert!(got >= shared, "a device got {got} of {shared} bytes");
    }
    let grew = ALLOC.grown_since(base);
    let copies_per_device = u64::from(DEVICES) * shared as u64;
    println!(
        "peak growth {:.1} MiB for a {:.1} MiB shared part to {DEVICES} devices",
        grew as f64 / (1 << 20) as f64,
        shared as f64 / (1 << 20) as f64
    );
    // The request body, the store's copy and each socket's bounded write buffer: far below one
    // copy per device (about 250 MiB here).
    assert!(
        (grew as u64) < copies_per_device / 4,
        "peak memory grew by {grew} bytes; a copy per device is {copies_per_device}"
    );
}
