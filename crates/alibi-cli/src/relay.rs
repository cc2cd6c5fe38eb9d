//! `alibi relay serve|bench`: the relay server on redb (default) or PostgreSQL, and its load test.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use alibi_relay::local::LocalRelay;
use alibi_relay::server::{self, Config};
use alibi_relay::store::redb::RedbRelayStore;
use alibi_relay::store::RelayStore;
use base64::Engine;

use crate::args::{read, runtime, usage, write, Opts};
use crate::{CmdResult, Failure};

/// The trust root's private key: read from `path`, or created there on first start.
fn trust_root(path: &str) -> Result<[u8; 32], Failure> {
    if Path::new(path).exists() {
        read(path)?
            .try_into()
            .map_err(|_| Failure::Usage(format!("{path}: a trust root file holds 32 bytes")))
    } else {
        let k = alibi_handshake::PrivateKey::generate(&mut rand_core::UnwrapErr(getrandom::SysRng))
            .to_bytes();
        write(path, &k[..])?;
        Ok(*k)
    }
}

async fn open_store(opts: &Opts) -> Result<(Arc<dyn RelayStore>, String), Failure> {
    if let Some(url) = opts.get("postgres") {
        let s = alibi_relay::store::postgres::PgRelayStore::connect(url)
            .await
            .map_err(usage)?;
        Ok((Arc::new(s), "postgresql".into()))
    } else {
        let db = opts.get("db").unwrap_or("./relay.redb");
        Ok((
            Arc::new(RedbRelayStore::create(db).map_err(usage)?),
            format!("redb {db}"),
        ))
    }
}

fn serve(args: &[String]) -> CmdResult {
    let o = Opts::parse(
        "relay serve",
        args,
        &["listen", "db", "postgres", "delay-ms", "trust-root", "rate"],
    )?;
    let listen = o.get("listen").unwrap_or("127.0.0.1:8080").to_string();
    let root_file = o
        .get("trust-root")
        .map(str::to_string)
        .unwrap_or_else(|| format!("{}.trust-root", o.get("db").unwrap_or("./relay.redb")));
    let mut config = Config {
        trust_root: trust_root(&root_file)?,
        ..Config::default()
    };
    if let Some(d) = o.get("delay-ms") {
        config.delay = Duration::from_millis(
            d.parse()
                .map_err(|_| Failure::Usage("--delay-ms: a number".into()))?,
        );
    }
    if let Some(r) = o.get("rate") {
        config.rate_per_device = r
            .parse()
            .map_err(|_| Failure::Usage("--rate: a number".into()))?;
    }
    let root_pub = alibi_handshake::PrivateKey::from_bytes(config.trust_root).public_key();
    runtime()?.block_on(async move {
        let (store, kind) = open_store(&o).await?;
        let listener = tokio::net::TcpListener::bind(&listen)
            .await
            .map_err(usage)?;
        println!(
            "relay listening on http://{} (store: {kind}); trust root {}",
            listener.local_addr().map_err(usage)?,
            base64::engine::general_purpose::STANDARD.encode(root_pub.serialize())
        );
        server::serve(listener, store, config).await.map_err(usage)
    })
}

fn bench(args: &[String]) -> CmdResult {
    let o = Opts::parse(
        "relay bench",
        args,
        &[
            "url",
            "db",
            "postgres",
            "pairs",
            "messages",
            "recipients",
            "sends",
        ],
    )?;
    let num = |k: &str, d: usize| -> Result<usize, Failure> {
        o.get(k).map_or(Ok(d), |v| {
            v.parse()
                .map_err(|_| Failure::Usage(format!("--{k}: a number")))
        })
    };
    let pairs = num("pairs", 16)?;
    let messages = num("messages", 20_000)?;
    let sends = num("sends", 20)?;
    let recipients: Vec<usize> = o
        .get("recipients")
        .unwrap_or("1,10,100,1000")
        .split(',')
        .map(|x| {
            x.parse()
                .map_err(|_| Failure::Usage("--recipients: numbers".into()))
        })
        .collect::<Result<_, _>>()?;
    runtime()?.block_on(async move {
        let config = Config {
            rate_per_device: 1e9,
            ..Config::default()
        };
        // The in-process relay, if any, lives until the bench is done.
        let (base, kind, _local) = match (o.get("url"), o.get("postgres"), o.get("db")) {
            (Some(u), _, _) => (u.to_string(), "remote".to_string(), None),
            (None, None, None) => {
                let r = LocalRelay::start(config).await.map_err(usage)?;
                (r.url.clone(), "redb, temporary".to_string(), Some(r))
            }
            _ => {
                let (store, kind) = open_store(&o).await?;
                let r = LocalRelay::start_on(store, config).await.map_err(usage)?;
                (r.url.clone(), kind, Some(r))
            }
        };
        println!("relay bench against {base} (store: {kind})");
        println!("| scenario | messages | messages/s | p50 (ms) | p99 (ms) |");
        println!("|---|---|---|---|---|");
        let per = (messages / pairs.max(1)).max(1);
        let r = alibi_relay::bench::one_to_one(&base, pairs, per, 8)
            .await
            .map_err(usage)?;
        println!(
            "| {} | {} | {:.0} | {:.1} | {:.1} |",
            r.name, r.messages, r.per_second, r.p50_ms, r.p99_ms
        );
        for n in recipients {
            let r = alibi_relay::bench::multi_recipient(&base, n, sends)
                .await
                .map_err(usage)?;
            println!(
                "| {} | {} | {:.0} | {:.1} | {:.1} |",
                r.name, r.messages, r.per_second, r.p50_ms, r.p99_ms
            );
        }
        Ok(())
    })
}

/// `alibi relay <verb>`.
pub fn run(argv: &[String]) -> CmdResult {
    match argv.first().map(String::as_str) {
        Some("serve") => serve(&argv[1..]),
        Some("bench") => bench(&argv[1..]),
        _ => Err(Failure::Usage(
            "usage: alibi relay serve|bench [options] (see alibi --help)".into(),
        )),
    }
}
