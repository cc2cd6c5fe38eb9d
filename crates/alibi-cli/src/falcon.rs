//! `alibi falcon keygen|sign|verify`: raw specification encodings in files.

use crate::args::{read, write, Opts};
use crate::{CmdResult, Failure};
use alibi_falcon::{Error, Level, Signature, SigningKey, VerifyingKey};
use getrandom::SysRng;
use rand_core::UnwrapErr;

/// Dispatches `alibi falcon <verb> ...`.
pub fn run(args: &[String]) -> CmdResult {
    let (verb, rest) = args
        .split_first()
        .ok_or_else(|| Failure::Usage("falcon: missing verb (keygen, sign, verify)".into()))?;
    match verb.as_str() {
        "keygen" => keygen(&Opts::parse("falcon keygen", rest, &["level", "pk", "sk"])?),
        "sign" => sign(&Opts::parse("falcon sign", rest, &["sk", "msg", "out"])?),
        "verify" => verify(&Opts::parse("falcon verify", rest, &["pk", "msg", "sig"])?),
        v => Err(Failure::Usage(format!(
            "falcon: unknown verb '{v}' (keygen, sign, verify)"
        ))),
    }
}

/// A usage failure for input that does not decode.
pub fn malformed(what: &str, e: impl std::fmt::Display) -> Failure {
    Failure::Usage(format!("malformed {what}: {e}"))
}

fn keygen(o: &Opts) -> CmdResult {
    let level = match o.req("level")? {
        "512" => Level::Falcon512,
        "1024" => Level::Falcon1024,
        l => {
            return Err(Failure::Usage(format!(
                "--level must be 512 or 1024, not '{l}'"
            )))
        }
    };
    write_key_pair(level, o)
}

/// Generates a Falcon key pair and writes it to the files named by --sk and --pk.
pub fn write_key_pair(level: Level, o: &Opts) -> CmdResult {
    let (pk, sk) = (o.req("pk")?, o.req("sk")?);
    let key = SigningKey::generate(level, &mut UnwrapErr(SysRng));
    write(sk, &key.to_bytes())?;
    write(pk, &key.verifying_key().to_bytes())
}

fn sign(o: &Opts) -> CmdResult {
    let sk =
        SigningKey::from_bytes(&read(o.req("sk")?)?).map_err(|e| malformed("secret key", e))?;
    let msg = read(o.req("msg")?)?;
    let out = o.req("out")?;
    write(out, &sk.sign(&msg, &mut UnwrapErr(SysRng)).to_bytes())
}

fn verify(o: &Opts) -> CmdResult {
    let vk =
        VerifyingKey::from_bytes(&read(o.req("pk")?)?).map_err(|e| malformed("public key", e))?;
    let msg = read(o.req("msg")?)?;
    let sig =
        Signature::from_bytes(&read(o.req("sig")?)?).map_err(|e| malformed("signature", e))?;
    match vk.verify(&msg, &sig) {
        Ok(()) => {
            println!("valid");
            Ok(())
        }
        Err(Error::LevelMismatch) => Err(Failure::Usage(format!(
            "signature is for {}, key is {}",
            sig.level(),
            vk.level()
        ))),
        Err(_) => Err(Failure::Invalid("invalid signature".into())),
    }
}
