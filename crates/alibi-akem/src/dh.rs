//! DH-AKEM over X25519 in two forms, each with `encap(sender, receiver_pk, rng)` and
//! `decap(receiver, sender_pk, c)` as [`crate::pq`] and [`crate::shadowfax`] have them:
//! * [`rfc9180`]: DHKEM(X25519, HKDF-SHA256), where [`rfc9180::encap`] / [`rfc9180::decap`] are
//!   RFC 9180 §4.1's AuthEncap / AuthDecap;
//! * [`artifact`]: the SHADOWFAX artifact's HPKE-shaped variant, one SHA3-256 over labelled parts.
//!
//! Keys are raw 32-byte X25519 scalars (unclamped as stored; clamped inside X25519) and
//! u-coordinates, as RFC 7748 encodes them; a ciphertext is the ephemeral u-coordinate.
//! [`SecretKey`] is the workspace's one X25519 key type (crate `alibi-x25519`): `alibi-identity`'s
//! `PrivateKey` / `PublicKey` are libsignal's encoding (clamped scalar, `0x05 || u`) and XEdDSA on
//! top of it.

use rand_core::CryptoRng;
use zeroize::Zeroizing;

use crate::primitives::x25519_batch;
use crate::Error;

/// Length of keys, ciphertexts (the ephemeral public key) and shared keys.
pub const LEN: usize = 32;

/// A DH-AKEM public key: the X25519 u-coordinate as RFC 7748 encodes it. Every 32 bytes are one,
/// so it needs no decoding; a low-order point is refused where it is used
/// ([`Error::LowOrderPoint`]).
pub type PublicKey = [u8; LEN];

/// A DH-AKEM secret key: an X25519 scalar with its public key. It is the workspace's one X25519
/// key type, `alibi-x25519`'s `DhKeyPair`, under the name every AKEM module uses.
pub use alibi_x25519::DhKeyPair as SecretKey;

/// Whether 32 bytes read as a secret key look like a public key instead: a canonical
/// u-coordinate of prime order, as every public key is and a random secret is only with a
/// probability of about 1/32 (so this is evidence to combine, not proof).
pub fn looks_like_public_key(b: &[u8]) -> bool {
    <&[u8; LEN]>::try_from(b).is_ok_and(alibi_x25519::is_prime_order_point)
}

/// Reads a 32-byte key or ciphertext.
pub fn array32(b: &[u8], what: &'static str) -> Result<[u8; 32], Error> {
    Ok(alibi_encoding::array(what, b)?)
}

/// RFC 9180 DHKEM(X25519, HKDF-SHA256), kem_id 0x0020, in the authenticated mode.
pub mod rfc9180 {
    use super::*;
    use hkdf::Hkdf;
    use sha2::Sha256;

    const SUITE_ID: &[u8] = b"KEM\x00\x20";

    /// LabeledExtract(salt, label, ikm) (RFC 9180 §4).
    fn labeled_extract(salt: &[u8], label: &[u8], ikm: &[&[u8]]) -> Hkdf<Sha256> {
        let mut input = Zeroizing::new(Vec::new());
        input.extend_from_slice(b"HPKE-v1");
        input.extend_from_slice(SUITE_ID);
        input.extend_from_slice(label);
        for part in ikm {
            input.extend_from_slice(part);
        }
        Hkdf::<Sha256>::new(Some(salt), &input)
    }

    /// LabeledExpand(prk, label, info, 32) (RFC 9180 §4).
    fn labeled_expand(prk: &Hkdf<Sha256>, label: &[u8], info: &[&[u8]]) -> Zeroizing<[u8; 32]> {
        let mut li = Vec::new();
        li.extend_from_slice(&32u16.to_be_bytes());
        li.extend_from_slice(b"HPKE-v1");
        li.extend_from_slice(SUITE_ID);
        li.extend_from_slice(label);
        for part in info {
            li.extend_from_slice(part);
        }
        let mut out = Zeroizing::new([0u8; 32]);
        prk.expand(&li, &mut out[..])
            .expect("32 bytes is a valid HKDF length");
        out
    }

    /// DeriveKeyPair(ikm) for X25519 (RFC 9180 §7.1.3).
    pub fn derive_key_pair(ikm: &[u8]) -> SecretKey {
        let prk = labeled_extract(b"", b"dkp_prk", &[ikm]);
        SecretKey::from_secret(*labeled_expand(&prk, b"sk", &[]))
    }

    /// ExtractAndExpand(dh, kem_context) (RFC 9180 §4.1).
    fn extract_and_expand(dh: &[&[u8]], ctx: &[&[u8]]) -> Zeroizing<[u8; 32]> {
        let prk = labeled_extract(b"", b"eae_prk", dh);
        labeled_expand(&prk, b"shared_secret", ctx)
    }

    /// AuthEncap(pkR, skS) with a given ephemeral key (for known-answer tests; use [`encap`]
    /// otherwise). Returns (enc, shared_secret).
    pub fn encap_with_ephemeral(
        eph: &SecretKey,
        sender: &SecretKey,
        receiver_pk: &PublicKey,
    ) -> Result<([u8; 32], Zeroizing<[u8; 32]>), Error> {
        let [dh1, dh2] =
            x25519_batch([(eph.secret(), receiver_pk), (sender.secret(), receiver_pk)])?;
        let enc = *eph.public();
        let ss = extract_and_expand(&[&dh1[..], &dh2[..]], &[&enc, receiver_pk, sender.public()]);
        Ok((enc, ss))
    }

    /// AuthEncap(pkR, skS): a fresh ephemeral key; returns (enc, shared_secret).
    pub fn encap<R: CryptoRng + ?Sized>(
        sender: &SecretKey,
        receiver_pk: &PublicKey,
        rng: &mut R,
    ) -> Result<([u8; 32], Zeroizing<[u8; 32]>), Error> {
        encap_with_ephemeral(&SecretKey::generate(rng), sender, receiver_pk)
    }

    /// Deniability: the receiver alone makes (enc, shared_secret) that [`decap`] accepts as
    /// coming from `sender_pk`, since DH(skS, pkR) = DH(skR, pkS) and it picks the ephemeral key.
    pub fn fake_encap<R: CryptoRng + ?Sized>(
        receiver: &SecretKey,
        sender_pk: &PublicKey,
        rng: &mut R,
    ) -> Result<([u8; 32], Zeroizing<[u8; 32]>), Error> {
        let eph = SecretKey::generate(rng);
        let [dh1, dh2] = x25519_batch([
            (eph.secret(), receiver.public()),
            (receiver.secret(), sender_pk),
        ])?;
        let ss = extract_and_expand(
            &[&dh1[..], &dh2[..]],
            &[eph.public(), receiver.public(), sender_pk],
        );
        Ok((*eph.public(), ss))
    }

    /// AuthDecap(enc, skR, pkS); `enc` must be 32 bytes ([`Error::Length`] otherwise).
    pub fn decap(
        receiver: &SecretKey,
        sender_pk: &PublicKey,
        enc: &[u8],
    ) -> Result<Zeroizing<[u8; 32]>, Error> {
        let enc = array32(enc, "DH-AKEM ciphertext")?;
        let [dh1, dh2] = x25519_batch([(receiver.secret(), &enc), (receiver.secret(), sender_pk)])?;
        Ok(extract_and_expand(
            &[&dh1[..], &dh2[..]],
            &[&enc, receiver.public(), sender_pk],
        ))
    }
}

/// The SHADOWFAX artifact's DH-AKEM: K = SHA3-256("HPKE-v1curve25519eae_prk\0" || X25519(skS, pkR)
/// || X25519(esk, pkR) || "32HPKE-v1curve25519shared_secret\0" || epk || pkR || pkS). HPKE's labels,
/// but no HKDF, and the C strings' terminating zeros are hashed.
pub mod artifact {
    use super::*;
    use alibi_keccak::Sha3_256;

    fn key(static_dh: &[u8], eph_dh: &[u8], epk: &[u8], pk_r: &[u8], pk_s: &[u8]) -> [u8; 32] {
        Sha3_256::new()
            .chain_update(b"HPKE-v1curve25519eae_prk\0")
            .chain_update(static_dh)
            .chain_update(eph_dh)
            .chain_update(b"32HPKE-v1curve25519shared_secret\0")
            .chain_update(epk)
            .chain_update(pk_r)
            .chain_update(pk_s)
            .finalize()
    }

    /// Encapsulation with a given ephemeral key; returns (ct = epk, K).
    pub fn encap_with_ephemeral(
        eph: &SecretKey,
        sender: &SecretKey,
        receiver_pk: &PublicKey,
    ) -> Result<([u8; 32], Zeroizing<[u8; 32]>), Error> {
        let [s, e] = x25519_batch([(sender.secret(), receiver_pk), (eph.secret(), receiver_pk)])?;
        let k = key(&s[..], &e[..], eph.public(), receiver_pk, sender.public());
        Ok((*eph.public(), Zeroizing::new(k)))
    }

    /// Encapsulation with a fresh ephemeral key; returns (ct = epk, K).
    pub fn encap<R: CryptoRng + ?Sized>(
        sender: &SecretKey,
        receiver_pk: &PublicKey,
        rng: &mut R,
    ) -> Result<([u8; 32], Zeroizing<[u8; 32]>), Error> {
        encap_with_ephemeral(&SecretKey::generate(rng), sender, receiver_pk)
    }

    /// Deniability: the receiver alone makes (ct, K) that [`decap`] accepts as `sender_pk`'s.
    pub fn fake_encap<R: CryptoRng + ?Sized>(
        receiver: &SecretKey,
        sender_pk: &PublicKey,
        rng: &mut R,
    ) -> Result<([u8; 32], Zeroizing<[u8; 32]>), Error> {
        let eph = SecretKey::generate(rng);
        let [s, e] = x25519_batch([
            (receiver.secret(), sender_pk),
            (eph.secret(), receiver.public()),
        ])?;
        let k = key(&s[..], &e[..], eph.public(), receiver.public(), sender_pk);
        Ok((*eph.public(), Zeroizing::new(k)))
    }

    /// Decapsulation of ct = epk; `ct` must be 32 bytes ([`Error::Length`] otherwise).
    pub fn decap(
        receiver: &SecretKey,
        sender_pk: &PublicKey,
        ct: &[u8],
    ) -> Result<Zeroizing<[u8; 32]>, Error> {
        let ct = array32(ct, "DH-AKEM ciphertext")?;
        let [s, e] = x25519_batch([(receiver.secret(), sender_pk), (receiver.secret(), &ct)])?;
        Ok(Zeroizing::new(key(
            &s[..],
            &e[..],
            &ct,
            receiver.public(),
            sender_pk,
        )))
    }
}
