//! Sender keys, libsignal's group messaging (`sender_keys.rs`, `group_cipher.rs`): each member
//! sends on its own hash chain, announced to the others once with a distribution message over
//! their pairwise sessions; a group message is encrypted once and signed with XEdDSA.
//!
//! * Chain: `CK' = HMAC-SHA256(CK, 0x02)`; a message's seed is `HMAC-SHA256(CK, 0x01)`; its keys
//!   `HKDF-SHA256(no salt, seed, "WhisperGroup", 48)` = IV 16 || AES-256 key 32; AES-256-CBC.
//! * `SenderKeyMessage` = `0x33 || protobuf || XEdDSA signature (64)`, the signature over all that
//!   precedes it, by the sender's per-distribution signing key.
//! * Up to 5 states per (sender, distribution id), newest first; out-of-order delivery with the
//!   pairwise limits (25,000 forward, 2,000 stored keys).

use std::collections::VecDeque;

use alibi_identity::{xeddsa, KeyPair, PublicKey};
use prost::Message as _;
use rand_core::CryptoRng;
use uuid::Uuid;

use crate::proto;
use crate::sender_key_record::{SenderChainKey, SenderKeyState, SenderMessageKey};
use crate::session::{MAX_FORWARD_JUMPS, MAX_MESSAGE_KEYS};
use crate::store::Address;
use crate::{Error, Result};

// The record is in sender_key_record.rs (below store.rs) and its store trait in store.rs with
// the others, so that this file and store.rs do not import each other; their paths here stay.
pub use crate::sender_key_record::{SenderKeyRecord, MAX_SENDER_KEY_STATES, SENDER_KEY_VERSION};
pub use crate::store::SenderKeyStore;

const SIGNATURE_LEN: usize = 64;

fn version_byte() -> u8 {
    (SENDER_KEY_VERSION << 4) | SENDER_KEY_VERSION
}

fn check_version(b: &[u8]) -> Result<()> {
    let v = b.first().ok_or(Error::TooShort(0))? >> 4;
    match v {
        SENDER_KEY_VERSION => Ok(()),
        v if v < SENDER_KEY_VERSION => Err(Error::LegacyVersion(v)),
        v => Err(Error::UnknownVersion(v)),
    }
}

fn uuid_field(b: Option<Vec<u8>>) -> Result<Uuid> {
    b.and_then(|b| Uuid::from_slice(&b).ok())
        .ok_or(Error::Malformed("distribution id"))
}

/// The message announcing a sender's chain for one distribution id.
#[derive(Clone, PartialEq, Eq)]
pub struct SenderKeyDistributionMessage {
    /// The group's distribution id.
    pub distribution_id: Uuid,
    /// The chain's id (random, 31 bits).
    pub chain_id: u32,
    /// The chain's current iteration.
    pub iteration: u32,
    chain_key: [u8; 32],
    /// The sender's signing key for this distribution.
    pub signing_key: PublicKey,
    serialized: Vec<u8>,
}

impl SenderKeyDistributionMessage {
    fn new(
        distribution_id: Uuid,
        chain_id: u32,
        iteration: u32,
        chain_key: [u8; 32],
        signing_key: PublicKey,
    ) -> Self {
        let pb = proto::SenderKeyDistributionMessage {
            distribution_uuid: Some(distribution_id.as_bytes().to_vec()),
            chain_id: Some(chain_id),
            iteration: Some(iteration),
            chain_key: Some(chain_key.to_vec()),
            signing_key: Some(signing_key.serialize().to_vec()),
        };
        let mut serialized = vec![version_byte()];
        pb.encode(&mut serialized).expect("Vec grows");
        Self {
            distribution_id,
            chain_id,
            iteration,
            chain_key,
            signing_key,
            serialized,
        }
    }

    /// Parses a distribution message.
    pub fn deserialize(b: &[u8]) -> Result<Self> {
        check_version(b)?;
        let pb: proto::SenderKeyDistributionMessage =
            proto::decode(&b[1..], "SenderKeyDistributionMessage")?;
        let chain_key: [u8; 32] = pb
            .chain_key
            .as_deref()
            .and_then(|k| k.try_into().ok())
            .ok_or(Error::Malformed("distribution chain key"))?;
        let signing_key = pb
            .signing_key
            .as_deref()
            .ok_or(Error::Malformed("distribution signing key"))?;
        Ok(Self {
            distribution_id: uuid_field(pb.distribution_uuid)?,
            chain_id: pb
                .chain_id
                .ok_or(Error::Malformed("distribution chain id"))?,
            iteration: pb
                .iteration
                .ok_or(Error::Malformed("distribution iteration"))?,
            chain_key,
            signing_key: PublicKey::deserialize(signing_key)?,
            serialized: b.to_vec(),
        })
    }

    /// The bytes on the wire.
    pub fn serialized(&self) -> &[u8] {
        &self.serialized
    }
}

/// A group message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SenderKeyMessage {
    /// The group's distribution id.
    pub distribution_id: Uuid,
    /// The sender's chain id.
    pub chain_id: u32,
    /// The message's position on the chain.
    pub iteration: u32,
    ciphertext: Vec<u8>,
    serialized: Vec<u8>,
}

impl SenderKeyMessage {
    /// Parses a group message (the signature is checked on decryption).
    pub fn deserialize(b: &[u8]) -> Result<Self> {
        if b.len() < 1 + SIGNATURE_LEN {
            return Err(Error::TooShort(b.len()));
        }
        check_version(b)?;
        let pb: proto::SenderKeyMessage =
            proto::decode(&b[1..b.len() - SIGNATURE_LEN], "SenderKeyMessage")?;
        Ok(Self {
            distribution_id: uuid_field(pb.distribution_uuid)?,
            chain_id: pb
                .chain_id
                .ok_or(Error::Malformed("SenderKeyMessage chain id"))?,
            iteration: pb
                .iteration
                .ok_or(Error::Malformed("SenderKeyMessage iteration"))?,
            ciphertext: pb
                .ciphertext
                .ok_or(Error::Malformed("SenderKeyMessage ciphertext"))?,
            serialized: b.to_vec(),
        })
    }

    /// The bytes on the wire.
    pub fn serialized(&self) -> &[u8] {
        &self.serialized
    }

    /// The signed part and the signature.
    fn signed(&self) -> (&[u8], &[u8]) {
        self.serialized
            .split_at(self.serialized.len() - SIGNATURE_LEN)
    }

    /// The cofactored XEdDSA equation, the one [`xeddsa::verify_batch`] checks, so that a
    /// message gets one verdict whether it was checked alone or in a batch (they differ only on
    /// a signature its own signer built with a small-order part).
    fn verify(&self, key: &PublicKey) -> bool {
        let (content, sig) = self.signed();
        xeddsa::verify_cofactored(key, &[content], sig).is_ok()
    }
}

/// The key [`group_decrypt`] would check this group message's signature against: the signing key
/// of the sender's chain it names, as `store` holds it now. `None` if the message is malformed
/// or names no chain held. With it, many messages' signatures can be checked in one batch
/// ([`verify_signatures`]) before they are decrypted one by one ([`group_decrypt_checked`]).
pub fn signing_key_of<S: SenderKeyStore + ?Sized>(
    bytes: &[u8],
    store: &mut S,
    sender: &Address,
) -> Option<PublicKey> {
    let skm = SenderKeyMessage::deserialize(bytes).ok()?;
    let record = store.load_sender_key(sender, skm.distribution_id).ok()??;
    let state = record.states.iter().find(|s| s.chain_id == skm.chain_id)?;
    Some(state.signing_public)
}

/// A group message's signature found valid under a signing key by [`verify_signatures`]: lets
/// [`group_decrypt_checked`] skip its own check of that very signature.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckedSignature {
    key: PublicKey,
    sig: [u8; SIGNATURE_LEN],
}

/// A message's signed part, as the list of parts XEdDSA signs, and its signature.
type Signed<'a> = ([&'a [u8]; 1], &'a [u8]);

/// Which of `messages` (a group message and the key to check it against, from
/// [`signing_key_of`]) carry a valid signature: all checked in one random-weight batch, and one
/// by one only if the batch fails. The verdicts are those of [`group_decrypt`]'s own check.
pub fn verify_signatures<R: CryptoRng + ?Sized>(
    messages: &[(&[u8], PublicKey)],
    rng: &mut R,
) -> Vec<Option<CheckedSignature>> {
    let parsed: Vec<Option<SenderKeyMessage>> = messages
        .iter()
        .map(|(b, _)| SenderKeyMessage::deserialize(b).ok())
        .collect();
    // Each message's signed part (as the one-part message XEdDSA takes) and its signature.
    let signed: Vec<Option<Signed<'_>>> = parsed
        .iter()
        .map(|m| m.as_ref().map(|m| m.signed()).map(|(c, s)| ([c], s)))
        .collect();
    let batch: Vec<xeddsa::BatchItem<'_>> = signed
        .iter()
        .zip(messages)
        .filter_map(|(p, (_, key))| p.as_ref().map(|(c, s)| (key, &c[..], *s)))
        .collect();
    let all = batch.len() == messages.len() && xeddsa::verify_batch(&batch, rng).is_ok();
    parsed
        .iter()
        .zip(messages)
        .map(|(m, (_, key))| {
            let m = m.as_ref()?;
            (all || m.verify(key)).then(|| CheckedSignature {
                key: *key,
                sig: m.signed().1.try_into().expect("SIGNATURE_LEN bytes"),
            })
        })
        .collect()
}

/// Our distribution message for `distribution_id`, creating our sending chain on first use (a
/// random 31-bit chain id, a random chain key, a fresh signing key).
pub fn create_distribution_message<S: SenderKeyStore + ?Sized, R: CryptoRng + ?Sized>(
    us: &Address,
    distribution_id: Uuid,
    store: &mut S,
    rng: &mut R,
) -> Result<SenderKeyDistributionMessage> {
    let record = match store.load_sender_key(us, distribution_id)? {
        Some(r) if !r.states.is_empty() => r,
        _ => {
            let chain_id = rng.next_u32() >> 1;
            let mut key = [0u8; 32];
            rng.fill_bytes(&mut key);
            let signing = KeyPair::generate(rng);
            let mut r = SenderKeyRecord::default();
            r.add_state(SenderKeyState {
                chain_id,
                chain_key: SenderChainKey { iteration: 0, key },
                signing_public: signing.public,
                signing_private: Some(signing.private),
                message_keys: VecDeque::new(),
            });
            store.store_sender_key(us, distribution_id, &r)?;
            r
        }
    };
    let s = &record.states[0];
    Ok(SenderKeyDistributionMessage::new(
        distribution_id,
        s.chain_id,
        s.chain_key.iteration,
        s.chain_key.key,
        s.signing_public,
    ))
}

/// Records another member's chain from its distribution message.
pub fn process_distribution_message<S: SenderKeyStore + ?Sized>(
    sender: &Address,
    skdm: &SenderKeyDistributionMessage,
    store: &mut S,
) -> Result<()> {
    let mut record = store
        .load_sender_key(sender, skdm.distribution_id)?
        .unwrap_or_default();
    record.add_state(SenderKeyState {
        chain_id: skdm.chain_id,
        chain_key: SenderChainKey {
            iteration: skdm.iteration,
            key: skdm.chain_key,
        },
        signing_public: skdm.signing_key,
        signing_private: None,
        message_keys: VecDeque::new(),
    });
    store.store_sender_key(sender, skdm.distribution_id, &record)
}

/// Encrypts a group message on our chain for `distribution_id` (once, for every member).
pub fn group_encrypt<S: SenderKeyStore + ?Sized, R: CryptoRng + ?Sized>(
    store: &mut S,
    us: &Address,
    distribution_id: Uuid,
    plaintext: &[u8],
    rng: &mut R,
) -> Result<SenderKeyMessage> {
    let mut record = store
        .load_sender_key(us, distribution_id)?
        .ok_or(Error::NoSenderKey(distribution_id))?;
    let state = record
        .states
        .front_mut()
        .ok_or(Error::NoSenderKey(distribution_id))?;
    let signing = state
        .signing_private
        .clone()
        .ok_or(Error::NoSenderKey(distribution_id))?;
    let mk = state.chain_key.message_key();
    let ciphertext = mk.keys().encrypt(plaintext);
    let pb = proto::SenderKeyMessage {
        distribution_uuid: Some(distribution_id.as_bytes().to_vec()),
        chain_id: Some(state.chain_id),
        iteration: Some(mk.iteration),
        ciphertext: Some(ciphertext.clone()),
    };
    let mut serialized = vec![version_byte()];
    pb.encode(&mut serialized).expect("Vec grows");
    let sig = xeddsa::sign(&signing, &[&serialized], rng);
    serialized.extend_from_slice(&sig);
    state.chain_key = state.chain_key.next()?;
    store.store_sender_key(us, distribution_id, &record)?;
    Ok(SenderKeyMessage {
        distribution_id,
        chain_id: pb.chain_id.expect("set"),
        iteration: mk.iteration,
        ciphertext,
        serialized,
    })
}

/// Decrypts a group message from `sender`: the state is found by chain id, the signature checked,
/// the chain advanced (keeping skipped keys). The record is stored only on success.
pub fn group_decrypt<S: SenderKeyStore + ?Sized>(
    bytes: &[u8],
    store: &mut S,
    sender: &Address,
) -> Result<Vec<u8>> {
    group_decrypt_checked(bytes, store, sender, None)
}

/// [`group_decrypt`], the message's signature perhaps already found valid (`checked`, from
/// [`verify_signatures`]): not checked again if `checked` is this message's signature under the
/// key of the chain it names (a chain replaced in between is checked as usual).
pub fn group_decrypt_checked<S: SenderKeyStore + ?Sized>(
    bytes: &[u8],
    store: &mut S,
    sender: &Address,
    checked: Option<&CheckedSignature>,
) -> Result<Vec<u8>> {
    let skm = SenderKeyMessage::deserialize(bytes)?;
    let mut record = store
        .load_sender_key(sender, skm.distribution_id)?
        .ok_or(Error::NoSenderKey(skm.distribution_id))?;
    let state = record
        .states
        .iter_mut()
        .find(|s| s.chain_id == skm.chain_id)
        .ok_or(Error::NoSenderKey(skm.distribution_id))?;
    let vouched = checked
        .is_some_and(|c| c.key == state.signing_public && c.sig.as_slice() == skm.signed().1);
    if !vouched && !skm.verify(&state.signing_public) {
        return Err(Error::InvalidMessage(
            "sender key signature does not verify",
        ));
    }
    let mk = sender_message_key(state, skm.iteration)?;
    let plaintext = mk
        .keys()
        .decrypt(&skm.ciphertext)
        .ok_or(Error::InvalidMessage("bad padding or length"))?;
    store.store_sender_key(sender, skm.distribution_id, &record)?;
    Ok(plaintext)
}

fn sender_message_key(state: &mut SenderKeyState, iteration: u32) -> Result<SenderMessageKey> {
    let current = state.chain_key.iteration;
    if current > iteration {
        let pos = state
            .message_keys
            .iter()
            .position(|k| k.iteration == iteration)
            .ok_or(Error::Duplicate {
                chain_index: current,
                counter: iteration,
            })?;
        return Ok(state.message_keys.remove(pos).expect("position found"));
    }
    let jump = iteration - current;
    if jump > MAX_FORWARD_JUMPS {
        return Err(Error::TooFarAhead(jump));
    }
    let mut ck = state.chain_key.clone();
    while ck.iteration < iteration {
        state.message_keys.push_back(ck.message_key());
        if state.message_keys.len() > MAX_MESSAGE_KEYS {
            state.message_keys.pop_front();
        }
        ck = ck.next()?;
    }
    state.chain_key = ck.next()?;
    Ok(ck.message_key())
}

/// Ids and the public signing key: the chain key (and the encoding that holds it) stay out.
impl core::fmt::Debug for SenderKeyDistributionMessage {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SenderKeyDistributionMessage")
            .field("distribution_id", &self.distribution_id)
            .field("chain_id", &self.chain_id)
            .field("iteration", &self.iteration)
            .field("signing_key", &self.signing_key)
            .finish_non_exhaustive()
    }
}
