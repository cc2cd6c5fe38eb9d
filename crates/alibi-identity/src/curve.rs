//! X25519 keys as libsignal encodes them: a public key is `0x05 || u` (33 bytes), a private key
//! the 32 clamped scalar bytes. The key itself is [`alibi_x25519::DhKeyPair`], the workspace's
//! one X25519 key type; this module is libsignal's encoding and clamping on top of it. An identity
//! key is a public key used for XEdDSA signatures and the handshakes' static Diffie-Hellman.

use alibi_x25519::DhKeyPair;
use curve25519_dalek::montgomery::MontgomeryPoint;
use curve25519_dalek::scalar::clamp_integer;
use rand_core::CryptoRng;
use zeroize::Zeroizing;

use crate::{exact, Error, Result};

/// The type byte of a Curve25519 ("DJB") key in libsignal's encoding.
pub const DJB_TYPE: u8 = 0x05;
/// Length of an encoded public key: the type byte and the 32-byte u-coordinate.
pub const PUBLIC_KEY_LEN: usize = 33;

/// An X25519 public key.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PublicKey([u8; 32]);

impl core::fmt::Debug for PublicKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "PublicKey(")?;
        for b in &self.0[..8] {
            write!(f, "{b:02x}")?;
        }
        write!(f, "..)")
    }
}

impl PublicKey {
    /// The key from its 32-byte u-coordinate.
    pub fn from_u(u: [u8; 32]) -> Self {
        Self(u)
    }

    /// The 32-byte u-coordinate.
    pub fn u(&self) -> &[u8; 32] {
        &self.0
    }

    /// libsignal's encoding, `0x05 || u`.
    pub fn serialize(&self) -> [u8; PUBLIC_KEY_LEN] {
        let mut out = [0u8; PUBLIC_KEY_LEN];
        out[0] = DJB_TYPE;
        out[1..].copy_from_slice(&self.0);
        out
    }

    /// Decodes `0x05 || u`, exactly 33 bytes.
    pub fn deserialize(b: &[u8]) -> Result<Self> {
        let (&ty, rest) = b.split_first().ok_or(Error::Empty("public key"))?;
        if ty != DJB_TYPE {
            return Err(Error::KeyType {
                what: "curve",
                byte: ty,
            });
        }
        Ok(Self(exact(rest, "X25519 public key")?))
    }

    /// libsignal's check on a peer's base key: the u-coordinate is below p and the point it names
    /// (with sign 0) is torsion-free, so a small-subgroup or non-canonical encoding is refused.
    pub fn is_canonical(&self) -> bool {
        let k = &self.0;
        let high_bit = k[31] & 0x80 != 0;
        let at_least_p = k[0] >= 0u8.wrapping_sub(19) && k[1..31] == [0xFF; 30] && k[31] == 0x7F;
        let torsion_free = MontgomeryPoint(*k)
            .to_edwards(0)
            .is_some_and(|p| p.is_torsion_free());
        torsion_free && !high_bit && !at_least_p
    }
}

/// An X25519 private key (clamped, as libsignal stores it), zeroized on drop.
#[derive(Clone)]
pub struct PrivateKey(DhKeyPair);

impl PrivateKey {
    /// A fresh random key.
    pub fn generate<R: CryptoRng + ?Sized>(rng: &mut R) -> Self {
        let mut b = Zeroizing::new([0u8; 32]);
        rng.fill_bytes(&mut b[..]);
        Self::from_bytes(*b)
    }

    /// The key from 32 bytes, clamped as libsignal does.
    pub fn from_bytes(b: [u8; 32]) -> Self {
        Self(DhKeyPair::from_secret(clamp_integer(b)))
    }

    /// Decodes a 32-byte private key.
    pub fn deserialize(b: &[u8]) -> Result<Self> {
        Ok(Self::from_bytes(exact(b, "X25519 private key")?))
    }

    /// The 32 clamped scalar bytes.
    pub fn to_bytes(&self) -> Zeroizing<[u8; 32]> {
        Zeroizing::new(*self.0.secret())
    }

    /// The matching public key.
    pub fn public_key(&self) -> PublicKey {
        PublicKey(*self.0.public_key())
    }

    /// X25519 with `their` key, unvalidated, as libsignal computes it (the handshakes' DH terms).
    pub fn agree(&self, their: &PublicKey) -> Zeroizing<[u8; 32]> {
        self.0.agree(&their.0)
    }

    /// [`Self::agree`] with each of `theirs` (one key with many: faster than one at a time).
    pub fn agree_many(&self, theirs: &[&PublicKey]) -> Vec<Zeroizing<[u8; 32]>> {
        let us: Vec<&[u8; 32]> = theirs.iter().map(|p| &p.0).collect();
        self.0.agree_many(&us)
    }

    /// [`Self::agree_many`] for keys seen once (ephemeral keys): no table of their Edwards forms.
    pub fn agree_each(&self, theirs: &[&PublicKey]) -> Vec<Zeroizing<[u8; 32]>> {
        let us: Vec<&[u8; 32]> = theirs.iter().map(|p| &p.0).collect();
        self.0.agree_each(&us)
    }

    /// The underlying X25519 key pair.
    pub fn key_pair(&self) -> &DhKeyPair {
        &self.0
    }

    pub(crate) fn scalar_bytes(&self) -> Zeroizing<[u8; 32]> {
        self.to_bytes()
    }
}

/// A key pair.
#[derive(Clone)]
pub struct KeyPair {
    /// The private half.
    pub private: PrivateKey,
    /// The public half.
    pub public: PublicKey,
}

impl KeyPair {
    /// A fresh random key pair.
    pub fn generate<R: CryptoRng + ?Sized>(rng: &mut R) -> Self {
        Self::from_private(PrivateKey::generate(rng))
    }

    /// The pair for a given private key.
    pub fn from_private(private: PrivateKey) -> Self {
        let public = private.public_key();
        Self { private, public }
    }
}

/// A long-term identity public key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct IdentityKey(pub PublicKey);

impl IdentityKey {
    /// The 33-byte encoding.
    pub fn serialize(&self) -> [u8; PUBLIC_KEY_LEN] {
        self.0.serialize()
    }

    /// Decodes the 33-byte encoding.
    pub fn deserialize(b: &[u8]) -> Result<Self> {
        PublicKey::deserialize(b).map(Self)
    }
}

/// A long-term identity key pair.
#[derive(Clone)]
pub struct IdentityKeyPair {
    /// The private half (also the XEdDSA signing key).
    pub private: PrivateKey,
    /// The public identity key.
    pub identity: IdentityKey,
}

impl IdentityKeyPair {
    /// A fresh identity.
    pub fn generate<R: CryptoRng + ?Sized>(rng: &mut R) -> Self {
        Self::from_private(PrivateKey::generate(rng))
    }

    /// The identity of a given private key.
    pub fn from_private(private: PrivateKey) -> Self {
        let identity = IdentityKey(private.public_key());
        Self { private, identity }
    }
}
