//! `alibi falcon keygen|sign|verify`: Falcon-512/1024 in the specification's raw encodings, the
//! files PQClean reads and writes.

use std::path::Path;

use alibi_falcon::{Error, Level, Signature, SigningKey, VerifyingKey};
use clap::{Subcommand, ValueEnum};
use serde_json::json;

use crate::failure::{malformed, CmdResult, Failure};
use crate::files::{read, read_input, read_secret};
use crate::keys::{KeyPairOut, SignFiles, VerifyFiles};
use crate::report::Format;
use crate::rng::os_rng;

/// `alibi falcon <verb>`.
#[derive(Subcommand, Debug)]
pub enum Cmd {
    /// Generate a key pair: public key 897 / 1,793 bytes, secret key 1,281 / 2,305 bytes
    Keygen(KeygenArgs),
    /// Sign a file: a detached signature (header, 40-byte salt, compressed s2), as PQClean emits
    Sign(SignFiles),
    /// Verify a detached signature: exit 0 if valid, 1 if not, 2 if an input is malformed
    Verify(VerifyArgs),
}

/// The arguments of `alibi falcon keygen`.
#[derive(clap::Args, Debug)]
pub struct KeygenArgs {
    /// Falcon-512 or Falcon-1024
    #[arg(long, value_enum)]
    pub level: FalconLevel,
    #[command(flatten)]
    pub out: KeyPairOut,
    #[command(flatten)]
    pub format: Format,
}

/// The arguments of `alibi falcon verify`.
#[derive(clap::Args, Debug)]
pub struct VerifyArgs {
    #[command(flatten)]
    pub files: VerifyFiles,
    #[command(flatten)]
    pub format: Format,
}

/// The two Falcon parameter sets.
#[derive(ValueEnum, Clone, Copy, Debug)]
pub enum FalconLevel {
    /// Falcon-512 (NIST level 1)
    #[value(name = "512")]
    L512,
    /// Falcon-1024 (NIST level 5)
    #[value(name = "1024")]
    L1024,
}

impl From<FalconLevel> for Level {
    fn from(l: FalconLevel) -> Level {
        match l {
            FalconLevel::L512 => Level::Falcon512,
            FalconLevel::L1024 => Level::Falcon1024,
        }
    }
}

/// Runs `alibi falcon <verb>`.
pub fn run(cmd: Cmd) -> CmdResult {
    match cmd {
        Cmd::Keygen(a) => keygen(a),
        Cmd::Sign(files) => sign(files),
        Cmd::Verify(a) => verify(a),
    }
}

/// `alibi falcon keygen`.
fn keygen(KeygenArgs { level, out, format }: KeygenArgs) -> CmdResult {
    out.check()?;
    let key = SigningKey::generate(level.into(), &mut os_rng());
    out.write(
        &format!("{}", Level::from(level)),
        &key.verifying_key().to_bytes(),
        &key.to_bytes(),
        format,
    )
}

/// `alibi falcon sign`.
fn sign(files: SignFiles) -> CmdResult {
    files.check()?;
    let key = signing_key(&files.sk)?;
    let msg = read(&files.msg)?;
    let sig = key.sign(&msg, &mut os_rng());
    files.write(&key.level().to_string(), &sig.to_bytes())
}

/// `alibi falcon verify`.
fn verify(a: VerifyArgs) -> CmdResult {
    let VerifyFiles { pk, msg, sig } = a.files;
    let vk = verifying_key(&pk)?;
    let msg = read(&msg)?;
    let sig = signature(&sig)?;
    let fields = json!({"scheme": vk.level().to_string()});
    match vk.verify(&msg, &sig) {
        Ok(()) => a.format.verdict(Ok(None), fields),
        Err(Error::LevelMismatch) => Err(Failure::Usage(format!(
            "the signature is a {} signature, the key a {} key",
            sig.level(),
            vk.level()
        ))),
        Err(_) => a.format.verdict(Err("invalid signature".into()), fields),
    }
}

/// What a Falcon file holds, told by its header byte (spec §3.11): `0x0_` public key, `0x5_`
/// secret key, `0x3_` signature; used to say "this is a secret key" rather than "bad header".
pub fn kind_of(b: &[u8]) -> Option<&'static str> {
    match b.first()? >> 4 {
        0x0 => Some("a Falcon public key"),
        0x5 => Some("a Falcon secret key"),
        0x3 => Some("a Falcon signature"),
        _ => None,
    }
}

/// Decodes a file's bytes as `expected`; when that fails and the file is recognizably another
/// kind of Falcon object, says so.
fn decode<T>(
    path: &Path,
    b: &[u8],
    expected: &'static str,
    parse: impl Fn(&[u8]) -> Result<T, Error>,
) -> Result<T, Failure> {
    parse(b).map_err(|e| match kind_of(b) {
        Some(k) if k != expected => {
            Failure::Usage(format!("{} holds {k}, not {expected}", path.display()))
        }
        _ => malformed(
            &format!(
                "{} in {}",
                expected.trim_start_matches("a "),
                path.display()
            ),
            e,
        ),
    })
}

/// Reads a Falcon secret key file.
pub fn signing_key(path: &Path) -> Result<SigningKey, Failure> {
    let what = "a Falcon secret key";
    decode(
        path,
        &read_secret(path, what)?,
        what,
        SigningKey::from_bytes,
    )
}

fn verifying_key(path: &Path) -> Result<VerifyingKey, Failure> {
    let what = "a Falcon public key";
    decode(
        path,
        &read_input(path, what)?,
        what,
        VerifyingKey::from_bytes,
    )
}

fn signature(path: &Path) -> Result<Signature, Failure> {
    let what = "a Falcon signature";
    decode(path, &read_input(path, what)?, what, Signature::from_bytes)
}
