//! The pairwise sessions: opened from bundles checked against the pinned identities (PQXDH, or
//! RingXKEM), and corrected as the relay reports a contact's devices.

use std::sync::atomic::Ordering;
use std::time::SystemTime;

use alibi_channel::cipher::process_prekey_bundle;
use alibi_channel::ringxkem::{self, fingerprint, RingXkemBundle};
use alibi_channel::session::SessionRecord;
use alibi_channel::Address;
use alibi_handshake::IdentityKey;
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
            let reg = b.registration_id;
            self.update_devices(&contact.name, |ds| {
                for d in ds.iter_mut().filter(|d| d.id == b.device_id) {
                    d.registration_id = reg;
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

    /// Applies a 409 or 410 to the contact's device list; other answers are final.
    pub(super) fn correct_devices(&self, contact: &ContactCard, e: &SendError) -> Result<()> {
        match e {
            SendError::MismatchedDevices { missing, extra } => {
                let identity = contact.session_identity()?;
                {
                    let mut store = self.store();
                    for &d in missing {
                        store.save_identity(&address(contact.account, d), &identity)?;
                    }
                }
                self.update_devices(&contact.name, |ds| {
                    ds.retain(|d| !extra.contains(&d.id));
                    for &id in missing {
                        if !ds.iter().any(|d| d.id == id) {
                            ds.push(Device {
                                id,
                                registration_id: 0,
                            });
                        }
                    }
                })
            }
            SendError::StaleDevices(stale) => {
                let mut store = self.store();
                for &d in stale {
                    store.store_session(&address(contact.account, d), &SessionRecord::default())?;
                }
                Ok(())
            }
            SendError::Other(..) => Err(Error::Send {
                contact: contact.name.clone(),
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
