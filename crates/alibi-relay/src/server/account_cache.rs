//! The short-lived in-memory view of an account that authentication and sends check against:
//! below both accounts.rs (whose handlers authenticate) and auth.rs (which reads it), so that
//! neither imports the other.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use alibi_relay_api::access::AccessKey;
use uuid::Uuid;

use super::{ApiResult, AppState};
use crate::store::DeviceInfo;

/// What a send checks of an account: its devices and access key, and when they were read.
#[derive(Clone)]
pub(crate) struct CachedAccount {
    pub(crate) devices: Arc<Vec<DeviceInfo>>,
    pub(crate) access_key: Option<AccessKey>,
    at: Instant,
}

/// How long an account's device list is trusted from memory. Another relay on the same database
/// may add a device; within this time a send may still be checked against the old list (the
/// sender then learns of the device on its next send).
const DEVICE_CACHE_TTL: Duration = Duration::from_secs(1);

/// The account's devices and access key, from memory when fresh (no devices: no account).
pub(crate) async fn account(s: &AppState, account: Uuid) -> ApiResult<CachedAccount> {
    accounts(s, &[account])
        .await?
        .remove(&account)
        .ok_or_else(|| {
            crate::Error::Store("the store did not answer for the account".into()).into()
        })
}

/// [`account`] for many accounts (each listed once): those fresh in memory from there, the rest
/// read from the store together, in one call.
pub(crate) async fn accounts(
    s: &AppState,
    wanted: &[Uuid],
) -> ApiResult<HashMap<Uuid, CachedAccount>> {
    let mut out = HashMap::with_capacity(wanted.len());
    let mut missing = vec![];
    {
        let cache = s.device_cache.lock().expect("cache lock");
        for &a in wanted {
            match cache.get(&a) {
                Some(c) if c.at.elapsed() < DEVICE_CACHE_TTL => {
                    out.insert(a, c.clone());
                }
                _ => missing.push(a),
            }
        }
    }
    if missing.is_empty() {
        return Ok(out);
    }
    let read = s.store.accounts(&missing).await?;
    if read.len() != missing.len() {
        // A store that answers for fewer accounts than asked would leave some unchecked.
        return Err(crate::Error::Store(format!(
            "asked for {} accounts, the store answered {}",
            missing.len(),
            read.len()
        ))
        .into());
    }
    let at = Instant::now();
    let mut cache = s.device_cache.lock().expect("cache lock");
    for (a, (devices, access_key)) in missing.into_iter().zip(read) {
        let c = CachedAccount {
            devices: Arc::new(devices),
            access_key,
            at,
        };
        if !c.devices.is_empty() {
            cache.insert(a, c.clone());
        }
        out.insert(a, c);
    }
    Ok(out)
}

/// The account's devices, from memory when fresh.
pub(crate) async fn devices(s: &AppState, a: Uuid) -> ApiResult<Arc<Vec<DeviceInfo>>> {
    Ok(account(s, a).await?.devices)
}
