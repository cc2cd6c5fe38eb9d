//! One message on a session: encryption on a session state and decryption with a session record
//! (the Double Ratchet's and SPQR's steps). Below both kinds of session setup, the X3DH and PQXDH
//! sessions of `cipher.rs` and the RingXKEM sessions of `ringxkem.rs`, so neither imports the
//! other for it.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use alibi_identity::KeyPair;
use rand_core::CryptoRng;

use crate::message::{CiphertextMessage, PreKeySignalMessage, RingXkemMessage, SignalMessage};
use crate::ratchet::MessageKeys;
use crate::session::{
    SessionRecord, SessionState, SkippedKey, MAX_FORWARD_JUMPS, MAX_MESSAGE_KEYS,
};
use crate::{Error, Result};

/// How long an unanswered session may keep sending PreKey messages (libsignal: 30 days).
pub const MAX_UNACKNOWLEDGED_SESSION_AGE: Duration = Duration::from_secs(60 * 60 * 24 * 30);

fn spqr_error(e: alibi_spqr::Error) -> Error {
    Error::PostQuantumRatchet(e)
}

pub(crate) fn unix_secs(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH).unwrap_or_default().as_secs()
}

/// One message on a session state: SPQR's step, the message keys, the message (wrapped as a
/// PreKey or RingXKEM message until the peer answers), and the chain's step.
pub(crate) fn encrypt_on_state<R: CryptoRng + ?Sized>(
    state: &mut SessionState,
    plaintext: &[u8],
    now: SystemTime,
    rng: &mut R,
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
            CiphertextMessage::RingXkem(RingXkemMessage::new(
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

/// Decrypts with the record's current state, else an archived one (which then becomes current);
/// each try runs on a copy, so a failure leaves the record as it was.
pub(crate) fn decrypt_with_record<R: CryptoRng + ?Sized>(
    record: &mut SessionRecord,
    message: &SignalMessage,
    prekey: bool,
    rng: &mut R,
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

fn decrypt_with_state<R: CryptoRng + ?Sized>(
    state: &mut SessionState,
    message: &SignalMessage,
    rng: &mut R,
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
    theirs: &alibi_identity::PublicKey,
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
