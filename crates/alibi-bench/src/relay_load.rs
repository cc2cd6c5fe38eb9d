//! `alibi relay bench`: N clients (the messenger's relay client) over loopback against a relay,
//! 1:1 and multi-recipient sends;
//! messages per second and delivery latency percentiles.

use std::sync::Arc;
use std::time::{Duration, Instant};

use alibi_channel::sealed_sender::v2::{self, Recipient};
use alibi_channel::sealed_sender::{
    ContentType, SenderCertificate, ServerCertificate, ServiceId, UnidentifiedSenderMessageContent,
};
use alibi_handshake::{IdentityKeyPair, PrivateKey};
use getrandom::SysRng;
use rand_core::{Rng, UnwrapErr};
use tokio::sync::Mutex;

use alibi_messenger::relay::{Endpoint, RelayClient};
use alibi_messenger::{Error, Result};
use alibi_relay_api::access::{combine, derive_access_key, AccessKey};
use alibi_relay_api::messages::OutgoingMessage;

/// One row of the report.
#[derive(Clone, Debug)]
pub struct Row {
    /// What was measured.
    pub name: String,
    /// Messages delivered (acknowledged by their recipients).
    pub messages: usize,
    /// Delivered messages per second, first send to last acknowledgement.
    pub per_second: f64,
    /// Median latency in milliseconds (send to receipt; for multi-recipient sends, the request's
    /// round trip, i.e. the server's handling time on loopback).
    pub p50_ms: f64,
    /// 99th percentile latency, in milliseconds.
    pub p99_ms: f64,
}

fn percentile(v: &mut [f64], p: f64) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    v[((v.len() - 1) as f64 * p).round() as usize]
}

async fn register(relay: &Endpoint, i: usize) -> Result<(RelayClient, IdentityKeyPair, AccessKey)> {
    let id = IdentityKeyPair::generate(&mut UnwrapErr(SysRng));
    let reg = (i % 16000 + 1) as u16;
    let c = RelayClient::register(
        relay,
        &id.identity.serialize(),
        reg,
        "bench-device-secret-0000",
    )
    .await?;
    let mut profile_key = [0u8; 32];
    UnwrapErr(SysRng).fill_bytes(&mut profile_key);
    let access_key = derive_access_key(&profile_key);
    c.set_access_key(&access_key).await?;
    Ok((c, id, access_key))
}

/// Microseconds since the Unix epoch: the send time a 1:1 message carries.
fn now_us() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_micros() as u64)
}

/// 1:1: `pairs` senders each send `per_sender` messages (100 bytes, a send timestamp inside) to
/// their own receiver, `concurrency` requests in flight per sender; receivers acknowledge each.
/// With several `nodes` (relays on one store), pair i's sender uses node i and its receiver node
/// i + 1 (modulo their number), so every message crosses from one node to another.
pub async fn one_to_one(
    nodes: &[Endpoint],
    pairs: usize,
    per_sender: usize,
    concurrency: usize,
) -> Result<Row> {
    let n = nodes.len();
    if n == 0 {
        return Err(Error::Relay("no relay node to measure".into()));
    }
    let mut senders = vec![];
    let mut receivers = vec![];
    for i in 0..pairs {
        senders.push(register(&nodes[i % n], 2 * i).await?.0);
        receivers.push(register(&nodes[(i + 1) % n], 2 * i + 1).await?.0);
    }
    let latencies = Arc::new(Mutex::new(Vec::with_capacity(pairs * per_sender)));
    let start = Instant::now();
    let mut tasks = vec![];
    for r in &receivers {
        let mut rx = r.receive();
        let lat = latencies.clone();
        tasks.push(tokio::spawn(async move {
            let mut got = 0;
            while got < per_sender {
                let Some(env) = rx.next().await else { break };
                let sent = u64::from_be_bytes(
                    env.content()
                        .get(..8)
                        .and_then(|b| b.try_into().ok())
                        .unwrap_or([0; 8]),
                );
                lat.lock()
                    .await
                    .push(now_us().saturating_sub(sent) as f64 / 1e3);
                rx.ack(&env);
                got += 1;
            }
        }));
    }
    for (i, (s, r)) in senders.iter().zip(&receivers).enumerate() {
        let reg = ((2 * i + 1) % 16000 + 1) as u16;
        for lane in 0..concurrency {
            let s = s.clone();
            let to = r.account;
            let count = per_sender / concurrency + usize::from(lane < per_sender % concurrency);
            tasks.push(tokio::spawn(async move {
                for _ in 0..count {
                    let mut content = now_us().to_be_bytes().to_vec();
                    content.resize(100, 0xAB);
                    let m = OutgoingMessage {
                        kind: 1,
                        destination_device_id: 1,
                        destination_registration_id: reg,
                        content,
                    };
                    let _ = s.send(to, vec![m]).await;
                }
            }));
        }
    }
    for t in tasks {
        let _ = t.await;
    }
    let secs = start.elapsed().as_secs_f64();
    let mut l = latencies.lock().await.clone();
    Ok(Row {
        name: if n == 1 {
            format!("1:1, {pairs} pairs")
        } else {
            format!("1:1, {pairs} pairs across {n} nodes")
        },
        messages: l.len(),
        per_second: l.len() as f64 / secs,
        p50_ms: percentile(&mut l, 0.5),
        p99_ms: percentile(&mut l, 0.99),
    })
}

/// Multi-recipient: one sender seals `sends` group messages to `recipients` accounts (sealed sender
/// v2) and sends each in one request; latency is the request's round trip (server time).
pub async fn multi_recipient(relay: &Endpoint, recipients: usize, sends: usize) -> Result<Row> {
    let (sender, sid, _) = register(relay, 0).await?;
    let mut rs = vec![];
    let mut keys = vec![];
    for i in 0..recipients {
        let (c, id, key) = register(relay, i + 1).await?;
        keys.push(key);
        rs.push(Recipient {
            service_id: ServiceId::aci(c.account),
            identity: id.identity,
            devices: vec![(1, ((i + 1) % 16000 + 1) as u16)],
        });
    }
    let root = PrivateKey::generate(&mut UnwrapErr(SysRng));
    let server = PrivateKey::generate(&mut UnwrapErr(SysRng));
    let sc = ServerCertificate::new(1, server.public_key(), &root, &mut UnwrapErr(SysRng));
    let cert = SenderCertificate::new(
        sender.account.to_string(),
        None,
        sid.identity.0,
        1,
        u64::MAX,
        sc,
        &server,
        &mut UnwrapErr(SysRng),
    );
    let usmc = UnidentifiedSenderMessageContent::new(
        ContentType::SenderKey,
        cert,
        vec![0x33; 120],
        0,
        None,
    );
    let mut lat = vec![];
    let start = Instant::now();
    let mut busy = Duration::ZERO;
    for _ in 0..sends {
        let sent = v2::encrypt(&usmc, &sid, &rs, &[], &mut UnwrapErr(SysRng))
            .map_err(|e| Error::Relay(e.to_string()))?;
        let t = Instant::now();
        sender
            .multi_send(sent, &combine(&keys))
            .await?
            .map_err(|e| Error::Relay(format!("{e:?}")))?;
        let d = t.elapsed();
        busy += d;
        lat.push(d.as_secs_f64() * 1e3);
    }
    let _ = start.elapsed();
    Ok(Row {
        name: format!("multi-recipient, {recipients} recipients"),
        messages: sends * recipients,
        per_second: (sends * recipients) as f64 / busy.as_secs_f64(),
        p50_ms: percentile(&mut lat, 0.5),
        p99_ms: percentile(&mut lat, 0.99),
    })
}
