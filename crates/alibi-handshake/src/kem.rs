//! The KEM prekeys of PQXDH as libsignal encodes them: a type byte, then the raw key or ciphertext.
//!
//! libsignal uses pre-standard (round 3) Kyber1024, type `0x08`, in production and has FIPS 203
//! ML-KEM-1024, type `0x0A`, behind a feature; both come from `libcrux-ml-kem`, as in libsignal.
//! Public keys and ciphertexts are 1568 bytes (1569 with the type byte), secret keys 3168.

use libcrux_ml_kem::mlkem1024::{MlKem1024Ciphertext, MlKem1024PrivateKey, MlKem1024PublicKey};
use libcrux_ml_kem::{kyber1024, mlkem1024};
use rand_core::CryptoRngCore;
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
}

fn split_typed<'a>(b: &'a [u8], what: &'static str, len: usize) -> Result<(KemKeyType, &'a [u8])> {
    let (&ty, rest) = b.split_first().ok_or(Error::Empty(what))?;
    let ty = KemKeyType::from_byte(ty)?;
    if rest.len() != len {
        return Err(Error::Length {
            what,
            expected: len + 1,
            got: b.len(),
        });
    }
    Ok((ty, rest))
}

/// A KEM public key.
#[derive(Clone, PartialEq, Eq)]
pub struct KemPublicKey {
    ty: KemKeyType,
    key: Box<[u8; RAW_LEN]>,
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
        v.extend_from_slice(&self.key[..]);
        v
    }

    /// Decodes `type || key`; the key must pass FIPS 203's modulus check.
    pub fn deserialize(b: &[u8]) -> Result<Self> {
        let (ty, raw) = split_typed(b, "KEM public key", RAW_LEN)?;
        let key: Box<[u8; RAW_LEN]> = Box::new(raw.try_into().expect("length checked"));
        if !mlkem1024::validate_public_key(&MlKem1024PublicKey::from(*key)) {
            return Err(Error::KeyType {
                what: "KEM public key (coefficients out of range)",
                byte: ty.byte(),
            });
        }
        Ok(Self { ty, key })
    }

    /// Encapsulates: the shared secret and the typed ciphertext (`type || ct`, 1569 bytes).
    pub fn encapsulate(&self, rng: &mut impl CryptoRngCore) -> (Zeroizing<[u8; 32]>, Vec<u8>) {
        let mut m = Zeroizing::new([0u8; 32]);
        rng.fill_bytes(&mut m[..]);
        let pk = MlKem1024PublicKey::from(*self.key);
        let (ct, ss) = match self.ty {
            KemKeyType::Kyber1024 => kyber1024::encapsulate(&pk, *m),
            KemKeyType::MlKem1024 => mlkem1024::encapsulate(&pk, *m),
        };
        let mut out = Vec::with_capacity(RAW_LEN + 1);
        out.push(self.ty.byte());
        out.extend_from_slice(ct.as_slice());
        (Zeroizing::new(ss), out)
    }
}

/// A KEM secret key, zeroized on drop.
#[derive(Clone)]
pub struct KemSecretKey {
    ty: KemKeyType,
    key: Zeroizing<Vec<u8>>,
}

impl KemSecretKey {
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
        let sk = MlKem1024PrivateKey::from(
            <[u8; SECRET_LEN]>::try_from(&self.key[..]).expect("length checked at decoding"),
        );
        let ct = MlKem1024Ciphertext::from(<[u8; RAW_LEN]>::try_from(raw).expect("checked"));
        Ok(Zeroizing::new(match ty {
            KemKeyType::Kyber1024 => kyber1024::decapsulate(&sk, &ct),
            KemKeyType::MlKem1024 => mlkem1024::decapsulate(&sk, &ct),
        }))
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
    pub fn generate(ty: KemKeyType, rng: &mut impl CryptoRngCore) -> Self {
        let mut seed = Zeroizing::new([0u8; 64]);
        rng.fill_bytes(&mut seed[..]);
        let kp = match ty {
            KemKeyType::Kyber1024 => kyber1024::generate_key_pair(*seed),
            KemKeyType::MlKem1024 => mlkem1024::generate_key_pair(*seed),
        };
        let public = KemPublicKey {
            ty,
            key: Box::new(*kp.public_key().as_slice()),
        };
        let secret = KemSecretKey {
            ty,
            key: Zeroizing::new(kp.private_key().as_slice().to_vec()),
        };
        Self { public, secret }
    }
}
