//! Clients of a relay under attack, shared by the abuse tests.

use std::time::Duration;

use alibi_identity::IdentityKeyPair;
use alibi_messenger::relay::RelayClient;
use alibi_relay::server::Config;
use alibi_relay_api::b64;
use uuid::Uuid;

/// Every test device's password.
pub const PASSWORD: &str = "a-long-device-secret-123";

/// A relay configuration with Argon2id at its smallest, where a test is not about its cost.
pub fn cheap() -> Config {
    Config {
        password_params: argon2::Params::new(256, 1, 1, None).unwrap(),
        ..Config::default()
    }
}

/// A fresh identity key, serialized.
pub fn identity() -> Vec<u8> {
    IdentityKeyPair::generate(&mut rand_core::UnwrapErr(getrandom::SysRng))
        .identity
        .serialize()
        .to_vec()
}

/// A new account on the relay at `url`, registration id `reg`.
pub async fn register(url: &str, reg: u16) -> RelayClient {
    RelayClient::register(url, &identity(), reg, PASSWORD)
        .await
        .unwrap()
}

/// The HTTP Basic authorization of a device.
pub fn basic(account: Uuid, device: u8, password: &str) -> String {
    format!(
        "Basic {}",
        b64::encode(format!("{account}.{device}:{password}").as_bytes())
    )
}

/// The median of some timings.
pub fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}
