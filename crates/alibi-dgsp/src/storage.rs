//! The manager's private list (PLM) and the revocation list, behind traits, with in-memory
//! implementations. Every read-and-update happens under one lock, so concurrent certificate
//! generation never sees the same counter twice (the published crate read and incremented in two
//! steps).

use crate::Error;
use std::collections::{HashMap, HashSet};
use std::sync::Mutex;

/// One group member in the private list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    /// The name the member joined with.
    pub username: String,
    /// False once revoked.
    pub active: bool,
    /// Certificates issued so far (the next zeta's counter).
    pub ctr: u64,
}

/// The private list of members (PLM).
pub trait Plm: Send + Sync {
    /// Adds a member; its id is the next sequential integer. Usernames are unique.
    fn add_new_user(&self, username: &str) -> Result<u64, Error>;
    /// The member with this id.
    fn member(&self, id: u64) -> Result<Member, Error>;
    /// Marks a member revoked.
    fn deactivate(&self, id: u64) -> Result<(), Error>;
    /// Atomically returns the counter and adds `by` to it (for an active member).
    fn fetch_add_ctr(&self, id: u64, by: u64) -> Result<u64, Error>;
    /// Number of members ever added.
    fn len(&self) -> u64;
    /// Whether no member was ever added.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The list of revoked certificate positions zeta.
pub trait RevokedList: Send + Sync {
    /// Whether zeta is revoked.
    fn contains(&self, zeta: &[u8; 16]) -> Result<bool, Error>;
    /// Revokes zeta.
    fn insert(&self, zeta: [u8; 16]) -> Result<(), Error>;
}

/// An in-memory PLM.
#[derive(Default)]
pub struct MemoryPlm {
    inner: Mutex<(Vec<Member>, HashMap<String, u64>)>,
}

impl Plm for MemoryPlm {
    fn add_new_user(&self, username: &str) -> Result<u64, Error> {
        let mut g = self
            .inner
            .lock()
            .map_err(|_| Error::Storage("lock poisoned".into()))?;
        if g.1.contains_key(username) {
            return Err(Error::UsernameTaken);
        }
        let id = g.0.len() as u64;
        g.0.push(Member {
            username: username.to_string(),
            active: true,
            ctr: 0,
        });
        g.1.insert(username.to_string(), id);
        Ok(id)
    }

    fn member(&self, id: u64) -> Result<Member, Error> {
        let g = self
            .inner
            .lock()
            .map_err(|_| Error::Storage("lock poisoned".into()))?;
        g.0.get(id as usize).cloned().ok_or(Error::UnknownId(id))
    }

    fn deactivate(&self, id: u64) -> Result<(), Error> {
        let mut g = self
            .inner
            .lock()
            .map_err(|_| Error::Storage("lock poisoned".into()))?;
        g.0.get_mut(id as usize).ok_or(Error::UnknownId(id))?.active = false;
        Ok(())
    }

    fn fetch_add_ctr(&self, id: u64, by: u64) -> Result<u64, Error> {
        let mut g = self
            .inner
            .lock()
            .map_err(|_| Error::Storage("lock poisoned".into()))?;
        let m = g.0.get_mut(id as usize).ok_or(Error::UnknownId(id))?;
        if !m.active {
            return Err(Error::Revoked);
        }
        let old = m.ctr;
        m.ctr = old.checked_add(by).ok_or(Error::CounterExhausted)?;
        Ok(old)
    }

    fn len(&self) -> u64 {
        self.inner.lock().map(|g| g.0.len() as u64).unwrap_or(0)
    }
}

/// An in-memory revocation list.
#[derive(Default)]
pub struct MemoryRevokedList {
    inner: Mutex<HashSet<[u8; 16]>>,
}

impl RevokedList for MemoryRevokedList {
    fn contains(&self, zeta: &[u8; 16]) -> Result<bool, Error> {
        Ok(self
            .inner
            .lock()
            .map_err(|_| Error::Storage("lock poisoned".into()))?
            .contains(zeta))
    }

    fn insert(&self, zeta: [u8; 16]) -> Result<(), Error> {
        self.inner
            .lock()
            .map_err(|_| Error::Storage("lock poisoned".into()))?
            .insert(zeta);
        Ok(())
    }
}
