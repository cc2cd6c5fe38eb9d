//! `alibi relay serve|check-config|backup|bench`: the relay server on redb or PostgreSQL, its
//! settings file, the backup of its redb store, and its load test.

mod config;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use alibi_bench::relay_load::{self, Load};
use alibi_relay::server::{self, AddressLimits, Config, Rate};
use alibi_relay::store::redb::RedbRelayStore;
use alibi_relay::store::RelayStore;
use base64::Engine;
use clap::{ArgMatches, Args, Subcommand};
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
    Serve(Box<ServeArgs>),
    /// Check a settings file of `serve --config` without starting anything: its keys, limits
    /// and the files it names (exit 2 naming the key that is wrong); the database is not
    /// contacted
    CheckConfig(CheckArgs),
    /// Copy a redb store consistently, while its relay runs (through the relay's control socket,
    /// `<db>.control`) or not; the copy is a new file, mode 0600 (docs/relay.md, "Backups")
    Backup(BackupArgs),
    /// Measure the relay: 1:1 throughput and multi-recipient sends (a relay in this process on a
    /// temporary store, unless --url, --db or --postgres is given)
    Bench(BenchArgs),
}

/// The arguments of `alibi relay serve`.
#[derive(clap::Args, Debug)]
pub struct ServeArgs {
    /// Settings (TOML) whose keys are these flags' names without dashes, e.g.
    /// `max-connections = 5000`; a flag given as well wins (docs/relay.md, "Configuration")
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// The address to listen on, e.g. 127.0.0.1:8080 (port 0 picks a free port)
    #[arg(long, value_name = "ADDR", required_unless_present = "config")]
    pub listen: Option<String>,
    #[command(flatten)]
    pub store: StoreArgs,
    /// A file holding the PostgreSQL password [default: the PGPASSWORD environment variable]
    #[arg(long, value_name = "FILE")]
    pub postgres_password_file: Option<PathBuf>,
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
    /// Log lines as text, or as one JSON object a line (time, level, target, fields, and the
    /// request's id)
    #[arg(long, value_name = "FORMAT", value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,
    #[command(flatten)]
    pub limits: Limits,
}

/// The arguments of `alibi relay check-config`.
#[derive(clap::Args, Debug)]
pub struct CheckArgs {
    /// The settings file
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    #[command(flatten)]
    pub format: Format,
}

/// The arguments of `alibi relay backup`.
#[derive(clap::Args, Debug)]
pub struct BackupArgs {
    /// The relay's redb store
    #[arg(long, value_name = "FILE")]
    pub db: PathBuf,
    /// Where the copy goes: a new file (an existing one is never replaced)
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    #[command(flatten)]
    pub format: Format,
}

/// How log lines are written.
#[derive(clap::ValueEnum, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    /// Text for people (coloured on a terminal).
    Text,
    /// One JSON object a line, for log collectors.
    Json,
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
    /// The relay's settings with these limits, or a usage failure naming (as `origins` tells:
    /// the flag or the file's key) the first limit that cannot work.
    fn apply(self, base: Config, origins: &config::Origins) -> Result<Config, Failure> {
        let bad =
            |id: &str, what: &str| Err(Failure::Usage(format!("{}: {what}", origins.name(id))));
        if !(self.rate.is_finite() && self.rate > 0.0) {
            return bad("rate", "a positive number");
        }
        let positive = [
            ("mailbox_messages", self.mailbox_messages),
            ("mailbox_mib", self.mailbox_mib),
            ("expiry_days", self.expiry_days),
            ("max_prekeys", self.max_prekeys as u64),
            ("max_connections", self.max_connections as u64),
            (
                "max_connections_per_address",
                self.max_connections_per_address as u64,
            ),
            ("head_timeout", self.head_timeout),
            ("max_sockets", self.max_sockets as u64),
            ("send_timeout", self.send_timeout),
            ("idle_timeout", self.idle_timeout),
        ];
        if let Some((id, _)) = positive.iter().find(|(_, v)| *v == 0) {
            return bad(id, "at least 1");
        }
        // Bounds beyond any use: a typo, and near overflow once converted.
        if self.expiry_days > MAX_EXPIRY_DAYS {
            return bad("expiry_days", &format!("at most {MAX_EXPIRY_DAYS}"));
        }
        if self.mailbox_mib > MAX_MAILBOX_MIB {
            return bad("mailbox_mib", &format!("at most {MAX_MAILBOX_MIB} (1 TiB)"));
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

/// Undelivered mail kept longer than a century is a typo, not a policy.
const MAX_EXPIRY_DAYS: u64 = 36_500;
/// A mailbox quota beyond 1 TiB per device is a typo (and nears `u64` bytes overflow).
const MAX_MAILBOX_MIB: u64 = 1 << 20;

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

/// `--db FILE | --postgres URL` of `serve` (or `db` / `postgres` in its settings file).
#[derive(Args, Debug)]
#[group(required = false, multiple = false)]
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

/// Runs `alibi relay <verb>`; `m` holds the parsed words of `relay`, to tell a flag given from
/// its default where a settings file may fill it.
pub fn run(cmd: Cmd, m: Option<&ArgMatches>) -> CmdResult {
    match cmd {
        Cmd::Serve(a) => serve(*a, m.and_then(|m| m.subcommand_matches("serve"))),
        Cmd::CheckConfig(a) => check_config(a),
        Cmd::Backup(a) => backup(a),
        Cmd::Bench(a) => bench(a),
    }
}

/// `alibi relay serve`.
fn serve(args: ServeArgs, m: Option<&ArgMatches>) -> CmdResult {
    let settings = config::Settings::resolve(args, m)?;
    logs(settings.log_level, settings.log_format);
    serve_until_stopped(settings)
}

/// `alibi relay check-config`: what `serve --config FILE` would run with, checked as far as it
/// can be without starting (the store is not opened).
fn check_config(CheckArgs { file, format }: CheckArgs) -> CmdResult {
    let s = config::Settings::from_file(&file)?;
    s.check_files()?;
    let store = match &s.store {
        config::Store::Redb(p) => format!("redb {}", p.display()),
        config::Store::Postgres { .. } => "postgresql".to_string(),
    };
    if format.json {
        say(json!({
            "ok": true,
            "file": file.display().to_string(),
            "listen": s.listen,
            "store": store,
            "tls": s.tls.is_some(),
        }))
    } else {
        say!(
            "{}: ok (listen {}, store {store}, {})",
            file.display(),
            s.listen,
            if s.tls.is_some() { "TLS" } else { "plain HTTP" }
        )
    }
}

/// `alibi relay backup`.
fn backup(BackupArgs { db, out, format }: BackupArgs) -> CmdResult {
    if !db.exists() {
        return Err(Failure::Usage(format!("{}: no such store", db.display())));
    }
    let b = server::control::backup(&db, &out).map_err(|e| match e {
        alibi_relay::Error::Client(m) => Failure::Transport(m),
        e => usage(e),
    })?;
    let how = if b.from_running_relay {
        "by the running relay"
    } else {
        "from the file (no relay had it open)"
    };
    if format.json {
        say(json!({
            "db": db.display().to_string(),
            "out": out.display().to_string(),
            "bytes": b.bytes,
            "from_running_relay": b.from_running_relay,
        }))
    } else {
        say!(
            "{} copied to {} ({} bytes, {how}); restore: stop the relay, put the copy in the \
             store's place, start it",
            db.display(),
            out.display(),
            b.bytes
        )
    }
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

/// Log lines (`tracing`) to standard error, up to `level`: text coloured only on a terminal (so
/// a log written to a file holds no escape codes), or one JSON object a line, each with the
/// fields of its request's span (its id).
fn logs(level: tracing::Level, format: LogFormat) {
    use std::io::IsTerminal;
    let _ = match format {
        LogFormat::Text => tracing_subscriber::fmt()
            .with_max_level(level)
            .with_ansi(std::io::stderr().is_terminal())
            .with_writer(std::io::stderr)
            .with_target(false)
            .try_init(),
        LogFormat::Json => tracing_subscriber::fmt()
            .json()
            .flatten_event(true)
            .with_current_span(true)
            .with_span_list(false)
            .with_max_level(level)
            .with_writer(std::io::stderr)
            .try_init(),
    };
}

/// File descriptors beyond the connections: the store, the listener, the log, the runtime.
const SPARE_FILES: u64 = 64;

/// Raises the open-file limit (its soft value, up to the hard one) to hold `max_connections`,
/// each a file descriptor; if the hard limit is lower, logs a warning: past it, accepting fails
/// instead of new clients waiting in the backlog.
#[cfg(unix)]
#[allow(unsafe_code)]
fn open_files_for(max_connections: usize) {
    let needed = (max_connections as u64).saturating_add(SPARE_FILES);
    let mut l = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes the rlimit it is given and nothing else.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut l) } != 0 || l.rlim_cur >= needed {
        return;
    }
    let raised = libc::rlimit {
        rlim_cur: needed.min(l.rlim_max),
        rlim_max: l.rlim_max,
    };
    // SAFETY: setrlimit reads the rlimit it is given; a soft value up to the hard one is allowed.
    if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } == 0 {
        l = raised;
    }
    if l.rlim_cur < needed {
        tracing::warn!(
            open_files = l.rlim_cur,
            max_connections,
            "the open-file limit is below max-connections plus {SPARE_FILES}: raise LimitNOFILE \
             (ulimit -n) or lower max-connections"
        );
    }
}

#[cfg(not(unix))]
fn open_files_for(_max_connections: usize) {}

/// Completes on SIGTERM or SIGINT (Ctrl-C). The handlers are installed when this is called
/// (in the runtime), not when the future is first polled: a SIGTERM that comes as soon as the
/// relay said it listens must drain it, not kill it.
fn stop_signal() -> impl std::future::Future<Output = ()> + Send + 'static {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let handlers = (
            signal(SignalKind::terminate()),
            signal(SignalKind::interrupt()),
        );
        async move {
            let (Ok(mut term), Ok(mut int)) = handlers else {
                return std::future::pending().await;
            };
            tokio::select! {
                _ = term.recv() => {}
                _ = int.recv() => {}
            }
        }
    }
    #[cfg(not(unix))]
    async {
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// The trust root's private key: read from `path`, or created there (recorded in `created`).
fn trust_root(path: &Path, created: &mut Created) -> Result<[u8; 32], Failure> {
    if path.exists() {
        read_trust_root(path)
    } else {
        let k = alibi_identity::PrivateKey::generate(&mut os_rng()).to_bytes();
        write("--trust-root", path, Kind::Secret, &k[..], false)?;
        created.add(path);
        Ok(*k)
    }
}

/// The trust root's private key from an existing file.
fn read_trust_root(path: &Path) -> Result<[u8; 32], Failure> {
    let b = read_secret(path, "a 32-byte trust-root key")?;
    <[u8; 32]>::try_from(&b[..]).map_err(|_| {
        Failure::Usage(format!(
            "{}: a trust-root file holds 32 bytes, not {}",
            path.display(),
            b.len()
        ))
    })
}

/// Opens the redb store, recording the file in `created` if this made it.
fn open_redb(db: &Path, created: &mut Created) -> Result<Arc<RedbRelayStore>, Failure> {
    let existed = db.exists();
    let store = RedbRelayStore::create(db)
        .map_err(|e| Failure::Usage(format!("cannot open {}: {e}", db.display())))?;
    if !existed {
        created.add(db);
        owner_only(db)?;
    }
    Ok(Arc::new(store))
}

/// Answers `alibi relay backup` on the store's control socket while the relay runs.
#[cfg(unix)]
async fn control(db: &Path, store: Arc<RedbRelayStore>) -> Result<(), Failure> {
    let c = server::control::Control::bind(db)
        .await
        .map_err(|e| Failure::Usage(format!("cannot open the control socket: {e}")))?;
    tokio::spawn(c.serve(store));
    Ok(())
}

#[cfg(not(unix))]
async fn control(_db: &Path, _store: Arc<RedbRelayStore>) -> Result<(), Failure> {
    Ok(())
}

/// Connects to PostgreSQL at `url`, with `password` if given apart from it.
async fn open_postgres(url: &str, password: Option<&str>) -> Result<Arc<dyn RelayStore>, Failure> {
    let s = alibi_relay::store::postgres::PgRelayStore::connect_with_password(url, password)
        .await
        .map_err(|e| Failure::Usage(format!("--postgres: {e}")))?;
    Ok(Arc::new(s))
}

/// Binds first, then opens the store, then reads or creates the trust root: whatever fails, the
/// files this start created are removed again.
fn serve_until_stopped(s: config::Settings) -> CmdResult {
    let config::Settings {
        listen,
        store,
        root_file,
        tls,
        config: limited,
        ..
    } = s;
    runtime()?.block_on(async move {
        let mut created = Created::default();
        let listener = tokio::net::TcpListener::bind(&listen)
            .await
            .map_err(|e| Failure::Usage(format!("cannot listen on {listen}: {e}")))?;
        let (store, kind) = match &store {
            config::Store::Postgres { url, password } => (
                open_postgres(url, password.as_deref().map(String::as_str)).await?,
                "postgresql".to_string(),
            ),
            config::Store::Redb(d) => {
                let store = open_redb(d, &mut created)?;
                control(d, store.clone()).await?;
                (
                    store as Arc<dyn RelayStore>,
                    format!("redb {}", d.display()),
                )
            }
        };
        let config = Config {
            trust_root: trust_root(&root_file, &mut created)?,
            ..limited
        };
        let root_pub = alibi_identity::PrivateKey::from_bytes(config.trust_root).public_key();
        let stop = stop_signal();
        say!(
            "relay listening on {}://{} (store: {kind}); trust root {}",
            if tls.is_some() { "https" } else { "http" },
            listener.local_addr().map_err(usage)?,
            base64::engine::general_purpose::STANDARD.encode(root_pub.serialize())
        )?;
        created.keep();
        // Once the start can no longer fail: a failed start says one line.
        open_files_for(config.max_connections);
        // SIGTERM drains: no new connections, requests under way answered, sockets closed
        // once their acknowledgements have committed; then exit 0.
        server::serve_with(listener, store, config, tls, stop)
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
                    (_, Some(u)) => (
                        Some(
                            open_postgres(
                                u,
                                config::env_password(u).as_deref().map(String::as_str),
                            )
                            .await?,
                        ),
                        "postgresql".to_string(),
                    ),
                    (Some(d), None) => (
                        Some(open_redb(d, &mut created)? as Arc<dyn RelayStore>),
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
