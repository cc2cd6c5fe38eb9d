//! Unidentified access (sealed-sender delivery without the sender's credentials): each account
//! publishes a 16-byte access key derived from its profile key; a sealed 1:1 send presents the
//! recipient's key, and a multi-recipient send the XOR of all its recipients' keys
//! (`../shared/specs/signal-stack.md`, section 4). Both sides of the relay use it.

use aes::cipher::{BlockCipherEncrypt, KeyInit};

/// An unidentified-access key.
pub type AccessKey = [u8; 16];

/// The HTTP header that carries an access key (standard base64).
pub const HEADER: &str = "Unidentified-Access-Key";

/// The access key of a 32-byte profile key, as Signal derives it: the first 16 bytes of
/// AES-256-GCM with the profile key, a zero nonce and 16 zero bytes of plaintext. GCM's first
/// keystream block is counter 2, so this is one AES block encryption of `0^15 || 2`.
pub fn derive_access_key(profile_key: &[u8; 32]) -> AccessKey {
    let aes = aes::Aes256::new(&(*profile_key).into());
    let mut bytes = [0u8; 16];
    bytes[15] = 2;
    let mut block = bytes.into();
    aes.encrypt_block(&mut block);
    block.into()
}

/// The key a multi-recipient send presents: the XOR of its recipients' keys.
pub fn combine<'a>(keys: impl IntoIterator<Item = &'a AccessKey>) -> AccessKey {
    keys.into_iter().fold([0u8; 16], |mut acc, k| {
        acc.iter_mut().zip(k).for_each(|(a, b)| *a ^= b);
        acc
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// libsignal's own check (`testDeriveProfileKey` in its zkgroup tests): profile key 0x02 x 32.
    #[test]
    fn derive_matches_libsignal() {
        let k = derive_access_key(&[2u8; 32]);
        assert_eq!(
            k,
            [
                0x5a, 0x72, 0x3a, 0xce, 0xe5, 0x2c, 0x5e, 0xa0, 0x2b, 0x92, 0xa3, 0xa3, 0x60, 0xc0,
                0x95, 0x95
            ]
        );
    }

    #[test]
    fn combine_is_xor() {
        let (a, b) = ([0x0F; 16], [0xF1; 16]);
        assert_eq!(combine([&a, &b]), [0xFE; 16]);
        assert_eq!(combine([&a, &b, &b]), a);
        assert_eq!(combine([]), [0; 16]);
    }
}
