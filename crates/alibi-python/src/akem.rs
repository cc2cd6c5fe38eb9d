//! The authenticated KEMs (alibi-akem): DH-AKEM (RFC 9180 DHKEM(X25519, HKDF-SHA256)), PQ-AKEM
//! and SHADOWFAX at every suite, in the layouts of the SHADOWFAX authors' code (the files of
//! `alibi akem`), with the receiver's deniability forgery `fake_encap`.

use alibi_akem::any::{self, PublicKey, SecretKey};
use alibi_akem::detect::{Akem, Half, Scheme};
use alibi_akem::pq::Suite;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::errors::{akem as err, KeyMismatch};
use crate::secret::{secret_repr, SharedKey};
use crate::{bytes, choose, choose_named, keygen_rng, os_rng, BytesLike};

/// The AKEMs by the CLI's `--scheme` names, with the suite a `-bat` name fixes.
const SCHEMES: [(&str, (Scheme, Option<Suite>)); 5] = [
    ("dh", (Scheme::Dh, None)),
    ("pq", (Scheme::Pq, None)),
    ("shadowfax", (Scheme::Shadowfax, None)),
    ("pq-bat", (Scheme::Pq, Some(Suite::Bat257Mitaka512))),
    (
        "shadowfax-bat",
        (Scheme::Shadowfax, Some(Suite::Bat257Mitaka512)),
    ),
];

fn suite(name: &str) -> PyResult<Suite> {
    choose_named("AKEM suite", name, &Suite::ALL, Suite::name)
}

/// The configuration `scheme` and `suite` name; without a suite, `detected` (from a key's
/// length) or else the authors' instantiation.
fn configuration(
    scheme: &str,
    suite: Option<&str>,
    detected: impl FnOnce(Scheme) -> PyResult<Akem>,
) -> PyResult<Akem> {
    let (s, fixed) = choose("AKEM", scheme, &SCHEMES)?;
    let named = suite.map(self::suite).transpose()?;
    match (s, fixed, named) {
        (Scheme::Dh, _, Some(_)) => Err(pyo3::exceptions::PyValueError::new_err(
            "a suite applies to pq and shadowfax, not dh",
        )),
        (_, Some(f), Some(n)) if f != n => Err(pyo3::exceptions::PyValueError::new_err(format!(
            "{scheme} uses the suite {}, not {}",
            f.name(),
            n.name()
        ))),
        (_, Some(f), _) | (_, None, Some(f)) => Ok(s.at(f)),
        (_, None, None) => detected(s),
    }
}

/// The names `scheme` takes: dh, pq, shadowfax, pq-bat, shadowfax-bat.
#[pyfunction]
fn akem_schemes() -> Vec<&'static str> {
    SCHEMES.iter().map(|(n, _)| *n).collect()
}

/// The names `suite` takes: mlkem512-falcon512, mlkem768-falcon1024, bat257-mitaka512.
#[pyfunction]
fn akem_suites() -> Vec<&'static str> {
    Suite::ALL.iter().map(|s| s.name()).collect()
}

/// An AKEM secret key, which also holds its public key.
#[pyclass(module = "alibi.akem", frozen)]
pub struct AkemSecretKey(SecretKey);

impl AkemSecretKey {
    /// The other party's public key, which must be of this key's configuration.
    fn peer(&self, public_key: &[u8]) -> PyResult<PublicKey> {
        let akem = self.0.akem();
        akem.check_key_len(Half::Public, public_key.len())
            .map_err(|e| KeyMismatch::new_err(e.to_string()))?;
        PublicKey::from_bytes(akem, public_key).map_err(|e| err("public key", e))
    }

    /// `how` (AuthEncap or its forgery) from this key with the other party's `public_key`.
    fn encapsulate<'py>(
        &self,
        py: Python<'py>,
        public_key: BytesLike<'_>,
        how: Encapsulation,
    ) -> PyResult<(Bound<'py, PyBytes>, SharedKey)> {
        let other = self.peer(&public_key)?;
        let (c, k) = py
            .detach(|| how(&self.0, &other, &mut os_rng()))
            .map_err(|e| err("public key", e))?;
        Ok((bytes(py, &c), SharedKey(k)))
    }
}

/// [`any::encap`] or [`any::fake_encap`], with the operating system's generator.
type Encapsulation = fn(
    &SecretKey,
    &PublicKey,
    &mut rand_core::UnwrapErr<getrandom::SysRng>,
) -> Result<(Vec<u8>, zeroize::Zeroizing<[u8; 32]>), alibi_akem::Error>;

#[pymethods]
impl AkemSecretKey {
    /// A fresh key of `scheme` (dh, pq, shadowfax, pq-bat, shadowfax-bat) at `suite` (pq and
    /// shadowfax; by default mlkem512-falcon512); with `seed` (32 bytes) the same seed gives the
    /// same key.
    #[staticmethod]
    #[pyo3(signature = (scheme="shadowfax", suite=None, seed=None))]
    fn generate(
        py: Python<'_>,
        scheme: &str,
        suite: Option<&str>,
        seed: Option<BytesLike<'_>>,
    ) -> PyResult<Self> {
        let akem = configuration(scheme, suite, |s| Ok(s.at(Suite::MlKem512Falcon512)))?;
        let mut rng = keygen_rng(seed.as_deref())?;
        Ok(AkemSecretKey(
            py.detach(|| SecretKey::generate(akem, &mut rng)),
        ))
    }

    /// Decodes a secret key of `scheme`; without `suite`, the one the key's length names.
    #[staticmethod]
    #[pyo3(signature = (scheme, data, suite=None))]
    fn from_bytes(
        py: Python<'_>,
        scheme: &str,
        data: BytesLike<'_>,
        suite: Option<&str>,
    ) -> PyResult<Self> {
        let akem = configuration(scheme, suite, |s| {
            s.detect(Half::Secret, data.len())
                .map_err(|e| crate::errors::malformed("AKEM secret key", e))
        })?;
        akem.check_key_len(Half::Secret, data.len())
            .map_err(|e| crate::errors::malformed("AKEM secret key", e))?;
        py.detach(|| SecretKey::from_bytes(akem, &data))
            .map(AkemSecretKey)
            .map_err(|e| err("AKEM secret key", e))
    }

    /// The secret key's encoding (bytes Python cannot wipe: write them to a 0600 file at once).
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        bytes(py, &self.0.to_bytes())
    }

    /// The public key's encoding.
    fn public_key<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        bytes(py, &self.0.public_key().to_bytes())
    }

    /// "dh", "pq" or "shadowfax".
    #[getter]
    fn scheme(&self) -> &'static str {
        self.0.akem().scheme().name()
    }

    /// The suite's name; None for dh.
    #[getter]
    fn suite(&self) -> Option<&'static str> {
        self.0.akem().suite().map(Suite::name)
    }

    /// AuthEncap from this key (the sender) to `receiver_public_key`: (ciphertext, shared key).
    /// `KeyMismatch` for a key of another AKEM or suite.
    fn encap<'py>(
        &self,
        py: Python<'py>,
        receiver_public_key: BytesLike<'_>,
    ) -> PyResult<(Bound<'py, PyBytes>, SharedKey)> {
        self.encapsulate(py, receiver_public_key, any::encap)
    }

    /// AuthDecap by this key (the receiver) of a ciphertext from `sender_public_key`: the
    /// shared key. pq and shadowfax raise `InvalidCiphertext` when it does not authenticate;
    /// dh authenticates implicitly (another sender or a tampered ciphertext gives another key).
    fn decap(
        &self,
        py: Python<'_>,
        sender_public_key: BytesLike<'_>,
        ct: BytesLike<'_>,
    ) -> PyResult<SharedKey> {
        let sender = self.peer(&sender_public_key)?;
        py.detach(|| any::decap(&self.0, &sender, &ct))
            .map(SharedKey)
            .map_err(|e| err("ciphertext", e))
    }

    /// Deniability: a (ciphertext, shared key) that this key (the receiver) makes alone and that
    /// `decap` accepts as sent by `sender_public_key`.
    fn fake_encap<'py>(
        &self,
        py: Python<'py>,
        sender_public_key: BytesLike<'_>,
    ) -> PyResult<(Bound<'py, PyBytes>, SharedKey)> {
        self.encapsulate(py, sender_public_key, any::fake_encap)
    }

    fn __bytes__<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        self.to_bytes(py)
    }

    fn __repr__(&self) -> String {
        let akem = self.0.akem();
        let at = akem
            .suite()
            .map_or(String::new(), |s| format!(" {}", s.name()));
        secret_repr("akem.SecretKey", &format!("{}{at}", akem.scheme().name()))
    }
}

/// Adds the class and functions to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<AkemSecretKey>()?;
    m.add_function(wrap_pyfunction!(akem_schemes, m)?)?;
    m.add_function(wrap_pyfunction!(akem_suites, m)?)
}
