//! HKDF-SHA256 with a 32-byte zero salt unless given, as every SPQR derivation uses.

use hkdf::Hkdf;
use sha2::Sha256;

/// `HKDF-SHA256(salt, ikm, info)` filling `out`.
pub(crate) fn hkdf(salt: &[u8], ikm: &[u8], info: &[&[u8]], out: &mut [u8]) {
    let info = info.concat();
    Hkdf::<Sha256>::new(Some(salt), ikm)
        .expand(&info, out)
        .expect("SPQR's output lengths are far below HKDF-SHA256's limit");
}

/// The zero salt of SPQR's derivations (one hash length of zeros).
pub(crate) const ZERO_SALT: [u8; 32] = [0u8; 32];
