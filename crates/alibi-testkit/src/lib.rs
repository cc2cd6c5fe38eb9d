//! Test support shared by the alibi crates.
//!
//! The project's peer policy: a test that needs something outside the repository (the shared test
//! vectors beside the checkout, a system package) prints `skipped: <why>` when it is absent, unless
//! `ALIBI_REQUIRE_PEERS=1` (set by `.ci/run`), under which a skip is a failure.

#![deny(missing_docs)]
#![deny(clippy::unwrap_used)]

pub mod alloc;
pub mod ct;
pub mod node;
pub mod pki;
pub mod postgres;
pub mod proxy;
pub mod relay_fixture;
pub mod spread;
pub mod stall;

// The README's Rust snippets, compiled and run as doctests of this crate (its dev-dependencies are
// the crates they use), so that `cargo test --workspace` keeps them true to the API.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
mod readme {}

use serde_json::Value;
use std::path::{Path, PathBuf};

/// Applies the peer policy to a missing dependency: panics under `ALIBI_REQUIRE_PEERS=1`,
/// otherwise prints `skipped: <why>`.
pub fn skip(why: &str) {
    let line = format!("skipped: {why}");
    assert!(
        std::env::var("ALIBI_REQUIRE_PEERS").as_deref() != Ok("1"),
        "{line}"
    );
    println!("{line}");
}

/// The repository's `vectors/` folder: other implementations' outputs the tests check against,
/// with their provenance in its README.
pub fn vectors_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../vectors")
}

/// The JSON-lines file `rel` under the vectors folder, parsed; `None` (after the policy's skip) when
/// the file is absent.
pub fn json_lines(rel: &str) -> Option<Vec<Value>> {
    let path = vectors_dir().join(rel);
    let Ok(text) = std::fs::read_to_string(&path) else {
        skip(&format!("{} not found", path.display()));
        return None;
    };
    Some(
        text.lines()
            .map(|l| serde_json::from_str(l).expect("a JSON object per line"))
            .collect(),
    )
}

/// Lowercase hex of bytes (the Node peer's convention).
pub fn hex(b: &[u8]) -> String {
    hex::encode(b)
}

/// A JSON hex string as bytes; panics, naming the value, if it is not one.
pub fn unhex(v: &Value) -> Vec<u8> {
    let s = v
        .as_str()
        .unwrap_or_else(|| panic!("hex string expected, got {v}"));
    hex::decode(s).unwrap_or_else(|e| panic!("hex string expected, got {v}: {e}"))
}

/// A Node peer's answer, which must not be an error.
pub fn ok(v: Value) -> Value {
    assert!(v.get("error").is_none(), "libsignal peer: {v}");
    v
}

/// A hex field of a JSON object as bytes.
pub fn hex_field(v: &Value, k: &str) -> Vec<u8> {
    unhex(&v[k])
}
