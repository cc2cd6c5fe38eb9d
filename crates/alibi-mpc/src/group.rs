//! The group file (seed 002's "JSON file of parties information"): the parties' contact cards in
//! index order, the threshold, the relay's trust root every party pinned, and a group id that
//! names the group's runs. Every party holds the same file; it is what the parties' identities
//! are checked against.

use std::collections::BTreeMap;

use alibi_messenger::ContactCard;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use uuid::Uuid;

use crate::{Error, PartyIndex, Result, SessionId};

/// The group file's format version.
pub const VERSION: u32 = 1;

/// The group file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GroupFile {
    /// [`VERSION`].
    pub version: u32,
    /// The group's id: its key generation's session and its sender-key distribution id derive
    /// from it.
    pub group_id: Uuid,
    /// t: any t+1 parties sign, t learn nothing.
    pub threshold: usize,
    /// The relay's trust root (33 bytes, base64), the same in every card.
    #[serde(with = "alibi_relay_api::b64")]
    pub trust_root: Vec<u8>,
    /// The parties; party i (1-based) is the i-th card.
    pub parties: Vec<ContactCard>,
    /// The parties left out of the group's runs from now on, with why (`alibi mpc --exclude`):
    /// a party named in a run (one that stopped it, say) is excluded from the next. Every party
    /// must exclude the same ones: the runs' session ids depend on them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub excluded: Vec<Exclusion>,
}

/// A party left out of the group's runs, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Exclusion {
    /// The party's name (its card's).
    pub name: String,
    /// Why: the fault it was named for and in which run, or the operator's word.
    pub reason: String,
}

impl GroupFile {
    /// A new group of `cards` (in index order) with threshold `t` and a fresh id.
    pub fn new(threshold: usize, cards: Vec<ContactCard>, group_id: Uuid) -> Result<Self> {
        let trust_root = cards
            .first()
            .map(|c| c.trust_root.clone())
            .unwrap_or_default();
        let g = Self {
            version: VERSION,
            group_id,
            threshold,
            trust_root,
            parties: cards,
            excluded: vec![],
        };
        g.check()?;
        Ok(g)
    }

    /// Parses and checks a group file.
    pub fn from_json(text: &str) -> Result<Self> {
        let g: Self = serde_json::from_str(text)
            .map_err(|e| Error::Parameters(format!("group file: {e}")))?;
        g.check()?;
        Ok(g)
    }

    /// The file's JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Checks the version, the party count and threshold, that every card is sound and names a
    /// distinct party (account, identity key and name), and that every card pins the group's
    /// trust root; an error names the card. Parties are numbered by position, from 1, so no index
    /// is 0 or repeated.
    pub fn check(&self) -> Result<()> {
        let bad = |m: String| Err(Error::Parameters(format!("group file: {m}")));
        if self.version != VERSION {
            return bad(format!(
                "version {} (this build reads {VERSION})",
                self.version
            ));
        }
        let n = self.parties.len();
        if !(2..=256).contains(&n) {
            return bad(format!("{n} parties (2 to 256)"));
        }
        if self.threshold == 0 || self.threshold >= n {
            return bad(format!(
                "threshold {} for {n} parties (1 to {})",
                self.threshold,
                n - 1
            ));
        }
        for (i, c) in self.parties.iter().enumerate() {
            let entry = format!("card {} ({})", i + 1, c.name);
            c.check()
                .map_err(|e| Error::Parameters(format!("group file: {entry}: {e}")))?;
            if c.trust_root != self.trust_root {
                return bad(format!("{entry} pins another relay trust root"));
            }
            for (j, d) in self.parties[..i].iter().enumerate() {
                let same = if d.account == c.account {
                    Some("the same account")
                } else if d.identity_key == c.identity_key {
                    Some("the same identity key")
                } else if d.name == c.name {
                    Some("the same name")
                } else {
                    None
                };
                if let Some(what) = same {
                    return bad(format!(
                        "card {} ({}) and {entry} have {what}",
                        j + 1,
                        d.name
                    ));
                }
            }
        }
        for (i, x) in self.excluded.iter().enumerate() {
            if self.index_named(&x.name).is_none() {
                return bad(format!("excluded {}: no party has that name", x.name));
            }
            if self.excluded[..i].iter().any(|y| y.name == x.name) {
                return bad(format!("{} is excluded twice", x.name));
            }
        }
        if n - self.excluded.len() <= self.threshold {
            return bad(format!(
                "{} of {n} parties excluded: fewer than t+1 = {} left",
                self.excluded.len(),
                self.threshold + 1
            ));
        }
        Ok(())
    }

    /// Leaves the party named `name` out of the group's runs from now on, for `reason`; false if
    /// it already was. Refused if the name is no party's, or if fewer than t+1 would be left.
    pub fn exclude(&mut self, name: &str, reason: String) -> Result<bool> {
        if self.excluded.iter().any(|x| x.name == name) {
            return Ok(false);
        }
        self.excluded.push(Exclusion {
            name: name.to_string(),
            reason,
        });
        if let Err(e) = self.check() {
            self.excluded.pop();
            return Err(e);
        }
        Ok(true)
    }

    /// Whether party `p` is excluded from the group's runs.
    pub fn is_excluded(&self, p: PartyIndex) -> bool {
        self.excluded
            .iter()
            .any(|x| self.index_named(&x.name) == Some(p))
    }

    /// The indices of the parties of the group's runs: all but the excluded.
    pub fn run_parties(&self) -> Vec<PartyIndex> {
        self.indices()
            .into_iter()
            .filter(|&p| !self.is_excluded(p))
            .collect()
    }

    /// The parties with their indices.
    pub fn members(&self) -> Vec<(PartyIndex, ContactCard)> {
        self.parties
            .iter()
            .enumerate()
            .map(|(i, c)| (i as PartyIndex + 1, c.clone()))
            .collect()
    }

    /// All indices, 1..=n.
    pub fn indices(&self) -> Vec<PartyIndex> {
        (1..=self.parties.len() as PartyIndex).collect()
    }

    /// The index of the party with this account.
    pub fn index_of(&self, account: Uuid) -> Option<PartyIndex> {
        self.parties
            .iter()
            .position(|c| c.account == account)
            .map(|i| i as PartyIndex + 1)
    }

    /// The parties of this group that are also in `old` (the same identity key), each with its
    /// index there: who carries a share of `old`'s key into a resharing.
    pub fn carried_over(&self, old: &GroupFile) -> BTreeMap<PartyIndex, PartyIndex> {
        self.members()
            .into_iter()
            .filter_map(|(p, c)| {
                let o = old
                    .parties
                    .iter()
                    .position(|x| x.identity_key == c.identity_key)?;
                Some((p, o as PartyIndex + 1))
            })
            .collect()
    }

    /// The index of the party with this name.
    pub fn index_named(&self, name: &str) -> Option<PartyIndex> {
        self.parties
            .iter()
            .position(|c| c.name == name)
            .map(|i| i as PartyIndex + 1)
    }

    /// The name of party `p` (or `party p` if there is none).
    pub fn name_of(&self, p: PartyIndex) -> String {
        usize::from(p)
            .checked_sub(1)
            .and_then(|i| self.parties.get(i))
            .map_or_else(|| format!("party {p}"), |c| c.name.clone())
    }

    /// The session id of the group's key generation.
    pub fn keygen_session(&self) -> SessionId {
        self.session("keygen", "")
    }

    /// The session id of a signing run the signers call `id`.
    pub fn sign_session(&self, id: &str) -> SessionId {
        self.session("sign", id)
    }

    /// The session id of the run of kind `what` named `id` in this group without its excluded
    /// parties: every party derives the same one, and no two runs share one.
    pub fn session(&self, what: &str, id: &str) -> SessionId {
        let mut h = Sha256::new();
        h.update(b"alibi mpc session v1\0");
        h.update(what.as_bytes());
        h.update([0]);
        h.update(self.group_id.as_bytes());
        h.update(id.as_bytes());
        // Runs without some parties are other runs: a party that excluded no one never mixes
        // its messages with theirs. Without exclusions the ids are as before.
        let mut names: Vec<&str> = self.excluded.iter().map(|x| x.name.as_str()).collect();
        names.sort_unstable();
        for name in names {
            h.update(b"\0excluded\0");
            h.update(name.as_bytes());
        }
        let d = h.finalize();
        let mut s = [0u8; 16];
        s.copy_from_slice(&d[..16]);
        s
    }
}
