//! Session setup, encryption and decryption, following libsignal's `session.rs` and
//! `session_cipher.rs`: the initiator's session starts from the bundle (its first sending chain
//! already one DH step ahead, the responder's signed prekey serving as the responder's first
//! ratchet key); the responder's session starts from the PreKey message.
//!
//! Every PQXDH session also runs the Sparse Post-Quantum Ratchet ([`alibi_spqr`], libsignal's
//! triple ratchet): each message carries an SPQR field under its MAC, and once SPQR gives keys,
//! each message's keys are `HKDF(salt = SPQR key, seed, "WhisperMessageKeys")`. A session offers
//! SPQR version 1 and, while no answer has come, would drop to version 0 if the peer's first
//! message carries no SPQR field ([`SPQR_MIN_VERSION`]), so libsignal before 0.92 still talks to
//! us; after that, a message without the field is refused.
//!
//! Decryption works on a copy of the session record and stores it only on success, so a tampered,
//! replayed or truncated message leaves the stored state as it was.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use alibi_handshake::x3dh::{self, ResponderKeys, VERSION_X3DH};
use alibi_handshake::{KeyPair, PreKeyBundle};
use rand_core::CryptoRng;

use crate::message::{PreKeySignalMessage, SignalMessage};
use crate::ratchet::{ChainKey, MessageKeys, RootKey};
use crate::session::{
    PendingPreKey, SessionRecord, SessionState, SkippedKey, MAX_FORWARD_JUMPS, MAX_MESSAGE_KEYS,
};
use crate::store::{Address, Direction, ProtocolStore};
use crate::{Error, Result};

/// How long an unanswered session may keep sending PreKey messages (libsignal: 30 days).
pub const MAX_UNACKNOWLEDGED_SESSION_AGE: Duration = Duration::from_secs(60 * 60 * 24 * 30);

/// libsignal's ciphertext message types (`CiphertextMessageType`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CiphertextMessage {
    /// Type 2 ("Whisper"): a message on an established session.
    Signal(SignalMessage),
    /// Type 3: a first message, carrying the handshake.
    PreKey(PreKeySignalMessage),
    /// Type 5 (alibi's own): a first message of a RingXKEM session, carrying its handshake.
    RingXkem(crate::ringxkem::RingXkemMessage),
}

impl CiphertextMessage {
    /// libsignal's type number: 2 or 3 (5 for RingXKEM, which libsignal does not have).
    pub fn message_type(&self) -> u8 {
        match self {
            Self::Signal(_) => 2,
            Self::PreKey(_) => 3,
            Self::RingXkem(_) => crate::ringxkem::MESSAGE_TYPE,
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
            crate::ringxkem::MESSAGE_TYPE => Ok(Self::RingXkem(
                crate::ringxkem::RingXkemMessage::deserialize(b)?,
            )),
            _ => Err(Error::Malformed("message type (2, 3 or 5 expected)")),
        }
    }
}

/// The lowest SPQR version a new session accepts from its peer: version 0, so that a peer
/// without SPQR (libsignal before 0.92) settles the session on the classical Double Ratchet with
/// its first message. libsignal 0.92 and later require version 1 of themselves.
pub const SPQR_MIN_VERSION: alibi_spqr::Version = alibi_spqr::Version::V0;

/// A new session's SPQR state: version 1 for PQXDH sessions, version 0 for X3DH ones.
pub(crate) fn new_spqr(
    pq_ratchet_key: Option<&[u8; 32]>,
    direction: alibi_spqr::Direction,
) -> alibi_spqr::State {
    match pq_ratchet_key {
        Some(k) => alibi_spqr::State::new(&alibi_spqr::Params {
            direction,
            version: alibi_spqr::Version::V1,
            min_version: SPQR_MIN_VERSION,
            auth_key: &k[..],
            chain_params: alibi_spqr::ChainParams {
                max_jump: MAX_FORWARD_JUMPS,
                max_ooo_keys: MAX_MESSAGE_KEYS as u32,
            },
        }),
        None => alibi_spqr::State::default(),
    }
}

fn spqr_error(e: alibi_spqr::Error) -> Error {
    Error::PostQuantumRatchet(e)
}

pub(crate) fn unix_secs(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH).unwrap_or_default().as_secs()
}

/// Alice's side of the handshake: checks the bundle, runs X3DH or PQXDH and stores a new current
/// session for `addr` whose messages are PreKey messages until Bob answers.
pub fn process_prekey_bundle<S: ProtocolStore + ?Sized>(
    addr: &Address,
    store: &mut S,
    bundle: &PreKeyBundle,
    now: SystemTime,
    rng: &mut impl CryptoRng,
) -> Result<()> {
    if !store.is_trusted_identity(addr, &bundle.identity_key, Direction::Sending)? {
        return Err(Error::UntrustedIdentity(addr.to_string()));
    }
    let ours = store.identity_key_pair()?;
    let init = x3dh::initiate(&ours, bundle, rng)?;
    let sending_ratchet = KeyPair::generate(rng);
    let root = RootKey(*init.keys.root_key);
    let (root, sending_chain) = root.create_chain(&bundle.signed_pre_key, &sending_ratchet.private);
    let mut state = SessionState {
        version: init.keys.version,
        local_identity: ours.identity,
        remote_identity: bundle.identity_key,
        root_key: root,
        previous_counter: 0,
        sender_ratchet: sending_ratchet,
        sender_chain: sending_chain,
        receiver_chains: Vec::new(),
        pending_pre_key: Some(PendingPreKey {
            pre_key_id: bundle.pre_key.map(|p| p.0),
            signed_pre_key_id: bundle.signed_pre_key_id,
            base_key: init.base_key.public,
            kyber: bundle
                .kyber_pre_key
                .as_ref()
                .map(|k| k.0)
                .zip(init.kem_ciphertext),
            timestamp: unix_secs(now),
        }),
        local_registration_id: store.local_registration_id()?,
        remote_registration_id: bundle.registration_id,
        alice_base_key: init.base_key.public,
        spqr: new_spqr(
            init.keys.pq_ratchet_key.as_deref(),
            alibi_spqr::Direction::A2B,
        ),
        pending_ringxkem: None,
    };
    state.add_receiver_chain(
        bundle.signed_pre_key,
        ChainKey {
            key: *init.keys.chain_key,
            index: 0,
        },
    );
    let mut record = store.load_session(addr)?.unwrap_or_default();
    record.promote_state(state);
    store.save_identity(addr, &bundle.identity_key)?;
    store.store_session(addr, &record)
}

/// Encrypts `plaintext` for `addr` on the current session, with the system's randomness for SPQR.
pub fn encrypt<S: ProtocolStore + ?Sized>(
    addr: &Address,
    store: &mut S,
    plaintext: &[u8],
    now: SystemTime,
) -> Result<CiphertextMessage> {
    let mut rng = rand_core::UnwrapErr(getrandom::SysRng);
    encrypt_with_rng(addr, store, plaintext, now, &mut rng)
}

/// Encrypts `plaintext` for `addr` on the current session; `rng` feeds SPQR's key generation
/// and encapsulation.
pub fn encrypt_with_rng<S: ProtocolStore + ?Sized>(
    addr: &Address,
    store: &mut S,
    plaintext: &[u8],
    now: SystemTime,
    rng: &mut impl CryptoRng,
) -> Result<CiphertextMessage> {
    let mut record = store
        .load_session(addr)?
        .ok_or_else(|| Error::NoSession(addr.to_string()))?;
    let state = record
        .current
        .as_mut()
        .ok_or_else(|| Error::NoSession(addr.to_string()))?;
    let out = encrypt_on_state(state, plaintext, now, rng)?;
    let remote = state.remote_identity;
    if !store.is_trusted_identity(addr, &remote, Direction::Sending)? {
        return Err(Error::UntrustedIdentity(addr.to_string()));
    }
    store.save_identity(addr, &remote)?;
    store.store_session(addr, &record)?;
    Ok(out)
}

/// One message on a session state: SPQR's step, the message keys, the message (wrapped as a
/// PreKey or RingXKEM message until the peer answers), and the chain's step.
pub(crate) fn encrypt_on_state(
    state: &mut SessionState,
    plaintext: &[u8],
    now: SystemTime,
    rng: &mut impl CryptoRng,
) -> Result<CiphertextMessage> {
    let chain = state.sender_chain.clone();
    let pq = state.spqr.send(rng).map_err(spqr_error)?;
    let keys = MessageKeys::derive(&chain.seed()[..], pq.key.as_deref(), chain.index);
    let body = keys.encrypt(plaintext);
    let message = SignalMessage::new(
        state.version,
        &keys.mac_key,
        state.sender_ratchet.public,
        chain.index,
        state.previous_counter,
        body,
        &state.local_identity,
        &state.remote_identity,
        &pq.message,
    );
    let out = match (&state.pending_pre_key, &state.pending_ringxkem) {
        (_, Some(p)) => {
            if unix_secs(now) > p.timestamp + MAX_UNACKNOWLEDGED_SESSION_AGE.as_secs() {
                return Err(Error::StaleSession);
            }
            CiphertextMessage::RingXkem(crate::ringxkem::RingXkemMessage::new(
                state.local_registration_id,
                p.initiator.clone(),
                p.handshake.clone(),
                message,
            ))
        }
        (Some(p), None) => {
            if unix_secs(now) > p.timestamp + MAX_UNACKNOWLEDGED_SESSION_AGE.as_secs() {
                return Err(Error::StaleSession);
            }
            CiphertextMessage::PreKey(PreKeySignalMessage::new(
                state.version,
                state.local_registration_id,
                p.pre_key_id,
                p.signed_pre_key_id,
                p.kyber.clone(),
                p.base_key,
                state.local_identity,
                message,
            ))
        }
        (None, None) => CiphertextMessage::Signal(message),
    };
    state.sender_chain = chain.next();
    Ok(out)
}

/// Decrypts a message of either type from `addr`.
pub fn decrypt<S: ProtocolStore + ?Sized>(
    addr: &Address,
    store: &mut S,
    message: &CiphertextMessage,
    rng: &mut impl CryptoRng,
) -> Result<Vec<u8>> {
    match message {
        CiphertextMessage::Signal(m) => decrypt_signal(addr, store, m, rng),
        CiphertextMessage::PreKey(m) => decrypt_prekey(addr, store, m, rng),
        CiphertextMessage::RingXkem(m) => crate::ringxkem::decrypt_known(addr, store, m, rng),
    }
}

/// Bob's side: builds the session from a PreKey message (or finds the one already built from it),
/// then decrypts the message inside. Used prekeys are consumed only once decryption succeeds.
pub fn decrypt_prekey<S: ProtocolStore + ?Sized>(
    addr: &Address,
    store: &mut S,
    message: &PreKeySignalMessage,
    rng: &mut impl CryptoRng,
) -> Result<Vec<u8>> {
    if !store.is_trusted_identity(addr, &message.identity_key, Direction::Receiving)? {
        return Err(Error::UntrustedIdentity(addr.to_string()));
    }
    let mut record = store.load_session(addr)?.unwrap_or_default();
    let mut used = None;
    if !record.promote_matching(message.version(), &message.base_key) {
        let identity = store.identity_key_pair()?;
        let signed =
            store
                .get_signed_pre_key(message.signed_pre_key_id)?
                .ok_or(Error::NoPreKey {
                    kind: "signed",
                    id: message.signed_pre_key_id,
                })?;
        let one_time = match message.pre_key_id {
            Some(id) => Some(store.get_pre_key(id)?.ok_or(Error::NoPreKey {
                kind: "one-time",
                id,
            })?),
            None => None,
        };
        let kyber = match &message.kyber {
            Some((id, _)) => Some(store.get_kyber_pre_key(*id)?.ok_or(Error::NoPreKey {
                kind: "KEM",
                id: *id,
            })?),
            None if message.version() == VERSION_X3DH => None,
            None => return Err(alibi_handshake::Error::MissingKem.into()),
        };
        let keys = x3dh::respond(
            &ResponderKeys {
                identity: &identity,
                signed_pre_key: &signed.key_pair,
                one_time_pre_key: one_time.as_ref(),
                kem_pre_key: kyber.as_ref().map(|k| &k.key_pair.secret),
            },
            &message.identity_key,
            &message.base_key,
            message.kyber.as_ref().map(|k| k.1.as_slice()),
            message.version(),
        )?;
        let state = SessionState {
            version: keys.version,
            local_identity: identity.identity,
            remote_identity: message.identity_key,
            root_key: RootKey(*keys.root_key),
            previous_counter: 0,
            sender_ratchet: signed.key_pair.clone(),
            sender_chain: ChainKey {
                key: *keys.chain_key,
                index: 0,
            },
            receiver_chains: Vec::new(),
            pending_pre_key: None,
            local_registration_id: store.local_registration_id()?,
            remote_registration_id: message.registration_id,
            alice_base_key: message.base_key,
            spqr: new_spqr(keys.pq_ratchet_key.as_deref(), alibi_spqr::Direction::B2A),
            pending_ringxkem: None,
        };
        record.promote_state(state);
        used = Some((message.pre_key_id, message.kyber.as_ref().map(|k| k.0)));
    }
    let plaintext = decrypt_with_record(&mut record, message.message(), true, rng)?;
    store.save_identity(addr, &message.identity_key)?;
    if let Some((one_time, kyber)) = used {
        if let Some(id) = kyber {
            store.mark_kyber_pre_key_used(id)?;
        }
        if let Some(id) = one_time {
            store.remove_pre_key(id)?;
        }
    }
    store.store_session(addr, &record)?;
    Ok(plaintext)
}

/// Decrypts a message on an existing session (the current one, else an archived one, which then
/// becomes current).
pub fn decrypt_signal<S: ProtocolStore + ?Sized>(
    addr: &Address,
    store: &mut S,
    message: &SignalMessage,
    rng: &mut impl CryptoRng,
) -> Result<Vec<u8>> {
    let mut record = store
        .load_session(addr)?
        .ok_or_else(|| Error::NoSession(addr.to_string()))?;
    let plaintext = decrypt_with_record(&mut record, message, false, rng)?;
    let remote = record
        .current
        .as_ref()
        .map(|s| s.remote_identity)
        .ok_or_else(|| Error::NoSession(addr.to_string()))?;
    if !store.is_trusted_identity(addr, &remote, Direction::Receiving)? {
        return Err(Error::UntrustedIdentity(addr.to_string()));
    }
    store.save_identity(addr, &remote)?;
    store.store_session(addr, &record)?;
    Ok(plaintext)
}

pub(crate) fn decrypt_with_record(
    record: &mut SessionRecord,
    message: &SignalMessage,
    prekey: bool,
    rng: &mut impl CryptoRng,
) -> Result<Vec<u8>> {
    let mut first_error = None;
    if let Some(current) = &record.current {
        let mut state = current.clone();
        match decrypt_with_state(&mut state, message, rng) {
            Ok(pt) => {
                record.current = Some(state);
                return Ok(pt);
            }
            Err(e @ Error::Duplicate { .. }) => return Err(e),
            Err(e) if prekey => return Err(e),
            Err(e) => first_error = Some(e),
        }
    }
    for i in 0..record.previous.len() {
        let mut state = record.previous[i].clone();
        match decrypt_with_state(&mut state, message, rng) {
            Ok(pt) => {
                record.previous.remove(i);
                record.promote_state(state);
                return Ok(pt);
            }
            Err(e @ Error::Duplicate { .. }) => return Err(e),
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    Err(first_error.unwrap_or(Error::InvalidMessage("no session to decrypt with")))
}

fn decrypt_with_state(
    state: &mut SessionState,
    message: &SignalMessage,
    rng: &mut impl CryptoRng,
) -> Result<Vec<u8>> {
    if message.version() != state.version {
        return Err(Error::VersionMismatch {
            message: message.version(),
            session: state.version,
        });
    }
    let theirs = *message.ratchet_key();
    if state.receiver_chain(&theirs).is_none() {
        // A new ratchet key: one step to receive on it, one to send on a fresh key of ours.
        let (root, receiving) = state
            .root_key
            .create_chain(&theirs, &state.sender_ratchet.private);
        let ours = KeyPair::generate(rng);
        let (root, sending) = root.create_chain(&theirs, &ours.private);
        state.root_key = root;
        state.add_receiver_chain(theirs, receiving);
        state.previous_counter = state.sender_chain.index.saturating_sub(1);
        state.sender_ratchet = ours;
        state.sender_chain = sending;
    }
    let seed = message_keys(state, &theirs, message.counter())?;
    let pq_key = state.spqr.recv(message.pq_ratchet()).map_err(spqr_error)?;
    let keys = seed.keys(pq_key.as_deref())?;
    if !message.verify_mac(&state.remote_identity, &state.local_identity, &keys.mac_key) {
        return Err(Error::InvalidMessage("MAC verification failed"));
    }
    let plaintext = keys
        .decrypt(message.ciphertext())
        .ok_or(Error::InvalidMessage("bad padding or length"))?;
    state.pending_pre_key = None;
    state.pending_ringxkem = None;
    Ok(plaintext)
}

/// The key material for `counter` on the chain of `theirs`: a stored skipped key, or the chain
/// advanced to it (keeping the seeds it skips, up to 2,000).
fn message_keys(
    state: &mut SessionState,
    theirs: &alibi_handshake::PublicKey,
    counter: u32,
) -> Result<SkippedKey> {
    let chain = state.receiver_chain(theirs).expect("chain exists");
    let index = chain.chain_key.index;
    if index > counter {
        let pos = chain
            .message_keys
            .iter()
            .position(|k| k.counter() == counter)
            .ok_or(Error::Duplicate {
                chain_index: index,
                counter,
            })?;
        return Ok(chain.message_keys.remove(pos).expect("position found"));
    }
    let jump = counter - index;
    if jump > MAX_FORWARD_JUMPS {
        return Err(Error::TooFarAhead(jump));
    }
    let mut ck = chain.chain_key.clone();
    while ck.index < counter {
        chain.message_keys.push_back(SkippedKey::Seed {
            counter: ck.index,
            seed: ck.seed(),
        });
        if chain.message_keys.len() > MAX_MESSAGE_KEYS {
            chain.message_keys.pop_front();
        }
        ck = ck.next();
    }
    chain.chain_key = ck.next();
    Ok(SkippedKey::Seed {
        counter: ck.index,
        seed: ck.seed(),
    })
}
