//! Deniable ring signatures (alibi-ringsig): GANDALF over Falcon-512/1024 keys and over Antrag
//! keys with the Mitaka sampler, and MAYO-RS over MAYO keys, for rings of any size up to the
//! crate's bound. Members are public keys in the encodings `alibi ring keygen` writes; the
//! scheme follows from their length unless named.

use alibi_ringsig::{AnyRing, AnySigningKey, Scheme};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use zeroize::Zeroizing;

use crate::errors::{ring as err, KeyMismatch};
use crate::secret::secret_repr;
use crate::{bytes, bytes_items, choose_named, keygen_rng, os_rng, BytesLike};

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
    seed: Option<BytesLike<'_>>,
) -> PyResult<(Bound<'py, PyBytes>, RingSigningKey)> {
    let s = self::scheme(scheme)?;
    let mut rng = keygen_rng(seed.as_deref())?;
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
    fn from_bytes(py: Python<'_>, scheme: &str, data: BytesLike<'_>) -> PyResult<Self> {
        let s = self::scheme(scheme)?;
        let key = py
            .detach(|| AnySigningKey::from_bytes(s, &data))
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

    fn __bytes__<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        self.to_bytes(py)
    }

    fn __repr__(&self) -> String {
        secret_repr("ring.SigningKey", self.scheme.name())
    }
}

/// `KeyMismatch` for a member whose key has the length of another scheme's keys than the
/// ring's. The crate would try to decode it as a key of the ring's scheme and report the failed
/// decoding (`MalformedInput`), which hides that the keys do not belong together.
fn schemes_agree(ring: Scheme, keys: &[&[u8]]) -> PyResult<()> {
    for (i, key) in keys.iter().enumerate() {
        if let Some(other) = Scheme::of_public_key(key).filter(|&o| o != ring) {
            return Err(KeyMismatch::new_err(format!(
                "ring member {i} is a {other} public key ({} bytes), the ring is {ring}",
                key.len()
            )));
        }
    }
    Ok(())
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
    fn new(
        py: Python<'_>,
        public_keys: Vec<Bound<'_, PyAny>>,
        scheme: Option<&str>,
    ) -> PyResult<Self> {
        let named = scheme.map(self::scheme).transpose()?;
        let keys = bytes_items("public_keys", &public_keys)?;
        let keys: Vec<&[u8]> = keys.iter().map(|k| &**k).collect();
        if let Some(first) = keys.first() {
            let s = Scheme::detect(named, first).map_err(|e| err("ring member's public key", e))?;
            schemes_agree(s, &keys)?;
        }
        py.detach(|| AnyRing::from_public_keys(named, &keys))
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
        msg: BytesLike<'_>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let sig = py
            .detach(|| self.0.sign(&key.key, &msg, &mut os_rng()))
            .map_err(|e| err("ring signature", e))?;
        Ok(bytes(py, &sig))
    }

    /// Returns if `sig` is a ring signature on `msg` by a member; raises `InvalidSignature` if
    /// not, `MalformedInput` if it does not decode for this ring.
    fn verify(&self, py: Python<'_>, msg: BytesLike<'_>, sig: BytesLike<'_>) -> PyResult<()> {
        py.detach(|| self.0.verify(&msg, &sig))
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
