//! The PostgreSQL store's layout versions and the steps between them (docs/relay.md,
//! "Upgrades").
//!
//! Version 1 is the layout of the releases before versioned upgrades ([`BASE`], [`BACKFILL`]),
//! recorded nowhere; version 2 adds `relay_schema`, one row per version the database reached, with
//! when. At start, under an advisory lock (relays starting together run the steps once), the relay
//! runs each step from the database's version (0 without `relay_schema`: fresh, or unversioned)
//! to its own, every step in one transaction with its row: a step that fails commits nothing and
//! the database stays whole at the last version it reached. A database newer than the relay is
//! refused, naming both versions.
//!
//! A later layout adds its step at the end of [`STEPS`] and raises [`VERSION`]; the fixture test
//! (`tests/upgrade.rs`) opens a dump of every earlier release.

use tokio_postgres::Client;

use super::pg_err;
use crate::{Error, Result};

/// This relay's layout.
pub const VERSION: i32 = 2;

/// The first version `relay_schema` records (it is created by the step that reaches it).
const RECORDED_FROM: i32 = 2;

/// The advisory lock every relay takes to run the steps.
const LOCK: i64 = 424_242;

/// A step: statements run in order, in the transaction that records the version it reaches.
type Step = &'static [&'static str];

/// The steps, oldest first: `STEPS[v]` takes version `v` to `v + 1`.
const STEPS: &[Step] = &[&[BASE, BACKFILL], &[VERSIONS]];

/// 1 -> 2: the record of versions, which begins with version 1 (when it was reached is not
/// known).
const VERSIONS: &str = "
CREATE TABLE relay_schema (version INT PRIMARY KEY, reached BIGINT NOT NULL);
INSERT INTO relay_schema (version, reached) VALUES (1, 0);
";

/// Version 1: the layout of the releases before versioned upgrades, every table created if
/// missing (so it also completes any earlier unversioned database).
const BASE: &str = "
CREATE TABLE IF NOT EXISTS accounts (uuid BYTEA PRIMARY KEY, identity_key BYTEA NOT NULL);
CREATE TABLE IF NOT EXISTS access_keys (uuid BYTEA PRIMARY KEY, key BYTEA NOT NULL);
CREATE TABLE IF NOT EXISTS devices (uuid BYTEA NOT NULL, device SMALLINT NOT NULL, registration_id INT NOT NULL,
    password_hash TEXT NOT NULL, PRIMARY KEY (uuid, device));
CREATE TABLE IF NOT EXISTS signed_keys (uuid BYTEA NOT NULL, device SMALLINT NOT NULL, id BIGINT NOT NULL,
    public BYTEA NOT NULL, signature BYTEA NOT NULL, PRIMARY KEY (uuid, device));
CREATE TABLE IF NOT EXISTS ec_keys (uuid BYTEA NOT NULL, device SMALLINT NOT NULL, id BIGINT NOT NULL,
    public BYTEA NOT NULL, PRIMARY KEY (uuid, device, id));
CREATE TABLE IF NOT EXISTS pq_keys (uuid BYTEA NOT NULL, device SMALLINT NOT NULL, id BIGINT NOT NULL,
    public BYTEA NOT NULL, signature BYTEA NOT NULL, PRIMARY KEY (uuid, device, id));
CREATE TABLE IF NOT EXISTS pq_last_resort (uuid BYTEA NOT NULL, device SMALLINT NOT NULL, id BIGINT NOT NULL,
    public BYTEA NOT NULL, signature BYTEA NOT NULL, PRIMARY KEY (uuid, device));
CREATE TABLE IF NOT EXISTS ringxkem_keys (uuid BYTEA NOT NULL, device SMALLINT NOT NULL, id BIGINT NOT NULL,
    bundle BYTEA NOT NULL, PRIMARY KEY (uuid, device));
CREATE TABLE IF NOT EXISTS messages (seq BIGSERIAL PRIMARY KEY, uuid BYTEA NOT NULL, device SMALLINT NOT NULL,
    guid BYTEA NOT NULL UNIQUE, shared BYTEA, envelope BYTEA NOT NULL, size BIGINT NOT NULL,
    created BIGINT NOT NULL);
CREATE INDEX IF NOT EXISTS messages_by_time ON messages (created);
CREATE INDEX IF NOT EXISTS messages_by_device ON messages (uuid, device, seq);
CREATE TABLE IF NOT EXISTS shared_mrm (key BYTEA PRIMARY KEY, refs INT NOT NULL, data BYTEA NOT NULL);
ALTER TABLE messages ADD COLUMN IF NOT EXISTS sender BYTEA;
CREATE TABLE IF NOT EXISTS mailboxes (uuid BYTEA NOT NULL, device SMALLINT NOT NULL,
    messages BIGINT NOT NULL, bytes BIGINT NOT NULL, PRIMARY KEY (uuid, device));
CREATE TABLE IF NOT EXISTS mailbox_senders (uuid BYTEA NOT NULL, device SMALLINT NOT NULL,
    sender BYTEA NOT NULL, messages BIGINT NOT NULL, bytes BIGINT NOT NULL,
    PRIMARY KEY (uuid, device, sender));
CREATE TABLE IF NOT EXISTS relay_meta (key TEXT PRIMARY KEY, value BIGINT NOT NULL);
";

/// Counts the mailboxes of a database written before the counters were kept, once (envelopes of
/// that time have no sender, so they count against no sender's share). Part of
/// version 1's step.
const BACKFILL: &str = "
INSERT INTO mailboxes (uuid, device, messages, bytes)
    SELECT uuid, device, count(*), coalesce(sum(size), 0)::int8 FROM messages
    WHERE NOT EXISTS (SELECT 1 FROM relay_meta WHERE key = 'mailbox_counters')
    GROUP BY uuid, device
    ON CONFLICT DO NOTHING;
INSERT INTO relay_meta (key, value) VALUES ('mailbox_counters', 1) ON CONFLICT DO NOTHING;
";

/// Brings the database to this relay's layout, under the advisory lock.
pub(super) async fn open_layout(c: &mut Client) -> Result<()> {
    c.execute("SELECT pg_advisory_lock($1)", &[&LOCK])
        .await
        .map_err(pg_err)?;
    let upgraded = upgrade(c, STEPS, VERSION).await;
    let unlocked = c
        .execute("SELECT pg_advisory_unlock($1)", &[&LOCK])
        .await
        .map_err(pg_err);
    upgraded.and(unlocked.map(|_| ()))
}

/// The database's version: 0 without `relay_schema`.
async fn version(c: &Client) -> Result<i32> {
    let recorded: bool = c
        .query_one("SELECT to_regclass('relay_schema') IS NOT NULL", &[])
        .await
        .map_err(pg_err)?
        .get(0);
    if !recorded {
        return Ok(0);
    }
    let v: Option<i32> = c
        .query_one("SELECT max(version) FROM relay_schema", &[])
        .await
        .map_err(pg_err)?
        .get(0);
    Ok(v.unwrap_or(0))
}

/// Runs `steps` from the database's version up to `to`, each in a transaction of its own with
/// its record.
async fn upgrade(c: &mut Client, steps: &[Step], to: i32) -> Result<()> {
    let from = version(c).await?;
    if from > to {
        return Err(Error::NewerStore {
            found: from.unsigned_abs(),
            known: to.unsigned_abs(),
        });
    }
    for v in from..to {
        let step = steps[v as usize];
        let run = async {
            let t = c.transaction().await?;
            for sql in step {
                t.batch_execute(sql).await?;
            }
            if v + 1 >= RECORDED_FROM {
                let now = i64::try_from(alibi_relay_api::now_ms()).unwrap_or(i64::MAX);
                t.execute(
                    "INSERT INTO relay_schema (version, reached) VALUES ($1, $2)",
                    &[&(v + 1), &now],
                )
                .await?;
            }
            t.commit().await
        };
        run.await.map_err(|e| Error::UpgradeFailed {
            from: v.unsigned_abs(),
            to: (v + 1).unsigned_abs(),
            reason: pg_err(e).to_string(),
        })?;
        tracing::info!(from = v, to = v + 1, "store upgraded");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn client() -> Option<Client> {
        let url = alibi_testkit::postgres::fresh_postgres().await?;
        let (c, conn) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
            .await
            .expect("the test server");
        tokio::spawn(conn);
        Some(c)
    }

    async fn versions(c: &Client) -> Vec<i32> {
        c.query("SELECT version FROM relay_schema ORDER BY version", &[])
            .await
            .expect("relay_schema")
            .iter()
            .map(|r| r.get(0))
            .collect()
    }

    #[tokio::test]
    async fn fresh_and_unversioned_databases_reach_this_version() {
        let Some(mut c) = client().await else { return };
        open_layout(&mut c).await.expect("made");
        assert_eq!(versions(&c).await, vec![1, 2]);
        let Some(mut old) = client().await else {
            return;
        };
        // As the releases before versioned upgrades left it: the tables, a row, no record.
        old.batch_execute(BASE).await.expect("base");
        old.batch_execute("INSERT INTO accounts VALUES ('\\x01', '\\x02')")
            .await
            .expect("a row");
        open_layout(&mut old).await.expect("upgraded");
        assert_eq!(versions(&old).await, vec![1, 2]);
        let n: i64 = old
            .query_one("SELECT count(*) FROM accounts", &[])
            .await
            .expect("count")
            .get(0);
        assert_eq!(n, 1);
        open_layout(&mut old).await.expect("opened again");
        assert_eq!(versions(&old).await, vec![1, 2]);
    }

    #[tokio::test]
    async fn a_newer_database_is_refused_and_a_failing_step_writes_nothing() {
        let Some(mut c) = client().await else { return };
        open_layout(&mut c).await.expect("made");
        let failing: Step = &["CREATE TABLE half (x INT)", "SELECT 1 / 0"];
        let e = upgrade(&mut c, &[STEPS[0], STEPS[1], failing], 3)
            .await
            .expect_err("failed");
        assert!(
            matches!(&e, Error::UpgradeFailed { from: 2, to: 3, reason } if reason.contains("division by zero")),
            "{e}"
        );
        let half: bool = c
            .query_one("SELECT to_regclass('half') IS NOT NULL", &[])
            .await
            .expect("look")
            .get(0);
        assert!(!half, "the failing step's table stayed");
        assert_eq!(versions(&c).await, vec![1, 2]);
        c.batch_execute("INSERT INTO relay_schema VALUES (3, 0)")
            .await
            .expect("a newer version");
        let e = open_layout(&mut c).await.expect_err("refused");
        assert!(matches!(e, Error::NewerStore { found: 3, known: 2 }), "{e}");
        // The lock was given back: another start is not held up.
        let held: i64 = c
            .query_one(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted
                 AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
                &[],
            )
            .await
            .expect("locks")
            .get(0);
        assert_eq!(held, 0);
    }
}
