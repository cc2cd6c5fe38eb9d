//! The manager's private list (PLM) and the revocation list, behind traits, with in-memory
//! implementations. Every read-and-update happens under one lock, so concurrent certificate
//! generation never sees the same counter twice (the published crate read and incremented in two
//! steps).

use crate::Error;
use redb::{ReadableDatabase, ReadableTable, ReadableTableMetadata};
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

/// The files of a manager's directory as `alibi group` and the Python package lay it out: the
/// manager's secret key (raw, owner-only), its public key, and the [`RedbStore`] of members and
/// revocations (owner-only).
pub const MANAGER_DIR: [&str; 3] = ["manager.sk", "manager.pk", "members.redb"];

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
    /// Marks a member revoked and returns its counter, now final: in the same transaction (or
    /// under the same lock) as [`Plm::fetch_add_ctr`] checks activity, so every position ever
    /// issued to the member is below the returned counter.
    fn deactivate(&self, id: u64) -> Result<u64, Error>;
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
    /// Revokes every zeta of `zetas`, all in one transaction (or under one lock).
    fn insert_all(&self, zetas: &mut dyn Iterator<Item = [u8; 16]>) -> Result<(), Error>;
}

impl<T: Plm> Plm for Arc<T> {
    fn add_new_user(&self, username: &str) -> Result<u64, Error> {
        (**self).add_new_user(username)
    }
    fn member(&self, id: u64) -> Result<Member, Error> {
        (**self).member(id)
    }
    fn deactivate(&self, id: u64) -> Result<u64, Error> {
        (**self).deactivate(id)
    }
    fn fetch_add_ctr(&self, id: u64, by: u64) -> Result<u64, Error> {
        (**self).fetch_add_ctr(id, by)
    }
    fn len(&self) -> u64 {
        (**self).len()
    }
}

impl<T: RevokedList> RevokedList for Arc<T> {
    fn contains(&self, zeta: &[u8; 16]) -> Result<bool, Error> {
        (**self).contains(zeta)
    }
    fn insert_all(&self, zetas: &mut dyn Iterator<Item = [u8; 16]>) -> Result<(), Error> {
        (**self).insert_all(zetas)
    }
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

    fn deactivate(&self, id: u64) -> Result<u64, Error> {
        let mut g = self
            .inner
            .lock()
            .map_err(|_| Error::Storage("lock poisoned".into()))?;
        let m = g.0.get_mut(id as usize).ok_or(Error::UnknownId(id))?;
        m.active = false;
        Ok(m.ctr)
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

    fn insert_all(&self, zetas: &mut dyn Iterator<Item = [u8; 16]>) -> Result<(), Error> {
        self.inner
            .lock()
            .map_err(|_| Error::Storage("lock poisoned".into()))?
            .extend(zetas);
        Ok(())
    }
}

/// On-disk stores in one redb database file: `members` (id -> active, counter, name), `names`
/// (name -> id) and `revoked` (zeta). Every update is one serializable write transaction, so the
/// counter's read-and-increment is atomic across threads and processes.
pub struct RedbStore {
    db: redb::Database,
}

const MEMBERS: redb::TableDefinition<u64, &[u8]> = redb::TableDefinition::new("members");
const NAMES: redb::TableDefinition<&str, u64> = redb::TableDefinition::new("names");
const REVOKED: redb::TableDefinition<&[u8; 16], ()> = redb::TableDefinition::new("revoked");

fn st<E: std::fmt::Display>(e: E) -> Error {
    Error::Storage(e.to_string())
}

fn encode_member(m: &Member) -> Vec<u8> {
    let mut v = vec![m.active as u8];
    v.extend_from_slice(&m.ctr.to_be_bytes());
    v.extend_from_slice(m.username.as_bytes());
    v
}

pub(crate) fn decode_member(b: &[u8]) -> Result<Member, Error> {
    if b.len() < 9 {
        return Err(Error::Storage("corrupt member record".into()));
    }
    Ok(Member {
        active: b[0] == 1,
        ctr: u64::from_be_bytes(b[1..9].try_into().expect("8 bytes")),
        username: String::from_utf8(b[9..].to_vec()).map_err(st)?,
    })
}

impl RedbStore {
    /// Opens (or creates) the database at `path`: [`Error::Busy`] if another process holds it.
    pub fn open(path: &std::path::Path) -> Result<Self, Error> {
        let db = redb::Database::create(path).map_err(|e| match e {
            redb::DatabaseError::DatabaseAlreadyOpen => Error::Busy(path.to_path_buf()),
            e => st(e),
        })?;
        let w = db.begin_write().map_err(st)?;
        {
            w.open_table(MEMBERS).map_err(st)?;
            w.open_table(NAMES).map_err(st)?;
            w.open_table(REVOKED).map_err(st)?;
        }
        w.commit().map_err(st)?;
        Ok(RedbStore { db })
    }

    /// Adds many members in one write transaction (bulk population: one commit instead of one per
    /// member); returns the first new id. Fails, adding none, if a name is taken.
    pub fn add_new_users<I: IntoIterator<Item = String>>(&self, names: I) -> Result<u64, Error> {
        let w = self.db.begin_write().map_err(st)?;
        let first = {
            let mut members = w.open_table(MEMBERS).map_err(st)?;
            let mut by_name = w.open_table(NAMES).map_err(st)?;
            let first = members.len().map_err(st)?;
            for (id, username) in (first..).zip(names) {
                if by_name.get(username.as_str()).map_err(st)?.is_some() {
                    return Err(Error::UsernameTaken);
                }
                let m = Member {
                    username: username.clone(),
                    active: true,
                    ctr: 0,
                };
                members
                    .insert(id, encode_member(&m).as_slice())
                    .map_err(st)?;
                by_name.insert(username.as_str(), id).map_err(st)?;
            }
            first
        };
        w.commit().map_err(st)?;
        Ok(first)
    }

    /// Runs `f` on the member `id` inside one write transaction and stores its result.
    fn update<T>(
        &self,
        id: u64,
        f: impl FnOnce(&mut Member) -> Result<T, Error>,
    ) -> Result<T, Error> {
        let w = self.db.begin_write().map_err(st)?;
        let out = {
            let mut t = w.open_table(MEMBERS).map_err(st)?;
            let mut m = match t.get(id).map_err(st)? {
                Some(v) => decode_member(v.value())?,
                None => return Err(Error::UnknownId(id)),
            };
            let out = f(&mut m)?;
            t.insert(id, encode_member(&m).as_slice()).map_err(st)?;
            out
        };
        w.commit().map_err(st)?;
        Ok(out)
    }
}

impl Plm for RedbStore {
    fn add_new_user(&self, username: &str) -> Result<u64, Error> {
        let w = self.db.begin_write().map_err(st)?;
        let id = {
            let mut names = w.open_table(NAMES).map_err(st)?;
            if names.get(username).map_err(st)?.is_some() {
                return Err(Error::UsernameTaken);
            }
            let mut members = w.open_table(MEMBERS).map_err(st)?;
            let id = members.len().map_err(st)?;
            let m = Member {
                username: username.to_string(),
                active: true,
                ctr: 0,
            };
            members
                .insert(id, encode_member(&m).as_slice())
                .map_err(st)?;
            names.insert(username, id).map_err(st)?;
            id
        };
        w.commit().map_err(st)?;
        Ok(id)
    }

    fn member(&self, id: u64) -> Result<Member, Error> {
        let r = self.db.begin_read().map_err(st)?;
        let t = r.open_table(MEMBERS).map_err(st)?;
        let v = t.get(id).map_err(st)?.ok_or(Error::UnknownId(id))?;
        decode_member(v.value())
    }

    fn deactivate(&self, id: u64) -> Result<u64, Error> {
        self.update(id, |m| {
            m.active = false;
            Ok(m.ctr)
        })
    }

    fn fetch_add_ctr(&self, id: u64, by: u64) -> Result<u64, Error> {
        self.update(id, |m| {
            if !m.active {
                return Err(Error::Revoked);
            }
            let old = m.ctr;
            m.ctr = old.checked_add(by).ok_or(Error::CounterExhausted)?;
            Ok(old)
        })
    }

    fn len(&self) -> u64 {
        self.db
            .begin_read()
            .ok()
            .and_then(|r| r.open_table(MEMBERS).ok())
            .and_then(|t| t.len().ok())
            .unwrap_or(0)
    }
}

impl RevokedList for RedbStore {
    fn contains(&self, zeta: &[u8; 16]) -> Result<bool, Error> {
        let r = self.db.begin_read().map_err(st)?;
        let t = r.open_table(REVOKED).map_err(st)?;
        Ok(t.get(zeta).map_err(st)?.is_some())
    }

    fn insert_all(&self, zetas: &mut dyn Iterator<Item = [u8; 16]>) -> Result<(), Error> {
        let w = self.db.begin_write().map_err(st)?;
        {
            let mut t = w.open_table(REVOKED).map_err(st)?;
            for zeta in zetas {
                t.insert(&zeta, ()).map_err(st)?;
            }
        }
        w.commit().map_err(st)
    }
}
