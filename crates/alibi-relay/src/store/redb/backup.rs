//! A consistent copy of a redb store, taken while the relay runs: one read transaction sees the
//! store as its last commit left it, and every table is copied from it into a new file. Writers
//! go on meanwhile (redb keeps the pages a reader sees until it ends).

use std::path::Path;

use redb::{
    Database, Key, ReadTransaction, ReadableDatabase, TableDefinition, TableError, Value,
    WriteTransaction,
};

use super::migrations::HISTORY;
use super::{db_err, META, TABLES};
use crate::Result;

/// Copies every table of `db` into a new store at `to`, which must not exist (it is created
/// owner-only, and removed again if the copy fails); returns the entries copied.
pub(super) fn backup(db: &Database, to: &Path) -> Result<u64> {
    create_owner_only(to)?;
    let copied = copy_all(db, to);
    if copied.is_err() {
        let _ = std::fs::remove_file(to);
    }
    copied
}

/// Copies `db` into the empty file at `to`.
fn copy_all(db: &Database, to: &Path) -> Result<u64> {
    let out = Database::create(to).map_err(db_err)?;
    let r = db.begin_read().map_err(db_err)?;
    let w = out.begin_write().map_err(db_err)?;
    let mut n = 0;
    for def in TABLES {
        n += copy(&r, &w, def)?;
    }
    n += copy(&r, &w, META)?;
    n += copy(&r, &w, HISTORY)?;
    w.commit().map_err(db_err)?;
    Ok(n)
}

/// Copies one table (none if the store has none of that name).
fn copy<K: Key + 'static, V: Value + 'static>(
    r: &ReadTransaction,
    w: &WriteTransaction,
    def: TableDefinition<K, V>,
) -> Result<u64> {
    let src = match r.open_table(def) {
        Ok(t) => t,
        Err(TableError::TableDoesNotExist(_)) => return Ok(0),
        Err(e) => return Err(db_err(e)),
    };
    let mut dst = w.open_table(def).map_err(db_err)?;
    let mut n = 0;
    for e in redb::ReadableTable::iter(&src).map_err(db_err)? {
        let (k, v) = e.map_err(db_err)?;
        dst.insert(k.value(), v.value()).map_err(db_err)?;
        n += 1;
    }
    Ok(n)
}

/// Creates `to`, empty, readable by its owner only; an existing file is an error.
fn create_owner_only(to: &Path) -> Result<()> {
    let mut o = std::fs::OpenOptions::new();
    o.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut o, 0o600);
    o.open(to)
        .map(drop)
        .map_err(|e| crate::Error::Store(format!("{}: {e}", to.display())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use redb::ReadableTableMetadata;

    #[test]
    fn a_copy_holds_every_table_and_an_existing_file_is_never_replaced() {
        let dir = tempfile::tempdir().expect("a directory");
        let db = Database::create(dir.path().join("r.redb")).expect("a store");
        super::super::migrations::open_layout(&db).expect("a layout");
        let t = db.begin_write().expect("write");
        t.open_table(super::super::MESSAGES)
            .expect("messages")
            .insert(&[1u8; 20][..], &b"mail"[..])
            .expect("a row");
        t.commit().expect("committed");
        let to = dir.path().join("copy.redb");
        let n = backup(&db, &to).expect("copied");
        assert_eq!(n, 3, "the message, the version, its record");
        let copy = Database::open(&to).expect("the copy opens");
        let r = copy.begin_read().expect("read");
        let m = r.open_table(super::super::MESSAGES).expect("messages");
        assert_eq!(m.len().expect("count"), 1);
        assert_eq!(
            m.get(&[1u8; 20][..])
                .expect("get")
                .expect("the row")
                .value(),
            b"mail"
        );
        drop((m, r, copy));
        assert!(backup(&db, &to).is_err(), "an existing file was replaced");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&to).expect("meta").permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
    }
}
