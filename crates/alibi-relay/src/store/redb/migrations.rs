//! The redb store's layout versions and the steps between them (docs/relay.md, "Upgrades").
//!
//! A store records its version in `meta["schema"]`, and since version 3 every version it reached
//! in `schema_history`. At start the relay runs each step from the store's version to its own,
//! every step in one write transaction that also records the version it reaches: a step that
//! fails commits nothing, and the store stays whole at the last version it reached. A store newer
//! than the relay is refused, naming both versions.
//!
//! A later layout adds its step at the end of [`STEPS`] and raises [`SCHEMA`]; the fixture test
//! (`tests/upgrade.rs`) opens a store of every earlier release.

use redb::{
    Database, ReadTransaction, ReadableDatabase, ReadableTableMetadata, TableDefinition,
    TableError, WriteTransaction,
};

use super::{db_err, DEVICES, META, TABLES};
use crate::store::OUTDATED_PASSWORDS;
use crate::{Error, Result};

/// Version -> when this store reached it (Unix milliseconds; 0 where it is not known).
pub(super) const HISTORY: TableDefinition<u32, u64> = TableDefinition::new("schema_history");

/// This relay's layout. 1 kept device passwords as unsalted SHA-256 and cannot be upgraded; 2
/// keeps Argon2id PHC strings; 3 adds [`HISTORY`].
pub const SCHEMA: u32 = 3;

/// The oldest layout an upgrade starts from.
const OLDEST: u32 = 2;

/// A step from version `v` to `v + 1`, inside the transaction that records `v + 1`.
type Step = fn(&WriteTransaction) -> Result<()>;

/// The steps, oldest first: `STEPS[i]` takes version `OLDEST + i` to `OLDEST + i + 1`.
const STEPS: &[Step] = &[history];

/// 2 -> 3: the record of versions, which begins with version 2 (when it was reached is not
/// known).
fn history(t: &WriteTransaction) -> Result<()> {
    t.open_table(HISTORY)
        .map_err(db_err)?
        .insert(2, 0)
        .map_err(db_err)?;
    Ok(())
}

/// Brings the store in `db` to this relay's layout: makes a fresh one, upgrades an older one step
/// by step, refuses one that is newer or too old to upgrade.
pub(super) fn open_layout(db: &Database) -> Result<()> {
    match version(db)? {
        None => create(db),
        Some(v) => {
            upgrade(db, v, STEPS, SCHEMA)?;
            // Tables a release of the same layout added (`message_senders` came within 2).
            let t = db.begin_write().map_err(db_err)?;
            for def in TABLES {
                t.open_table(def).map_err(db_err)?;
            }
            t.commit().map_err(db_err)
        }
    }
}

/// The store's layout; `None` for a fresh store.
fn version(db: &Database) -> Result<Option<u32>> {
    let t = db.begin_read().map_err(db_err)?;
    let found = match t.open_table(META) {
        Ok(meta) => meta.get("schema").map_err(db_err)?.map(|v| v.value()),
        Err(TableError::TableDoesNotExist(_)) => None,
        Err(e) => return Err(db_err(e)),
    };
    match found {
        Some(v) => Ok(Some(v)),
        None => fresh_or_first(&t),
    }
}

/// A store without a version: fresh if it holds no device, else of the first layout.
fn fresh_or_first(t: &ReadTransaction) -> Result<Option<u32>> {
    match t.open_table(DEVICES) {
        Ok(d) if !d.is_empty().map_err(db_err)? => Ok(Some(1)),
        Ok(_) | Err(TableError::TableDoesNotExist(_)) => Ok(None),
        Err(e) => Err(db_err(e)),
    }
}

/// A fresh store of this layout, in one transaction.
fn create(db: &Database) -> Result<()> {
    let t = db.begin_write().map_err(db_err)?;
    for def in TABLES {
        t.open_table(def).map_err(db_err)?;
    }
    record(&t, SCHEMA)?;
    t.commit().map_err(db_err)
}

/// Records that the store reached version `v`.
fn record(t: &WriteTransaction, v: u32) -> Result<()> {
    t.open_table(HISTORY)
        .map_err(db_err)?
        .insert(v, alibi_relay_api::now_ms())
        .map_err(db_err)?;
    t.open_table(META)
        .map_err(db_err)?
        .insert("schema", v)
        .map_err(db_err)?;
    Ok(())
}

/// Runs `steps` (the first taking [`OLDEST`] onwards) from version `from` up to `to`, each in a
/// transaction of its own with its record.
fn upgrade(db: &Database, from: u32, steps: &[Step], to: u32) -> Result<()> {
    if from < OLDEST {
        return Err(Error::OutdatedStore(OUTDATED_PASSWORDS));
    }
    if from > to {
        return Err(Error::NewerStore {
            found: from,
            known: to,
        });
    }
    for v in from..to {
        let step = steps[(v - OLDEST) as usize];
        let run = || -> Result<()> {
            let t = db.begin_write().map_err(db_err)?;
            step(&t)?;
            record(&t, v + 1)?;
            t.commit().map_err(db_err)
        };
        run().map_err(|e| Error::UpgradeFailed {
            from: v,
            to: v + 1,
            reason: e.to_string(),
        })?;
        tracing::info!(from = v, to = v + 1, "store upgraded");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A store of layout 2, as the releases before versioned upgrades wrote it.
    fn layout_2(path: &std::path::Path) -> Database {
        let db = Database::create(path).expect("a database");
        let t = db.begin_write().expect("a transaction");
        for def in TABLES {
            t.open_table(def).expect("a table");
        }
        t.open_table(META)
            .expect("meta")
            .insert("schema", 2)
            .expect("the version");
        t.commit().expect("committed");
        db
    }

    fn history_of(db: &Database) -> Vec<u32> {
        let t = db.begin_read().expect("read");
        let h = t.open_table(HISTORY).expect("history");
        redb::ReadableTable::iter(&h)
            .expect("iterate")
            .map(|e| e.expect("entry").0.value())
            .collect()
    }

    #[test]
    fn a_layout_2_store_is_upgraded_and_records_each_version() {
        let dir = tempfile::tempdir().expect("a directory");
        let db = layout_2(&dir.path().join("r.redb"));
        open_layout(&db).expect("upgraded");
        assert_eq!(version(&db).expect("read"), Some(SCHEMA));
        assert_eq!(history_of(&db), (2..=SCHEMA).collect::<Vec<_>>());
        // Opening again changes nothing.
        open_layout(&db).expect("opened");
        assert_eq!(history_of(&db), (2..=SCHEMA).collect::<Vec<_>>());
    }

    #[test]
    fn a_fresh_store_starts_at_this_layout() {
        let dir = tempfile::tempdir().expect("a directory");
        let db = Database::create(dir.path().join("r.redb")).expect("a database");
        open_layout(&db).expect("made");
        assert_eq!(version(&db).expect("read"), Some(SCHEMA));
        assert_eq!(history_of(&db), vec![SCHEMA]);
    }

    #[test]
    fn a_newer_store_is_refused_naming_both_versions() {
        let dir = tempfile::tempdir().expect("a directory");
        let db = layout_2(&dir.path().join("r.redb"));
        let t = db.begin_write().expect("write");
        record(&t, SCHEMA + 1).expect("recorded");
        t.commit().expect("committed");
        let e = open_layout(&db).expect_err("refused");
        assert!(
            matches!(e, Error::NewerStore { found, known } if found == SCHEMA + 1 && known == SCHEMA)
        );
        let text = e.to_string();
        assert!(text.contains(&format!("{}", SCHEMA + 1)) && text.contains(&SCHEMA.to_string()));
    }

    /// 2 -> 3 writes a row, then fails.
    fn failing(t: &WriteTransaction) -> Result<()> {
        let mut d = t.open_table(DEVICES).map_err(db_err)?;
        d.insert(&[7u8; 17][..], &b"half"[..]).map_err(db_err)?;
        Err(Error::Store("disk on fire".into()))
    }

    #[test]
    fn a_failing_step_writes_nothing_and_names_both_versions() {
        let dir = tempfile::tempdir().expect("a directory");
        let db = layout_2(&dir.path().join("r.redb"));
        let e = upgrade(&db, 2, &[history, failing], 4).expect_err("failed");
        assert!(
            matches!(&e, Error::UpgradeFailed { from: 3, to: 4, reason } if reason.contains("disk on fire")),
            "{e}"
        );
        // The first step held; the failing one left no row and no record.
        assert_eq!(version(&db).expect("read"), Some(3));
        assert_eq!(history_of(&db), vec![2, 3]);
        let t = db.begin_read().expect("read");
        let d = t.open_table(DEVICES).expect("devices");
        assert!(d.is_empty().expect("count"));
    }
}
