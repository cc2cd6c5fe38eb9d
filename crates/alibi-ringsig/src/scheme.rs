//! The schemes told apart by their encodings: every scheme's public keys have a length of their
//! own, so a ring's keys name its scheme, and [`AnyRing`] signs and verifies for a ring of any
//! scheme from encodings alone.

use alibi_falcon::Level;
use alibi_mayo::Params;
use rand_core::CryptoRng;
use zeroize::Zeroizing;

use crate::gandalf::{Ring, RingSignature, Trapdoor};
use crate::{mayo_rs, Error};

/// A ring signature scheme at one parameter set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scheme {
    /// GANDALF over Falcon-512 keys (standard encoding, 897 bytes).
    Falcon512,
    /// GANDALF over Falcon-1024 keys (standard encoding, 1,793 bytes).
    Falcon1024,
    /// GANDALF[Antrag, Mitaka] over Antrag keys at Falcon-512's lattice (the SHADOWFAX artifact's
    /// raw h, 896 bytes).
    Mitaka512,
    /// MAYO-RS over MAYO_1 keys (compact encoding, 1,420 bytes).
    Mayo1,
    /// MAYO-RS over MAYO_2 keys (compact encoding, 4,912 bytes).
    Mayo2,
}

impl Scheme {
    /// Every scheme.
    pub const ALL: [Scheme; 5] = [
        Scheme::Falcon512,
        Scheme::Falcon1024,
        Scheme::Mitaka512,
        Scheme::Mayo1,
        Scheme::Mayo2,
    ];

    /// The short name, as `alibi ring --scheme` takes it.
    pub fn name(self) -> &'static str {
        match self {
            Scheme::Falcon512 => "falcon512",
            Scheme::Falcon1024 => "falcon1024",
            Scheme::Mitaka512 => "mitaka512",
            Scheme::Mayo1 => "mayo1",
            Scheme::Mayo2 => "mayo2",
        }
    }

    /// The scheme of a short name.
    pub fn from_name(name: &str) -> Option<Scheme> {
        Scheme::ALL.into_iter().find(|s| s.name() == name)
    }

    /// One line for people: the construction and its keys.
    pub fn description(self) -> &'static str {
        match self {
            Scheme::Falcon512 => "GANDALF over Falcon-512 keys",
            Scheme::Falcon1024 => "GANDALF over Falcon-1024 keys",
            Scheme::Mitaka512 => {
                "GANDALF[Antrag, Mitaka] over Antrag keys at Falcon-512's lattice (the SHADOWFAX \
                 artifact's)"
            }
            Scheme::Mayo1 => {
                "MAYO-RS over MAYO_1 keys (MAYO round 2; round 3 changes MAYO_1's parameters: \
                 docs/mayo.md)"
            }
            Scheme::Mayo2 => {
                "MAYO-RS over MAYO_2 keys (MAYO round 2; round 3 raises MAYO_2's margin against \
                 the wedge attack: docs/mayo.md)"
            }
        }
    }

    /// The Falcon level of the schemes of GANDALF over Falcon keys.
    pub fn falcon_level(self) -> Option<Level> {
        match self {
            Scheme::Falcon512 => Some(Level::Falcon512),
            Scheme::Falcon1024 => Some(Level::Falcon1024),
            _ => None,
        }
    }

    /// GANDALF[Falcon] at `level`.
    fn falcon(level: Level) -> Scheme {
        match level {
            Level::Falcon512 => Scheme::Falcon512,
            Level::Falcon1024 => Scheme::Falcon1024,
        }
    }

    /// The MAYO parameter set of MAYO-RS's schemes.
    pub fn mayo_params(self) -> Option<Params> {
        match self {
            Scheme::Mayo1 => Some(Params::Mayo1),
            Scheme::Mayo2 => Some(Params::Mayo2),
            _ => None,
        }
    }

    /// The length of a member's public key.
    pub fn public_key_len(self) -> usize {
        match (self.falcon_level(), self.mayo_params()) {
            (Some(level), _) => level.public_key_len(),
            (_, Some(p)) => p.public_key_bytes(),
            (None, None) => alibi_mitaka::PUBLIC_KEY_LEN,
        }
    }

    /// The scheme whose public keys have the length of `key`, if any.
    pub fn of_public_key(key: &[u8]) -> Option<Scheme> {
        Scheme::ALL
            .into_iter()
            .find(|s| s.public_key_len() == key.len())
    }

    /// The scheme of a ring whose first member's public key is `first`: `named` if given, which
    /// must then agree with the key's length when that length is a scheme's, else the scheme the
    /// length implies.
    pub fn detect(named: Option<Scheme>, first: &[u8]) -> Result<Scheme, Error> {
        match (named, Scheme::of_public_key(first)) {
            (Some(named), Some(keys)) if named != keys => {
                Err(Error::SchemeMismatch { named, keys })
            }
            (Some(s), _) | (None, Some(s)) => Ok(s),
            (None, None) => Err(Error::UnknownPublicKey(first.len())),
        }
    }

    /// Decodes one member's public key as a key of this scheme, to tell which member of a ring
    /// that does not decode is at fault: the key's own error, or [`Error::SchemeMismatch`] for a
    /// key of another scheme.
    pub fn check_public_key(self, key: &[u8]) -> Result<(), Error> {
        if let Some(keys) = Scheme::of_public_key(key).filter(|&k| k != self) {
            return Err(Error::SchemeMismatch { named: self, keys });
        }
        match (self.falcon_level(), self.mayo_params()) {
            (Some(_), _) => alibi_falcon::VerifyingKey::from_bytes(key).map(drop)?,
            (_, Some(p)) => alibi_mayo::VerifyingKey::from_bytes(p, key).map(drop)?,
            (None, None) => alibi_mitaka::VerifyingKey::from_bytes(key).map(drop)?,
        }
        Ok(())
    }

    /// A fresh member key pair: its public-key and secret-key encodings (as
    /// [`AnyRing::from_public_keys`] and [`AnySigningKey::from_bytes`] take them).
    pub fn generate<R: CryptoRng + ?Sized>(self, rng: &mut R) -> (Vec<u8>, Zeroizing<Vec<u8>>) {
        match (self.falcon_level(), self.mayo_params()) {
            (Some(level), _) => {
                let k = alibi_falcon::SigningKey::generate(level, rng);
                (k.verifying_key().to_bytes(), k.to_bytes())
            }
            (_, Some(p)) => {
                let k = alibi_mayo::SigningKey::generate(p, rng);
                (k.public_key_bytes().to_vec(), k.to_bytes())
            }
            (None, None) => {
                let k = alibi_mitaka::SigningKey::generate(rng);
                (k.verifying_key().to_bytes(), k.to_bytes())
            }
        }
    }
}

impl core::fmt::Display for Scheme {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

/// A member's signing key of any scheme, ready to sign.
pub enum AnySigningKey {
    /// A Falcon key, expanded.
    Falcon(alibi_falcon::ExpandedSigningKey),
    /// An Antrag key, expanded for the Mitaka sampler.
    Mitaka(alibi_mitaka::ExpandedSigningKey),
    /// A MAYO key.
    Mayo(alibi_mayo::SigningKey),
}

impl AnySigningKey {
    /// Decodes a secret key of `scheme`: Falcon's standard encoding (of the scheme's level), the
    /// SHADOWFAX artifact's 2,048-byte Antrag f, g, F, G, or a MAYO seed.
    pub fn from_bytes(scheme: Scheme, bytes: &[u8]) -> Result<AnySigningKey, Error> {
        Ok(match (scheme.falcon_level(), scheme.mayo_params()) {
            (Some(level), _) => {
                let k = alibi_falcon::SigningKey::from_bytes(bytes)?;
                if k.level() != level {
                    return Err(Error::SchemeMismatch {
                        named: scheme,
                        keys: Scheme::falcon(k.level()),
                    });
                }
                AnySigningKey::Falcon(k.expand())
            }
            (_, Some(p)) => AnySigningKey::Mayo(alibi_mayo::SigningKey::from_bytes(p, bytes)?),
            (None, None) => {
                AnySigningKey::Mitaka(alibi_mitaka::SigningKey::from_bytes(bytes)?.expand())
            }
        })
    }
}

impl core::fmt::Debug for AnySigningKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let kind = match self {
            AnySigningKey::Falcon(_) => "Falcon",
            AnySigningKey::Mitaka(_) => "Mitaka",
            AnySigningKey::Mayo(_) => "Mayo",
        };
        write!(f, "AnySigningKey::{kind}(..)")
    }
}

/// A ring of any scheme.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AnyRing {
    /// A GANDALF ring: Falcon keys, or Antrag keys with the Mitaka sampler.
    Gandalf(Ring),
    /// A MAYO-RS ring.
    Mayo(mayo_rs::Ring),
}

impl AnyRing {
    /// The ring of `keys`, public-key encodings in ring order, under the scheme
    /// [`Scheme::detect`] gives for `named` and the first key.
    pub fn from_public_keys<B: AsRef<[u8]>>(
        named: Option<Scheme>,
        keys: &[B],
    ) -> Result<AnyRing, Error> {
        let first = keys.first().ok_or(Error::RingTooSmall(0))?;
        let scheme = Scheme::detect(named, first.as_ref())?;
        Ok(match (scheme.falcon_level(), scheme.mayo_params()) {
            (Some(_), _) => AnyRing::Gandalf(Ring::from_public_keys(keys)?),
            (_, Some(p)) => AnyRing::Mayo(mayo_rs::Ring::from_public_keys(p, keys)?),
            (None, None) => {
                let members = keys
                    .iter()
                    .map(|k| alibi_mitaka::VerifyingKey::from_bytes(k.as_ref()))
                    .collect::<Result<Vec<_>, _>>()?;
                AnyRing::Gandalf(Ring::mitaka(&members)?)
            }
        })
    }

    /// The scheme.
    pub fn scheme(&self) -> Scheme {
        match self {
            AnyRing::Gandalf(r) if r.trapdoor() == Trapdoor::AntragMitaka => Scheme::Mitaka512,
            AnyRing::Gandalf(r) => Scheme::falcon(r.level()),
            AnyRing::Mayo(r) if r.params() == Params::Mayo1 => Scheme::Mayo1,
            AnyRing::Mayo(_) => Scheme::Mayo2,
        }
    }

    /// The number of members.
    pub fn len(&self) -> usize {
        match self {
            AnyRing::Gandalf(r) => r.len(),
            AnyRing::Mayo(r) => r.len(),
        }
    }

    /// Never true: a ring has at least two members.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Signs `msg` for this ring with a member's key: the signature's encoding.
    /// [`Error::SignerNotInRing`] for a key of another scheme.
    pub fn sign<R: CryptoRng + ?Sized>(
        &self,
        key: &AnySigningKey,
        msg: &[u8],
        rng: &mut R,
    ) -> Result<Vec<u8>, Error> {
        let sig = match (self, key) {
            (AnyRing::Gandalf(r), AnySigningKey::Falcon(k)) => r.sign(k, msg, rng)?.to_bytes(),
            (AnyRing::Gandalf(r), AnySigningKey::Mitaka(k)) => r.sign(k, msg, rng)?.to_bytes(),
            (AnyRing::Mayo(r), AnySigningKey::Mayo(k)) => r.sign(k, msg, rng)?.to_bytes(),
            _ => return Err(Error::SignerNotInRing),
        };
        Ok(sig)
    }

    /// Decodes `sig` for this ring and verifies it on `msg`: [`Error::InvalidSignature`] exactly
    /// when it decodes but does not verify; any other error says it does not decode.
    pub fn verify(&self, msg: &[u8], sig: &[u8]) -> Result<(), Error> {
        let verified = match self {
            AnyRing::Gandalf(r) => r.verify(msg, &RingSignature::from_bytes(r, sig)?),
            AnyRing::Mayo(r) => r.verify(msg, &mayo_rs::RingSignature::from_bytes(r, sig)?),
        };
        verified.map_err(|_| Error::InvalidSignature)
    }
}
