//! `SharedKey`: the 32-byte key a KEM or AKEM agrees on, held in memory that is wiped when the
//! object goes, never shown by `repr` or `str`, compared in constant time.

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use subtle::ConstantTimeEq;
use zeroize::Zeroizing;

/// A 32-byte shared key. `bytes(key)` (or `key.expose()`) gives its bytes, which Python cannot
/// wipe: take them only to hand them on. Two keys compare equal in constant time.
#[pyclass(module = "alibi", frozen)]
pub struct SharedKey(pub Zeroizing<[u8; 32]>);

#[pymethods]
impl SharedKey {
    /// The key's 32 bytes.
    fn expose<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.0[..])
    }

    fn __bytes__<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        self.expose(py)
    }

    fn __len__(&self) -> usize {
        32
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<SharedKey>()
            .is_ok_and(|o| bool::from(self.0.ct_eq(&o.get().0[..])))
    }

    fn __hash__(&self) -> PyResult<isize> {
        Err(pyo3::exceptions::PyTypeError::new_err(
            "a SharedKey is not hashable (its hash would leak it)",
        ))
    }

    fn __repr__(&self) -> &'static str {
        "<alibi.SharedKey (32 bytes, secret)>"
    }
}

/// The `repr` of a secret key object: its kind, never its bytes.
pub fn secret_repr(kind: &str, params: &str) -> String {
    format!("<alibi {kind} ({params}, secret)>")
}

/// Adds the class to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<SharedKey>()
}
