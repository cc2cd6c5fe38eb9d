//! `SharedKey`: the 32-byte key a KEM or AKEM agrees on, held in memory that is wiped when the
//! object goes, never shown by `repr` or `str`, compared in constant time.

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes};
use subtle::ConstantTimeEq;
use zeroize::Zeroizing;

use crate::BytesLike;

/// A 32-byte shared key. `bytes(key)` (or `key.expose()`) gives its bytes, which Python cannot
/// wipe: take them only to hand them on. It compares equal, in constant time, to another key or
/// to bytes, bytearray or memoryview contents of the same 32 bytes.
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

    /// Equal to another `SharedKey` or to bytes-like contents of the same 32 bytes, compared in
    /// constant time; `NotImplemented` for anything else, so Python falls back to identity.
    fn __eq__<'py>(&self, other: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let py = other.py();
        let equal = if let Ok(o) = other.cast::<SharedKey>() {
            self.0.ct_eq(&o.get().0[..])
        } else if let Ok(b) = BytesLike::extract(other.as_borrowed()) {
            // subtle compares slices of unequal lengths as unequal (the length is not secret).
            self.0.ct_eq(&b[..])
        } else {
            return Ok(py.NotImplemented().into_bound(py));
        };
        Ok(PyBool::new(py, bool::from(equal)).to_owned().into_any())
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
