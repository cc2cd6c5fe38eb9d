//! Errors of the Falcon crate.

/// Everything that can go wrong when decoding or verifying.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// An input has the wrong length.
    #[error(transparent)]
    Length(#[from] alibi_encoding::LengthError),
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

/// The length check, written once in `alibi-encoding`.
impl alibi_encoding::LengthChecked for Error {}
