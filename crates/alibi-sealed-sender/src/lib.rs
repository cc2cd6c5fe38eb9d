//! # alibi-sealed-sender
//!
//! Sealed sender as libsignal speaks it (`sealed_sender.rs`): the sender's identity travels
//! inside the encryption, vouched for by a [`SenderCertificate`], so the server sees only the
//! recipient.
//!
//! * [`certificate`]: server certificates (signed by a trust root) and the short-lived sender
//!   certificates a server key signs, XEdDSA over their protobuf bytes.
//! * [`v1`]: one recipient, `0x11 || protobuf`; keys from the "UnidentifiedDelivery" schedule,
//!   AES-256-CTR with 10-byte HMAC-SHA256 tags.
//! * [`v2`]: many recipients in one request; the content is encrypted once (AES-256-GCM-SIV) and
//!   each recipient gets a 32-byte wrapped key and a 16-byte authentication tag. Also the server's
//!   side: parsing a multi-recipient `SentMessage` and cutting each recipient's
//!   `ReceivedMessage`.
//!
//! Both carry an [`UnidentifiedSenderMessageContent`] (USMC): the inner message's type, the sender
//! certificate, the inner message, a content hint and an optional group id. Opening a message
//! yields its USMC ([`decrypt_to_usmc`]); decrypting the inner message with the sender's session
//! or sender key is `alibi-channel`'s (`alibi_channel::sealed_sender::decrypt`).
//!
//! The crate stands on `alibi-identity` alone among alibi crates, so the relay, which issues
//! certificates and splits multi-recipient requests but never decrypts, links no session code and
//! no post-quantum scheme.
//!
//! ```
//! use alibi_identity::{IdentityKeyPair, PrivateKey};
//! use alibi_sealed_sender::{v1, ContentType, SenderCertificate, ServerCertificate};
//! use alibi_sealed_sender::{decrypt_to_usmc, UnidentifiedSenderMessageContent};
//! let mut rng = rand_core::UnwrapErr(getrandom::SysRng);
//! let (root, server) = (PrivateKey::generate(&mut rng), PrivateKey::generate(&mut rng));
//! let (alice, bob) = (IdentityKeyPair::generate(&mut rng), IdentityKeyPair::generate(&mut rng));
//! let signer = ServerCertificate::new(1, server.public_key(), &root, &mut rng);
//! let uuid = "aaaaaaaa-7000-11eb-b32a-33b8a8a48700".to_string();
//! let expires = 1_900_000_000_000;
//! let cert = SenderCertificate::new(
//!     uuid, None, alice.identity.0, 1, expires, signer, &server, &mut rng,
//! );
//! let usmc = UnidentifiedSenderMessageContent::new(ContentType::Whisper, cert, vec![7], 0, None);
//! let sealed = v1::encrypt(&usmc, &alice, &bob.identity.0, &mut rng);
//! let opened = decrypt_to_usmc(&sealed, &bob).unwrap();
//! assert!(opened.sender.validate(&[root.public_key()], expires - 1));
//! assert_eq!(opened.contents, [7]);
//! ```

#![deny(unsafe_code)]
#![deny(missing_docs)]
#![deny(clippy::unwrap_used)]

pub mod certificate;
mod proto;
pub mod v1;
pub mod v2;

use alibi_identity::IdentityKeyPair;
use prost::Message as _;

pub use certificate::{SenderCertificate, ServerCertificate};

/// Errors of sealed sender.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// A key that does not decode, or a signature that does not verify.
    #[error(transparent)]
    Key(#[from] alibi_identity::Error),
    /// Bytes that do not parse as the named structure.
    #[error("malformed {0}")]
    Malformed(&'static str),
    /// A message shorter than its fixed parts.
    #[error("message too short ({0} bytes)")]
    TooShort(usize),
    /// A sealed-sender message that fails to open or authenticate.
    #[error("sealed sender: {0}")]
    SealedSender(&'static str),
    /// A sender certificate that is malformed, not signed through the trust root, or expired.
    #[error("sender certificate: {0}")]
    Certificate(&'static str),
}

/// The crate's result type.
pub type Result<T> = core::result::Result<T, Error>;

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

/// [`decrypt_to_usmc`] of several messages, each with its own verdict, the same as alone: the
/// version 2 ones opened together ([`v2::decrypt_to_usmc_many`]), the others one by one.
pub fn decrypt_to_usmc_many(
    ciphertexts: &[&[u8]],
    ours: &IdentityKeyPair,
) -> Vec<Result<UnidentifiedSenderMessageContent>> {
    let is_v2 = |c: &&[u8]| c.first().map(|b| b >> 4) == Some(2);
    let v2: Vec<&[u8]> = ciphertexts.iter().copied().filter(is_v2).collect();
    let mut opened = v2::decrypt_to_usmc_many(&v2, ours).into_iter();
    ciphertexts
        .iter()
        .map(|c| match is_v2(c) {
            true => opened.next().expect("one opening per version 2 message"),
            false => decrypt_to_usmc(c, ours),
        })
        .collect()
}
