//! `alibi ring keygen|sign|verify`: rings of Falcon keys (GANDALF[Falcon]), of Antrag keys
//! (GANDALF[Antrag, Mitaka]) or of MAYO keys (MAYO-RS). Falcon members are plain Falcon public keys
//! in the standard encoding, so keys from `alibi falcon keygen` (or any Falcon implementation) can
//! join a ring; Antrag members are the SHADOWFAX artifact's raw h (896 bytes; secret keys f, g, F,
//! G as 2,048 signed bytes); MAYO members are compact MAYO public keys (liboqs's encoding). The
//! scheme of `sign` and `verify` follows from the ring's key lengths, or from `--scheme`, which must
//! then agree with them.

use std::path::PathBuf;

use alibi_ringsig::{AnyRing, AnySigningKey, Error, Scheme};
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::Subcommand;
use serde_json::json;

use crate::failure::{malformed, usage, CmdResult, Failure};
use crate::files::{
    check_json, check_outputs, place_outputs, read, read_input, read_secret, Output,
};
use crate::keys::{KeyPairOut, SIGNATURE};
use crate::report::{file_json, Format};
use crate::rng::os_rng;

/// `alibi ring <verb>`.
#[derive(Subcommand, Debug)]
pub enum Cmd {
    /// Generate a ring member's key pair (Falcon keys are plain Falcon keys)
    Keygen(KeygenArgs),
    /// Sign a file on behalf of a ring that holds the signer's public key
    Sign(SignArgs),
    /// Verify a ring signature: exit 0 if valid, 1 if not, 2 if an input is malformed
    Verify(VerifyArgs),
}

/// The arguments of `alibi ring keygen`.
#[derive(clap::Args, Debug)]
pub struct KeygenArgs {
    /// The ring signature scheme
    #[arg(long, value_parser = scheme_parser())]
    pub scheme: Scheme,
    #[command(flatten)]
    pub out: KeyPairOut,
    #[command(flatten)]
    pub format: Format,
}

/// The arguments of `alibi ring sign`.
#[derive(clap::Args, Debug)]
pub struct SignArgs {
    /// The signer's secret key
    #[arg(long, value_name = "FILE")]
    pub sk: PathBuf,
    #[command(flatten)]
    pub ring: RingArgs,
    /// The message (- for stdin)
    #[arg(long, value_name = "FILE")]
    pub msg: PathBuf,
    /// Where to write the ring signature (- for stdout)
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Replace a file that already exists at --out (never one that holds a secret key, a
    /// keyfile, a store or a manager's or party's state, nor an input)
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub format: Format,
}

/// The arguments of `alibi ring verify`.
#[derive(clap::Args, Debug)]
pub struct VerifyArgs {
    #[command(flatten)]
    pub ring: RingArgs,
    /// The message (- for stdin)
    #[arg(long, value_name = "FILE")]
    pub msg: PathBuf,
    /// The ring signature (- for stdin)
    #[arg(long, value_name = "FILE")]
    pub sig: PathBuf,
    #[command(flatten)]
    pub format: Format,
}

/// `--ring PK1,PK2,... [--scheme S]`.
#[derive(clap::Args, Debug)]
pub struct RingArgs {
    /// The members' public-key files, in ring order (the order is signed): comma-separated, or
    /// the option repeated
    #[arg(
        long,
        value_name = "PK1,PK2,...",
        value_delimiter = ',',
        value_parser = crate::files::TrimmedPath,
        required = true
    )]
    ring: Vec<PathBuf>,
    /// The scheme; by default the one the first key's length names
    #[arg(long, value_parser = scheme_parser())]
    scheme: Option<Scheme>,
}

/// `--scheme`: alibi-ringsig's schemes by their names, each with its description in `--help`.
fn scheme_parser() -> impl TypedValueParser<Value = Scheme> {
    PossibleValuesParser::new(
        Scheme::ALL.map(|s| PossibleValue::new(s.name()).help(s.description())),
    )
    .try_map(|name| Scheme::from_name(&name).ok_or(format!("no ring scheme is named {name}")))
}

impl RingArgs {
    /// The members' public-key files, read.
    fn read_keys(&self) -> Result<Vec<Vec<u8>>, Failure> {
        self.ring
            .iter()
            .map(|p| read_input(p, "a ring member's public key"))
            .collect()
    }

    /// The ring, of the scheme `--scheme` names or the first key's length implies
    /// (alibi-ringsig tells the schemes apart), and the members' keys as read.
    fn load(&self) -> Result<(AnyRing, Vec<Vec<u8>>), Failure> {
        let keys = self.read_keys()?;
        match AnyRing::from_public_keys(self.scheme, &keys) {
            Ok(ring) => Ok((ring, keys)),
            Err(e) => Err(self.ring_error(&keys, e)),
        }
    }

    /// A ring that does not decode, the member at fault named by its file.
    fn ring_error(&self, keys: &[Vec<u8>], e: Error) -> Failure {
        let file = |i: usize| self.ring[i].display();
        match e {
            Error::SchemeMismatch { .. } | Error::UnknownPublicKey(_) => {
                Failure::Usage(format!("{}: {e}", file(0)))
            }
            Error::DuplicateMember(i) => match keys[..i].iter().position(|k| *k == keys[i]) {
                Some(j) => Failure::Usage(format!(
                    "{} and {} hold the same public key: a ring lists each member once",
                    file(j),
                    file(i)
                )),
                None => Failure::Usage(format!("{}: {e}", file(i))),
            },
            Error::RingTooSmall(_) | Error::RingTooLarge(_) => malformed("ring", e),
            e => {
                let Ok(scheme) = Scheme::detect(self.scheme, &keys[0]) else {
                    return malformed("ring", e);
                };
                let bad = keys
                    .iter()
                    .enumerate()
                    .find_map(|(i, k)| scheme.check_public_key(k).err().map(|me| (i, me)));
                match bad {
                    Some((i, Error::SchemeMismatch { keys: other, .. })) => {
                        Failure::Usage(format!(
                            "{} is a {other} key, but the ring is {scheme} (as {} is): a ring holds keys of one scheme",
                            file(i),
                            file(0)
                        ))
                    }
                    Some((i, me)) => malformed(&format!("ring member {}", file(i)), me),
                    None => malformed("ring", e),
                }
            }
        }
    }

    /// Why a ring signature that is invalid under this ring fails: for a small ring, whether
    /// the members in another order verify it (the order is signed, so a ring listed in another
    /// order than at signing is the usual cause); for a larger one, a hint.
    fn invalid_reason(&self, keys: &[Vec<u8>], msg: &[u8], sig: &[u8]) -> String {
        let n = keys.len();
        if n > MAX_REORDER {
            return "invalid ring signature (if the message and signature are right, --ring must list the members in the order used at signing)".into();
        }
        let mut order: Vec<usize> = (0..n).collect();
        while next_permutation(&mut order) {
            let permuted: Vec<&Vec<u8>> = order.iter().map(|&i| &keys[i]).collect();
            let valid = AnyRing::from_public_keys(self.scheme, &permuted)
                .is_ok_and(|r| r.verify(msg, sig).is_ok());
            if valid {
                let files: Vec<String> = order
                    .iter()
                    .map(|&i| self.ring[i].display().to_string())
                    .collect();
                return format!(
                    "invalid ring signature: --ring lists the members in another order than at signing (it verifies with --ring {})",
                    files.join(",")
                );
            }
        }
        "invalid ring signature".into()
    }
}

/// Rings of at most this many members are tried in every other order (4! = 24 verifications)
/// to tell a reordered ring from a bad signature.
const MAX_REORDER: usize = 4;

/// The next permutation of `v` in lexicographic order; false (and `v` unchanged) after the last.
fn next_permutation(v: &mut [usize]) -> bool {
    let Some(i) = (1..v.len()).rev().find(|&i| v[i - 1] < v[i]) else {
        return false;
    };
    let Some(j) = (i..v.len()).rev().find(|&j| v[j] > v[i - 1]) else {
        return false;
    };
    v.swap(i - 1, j);
    v[i..].reverse();
    true
}

/// Runs `alibi ring <verb>`.
pub fn run(cmd: Cmd) -> CmdResult {
    match cmd {
        Cmd::Keygen(a) => keygen(a),
        Cmd::Sign(a) => sign(a),
        Cmd::Verify(a) => verify(a),
    }
}

/// `alibi ring keygen`.
fn keygen(
    KeygenArgs {
        scheme,
        out,
        format,
    }: KeygenArgs,
) -> CmdResult {
    out.check()?;
    let (pk, sk) = scheme.generate(&mut os_rng());
    out.write(scheme.name(), &pk, &sk, format)
}

/// `alibi ring sign`.
fn sign(
    SignArgs {
        sk,
        ring,
        msg,
        out,
        force,
        format,
    }: SignArgs,
) -> CmdResult {
    check_json(format.json, &[("--out", &out)])?;
    let mut inputs = vec![("--sk", sk.as_path()), ("--msg", &msg)];
    inputs.extend(ring.ring.iter().map(|p| ("--ring", p.as_path())));
    check_outputs(&[("--out", &out, SIGNATURE)], &inputs, force)?;
    let (ring, _) = ring.load()?;
    let skb = read_secret(&sk, "a ring member's secret key")?;
    let msg = read(&msg)?;
    let key = AnySigningKey::from_bytes(ring.scheme(), &skb).map_err(|e| {
        malformed(
            &format!("{} secret key in {}", ring.scheme(), sk.display()),
            e,
        )
    })?;
    let sig = ring.sign(&key, &msg, &mut os_rng()).map_err(usage)?;
    let written = place_outputs(
        &[Output {
            flag: "--out",
            path: &out,
            kind: SIGNATURE,
            data: &sig,
        }],
        force,
    )?;
    format.wrote(json!({
        "scheme": ring.scheme().name(),
        "members": ring.len(),
        "signature": file_json(&out, sig.len()),
    }))?;
    written.keep();
    Ok(())
}

/// `alibi ring verify`.
fn verify(
    VerifyArgs {
        ring,
        msg,
        sig,
        format,
    }: VerifyArgs,
) -> CmdResult {
    let (any, keys) = ring.load()?;
    let msg = read(&msg)?;
    let sigb = read_input(&sig, "a ring signature")?;
    let ok = match any.verify(&msg, &sigb) {
        Ok(()) => true,
        Err(Error::InvalidSignature) => false,
        Err(e) => {
            return Err(malformed(
                &format!("ring signature in {}", sig.display()),
                e,
            ))
        }
    };
    let fields = json!({"scheme": any.scheme().name(), "members": any.len()});
    format.verdict(
        if ok {
            Ok(None)
        } else {
            Err(ring.invalid_reason(&keys, &msg, &sigb))
        },
        fields,
    )
}
