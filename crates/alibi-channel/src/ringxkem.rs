//! RingXKEM sessions: a fully post-quantum, deniable handshake (RingXKEM, `alibi_handshake::
//! ringxkem`: ML-KEM and a GANDALF ring signature for the ring {initiator, responder}) starting
//! the Double Ratchet with the Sparse Post-Quantum Ratchet required (version 1, no downgrade):
//! the triple ratchet of libsignal's PQXDH sessions, without any classical handshake key.
//!
//! * The responder publishes a [`RingXkemBundle`]: the RingXKEM bundle (identity, Falcon-signed
//!   ML-KEM prekey) and an X25519 key that serves as its first ratchet key, Falcon-signed with
//!   the prekey's id (the role of PQXDH's signed prekey in starting the Double Ratchet).
//! * The initiator runs RingXKEM, whose 96 output bytes are the root key, the first chain key and
//!   SPQR's key, and sends [`RingXkemMessage`]s (type 5, session version 5) until answered: its
//!   PQ identity, the handshake message and a `SignalMessage`.
//! * The responder checks the initiator's PQ identity against the one pinned for the address,
//!   runs RingXKEM's response, and from then on both sides run the ordinary triple ratchet.
//!
//! The sessions' `SignalMessage` MACs bind 33-byte identity slots; a RingXKEM session fills them
//! with [`fingerprint`]s (`0x05 || SHA-256(PQ identity)`), and the identity store pins those.
//!
//! Deniability carries over from the handshake ([`simulate`]): the responder alone makes a first
//! message, handshake and Double Ratchet message included, that [`accept`] takes as the
//! initiator's, so a transcript proves nothing the responder could not have made.

use std::time::SystemTime;

use alibi_akem::pq;
use alibi_handshake::ringxkem::{self, Identity, IdentityPublic};
use alibi_identity::{IdentityKey, KeyPair, PublicKey};
use prost::Message as _;
use rand_core::CryptoRng;
use sha2::{Digest, Sha256};

use crate::message::{CiphertextMessage, SignalMessage, RINGXKEM_MESSAGE_TYPE, RINGXKEM_VERSION};
use crate::ratchet::{ChainKey, RootKey};
use crate::session::{PendingRingXkem, SessionRecord, SessionState};
use crate::session::{MAX_FORWARD_JUMPS, MAX_MESSAGE_KEYS};
use crate::state_cipher::{decrypt_with_record, encrypt_on_state, unix_secs};
use crate::store::{Address, Direction, ProtocolStore};
use crate::{proto, Error, Result};

// Defined in message.rs with the other wire messages; its path here stays.
pub use crate::message::RingXkemMessage;

/// The ciphertext message type of a RingXKEM session's first messages.
pub const MESSAGE_TYPE: u8 = RINGXKEM_MESSAGE_TYPE;

const RATCHET_LABEL: &[u8] = b"alibi RingXKEM ratchet key";
const HANDSHAKE_ID_LABEL: &[u8] = b"alibi RingXKEM handshake";

/// The 33-byte identity slot of a PQ identity: `0x05 || SHA-256(identity's public bytes)`.
pub fn fingerprint(identity: &IdentityPublic) -> IdentityKey {
    IdentityKey(PublicKey::from_u(
        Sha256::digest(identity.to_bytes()).into(),
    ))
}

/// Names a handshake among a record's sessions (the role PQXDH's base key plays).
fn handshake_id(handshake: &[u8]) -> PublicKey {
    PublicKey::from_u(
        Sha256::new()
            .chain_update(HANDSHAKE_ID_LABEL)
            .chain_update(handshake)
            .finalize()
            .into(),
    )
}

fn ratchet_message(pre_key_id: u32, key: &PublicKey) -> Vec<u8> {
    [RATCHET_LABEL, &pre_key_id.to_be_bytes(), &key.serialize()].concat()
}

/// SPQR for RingXKEM sessions: version 1, required on both sides.
fn spqr(keys: &ringxkem::SessionKeys, direction: alibi_spqr::Direction) -> alibi_spqr::State {
    alibi_spqr::State::new(&alibi_spqr::Params {
        direction,
        version: alibi_spqr::Version::V1,
        min_version: alibi_spqr::Version::V1,
        auth_key: &keys.pq_ratchet_key[..],
        chain_params: alibi_spqr::ChainParams {
            max_jump: MAX_FORWARD_JUMPS,
            max_ooo_keys: MAX_MESSAGE_KEYS as u32,
        },
    })
}

/// A responder's published keys for RingXKEM sessions.
#[derive(Clone)]
pub struct RingXkemBundle {
    /// The RingXKEM bundle.
    pub handshake: ringxkem::Bundle,
    /// The responder's first ratchet key.
    pub ratchet_key: PublicKey,
    /// Falcon signature by the identity on the ratchet key and the prekey's id.
    pub ratchet_signature: Vec<u8>,
    /// The responder's registration id (as in a PreKey bundle; not signed).
    pub registration_id: u32,
}

impl RingXkemBundle {
    /// The bundle's bytes (protobuf: identity, prekey id, prekey, its signature, ratchet key,
    /// its signature).
    pub fn to_bytes(&self) -> Vec<u8> {
        proto::RingXkemBundle {
            identity: self.handshake.identity.to_bytes(),
            pre_key_id: self.handshake.pre_key_id,
            pre_key: self.handshake.pre_key.clone(),
            pre_key_signature: self.handshake.pre_key_signature.clone(),
            ratchet_key: self.ratchet_key.serialize().to_vec(),
            ratchet_signature: self.ratchet_signature.clone(),
            registration_id: self.registration_id,
        }
        .encode_to_vec()
    }

    /// Parses a bundle of `suite` (its signatures are checked by [`RingXkemBundle::verify`]).
    pub fn from_bytes(suite: alibi_akem::pq::Suite, b: &[u8]) -> Result<Self> {
        const BAD: Error = Error::Malformed("RingXKEM bundle");
        let pb: proto::RingXkemBundle = proto::decode(b, "RingXKEM bundle")?;
        if pb.pre_key.len() != suite.kem().ek_len() {
            return Err(BAD);
        }
        Ok(Self {
            handshake: ringxkem::Bundle {
                identity: pq::PublicKey::from_bytes(suite, &pb.identity).map_err(|_| BAD)?,
                pre_key_id: pb.pre_key_id,
                pre_key: pb.pre_key,
                pre_key_signature: pb.pre_key_signature,
            },
            ratchet_key: PublicKey::deserialize(&pb.ratchet_key)?,
            ratchet_signature: pb.ratchet_signature,
            registration_id: pb.registration_id,
        })
    }

    /// Checks both Falcon signatures.
    pub fn verify(&self) -> Result<()> {
        self.handshake.verify()?;
        let bad = || alibi_handshake::Error::BadSignature("RingXKEM ratchet key");
        self.handshake
            .identity
            .verify(
                &ratchet_message(self.handshake.pre_key_id, &self.ratchet_key),
                &self.ratchet_signature,
            )
            .map_err(|_| bad().into())
    }
}

/// The responder's secret half: the RingXKEM prekey and the first ratchet key pair. Delete it
/// once used (the handshake's forward secrecy rests on that).
pub struct RingXkemPreKey {
    /// The RingXKEM prekey.
    pub handshake: ringxkem::PreKey,
    ratchet: KeyPair,
    ratchet_signature: Vec<u8>,
}

impl RingXkemPreKey {
    /// A fresh prekey and ratchet key, signed by `identity`.
    pub fn generate<R: CryptoRng + ?Sized>(identity: &Identity, id: u32, rng: &mut R) -> Self {
        let handshake = ringxkem::PreKey::generate(identity, id, rng);
        let ratchet = KeyPair::generate(rng);
        let ratchet_signature = identity.sign(&ratchet_message(id, &ratchet.public), rng);
        Self {
            handshake,
            ratchet,
            ratchet_signature,
        }
    }

    /// The secret prekey's bytes, to keep sealed.
    pub fn to_bytes(&self) -> zeroize::Zeroizing<Vec<u8>> {
        zeroize::Zeroizing::new(
            proto::RingXkemPreKey {
                handshake: self.handshake.to_bytes().to_vec(),
                ratchet_private: self.ratchet.private.to_bytes().to_vec(),
                ratchet_signature: self.ratchet_signature.clone(),
            }
            .encode_to_vec(),
        )
    }

    /// Restores a prekey of `suite` from [`RingXkemPreKey::to_bytes`].
    pub fn from_bytes(suite: alibi_akem::pq::Suite, b: &[u8]) -> Result<Self> {
        let pb: proto::RingXkemPreKey = proto::decode(b, "RingXKEM prekey")?;
        let private = alibi_identity::PrivateKey::deserialize(&pb.ratchet_private)?;
        Ok(Self {
            handshake: ringxkem::PreKey::from_bytes(suite, &pb.handshake)?,
            ratchet: KeyPair::from_private(private),
            ratchet_signature: pb.ratchet_signature,
        })
    }

    /// The bundle to publish, for a device of this registration id.
    pub fn bundle(&self, identity: &Identity, registration_id: u32) -> RingXkemBundle {
        RingXkemBundle {
            handshake: self.handshake.bundle(identity),
            ratchet_key: self.ratchet.public,
            ratchet_signature: self.ratchet_signature.clone(),
            registration_id,
        }
    }
}

/// The initiator's session state from the handshake's keys (also what [`simulate`] builds).
#[allow(clippy::too_many_arguments)]
fn initiator_state<R: CryptoRng + ?Sized>(
    keys: &ringxkem::SessionKeys,
    initiator: &IdentityPublic,
    bundle: &RingXkemBundle,
    handshake: Vec<u8>,
    local_registration_id: u32,
    now: SystemTime,
    rng: &mut R,
) -> SessionState {
    let sending_ratchet = KeyPair::generate(rng);
    let (root, sending_chain) =
        RootKey(*keys.root_key).create_chain(&bundle.ratchet_key, &sending_ratchet.private);
    let mut state = SessionState {
        version: RINGXKEM_VERSION,
        local_identity: fingerprint(initiator),
        remote_identity: fingerprint(&bundle.handshake.identity),
        root_key: root,
        previous_counter: 0,
        sender_ratchet: sending_ratchet,
        sender_chain: sending_chain,
        receiver_chains: Vec::new(),
        pending_pre_key: None,
        local_registration_id,
        remote_registration_id: bundle.registration_id,
        alice_base_key: handshake_id(&handshake),
        spqr: spqr(keys, alibi_spqr::Direction::A2B),
        pending_ringxkem: Some(PendingRingXkem {
            initiator: initiator.to_bytes(),
            handshake,
            timestamp: unix_secs(now),
        }),
    };
    state.add_receiver_chain(
        bundle.ratchet_key,
        ChainKey {
            key: *keys.chain_key,
            index: 0,
        },
    );
    state
}

/// The initiator's side: checks the bundle and the responder's pinned identity, runs RingXKEM and
/// stores a new current session for `addr`, whose messages are [`RingXkemMessage`]s until the
/// responder answers.
pub fn initiate<S: ProtocolStore + ?Sized, R: CryptoRng + ?Sized>(
    addr: &Address,
    store: &mut S,
    ours: &Identity,
    bundle: &RingXkemBundle,
    now: SystemTime,
    rng: &mut R,
) -> Result<()> {
    bundle.verify()?;
    let theirs = fingerprint(&bundle.handshake.identity);
    if !store.is_trusted_identity(addr, &theirs, Direction::Sending)? {
        return Err(Error::UntrustedIdentity(addr.to_string()));
    }
    let (msg, keys) = ringxkem::initiate(ours, &bundle.handshake, rng)?;
    let state = initiator_state(
        &keys,
        ours.public_key(),
        bundle,
        msg.to_bytes(),
        store.local_registration_id()?,
        now,
        rng,
    );
    let mut record = store.load_session(addr)?.unwrap_or_default();
    record.promote_state(state);
    store.save_identity(addr, &theirs)?;
    store.store_session(addr, &record)
}

fn initiator_of(ours: &Identity, msg: &RingXkemMessage) -> Result<pq::PublicKey> {
    pq::PublicKey::from_bytes(ours.suite(), &msg.initiator)
        .map_err(|_| Error::Malformed("RingXKEM initiator identity"))
}

/// The responder's side of a first message: checks the initiator's PQ identity against the one
/// pinned for `addr`, runs RingXKEM's response with `pre_key` (unless a session from this very
/// handshake exists), and decrypts the message inside. Delete `pre_key` afterwards.
pub fn accept<S: ProtocolStore + ?Sized, R: CryptoRng + ?Sized>(
    addr: &Address,
    store: &mut S,
    ours: &Identity,
    pre_key: &RingXkemPreKey,
    msg: &RingXkemMessage,
    rng: &mut R,
) -> Result<Vec<u8>> {
    let initiator = initiator_of(ours, msg)?;
    let theirs = fingerprint(&initiator);
    if !store.is_trusted_identity(addr, &theirs, Direction::Receiving)? {
        return Err(Error::UntrustedIdentity(addr.to_string()));
    }
    let mut record = store.load_session(addr)?.unwrap_or_default();
    let id = handshake_id(&msg.handshake);
    if !record.promote_matching(RINGXKEM_VERSION, &id) {
        let hs = ringxkem::Message::from_bytes(ours.suite(), &msg.handshake)?;
        let keys = ringxkem::respond(ours, &pre_key.handshake, &initiator, &hs)?;
        record.promote_state(SessionState {
            version: RINGXKEM_VERSION,
            local_identity: fingerprint(ours.public_key()),
            remote_identity: theirs,
            root_key: RootKey(*keys.root_key),
            previous_counter: 0,
            sender_ratchet: pre_key.ratchet.clone(),
            sender_chain: ChainKey {
                key: *keys.chain_key,
                index: 0,
            },
            receiver_chains: Vec::new(),
            pending_pre_key: None,
            local_registration_id: store.local_registration_id()?,
            remote_registration_id: msg.registration_id,
            alice_base_key: id,
            spqr: spqr(&keys, alibi_spqr::Direction::B2A),
            pending_ringxkem: None,
        });
    }
    finish(addr, store, record, &theirs, &msg.message, rng)
}

fn finish<S: ProtocolStore + ?Sized, R: CryptoRng + ?Sized>(
    addr: &Address,
    store: &mut S,
    mut record: SessionRecord,
    theirs: &IdentityKey,
    message: &SignalMessage,
    rng: &mut R,
) -> Result<Vec<u8>> {
    let plaintext = decrypt_with_record(&mut record, message, true, rng)?;
    store.save_identity(addr, theirs)?;
    store.store_session(addr, &record)?;
    Ok(plaintext)
}

/// A first message for a session [`accept`] already built (the initiator sends them until it
/// hears back); without one, the caller must use [`accept`] with the prekey.
pub(crate) fn decrypt_known<S: ProtocolStore + ?Sized, R: CryptoRng + ?Sized>(
    addr: &Address,
    store: &mut S,
    msg: &RingXkemMessage,
    rng: &mut R,
) -> Result<Vec<u8>> {
    let mut record = store
        .load_session(addr)?
        .ok_or_else(|| Error::NoSession(addr.to_string()))?;
    if !record.promote_matching(RINGXKEM_VERSION, &handshake_id(&msg.handshake)) {
        let id = msg
            .handshake
            .get(..4)
            .map_or(0, |b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]));
        return Err(Error::NoPreKey {
            kind: "RingXKEM",
            id,
        });
    }
    let theirs = record
        .current
        .as_ref()
        .map(|s| s.remote_identity)
        .ok_or_else(|| Error::NoSession(addr.to_string()))?;
    if !store.is_trusted_identity(addr, &theirs, Direction::Receiving)? {
        return Err(Error::UntrustedIdentity(addr.to_string()));
    }
    finish(addr, store, record, &theirs, &msg.message, rng)
}

/// Deniability, executable: the responder alone (its own keys and prekey, and only the
/// initiator's public identity and registration id) makes a first message carrying `plaintext`
/// that [`accept`] takes as the initiator's.
pub fn simulate<R: CryptoRng + ?Sized>(
    responder: &Identity,
    pre_key: &RingXkemPreKey,
    initiator: &IdentityPublic,
    registration_id: u32,
    plaintext: &[u8],
    now: SystemTime,
    rng: &mut R,
) -> Result<RingXkemMessage> {
    let (hs, keys) = ringxkem::simulate(responder, &pre_key.handshake, initiator, rng)?;
    let bundle = pre_key.bundle(responder, 0);
    let mut state = initiator_state(
        &keys,
        initiator,
        &bundle,
        hs.to_bytes(),
        registration_id,
        now,
        rng,
    );
    match encrypt_on_state(&mut state, plaintext, now, rng)? {
        CiphertextMessage::RingXkem(m) => Ok(m),
        _ => Err(Error::InvalidMessage(
            "a new RingXKEM session sends RingXKEM messages",
        )),
    }
}
