//! The two protocols, one party's side each: [`keygen`] and [`sign`].

use std::collections::BTreeSet;
use std::error::Error as StdError;

use rand_core_06::{CryptoRng, RngCore};
use round_based::rounds_router::errors::CompleteRoundError;
use round_based::rounds_router::simple_store::RoundInputError;
use round_based::Mpc;

use crate::share::KeyShare;
use crate::suite::{FrostSuite, KeygenMsg, SignMsg};
use crate::verify::{verify, Signature, SIGNATURE_LEN};
use crate::Error;

/// Distributed key generation (cggmp24-keygen's threshold protocol, through givre), one party's
/// side, for ciphersuite `C` ([`crate::suite::Ed25519`] or [`crate::suite::Secp256k1Tr`]).
///
/// * `party`: this party's connection, a `round_based` party for [`KeygenMsg<C>`]; from a
///   `round_based::Delivery` it is `round_based::MpcParty::connected(delivery)`.
/// * `session`: bytes every party of this run agrees on and no other run uses. The execution id
///   the protocol binds its messages to is `C::SCHEME.name() || 0x00 || session`, so runs of the
///   two schemes never mix either.
/// * `i`: this party's index, `0 <= i < n` (round-based's convention).
/// * `threshold`: the number of signers needed to sign, `2 <= threshold <= n` (alibi's `t + 1`).
///
/// The protocol enforces reliable broadcast itself (an echo round of hashes), so the delivery
/// needs none. Each party's share is validated before it is returned.
pub async fn keygen<C, P, R>(
    party: P,
    session: &[u8],
    i: u16,
    n: u16,
    threshold: u16,
    rng: &mut R,
) -> Result<KeyShare, Error>
where
    C: FrostSuite,
    P: Mpc<ProtocolMessage = KeygenMsg<C>>,
    R: RngCore + CryptoRng,
{
    if n < 2 || i >= n || threshold < 2 || threshold > n {
        return Err(Error::Params(format!(
            "keygen needs 0 <= i < n and 2 <= threshold <= n, got i = {i}, n = {n}, threshold = {threshold}"
        )));
    }
    let eid_bytes = execution_id(C::SCHEME.name(), session);
    let eid = givre::keygen::ExecutionId::new(&eid_bytes);
    let share = givre::keygen::<C::Curve>(eid, i, n)
        .set_threshold(threshold)
        .start(rng, party)
        .await
        .map_err(|e| classify::<P>(&e))?;
    KeyShare::from_givre::<C>(share)
}

/// Interactive FROST signing (givre's full signing: commitments, then signature shares, each
/// broadcast, then every signer aggregates), one signer's side, for ciphersuite `C`.
///
/// * `party`: this signer's connection, a `round_based` party for [`SignMsg<C>`], in a run of
///   exactly `signers.len()` parties.
/// * `signers`: the key-generation indices of the signers, in the order of their round-based
///   indices in this run; exactly [`KeyShare::threshold`] of them, distinct, each `< n`.
/// * `my_position`: this signer's round-based index in this run; `signers[my_position]` must be
///   `share.index()`.
///
/// For `frost-secp256k1-tr` the key is tweaked as BIP-341 says for an output with no script tree.
/// The aggregated signature is checked with [`verify`] before it is returned.
pub async fn sign<C, P, R>(
    party: P,
    share: &KeyShare,
    signers: &[u16],
    my_position: u16,
    msg: &[u8],
    rng: &mut R,
) -> Result<Signature, Error>
where
    C: FrostSuite,
    P: Mpc<ProtocolMessage = SignMsg<C>>,
    R: RngCore + CryptoRng,
{
    let inner = share.givre::<C>()?;
    check_signers(share, signers, my_position)?;
    let mut builder = givre::signing::<C>(my_position, inner, signers, msg);
    if C::IS_TAPROOT {
        builder = builder
            .set_taproot_tweak(None)
            .map_err(|e| Error::Params(e.to_string()))?;
    }
    let sig = builder
        .sign(rng, party)
        .await
        .map_err(|e| classify::<P>(&e))?;
    let mut bytes = [0u8; SIGNATURE_LEN];
    if givre::signing::aggregate::Signature::<C>::serialized_len() != SIGNATURE_LEN {
        return Err(Error::Protocol("unexpected signature size".into()));
    }
    sig.write_to_slice(&mut bytes);
    verify(C::SCHEME, &share.public_key(), msg, &bytes)
        .map_err(|e| Error::Protocol(format!("the aggregated signature does not verify ({e})")))?;
    Ok(Signature::new(C::SCHEME, bytes))
}

/// `name || 0x00 || session`: the scheme is bound into the run's execution id.
fn execution_id(name: &str, session: &[u8]) -> Vec<u8> {
    let mut eid = Vec::with_capacity(name.len() + 1 + session.len());
    eid.extend_from_slice(name.as_bytes());
    eid.push(0);
    eid.extend_from_slice(session);
    eid
}

/// Refuses a signer list that givre would misread or reject mid-run.
fn check_signers(share: &KeyShare, signers: &[u16], my_position: u16) -> Result<(), Error> {
    let distinct: BTreeSet<u16> = signers.iter().copied().collect();
    if signers.len() != usize::from(share.threshold()) || distinct.len() != signers.len() {
        return Err(Error::Params(format!(
            "signing needs exactly {} distinct signers, got {signers:?}",
            share.threshold()
        )));
    }
    if let Some(j) = signers.iter().find(|&&j| j >= share.n()) {
        return Err(Error::Params(format!(
            "signer index {j} is not below n = {}",
            share.n()
        )));
    }
    if signers.get(usize::from(my_position)) != Some(&share.index()) {
        return Err(Error::Params(format!(
            "position {my_position} in {signers:?} is not this share's index {}",
            share.index()
        )));
    }
    Ok(())
}

/// A failed run as [`Error::Transport`] when the delivery failed (its own error types, or the
/// incoming stream ending) and as [`Error::Protocol`] otherwise, with the whole error chain
/// (which carries the protocol's blame, the faulty parties' indices, when it has one).
fn classify<P: Mpc>(err: &(dyn StdError + 'static)) -> Error {
    let mut transport = false;
    let mut text = String::new();
    let mut cur = Some(err);
    while let Some(e) = cur {
        transport |= e.is::<P::SendError>() || e.is::<P::ReceiveError>();
        // givre's signing passes the round router's error on as it is: `Io` is the delivery's
        // failure or its end.
        if let Some(CompleteRoundError::Io(_)) =
            e.downcast_ref::<CompleteRoundError<RoundInputError, P::ReceiveError>>()
        {
            transport = true;
        }
        let shown = e.to_string();
        // cggmp24-keygen's end-of-stream error has no public type, only this text.
        transport |= shown.contains("eof while");
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&shown);
        cur = e.source();
    }
    if transport {
        Error::Transport(text)
    } else {
        // Some aborts keep their blame out of the text ("round1 wasn't reliable"); the Debug
        // form names the parties. Neither error type holds secret values.
        Error::Protocol(format!("{text} ({err:?})"))
    }
}
