//! Sender-key state, what a sender-key store keeps: each (sender, distribution id)'s record of
//! chains, their keys and the keys they skipped, and the record's encoding. Below both store.rs
//! (which stores records) and sender_keys.rs (which runs the chains and stores through it).

use std::collections::VecDeque;

use alibi_identity::{PrivateKey, PublicKey};
use hkdf::Hkdf;
use hmac::{Hmac, KeyInit, Mac};
use prost::Message as _;
use sha2::Sha256;
use zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

use crate::proto;
use crate::ratchet::MessageKeys;
use crate::{Error, Result};

/// The version nibble of sender-key messages (both halves of the byte: `0x33`).
pub const SENDER_KEY_VERSION: u8 = 3;
/// States kept per (sender, distribution id).
pub const MAX_SENDER_KEY_STATES: usize = 5;

/// A sender chain key and its iteration.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub(crate) struct SenderChainKey {
    pub(crate) iteration: u32,
    pub(crate) key: [u8; 32],
}

impl SenderChainKey {
    fn hmac(&self, byte: u8) -> [u8; 32] {
        let mut m = Hmac::<Sha256>::new_from_slice(&self.key).expect("any key length");
        m.update(&[byte]);
        m.finalize().into_bytes().into()
    }
    pub(crate) fn next(&self) -> Result<Self> {
        Ok(Self {
            iteration: self
                .iteration
                .checked_add(1)
                .ok_or(Error::InvalidMessage("sender chain exhausted"))?,
            key: self.hmac(0x02),
        })
    }
    pub(crate) fn message_key(&self) -> SenderMessageKey {
        SenderMessageKey {
            iteration: self.iteration,
            seed: self.hmac(0x01),
        }
    }
}

/// A message key kept by its seed (as libsignal stores skipped sender keys).
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub(crate) struct SenderMessageKey {
    pub(crate) iteration: u32,
    seed: [u8; 32],
}

impl SenderMessageKey {
    /// `HKDF(seed, "WhisperGroup", 48)`: IV first, then the AES key (libsignal's order).
    pub(crate) fn keys(&self) -> MessageKeys {
        let mut okm = Zeroizing::new([0u8; 48]);
        Hkdf::<Sha256>::new(None, &self.seed)
            .expand(b"WhisperGroup", &mut okm[..])
            .expect("valid HKDF length");
        let mut k = MessageKeys {
            cipher_key: [0; 32],
            mac_key: [0; 32],
            iv: [0; 16],
            counter: self.iteration,
        };
        k.iv.copy_from_slice(&okm[..16]);
        k.cipher_key.copy_from_slice(&okm[16..]);
        k
    }
}

/// One sender chain: its id, key, signing key (the private half on our own chain only) and the
/// keys it skipped.
#[derive(Clone)]
pub(crate) struct SenderKeyState {
    pub(crate) chain_id: u32,
    pub(crate) chain_key: SenderChainKey,
    pub(crate) signing_public: PublicKey,
    pub(crate) signing_private: Option<PrivateKey>,
    pub(crate) message_keys: VecDeque<SenderMessageKey>,
}

/// Every state known for one (sender, distribution id).
#[derive(Clone, Default)]
pub struct SenderKeyRecord {
    pub(crate) states: VecDeque<SenderKeyState>,
}

impl SenderKeyRecord {
    pub(crate) fn add_state(&mut self, state: SenderKeyState) {
        // A repeated distribution (same chain, same key) keeps its progress; a chain id reused
        // with another key replaces the old state.
        let existing = self
            .states
            .iter()
            .position(|s| s.chain_id == state.chain_id && s.signing_public == state.signing_public)
            .and_then(|i| self.states.remove(i));
        self.states.retain(|s| s.chain_id != state.chain_id);
        while self.states.len() >= MAX_SENDER_KEY_STATES {
            self.states.pop_back();
        }
        self.states.push_front(existing.unwrap_or(state));
    }

    /// Serializes the record (our own protobuf layout).
    pub fn serialize(&self) -> Vec<u8> {
        proto::SenderKeyRecord {
            states: self
                .states
                .iter()
                .map(|s| proto::SenderKeyState {
                    version: SENDER_KEY_VERSION.into(),
                    chain_id: s.chain_id,
                    iteration: s.chain_key.iteration,
                    chain_key: s.chain_key.key.to_vec(),
                    signing_public: s.signing_public.serialize().to_vec(),
                    signing_private: s.signing_private.as_ref().map(|k| k.to_bytes().to_vec()),
                    message_keys: s
                        .message_keys
                        .iter()
                        .map(|k| proto::SenderMessageKey {
                            iteration: k.iteration,
                            seed: k.seed.to_vec(),
                        })
                        .collect(),
                })
                .collect(),
        }
        .encode_to_vec()
    }

    /// Restores a record.
    pub fn deserialize(b: &[u8]) -> Result<Self> {
        const BAD: Error = Error::Malformed("sender key record");
        let pb: proto::SenderKeyRecord = proto::decode(b, "sender key record")?;
        if pb.states.len() > MAX_SENDER_KEY_STATES {
            return Err(BAD);
        }
        let mut states = VecDeque::new();
        for s in pb.states {
            if s.version != u32::from(SENDER_KEY_VERSION) {
                return Err(BAD);
            }
            let mut message_keys = VecDeque::new();
            for k in s.message_keys {
                message_keys.push_back(SenderMessageKey {
                    iteration: k.iteration,
                    seed: k.seed.as_slice().try_into().map_err(|_| BAD)?,
                });
            }
            states.push_back(SenderKeyState {
                chain_id: s.chain_id,
                chain_key: SenderChainKey {
                    iteration: s.iteration,
                    key: s.chain_key.as_slice().try_into().map_err(|_| BAD)?,
                },
                signing_public: PublicKey::deserialize(&s.signing_public)?,
                signing_private: s
                    .signing_private
                    .map(|k| PrivateKey::deserialize(&k))
                    .transpose()?,
                message_keys,
            });
        }
        Ok(Self { states })
    }
}
