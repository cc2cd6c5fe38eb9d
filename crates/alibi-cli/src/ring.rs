//! `alibi ring keygen|sign|verify`: rings of Falcon keys (GANDALF) or of MAYO keys (MAYO-RS).
//! Falcon members are plain Falcon public keys in the standard encoding, so keys from
//! `alibi falcon keygen` (or any Falcon implementation) can join a ring; MAYO members are compact
//! MAYO public keys (liboqs's encoding). The scheme of `sign` and `verify` follows from the ring's
//! key lengths, or from `--scheme`, which must then agree with them.

use crate::args::{read, write, Opts};
use crate::falcon::{malformed, write_key_pair};
use crate::{CmdResult, Failure};
use alibi_falcon::{Level, SigningKey};
use alibi_mayo::ring::{Ring as MayoRing, RingSignature as MayoRingSignature};
use alibi_mayo::Params as Mayo;
use alibi_ringsig::{Ring, RingSignature};
use getrandom::SysRng;
use rand_core::UnwrapErr;

/// The two ring signatures.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Scheme {
    Falcon(Level),
    Mayo(Mayo),
}

const SCHEMES: &str = "falcon512, falcon1024, mayo1 or mayo2";

fn parse_scheme(s: &str) -> Result<Scheme, Failure> {
    Ok(match s {
        "falcon512" => Scheme::Falcon(Level::Falcon512),
        "falcon1024" => Scheme::Falcon(Level::Falcon1024),
        "mayo1" => Scheme::Mayo(Mayo::Mayo1),
        "mayo2" => Scheme::Mayo(Mayo::Mayo2),
        s => {
            return Err(Failure::Usage(format!(
                "--scheme must be {SCHEMES}, not '{s}'"
            )))
        }
    })
}

/// The scheme a public key's length names.
fn scheme_of_key(len: usize) -> Option<Scheme> {
    [Level::Falcon512, Level::Falcon1024]
        .into_iter()
        .find(|l| l.public_key_len() == len)
        .map(Scheme::Falcon)
        .or_else(|| {
            [Mayo::Mayo1, Mayo::Mayo2]
                .into_iter()
                .find(|p| p.public_key_bytes() == len)
                .map(Scheme::Mayo)
        })
}

/// A ring of either kind, from its key files.
enum AnyRing {
    Falcon(Ring),
    Mayo(MayoRing),
}

/// The ring named by a comma-separated list of public-key files, in that order, of the scheme
/// `--scheme` names or the first key's length implies.
fn load_any_ring(o: &Opts) -> Result<AnyRing, Failure> {
    let keys = o
        .req("ring")?
        .split(',')
        .map(read)
        .collect::<Result<Vec<Vec<u8>>, Failure>>()?;
    let implied = scheme_of_key(keys[0].len());
    let scheme = match o.get("scheme") {
        Some(s) => {
            let s = parse_scheme(s)?;
            if implied.is_some_and(|i| i != s) {
                return Err(Failure::Usage(format!(
                    "ring: the keys are not {} keys",
                    o.get("scheme").unwrap_or("")
                )));
            }
            s
        }
        None => implied.ok_or_else(|| {
            Failure::Usage(format!(
                "ring: a {}-byte key is no ring member ({SCHEMES})",
                keys[0].len()
            ))
        })?,
    };
    match scheme {
        Scheme::Falcon(_) => Ring::from_public_keys(&keys)
            .map(AnyRing::Falcon)
            .map_err(|e| malformed("ring", e)),
        Scheme::Mayo(p) => MayoRing::from_public_keys(p, &keys)
            .map(AnyRing::Mayo)
            .map_err(|e| malformed("ring", e)),
    }
}

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
            &["sk", "ring", "msg", "out", "scheme"],
        )?),
        "verify" => verify(&Opts::parse(
            "ring verify",
            rest,
            &["ring", "msg", "sig", "scheme"],
        )?),
        v => Err(Failure::Usage(format!(
            "ring: unknown verb '{v}' (keygen, sign, verify)"
        ))),
    }
}

fn keygen(o: &Opts) -> CmdResult {
    match parse_scheme(o.req("scheme")?)? {
        Scheme::Falcon(level) => write_key_pair(level, o),
        Scheme::Mayo(p) => {
            let sk = alibi_mayo::SigningKey::generate(p, &mut UnwrapErr(SysRng));
            write(o.req("pk")?, sk.public_key_bytes())?;
            write(o.req("sk")?, &sk.to_bytes())
        }
    }
}

fn sign(o: &Opts) -> CmdResult {
    let ring = load_any_ring(o)?;
    let sk = read(o.req("sk")?)?;
    let msg = read(o.req("msg")?)?;
    let out = o.req("out")?;
    let sig = match ring {
        AnyRing::Falcon(ring) => {
            let sk = SigningKey::from_bytes(&sk).map_err(|e| malformed("secret key", e))?;
            ring.sign(&sk.expand(), &msg, &mut UnwrapErr(SysRng))
                .map_err(crate::args::usage)?
                .to_bytes()
        }
        AnyRing::Mayo(ring) => {
            let sk = alibi_mayo::SigningKey::from_bytes(ring.params(), &sk)
                .map_err(|e| malformed("secret key", e))?;
            ring.sign(&sk, &msg, &mut UnwrapErr(SysRng))
                .map_err(crate::args::usage)?
                .to_bytes()
        }
    };
    write(out, &sig)
}

fn verify(o: &Opts) -> CmdResult {
    let ring = load_any_ring(o)?;
    let msg = read(o.req("msg")?)?;
    let sig = read(o.req("sig")?)?;
    let ok = match ring {
        AnyRing::Falcon(ring) => {
            let sig = RingSignature::from_bytes(&ring, &sig)
                .map_err(|e| malformed("ring signature", e))?;
            ring.verify(&msg, &sig).is_ok()
        }
        AnyRing::Mayo(ring) => {
            let sig = MayoRingSignature::from_bytes(&ring, &sig)
                .map_err(|e| malformed("ring signature", e))?;
            ring.verify(&msg, &sig).is_ok()
        }
    };
    if !ok {
        return Err(Failure::Invalid("invalid ring signature".into()));
    }
    println!("valid");
    Ok(())
}
