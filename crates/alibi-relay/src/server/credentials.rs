//! Device passwords: stored as Argon2id PHC strings (a random salt per device), checked with the
//! same Argon2id work whether or not the account exists, and remembered once checked.
//!
//! Every request carries HTTP Basic credentials, and Argon2id costs tens of milliseconds, so a
//! password that verified once is remembered as a keyed SHA-256 tag (key random per process,
//! bound to the stored hash, so a replaced device's new password is checked afresh); the next
//! request compares tags in constant time. The Argon2id runs themselves are bounded twice: per
//! client address by the `password_checks` limit, and in total by a semaphore, so that wrong
//! passwords cannot take more than the cores (and `cores x m_cost` of memory).

use std::num::NonZeroUsize;
use std::sync::{Arc, Mutex};

use argon2::password_hash::{PasswordHasher, PasswordVerifier};
use argon2::{Algorithm, Argon2, Params, PasswordHash, Version};
use getrandom::SysRng;
use lru::LruCache;
use rand_core::{Rng, UnwrapErr};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;
use tokio::sync::Semaphore;
use uuid::Uuid;

use crate::{Error, Result};

/// Most remembered verifications; beyond it the least recently used is forgotten, one at a time
/// (clearing all at once would make every device of the relay pay Argon2id again together, and
/// let a stranger's flood of new accounts push the owners' tags out in one step).
const MAX_REMEMBERED: usize = 100_000;

/// Hashing and checking of device passwords.
pub(crate) struct Credentials {
    params: Params,
    /// Argon2id runs at once, at most.
    running: Arc<Semaphore>,
    /// A hash of a random password under the same parameters: what an unknown device's password
    /// is checked against, so that it costs the same as a known device's.
    dummy: String,
    /// Per process: the key of the remembered tags.
    tag_key: [u8; 32],
    remembered: Mutex<LruCache<(Uuid, u8), [u8; 32]>>,
}

fn argon2(params: &Params) -> Argon2<'static> {
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params.clone())
}

fn hash_with(params: &Params, password: &[u8]) -> Result<String> {
    let mut salt = [0u8; 16];
    UnwrapErr(SysRng).fill_bytes(&mut salt);
    let hash: PasswordHash = argon2(params)
        .hash_password_with_salt(password, &salt)
        .map_err(|e| Error::Store(format!("argon2: {e}")))?;
    Ok(hash.to_string())
}

impl Credentials {
    /// Parameters `params`; computes the dummy hash (one Argon2id run).
    pub(crate) fn new(params: Params) -> Self {
        Self::remembering(params, MAX_REMEMBERED)
    }

    /// [`Self::new`], remembering at most `capacity` verifications (at least one).
    fn remembering(params: Params, capacity: usize) -> Self {
        let mut random = [0u8; 32];
        UnwrapErr(SysRng).fill_bytes(&mut random);
        let dummy = hash_with(&params, &random).expect("hashing a random password");
        let mut tag_key = [0u8; 32];
        UnwrapErr(SysRng).fill_bytes(&mut tag_key);
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        Self {
            params,
            running: Arc::new(Semaphore::new(cores)),
            dummy,
            tag_key,
            remembered: Mutex::new(LruCache::new(
                NonZeroUsize::new(capacity).unwrap_or(NonZeroUsize::MIN),
            )),
        }
    }

    fn tag(&self, who: (Uuid, u8), stored: &str, password: &str) -> [u8; 32] {
        let mut h = Sha256::new();
        h.update(self.tag_key);
        h.update(who.0.as_bytes());
        h.update([who.1]);
        h.update((stored.len() as u64).to_be_bytes());
        h.update(stored.as_bytes());
        h.update(password.as_bytes());
        h.finalize().into()
    }

    /// Hashes a new device's password (Argon2id, random salt) and remembers it as verified.
    pub(crate) async fn hash(&self, who: (Uuid, u8), password: &str) -> Result<String> {
        let _permit = self.running.acquire().await.map_err(|_| closed())?;
        let (params, pw) = (self.params.clone(), password.to_owned());
        let stored = tokio::task::spawn_blocking(move || hash_with(&params, pw.as_bytes()))
            .await
            .map_err(|e| Error::Store(e.to_string()))??;
        self.remember(who, self.tag(who, &stored, password));
        Ok(stored)
    }

    /// Whether `password` was already verified against `stored` for this device (no Argon2id).
    pub(crate) fn known(&self, who: (Uuid, u8), stored: &str, password: &str) -> bool {
        let tag = self.tag(who, stored, password);
        // `get` marks the entry as used: a device that keeps logging in keeps its place.
        let mut remembered = self.remembered.lock().expect("credentials lock");
        remembered
            .get(&who)
            .is_some_and(|t| bool::from(t.ct_eq(&tag)))
    }

    /// Checks `password` against `stored` with Argon2id (against the dummy hash when the device
    /// is unknown, so that both take the same time); remembers it when right.
    pub(crate) async fn verify(
        &self,
        who: (Uuid, u8),
        stored: Option<&str>,
        password: &str,
    ) -> Result<bool> {
        let _permit = self.running.acquire().await.map_err(|_| closed())?;
        let known = stored.is_some();
        let phc = stored.unwrap_or(&self.dummy).to_owned();
        let pw = password.to_owned();
        let ok = tokio::task::spawn_blocking(move || {
            let Ok(parsed) = PasswordHash::new(&phc) else {
                return false;
            };
            // The parameters come from the stored string: a device keeps the cost it was hashed
            // with (the verifier recomputes in constant time and compares).
            Argon2::default()
                .verify_password(pw.as_bytes(), &parsed)
                .is_ok()
        })
        .await
        .map_err(|e| Error::Store(e.to_string()))?;
        if ok && known {
            let stored = stored.expect("known");
            self.remember(who, self.tag(who, stored, password));
        }
        Ok(ok && known)
    }

    fn remember(&self, who: (Uuid, u8), tag: [u8; 32]) {
        self.remembered
            .lock()
            .expect("credentials lock")
            .put(who, tag);
    }
}

fn closed() -> Error {
    Error::Store("password checks stopped".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small() -> Params {
        Params::new(256, 1, 1, None).unwrap()
    }

    #[tokio::test]
    async fn salted_hashes_verify_and_wrong_passwords_do_not() {
        let c = Credentials::new(small());
        let who = (Uuid::new_v4(), 1);
        let a = c.hash(who, "correct horse battery").await.unwrap();
        let b = c.hash(who, "correct horse battery").await.unwrap();
        assert!(a.starts_with("$argon2id$v=19$m=256,t=1,p=1$"), "{a}");
        assert_ne!(a, b, "a random salt per hash");
        assert!(c.known(who, &b, "correct horse battery"));
        assert!(
            !c.known(who, &a, "correct horse battery"),
            "bound to the stored hash"
        );
        assert!(c
            .verify(who, Some(&a), "correct horse battery")
            .await
            .unwrap());
        assert!(!c
            .verify(who, Some(&a), "wrong horse battery")
            .await
            .unwrap());
        assert!(!c.verify(who, None, "correct horse battery").await.unwrap());
        assert!(!c.verify(who, Some("not a hash"), "x").await.unwrap());
    }

    /// A full memory forgets its least recently used verification alone; before, it forgot all
    /// at once, and every device paid Argon2id (and its share of the limits) again together.
    #[tokio::test]
    async fn a_full_memory_forgets_the_least_recently_used_only() {
        let c = Credentials::remembering(small(), 3);
        let mut devices = vec![];
        for i in 0..3u8 {
            let who = (Uuid::new_v4(), i);
            let stored = c.hash(who, "correct horse battery").await.unwrap();
            devices.push((who, stored));
        }
        // The first is used again, so the second is now the least recently used.
        assert!(c.known(devices[0].0, &devices[0].1, "correct horse battery"));
        let fourth = (Uuid::new_v4(), 9);
        let stored = c.hash(fourth, "correct horse battery").await.unwrap();
        devices.push((fourth, stored));
        let known: Vec<bool> = devices
            .iter()
            .map(|(who, stored)| c.known(*who, stored, "correct horse battery"))
            .collect();
        assert_eq!(known, [true, false, true, true]);
    }
}
