//! `alibi akem keygen|encap|decap`: DH-AKEM (RFC 9180 DHKEM(X25519, HKDF-SHA256)), PQ-AKEM and
//! SHADOWFAX at every suite the library has (ML-KEM with GANDALF[Falcon], BAT-257 with
//! GANDALF[Antrag, Mitaka]; `pq-bat` and `shadowfax-bat` name the latter), keys and ciphertexts in
//! the layouts of the SHADOWFAX authors' code, and an optional key-confirmation tag
//! ([`alibi_akem::confirm`]). Which suite a key file is, and what a wrong one holds, comes from
//! its length ([`alibi_akem::detect`]).

use std::path::{Path, PathBuf};

use alibi_akem::any::{self, PublicKey, SecretKey};
use alibi_akem::detect::{Akem, Half, KeyError, Scheme};
use alibi_akem::pq::Suite;
use alibi_akem::{confirm, Error};
use clap::{Subcommand, ValueEnum};
use serde_json::json;

use crate::failure::{malformed, CmdResult, Failure};
use crate::files::{
    check_json, check_outputs, is_std, place_outputs, read_input, read_secret, Kind, Output, Own,
};
use crate::keys::KeyPairOut;
use crate::report::{file_json, say, Format};
use crate::rng::os_rng;

/// `alibi akem <verb>`.
#[derive(Subcommand, Debug)]
pub enum Cmd {
    /// Generate a key pair
    Keygen(KeygenArgs),
    /// Encapsulate a fresh shared key from a sender to a receiver
    Encap(EncapArgs),
    /// Decapsulate a ciphertext from a sender: exit 1 if it does not authenticate.
    ///
    /// pq and shadowfax authenticate explicitly: a tampered ciphertext or a wrong sender key is
    /// rejected (exit 1). dh (DH-AKEM, RFC 9180) authenticates implicitly: with a wrong sender key
    /// or a tampered ciphertext it still succeeds, with a different key, which only a later use of
    /// the key exposes. Pass --confirm with the tag `encap --confirm` wrote to have the key checked
    /// now (exit 1 on a mismatch, no key written).
    Decap(DecapArgs),
}

/// The arguments of `alibi akem keygen`.
#[derive(clap::Args, Debug)]
pub struct KeygenArgs {
    /// The AKEM
    #[arg(long, value_enum)]
    pub scheme: SchemeArg,
    /// The suite of pq and shadowfax [default: mlkem512-falcon512; bat257-mitaka512 for
    /// pq-bat and shadowfax-bat]
    #[arg(long, value_enum)]
    pub suite: Option<SuiteArg>,
    #[command(flatten)]
    pub out: KeyPairOut,
    #[command(flatten)]
    pub format: Format,
}

/// The arguments of `alibi akem encap`.
#[derive(clap::Args, Debug)]
pub struct EncapArgs {
    #[command(flatten)]
    pub alg: SchemeArgs,
    /// The sender's secret key
    #[arg(long, value_name = "FILE")]
    pub sender_sk: PathBuf,
    /// The receiver's public key
    #[arg(long, value_name = "FILE")]
    pub receiver_pk: PathBuf,
    /// Where to write the ciphertext (- for stdout)
    #[arg(long, value_name = "FILE")]
    pub ct: PathBuf,
    /// Where to write the 32-byte shared key (created with mode 0600; never stdout)
    #[arg(long, value_name = "FILE")]
    pub key: PathBuf,
    /// Also write a 32-byte key-confirmation tag here, for `decap --confirm`
    #[arg(long, value_name = "FILE")]
    pub confirm: Option<PathBuf>,
    /// Replace output files that already exist: a shared key only over an earlier shared key,
    /// the others only over a file that holds no secret (never a secret key, a keyfile, a
    /// store or a manager's or party's state, nor an input)
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub format: Format,
}

/// The arguments of `alibi akem decap`.
#[derive(clap::Args, Debug)]
pub struct DecapArgs {
    #[command(flatten)]
    pub alg: SchemeArgs,
    /// The receiver's secret key
    #[arg(long, value_name = "FILE")]
    pub receiver_sk: PathBuf,
    /// The sender's public key
    #[arg(long, value_name = "FILE")]
    pub sender_pk: PathBuf,
    /// The ciphertext (- for stdin)
    #[arg(long, value_name = "FILE")]
    pub ct: PathBuf,
    /// Where to write the 32-byte shared key (created with mode 0600; never stdout)
    #[arg(long, value_name = "FILE")]
    pub key: PathBuf,
    /// A key-confirmation tag from `encap --confirm`: the key must match it
    #[arg(long, value_name = "FILE")]
    pub confirm: Option<PathBuf>,
    /// Replace a shared-key file that already exists (only an earlier shared key: never a
    /// secret key, a keyfile, a store or a manager's or party's state, nor an input)
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub format: Format,
}

/// `--scheme S [--suite SUITE]` of `encap` and `decap`.
#[derive(clap::Args, Debug)]
pub struct SchemeArgs {
    /// The AKEM
    #[arg(long, value_enum)]
    scheme: SchemeArg,
    /// The suite of pq and shadowfax; by default the one the key lengths name
    #[arg(long, value_enum)]
    suite: Option<SuiteArg>,
}

/// The AKEMs, as `--scheme` names them.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum SchemeArg {
    /// DH-AKEM: RFC 9180 DHKEM(X25519, HKDF-SHA256) AuthEncap/AuthDecap (implicit authentication)
    Dh,
    /// PQ-AKEM[KEM, GANDALF] (ML-KEM with GANDALF[Falcon] unless --suite or the keys say otherwise)
    Pq,
    /// SHADOWFAX[X25519, KEM, GANDALF], the hybrid deniable AKEM
    Shadowfax,
    /// PQ-AKEM[BAT-257, GANDALF[Antrag, Mitaka]]: pq with --suite bat257-mitaka512
    PqBat,
    /// SHADOWFAX[X25519, BAT-257, GANDALF[Antrag, Mitaka]]: shadowfax with --suite bat257-mitaka512
    ShadowfaxBat,
}

impl SchemeArg {
    /// The AKEM and the suite it fixes: the BAT names are pq and shadowfax at the BAT suite, and
    /// a different --suite beside them is refused.
    fn resolve(self, suite: Option<SuiteArg>) -> Result<(Scheme, Option<SuiteArg>), Failure> {
        let (scheme, fixed) = match self {
            SchemeArg::Dh => (Scheme::Dh, None),
            SchemeArg::Pq => (Scheme::Pq, None),
            SchemeArg::Shadowfax => (Scheme::Shadowfax, None),
            SchemeArg::PqBat => (Scheme::Pq, Some(SuiteArg::Bat257Mitaka512)),
            SchemeArg::ShadowfaxBat => (Scheme::Shadowfax, Some(SuiteArg::Bat257Mitaka512)),
        };
        match (fixed, suite) {
            (Some(f), Some(s)) if f != s => Err(Failure::Usage(format!(
                "--scheme {}-bat uses the suite bat257-mitaka512, not {}",
                scheme.name(),
                Suite::from(s).name()
            ))),
            (Some(f), _) => Ok((scheme, Some(f))),
            (None, s) => Ok((scheme, s)),
        }
    }
}

/// The suites of PQ-AKEM and SHADOWFAX.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum SuiteArg {
    /// ML-KEM-512 with GANDALF[Falcon-512], the authors' instantiation (NIST level 1)
    #[value(name = "mlkem512-falcon512")]
    MlKem512Falcon512,
    /// ML-KEM-768 with GANDALF[Falcon-1024]
    #[value(name = "mlkem768-falcon1024")]
    MlKem768Falcon1024,
    /// BAT-257 with GANDALF[Antrag, Mitaka], the authors' other instantiation
    #[value(name = "bat257-mitaka512")]
    Bat257Mitaka512,
}

impl From<SuiteArg> for Suite {
    fn from(s: SuiteArg) -> Suite {
        match s {
            SuiteArg::MlKem512Falcon512 => Suite::MlKem512Falcon512,
            SuiteArg::MlKem768Falcon1024 => Suite::MlKem768Falcon1024,
            SuiteArg::Bat257Mitaka512 => Suite::Bat257Mitaka512,
        }
    }
}

/// The configuration: `--suite` (refused for dh), else the one the secret key's length names.
fn configuration(
    scheme: Scheme,
    arg: Option<SuiteArg>,
    sk_path: &Path,
    sk: &[u8],
) -> Result<Akem, Failure> {
    match (scheme, arg) {
        (Scheme::Dh, Some(_)) => Err(Failure::Usage(
            "--suite applies to pq and shadowfax, not dh".into(),
        )),
        (_, Some(a)) => Ok(scheme.at(a.into())),
        (_, None) => scheme
            .detect(Half::Secret, sk.len())
            .map_err(|e| wrong_key(sk_path, e)),
    }
}

/// Checks the key files' lengths before decoding, so that a wrong file is named (the other half
/// of a key pair, a key of the other suite) rather than reported as a decoding error.
fn check_keys(akem: Akem, sk_path: &Path, sk: &[u8], pk_path: &Path, pk: &[u8]) -> CmdResult {
    akem.check_key_len(Half::Secret, sk.len())
        .map_err(|e| wrong_key(sk_path, e))?;
    akem.check_key_len(Half::Public, pk.len())
        .map_err(|e| wrong_key(pk_path, e))
}

/// DH-AKEM's keys are 32 bytes on both halves, so the file tells which half it is, as ssh does
/// for its keys: a secret key must be private to its owner (secret keys are written 0600), and a
/// file private to its owner is not taken as a public key. The rule reads the file's mode, never
/// the key's bytes (a genuine secret was refused at random before: one key in sixteen is also a
/// prime-order point). Stdin (`-`) has no mode and is taken as given.
fn dh_halves(akem: Akem, sk_path: &Path, pk_path: &Path) -> CmdResult {
    if akem != Akem::Dh {
        return Ok(());
    }
    if !is_std(sk_path) && readable_by_others(sk_path) {
        return Err(Failure::Usage(format!(
            "{p}: a DH-AKEM secret key in a file others can read; keep it private (chmod 600 {p}), \
             as secret keys are written: a public key's file could not be told from it",
            p = sk_path.display()
        )));
    }
    if !is_std(pk_path) && !readable_by_others(pk_path) {
        return Err(Failure::Usage(format!(
            "{p} is private to its owner, as secret keys are written: give the public key's file \
             (readable by others) here",
            p = pk_path.display()
        )));
    }
    Ok(())
}

/// Whether users other than the owner may read the file.
fn readable_by_others(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(path).is_ok_and(|m| m.permissions().mode() & 0o044 != 0)
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        false
    }
}

/// Refuses one key pair as both sender and receiver of PQ-AKEM or SHADOWFAX: their ring of the
/// two parties would hold one key twice. (DH-AKEM is defined for it and keeps it.)
fn two_parties(
    akem: Akem,
    (sk, sk_path): (&SecretKey, &Path),
    (pk, pk_path): (&PublicKey, &Path),
) -> CmdResult {
    if akem != Akem::Dh && sk.public_key().to_bytes() == pk.to_bytes() {
        return Err(Failure::Usage(format!(
            "sender and receiver are the same key: {} is the public key of {}; an AKEM runs between two key pairs",
            pk_path.display(),
            sk_path.display()
        )));
    }
    Ok(())
}

/// A key file of the wrong length, named by what it holds.
fn wrong_key(path: &Path, e: KeyError) -> Failure {
    let p = path.display();
    Failure::Usage(match e {
        KeyError::OtherSuite {
            half,
            found,
            expected,
        } => format!(
            "{p} is a {found} {half} key, but the other key is {expected}: both must use one suite"
        ),
        KeyError::OtherHalf {
            scheme,
            found,
            suite,
            expected,
        } => format!("{p} holds a {scheme} {found} key ({suite}), not a {expected} key"),
        KeyError::Length { scheme, half, len } => format!(
            "{p} ({len} bytes) is no {scheme} {half} key ({} bytes)",
            scheme.key_lens_text(half)
        ),
    })
}

/// Runs `alibi akem <verb>`.
pub fn run(cmd: Cmd) -> CmdResult {
    match cmd {
        Cmd::Keygen(a) => keygen(a),
        Cmd::Encap(a) => encap(a),
        Cmd::Decap(a) => decap(a),
    }
}

/// `alibi akem keygen`.
fn keygen(
    KeygenArgs {
        scheme,
        suite,
        out,
        format,
    }: KeygenArgs,
) -> CmdResult {
    let (scheme, suite) = scheme.resolve(suite)?;
    if scheme == Scheme::Dh && suite.is_some() {
        return Err(Failure::Usage(
            "--suite applies to pq and shadowfax, not dh".into(),
        ));
    }
    out.check()?;
    let akem = scheme.at(suite.unwrap_or(SuiteArg::MlKem512Falcon512).into());
    let k = SecretKey::generate(akem, &mut os_rng());
    out.write_suite(
        scheme.name(),
        akem.suite().map(Suite::name),
        &k.public_key().to_bytes(),
        &k.to_bytes(),
        format,
    )
}

/// `alibi akem decap`.
fn decap(
    DecapArgs {
        alg: SchemeArgs { scheme, suite },
        receiver_sk,
        sender_pk,
        ct,
        key,
        confirm: tag_path,
        force,
        format,
    }: DecapArgs,
) -> CmdResult {
    let mut inputs = vec![
        ("--receiver-sk", receiver_sk.as_path()),
        ("--sender-pk", &sender_pk),
        ("--ct", &ct),
    ];
    inputs.extend(tag_path.as_deref().map(|t| ("--confirm", t)));
    check_outputs(&[("--key", &key, SHARED_KEY)], &inputs, force)?;
    let sk = read_secret(&receiver_sk, "the receiver's secret key")?;
    let pk = read_input(&sender_pk, "the sender's public key")?;
    let c = read_input(&ct, "a ciphertext")?;
    let (scheme, suite) = scheme.resolve(suite)?;
    let akem = configuration(scheme, suite, &receiver_sk, &sk)?;
    check_keys(akem, &receiver_sk, &sk, &sender_pk, &pk)?;
    let want = akem.ciphertext_len();
    if c.len() != want {
        return Err(Failure::Usage(format!(
            "{} ({} bytes) is no {} ciphertext ({want} bytes)",
            ct.display(),
            c.len(),
            scheme.name()
        )));
    }
    dh_halves(akem, &receiver_sk, &sender_pk)?;
    let r = SecretKey::from_bytes(akem, &sk).map_err(|e| malformed("receiver secret key", e))?;
    let s = PublicKey::from_bytes(akem, &pk).map_err(|e| malformed("sender public key", e))?;
    two_parties(akem, (&r, &receiver_sk), (&s, &sender_pk))?;
    let k = any::decap(&r, &s, &c);
    let reject = |reason: String| -> CmdResult {
        if format.json {
            say(
                json!({"scheme": scheme.name(), "suite": akem.suite().map(Suite::name), "authenticated": false, "reason": reason}),
            )?;
        }
        Err(Failure::Invalid(reason))
    };
    let k = match k {
        Ok(k) => k,
        Err(e @ (Error::InvalidCiphertext | Error::LowOrderPoint)) => return reject(rejected(e)),
        Err(e) => return Err(malformed("input", e)),
    };
    if let Some(t) = &tag_path {
        let tag = read_input(t, "a 32-byte confirmation tag")?;
        match confirm::verify(&k, &c, &tag) {
            Ok(()) => {}
            Err(Error::InvalidCiphertext) => {
                return reject(
                    "key confirmation failed: wrong sender key or altered ciphertext".into(),
                )
            }
            Err(e) => return Err(malformed(&format!("tag in {}", t.display()), e)),
        }
    }
    let written = place_outputs(
        &[Output {
            flag: "--key",
            path: &key,
            kind: SHARED_KEY,
            data: &k[..],
        }],
        force,
    )?;
    // Only DH-AKEM without a tag leaves the sender unchecked at this point.
    let authenticated = scheme != Scheme::Dh || tag_path.is_some();
    let how = match (scheme, &tag_path) {
        (Scheme::Dh, None) => "not authenticated: DH-AKEM authenticates implicitly, so a wrong sender or an altered ciphertext yields a different key; use --confirm to check",
        (Scheme::Dh, Some(_)) => "authenticated by the confirmation tag",
        _ => "authenticated by the ring signature",
    };
    format.report(
        format!("shared key written to {} ({how})", key.display()),
        json!({
            "scheme": scheme.name(),
            "suite": akem.suite().map(Suite::name),
            "key": file_json(&key, 32),
            "authenticated": authenticated,
            "note": how,
        }),
    )?;
    written.keep();
    Ok(())
}

/// A shared key: 32 bytes, secret; `--force` replaces only an earlier one.
const SHARED_KEY: Kind = Kind::Private(Own {
    what: "a shared key",
    same: |b| b.len() == 32,
});

/// A ciphertext.
const CIPHERTEXT: Kind = Kind::Data("a ciphertext");

/// A key-confirmation tag.
const TAG: Kind = Kind::Data("a confirmation tag");

/// `akem encap`: a ciphertext and a shared key (and a confirmation tag) from a sender to a
/// receiver.
fn encap(
    EncapArgs {
        alg: SchemeArgs { scheme, suite },
        sender_sk,
        receiver_pk,
        ct,
        key,
        confirm: tag_path,
        force,
        format,
    }: EncapArgs,
) -> CmdResult {
    let mut outs = vec![
        ("--ct", ct.as_path(), CIPHERTEXT),
        ("--key", &key, SHARED_KEY),
    ];
    if let Some(t) = &tag_path {
        outs.push(("--confirm", t, TAG));
    }
    let to_stdout: Vec<_> = outs.iter().map(|&(f, p, _)| (f, p)).collect();
    check_json(format.json, &to_stdout)?;
    let inputs = [
        ("--sender-sk", sender_sk.as_path()),
        ("--receiver-pk", &receiver_pk),
    ];
    let sk = read_secret(&sender_sk, "the sender's secret key")?;
    let pk = read_input(&receiver_pk, "the receiver's public key")?;
    let (scheme, suite) = scheme.resolve(suite)?;
    let akem = configuration(scheme, suite, &sender_sk, &sk)?;
    check_keys(akem, &sender_sk, &sk, &receiver_pk, &pk)?;
    dh_halves(akem, &sender_sk, &receiver_pk)?;
    // After the keys (a wrong key file is named first), before anything is derived.
    check_outputs(&outs, &inputs, force)?;
    let s = SecretKey::from_bytes(akem, &sk).map_err(|e| malformed("sender secret key", e))?;
    let r = PublicKey::from_bytes(akem, &pk).map_err(|e| malformed("receiver public key", e))?;
    two_parties(akem, (&s, &sender_sk), (&r, &receiver_pk))?;
    // DH-AKEM's one failure is a low-order receiver key.
    let what = if akem == Akem::Dh {
        "receiver key"
    } else {
        "input"
    };
    let (c, k) = any::encap(&s, &r, &mut os_rng()).map_err(|e| malformed(what, e))?;
    let tag = confirm::tag(&k, &c);
    let mut files = vec![
        Output {
            flag: "--key",
            path: &key,
            kind: SHARED_KEY,
            data: &k[..],
        },
        Output {
            flag: "--ct",
            path: &ct,
            kind: CIPHERTEXT,
            data: &c,
        },
    ];
    if let Some(t) = &tag_path {
        files.push(Output {
            flag: "--confirm",
            path: t,
            kind: TAG,
            data: &tag,
        });
    }
    let written = place_outputs(&files, force)?;
    format.wrote(json!({
        "scheme": scheme.name(),
        "suite": akem.suite().map(Suite::name),
        "ciphertext": file_json(&ct, c.len()),
        "key": file_json(&key, k.len()),
        "confirm": tag_path.as_ref().map(|t| file_json(t, tag.len())),
    }))?;
    written.keep();
    Ok(())
}

/// The rejection message of a ciphertext that does not authenticate.
fn rejected(e: Error) -> String {
    match e {
        Error::LowOrderPoint => "ciphertext rejected: low-order X25519 point".into(),
        _ => "ciphertext rejected: it does not authenticate under the sender's key".into(),
    }
}
