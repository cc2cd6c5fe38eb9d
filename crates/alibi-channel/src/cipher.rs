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

use std::time::SystemTime;

use alibi_handshake::x3dh::{self, ResponderKeys, VERSION_X3DH};
use alibi_handshake::PreKeyBundle;
use alibi_identity::KeyPair;
use rand_core::CryptoRng;

use crate::message::{PreKeySignalMessage, SignalMessage};
use crate::ratchet::{ChainKey, RootKey};
use crate::session::{PendingPreKey, SessionState, MAX_FORWARD_JUMPS, MAX_MESSAGE_KEYS};
use crate::state_cipher::{decrypt_with_record, encrypt_on_state, unix_secs};
use crate::store::{Address, Direction, ProtocolStore};
use crate::{Error, Result};

// Moved below both cipher.rs and ringxkem.rs (which use them); their paths here stay.
pub use crate::message::CiphertextMessage;
pub use crate::state_cipher::MAX_UNACKNOWLEDGED_SESSION_AGE;

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

/// Alice's side of the handshake: checks the bundle, runs X3DH or PQXDH and stores a new current
/// session for `addr` whose messages are PreKey messages until Bob answers.
pub fn process_prekey_bundle<S: ProtocolStore + ?Sized, R: CryptoRng + ?Sized>(
    addr: &Address,
    store: &mut S,
    bundle: &PreKeyBundle,
    now: SystemTime,
    rng: &mut R,
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
pub fn encrypt_with_rng<S: ProtocolStore + ?Sized, R: CryptoRng + ?Sized>(
    addr: &Address,
    store: &mut S,
    plaintext: &[u8],
    now: SystemTime,
    rng: &mut R,
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

/// Decrypts a message of either type from `addr`.
pub fn decrypt<S: ProtocolStore + ?Sized, R: CryptoRng + ?Sized>(
    addr: &Address,
    store: &mut S,
    message: &CiphertextMessage,
    rng: &mut R,
) -> Result<Vec<u8>> {
    match message {
        CiphertextMessage::Signal(m) => decrypt_signal(addr, store, m, rng),
        CiphertextMessage::PreKey(m) => decrypt_prekey(addr, store, m, rng),
        CiphertextMessage::RingXkem(m) => crate::ringxkem::decrypt_known(addr, store, m, rng),
    }
}

/// Bob's side: builds the session from a PreKey message (or finds the one already built from it),
/// then decrypts the message inside. Used prekeys are consumed only once decryption succeeds.
pub fn decrypt_prekey<S: ProtocolStore + ?Sized, R: CryptoRng + ?Sized>(
    addr: &Address,
    store: &mut S,
    message: &PreKeySignalMessage,
    rng: &mut R,
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
pub fn decrypt_signal<S: ProtocolStore + ?Sized, R: CryptoRng + ?Sized>(
    addr: &Address,
    store: &mut S,
    message: &SignalMessage,
    rng: &mut R,
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
