//! The three protocols, one party's side each, over any `round-based` party, on the contract of
//! `alibi-threshold` (argument order, `t`, the signer check, typed failures).

use alibi_threshold::hd::DerivationPath;
use alibi_threshold::{check_keygen, signer_position, watched, Watch};
use cggmp24::generic_ec::Scalar;
use cggmp24::signing::AnyDataToSign;
use cggmp24::{DataToSign, ExecutionId, PrehashedDataToSign};
use rand_core_06::{CryptoRng, RngCore};
use round_based::Mpc;
use sha2_010::{Digest, Sha256};

use crate::{
    AuxInfo, AuxMsg, CoreShare, Curve, Error, KeyShare, KeygenMsg, Primes, Security, SigningMsg,
    SIGNATURE_LEN,
};

/// cggmp24's execution id for one step of a session: SHA-256 over a domain label, the step and
/// the length-prefixed session bytes, so that the steps of one session never share an id.
pub(crate) fn execution_id(step: &[u8], session: &[u8]) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(b"alibi-threshold-ecdsa/v1/execution-id/");
    h.update(step);
    h.update((session.len() as u64).to_be_bytes());
    h.update(session);
    h.finalize().into()
}

/// cggmp24's key share, validated.
type ValidShare = cggmp24::KeyShare<Curve, Security>;

/// What a signing step (signing, presigning) starts from: this signer's position in `signers`,
/// after the one signer check; the share as cggmp24 validates it; the step's execution id.
pub(crate) fn signing_start<'s>(
    share: &'s KeyShare,
    signers: &[u16],
    step: &[u8],
    session: &[u8],
) -> Result<(u16, &'s ValidShare, [u8; 32]), Error> {
    let me = signer_position(signers, share.threshold(), share.parties(), share.index())
        .map_err(alibi_threshold::Error::from)?;
    Ok((me, share.valid()?, execution_id(step, session)))
}

/// A failed run, typed by what its delivery saw ([`Watch::failure`]).
pub(crate) fn failed(watch: &Watch, err: &(dyn std::error::Error + 'static)) -> Error {
    Error::Threshold(watch.failure(err))
}

/// One party's side of the threshold key generation (cggmp24's, with reliable broadcast
/// enforced): party `i` of `n`, any `t + 1` of whom sign together (`1 <= t < n`). The party's
/// indices are the keygen indices `0..n`. The key gets a chain code (cggmp24's HD wallet
/// support), so that it derives BIP-32 children ([`KeyShare::extended_public_key`]).
pub async fn keygen<R, P>(
    rng: &mut R,
    session: &[u8],
    i: u16,
    n: u16,
    t: u16,
    party: P,
) -> Result<CoreShare, Error>
where
    R: RngCore + CryptoRng,
    P: Mpc<ProtocolMessage = KeygenMsg>,
{
    check_keygen(i, n, t)?;
    let eid = execution_id(b"keygen", session);
    let (party, watch) = watched(party);
    let share = cggmp24::keygen::<Curve>(ExecutionId::new(&eid), i, n)
        .set_threshold(t + 1)
        .hd_wallet(true)
        .start(rng, party)
        .await
        .map_err(|e| failed(&watch, &e))?;
    Ok(CoreShare {
        inner: share.into_inner(),
    })
}

/// One party's side of the auxiliary info generation (cggmp24's, with reliable broadcast
/// enforced), consuming the party's [`Primes`]: party `i` of `n`, the same `i` and `n` as at
/// [`keygen`] (it does not need the key, so it may run first). The party's indices are `0..n`.
pub async fn aux_info_gen<R, P>(
    rng: &mut R,
    session: &[u8],
    i: u16,
    n: u16,
    primes: Primes,
    party: P,
) -> Result<AuxInfo, Error>
where
    R: RngCore + CryptoRng,
    P: Mpc<ProtocolMessage = AuxMsg>,
{
    if i >= n || n < 2 {
        return Err(Error::Threshold(alibi_threshold::Error::Parameters(
            format!("auxiliary info needs 0 <= i < n and n >= 2, got i = {i}, n = {n}"),
        )));
    }
    let eid = execution_id(b"aux-info", session);
    let (party, watch) = watched(party);
    let aux = cggmp24::aux_info_gen(ExecutionId::new(&eid), i, n, primes.take()?)
        .start(rng, party)
        .await
        .map_err(|e| failed(&watch, &e))?;
    Ok(AuxInfo::new(i, aux.into_inner()))
}

/// One signer's side of signing `message`: it is hashed with SHA-256 and signed as ECDSA
/// signs (the result verifies with [`crate::verify`] on the same `message`, under the key at
/// `path`: [`KeyShare::public_key_at`]). Same as [`sign_prehash`] otherwise.
pub async fn sign<R, P>(
    rng: &mut R,
    session: &[u8],
    share: &KeyShare,
    path: &DerivationPath,
    signers: &[u16],
    message: &[u8],
    party: P,
) -> Result<[u8; SIGNATURE_LEN], Error>
where
    R: RngCore + CryptoRng,
    P: Mpc<ProtocolMessage = SigningMsg>,
{
    let data = DataToSign::<Curve>::digest::<Sha256>(message);
    sign_data(rng, session, (share, path), signers, &data, party).await
}

/// One signer's side of signing a 32-byte prehash (a SHA-256 digest, or any 32 bytes taken
/// as ECDSA's `z`, reduced modulo the group order). `signers` are the keygen indices of
/// exactly `t + 1` distinct parties, this one among them, in the same order at every signer:
/// the party's indices in the run are the positions in this list. Returns `r || s`, 32 bytes
/// each, big-endian, `s` low (as k256 and Bitcoin require). Interactive signing is safe on a
/// digest whose message nobody knows (CGGMP24's own note); presignatures would not be.
/// Under the BIP-32 child key at `path` ([`DerivationPath::master`] for the key itself),
/// which needs a share with a chain code ([`KeyShare::public_key_at`]).
pub async fn sign_prehash<R, P>(
    rng: &mut R,
    session: &[u8],
    share: &KeyShare,
    path: &DerivationPath,
    signers: &[u16],
    prehash: &[u8; 32],
    party: P,
) -> Result<[u8; SIGNATURE_LEN], Error>
where
    R: RngCore + CryptoRng,
    P: Mpc<ProtocolMessage = SigningMsg>,
{
    let z = Scalar::<Curve>::from_be_bytes_mod_order(prehash);
    let data = PrehashedDataToSign::from_scalar(z);
    sign_data(rng, session, (share, path), signers, &data, party).await
}

/// The interactive signing both entry points run.
async fn sign_data<R, P>(
    rng: &mut R,
    session: &[u8],
    (share, path): (&KeyShare, &DerivationPath),
    signers: &[u16],
    data: &dyn AnyDataToSign<Curve>,
    party: P,
) -> Result<[u8; SIGNATURE_LEN], Error>
where
    R: RngCore + CryptoRng,
    P: Mpc<ProtocolMessage = SigningMsg>,
{
    let (me, valid, eid) = signing_start(share, signers, b"sign", session)?;
    let mut builder = cggmp24::signing(ExecutionId::new(&eid), me, signers, valid);
    if !path.is_master() {
        // The same check as KeyShare::public_key_at's, so that both refuse alike.
        share.public_key_at(path)?;
        builder = builder
            .set_derivation_path(path.indices().iter().copied())
            .map_err(|e| alibi_threshold::Error::Derivation(e.to_string()))?;
    }
    let (party, watch) = watched(party);
    let sig = builder
        .sign(rng, party, data)
        .await
        .map_err(|e| failed(&watch, &e))?
        .normalize_s();
    let mut out = [0u8; SIGNATURE_LEN];
    sig.write_to_slice(&mut out);
    Ok(out)
}
