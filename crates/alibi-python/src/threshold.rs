//! Verification of the threshold schemes' signatures beside BLS (`bls.rs`), with the verifiers
//! `alibi mpc verify` uses, which share no code with the protocols: FROST-Ed25519 (ed25519-dalek,
//! strict), FROST-secp256k1-tr (k256's BIP-340, the raw message) and threshold ECDSA (k256,
//! SHA-256 of the message, low s).

use pyo3::prelude::*;

use crate::errors::{malformed, InvalidSignature};
use crate::BytesLike;

/// FROST verification of `sig` on `msg` under `public_key` for `scheme`.
fn frost(scheme: alibi_frost::Scheme, public_key: &[u8], msg: &[u8], sig: &[u8]) -> PyResult<()> {
    alibi_frost::verify(scheme, public_key, msg, sig).map_err(|e| match e {
        alibi_frost::Error::InvalidSignature => {
            InvalidSignature::new_err(format!("invalid {scheme} signature"))
        }
        e => malformed(scheme.name(), e),
    })
}

/// Returns if `sig` (64 bytes, `R || S`) is a valid Ed25519 signature on `msg` under
/// `public_key` (32 bytes), by ed25519-dalek's strict rules: what `alibi mpc sign --scheme
/// frost-ed25519` combines. Raises `InvalidSignature` if not, `MalformedInput` for a key or
/// signature that does not decode.
#[pyfunction]
fn frost_verify_ed25519(
    py: Python<'_>,
    public_key: BytesLike<'_>,
    msg: BytesLike<'_>,
    sig: BytesLike<'_>,
) -> PyResult<()> {
    py.detach(|| frost(alibi_frost::Scheme::Ed25519, &public_key, &msg, &sig))
}

/// Returns if `sig` (64 bytes, `r || s`) is a valid BIP-340 Schnorr signature on the message
/// `msg` itself (any length, not hashed first) under the x-only `public_key` (32 bytes): what
/// `alibi mpc sign --scheme frost-secp256k1-tr` combines. Raises `InvalidSignature` if not,
/// `MalformedInput` for a key or signature that does not decode.
#[pyfunction]
fn frost_verify_bip340(
    py: Python<'_>,
    public_key: BytesLike<'_>,
    msg: BytesLike<'_>,
    sig: BytesLike<'_>,
) -> PyResult<()> {
    py.detach(|| frost(alibi_frost::Scheme::Secp256k1Tr, &public_key, &msg, &sig))
}

/// Returns if `sig` (64 bytes, `r || s`, s low) is a valid ECDSA signature over secp256k1 on
/// SHA-256 of `msg` under `public_key` (33 bytes, SEC1 compressed): what `alibi mpc sign
/// --scheme ecdsa-secp256k1` combines. Raises `InvalidSignature` if not, `MalformedInput` for a
/// key or signature that does not decode.
#[pyfunction]
fn ecdsa_verify(
    py: Python<'_>,
    public_key: BytesLike<'_>,
    msg: BytesLike<'_>,
    sig: BytesLike<'_>,
) -> PyResult<()> {
    py.detach(|| alibi_threshold_ecdsa::verify(&public_key, &msg, &sig))
        .map_err(|e| match e {
            alibi_threshold_ecdsa::Error::InvalidSignature => {
                InvalidSignature::new_err("invalid ECDSA signature")
            }
            e => malformed("ECDSA input", e),
        })
}

/// Adds the functions to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(frost_verify_ed25519, m)?)?;
    m.add_function(wrap_pyfunction!(frost_verify_bip340, m)?)?;
    m.add_function(wrap_pyfunction!(ecdsa_verify, m)?)
}
