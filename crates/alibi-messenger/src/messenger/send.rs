//! What the messenger sends: pairwise messages, and sender-key group messages sealed once for
//! every member (sealed sender v2), with the sender keys and certificate they need.

use std::sync::atomic::Ordering;
use std::time::SystemTime;

use alibi_channel::cipher::encrypt;
use alibi_channel::sender_keys::{create_distribution_message, group_encrypt};
use alibi_relay_api::access::{combine, AccessKey};
use alibi_relay_api::messages::OutgoingMessage;
use alibi_relay_api::now_ms;
use alibi_relay_api::proto::envelope;
use alibi_sealed_sender::v2::{self, Recipient};
use alibi_sealed_sender::{
    ContentType, SenderCertificate, ServiceId, UnidentifiedSenderMessageContent,
};
use getrandom::SysRng;
use prost::Message as _;
use rand_core::UnwrapErr;
use sha2::{Digest, Sha256};
use uuid::Uuid;

use super::{address, Group, Messenger};
use crate::card::ContactCard;
use crate::content::{Content, PrivatePart};
use crate::relay::SendError;
use crate::{Error, Result};

/// Attempts of one send while the relay corrects the device list.
const SEND_ATTEMPTS: usize = 3;

impl Messenger {
    /// Encrypts `content` for every device of `contact` and sends it in one request, correcting
    /// the device list as the relay reports it (409, 410); to exactly the carded devices for a
    /// contact whose card is authoritative ([`ContactCard::fixed_devices`]).
    async fn send_content(&self, contact: &ContactCard, content: &[u8]) -> Result<()> {
        let mut last = None;
        for _ in 0..SEND_ATTEMPTS {
            let devices = self.ensure_sessions(contact).await?;
            let messages = {
                let mut store = self.store();
                devices
                    .iter()
                    .map(|&(d, reg)| {
                        let m = encrypt(
                            &address(contact.account, d),
                            &mut **store,
                            content,
                            SystemTime::now(),
                        )?;
                        Ok(OutgoingMessage {
                            // A RingXKEM first message travels as a PreKey envelope; its
                            // version byte (0x54) tells it apart on receipt.
                            kind: envelope::Type::of_pairwise(m.message_type()) as u32,
                            destination_device_id: d,
                            destination_registration_id: reg,
                            content: m.serialize().to_vec(),
                        })
                    })
                    .collect::<Result<Vec<_>>>()?
            };
            self.inner.requests.fetch_add(1, Ordering::Relaxed);
            let client = &self.inner.client;
            let sent = match contact.fixed_devices {
                true => client.send_listed(contact.account, messages).await?,
                false => client.send(contact.account, messages).await?,
            };
            match sent {
                Ok(()) => return Ok(()),
                Err(e) => {
                    self.correct_devices(contact, &e).await?;
                    last = Some(e);
                }
            }
        }
        Err(Error::Send {
            contact: contact.name.clone(),
            error: last.unwrap_or(SendError::Other(0, String::new())),
        })
    }

    /// Prepares `group` ahead of its first message: sessions with every member, our sender key
    /// handed to each, and a sender certificate (Signal's one-time steps).
    pub async fn prepare_group(&self, group: &Group) -> Result<()> {
        let members: Vec<ContactCard> = group
            .members
            .iter()
            .map(|m| self.contact(m))
            .collect::<Result<_>>()?;
        self.certificate().await?;
        self.distribute(group.id, &members).await
    }

    /// Sends `data` to `contact` (every device of it) over the pairwise session, opening it with
    /// PQXDH on first use.
    pub async fn send(&self, contact: &str, data: &[u8]) -> Result<()> {
        let contact = self.contact(contact)?;
        let content = Content {
            data: Some(data.to_vec()),
            ..Content::default()
        }
        .encode_to_vec();
        self.send_content(&contact, &content).await
    }

    /// A sender certificate from the relay, checked against the pinned trust root and this
    /// messenger's own account and identity before it is used.
    pub(super) async fn certificate(&self) -> Result<SenderCertificate> {
        let mut cached = self.inner.certificate.lock().await;
        if let Some(c) = cached.as_ref() {
            if c.expiration > now_ms() + 60_000 {
                return Ok(c.clone());
            }
        }
        self.inner.requests.fetch_add(1, Ordering::Relaxed);
        let bytes = self.inner.client.sender_certificate().await?;
        let cert = SenderCertificate::deserialize(&bytes).map_err(alibi_channel::Error::from)?;
        if !cert.validate(&[self.inner.trust_root], now_ms()) {
            return Err(Error::TrustRoot(
                "the relay's sender certificate does not chain to the pinned trust root".into(),
            ));
        }
        if cert.sender_uuid != self.account().to_string()
            || cert.key != self.inner.identity.identity.0
        {
            return Err(Error::TrustRoot(
                "the relay's sender certificate names another account or key".into(),
            ));
        }
        *cached = Some(cert.clone());
        Ok(cert)
    }

    /// Hands our sender key for `group` to the members that do not have it, all at once.
    async fn distribute(&self, group: Uuid, members: &[ContactCard]) -> Result<()> {
        let todo: Vec<&ContactCard> = {
            let d = self
                .inner
                .distributed
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            members
                .iter()
                .filter(|m| !d.contains(&(group, m.account)))
                .collect()
        };
        if todo.is_empty() {
            return Ok(());
        }
        let skdm = {
            let mut store = self.store();
            create_distribution_message(
                &self.own_address(),
                group,
                &mut **store,
                &mut UnwrapErr(SysRng),
            )?
        };
        let content = Content {
            sender_key_distribution_message: Some(skdm.serialized().to_vec()),
            ..Content::default()
        }
        .encode_to_vec();
        let sends = todo.iter().map(|m| self.send_content(m, &content));
        for (m, r) in todo.iter().zip(futures_util::future::join_all(sends).await) {
            r?;
            self.inner
                .distributed
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert((group, m.account));
        }
        Ok(())
    }

    /// Sends `data` to every member of `group` as one sender-key message, sealed once for all
    /// (sealed sender v2) in one multi-recipient request; members without our sender key get it
    /// first over their pairwise sessions. Each `(member, bytes)` of `private` rides inside,
    /// Double-Ratchet-encrypted to that member alone.
    pub async fn send_group(
        &self,
        group: &Group,
        data: &[u8],
        private: &[(String, Vec<u8>)],
    ) -> Result<()> {
        let members: Vec<ContactCard> = group
            .members
            .iter()
            .map(|m| self.contact(m))
            .collect::<Result<_>>()?;
        if members.is_empty() {
            return Ok(());
        }
        let certificate = self.certificate().await?;
        self.distribute(group.id, &members).await?;
        let mut last = None;
        for _ in 0..SEND_ATTEMPTS {
            let (recipients, parts, ciphertexts) = self.group_recipients(&members, private).await?;
            let content = Content {
                data: Some(data.to_vec()),
                sender_key_distribution_message: None,
                private_parts: parts,
            }
            .encode_to_vec();
            let sent = self.seal_group(group.id, &certificate, &content, &recipients)?;
            let keys: Vec<AccessKey> = members
                .iter()
                .map(ContactCard::access)
                .collect::<Result<_>>()?;
            let key = combine(&keys);
            self.inner.requests.fetch_add(1, Ordering::Relaxed);
            let client = &self.inner.client;
            let listed = members.iter().all(|m| m.fixed_devices);
            let outcome = match private.is_empty() {
                true => client.multi_send(sent, &key, listed).await?,
                false => {
                    let parts = &ciphertexts;
                    client.multi_send_parts(sent, parts, &key, listed).await?
                }
            };
            match outcome {
                Ok(()) => return Ok(()),
                Err(e) => {
                    self.correct_members(&members, &e).await?;
                    last = Some(e);
                }
            }
        }
        Err(Error::Send {
            contact: format!("group {}", group.id),
            error: last.unwrap_or(SendError::Other(0, String::new())),
        })
    }

    /// The recipients of one group send, each with its devices and sessions as they are now,
    /// and the private parts: each `(member, bytes)` of `private` encrypted to every device of
    /// that member over its pairwise session. Returns the parts' entries for the content (with
    /// the ciphertexts' digests) and the ciphertexts, one per `(recipient, device)` entry in
    /// order (empty for a device without a part), for the relay to deliver one by one.
    async fn group_recipients(
        &self,
        members: &[ContactCard],
        private: &[(String, Vec<u8>)],
    ) -> Result<(Vec<Recipient>, Vec<PrivatePart>, Vec<Vec<u8>>)> {
        let mut recipients = Vec::with_capacity(members.len());
        let mut parts = vec![];
        let mut ciphertexts = vec![];
        for m in members {
            let m = self.contact(&m.name)?;
            let devices = self.ensure_sessions(&m).await?;
            let bytes = private.iter().find(|(n, _)| *n == m.name).map(|(_, b)| b);
            let mut store = self.store();
            for &(d, _) in &devices {
                let Some(bytes) = bytes else {
                    ciphertexts.push(vec![]);
                    continue;
                };
                let c = encrypt(
                    &address(m.account, d),
                    &mut **store,
                    bytes,
                    SystemTime::now(),
                )?;
                let ciphertext = c.serialize().to_vec();
                parts.push(PrivatePart {
                    account: m.account.to_string(),
                    device: d.into(),
                    r#type: c.message_type().into(),
                    digest: Sha256::digest(&ciphertext).to_vec(),
                });
                ciphertexts.push(ciphertext);
            }
            drop(store);
            recipients.push(Recipient {
                service_id: ServiceId::aci(m.account),
                identity: m.identity()?,
                devices,
            });
        }
        Ok((recipients, parts, ciphertexts))
    }

    /// `content` as one sender-key message of group `group`, sealed once for all `recipients`
    /// (sealed sender v2) under `certificate`.
    fn seal_group(
        &self,
        group: Uuid,
        certificate: &SenderCertificate,
        content: &[u8],
        recipients: &[Recipient],
    ) -> Result<Vec<u8>> {
        let mut store = self.store();
        let skm = group_encrypt(
            &mut **store,
            &self.own_address(),
            group,
            content,
            &mut UnwrapErr(SysRng),
        )?;
        let usmc = UnidentifiedSenderMessageContent::new(
            ContentType::SenderKey,
            certificate.clone(),
            skm.serialized().to_vec(),
            0,
            Some(group.as_bytes().to_vec()),
        );
        Ok(v2::encrypt(
            &usmc,
            &self.inner.identity,
            recipients,
            &[],
            &mut UnwrapErr(SysRng),
        )
        .map_err(alibi_channel::Error::from)?)
    }
}
