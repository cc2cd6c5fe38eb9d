//! libsignal's pairwise wire messages (`wire.proto`, `protocol.rs`).
//!
//! Both begin with a version byte `(session_version << 4) | 4`. A `SignalMessage` ends with
//! `HMAC-SHA256(mac_key, IK_sender(33) || IK_receiver(33) || version || protobuf)` truncated to 8
//! bytes; a `PreKeySignalMessage` wraps one and has no MAC of its own. alibi's `RingXkemMessage`
//! (type 5, session version 5) wraps one too, and `CiphertextMessage` is any of the three.

use alibi_identity::{IdentityKey, PublicKey};
use hmac::{Hmac, KeyInit, Mac};
use prost::Message as _;
use sha2::Sha256;
use subtle::ConstantTimeEq;

use crate::proto;
use crate::{Error, Result};

/// The low nibble of every version byte: libsignal's current ciphertext version.
pub const CURRENT_VERSION: u8 = 4;
/// The lowest session version accepted (X3DH).
pub const PRE_KYBER_VERSION: u8 = 3;
/// The session version of RingXKEM sessions (alibi's own; libsignal stops at 4).
pub const RINGXKEM_VERSION: u8 = 5;
/// Length of the truncated MAC.
pub const MAC_LEN: usize = 8;
/// The ciphertext message type of RingXKEM first messages (public as `ringxkem::MESSAGE_TYPE`).
pub(crate) const RINGXKEM_MESSAGE_TYPE: u8 = 5;

/// The session version in a message's first byte, between 3 and `max`.
pub(crate) fn version_of(b: &[u8], max: u8) -> Result<u8> {
    let v = b.first().ok_or(Error::TooShort(0))? >> 4;
    if v < PRE_KYBER_VERSION {
        return Err(Error::LegacyVersion(v));
    }
    if v > max {
        return Err(Error::UnknownVersion(v));
    }
    Ok(v)
}

/// A Double Ratchet message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignalMessage {
    version: u8,
    ratchet_key: PublicKey,
    counter: u32,
    previous_counter: u32,
    ciphertext: Vec<u8>,
    pq_ratchet: Vec<u8>,
    serialized: Vec<u8>,
}

impl SignalMessage {
    /// Builds and MACs a message.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        version: u8,
        mac_key: &[u8; 32],
        ratchet_key: PublicKey,
        counter: u32,
        previous_counter: u32,
        ciphertext: Vec<u8>,
        sender: &IdentityKey,
        receiver: &IdentityKey,
        pq_ratchet: &[u8],
    ) -> Self {
        let pb = proto::SignalMessage {
            ratchet_key: Some(ratchet_key.serialize().to_vec()),
            counter: Some(counter),
            previous_counter: Some(previous_counter),
            ciphertext: Some(ciphertext.clone()),
            // libsignal leaves the field out when SPQR has nothing to say (version 0).
            pq_ratchet: (!pq_ratchet.is_empty()).then(|| pq_ratchet.to_vec()),
        };
        let mut serialized = Vec::with_capacity(1 + pb.encoded_len() + MAC_LEN);
        serialized.push((version << 4) | CURRENT_VERSION);
        pb.encode(&mut serialized).expect("Vec grows");
        let mac = mac(mac_key, sender, receiver, &serialized);
        serialized.extend_from_slice(&mac);
        Self {
            version,
            ratchet_key,
            counter,
            previous_counter,
            ciphertext,
            pq_ratchet: pq_ratchet.to_vec(),
            serialized,
        }
    }

    /// Parses a message (the MAC is checked later, with the session's keys).
    pub fn deserialize(b: &[u8]) -> Result<Self> {
        if b.len() < 1 + MAC_LEN {
            return Err(Error::TooShort(b.len()));
        }
        let version = version_of(b, RINGXKEM_VERSION)?;
        let pb: proto::SignalMessage =
            proto::decode(&b[1..b.len() - MAC_LEN], "SignalMessage protobuf")?;
        let ratchet_key = PublicKey::deserialize(
            pb.ratchet_key
                .as_deref()
                .ok_or(Error::Malformed("SignalMessage without ratchet key"))?,
        )?;
        Ok(Self {
            version,
            ratchet_key,
            counter: pb
                .counter
                .ok_or(Error::Malformed("SignalMessage without counter"))?,
            previous_counter: pb.previous_counter.unwrap_or(0),
            ciphertext: pb
                .ciphertext
                .ok_or(Error::Malformed("SignalMessage without ciphertext"))?,
            pq_ratchet: pb.pq_ratchet.unwrap_or_default(),
            serialized: b.to_vec(),
        })
    }

    /// Checks the MAC, in constant time.
    pub fn verify_mac(
        &self,
        sender: &IdentityKey,
        receiver: &IdentityKey,
        mac_key: &[u8; 32],
    ) -> bool {
        let (content, theirs) = self.serialized.split_at(self.serialized.len() - MAC_LEN);
        mac(mac_key, sender, receiver, content).ct_eq(theirs).into()
    }

    /// The session version.
    pub fn version(&self) -> u8 {
        self.version
    }
    /// The sender's current ratchet public key.
    pub fn ratchet_key(&self) -> &PublicKey {
        &self.ratchet_key
    }
    /// The message's index on its sending chain.
    pub fn counter(&self) -> u32 {
        self.counter
    }
    /// The length of the sender's previous sending chain.
    pub fn previous_counter(&self) -> u32 {
        self.previous_counter
    }
    /// The AES-256-CBC ciphertext.
    pub fn ciphertext(&self) -> &[u8] {
        &self.ciphertext
    }
    /// The SPQR field (`pq_ratchet`, empty when absent), covered by the MAC.
    pub fn pq_ratchet(&self) -> &[u8] {
        &self.pq_ratchet
    }
    /// The bytes on the wire.
    pub fn serialized(&self) -> &[u8] {
        &self.serialized
    }
}

fn mac(
    key: &[u8; 32],
    sender: &IdentityKey,
    receiver: &IdentityKey,
    content: &[u8],
) -> [u8; MAC_LEN] {
    let mut m = Hmac::<Sha256>::new_from_slice(key).expect("any key length");
    m.update(&sender.serialize());
    m.update(&receiver.serialize());
    m.update(content);
    let full = m.finalize().into_bytes();
    full[..MAC_LEN].try_into().expect("8 bytes")
}

/// The first messages of a session, carrying what the responder needs to run the handshake.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PreKeySignalMessage {
    version: u8,
    /// The sender's registration id.
    pub registration_id: u32,
    /// The one-time prekey used, if any.
    pub pre_key_id: Option<u32>,
    /// The signed prekey used.
    pub signed_pre_key_id: u32,
    /// The KEM prekey used and the ciphertext to it (PQXDH).
    pub kyber: Option<(u32, Vec<u8>)>,
    /// The initiator's base key.
    pub base_key: PublicKey,
    /// The initiator's identity key.
    pub identity_key: IdentityKey,
    message: SignalMessage,
    serialized: Vec<u8>,
}

impl PreKeySignalMessage {
    /// Wraps a first message.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        version: u8,
        registration_id: u32,
        pre_key_id: Option<u32>,
        signed_pre_key_id: u32,
        kyber: Option<(u32, Vec<u8>)>,
        base_key: PublicKey,
        identity_key: IdentityKey,
        message: SignalMessage,
    ) -> Self {
        let pb = proto::PreKeySignalMessage {
            registration_id: Some(registration_id),
            pre_key_id,
            signed_pre_key_id: Some(signed_pre_key_id),
            kyber_pre_key_id: kyber.as_ref().map(|k| k.0),
            kyber_ciphertext: kyber.as_ref().map(|k| k.1.clone()),
            base_key: Some(base_key.serialize().to_vec()),
            identity_key: Some(identity_key.serialize().to_vec()),
            message: Some(message.serialized().to_vec()),
        };
        let mut serialized = Vec::with_capacity(1 + pb.encoded_len());
        serialized.push((version << 4) | CURRENT_VERSION);
        pb.encode(&mut serialized).expect("Vec grows");
        Self {
            version,
            registration_id,
            pre_key_id,
            signed_pre_key_id,
            kyber,
            base_key,
            identity_key,
            message,
            serialized,
        }
    }

    /// Parses a PreKey message and the message inside it.
    pub fn deserialize(b: &[u8]) -> Result<Self> {
        let version = version_of(b, CURRENT_VERSION)?;
        let pb: proto::PreKeySignalMessage =
            proto::decode(&b[1..], "PreKeySignalMessage protobuf")?;
        let need = |o: Option<Vec<u8>>, what| o.ok_or(Error::Malformed(what));
        let base_key =
            PublicKey::deserialize(&need(pb.base_key, "PreKey message without base key")?)?;
        let identity_key = IdentityKey::deserialize(&need(
            pb.identity_key,
            "PreKey message without identity key",
        )?)?;
        let message =
            SignalMessage::deserialize(&need(pb.message, "PreKey message without message")?)?;
        let signed_pre_key_id = pb
            .signed_pre_key_id
            .ok_or(Error::Malformed("PreKey message without signed prekey id"))?;
        let kyber = match (pb.kyber_pre_key_id, pb.kyber_ciphertext) {
            (Some(id), Some(ct)) => Some((id, ct)),
            (None, None) if version == PRE_KYBER_VERSION => None,
            _ => {
                return Err(Error::Malformed(
                    "PreKey message with a partial or missing KEM part",
                ))
            }
        };
        if message.version() != version {
            return Err(Error::VersionMismatch {
                message: message.version(),
                session: version,
            });
        }
        Ok(Self {
            version,
            registration_id: pb.registration_id.unwrap_or(0),
            pre_key_id: pb.pre_key_id,
            signed_pre_key_id,
            kyber,
            base_key,
            identity_key,
            message,
            serialized: b.to_vec(),
        })
    }

    /// The session version (3 for X3DH, 4 for PQXDH).
    pub fn version(&self) -> u8 {
        self.version
    }
    /// The wrapped message.
    pub fn message(&self) -> &SignalMessage {
        &self.message
    }
    /// The bytes on the wire.
    pub fn serialized(&self) -> &[u8] {
        &self.serialized
    }
}

/// A RingXKEM session's first message (type 5): `0x54 || protobuf(registration id, initiator's PQ
/// identity, RingXKEM message, SignalMessage)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RingXkemMessage {
    /// The initiator's registration id.
    pub registration_id: u32,
    /// The initiator's PQ identity (public bytes).
    pub initiator: Vec<u8>,
    /// The RingXKEM handshake message.
    pub handshake: Vec<u8>,
    /// The first Double Ratchet message.
    pub message: SignalMessage,
    serialized: Vec<u8>,
}

impl RingXkemMessage {
    pub(crate) fn new(
        registration_id: u32,
        initiator: Vec<u8>,
        handshake: Vec<u8>,
        message: SignalMessage,
    ) -> Self {
        let pb = proto::RingXkemMessage {
            registration_id,
            initiator: initiator.clone(),
            handshake: handshake.clone(),
            message: message.serialized().to_vec(),
        };
        let mut serialized = vec![(RINGXKEM_VERSION << 4) | CURRENT_VERSION];
        pb.encode(&mut serialized).expect("Vec grows");
        Self {
            registration_id,
            initiator,
            handshake,
            message,
            serialized,
        }
    }

    /// Parses a first message.
    pub fn deserialize(b: &[u8]) -> Result<Self> {
        if version_of(b, RINGXKEM_VERSION)? != RINGXKEM_VERSION {
            return Err(Error::Malformed("RingXKEM message with another version"));
        }
        let pb: proto::RingXkemMessage = proto::decode(&b[1..], "RingXKEM message protobuf")?;
        let message = SignalMessage::deserialize(&pb.message)?;
        if message.version() != RINGXKEM_VERSION {
            return Err(Error::Malformed(
                "RingXKEM message carrying another version",
            ));
        }
        Ok(Self {
            registration_id: pb.registration_id,
            initiator: pb.initiator,
            handshake: pb.handshake,
            message,
            serialized: b.to_vec(),
        })
    }

    /// The bytes on the wire.
    pub fn serialized(&self) -> &[u8] {
        &self.serialized
    }
}

/// libsignal's ciphertext message types (`CiphertextMessageType`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CiphertextMessage {
    /// Type 2 ("Whisper"): a message on an established session.
    Signal(SignalMessage),
    /// Type 3: a first message, carrying the handshake.
    PreKey(PreKeySignalMessage),
    /// Type 5 (alibi's own): a first message of a RingXKEM session, carrying its handshake.
    RingXkem(RingXkemMessage),
}

impl CiphertextMessage {
    /// libsignal's type number: 2 or 3 (5 for RingXKEM, which libsignal does not have).
    pub fn message_type(&self) -> u8 {
        match self {
            Self::Signal(_) => 2,
            Self::PreKey(_) => 3,
            Self::RingXkem(_) => RINGXKEM_MESSAGE_TYPE,
        }
    }

    /// The bytes on the wire.
    pub fn serialize(&self) -> &[u8] {
        match self {
            Self::Signal(m) => m.serialized(),
            Self::PreKey(m) => m.serialized(),
            Self::RingXkem(m) => m.serialized(),
        }
    }

    /// Parses a message of libsignal type 2 or 3.
    pub fn deserialize(message_type: u8, b: &[u8]) -> Result<Self> {
        match message_type {
            2 => Ok(Self::Signal(SignalMessage::deserialize(b)?)),
            3 => Ok(Self::PreKey(PreKeySignalMessage::deserialize(b)?)),
            RINGXKEM_MESSAGE_TYPE => Ok(Self::RingXkem(RingXkemMessage::deserialize(b)?)),
            _ => Err(Error::Malformed("message type (2, 3 or 5 expected)")),
        }
    }
}
