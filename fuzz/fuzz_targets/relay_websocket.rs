//! The relay's WebSocket handling on untrusted frames: an authenticated device opens its delivery
//! socket over a real HTTP/1.1 connection (hyper, in memory), the relay pushes what waits in its
//! mailbox, and the input is what the client sends back. No panic, and the relay always ends the
//! socket once the client has closed its side (a socket that never ends would hold one of the
//! relay's connection permits for good).
//!
//! The first byte picks how the rest is sent: as the raw byte stream after the upgrade
//! (WebSocket framing included), as binary frames of one length byte and that many bytes each,
//! or as acknowledgements built from three bytes each (id, status high, status low), which reach
//! the store's deletion of acknowledged envelopes.
#![no_main]
use std::time::Duration;

use alibi_fuzz::relay::{fixture, with_address, REGISTRATION_ID};
use alibi_relay_api::messages::{OutgoingMessage, OutgoingMessages};
use alibi_relay_api::{paths, proto::WebSocketMessage};
use axum::body::Body;
use axum::http::Request;
use hyper_util::rt::TokioIo;
use libfuzzer_sys::fuzz_target;
use prost::Message;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tower::ServiceExt;

/// One masked binary frame (an all-zero mask, so the payload is sent as it is).
fn frame(out: &mut Vec<u8>, payload: &[u8]) {
    out.push(0x82);
    if payload.len() < 126 {
        out.push(0x80 | payload.len() as u8);
    } else {
        out.push(0x80 | 126);
        out.extend_from_slice(&(payload.len() as u16).to_be_bytes());
    }
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(payload);
}

fn client_bytes(data: &[u8]) -> Vec<u8> {
    let Some((&mode, rest)) = data.split_first() else {
        return vec![];
    };
    match mode % 3 {
        0 => rest.to_vec(),
        1 => {
            let mut out = vec![];
            let mut r = rest;
            while let Some((&n, tail)) = r.split_first() {
                let n = usize::from(n).min(tail.len());
                frame(&mut out, &tail[..n]);
                r = &tail[n..];
            }
            out
        }
        _ => {
            let mut out = vec![];
            for c in rest.chunks_exact(3) {
                let status = u32::from(u16::from_be_bytes([c[1], c[2]]));
                let ack = WebSocketMessage::response(u64::from(c[0]), status);
                frame(&mut out, &ack.encode_to_vec());
            }
            out
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let f = fixture();
    let [receiver, sender] = &f.accounts;
    let sent = client_bytes(data);
    f.rt.block_on(async {
        // One more message waiting for the receiver (refused once its mailbox is full).
        let body = OutgoingMessages {
            messages: vec![OutgoingMessage {
                kind: 1,
                destination_device_id: 1,
                destination_registration_id: REGISTRATION_ID,
                content: data.iter().copied().take(64).collect(),
            }],
            timestamp: 1,
        };
        let req = Request::put(format!("{}/{receiver}", paths::MESSAGES))
            .header("content-type", "application/json")
            .header("authorization", f.basic(sender))
            .body(Body::from(serde_json::to_vec(&body).unwrap()))
            .unwrap();
        let _ = f.router.clone().oneshot(with_address(req)).await.unwrap();

        let (mut client, server) = tokio::io::duplex(1 << 20);
        let svc = hyper_util::service::TowerToHyperService::new(
            f.router
                .clone()
                .map_request(with_address::<hyper::body::Incoming>),
        );
        let conn = tokio::spawn(
            hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(server), svc)
                .with_upgrades(),
        );
        let upgrade = format!(
            "GET {} HTTP/1.1\r\nHost: relay\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\
             Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\
             Authorization: {}\r\n\r\n",
            paths::WEBSOCKET,
            f.basic(receiver)
        );
        client.write_all(upgrade.as_bytes()).await.unwrap();
        let mut head = vec![];
        while !head.ends_with(b"\r\n\r\n") {
            let mut b = [0u8; 1];
            assert_eq!(
                client.read(&mut b).await.unwrap(),
                1,
                "no answer to the upgrade"
            );
            head.push(b[0]);
        }
        assert!(
            head.starts_with(b"HTTP/1.1 101"),
            "{}",
            String::from_utf8_lossy(&head)
        );
        client.write_all(&sent).await.unwrap();
        client.shutdown().await.unwrap();
        let mut rest = vec![];
        tokio::time::timeout(Duration::from_secs(10), client.read_to_end(&mut rest))
            .await
            .expect("the relay ends the socket after the client closed its side")
            .unwrap();
        let _ = conn.await;
    });
});
