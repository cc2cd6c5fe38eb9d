//! `alibi mpc init|group|keygen|sign|verify|aux|bench`: threshold signatures (BLS, FROST-Ed25519,
//! FROST-secp256k1-tr, CGGMP24 ECDSA) between parties that each run in their own process (one
//! terminal, one machine, one directory each), talking through a relay over pinned Signal
//! channels; and the paper's experiment comparing the transports.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use alibi_bench::mpc::{Comparison, Grid, Measured, Parties, PrimeBank, Progress, Scheme};
use alibi_bench::mpc_processes::PartyArgs;
use alibi_bench::mpc_rounds::RunRounds;
use alibi_messenger::{ContactCard, Messenger, Options};
#[cfg(adversary)]
use alibi_mpc::dkg::Misbehaviour;
use alibi_mpc::dkg::{keygen as run_keygen, KeyShare, KeygenConfig};
use alibi_mpc::group::GroupFile;
use alibi_mpc::relay::{Mode, OnWaiting, RelayParty};
use alibi_mpc::sign::{sign as run_sign, Disagreement, SignConfig};
use alibi_mpc::transport::Waiting;
use alibi_mpc::{bls, Blame, PartyIndex};
use clap::{Subcommand, ValueEnum};
use serde_json::json;
use zeroize::Zeroizing;

use crate::failure::{usage, CmdResult, Failure};
use crate::files::{
    check_json, check_outputs, read, read_input, read_secret, rewrite, write, write_secret_first,
    write_unless_same, Kind, NewDir, Output,
};
use crate::net::{relay_url, runtime};
use crate::report::{file_json, file_len, say, Format};
use crate::rng::os_rng;
use crate::say;

mod threshold;

/// What `sign` writes.
const SIGNATURE: Kind = Kind::Data("a signature");

/// The keyfile purpose of a sealed share (an identity file does not open as a share).
const SHARE_PURPOSE: &str = "alibi mpc share v1";

/// `alibi mpc <verb>`.
#[derive(Subcommand, Debug)]
pub enum Cmd {
    /// Set a party up: register on the relay, seal its identity in DIR under the passphrase, and
    /// write DIR/card.json (public: hand it to whoever assembles the group)
    Init {
        /// The party's directory (created, mode 0700)
        #[arg(long, value_name = "DIR")]
        dir: PathBuf,
        /// The relay, e.g. http://127.0.0.1:8080, or several nodes on one store, comma-separated
        /// (the party moves to the next when one cannot be reached)
        #[arg(long, value_name = "URL[,URL...]")]
        relay: String,
        /// Allow a plain http:// relay that is not on loopback (the device password then crosses
        /// the network in clear; kept in the sealed identity)
        #[arg(long)]
        insecure_http: bool,
        /// PEM CA certificates to trust for an https relay instead of the public roots (kept in
        /// the sealed identity)
        #[arg(long, value_name = "FILE")]
        relay_ca: Option<PathBuf>,
        /// The party's name in cards, group files and reports
        #[arg(long, value_name = "NAME")]
        name: String,
        /// The relay's trust root as `alibi relay serve` printed it (base64); without it the root
        /// the relay announces now is pinned (trust on first use)
        #[arg(long, value_name = "BASE64")]
        trust_root: Option<String>,
        #[command(flatten)]
        passphrase: PassphraseArgs,
        #[command(flatten)]
        format: Format,
    },
    /// Assemble the group file from the parties' cards (party i is the i-th card)
    Group {
        /// t: any t+1 parties can sign, t cannot
        #[arg(long, value_name = "T")]
        threshold: usize,
        /// The parties' card.json files, in index order
        #[arg(long, value_name = "CARD,...", value_delimiter = ',', required = true,
              value_parser = crate::files::TrimmedPath)]
        cards: Vec<PathBuf>,
        /// Where to write the group file
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
        /// The handshake of the pairwise sessions between the parties, recorded in the group
        /// file so that every party uses the same: pqxdh (libsignal's, with SPQR) or ringxkem
        /// (fully post-quantum and deniable, SPQR required)
        #[arg(long, value_enum, default_value_t = HandshakeArg::Pqxdh)]
        handshake: HandshakeArg,
        /// Replace the group file if it exists
        #[arg(long)]
        force: bool,
        #[command(flatten)]
        format: Format,
    },
    /// Key generation, as one party (every party runs this in its own process): seals this
    /// party's share in DIR and writes the group key; exit 1 if cheaters were named and too few
    /// parties remain, 3 if the relay or the network failed (no party blamed)
    Keygen {
        /// The party's directory (from `mpc init`)
        #[arg(long, value_name = "DIR")]
        dir: PathBuf,
        /// The group file (from `mpc group`)
        #[arg(long, value_name = "FILE")]
        group: PathBuf,
        /// Where to write the group public key: 48 bytes (compressed G1) for bls, 32 for
        /// frost-ed25519 (Ed25519) and frost-secp256k1-tr (x-only BIP-340), 33 for
        /// ecdsa-secp256k1 (compressed SEC1)
        #[arg(long, value_name = "FILE")]
        pk_out: PathBuf,
        /// The threshold scheme
        #[arg(long, value_enum, default_value_t = SchemeArg::Bls)]
        scheme: SchemeArg,
        /// A name for this key generation, the same for every party; a run after a failed or
        /// replaced one needs a new name, or messages of the old run the relay still holds would
        /// count as this run's [default: the group's first key generation]
        #[arg(long, value_name = "ID")]
        session: Option<String>,
        /// Test builds only: cheat as SPEC says (bad-share:J, offset-share:J:D,
        /// offset-share-then-silent:J:D, withhold-share:J, withhold-broadcast:J,
        /// equivocate-commit, wrong-share-proof, stop; FROST and ECDSA: misdeal:J), so that
        /// tests can run cheaters as processes
        #[cfg(adversary)]
        #[arg(long, value_name = "SPEC", hide = true)]
        misbehave: Option<Misbehaviour>,
        #[command(flatten)]
        run: RunArgs,
        /// Replace this party's share of this group if it has one
        #[arg(long)]
        force: bool,
        #[command(flatten)]
        passphrase: PassphraseArgs,
        #[command(flatten)]
        format: Format,
    },
    /// Threshold signing, as one signer (t+1 or more run this, each in its own process, with the
    /// same --session): it finishes as soon as t+1 valid partial signatures are in hand and
    /// writes the signature, checked under the group key (the same whichever t+1 signed)
    Sign {
        /// The party's directory
        #[arg(long, value_name = "DIR")]
        dir: PathBuf,
        /// The group file
        #[arg(long, value_name = "FILE")]
        group: PathBuf,
        /// The message
        #[arg(long, value_name = "FILE")]
        msg: PathBuf,
        /// A name for this signing run, the same for every signer (new for every message)
        #[arg(long, value_name = "ID")]
        session: String,
        /// Where to write the signature (- for stdout): 96 bytes for bls, 64 for the others
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
        /// The threshold scheme (the one key generation ran)
        #[arg(long, value_enum, default_value_t = SchemeArg::Bls)]
        scheme: SchemeArg,
        /// Replace a file that already exists at --out (never one that holds a secret key, a
        /// keyfile, a store or a manager's or party's state, nor an input)
        #[arg(long)]
        force: bool,
        /// Exactly who must sign, by name (each of them must run this; the others are not
        /// waited for) [default for bls: any t+1 of the parties key generation did not exclude,
        /// the first to answer; those not heard from are not named. The other schemes sign
        /// with exactly t+1 parties: name them, unless key generation had only t+1]
        #[arg(long, value_name = "NAME,...", value_delimiter = ',',
              value_parser = crate::files::trimmed)]
        signers: Option<Vec<String>>,
        #[command(flatten)]
        run: RunArgs,
        #[command(flatten)]
        passphrase: PassphraseArgs,
        #[command(flatten)]
        format: Format,
    },
    /// Standard verification under the group key (plain BLS; Ed25519 by ed25519-dalek's strict
    /// rules; BIP-340 and ECDSA by k256): exit 0 if valid, 1 if not
    Verify {
        /// The group public key (as `keygen --pk-out` wrote it)
        #[arg(long, value_name = "FILE")]
        pk: PathBuf,
        /// The message
        #[arg(long, value_name = "FILE")]
        msg: PathBuf,
        /// The signature (96 bytes for bls, 64 for the others)
        #[arg(long, value_name = "FILE")]
        sig: PathBuf,
        /// The threshold scheme
        #[arg(long, value_enum, default_value_t = SchemeArg::Bls)]
        scheme: SchemeArg,
        #[command(flatten)]
        format: Format,
    },
    /// Precompute the four safe primes an ecdsa-secp256k1 key generation needs for this party's
    /// Paillier key and ring-Pedersen modulus (the slow step: seconds to minutes), sealed in DIR/primes.sealed under the
    /// passphrase; the next `keygen --scheme ecdsa-secp256k1` uses and deletes them (without
    /// them, keygen searches first, and the others wait: give them a --timeout-s that allows it)
    Aux {
        /// The party's directory (from `mpc init`)
        #[arg(long, value_name = "DIR")]
        dir: PathBuf,
        /// Seal these primes instead of generating them: a file of four safe primes in
        /// alibi-threshold-ecdsa's encoding (`Primes::to_bytes`), made ahead elsewhere. The
        /// file is secret and must serve one key generation only
        #[arg(long, value_name = "FILE")]
        from: Option<PathBuf>,
        /// Replace primes already waiting in DIR
        #[arg(long)]
        force: bool,
        #[command(flatten)]
        passphrase: PassphraseArgs,
        #[command(flatten)]
        format: Format,
    },
    /// The paper's experiment: keygen and signing (t = n-1) over sequential and concurrent
    /// pairwise channels and group channels, for each party count and relay delay; prints the
    /// table, writes a CSV and an SVG plot
    Bench {
        /// The protocols: bls (alibi's), frost-ed25519, frost-secp256k1-tr, ecdsa-secp256k1 (the
        /// established crates', through the round-based adapter; ECDSA's safe primes are made
        /// before timing: the five test fixtures, generated ahead for larger n)
        #[arg(long, value_name = "SCHEME,...", value_delimiter = ',', default_value = "bls",
              value_parser = parse_scheme)]
        scheme: Vec<Scheme>,
        /// Party counts
        #[arg(long, value_name = "N,...", value_delimiter = ',', default_value = "3,4,5,8,16,32,64",
              value_parser = clap::value_parser!(u16).range(2..=256))]
        parties: Vec<u16>,
        /// Relay delays per request, in milliseconds
        #[arg(
            long,
            value_name = "MS,...",
            value_delimiter = ',',
            default_value = "0,50"
        )]
        delays: Vec<u64>,
        /// The transports to measure
        #[arg(
            long,
            value_name = "T,...",
            value_delimiter = ',',
            value_enum,
            default_value = "pairwise,pairwise-concurrent,group"
        )]
        transports: Vec<Transport>,
        /// Runs after the first, of which the median is reported
        #[arg(long, value_name = "K", default_value_t = 2, value_parser = clap::value_parser!(u16).range(1..))]
        later: u16,
        /// Every party its own OS process (as the paper ran them), instead of a task in this one
        #[arg(long)]
        processes: bool,
        /// Also time each round (BLS, with --processes): write every run's time per round to
        /// this CSV and print the later runs' median per round. A round lasts from when the last
        /// party sent it to when the last party sent the next; `start` is the time until every
        /// party had sent its first
        #[arg(long, value_name = "CSV", requires = "processes")]
        rounds: Option<PathBuf>,
        /// Where to write the measurements
        #[arg(long, value_name = "FILE", default_value = "mpc-bench.csv")]
        csv: PathBuf,
        /// Where to write the plot
        #[arg(long, value_name = "FILE", default_value = "mpc-bench.svg")]
        plot: PathBuf,
        /// Give up on one run after this many seconds
        #[arg(long, value_name = "S", default_value_t = 300)]
        timeout_s: u64,
        /// Threshold ECDSA's safe primes for parties after the five fixtures, one party's four
        /// in hex per line (as alibi-threshold-ecdsa's pregenerate_primes example prints them);
        /// those still missing are searched for before timing
        #[arg(long, value_name = "FILE")]
        primes: Option<PathBuf>,
        /// Do not measure: print the table and redraw the plot from a CSV this command wrote
        #[arg(long, value_name = "CSV", conflicts_with_all = ["scheme", "parties", "delays", "later", "csv", "timeout_s", "processes", "primes", "rounds"])]
        replot: Option<PathBuf>,
        #[command(flatten)]
        format: Format,
    },
    /// One party of `bench --processes` (driven over stdin and stdout by the bench)
    #[command(hide = true)]
    BenchParty {
        /// The relay
        #[arg(long)]
        relay: String,
        /// This party's index
        #[arg(long)]
        index: PartyIndex,
        /// The transport
        #[arg(long, value_enum)]
        transport: Transport,
        /// Round timeout
        #[arg(long)]
        timeout_s: u64,
        /// The protocol
        #[arg(long, default_value = "bls", value_parser = parse_scheme)]
        scheme: Scheme,
    },
}

/// A scheme of `mpc bench` by name.
fn parse_scheme(s: &str) -> Result<Scheme, String> {
    s.parse::<Scheme>().map_err(|e| e.to_string())
}

/// Where the passphrase comes from.
#[derive(clap::Args, Debug)]
pub struct PassphraseArgs {
    /// Read the passphrase from this file, `-` for stdin (one trailing newline dropped) [default: the ALIBI_PASSPHRASE variable]
    #[arg(long, value_name = "FILE")]
    passphrase_file: Option<PathBuf>,
}

/// How a protocol run talks.
#[derive(clap::Args, Clone, Debug)]
pub struct RunArgs {
    /// The channels a broadcast goes over
    #[arg(long, value_enum, default_value_t = Transport::Group)]
    transport: Transport,
    /// Give up on a round after this many seconds (the first round also waits for the other
    /// parties to start) [default: 120; 300 for an ecdsa-secp256k1 key generation, whose parties
    /// without `mpc aux` primes search for them first]
    #[arg(long, value_name = "S", value_parser = clap::value_parser!(u64).range(1..=86_400))]
    timeout_s: Option<u64>,
    /// The handshake of the pairwise sessions, which must be the one the group file records
    /// (`mpc group --handshake`) [default: the group file's]
    #[arg(long, value_enum)]
    handshake: Option<HandshakeArg>,
    /// Leave these parties out of this run and the group's later ones (every party must exclude
    /// the same): for a party an earlier run named, such as one that stopped it. Recorded in
    /// the group file with the reason this party's directory noted for it
    #[arg(long, value_name = "NAME,...", value_delimiter = ',',
          value_parser = crate::files::trimmed)]
    exclude: Vec<String>,
}

/// A round's wait unless `--timeout-s` says otherwise.
const ROUND_TIMEOUT_S: u64 = 120;

impl RunArgs {
    /// How long a round waits: `--timeout-s`, or [`ROUND_TIMEOUT_S`].
    fn timeout(&self) -> Duration {
        Duration::from_secs(self.timeout_s.unwrap_or(ROUND_TIMEOUT_S))
    }

    /// These arguments with `default_s` as the round's wait when `--timeout-s` is not given.
    fn waiting_by_default(&self, default_s: u64) -> RunArgs {
        RunArgs {
            timeout_s: Some(self.timeout_s.unwrap_or(default_s)),
            ..self.clone()
        }
    }
}

/// `--handshake`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum HandshakeArg {
    /// PQXDH + Double Ratchet + SPQR
    Pqxdh,
    /// RingXKEM + Double Ratchet + SPQR
    Ringxkem,
}

impl From<HandshakeArg> for alibi_messenger::Handshake {
    fn from(h: HandshakeArg) -> Self {
        match h {
            HandshakeArg::Pqxdh => alibi_messenger::Handshake::Pqxdh,
            HandshakeArg::Ringxkem => alibi_messenger::Handshake::Ringxkem,
        }
    }
}

/// A handshake's name as `--handshake` spells it.
fn handshake_name(h: alibi_messenger::Handshake) -> &'static str {
    match h {
        alibi_messenger::Handshake::Pqxdh => "pqxdh",
        alibi_messenger::Handshake::Ringxkem => "ringxkem",
    }
}

impl RunArgs {
    /// The group's members, their sessions on the handshake the group file records: a party
    /// on another would be heard by nobody, so `--handshake` must agree with it.
    fn members(&self, group: &GroupFile) -> Result<Vec<(PartyIndex, ContactCard)>, Failure> {
        let members = group.members();
        let recorded = members
            .first()
            .map_or(alibi_messenger::Handshake::Pqxdh, |(_, c)| c.handshake);
        if members.iter().any(|(_, c)| c.handshake != recorded) {
            return Err(Failure::Usage(
                "the group file's cards name different handshakes; make the group again with \
                 `alibi mpc group --handshake`"
                    .into(),
            ));
        }
        match self.handshake.map(alibi_messenger::Handshake::from) {
            Some(h) if h != recorded => Err(Failure::Usage(format!(
                "--handshake {}: the group file records {} for every party (every party must use \
                 the same; leave --handshake out)",
                handshake_name(h),
                handshake_name(recorded)
            ))),
            _ => Ok(members),
        }
    }
}

/// `--scheme`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum SchemeArg {
    /// Threshold BLS (BLS12-381, G2 signatures), alibi's own protocol with identifiable abort
    Bls,
    /// FROST(Ed25519, SHA-512) of RFC 9591 (givre): Ed25519 signatures
    FrostEd25519,
    /// FROST over secp256k1 with BIP-340 challenges and the BIP-341 key tweak (givre):
    /// BIP-340 Schnorr signatures under an x-only taproot key
    FrostSecp256k1Tr,
    /// CGGMP24 threshold ECDSA over secp256k1 (cggmp24): ECDSA over SHA-256, r || s, low S
    EcdsaSecp256k1,
}

impl SchemeArg {
    /// The scheme of an established crate, or `None` for BLS.
    fn threshold(self) -> Option<alibi_mpc::threshold::Scheme> {
        use alibi_mpc::threshold::Scheme;
        match self {
            SchemeArg::Bls => None,
            SchemeArg::FrostEd25519 => Some(Scheme::FrostEd25519),
            SchemeArg::FrostSecp256k1Tr => Some(Scheme::FrostSecp256k1Tr),
            SchemeArg::EcdsaSecp256k1 => Some(Scheme::EcdsaSecp256k1),
        }
    }
}

/// The transports of the experiment.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transport {
    /// One sender-key message, sealed once, in one multi-recipient request per round
    Group,
    /// n-1 Double Ratchet messages per broadcast, one request after another
    Pairwise,
    /// n-1 Double Ratchet messages per broadcast, all requests in flight at once
    PairwiseConcurrent,
}

impl From<Transport> for Mode {
    fn from(t: Transport) -> Mode {
        match t {
            Transport::Group => Mode::Group,
            Transport::Pairwise => Mode::Pairwise,
            Transport::PairwiseConcurrent => Mode::PairwiseConcurrent,
        }
    }
}

/// Runs `alibi mpc <verb>`.
pub fn run(cmd: Cmd) -> CmdResult {
    match cmd {
        Cmd::Init {
            dir,
            relay,
            insecure_http,
            relay_ca,
            name,
            trust_root,
            passphrase,
            format,
        } => init(
            &dir,
            (&relay, insecure_http),
            relay_ca.as_deref(),
            &name,
            trust_root.as_deref(),
            &passphrase,
            format,
        ),
        Cmd::Group {
            threshold,
            cards,
            out,
            handshake,
            force,
            format,
        } => group(threshold, &cards, &out, handshake, force, format),
        Cmd::Keygen {
            dir,
            group,
            pk_out,
            scheme,
            session,
            #[cfg(adversary)]
            misbehave,
            run,
            force,
            passphrase,
            format,
        } => keygen(
            scheme,
            &dir,
            &group,
            &pk_out,
            session.as_deref(),
            #[cfg(adversary)]
            misbehave,
            &run,
            force,
            &passphrase,
            format,
        ),
        Cmd::Sign {
            dir,
            group,
            msg,
            session,
            out,
            force,
            signers,
            run,
            passphrase,
            format,
            scheme,
        } => sign(
            scheme,
            &dir,
            &group,
            &msg,
            &session,
            (&out, force),
            signers,
            &run,
            &passphrase,
            format,
        ),
        Cmd::Verify {
            pk,
            msg,
            sig,
            scheme,
            format,
        } => verify(scheme, &pk, &msg, &sig, format),
        Cmd::Aux {
            dir,
            from,
            force,
            passphrase,
            format,
        } => threshold::aux(&dir, from.as_deref(), force, &passphrase, format),
        Cmd::Bench {
            scheme,
            parties,
            delays,
            transports,
            later,
            processes,
            rounds,
            csv,
            plot,
            timeout_s,
            primes,
            replot,
            format,
        } => match replot {
            Some(from) => replot_csv(&from, &plot, format),
            None => bench(
                &Grid {
                    schemes: scheme,
                    ns: parties,
                    delays,
                    modes: transports.into_iter().map(Mode::from).collect(),
                    later: usize::from(later),
                    timeout: Duration::from_secs(timeout_s),
                },
                processes,
                primes.as_deref(),
                (&csv, &plot, rounds.as_deref()),
                format,
            ),
        },
        Cmd::BenchParty {
            relay,
            index,
            transport,
            timeout_s,
            scheme,
        } => alibi_bench::mpc_processes::party(
            &relay,
            index,
            transport.into(),
            Duration::from_secs(timeout_s),
            scheme,
        )
        .map_err(usage),
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The passphrase, or exit 2 saying how to give one.
fn passphrase(args: &PassphraseArgs) -> Result<Zeroizing<Vec<u8>>, Failure> {
    alibi_keyfile::passphrase(args.passphrase_file.as_deref()).map_err(usage)
}

/// A messenger failure as a command failure: the relay or the network (unreachable, refusing,
/// handing out what the pinned cards contradict) exits 3, with a hint where the cause is known;
/// the user's own input (passphrase, files, usage) exits 2.
fn setup(e: alibi_messenger::Error) -> Failure {
    use alibi_messenger::Error as E;
    match e {
        E::Busy(p) => crate::failure::busy(&p),
        E::Refused { status: 401, .. } => Failure::Transport(format!(
            "{e}: the relay no longer knows this party's account (its database was reset, or this \
             is another relay); register again with `alibi mpc init` and make a new group file"
        )),
        E::Relay(_)
        | E::Refused { .. }
        | E::Send { .. }
        | E::IdentityMismatch { .. }
        | E::Downgrade(_)
        | E::TrustRoot(_) => Failure::Transport(e.to_string()),
        e => Failure::Usage(e.to_string()),
    }
}

/// An MPC setup failure: a transport fault exits 3, anything else is the user's input (exit 2).
fn mpc_setup(e: alibi_mpc::Error) -> Failure {
    match e {
        alibi_mpc::Error::Transport(m) => Failure::Transport(m),
        e => usage(e),
    }
}

#[allow(clippy::too_many_arguments)]
fn init(
    dir: &Path,
    (relay, insecure_http): (&str, bool),
    relay_ca: Option<&Path>,
    name: &str,
    trust_root: Option<&str>,
    pass: &PassphraseArgs,
    format: Format,
) -> CmdResult {
    let url = relay_url(relay, insecure_http)?;
    let passphrase = passphrase(pass)?;
    let trust_root = trust_root
        .map(|b| {
            alibi_relay_api::b64::decode(b)
                .filter(|k| k.len() == 33)
                .ok_or_else(|| {
                    Failure::Usage(format!("--trust-root {b}: not a base64 33-byte key"))
                })
        })
        .transpose()?;
    // The card is checked before anything is registered.
    let probe = ContactCard {
        name: name.to_string(),
        account: uuid::Uuid::nil(),
        devices: vec![alibi_messenger::Device {
            id: 1,
            registration_id: 1,
        }],
        identity_key: [5u8; 33].to_vec(),
        relay: url.clone(),
        trust_root: [5u8; 33].to_vec(),
        access_key: vec![0; 16],
        legacy: false,
        pq_identity: Vec::new(),
        handshake: alibi_messenger::Handshake::Pqxdh,
        fixed_devices: false,
    };
    if let Err(alibi_messenger::Error::Card(m)) = probe.check() {
        return Err(Failure::Usage(format!("--name: {m}")));
    }
    let relay_ca = relay_ca
        .map(|f| {
            let pem = crate::files::read_input(f, "PEM CA certificates")?;
            alibi_messenger::Endpoint::new(&url)
                .allow_insecure_http(insecure_http)
                .with_ca(&pem)
                .map_err(|e| Failure::Usage(format!("--relay-ca: {e}")))?;
            Ok::<_, Failure>(pem)
        })
        .transpose()?;
    let options = Options {
        trust_root,
        relay_ca,
        insecure_http,
        ..Options::default()
    };
    let new_dir = NewDir::track(dir);
    let m = runtime()?
        .block_on(Messenger::register(dir, &url, name, &passphrase, &options))
        .map_err(setup)?;
    new_dir.keep();
    let card = dir.join(alibi_messenger::CARD_FILE);
    format.report(
        format!(
            "registered {name} on {url} (account {}); identity sealed in {}; card: {}",
            m.account(),
            dir.display(),
            card.display()
        ),
        json!({"name": name, "account": m.account(), "relay": url,
               "card": file_json(&card, file_len(&card)), "dir": dir.to_string_lossy()}),
    )
}

fn group(
    threshold: usize,
    cards: &[PathBuf],
    out: &Path,
    handshake: HandshakeArg,
    force: bool,
    format: Format,
) -> CmdResult {
    let inputs: Vec<_> = cards.iter().map(|c| ("--cards", c.as_path())).collect();
    check_outputs(&[("--out", out, Kind::PublicKey)], &inputs, force)?;
    let cards = cards
        .iter()
        .map(|p| {
            let text = String::from_utf8(read_input(p, "a contact card")?)
                .map_err(|_| Failure::Usage(format!("{}: not UTF-8", p.display())))?;
            let mut card = ContactCard::from_json(&text)
                .map_err(|e| Failure::Usage(format!("{}: {e}", p.display())))?;
            card.handshake = handshake.into();
            Ok(card)
        })
        .collect::<Result<Vec<_>, Failure>>()?;
    let id = uuid::Uuid::from_bytes({
        let mut b = [0u8; 16];
        rand_core::Rng::fill_bytes(&mut os_rng(), &mut b);
        b
    });
    let g = GroupFile::new(threshold, cards, id).map_err(usage)?;
    write("--out", out, Kind::PublicKey, g.to_json().as_bytes(), force)?;
    let names: Vec<&str> = g.parties.iter().map(|c| c.name.as_str()).collect();
    format.report(
        format!(
            "group {id}: {} parties ({}), t = {threshold} ({} to sign); wrote {}",
            names.len(),
            names.join(", "),
            threshold + 1,
            out.display()
        ),
        json!({"group_id": id, "parties": names, "threshold": threshold,
               "out": file_json(out, file_len(out))}),
    )
}

/// What `keygen` and `sign` start from: the group, this party's messenger and index.
struct Member {
    group: GroupFile,
    messenger: Messenger,
    me: PartyIndex,
}

fn read_group(path: &Path) -> Result<GroupFile, Failure> {
    let text = String::from_utf8(read_input(path, "a group file")?)
        .map_err(|_| Failure::Usage(format!("{}: not UTF-8", path.display())))?;
    GroupFile::from_json(&text).map_err(|e| Failure::Usage(format!("{}: {e}", path.display())))
}

/// This party of `group` from its directory; requests that reach no relay are tried again for
/// up to `patience` (the round timeout: a relay back within it loses nothing).
async fn member(
    dir: &Path,
    group: GroupFile,
    passphrase: &[u8],
    patience: Duration,
) -> Result<Member, Failure> {
    let messenger = Messenger::open_patient(dir, passphrase, patience, Some(relay_reporter()))
        .await
        .map_err(|e| match e {
            alibi_messenger::Error::Keyfile(k) => Failure::Usage(format!(
                "{}: {k}",
                dir.join(alibi_messenger::IDENTITY_FILE).display()
            )),
            e => setup(e),
        })?;
    let me = group.index_of(messenger.account()).ok_or_else(|| {
        Failure::Usage(format!(
            "{}: party {} is not in this group file",
            dir.display(),
            messenger.name()
        ))
    })?;
    if let Some(x) = group
        .excluded
        .iter()
        .find(|x| group.index_named(&x.name) == Some(me))
    {
        return Err(Failure::Usage(format!(
            "{} is excluded from the group's runs: {}",
            x.name, x.reason
        )));
    }
    if group.parties[usize::from(me) - 1].identity_key
        != messenger.identity_key_pair().identity.serialize()
    {
        return Err(Failure::Usage(format!(
            "the group file's card for {} carries another identity key than {}",
            messenger.name(),
            dir.display()
        )));
    }
    Ok(Member {
        group,
        messenger,
        me,
    })
}

/// What every key generation checks before it connects: the group (less `--exclude`), a
/// named session, the share (`share_file` of the group) and `--pk-out` free to write or
/// `--force`; then the passphrase. Gives the group, the share's path and the passphrase.
fn keygen_start(
    (dir, group_path, pk_out, session): (&Path, &Path, &Path, Option<&str>),
    share_file: impl FnOnce(&GroupFile) -> PathBuf,
    run: &RunArgs,
    force: bool,
    pass: &PassphraseArgs,
) -> Result<(GroupFile, PathBuf, Zeroizing<Vec<u8>>), Failure> {
    let group = exclude(group_path, read_group(group_path)?, &run.exclude, dir)?;
    if session == Some("") {
        return Err(Failure::Usage("--session: give the run a name".into()));
    }
    let share_file = share_file(&group);
    check_outputs(
        &[
            ("--dir", share_file.as_path(), Kind::Secret),
            ("--pk-out", pk_out, Kind::PublicKey),
        ],
        &[("--group", group_path)],
        force,
    )?;
    Ok((group, share_file, passphrase(pass)?))
}

/// This member's endpoint for a run of `what` over the channels `--transport` chose, saying
/// on stderr what it waits for.
fn relay_party(
    m: Member,
    run: &RunArgs,
    what: &'static str,
    format: Format,
) -> Result<(GroupFile, RelayParty), Failure> {
    let Member {
        group,
        messenger,
        me,
    } = m;
    let mode = Mode::from(run.transport);
    // No request, socket or send outlasts a round: a stalled path to the relay ends the run
    // (exit 3, naming what stalled) within about one round timeout.
    let round = run.timeout();
    messenger.set_request_timeout(round.min(alibi_messenger::REQUEST_TIMEOUT));
    let mut party = RelayParty::new(messenger, me, &run.members(&group)?, group.group_id, mode)
        .map_err(mpc_setup)?;
    party.set_send_timeout(round);
    party.on_waiting(waiting_reporter(&group, what, format));
    Ok((group, party))
}

fn share_path(dir: &Path, g: &GroupFile) -> PathBuf {
    dir.join("shares").join(format!("{}.share", g.group_id))
}

/// Where a party's directory notes the parties its runs named, by name, with why: the reason an
/// `--exclude` records.
fn named_path(dir: &Path) -> PathBuf {
    dir.join("named.json")
}

/// Where a party's directory records every run it took part in (a session id a line).
fn sessions_path(dir: &Path) -> PathBuf {
    dir.join("sessions.txt")
}

/// Refuses a run whose session this party has already run, and records it before anything is
/// sent. A run's signed messages must never be repeated under one session id: a cheater could
/// forward the old ones beside the new as proof of equivocation, and every party would name an
/// honest one.
fn claim_session(
    dir: &Path,
    session: &alibi_mpc::SessionId,
    what: &str,
    name: Option<&str>,
) -> Result<(), Failure> {
    let path = sessions_path(dir);
    let id = hex::encode(session);
    let mut text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(Failure::Usage(format!("{}: {e}", path.display()))),
    };
    let run = match name {
        Some(n) => format!("{what} --session {n}"),
        None => format!("{what} without --session"),
    };
    if text
        .lines()
        .any(|l| l.split(' ').next() == Some(id.as_str()))
    {
        return Err(Failure::Usage(format!(
            "{}: this party already ran {run} in this group (a run's signed messages are never \
             repeated under one session, or another party could show the old ones as \
             equivocation); every party gives this run a new --session",
            dir.display()
        )));
    }
    text.push_str(&format!("{id} {run}\n"));
    rewrite("--dir", &path, Kind::Report, text.as_bytes())?;
    Ok(())
}

/// Notes in the party's directory each party a failed run named (a cheater, or a party that
/// stopped the run), so that `--exclude` can record why. Best effort: the run's failure is what
/// the user must see.
fn note_named(g: &GroupFile, dir: &Path, what: &str, e: &alibi_mpc::Error) {
    let named: Vec<(PartyIndex, String)> = match e {
        alibi_mpc::Error::Aborted { blamed, .. } => blamed
            .iter()
            .map(|b| (b.party, format!("named in {what}: {}", b.fault)))
            .collect(),
        alibi_mpc::Error::Stopped { stopped } => stopped
            .iter()
            .map(|(p, reason)| (*p, format!("stopped {what} ({reason})")))
            .collect(),
        alibi_mpc::Error::Accused { accusations } => accusations
            .iter()
            .flat_map(|a| {
                a.blamed.iter().map(move |b| {
                    let by = g.name_of(a.by);
                    (b.party, format!("named in {what} by {by}: {}", b.fault))
                })
            })
            .collect(),
        alibi_mpc::Error::Undeliverable { parties } => parties
            .iter()
            .map(|(p, why)| (*p, format!("unreachable in {what}: the relay said {why}")))
            .collect(),
        _ => return,
    };
    let path = named_path(dir);
    let mut notes: BTreeMap<String, String> = std::fs::read(&path)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default();
    for (p, why) in named {
        notes.insert(g.name_of(p), why);
    }
    if let Ok(text) = serde_json::to_vec_pretty(&notes) {
        let _ = rewrite("--dir", &path, Kind::Report, &text);
    }
}

/// The group with `names` excluded, each with the reason this party's directory noted for it
/// (or the operator's word); the group file is rewritten when that adds an exclusion. This
/// party cannot exclude itself.
fn exclude(
    path: &Path,
    mut group: GroupFile,
    names: &[String],
    dir: &Path,
) -> Result<GroupFile, Failure> {
    let notes: BTreeMap<String, String> = std::fs::read(named_path(dir))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default();
    let mut changed = false;
    for name in names {
        if group.index_named(name).is_none() {
            return Err(Failure::Usage(format!("--exclude: no party named {name}")));
        }
        let reason = notes
            .get(name)
            .cloned()
            .unwrap_or_else(|| "excluded by its operators (--exclude)".into());
        changed |= group
            .exclude(name, reason)
            .map_err(|e| Failure::Usage(format!("--exclude {name}: {e}")))?;
    }
    if changed {
        rewrite("--group", path, Kind::PublicKey, group.to_json().as_bytes())?;
    }
    Ok(group)
}

/// The frames each party sent that this party did not file (of sessions it did not run), by
/// name.
fn strays(g: &GroupFile, party: &RelayParty) -> BTreeMap<String, u64> {
    use alibi_mpc::transport::Transport as _;
    party
        .mailbox()
        .strays()
        .into_iter()
        .map(|(p, n)| (g.name_of(p), n))
        .collect()
}

/// The report's line on stray frames: who sent frames of other runs, which this party dropped
/// (its channel authenticated them, so the count is sure, but it proves nothing to the others).
fn strays_line(strays: &BTreeMap<String, u64>) -> String {
    let each: Vec<String> = strays.iter().map(|(n, c)| format!("{n} {c}")).collect();
    format!(
        "frames of other runs dropped (an old run's late messages, or a party flooding this one): {}",
        each.join(", ")
    )
}

/// Names of blamed parties with their faults, for reports.
fn named(g: &GroupFile, blamed: &[Blame]) -> Vec<String> {
    blamed
        .iter()
        .map(|b| format!("{} ({})", g.name_of(b.party), b.fault))
        .collect()
}

/// The run an ECDSA key generation's waiting lines name: its first round also waits for the
/// parties still searching for safe primes, which they do before they join.
const ECDSA_KEYGEN: &str = "ecdsa-secp256k1 key generation";

/// What a party prints while a run waits (every few seconds, on stderr): the round and whom it
/// waits for, in words, or with `--json` one JSON object per line.
fn waiting_reporter(g: &GroupFile, what: &'static str, format: Format) -> OnWaiting {
    let names: BTreeMap<PartyIndex, String> =
        g.indices().into_iter().map(|p| (p, g.name_of(p))).collect();
    Box::new(move |w: &Waiting| {
        let line = waiting_line(&names, what, w, format.json);
        // Best effort: a closed stderr must not stop the run.
        let _ = writeln!(std::io::stderr(), "{line}");
    })
}

/// One waiting line: whom the run waits for, whom it heard, and what those it waits for said
/// of themselves; a JSON object with `json`.
fn waiting_line(
    names: &BTreeMap<PartyIndex, String>,
    what: &str,
    w: &Waiting,
    json: bool,
) -> String {
    let name = |p: &PartyIndex| names.get(p).cloned().unwrap_or_else(|| p.to_string());
    let waiting_for: Vec<String> = w.waiting_for.iter().map(name).collect();
    let heard: Vec<String> = w.heard.iter().map(name).collect();
    let notes: BTreeMap<String, &str> =
        w.notes.iter().map(|(p, n)| (name(p), n.as_str())).collect();
    if json {
        return json!({"event": "waiting", "run": what, "round": w.round,
               "waiting_for": waiting_for, "heard": heard, "notes": notes,
               "elapsed_s": w.elapsed.as_secs(), "timeout_s": w.timeout.as_secs()})
        .to_string();
    }
    let heard = if heard.is_empty() {
        "nothing yet".to_string()
    } else {
        format!("heard from {}", heard.join(", "))
    };
    // What the parties waited for said of themselves, beside what was heard.
    let heard = notes
        .iter()
        .fold(heard, |h, (p, n)| format!("{h}; {p}: {n}"));
    let why = if notes.is_empty() && what == ECDSA_KEYGEN && w.round == 0 {
        " (not started yet, or searching for its safe primes without a word: a party that has \
         no `mpc aux` primes says so here while it searches, a minute or more)"
    } else {
        ""
    };
    format!(
        "alibi: {what}: round {}: waiting for {} ({heard}){why}; {} s of {} s",
        w.round,
        waiting_for.join(", "),
        w.elapsed.as_secs(),
        w.timeout.as_secs()
    )
}

/// What a party prints while the relay cannot be reached and requests are tried again (at
/// first, then every 5 s, on stderr).
fn relay_reporter() -> alibi_messenger::OnUnreachable {
    std::sync::Arc::new(|error: &str, waited: Duration, patience: Duration| {
        let error = error.split_whitespace().collect::<Vec<_>>().join(" ");
        // Best effort: a closed stderr must not stop the run.
        let _ = writeln!(
            std::io::stderr(),
            "alibi: relay unreachable ({error}): waiting for it to answer, trying again; {} s of {} s",
            waited.as_secs(),
            patience.as_secs()
        );
    })
}

/// Signers whose partials were for something else, by name with how, for reports.
fn disagreeing(g: &GroupFile, d: &[(PartyIndex, Disagreement)]) -> Vec<String> {
    d.iter()
        .map(|(p, how)| format!("{}: {how}", g.name_of(*p)))
        .collect()
}

/// A protocol run that failed. Cheaters named and too few parties left: exit 1, naming them. The
/// relay or the network failed (a send refused, a contact whose identity does not match its
/// card, another party that stopped for such a fault, parties nothing was heard from though they
/// were asked again and the others asked to forward): exit 3, naming the relay or the contact,
/// blaming no party.
fn protocol_failure(
    g: &GroupFile,
    me: PartyIndex,
    dir: &Path,
    what: &str,
    e: alibi_mpc::Error,
) -> Failure {
    note_named(g, dir, what, &e);
    let relay = usize::from(me)
        .checked_sub(1)
        .and_then(|i| g.parties.get(i))
        .map_or_else(String::new, |c| c.relay.clone());
    match e {
        // An empty "excluded:" would read as if someone had been (issue 66).
        alibi_mpc::Error::Aborted { reason, blamed } if blamed.is_empty() => {
            Failure::Invalid(format!("{what} failed: {reason}"))
        }
        alibi_mpc::Error::Aborted { reason, blamed } => Failure::Invalid(format!(
            "{what} failed: {reason}; excluded: {}",
            named(g, &blamed).join(", ")
        )),
        alibi_mpc::Error::Accused { accusations } => accused(g, what, &accusations),
        alibi_mpc::Error::Transport(m) => Failure::Transport(format!(
            "{what} stopped by a transport fault, no party blamed: {m} (relay {relay})"
        )),
        alibi_mpc::Error::Stopped { stopped } => {
            let names: Vec<String> = stopped.iter().map(|(p, _)| g.name_of(*p)).collect();
            let each: Vec<String> = stopped
                .iter()
                .map(|(p, reason)| format!("{} stopped the run ({reason})", g.name_of(*p)))
                .collect();
            Failure::Transport(format!(
                "{what} stopped: {}; named Stopped: {} (to go on without it, every party runs \
                 again with --exclude {} and a new --session)",
                each.join(", "),
                names.join(", "),
                names.join(",")
            ))
        }
        alibi_mpc::Error::Undeliverable { parties } => {
            let names: Vec<String> = parties.iter().map(|(p, _)| g.name_of(*p)).collect();
            let each: Vec<String> = parties
                .iter()
                .map(|(p, why)| format!("{} ({why})", g.name_of(*p)))
                .collect();
            Failure::Transport(format!(
                "{what} stopped, no party blamed: the relay {relay} will not deliver to {}; to go \
                 on without it, every party runs again with --exclude {} and a new --session",
                each.join(", "),
                names.join(",")
            ))
        }
        alibi_mpc::Error::Unreachable { round, parties } => {
            let names: Vec<String> = parties.iter().map(|&p| g.name_of(p)).collect();
            Failure::Transport(format!(
                "{what} stopped, no party blamed: nothing heard from {} in round {round} (asked \
                 again, and the others asked to forward): not started, on another --session, \
                 --scheme or --handshake, or the relay {relay} failed",
                names.join(", ")
            ))
        }
        alibi_mpc::Error::Closed { by } => {
            let names: Vec<String> = by.iter().map(|&p| g.name_of(p)).collect();
            Failure::Transport(format!(
                "{what} stopped, no party blamed: {} already closed this run without {} (they \
                 heard nothing from it in time: it started late, or could not be heard); to \
                 take part, every party runs again with a new --session",
                names.join(", "),
                g.name_of(me)
            ))
        }
        alibi_mpc::Error::Disagreed { disagreeing: d } => Failure::Invalid(format!(
            "{what} stopped, no party blamed: the signers do not sign the same thing: {} \
             (every signer needs the same --msg file and the share of the latest key generation)",
            disagreeing(g, &d).join("; ")
        )),
        e => Failure::Invalid(format!("{what} failed closed: {e}")),
    }
}

/// A run stopped by other parties' accusations: exit 1, each accused named as its accuser
/// named it, and why the accusation alone decides nothing between the two.
fn accused(g: &GroupFile, what: &str, accusations: &[alibi_mpc::Accusation]) -> Failure {
    let mut names: Vec<String> = vec![];
    let each: Vec<String> = accusations
        .iter()
        .map(|a| {
            let blamed: Vec<String> = a.blamed.iter().map(|b| g.name_of(b.party)).collect();
            for n in &blamed {
                if !names.contains(n) {
                    names.push(n.clone());
                }
            }
            format!(
                "{} names {} ({})",
                g.name_of(a.by),
                blamed.join(" and "),
                a.reason
            )
        })
        .collect();
    Failure::Invalid(format!(
        "{what} failed: {}; excluded: {} (a message only its receiver could check failed: the          accuser's word, which no other party can verify; to go on without {}, every party runs          again with --exclude {} and a new --session)",
        each.join("; "),
        names.join(", "),
        names.join(", "),
        names.join(",")
    ))
}

/// `alibi mpc keygen`: threshold BLS here, the other schemes in [`threshold::keygen`].
#[allow(clippy::too_many_arguments)]
fn keygen(
    scheme: SchemeArg,
    dir: &Path,
    group_path: &Path,
    pk_out: &Path,
    session: Option<&str>,
    #[cfg(adversary)] cheat: Option<Misbehaviour>,
    run: &RunArgs,
    force: bool,
    pass: &PassphraseArgs,
    format: Format,
) -> CmdResult {
    let job = (dir, group_path, pk_out, session);
    if let Some(scheme) = scheme.threshold() {
        return threshold::keygen(
            scheme,
            job,
            #[cfg(adversary)]
            cheat,
            run,
            force,
            pass,
            format,
        );
    }
    #[cfg(adversary)]
    if matches!(cheat, Some(Misbehaviour::MisdealTo(_))) {
        return Err(Failure::Usage(
            "--misbehave misdeal is for FROST and ECDSA".into(),
        ));
    }
    let (group, share_file, passphrase) =
        keygen_start(job, |g| share_path(dir, g), run, force, pass)?;
    runtime()?.block_on(async {
        let m = member(dir, group, &passphrase, run.timeout()).await?;
        let me = m.me;
        let (group, mut party) = relay_party(m, run, "key generation", format)?;
        let mode = Mode::from(run.transport);
        let name = session;
        let session = match session {
            None => group.keygen_session(),
            Some(id) => group.session("keygen", id),
        };
        claim_session(dir, &session, "key generation", name)?;
        let timeout = run.timeout();
        let config = KeygenConfig::new(session, group.threshold, group.run_parties(), timeout);
        #[cfg(adversary)]
        let config = KeygenConfig {
            misbehaviour: cheat,
            ..config
        };
        let start = Instant::now();
        let share = run_keygen(&party.party(), &config, &mut party, &mut os_rng())
            .await
            .map_err(|e| protocol_failure(&group, me, dir, "key generation", e))?;
        let strays = strays(&group, &party);
        let took = start.elapsed();
        let json = share.to_json();
        let sealed = alibi_keyfile::seal(
            SHARE_PURPOSE,
            json.as_bytes(),
            &passphrase,
            alibi_keyfile::Params::default(),
            &mut os_rng(),
        )
        .map_err(usage)?;
        let shares = NewDir::create(share_file.parent().unwrap_or(dir))?;
        let secret = Output {
            flag: "--dir",
            path: &share_file,
            kind: Kind::Secret,
            data: &sealed,
        };
        let public = Output {
            flag: "--pk-out",
            path: pk_out,
            kind: Kind::PublicKey,
            data: &share.group_key,
        };
        // The share first: it cannot be made again, and the others' --pk-out may be this one.
        let written = write_secret_first(&secret, &[public], force);
        shares.keep();
        written?;
        let run = Ran {
            me,
            mode,
            took,
            strays,
        };
        let files = (
            (share_file.as_path(), sealed.len()),
            (pk_out, share.group_key.len()),
        );
        keygen_report(&group, &run, &share, files, format)
    })
}

/// What a run of this party was: its index, channels, duration and the stray frames it dropped.
struct Ran {
    me: PartyIndex,
    mode: Mode,
    took: Duration,
    strays: BTreeMap<String, u64>,
}

/// The report of a finished key generation: the key, who qualified and who was excluded, and
/// where the share and key went.
fn keygen_report(
    group: &GroupFile,
    run: &Ran,
    share: &KeyShare,
    ((share_file, sealed_len), (pk_out, pk_len)): ((&Path, usize), (&Path, usize)),
    format: Format,
) -> CmdResult {
    let group_key = hex::encode(&share.group_key);
    let qualified: Vec<String> = share.qualified.iter().map(|&p| group.name_of(p)).collect();
    let excluded = named(group, &share.blamed);
    let (me, mode, took, strays) = (run.me, run.mode, run.took, &run.strays);
    let mut text = format!(
        "keygen: {} is party {me} of {}, t = {} ({} to sign), {mode} channels: {:.0} ms\n\
         group key: {group_key}\nqualified: {}",
        group.name_of(me),
        group.parties.len(),
        group.threshold,
        group.threshold + 1,
        ms(took),
        qualified.join(", "),
    );
    if !excluded.is_empty() {
        text.push_str(&format!("\nexcluded: {}", excluded.join(", ")));
    }
    if !strays.is_empty() {
        text.push_str(&format!("\n{}", strays_line(strays)));
    }
    text.push_str(&format!(
        "\nshare sealed in {}; group key written to {}",
        share_file.display(),
        pk_out.display()
    ));
    format.report(
        text,
        json!({"scheme": "bls", "party": group.name_of(me), "index": me,
               "group_id": group.group_id, "transport": mode.to_string(), "ms": ms(took),
               "public_key": file_json(pk_out, pk_len), "public_key_hex": group_key,
               "qualified": qualified, "excluded": excluded, "strays": strays,
               "share": file_json(share_file, sealed_len)}),
    )
}

/// Opens this party's sealed share of `group`.
fn load_share(
    dir: &Path,
    group: &GroupFile,
    passphrase: &[u8],
    me: PartyIndex,
) -> Result<KeyShare, Failure> {
    let path = share_path(dir, group);
    let sealed = read_secret(&path, "a sealed key share")?;
    let json = alibi_keyfile::open(SHARE_PURPOSE, &sealed, passphrase)
        .map_err(|e| Failure::Usage(format!("{}: {e}", path.display())))?;
    let text = std::str::from_utf8(&json)
        .map_err(|_| Failure::Usage(format!("{}: not a key share", path.display())))?;
    let share = KeyShare::from_json(text)
        .map_err(|e| Failure::Usage(format!("{}: {e}", path.display())))?;
    let indices = group.indices();
    if share.index != me
        || share.parties.iter().any(|p| !indices.contains(p))
        || share.threshold != group.threshold
    {
        return Err(Failure::Usage(format!(
            "{}: the share belongs to another party or group",
            path.display()
        )));
    }
    Ok(share)
}

/// Who signs: exactly the parties named (`--signers`), or every party key generation did not
/// exclude (any t+1 of whom suffice); this party must be among them, and t+1 of them at least.
fn signers_of(
    group: &GroupFile,
    share: &KeyShare,
    names: Option<Vec<String>>,
    me: PartyIndex,
) -> Result<Vec<PartyIndex>, Failure> {
    let signers: Vec<PartyIndex> = match names {
        Some(names) => names
            .iter()
            .map(|n| {
                group
                    .index_named(n)
                    .ok_or_else(|| Failure::Usage(format!("--signers: no party named {n}")))
            })
            .collect::<Result<_, _>>()?,
        None => share
            .eligible_signers()
            .into_iter()
            .filter(|&p| !group.is_excluded(p))
            .collect(),
    };
    if let Some(&p) = signers.iter().find(|&&p| group.is_excluded(p)) {
        return Err(Failure::Usage(format!(
            "--signers: {} is excluded from the group's runs",
            group.name_of(p)
        )));
    }
    if let Some(twice) = signers
        .iter()
        .enumerate()
        .find(|(i, p)| signers[..*i].contains(p))
    {
        return Err(Failure::Usage(format!(
            "--signers: {} appears twice",
            group.name_of(*twice.1)
        )));
    }
    if !signers.contains(&me) {
        return Err(Failure::Usage(format!(
            "{} is not among the signers",
            group.name_of(me)
        )));
    }
    if signers.len() <= share.threshold {
        return Err(Failure::Usage(format!(
            "{} signer{}; t+1 = {} are needed",
            signers.len(),
            if signers.len() == 1 { "" } else { "s" },
            share.threshold + 1
        )));
    }
    Ok(signers)
}

/// What signing starts with in every scheme, before it connects: the output checked against
/// the inputs, the group (with `--exclude`), the message, the run's name and the passphrase.
#[allow(clippy::type_complexity, clippy::too_many_arguments)]
fn sign_start(
    dir: &Path,
    group_path: &Path,
    msg: &Path,
    session: &str,
    (out, force): (&Path, bool),
    run: &RunArgs,
    pass: &PassphraseArgs,
    format: Format,
) -> Result<(GroupFile, Vec<u8>, Zeroizing<Vec<u8>>), Failure> {
    check_json(format.json, &[("--out", out)])?;
    let identity = dir.join(alibi_messenger::IDENTITY_FILE);
    let inputs = [
        ("--msg", msg),
        ("--group", group_path),
        ("--dir", &identity),
    ];
    check_outputs(&[("--out", out, SIGNATURE)], &inputs, force)?;
    let group = exclude(group_path, read_group(group_path)?, &run.exclude, dir)?;
    let msg = read(msg)?;
    if session.is_empty() {
        return Err(Failure::Usage("--session: give the run a name".into()));
    }
    Ok((group, msg, passphrase(pass)?))
}

/// `alibi mpc sign`: threshold BLS here, the other schemes in [`threshold::sign`].
#[allow(clippy::too_many_arguments)]
fn sign(
    scheme: SchemeArg,
    dir: &Path,
    group_path: &Path,
    msg: &Path,
    session: &str,
    (out, force): (&Path, bool),
    signers: Option<Vec<String>>,
    run: &RunArgs,
    pass: &PassphraseArgs,
    format: Format,
) -> CmdResult {
    let (group, msg, passphrase) = sign_start(
        dir,
        group_path,
        msg,
        session,
        (out, force),
        run,
        pass,
        format,
    )?;
    if let Some(scheme) = scheme.threshold() {
        let signing = threshold::Signing {
            dir,
            group,
            msg: &msg,
            session,
            out: (out, force),
            signers,
            passphrase: &passphrase,
        };
        return threshold::sign(scheme, signing, run, format);
    }
    runtime()?.block_on(async {
        let m = member(dir, group, &passphrase, run.timeout()).await?;
        let me = m.me;
        let share = load_share(dir, &m.group, &passphrase, me)?;
        let exact = signers.is_some();
        let signers = signers_of(&m.group, &share, signers, me)?;
        let (group, mut party) = relay_party(m, run, "signing", format)?;
        let mode = Mode::from(run.transport);
        let timeout = run.timeout();
        let name = session;
        let session = group.sign_session(session);
        claim_session(dir, &session, "signing", Some(name))?;
        let config = if exact {
            SignConfig::new(session, signers.clone(), timeout)
        } else {
            SignConfig::any_t_plus_1(session, signers.clone(), timeout)
        };
        let start = Instant::now();
        let signed = run_sign(&party.party(), &share, &config, &msg, &mut party, &mut os_rng())
            .await
            .map_err(|e| protocol_failure(&group, me, dir, "signing", e))?;
        let strays = strays(&group, &party);
        let took = start.elapsed();
        if bls::verify(&share.group_key, &msg, &signed.signature).is_err() {
            return Err(Failure::Invalid(
                "the combined signature does not verify under the group key".into(),
            ));
        }
        // Every signer writes the same signature: one already there is no clash.
        let sig_out = Output {
            flag: "--out",
            path: out,
            kind: SIGNATURE,
            data: &signed.signature,
        };
        write_unless_same(&[sig_out], force)?;
        let sig_len = signed.signature.len();
        let combined: Vec<String> = signed.combined.iter().map(|&p| group.name_of(p)).collect();
        let blamed = named(&group, &signed.blamed);
        let disagreeing = disagreeing(&group, &signed.disagreeing);
        let mut text = format!(
            "signed by {} over {mode} channels in {:.0} ms; the signature verifies under the group key; wrote {}",
            combined.join(", "),
            ms(took),
            out.display()
        );
        if !blamed.is_empty() {
            text.push_str(&format!("\nnamed: {}", blamed.join(", ")));
        }
        if !disagreeing.is_empty() {
            text.push_str(&format!("\nnot combined: {}", disagreeing.join("; ")));
        }
        if !strays.is_empty() {
            text.push_str(&format!("\n{}", strays_line(&strays)));
        }
        format.report(
            text,
            json!({"scheme": "bls", "signers": combined, "transport": mode.to_string(),
                   "ms": ms(took), "blamed": blamed, "disagreeing": disagreeing,
                   "strays": strays, "signature": file_json(out, sig_len)}),
        )
    })
}

/// `alibi mpc verify`: plain BLS here, the other schemes in [`threshold::verify`].
fn verify(scheme: SchemeArg, pk: &Path, msg: &Path, sig: &Path, format: Format) -> CmdResult {
    if let Some(scheme) = scheme.threshold() {
        return threshold::verify(scheme, pk, msg, sig, format);
    }
    let pkb = read_input(pk, "a 48-byte BLS group key")?;
    let sigb = read_input(sig, "a 96-byte BLS signature")?;
    let msg = read(msg)?;
    if pkb.len() != 48 || !bls::g1_decodes(&pkb) {
        return Err(Failure::Usage(format!(
            "{} is no BLS group key (48-byte compressed G1 point; {} bytes)",
            pk.display(),
            pkb.len()
        )));
    }
    if sigb.len() != 96 || !bls::g2_decodes(&sigb) {
        return Err(Failure::Usage(format!(
            "{} is no BLS signature (96-byte compressed G2 point; {} bytes)",
            sig.display(),
            sigb.len()
        )));
    }
    // The scheme by its command-line name, as every verb names it; the ciphersuite beside it.
    let fields = json!({"scheme": "bls",
                        "ciphersuite": "BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_"});
    if bls::verify(&pkb, &msg, &sigb).is_ok() {
        format.verdict(Ok(None), fields)
    } else {
        format.verdict(Err("invalid signature".into()), fields)
    }
}

/// Measures every cell of the grid (t = n-1), then prints the tables and writes the CSV and
/// the plot (one per scheme after the first, named after it), and with `rounds` each run's
/// time per round.
fn bench(
    grid: &Grid,
    processes: bool,
    more_primes: Option<&Path>,
    (csv, plot, rounds): (&Path, &Path, Option<&Path>),
    format: Format,
) -> CmdResult {
    let mut primes = PrimeBank::fixtures().map_err(usage)?;
    if let Some(path) = more_primes {
        let text = String::from_utf8(read(path)?)
            .map_err(|_| Failure::Usage(format!("{}: not text", path.display())))?;
        primes
            .extend_from_hex(&text)
            .map_err(|e| Failure::Usage(format!("{}: {e}", path.display())))?;
    }
    let bar = crate::report::progress_bar(grid.cells() as u64)?;
    let how = if processes { "processes" } else { "tasks" };
    let mut timed: Vec<RunRounds> = vec![];
    let mut progress = |p| match p {
        Progress::Cell {
            scheme,
            n,
            mode,
            delay,
        } => {
            let what = match scheme {
                Scheme::Bls => String::new(),
                s => format!("{s}, "),
            };
            bar.set_message(format!("{what}n = {n}, {mode}, {delay} ms delay, {how}"))
        }
        Progress::Rounds(r) => timed.push(r),
        Progress::Primes { party, elapsed_s } => bar.set_message(format!(
            "safe primes for party {party} (untimed, ahead of the runs): {elapsed_s} s"
        )),
        Progress::Done => bar.inc(1),
    };
    // Party processes are this binary again, as `alibi mpc bench-party`.
    let exe = std::env::current_exe().map_err(usage)?;
    let launch = |p: &PartyArgs| {
        let mut c = std::process::Command::new(&exe);
        c.args(["mpc", "bench-party", "--relay", p.relay, "--index"])
            .arg(p.index.to_string())
            .args(["--transport", &p.mode.to_string(), "--timeout-s"])
            .arg(p.timeout.as_secs().to_string())
            .args(["--scheme", p.scheme.name()]);
        c
    };
    let parties = if processes {
        Parties::Processes(&launch)
    } else {
        Parties::Tasks
    };
    let cells = runtime()?
        .block_on(alibi_bench::mpc::measure(
            grid,
            parties,
            &mut primes,
            &mut progress,
        ))
        .map_err(usage)?;
    bar.finish_and_clear();
    if primes.generated() > 0 && !format.json {
        say!(
            "threshold ECDSA: {} parties' safe primes generated ahead of the timed runs, the \
             rest from the test fixtures\n",
            primes.generated()
        )?;
    }
    print_tables(&cells, format)?;
    if let Some(path) = rounds {
        print_rounds(&timed, format)?;
        let text = alibi_bench::mpc_rounds::rounds_csv(&timed);
        write("--rounds", path, Kind::Report, text.as_bytes(), false)?;
    }
    let text = alibi_bench::mpc::scheme_csv(&cells);
    write("--csv", csv, Kind::Report, text.as_bytes(), false)?;
    let plots = draw_all(&cells, &grid.delays, plot)?;
    if !format.json {
        let also = rounds.map_or(String::new(), |r| format!(", {}", r.display()));
        say!("\nwrote {}{also} and {}", csv.display(), plots.join(", "))?;
    }
    Ok(())
}

/// The later runs' median time per round ([`alibi_bench::mpc_rounds::summary`]), as a table or
/// as JSON rows (a second JSON line, after the comparison's).
fn print_rounds(timed: &[RunRounds], format: Format) -> CmdResult {
    let summary = alibi_bench::mpc_rounds::summary(timed);
    if format.json {
        let rows: Vec<serde_json::Value> = summary
            .iter()
            .map(|r| {
                let c = &r.cell;
                json!({
                    "scheme": c.scheme.name(), "n": c.n, "delay_ms": c.delay,
                    "transport": c.mode.to_string(), "phase": r.phase.name(),
                    "round": r.round, "median_ms": r.median_ms, "min_ms": r.min_ms,
                    "max_ms": r.max_ms, "runs": r.runs,
                })
            })
            .collect();
        return say(json!({ "rounds": rows }));
    }
    if summary.is_empty() {
        return say("\nno round timed: only BLS runs are timed per round");
    }
    let table = alibi_bench::mpc_rounds::rounds_table(&summary);
    say(format!(
        "\ntime per round, median of the later runs (a round lasts from when the last party sent \
         it to when the last party sent the next; start: until every party had sent its first):\n\n{}",
        table.markdown().trim_end()
    ))
}

/// `--replot`: the tables and the plots again from a CSV `bench` wrote (this or the older
/// BLS-only format), without measuring.
fn replot_csv(from: &Path, plot: &Path, format: Format) -> CmdResult {
    let cells = alibi_bench::mpc::parse_scheme_csv(&read(from)?)
        .map_err(|e| Failure::Usage(format!("{}: {e}", from.display())))?;
    let mut delays: Vec<u64> = cells.iter().map(|c| c.cell.delay).collect();
    delays.sort_unstable();
    delays.dedup();
    print_tables(&cells, format)?;
    draw_all(&cells, &delays, plot).map(|_| ())
}

/// The schemes measured, in the order they came.
fn schemes_of(cells: &[Measured]) -> Vec<Scheme> {
    let mut out: Vec<Scheme> = vec![];
    for c in cells {
        if !out.contains(&c.scheme) {
            out.push(c.scheme);
        }
    }
    out
}

/// Per scheme: the comparison table (a heading names the scheme unless it is BLS alone), then
/// the requests and bytes per run; or the same as JSON rows.
fn print_tables(cells: &[Measured], format: Format) -> CmdResult {
    let schemes = schemes_of(cells);
    let mut json_rows = vec![];
    for (i, &scheme) in schemes.iter().enumerate() {
        let mine: Vec<Measured> = cells
            .iter()
            .filter(|c| c.scheme == scheme)
            .copied()
            .collect();
        let plain: Vec<alibi_bench::mpc::Cell> = mine.iter().map(|m| m.cell).collect();
        let rows = alibi_bench::mpc::comparison(&plain);
        if !format.json {
            if i > 0 {
                say("")?;
            }
            if schemes != [Scheme::Bls] {
                say(format!("## {scheme}\n"))?;
            }
            let table = alibi_bench::mpc::comparison_table(&rows).markdown();
            say(table.trim_end())?;
            let traffic = alibi_bench::mpc::traffic_table(&mine).markdown();
            say(format!(
                "\nrequests and KiB sent per run, all parties:\n\n{}",
                traffic.trim_end()
            ))?;
            continue;
        }
        json_rows.extend(rows.iter().map(|r| comparison_json(scheme, r, &mine)));
    }
    if format.json {
        return say(json!({ "rows": json_rows }));
    }
    Ok(())
}

/// One comparison row as JSON, with the requests and bytes of each transport's run.
fn comparison_json(scheme: Scheme, r: &Comparison, cells: &[Measured]) -> serde_json::Value {
    let msv = |d: Option<Duration>| d.map(ms);
    let (k, s) = (&r.keygen, &r.sign);
    let (kf, sf) = (Comparison::group_faster(k), Comparison::group_faster(s));
    let i = usize::from(r.run == "later");
    let of = |mode: Mode| {
        cells
            .iter()
            .find(|m| m.cell.mode == mode && m.cell.delay == r.delay && m.cell.n == r.n)
    };
    let requests =
        |mode| of(mode).map(|m| if i == 0 { m.cell.first } else { m.cell.later }.requests);
    let bytes = |mode| of(mode).and_then(|m| m.bytes[i]);
    json!({
        "scheme": scheme.name(),
        "n": r.n, "t": r.t, "delay_ms": r.delay, "run": r.run,
        "keygen_pairwise_ms": msv(k[0]), "keygen_concurrent_ms": msv(k[1]),
        "keygen_group_ms": msv(k[2]),
        "keygen_group_vs_pairwise_pct": kf[0],
        "keygen_group_vs_concurrent_pct": kf[1],
        "sign_pairwise_ms": msv(s[0]), "sign_concurrent_ms": msv(s[1]),
        "sign_group_ms": msv(s[2]),
        "sign_group_vs_pairwise_pct": sf[0],
        "sign_group_vs_concurrent_pct": sf[1],
        "requests_pairwise": requests(Mode::Pairwise),
        "requests_concurrent": requests(Mode::PairwiseConcurrent),
        "requests_group": requests(Mode::Group),
        "bytes_pairwise": bytes(Mode::Pairwise),
        "bytes_concurrent": bytes(Mode::PairwiseConcurrent),
        "bytes_group": bytes(Mode::Group),
    })
}

/// Every scheme's plot: the first at `path`, each other beside it named after its scheme.
fn draw_all(cells: &[Measured], delays: &[u64], path: &Path) -> Result<Vec<String>, Failure> {
    let mut written = vec![];
    for (i, scheme) in schemes_of(cells).into_iter().enumerate() {
        let plain: Vec<alibi_bench::mpc::Cell> = cells
            .iter()
            .filter(|c| c.scheme == scheme)
            .map(|c| c.cell)
            .collect();
        let at = if i == 0 {
            path.to_path_buf()
        } else {
            let stem = path
                .file_stem()
                .map_or("mpc-bench".into(), |s| s.to_string_lossy());
            let ext = path
                .extension()
                .map_or("svg".into(), |e| e.to_string_lossy());
            path.with_file_name(format!("{stem}-{scheme}.{ext}"))
        };
        draw(&plain, delays, &at)?;
        written.push(at.display().to_string());
    }
    Ok(written)
}

/// The plot, atomically (data: an existing file is replaced, as `--replot` redraws the old one).
fn draw(cells: &[alibi_bench::mpc::Cell], delays: &[u64], path: &Path) -> CmdResult {
    let svg = alibi_bench::mpc::svg(cells, delays)
        .map_err(|e| Failure::Usage(format!("{}: {e}", path.display())))?;
    write("--plot", path, Kind::Report, svg.as_bytes(), false)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 66, item 5: a party searching for its primes is named with what it said.
    #[test]
    fn a_waiting_line_shows_what_the_late_party_said() {
        let names: BTreeMap<PartyIndex, String> = [
            (1, "alice".to_string()),
            (2, "bob".into()),
            (3, "carol".into()),
        ]
        .into();
        let w = Waiting {
            session: [0; 16],
            round: 0,
            waiting_for: vec![1],
            heard: vec![3],
            elapsed: Duration::from_secs(10),
            timeout: Duration::from_secs(300),
            notes: vec![(1, "searching for its safe primes".into())],
        };
        assert_eq!(
            waiting_line(&names, ECDSA_KEYGEN, &w, false),
            format!(
                "alibi: {ECDSA_KEYGEN}: round 0: waiting for alice (heard from carol; alice: \
                 searching for its safe primes); 10 s of 300 s"
            )
        );
        let v: serde_json::Value =
            serde_json::from_str(&waiting_line(&names, ECDSA_KEYGEN, &w, true)).unwrap();
        assert_eq!(v["notes"]["alice"], "searching for its safe primes");
        let quiet = Waiting { notes: vec![], ..w };
        let line = waiting_line(&names, ECDSA_KEYGEN, &quiet, false);
        assert!(
            line.contains("(heard from carol) (not started yet"),
            "{line}"
        );
    }
}
