//! Plain Mitaka signatures as the SHADOWFAX artifact defines them (`mitaka_sign.c`): a hash-and-sign
//! signature on the Antrag trapdoor, what a Mitaka identity signs with outside a ring (RingXKEM's
//! prekey signatures, `alibi-handshake`).
//!
//! Sign(m): a fresh 24-byte salt, c = HashToPoly(SHAKE128(m || salt)), (s1, s2) = Mitaka's preimage
//! of c, until ||(s1, s2)||^2 <= 31,484,404 and s2 compresses into 626 bytes; the signature is
//! comp(s2) (zero-padded to 626 bytes) || salt, 650 bytes. Verify recomputes s1 = c - s2 h and checks
//! the bound. The bound is the artifact's constant: slack^2 sigma^2 2n with slack 1.042 and
//! sigma^2 = r^2 alpha^2 q for r^2 = 1.7424 (its alternative smoothing value), somewhat looser than
//! the sampler's own r^2 = 1.6329 would give (29,505,787); kept so that the artifact's signatures
//! verify. As for the ring blocks, the bytes after s2's body are ignored when decoding.

use alibi_encoding::LengthChecked;
use rand_core::CryptoRng;

use crate::{Error, ExpandedSigningKey, VerifyingKey, N};

/// Bytes of the salt.
pub const SALT_LEN: usize = 24;

/// Bytes of the compressed s2 block.
pub const BLOCK_LEN: usize = 626;

/// Bytes of a signature.
pub const SIGNATURE_LEN: usize = BLOCK_LEN + SALT_LEN;

/// floor(beta^2) of a plain signature (the artifact's `MITAKA_BOUND_SQUARE_FLOOR`).
pub const BOUND: u64 = 31_484_404;

/// A Mitaka signature: s2 and the salt.
#[derive(Clone, PartialEq, Eq)]
pub struct Signature {
    s2: Vec<i16>,
    bytes: Vec<u8>,
}

impl core::fmt::Debug for Signature {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("alibi_mitaka::Signature")
    }
}

impl Signature {
    /// Decodes comp(s2) || salt (650 bytes).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        Error::check_len("Mitaka signature", SIGNATURE_LEN, bytes.len())?;
        let s2 = alibi_falcon::decompress_prefix_block(&bytes[..BLOCK_LEN], N)?;
        Ok(Signature {
            s2,
            bytes: bytes.to_vec(),
        })
    }

    /// comp(s2) || salt.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.bytes.clone()
    }

    /// The salt.
    pub fn salt(&self) -> &[u8] {
        &self.bytes[BLOCK_LEN..]
    }

    /// The polynomial s2 (s1 = c - s2 h is recomputed by the verifier).
    pub fn s2(&self) -> &[i16] {
        &self.s2
    }
}

impl ExpandedSigningKey {
    /// Signs `msg` (the artifact's `Mitaka_sign`).
    pub fn sign<R: CryptoRng + ?Sized>(&self, msg: &[u8], rng: &mut R) -> Signature {
        loop {
            let mut salt = [0u8; SALT_LEN];
            rng.fill_bytes(&mut salt);
            let c = alibi_falcon::shake128_to_poly(&[msg, &salt], N);
            let (s1, s2) = self.key.sample(&c, rng);
            if alibi_falcon::norm_sq(&s1, &s2) > BOUND {
                continue;
            }
            let Some(mut bytes) = alibi_falcon::compress_padded(&s2, BLOCK_LEN) else {
                continue;
            };
            bytes.extend_from_slice(&salt);
            return Signature { s2, bytes };
        }
    }
}

impl VerifyingKey {
    /// Verifies a signature on `msg` (the artifact's `Mitaka_verify`).
    pub fn verify(&self, msg: &[u8], sig: &Signature) -> Result<(), Error> {
        let c = alibi_falcon::shake128_to_poly(&[msg, sig.salt()], N);
        let hs2 = alibi_falcon::sum_mul_h(&[(&self.inner, sig.s2.as_slice())])?;
        let s1 = alibi_falcon::sub_centered(&c, &hs2);
        if alibi_falcon::norm_sq(&s1, &sig.s2) <= BOUND {
            Ok(())
        } else {
            Err(Error::InvalidSignature)
        }
    }
}

impl signature::Verifier<Signature> for VerifyingKey {
    fn verify(&self, msg: &[u8], sig: &Signature) -> Result<(), signature::Error> {
        VerifyingKey::verify(self, msg, sig).map_err(|_| signature::Error::new())
    }
}

impl signature::RandomizedSigner<Signature> for ExpandedSigningKey {
    fn try_sign_with_rng<R: rand_core::TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        msg: &[u8],
    ) -> Result<Signature, signature::Error> {
        alibi_encoding::sign_seeded(rng, |stream| self.sign(msg, stream))
    }
}
