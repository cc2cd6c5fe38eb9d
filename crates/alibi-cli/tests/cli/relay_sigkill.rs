//! Durability of the relay binary: 10,000 messages are sent while the server is killed with
//! SIGKILL, twice, and restarted on the same store (a redb file; a PostgreSQL database); every
//! message the relay accepted from its sender is delivered (duplicates, from sends retried after
//! a lost answer or deliveries whose acknowledgement the kill cut off, are counted and removed
//! by message id, as clients do).

use crate::common;

use std::ffi::OsString;
use std::sync::{Arc, Mutex};

use common::relay_process::{load, pair, postgres_args, Action, RelayProcess};

const TOTAL: u64 = 10_000;

/// Runs the load on one relay process started with `args`, killing and restarting it at 2,000
/// and 6,000 accepted sends.
async fn survives_sigkill(args: Vec<OsString>) {
    let first = RelayProcess::start(0, &args);
    let (url, port) = (first.url.clone(), first.port);
    let server = Arc::new(Mutex::new(first));
    let p = pair(url.as_str().into(), url.as_str().into()).await;
    let actions: Vec<Action> = [2_000, 6_000]
        .into_iter()
        .map(|at| {
            let (server, args) = (server.clone(), args.clone());
            let restart = move || {
                let mut s = server.lock().unwrap();
                s.kill(); // SIGKILL
                *s = RelayProcess::start(port, &args);
            };
            (at, Box::new(restart) as Box<dyn FnOnce() + Send>)
        })
        .collect();
    let outcome = load(&[p], TOTAL, actions).await;
    let twice = outcome.none_lost(TOTAL);
    println!("{TOTAL} accepted, all delivered; {twice} delivered more than once");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn acknowledged_messages_survive_sigkill_on_redb() {
    let dir = tempfile::tempdir().unwrap();
    // A send retried after a kill may be stored twice (committed, then the answer lost): room
    // above the 10,000 for those.
    let args: Vec<OsString> = vec![
        "--db".into(),
        dir.path().join("relay.redb").into(),
        "--mailbox-messages".into(),
        "20000".into(),
    ];
    survives_sigkill(args).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn acknowledged_messages_survive_sigkill_on_postgres() {
    let Some(url) = alibi_testkit::postgres::fresh_postgres().await else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    survives_sigkill(postgres_args(&url, &dir.path().join("root"))).await;
}
