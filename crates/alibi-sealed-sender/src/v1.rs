//! Sealed sender v1: `0x11 || UnidentifiedSenderMessage{ephemeralPublic, encryptedStatic,
//! encryptedMessage}`.
//!
//! * Ephemeral keys: `HKDF-SHA256(salt = "UnidentifiedDelivery" || IK_R || E, ikm = DH(E, IK_R),
//!   info = "", 96)` = chain key, cipher key, MAC key (keys in their 33-byte encodings).
//! * `encryptedStatic` = the sender's identity key under AES-256-CTR (zero IV) with a 10-byte
//!   HMAC-SHA256 tag.
//! * Static keys: `HKDF-SHA256(salt = chain key || encryptedStatic, ikm = DH(IK_S, IK_R), "", 96)`,
//!   the last 64 bytes = cipher key, MAC key; they encrypt the USMC the same way.
//!
//! The receiver checks that the identity key it decrypted is the one the sender certificate names.

use aes::cipher::{KeyIvInit, StreamCipher};
use alibi_identity::{IdentityKeyPair, KeyPair, PublicKey};
use hkdf::Hkdf;
use hmac::{Hmac, KeyInit, Mac};
use prost::Message as _;
use rand_core::CryptoRng;
use sha2::Sha256;
use subtle::ConstantTimeEq;
use zeroize::Zeroizing;

use super::UnidentifiedSenderMessageContent;
use crate::{proto, Error, Result};

/// The full version byte of a v1 message.
pub const VERSION_BYTE: u8 = 0x11;
const MAC_LEN: usize = 10;

struct Keys {
    chain: Zeroizing<[u8; 32]>,
    cipher: Zeroizing<[u8; 32]>,
    mac: Zeroizing<[u8; 32]>,
}

fn hkdf96(salt: &[u8], ikm: &[u8]) -> Keys {
    let mut okm = Zeroizing::new([0u8; 96]);
    Hkdf::<Sha256>::new(Some(salt), ikm)
        .expand(&[], &mut okm[..])
        .expect("valid HKDF length");
    let part = |r: core::ops::Range<usize>| {
        let mut k = Zeroizing::new([0u8; 32]);
        k.copy_from_slice(&okm[r]);
        k
    };
    Keys {
        chain: part(0..32),
        cipher: part(32..64),
        mac: part(64..96),
    }
}

fn ephemeral_keys(recipient: &PublicKey, ephemeral: &PublicKey, dh: &[u8]) -> Keys {
    let salt = [
        &b"UnidentifiedDelivery"[..],
        &recipient.serialize(),
        &ephemeral.serialize(),
    ]
    .concat();
    hkdf96(&salt, dh)
}

fn static_keys(chain: &[u8; 32], encrypted_static: &[u8], dh: &[u8]) -> Keys {
    hkdf96(&[&chain[..], encrypted_static].concat(), dh)
}

fn ctr(key: &[u8; 32], data: &mut [u8]) {
    ctr::Ctr32BE::<aes::Aes256>::new(key.into(), &[0u8; 16].into()).apply_keystream(data);
}

fn tag(key: &[u8; 32], data: &[u8]) -> [u8; 32] {
    let mut m = Hmac::<Sha256>::new_from_slice(key).expect("any key length");
    m.update(data);
    m.finalize().into_bytes().into()
}

/// AES-256-CTR then a 10-byte HMAC-SHA256 tag (libsignal `crypto.rs`).
pub(crate) fn seal(plaintext: &[u8], cipher: &[u8; 32], mac: &[u8; 32]) -> Vec<u8> {
    let mut out = plaintext.to_vec();
    ctr(cipher, &mut out);
    let t = tag(mac, &out);
    out.extend_from_slice(&t[..MAC_LEN]);
    out
}

/// The inverse of [`seal`]; the tag is checked first, in constant time.
pub(crate) fn open(sealed: &[u8], cipher: &[u8; 32], mac: &[u8; 32]) -> Option<Vec<u8>> {
    let split = sealed.len().checked_sub(MAC_LEN)?;
    let (ct, theirs) = sealed.split_at(split);
    if !bool::from(tag(mac, ct)[..MAC_LEN].ct_eq(theirs)) {
        return None;
    }
    let mut out = ct.to_vec();
    ctr(cipher, &mut out);
    Some(out)
}

/// Seals `usmc` from `ours` to the identity key `recipient`.
pub fn encrypt<R: CryptoRng + ?Sized>(
    usmc: &UnidentifiedSenderMessageContent,
    ours: &IdentityKeyPair,
    recipient: &PublicKey,
    rng: &mut R,
) -> Vec<u8> {
    let e = KeyPair::generate(rng);
    let eph = ephemeral_keys(recipient, &e.public, &e.private.agree(recipient)[..]);
    let encrypted_static = seal(&ours.identity.serialize(), &eph.cipher, &eph.mac);
    let st = static_keys(
        &eph.chain,
        &encrypted_static,
        &ours.private.agree(recipient)[..],
    );
    let encrypted_message = seal(usmc.serialized(), &st.cipher, &st.mac);
    let mut out = vec![VERSION_BYTE];
    proto::UnidentifiedSenderMessage {
        ephemeral_public: Some(e.public.serialize().to_vec()),
        encrypted_static: Some(encrypted_static),
        encrypted_message: Some(encrypted_message),
    }
    .encode(&mut out)
    .expect("Vec grows");
    out
}

/// Opens a v1 message addressed to `ours`.
pub fn decrypt_to_usmc(
    b: &[u8],
    ours: &IdentityKeyPair,
) -> Result<UnidentifiedSenderMessageContent> {
    const BAD: Error = Error::Malformed("sealed sender v1 message");
    let pb: proto::UnidentifiedSenderMessage =
        proto::decode(b.get(1..).ok_or(BAD)?, "sealed sender v1")?;
    let e = PublicKey::deserialize(&pb.ephemeral_public.ok_or(BAD)?)?;
    let encrypted_static = pb.encrypted_static.ok_or(BAD)?;
    let encrypted_message = pb.encrypted_message.ok_or(BAD)?;
    let eph = ephemeral_keys(&ours.identity.0, &e, &ours.private.agree(&e)[..]);
    let sender = open(&encrypted_static, &eph.cipher, &eph.mac)
        .ok_or(Error::SealedSender("sender key does not authenticate"))?;
    let sender = PublicKey::deserialize(&sender)?;
    let st = static_keys(
        &eph.chain,
        &encrypted_static,
        &ours.private.agree(&sender)[..],
    );
    let usmc = open(&encrypted_message, &st.cipher, &st.mac)
        .ok_or(Error::SealedSender("content does not authenticate"))?;
    let usmc = UnidentifiedSenderMessageContent::deserialize(&usmc)?;
    if !usmc.sender.key_is(&sender) {
        return Err(Error::SealedSender("sender certificate key does not match"));
    }
    Ok(usmc)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// libsignal's AES-CTR known answer (`rust/protocol/src/crypto.rs` tests): the FIPS key with a
    /// zero nonce over 35 zero bytes.
    #[test]
    fn aes_ctr_vector() {
        let key: [u8; 32] = (0..32)
            .map(|i| {
                u8::from_str_radix(
                    &"603DEB1015CA71BE2B73AEF0857D77811F352C073B6108D72D9810A30914DFF4"
                        [2 * i..2 * i + 2],
                    16,
                )
                .unwrap()
            })
            .collect::<Vec<_>>()
            .try_into()
            .unwrap();
        let mut data = [0u8; 35];
        ctr(&key, &mut data);
        let hex: String = data.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(
            hex,
            "e568f68194cf76d6174d4cc04310a85491151e5d0b7a1f1bc0d7acd0ae3e51e4170e23"
        );
    }

    #[test]
    fn seal_open() {
        let (c, m) = ([1u8; 32], [2u8; 32]);
        let s = seal(b"hello", &c, &m);
        assert_eq!(s.len(), 5 + MAC_LEN);
        assert_eq!(open(&s, &c, &m).unwrap(), b"hello");
        let mut bad = s.clone();
        bad[0] ^= 1;
        assert!(open(&bad, &c, &m).is_none());
        assert!(open(&s[..9], &c, &m).is_none());
    }
}
