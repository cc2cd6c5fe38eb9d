//! The relay stores of the last release (`crates/alibi-relay/tests/fixtures/`, written by
//! `crates/alibi-relay/examples/store_fixture.rs`): their paths, and the manifest of the mail
//! they hold, for the upgrade tests.

use std::path::PathBuf;

/// The release whose stores are the fixtures.
pub const RELEASE: &str = "relay-0.1.0";

/// The fixture file `ext`: `redb`, `pgdump.sql`, or a manifest (`redb.json`, `pgdump.json`).
pub fn path(ext: &str) -> PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../alibi-relay/tests/fixtures")
        .join(format!("{RELEASE}.{ext}"))
}

/// A device of the fixture and the mail waiting for it.
#[derive(Debug, Clone)]
pub struct Device {
    /// `alice.1`, `alice.2`, `bob.1`.
    pub name: String,
    /// Its account.
    pub account: uuid::Uuid,
    /// Its device id.
    pub device: u8,
    /// Its password.
    pub password: String,
    /// The contents waiting for it, in the order sent.
    pub waiting: Vec<String>,
}

/// The devices of the store `kind` (`redb` or `pgdump`), from its manifest.
pub fn devices(kind: &str) -> Vec<Device> {
    let text = std::fs::read_to_string(path(&format!("{kind}.json"))).expect("the manifest");
    let m: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let field = |d: &serde_json::Value, k: &str| d[k].as_str().expect(k).to_string();
    m["devices"]
        .as_array()
        .expect("devices")
        .iter()
        .map(|d| Device {
            name: field(d, "name"),
            account: field(d, "account").parse().expect("a UUID"),
            device: u8::try_from(d["device"].as_u64().expect("device")).expect("a device id"),
            password: field(d, "password"),
            waiting: d["waiting"]
                .as_array()
                .expect("waiting")
                .iter()
                .map(|w| w.as_str().expect("text").to_string())
                .collect(),
        })
        .collect()
}
