//! Two messengers on a relay started in this process: cards exchanged, a direct message (PQXDH
//! on first use) and a group message with a private part.
//!
//! `cargo run --release -p alibi-messenger --example messenger [RELAY_URL]`

use alibi_messenger::{Group, Messenger, Options};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (_relay, url) = match std::env::args().nth(1) {
        Some(url) => (None, url),
        None => {
            let r = alibi_relay::local::LocalRelay::start(Default::default()).await?;
            let url = r.url.clone();
            (Some(r), url)
        }
    };
    let alice = Messenger::ephemeral(&url, "alice", &Options::default()).await?;
    let bob = Messenger::ephemeral(&url, "bob", &Options::default()).await?;
    // Cards travel out of band; the identity keys in them are what every session is held to.
    alice.import(&bob.card())?;
    bob.import(&alice.card())?;
    let mut inbox = bob.receive();

    alice.send("bob", b"hello over PQXDH").await?;
    let m = inbox.next().await.ok_or("bob's inbox closed")?;
    println!(
        "{} -> bob ({:?}): {}",
        m.sender,
        m.kind,
        String::from_utf8_lossy(&m.data)
    );

    let group = Group {
        id: uuid::Uuid::new_v4(),
        members: vec!["bob".into()],
    };
    alice
        .send_group(
            &group,
            b"to the group",
            &[("bob".into(), b"for bob alone".to_vec())],
        )
        .await?;
    let m = inbox.next().await.ok_or("bob's inbox closed")?;
    println!(
        "{} -> group ({:?}): {}, private part: {}",
        m.sender,
        m.kind,
        String::from_utf8_lossy(&m.data),
        String::from_utf8_lossy(m.private.as_deref().unwrap_or_default())
    );
    println!("alice sent {} requests to the relay", alice.requests());
    Ok(())
}
