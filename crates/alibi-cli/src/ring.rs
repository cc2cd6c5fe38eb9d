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
    Keygen {
        /// The ring signature scheme
        #[arg(long, value_parser = scheme_parser())]
        scheme: Scheme,
        #[command(flatten)]
        out: KeyPairOut,
        #[command(flatten)]
        format: Format,
    },
    /// Sign a file on behalf of a ring that holds the signer's public key
    Sign {
        /// The signer's secret key
        #[arg(long, value_name = "FILE")]
        sk: PathBuf,
        #[command(flatten)]
        ring: RingArgs,
        /// The message (- for stdin)
        #[arg(long, value_name = "FILE")]
        msg: PathBuf,
        /// Where to write the ring signature (- for stdout)
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
        /// Replace a file that already exists at --out (never one that holds a secret key, a
        /// keyfile, a store or a manager's or party's state, nor an input)
        #[arg(long)]
        force: bool,
        #[command(flatten)]
        format: Format,
    },
    /// Verify a ring signature: exit 0 if valid, 1 if not, 2 if an input is malformed
    Verify {
        #[command(flatten)]
        ring: RingArgs,
        /// The message (- for stdin)
        #[arg(long, value_name = "FILE")]
        msg: PathBuf,
        /// The ring signature (- for stdin)
        #[arg(long, value_name = "FILE")]
        sig: PathBuf,
        #[command(flatten)]
        format: Format,
    },
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
    /// The ring, of the scheme `--scheme` names or the first key's length implies
    /// (alibi-ringsig tells the schemes apart).
    fn load(&self) -> Result<AnyRing, Failure> {
        let keys = self
            .ring
            .iter()
            .map(|p| read_input(p, "a ring member's public key"))
            .collect::<Result<Vec<Vec<u8>>, Failure>>()?;
        AnyRing::from_public_keys(self.scheme, &keys).map_err(|e| match e {
            Error::SchemeMismatch { .. } | Error::UnknownPublicKey(_) => {
                Failure::Usage(format!("{}: {e}", self.ring[0].display()))
            }
            e => malformed("ring", e),
        })
    }
}

/// Runs `alibi ring <verb>`.
pub fn run(cmd: Cmd) -> CmdResult {
    match cmd {
        Cmd::Keygen {
            scheme,
            out,
            format,
        } => {
            out.check()?;
            let (pk, sk) = scheme.generate(&mut os_rng());
            out.write(scheme.name(), &pk, &sk, format)
        }
        Cmd::Sign {
            sk,
            ring,
            msg,
            out,
            force,
            format,
        } => {
            check_json(format.json, &[("--out", &out)])?;
            let mut inputs = vec![("--sk", sk.as_path()), ("--msg", &msg)];
            inputs.extend(ring.ring.iter().map(|p| ("--ring", p.as_path())));
            check_outputs(&[("--out", &out, SIGNATURE)], &inputs, force)?;
            let ring = ring.load()?;
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
        Cmd::Verify {
            ring,
            msg,
            sig,
            format,
        } => {
            let ring = ring.load()?;
            let msg = read(&msg)?;
            let sigb = read_input(&sig, "a ring signature")?;
            let ok = match ring.verify(&msg, &sigb) {
                Ok(()) => true,
                Err(Error::InvalidSignature) => false,
                Err(e) => {
                    return Err(malformed(
                        &format!("ring signature in {}", sig.display()),
                        e,
                    ))
                }
            };
            let fields = json!({"scheme": ring.scheme().name(), "members": ring.len()});
            format.verdict(
                if ok {
                    Ok(None)
                } else {
                    Err("invalid ring signature".into())
                },
                fields,
            )
        }
    }
}
