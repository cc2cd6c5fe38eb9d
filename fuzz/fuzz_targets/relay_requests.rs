//! The relay's HTTP request handling on untrusted requests: every route, with or without a valid
//! device's credentials or an access key, any body. The relay (on a redb store in memory-backed
//! /dev/shm when there is one) answers every request without panicking and never with 500: a
//! client error is 4xx, an unavailable store 503.
#![no_main]
use std::sync::OnceLock;

use alibi_relay::server::{app, Config};
use alibi_relay::store::redb::RedbRelayStore;
use alibi_relay_api::{b64, paths};
use axum::body::Body;
use axum::http::{Method, Request};
use libfuzzer_sys::fuzz_target;
use tower::ServiceExt;

struct Fixture {
    rt: tokio::runtime::Runtime,
    router: axum::Router,
    account: String,
    _dir: tempfile::TempDir,
}

const PASSWORD: &str = "fuzzing-device-password";

fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let dir = tempfile::tempdir_in("/dev/shm")
            .or_else(|_| tempfile::tempdir())
            .unwrap();
        let config = Config {
            password_params: argon2::Params::new(8, 1, 1, None).unwrap(),
            auth_failure_delay: std::time::Duration::ZERO,
            rate_per_device: 1e12,
            per_address: alibi_relay::server::AddressLimits {
                account_creations: alibi_relay::server::Rate::new(u32::MAX, 1e12),
                password_checks: alibi_relay::server::Rate::new(u32::MAX, 1e12),
                unidentified_sends: alibi_relay::server::Rate::new(u32::MAX, 1e12),
            },
            prekey_fetches: alibi_relay::server::Rate::new(u32::MAX, 1e12),
            ..Config::default()
        };
        let (router, account) = rt.block_on(async {
            let store = RedbRelayStore::create(dir.path().join("relay.redb")).unwrap();
            let router = app(std::sync::Arc::new(store), config);
            let body = serde_json::json!({
                "identityKey": b64::encode(&[5u8; 33]),
                "registrationId": 7,
                "password": PASSWORD,
            });
            let r = router
                .clone()
                .oneshot(
                    Request::post(paths::ACCOUNTS)
                        .header("content-type", "application/json")
                        .body(Body::from(body.to_string()))
                        .unwrap(),
                )
                .await
                .unwrap();
            let bytes = axum::body::to_bytes(r.into_body(), 1 << 20).await.unwrap();
            let v: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
            (router, v["uuid"].as_str().unwrap().to_string())
        });
        Fixture {
            rt,
            router,
            account,
            _dir: dir,
        }
    })
}

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
    let who = if head[2] & 4 == 0 {
        f.account.as_str()
    } else {
        other.as_str()
    };
    let path = match head[1] % 14 {
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
        let cred = b64::encode(format!("{}.1:{PASSWORD}", f.account).as_bytes());
        h.insert("authorization", format!("Basic {cred}").parse().unwrap());
    } else if head[2] & 8 != 0 {
        let cred = b64::encode(&rest[..rest.len().min(48)]);
        h.insert("authorization", format!("Basic {cred}").parse().unwrap());
    }
    if head[2] & 2 != 0 {
        let key = b64::encode(&rest[..rest.len().min(16)]);
        h.insert(alibi_relay_api::access::HEADER, key.parse().unwrap());
    }
    let ct = if head[2] & 16 != 0 {
        paths::MRM_CONTENT_TYPE
    } else {
        "application/json"
    };
    h.insert("content-type", ct.parse().unwrap());
    req.extensions_mut()
        .insert(axum::extract::ConnectInfo(std::net::SocketAddr::from((
            [127, 0, 0, 1],
            4000,
        ))));
    let status =
        f.rt.block_on(f.router.clone().oneshot(req))
            .unwrap()
            .status();
    assert_ne!(status.as_u16(), 500, "a request got 500");
});
