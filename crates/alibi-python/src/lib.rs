//! # alibi-python
//!
//! The native half of the Python package `alibi` (bindings/python): each scheme crate's
//! `generate` / `from_bytes` / `to_bytes` / `sign` / `verify` as Python classes and functions,
//! bytes in and bytes out in the encodings of the `alibi` command's files, errors as the
//! exceptions under `alibi.Error`. The pure-Python modules (`alibi.falcon`, `alibi.ring`, ...)
//! re-export these under short names; `_native.pyi` types them.
//!
//! Every operation that costs more than microseconds runs with the interpreter detached
//! (`Python::detach`), so threads of one process sign and verify in parallel.

#![deny(missing_docs)]
#![deny(clippy::unwrap_used)]

mod akem;
mod bat;
mod bls;
mod dgsp;
mod errors;
mod falcon;
mod mayo;
mod ring;
mod secret;
mod tachyon;
mod threshold;

use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyByteArrayMethods, PyBytes, PyMemoryView};
use rand_chacha::ChaCha20Rng;
use rand_core::{SeedableRng, UnwrapErr};
use zeroize::Zeroizing;

pub use errors::{
    Error, GroupError, InvalidCiphertext, InvalidOpening, InvalidSignature, KeyMismatch,
    MalformedInput, Revoked, StoreError,
};

/// The operating system's generator, for every draw a caller does not seed.
pub(crate) fn os_rng() -> UnwrapErr<getrandom::SysRng> {
    UnwrapErr(getrandom::SysRng)
}

/// A bytes argument: `bytes`, `bytearray` or a `memoryview`. PyO3's `PyBuffer` is not in the
/// limited API of abi3-py39, so the two mutable kinds are copied.
pub(crate) enum BytesLike<'a> {
    /// A `bytes` object's own memory: it is immutable, so no copy is needed, also while the
    /// interpreter is detached (the argument holds a reference for the call).
    Borrowed(&'a [u8]),
    /// A copy of a `bytearray` or `memoryview`, wiped when dropped since the argument may be a
    /// secret key or seed.
    Copied(Zeroizing<Vec<u8>>),
}

impl core::ops::Deref for BytesLike<'_> {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            BytesLike::Borrowed(b) => b,
            BytesLike::Copied(v) => v,
        }
    }
}

impl<'a, 'py> FromPyObject<'a, 'py> for BytesLike<'a> {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        if let Ok(b) = <&'a [u8]>::extract(obj) {
            return Ok(BytesLike::Borrowed(b));
        }
        if let Ok(a) = obj.cast::<PyByteArray>() {
            return Ok(BytesLike::Copied(Zeroizing::new(a.to_vec())));
        }
        if let Ok(m) = obj.cast::<PyMemoryView>() {
            // `tobytes` makes a contiguous copy whatever the view's layout; that intermediate
            // `bytes` is Python's and cannot be wiped, the copy taken here is.
            let b = m.call_method0("tobytes")?;
            let b = b.cast::<PyBytes>()?;
            return Ok(BytesLike::Copied(Zeroizing::new(b.as_bytes().to_vec())));
        }
        // Not `bytes(obj)`: that would turn an int n into n zero bytes and a str into an error
        // about encodings.
        Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "expected bytes, bytearray or memoryview, got {}",
            obj.get_type().name()?
        )))
    }
}

/// Each item of a sequence of bytes arguments (a ring's public keys), with the index of the
/// one that is not bytes-like in the error.
pub(crate) fn bytes_items<'a>(
    what: &str,
    items: &'a [Bound<'_, PyAny>],
) -> PyResult<Vec<BytesLike<'a>>> {
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            BytesLike::extract(item.as_borrowed()).map_err(|e| {
                let py = item.py();
                if e.is_instance_of::<pyo3::exceptions::PyTypeError>(py) {
                    pyo3::exceptions::PyTypeError::new_err(format!("{what}[{i}]: {}", e.value(py)))
                } else {
                    e
                }
            })
        })
        .collect()
}

/// A 32-byte seed, if given; `ValueError` for another length.
pub(crate) fn seed32(seed: Option<&[u8]>) -> PyResult<Option<[u8; 32]>> {
    seed.map(|s| {
        s.try_into().map_err(|_| {
            pyo3::exceptions::PyValueError::new_err(format!(
                "seed: 32 bytes expected, got {}",
                s.len()
            ))
        })
    })
    .transpose()
}

/// The generator of a key generation: ChaCha20 from `seed` (32 bytes) when given, so that the
/// same seed gives the same key in this version, else from the operating system.
pub(crate) fn keygen_rng(seed: Option<&[u8]>) -> PyResult<ChaCha20Rng> {
    Ok(match seed32(seed)? {
        Some(s) => ChaCha20Rng::from_seed(s),
        None => ChaCha20Rng::from_rng(&mut os_rng()),
    })
}

/// `bytes` from a Rust byte slice (a `Vec<u8>` would become a list of ints).
pub(crate) fn bytes<'py>(py: Python<'py>, b: &[u8]) -> Bound<'py, PyBytes> {
    PyBytes::new(py, b)
}

/// A name from a fixed list, or `ValueError` naming the choices.
pub(crate) fn choose<T: Copy>(what: &str, name: &str, all: &[(&str, T)]) -> PyResult<T> {
    all.iter()
        .find(|(n, _)| *n == name)
        .map(|&(_, v)| v)
        .ok_or_else(|| {
            let names: Vec<&str> = all.iter().map(|(n, _)| *n).collect();
            pyo3::exceptions::PyValueError::new_err(format!(
                "no {what} is named {name:?} (one of: {})",
                names.join(", ")
            ))
        })
}

/// [`choose`] among values that carry their own names (a crate's `ALL` and `name`).
pub(crate) fn choose_named<T: Copy>(
    what: &str,
    name: &str,
    all: &[T],
    name_of: impl Fn(T) -> &'static str,
) -> PyResult<T> {
    let named: Vec<(&str, T)> = all.iter().map(|&v| (name_of(v), v)).collect();
    choose(what, name, &named)
}

/// The module `alibi._native`.
#[pymodule]
#[pyo3(name = "_native")]
fn native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::register(m)?;
    secret::register(m)?;
    falcon::register(m)?;
    ring::register(m)?;
    akem::register(m)?;
    bat::register(m)?;
    mayo::register(m)?;
    tachyon::register(m)?;
    dgsp::register(m)?;
    bls::register(m)?;
    threshold::register(m)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
