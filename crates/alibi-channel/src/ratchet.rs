//! The Double Ratchet's key schedule as libsignal computes it (Signal's Double Ratchet
//! specification, section 5.2, with libsignal's info strings and lengths).
//!
//! * Root step: `HKDF-SHA256(salt = RK, ikm = DH(ours, theirs), "WhisperRatchet", 64)` gives the
//!   next root key and a chain key.
//! * Chain step: `CK' = HMAC-SHA256(CK, 0x02)`; a message's seed is `HMAC-SHA256(CK, 0x01)`.
//! * Message keys: `HKDF-SHA256(salt, seed, "WhisperMessageKeys", 80)`: AES key 32, MAC key 32,
//!   IV 16. The salt is the message's SPQR key when SPQR gives one (the triple ratchet), else
//!   none. Messages are AES-256-CBC with PKCS#7 padding.

use aes::cipher::{block_padding::Pkcs7, BlockModeDecrypt, BlockModeEncrypt, KeyIvInit};
use alibi_identity::{PrivateKey, PublicKey};
use hkdf::Hkdf;
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;
use zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

type HmacSha256 = Hmac<Sha256>;

/// A root key.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct RootKey(pub [u8; 32]);

impl RootKey {
    /// One DH ratchet step: the next root key and the new chain's key.
    pub fn create_chain(&self, theirs: &PublicKey, ours: &PrivateKey) -> (RootKey, ChainKey) {
        let dh = ours.agree(theirs);
        let mut okm = Zeroizing::new([0u8; 64]);
        Hkdf::<Sha256>::new(Some(&self.0), &dh[..])
            .expand(b"WhisperRatchet", &mut okm[..])
            .expect("valid HKDF length");
        let mut rk = [0u8; 32];
        let mut ck = [0u8; 32];
        rk.copy_from_slice(&okm[..32]);
        ck.copy_from_slice(&okm[32..]);
        (RootKey(rk), ChainKey { key: ck, index: 0 })
    }
}

/// A chain key and its position on the chain.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct ChainKey {
    /// The 32-byte key.
    pub key: [u8; 32],
    /// How many steps from the chain's start.
    pub index: u32,
}

impl ChainKey {
    fn hmac(&self, byte: u8) -> [u8; 32] {
        let mut m = HmacSha256::new_from_slice(&self.key).expect("any key length");
        m.update(&[byte]);
        m.finalize().into_bytes().into()
    }

    /// The next chain key (`HMAC(CK, 0x02)`).
    pub fn next(&self) -> ChainKey {
        ChainKey {
            key: self.hmac(0x02),
            index: self.index + 1,
        }
    }

    /// The message seed at this position, `HMAC(CK, 0x01)`.
    pub fn seed(&self) -> Zeroizing<[u8; 32]> {
        Zeroizing::new(self.hmac(0x01))
    }

    /// The message keys at this position, without an SPQR key.
    pub fn message_keys(&self) -> MessageKeys {
        MessageKeys::derive(&self.seed()[..], None, self.index)
    }
}

/// The keys of one message.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct MessageKeys {
    /// AES-256 key.
    pub cipher_key: [u8; 32],
    /// HMAC-SHA256 key.
    pub mac_key: [u8; 32],
    /// CBC IV.
    pub iv: [u8; 16],
    /// The message's counter.
    pub counter: u32,
}

impl MessageKeys {
    /// Derives the keys from a message seed, salted with the message's SPQR key if it has one.
    pub fn derive(seed: &[u8], spqr_key: Option<&[u8; 32]>, counter: u32) -> Self {
        let mut okm = Zeroizing::new([0u8; 80]);
        Hkdf::<Sha256>::new(spqr_key.map(|k| &k[..]), seed)
            .expand(b"WhisperMessageKeys", &mut okm[..])
            .expect("valid HKDF length");
        let mut k = MessageKeys {
            cipher_key: [0; 32],
            mac_key: [0; 32],
            iv: [0; 16],
            counter,
        };
        k.cipher_key.copy_from_slice(&okm[..32]);
        k.mac_key.copy_from_slice(&okm[32..64]);
        k.iv.copy_from_slice(&okm[64..]);
        k
    }

    /// AES-256-CBC with PKCS#7 padding.
    pub fn encrypt(&self, plaintext: &[u8]) -> Vec<u8> {
        cbc::Encryptor::<aes::Aes256>::new(&self.cipher_key.into(), &self.iv.into())
            .encrypt_padded_vec::<Pkcs7>(plaintext)
    }

    /// The inverse of [`MessageKeys::encrypt`]; `None` on bad length or padding.
    pub fn decrypt(&self, ciphertext: &[u8]) -> Option<Vec<u8>> {
        cbc::Decryptor::<aes::Aes256>::new(&self.cipher_key.into(), &self.iv.into())
            .decrypt_padded_vec::<Pkcs7>(ciphertext)
            .ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(s: &str) -> [u8; 32] {
        hex::decode(s).unwrap().try_into().unwrap()
    }

    /// libsignal's chain-key known answer (`rust/protocol/src/ratchet/keys.rs` tests).
    #[test]
    fn libsignal_chain_key_vector() {
        let ck = ChainKey {
            key: h("8ab72d6f4cc5ac0d387eaf463378ddb28edd07385b1cb01250c715982e7ad48f"),
            index: 0,
        };
        let mk = ck.message_keys();
        assert_eq!(
            mk.cipher_key,
            h("bf51e9d75e0e31031051f82a2491ffc084fa298b7793bd9db620056febf45217")
        );
        assert_eq!(
            mk.mac_key,
            h("c6c77d6a73a354337a56435e34607dfe48e3ace14e77314dc6abc172e7a7030b")
        );
        let next = ck.next();
        assert_eq!(
            next.key,
            h("28e8f8fee54b801eef7c5cfb2f17f32c7b334485bbb70fac6ec10342a246d15d")
        );
        assert_eq!(next.index, 1);
        assert_eq!(next.message_keys().counter, 1);
    }

    #[test]
    fn cbc_roundtrip_and_bad_padding() {
        let k = MessageKeys::derive(&[7; 32], None, 0);
        for n in [0usize, 1, 15, 16, 17, 100] {
            let pt = vec![0xAB; n];
            let ct = k.encrypt(&pt);
            assert_eq!(ct.len(), (n / 16 + 1) * 16);
            assert_eq!(k.decrypt(&ct).unwrap(), pt);
        }
        assert!(k.decrypt(&[0; 15]).is_none());
        let mut ct = k.encrypt(b"x");
        ct[15] ^= 0xFF;
        assert!(k.decrypt(&ct).is_none());
    }
}
