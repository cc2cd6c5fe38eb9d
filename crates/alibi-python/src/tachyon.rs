//! TACHYON (alibi-tachyon): keys carry their level in a header byte, as `alibi tachyon` writes
//! them; a signing key can cache every x_i (the paper's signer pre-computation variant).

use alibi_tachyon::{Level, Signature, SigningKey, VerifyingKey};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::errors::tachyon as err;
use crate::secret::secret_repr;
use crate::{bytes, choose, keygen_rng, os_rng, BytesLike};

/// The levels by the CLI's names.
const LEVELS: [(&str, Level); 4] = [
    ("128", Level::T128),
    ("192", Level::T192),
    ("256", Level::T256),
    ("128s", Level::T128Small),
];

fn level_name(l: Level) -> &'static str {
    LEVELS.iter().find(|(_, v)| *v == l).map_or("?", |(n, _)| n)
}

/// A TACHYON secret key (header, PRF key, seed), with the x_i cached when asked.
#[pyclass(module = "alibi.tachyon", frozen)]
pub struct TachyonSigningKey(SigningKey);

fn with_cache(key: SigningKey, precompute: bool) -> SigningKey {
    if precompute {
        key.with_precomputation()
    } else {
        key
    }
}

#[pymethods]
impl TachyonSigningKey {
    /// A fresh key at `level` ("128", "192", "256" or "128s"); with `precompute` every x_i is
    /// cached (256 KB at 128) so that signing skips their PRF calls; with `seed` (32 bytes) the
    /// same seed gives the same key.
    #[staticmethod]
    #[pyo3(signature = (level="128", precompute=false, seed=None))]
    fn generate(
        py: Python<'_>,
        level: &str,
        precompute: bool,
        seed: Option<BytesLike<'_>>,
    ) -> PyResult<Self> {
        let l = choose("TACHYON level", level, &LEVELS)?;
        let mut rng = keygen_rng(seed.as_deref())?;
        Ok(TachyonSigningKey(py.detach(|| {
            let k = SigningKey::generate(l, &mut rng);
            // The public key is computed now, not on the first call that needs it.
            k.verifying_key();
            with_cache(k, precompute)
        })))
    }

    /// Decodes a secret key; `precompute` as in `generate`.
    #[staticmethod]
    #[pyo3(signature = (data, precompute=false))]
    fn from_bytes(py: Python<'_>, data: BytesLike<'_>, precompute: bool) -> PyResult<Self> {
        let k = SigningKey::from_bytes(&data).map_err(|e| err("TACHYON secret key", e))?;
        Ok(TachyonSigningKey(py.detach(|| with_cache(k, precompute))))
    }

    /// The secret key's encoding (bytes Python cannot wipe: write them to a 0600 file at once).
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        bytes(py, &self.0.to_bytes())
    }

    /// "128", "192", "256" or "128s".
    #[getter]
    fn level(&self) -> &'static str {
        level_name(self.0.level())
    }

    /// Bytes the cached x_i take (0 without them).
    #[getter]
    fn precomputation_len(&self) -> usize {
        self.0.precomputation_len()
    }

    /// The public key.
    fn verifying_key(&self, py: Python<'_>) -> TachyonVerifyingKey {
        TachyonVerifyingKey(py.detach(|| self.0.verifying_key().clone()))
    }

    /// Signs `msg`: the raw (s, h).
    fn sign<'py>(&self, py: Python<'py>, msg: BytesLike<'_>) -> Bound<'py, PyBytes> {
        let sig = py.detach(|| self.0.sign(&msg, &mut os_rng()).to_bytes());
        bytes(py, &sig)
    }

    fn __bytes__<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        self.to_bytes(py)
    }

    fn __repr__(&self) -> String {
        secret_repr("tachyon.SigningKey", self.0.level().name())
    }
}

/// A TACHYON public key.
#[pyclass(module = "alibi.tachyon", frozen)]
pub struct TachyonVerifyingKey(VerifyingKey);

#[pymethods]
impl TachyonVerifyingKey {
    /// Decodes a public key.
    #[staticmethod]
    fn from_bytes(py: Python<'_>, data: BytesLike<'_>) -> PyResult<Self> {
        py.detach(|| VerifyingKey::from_bytes(&data))
            .map(TachyonVerifyingKey)
            .map_err(|e| err("TACHYON public key", e))
    }

    /// The encoding.
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        bytes(py, &self.0.to_bytes())
    }

    /// "128", "192", "256" or "128s".
    #[getter]
    fn level(&self) -> &'static str {
        level_name(self.0.level())
    }

    /// Returns if `sig` is a valid signature on `msg`; raises `InvalidSignature` if not,
    /// `MalformedInput` if it does not decode at this key's level.
    fn verify(&self, py: Python<'_>, msg: BytesLike<'_>, sig: BytesLike<'_>) -> PyResult<()> {
        let sig =
            Signature::from_bytes(self.0.level(), &sig).map_err(|e| err("TACHYON signature", e))?;
        py.detach(|| self.0.verify(&msg, &sig))
            .map_err(|e| err("TACHYON signature", e))
    }

    fn __bytes__<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        self.to_bytes(py)
    }

    fn __repr__(&self) -> String {
        format!("<alibi tachyon.VerifyingKey ({})>", self.0.level().name())
    }
}

/// Adds the classes to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<TachyonSigningKey>()?;
    m.add_class::<TachyonVerifyingKey>()
}
