//! `alibi mpc keygen|sign|verify --scheme frost-ed25519|frost-secp256k1-tr|ecdsa-secp256k1` and
//! `alibi mpc aux`: the threshold schemes of established crates, each party its own process,
//! over the same group file, relay and channels as threshold BLS.

use std::path::{Path, PathBuf};
use std::time::Instant;

use alibi_mpc::group::GroupFile;
use alibi_mpc::net::{Net, NetConfig};
use alibi_mpc::relay::{Mode, RelayParty};
use alibi_mpc::threshold::{self, PrimeProgress, Primes, Scheme, Share, PRIME_COUNT};
use alibi_mpc::PartyIndex;
use serde_json::json;

use super::{
    keygen_start, member, passphrase, protocol_failure, relay_party, Member, PassphraseArgs,
    RunArgs,
};
use crate::failure::{usage, CmdResult, Failure};
use crate::files::{
    check_outputs, read, read_input, read_secret, write, write_secret_first, write_unless_same,
    Kind, NewDir, Output,
};
use crate::net::runtime;
use crate::report::{file_json, Format};
use crate::rng::os_rng;

/// The keyfile purpose of a sealed threshold share.
const SHARE_PURPOSE: &str = "alibi mpc threshold share v1";

/// The keyfile purpose of sealed precomputed primes.
const PRIMES_PURPOSE: &str = "alibi mpc paillier primes v1";

/// What `sign` writes.
const SIGNATURE: Kind = Kind::Data("a signature");

fn share_path(dir: &Path, g: &GroupFile, scheme: Scheme) -> PathBuf {
    dir.join("shares")
        .join(format!("{}.{}.share", g.group_id, scheme.name()))
}

/// Where `mpc aux` leaves precomputed primes for the next ECDSA key generation.
pub(super) fn primes_path(dir: &Path) -> PathBuf {
    dir.join("primes.sealed")
}

fn seal(purpose: &str, data: &[u8], passphrase: &[u8]) -> Result<Vec<u8>, Failure> {
    alibi_keyfile::seal(
        purpose,
        data,
        passphrase,
        alibi_keyfile::Params::default(),
        &mut os_rng(),
    )
    .map_err(usage)
}

/// Prints the progress of the safe-prime search on stderr (a JSON line with `--json`).
fn prime_reporter(format: Format) -> impl FnMut(PrimeProgress) + Send {
    move |p| {
        let (event, text) = match p {
            PrimeProgress::Started { bits, count } => (
                json!({"event": "primes", "state": "started", "bits": bits, "count": count}),
                format!("alibi: generating {count} {bits}-bit safe primes for the Paillier key and ring-Pedersen modulus (slow: seconds to minutes; `alibi mpc aux` does it ahead of time)"),
            ),
            PrimeProgress::Searching { index, candidates, elapsed } => (
                json!({"event": "primes", "state": "searching", "prime": index + 1, "candidates": candidates, "elapsed_s": elapsed.as_secs()}),
                format!("alibi: still searching for safe prime {} of {PRIME_COUNT} ({candidates} candidates tested, {} s)", index + 1, elapsed.as_secs()),
            ),
            PrimeProgress::Found { index, elapsed } => (
                json!({"event": "primes", "state": "found", "prime": index + 1, "elapsed_s": elapsed.as_secs()}),
                format!("alibi: found safe prime {} of {PRIME_COUNT} after {} s", index + 1, elapsed.as_secs()),
            ),
            PrimeProgress::Finished { elapsed } => (
                json!({"event": "primes", "state": "finished", "elapsed_s": elapsed.as_secs()}),
                format!("alibi: safe primes ready after {} s", elapsed.as_secs()),
            ),
        };
        let line = if format.json { event.to_string() } else { text };
        // Best effort: a closed stderr must not stop the work.
        let _ = std::io::Write::write_all(&mut std::io::stderr(), format!("{line}\n").as_bytes());
    }
}

/// `alibi mpc aux`: the safe primes of threshold ECDSA's key generation, ahead of time, sealed
/// in the party's directory.
pub(super) fn aux(
    dir: &Path,
    from: Option<&Path>,
    force: bool,
    pass: &PassphraseArgs,
    format: Format,
) -> CmdResult {
    let out = primes_path(dir);
    let identity = dir.join(alibi_messenger::IDENTITY_FILE);
    if !identity.exists() {
        return Err(Failure::Usage(format!(
            "{}: no party here (run `alibi mpc init` first)",
            dir.display()
        )));
    }
    let inputs: Vec<(&'static str, &Path)> = from.iter().map(|f| ("--from", *f)).collect();
    check_outputs(&[("--dir", &out, Kind::Secret)], &inputs, force)?;
    let given = from
        .map(|f| {
            let bytes = read_secret(f, "safe primes")?;
            Primes::from_bytes(&bytes).map_err(|e| Failure::Usage(format!("{}: {e}", f.display())))
        })
        .transpose()?;
    let passphrase = passphrase(pass)?;
    let start = Instant::now();
    let primes = match given {
        Some(p) => p,
        None => threshold::generate_primes(prime_reporter(format)),
    };
    let sealed = seal(PRIMES_PURPOSE, &primes.to_bytes(), &passphrase)?;
    write("--dir", &out, Kind::Secret, &sealed, force)?;
    let took = start.elapsed().as_secs_f64();
    format.report(
        format!(
            "safe primes for the next ecdsa-secp256k1 key generation sealed in {} ({took:.1} s); used once",
            out.display()
        ),
        json!({"primes": file_json(&out, sealed.len()), "s": took}),
    )
}

/// The first wait of an ecdsa-secp256k1 key generation unless `--timeout-s` says otherwise: a
/// party without `mpc aux` primes searches for them first (a set took 18 to 39 s on one thread
/// of the build machine, longer with several parties on one machine), while the others wait.
const ECDSA_KEYGEN_TIMEOUT_S: u64 = 300;

/// The primes of this party's ECDSA key generation: those `mpc aux` (or a failed run) left, or
/// new ones, searched for now and sealed in the party's directory before the run, so that a
/// failed run leaves them for the next. A successful run deletes them (one key generation per
/// set). The party searches once connected, after telling the others ([`SEARCHING_PRIMES`]):
/// its delivery socket stays alive meanwhile (pinged), and what the others send waits for it.
fn search_primes(dir: &Path, passphrase: &[u8], format: Format) -> Result<Primes, Failure> {
    let primes = threshold::generate_primes(prime_reporter(format));
    let sealed = seal(PRIMES_PURPOSE, &primes.to_bytes(), passphrase)?;
    write("--dir", &primes_path(dir), Kind::Secret, &sealed, false)?;
    Ok(primes)
}

/// What a party without primes tells the others before it searches for them: their waiting
/// lines show it beside its name.
const SEARCHING_PRIMES: &str = "searching for its safe primes before it takes part: a minute \
                                or more, up to about 3 minutes on two cores";

/// The primes `mpc aux` left, if any (taken: primes serve one key generation only).
fn take_primes(dir: &Path, passphrase: &[u8]) -> Result<Option<Primes>, Failure> {
    let path = primes_path(dir);
    if !path.exists() {
        return Ok(None);
    }
    let sealed = read_secret(&path, "sealed primes")?;
    let bytes = alibi_keyfile::open(PRIMES_PURPOSE, &sealed, passphrase)
        .map_err(|e| Failure::Usage(format!("{}: {e}", path.display())))?;
    let primes = Primes::from_bytes(&bytes)
        .map_err(|e| Failure::Usage(format!("{}: {e}", path.display())))?;
    Ok(Some(primes))
}

/// A net for this party's run among `participants`, over the group's channels.
fn connect(
    m: Member,
    run: &RunArgs,
    what: &'static str,
    session: alibi_mpc::SessionId,
    participants: &[PartyIndex],
    format: Format,
) -> Result<(GroupFile, Net<RelayParty>), Failure> {
    let (group, party) = relay_party(m, run, what, format)?;
    let config = NetConfig {
        timeout: run.timeout(),
        reliable: false,
    };
    let identity = party.party();
    let net = Net::new(party, identity, session, participants, config).map_err(usage)?;
    Ok((group, net))
}

/// `alibi mpc keygen --scheme S` for a scheme other than BLS: `job` is the party's directory,
/// the group file, `--pk-out` and `--session`.
pub(super) fn keygen(
    scheme: Scheme,
    job @ (dir, _, pk_out, session): (&Path, &Path, &Path, Option<&str>),
    #[cfg(adversary)] cheat: Option<alibi_mpc::dkg::Misbehaviour>,
    run: &RunArgs,
    force: bool,
    pass: &PassphraseArgs,
    format: Format,
) -> CmdResult {
    // The others may search for primes before they connect: a longer first wait by default.
    let run = &match scheme {
        Scheme::EcdsaSecp256k1 => run.waiting_by_default(ECDSA_KEYGEN_TIMEOUT_S),
        _ => run.clone(),
    };
    let (group, share_file, passphrase) =
        keygen_start(job, |g| share_path(dir, g, scheme), run, force, pass)?;
    let kept = match scheme {
        Scheme::EcdsaSecp256k1 => take_primes(dir, &passphrase)?,
        _ => None,
    };
    let had_primes = scheme == Scheme::EcdsaSecp256k1;
    runtime()?.block_on(async {
        let m = member(dir, group, &passphrase, run.timeout()).await?;
        let me = m.me;
        let what = format!("keygen {}", scheme.name());
        let id = session.unwrap_or("");
        let name = session;
        let session = m.group.session(&what, id);
        super::claim_session(dir, &session, &what, name)?;
        let parties = m.group.run_parties();
        let what = match scheme {
            Scheme::EcdsaSecp256k1 => super::ECDSA_KEYGEN,
            _ => "key generation",
        };
        let (group, net) = connect(m, run, what, session, &parties, format)?;
        #[cfg(adversary)]
        misbehave(&net, cheat).await?;
        let primes = match (scheme, kept) {
            (Scheme::EcdsaSecp256k1, None) => {
                // The others are told who keeps them waiting, and for about how long.
                net.announce(SEARCHING_PRIMES).await;
                Some(search_primes(dir, &passphrase, format)?)
            }
            (_, kept) => kept,
        };
        let start = Instant::now();
        let mut progress = prime_reporter(format);
        let share = threshold::keygen(&net, scheme, group.threshold, primes, &mut progress)
            .await
            .map_err(|e| protocol_failure(&group, me, dir, "key generation", e))?;
        let took = start.elapsed();
        let sealed = seal(SHARE_PURPOSE, &share.to_bytes(), &passphrase)?;
        let shares = NewDir::create(share_file.parent().unwrap_or(dir))?;
        let secret = Output { flag: "--dir", path: &share_file, kind: Kind::Secret, data: &sealed };
        let public = Output { flag: "--pk-out", path: pk_out, kind: Kind::PublicKey, data: share.public_key() };
        // The share first: it cannot be made again, and the others' --pk-out may be this one.
        let written = write_secret_first(&secret, &[public], force);
        shares.keep();
        if had_primes {
            // Used: a second key generation must not reuse the Paillier key.
            let _ = std::fs::remove_file(primes_path(dir));
        }
        written?;
        let key = hex::encode(share.public_key());
        let names: Vec<String> = parties.iter().map(|&p| group.name_of(p)).collect();
        format.report(
            format!(
                "keygen {scheme}: {} is party {me} of {}, t = {} ({} to sign), {} channels: {:.0} ms\n\
                 public key: {key}\nparties: {}\nshare sealed in {}; public key written to {}",
                group.name_of(me),
                parties.len(),
                group.threshold,
                group.threshold + 1,
                Mode::from(run.transport),
                took.as_secs_f64() * 1e3,
                names.join(", "),
                share_file.display(),
                pk_out.display()
            ),
            json!({"scheme": scheme.name(), "party": group.name_of(me), "index": me,
                   "group_id": group.group_id, "transport": Mode::from(run.transport).to_string(),
                   "ms": took.as_secs_f64() * 1e3,
                   "public_key": file_json(pk_out, share.public_key().len()),
                   "public_key_hex": key, "parties": names,
                   "share": file_json(&share_file, sealed.len())}),
        )
    })
}

/// Test builds: the cheat `--misbehave` asks for, where a run over a [`Net`] has one.
#[cfg(adversary)]
async fn misbehave(
    net: &Net<RelayParty>,
    cheat: Option<alibi_mpc::dkg::Misbehaviour>,
) -> Result<(), Failure> {
    match cheat {
        None => Ok(()),
        Some(alibi_mpc::dkg::Misbehaviour::MisdealTo(victim)) => {
            net.misdeal_to(victim).await;
            Ok(())
        }
        Some(_) => Err(Failure::Usage(
            "--misbehave: FROST and ECDSA take misdeal:J only".into(),
        )),
    }
}

/// Opens this party's sealed share of `group` for `scheme`.
fn load_share(
    dir: &Path,
    group: &GroupFile,
    scheme: Scheme,
    passphrase: &[u8],
    me: PartyIndex,
) -> Result<Share, Failure> {
    let path = share_path(dir, group, scheme);
    let sealed = read_secret(&path, "a sealed key share")?;
    let bytes = alibi_keyfile::open(SHARE_PURPOSE, &sealed, passphrase)
        .map_err(|e| Failure::Usage(format!("{}: {e}", path.display())))?;
    let share = Share::from_bytes(&bytes)
        .map_err(|e| Failure::Usage(format!("{}: {e}", path.display())))?;
    let indices = group.indices();
    if share.scheme() != scheme
        || share.me() != me
        || share.parties().iter().any(|p| !indices.contains(p))
        || share.threshold() != group.threshold
    {
        return Err(Failure::Usage(format!(
            "{}: the share belongs to another party, group or scheme",
            path.display()
        )));
    }
    Ok(share)
}

/// The signers: exactly t+1 (the schemes sign with exactly that many), named, or all parties of
/// key generation when they are exactly t+1.
fn signers_of(
    group: &GroupFile,
    share: &Share,
    names: Option<Vec<String>>,
    me: PartyIndex,
) -> Result<Vec<PartyIndex>, Failure> {
    let needed = share.threshold() + 1;
    let mut signers: Vec<PartyIndex> = match names {
        Some(names) => names
            .iter()
            .map(|n| {
                group
                    .index_named(n)
                    .ok_or_else(|| Failure::Usage(format!("--signers: no party named {n}")))
            })
            .collect::<Result<_, _>>()?,
        None if share.parties().len() == needed => share.parties().to_vec(),
        None => {
            return Err(Failure::Usage(format!(
                "--signers: {} signs with exactly t+1 = {needed} of the {} parties; name them",
                share.scheme(),
                share.parties().len()
            )))
        }
    };
    signers.sort_unstable();
    if signers.windows(2).any(|w| w[0] == w[1]) {
        return Err(Failure::Usage("--signers: a party appears twice".into()));
    }
    if let Some(p) = signers.iter().find(|p| !share.parties().contains(p)) {
        return Err(Failure::Usage(format!(
            "--signers: {} holds no share of this key",
            group.name_of(*p)
        )));
    }
    if signers.len() != needed {
        return Err(Failure::Usage(format!(
            "--signers: {} signs with exactly t+1 = {needed} parties, not {}",
            share.scheme(),
            signers.len()
        )));
    }
    if !signers.contains(&me) {
        return Err(Failure::Usage(format!(
            "{} is not among the signers",
            group.name_of(me)
        )));
    }
    Ok(signers)
}

/// A signing run's inputs, checked by the caller (`mpc::sign_start`).
pub(super) struct Signing<'a> {
    /// The party's directory.
    pub dir: &'a Path,
    /// The group, with `--exclude` applied.
    pub group: GroupFile,
    /// The message.
    pub msg: &'a [u8],
    /// The run's name.
    pub session: &'a str,
    /// `--out` and `--force`.
    pub out: (&'a Path, bool),
    /// `--signers`.
    pub signers: Option<Vec<String>>,
    /// The passphrase.
    pub passphrase: &'a [u8],
}

/// `alibi mpc sign --scheme S` for a scheme other than BLS.
pub(super) fn sign(scheme: Scheme, job: Signing, run: &RunArgs, format: Format) -> CmdResult {
    let Signing {
        dir,
        group,
        msg,
        session,
        out: (out, force),
        signers,
        passphrase,
    } = job;
    runtime()?.block_on(async {
        let m = member(dir, group, passphrase, run.timeout()).await?;
        let me = m.me;
        let share = load_share(dir, &m.group, scheme, passphrase, me)?;
        let signers = signers_of(&m.group, &share, signers, me)?;
        let listed: Vec<String> = signers.iter().map(u16::to_string).collect();
        let what = format!("sign {} by {}", scheme.name(), listed.join(","));
        let name = session;
        let session = m.group.session(&what, session);
        super::claim_session(dir, &session, "signing", Some(name))?;
        let (group, net) = connect(m, run, "signing", session, &signers, format)?;
        let start = Instant::now();
        let sig = threshold::sign(&net, &share, msg)
            .await
            .map_err(|e| protocol_failure(&group, me, dir, "signing", e))?;
        let took = start.elapsed();
        let sig_out = Output { flag: "--out", path: out, kind: SIGNATURE, data: &sig };
        write_unless_same(&[sig_out], force)?;
        let names: Vec<String> = signers.iter().map(|&p| group.name_of(p)).collect();
        format.report(
            format!(
                "signed ({scheme}) by {} over {} channels in {:.0} ms; the signature verifies under the group key; wrote {}",
                names.join(", "),
                Mode::from(run.transport),
                took.as_secs_f64() * 1e3,
                out.display()
            ),
            json!({"scheme": scheme.name(), "signers": names, "transport": Mode::from(run.transport).to_string(),
                   "ms": took.as_secs_f64() * 1e3, "signature": file_json(out, sig.len())}),
        )
    })
}

/// `alibi mpc verify --scheme S`: the scheme's standard verification, by an independent
/// verifier.
pub(super) fn verify(
    scheme: Scheme,
    pk: &Path,
    msg: &Path,
    sig: &Path,
    format: Format,
) -> CmdResult {
    let pkb = read_input(pk, scheme.public_key_words())?;
    let sigb = read_input(sig, "a 64-byte signature")?;
    let msg = read(msg)?;
    if pkb.len() != scheme.public_key_len() {
        return Err(Failure::Usage(format!(
            "{} is not {} ({} bytes)",
            pk.display(),
            scheme.public_key_words(),
            pkb.len()
        )));
    }
    if sigb.len() != scheme.signature_len() {
        return Err(Failure::Usage(format!(
            "{} is not a signature of {scheme} (64 bytes; {} bytes)",
            sig.display(),
            sigb.len()
        )));
    }
    let fields = json!({"scheme": scheme.name()});
    match threshold::verify(scheme, &pkb, &msg, &sigb) {
        Ok(()) => format.verdict(Ok(None), fields),
        Err(threshold::VerifyError::Invalid) => {
            format.verdict(Err("invalid signature".into()), fields)
        }
        Err(threshold::VerifyError::Malformed(m)) => Err(Failure::Usage(format!(
            "{} or {}: {m}",
            pk.display(),
            sig.display()
        ))),
    }
}
