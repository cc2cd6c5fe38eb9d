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

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use rand_chacha::ChaCha20Rng;
use rand_core::{SeedableRng, UnwrapErr};

pub use errors::{
    Error, GroupError, InvalidCiphertext, InvalidOpening, InvalidSignature, KeyMismatch,
    MalformedInput, Revoked, StoreError,
};

/// The operating system's generator, for every draw a caller does not seed.
pub(crate) fn os_rng() -> UnwrapErr<getrandom::SysRng> {
    UnwrapErr(getrandom::SysRng)
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
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
