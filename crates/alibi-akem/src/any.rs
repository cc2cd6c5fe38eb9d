//! Keys of any AKEM configuration ([`Akem`]), chosen at run time, and encapsulation between
//! them: DH-AKEM is RFC 9180's ([`dh::rfc9180`]). Keys decode from the layouts of their
//! modules; the configuration comes from the caller or from [`crate::detect`].
//!
//! ```
//! use alibi_akem::any::{decap, encap, SecretKey};
//! use alibi_akem::detect::Akem;
//! use alibi_akem::pq::Suite;
//! let mut rng = rand_core::UnwrapErr(getrandom::SysRng);
//! let akem = Akem::Shadowfax(Suite::MlKem512Falcon512);
//! let (alice, bob) = (SecretKey::generate(akem, &mut rng), SecretKey::generate(akem, &mut rng));
//! let (c, k) = encap(&alice, &bob.public_key(), &mut rng).unwrap();
//! assert_eq!(c.len(), akem.ciphertext_len());
//! assert_eq!(decap(&bob, &alice.public_key(), &c).unwrap(), k);
//! ```

use rand_core::CryptoRng;
use zeroize::Zeroizing;

use crate::detect::Akem;
use crate::{dh, pq, shadowfax, Error};

/// A secret key of any configuration (the post-quantum keys boxed: they are large, DH-AKEM's
/// is 64 bytes).
pub enum SecretKey {
    /// DH-AKEM.
    Dh(dh::SecretKey),
    /// PQ-AKEM.
    Pq(Box<pq::SecretKey>),
    /// SHADOWFAX.
    Shadowfax(Box<shadowfax::SecretKey>),
}

/// A public key of any configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PublicKey {
    /// DH-AKEM: the X25519 u-coordinate.
    Dh(dh::PublicKey),
    /// PQ-AKEM.
    Pq(pq::PublicKey),
    /// SHADOWFAX.
    Shadowfax(shadowfax::PublicKey),
}

impl SecretKey {
    /// A fresh key of `akem`.
    pub fn generate<R: CryptoRng + ?Sized>(akem: Akem, rng: &mut R) -> Self {
        match akem {
            Akem::Dh => SecretKey::Dh(dh::SecretKey::generate(rng)),
            Akem::Pq(s) => SecretKey::Pq(Box::new(pq::SecretKey::generate(s, rng))),
            Akem::Shadowfax(s) => {
                SecretKey::Shadowfax(Box::new(shadowfax::SecretKey::generate(s, rng)))
            }
        }
    }

    /// Decodes a secret key of `akem`.
    pub fn from_bytes(akem: Akem, b: &[u8]) -> Result<Self, Error> {
        Ok(match akem {
            Akem::Dh => SecretKey::Dh(dh::SecretKey::from_bytes(b)?),
            Akem::Pq(s) => SecretKey::Pq(Box::new(pq::SecretKey::from_bytes(s, b)?)),
            Akem::Shadowfax(s) => {
                SecretKey::Shadowfax(Box::new(shadowfax::SecretKey::from_bytes(s, b)?))
            }
        })
    }

    /// Its module's encoding.
    pub fn to_bytes(&self) -> Zeroizing<Vec<u8>> {
        match self {
            SecretKey::Dh(k) => Zeroizing::new(k.to_bytes().to_vec()),
            SecretKey::Pq(k) => k.to_bytes(),
            SecretKey::Shadowfax(k) => k.to_bytes(),
        }
    }

    /// The matching public key.
    pub fn public_key(&self) -> PublicKey {
        match self {
            SecretKey::Dh(k) => PublicKey::Dh(*k.public_key()),
            SecretKey::Pq(k) => PublicKey::Pq(k.public_key().clone()),
            SecretKey::Shadowfax(k) => PublicKey::Shadowfax(k.public_key().clone()),
        }
    }

    /// The configuration.
    pub fn akem(&self) -> Akem {
        match self {
            SecretKey::Dh(_) => Akem::Dh,
            SecretKey::Pq(k) => Akem::Pq(k.suite()),
            SecretKey::Shadowfax(k) => Akem::Shadowfax(k.public_key().suite()),
        }
    }
}

impl PublicKey {
    /// Decodes a public key of `akem`.
    pub fn from_bytes(akem: Akem, b: &[u8]) -> Result<Self, Error> {
        Ok(match akem {
            Akem::Dh => PublicKey::Dh(dh::array32(b, "X25519 public key")?),
            Akem::Pq(s) => PublicKey::Pq(pq::PublicKey::from_bytes(s, b)?),
            Akem::Shadowfax(s) => PublicKey::Shadowfax(shadowfax::PublicKey::from_bytes(s, b)?),
        })
    }

    /// Its module's encoding.
    pub fn to_bytes(&self) -> Vec<u8> {
        match self {
            PublicKey::Dh(k) => k.to_vec(),
            PublicKey::Pq(k) => k.to_bytes(),
            PublicKey::Shadowfax(k) => k.to_bytes(),
        }
    }

    /// The configuration.
    pub fn akem(&self) -> Akem {
        match self {
            PublicKey::Dh(_) => Akem::Dh,
            PublicKey::Pq(k) => Akem::Pq(k.suite()),
            PublicKey::Shadowfax(k) => Akem::Shadowfax(k.suite()),
        }
    }
}

/// AuthEncap: (C, K) for `receiver`, authenticated by `sender`; [`Error::SchemeMismatch`] for
/// keys of two AKEMs, [`Error::SuiteMismatch`] for keys of two suites.
pub fn encap<R: CryptoRng + ?Sized>(
    sender: &SecretKey,
    receiver: &PublicKey,
    rng: &mut R,
) -> Result<(Vec<u8>, Zeroizing<[u8; 32]>), Error> {
    match (sender, receiver) {
        (SecretKey::Dh(s), PublicKey::Dh(r)) => {
            dh::rfc9180::encap(s, r, rng).map(|(c, k)| (c.to_vec(), k))
        }
        (SecretKey::Pq(s), PublicKey::Pq(r)) => pq::encap(s, r, rng),
        (SecretKey::Shadowfax(s), PublicKey::Shadowfax(r)) => shadowfax::encap(s, r, rng),
        _ => Err(Error::SchemeMismatch),
    }
}

/// AuthDecap: K from C if it authenticates as coming from `sender` (DH-AKEM authenticates
/// implicitly: another sender yields another key); the errors of [`encap`] for mismatched keys.
pub fn decap(
    receiver: &SecretKey,
    sender: &PublicKey,
    c: &[u8],
) -> Result<Zeroizing<[u8; 32]>, Error> {
    match (receiver, sender) {
        (SecretKey::Dh(r), PublicKey::Dh(s)) => dh::rfc9180::decap(r, s, c),
        (SecretKey::Pq(r), PublicKey::Pq(s)) => pq::decap(r, s, c),
        (SecretKey::Shadowfax(r), PublicKey::Shadowfax(s)) => shadowfax::decap(r, s, c),
        _ => Err(Error::SchemeMismatch),
    }
}

/// Deniability: the receiver alone, with its own secret key and the sender's public key, makes a
/// (C, K) that [`decap`] accepts as sent by `sender` (each AKEM's `fake_encap`: RFC 9180's
/// DH-AKEM, [`pq::fake_encap`], [`shadowfax::fake_encap`]); the errors of [`encap`] for
/// mismatched keys.
pub fn fake_encap<R: CryptoRng + ?Sized>(
    receiver: &SecretKey,
    sender: &PublicKey,
    rng: &mut R,
) -> Result<(Vec<u8>, Zeroizing<[u8; 32]>), Error> {
    match (receiver, sender) {
        (SecretKey::Dh(r), PublicKey::Dh(s)) => {
            dh::rfc9180::fake_encap(r, s, rng).map(|(c, k)| (c.to_vec(), k))
        }
        (SecretKey::Pq(r), PublicKey::Pq(s)) => pq::fake_encap(r, s, rng),
        (SecretKey::Shadowfax(r), PublicKey::Shadowfax(s)) => shadowfax::fake_encap(r, s, rng),
        _ => Err(Error::SchemeMismatch),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pq::Suite;
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;

    /// The receiver's forgery decapsulates as the sender's message, at every configuration, and
    /// keys of two configurations are refused.
    #[test]
    fn fake_encap_decapsulates_as_the_senders() {
        let mut rng = ChaCha20Rng::seed_from_u64(7);
        let mut all = vec![Akem::Dh];
        for s in Suite::ALL {
            all.extend([Akem::Pq(s), Akem::Shadowfax(s)]);
        }
        for akem in all {
            let sender = SecretKey::generate(akem, &mut rng);
            let receiver = SecretKey::generate(akem, &mut rng);
            let (c, k) = fake_encap(&receiver, &sender.public_key(), &mut rng).unwrap();
            assert_eq!(c.len(), akem.ciphertext_len(), "{akem:?}");
            let opened = decap(&receiver, &sender.public_key(), &c).unwrap();
            assert_eq!(opened, k, "{akem:?}");
        }
        let dh = SecretKey::generate(Akem::Dh, &mut rng);
        let pq = SecretKey::generate(Akem::Pq(Suite::MlKem512Falcon512), &mut rng);
        assert!(matches!(
            fake_encap(&dh, &pq.public_key(), &mut rng),
            Err(Error::SchemeMismatch)
        ));
    }
}
