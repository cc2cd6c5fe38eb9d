//! The relay over TLS (rustls): the messenger's client trusts the relay through a CA file and
//! talks HTTPS and WSS end to end; a relay whose certificate another CA issued is refused; a
//! client that never finishes its handshake does not hold the relay up.

use std::sync::Arc;
use std::time::Duration;

use alibi_identity::IdentityKeyPair;
use alibi_messenger::{Endpoint, RelayClient};
use alibi_relay::server::{serve_with, Config, Tls};
use alibi_relay::store::redb::RedbRelayStore;
use alibi_relay_api::messages::OutgoingMessage;
use alibi_testkit::pki::{test_pki, TestPki};

struct TlsRelay {
    port: u16,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
    _dir: tempfile::TempDir,
}

impl Drop for TlsRelay {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn start(pki: &TestPki) -> TlsRelay {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(RedbRelayStore::create(dir.path().join("r.redb")).unwrap());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let tls = Tls::from_pem(pki.cert.as_bytes(), pki.key.as_bytes()).unwrap();
    let config = Config {
        password_params: argon2::Params::new(256, 1, 1, None).unwrap(),
        ..Config::default()
    };
    let task = tokio::spawn(serve_with(
        listener,
        store,
        config,
        Some(tls),
        std::future::pending(),
    ));
    TlsRelay {
        port,
        task,
        _dir: dir,
    }
}

fn identity() -> Vec<u8> {
    IdentityKeyPair::generate(&mut rand_core::UnwrapErr(getrandom::SysRng))
        .identity
        .serialize()
        .to_vec()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn messages_go_over_https_and_wss_to_a_client_that_trusts_the_ca() {
    let pki = test_pki();
    let relay = start(&pki).await;
    for host in ["localhost", "127.0.0.1"] {
        let endpoint = Endpoint::new(&format!("https://{host}:{}", relay.port))
            .with_ca(pki.ca.as_bytes())
            .unwrap();
        let a = RelayClient::register(&endpoint, &identity(), 1, "sender-secret-0123456")
            .await
            .unwrap();
        let b = RelayClient::register(&endpoint, &identity(), 2, "receiver-secret-012345")
            .await
            .unwrap();
        for i in 0u8..20 {
            let m = OutgoingMessage {
                kind: 1,
                destination_device_id: 1,
                destination_registration_id: 2,
                content: vec![i; 40],
            };
            a.send(b.account, vec![m]).await.unwrap().unwrap();
        }
        let mut rx = b.receive();
        for i in 0u8..20 {
            let env = tokio::time::timeout(Duration::from_secs(10), rx.next())
                .await
                .expect("delivered over wss")
                .unwrap();
            assert_eq!(env.content(), &[i; 40][..]);
            rx.ack(&env);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_relay_certificate_from_another_ca_or_plain_http_is_refused() {
    let pki = test_pki();
    let relay = start(&pki).await;
    let url = format!("https://127.0.0.1:{}", relay.port);
    // A man in the middle with a certificate of its own CA, and one from no CA the client knows.
    let other = test_pki();
    let pinned_other = Endpoint::new(&url).with_ca(other.ca.as_bytes()).unwrap();
    let public_roots = Endpoint::new(&url);
    for endpoint in [pinned_other, public_roots] {
        let e = RelayClient::register(&endpoint, &identity(), 1, "sender-secret-0123456")
            .await
            .err()
            .expect("an untrusted certificate is refused");
        assert!(e.to_string().contains("certificate"), "{e}");
    }
    // Plain HTTP to the TLS port gets no answer it could read as the relay's.
    let plain = RelayClient::register(
        format!("http://127.0.0.1:{}", relay.port),
        &identity(),
        1,
        "sender-secret-0123456",
    )
    .await;
    // The request was sent (not a connection refused) and what came back was no HTTP answer.
    match plain {
        Err(alibi_messenger::Error::Relay(m)) => assert!(
            m.contains(&format!("http://127.0.0.1:{}/v1/accounts", relay.port))
                && m.contains("(SendRequest)")
                && m.contains("invalid HTTP version parsed"),
            "{m}"
        ),
        Err(e) => panic!("expected a relay error, got {e:?}"),
        Ok(_) => panic!("plain HTTP to the TLS port registered an account"),
    }
    // What it was: a TLS alert record (content type 21, version 3.x), and then the end.
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut tcp = tokio::net::TcpStream::connect(("127.0.0.1", relay.port))
        .await
        .unwrap();
    tcp.write_all(b"GET /health HTTP/1.1\r\nHost: relay\r\n\r\n")
        .await
        .unwrap();
    let mut answer = vec![];
    tokio::time::timeout(Duration::from_secs(5), tcp.read_to_end(&mut answer))
        .await
        .expect("the relay closed the connection")
        .ok();
    assert!(
        answer.len() >= 5 && answer[0] == 21 && answer[1] == 3,
        "{answer:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stalled_handshake_does_not_hold_up_other_clients() {
    let pki = test_pki();
    let relay = start(&pki).await;
    // Connections that never send a ClientHello.
    let mut stalled = vec![];
    for _ in 0..8 {
        stalled.push(
            tokio::net::TcpStream::connect(("127.0.0.1", relay.port))
                .await
                .unwrap(),
        );
    }
    let endpoint = Endpoint::new(&format!("https://127.0.0.1:{}", relay.port))
        .with_ca(pki.ca.as_bytes())
        .unwrap();
    let registered = tokio::time::timeout(
        Duration::from_secs(3),
        RelayClient::register(&endpoint, &identity(), 1, "sender-secret-0123456"),
    )
    .await;
    assert!(
        matches!(registered, Ok(Ok(_))),
        "a client got through beside stalled handshakes"
    );
    drop(stalled);
}
