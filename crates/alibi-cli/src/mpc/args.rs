//! The arguments of `alibi mpc`: one struct per verb, and the groups of flags the verbs
//! share (the passphrase, how a run talks, the scheme).

use std::path::PathBuf;
use std::time::Duration;

use alibi_messenger::ContactCard;
#[cfg(adversary)]
use alibi_mpc::dkg::Misbehaviour;
use alibi_mpc::group::GroupFile;
use alibi_mpc::relay::Mode;
use alibi_mpc::scheme::{DerivationPath, Scheme};
use alibi_mpc::PartyIndex;
use clap::ValueEnum;

use crate::failure::Failure;
use crate::report::Format;

/// The arguments of `alibi mpc init`.
#[derive(clap::Args, Debug)]
pub struct InitArgs {
    /// The party's directory (created, mode 0700)
    #[arg(long, value_name = "DIR")]
    pub dir: PathBuf,
    /// The relay, e.g. http://127.0.0.1:8080, or several nodes on one store, comma-separated
    /// (the party moves to the next when one cannot be reached)
    #[arg(long, value_name = "URL[,URL...]")]
    pub relay: String,
    /// Allow a plain http:// relay that is not on loopback (the device password then crosses
    /// the network in clear; kept in the sealed identity)
    #[arg(long)]
    pub insecure_http: bool,
    /// PEM CA certificates to trust for an https relay instead of the public roots (kept in
    /// the sealed identity)
    #[arg(long, value_name = "FILE")]
    pub relay_ca: Option<PathBuf>,
    /// The party's name in cards, group files and reports
    #[arg(long, value_name = "NAME")]
    pub name: String,
    /// The relay's trust root as `alibi relay serve` printed it (base64); without it the root
    /// the relay announces now is pinned (trust on first use)
    #[arg(long, value_name = "BASE64")]
    pub trust_root: Option<String>,
    #[command(flatten)]
    pub passphrase: PassphraseArgs,
    #[command(flatten)]
    pub format: Format,
}

/// The arguments of `alibi mpc group`.
#[derive(clap::Args, Debug)]
pub struct GroupArgs {
    /// t: any t+1 parties can sign, t cannot
    #[arg(long, value_name = "T")]
    pub threshold: usize,
    /// The parties' card.json files, in index order
    #[arg(long, value_name = "CARD,...", value_delimiter = ',', required = true,
          value_parser = crate::files::TrimmedPath)]
    pub cards: Vec<PathBuf>,
    /// Where to write the group file
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// The handshake of the pairwise sessions between the parties, recorded in the group
    /// file so that every party uses the same: pqxdh (libsignal's, with SPQR) or ringxkem
    /// (fully post-quantum and deniable, SPQR required)
    #[arg(long, value_enum, default_value_t = HandshakeArg::Pqxdh)]
    pub handshake: HandshakeArg,
    /// Replace the group file if it exists
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub format: Format,
}

/// The arguments of `alibi mpc keygen`.
#[derive(clap::Args, Debug)]
pub struct KeygenArgs {
    /// The party's directory (from `mpc init`)
    #[arg(long, value_name = "DIR")]
    pub dir: PathBuf,
    /// The group file (from `mpc group`)
    #[arg(long, value_name = "FILE")]
    pub group: PathBuf,
    /// Where to write the group public key: 48 bytes (compressed G1) for bls, 32 for
    /// frost-ed25519 (Ed25519) and frost-secp256k1-tr (x-only BIP-340), 33 for
    /// ecdsa-secp256k1 (compressed SEC1)
    #[arg(long, value_name = "FILE")]
    pub pk_out: PathBuf,
    /// The threshold scheme
    #[arg(long, value_enum, default_value_t = SchemeArg::Bls)]
    pub scheme: SchemeArg,
    /// A name for this key generation, the same for every party; a run after a failed or
    /// replaced one needs a new name, or messages of the old run the relay still holds would
    /// count as this run's [default: the group's first key generation]
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// Test builds only: cheat as SPEC says (bad-share:J, offset-share:J:D,
    /// offset-share-then-silent:J:D, withhold-share:J, withhold-broadcast:J,
    /// equivocate-commit, wrong-share-proof, stop; FROST and ECDSA: misdeal:J), so that
    /// tests can run cheaters as processes
    #[cfg(adversary)]
    #[arg(long, value_name = "SPEC", hide = true)]
    pub misbehave: Option<Misbehaviour>,
    #[command(flatten)]
    pub run: RunArgs,
    /// Replace this party's share of this group if it has one
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub passphrase: PassphraseArgs,
    #[command(flatten)]
    pub format: Format,
}

/// The arguments of `alibi mpc sign`.
#[derive(clap::Args, Debug)]
pub struct SignArgs {
    /// The party's directory
    #[arg(long, value_name = "DIR")]
    pub dir: PathBuf,
    /// The group file
    #[arg(long, value_name = "FILE")]
    pub group: PathBuf,
    /// The message
    #[arg(long, value_name = "FILE")]
    pub msg: PathBuf,
    /// A name for this signing run, the same for every signer (new for every message)
    #[arg(long, value_name = "ID")]
    pub session: String,
    /// Where to write the signature (- for stdout): 96 bytes for bls, 64 for the others
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// The threshold scheme (the one key generation ran)
    #[arg(long, value_enum, default_value_t = SchemeArg::Bls)]
    pub scheme: SchemeArg,
    /// Replace a file that already exists at --out (never one that holds a secret key, a
    /// keyfile, a store or a manager's or party's state, nor an input)
    #[arg(long)]
    pub force: bool,
    /// Sign in one round with this party's next stored presignature (`mpc presign`;
    /// ecdsa-secp256k1 only): the signers are the presignature's, each of them runs this with
    /// the same --session, and the presignature is counted used in the share before anything
    /// is sent (never used twice, even if the run fails)
    #[arg(long)]
    pub presigned: bool,
    /// Sign under the key's child at this non-hardened path, as `mpc derive` gives it (m/0/7;
    /// frost-* and ecdsa-secp256k1 keys): BIP-32 for the secp256k1 schemes, the non-standard
    /// Edwards derivation for frost-ed25519. The signature verifies under the child key, not
    /// the group key. Never with --presigned: a presignature is made for the group key
    #[arg(long, value_name = "PATH", conflicts_with = "presigned",
          value_parser = parse_path)]
    pub path: Option<DerivationPath>,
    /// Exactly who must sign, by name (each of them must run this; the others are not
    /// waited for) [default for bls: any t+1 of the parties key generation did not exclude,
    /// the first to answer; those not heard from are not named. The other schemes sign
    /// with exactly t+1 parties: name them, unless key generation had only t+1]
    #[arg(long, value_name = "NAME,...", value_delimiter = ',',
          value_parser = crate::files::trimmed)]
    pub signers: Option<Vec<String>>,
    #[command(flatten)]
    pub run: RunArgs,
    #[command(flatten)]
    pub passphrase: PassphraseArgs,
    #[command(flatten)]
    pub format: Format,
}

/// The arguments of `alibi mpc presign`.
#[derive(clap::Args, Debug)]
pub struct PresignArgs {
    /// The party's directory
    #[arg(long, value_name = "DIR")]
    pub dir: PathBuf,
    /// The group file
    #[arg(long, value_name = "FILE")]
    pub group: PathBuf,
    /// A name for this presigning run, the same for every signer (new for every run)
    #[arg(long, value_name = "ID")]
    pub session: String,
    /// How many presignatures to make (each signs one message later)
    #[arg(long, value_name = "K", default_value_t = 1,
          value_parser = clap::value_parser!(u16).range(1..=1000))]
    pub count: u16,
    /// The threshold scheme: presignatures are for ecdsa-secp256k1 only
    #[arg(long, value_enum, default_value_t = SchemeArg::EcdsaSecp256k1)]
    pub scheme: SchemeArg,
    /// Exactly who will sign with them, by name: t+1 parties, each of whom runs this (and
    /// later `sign --presigned`) [default: every party, when key generation had only t+1]
    #[arg(long, value_name = "NAME,...", value_delimiter = ',',
          value_parser = crate::files::trimmed)]
    pub signers: Option<Vec<String>>,
    #[command(flatten)]
    pub run: RunArgs,
    #[command(flatten)]
    pub passphrase: PassphraseArgs,
    #[command(flatten)]
    pub format: Format,
}

/// The arguments of `alibi mpc keys`.
#[derive(clap::Args, Debug)]
pub struct KeysArgs {
    /// The party's directory
    #[arg(long, value_name = "DIR")]
    pub dir: PathBuf,
    /// The group file of the key
    #[arg(long, value_name = "FILE")]
    pub group: PathBuf,
    /// Where to write the key's public material. bls: the key set (JSON): the threshold, the
    /// group key and every party's verification key, for `mpc reshare --keys` by parties new
    /// to the key. The others: the extended public key (Base58Check `xpub` text; the key and
    /// its chain code), what `mpc derive` derives child keys from
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// The threshold scheme of the key
    #[arg(long, value_enum, default_value_t = SchemeArg::Bls)]
    pub scheme: SchemeArg,
    /// Replace --out if it exists
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub passphrase: PassphraseArgs,
    #[command(flatten)]
    pub format: Format,
}

/// The arguments of `alibi mpc refresh`.
#[derive(clap::Args, Debug)]
pub struct RefreshArgs {
    /// The party's directory
    #[arg(long, value_name = "DIR")]
    pub dir: PathBuf,
    /// The group file of the key
    #[arg(long, value_name = "FILE")]
    pub group: PathBuf,
    /// A name for this refresh, the same for every party (new for every run)
    #[arg(long, value_name = "ID")]
    pub session: String,
    /// The threshold scheme: bls, frost-ed25519 or frost-secp256k1-tr (ecdsa-secp256k1 keys
    /// are refused: cggmp21 refreshes non-threshold shares only)
    #[arg(long, value_enum, default_value_t = SchemeArg::Bls)]
    pub scheme: SchemeArg,
    #[command(flatten)]
    pub run: RunArgs,
    #[command(flatten)]
    pub passphrase: PassphraseArgs,
    #[command(flatten)]
    pub format: Format,
}

/// The arguments of `alibi mpc reshare`.
#[derive(clap::Args, Debug)]
pub struct ReshareArgs {
    /// The party's directory
    #[arg(long, value_name = "DIR")]
    pub dir: PathBuf,
    /// The old group's file (whose key is moved)
    #[arg(long, value_name = "FILE")]
    pub from: PathBuf,
    /// The new group's file (from `mpc group`: other parties, another n or t)
    #[arg(long, value_name = "FILE")]
    pub to: PathBuf,
    /// The old key's key set (from `mpc keys` by a holder): needed by a party that holds no
    /// share of the old key, checked against the share by one that does
    #[arg(long, value_name = "FILE")]
    pub keys: Option<PathBuf>,
    /// A name for this resharing, the same for every party (new for every run)
    #[arg(long, value_name = "ID")]
    pub session: String,
    /// The threshold scheme: resharing is for bls
    #[arg(long, value_enum, default_value_t = SchemeArg::Bls)]
    pub scheme: SchemeArg,
    #[command(flatten)]
    pub run: RunArgs,
    /// Replace this party's share of the new group if it has one
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub passphrase: PassphraseArgs,
    #[command(flatten)]
    pub format: Format,
}

/// The arguments of `alibi mpc verify`.
#[derive(clap::Args, Debug)]
pub struct VerifyArgs {
    /// The group public key (as `keygen --pk-out` wrote it)
    #[arg(long, value_name = "FILE")]
    pub pk: PathBuf,
    /// The message
    #[arg(long, value_name = "FILE")]
    pub msg: PathBuf,
    /// The signature (96 bytes for bls, 64 for the others)
    #[arg(long, value_name = "FILE")]
    pub sig: PathBuf,
    /// The threshold scheme
    #[arg(long, value_enum, default_value_t = SchemeArg::Bls)]
    pub scheme: SchemeArg,
    #[command(flatten)]
    pub format: Format,
}

/// The arguments of `alibi mpc derive`.
#[derive(clap::Args, Debug)]
pub struct DeriveArgs {
    /// The key's extended public key (`mpc keys --scheme ... --out` wrote it)
    #[arg(long, value_name = "FILE")]
    pub xpub: PathBuf,
    /// The child's non-hardened path below the key, as m/0/7
    #[arg(long, value_name = "PATH", value_parser = parse_path)]
    pub path: DerivationPath,
    /// The threshold scheme of the key (it says how the child key is written: the secp256k1
    /// schemes share BIP-32, but frost-secp256k1-tr signs under the child's taproot output key)
    #[arg(long, value_enum)]
    pub scheme: SchemeArg,
    /// Also write the child public key here, as `mpc verify --pk` reads it
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Replace --out if it exists
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub format: Format,
}

/// `--path`: a non-hardened derivation path.
fn parse_path(s: &str) -> Result<DerivationPath, String> {
    s.parse::<DerivationPath>().map_err(|e| e.to_string())
}

/// The arguments of `alibi mpc aux`.
#[derive(clap::Args, Debug)]
pub struct AuxArgs {
    /// The party's directory (from `mpc init`)
    #[arg(long, value_name = "DIR")]
    pub dir: PathBuf,
    /// Seal these primes instead of generating them: a file of four safe primes in
    /// alibi-threshold-ecdsa's encoding (`Primes::to_bytes`), made ahead elsewhere. The
    /// file is secret and must serve one key generation only
    #[arg(long, value_name = "FILE")]
    pub from: Option<PathBuf>,
    /// Replace primes already waiting in DIR
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub passphrase: PassphraseArgs,
    #[command(flatten)]
    pub format: Format,
}

/// The arguments of `alibi mpc bench`.
#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// The protocols: bls (alibi's), frost-ed25519, frost-secp256k1-tr, ecdsa-secp256k1 (the
    /// established crates', through the round-based adapter; ECDSA's safe primes are made
    /// before timing: the five test fixtures, generated ahead for larger n)
    #[arg(
        long,
        value_name = "SCHEME,...",
        value_delimiter = ',',
        default_value = "bls",
        value_enum
    )]
    pub scheme: Vec<SchemeArg>,
    /// Party counts
    #[arg(long, value_name = "N,...", value_delimiter = ',', default_value = "3,4,5,8,16,32,64",
          value_parser = clap::value_parser!(u16).range(2..=256))]
    pub parties: Vec<u16>,
    /// Relay delays per request, in milliseconds
    #[arg(
        long,
        value_name = "MS,...",
        value_delimiter = ',',
        default_value = "0,50"
    )]
    pub delays: Vec<u64>,
    /// The transports to measure
    #[arg(
        long,
        value_name = "T,...",
        value_delimiter = ',',
        value_enum,
        default_value = "pairwise,pairwise-concurrent,group"
    )]
    pub transports: Vec<Transport>,
    /// Runs (with --life: lives) after the first, of which the median is reported
    #[arg(long, value_name = "K", default_value_t = 2, value_parser = clap::value_parser!(u16).range(1..))]
    pub later: u16,
    /// Every party its own OS process (as the paper ran them), instead of a task in this one;
    /// also prints each run's CPU seconds, all parties' and the relay's
    #[arg(long)]
    pub processes: bool,
    /// Every party a task of this process over an in-memory transport: broadcasts signed and
    /// checked and the agreement round run as over the relay, but no relay, no encryption
    /// (--delays and --transports do not apply). Prints each cell's CPU and wall-clock seconds,
    /// to set beside the same cell with --processes: the difference is what the channels cost.
    /// Writes no CSV or plot
    #[arg(long, conflicts_with_all = ["processes", "presigned", "rounds", "life", "replot", "delays", "transports"])]
    pub in_memory: bool,
    /// ecdsa-secp256k1 only, with --processes: after key generation the signers presign (timed
    /// apart, printed below the tables), and the signing columns are the online signing with the
    /// presignature, one round. The key is generated in the first run only; the later runs
    /// presign and sign with it, and their key generation reads 0
    #[arg(long, requires = "processes")]
    pub presigned: bool,
    /// Also time each round (BLS, with --processes): write every run's time per round to
    /// this CSV and print the later runs' median per round. A round lasts from when the last
    /// party sent it to when the last party sent the next; `start` is the time until every
    /// party had sent its first
    #[arg(long, value_name = "CSV", requires = "processes")]
    pub rounds: Option<PathBuf>,
    /// Where to write the measurements
    #[arg(long, value_name = "FILE", default_value = "mpc-bench.csv")]
    pub csv: PathBuf,
    /// Where to write the plot
    #[arg(long, value_name = "FILE", default_value = "mpc-bench.svg")]
    pub plot: PathBuf,
    /// Give up on one run after this many seconds
    #[arg(long, value_name = "S", default_value_t = 300)]
    pub timeout_s: u64,
    /// Threshold ECDSA's safe primes for parties after the five fixtures, one party's four
    /// in hex per line (as alibi-threshold-ecdsa's pregenerate_primes example prints them);
    /// those still missing are searched for before timing
    #[arg(long, value_name = "FILE")]
    pub primes: Option<PathBuf>,
    /// Do not measure: print the table and redraw the plot from a CSV this command wrote
    #[arg(long, value_name = "CSV", conflicts_with_all = ["scheme", "parties", "delays", "later", "csv", "timeout_s", "processes", "primes", "rounds"])]
    pub replot: Option<PathBuf>,
    /// Instead of the paper's grid, time every step of a key's life (generate, sign; presign
    /// and sign with it for ecdsa-secp256k1; derive m/0/7 and sign under it for FROST and
    /// ECDSA; refresh for bls and FROST; reshare to n + 1 parties for bls) for each scheme,
    /// party count and delay, t = n-1, the parties tasks of this process on group channels;
    /// prints each step's time, requests and bytes (first life, and the median of --later more)
    /// and writes no CSV or plot
    #[arg(long, conflicts_with_all = ["transports", "processes", "presigned", "rounds", "replot", "csv", "plot"])]
    pub life: bool,
    #[command(flatten)]
    pub format: Format,
}

/// The arguments of `alibi mpc bench-party`.
#[derive(clap::Args, Debug)]
pub struct BenchPartyArgs {
    /// The relay
    #[arg(long)]
    pub relay: String,
    /// This party's index
    #[arg(long)]
    pub index: PartyIndex,
    /// The transport
    #[arg(long, value_enum)]
    pub transport: Transport,
    /// Round timeout
    #[arg(long)]
    pub timeout_s: u64,
    /// The protocol
    #[arg(long, value_enum, default_value_t = SchemeArg::Bls)]
    pub scheme: SchemeArg,
}

/// Where the passphrase comes from.
#[derive(clap::Args, Debug)]
pub struct PassphraseArgs {
    /// Read the passphrase from this file, `-` for stdin (one trailing newline dropped) [default: the ALIBI_PASSPHRASE variable]
    #[arg(long, value_name = "FILE")]
    pub passphrase_file: Option<PathBuf>,
}

/// How a protocol run talks.
#[derive(clap::Args, Clone, Debug)]
pub struct RunArgs {
    /// The channels a broadcast goes over
    #[arg(long, value_enum, default_value_t = Transport::Group)]
    pub transport: Transport,
    /// Give up on a round after this many seconds (the first round also waits for the other
    /// parties to start) [default: 120; 300 for an ecdsa-secp256k1 key generation, whose parties
    /// without `mpc aux` primes search for them first]
    #[arg(long, value_name = "S", value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub timeout_s: Option<u64>,
    /// The handshake of the pairwise sessions, which must be the one the group file records
    /// (`mpc group --handshake`) [default: the group file's]
    #[arg(long, value_enum)]
    pub handshake: Option<HandshakeArg>,
    /// Leave these parties out of this run and the group's later ones (every party must exclude
    /// the same): for a party an earlier run named, such as one that stopped it. Recorded in
    /// the group file with the reason this party's directory noted for it
    #[arg(long, value_name = "NAME,...", value_delimiter = ',',
          value_parser = crate::files::trimmed)]
    pub exclude: Vec<String>,
}

/// A round's wait unless `--timeout-s` says otherwise.
const ROUND_TIMEOUT_S: u64 = 120;

impl RunArgs {
    /// How long a round waits: `--timeout-s`, or [`ROUND_TIMEOUT_S`].
    pub fn timeout(&self) -> Duration {
        Duration::from_secs(self.timeout_s.unwrap_or(ROUND_TIMEOUT_S))
    }

    /// These arguments with `default_s` as the round's wait when `--timeout-s` is not given.
    pub fn waiting_by_default(&self, default_s: u64) -> RunArgs {
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
pub fn handshake_name(h: alibi_messenger::Handshake) -> &'static str {
    match h {
        alibi_messenger::Handshake::Pqxdh => "pqxdh",
        alibi_messenger::Handshake::Ringxkem => "ringxkem",
    }
}

impl RunArgs {
    /// The group's members, their sessions on the handshake the group file records: a party
    /// on another would be heard by nobody, so `--handshake` must agree with it.
    pub fn members(&self, group: &GroupFile) -> Result<Vec<(PartyIndex, ContactCard)>, Failure> {
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

impl From<SchemeArg> for Scheme {
    fn from(s: SchemeArg) -> Scheme {
        match s {
            SchemeArg::Bls => Scheme::Bls,
            SchemeArg::FrostEd25519 => Scheme::FrostEd25519,
            SchemeArg::FrostSecp256k1Tr => Scheme::FrostSecp256k1Tr,
            SchemeArg::EcdsaSecp256k1 => Scheme::EcdsaSecp256k1,
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
