//! `alibi tachyon keygen|sign|verify`: keys carry their level in a header byte; a signature is
//! the raw (s, h) of the public key's level.

use std::path::Path;

use alibi_tachyon::{Level, Signature, SigningKey, VerifyingKey};
use clap::{Subcommand, ValueEnum};
use serde_json::json;

use crate::failure::{malformed, CmdResult, Failure};
use crate::files::{read, read_input, read_secret};
use crate::keys::{KeyPairOut, SignFiles, VerifyFiles};
use crate::report::Format;
use crate::rng::os_rng;

/// `alibi tachyon <verb>`.
#[derive(Subcommand, Debug)]
pub enum Cmd {
    /// Generate a key pair
    Keygen(KeygenArgs),
    /// Sign a file
    Sign(SignFiles),
    /// Verify a signature: exit 0 if valid, 1 if not, 2 if an input is malformed
    Verify(VerifyArgs),
}

/// The arguments of `alibi tachyon keygen`.
#[derive(clap::Args, Debug)]
pub struct KeygenArgs {
    /// The parameter set: 128, 192 or 256 bits, or 128s, the (t, k) = (256, 26) set with a
    /// public key a quarter the size of 128's and signatures of the same size
    #[arg(long, value_enum)]
    pub level: TachyonLevel,
    #[command(flatten)]
    pub out: KeyPairOut,
    #[command(flatten)]
    pub format: Format,
}

/// The arguments of `alibi tachyon verify`.
#[derive(clap::Args, Debug)]
pub struct VerifyArgs {
    #[command(flatten)]
    pub files: VerifyFiles,
    #[command(flatten)]
    pub format: Format,
}

/// The TACHYON parameter sets (docs/tachyon.md).
#[derive(ValueEnum, Clone, Copy, Debug)]
pub enum TachyonLevel {
    /// 128-bit security
    #[value(name = "128")]
    T128,
    /// 192-bit security
    #[value(name = "192")]
    T192,
    /// 256-bit security
    #[value(name = "256")]
    T256,
    /// 128-bit security with (t, k) = (256, 26): a 221,217-byte public key instead of 884,769,
    /// the same 4,160-byte signatures
    #[value(name = "128s")]
    T128Small,
}

impl From<TachyonLevel> for Level {
    fn from(l: TachyonLevel) -> Level {
        match l {
            TachyonLevel::T128 => Level::T128,
            TachyonLevel::T192 => Level::T192,
            TachyonLevel::T256 => Level::T256,
            TachyonLevel::T128Small => Level::T128Small,
        }
    }
}

/// Runs `alibi tachyon <verb>`.
pub fn run(cmd: Cmd) -> CmdResult {
    match cmd {
        Cmd::Keygen(a) => keygen(a),
        Cmd::Sign(files) => sign(files),
        Cmd::Verify(a) => verify(a),
    }
}

/// `alibi tachyon keygen`.
fn keygen(KeygenArgs { level, out, format }: KeygenArgs) -> CmdResult {
    out.check()?;
    let level = Level::from(level);
    let sk = SigningKey::generate(level, &mut os_rng());
    let vk = sk.verifying_key();
    out.write(name(level), &vk.to_bytes(), &sk.to_bytes(), format)
}

/// `alibi tachyon sign`.
fn sign(files: SignFiles) -> CmdResult {
    files.check()?;
    let sk = &files.sk;
    let b = read_secret(sk, "a TACHYON secret key")?;
    let key = SigningKey::from_bytes(&b).map_err(|e| wrong(sk, &b, "secret key", e))?;
    let msg = read(&files.msg)?;
    let sig = key.sign(&msg, &mut os_rng()).to_bytes();
    files.write(key.level().name(), &sig)
}

/// `alibi tachyon verify`.
fn verify(a: VerifyArgs) -> CmdResult {
    let VerifyFiles { pk, msg, sig } = a.files;
    let b = read_input(&pk, "a TACHYON public key")?;
    let vk = VerifyingKey::from_bytes(&b).map_err(|e| wrong(&pk, &b, "public key", e))?;
    let msg = read(&msg)?;
    let sig = Signature::from_bytes(vk.level(), &read_input(&sig, "a TACHYON signature")?)
        .map_err(|e| {
            malformed(
                &format!("{} signature in {}", name(vk.level()), sig.display()),
                e,
            )
        })?;
    let fields = json!({"scheme": name(vk.level())});
    match vk.verify(&msg, &sig) {
        Ok(()) => a.format.verdict(Ok(None), fields),
        Err(_) => a.format.verdict(Err("invalid signature".into()), fields),
    }
}

/// The level's name in text and JSON (docs/cli.md): TACHYON-128, -192, -256, -128s; the
/// library's name of 128s carries its (t, k), which is no part of the name.
fn name(level: Level) -> &'static str {
    let n = level.name();
    n.split(" (").next().unwrap_or(n)
}

/// A key that does not decode: named as the other kind of key when its header and length say it
/// is one (public and secret keys share the level's header byte).
fn wrong(path: &Path, b: &[u8], expected: &str, e: impl std::fmt::Display) -> Failure {
    let level = b.first().and_then(|&h| Level::from_header(h));
    let other = match (level, expected) {
        (Some(l), "public key") if b.len() == l.secret_key_len() => Some("secret key"),
        (Some(l), "secret key") if b.len() == l.public_key_len() => Some("public key"),
        _ => None,
    };
    match (level, other) {
        (Some(l), Some(o)) => Failure::Usage(format!(
            "{} holds a {} {o}, not a {expected}",
            path.display(),
            name(l)
        )),
        _ => malformed(&format!("TACHYON {expected} in {}", path.display()), e),
    }
}
