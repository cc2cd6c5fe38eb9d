//! The three protocols, one party's side each, over any `round-based` delivery.

use cggmp24::generic_ec::Scalar;
use cggmp24::signing::AnyDataToSign;
use cggmp24::{DataToSign, ExecutionId, PrehashedDataToSign};
use rand_core_06::{CryptoRng, RngCore};
use round_based::{Delivery, MpcParty};
use sha2_010::{Digest, Sha256};

use crate::{
    AuxInfo, AuxMsg, CoreShare, Curve, Error, KeyShare, KeygenMsg, Primes, SigningMsg,
    SIGNATURE_LEN,
};

/// cggmp24's execution id for one step of a session: SHA-256 over a domain label, the step and
/// the length-prefixed session bytes, so that the steps of one session never share an id.
fn execution_id(step: &[u8], session: &[u8]) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(b"alibi-threshold-ecdsa/v1/execution-id/");
    h.update(step);
    h.update((session.len() as u64).to_be_bytes());
    h.update(session);
    h.finalize().into()
}

/// One party's side of the threshold key generation (cggmp24's, with reliable broadcast
/// enforced): party `i` of `n`, any `min_signers` of whom (2 to `n`) sign together.
/// The delivery's party indices are the keygen indices `0..n`.
pub async fn keygen<R, D>(
    rng: &mut R,
    session: &[u8],
    i: u16,
    n: u16,
    min_signers: u16,
    delivery: D,
) -> Result<CoreShare, Error>
where
    R: RngCore + CryptoRng,
    D: Delivery<KeygenMsg>,
{
    if i >= n {
        return Err(Error::Parameters("party index not below n"));
    }
    if min_signers < 2 || min_signers > n {
        return Err(Error::Parameters("min_signers not in 2..=n"));
    }
    let eid = execution_id(b"keygen", session);
    let share = cggmp24::keygen::<Curve>(ExecutionId::new(&eid), i, n)
        .set_threshold(min_signers)
        .start(rng, MpcParty::connected(delivery))
        .await
        .map_err(|e| Error::protocol(&e))?;
    Ok(CoreShare {
        inner: share.into_inner(),
    })
}

/// One party's side of the auxiliary info generation (cggmp24's, with reliable broadcast
/// enforced), consuming the party's [`Primes`]: party `i` of `n`, the same `i` and `n` as at
/// [`keygen`] (it does not need the key, so it may run first). The delivery's party indices
/// are `0..n`.
pub async fn aux_info_gen<R, D>(
    rng: &mut R,
    session: &[u8],
    i: u16,
    n: u16,
    primes: Primes,
    delivery: D,
) -> Result<AuxInfo, Error>
where
    R: RngCore + CryptoRng,
    D: Delivery<AuxMsg>,
{
    if i >= n || n < 2 {
        return Err(Error::Parameters("party index not below n, or n below 2"));
    }
    let eid = execution_id(b"aux-info", session);
    let aux = cggmp24::aux_info_gen(ExecutionId::new(&eid), i, n, primes.take()?)
        .start(rng, MpcParty::connected(delivery))
        .await
        .map_err(|e| Error::protocol(&e))?;
    Ok(AuxInfo::new(i, aux.into_inner()))
}

/// One signer's side of signing `message`: it is hashed with SHA-256 and signed as ECDSA
/// signs (the result verifies with [`crate::verify`] on the same `message`). Same as
/// [`sign_prehash`] otherwise.
pub async fn sign<R, D>(
    rng: &mut R,
    session: &[u8],
    share: &KeyShare,
    signers: &[u16],
    message: &[u8],
    delivery: D,
) -> Result<[u8; SIGNATURE_LEN], Error>
where
    R: RngCore + CryptoRng,
    D: Delivery<SigningMsg>,
{
    let data = DataToSign::<Curve>::digest::<Sha256>(message);
    sign_data(rng, session, share, signers, &data, delivery).await
}

/// One signer's side of signing a 32-byte prehash (a SHA-256 digest, or any 32 bytes taken
/// as ECDSA's `z`, reduced modulo the group order). `signers` are the keygen indices of
/// exactly [`KeyShare::min_signers`] distinct parties, this one among them, in the same order
/// at every signer: the delivery's party indices are the positions in this list. Returns
/// `r || s`, 32 bytes each, big-endian, `s` low (as k256 and Bitcoin require). Interactive
/// signing is safe on a digest whose message nobody knows (CGGMP24's own note); presignatures
/// would not be.
pub async fn sign_prehash<R, D>(
    rng: &mut R,
    session: &[u8],
    share: &KeyShare,
    signers: &[u16],
    prehash: &[u8; 32],
    delivery: D,
) -> Result<[u8; SIGNATURE_LEN], Error>
where
    R: RngCore + CryptoRng,
    D: Delivery<SigningMsg>,
{
    let z = Scalar::<Curve>::from_be_bytes_mod_order(prehash);
    let data = PrehashedDataToSign::from_scalar(z);
    sign_data(rng, session, share, signers, &data, delivery).await
}

/// The interactive signing both entry points run.
async fn sign_data<R, D>(
    rng: &mut R,
    session: &[u8],
    share: &KeyShare,
    signers: &[u16],
    data: &dyn AnyDataToSign<Curve>,
    delivery: D,
) -> Result<[u8; SIGNATURE_LEN], Error>
where
    R: RngCore + CryptoRng,
    D: Delivery<SigningMsg>,
{
    let me = signer_position(share, signers)?;
    let valid = share.valid()?;
    let eid = execution_id(b"sign", session);
    let sig = cggmp24::signing(ExecutionId::new(&eid), me, signers, valid)
        .sign(rng, MpcParty::connected(delivery), data)
        .await
        .map_err(|e| Error::protocol(&e))?
        .normalize_s();
    let mut out = [0u8; SIGNATURE_LEN];
    sig.write_to_slice(&mut out);
    Ok(out)
}

/// This party's position in a signer list, after checking the list: `min_signers` distinct
/// indices below `n`, this party's among them.
fn signer_position(share: &KeyShare, signers: &[u16]) -> Result<u16, Error> {
    if signers.len() != usize::from(share.min_signers()) {
        return Err(Error::Parameters("signer list not of min_signers parties"));
    }
    if signers.iter().any(|&s| s >= share.parties()) {
        return Err(Error::Parameters("signer index not below n"));
    }
    let mut sorted = signers.to_vec();
    sorted.sort_unstable();
    if sorted.windows(2).any(|w| w[0] == w[1]) {
        return Err(Error::Parameters("signer listed twice"));
    }
    let position = signers.iter().position(|&s| s == share.index());
    position
        .and_then(|p| u16::try_from(p).ok())
        .ok_or(Error::Parameters("this party is not among the signers"))
}
