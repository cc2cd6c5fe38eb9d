//! # alibi-encoding
//!
//! The one length check of the workspace. Every decoder of untrusted bytes (keys, signatures,
//! ciphertexts, messages) first checks that its input has the length its parameter set fixes;
//! each scheme crate's error type wraps [`LengthError`] and implements [`LengthChecked`], so the
//! check and its message ("Falcon public key: expected 897 bytes, got 12") are written once.
//!
//! ```
//! use alibi_encoding::{LengthChecked, LengthError};
//!
//! #[derive(Debug, PartialEq)]
//! enum Error {
//!     Length(LengthError),
//! }
//! impl From<LengthError> for Error {
//!     fn from(e: LengthError) -> Self {
//!         Error::Length(e)
//!     }
//! }
//! impl LengthChecked for Error {}
//!
//! assert!(Error::check_len("tag", 32, 32).is_ok());
//! assert_eq!(
//!     Error::check_len("tag", 32, 31),
//!     Err(Error::Length(LengthError { what: "tag", expected: 32, got: 31 }))
//! );
//! ```

#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![cfg_attr(not(test), deny(clippy::unwrap_used))]

/// An input of the wrong length: `what` should be `expected` bytes long and is `got`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("{what}: expected {expected} bytes, got {got}")]
pub struct LengthError {
    /// What was being decoded.
    pub what: &'static str,
    /// The length its parameter set fixes.
    pub expected: usize,
    /// The length received.
    pub got: usize,
}

/// The length error and check, for an error type that wraps [`LengthError`].
pub trait LengthChecked: From<LengthError> {
    /// The error for `what`, which should be `expected` bytes long and is `got`.
    fn length(what: &'static str, expected: usize, got: usize) -> Self {
        Self::from(LengthError {
            what,
            expected,
            got,
        })
    }

    /// `Ok` when `got == expected`, the length error otherwise.
    fn check_len(what: &'static str, expected: usize, got: usize) -> Result<(), Self> {
        if got == expected {
            Ok(())
        } else {
            Err(Self::length(what, expected, got))
        }
    }
}

/// The fixed-size array of a slice whose length must be `N`.
pub fn array<const N: usize>(what: &'static str, b: &[u8]) -> Result<[u8; N], LengthError> {
    b.try_into().map_err(|_| LengthError {
        what,
        expected: N,
        got: b.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrays() {
        assert_eq!(array::<3>("x", &[1, 2, 3]), Ok([1, 2, 3]));
        assert_eq!(
            array::<3>("x", &[1, 2]),
            Err(LengthError {
                what: "x",
                expected: 3,
                got: 2
            })
        );
    }
}
