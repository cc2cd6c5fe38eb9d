//! `alibi relay serve|bench`: the relay server on redb or PostgreSQL, and its load test.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use alibi_bench::relay_load::{self, Load};
use alibi_relay::server::{self, AddressLimits, Config, Rate};
use alibi_relay::store::redb::RedbRelayStore;
use alibi_relay::store::RelayStore;
use base64::Engine;
use clap::{Args, Subcommand};
use serde_json::json;

use crate::failure::{usage, CmdResult, Failure};
use crate::files::{owner_only, read_input, read_secret, write, Created, Kind};
use crate::net::{relay_url, runtime};
use crate::report::{say, Format};
use crate::rng::os_rng;
use crate::say;

/// `alibi relay <verb>`.
#[derive(Subcommand, Debug)]
pub enum Cmd {
    /// Run the relay server until interrupted
    Serve(ServeArgs),
    /// Measure the relay: 1:1 throughput and multi-recipient sends (a relay in this process on a
    /// temporary store, unless --url, --db or --postgres is given)
    Bench(BenchArgs),
}

/// The arguments of `alibi relay serve`.
#[derive(clap::Args, Debug)]
pub struct ServeArgs {
    /// The address to listen on, e.g. 127.0.0.1:8080 (port 0 picks a free port)
    #[arg(long, value_name = "ADDR")]
    pub listen: String,
    #[command(flatten)]
    pub store: StoreArgs,
    /// Delay every request by this many milliseconds (to emulate a distant relay)
    #[arg(long, value_name = "MS", default_value_t = 0)]
    pub delay_ms: u64,
    /// The sender-certificate trust root's secret key: read if the file exists, else
    /// created (mode 0600) [default: the database path + ".trust-root"]
    #[arg(long, value_name = "FILE")]
    pub trust_root: Option<PathBuf>,
    /// Serve HTTPS: the certificate chain, PEM (the relay's certificate first)
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// The TLS private key, PEM (PKCS#8, PKCS#1 or SEC1)
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// What goes to standard error: error, warn, info (start, drain, authentication
    /// failures), debug (every request and delivery socket) or trace
    #[arg(long, value_name = "LEVEL", default_value = "info")]
    pub log_level: tracing::Level,
    #[command(flatten)]
    pub limits: Limits,
}

/// The arguments of `alibi relay bench`.
#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// A running relay to measure instead, e.g. http://127.0.0.1:8080
    #[arg(long, value_name = "URL", conflicts_with_all = ["db", "postgres", "nodes"])]
    pub url: Option<String>,
    /// Running relays on one store to measure together: each pair's sender on one node
    /// and its receiver on the next, so every message crosses nodes
    #[arg(long, value_name = "URL,...", value_delimiter = ',',
          conflicts_with_all = ["db", "postgres"])]
    pub nodes: Vec<String>,
    /// PEM CA certificates to trust for https relays (instead of the public roots)
    #[arg(long, value_name = "FILE")]
    pub ca: Option<PathBuf>,
    /// Allow plain http:// relays that are not on loopback (the bench's device passwords
    /// then cross the network in clear)
    #[arg(long)]
    pub insecure_http: bool,
    #[command(flatten)]
    pub store: BenchStore,
    /// Sender/receiver pairs of the 1:1 scenario
    #[arg(long, value_name = "N", default_value_t = 16)]
    pub pairs: usize,
    /// Messages of the 1:1 scenario, split among the pairs
    #[arg(long, value_name = "N", default_value_t = 20_000)]
    pub messages: usize,
    /// Recipient counts of the multi-recipient scenarios
    #[arg(
        long,
        value_name = "N,...",
        value_delimiter = ',',
        default_value = "1,10,100,1000"
    )]
    pub recipients: Vec<usize>,
    /// Sends per multi-recipient scenario
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub sends: usize,
    #[command(flatten)]
    pub format: Format,
}

/// The limits of `serve` (docs/relay.md, "Limits").
#[derive(Args, Debug)]
pub struct Limits {
    /// Requests per second each logged-in device may make (burst of twice that)
    #[arg(long, value_name = "N", default_value_t = Config::default().rate_per_device)]
    rate: f64,
    /// Accounts one client address may create: BURST,PER_SECOND
    #[arg(long, value_name = "BURST,PER_SECOND", value_parser = parse_rate,
          default_value_t = AddressLimits::default().account_creations)]
    account_creations: Rate,
    /// Argon2id password checks per client address (first logins and wrong passwords)
    #[arg(long, value_name = "BURST,PER_SECOND", value_parser = parse_rate,
          default_value_t = AddressLimits::default().password_checks)]
    password_checks: Rate,
    /// Sends without credentials (sealed sender) per client address
    #[arg(long, value_name = "BURST,PER_SECOND", value_parser = parse_rate,
          default_value_t = AddressLimits::default().unidentified_sends)]
    unidentified_sends: Rate,
    /// Prekey bundle fetches per requesting account
    #[arg(long, value_name = "BURST,PER_SECOND", value_parser = parse_rate,
          default_value_t = Config::default().prekey_fetches)]
    prekey_fetches: Rate,
    /// Prekey bundle fetches per requesting account of any one other account (below the 100
    /// one-time prekeys a client keeps)
    #[arg(long, value_name = "BURST,PER_SECOND", value_parser = parse_rate,
          default_value_t = Config::default().prekey_fetches_per_target)]
    prekey_fetches_per_target: Rate,
    /// Argon2id runs per account: first logins and wrong passwords per (account, client
    /// address), so nobody spends an owner's budget from elsewhere; new or replaced devices per
    /// account
    #[arg(long, value_name = "BURST,PER_SECOND", value_parser = parse_rate,
          default_value_t = Config::default().password_work_per_account)]
    password_checks_per_account: Rate,
    /// Envelopes one device's mailbox may hold
    #[arg(long, value_name = "N", default_value_t = Config::default().mailbox_messages)]
    mailbox_messages: u64,
    /// Bytes one device's mailbox may hold, in MiB
    #[arg(long, value_name = "MIB", default_value_t = Config::default().mailbox_bytes >> 20)]
    mailbox_mib: u64,
    /// Days after which undelivered envelopes are deleted
    #[arg(long, value_name = "DAYS", default_value_t = Config::default().message_expiry.as_secs() / 86_400)]
    expiry_days: u64,
    /// One-time prekeys of each kind a device may keep stored
    #[arg(long, value_name = "N", default_value_t = Config::default().max_stored_prekeys)]
    max_prekeys: usize,
    /// TCP connections open at once (HTTP and WebSocket); beyond it the relay stops accepting
    #[arg(long, value_name = "N", default_value_t = Config::default().max_connections)]
    max_connections: usize,
    /// TCP connections open at once from one client address
    #[arg(long, value_name = "N", default_value_t = Config::default().max_connections_per_address)]
    max_connections_per_address: usize,
    /// Seconds a client may take to send a request's head (and to wait between requests)
    #[arg(long, value_name = "SECS", default_value_t = Config::default().head_timeout.as_secs())]
    head_timeout: u64,
    /// Delivery WebSockets open at once
    #[arg(long, value_name = "N", default_value_t = Config::default().max_sockets)]
    max_sockets: usize,
    /// Seconds a socket may take to accept a frame before it is closed (its mail stays stored)
    #[arg(long, value_name = "SECS", default_value_t = Config::default().send_timeout.as_secs())]
    send_timeout: u64,
    /// Seconds a whole request may take to arrive, and of silence on a WebSocket (no whole
    /// frame, not even the answer to a ping) after which it is closed
    #[arg(long, value_name = "SECS", default_value_t = Config::default().idle_timeout.as_secs())]
    idle_timeout: u64,
}

impl Limits {
    fn apply(self, base: Config) -> Result<Config, Failure> {
        if !(self.rate.is_finite() && self.rate > 0.0) {
            return Err(Failure::Usage("--rate: a positive number".into()));
        }
        let positive = [
            ("--mailbox-messages", self.mailbox_messages),
            ("--mailbox-mib", self.mailbox_mib),
            ("--expiry-days", self.expiry_days),
            ("--max-prekeys", self.max_prekeys as u64),
            ("--max-connections", self.max_connections as u64),
            (
                "--max-connections-per-address",
                self.max_connections_per_address as u64,
            ),
            ("--head-timeout", self.head_timeout),
            ("--max-sockets", self.max_sockets as u64),
            ("--send-timeout", self.send_timeout),
            ("--idle-timeout", self.idle_timeout),
        ];
        if let Some((flag, _)) = positive.iter().find(|(_, v)| *v == 0) {
            return Err(Failure::Usage(format!("{flag}: at least 1")));
        }
        Ok(Config {
            rate_per_device: self.rate,
            per_address: AddressLimits {
                account_creations: self.account_creations,
                password_checks: self.password_checks,
                unidentified_sends: self.unidentified_sends,
            },
            prekey_fetches: self.prekey_fetches,
            prekey_fetches_per_target: self.prekey_fetches_per_target,
            password_work_per_account: self.password_checks_per_account,
            mailbox_messages: self.mailbox_messages,
            mailbox_bytes: self.mailbox_mib.saturating_mul(1 << 20),
            message_expiry: Duration::from_secs(self.expiry_days.saturating_mul(86_400)),
            max_stored_prekeys: self.max_prekeys,
            max_connections: self.max_connections,
            max_connections_per_address: self.max_connections_per_address,
            head_timeout: Duration::from_secs(self.head_timeout),
            max_sockets: self.max_sockets,
            send_timeout: Duration::from_secs(self.send_timeout),
            idle_timeout: Duration::from_secs(self.idle_timeout),
            ..base
        })
    }
}

/// `BURST,PER_SECOND`, both positive.
fn parse_rate(s: &str) -> Result<Rate, String> {
    let bad = || format!("'{s}': expected BURST,PER_SECOND, e.g. 100,0.5 or 10,1/300");
    let (burst, per) = s.split_once(',').ok_or_else(bad)?;
    let burst: u32 = burst.trim().parse().map_err(|_| bad())?;
    let per: f64 = match per.trim().split_once('/') {
        // `N/SECONDS`: N per so many seconds, as `--help` shows slow rates.
        Some((n, secs)) => {
            let n: f64 = n.trim().parse().map_err(|_| bad())?;
            let secs: f64 = secs.trim().parse().map_err(|_| bad())?;
            n / secs
        }
        None => per.trim().parse().map_err(|_| bad())?,
    };
    if burst == 0 || !(per.is_finite() && per > 0.0) {
        return Err(bad());
    }
    Ok(Rate::new(burst, per))
}

/// `--db FILE | --postgres URL` of `serve`.
#[derive(Args, Debug)]
#[group(required = true, multiple = false)]
pub struct StoreArgs {
    /// The redb database file (created if missing, mode 0600)
    #[arg(long, value_name = "FILE")]
    db: Option<PathBuf>,
    /// A PostgreSQL connection string, e.g. "host=/run/postgresql dbname=relay"
    #[arg(long, value_name = "URL")]
    postgres: Option<String>,
}

/// `--db FILE | --postgres URL` of `bench`: both optional.
#[derive(Args, Debug)]
#[group(required = false, multiple = false)]
pub struct BenchStore {
    /// Run the measured relay in this process on this redb file
    #[arg(long, value_name = "FILE")]
    db: Option<PathBuf>,
    /// Run the measured relay in this process on this PostgreSQL database
    #[arg(long, value_name = "URL")]
    postgres: Option<String>,
}

/// Runs `alibi relay <verb>`.
pub fn run(cmd: Cmd) -> CmdResult {
    match cmd {
        Cmd::Serve(a) => serve(a),
        Cmd::Bench(a) => bench(a),
    }
}

/// `alibi relay serve`.
fn serve(
    ServeArgs {
        listen,
        store,
        delay_ms,
        trust_root,
        tls_cert,
        tls_key,
        log_level,
        limits,
    }: ServeArgs,
) -> CmdResult {
    logs(log_level);
    let tls = match (tls_cert, tls_key) {
        (Some(c), Some(k)) => Some(tls(&c, &k)?),
        _ => None,
    };
    serve_until_stopped(
        &listen,
        store.db,
        store.postgres,
        delay_ms,
        trust_root,
        tls,
        limits,
    )
}

/// `alibi relay bench`.
fn bench(
    BenchArgs {
        url,
        nodes,
        ca,
        insecure_http,
        store,
        pairs,
        messages,
        recipients,
        sends,
        format,
    }: BenchArgs,
) -> CmdResult {
    let mut url = url.into_iter().chain(nodes).collect::<Vec<_>>();
    url.iter_mut()
        .try_for_each(|u| relay_url(u, insecure_http).map(|v| *u = v))?;
    let ca = ca
        .map(|f| read_input(&f, "PEM CA certificates"))
        .transpose()?;
    let load = Load {
        pairs,
        messages,
        recipients,
        sends,
    };
    measure_load(url, ca, insecure_http, store, &load, format)
}

/// Log lines (`tracing`) to standard error, up to `level`; coloured only on a terminal, so a log
/// written to a file holds no escape codes.
fn logs(level: tracing::Level) {
    use std::io::IsTerminal;
    let _ = tracing_subscriber::fmt()
        .with_max_level(level)
        .with_ansi(std::io::stderr().is_terminal())
        .with_writer(std::io::stderr)
        .with_target(false)
        .try_init();
}

/// The TLS settings from a PEM chain and key.
fn tls(cert: &Path, key: &Path) -> Result<server::Tls, Failure> {
    let chain = read_input(cert, "a PEM certificate chain")?;
    let key = read_secret(key, "a PEM private key")?;
    server::Tls::from_pem(&chain, &key).map_err(usage)
}

/// Completes on SIGTERM or SIGINT (Ctrl-C).
async fn stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let (Ok(mut term), Ok(mut int)) = (
            signal(SignalKind::terminate()),
            signal(SignalKind::interrupt()),
        ) else {
            return std::future::pending().await;
        };
        tokio::select! {
            _ = term.recv() => {}
            _ = int.recv() => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// The trust root's private key: read from `path`, or created there (recorded in `created`).
fn trust_root(path: &Path, created: &mut Created) -> Result<[u8; 32], Failure> {
    if path.exists() {
        let b = read_secret(path, "a 32-byte trust-root key")?;
        <[u8; 32]>::try_from(&b[..]).map_err(|_| {
            Failure::Usage(format!(
                "{}: a trust-root file holds 32 bytes, not {}",
                path.display(),
                b.len()
            ))
        })
    } else {
        let k = alibi_identity::PrivateKey::generate(&mut os_rng()).to_bytes();
        write("--trust-root", path, Kind::Secret, &k[..], false)?;
        created.add(path);
        Ok(*k)
    }
}

/// Opens the redb store, recording the file in `created` if this made it.
fn open_redb(db: &Path, created: &mut Created) -> Result<Arc<dyn RelayStore>, Failure> {
    let existed = db.exists();
    let store = RedbRelayStore::create(db)
        .map_err(|e| Failure::Usage(format!("cannot open {}: {e}", db.display())))?;
    if !existed {
        created.add(db);
        owner_only(db)?;
    }
    Ok(Arc::new(store))
}

async fn open_postgres(url: &str) -> Result<Arc<dyn RelayStore>, Failure> {
    let s = alibi_relay::store::postgres::PgRelayStore::connect(url)
        .await
        .map_err(|e| Failure::Usage(format!("--postgres: {e}")))?;
    Ok(Arc::new(s))
}

/// Binds first, then opens the store, then reads or creates the trust root: whatever fails, the
/// files this start created are removed again.
fn serve_until_stopped(
    listen: &str,
    db: Option<PathBuf>,
    postgres: Option<String>,
    delay_ms: u64,
    trust_root_file: Option<PathBuf>,
    tls: Option<server::Tls>,
    limits: Limits,
) -> CmdResult {
    let limited = limits.apply(Config::default())?;
    let root_file = match (&trust_root_file, &db) {
        (Some(f), _) => f.clone(),
        (None, Some(d)) => {
            let mut s = d.clone().into_os_string();
            s.push(".trust-root");
            PathBuf::from(s)
        }
        (None, None) => {
            return Err(Failure::Usage(
                "--trust-root FILE is needed with --postgres".into(),
            ))
        }
    };
    runtime()?.block_on(async move {
        let mut created = Created::default();
        let listener = tokio::net::TcpListener::bind(listen)
            .await
            .map_err(|e| Failure::Usage(format!("cannot listen on {listen}: {e}")))?;
        let (store, kind) = match (&db, &postgres) {
            (_, Some(url)) => (open_postgres(url).await?, "postgresql".to_string()),
            (Some(d), None) => (open_redb(d, &mut created)?, format!("redb {}", d.display())),
            (None, None) => unreachable!("clap requires --db or --postgres"),
        };
        let config = Config {
            trust_root: trust_root(&root_file, &mut created)?,
            delay: Duration::from_millis(delay_ms),
            ..limited
        };
        let root_pub = alibi_identity::PrivateKey::from_bytes(config.trust_root).public_key();
        say!(
            "relay listening on {}://{} (store: {kind}); trust root {}",
            if tls.is_some() { "https" } else { "http" },
            listener.local_addr().map_err(usage)?,
            base64::engine::general_purpose::STANDARD.encode(root_pub.serialize())
        )?;
        created.keep();
        // SIGTERM drains: no new connections, requests under way answered, sockets closed
        // once their acknowledgements have committed; then exit 0.
        server::serve_with(listener, store, config, tls, stop_signal())
            .await
            .map_err(usage)
    })
}

/// `alibi relay bench`: the load `alibi_bench::relay_load` measures, against the relays at
/// `urls` or one it starts in this process, printed row by row as measured.
fn measure_load(
    urls: Vec<String>,
    ca: Option<Vec<u8>>,
    insecure_http: bool,
    store: BenchStore,
    load: &Load,
    format: Format,
) -> CmdResult {
    let scenarios = load.scenarios().map_err(|_| {
        Failure::Usage(
            "--pairs, --messages, --sends and every --recipients count must be at least 1".into(),
        )
    })?;
    let endpoint = |u: &str| -> Result<alibi_messenger::Endpoint, Failure> {
        let e = alibi_messenger::Endpoint::new(u).allow_insecure_http(insecure_http);
        match &ca {
            Some(pem) => e
                .with_ca(pem)
                .map_err(|e| Failure::Usage(format!("--ca: {e}"))),
            None => Ok(e),
        }
    };
    let mut nodes = urls
        .iter()
        .map(|u| endpoint(u))
        .collect::<Result<Vec<_>, _>>()?;
    runtime()?.block_on(async move {
        let mut created = Created::default();
        // The in-process relay, if any, lives until the bench is done.
        let (base, kind, _local) = match (urls.first(), &store.db, &store.postgres) {
            (Some(_), _, _) => (urls.join(","), "remote".to_string(), None),
            (None, db, pg) => {
                let (s, kind) = match (db, pg) {
                    (_, Some(u)) => (Some(open_postgres(u).await?), "postgresql".to_string()),
                    (Some(d), None) => (
                        Some(open_redb(d, &mut created)?),
                        format!("redb {}", d.display()),
                    ),
                    (None, None) => (None, "redb, temporary".to_string()),
                };
                let r = relay_load::start(s).await.map_err(usage)?;
                (r.url.clone(), kind, Some(r))
            }
        };
        created.keep();
        if nodes.is_empty() {
            nodes.push(endpoint(&base)?);
        }
        if !format.json {
            say!("relay bench against {base} (store: {kind})")?;
            say(relay_load::head())?;
        }
        let mut rows = vec![];
        for scenario in scenarios {
            // A wait longer than a few seconds says what it waits for (on stderr: stdout stays
            // the table or the JSON).
            let report = |line: String| eprintln!("relay bench: {line}");
            let r =
                relay_load::measure_reporting(&nodes, scenario, relay_load::REPORT_EVERY, report)
                    .await
                    .map_err(usage)?;
            if !format.json {
                say(r.markdown())?;
            }
            rows.push(r);
        }
        if format.json {
            let rows: Vec<_> = rows
                .iter()
                .map(|r| {
                    json!({"scenario": r.name, "messages": r.messages, "per_second": r.per_second,
                           "p50_ms": r.p50_ms, "p99_ms": r.p99_ms})
                })
                .collect();
            say(json!({"relay": base, "store": kind, "rows": rows}))?;
        }
        Ok(())
    })
}
