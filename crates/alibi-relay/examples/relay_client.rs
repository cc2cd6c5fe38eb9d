//! Two devices talk through the relay: each registers an account and publishes its prekeys; Alice
//! fetches Bob's bundle, opens a PQXDH session and sends; Bob receives over the WebSocket,
//! decrypts and acknowledges. The relay runs in this process on a temporary store; point
//! `RELAY_URL` at an `alibi relay serve` instead to use a real one.
//!
//! `cargo run --release -p alibi-relay --example relay_client`

use std::time::{Duration, SystemTime};

use alibi_channel::cipher::{decrypt, encrypt, process_prekey_bundle, CiphertextMessage};
use alibi_channel::{Address, InMemoryStore, ProtocolStore};
use alibi_handshake::IdentityKeyPair;
use alibi_relay::client::RelayClient;
use alibi_relay::keys::generate_keys;
use alibi_relay::local::LocalRelay;
use alibi_relay::server::{Config, OutgoingMessage};
use base64::Engine;
use getrandom::SysRng;
use rand_core::{Rng, UnwrapErr};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// A device: its protocol store (identity, prekeys, sessions) and its relay account.
struct Device {
    store: InMemoryStore,
    client: RelayClient,
    address: Address,
}

async fn register(url: &str, registration_id: u16) -> Result<Device> {
    let mut rng = UnwrapErr(SysRng);
    let identity = IdentityKeyPair::generate(&mut rng);
    let mut store = InMemoryStore::new(identity.clone(), registration_id.into());
    let mut secret = [0u8; 16];
    rng.fill_bytes(&mut secret);
    let client = RelayClient::register(
        url,
        &identity.identity.serialize(),
        registration_id,
        &base64::engine::general_purpose::STANDARD.encode(secret),
    )
    .await?;
    // A signed prekey, 5 one-time EC and 5 one-time Kyber prekeys and a last-resort one.
    client
        .upload_keys(&generate_keys(&mut store, 5, 5, &mut rng)?)
        .await?;
    let address = Address::new(client.account.to_string(), 1);
    Ok(Device {
        store,
        client,
        address,
    })
}

#[tokio::main]
async fn main() -> Result<()> {
    let mut rng = UnwrapErr(SysRng);
    let local = match std::env::var("RELAY_URL") {
        Ok(_) => None,
        Err(_) => Some(LocalRelay::start(Config::default()).await?),
    };
    let url = match &local {
        Some(r) => r.url.clone(),
        None => std::env::var("RELAY_URL")?,
    };
    let mut alice = register(&url, 11).await?;
    let mut bob = register(&url, 22).await?;
    println!(
        "relay {url}: registered {} and {}",
        alice.address.name, bob.address.name
    );

    // Alice opens a PQXDH session from Bob's published bundle (consuming one-time keys).
    let (identity, devices) = alice.client.fetch_bundles(bob.client.account, None).await?;
    let bundle = devices[0].to_prekey_bundle(&identity)?;
    process_prekey_bundle(
        &bob.address,
        &mut alice.store,
        &bundle,
        SystemTime::now(),
        &mut rng,
    )?;
    let m = encrypt(
        &bob.address,
        &mut alice.store,
        b"hello Bob",
        SystemTime::now(),
    )?;
    // The envelope type: 3 for a PreKey message (the first one), 1 for later Signal messages.
    let out = OutgoingMessage {
        kind: if m.message_type() == 3 { 3 } else { 1 },
        destination_device_id: 1,
        destination_registration_id: bundle.registration_id as u16,
        content: m.serialize().to_vec(),
    };
    alice
        .client
        .send(bob.client.account, vec![out])
        .await?
        .map_err(|e| format!("send refused: {e:?}"))?;

    // Bob receives over the WebSocket, decrypts, and acknowledges (the relay then deletes it).
    let mut inbox = bob.client.receive();
    let envelope = tokio::time::timeout(Duration::from_secs(10), inbox.next())
        .await?
        .ok_or("the inbox closed")?;
    let message_type = if envelope.r#type == 3 { 3 } else { 2 };
    let wire = CiphertextMessage::deserialize(message_type, &envelope.content)?;
    let plaintext = decrypt(&alice.address, &mut bob.store, &wire, &mut rng)?;
    inbox.ack(&envelope);
    println!(
        "Bob received {:?} from {} over a PQXDH session",
        String::from_utf8_lossy(&plaintext),
        envelope.source_service_id.unwrap_or_default()
    );
    assert!(bob.store.load_session(&alice.address)?.is_some());
    Ok(())
}
