//! Durability of the relay binary: 10,000 messages are sent while the server is killed with
//! SIGKILL and restarted on the same redb file; every message the relay acknowledged to its sender
//! is delivered afterwards (duplicates, from sends retried after a lost answer, are removed by
//! message id, as clients do).

use std::collections::HashSet;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use alibi_handshake::IdentityKeyPair;
use alibi_messenger::RelayClient;
use alibi_relay_api::messages::OutgoingMessage;

const TOTAL: u64 = 10_000;

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn start(db: &std::path::Path, port: u16) -> Child {
    let mut child = Command::new(env!("CARGO_BIN_EXE_alibi"))
        .args([
            "relay",
            "serve",
            "--listen",
            &format!("127.0.0.1:{port}"),
            // A send retried after a kill may be stored twice (committed, then the answer lost):
            // room above the 10,000 for those.
            "--mailbox-messages",
            "20000",
            "--db",
        ])
        .arg(db)
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    for _ in 0..200 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return child;
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    panic!("relay did not start");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn acknowledged_messages_survive_sigkill() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("relay.redb");
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let server = Arc::new(Mutex::new(start(&db, port)));

    let mut rng = rand_core::UnwrapErr(getrandom::SysRng);
    let a = IdentityKeyPair::generate(&mut rng);
    let b = IdentityKeyPair::generate(&mut rng);
    let sender =
        RelayClient::register(&base, &a.identity.serialize(), 1, "sender-device-secret-01")
            .await
            .unwrap();
    let receiver = RelayClient::register(
        &base,
        &b.identity.serialize(),
        2,
        "receiver-device-secret-1",
    )
    .await
    .unwrap();

    // 16 lanes send ids 0..10,000; a send is retried until the relay answers 2xx.
    let acked = Arc::new(Mutex::new(HashSet::new()));
    let next = Arc::new(AtomicUsize::new(0));
    let mut lanes = vec![];
    for _ in 0..16 {
        let (sender, acked, next) = (sender.clone(), acked.clone(), next.clone());
        let to = receiver.account;
        lanes.push(tokio::spawn(async move {
            loop {
                let id = next.fetch_add(1, Ordering::SeqCst) as u64;
                if id >= TOTAL {
                    return;
                }
                loop {
                    let m = OutgoingMessage {
                        kind: 1,
                        destination_device_id: 1,
                        destination_registration_id: 2,
                        content: id.to_be_bytes().to_vec(),
                    };
                    if let Ok(Ok(())) = sender.send(to, vec![m]).await {
                        acked.lock().unwrap().insert(id);
                        break;
                    }
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            }
        }));
    }
    // Kill the relay mid-load, twice, and bring it back on the same file.
    for kill_at in [2_000, 6_000] {
        while acked.lock().unwrap().len() < kill_at {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        let mut s = server.lock().unwrap();
        s.kill().unwrap(); // SIGKILL
        s.wait().unwrap();
        *s = start(&db, port);
    }
    for l in lanes {
        l.await.unwrap();
    }
    assert_eq!(acked.lock().unwrap().len() as u64, TOTAL);

    // Drain the mailbox.
    let mut rx = receiver.receive();
    let mut seen = HashSet::new();
    while seen.len() < TOTAL as usize {
        let env = tokio::time::timeout(Duration::from_secs(30), rx.next())
            .await
            .unwrap_or_else(|_| panic!("only {} of {TOTAL} delivered", seen.len()))
            .unwrap();
        seen.insert(u64::from_be_bytes(env.content()[..8].try_into().unwrap()));
        rx.ack(&env);
    }
    let acked = acked.lock().unwrap();
    assert!(acked.iter().all(|id| seen.contains(id)));
    let mut s = server.lock().unwrap();
    s.kill().unwrap();
    s.wait().unwrap();
}
