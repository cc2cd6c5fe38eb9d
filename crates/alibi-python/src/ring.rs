//! Deniable ring signatures (alibi-ringsig): GANDALF over Falcon-512/1024 keys and over Antrag
//! keys with the Mitaka sampler, and MAYO-RS over MAYO keys, for rings of any size up to the
//! crate's bound. Members are public keys in the encodings `alibi ring keygen` writes; the
//! scheme follows from their length unless named.

use alibi_ringsig::{AnyRing, AnySigningKey, Scheme};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use zeroize::Zeroizing;

use crate::errors::ring as err;
use crate::secret::secret_repr;
use crate::{bytes, choose_named, keygen_rng, os_rng};

fn scheme(name: &str) -> PyResult<Scheme> {
    choose_named("ring scheme", name, &Scheme::ALL, Scheme::name)
}

/// The names of the ring signature schemes: falcon512, falcon1024, mitaka512, mayo1, mayo2.
#[pyfunction]
fn ring_schemes() -> Vec<&'static str> {
    Scheme::ALL.iter().map(|s| s.name()).collect()
}

/// A ring member's fresh key pair of `scheme`: (public key bytes, secret key). With `seed` (32
/// bytes) the same seed gives the same pair.
#[pyfunction]
#[pyo3(signature = (scheme, seed=None))]
fn ring_generate<'py>(
    py: Python<'py>,
    scheme: &str,
    seed: Option<&[u8]>,
) -> PyResult<(Bound<'py, PyBytes>, RingSigningKey)> {
    let s = self::scheme(scheme)?;
    let mut rng = keygen_rng(seed)?;
    let (pk, sk, key) = py.detach(|| {
        let (pk, sk) = s.generate(&mut rng);
        let key = AnySigningKey::from_bytes(s, &sk);
        (pk, sk, key)
    });
    let key = key.map_err(|e| err("secret key", e))?;
    Ok((
        bytes(py, &pk),
        RingSigningKey {
            scheme: s,
            key,
            encoded: sk,
        },
    ))
}

/// A ring member's secret key.
#[pyclass(module = "alibi.ring", frozen)]
pub struct RingSigningKey {
    scheme: Scheme,
    key: AnySigningKey,
    encoded: Zeroizing<Vec<u8>>,
}

#[pymethods]
impl RingSigningKey {
    /// Decodes a secret key of `scheme` (the encoding `alibi ring keygen` writes).
    #[staticmethod]
    fn from_bytes(py: Python<'_>, scheme: &str, data: &[u8]) -> PyResult<Self> {
        let s = self::scheme(scheme)?;
        let key = py
            .detach(|| AnySigningKey::from_bytes(s, data))
            .map_err(|e| err("ring member's secret key", e))?;
        Ok(RingSigningKey {
            scheme: s,
            key,
            encoded: Zeroizing::new(data.to_vec()),
        })
    }

    /// The secret key's encoding (bytes Python cannot wipe: write them to a 0600 file at once).
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        bytes(py, &self.encoded)
    }

    /// The scheme's name.
    #[getter]
    fn scheme(&self) -> &'static str {
        self.scheme.name()
    }

    fn __repr__(&self) -> String {
        secret_repr("ring.SigningKey", self.scheme.name())
    }
}

/// A ring: the members' public keys in order (the order is signed), decoded once for many
/// signatures and verifications.
#[pyclass(module = "alibi.ring", frozen)]
pub struct Ring(AnyRing);

#[pymethods]
impl Ring {
    /// The ring of `public_keys` (at least 2, each once); `scheme` must agree with their length
    /// when given. Raises `MalformedInput` for a key that does not decode, `KeyMismatch` for keys
    /// of two schemes or levels, `ValueError` for a ring too small, too large or with a member
    /// twice.
    #[new]
    #[pyo3(signature = (public_keys, scheme=None))]
    fn new(py: Python<'_>, public_keys: Vec<Vec<u8>>, scheme: Option<&str>) -> PyResult<Self> {
        let named = scheme.map(self::scheme).transpose()?;
        py.detach(|| AnyRing::from_public_keys(named, &public_keys))
            .map(Ring)
            .map_err(|e| err("ring member's public key", e))
    }

    /// The scheme's name.
    #[getter]
    fn scheme(&self) -> &'static str {
        self.0.scheme().name()
    }

    fn __len__(&self) -> usize {
        self.0.len()
    }

    /// Signs `msg` for the ring with a member's secret key; `KeyMismatch` if the key is not a
    /// member's.
    fn sign<'py>(
        &self,
        py: Python<'py>,
        key: &RingSigningKey,
        msg: &[u8],
    ) -> PyResult<Bound<'py, PyBytes>> {
        let sig = py
            .detach(|| self.0.sign(&key.key, msg, &mut os_rng()))
            .map_err(|e| err("ring signature", e))?;
        Ok(bytes(py, &sig))
    }

    /// Returns if `sig` is a ring signature on `msg` by a member; raises `InvalidSignature` if
    /// not, `MalformedInput` if it does not decode for this ring.
    fn verify(&self, py: Python<'_>, msg: &[u8], sig: &[u8]) -> PyResult<()> {
        py.detach(|| self.0.verify(msg, sig))
            .map_err(|e| err("ring signature", e))
    }

    fn __repr__(&self) -> String {
        format!(
            "<alibi ring.Ring ({}, {} members)>",
            self.0.scheme().name(),
            self.0.len()
        )
    }
}

/// Adds the classes and functions to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<RingSigningKey>()?;
    m.add_class::<Ring>()?;
    m.add_function(wrap_pyfunction!(ring_schemes, m)?)?;
    m.add_function(wrap_pyfunction!(ring_generate, m)?)
}
