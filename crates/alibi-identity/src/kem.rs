//! The KEM prekeys of PQXDH as libsignal encodes them: a type byte, then the raw key or ciphertext.
//!
//! libsignal uses pre-standard (round 3) Kyber1024, type `0x08`, in production and has FIPS 203
//! ML-KEM-1024, type `0x0A`, behind a feature. Public keys and ciphertexts are 1568 bytes (1569
//! with the type byte), secret keys 3168. This module is only that encoding: the KEMs themselves
//! are [`alibi_mlkem`]'s (on `libcrux-ml-kem`, as in libsignal).

use alibi_encoding::LengthChecked;
use alibi_mlkem::MlKem;
use rand_core::CryptoRng;
use zeroize::Zeroizing;

use crate::{Error, Result};

/// Length of a raw public key or ciphertext (without the type byte).
pub const RAW_LEN: usize = 1568;
/// Length of a raw secret key.
pub const SECRET_LEN: usize = 3168;

/// Which KEM a key belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KemKeyType {
    /// CRYSTALS-Kyber1024, round 3 (libsignal's production PQXDH KEM).
    Kyber1024,
    /// ML-KEM-1024 (FIPS 203).
    MlKem1024,
}

impl KemKeyType {
    /// The type byte of the encoding.
    pub fn byte(self) -> u8 {
        match self {
            Self::Kyber1024 => 0x08,
            Self::MlKem1024 => 0x0A,
        }
    }

    /// The type named by a byte.
    pub fn from_byte(b: u8) -> Result<Self> {
        match b {
            0x08 => Ok(Self::Kyber1024),
            0x0A => Ok(Self::MlKem1024),
            byte => Err(Error::KeyType { what: "KEM", byte }),
        }
    }

    /// The KEM behind the type byte.
    pub fn kem(self) -> MlKem {
        match self {
            Self::Kyber1024 => MlKem::Kyber1024,
            Self::MlKem1024 => MlKem::K1024,
        }
    }
}

fn split_typed<'a>(b: &'a [u8], what: &'static str, len: usize) -> Result<(KemKeyType, &'a [u8])> {
    let (&ty, rest) = b.split_first().ok_or(Error::Empty(what))?;
    let ty = KemKeyType::from_byte(ty)?;
    Error::check_len(what, len + 1, b.len())?;
    Ok((ty, rest))
}

/// A KEM public key.
#[derive(Clone, PartialEq, Eq)]
pub struct KemPublicKey {
    ty: KemKeyType,
    key: Vec<u8>,
}

impl core::fmt::Debug for KemPublicKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "KemPublicKey({:?})", self.ty)
    }
}

impl KemPublicKey {
    /// The KEM.
    pub fn key_type(&self) -> KemKeyType {
        self.ty
    }

    /// `type || key`, 1569 bytes.
    pub fn serialize(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(RAW_LEN + 1);
        v.push(self.ty.byte());
        v.extend_from_slice(&self.key);
        v
    }

    /// Decodes `type || key`; the key must pass FIPS 203's modulus check.
    pub fn deserialize(b: &[u8]) -> Result<Self> {
        let (ty, raw) = split_typed(b, "KEM public key", RAW_LEN)?;
        ty.kem().check_ek(raw).map_err(|_| Error::KeyType {
            what: "KEM public key (coefficients out of range)",
            byte: ty.byte(),
        })?;
        Ok(Self {
            ty,
            key: raw.to_vec(),
        })
    }

    /// Encapsulates: the shared secret and the typed ciphertext (`type || ct`, 1569 bytes).
    pub fn encapsulate<R: CryptoRng + ?Sized>(
        &self,
        rng: &mut R,
    ) -> (Zeroizing<[u8; 32]>, Vec<u8>) {
        let (ct, ss) = self
            .ty
            .kem()
            .encapsulate(&self.key, rng)
            .expect("the key was checked when decoded or generated");
        let mut out = Vec::with_capacity(RAW_LEN + 1);
        out.push(self.ty.byte());
        out.extend_from_slice(&ct);
        (ss, out)
    }
}

/// A KEM secret key, zeroized on drop.
#[derive(Clone)]
pub struct KemSecretKey {
    ty: KemKeyType,
    key: Zeroizing<Vec<u8>>,
}

impl KemSecretKey {
    /// A fresh secret key of the given KEM (64 random bytes d || z); its public key comes from
    /// [`KemSecretKey::public_key`].
    pub fn generate<R: CryptoRng + ?Sized>(ty: KemKeyType, rng: &mut R) -> Self {
        KemKeyPair::generate(ty, rng).secret
    }

    /// The KEM.
    pub fn key_type(&self) -> KemKeyType {
        self.ty
    }

    /// The public key, read from the FIPS 203 layout of the secret key (dk_pke || ek || H(ek) ||
    /// z).
    pub fn public_key(&self) -> KemPublicKey {
        let key = self
            .ty
            .kem()
            .ek_of_dk(&self.key)
            .expect("the key's length was checked when decoded or generated");
        KemPublicKey { ty: self.ty, key }
    }

    /// `type || key`, 3169 bytes.
    pub fn serialize(&self) -> Zeroizing<Vec<u8>> {
        let mut v = Zeroizing::new(Vec::with_capacity(SECRET_LEN + 1));
        v.push(self.ty.byte());
        v.extend_from_slice(&self.key[..]);
        v
    }

    /// Decodes `type || key`.
    pub fn deserialize(b: &[u8]) -> Result<Self> {
        let (ty, raw) = split_typed(b, "KEM secret key", SECRET_LEN)?;
        Ok(Self {
            ty,
            key: Zeroizing::new(raw.to_vec()),
        })
    }

    /// Decapsulates a typed ciphertext. Kyber and ML-KEM reject implicitly, so a wrong ciphertext
    /// of the right length yields an unrelated secret (and the handshake's MAC then fails).
    pub fn decapsulate(&self, ct: &[u8]) -> Result<Zeroizing<[u8; 32]>> {
        let (ty, raw) = split_typed(ct, "KEM ciphertext", RAW_LEN)?;
        if ty != self.ty {
            return Err(Error::KemMismatch {
                key: self.ty.byte(),
                ciphertext: ty.byte(),
            });
        }
        self.ty
            .kem()
            .decapsulate(&self.key, raw)
            .map_err(|_| Error::length("KEM secret key", SECRET_LEN, self.key.len()))
    }
}

/// A KEM key pair.
#[derive(Clone)]
pub struct KemKeyPair {
    /// The public key.
    pub public: KemPublicKey,
    /// The secret key.
    pub secret: KemSecretKey,
}

impl KemKeyPair {
    /// A fresh key pair of the given KEM (64 random bytes d || z).
    pub fn generate<R: CryptoRng + ?Sized>(ty: KemKeyType, rng: &mut R) -> Self {
        let (dk, ek) = ty.kem().generate(rng);
        Self {
            public: KemPublicKey { ty, key: ek },
            secret: KemSecretKey { ty, key: dk },
        }
    }
}
