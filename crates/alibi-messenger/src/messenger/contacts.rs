//! The messenger's contacts: cards imported (pinned), looked up, kept on disk.

use std::collections::BTreeMap;
use std::sync::MutexGuard;

use alibi_channel::session::SessionRecord;
use uuid::Uuid;

use super::{address, write_private, Messenger, CONTACTS_FILE};
use crate::card::{ContactCard, Device};
use crate::{Error, Result};

impl Messenger {
    pub(super) fn contacts(&self) -> MutexGuard<'_, BTreeMap<String, ContactCard>> {
        self.inner
            .contacts
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }

    pub(super) fn save_contacts(&self) -> Result<()> {
        let Some(dir) = &self.inner.dir else {
            return Ok(());
        };
        let cards: Vec<ContactCard> = self.contacts().values().cloned().collect();
        let text = serde_json::to_vec_pretty(&cards).unwrap_or_default();
        write_private(&dir.join(CONTACTS_FILE), &text)
    }

    /// Imports (pins) a contact. The card's trust root must be the one this messenger pinned.
    /// Importing a card for a known account with another identity key is how a changed identity
    /// is accepted: its sessions are dropped and the new key pinned.
    pub fn import(&self, card: &ContactCard) -> Result<()> {
        card.check()?;
        if card.account == self.account() {
            return Err(Error::Card(format!(
                "{} is this messenger's own card",
                card.name
            )));
        }
        if card.root()? != self.inner.trust_root {
            return Err(Error::TrustRoot(format!(
                "{}'s card pins another trust root for the relay than this messenger did",
                card.name
            )));
        }
        // What sessions with it are checked against: its identity key, or for RingXKEM its PQ
        // identity's fingerprint (switching the handshake drops the sessions, as a new key does).
        let identity = card.session_identity()?;
        {
            let mut contacts = self.contacts();
            let old = contacts
                .values()
                .find(|c| c.account == card.account)
                .cloned();
            if let Some(old) = &old {
                contacts.remove(&old.name);
            }
            if let Some(other) = contacts.get(&card.name) {
                return Err(Error::Card(format!(
                    "another contact is already named {} (account {})",
                    card.name, other.account
                )));
            }
            let mut store = self.store();
            for d in &card.devices {
                let addr = address(card.account, d.id);
                if store.save_identity(&addr, &identity)? {
                    // A new identity: sessions under the old one must not continue.
                    store.store_session(&addr, &SessionRecord::default())?;
                }
            }
            drop(store);
            contacts.insert(card.name.clone(), card.clone());
        }
        self.save_contacts()
    }

    /// The imported contacts.
    pub fn contact_cards(&self) -> Vec<ContactCard> {
        self.contacts().values().cloned().collect()
    }

    pub(super) fn contact(&self, name: &str) -> Result<ContactCard> {
        self.contacts()
            .get(name)
            .cloned()
            .ok_or_else(|| Error::UnknownContact(name.to_string()))
    }

    pub(super) fn contact_by_account(&self, account: &str) -> Option<ContactCard> {
        let account = Uuid::parse_str(account).ok()?;
        self.contacts()
            .values()
            .find(|c| c.account == account)
            .cloned()
    }

    pub(super) fn update_devices(
        &self,
        name: &str,
        f: impl FnOnce(&mut Vec<Device>),
    ) -> Result<()> {
        {
            let mut contacts = self.contacts();
            if let Some(c) = contacts.get_mut(name) {
                f(&mut c.devices);
            }
        }
        self.save_contacts()
    }
}
