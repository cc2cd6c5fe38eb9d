//! `alibi tachyon keygen|sign|verify`: keys carry their level in a header byte; a signature is the
//! raw (s, h) of the public key's level.

use crate::args::{read, write, Opts};
use crate::falcon::malformed;
use crate::{CmdResult, Failure};
use alibi_tachyon::{Level, Signature, SigningKey, VerifyingKey};
use getrandom::SysRng;
use rand_core::UnwrapErr;

/// Dispatches `alibi tachyon <verb> ...`.
pub fn run(args: &[String]) -> CmdResult {
    let (verb, rest) = args
        .split_first()
        .ok_or_else(|| Failure::Usage("tachyon: missing verb (keygen, sign, verify)".into()))?;
    match verb.as_str() {
        "keygen" => keygen(&Opts::parse(
            "tachyon keygen",
            rest,
            &["level", "pk", "sk"],
        )?),
        "sign" => sign(&Opts::parse("tachyon sign", rest, &["sk", "msg", "out"])?),
        "verify" => verify(&Opts::parse("tachyon verify", rest, &["pk", "msg", "sig"])?),
        v => Err(Failure::Usage(format!(
            "tachyon: unknown verb '{v}' (keygen, sign, verify)"
        ))),
    }
}

fn keygen(o: &Opts) -> CmdResult {
    let level = match o.req("level")? {
        "128" => Level::T128,
        "192" => Level::T192,
        "256" => Level::T256,
        "128s" => Level::T128Small,
        l => {
            return Err(Failure::Usage(format!(
                "--level must be 128, 192, 256 or 128s, not '{l}'"
            )))
        }
    };
    let (pk, sk) = (o.req("pk")?, o.req("sk")?);
    let s = SigningKey::generate(level, &mut UnwrapErr(SysRng));
    let v = s.verifying_key();
    write(sk, &s.to_bytes())?;
    write(pk, &v.to_bytes())
}

fn sign(o: &Opts) -> CmdResult {
    let sk =
        SigningKey::from_bytes(&read(o.req("sk")?)?).map_err(|e| malformed("secret key", e))?;
    let msg = read(o.req("msg")?)?;
    write(
        o.req("out")?,
        &sk.sign(&msg, &mut UnwrapErr(SysRng)).to_bytes(),
    )
}

fn verify(o: &Opts) -> CmdResult {
    let vk =
        VerifyingKey::from_bytes(&read(o.req("pk")?)?).map_err(|e| malformed("public key", e))?;
    let msg = read(o.req("msg")?)?;
    let sig = Signature::from_bytes(vk.level(), &read(o.req("sig")?)?)
        .map_err(|e| malformed("signature", e))?;
    vk.verify(&msg, &sig)
        .map_err(|_| Failure::Invalid("invalid signature".into()))?;
    println!("valid");
    Ok(())
}
