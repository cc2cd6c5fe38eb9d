//! The pairwise sessions: opened from bundles checked against the pinned identities (PQXDH, or
//! RingXKEM), and corrected as the relay reports a contact's devices.

use std::sync::atomic::Ordering;
use std::time::SystemTime;

use alibi_channel::cipher::process_prekey_bundle;
use alibi_channel::ringxkem::{self, fingerprint, RingXkemBundle};
use alibi_channel::session::SessionRecord;
use alibi_channel::Address;
use alibi_identity::IdentityKey;
use getrandom::SysRng;
use rand_core::UnwrapErr;

use super::{address, Messenger};
use crate::card::{ContactCard, Device, Handshake};
use crate::prekeys::to_prekey_bundle;
use crate::relay::SendError;
use crate::{Error, Result};

impl Messenger {
    /// Opens a PQXDH session with every device of `contact` that has none, from bundles checked
    /// against the pinned identity. Returns (device, registration id) of each device.
    pub(super) async fn ensure_sessions(&self, contact: &ContactCard) -> Result<Vec<(u8, u16)>> {
        let lock = self
            .inner
            .setup
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry(contact.account)
            .or_default()
            .clone();
        let _held = lock.lock().await;
        let contact = self.contact(&contact.name)?;
        let missing: Vec<u8> = {
            let store = self.store();
            let mut missing = vec![];
            for d in &contact.devices {
                let has = store
                    .load_session(&address(contact.account, d.id))?
                    .is_some_and(|r| r.current().is_some());
                if !has {
                    missing.push(d.id);
                }
            }
            missing
        };
        if !missing.is_empty() {
            self.fetch_sessions(&contact, &missing).await?;
        }
        let contact = self.contact(&contact.name)?;
        let store = self.store();
        contact
            .devices
            .iter()
            .map(|d| {
                let reg = store
                    .load_session(&address(contact.account, d.id))?
                    .and_then(|r| r.current().map(|s| s.remote_registration_id()))
                    .unwrap_or(d.registration_id.into());
                Ok((d.id, reg as u16))
            })
            .collect()
    }

    async fn fetch_sessions(&self, contact: &ContactCard, devices: &[u8]) -> Result<()> {
        let pinned = contact.identity()?;
        let session_identity = contact.session_identity()?;
        let which = match devices {
            [one] => Some(*one),
            _ => None,
        };
        self.inner.requests.fetch_add(1, Ordering::Relaxed);
        let response = self
            .inner
            .client
            .fetch_bundles(contact.account, which)
            .await?;
        if IdentityKey::deserialize(&response.identity_key).ok() != Some(pinned) {
            return Err(Error::IdentityMismatch {
                contact: contact.name.clone(),
                what: "the relay's prekey bundle carries another identity key",
            });
        }
        for b in response
            .devices
            .iter()
            .filter(|b| devices.contains(&b.device_id))
        {
            let addr = address(contact.account, b.device_id);
            let opened = if contact.handshake == Handshake::Ringxkem {
                self.ringxkem_session(contact, &addr, b)
            } else {
                if b.pq_pre_key.is_none() && !contact.legacy {
                    return Err(Error::Downgrade(contact.name.clone()));
                }
                let bundle = to_prekey_bundle(b, &pinned, contact.legacy)?;
                let mut store = self.store();
                store.save_identity(&addr, &session_identity)?;
                process_prekey_bundle(
                    &addr,
                    &mut **store,
                    &bundle,
                    SystemTime::now(),
                    &mut UnwrapErr(SysRng),
                )
            };
            opened.map_err(|e| match e {
                alibi_channel::Error::Handshake(_) | alibi_channel::Error::UntrustedIdentity(_) => {
                    Error::IdentityMismatch {
                        contact: contact.name.clone(),
                        what: "the prekey bundle's signatures do not verify under the pinned identity",
                    }
                }
                e => Error::Protocol(e),
            })?;
            // A device the card did not list (a 409 named it) joins the list only now, its bundle
            // checked against the pinned identity and its session open.
            let (id, reg) = (b.device_id, b.registration_id);
            self.update_devices(&contact.name, |ds| {
                match ds.iter_mut().find(|d| d.id == id) {
                    Some(d) => d.registration_id = reg,
                    None => ds.push(Device {
                        id,
                        registration_id: reg,
                    }),
                }
            })?;
        }
        Ok(())
    }

    /// Opens a RingXKEM session with one device of `contact` from the bundle the relay handed
    /// out, checked against the PQ identity pinned in the contact's card.
    fn ringxkem_session(
        &self,
        contact: &ContactCard,
        addr: &Address,
        b: &alibi_relay_api::keys::DeviceBundle,
    ) -> core::result::Result<(), alibi_channel::Error> {
        let refuse = || {
            alibi_channel::Error::Handshake(alibi_handshake::Error::BadSignature("RingXKEM bundle"))
        };
        let (ours, _) = self.inner.ringxkem.as_ref().ok_or_else(refuse)?;
        let pinned = contact.pq().map_err(|_| refuse())?;
        let key = b.ringxkem_pre_key.as_ref().ok_or_else(refuse)?;
        let bundle = RingXkemBundle::from_bytes(crate::card::PQ_SUITE, &key.bundle)?;
        if bundle.handshake.identity.to_bytes() != pinned.to_bytes() {
            return Err(alibi_channel::Error::UntrustedIdentity(addr.to_string()));
        }
        let mut store = self.store();
        store.save_identity(addr, &fingerprint(&pinned))?;
        ringxkem::initiate(
            addr,
            &mut **store,
            ours,
            &bundle,
            SystemTime::now(),
            &mut UnwrapErr(SysRng),
        )
    }

    /// Applies a 409 or 410 to the contact's device list; other answers are final. A device the
    /// relay says is missing is added only once its bundle was fetched and checked against the
    /// pinned identity (its session opened); a contact whose card is authoritative is never
    /// changed: the relay's word that a carded device does not exist makes it undeliverable.
    pub(super) async fn correct_devices(&self, contact: &ContactCard, e: &SendError) -> Result<()> {
        match e {
            SendError::MismatchedDevices { missing, extra } => {
                if contact.fixed_devices {
                    return Err(undeliverable(contact, e));
                }
                if !extra.is_empty() {
                    self.update_devices(&contact.name, |ds| ds.retain(|d| !extra.contains(&d.id)))?;
                }
                if !missing.is_empty() {
                    let unusable = |why: String| Error::Send {
                        contact: contact.name.clone(),
                        error: SendError::Other(
                            404,
                            format!("devices {missing:?} the relay named: {why}"),
                        ),
                    };
                    self.fetch_sessions(contact, missing)
                        .await
                        .map_err(|e| match e {
                            e @ Error::IdentityMismatch { .. } => e,
                            e => unusable(e.to_string()),
                        })?;
                    let added = self.contact(&contact.name)?;
                    if let Some(d) = missing
                        .iter()
                        .find(|&&d| !added.devices.iter().any(|x| x.id == d))
                    {
                        return Err(unusable(format!("no bundle for device {d}")));
                    }
                }
                Ok(())
            }
            SendError::StaleDevices(stale) => {
                let mut store = self.store();
                for &d in stale {
                    store.store_session(&address(contact.account, d), &SessionRecord::default())?;
                }
                Ok(())
            }
            SendError::Accounts(lists) => {
                let Some((_, l)) = lists.iter().find(|(a, _)| *a == contact.account) else {
                    return Ok(());
                };
                let conflict = SendError::MismatchedDevices {
                    missing: l.missing_devices.clone(),
                    extra: l.extra_devices.clone(),
                };
                if !l.missing_devices.is_empty() || !l.extra_devices.is_empty() {
                    return Box::pin(self.correct_devices(contact, &conflict)).await;
                }
                let stale = SendError::StaleDevices(l.stale_devices.clone());
                Box::pin(self.correct_devices(contact, &stale)).await
            }
            SendError::Undeliverable { .. } | SendError::Other(404 | 413, _) => {
                Err(undeliverable(contact, e))
            }
            SendError::Other(..) => Err(Error::Send {
                contact: contact.name.clone(),
                error: e.clone(),
            }),
        }
    }

    /// Applies a group send's refusal to each member it names, and to no other: a 409 or 410
    /// names the accounts whose lists were wrong, a 404 or 413 the accounts the relay will not
    /// deliver to (all of those are named at once). A refusal that names no account is final.
    pub(super) async fn correct_members(
        &self,
        members: &[ContactCard],
        e: &SendError,
    ) -> Result<()> {
        match e {
            SendError::Accounts(lists) => {
                for m in members
                    .iter()
                    .filter(|m| lists.iter().any(|(a, _)| *a == m.account))
                {
                    self.correct_devices(m, e).await?;
                }
                Ok(())
            }
            SendError::Undeliverable { accounts, .. } => {
                let named: Vec<String> = members
                    .iter()
                    .filter(|m| accounts.contains(&m.account))
                    .map(|m| m.name.clone())
                    .collect();
                Err(Error::Undeliverable {
                    contacts: named,
                    reason: e.to_string(),
                })
            }
            e => Err(Error::Send {
                contact: "the group".into(),
                error: e.clone(),
            }),
        }
    }

    /// Opens the pairwise sessions with these contacts now (PQXDH from their bundles) rather
    /// than on first use.
    pub async fn open_sessions(&self, contacts: &[String]) -> Result<()> {
        let cards: Vec<ContactCard> = contacts
            .iter()
            .map(|c| self.contact(c))
            .collect::<Result<_>>()?;
        let opens = cards.iter().map(|c| self.ensure_sessions(c));
        for r in futures_util::future::join_all(opens).await {
            r?;
        }
        Ok(())
    }
}

/// The relay's word that `contact` cannot be delivered to, for its account.
fn undeliverable(contact: &ContactCard, e: &SendError) -> Error {
    Error::Undeliverable {
        contacts: vec![contact.name.clone()],
        reason: e.to_string(),
    }
}
