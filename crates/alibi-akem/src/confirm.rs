//! Explicit key confirmation for any of the AKEMs.
//!
//! DH-AKEM authenticates only implicitly: decapsulation with the wrong sender key, or of a
//! tampered ciphertext, succeeds and yields a different key, and only a later use of the key
//! shows the mismatch. A sender who wants the receiver to know at once sends a confirmation tag
//! beside the ciphertext; the receiver recomputes it from its own key and rejects on a mismatch.
//! The tag is HM(K, label || c) (the artifact's keyed SHA3-256, [`crate::primitives::hm`]): a PRF
//! of the shared key under a label nothing else uses, so it reveals nothing about K, and it binds
//! the ciphertext it came with. PQ-AKEM and SHADOWFAX need no tag (their ring signature rejects a
//! wrong sender), but it works for them too.

use subtle::ConstantTimeEq;

use crate::primitives::hm;
use crate::Error;
use alibi_encoding::LengthChecked;

/// Length of a confirmation tag.
pub const TAG_LEN: usize = 32;

/// The label that separates confirmation tags from every other use of the shared key.
const LABEL: &[u8] = b"alibi AKEM key confirmation v1";

/// The sender's tag for shared key `key` and ciphertext `ciphertext`.
pub fn tag(key: &[u8; 32], ciphertext: &[u8]) -> [u8; TAG_LEN] {
    hm(key, &[LABEL, ciphertext])
}

/// The receiver's check of a tag against the key it decapsulated: [`Error::InvalidCiphertext`]
/// unless the tag matches, compared in constant time (`subtle`).
pub fn verify(key: &[u8; 32], ciphertext: &[u8], received: &[u8]) -> Result<(), Error> {
    Error::check_len("confirmation tag", TAG_LEN, received.len())?;
    if bool::from(tag(key, ciphertext).ct_eq(received)) {
        Ok(())
    } else {
        Err(Error::InvalidCiphertext)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tag_binds_key_and_ciphertext() {
        let (k, c) = ([7u8; 32], b"ciphertext");
        let t = tag(&k, c);
        assert!(verify(&k, c, &t).is_ok());
        assert_eq!(verify(&[8u8; 32], c, &t), Err(Error::InvalidCiphertext));
        assert_eq!(verify(&k, b"ciphertexT", &t), Err(Error::InvalidCiphertext));
        let mut bad = t;
        bad[31] ^= 1;
        assert_eq!(verify(&k, c, &bad), Err(Error::InvalidCiphertext));
        assert!(matches!(verify(&k, c, &t[..31]), Err(Error::Length(_))));
    }
}
