//! `alibi ring keygen|sign|verify`: rings of Falcon keys (GANDALF[Falcon]), of Antrag keys
//! (GANDALF[Antrag, Mitaka]) or of MAYO keys (MAYO-RS). Falcon members are plain Falcon public keys
//! in the standard encoding, so keys from `alibi falcon keygen` (or any Falcon implementation) can
//! join a ring; Antrag members are the SHADOWFAX artifact's raw h (896 bytes; secret keys f, g, F,
//! G as 2,048 signed bytes); MAYO members are compact MAYO public keys (liboqs's encoding). The
//! scheme of `sign` and `verify` follows from the ring's key lengths, or from `--scheme`, which must
//! then agree with them.

use std::path::PathBuf;

use alibi_falcon::{Level, SigningKey};
use alibi_mayo::ring::{Ring as MayoRing, RingSignature as MayoRingSignature};
use alibi_mayo::Params as Mayo;
use alibi_ringsig::{Ring, RingSignature, Trapdoor};
use clap::{Subcommand, ValueEnum};
use serde_json::json;

use crate::failure::{malformed, usage, CmdResult, Failure};
use crate::files::{read, read_input, read_secret, write, Kind};
use crate::keys::KeyPairOut;
use crate::report::Format;
use crate::rng::os_rng;

/// `alibi ring <verb>`.
#[derive(Subcommand, Debug)]
pub enum Cmd {
    /// Generate a ring member's key pair (Falcon keys are plain Falcon keys)
    Keygen {
        /// The ring signature scheme
        #[arg(long, value_enum)]
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
        /// The message
        #[arg(long, value_name = "FILE")]
        msg: PathBuf,
        /// Where to write the ring signature
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
    },
    /// Verify a ring signature: exit 0 if valid, 1 if not, 2 if an input is malformed
    Verify {
        #[command(flatten)]
        ring: RingArgs,
        /// The message
        #[arg(long, value_name = "FILE")]
        msg: PathBuf,
        /// The ring signature
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
    #[arg(long, value_enum)]
    scheme: Option<Scheme>,
}

/// The ring signatures.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scheme {
    /// GANDALF over Falcon-512 keys
    Falcon512,
    /// GANDALF over Falcon-1024 keys
    Falcon1024,
    /// GANDALF[Antrag, Mitaka] over Antrag keys at Falcon-512's lattice (the SHADOWFAX artifact's)
    Mitaka512,
    /// MAYO-RS over MAYO_1 keys
    Mayo1,
    /// MAYO-RS over MAYO_2 keys
    Mayo2,
}

impl Scheme {
    fn name(self) -> &'static str {
        match self {
            Scheme::Falcon512 => "falcon512",
            Scheme::Falcon1024 => "falcon1024",
            Scheme::Mitaka512 => "mitaka512",
            Scheme::Mayo1 => "mayo1",
            Scheme::Mayo2 => "mayo2",
        }
    }

    fn falcon(self) -> Option<Level> {
        match self {
            Scheme::Falcon512 => Some(Level::Falcon512),
            Scheme::Falcon1024 => Some(Level::Falcon1024),
            _ => None,
        }
    }

    fn mayo(self) -> Option<Mayo> {
        match self {
            Scheme::Mayo1 => Some(Mayo::Mayo1),
            Scheme::Mayo2 => Some(Mayo::Mayo2),
            _ => None,
        }
    }

    /// The scheme whose public keys have this length.
    fn of_public_key(len: usize) -> Option<Scheme> {
        Scheme::value_variants().iter().copied().find(|s| {
            s.falcon().map(|l| l.public_key_len()) == Some(len)
                || s.mayo().map(|p| p.public_key_bytes()) == Some(len)
                || (*s == Scheme::Mitaka512 && len == alibi_mitaka::PUBLIC_KEY_LEN)
        })
    }
}

/// A ring of either kind, from its key files.
enum AnyRing {
    Falcon(Ring),
    Mayo(MayoRing),
}

impl RingArgs {
    /// The ring, of the scheme `--scheme` names or the first key's length implies.
    fn load(&self) -> Result<(AnyRing, Scheme), Failure> {
        let keys = self
            .ring
            .iter()
            .map(|p| read_input(p, "a ring member's public key"))
            .collect::<Result<Vec<Vec<u8>>, Failure>>()?;
        let first = &self.ring[0];
        let implied = Scheme::of_public_key(keys[0].len());
        let scheme = match (self.scheme, implied) {
            (Some(s), Some(i)) if s != i => {
                return Err(Failure::Usage(format!(
                    "--scheme is {} but {} is a {} key",
                    s.name(),
                    first.display(),
                    i.name()
                )))
            }
            (Some(s), _) | (None, Some(s)) => s,
            (None, None) => {
                return Err(Failure::Usage(format!(
                    "{} ({} bytes) is no ring member's public key (falcon512, falcon1024, mitaka512, mayo1, mayo2)",
                    first.display(),
                    keys[0].len()
                )))
            }
        };
        let ring = match scheme.mayo() {
            None if scheme == Scheme::Mitaka512 => keys
                .iter()
                .map(|k| alibi_mitaka::VerifyingKey::from_bytes(k))
                .collect::<Result<Vec<_>, _>>()
                .map_err(alibi_ringsig::Error::from)
                .and_then(|m| Ring::mitaka(&m))
                .map(AnyRing::Falcon)
                .map_err(|e| malformed("ring", e))?,
            None => Ring::from_public_keys(&keys)
                .map(AnyRing::Falcon)
                .map_err(|e| malformed("ring", e))?,
            Some(p) => MayoRing::from_public_keys(p, &keys)
                .map(AnyRing::Mayo)
                .map_err(|e| malformed("ring", e))?,
        };
        Ok((ring, scheme))
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
            let (pk, sk) = match (scheme.falcon(), scheme.mayo()) {
                _ if scheme == Scheme::Mitaka512 => {
                    let k = alibi_mitaka::SigningKey::generate(&mut os_rng());
                    (k.verifying_key().to_bytes(), k.to_bytes())
                }
                (Some(level), _) => {
                    let k = SigningKey::generate(level, &mut os_rng());
                    (k.verifying_key().to_bytes(), k.to_bytes())
                }
                (_, Some(p)) => {
                    let k = alibi_mayo::SigningKey::generate(p, &mut os_rng());
                    (k.public_key_bytes().to_vec(), k.to_bytes())
                }
                (None, None) => unreachable!("every scheme is Falcon, Mitaka or MAYO"),
            };
            out.write(scheme.name(), &pk, &sk, format)
        }
        Cmd::Sign { sk, ring, msg, out } => {
            let (ring, _) = ring.load()?;
            let skb = read_secret(&sk, "a ring member's secret key")?;
            let msg = read(&msg)?;
            let sig = match ring {
                AnyRing::Falcon(ring) if ring.trapdoor() == Trapdoor::AntragMitaka => {
                    let key = alibi_mitaka::SigningKey::from_bytes(&skb).map_err(|e| {
                        malformed(&format!("Antrag secret key in {}", sk.display()), e)
                    })?;
                    ring.sign(&key.expand(), &msg, &mut os_rng())
                        .map_err(usage)?
                        .to_bytes()
                }
                AnyRing::Falcon(ring) => {
                    let key = SigningKey::from_bytes(&skb).map_err(|e| {
                        malformed(&format!("Falcon secret key in {}", sk.display()), e)
                    })?;
                    ring.sign(&key.expand(), &msg, &mut os_rng())
                        .map_err(usage)?
                        .to_bytes()
                }
                AnyRing::Mayo(ring) => {
                    let key =
                        alibi_mayo::SigningKey::from_bytes(ring.params(), &skb).map_err(|e| {
                            malformed(&format!("MAYO secret key in {}", sk.display()), e)
                        })?;
                    ring.sign(&key, &msg, &mut os_rng())
                        .map_err(usage)?
                        .to_bytes()
                }
            };
            write("--out", &out, Kind::Data, &sig, false)
        }
        Cmd::Verify {
            ring,
            msg,
            sig,
            format,
        } => {
            let (ring, scheme) = ring.load()?;
            let msg = read(&msg)?;
            let sigb = read_input(&sig, "a ring signature")?;
            let bad = |e: &dyn std::fmt::Display| {
                malformed(&format!("ring signature in {}", sig.display()), e)
            };
            let ok = match &ring {
                AnyRing::Falcon(r) => {
                    let s = RingSignature::from_bytes(r, &sigb).map_err(|e| bad(&e))?;
                    r.verify(&msg, &s).is_ok()
                }
                AnyRing::Mayo(r) => {
                    let s = MayoRingSignature::from_bytes(r, &sigb).map_err(|e| bad(&e))?;
                    r.verify(&msg, &s).is_ok()
                }
            };
            let members = match &ring {
                AnyRing::Falcon(r) => r.len(),
                AnyRing::Mayo(r) => r.len(),
            };
            let fields = json!({"scheme": scheme.name(), "members": members});
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
