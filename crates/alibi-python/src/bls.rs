//! Threshold BLS verification (alibi-bls): a group's 48-byte public key and a combined 96-byte
//! signature from `alibi mpc sign`, ciphersuite `BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_`.
//! A threshold signature is a plain BLS signature under the group key, so this is BLS Verify.

use pyo3::prelude::*;

use crate::errors::{malformed, InvalidSignature};
use crate::BytesLike;

/// Returns if `sig` (96 bytes, G2) is a valid BLS signature on `msg` under `public_key` (48
/// bytes, G1): a group's key and its threshold signature, or one signer's. Raises
/// `InvalidSignature` if not, `MalformedInput` for a key or signature that does not decode (or
/// the identity as the key).
#[pyfunction]
fn bls_verify(
    py: Python<'_>,
    public_key: BytesLike<'_>,
    msg: BytesLike<'_>,
    sig: BytesLike<'_>,
) -> PyResult<()> {
    py.detach(|| alibi_bls::verify(&public_key, &msg, &sig))
        .map_err(|e| match e {
            alibi_bls::Error::Verification(_) => InvalidSignature::new_err("invalid BLS signature"),
            e => malformed("BLS input", e),
        })
}

/// Adds the function to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(bls_verify, m)?)
}
