//! MAYO (alibi-mayo) at MAYO_1, 2, 3 and 5: compact keys and signatures in the specification's
//! encodings, liboqs's. The compact secret key is the seed, so a key is also its own
//! deterministic generation.

use alibi_mayo::{Params, Signature, SigningKey, VerifyingKey};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::errors::mayo as err;
use crate::secret::secret_repr;
use crate::{bytes, keygen_rng, os_rng, BytesLike};

fn params(name: &str) -> PyResult<Params> {
    Params::from_name(name).ok_or_else(|| {
        pyo3::exceptions::PyValueError::new_err(format!(
            "no MAYO parameter set is named {name:?} (one of: MAYO_1, MAYO_2, MAYO_3, MAYO_5)"
        ))
    })
}

/// A MAYO secret key (the compact key: a seed).
#[pyclass(module = "alibi.mayo", frozen)]
pub struct MayoSigningKey(SigningKey);

#[pymethods]
impl MayoSigningKey {
    /// A fresh key of `params` ("MAYO_1" .. "MAYO_5"); with `seed` (32 bytes) the same seed
    /// gives the same key.
    #[staticmethod]
    #[pyo3(signature = (params="MAYO_1", seed=None))]
    fn generate(params: &str, seed: Option<BytesLike<'_>>) -> PyResult<Self> {
        let p = self::params(params)?;
        Ok(MayoSigningKey(SigningKey::generate(
            p,
            &mut keygen_rng(seed.as_deref())?,
        )))
    }

    /// The key of a compact secret key of `params`.
    #[staticmethod]
    fn from_bytes(params: &str, data: BytesLike<'_>) -> PyResult<Self> {
        SigningKey::from_bytes(self::params(params)?, &data)
            .map(MayoSigningKey)
            .map_err(|e| err("MAYO secret key", e))
    }

    /// The compact secret key (bytes Python cannot wipe: write them to a 0600 file at once).
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        bytes(py, &self.0.to_bytes())
    }

    /// The parameter set's name.
    #[getter]
    fn params(&self) -> &'static str {
        self.0.params().name()
    }

    /// The public key (expanded from the seed on first use).
    fn verifying_key(&self, py: Python<'_>) -> MayoVerifyingKey {
        MayoVerifyingKey(py.detach(|| self.0.verifying_key().clone()))
    }

    /// Signs `msg`: the signature's encoding (s and the salt).
    fn sign<'py>(&self, py: Python<'py>, msg: BytesLike<'_>) -> Bound<'py, PyBytes> {
        let sig = py.detach(|| self.0.sign(&msg, &mut os_rng()).to_bytes());
        bytes(py, &sig)
    }

    fn __bytes__<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        self.to_bytes(py)
    }

    fn __repr__(&self) -> String {
        secret_repr("mayo.SigningKey", self.0.params().name())
    }
}

/// A MAYO compact public key.
#[pyclass(module = "alibi.mayo", frozen)]
pub struct MayoVerifyingKey(VerifyingKey);

#[pymethods]
impl MayoVerifyingKey {
    /// Decodes a compact public key of `params`.
    #[staticmethod]
    fn from_bytes(params: &str, data: BytesLike<'_>) -> PyResult<Self> {
        VerifyingKey::from_bytes(self::params(params)?, &data)
            .map(MayoVerifyingKey)
            .map_err(|e| err("MAYO public key", e))
    }

    /// The encoding.
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        bytes(py, &self.0.to_bytes())
    }

    /// The parameter set's name.
    #[getter]
    fn params(&self) -> &'static str {
        self.0.params().name()
    }

    /// Returns if `sig` is a valid signature on `msg`; raises `InvalidSignature` if not,
    /// `MalformedInput` if it does not decode.
    fn verify(&self, py: Python<'_>, msg: BytesLike<'_>, sig: BytesLike<'_>) -> PyResult<()> {
        let sig =
            Signature::from_bytes(self.0.params(), &sig).map_err(|e| err("MAYO signature", e))?;
        py.detach(|| self.0.verify(&msg, &sig))
            .map_err(|e| err("MAYO signature", e))
    }

    fn __bytes__<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        self.to_bytes(py)
    }

    fn __repr__(&self) -> String {
        format!("<alibi mayo.VerifyingKey ({})>", self.0.params().name())
    }
}

/// Adds the classes to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<MayoSigningKey>()?;
    m.add_class::<MayoVerifyingKey>()
}
