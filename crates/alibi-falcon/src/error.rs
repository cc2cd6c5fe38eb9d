//! Errors of the Falcon crate.

/// Everything that can go wrong when decoding or verifying.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The input has the wrong length for its level.
    #[error("{what}: expected {expected} bytes, got {got}")]
    Length {
        /// What was being decoded.
        what: &'static str,
        /// The length the header announces (or the smallest possible).
        expected: usize,
        /// The length received.
        got: usize,
    },
    /// The header byte names no known object or level.
    #[error("unknown header byte 0x{0:02x}")]
    Header(u8),
    /// A coefficient lies outside its encodable range (>= q, or the forbidden -2^(bits-1)).
    #[error("coefficient out of range")]
    CoefficientRange,
    /// The compressed signature body is malformed (overlong run, "-0", non-zero padding, too short).
    #[error("malformed compressed signature")]
    Compression,
    /// Bytes follow the complete compressed body.
    #[error("trailing bytes after the signature")]
    TrailingBytes,
    /// The secret key decodes but is unusable: f is not invertible mod q, or G does not fit.
    #[error("inconsistent secret key")]
    InvalidSecretKey,
    /// Key and signature (or target) belong to different levels or degrees.
    #[error("level mismatch")]
    LevelMismatch,
    /// The signature does not verify.
    #[error("invalid signature")]
    InvalidSignature,
}

impl Error {
    /// The one length error: `what` should be `expected` bytes long and is `got`.
    pub fn length(what: &'static str, expected: usize, got: usize) -> Self {
        Error::Length {
            what,
            expected,
            got,
        }
    }

    /// The one length check: `Ok` when `got == expected`, [`Error::Length`] otherwise.
    pub fn check_len(what: &'static str, expected: usize, got: usize) -> Result<(), Self> {
        if got == expected {
            Ok(())
        } else {
            Err(Self::length(what, expected, got))
        }
    }
}
