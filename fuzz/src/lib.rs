//! What the fuzz targets share: inputs built from valid encodings.
//!
//! Most of our decoders refuse every input but one exact length at their first check, and
//! libFuzzer alone rarely finds that length (campaigns on raw bytes stayed at their starting
//! coverage for 900 million executions). [`input`] lets the fuzzer either pass raw bytes or edit a
//! valid encoding the target made, so every campaign starts past the length check and reaches the
//! parsing, range checks and verification behind it.

use std::borrow::Cow;

/// The bytes a target decodes, chosen by the first byte of `data`:
///
/// - `0` (or no valid samples): the rest of `data` as it is;
/// - otherwise sample `(mode - 1) % samples.len()`, with the rest of `data` read as edits of three
///   bytes each (offset high, offset low, XOR mask), then, by `mode`'s top two bits: kept at its
///   length, cut at the last edit's offset, or with the last edit's mask appended as one more byte.
pub fn input<'a>(data: &'a [u8], samples: &[Vec<u8>]) -> Cow<'a, [u8]> {
    let Some((&mode, rest)) = data.split_first() else {
        return Cow::Borrowed(data);
    };
    if mode == 0 || samples.is_empty() {
        return Cow::Borrowed(rest);
    }
    let mut v = samples[usize::from(mode - 1) % samples.len()].clone();
    if v.is_empty() {
        return Cow::Owned(v);
    }
    let mut last = None;
    for e in rest.chunks_exact(3) {
        let off = usize::from(u16::from_be_bytes([e[0], e[1]])) % v.len();
        v[off] ^= e[2];
        last = Some((off, e[2]));
    }
    match (mode >> 6, last) {
        (1, Some((off, _))) => v.truncate(off),
        (2, Some((_, x))) => v.push(x),
        _ => {}
    }
    Cow::Owned(v)
}

/// Falcon keys and signatures of both levels, made once from a fixed seed.
pub mod falcon {
    use alibi_falcon::{Level, SigningKey, VerifyingKey};
    use rand_chacha::rand_core::SeedableRng;
    use std::sync::OnceLock;

    /// Valid encodings, index 0 for Falcon-512 and 1 for Falcon-1024.
    pub struct Fixture {
        /// The verifying keys.
        pub verifying_keys: Vec<VerifyingKey>,
        /// Their encodings.
        pub public_keys: Vec<Vec<u8>>,
        /// The signing keys' encodings.
        pub secret_keys: Vec<Vec<u8>>,
        /// A signature of "fuzz" under each key.
        pub signatures: Vec<Vec<u8>>,
    }

    /// The fixture, made on first use.
    pub fn fixture() -> &'static Fixture {
        static F: OnceLock<Fixture> = OnceLock::new();
        F.get_or_init(|| {
            let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(1);
            let mut f = Fixture {
                verifying_keys: vec![],
                public_keys: vec![],
                secret_keys: vec![],
                signatures: vec![],
            };
            for level in [Level::Falcon512, Level::Falcon1024] {
                let sk = SigningKey::generate(level, &mut rng);
                let vk = sk.verifying_key().clone();
                f.public_keys.push(vk.to_bytes());
                f.secret_keys.push(sk.to_bytes().to_vec());
                f.signatures.push(sk.sign(b"fuzz", &mut rng).to_bytes());
                f.verifying_keys.push(vk);
            }
            f
        })
    }
}

/// A relay in this process, on a redb store in a temporary folder (in memory-backed /dev/shm
/// when there is one), with limits that let a campaign run flat out, and two registered accounts.
pub mod relay {
    use alibi_relay::server::{app, AddressLimits, Config, Rate};
    use alibi_relay::store::redb::RedbRelayStore;
    use alibi_relay_api::{b64, paths};
    use axum::body::Body;
    use axum::http::Request;
    use std::sync::OnceLock;
    use tower::ServiceExt;

    /// Every account's device password.
    pub const PASSWORD: &str = "fuzzing-device-password";

    /// The registration id of every account's first device.
    pub const REGISTRATION_ID: u16 = 7;

    /// The relay and its accounts.
    pub struct Fixture {
        /// The runtime requests run on.
        pub rt: tokio::runtime::Runtime,
        /// The relay's application.
        pub router: axum::Router,
        /// Two accounts' ids, each with one device (1).
        pub accounts: [String; 2],
        _dir: tempfile::TempDir,
    }

    impl Fixture {
        /// The Authorization header value of `account`'s device 1.
        pub fn basic(&self, account: &str) -> String {
            let cred = b64::encode(format!("{account}.1:{PASSWORD}").as_bytes());
            format!("Basic {cred}")
        }
    }

    /// The fixture, made on first use.
    pub fn fixture() -> &'static Fixture {
        static F: OnceLock<Fixture> = OnceLock::new();
        F.get_or_init(|| {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a runtime");
            let dir = tempfile::tempdir_in("/dev/shm")
                .or_else(|_| tempfile::tempdir())
                .expect("a temporary folder");
            let unlimited = Rate::new(u32::MAX, 1e12);
            let config = Config {
                password_params: argon2::Params::new(8, 1, 1, None).expect("valid"),
                auth_failure_delay: std::time::Duration::ZERO,
                rate_per_device: 1e12,
                per_address: AddressLimits {
                    account_creations: unlimited,
                    password_checks: unlimited,
                    unidentified_sends: unlimited,
                },
                prekey_fetches: unlimited,
                prekey_fetches_per_target: unlimited,
                password_work_per_account: unlimited,
                // Few waiting messages, so that a socket's push stays short.
                mailbox_messages: 4,
                ..Config::default()
            };
            let (router, accounts) = rt.block_on(async {
                let store = RedbRelayStore::create(dir.path().join("relay.redb")).expect("store");
                let router = app(std::sync::Arc::new(store), config);
                let mut accounts = vec![];
                for key in [5u8, 6] {
                    // A type byte (5, Curve25519) and 32 bytes.
                    let mut identity = [key; 33];
                    identity[0] = 5;
                    let body = serde_json::json!({
                        "identityKey": b64::encode(&identity),
                        "registrationId": REGISTRATION_ID,
                        "password": PASSWORD,
                    });
                    let req = Request::post(paths::ACCOUNTS)
                        .header("content-type", "application/json")
                        .body(Body::from(body.to_string()))
                        .expect("a request");
                    let r = router
                        .clone()
                        .oneshot(with_address(req))
                        .await
                        .expect("answer");
                    let bytes = axum::body::to_bytes(r.into_body(), 1 << 20)
                        .await
                        .expect("a body");
                    let v: serde_json::Value = serde_json::from_slice(&bytes).expect("JSON");
                    accounts.push(v["uuid"].as_str().expect("an id").to_string());
                }
                (router, accounts)
            });
            Fixture {
                rt,
                router,
                accounts: accounts.try_into().expect("two accounts"),
                _dir: dir,
            }
        })
    }

    /// `req` as if it came from 127.0.0.1 (the relay's per-address limits read this).
    pub fn with_address<B>(mut req: Request<B>) -> Request<B> {
        req.extensions_mut()
            .insert(axum::extract::ConnectInfo(std::net::SocketAddr::from((
                [127, 0, 0, 1],
                4000,
            ))));
        req
    }
}
