//! Session states and records, with libsignal's limits (`consts.rs`): 5 receiving chains per
//! state, 2,000 stored skipped message keys per chain, 40 archived states per record.

use std::collections::VecDeque;

use alibi_identity::{IdentityKey, KeyPair, PrivateKey, PublicKey};
use prost::Message as _;
use zeroize::Zeroizing;

use crate::proto;
use crate::ratchet::{ChainKey, MessageKeys, RootKey};
use crate::{Error, Result};

/// Receiving chains kept per state.
pub const MAX_RECEIVER_CHAINS: usize = 5;
/// Skipped message keys kept per receiving chain.
pub const MAX_MESSAGE_KEYS: usize = 2000;
/// Steps a message may jump ahead on its chain.
pub const MAX_FORWARD_JUMPS: u32 = 25_000;
/// Archived states kept per record.
pub const ARCHIVED_STATES_MAX: usize = 40;

pub(crate) struct ReceiverChain {
    pub ratchet_key: PublicKey,
    pub chain_key: ChainKey,
    pub message_keys: VecDeque<SkippedKey>,
}

/// A skipped message's key material, kept for a late message.
#[derive(Clone)]
pub(crate) enum SkippedKey {
    /// The message seed: its keys are derived when it arrives, salted with its SPQR key (as
    /// libsignal keeps them since SPQR).
    Seed {
        counter: u32,
        seed: Zeroizing<[u8; 32]>,
    },
    /// Derived keys, as records written before SPQR hold them.
    Keys(MessageKeys),
}

impl SkippedKey {
    pub(crate) fn counter(&self) -> u32 {
        match self {
            SkippedKey::Seed { counter, .. } => *counter,
            SkippedKey::Keys(k) => k.counter,
        }
    }

    /// The message keys; derived keys cannot take an SPQR key.
    pub(crate) fn keys(&self, spqr_key: Option<&[u8; 32]>) -> Result<MessageKeys> {
        match (self, spqr_key) {
            (SkippedKey::Seed { counter, seed }, k) => {
                Ok(MessageKeys::derive(&seed[..], k, *counter))
            }
            (SkippedKey::Keys(k), None) => Ok(k.clone()),
            (SkippedKey::Keys(_), Some(_)) => Err(Error::InvalidMessage(
                "SPQR key for a message key stored without its seed",
            )),
        }
    }
}

/// What the initiator keeps until the responder first answers: every message until then is sent
/// as a PreKey message.
#[derive(Clone)]
pub(crate) struct PendingPreKey {
    pub pre_key_id: Option<u32>,
    pub signed_pre_key_id: u32,
    pub base_key: PublicKey,
    pub kyber: Option<(u32, Vec<u8>)>,
    pub timestamp: u64,
}

/// What a RingXKEM initiator keeps until the responder first answers.
#[derive(Clone)]
pub(crate) struct PendingRingXkem {
    /// Our PQ identity's public bytes.
    pub initiator: Vec<u8>,
    /// The handshake message.
    pub handshake: Vec<u8>,
    pub timestamp: u64,
}

/// One Double Ratchet session with a peer.
pub struct SessionState {
    pub(crate) version: u8,
    pub(crate) local_identity: IdentityKey,
    pub(crate) remote_identity: IdentityKey,
    pub(crate) root_key: RootKey,
    pub(crate) previous_counter: u32,
    pub(crate) sender_ratchet: KeyPair,
    pub(crate) sender_chain: ChainKey,
    pub(crate) receiver_chains: Vec<ReceiverChain>,
    pub(crate) pending_pre_key: Option<PendingPreKey>,
    pub(crate) local_registration_id: u32,
    pub(crate) remote_registration_id: u32,
    pub(crate) alice_base_key: PublicKey,
    /// The session's Sparse Post-Quantum Ratchet (version 0 for X3DH sessions).
    pub(crate) spqr: alibi_spqr::State,
    /// A RingXKEM session's handshake, until answered.
    pub(crate) pending_ringxkem: Option<PendingRingXkem>,
}

impl Clone for SessionState {
    fn clone(&self) -> Self {
        Self {
            version: self.version,
            local_identity: self.local_identity,
            remote_identity: self.remote_identity,
            root_key: self.root_key.clone(),
            previous_counter: self.previous_counter,
            sender_ratchet: self.sender_ratchet.clone(),
            sender_chain: self.sender_chain.clone(),
            receiver_chains: self
                .receiver_chains
                .iter()
                .map(|c| ReceiverChain {
                    ratchet_key: c.ratchet_key,
                    chain_key: c.chain_key.clone(),
                    message_keys: c.message_keys.clone(),
                })
                .collect(),
            pending_pre_key: self.pending_pre_key.clone(),
            local_registration_id: self.local_registration_id,
            remote_registration_id: self.remote_registration_id,
            alice_base_key: self.alice_base_key,
            spqr: self.spqr.clone(),
            pending_ringxkem: self.pending_ringxkem.clone(),
        }
    }
}

impl SessionState {
    /// The session version (3: X3DH, 4: PQXDH).
    pub fn version(&self) -> u8 {
        self.version
    }
    /// Our identity key.
    pub fn local_identity(&self) -> &IdentityKey {
        &self.local_identity
    }
    /// The peer's identity key.
    pub fn remote_identity(&self) -> &IdentityKey {
        &self.remote_identity
    }
    /// The peer's registration id.
    pub fn remote_registration_id(&self) -> u32 {
        self.remote_registration_id
    }
    /// The base key of the handshake that made this session.
    pub fn alice_base_key(&self) -> &PublicKey {
        &self.alice_base_key
    }
    /// The SPQR version the session runs (version 1 until a peer without SPQR answers, if the
    /// session allows that).
    pub fn spqr_version(&self) -> alibi_spqr::Version {
        self.spqr.version()
    }
    /// The latest SPQR epoch whose keys the session holds.
    pub fn spqr_epoch(&self) -> u64 {
        self.spqr.chain_epoch()
    }
    /// Whether we still wrap our messages as PreKey (or RingXKEM) messages: no answer yet.
    pub fn has_pending_pre_key(&self) -> bool {
        self.pending_pre_key.is_some() || self.pending_ringxkem.is_some()
    }

    pub(crate) fn receiver_chain(&mut self, key: &PublicKey) -> Option<&mut ReceiverChain> {
        self.receiver_chains
            .iter_mut()
            .find(|c| &c.ratchet_key == key)
    }

    pub(crate) fn add_receiver_chain(&mut self, ratchet_key: PublicKey, chain_key: ChainKey) {
        self.receiver_chains.push(ReceiverChain {
            ratchet_key,
            chain_key,
            message_keys: VecDeque::new(),
        });
        if self.receiver_chains.len() > MAX_RECEIVER_CHAINS {
            self.receiver_chains.remove(0);
        }
    }

    fn to_pb(&self) -> proto::SessionState {
        proto::SessionState {
            version: self.version.into(),
            local_identity: self.local_identity.serialize().to_vec(),
            remote_identity: self.remote_identity.serialize().to_vec(),
            root_key: self.root_key.0.to_vec(),
            previous_counter: self.previous_counter,
            sender_ratchet_private: self.sender_ratchet.private.to_bytes().to_vec(),
            sender_chain_key: self.sender_chain.key.to_vec(),
            sender_chain_index: self.sender_chain.index,
            receiver_chains: self
                .receiver_chains
                .iter()
                .map(|c| proto::ReceiverChain {
                    ratchet_key: c.ratchet_key.serialize().to_vec(),
                    chain_key: c.chain_key.key.to_vec(),
                    index: c.chain_key.index,
                    message_keys: c
                        .message_keys
                        .iter()
                        .map(|k| match k {
                            SkippedKey::Seed { counter, seed } => proto::MessageKeys {
                                counter: *counter,
                                seed: seed.to_vec(),
                                ..Default::default()
                            },
                            SkippedKey::Keys(k) => proto::MessageKeys {
                                counter: k.counter,
                                cipher_key: k.cipher_key.to_vec(),
                                mac_key: k.mac_key.to_vec(),
                                iv: k.iv.to_vec(),
                                seed: Vec::new(),
                            },
                        })
                        .collect(),
                })
                .collect(),
            pending_pre_key: self.pending_pre_key.as_ref().map(|p| proto::PendingPreKey {
                pre_key_id: p.pre_key_id,
                signed_pre_key_id: p.signed_pre_key_id,
                base_key: p.base_key.serialize().to_vec(),
                kyber_pre_key_id: p.kyber.as_ref().map(|k| k.0),
                kyber_ciphertext: p.kyber.as_ref().map(|k| k.1.clone()),
                timestamp: p.timestamp,
            }),
            local_registration_id: self.local_registration_id,
            remote_registration_id: self.remote_registration_id,
            alice_base_key: self.alice_base_key.serialize().to_vec(),
            pq_ratchet_state: self.spqr.to_bytes(),
            pending_ringxkem: self
                .pending_ringxkem
                .as_ref()
                .map(|p| proto::PendingRingXkem {
                    initiator: p.initiator.clone(),
                    handshake: p.handshake.clone(),
                    timestamp: p.timestamp,
                }),
        }
    }

    fn from_pb(pb: proto::SessionState) -> Result<Self> {
        const BAD: Error = Error::Malformed("session record");
        let k32 = |v: &[u8]| -> Result<[u8; 32]> { v.try_into().map_err(|_| BAD) };
        let version = u8::try_from(pb.version).map_err(|_| BAD)?;
        if !(3..=crate::message::RINGXKEM_VERSION).contains(&version) {
            return Err(BAD);
        }
        let mut receiver_chains = Vec::new();
        for c in pb.receiver_chains {
            let mut message_keys = VecDeque::new();
            if c.message_keys.len() > MAX_MESSAGE_KEYS {
                return Err(BAD);
            }
            for k in c.message_keys {
                message_keys.push_back(if k.seed.is_empty() {
                    SkippedKey::Keys(MessageKeys {
                        cipher_key: k32(&k.cipher_key)?,
                        mac_key: k32(&k.mac_key)?,
                        iv: k.iv.as_slice().try_into().map_err(|_| BAD)?,
                        counter: k.counter,
                    })
                } else {
                    SkippedKey::Seed {
                        counter: k.counter,
                        seed: Zeroizing::new(k32(&k.seed)?),
                    }
                });
            }
            receiver_chains.push(ReceiverChain {
                ratchet_key: PublicKey::deserialize(&c.ratchet_key)?,
                chain_key: ChainKey {
                    key: k32(&c.chain_key)?,
                    index: c.index,
                },
                message_keys,
            });
        }
        let pending_pre_key = match pb.pending_pre_key {
            None => None,
            Some(p) => Some(PendingPreKey {
                pre_key_id: p.pre_key_id,
                signed_pre_key_id: p.signed_pre_key_id,
                base_key: PublicKey::deserialize(&p.base_key)?,
                kyber: match (p.kyber_pre_key_id, p.kyber_ciphertext) {
                    (Some(id), Some(ct)) => Some((id, ct)),
                    (None, None) => None,
                    _ => return Err(BAD),
                },
                timestamp: p.timestamp,
            }),
        };
        Ok(Self {
            version,
            local_identity: IdentityKey::deserialize(&pb.local_identity)?,
            remote_identity: IdentityKey::deserialize(&pb.remote_identity)?,
            root_key: RootKey(k32(&pb.root_key)?),
            previous_counter: pb.previous_counter,
            sender_ratchet: KeyPair::from_private(PrivateKey::deserialize(
                &pb.sender_ratchet_private,
            )?),
            sender_chain: ChainKey {
                key: k32(&pb.sender_chain_key)?,
                index: pb.sender_chain_index,
            },
            receiver_chains,
            pending_pre_key,
            local_registration_id: pb.local_registration_id,
            remote_registration_id: pb.remote_registration_id,
            alice_base_key: PublicKey::deserialize(&pb.alice_base_key)?,
            spqr: alibi_spqr::State::from_bytes(&pb.pq_ratchet_state).map_err(|_| BAD)?,
            pending_ringxkem: pb.pending_ringxkem.map(|p| PendingRingXkem {
                initiator: p.initiator,
                handshake: p.handshake,
                timestamp: p.timestamp,
            }),
        })
    }
}

/// All sessions with one peer address: the current one and up to 40 archived ones (a peer may
/// still be sending on an older session after a new handshake).
#[derive(Clone, Default)]
pub struct SessionRecord {
    pub(crate) current: Option<SessionState>,
    pub(crate) previous: VecDeque<SessionState>,
}

impl SessionRecord {
    /// The current session, if any.
    pub fn current(&self) -> Option<&SessionState> {
        self.current.as_ref()
    }

    /// How many archived sessions the record holds.
    pub fn archived(&self) -> usize {
        self.previous.len()
    }

    /// Makes `state` current, archiving the old current state.
    pub(crate) fn promote_state(&mut self, state: SessionState) {
        if let Some(old) = self.current.replace(state) {
            self.previous.push_front(old);
            self.previous.truncate(ARCHIVED_STATES_MAX);
        }
    }

    /// If a session from the handshake with this base key exists, makes it current and returns
    /// true (a PreKey message for a session we already built).
    pub(crate) fn promote_matching(&mut self, version: u8, base_key: &PublicKey) -> bool {
        let matches = |s: &SessionState| s.version == version && &s.alice_base_key == base_key;
        if self.current.as_ref().is_some_and(matches) {
            return true;
        }
        if let Some(i) = self.previous.iter().position(matches) {
            let s = self.previous.remove(i).expect("index found");
            self.promote_state(s);
            return true;
        }
        false
    }

    /// Serializes the record (our own protobuf layout).
    pub fn serialize(&self) -> Vec<u8> {
        proto::SessionRecord {
            current: self.current.as_ref().map(SessionState::to_pb),
            previous: self.previous.iter().map(SessionState::to_pb).collect(),
        }
        .encode_to_vec()
    }

    /// Restores a record.
    pub fn deserialize(b: &[u8]) -> Result<Self> {
        let pb: proto::SessionRecord = proto::decode(b, "session record")?;
        if pb.previous.len() > ARCHIVED_STATES_MAX {
            return Err(Error::Malformed("session record"));
        }
        Ok(Self {
            current: pb.current.map(SessionState::from_pb).transpose()?,
            previous: pb
                .previous
                .into_iter()
                .map(SessionState::from_pb)
                .collect::<Result<_>>()?,
        })
    }
}
