//! What `alibi mpc` tells its user about a run: the lines while it waits, the report of a run
//! that failed (who is named, and why; what exit code), and the notes a failed run leaves in
//! the party's directory (named.json) for `--exclude` to record.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use alibi_mpc::group::GroupFile;
use alibi_mpc::relay::{OnWaiting, RelayParty};
use alibi_mpc::sign::Disagreement;
use alibi_mpc::transport::Waiting;
use alibi_mpc::{Blame, PartyIndex};
use serde_json::json;

use crate::failure::Failure;
use crate::files::{rewrite, Kind};
use crate::report::Format;

/// Where a party's directory notes the parties its runs named, by name, with why: the reason an
/// `--exclude` records.
pub(super) fn named_path(dir: &Path) -> PathBuf {
    dir.join("named.json")
}

/// Notes in the party's directory each party a failed run named (a cheater, or a party that
/// stopped the run), so that `--exclude` can record why. Best effort: the run's failure is what
/// the user must see.
pub(super) fn note_named(g: &GroupFile, dir: &Path, what: &str, e: &alibi_mpc::Error) {
    let named: Vec<(PartyIndex, String)> = match e {
        alibi_mpc::Error::Aborted { blamed, .. } => blamed
            .iter()
            .map(|b| (b.party, format!("named in {what}: {}", b.fault)))
            .collect(),
        alibi_mpc::Error::Stopped { stopped } => stopped
            .iter()
            .map(|(p, reason)| (*p, format!("stopped {what} ({reason})")))
            .collect(),
        alibi_mpc::Error::Accused { accusations } => accusations
            .iter()
            .flat_map(|a| {
                a.blamed.iter().map(move |b| {
                    let by = g.name_of(a.by);
                    (b.party, format!("named in {what} by {by}: {}", b.fault))
                })
            })
            .collect(),
        alibi_mpc::Error::Undeliverable { parties } => parties
            .iter()
            .map(|(p, why)| (*p, format!("unreachable in {what}: the relay said {why}")))
            .collect(),
        _ => return,
    };
    let path = named_path(dir);
    let mut notes: BTreeMap<String, String> = std::fs::read(&path)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default();
    for (p, why) in named {
        notes.insert(g.name_of(p), why);
    }
    if let Ok(text) = serde_json::to_vec_pretty(&notes) {
        let _ = rewrite("--dir", &path, Kind::Report, &text);
    }
}

/// The frames each party sent that this party did not file (of sessions it did not run), by
/// name.
pub(super) fn strays(g: &GroupFile, party: &RelayParty) -> BTreeMap<String, u64> {
    use alibi_mpc::transport::Transport as _;
    party
        .mailbox()
        .strays()
        .into_iter()
        .map(|(p, n)| (g.name_of(p), n))
        .collect()
}

/// The report's line on stray frames: who sent frames of other runs, which this party dropped
/// (its channel authenticated them, so the count is sure, but it proves nothing to the others).
pub(super) fn strays_line(strays: &BTreeMap<String, u64>) -> String {
    let each: Vec<String> = strays.iter().map(|(n, c)| format!("{n} {c}")).collect();
    format!(
        "frames of other runs dropped (an old run's late messages, or a party flooding this one): {}",
        each.join(", ")
    )
}

/// Names of blamed parties with their faults, for reports.
pub(super) fn named(g: &GroupFile, blamed: &[Blame]) -> Vec<String> {
    blamed
        .iter()
        .map(|b| format!("{} ({})", g.name_of(b.party), b.fault))
        .collect()
}

/// The run an ECDSA key generation's waiting lines name: its first round also waits for the
/// parties still searching for safe primes, which they do before they join.
pub(super) const ECDSA_KEYGEN: &str = "ecdsa-secp256k1 key generation";

/// What a party prints while a run waits (every few seconds, on stderr): the round and whom it
/// waits for, in words, or with `--json` one JSON object per line.
pub(super) fn waiting_reporter(g: &GroupFile, what: &'static str, format: Format) -> OnWaiting {
    let names: BTreeMap<PartyIndex, String> =
        g.indices().into_iter().map(|p| (p, g.name_of(p))).collect();
    Box::new(move |w: &Waiting| {
        let line = waiting_line(&names, what, w, format.json);
        // Best effort: a closed stderr must not stop the run.
        let _ = writeln!(std::io::stderr(), "{line}");
    })
}

/// One waiting line: whom the run waits for, whom it heard, and what those it waits for said
/// of themselves; a JSON object with `json`.
fn waiting_line(
    names: &BTreeMap<PartyIndex, String>,
    what: &str,
    w: &Waiting,
    json: bool,
) -> String {
    let name = |p: &PartyIndex| names.get(p).cloned().unwrap_or_else(|| p.to_string());
    let waiting_for: Vec<String> = w.waiting_for.iter().map(name).collect();
    let heard: Vec<String> = w.heard.iter().map(name).collect();
    let notes: BTreeMap<String, &str> =
        w.notes.iter().map(|(p, n)| (name(p), n.as_str())).collect();
    if json {
        return json!({"event": "waiting", "run": what, "round": w.round,
               "waiting_for": waiting_for, "heard": heard, "notes": notes,
               "elapsed_s": w.elapsed.as_secs(), "timeout_s": w.timeout.as_secs()})
        .to_string();
    }
    let heard = if heard.is_empty() {
        "nothing yet".to_string()
    } else {
        format!("heard from {}", heard.join(", "))
    };
    // What the parties waited for said of themselves, beside what was heard.
    let heard = notes
        .iter()
        .fold(heard, |h, (p, n)| format!("{h}; {p}: {n}"));
    let why = if notes.is_empty() && what == ECDSA_KEYGEN && w.round == 0 {
        " (not started yet, or searching for its safe primes without a word: a party that has \
         no `mpc aux` primes says so here while it searches, a minute or more)"
    } else {
        ""
    };
    format!(
        "alibi: {what}: round {}: waiting for {} ({heard}){why}; {} s of {} s",
        w.round,
        waiting_for.join(", "),
        w.elapsed.as_secs(),
        w.timeout.as_secs()
    )
}

/// What a party prints while the relay cannot be reached and requests are tried again (at
/// first, then every 5 s, on stderr).
pub(super) fn relay_reporter() -> alibi_messenger::OnUnreachable {
    std::sync::Arc::new(|error: &str, waited: Duration, patience: Duration| {
        let error = error.split_whitespace().collect::<Vec<_>>().join(" ");
        // Best effort: a closed stderr must not stop the run.
        let _ = writeln!(
            std::io::stderr(),
            "alibi: relay unreachable ({error}): waiting for it to answer, trying again; {} s of {} s",
            waited.as_secs(),
            patience.as_secs()
        );
    })
}

/// Signers whose partials were for something else, by name with how, for reports.
pub(super) fn disagreeing(g: &GroupFile, d: &[(PartyIndex, Disagreement)]) -> Vec<String> {
    d.iter()
        .map(|(p, how)| format!("{}: {how}", g.name_of(*p)))
        .collect()
}

/// A protocol run that failed. Cheaters named and too few parties left: exit 1, naming them. The
/// relay or the network failed (a send refused, a contact whose identity does not match its
/// card, another party that stopped for such a fault, parties nothing was heard from though they
/// were asked again and the others asked to forward): exit 3, naming the relay or the contact,
/// blaming no party.
pub(super) fn protocol_failure(
    g: &GroupFile,
    me: PartyIndex,
    dir: &Path,
    what: &str,
    e: alibi_mpc::Error,
) -> Failure {
    note_named(g, dir, what, &e);
    let relay = usize::from(me)
        .checked_sub(1)
        .and_then(|i| g.parties.get(i))
        .map_or_else(String::new, |c| c.relay.clone());
    match e {
        // An empty "excluded:" would read as if someone had been (issue 66).
        alibi_mpc::Error::Aborted { reason, blamed } if blamed.is_empty() => {
            Failure::Invalid(format!("{what} failed: {reason}"))
        }
        alibi_mpc::Error::Aborted { reason, blamed } => Failure::Invalid(format!(
            "{what} failed: {reason}; excluded: {}",
            named(g, &blamed).join(", ")
        )),
        alibi_mpc::Error::Accused { accusations } => accused(g, what, &accusations),
        alibi_mpc::Error::Transport(m) => Failure::Transport(format!(
            "{what} stopped by a transport fault, no party blamed: {m} (relay {relay})"
        )),
        alibi_mpc::Error::Stopped { stopped } => {
            let names: Vec<String> = stopped.iter().map(|(p, _)| g.name_of(*p)).collect();
            let each: Vec<String> = stopped
                .iter()
                .map(|(p, reason)| format!("{} stopped the run ({reason})", g.name_of(*p)))
                .collect();
            Failure::Transport(format!(
                "{what} stopped: {}; named Stopped: {} (to go on without it, every party runs \
                 again with --exclude {} and a new --session)",
                each.join(", "),
                names.join(", "),
                names.join(",")
            ))
        }
        alibi_mpc::Error::Undeliverable { parties } => {
            let names: Vec<String> = parties.iter().map(|(p, _)| g.name_of(*p)).collect();
            let each: Vec<String> = parties
                .iter()
                .map(|(p, why)| format!("{} ({why})", g.name_of(*p)))
                .collect();
            Failure::Transport(format!(
                "{what} stopped, no party blamed: the relay {relay} will not deliver to {}; to go \
                 on without it, every party runs again with --exclude {} and a new --session",
                each.join(", "),
                names.join(",")
            ))
        }
        alibi_mpc::Error::Unreachable { round, parties } => {
            let names: Vec<String> = parties.iter().map(|&p| g.name_of(p)).collect();
            Failure::Transport(format!(
                "{what} stopped, no party blamed: nothing heard from {} in round {round} (asked \
                 again, and the others asked to forward): not started, on another --session, \
                 --scheme or --handshake, or the relay {relay} failed",
                names.join(", ")
            ))
        }
        alibi_mpc::Error::Closed { by } => {
            let names: Vec<String> = by.iter().map(|&p| g.name_of(p)).collect();
            Failure::Transport(format!(
                "{what} stopped, no party blamed: {} already closed this run without {} (they \
                 heard nothing from it in time: it started late, or could not be heard); to \
                 take part, every party runs again with a new --session",
                names.join(", "),
                g.name_of(me)
            ))
        }
        alibi_mpc::Error::Disagreed { disagreeing: d } => Failure::Invalid(format!(
            "{what} stopped, no party blamed: the signers do not sign the same thing: {} \
             (every signer needs the same --msg file and the share of the latest key generation)",
            disagreeing(g, &d).join("; ")
        )),
        // This party's own inputs (a signer list, the safe primes it could not seal): exit 2,
        // nobody blamed.
        alibi_mpc::Error::Parameters(m) => Failure::Usage(format!("{what}: {m}")),
        e => Failure::Invalid(format!("{what} failed closed: {e}")),
    }
}

/// A run stopped by other parties' accusations: exit 1, each accused named as its accuser
/// named it, and why the accusation alone decides nothing between the two.
fn accused(g: &GroupFile, what: &str, accusations: &[alibi_mpc::Accusation]) -> Failure {
    let mut names: Vec<String> = vec![];
    let each: Vec<String> = accusations
        .iter()
        .map(|a| {
            let blamed: Vec<String> = a.blamed.iter().map(|b| g.name_of(b.party)).collect();
            for n in &blamed {
                if !names.contains(n) {
                    names.push(n.clone());
                }
            }
            format!(
                "{} names {} ({})",
                g.name_of(a.by),
                blamed.join(" and "),
                a.reason
            )
        })
        .collect();
    Failure::Invalid(format!(
        "{what} failed: {}; excluded: {} (a message only its receiver could check failed: the          accuser's word, which no other party can verify; to go on without {}, every party runs          again with --exclude {} and a new --session)",
        each.join("; "),
        names.join(", "),
        names.join(", "),
        names.join(",")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 66, item 5: a party searching for its primes is named with what it said.
    #[test]
    fn a_waiting_line_shows_what_the_late_party_said() {
        let names: BTreeMap<PartyIndex, String> = [
            (1, "alice".to_string()),
            (2, "bob".into()),
            (3, "carol".into()),
        ]
        .into();
        let w = Waiting {
            session: [0; 16],
            round: 0,
            waiting_for: vec![1],
            heard: vec![3],
            elapsed: Duration::from_secs(10),
            timeout: Duration::from_secs(300),
            notes: vec![(1, "searching for its safe primes".into())],
        };
        assert_eq!(
            waiting_line(&names, ECDSA_KEYGEN, &w, false),
            format!(
                "alibi: {ECDSA_KEYGEN}: round 0: waiting for alice (heard from carol; alice: \
                 searching for its safe primes); 10 s of 300 s"
            )
        );
        let v: serde_json::Value =
            serde_json::from_str(&waiting_line(&names, ECDSA_KEYGEN, &w, true)).unwrap();
        assert_eq!(v["notes"]["alice"], "searching for its safe primes");
        let quiet = Waiting { notes: vec![], ..w };
        let line = waiting_line(&names, ECDSA_KEYGEN, &quiet, false);
        assert!(
            line.contains("(heard from carol) (not started yet"),
            "{line}"
        );
    }
}
