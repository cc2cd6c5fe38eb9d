//! Sealed sender (libsignal `sealed_sender.rs`): the sender's identity travels inside the
//! encryption, vouched for by a [`SenderCertificate`], so the server sees only the recipient.
//!
//! * [`v1`]: one recipient, `0x11 || protobuf`; keys from the "UnidentifiedDelivery" schedule,
//!   AES-256-CTR with 10-byte HMAC-SHA256 tags.
//! * [`v2`]: many recipients in one request; the content is encrypted once (AES-256-GCM-SIV) and
//!   each recipient gets a 32-byte wrapped key and a 16-byte authentication tag.
//!
//! Both carry an [`UnidentifiedSenderMessageContent`] (USMC): the inner message's type, the sender
//! certificate, the inner message, a content hint and an optional group id.

pub mod certificate;
pub mod v1;
pub mod v2;

use alibi_handshake::IdentityKeyPair;
use prost::Message as _;
use rand_core::CryptoRng;

pub use certificate::{SenderCertificate, ServerCertificate};

use crate::cipher::{decrypt_prekey, decrypt_signal};
use crate::message::{PreKeySignalMessage, SignalMessage};
use crate::sender_keys::{group_decrypt, SenderKeyMessage, SenderKeyStore};
use crate::store::{Address, ProtocolStore};
use crate::{proto, Error, Result};

/// A service id: an account UUID, as an ACI or a PNI, in libsignal's 17-byte fixed-width form
/// (`0x00` or `0x01`, then the UUID) and its string form (`uuid` or `PNI:uuid`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ServiceId {
    /// False for an ACI, true for a PNI.
    pub pni: bool,
    /// The UUID.
    pub uuid: uuid::Uuid,
}

impl ServiceId {
    /// An ACI.
    pub fn aci(uuid: uuid::Uuid) -> Self {
        Self { pni: false, uuid }
    }

    /// The 17-byte form.
    pub fn fixed_width(&self) -> [u8; 17] {
        let mut b = [0u8; 17];
        b[0] = u8::from(self.pni);
        b[1..].copy_from_slice(self.uuid.as_bytes());
        b
    }

    /// Parses the 17-byte form.
    pub fn from_fixed_width(b: &[u8; 17]) -> Result<Self> {
        let pni = match b[0] {
            0 => false,
            1 => true,
            _ => return Err(Error::Malformed("service id kind")),
        };
        Ok(Self {
            pni,
            uuid: uuid::Uuid::from_slice(&b[1..]).expect("16 bytes"),
        })
    }

    /// Parses `uuid` or `PNI:uuid`.
    pub fn parse(s: &str) -> Result<Self> {
        let (pni, rest) = match s.strip_prefix("PNI:") {
            Some(r) => (true, r),
            None => (false, s),
        };
        let uuid = uuid::Uuid::parse_str(rest).map_err(|_| Error::Malformed("service id"))?;
        Ok(Self { pni, uuid })
    }
}

impl core::fmt::Display for ServiceId {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        if self.pni {
            write!(f, "PNI:{}", self.uuid)
        } else {
            write!(f, "{}", self.uuid)
        }
    }
}

/// The type of the message inside a USMC (libsignal's `CiphertextMessageType` numbers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ContentType {
    /// A Double Ratchet message (type 2).
    Whisper,
    /// A PreKey message (type 3).
    PreKey,
    /// A sender-key group message (type 7).
    SenderKey,
    /// Plaintext content (type 8).
    Plaintext,
}

impl ContentType {
    /// The number in `UnidentifiedSenderMessage.Message.Type` (PreKey is 1 there, not 3).
    fn proto(self) -> i32 {
        match self {
            Self::PreKey => 1,
            Self::Whisper => 2,
            Self::SenderKey => 7,
            Self::Plaintext => 8,
        }
    }

    fn from_proto(v: i32) -> Result<Self> {
        match v {
            1 => Ok(Self::PreKey),
            2 => Ok(Self::Whisper),
            7 => Ok(Self::SenderKey),
            8 => Ok(Self::Plaintext),
            _ => Err(Error::Malformed("USMC message type")),
        }
    }

    /// libsignal's `CiphertextMessageType` number.
    pub fn number(self) -> u8 {
        match self {
            Self::Whisper => 2,
            Self::PreKey => 3,
            Self::SenderKey => 7,
            Self::Plaintext => 8,
        }
    }
}

/// The unidentified sender message content: what sealed sender encrypts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnidentifiedSenderMessageContent {
    /// The inner message's type.
    pub msg_type: ContentType,
    /// The sender's certificate.
    pub sender: SenderCertificate,
    /// The inner message.
    pub contents: Vec<u8>,
    /// The content hint (0 default, 1 resendable, 2 implicit).
    pub content_hint: u32,
    /// The group id, for group messages.
    pub group_id: Option<Vec<u8>>,
    serialized: Vec<u8>,
}

impl UnidentifiedSenderMessageContent {
    /// Wraps an inner message.
    pub fn new(
        msg_type: ContentType,
        sender: SenderCertificate,
        contents: Vec<u8>,
        content_hint: u32,
        group_id: Option<Vec<u8>>,
    ) -> Self {
        let group_id = group_id.filter(|g| !g.is_empty());
        let serialized = proto::UnidentifiedSenderMessageContent {
            r#type: Some(msg_type.proto()),
            sender_certificate: Some(sender.serialized().to_vec()),
            content: Some(contents.clone()),
            content_hint: (content_hint != 0).then_some(content_hint as i32),
            group_id: group_id.clone(),
        }
        .encode_to_vec();
        Self {
            msg_type,
            sender,
            contents,
            content_hint,
            group_id,
            serialized,
        }
    }

    /// Parses a USMC.
    pub fn deserialize(b: &[u8]) -> Result<Self> {
        const BAD: Error = Error::Malformed("unidentified sender message content");
        let pb: proto::UnidentifiedSenderMessageContent = proto::decode(b, "USMC")?;
        Ok(Self {
            msg_type: ContentType::from_proto(pb.r#type.ok_or(BAD)?)?,
            sender: SenderCertificate::deserialize(&pb.sender_certificate.ok_or(BAD)?)?,
            contents: pb.content.ok_or(BAD)?,
            content_hint: pb.content_hint.unwrap_or(0) as u32,
            group_id: pb.group_id,
            serialized: b.to_vec(),
        })
    }

    /// The encoding.
    pub fn serialized(&self) -> &[u8] {
        &self.serialized
    }
}

/// Opens a sealed-sender message of either version to its USMC (the sender is authenticated by
/// the message's keys; its certificate is not yet checked).
pub fn decrypt_to_usmc(
    ciphertext: &[u8],
    ours: &IdentityKeyPair,
) -> Result<UnidentifiedSenderMessageContent> {
    match ciphertext.first().map(|b| b >> 4) {
        Some(0) | Some(1) => v1::decrypt_to_usmc(ciphertext, ours),
        Some(2) => v2::decrypt_to_usmc(ciphertext, ours),
        Some(_) => Err(Error::SealedSender("unknown sealed sender version")),
        None => Err(Error::TooShort(0)),
    }
}

/// What a sealed-sender message turned out to hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decrypted {
    /// The sender's UUID, from its certificate.
    pub sender_uuid: String,
    /// The sender's device.
    pub device_id: u32,
    /// The sender's identity key, from its certificate (callers that pinned the sender's
    /// identity compare it).
    pub sender_key: alibi_handshake::PublicKey,
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
pub fn decrypt<S: ProtocolStore + SenderKeyStore + ?Sized>(
    ciphertext: &[u8],
    trust_roots: &[alibi_handshake::PublicKey],
    now_ms: u64,
    local: &Address,
    store: &mut S,
    rng: &mut impl CryptoRng,
) -> Result<Decrypted> {
    let usmc = decrypt_to_usmc(ciphertext, &store.identity_key_pair()?)?;
    decrypt_usmc(&usmc, trust_roots, now_ms, local, store, rng)
}

/// [`decrypt`] on a message already opened with [`decrypt_to_usmc`]: a caller that must check
/// the sender (against its contacts) before anything of it reaches the store opens the outer
/// layer, checks, and only then decrypts the inner message here.
pub fn decrypt_usmc<S: ProtocolStore + SenderKeyStore + ?Sized>(
    usmc: &UnidentifiedSenderMessageContent,
    trust_roots: &[alibi_handshake::PublicKey],
    now_ms: u64,
    local: &Address,
    store: &mut S,
    rng: &mut impl CryptoRng,
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
        ContentType::SenderKey => group_decrypt(&usmc.contents, store, &sender)?,
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
