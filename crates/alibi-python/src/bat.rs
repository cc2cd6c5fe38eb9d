//! BAT-257 (alibi-bat), the NTRU KEM with a Falcon-style trapdoor, in the SHADOWFAX artifact's
//! encodings; key generation from a 32-byte seed is the artifact's `kem_keygen` on that seed.

use alibi_bat::{decapsulate, encapsulate, PublicKey, SecretKey};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::errors::malformed;
use crate::secret::{secret_repr, SharedKey};
use crate::{bytes, os_rng, seed32, BytesLike};

/// A BAT-257 secret key.
#[pyclass(module = "alibi.bat", frozen)]
pub struct BatSecretKey(SecretKey);

#[pymethods]
impl BatSecretKey {
    /// A fresh key; with `seed` (32 bytes) the artifact's key generation on that seed, so the
    /// same seed gives the same key.
    #[staticmethod]
    #[pyo3(signature = (seed=None))]
    fn generate(py: Python<'_>, seed: Option<BytesLike<'_>>) -> PyResult<Self> {
        let seed = seed32(seed.as_deref())?;
        Ok(BatSecretKey(py.detach(|| match seed {
            Some(s) => SecretKey::generate_from_seed(&s),
            None => SecretKey::generate(&mut os_rng()),
        })))
    }

    /// Decodes a secret key in the artifact's layout.
    #[staticmethod]
    fn from_bytes(data: BytesLike<'_>) -> PyResult<Self> {
        SecretKey::from_bytes(&data)
            .map(BatSecretKey)
            .map_err(|e| malformed("BAT-257 secret key", e))
    }

    /// The secret key's encoding (bytes Python cannot wipe: write them to a 0600 file at once).
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        bytes(py, &self.0.to_bytes())
    }

    /// The public key's encoding.
    fn public_key<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        bytes(py, &self.0.public_key().to_bytes())
    }

    /// Decapsulates a 473-byte ciphertext. A ciphertext of the right form always yields a key
    /// (implicit rejection: a tampered one yields an unrelated key); `MalformedInput` for the
    /// wrong length or tag.
    fn decapsulate(&self, py: Python<'_>, ct: BytesLike<'_>) -> PyResult<SharedKey> {
        py.detach(|| decapsulate(&self.0, &ct))
            .map(SharedKey)
            .map_err(|e| malformed("BAT-257 ciphertext", e))
    }

    fn __bytes__<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        self.to_bytes(py)
    }

    fn __repr__(&self) -> String {
        secret_repr("bat.SecretKey", "BAT-257")
    }
}

/// Encapsulates a fresh key to a BAT-257 public key: (473-byte ciphertext, shared key).
#[pyfunction]
fn bat_encapsulate<'py>(
    py: Python<'py>,
    public_key: BytesLike<'_>,
) -> PyResult<(Bound<'py, PyBytes>, SharedKey)> {
    let pk = PublicKey::from_bytes(&public_key).map_err(|e| malformed("BAT-257 public key", e))?;
    let (ct, k) = py
        .detach(|| encapsulate(&pk, &mut os_rng()))
        .map_err(|e| malformed("BAT-257 public key", e))?;
    Ok((bytes(py, &ct), SharedKey(k)))
}

/// Adds the class and function to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<BatSecretKey>()?;
    m.add_function(wrap_pyfunction!(bat_encapsulate, m)?)
}
