//! The relay's HTTP request handling on untrusted requests: every route, with or without a valid
//! device's credentials or an access key, any body. The relay (on a redb store in memory-backed
//! /dev/shm when there is one) answers every request without panicking and never with 500: a
//! client error is 4xx, an unavailable store 503.
#![no_main]
use alibi_fuzz::relay::{fixture, with_address};
use alibi_relay_api::{b64, paths};
use axum::body::Body;
use axum::http::{Method, Request};
use libfuzzer_sys::fuzz_target;
use tower::ServiceExt;

fuzz_target!(|data: &[u8]| {
    if data.len() < 4 {
        return;
    }
    let f = fixture();
    let (head, rest) = data.split_at(4);
    let method =
        [Method::GET, Method::PUT, Method::POST, Method::DELETE][head[0] as usize % 4].clone();
    // The account named in a path: the registered one, or bytes of the input.
    let other = String::from_utf8_lossy(&rest[..rest.len().min(36)]).into_owned();
    let account = f.accounts[0].as_str();
    let who = if head[2] & 4 == 0 {
        account
    } else {
        other.as_str()
    };
    let path = match head[1] % 15 {
        0 => paths::ACCOUNTS.to_string(),
        1 => format!("{}/{}", paths::DEVICES, head[3]),
        2 => paths::ATTRIBUTES.to_string(),
        3 => paths::KEYS.to_string(),
        4 => format!("{}/{who}/{}", paths::KEYS_OF, head[3]),
        5 => format!("{}/{who}/*", paths::KEYS_OF),
        6 => format!("{}/{who}", paths::MESSAGES),
        7 => paths::MULTI_RECIPIENT.to_string(),
        8 => paths::DELIVERY_CERTIFICATE.to_string(),
        9 => paths::TRUST_ROOT.to_string(),
        10 => paths::METRICS.to_string(),
        11 => paths::HEALTH.to_string(),
        12 => paths::WEBSOCKET.to_string(),
        13 => paths::MULTI_RECIPIENT_PARTS.to_string(),
        _ => format!("/{}", other.replace(['?', '#', ' '], "")),
    };
    let Ok(mut req) = Request::builder()
        .method(method)
        .uri(path)
        .body(Body::from(rest.to_vec()))
    else {
        return;
    };
    let h = req.headers_mut();
    if head[2] & 1 != 0 {
        h.insert("authorization", f.basic(account).parse().unwrap());
    } else if head[2] & 8 != 0 {
        let cred = b64::encode(&rest[..rest.len().min(48)]);
        h.insert("authorization", format!("Basic {cred}").parse().unwrap());
    }
    if head[2] & 2 != 0 {
        let key = b64::encode(&rest[..rest.len().min(16)]);
        h.insert(alibi_relay_api::access::HEADER, key.parse().unwrap());
    }
    let ct = match (head[2] & 16 != 0, head[1] % 15 == 13) {
        (true, true) => paths::MRM_PARTS_CONTENT_TYPE,
        (true, false) => paths::MRM_CONTENT_TYPE,
        _ => "application/json",
    };
    h.insert("content-type", ct.parse().unwrap());
    let status =
        f.rt.block_on(f.router.clone().oneshot(with_address(req)))
            .unwrap()
            .status();
    assert_ne!(status.as_u16(), 500, "a request got 500");
});
