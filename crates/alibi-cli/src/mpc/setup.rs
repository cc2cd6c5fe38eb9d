//! Setting a party up and opening its end of a run: `alibi mpc init` and `group`, this party of
//! a group from its directory, `--exclude`, the sessions a party has run, and its relay
//! endpoint for a run.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use alibi_messenger::{ContactCard, Messenger, Options};
use alibi_mpc::group::GroupFile;
use alibi_mpc::relay::{Mode, RelayParty};
use alibi_mpc::PartyIndex;
use serde_json::json;
use zeroize::Zeroizing;

use super::args::{GroupArgs, InitArgs, PassphraseArgs, RunArgs};
use super::report::{named_path, relay_reporter, waiting_reporter};
use crate::failure::{usage, CmdResult, Failure};
use crate::files::{check_outputs, read_input, rewrite, write, Kind, NewDir};
use crate::net::{relay_url, runtime};
use crate::report::{file_json, file_len, Format};
use crate::rng::os_rng;

/// The passphrase, or exit 2 saying how to give one.
pub(super) fn passphrase(args: &PassphraseArgs) -> Result<Zeroizing<Vec<u8>>, Failure> {
    alibi_keyfile::passphrase(args.passphrase_file.as_deref()).map_err(usage)
}

/// A messenger failure as a command failure: the relay or the network (unreachable, refusing,
/// handing out what the pinned cards contradict) exits 3, with a hint where the cause is known;
/// the user's own input (passphrase, files, usage) exits 2.
pub(super) fn setup(e: alibi_messenger::Error) -> Failure {
    use alibi_messenger::Error as E;
    match e {
        E::Busy(p) => crate::failure::busy(&p),
        E::Refused { status: 401, .. } => Failure::Transport(format!(
            "{e}: the relay no longer knows this party's account (its database was reset, or this \
             is another relay); register again with `alibi mpc init` and make a new group file"
        )),
        E::Relay(_)
        | E::Refused { .. }
        | E::Send { .. }
        | E::IdentityMismatch { .. }
        | E::Downgrade(_)
        | E::TrustRoot(_) => Failure::Transport(e.to_string()),
        e => Failure::Usage(e.to_string()),
    }
}

/// An MPC setup failure: a transport fault exits 3, anything else is the user's input (exit 2).
pub(super) fn mpc_setup(e: alibi_mpc::Error) -> Failure {
    match e {
        alibi_mpc::Error::Transport(m) => Failure::Transport(m),
        e => usage(e),
    }
}

/// `alibi mpc init`.
pub(super) fn init(a: InitArgs) -> CmdResult {
    let InitArgs {
        dir,
        relay,
        insecure_http,
        relay_ca,
        name,
        trust_root,
        passphrase: pass,
        format,
    } = a;
    let (dir, name) = (dir.as_path(), name.as_str());
    let url = relay_url(&relay, insecure_http)?;
    let passphrase = passphrase(&pass)?;
    let trust_root = trust_root
        .as_deref()
        .map(|b| {
            alibi_relay_api::b64::decode(b)
                .filter(|k| k.len() == 33)
                .ok_or_else(|| {
                    Failure::Usage(format!("--trust-root {b}: not a base64 33-byte key"))
                })
        })
        .transpose()?;
    // The card is checked before anything is registered.
    let probe = ContactCard {
        name: name.to_string(),
        account: uuid::Uuid::nil(),
        devices: vec![alibi_messenger::Device {
            id: 1,
            registration_id: 1,
        }],
        identity_key: [5u8; 33].to_vec(),
        relay: url.clone(),
        trust_root: [5u8; 33].to_vec(),
        access_key: vec![0; 16],
        legacy: false,
        pq_identity: Vec::new(),
        handshake: alibi_messenger::Handshake::Pqxdh,
        fixed_devices: false,
    };
    if let Err(alibi_messenger::Error::Card(m)) = probe.check() {
        return Err(Failure::Usage(format!("--name: {m}")));
    }
    let relay_ca = relay_ca
        .as_deref()
        .map(|f| {
            let pem = crate::files::read_input(f, "PEM CA certificates")?;
            alibi_messenger::Endpoint::new(&url)
                .allow_insecure_http(insecure_http)
                .with_ca(&pem)
                .map_err(|e| Failure::Usage(format!("--relay-ca: {e}")))?;
            Ok::<_, Failure>(pem)
        })
        .transpose()?;
    let options = Options {
        trust_root,
        relay_ca,
        insecure_http,
        ..Options::default()
    };
    let new_dir = NewDir::track(dir);
    let m = runtime()?
        .block_on(Messenger::register(dir, &url, name, &passphrase, &options))
        .map_err(setup)?;
    new_dir.keep();
    let card = dir.join(alibi_messenger::CARD_FILE);
    format.report(
        format!(
            "registered {name} on {url} (account {}); identity sealed in {}; card: {}",
            m.account(),
            dir.display(),
            card.display()
        ),
        json!({"name": name, "account": m.account(), "relay": url,
               "card": file_json(&card, file_len(&card)), "dir": dir.to_string_lossy()}),
    )
}

/// `alibi mpc group`.
pub(super) fn group(a: GroupArgs) -> CmdResult {
    let GroupArgs {
        threshold,
        cards,
        out,
        handshake,
        force,
        format,
    } = a;
    let out = out.as_path();
    let inputs: Vec<_> = cards.iter().map(|c| ("--cards", c.as_path())).collect();
    check_outputs(&[("--out", out, Kind::PublicKey)], &inputs, force)?;
    let cards = cards
        .iter()
        .map(|p| {
            let text = String::from_utf8(read_input(p, "a contact card")?)
                .map_err(|_| Failure::Usage(format!("{}: not UTF-8", p.display())))?;
            let mut card = ContactCard::from_json(&text)
                .map_err(|e| Failure::Usage(format!("{}: {e}", p.display())))?;
            card.handshake = handshake.into();
            Ok(card)
        })
        .collect::<Result<Vec<_>, Failure>>()?;
    let id = uuid::Uuid::from_bytes({
        let mut b = [0u8; 16];
        rand_core::Rng::fill_bytes(&mut os_rng(), &mut b);
        b
    });
    let g = GroupFile::new(threshold, cards, id).map_err(usage)?;
    write("--out", out, Kind::PublicKey, g.to_json().as_bytes(), force)?;
    let names: Vec<&str> = g.parties.iter().map(|c| c.name.as_str()).collect();
    format.report(
        format!(
            "group {id}: {} parties ({}), t = {threshold} ({} to sign); wrote {}",
            names.len(),
            names.join(", "),
            threshold + 1,
            out.display()
        ),
        json!({"group_id": id, "parties": names, "threshold": threshold,
               "out": file_json(out, file_len(out))}),
    )
}

/// What `keygen` and `sign` start from: the group, this party's messenger and index.
pub(super) struct Member {
    pub group: GroupFile,
    pub messenger: Messenger,
    pub me: PartyIndex,
}

pub(super) fn read_group(path: &Path) -> Result<GroupFile, Failure> {
    let text = String::from_utf8(read_input(path, "a group file")?)
        .map_err(|_| Failure::Usage(format!("{}: not UTF-8", path.display())))?;
    GroupFile::from_json(&text).map_err(|e| Failure::Usage(format!("{}: {e}", path.display())))
}

/// This party of `group` from its directory; requests that reach no relay are tried again for
/// up to `patience` (the round timeout: a relay back within it loses nothing).
pub(super) async fn member(
    dir: &Path,
    group: GroupFile,
    passphrase: &[u8],
    patience: Duration,
) -> Result<Member, Failure> {
    let messenger = Messenger::open_patient(dir, passphrase, patience, Some(relay_reporter()))
        .await
        .map_err(|e| match e {
            alibi_messenger::Error::Keyfile(k) => Failure::Usage(format!(
                "{}: {k}",
                dir.join(alibi_messenger::IDENTITY_FILE).display()
            )),
            e => setup(e),
        })?;
    let me = group.index_of(messenger.account()).ok_or_else(|| {
        Failure::Usage(format!(
            "{}: party {} is not in this group file",
            dir.display(),
            messenger.name()
        ))
    })?;
    if let Some(x) = group
        .excluded
        .iter()
        .find(|x| group.index_named(&x.name) == Some(me))
    {
        return Err(Failure::Usage(format!(
            "{} is excluded from the group's runs: {}",
            x.name, x.reason
        )));
    }
    if group.parties[usize::from(me) - 1].identity_key
        != messenger.identity_key_pair().identity.serialize()
    {
        return Err(Failure::Usage(format!(
            "the group file's card for {} carries another identity key than {}",
            messenger.name(),
            dir.display()
        )));
    }
    Ok(Member {
        group,
        messenger,
        me,
    })
}

/// This member's endpoint for a run of `what` over the channels `--transport` chose, saying
/// on stderr what it waits for.
pub(super) fn relay_party(
    m: Member,
    run: &RunArgs,
    what: &'static str,
    format: Format,
) -> Result<(GroupFile, RelayParty), Failure> {
    let Member {
        group,
        messenger,
        me,
    } = m;
    let mode = Mode::from(run.transport);
    // No request, socket or send outlasts a round: a stalled path to the relay ends the run
    // (exit 3, naming what stalled) within about one round timeout.
    let round = run.timeout();
    messenger.set_request_timeout(round.min(alibi_messenger::REQUEST_TIMEOUT));
    let mut party = RelayParty::new(messenger, me, &run.members(&group)?, group.group_id, mode)
        .map_err(mpc_setup)?;
    party.set_send_timeout(round);
    party.on_waiting(waiting_reporter(&group, what, format));
    Ok((group, party))
}

/// Where a party's directory records every run it took part in (a session id a line).
fn sessions_path(dir: &Path) -> PathBuf {
    dir.join("sessions.txt")
}

/// Refuses a run whose session this party has already run, and records it before anything is
/// sent. A run's signed messages must never be repeated under one session id: a cheater could
/// forward the old ones beside the new as proof of equivocation, and every party would name an
/// honest one.
pub(super) fn claim_session(
    dir: &Path,
    session: &alibi_mpc::SessionId,
    what: &str,
    name: Option<&str>,
) -> Result<(), Failure> {
    let path = sessions_path(dir);
    let id = hex::encode(session);
    let mut text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(Failure::Usage(format!("{}: {e}", path.display()))),
    };
    let run = match name {
        Some(n) => format!("{what} --session {n}"),
        None => format!("{what} without --session"),
    };
    if text
        .lines()
        .any(|l| l.split(' ').next() == Some(id.as_str()))
    {
        return Err(Failure::Usage(format!(
            "{}: this party already ran {run} in this group (a run's signed messages are never \
             repeated under one session, or another party could show the old ones as \
             equivocation); every party gives this run a new --session",
            dir.display()
        )));
    }
    text.push_str(&format!("{id} {run}\n"));
    rewrite("--dir", &path, Kind::Report, text.as_bytes())?;
    Ok(())
}

/// The group with `names` excluded, each with the reason this party's directory noted for it
/// (or the operator's word); the group file is rewritten when that adds an exclusion. This
/// party cannot exclude itself.
pub(super) fn exclude(
    path: &Path,
    mut group: GroupFile,
    names: &[String],
    dir: &Path,
) -> Result<GroupFile, Failure> {
    let notes: BTreeMap<String, String> = std::fs::read(named_path(dir))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default();
    let mut changed = false;
    for name in names {
        if group.index_named(name).is_none() {
            return Err(Failure::Usage(format!("--exclude: no party named {name}")));
        }
        let reason = notes
            .get(name)
            .cloned()
            .unwrap_or_else(|| "excluded by its operators (--exclude)".into());
        changed |= group
            .exclude(name, reason)
            .map_err(|e| Failure::Usage(format!("--exclude {name}: {e}")))?;
    }
    if changed {
        rewrite("--group", path, Kind::PublicKey, group.to_json().as_bytes())?;
    }
    Ok(group)
}

/// Seals `data` under the passphrase.
pub(super) fn seal(purpose: &str, data: &[u8], passphrase: &[u8]) -> Result<Vec<u8>, Failure> {
    alibi_keyfile::seal(
        purpose,
        data,
        passphrase,
        alibi_keyfile::Params::default(),
        &mut os_rng(),
    )
    .map_err(usage)
}
