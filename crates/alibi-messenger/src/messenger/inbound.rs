//! One envelope on its way in: decrypted, checked against the pinned contacts, its content
//! opened, and its fate decided (delivered, consumed, kept for later, or given up on).

use std::sync::atomic::Ordering;

use alibi_channel::cipher::{decrypt, CiphertextMessage};
use alibi_channel::ringxkem;
use alibi_channel::sealed_sender;
use alibi_channel::sender_keys::{
    self, process_distribution_message, CheckedSignature, SenderKeyDistributionMessage,
};
use alibi_channel::Address;
use alibi_identity::IdentityKey;
use alibi_relay_api::now_ms;
use alibi_relay_api::proto::{envelope, Envelope};
use alibi_sealed_sender::{ContentType, UnidentifiedSenderMessageContent};
use getrandom::SysRng;
use prost::Message as _;
use rand_core::UnwrapErr;
use sha2::{Digest, Sha256};
use uuid::Uuid;

use super::{address, Kind, Messenger, Received};
use crate::card::{ContactCard, Handshake};
use crate::content::Content;

/// An envelope on its way in, with what has been decrypted of it so far. A sealed envelope's
/// outer layer is opened the first time the envelope is processed and kept with it: one that
/// must wait for its sender key or session is tried again after every progress, and only its
/// inner message, which is what could not be decrypted, is tried again.
pub(super) struct Incoming {
    envelope: Envelope,
    /// The sealed outer layer, once opened (it depends on nothing but the bytes and our
    /// identity key, so opening it again could only give the same).
    sealed: Option<UnidentifiedSenderMessageContent>,
    /// A sender-key message's signature, found valid in a batch ([`Messenger::check_batch`]).
    checked: Option<CheckedSignature>,
}

impl Incoming {
    /// An envelope as the relay delivered it, nothing decrypted yet.
    pub(super) fn new(envelope: Envelope) -> Self {
        Self {
            envelope,
            sealed: None,
            checked: None,
        }
    }

    /// The relay's id of the envelope (what acknowledges it).
    pub(super) fn guid(&self) -> Option<Uuid> {
        self.envelope.guid()
    }

    /// Who sent it, as far as known: the sender certificate of a sealed message once opened,
    /// else the envelope's source.
    pub(super) fn sender(&self) -> Option<&str> {
        match &self.sealed {
            Some(usmc) => Some(usmc.sender.sender_uuid.as_str()),
            None => self.envelope.source_service_id.as_deref(),
        }
    }
}

impl Messenger {
    /// [`Self::process`], true if it delivers (for [`crate::fuzzing`]).
    pub(crate) fn process_for_fuzzing(&self, env: &Envelope) -> bool {
        matches!(
            self.process(&mut Incoming::new(env.clone())),
            Outcome::Deliver(_)
        )
    }

    /// Opens the sealed outer layer of every envelope of `batch` and checks the signatures of
    /// the sender-key messages among them at once (one multi-scalar multiplication instead of
    /// one verification each), against the signing keys the store holds for their chains now.
    /// Nothing is decided here: [`Self::process`] still makes every check, and skips only the
    /// signature found valid under the very key it would check it against.
    pub(super) fn check_batch(&self, batch: &mut [Incoming]) {
        self.open_batch(batch);
        let mut found = vec![];
        for (i, incoming) in batch.iter().enumerate() {
            let Some(usmc) = &incoming.sealed else {
                continue;
            };
            // Only a contact's, under the key its card pins, reaches the store (as in
            // `process_sealed`): a stranger's message costs no lookup here.
            let pinned = self
                .contact_by_account(&usmc.sender.sender_uuid)
                .and_then(|c| c.identity().ok());
            if usmc.msg_type != ContentType::SenderKey
                || pinned != Some(IdentityKey(usmc.sender.key))
            {
                continue;
            }
            let sender = Address::new(usmc.sender.sender_uuid.clone(), usmc.sender.device_id);
            let mut store = self.store();
            if let Some(key) = sender_keys::signing_key_of(&usmc.contents, &mut **store, &sender) {
                found.push((i, key));
            }
        }
        if found.len() < 2 {
            return;
        }
        let messages: Vec<(&[u8], _)> = found
            .iter()
            .filter_map(|&(i, key)| Some((batch[i].sealed.as_ref()?.contents.as_slice(), key)))
            .collect();
        let checked = sender_keys::verify_signatures(&messages, &mut UnwrapErr(SysRng));
        for ((i, _), c) in found.into_iter().zip(checked) {
            batch[i].checked = c;
        }
    }

    /// Opens the sealed outer layers of `batch` not opened yet, all at once
    /// ([`alibi_sealed_sender::decrypt_to_usmc_many`]). A failure is left for [`Self::process`],
    /// which opens that envelope again and says why.
    fn open_batch(&self, batch: &mut [Incoming]) {
        let sealed: Vec<usize> = (0..batch.len())
            .filter(|&i| {
                batch[i].envelope.r#type() == envelope::Type::UnidentifiedSender
                    && batch[i].sealed.is_none()
            })
            .collect();
        let contents: Vec<&[u8]> = sealed
            .iter()
            .map(|&i| batch[i].envelope.content())
            .collect();
        let opened = alibi_sealed_sender::decrypt_to_usmc_many(&contents, &self.inner.identity);
        for (i, usmc) in sealed.into_iter().zip(opened) {
            #[cfg(test)]
            self.inner.counts.opened.fetch_add(1, Ordering::Relaxed);
            batch[i].sealed = usmc.ok();
        }
    }

    /// Decrypts one envelope (what is left of it to decrypt) and decides its fate.
    pub(super) fn process(&self, incoming: &mut Incoming) -> Outcome {
        let r = match incoming.envelope.r#type() {
            envelope::Type::Ciphertext | envelope::Type::PrekeyBundle => {
                self.process_pairwise(&incoming.envelope)
            }
            envelope::Type::UnidentifiedSender => self.process_sealed(incoming),
            _ => Err(Discard::Unexpected),
        };
        r.unwrap_or_else(|d| match d {
            Discard::Later => Outcome::Later,
            d => Outcome::Dropped(d),
        })
    }

    fn process_pairwise(&self, env: &Envelope) -> core::result::Result<Outcome, Discard> {
        let contact = self
            .contact_by_account(env.source_service_id())
            .ok_or(Discard::UnknownSender)?;
        let device = u8::try_from(env.source_device()).map_err(|_| Discard::Unexpected)?;
        let ringxkem_version = alibi_channel::message::RINGXKEM_VERSION;
        let kind = match env.r#type() {
            envelope::Type::PrekeyBundle
                if env.content().first().map(|b| b >> 4) == Some(ringxkem_version) =>
            {
                alibi_channel::ringxkem::MESSAGE_TYPE
            }
            t => t.pairwise_message_type(),
        };
        let m =
            CiphertextMessage::deserialize(kind, env.content()).map_err(|_| Discard::Malformed)?;
        let addr = address(contact.account, device);
        let plaintext = match &m {
            CiphertextMessage::RingXkem(r) => {
                // Only from a contact set to RingXKEM, and only with the PQ identity pinned.
                let pinned = (contact.handshake == Handshake::Ringxkem)
                    .then(|| contact.pq().ok())
                    .flatten();
                if pinned.map(|p| p.to_bytes()) != Some(r.initiator.clone()) {
                    return Err(Discard::IdentityMismatch(contact.name));
                }
                let (ours, pk) = self.inner.ringxkem.as_ref().ok_or(Discard::Unexpected)?;
                self.inner.prekey_messages.fetch_add(1, Ordering::Relaxed);
                let mut store = self.store();
                ringxkem::accept(&addr, &mut **store, ours, pk, r, &mut UnwrapErr(SysRng))
                    .map_err(Discard::from)?
            }
            _ => {
                if let CiphertextMessage::PreKey(p) = &m {
                    if Some(p.identity_key) != contact.identity().ok()
                        || contact.handshake != Handshake::Pqxdh
                    {
                        return Err(Discard::IdentityMismatch(contact.name));
                    }
                    self.inner.prekey_messages.fetch_add(1, Ordering::Relaxed);
                }
                let mut store = self.store();
                decrypt(&addr, &mut **store, &m, &mut UnwrapErr(SysRng)).map_err(Discard::from)?
            }
        };
        self.open_content(&contact, device, &addr, Kind::Direct, &plaintext, None)
    }

    /// A sealed envelope. Its outer layer opens with our identity key alone; the sender it names
    /// is then checked against the cards (a contact, under the key its card pins, from a device
    /// the card lists) before the inner message is decrypted, since that can build a session,
    /// pin an identity and use up a one-time prekey: a stranger, or a relay forging certificates
    /// under its trust root, touches nothing in the store. On a retry the outer layer opened
    /// the first time is used, and the checks are made again (a card may have changed since).
    fn process_sealed(&self, incoming: &mut Incoming) -> core::result::Result<Outcome, Discard> {
        #[cfg(test)]
        self.inner.counts.sealed.fetch_add(1, Ordering::Relaxed);
        let usmc = match &mut incoming.sealed {
            Some(usmc) => &*usmc,
            none => {
                #[cfg(test)]
                self.inner.counts.opened.fetch_add(1, Ordering::Relaxed);
                let content = incoming.envelope.content();
                let usmc = alibi_sealed_sender::decrypt_to_usmc(content, &self.inner.identity)
                    .map_err(|e| Discard::from(alibi_channel::Error::from(e)))?;
                &*none.insert(usmc)
            }
        };
        let cert = &usmc.sender;
        let contact = self
            .contact_by_account(&cert.sender_uuid)
            .ok_or(Discard::UnknownSender)?;
        let pinned = contact.identity().ok();
        if Some(IdentityKey(cert.key)) != pinned {
            return Err(Discard::IdentityMismatch(contact.name));
        }
        let device = u8::try_from(cert.device_id).map_err(|_| Discard::Unexpected)?;
        if !contact.devices.iter().any(|d| d.id == device) {
            return Err(Discard::UnlistedDevice(contact.name, device));
        }
        if usmc.msg_type == ContentType::PreKey {
            let m = CiphertextMessage::deserialize(3, &usmc.contents)
                .map_err(|_| Discard::Malformed)?;
            let CiphertextMessage::PreKey(p) = m else {
                return Err(Discard::Malformed);
            };
            if Some(p.identity_key) != pinned || contact.handshake != Handshake::Pqxdh {
                return Err(Discard::IdentityMismatch(contact.name));
            }
            self.inner.prekey_messages.fetch_add(1, Ordering::Relaxed);
        }
        // A contact's message that cannot be decrypted yet (Discard::Later) waits; only contacts
        // get this far, so strangers cannot fill the waiting room.
        let opened = {
            let mut store = self.store();
            sealed_sender::decrypt_usmc(
                usmc,
                &[self.inner.trust_root],
                now_ms(),
                &self.own_address(),
                &mut **store,
                &mut UnwrapErr(SysRng),
                incoming.checked.as_ref(),
            )
            .map_err(Discard::from)?
        };
        let addr = address(contact.account, device);
        let kind = match (opened.msg_type, opened.distribution_id) {
            (ContentType::SenderKey, Some(id)) => Kind::Group(id),
            _ => Kind::Direct,
        };
        let part = incoming.envelope.device_part.as_deref();
        self.open_content(&contact, device, &addr, kind, &opened.plaintext, part)
    }

    /// A decrypted message from `contact`'s `device`: its content, and for a group message the
    /// private part for this device (`device_part`, delivered beside it), which must be the one
    /// whose digest the content names for this device.
    fn open_content(
        &self,
        contact: &ContactCard,
        device: u8,
        addr: &Address,
        kind: Kind,
        plaintext: &[u8],
        device_part: Option<&[u8]>,
    ) -> core::result::Result<Outcome, Discard> {
        let content = Content::decode(plaintext).map_err(|_| Discard::Malformed)?;
        if let Some(b) = &content.sender_key_distribution_message {
            let skdm =
                SenderKeyDistributionMessage::deserialize(b).map_err(|_| Discard::Malformed)?;
            let mut store = self.store();
            process_distribution_message(addr, &skdm, &mut **store).map_err(Discard::from)?;
        }
        let Some(data) = content.data else {
            return Ok(Outcome::Consumed);
        };
        let me = self.account().to_string();
        let own_device = u32::from(self.inner.client.device);
        let private = content
            .private_parts
            .iter()
            .find(|p| p.account == me && p.device == own_device)
            .zip(device_part)
            .filter(|(p, c)| Sha256::digest(c)[..] == p.digest[..])
            .and_then(|(p, c)| {
                let m = CiphertextMessage::deserialize(p.r#type as u8, c).ok()?;
                if let CiphertextMessage::PreKey(pk) = &m {
                    if Some(pk.identity_key) != contact.identity().ok() {
                        return None;
                    }
                }
                let mut store = self.store();
                decrypt(addr, &mut **store, &m, &mut UnwrapErr(SysRng)).ok()
            });
        Ok(Outcome::Deliver(Received {
            sender: contact.name.clone(),
            device,
            kind,
            data,
            private,
        }))
    }
}

/// What became of an envelope.
pub(super) enum Outcome {
    /// A message for the application.
    Deliver(Received),
    /// Handled inside the messenger (a sender key).
    Consumed,
    /// Not decryptable yet: kept, tried again after the next progress.
    Later,
    /// Given up on.
    Dropped(Discard),
}

/// Why an envelope was given up on.
#[derive(Debug)]
pub(super) enum Discard {
    Later,
    UnknownSender,
    IdentityMismatch(String),
    /// A certificate for a device the contact's card does not list (contact, device).
    UnlistedDevice(String, u8),
    Malformed,
    Unexpected,
    Protocol(String),
}

impl core::fmt::Display for Discard {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Discard::Later => f.write_str("not decryptable yet"),
            Discard::UnknownSender => f.write_str("from no contact"),
            Discard::IdentityMismatch(c) => {
                write!(f, "identity of contact {c} does not match its card")
            }
            Discard::UnlistedDevice(c, d) => {
                write!(f, "device {d} of contact {c} is not on its card")
            }
            Discard::Malformed => f.write_str("malformed"),
            Discard::Unexpected => f.write_str("unexpected envelope"),
            Discard::Protocol(e) => write!(f, "does not decrypt: {e}"),
        }
    }
}

impl From<alibi_channel::Error> for Discard {
    fn from(e: alibi_channel::Error) -> Self {
        match e {
            // The sender key or the session comes in a message the relay has not delivered yet.
            alibi_channel::Error::NoSenderKey(_) | alibi_channel::Error::NoSession(_) => {
                Discard::Later
            }
            alibi_channel::Error::UntrustedIdentity(a) => Discard::IdentityMismatch(a),
            e => Discard::Protocol(e.to_string()),
        }
    }
}

/// What the inbound path did (tests only): sealed envelopes processed, counting every retry of
/// one that waited, and outer layers opened.
#[cfg(test)]
#[derive(Default)]
pub(super) struct Counts {
    pub(super) sealed: std::sync::atomic::AtomicU64,
    pub(super) opened: std::sync::atomic::AtomicU64,
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use alibi_channel::sender_keys::group_encrypt;
    use alibi_relay::local::LocalRelay;
    use alibi_relay::server::Config;
    use alibi_relay_api::proto::{envelope, Envelope};
    use alibi_sealed_sender::{v1, ContentType, UnidentifiedSenderMessageContent};
    use getrandom::SysRng;
    use prost::Message as _;
    use rand_core::UnwrapErr;
    use uuid::Uuid;

    use super::{Incoming, Outcome};
    use crate::content::Content;
    use crate::{Group, Messenger, Options};

    /// A's group message `data` to B as B's inbox gets it (sealed to B alone), its sender-key
    /// signature spoiled (a bit of its scalar flipped: still well-formed) if `forge`.
    async fn sealed_group_message(
        a: &Messenger,
        b: &Messenger,
        group: Uuid,
        data: &[u8],
        forge: bool,
    ) -> Incoming {
        let mut rng = UnwrapErr(SysRng);
        let content = Content {
            data: Some(data.to_vec()),
            sender_key_distribution_message: None,
            private_parts: vec![],
        }
        .encode_to_vec();
        let mut skm = {
            let mut store = a.store();
            group_encrypt(&mut **store, &a.own_address(), group, &content, &mut rng)
                .expect("group_encrypt")
                .serialized()
                .to_vec()
        };
        if forge {
            let s = skm.len() - 32;
            skm[s] ^= 1;
        }
        let cert = a.certificate().await.expect("certificate");
        let usmc = UnidentifiedSenderMessageContent::new(
            ContentType::SenderKey,
            cert,
            skm,
            0,
            Some(group.as_bytes().to_vec()),
        );
        let sealed = v1::encrypt(
            &usmc,
            &a.inner.identity,
            &b.inner.identity.identity.0,
            &mut rng,
        );
        Incoming::new(Envelope {
            r#type: Some(envelope::Type::UnidentifiedSender.into()),
            content: Some(sealed),
            ..Default::default()
        })
    }

    /// Four group messages of one contact arrive together, the third with a spoiled signature:
    /// the batch check vouches for the three genuine ones only, and the forgery alone is
    /// dropped, its neighbours delivered (a batch that vouched for all, or dropped all, fails).
    #[tokio::test]
    async fn a_forged_group_message_in_a_batch_is_dropped_alone() {
        let relay = LocalRelay::start(Config::default()).await.expect("relay");
        let options = Options::default();
        let a = Messenger::ephemeral(&relay.url, "A", &options)
            .await
            .expect("register A");
        let b = Messenger::ephemeral(&relay.url, "B", &options)
            .await
            .expect("register B");
        a.import(&b.card()).expect("import B");
        b.import(&a.card()).expect("import A");
        let group = Group {
            id: Uuid::new_v4(),
            members: vec!["B".into()],
        };
        // B gets A's sender key the usual way, with a first message.
        let mut ib = b.receive();
        a.send_group(&group, b"first", &[]).await.expect("send");
        let first = tokio::time::timeout(Duration::from_secs(10), ib.next())
            .await
            .expect("the first message within 10 s")
            .expect("inbox open");
        assert_eq!(first.data, b"first");

        let mut batch = vec![];
        for i in 0..4u8 {
            let data = [b'm', b'0' + i];
            batch.push(sealed_group_message(&a, &b, group.id, &data, i == 2).await);
        }
        b.check_batch(&mut batch);
        let vouched: Vec<bool> = batch.iter().map(|i| i.checked.is_some()).collect();
        assert_eq!(
            vouched,
            [true, true, false, true],
            "vouched for in the batch"
        );
        let got: Vec<Option<Vec<u8>>> = batch
            .iter_mut()
            .map(|i| match b.process(i) {
                Outcome::Deliver(r) => Some(r.data),
                _ => None,
            })
            .collect();
        assert_eq!(
            got,
            [
                Some(b"m0".to_vec()),
                Some(b"m1".to_vec()),
                None,
                Some(b"m3".to_vec())
            ],
            "delivered"
        );
    }
}
