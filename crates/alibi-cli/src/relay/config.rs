//! `relay.toml`: the settings file of `alibi relay serve --config` and `alibi relay check-config`.
//!
//! Every key is the name of a flag of `alibi relay serve` without its dashes (`max-connections =
//! 5000` is `--max-connections 5000`), so the file and `--help` document each other. A flag given
//! on the command line wins over the file. Secrets are never inline: the TLS key, the trust root
//! and the PostgreSQL password are named by path (or the password by `PGPASSWORD`), and a
//! connection string that holds a password is refused. Relative paths are read from the file's
//! directory, so a unit file can name the settings alone.

use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use alibi_relay::server::{self, Config, Rate};
use clap::parser::ValueSource;
use clap::{ArgMatches, Args, FromArgMatches};
use serde::{Deserialize, Deserializer};
use zeroize::Zeroizing;

use super::{parse_rate, LogFormat, ServeArgs};
use crate::failure::Failure;
use crate::files::{read_input, read_secret};

/// What the file holds; a key it does not name leaves the flag (or its default) in place.
#[derive(Deserialize, Default, Debug)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct File {
    listen: Option<String>,
    db: Option<PathBuf>,
    postgres: Option<String>,
    postgres_password_file: Option<PathBuf>,
    trust_root: Option<PathBuf>,
    tls_cert: Option<PathBuf>,
    tls_key: Option<PathBuf>,
    delay_ms: Option<u64>,
    #[serde(default, deserialize_with = "level")]
    log_level: Option<tracing::Level>,
    log_format: Option<LogFormat>,
    rate: Option<f64>,
    #[serde(default, deserialize_with = "rate")]
    account_creations: Option<Rate>,
    #[serde(default, deserialize_with = "rate")]
    password_checks: Option<Rate>,
    #[serde(default, deserialize_with = "rate")]
    unidentified_sends: Option<Rate>,
    #[serde(default, deserialize_with = "rate")]
    prekey_fetches: Option<Rate>,
    #[serde(default, deserialize_with = "rate")]
    prekey_fetches_per_target: Option<Rate>,
    #[serde(default, deserialize_with = "rate")]
    password_checks_per_account: Option<Rate>,
    mailbox_messages: Option<u64>,
    mailbox_mib: Option<u64>,
    expiry_days: Option<u64>,
    max_prekeys: Option<usize>,
    max_connections: Option<usize>,
    max_connections_per_address: Option<usize>,
    head_timeout: Option<u64>,
    max_sockets: Option<usize>,
    send_timeout: Option<u64>,
    idle_timeout: Option<u64>,
}

/// A `BURST,PER_SECOND` string, as the flags take it.
fn rate<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Rate>, D::Error> {
    let s = String::deserialize(d)?;
    parse_rate(&s).map(Some).map_err(serde::de::Error::custom)
}

/// `error`, `warn`, `info`, `debug` or `trace`.
fn level<'de, D: Deserializer<'de>>(d: D) -> Result<Option<tracing::Level>, D::Error> {
    let s = String::deserialize(d)?;
    s.parse().map(Some).map_err(|_| {
        serde::de::Error::custom(format!("'{s}': one of error, warn, info, debug, trace"))
    })
}

/// Where each setting came from, to name it in a message as the user wrote it.
#[derive(Default, Debug)]
pub struct Origins {
    /// The settings file, if one was read.
    file: Option<PathBuf>,
    /// The clap ids of the settings taken from it.
    from_file: BTreeSet<&'static str>,
}

impl Origins {
    /// A setting nobody gave: said of the settings file, if there is one.
    fn missing(&self, what: &str) -> Failure {
        match &self.file {
            Some(f) => Failure::Usage(format!("{}: {what}", f.display())),
            None => Failure::Usage(what.to_string()),
        }
    }

    /// `relay.toml: max-connections` if the file gave it, else `--max-connections`.
    pub fn name(&self, id: &str) -> String {
        let key = id.replace('_', "-");
        match &self.file {
            Some(f) if self.from_file.contains(id) => format!("{}: {key}", f.display()),
            _ => format!("--{key}"),
        }
    }
}

/// Reads and parses `path` (exit 2 naming the line and key of what is wrong), with its relative
/// paths made relative to its directory.
pub fn read(path: &Path) -> Result<File, Failure> {
    let bytes = read_input(path, "relay settings (TOML)")?;
    let text = String::from_utf8(bytes)
        .map_err(|_| Failure::Usage(format!("{}: not UTF-8 text", path.display())))?;
    let mut file: File = toml::from_str(&text)
        .map_err(|e| Failure::Usage(format!("{}: {}", path.display(), one_line(&e, &text))))?;
    let dir = path.parent().unwrap_or(Path::new("."));
    for p in [
        &mut file.db,
        &mut file.postgres_password_file,
        &mut file.trust_root,
        &mut file.tls_cert,
        &mut file.tls_key,
    ]
    .into_iter()
    .flatten()
    {
        if p.is_relative() {
            *p = dir.join(&*p);
        }
    }
    if let Some(url) = &file.postgres {
        let inline = alibi_relay::store::postgres::holds_password(url)
            .map_err(|e| Failure::Usage(format!("{}: postgres: {e}", path.display())))?;
        if inline {
            return Err(Failure::Usage(format!(
                "{}: postgres: the connection string holds a password; name a file holding it \
                 with postgres-password-file, or set PGPASSWORD",
                path.display()
            )));
        }
    }
    Ok(file)
}

/// A TOML error in one line: where (line and key) and what.
fn one_line(e: &toml::de::Error, text: &str) -> String {
    let Some(span) = e.span() else {
        return e.message().trim().to_string();
    };
    let start = span.start.min(text.len());
    let line_no = text[..start].matches('\n').count() + 1;
    let line = text.lines().nth(line_no - 1).unwrap_or("");
    let key = line.split('=').next().unwrap_or("").trim();
    let message = e.message().trim().replace('\n', " ");
    if key.is_empty() || key.starts_with('[') {
        format!("line {line_no}: {message}")
    } else {
        format!("line {line_no}, {key}: {message}")
    }
}

/// Whether the user gave the flag of clap id `id` on the command line (not its default).
fn given(m: Option<&ArgMatches>, id: &str) -> bool {
    m.and_then(|m| m.value_source(id)) == Some(ValueSource::CommandLine)
}

/// Fills `args` from `file` where the command line left a setting to its default, recording
/// what came from `path` in the returned [`Origins`].
pub fn merge(args: &mut ServeArgs, file: File, path: &Path, m: Option<&ArgMatches>) -> Origins {
    let mut from_file = BTreeSet::new();
    // Options without a default: the flag if given, else the file.
    fill(&mut from_file, "listen", &mut args.listen, file.listen);
    fill(
        &mut from_file,
        "trust_root",
        &mut args.trust_root,
        file.trust_root,
    );
    fill(
        &mut from_file,
        "postgres_password_file",
        &mut args.postgres_password_file,
        file.postgres_password_file,
    );
    // A store or TLS named on the command line replaces the file's whole choice.
    if args.store.db.is_none() && args.store.postgres.is_none() {
        fill(&mut from_file, "db", &mut args.store.db, file.db);
        fill(
            &mut from_file,
            "postgres",
            &mut args.store.postgres,
            file.postgres,
        );
    }
    if args.tls_cert.is_none() && args.tls_key.is_none() {
        fill(
            &mut from_file,
            "tls_cert",
            &mut args.tls_cert,
            file.tls_cert,
        );
        fill(&mut from_file, "tls_key", &mut args.tls_key, file.tls_key);
    }
    // Options with a default: the file unless the flag was given.
    macro_rules! unless_given {
        ($($dst:expr => $f:ident),* $(,)?) => {$(
            if let Some(v) = file.$f {
                if !given(m, stringify!($f)) {
                    $dst = v;
                    from_file.insert(stringify!($f));
                }
            }
        )*};
    }
    let l = &mut args.limits;
    unless_given!(
        args.delay_ms => delay_ms,
        args.log_level => log_level,
        args.log_format => log_format,
        l.rate => rate,
        l.account_creations => account_creations,
        l.password_checks => password_checks,
        l.unidentified_sends => unidentified_sends,
        l.prekey_fetches => prekey_fetches,
        l.prekey_fetches_per_target => prekey_fetches_per_target,
        l.password_checks_per_account => password_checks_per_account,
        l.mailbox_messages => mailbox_messages,
        l.mailbox_mib => mailbox_mib,
        l.expiry_days => expiry_days,
        l.max_prekeys => max_prekeys,
        l.max_connections => max_connections,
        l.max_connections_per_address => max_connections_per_address,
        l.head_timeout => head_timeout,
        l.max_sockets => max_sockets,
        l.send_timeout => send_timeout,
        l.idle_timeout => idle_timeout,
    );
    Origins {
        file: Some(path.to_path_buf()),
        from_file,
    }
}

/// `flag` from the file's `value` if the command line left it out.
fn fill<T>(
    from_file: &mut BTreeSet<&'static str>,
    id: &'static str,
    flag: &mut Option<T>,
    value: Option<T>,
) {
    if flag.is_none() && value.is_some() {
        *flag = value;
        from_file.insert(id);
    }
}

/// Where `serve` keeps its mail.
pub enum Store {
    /// A redb file.
    Redb(PathBuf),
    /// A PostgreSQL database, and its password when given apart from the connection string.
    Postgres {
        /// The connection string.
        url: String,
        /// From `--postgres-password-file` or `PGPASSWORD`.
        password: Option<Zeroizing<String>>,
    },
}

/// What `serve` runs with, from its flags and its settings file, checked.
pub struct Settings {
    /// The address to bind.
    pub listen: String,
    /// The store.
    pub store: Store,
    /// The trust root's secret key file (read, or created on the first start).
    pub root_file: PathBuf,
    /// TLS, if served.
    pub tls: Option<server::Tls>,
    /// Every limit and the delay; the trust root is read at start.
    pub config: Config,
    /// What is logged.
    pub log_level: tracing::Level,
    /// How it is logged.
    pub log_format: LogFormat,
    /// Where each setting came from.
    origins: Origins,
}

impl Settings {
    /// The settings of `serve` from its words `args` (`m`: which were given), read from
    /// `--config` where the words leave them out.
    pub fn resolve(mut args: ServeArgs, m: Option<&ArgMatches>) -> Result<Self, Failure> {
        let origins = match args.config.clone() {
            Some(path) => merge(&mut args, read(&path)?, &path, m),
            None => Origins::default(),
        };
        let name = |id: &str| origins.name(id);
        let listen = args.listen.take().ok_or_else(|| {
            origins.missing("--listen ADDR is needed (or listen in the --config file)")
        })?;
        let config = Config {
            delay: Duration::from_millis(args.delay_ms),
            ..args.limits.apply(Config::default(), &origins)?
        };
        let store = match (args.store.db.take(), args.store.postgres.take()) {
            (Some(db), None) => Store::Redb(db),
            (None, Some(url)) => {
                let password = match &args.postgres_password_file {
                    Some(f) => Some(password_file(f).map_err(|e| {
                        Failure::Usage(format!("{}: {}", name("postgres_password_file"), e.line()))
                    })?),
                    None => env_password(&url),
                };
                Store::Postgres { url, password }
            }
            (None, None) => {
                return Err(origins.missing(
                    "--db FILE or --postgres URL is needed (or db or postgres in the --config \
                     file)",
                ))
            }
            (Some(_), Some(_)) => {
                return Err(Failure::Usage(format!(
                    "{} and {}: one store, not both",
                    name("db"),
                    name("postgres")
                )))
            }
        };
        let root_file = match (&args.trust_root, &store) {
            (Some(f), _) => f.clone(),
            (None, Store::Redb(d)) => {
                let mut s = d.clone().into_os_string();
                s.push(".trust-root");
                PathBuf::from(s)
            }
            (None, Store::Postgres { .. }) => {
                return Err(Failure::Usage(format!(
                    "{} needs --trust-root FILE (or trust-root in the --config file)",
                    name("postgres")
                )))
            }
        };
        let tls = match (&args.tls_cert, &args.tls_key) {
            (Some(c), Some(k)) => Some(tls(c, k, &origins)?),
            (None, None) => None,
            (Some(_), None) => {
                return Err(Failure::Usage(format!(
                    "{} needs tls-key",
                    name("tls_cert")
                )))
            }
            (None, Some(_)) => {
                return Err(Failure::Usage(format!(
                    "{} needs tls-cert",
                    name("tls_key")
                )))
            }
        };
        Ok(Self {
            listen,
            store,
            root_file,
            tls,
            config,
            log_level: args.log_level,
            log_format: args.log_format,
            origins,
        })
    }

    /// The settings `serve --config path` would run with, no other flag given.
    pub fn from_file(path: &Path) -> Result<Self, Failure> {
        let cmd = ServeArgs::augment_args(clap::Command::new("serve"));
        let m = cmd
            .try_get_matches_from([
                OsStr::new("serve"),
                OsStr::new("--config"),
                path.as_os_str(),
            ])
            .map_err(|e| Failure::Usage(e.to_string()))?;
        let args = ServeArgs::from_arg_matches(&m).map_err(|e| Failure::Usage(e.to_string()))?;
        Self::resolve(args, Some(&m))
    }

    /// What a start would meet on disk: the listen address resolves, the trust root is a
    /// readable 32-byte key or can be created, the redb file's directory exists.
    pub fn check_files(&self) -> Result<(), Failure> {
        use std::net::ToSocketAddrs;
        let name = |id: &str| self.origins.name(id);
        if let Err(e) = self.listen.to_socket_addrs() {
            return Err(Failure::Usage(format!(
                "{}: '{}': {e}",
                name("listen"),
                self.listen
            )));
        }
        let dir_of = |p: &Path, id: &str| {
            let dir = p
                .parent()
                .filter(|d| !d.as_os_str().is_empty())
                .unwrap_or(Path::new("."));
            if dir.is_dir() {
                Ok(())
            } else {
                Err(Failure::Usage(format!(
                    "{}: {} is not a directory, so {} cannot be created",
                    name(id),
                    dir.display(),
                    p.display()
                )))
            }
        };
        // The store first: a trust root left to its default lies beside it.
        if let Store::Redb(db) = &self.store {
            if !db.exists() {
                dir_of(db, "db")?;
            }
        }
        if self.root_file.exists() {
            super::read_trust_root(&self.root_file)
                .map_err(|e| Failure::Usage(format!("{}: {}", name("trust_root"), e.line())))?;
        } else {
            dir_of(&self.root_file, "trust_root")?;
        }
        Ok(())
    }
}

/// The TLS settings from a PEM chain and key, a failure naming the setting at fault.
fn tls(cert: &Path, key: &Path, o: &Origins) -> Result<server::Tls, Failure> {
    let named = |id: &'static str| {
        move |e: Failure| Failure::Usage(format!("{}: {}", o.name(id), e.line()))
    };
    let chain = read_input(cert, "a PEM certificate chain").map_err(named("tls_cert"))?;
    let key = read_secret(key, "a PEM private key").map_err(named("tls_key"))?;
    server::Tls::from_pem(&chain, &key).map_err(|e| {
        Failure::Usage(format!(
            "{} and {}: {e}",
            o.name("tls_cert"),
            o.name("tls_key")
        ))
    })
}

/// A password file's first line.
fn password_file(path: &Path) -> Result<Zeroizing<String>, Failure> {
    let bytes = read_secret(path, "a PostgreSQL password")?;
    let text = std::str::from_utf8(&bytes)
        .map_err(|_| Failure::Usage(format!("{}: not UTF-8 text", path.display())))?;
    Ok(Zeroizing::new(
        text.lines().next().unwrap_or("").to_string(),
    ))
}

/// `PGPASSWORD`, as libpq reads it: only where the connection string `url` holds no password
/// (libpq's order: the string first).
pub fn env_password(url: &str) -> Option<Zeroizing<String>> {
    if alibi_relay::store::postgres::holds_password(url).unwrap_or(true) {
        return None;
    }
    std::env::var("PGPASSWORD").ok().map(Zeroizing::new)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every flag of `serve` but `--config` and `--postgres` (which excludes `--db`), with a
    /// value.
    const EVERY: &[(&str, &str)] = &[
        ("listen", "127.0.0.1:1"),
        ("db", "a.redb"),
        ("postgres-password-file", "pw"),
        ("trust-root", "root"),
        ("tls-cert", "c.pem"),
        ("tls-key", "k.pem"),
        ("delay-ms", "1"),
        ("log-level", "warn"),
        ("log-format", "json"),
        ("rate", "1"),
        ("account-creations", "1,1"),
        ("password-checks", "1,1"),
        ("unidentified-sends", "1,1"),
        ("prekey-fetches", "1,1"),
        ("prekey-fetches-per-target", "1,1"),
        ("password-checks-per-account", "1,1"),
        ("mailbox-messages", "1"),
        ("mailbox-mib", "1"),
        ("expiry-days", "1"),
        ("max-prekeys", "1"),
        ("max-connections", "1"),
        ("max-connections-per-address", "1"),
        ("head-timeout", "1"),
        ("max-sockets", "1"),
        ("send-timeout", "1"),
        ("idle-timeout", "1"),
    ];

    fn command() -> clap::Command {
        ServeArgs::augment_args(clap::Command::new("serve"))
    }

    /// `EVERY` as a settings file: numbers bare, the rest quoted.
    fn every_as_file() -> File {
        let text: String = EVERY
            .iter()
            .map(|(k, v)| match v.parse::<f64>() {
                Ok(_) => format!("{k} = {v}\n"),
                Err(_) => format!("{k} = \"{v}\"\n"),
            })
            .collect();
        toml::from_str(&text).expect("every key parses")
    }

    fn parse(words: &[&str]) -> (ServeArgs, ArgMatches) {
        let m = command()
            .try_get_matches_from(std::iter::once("serve").chain(words.iter().copied()))
            .expect("words parse");
        (ServeArgs::from_arg_matches(&m).expect("args"), m)
    }

    #[test]
    fn every_flag_of_serve_is_a_key() {
        let keys: BTreeSet<&str> = EVERY.iter().map(|(k, _)| *k).collect();
        for a in command().get_arguments() {
            let Some(long) = a.get_long() else { continue };
            assert!(
                keys.contains(long) || ["config", "postgres"].contains(&long),
                "--{long} has no key in relay.toml"
            );
        }
        let f: File = toml::from_str("postgres = \"host=/run/postgresql dbname=relay\"").unwrap();
        assert!(f.postgres.is_some());
    }

    #[test]
    fn a_flag_given_wins_over_the_file_for_every_key() {
        let mut words = vec!["--config", "relay.toml"];
        let flags: Vec<String> = EVERY.iter().map(|(k, _)| format!("--{k}")).collect();
        // Other values than the file's.
        for ((_, v), flag) in EVERY.iter().zip(&flags) {
            words.push(flag);
            words.push(match *v {
                "1" => "2",
                "1,1" => "2,2",
                other => other,
            });
        }
        let (mut args, m) = parse(&words);
        let o = merge(
            &mut args,
            every_as_file(),
            Path::new("relay.toml"),
            Some(&m),
        );
        assert!(
            o.from_file.is_empty(),
            "taken from the file: {:?}",
            o.from_file
        );
        assert_eq!(args.limits.max_connections, 2);
        assert_eq!(o.name("max_connections"), "--max-connections");
    }

    #[test]
    fn the_file_fills_every_key_the_words_leave_out() {
        let (mut args, m) = parse(&["--config", "relay.toml"]);
        let o = merge(
            &mut args,
            every_as_file(),
            Path::new("relay.toml"),
            Some(&m),
        );
        assert_eq!(o.from_file.len(), EVERY.len(), "{:?}", o.from_file);
        assert_eq!(args.limits.max_connections, 1);
        assert_eq!(args.log_format, LogFormat::Json);
        assert_eq!(o.name("max_connections"), "relay.toml: max-connections");
    }

    /// The TOML block of docs/relay.md's "Configuration" section.
    fn documented_example() -> String {
        let doc = include_str!("../../../../docs/relay.md");
        let section = doc.split("## Configuration").nth(1).expect("the section");
        let block = section.split("```toml\n").nth(1).expect("its example");
        block.split("```").next().expect("its end").to_string()
    }

    #[test]
    fn the_documented_example_shows_every_key_and_the_default_limits() {
        let text = documented_example();
        for a in command().get_arguments() {
            let Some(long) = a.get_long().filter(|l| *l != "config") else {
                continue;
            };
            let shown = text.lines().any(|l| {
                l.trim_start_matches("# ")
                    .starts_with(&format!("{long} = "))
            });
            assert!(shown, "docs/relay.md's example does not show {long}");
        }
        let file: File = toml::from_str(&text).expect("the example parses");
        let (mut args, m) = parse(&["--config", "relay.toml"]);
        let defaults = format!(
            "{:?}",
            parse(&["--listen", "x"])
                .0
                .limits
                .apply(Config::default(), &Origins::default())
                .ok()
        );
        let o = merge(&mut args, file, Path::new("relay.toml"), Some(&m));
        let example = format!("{:?}", args.limits.apply(Config::default(), &o).ok());
        assert_eq!(example, defaults);
    }

    #[test]
    fn a_toml_error_names_its_line_and_key() {
        let text = "listen = \"127.0.0.1:0\"\nmax-conections = 5\n";
        let e = toml::from_str::<File>(text).unwrap_err();
        let line = one_line(&e, text);
        assert!(
            line.starts_with("line 2, max-conections: unknown field"),
            "{line}"
        );
        let text = "max-connections = -1\n";
        let e = toml::from_str::<File>(text).unwrap_err();
        let line = one_line(&e, text);
        assert!(line.starts_with("line 1, max-connections: "), "{line}");
        assert!(!line.contains('\n'), "{line}");
    }
}
