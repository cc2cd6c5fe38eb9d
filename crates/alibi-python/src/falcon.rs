//! Falcon-512 and Falcon-1024 (alibi-falcon): keys and signatures in the specification's
//! encodings, the files `alibi falcon` and PQClean read and write, and the open preimage
//! sampler.

use alibi_falcon::{ExpandedSigningKey, Level, Signature, SigningKey, VerifyingKey};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::errors::{falcon as err, malformed};
use crate::secret::secret_repr;
use crate::{bytes, choose, keygen_rng, os_rng, BytesLike};

fn level(n: u32) -> PyResult<Level> {
    choose(
        "Falcon level",
        &n.to_string(),
        &[("512", Level::Falcon512), ("1024", Level::Falcon1024)],
    )
}

fn level_number(l: Level) -> u32 {
    l.n() as u32
}

/// A Falcon secret key (f, g, F, G), with its signing tree computed once.
#[pyclass(module = "alibi.falcon", frozen)]
pub struct FalconSigningKey {
    key: SigningKey,
    expanded: ExpandedSigningKey,
}

impl FalconSigningKey {
    fn new(key: SigningKey) -> Self {
        let expanded = key.expand();
        FalconSigningKey { key, expanded }
    }
}

#[pymethods]
impl FalconSigningKey {
    /// A fresh key pair at `level` (512 or 1024); with `seed` (32 bytes) the same seed gives the
    /// same key.
    #[staticmethod]
    #[pyo3(signature = (level=512, seed=None))]
    fn generate(py: Python<'_>, level: u32, seed: Option<BytesLike<'_>>) -> PyResult<Self> {
        let l = self::level(level)?;
        let mut rng = keygen_rng(seed.as_deref())?;
        Ok(py.detach(|| FalconSigningKey::new(SigningKey::generate(l, &mut rng))))
    }

    /// Decodes a secret key (header 0x5X, f, g, F): 1,281 bytes at 512, 2,305 at 1024.
    #[staticmethod]
    fn from_bytes(py: Python<'_>, data: BytesLike<'_>) -> PyResult<Self> {
        let key = SigningKey::from_bytes(&data).map_err(|e| err("Falcon secret key", e))?;
        Ok(py.detach(|| FalconSigningKey::new(key)))
    }

    /// The secret key's encoding (bytes Python cannot wipe: write them to a 0600 file at once).
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        bytes(py, &self.key.to_bytes())
    }

    /// 512 or 1024.
    #[getter]
    fn level(&self) -> u32 {
        level_number(self.key.level())
    }

    /// The public key.
    fn verifying_key(&self) -> FalconVerifyingKey {
        FalconVerifyingKey(self.key.verifying_key().clone())
    }

    /// Signs `msg`: a detached signature (header, 40-byte salt, compressed s2), as PQClean emits.
    fn sign<'py>(&self, py: Python<'py>, msg: BytesLike<'_>) -> Bound<'py, PyBytes> {
        let sig = py.detach(|| self.expanded.sign(&msg, &mut os_rng()).to_bytes());
        bytes(py, &sig)
    }

    /// The open trapdoor sampler: a short (s1, s2) with s1 + s2 h = c mod q for the target `c`
    /// (n coefficients in [0, q)); with `short` (the default) drawn until it passes Falcon's
    /// norm bound, else one draw.
    #[pyo3(signature = (c, short=true))]
    fn sample_preimage(
        &self,
        py: Python<'_>,
        c: Vec<u16>,
        short: bool,
    ) -> PyResult<(Vec<i16>, Vec<i16>)> {
        let p = py
            .detach(|| {
                if short {
                    self.expanded.sample_short_preimage(&c, &mut os_rng())
                } else {
                    self.expanded.sample_preimage(&c, &mut os_rng())
                }
            })
            .map_err(|e| malformed("target", e))?;
        Ok((p.s1, p.s2))
    }

    fn __bytes__<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        self.to_bytes(py)
    }

    fn __repr__(&self) -> String {
        secret_repr("falcon.SigningKey", &self.key.level().to_string())
    }
}

/// A Falcon public key h (header 0x0X, 14-bit packed h): 897 bytes at 512, 1,793 at 1024.
#[pyclass(module = "alibi.falcon", frozen)]
pub struct FalconVerifyingKey(VerifyingKey);

#[pymethods]
impl FalconVerifyingKey {
    /// Decodes a public key.
    #[staticmethod]
    fn from_bytes(data: BytesLike<'_>) -> PyResult<Self> {
        VerifyingKey::from_bytes(&data)
            .map(FalconVerifyingKey)
            .map_err(|e| err("Falcon public key", e))
    }

    /// The encoding.
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        bytes(py, &self.0.to_bytes())
    }

    /// 512 or 1024.
    #[getter]
    fn level(&self) -> u32 {
        level_number(self.0.level())
    }

    /// Returns if `sig` is a valid signature on `msg`; raises `InvalidSignature` if not,
    /// `MalformedInput` if `sig` does not decode, `KeyMismatch` for a signature of the other
    /// level.
    fn verify(&self, py: Python<'_>, msg: BytesLike<'_>, sig: BytesLike<'_>) -> PyResult<()> {
        let sig = Signature::from_bytes(&sig).map_err(|e| err("Falcon signature", e))?;
        py.detach(|| self.0.verify(&msg, &sig))
            .map_err(|e| err("Falcon signature", e))
    }

    fn __bytes__<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        self.to_bytes(py)
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<FalconVerifyingKey>()
            .is_ok_and(|o| o.get().0 == self.0)
    }

    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.0.to_bytes().hash(&mut h);
        h.finish()
    }

    fn __repr__(&self) -> String {
        format!("<alibi falcon.VerifyingKey ({})>", self.0.level())
    }
}

/// Adds the classes to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<FalconSigningKey>()?;
    m.add_class::<FalconVerifyingKey>()
}
