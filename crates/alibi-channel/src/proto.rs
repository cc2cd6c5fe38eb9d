//! Protobuf messages: the wire formats of libsignal's `wire.proto` (proto2, field numbers as
//! there), and our own session-record and store encodings.

use prost::Message;

/// `SignalMessage` of `wire.proto`.
#[derive(Clone, PartialEq, Message)]
pub struct SignalMessage {
    #[prost(bytes = "vec", optional, tag = "1")]
    pub ratchet_key: Option<Vec<u8>>,
    #[prost(uint32, optional, tag = "2")]
    pub counter: Option<u32>,
    #[prost(uint32, optional, tag = "3")]
    pub previous_counter: Option<u32>,
    #[prost(bytes = "vec", optional, tag = "4")]
    pub ciphertext: Option<Vec<u8>>,
    #[prost(bytes = "vec", optional, tag = "5")]
    pub pq_ratchet: Option<Vec<u8>>,
}

/// `PreKeySignalMessage` of `wire.proto`.
#[derive(Clone, PartialEq, Message)]
pub struct PreKeySignalMessage {
    #[prost(uint32, optional, tag = "5")]
    pub registration_id: Option<u32>,
    #[prost(uint32, optional, tag = "1")]
    pub pre_key_id: Option<u32>,
    #[prost(uint32, optional, tag = "6")]
    pub signed_pre_key_id: Option<u32>,
    #[prost(uint32, optional, tag = "7")]
    pub kyber_pre_key_id: Option<u32>,
    #[prost(bytes = "vec", optional, tag = "8")]
    pub kyber_ciphertext: Option<Vec<u8>>,
    #[prost(bytes = "vec", optional, tag = "2")]
    pub base_key: Option<Vec<u8>>,
    #[prost(bytes = "vec", optional, tag = "3")]
    pub identity_key: Option<Vec<u8>>,
    #[prost(bytes = "vec", optional, tag = "4")]
    pub message: Option<Vec<u8>>,
}

/// A stored message key (skipped messages).
#[derive(Clone, PartialEq, Message)]
pub struct MessageKeys {
    #[prost(uint32, tag = "1")]
    pub counter: u32,
    #[prost(bytes = "vec", tag = "2")]
    pub cipher_key: Vec<u8>,
    #[prost(bytes = "vec", tag = "3")]
    pub mac_key: Vec<u8>,
    #[prost(bytes = "vec", tag = "4")]
    pub iv: Vec<u8>,
    /// The message seed, kept instead of the keys once SPQR may salt them.
    #[prost(bytes = "vec", tag = "5")]
    pub seed: Vec<u8>,
}

/// A receiving chain.
#[derive(Clone, PartialEq, Message)]
pub struct ReceiverChain {
    #[prost(bytes = "vec", tag = "1")]
    pub ratchet_key: Vec<u8>,
    #[prost(bytes = "vec", tag = "2")]
    pub chain_key: Vec<u8>,
    #[prost(uint32, tag = "3")]
    pub index: u32,
    #[prost(message, repeated, tag = "4")]
    pub message_keys: Vec<MessageKeys>,
}

/// The initiator's PreKey-message items kept until the first answer.
#[derive(Clone, PartialEq, Message)]
pub struct PendingPreKey {
    #[prost(uint32, optional, tag = "1")]
    pub pre_key_id: Option<u32>,
    #[prost(uint32, tag = "2")]
    pub signed_pre_key_id: u32,
    #[prost(bytes = "vec", tag = "3")]
    pub base_key: Vec<u8>,
    #[prost(uint32, optional, tag = "4")]
    pub kyber_pre_key_id: Option<u32>,
    #[prost(bytes = "vec", optional, tag = "5")]
    pub kyber_ciphertext: Option<Vec<u8>>,
    #[prost(uint64, tag = "6")]
    pub timestamp: u64,
}

/// One session state.
#[derive(Clone, PartialEq, Message)]
pub struct SessionState {
    #[prost(uint32, tag = "1")]
    pub version: u32,
    #[prost(bytes = "vec", tag = "2")]
    pub local_identity: Vec<u8>,
    #[prost(bytes = "vec", tag = "3")]
    pub remote_identity: Vec<u8>,
    #[prost(bytes = "vec", tag = "4")]
    pub root_key: Vec<u8>,
    #[prost(uint32, tag = "5")]
    pub previous_counter: u32,
    #[prost(bytes = "vec", tag = "6")]
    pub sender_ratchet_private: Vec<u8>,
    #[prost(bytes = "vec", tag = "7")]
    pub sender_chain_key: Vec<u8>,
    #[prost(uint32, tag = "8")]
    pub sender_chain_index: u32,
    #[prost(message, repeated, tag = "9")]
    pub receiver_chains: Vec<ReceiverChain>,
    #[prost(message, optional, tag = "10")]
    pub pending_pre_key: Option<PendingPreKey>,
    #[prost(uint32, tag = "11")]
    pub local_registration_id: u32,
    #[prost(uint32, tag = "12")]
    pub remote_registration_id: u32,
    #[prost(bytes = "vec", tag = "13")]
    pub alice_base_key: Vec<u8>,
    /// The SPQR state (alibi-spqr's encoding; empty: SPQR version 0).
    #[prost(bytes = "vec", tag = "14")]
    pub pq_ratchet_state: Vec<u8>,
    /// A RingXKEM initiator's handshake, kept until the first answer.
    #[prost(message, optional, tag = "15")]
    pub pending_ringxkem: Option<PendingRingXkem>,
}

/// A RingXKEM initiator's items kept until the first answer.
#[derive(Clone, PartialEq, Message)]
pub struct PendingRingXkem {
    #[prost(bytes = "vec", tag = "1")]
    pub initiator: Vec<u8>,
    #[prost(bytes = "vec", tag = "2")]
    pub handshake: Vec<u8>,
    #[prost(uint64, tag = "3")]
    pub timestamp: u64,
}

/// A published RingXKEM session bundle.
#[derive(Clone, PartialEq, Message)]
pub struct RingXkemBundle {
    #[prost(bytes = "vec", tag = "1")]
    pub identity: Vec<u8>,
    #[prost(uint32, tag = "2")]
    pub pre_key_id: u32,
    #[prost(bytes = "vec", tag = "3")]
    pub pre_key: Vec<u8>,
    #[prost(bytes = "vec", tag = "4")]
    pub pre_key_signature: Vec<u8>,
    #[prost(bytes = "vec", tag = "5")]
    pub ratchet_key: Vec<u8>,
    #[prost(bytes = "vec", tag = "6")]
    pub ratchet_signature: Vec<u8>,
    #[prost(uint32, tag = "7")]
    pub registration_id: u32,
}

/// A kept (secret) RingXKEM session prekey.
#[derive(Clone, PartialEq, Message)]
pub struct RingXkemPreKey {
    #[prost(bytes = "vec", tag = "1")]
    pub handshake: Vec<u8>,
    #[prost(bytes = "vec", tag = "2")]
    pub ratchet_private: Vec<u8>,
    #[prost(bytes = "vec", tag = "3")]
    pub ratchet_signature: Vec<u8>,
}

/// The first message of a RingXKEM session (after its version byte).
#[derive(Clone, PartialEq, Message)]
pub struct RingXkemMessage {
    #[prost(uint32, tag = "1")]
    pub registration_id: u32,
    #[prost(bytes = "vec", tag = "2")]
    pub initiator: Vec<u8>,
    #[prost(bytes = "vec", tag = "3")]
    pub handshake: Vec<u8>,
    #[prost(bytes = "vec", tag = "4")]
    pub message: Vec<u8>,
}

/// A session record: the current state and archived ones, newest first.
#[derive(Clone, PartialEq, Message)]
pub struct SessionRecord {
    #[prost(message, optional, tag = "1")]
    pub current: Option<SessionState>,
    #[prost(message, repeated, tag = "2")]
    pub previous: Vec<SessionState>,
}

/// A stored prekey of any kind: id, private/secret key, public key, signature, flags.
#[derive(Clone, PartialEq, Message)]
pub struct StoredPreKey {
    #[prost(uint32, tag = "1")]
    pub id: u32,
    #[prost(bytes = "vec", tag = "2")]
    pub secret: Vec<u8>,
    #[prost(bytes = "vec", tag = "3")]
    pub public: Vec<u8>,
    #[prost(bytes = "vec", tag = "4")]
    pub signature: Vec<u8>,
    #[prost(bool, tag = "5")]
    pub last_resort: bool,
}

pub(crate) fn decode<M: Message + Default>(b: &[u8], what: &'static str) -> crate::Result<M> {
    M::decode(b).map_err(|_| crate::Error::Malformed(what))
}

/// `SenderKeyMessage` of `wire.proto`.
#[derive(Clone, PartialEq, Message)]
pub struct SenderKeyMessage {
    #[prost(bytes = "vec", optional, tag = "1")]
    pub distribution_uuid: Option<Vec<u8>>,
    #[prost(uint32, optional, tag = "2")]
    pub chain_id: Option<u32>,
    #[prost(uint32, optional, tag = "3")]
    pub iteration: Option<u32>,
    #[prost(bytes = "vec", optional, tag = "4")]
    pub ciphertext: Option<Vec<u8>>,
}

/// `SenderKeyDistributionMessage` of `wire.proto`.
#[derive(Clone, PartialEq, Message)]
pub struct SenderKeyDistributionMessage {
    #[prost(bytes = "vec", optional, tag = "1")]
    pub distribution_uuid: Option<Vec<u8>>,
    #[prost(uint32, optional, tag = "2")]
    pub chain_id: Option<u32>,
    #[prost(uint32, optional, tag = "3")]
    pub iteration: Option<u32>,
    #[prost(bytes = "vec", optional, tag = "4")]
    pub chain_key: Option<Vec<u8>>,
    #[prost(bytes = "vec", optional, tag = "5")]
    pub signing_key: Option<Vec<u8>>,
}

/// One sender-key state as we store it.
#[derive(Clone, PartialEq, Message)]
pub struct SenderKeyState {
    #[prost(uint32, tag = "1")]
    pub version: u32,
    #[prost(uint32, tag = "2")]
    pub chain_id: u32,
    #[prost(uint32, tag = "3")]
    pub iteration: u32,
    #[prost(bytes = "vec", tag = "4")]
    pub chain_key: Vec<u8>,
    #[prost(bytes = "vec", tag = "5")]
    pub signing_public: Vec<u8>,
    #[prost(bytes = "vec", optional, tag = "6")]
    pub signing_private: Option<Vec<u8>>,
    /// Skipped message keys: (iteration, seed) pairs.
    #[prost(message, repeated, tag = "7")]
    pub message_keys: Vec<SenderMessageKey>,
}

/// A skipped sender message key, stored by its seed.
#[derive(Clone, PartialEq, Message)]
pub struct SenderMessageKey {
    #[prost(uint32, tag = "1")]
    pub iteration: u32,
    #[prost(bytes = "vec", tag = "2")]
    pub seed: Vec<u8>,
}

/// A sender-key record: up to five states, newest first.
#[derive(Clone, PartialEq, Message)]
pub struct SenderKeyRecord {
    #[prost(message, repeated, tag = "1")]
    pub states: Vec<SenderKeyState>,
}
