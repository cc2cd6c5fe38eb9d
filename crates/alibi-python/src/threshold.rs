//! Verification of the threshold schemes' signatures beside BLS (`bls.rs`), with the verifiers
//! `alibi mpc verify` uses, which share no code with the protocols: FROST-Ed25519 (ed25519-dalek,
//! strict), FROST-secp256k1-tr (k256's BIP-340, the raw message) and threshold ECDSA (k256,
//! SHA-256 of the message, low s); and the child keys `alibi mpc derive` gives, from the
//! group's extended public key.

use alibi_threshold_ecdsa::{DerivationPath, ExtendedPublicKey};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

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

/// The extended public key (Base58Check `xpub` text) and the path (`m/0/7`) from Python.
fn hd_inputs(xpub: &str, path: &str) -> PyResult<(ExtendedPublicKey, DerivationPath)> {
    let xpub = ExtendedPublicKey::from_base58(xpub).map_err(|e| malformed("xpub", e))?;
    let path = path.parse().map_err(|e| malformed("derivation path", e))?;
    Ok((xpub, path))
}

/// The child key at `path` (non-hardened, as `"m/0/7"`) below the BIP-32 extended public key
/// `xpub` (what `alibi mpc keys --scheme ecdsa-secp256k1` writes): 33 bytes, SEC1 compressed,
/// the key `alibi mpc sign --path` signs under. Raises `MalformedInput` for an `xpub` or path
/// that is not one (a hardened step among them).
#[pyfunction]
fn ecdsa_derive<'py>(py: Python<'py>, xpub: &str, path: &str) -> PyResult<Bound<'py, PyBytes>> {
    let (xpub, path) = hd_inputs(xpub, path)?;
    let child = xpub.derive(&path).map_err(|e| malformed("derivation", e))?;
    Ok(PyBytes::new(py, child.public_key()))
}

/// FROST's child key of `scheme` at `path` below `xpub`.
fn frost_derive<'py>(
    py: Python<'py>,
    scheme: alibi_frost::Scheme,
    (xpub, path): (&str, &str),
) -> PyResult<Bound<'py, PyBytes>> {
    let (xpub, path) = hd_inputs(xpub, path)?;
    let key =
        alibi_frost::public_key_at(scheme, &xpub, &path).map_err(|e| malformed("derivation", e))?;
    Ok(PyBytes::new(py, &key))
}

/// The x-only BIP-340 key a `frost-secp256k1-tr` signature at `path` verifies under: the
/// BIP-32 child of the internal key `xpub` (what `alibi mpc keys --scheme frost-secp256k1-tr`
/// writes), tweaked as BIP-341 says for an output without a script tree (32 bytes).
#[pyfunction]
fn frost_derive_bip340<'py>(
    py: Python<'py>,
    xpub: &str,
    path: &str,
) -> PyResult<Bound<'py, PyBytes>> {
    frost_derive(py, alibi_frost::Scheme::Secp256k1Tr, (xpub, path))
}

/// The Ed25519 key a `frost-ed25519` signature at `path` verifies under: the child of `xpub`
/// by the Edwards derivation givre signs with (32 bytes). No standard defines it.
#[pyfunction]
fn frost_derive_ed25519<'py>(
    py: Python<'py>,
    xpub: &str,
    path: &str,
) -> PyResult<Bound<'py, PyBytes>> {
    frost_derive(py, alibi_frost::Scheme::Ed25519, (xpub, path))
}

/// Adds the functions to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(frost_verify_ed25519, m)?)?;
    m.add_function(wrap_pyfunction!(frost_verify_bip340, m)?)?;
    m.add_function(wrap_pyfunction!(ecdsa_verify, m)?)?;
    m.add_function(wrap_pyfunction!(ecdsa_derive, m)?)?;
    m.add_function(wrap_pyfunction!(frost_derive_bip340, m)?)?;
    m.add_function(wrap_pyfunction!(frost_derive_ed25519, m)?)
}
