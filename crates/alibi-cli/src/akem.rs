//! `alibi akem keygen|encap|decap`: DH-AKEM (RFC 9180 DHKEM(X25519, HKDF-SHA256)), PQ-AKEM and
//! SHADOWFAX with ML-KEM-512 and GANDALF[Falcon-512], keys and ciphertexts in the layouts of the
//! SHADOWFAX authors' code.

use crate::args::{read, write, Opts};
use crate::falcon::malformed;
use crate::{CmdResult, Failure};
use alibi_akem::dh::{array32, rfc9180, DhKeyPair};
use alibi_akem::pq::{self, Suite};
use alibi_akem::{shadowfax, Error};
use getrandom::SysRng;
use rand_core::UnwrapErr;

const SUITE: Suite = Suite::MlKem512Falcon512;

#[derive(Clone, Copy)]
enum Scheme {
    Dh,
    Pq,
    Shadowfax,
}

/// Dispatches `alibi akem <verb> ...`.
pub fn run(args: &[String]) -> CmdResult {
    let (verb, rest) = args
        .split_first()
        .ok_or_else(|| Failure::Usage("akem: missing verb (keygen, encap, decap)".into()))?;
    match verb.as_str() {
        "keygen" => keygen(&Opts::parse("akem keygen", rest, &["scheme", "pk", "sk"])?),
        "encap" => encap(&Opts::parse(
            "akem encap",
            rest,
            &["scheme", "sender-sk", "receiver-pk", "ct", "key"],
        )?),
        "decap" => decap(&Opts::parse(
            "akem decap",
            rest,
            &["scheme", "receiver-sk", "sender-pk", "ct", "key"],
        )?),
        v => Err(Failure::Usage(format!(
            "akem: unknown verb '{v}' (keygen, encap, decap)"
        ))),
    }
}

fn scheme(o: &Opts) -> Result<Scheme, Failure> {
    match o.req("scheme")? {
        "dh" => Ok(Scheme::Dh),
        "pq" => Ok(Scheme::Pq),
        "shadowfax" => Ok(Scheme::Shadowfax),
        s => Err(Failure::Usage(format!(
            "--scheme must be dh, pq or shadowfax, not '{s}'"
        ))),
    }
}

/// Maps a failed decapsulation: authentication failures are invalid ciphertexts (exit 1), anything
/// else malformed input (exit 2).
fn decap_failure(e: Error) -> Failure {
    match e {
        Error::InvalidCiphertext | Error::LowOrderPoint => {
            Failure::Invalid(format!("ciphertext rejected: {e}"))
        }
        e => malformed("input", e),
    }
}

fn keygen(o: &Opts) -> CmdResult {
    let (pk, sk) = (o.req("pk")?, o.req("sk")?);
    let (pkb, skb): (Vec<u8>, Vec<u8>) = match scheme(o)? {
        Scheme::Dh => {
            let k = DhKeyPair::generate(&mut UnwrapErr(SysRng));
            (k.public().to_vec(), k.secret().to_vec())
        }
        Scheme::Pq => {
            let k = pq::PqSecretKey::generate(SUITE, &mut UnwrapErr(SysRng));
            (k.public_key().to_bytes(), k.to_bytes().to_vec())
        }
        Scheme::Shadowfax => {
            let k = shadowfax::SecretKey::generate(SUITE, &mut UnwrapErr(SysRng));
            (k.public_key().to_bytes(), k.to_bytes().to_vec())
        }
    };
    write(sk, &skb)?;
    write(pk, &pkb)
}

fn encap(o: &Opts) -> CmdResult {
    let s = scheme(o)?;
    let sk = read(o.req("sender-sk")?)?;
    let pk = read(o.req("receiver-pk")?)?;
    let (ct, key) = match s {
        Scheme::Dh => {
            let sender = DhKeyPair::from_secret(
                array32(&sk, "sender key").map_err(|e| malformed("key", e))?,
            );
            let r = array32(&pk, "receiver key").map_err(|e| malformed("key", e))?;
            let (enc, k) = rfc9180::auth_encap(&sender, &r, &mut UnwrapErr(SysRng))
                .map_err(|e| malformed("key", e))?;
            (enc.to_vec(), k)
        }
        Scheme::Pq => {
            let sender =
                pq::PqSecretKey::from_bytes(SUITE, &sk).map_err(|e| malformed("sender key", e))?;
            let r = pq::PqPublicKey::from_bytes(SUITE, &pk)
                .map_err(|e| malformed("receiver key", e))?;
            pq::encap(&sender, &r, &mut UnwrapErr(SysRng)).map_err(|e| malformed("input", e))?
        }
        Scheme::Shadowfax => {
            let sender = shadowfax::SecretKey::from_bytes(SUITE, &sk)
                .map_err(|e| malformed("sender key", e))?;
            let r = shadowfax::PublicKey::from_bytes(SUITE, &pk)
                .map_err(|e| malformed("receiver key", e))?;
            shadowfax::encap(&sender, &r, &mut UnwrapErr(SysRng))
                .map_err(|e| malformed("input", e))?
        }
    };
    write(o.req("ct")?, &ct)?;
    write(o.req("key")?, &key[..])
}

fn decap(o: &Opts) -> CmdResult {
    let s = scheme(o)?;
    let sk = read(o.req("receiver-sk")?)?;
    let pk = read(o.req("sender-pk")?)?;
    let ct = read(o.req("ct")?)?;
    let key = match s {
        Scheme::Dh => {
            let r = DhKeyPair::from_secret(
                array32(&sk, "receiver key").map_err(|e| malformed("key", e))?,
            );
            let sp = array32(&pk, "sender key").map_err(|e| malformed("key", e))?;
            let enc = array32(&ct, "ciphertext").map_err(|e| malformed("ciphertext", e))?;
            rfc9180::auth_decap(&r, &sp, &enc).map_err(decap_failure)?
        }
        Scheme::Pq => {
            let r = pq::PqSecretKey::from_bytes(SUITE, &sk)
                .map_err(|e| malformed("receiver key", e))?;
            let sp =
                pq::PqPublicKey::from_bytes(SUITE, &pk).map_err(|e| malformed("sender key", e))?;
            pq::decap(&r, &sp, &ct).map_err(decap_failure)?
        }
        Scheme::Shadowfax => {
            let r = shadowfax::SecretKey::from_bytes(SUITE, &sk)
                .map_err(|e| malformed("receiver key", e))?;
            let sp = shadowfax::PublicKey::from_bytes(SUITE, &pk)
                .map_err(|e| malformed("sender key", e))?;
            shadowfax::decap(&r, &sp, &ct).map_err(decap_failure)?
        }
    };
    write(o.req("key")?, &key[..])
}
