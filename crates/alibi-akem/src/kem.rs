//! The KEM inside PQ-AKEM and SHADOWFAX: ML-KEM ([`crate::mlkem`]) or BAT-257 (`alibi-bat`), as
//! the artifact's `kem_api.h` abstracts them, including its "secret of any length"
//! (`kem_encap(secret, secret_len, ...)`): ML-KEM's 32-byte key expanded by SHAKE256 (the
//! artifact's `mlkem/kem_api.c`), BAT's own expansion of its message (`BAT/kem_api.c`). PQ-AKEM asks
//! for 48 bytes, SHADOWFAX for 64.
//!
//! Byte-level calls ([`Kem::generate`], [`Kem::encapsulate`], ...) serve protocols that keep keys
//! as bytes (RingXKEM's prekeys); the AKEMs' own long-term keys are held decoded
//! ([`EncapsulationKey`], [`DecapsulationKey`]), so that a BAT key is decoded and checked once.

use alibi_encoding::LengthChecked;
use rand_core::CryptoRng;
use zeroize::Zeroizing;

use crate::mlkem::MlKem;
use crate::primitives::shake_into;
use crate::Error;

/// A KEM, chosen at run time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kem {
    /// An ML-KEM parameter set.
    MlKem(MlKem),
    /// BAT-257 (n = 512, q = 257), the artifact's `bat-257`.
    Bat257,
}

fn bat(e: alibi_bat::Error) -> Error {
    Error::Bat(e)
}

impl Kem {
    /// Bytes of an encapsulation key.
    pub fn ek_len(self) -> usize {
        match self {
            Kem::MlKem(k) => k.ek_len(),
            Kem::Bat257 => alibi_bat::PUBLIC_KEY_LEN,
        }
    }

    /// Bytes of a decapsulation key.
    pub fn dk_len(self) -> usize {
        match self {
            Kem::MlKem(k) => k.dk_len(),
            Kem::Bat257 => alibi_bat::SECRET_KEY_LEN,
        }
    }

    /// Bytes of a ciphertext.
    pub fn ct_len(self) -> usize {
        match self {
            Kem::MlKem(k) => k.ct_len(),
            Kem::Bat257 => alibi_bat::CIPHERTEXT_LEN,
        }
    }

    /// A fresh key pair (dk, ek) as bytes.
    pub fn generate<R: CryptoRng + ?Sized>(self, rng: &mut R) -> (Zeroizing<Vec<u8>>, Vec<u8>) {
        match self {
            Kem::MlKem(k) => k.generate(rng),
            Kem::Bat257 => {
                let sk = alibi_bat::SecretKey::generate(rng);
                (sk.to_bytes(), sk.public_key().to_bytes())
            }
        }
    }

    /// Checks an encapsulation key's encoding.
    pub fn check_ek(self, ek: &[u8]) -> Result<(), Error> {
        match self {
            Kem::MlKem(k) => Ok(k.check_ek(ek)?),
            Kem::Bat257 => alibi_bat::PublicKey::from_bytes(ek)
                .map(|_| ())
                .map_err(bat),
        }
    }

    /// (ct, 32-byte shared secret) for the encapsulation key `ek`.
    pub fn encapsulate<R: CryptoRng + ?Sized>(
        self,
        ek: &[u8],
        rng: &mut R,
    ) -> Result<(Vec<u8>, Zeroizing<[u8; 32]>), Error> {
        match self {
            Kem::MlKem(k) => Ok(k.encapsulate(ek, rng)?),
            Kem::Bat257 => {
                alibi_bat::encapsulate(&alibi_bat::PublicKey::from_bytes(ek).map_err(bat)?, rng)
                    .map_err(bat)
            }
        }
    }

    /// The 32-byte shared secret of `ct` under the decapsulation key `dk`.
    pub fn decapsulate(self, dk: &[u8], ct: &[u8]) -> Result<Zeroizing<[u8; 32]>, Error> {
        match self {
            Kem::MlKem(k) => Ok(k.decapsulate(dk, ct)?),
            Kem::Bat257 => {
                let sk = alibi_bat::SecretKey::from_bytes(dk).map_err(bat)?;
                alibi_bat::decapsulate(&sk, ct).map_err(bat)
            }
        }
    }
}

/// A decoded encapsulation key with its encoding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum EncapsulationKey {
    MlKem(MlKem, Vec<u8>),
    Bat(Box<alibi_bat::PublicKey>, Vec<u8>),
}

impl EncapsulationKey {
    /// Decodes and checks `b` as a key of `kem`.
    pub(crate) fn from_bytes(kem: Kem, b: &[u8]) -> Result<Self, Error> {
        match kem {
            Kem::MlKem(k) => {
                Error::check_len("ML-KEM encapsulation key", k.ek_len(), b.len())?;
                Ok(EncapsulationKey::MlKem(k, b.to_vec()))
            }
            Kem::Bat257 => Ok(EncapsulationKey::Bat(
                Box::new(alibi_bat::PublicKey::from_bytes(b).map_err(bat)?),
                b.to_vec(),
            )),
        }
    }

    /// The encoding.
    pub(crate) fn as_bytes(&self) -> &[u8] {
        match self {
            EncapsulationKey::MlKem(_, b) | EncapsulationKey::Bat(_, b) => b,
        }
    }

    /// The artifact's `kem_encap(secret, secret.len(), ...)`: the ciphertext, and `secret` filled.
    pub(crate) fn encapsulate_secret<R: CryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        secret: &mut [u8],
    ) -> Result<Vec<u8>, Error> {
        match self {
            EncapsulationKey::MlKem(k, ek) => {
                let (ct, ss) = k.encapsulate(ek, rng)?;
                shake_into(&ss[..], secret);
                Ok(ct)
            }
            EncapsulationKey::Bat(pk, _) => {
                alibi_bat::encapsulate_into(pk, rng, secret).map_err(bat)
            }
        }
    }
}

/// A decoded decapsulation key.
pub(crate) enum DecapsulationKey {
    MlKem(MlKem, Zeroizing<Vec<u8>>),
    Bat(Box<alibi_bat::SecretKey>),
}

impl DecapsulationKey {
    /// A fresh key pair.
    pub(crate) fn generate<R: CryptoRng + ?Sized>(
        kem: Kem,
        rng: &mut R,
    ) -> (Self, EncapsulationKey) {
        match kem {
            Kem::MlKem(k) => {
                let (dk, ek) = k.generate(rng);
                (
                    DecapsulationKey::MlKem(k, dk),
                    EncapsulationKey::MlKem(k, ek),
                )
            }
            Kem::Bat257 => {
                let sk = alibi_bat::SecretKey::generate(rng);
                let pk = sk.public_key().clone();
                let bytes = pk.to_bytes();
                (
                    DecapsulationKey::Bat(Box::new(sk)),
                    EncapsulationKey::Bat(Box::new(pk), bytes),
                )
            }
        }
    }

    /// Decodes and checks `b` as a key of `kem`, with its encapsulation key.
    pub(crate) fn from_bytes(kem: Kem, b: &[u8]) -> Result<(Self, EncapsulationKey), Error> {
        match kem {
            Kem::MlKem(k) => {
                k.check_dk(b)?;
                let ek = k.ek_of_dk(b)?;
                Ok((
                    DecapsulationKey::MlKem(k, Zeroizing::new(b.to_vec())),
                    EncapsulationKey::MlKem(k, ek),
                ))
            }
            Kem::Bat257 => {
                let sk = alibi_bat::SecretKey::from_bytes(b).map_err(bat)?;
                let pk = sk.public_key().clone();
                let bytes = pk.to_bytes();
                Ok((
                    DecapsulationKey::Bat(Box::new(sk)),
                    EncapsulationKey::Bat(Box::new(pk), bytes),
                ))
            }
        }
    }

    /// The encoding (FIPS 203's expanded key; BAT's 2,953-byte long format).
    pub(crate) fn to_bytes(&self) -> Zeroizing<Vec<u8>> {
        match self {
            DecapsulationKey::MlKem(_, dk) => Zeroizing::new(dk.to_vec()),
            DecapsulationKey::Bat(sk) => sk.to_bytes(),
        }
    }

    /// The artifact's `kem_decap(secret, secret.len(), ...)`.
    pub(crate) fn decapsulate_secret(&self, ct: &[u8], secret: &mut [u8]) -> Result<(), Error> {
        match self {
            DecapsulationKey::MlKem(k, dk) => {
                let ss = k.decapsulate(dk, ct)?;
                shake_into(&ss[..], secret);
                Ok(())
            }
            DecapsulationKey::Bat(sk) => alibi_bat::decapsulate_into(sk, ct, secret).map_err(bat),
        }
    }
}
