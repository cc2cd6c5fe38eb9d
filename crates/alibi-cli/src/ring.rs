//! `alibi ring keygen|sign|verify`: ring members are plain Falcon public keys in the standard
//! encoding, so keys from `alibi falcon keygen` (or any Falcon implementation) can join a ring.

use crate::args::{read, write, Opts};
use crate::falcon::{malformed, write_key_pair};
use crate::{CmdResult, Failure};
use alibi_falcon::{Level, SigningKey};
use alibi_ringsig::{Ring, RingSignature};
use rand_core::OsRng;

/// Dispatches `alibi ring <verb> ...`.
pub fn run(args: &[String]) -> CmdResult {
    let (verb, rest) = args
        .split_first()
        .ok_or_else(|| Failure::Usage("ring: missing verb (keygen, sign, verify)".into()))?;
    match verb.as_str() {
        "keygen" => keygen(&Opts::parse("ring keygen", rest, &["scheme", "pk", "sk"])?),
        "sign" => sign(&Opts::parse(
            "ring sign",
            rest,
            &["sk", "ring", "msg", "out"],
        )?),
        "verify" => verify(&Opts::parse("ring verify", rest, &["ring", "msg", "sig"])?),
        v => Err(Failure::Usage(format!(
            "ring: unknown verb '{v}' (keygen, sign, verify)"
        ))),
    }
}

fn keygen(o: &Opts) -> CmdResult {
    let level = match o.req("scheme")? {
        "falcon512" => Level::Falcon512,
        "falcon1024" => Level::Falcon1024,
        s => {
            return Err(Failure::Usage(format!(
                "--scheme must be falcon512 or falcon1024, not '{s}'"
            )))
        }
    };
    write_key_pair(level, o)
}

/// The ring named by a comma-separated list of public-key files, in that order.
fn load_ring(list: &str) -> Result<Ring, Failure> {
    let keys = list
        .split(',')
        .map(read)
        .collect::<Result<Vec<Vec<u8>>, Failure>>()?;
    Ring::from_public_keys(&keys).map_err(|e| malformed("ring", e))
}

fn sign(o: &Opts) -> CmdResult {
    let sk =
        SigningKey::from_bytes(&read(o.req("sk")?)?).map_err(|e| malformed("secret key", e))?;
    let ring = load_ring(o.req("ring")?)?;
    let msg = read(o.req("msg")?)?;
    let out = o.req("out")?;
    let sig = ring
        .sign(&sk.expand(), &msg, &mut OsRng)
        .map_err(|e| Failure::Usage(e.to_string()))?;
    write(out, &sig.to_bytes())
}

fn verify(o: &Opts) -> CmdResult {
    let ring = load_ring(o.req("ring")?)?;
    let msg = read(o.req("msg")?)?;
    let sig = RingSignature::from_bytes(&ring, &read(o.req("sig")?)?)
        .map_err(|e| malformed("ring signature", e))?;
    ring.verify(&msg, &sig)
        .map_err(|_| Failure::Invalid("invalid ring signature".into()))?;
    println!("valid");
    Ok(())
}
