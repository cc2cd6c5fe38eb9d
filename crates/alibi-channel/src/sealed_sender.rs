//! Sealed sender (libsignal `sealed_sender.rs`): the sender's identity travels inside the
//! encryption, vouched for by a [`SenderCertificate`](alibi_sealed_sender::SenderCertificate), so the server sees only the recipient.
//!
//! The certificates and both message versions are `alibi-sealed-sender`'s (import them from
//! there): `v1`, one recipient, `0x11 || protobuf`; `v2`, many recipients in one request, the
//! content encrypted once. Both carry an [`UnidentifiedSenderMessageContent`] (USMC): the inner
//! message's type, the sender certificate, the inner message, a content hint and an optional
//! group id. What this module adds is the channel's part: [`decrypt`] and [`decrypt_usmc`]
//! check the certificate and decrypt the inner message with the sender's session or sender
//! key.

use rand_core::CryptoRng;

use alibi_sealed_sender::{decrypt_to_usmc, ContentType, UnidentifiedSenderMessageContent};

use crate::cipher::{decrypt_prekey, decrypt_signal};
use crate::message::{PreKeySignalMessage, SignalMessage};
use crate::sender_keys::{
    group_decrypt_checked, CheckedSignature, SenderKeyMessage, SenderKeyStore,
};
use crate::store::{Address, ProtocolStore};
use crate::{Error, Result};

/// What a sealed-sender message turned out to hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decrypted {
    /// The sender's UUID, from its certificate.
    pub sender_uuid: String,
    /// The sender's device.
    pub device_id: u32,
    /// The sender's identity key, from its certificate (callers that pinned the sender's
    /// identity compare it).
    pub sender_key: alibi_identity::PublicKey,
    /// The inner message's type.
    pub msg_type: ContentType,
    /// For a sender-key message: its distribution id (which group it belongs to).
    pub distribution_id: Option<uuid::Uuid>,
    /// The plaintext.
    pub plaintext: Vec<u8>,
}

/// Opens a sealed-sender message addressed to us (`local`), checks the sender certificate against
/// the trust roots at `now_ms`, refuses our own messages, and decrypts the inner message: pairwise
/// (Whisper, PreKey) from the sender's session, or a sender-key group message.
pub fn decrypt<S: ProtocolStore + SenderKeyStore + ?Sized, R: CryptoRng + ?Sized>(
    ciphertext: &[u8],
    trust_roots: &[alibi_identity::PublicKey],
    now_ms: u64,
    local: &Address,
    store: &mut S,
    rng: &mut R,
) -> Result<Decrypted> {
    let usmc = decrypt_to_usmc(ciphertext, &store.identity_key_pair()?)?;
    decrypt_usmc(&usmc, trust_roots, now_ms, local, store, rng, None)
}

/// [`decrypt`] on a message already opened with [`decrypt_to_usmc`]: a caller that must check
/// the sender (against its contacts) before anything of it reaches the store opens the outer
/// layer, checks, and only then decrypts the inner message here. `checked`: a sender-key
/// message's signature a batch found valid already ([`crate::sender_keys::verify_signatures`];
/// see [`crate::sender_keys::group_decrypt_checked`]), or `None`.
pub fn decrypt_usmc<S: ProtocolStore + SenderKeyStore + ?Sized, R: CryptoRng + ?Sized>(
    usmc: &UnidentifiedSenderMessageContent,
    trust_roots: &[alibi_identity::PublicKey],
    now_ms: u64,
    local: &Address,
    store: &mut S,
    rng: &mut R,
    checked: Option<&CheckedSignature>,
) -> Result<Decrypted> {
    if !usmc.sender.validate(trust_roots, now_ms) {
        return Err(Error::Certificate(
            "not valid under the trust root, or expired",
        ));
    }
    let sender = Address::new(usmc.sender.sender_uuid.clone(), usmc.sender.device_id);
    if &sender == local {
        return Err(Error::SelfSend);
    }
    let plaintext = match usmc.msg_type {
        ContentType::Whisper => decrypt_signal(
            &sender,
            store,
            &SignalMessage::deserialize(&usmc.contents)?,
            rng,
        )?,
        ContentType::PreKey => decrypt_prekey(
            &sender,
            store,
            &PreKeySignalMessage::deserialize(&usmc.contents)?,
            rng,
        )?,
        ContentType::SenderKey => group_decrypt_checked(&usmc.contents, store, &sender, checked)?,
        ContentType::Plaintext => {
            return Err(Error::SealedSender("plaintext content is not handled"))
        }
    };
    let distribution_id = match usmc.msg_type {
        ContentType::SenderKey => {
            Some(SenderKeyMessage::deserialize(&usmc.contents)?.distribution_id)
        }
        _ => None,
    };
    Ok(Decrypted {
        sender_uuid: usmc.sender.sender_uuid.clone(),
        device_id: usmc.sender.device_id,
        sender_key: usmc.sender.key,
        msg_type: usmc.msg_type,
        distribution_id,
        plaintext,
    })
}
