//! The exceptions under `alibi.Error`, and each scheme crate's errors mapped onto them: a failed
//! check raises (never a `False`), bytes that do not decode raise `MalformedInput`, and an
//! unknown parameter name raises Python's own `ValueError`.

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

create_exception!(
    alibi,
    Error,
    PyException,
    "Every error alibi raises on its own (bad argument values raise ValueError)."
);
create_exception!(
    alibi,
    MalformedInput,
    Error,
    "Bytes that do not decode as what they were given as: a key, signature or ciphertext of the wrong length or encoding."
);
create_exception!(
    alibi,
    InvalidSignature,
    Error,
    "A signature (plain, ring, group or BLS) that does not verify."
);
create_exception!(
    alibi,
    Revoked,
    InvalidSignature,
    "A DGSP group signature by a member the manager revoked."
);
create_exception!(
    alibi,
    InvalidCiphertext,
    Error,
    "An AKEM or KEM ciphertext that does not authenticate or decapsulate."
);
create_exception!(
    alibi,
    KeyMismatch,
    Error,
    "Keys that do not belong together: two schemes, suites or levels, or a signer outside the ring."
);
create_exception!(
    alibi,
    InvalidOpening,
    Error,
    "A DGSP opening whose proof does not show that the member signed."
);
create_exception!(
    alibi,
    GroupError,
    Error,
    "A DGSP manager or member refusing a step: a taken username, an unknown or revoked member, no one-time key left, a key used already."
);
create_exception!(
    alibi,
    StoreError,
    Error,
    "A DGSP manager's directory or members database that cannot be used (missing, busy, or damaged)."
);

/// Adds the exception classes to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("Error", py.get_type::<Error>())?;
    m.add("MalformedInput", py.get_type::<MalformedInput>())?;
    m.add("InvalidSignature", py.get_type::<InvalidSignature>())?;
    m.add("Revoked", py.get_type::<Revoked>())?;
    m.add("InvalidCiphertext", py.get_type::<InvalidCiphertext>())?;
    m.add("KeyMismatch", py.get_type::<KeyMismatch>())?;
    m.add("InvalidOpening", py.get_type::<InvalidOpening>())?;
    m.add("GroupError", py.get_type::<GroupError>())?;
    m.add("StoreError", py.get_type::<StoreError>())?;
    Ok(())
}

/// `MalformedInput` for what failed to decode, with the crate's reason.
pub fn malformed(what: &str, e: impl core::fmt::Display) -> PyErr {
    MalformedInput::new_err(format!("{what}: {e}"))
}

/// Falcon's errors.
pub fn falcon(what: &str, e: alibi_falcon::Error) -> PyErr {
    use alibi_falcon::Error as E;
    match e {
        E::InvalidSignature => InvalidSignature::new_err("invalid Falcon signature"),
        E::LevelMismatch => KeyMismatch::new_err(format!("{what}: level mismatch")),
        e => malformed(what, e),
    }
}

/// The ring signatures' errors.
pub fn ring(what: &str, e: alibi_ringsig::Error) -> PyErr {
    use alibi_ringsig::Error as E;
    match e {
        E::InvalidSignature => InvalidSignature::new_err("invalid ring signature"),
        E::SignerNotInRing
        | E::TrapdoorMismatch(..)
        | E::SchemeMismatch { .. }
        | E::MixedLevels
        | E::MixedParams => KeyMismatch::new_err(e.to_string()),
        E::DuplicateMember(_) | E::RingTooSmall(_) | E::RingTooLarge(_) => {
            pyo3::exceptions::PyValueError::new_err(e.to_string())
        }
        e => malformed(what, e),
    }
}

/// The AKEMs' errors.
pub fn akem(what: &str, e: alibi_akem::Error) -> PyErr {
    use alibi_akem::Error as E;
    match e {
        E::InvalidCiphertext | E::InvalidSignature => {
            InvalidCiphertext::new_err("the ciphertext does not authenticate as the sender's")
        }
        E::SuiteMismatch | E::SchemeMismatch => KeyMismatch::new_err(e.to_string()),
        // PQ-AKEM (and SHADOWFAX through it) signs for the ring {sender, receiver}: a duplicate
        // member there is one party on both ends, a bad argument like a ring with a member twice.
        E::Ring(alibi_ringsig::Error::DuplicateMember(_)) => {
            pyo3::exceptions::PyValueError::new_err(
                "the sender and the receiver are the same key: pq and shadowfax authenticate the \
                 sender to another party, so a key cannot encapsulate to (or decapsulate from) \
                 itself",
            )
        }
        e => malformed(what, e),
    }
}

/// MAYO's errors.
pub fn mayo(what: &str, e: alibi_mayo::Error) -> PyErr {
    match e {
        alibi_mayo::Error::InvalidSignature => InvalidSignature::new_err("invalid MAYO signature"),
        e => malformed(what, e),
    }
}

/// TACHYON's errors.
pub fn tachyon(what: &str, e: alibi_tachyon::Error) -> PyErr {
    match e {
        alibi_tachyon::Error::InvalidSignature => {
            InvalidSignature::new_err("invalid TACHYON signature")
        }
        e => malformed(what, e),
    }
}

/// DGSP's errors.
pub fn dgsp(what: &str, e: alibi_dgsp::Error) -> PyErr {
    use alibi_dgsp::Error as E;
    match e {
        E::InvalidSignature | E::InvalidSpxSignature => {
            InvalidSignature::new_err("invalid group signature")
        }
        E::Revoked => Revoked::new_err("the signer is revoked"),
        E::WrongOpening => InvalidOpening::new_err(e.to_string()),
        E::UnknownId(_)
        | E::UsernameTaken
        | E::BadUsername
        | E::CounterExhausted
        | E::BadCid
        | E::InvalidCertificate
        | E::OneTimeKeyUsed { .. }
        | E::NoPendingKey
        | E::NoCertificate
        | E::OtherMember { .. } => GroupError::new_err(e.to_string()),
        E::Storage(_) | E::Busy(_) => StoreError::new_err(e.to_string()),
        e => malformed(what, e),
    }
}
