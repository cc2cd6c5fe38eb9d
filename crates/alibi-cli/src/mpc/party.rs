//! What one party runs, for every scheme alike: `alibi mpc keygen`, `sign` and `verify`. The
//! scheme is data here (its share file, its sessions, its signer rule); the runs themselves
//! are `alibi_mpc::endpoint`'s.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use alibi_mpc::endpoint::{Endpoint, Keygen, PrimeSource, Signature, Signing};
use alibi_mpc::group::GroupFile;
use alibi_mpc::relay::{Mode, RelayParty};
use alibi_mpc::scheme::{
    verify as verify_signature, DerivationPath, Scheme, Share, SignerFault, VerifyError,
};
use alibi_mpc::{PartyIndex, SessionId};
use serde_json::json;
use zeroize::Zeroizing;

use super::args::{KeygenArgs, RunArgs, SignArgs, VerifyArgs};
use super::primes::{self, ECDSA_KEYGEN_TIMEOUT_S, SEARCHING_PRIMES};
use super::report::{disagreeing, named, protocol_failure, strays, strays_line, ECDSA_KEYGEN};
use super::setup::{claim_session, exclude, member, passphrase, read_group, relay_party, seal};
use crate::failure::{CmdResult, Failure};
use crate::files::{
    check_json, check_outputs, read, read_input, read_secret, write_secret_first,
    write_unless_same, Kind, NewDir, Output,
};
use crate::net::runtime;
use crate::report::{file_json, Format};

/// A passphrase, wiped when dropped.
type Passphrase = Zeroizing<Vec<u8>>;

/// What `sign` writes.
const SIGNATURE: Kind = Kind::Data("a signature");

/// Where a party keeps its sealed share of `g` for `scheme`, and the keyfile purpose it is
/// sealed under (an identity file does not open as a share, nor a share of one kind as the
/// other's): BLS's name and purpose are those of the first release, kept so its files open.
pub(super) fn share_file(dir: &Path, g: &GroupFile, scheme: Scheme) -> (PathBuf, &'static str) {
    let shares = dir.join("shares");
    match scheme {
        Scheme::Bls => (
            shares.join(format!("{}.share", g.group_id)),
            "alibi mpc share v1",
        ),
        s => (
            shares.join(format!("{}.{}.share", g.group_id, s.name())),
            "alibi mpc threshold share v1",
        ),
    }
}

/// A key generation's session and the words its records and waiting lines use.
fn keygen_session(g: &GroupFile, scheme: Scheme, id: Option<&str>) -> (SessionId, String) {
    match (scheme, id) {
        (Scheme::Bls, None) => (g.keygen_session(), "key generation".into()),
        (Scheme::Bls, Some(id)) => (g.session("keygen", id), "key generation".into()),
        (s, id) => {
            let what = format!("keygen {}", s.name());
            (g.session(&what, id.unwrap_or("")), what)
        }
    }
}

/// What the waiting lines of a key generation call it.
fn keygen_waits(scheme: Scheme) -> &'static str {
    match scheme {
        Scheme::EcdsaSecp256k1 => ECDSA_KEYGEN,
        _ => "key generation",
    }
}

/// What every key generation checks before it connects: the group (less `--exclude`), a
/// named session, the share and `--pk-out` free to write or `--force`; then the passphrase.
/// Gives the group, the share's path and the passphrase.
fn keygen_start(
    a: &KeygenArgs,
    scheme: Scheme,
    run: &RunArgs,
) -> Result<(GroupFile, PathBuf, Passphrase), Failure> {
    let group = exclude(&a.group, read_group(&a.group)?, &run.exclude, &a.dir)?;
    if a.session.as_deref() == Some("") {
        return Err(Failure::Usage("--session: give the run a name".into()));
    }
    let (share, _) = share_file(&a.dir, &group, scheme);
    check_outputs(
        &[
            ("--dir", share.as_path(), Kind::Secret),
            ("--pk-out", &a.pk_out, Kind::PublicKey),
        ],
        &[("--group", &a.group)],
        a.force,
    )?;
    Ok((group, share, passphrase(&a.passphrase)?))
}

/// Threshold ECDSA's primes: those `mpc aux` (or a failed run) left, else a search once
/// connected, after the others are told.
fn prime_source(
    scheme: Scheme,
    dir: &Path,
    passphrase: &Passphrase,
    format: Format,
) -> Result<Option<PrimeSource>, Failure> {
    if !scheme.needs_primes() {
        return Ok(None);
    }
    if let Some(kept) = primes::take(dir, passphrase)? {
        return Ok(Some(PrimeSource::Given(kept)));
    }
    let (dir, passphrase) = (dir.to_path_buf(), passphrase.clone());
    Ok(Some(PrimeSource::Search {
        note: Some(SEARCHING_PRIMES.into()),
        search: Box::new(move || primes::search(&dir, &passphrase, format).map_err(|f| f.line())),
    }))
}

/// `alibi mpc keygen`, as one party, for any scheme.
pub(super) fn keygen(a: KeygenArgs) -> CmdResult {
    let scheme = Scheme::from(a.scheme);
    // The others may search for primes before they connect: a longer first wait by default.
    let run = &match scheme {
        Scheme::EcdsaSecp256k1 => a.run.waiting_by_default(ECDSA_KEYGEN_TIMEOUT_S),
        _ => a.run.clone(),
    };
    let (group, share_path, passphrase) = keygen_start(&a, scheme, run)?;
    let dir = a.dir.as_path();
    let primes = prime_source(scheme, dir, &passphrase, a.format)?;
    runtime()?.block_on(async {
        let m = member(dir, group, &passphrase, run.timeout()).await?;
        let me = m.me;
        let (session, what) = keygen_session(&m.group, scheme, a.session.as_deref());
        claim_session(dir, &session, &what, a.session.as_deref())?;
        let parties = m.group.run_parties();
        let (group, party) = relay_party(m, run, keygen_waits(scheme), a.format)?;
        let identity = party.party();
        let mut endpoint = Endpoint::new(party, identity);
        let job = Keygen {
            primes,
            #[cfg(adversary)]
            misbehaviour: a.misbehave,
            ..Keygen::new(scheme, session, group.threshold, parties, run.timeout())
        };
        let start = Instant::now();
        let share = endpoint
            .keygen(job)
            .await
            .map_err(|e| protocol_failure(&group, me, dir, "key generation", e))?;
        let took = start.elapsed();
        let (_, purpose) = share_file(dir, &group, scheme);
        let sealed = seal(purpose, &share.to_bytes(), &passphrase)?;
        let shares = NewDir::create(share_path.parent().unwrap_or(dir))?;
        let secret = Output {
            flag: "--dir",
            path: &share_path,
            kind: Kind::Secret,
            data: &sealed,
        };
        let public = Output {
            flag: "--pk-out",
            path: &a.pk_out,
            kind: Kind::PublicKey,
            data: share.public_key(),
        };
        // The share first: it cannot be made again, and the others' --pk-out may be this one.
        let written = write_secret_first(&secret, &[public], a.force);
        shares.keep();
        if scheme.needs_primes() {
            // Used: a second key generation must not reuse the Paillier key.
            let _ = std::fs::remove_file(primes::path(dir));
        }
        written?;
        let ran = Ran::of(&group, &endpoint, run, took);
        let files = ((share_path.as_path(), sealed.len()), a.pk_out.as_path());
        keygen_report(&group, &ran, &share, files, a.format)
    })
}

/// What a run of this party was: its index, channels, duration and the stray frames it dropped.
pub(super) struct Ran {
    pub(super) me: PartyIndex,
    pub(super) mode: Mode,
    pub(super) took: Duration,
    strays: BTreeMap<String, u64>,
}

impl Ran {
    /// What this party's run over `endpoint` was, once it took `took`.
    pub(super) fn of(
        g: &GroupFile,
        endpoint: &Endpoint<RelayParty>,
        run: &RunArgs,
        took: Duration,
    ) -> Self {
        Ran {
            me: endpoint.me(),
            mode: Mode::from(run.transport),
            took,
            strays: endpoint
                .transport()
                .map(|p| strays(g, p))
                .unwrap_or_default(),
        }
    }
}

/// The report of a finished key generation: the key, who qualified and who was excluded, and
/// where the share and key went.
fn keygen_report(
    group: &GroupFile,
    run: &Ran,
    share: &Share,
    ((share_file, sealed_len), pk_out): ((&Path, usize), &Path),
    format: Format,
) -> CmdResult {
    let scheme = share.scheme();
    let key = hex::encode(share.public_key());
    let names =
        |ps: &[PartyIndex]| -> Vec<String> { ps.iter().map(|&p| group.name_of(p)).collect() };
    let (parties, qualified) = (names(share.parties()), names(share.qualified()));
    let excluded = named(group, share.blamed());
    let (me, mode, took, strays) = (run.me, run.mode, run.took, &run.strays);
    let mut text = format!(
        "keygen {scheme}: {} is party {me} of {}, t = {} ({} to sign), {mode} channels: {:.0} ms\n\
         group key: {key}\nqualified: {}",
        group.name_of(me),
        parties.len(),
        group.threshold,
        group.threshold + 1,
        ms(took),
        qualified.join(", "),
    );
    if !excluded.is_empty() {
        text.push_str(&format!("\nexcluded: {}", excluded.join(", ")));
    }
    if !strays.is_empty() {
        text.push_str(&format!("\n{}", strays_line(strays)));
    }
    text.push_str(&format!(
        "\nshare sealed in {}; group key written to {}",
        share_file.display(),
        pk_out.display()
    ));
    format.report(
        text,
        json!({"scheme": scheme.name(), "party": group.name_of(me), "index": me,
               "group_id": group.group_id, "transport": mode.to_string(), "ms": ms(took),
               "public_key": file_json(pk_out, share.public_key().len()),
               "public_key_hex": key, "parties": parties,
               "qualified": qualified, "excluded": excluded, "strays": strays,
               "share": file_json(share_file, sealed_len)}),
    )
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Opens this party's sealed share of `group` for `scheme`.
pub(super) fn load_share(
    dir: &Path,
    group: &GroupFile,
    scheme: Scheme,
    passphrase: &[u8],
    me: PartyIndex,
) -> Result<Share, Failure> {
    let (path, purpose) = share_file(dir, group, scheme);
    let sealed = read_secret(&path, "a sealed key share")?;
    let bytes = alibi_keyfile::open(purpose, &sealed, passphrase)
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

/// Who signs: exactly the parties named (`--signers`), or by default every party key
/// generation did not exclude (BLS: any t+1 of them suffice) where the scheme allows it; the
/// share's rule ([`Share::check_signers`]) says the rest, in names.
pub(super) fn signers_of(
    group: &GroupFile,
    share: &Share,
    names: Option<&[String]>,
) -> Result<Vec<PartyIndex>, Failure> {
    let (scheme, needed) = (share.scheme(), share.threshold() + 1);
    let mut signers: Vec<PartyIndex> = match names {
        Some(names) => names
            .iter()
            .map(|n| {
                group
                    .index_named(n)
                    .ok_or_else(|| Failure::Usage(format!("--signers: no party named {n}")))
            })
            .collect::<Result<_, _>>()?,
        None => share
            .eligible_signers()
            .into_iter()
            .filter(|&p| !group.is_excluded(p))
            .collect(),
    };
    if names.is_none() && scheme.exactly_t_plus_1() && signers.len() != needed {
        return Err(Failure::Usage(format!(
            "--signers: {scheme} signs with exactly t+1 = {needed} of the {} parties; name them",
            signers.len()
        )));
    }
    if let Some(&p) = signers.iter().find(|&&p| group.is_excluded(p)) {
        return Err(Failure::Usage(format!(
            "--signers: {} is excluded from the group's runs",
            group.name_of(p)
        )));
    }
    share.check_signers(&signers).map_err(|e| {
        let name = |p: PartyIndex| group.name_of(p);
        Failure::Usage(match e {
            SignerFault::Twice(p) => format!("--signers: {} appears twice", name(p)),
            SignerFault::NotAmong(p) => format!("{} is not among the signers", name(p)),
            SignerFault::NoShare(p) => format!("--signers: {} holds no share of this key", name(p)),
            e @ SignerFault::NotExactly { .. } => format!("--signers: {e}"),
            e => e.to_string(),
        })
    })?;
    signers.sort_unstable();
    Ok(signers)
}

/// What signing starts with in every scheme, before it connects: the output checked against
/// the inputs, the group (with `--exclude`), the message, the run's name and the passphrase.
pub(super) fn sign_start(a: &SignArgs) -> Result<(GroupFile, Vec<u8>, Passphrase), Failure> {
    check_json(a.format.json, &[("--out", &a.out)])?;
    let identity = a.dir.join(alibi_messenger::IDENTITY_FILE);
    let inputs = [
        ("--msg", a.msg.as_path()),
        ("--group", &a.group),
        ("--dir", &identity),
    ];
    check_outputs(&[("--out", &a.out, SIGNATURE)], &inputs, a.force)?;
    let group = exclude(&a.group, read_group(&a.group)?, &a.run.exclude, &a.dir)?;
    let msg = read(&a.msg)?;
    if a.session.is_empty() {
        return Err(Failure::Usage("--session: give the run a name".into()));
    }
    Ok((group, msg, passphrase(&a.passphrase)?))
}

/// A signing run's session: BLS's of the run's name alone (any t+1 of those asked may sign),
/// the other schemes' of the name and the signers.
fn sign_session(g: &GroupFile, scheme: Scheme, name: &str, signers: &[PartyIndex]) -> SessionId {
    if scheme == Scheme::Bls {
        return g.sign_session(name);
    }
    let listed: Vec<String> = signers.iter().map(u16::to_string).collect();
    g.session(&format!("sign {scheme} by {}", listed.join(",")), name)
}

/// `alibi mpc sign`, as one signer, for any scheme.
pub(super) fn sign(a: SignArgs) -> CmdResult {
    let scheme = Scheme::from(a.scheme);
    let (group, msg, passphrase) = sign_start(&a)?;
    let (dir, run) = (a.dir.as_path(), &a.run);
    runtime()?.block_on(async {
        let m = member(dir, group, &passphrase, run.timeout()).await?;
        let me = m.me;
        let share = load_share(dir, &m.group, scheme, &passphrase, me)?;
        let signers = signers_of(&m.group, &share, a.signers.as_deref())?;
        let path = a.path.clone().unwrap_or_default();
        let key = share
            .public_key_at(&path)
            .map_err(|e| Failure::Usage(format!("--path: {e}")))?;
        let session = sign_session(&m.group, scheme, &a.session, &signers);
        claim_session(dir, &session, "signing", Some(&a.session))?;
        let (group, party) = relay_party(m, run, "signing", a.format)?;
        let identity = party.party();
        let mut endpoint = Endpoint::new(party, identity);
        let job = match a.signers {
            Some(_) => Signing::new(session, signers, run.timeout()),
            None => Signing::any_t_plus_1(session, signers, run.timeout()),
        };
        let job = Signing { path, ..job };
        let start = Instant::now();
        let signed = endpoint
            .sign(&share, &job, &msg)
            .await
            .map_err(|e| protocol_failure(&group, me, dir, "signing", e))?;
        let ran = Ran::of(&group, &endpoint, run, start.elapsed());
        write_signature(&group, (scheme, &key), &ran, &signed, &a, None)
    })
}

/// The end of every signing: the signature written to `--out` (every signer writes the same
/// one: one already there is no clash), then the report; with a presignature, its number and
/// how many are left.
pub(super) fn write_signature(
    group: &GroupFile,
    key: (Scheme, &[u8]),
    ran: &Ran,
    signed: &Signature,
    a: &SignArgs,
    presigned: Option<(u64, usize)>,
) -> CmdResult {
    let sig_out = Output {
        flag: "--out",
        path: &a.out,
        kind: SIGNATURE,
        data: &signed.bytes,
    };
    write_unless_same(&[sig_out], a.force)?;
    let path = a.path.clone().unwrap_or_default();
    let key = (key.0, &path, key.1);
    sign_report(group, key, ran, signed, (&a.out, presigned), a.format)
}

/// The report of a finished signing: who signed, who was named or not combined, the file, and
/// with a presignature its number and how many are left.
fn sign_report(
    group: &GroupFile,
    (scheme, path, key): (Scheme, &DerivationPath, &[u8]),
    run: &Ran,
    signed: &Signature,
    (out, presigned): (&Path, Option<(u64, usize)>),
    format: Format,
) -> CmdResult {
    let combined: Vec<String> = signed.combined.iter().map(|&p| group.name_of(p)).collect();
    let blamed = named(group, &signed.blamed);
    let disagreeing = disagreeing(group, &signed.disagreeing);
    let (mode, took, strays) = (run.mode, run.took, &run.strays);
    let under = match path.is_master() {
        true => "the group key".to_string(),
        false => format!("the key at {path} ({})", hex::encode(key)),
    };
    let mut text = format!(
        "signed ({scheme}) by {} over {mode} channels in {:.0} ms; the signature verifies under {under}; wrote {}",
        combined.join(", "),
        ms(took),
        out.display()
    );
    if !blamed.is_empty() {
        text.push_str(&format!("\nnamed: {}", blamed.join(", ")));
    }
    if !disagreeing.is_empty() {
        text.push_str(&format!("\nnot combined: {}", disagreeing.join("; ")));
    }
    if !strays.is_empty() {
        text.push_str(&format!("\n{}", strays_line(strays)));
    }
    let mut fields = json!({"scheme": scheme.name(), "signers": combined,
           "transport": mode.to_string(), "ms": ms(took), "blamed": blamed,
           "disagreeing": disagreeing, "strays": strays, "path": path.to_string(),
           "public_key_hex": hex::encode(key),
           "signature": file_json(out, signed.bytes.len())});
    if let Some((number, left)) = presigned {
        text.push_str(&format!(
            "\nwith presignature #{number} (used up); {left} left"
        ));
        fields["presignature"] = number.into();
        fields["presignatures_left"] = left.into();
    }
    format.report(text, fields)
}

/// `alibi mpc verify`: the scheme's standard verification by an independent verifier; exit 1
/// for a well-formed signature that does not verify, 2 for a key or signature that is not one.
pub(super) fn verify(a: VerifyArgs) -> CmdResult {
    let scheme = Scheme::from(a.scheme);
    let pkb = read_input(&a.pk, scheme.public_key_words())?;
    let sigb = read_input(&a.sig, scheme.signature_words())?;
    let msg = read(&a.msg)?;
    if pkb.len() != scheme.public_key_len() {
        return Err(Failure::Usage(format!(
            "{} is not {} ({} bytes)",
            a.pk.display(),
            scheme.public_key_words(),
            pkb.len()
        )));
    }
    if sigb.len() != scheme.signature_len() {
        return Err(Failure::Usage(format!(
            "{} is not {} of {scheme} ({} bytes)",
            a.sig.display(),
            scheme.signature_words(),
            sigb.len()
        )));
    }
    let mut fields = json!({"scheme": scheme.name()});
    if scheme == Scheme::Bls {
        fields["ciphersuite"] = "BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_".into();
    }
    match verify_signature(scheme, &pkb, &msg, &sigb) {
        Ok(()) => a.format.verdict(Ok(None), fields),
        Err(VerifyError::Invalid) => a.format.verdict(Err("invalid signature".into()), fields),
        Err(VerifyError::Malformed(m)) => Err(Failure::Usage(format!(
            "{} or {}: {m}",
            a.pk.display(),
            a.sig.display()
        ))),
    }
}
