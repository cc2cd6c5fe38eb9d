//! A throwaway PostgreSQL database for tests, on the project's test server
//! (`scripts/pg-test-server.sh`, which `.ci/run` installs PostgreSQL for).

/// A fresh database on the test server (`scripts/pg-test-server.sh`), or `None` after the peer
/// policy's skip when PostgreSQL is not installed.
pub async fn fresh_postgres() -> Option<String> {
    let script =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/pg-test-server.sh");
    let out = std::process::Command::new("bash").arg(&script).output();
    let url = match out {
        Ok(o) if o.status.success() => String::from_utf8_lossy(&o.stdout).trim().to_string(),
        Ok(o) => {
            crate::skip(&format!(
                "postgresql not available: {}",
                String::from_utf8_lossy(&o.stderr).trim()
            ));
            return None;
        }
        Err(e) => {
            crate::skip(&format!("postgresql not available: {e}"));
            return None;
        }
    };
    let (c, conn) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
        .await
        .expect("test server reachable");
    tokio::spawn(conn);
    // Named by creation time: databases of earlier runs (an hour old or more) are dropped here,
    // as a test never lasts that long, so the server's data directory does not grow without end.
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    for row in c
        .query(
            "SELECT datname FROM pg_database WHERE datname LIKE 'alibi\\_t%'",
            &[],
        )
        .await
        .expect("list databases")
    {
        let old: String = row.get(0);
        let created = old
            .strip_prefix("alibi_t")
            .and_then(|r| r.split('_').next())
            .and_then(|t| t.parse::<u64>().ok());
        if created.is_some_and(|t| t + 3600 < now) {
            // Another test binary may be dropping it too: its error is not ours.
            let _ = c
                .batch_execute(&format!("DROP DATABASE IF EXISTS {old} WITH (FORCE)"))
                .await;
        }
    }
    let name = format!("alibi_t{now}_{}", uuid::Uuid::new_v4().simple());
    c.batch_execute(&format!("CREATE DATABASE {name}"))
        .await
        .expect("create database");
    Some(url.replace("dbname=postgres", &format!("dbname={name}")))
}

/// Loads a plain-text `pg_dump` (with `--inserts`) into the database at `url`; psql's own
/// commands in it (`\restrict`) are skipped, not being SQL.
pub async fn restore(url: &str, dump: &str) {
    let (c, conn) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .expect("test server reachable");
    tokio::spawn(conn);
    let sql: String = dump
        .lines()
        .filter(|l| !l.starts_with('\\'))
        .map(|l| format!("{l}\n"))
        .collect();
    c.batch_execute(&sql).await.expect("the dump loads");
}
