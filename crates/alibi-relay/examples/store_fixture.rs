//! Writes a relay store holding queued mail, and a manifest of it, for the upgrade tests
//! (`tests/upgrade.rs`): run with the release whose store the fixture is to be, then commit both.
//!
//! ```sh
//! cargo run --release -p alibi-relay --example store_fixture -- \
//!     --db crates/alibi-relay/tests/fixtures/relay-0.1.0.redb \
//!     --manifest crates/alibi-relay/tests/fixtures/relay-0.1.0.redb.json
//! cargo run --release -p alibi-relay --example store_fixture -- \
//!     --postgres "host=/tmp dbname=fixture" \
//!     --manifest crates/alibi-relay/tests/fixtures/relay-0.1.0.pgdump.json    # then pg_dump
//! ```
//!
//! Three accounts register through a relay in this process: a sender, `alice` with devices 1 and
//! 2, and `bob`. Each of the three receiving devices is sent five messages; bob's device receives
//! and acknowledges its first two. The manifest names every device (account, device id,
//! password) and the messages still waiting for it, in order.

use std::sync::Arc;
use std::time::Duration;

use alibi_messenger::RelayClient;
use alibi_relay::local::LocalRelay;
use alibi_relay::server::Config;
use alibi_relay::store::RelayStore;
use alibi_relay_api::messages::OutgoingMessage;
use serde_json::json;

/// One receiving device: its client and name.
struct Device {
    name: String,
    client: RelayClient,
    password: String,
    registration_id: u16,
}

fn identity() -> Vec<u8> {
    alibi_identity::IdentityKeyPair::generate(&mut rand_core::UnwrapErr(getrandom::SysRng))
        .identity
        .serialize()
        .to_vec()
}

/// The flag `name`'s value among the arguments.
fn arg(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let manifest = arg("--manifest").ok_or("--manifest FILE is needed")?;
    let store: Arc<dyn RelayStore> = match (arg("--db"), arg("--postgres")) {
        (Some(db), None) => Arc::new(alibi_relay::store::redb::RedbRelayStore::create(db)?),
        (None, Some(url)) => {
            Arc::new(alibi_relay::store::postgres::PgRelayStore::connect(&url).await?)
        }
        _ => return Err("one of --db FILE or --postgres URL".into()),
    };
    let relay = LocalRelay::start_on(store.clone(), Config::default()).await?;
    let url = relay.url.as_str();
    let sender = RelayClient::register(url, &identity(), 1, "fixture-sender-password-1").await?;
    let alice = RelayClient::register(url, &identity(), 21, "fixture-alice-password-1").await?;
    let alice_2 = alice.add_device(2, 22, "fixture-alice-password-2").await?;
    let bob = RelayClient::register(url, &identity(), 31, "fixture-bob-password-1").await?;
    let device = |name: &str, client: RelayClient, password: &str, registration_id| Device {
        name: name.into(),
        client,
        password: password.into(),
        registration_id,
    };
    let devices = [
        device("alice.1", alice, "fixture-alice-password-1", 21),
        device("alice.2", alice_2, "fixture-alice-password-2", 22),
        device("bob.1", bob, "fixture-bob-password-1", 31),
    ];
    let content = |d: &Device, i: usize| format!("fixture message {i} for {}", d.name);
    for i in 0..5 {
        // One request per account, a message for each of its devices.
        for group in [&devices[..2], &devices[2..]] {
            let messages = group
                .iter()
                .map(|d| OutgoingMessage {
                    kind: 1,
                    destination_device_id: d.client.device,
                    destination_registration_id: d.registration_id,
                    content: content(d, i).into_bytes(),
                })
                .collect();
            sender
                .send(group[0].client.account, messages)
                .await?
                .map_err(|e| format!("send refused: {e:?}"))?;
        }
    }
    // Bob's device takes its first two, so the store also holds acknowledged (deleted) mail.
    let mut rx = devices[2].client.receive();
    for i in 0..2 {
        let env = tokio::time::timeout(Duration::from_secs(10), rx.next())
            .await?
            .ok_or("bob's socket closed")?;
        assert_eq!(env.content(), content(&devices[2], i).as_bytes());
        rx.ack(&env);
    }
    // The acknowledgements go out on the open socket and commit; then the relay stops with the
    // rest queued.
    let queued = |s: &Arc<dyn RelayStore>| {
        let s = s.clone();
        async move { s.queued().await }
    };
    for _ in 0..100 {
        if queued(&store).await? == 13 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    if queued(&store).await? != 13 {
        return Err("bob's acknowledgements did not commit".into());
    }
    drop(rx);
    drop(relay);
    drop(store);
    // Its store's last holder goes with the aborted task: the file is closed cleanly.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let waiting = |d: &Device, from: usize| (from..5).map(|i| content(d, i)).collect::<Vec<_>>();
    let entries: Vec<_> = devices
        .iter()
        .map(|d| {
            json!({
                "name": d.name,
                "account": d.client.account.to_string(),
                "device": d.client.device,
                "password": d.password,
                "waiting": waiting(d, if d.name == "bob.1" { 2 } else { 0 }),
            })
        })
        .collect();
    let out = json!({
        "written_by": format!("alibi-relay {} (examples/store_fixture.rs)", env!("CARGO_PKG_VERSION")),
        "devices": entries,
    });
    std::fs::write(&manifest, serde_json::to_string_pretty(&out)? + "\n")?;
    Ok(())
}
