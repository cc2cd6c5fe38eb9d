//! New shares of an existing key, as one party: `alibi mpc refresh` (the same group, the same
//! key, shares that do not combine with the old ones; BLS and FROST keys) and `alibi mpc
//! reshare` (a BLS key moved to another group: other parties, another n or t). Both runs are
//! key generation's rounds with each dealer's secret fixed ([`alibi_mpc::dkg::Resharing`]); a
//! party's old share is replaced (refresh) or deleted (reshare) once its new one is written:
//! kept, t+1 old shares would still sign.

use std::path::Path;
use std::time::Instant;

use alibi_mpc::dkg::{KeySet, Resharing};
use alibi_mpc::endpoint::{Endpoint, Keygen};
use alibi_mpc::group::GroupFile;
use alibi_mpc::scheme::{Scheme, Share};
use alibi_mpc::SessionId;
use serde_json::json;
use zeroize::Zeroizing;

use super::args::{RefreshArgs, ReshareArgs, RunArgs};
use super::party::{load_share, share_file, Ran};
use super::report::{named, protocol_failure};
use super::setup::{claim_session, exclude, member, passphrase, read_group, relay_party, seal};
use crate::failure::{CmdResult, Failure};
use crate::files::{
    check_outputs, read_input, rewrite_outputs, write_outputs, Kind, NewDir, Output,
};
use crate::net::runtime;
use crate::report::{file_json, Format};

/// A passphrase, wiped when dropped.
type Passphrase = Zeroizing<Vec<u8>>;

/// Refuses what [`Scheme::refresh_refusal`] refuses and, for `reshare`, FROST (whose shares
/// cannot leave a party of the key out).
fn refreshable(scheme: Scheme, verb: &str) -> Result<(), Failure> {
    if let Some(why) = scheme.refresh_refusal() {
        return Err(Failure::Usage(format!("{verb}: {why}")));
    }
    match scheme {
        Scheme::Bls => Ok(()),
        _ if verb == "refresh" => Ok(()),
        s => Err(Failure::Usage(format!(
            "{verb} is for bls keys; {s} keys are refreshed within their group (`mpc refresh`), \
             not moved to another"
        ))),
    }
}

/// The BLS share inside `share`.
pub(super) fn bls_of(share: &Share) -> &alibi_mpc::dkg::KeyShare {
    share
        .bls()
        .expect("a bls share: load_share checked the scheme")
}

/// This party's index in `group`, from the identity card in its directory (no relay needed).
pub(super) fn own_index(dir: &Path, group: &GroupFile) -> Result<alibi_mpc::PartyIndex, Failure> {
    let card = crate::files::read_input(&dir.join("card.json"), "the party's card")?;
    let card: alibi_messenger::ContactCard = serde_json::from_slice(&card)
        .map_err(|_| Failure::Usage(format!("{}: not a card", dir.join("card.json").display())))?;
    group
        .members()
        .into_iter()
        .find(|(_, c)| c.identity_key == card.identity_key)
        .map(|(p, _)| p)
        .ok_or_else(|| Failure::Usage(format!("{}: not a party of this group", dir.display())))
}

/// What a run carries over from the old key: the share refreshed, or a BLS key's resharing.
enum Carried<'a> {
    Refresh(&'a Share),
    Move(Box<Resharing>),
}

/// What one resharing run needs besides the relay: the group it runs in, its session and
/// words, where the new share goes, and what it carries over.
struct Job<'a> {
    dir: &'a Path,
    group: GroupFile,
    session: SessionId,
    name: &'a str,
    what: &'static str,
    carried: Carried<'a>,
    run: &'a RunArgs,
    passphrase: &'a Passphrase,
    format: Format,
}

/// Runs a resharing as this party: the new share, the run, and the group it ran in (less the
/// parties `--exclude` left out).
fn run_resharing(job: Job) -> Result<(Share, Ran, GroupFile), Failure> {
    runtime()?.block_on(async {
        let m = member(job.dir, job.group, job.passphrase, job.run.timeout()).await?;
        let me = m.me;
        claim_session(job.dir, &job.session, job.what, Some(job.name))?;
        let parties = m.group.run_parties();
        let (group, party) = relay_party(m, job.run, job.what, job.format)?;
        let identity = party.party();
        let mut endpoint = Endpoint::new(party, identity);
        let scheme = match &job.carried {
            Carried::Refresh(old) => old.scheme(),
            Carried::Move(_) => Scheme::Bls,
        };
        let keygen = Keygen::new(
            scheme,
            job.session,
            group.threshold,
            parties,
            job.run.timeout(),
        );
        let start = Instant::now();
        let share = match job.carried {
            Carried::Refresh(old) => endpoint.refresh(old, keygen).await,
            Carried::Move(r) => {
                let keygen = Keygen {
                    resharing: Some(*r),
                    ..keygen
                };
                endpoint.keygen(keygen).await
            }
        }
        .map_err(|e| protocol_failure(&group, me, job.dir, job.what, e))?;
        let ran = Ran::of(&group, &endpoint, job.run, start.elapsed());
        Ok((share, ran, group))
    })
}

/// `alibi mpc refresh`: new shares of the same key among the same parties; this party's share
/// file is replaced by the new one.
pub(super) fn refresh(a: RefreshArgs) -> CmdResult {
    let scheme = Scheme::from(a.scheme);
    refreshable(scheme, "refresh")?;
    if scheme != Scheme::Bls && !a.run.exclude.is_empty() {
        return Err(Failure::Usage(format!(
            "--exclude: a {scheme} key is refreshed by every party that holds a share of it"
        )));
    }
    if a.session.is_empty() {
        return Err(Failure::Usage("--session: give the run a name".into()));
    }
    let group = exclude(&a.group, read_group(&a.group)?, &a.run.exclude, &a.dir)?;
    let passphrase = passphrase(&a.passphrase)?;
    let me = own_index(&a.dir, &group)?;
    let old = load_share(&a.dir, &group, scheme, &passphrase, me)?;
    let job = Job {
        dir: &a.dir,
        session: group.session(&format!("refresh {scheme}"), &a.session),
        group,
        name: &a.session,
        what: "refresh",
        carried: Carried::Refresh(&old),
        run: &a.run,
        passphrase: &passphrase,
        format: a.format,
    };
    let (share, ran, group) = run_resharing(job)?;
    let (path, purpose) = share_file(&a.dir, &group, scheme);
    let sealed = seal(purpose, &share.to_bytes(), &passphrase)?;
    rewrite_outputs(&[secret_output(&path, &sealed)])?;
    let text = format!("share replaced in {}", path.display());
    report(&group, &ran, &share, (&path, sealed.len()), text, a.format)
}

fn secret_output<'a>(path: &'a Path, sealed: &'a [u8]) -> Output<'a> {
    Output {
        flag: "--dir",
        path,
        kind: Kind::Secret,
        data: sealed,
    }
}

/// This party's old share (if it is a party of `old`) and the old key set: its share's, or
/// `--keys` (which must agree with the share when both are there).
fn old_key(
    a: &ReshareArgs,
    old: &GroupFile,
    new: &GroupFile,
    passphrase: &Passphrase,
) -> Result<(Option<Share>, KeySet), Failure> {
    let me_new = own_index(&a.dir, new)?;
    let share = match new.carried_over(old).get(&me_new) {
        Some(&me_old) => Some(load_share(&a.dir, old, Scheme::Bls, passphrase, me_old)?),
        None => None,
    };
    let given = match &a.keys {
        Some(path) => {
            let text = String::from_utf8(read_input(path, "a key set")?)
                .map_err(|_| Failure::Usage(format!("{}: not UTF-8", path.display())))?;
            let set = KeySet::from_json(&text)
                .map_err(|e| Failure::Usage(format!("{}: {e}", path.display())))?;
            Some(set)
        }
        None => None,
    };
    match (share, given) {
        (Some(s), Some(k)) if bls_of(&s).key_set() != k => Err(Failure::Usage(
            "--keys: another key set than this party's share of the old key".into(),
        )),
        (Some(s), _) => {
            let set = bls_of(&s).key_set();
            Ok((Some(s), set))
        }
        (None, Some(k)) => Ok((None, k)),
        (None, None) => Err(Failure::Usage(
            "--keys: this party holds no share of the old key, so it needs the old key set \
             (`mpc keys` by a holder writes it)"
                .into(),
        )),
    }
}

/// `alibi mpc reshare`: the old group's key moved to the new group; a holder's old share is
/// deleted once its new one is written.
pub(super) fn reshare(a: ReshareArgs) -> CmdResult {
    refreshable(Scheme::from(a.scheme), "reshare")?;
    if a.session.is_empty() {
        return Err(Failure::Usage("--session: give the run a name".into()));
    }
    let old = read_group(&a.from)?;
    let new = exclude(&a.to, read_group(&a.to)?, &a.run.exclude, &a.dir)?;
    if old.group_id == new.group_id {
        return Err(Failure::Usage(
            "--from and --to are one group: `mpc refresh` makes new shares within a group".into(),
        ));
    }
    let (path, purpose) = share_file(&a.dir, &new, Scheme::Bls);
    let inputs = [("--from", a.from.as_path()), ("--to", a.to.as_path())];
    check_outputs(&[("--dir", &path, Kind::Secret)], &inputs, a.force)?;
    let passphrase = passphrase(&a.passphrase)?;
    let (share, set) = old_key(&a, &old, &new, &passphrase)?;
    let holders = new.carried_over(&old);
    let mine = share.as_ref().map(bls_of);
    let resharing =
        Resharing::new(&set, holders, mine).map_err(|e| Failure::Usage(e.to_string()))?;
    let what = format!("reshare bls from {}", old.group_id);
    let job = Job {
        dir: &a.dir,
        session: new.session(&what, &a.session),
        group: new,
        name: &a.session,
        what: "resharing",
        carried: Carried::Move(Box::new(resharing)),
        run: &a.run,
        passphrase: &passphrase,
        format: a.format,
    };
    let (new_share, ran, group) = run_resharing(job)?;
    let sealed = seal(purpose, &new_share.to_bytes(), &passphrase)?;
    let shares = NewDir::create(path.parent().unwrap_or(&a.dir))?;
    write_outputs(&[secret_output(&path, &sealed)], a.force)?;
    shares.keep();
    let mut text = format!("share sealed in {}", path.display());
    if share.is_some() {
        let (old_path, _) = share_file(&a.dir, &old, Scheme::Bls);
        std::fs::remove_file(&old_path).map_err(|e| {
            Failure::Usage(format!(
                "{}: the old share is still there: {e}",
                old_path.display()
            ))
        })?;
        text.push_str(&format!("; the old share {} deleted", old_path.display()));
    }
    report(
        &group,
        &ran,
        &new_share,
        (&path, sealed.len()),
        text,
        a.format,
    )
}

/// The report of a finished refresh or resharing.
fn report(
    group: &GroupFile,
    run: &Ran,
    share: &Share,
    (path, sealed_len): (&Path, usize),
    files: String,
    format: Format,
) -> CmdResult {
    let key = hex::encode(share.public_key());
    let qualified: Vec<String> = share
        .qualified()
        .iter()
        .map(|&p| group.name_of(p))
        .collect();
    let excluded = named(group, share.blamed());
    let mut text = format!(
        "{} is party {} of {}, t = {}: new share of the same group key {key} in {:.0} ms\n\
         qualified: {}",
        group.name_of(run.me),
        run.me,
        share.parties().len(),
        share.threshold(),
        run.took.as_secs_f64() * 1e3,
        qualified.join(", ")
    );
    if !excluded.is_empty() {
        text.push_str(&format!("\nexcluded: {}", excluded.join(", ")));
    }
    text.push_str(&format!("\n{files}"));
    format.report(
        text,
        json!({"scheme": share.scheme().name(), "party": group.name_of(run.me), "index": run.me,
               "group_id": group.group_id, "ms": run.took.as_secs_f64() * 1e3,
               "public_key_hex": key, "threshold": share.threshold(),
               "qualified": qualified, "excluded": excluded,
               "share": file_json(path, sealed_len)}),
    )
}
