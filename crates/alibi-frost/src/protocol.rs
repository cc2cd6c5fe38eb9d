//! The two protocols, one party's side each: [`keygen`] and [`sign`], on the contract of
//! `alibi-threshold` (argument order, `t`, the signer check, typed failures).

use alibi_threshold::hd::DerivationPath;
use alibi_threshold::{check_keygen, signer_position, watched, Watch};
use rand_core_06::{CryptoRng, RngCore};
use round_based::Mpc;

use crate::share::KeyShare;
use crate::suite::{FrostSuite, KeygenMsg, SignMsg};
use crate::verify::{verify, Signature, SIGNATURE_LEN};
use crate::Error;

/// Distributed key generation (cggmp21-keygen's threshold protocol, through givre), one party's
/// side, for ciphersuite `C` ([`crate::suite::Ed25519`] or [`crate::suite::Secp256k1Tr`]).
///
/// * `session`: bytes every party of this run agrees on and no other run uses. The execution id
///   the protocol binds its messages to is `C::SCHEME.name() || 0x00 || session`, so runs of the
///   two schemes never mix either.
/// * `i`: this party's index, `0 <= i < n` (round-based's convention).
/// * `t`: how many parties may be corrupted; any `t + 1` of the `n` sign, `1 <= t < n`.
/// * `party`: this party's connection, a `round_based` party for [`KeygenMsg<C>`]; from a
///   `round_based::Delivery` it is `round_based::MpcParty::connected(delivery)`.
///
/// The protocol enforces reliable broadcast itself (an echo round of hashes), so the delivery
/// needs none. Each party's share is validated before it is returned. The key gets a chain code
/// (cggmp21-keygen's HD wallet support), so that it derives children
/// ([`KeyShare::extended_public_key`]).
pub async fn keygen<C, R, P>(
    rng: &mut R,
    session: &[u8],
    i: u16,
    n: u16,
    t: u16,
    party: P,
) -> Result<KeyShare, Error>
where
    C: FrostSuite,
    R: RngCore + CryptoRng,
    P: Mpc<ProtocolMessage = KeygenMsg<C>>,
{
    check_keygen(i, n, t)?;
    let eid_bytes = execution_id(C::SCHEME.name(), session);
    let eid = givre::keygen::ExecutionId::new(&eid_bytes);
    let (party, watch) = watched(party);
    let share = givre::keygen::<C::Curve>(eid, i, n)
        .set_threshold(t + 1)
        .hd_wallet(true)
        .start(rng, party)
        .await
        .map_err(|e| failed(&watch, &e))?;
    KeyShare::from_givre::<C>(share)
}

/// Interactive FROST signing (givre's full signing: commitments, then signature shares, each
/// broadcast, then every signer aggregates), one signer's side, for ciphersuite `C`.
///
/// * `signers`: the key-generation indices of the signers, in the order of their round-based
///   indices in this run: exactly `t + 1` of them, distinct, each `< n`, this share's among
///   them (its position is this party's index in the run).
/// * `path`: the key to sign under, [`DerivationPath::master`] for the group's own, else its
///   child ([`crate::public_key_at`]), which needs a share with a chain code.
/// * `party`: this signer's connection, a `round_based` party for [`SignMsg<C>`], in a run of
///   exactly `signers.len()` parties.
///
/// Unlike threshold ECDSA's, this signing takes no session: givre's FROST signing binds its
/// messages to no execution id (each run draws fresh nonces and signs `msg` itself), so the
/// transport keeps runs apart. For `frost-secp256k1-tr` the key is tweaked as BIP-341 says for
/// an output with no script tree. The aggregated signature is checked with [`verify`] before it
/// is returned.
pub async fn sign<C, R, P>(
    rng: &mut R,
    share: &KeyShare,
    path: &DerivationPath,
    signers: &[u16],
    msg: &[u8],
    party: P,
) -> Result<Signature, Error>
where
    C: FrostSuite,
    R: RngCore + CryptoRng,
    P: Mpc<ProtocolMessage = SignMsg<C>>,
{
    let inner = share.givre::<C>()?;
    let me = signer_position(signers, share.threshold(), share.parties(), share.index())
        .map_err(alibi_threshold::Error::from)?;
    let public_key = share.public_key_at(path)?;
    let mut builder = givre::signing::<C>(me, inner, signers, msg);
    if !path.is_master() {
        builder = builder
            .set_derivation_path(path.indices().iter().copied())
            .map_err(|e| alibi_threshold::Error::Derivation(e.to_string()))?;
    }
    if C::IS_TAPROOT {
        builder = builder
            .set_taproot_tweak(None)
            .map_err(|e| alibi_threshold::Error::Parameters(e.to_string()))?;
    }
    let (party, watch) = watched(party);
    let sig = builder
        .sign(rng, party)
        .await
        .map_err(|e| failed(&watch, &e))?;
    let mut bytes = [0u8; SIGNATURE_LEN];
    if givre::signing::aggregate::Signature::<C>::serialized_len() != SIGNATURE_LEN {
        return Err(Error::Malformed("aggregated signature: unexpected size"));
    }
    sig.write_to_slice(&mut bytes);
    // givre's signing does not identify a bad signature share (it says so): an aggregate that
    // does not verify is an abort blamed on no one.
    verify(C::SCHEME, &public_key, msg, &bytes).map_err(|e| {
        Error::Threshold(alibi_threshold::Error::Aborted {
            reason: format!("the aggregated signature does not verify ({e})"),
            blamed: vec![],
        })
    })?;
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

/// A failed run, typed by what its delivery saw ([`Watch::failure`]).
fn failed(watch: &Watch, err: &(dyn std::error::Error + 'static)) -> Error {
    Error::Threshold(watch.failure(err))
}
