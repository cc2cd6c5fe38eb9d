//! MAYO-RS: the deniable ring signature built on MAYO's open preimage sampler (Katsumata, Niot,
//! Tucker, Wiggers, "Comprehensive Deniability Analysis of Signal Handshake Protocols", USENIX
//! Security 2025, ePrint 2025/1090; its Table 3 rows MAYO_1 and MAYO_2), for two members as the
//! paper has it and for rings of N members.
//!
//! Ring (P*_0, ..., P*_{N-1}) of one parameter set, signer j, message msg:
//! 1. a fresh salt; digest = SHAKE256("MAYO-RS" || N (2 bytes, big-endian) || pk_0 || ... ||
//!    pk_{N-1} || msg), the length of MAYO's message digest: the whole ring is bound into the target;
//!    t = Decode(SHAKE256(digest || salt)), as in MAYO's signing;
//! 2. for every other member i, s_i uniformly random in F16^(k n);
//! 3. s_j = the signer's preimage of t - sum_{i != j} P*_i(s_i)
//!    ([`alibi_mayo::SigningKey::sample_preimage`]);
//! 4. signature = Encode(s_0) || ... || Encode(s_{N-1}) || salt: for two members 884 bytes at
//!    MAYO_1 and 348 at MAYO_2.
//!
//! Verification recomputes t and accepts iff sum_i P*_i(s_i) = t.
//!
//! What it guarantees is deniability in the paper's sense, not classical anonymity: a member's
//! MAYO preimage and a uniformly random vector are close in distribution (the paper bounds the
//! distinguishing advantage), not identical.
//!
//! ```
//! use alibi_mayo::{Params, SigningKey};
//! use alibi_ringsig::mayo_rs::{Ring, RingSignature};
//! let mut rng = rand_core::UnwrapErr(getrandom::SysRng);
//! let alice = SigningKey::generate(Params::Mayo2, &mut rng);
//! let bob = SigningKey::generate(Params::Mayo2, &mut rng);
//! let ring = Ring::new(vec![alice.verifying_key().clone(), bob.verifying_key().clone()])?;
//! let sig = ring.sign(&bob, b"we met", &mut rng)?;
//! let bytes = sig.to_bytes();
//! assert_eq!(bytes.len(), 348);
//! ring.verify(b"we met", &RingSignature::from_bytes(&ring, &bytes)?)?;
//! # Ok::<(), alibi_ringsig::Error>(())
//! ```

use alibi_encoding::LengthChecked;
use alibi_mayo::{Params, SigningKey, VerifyingKey};
use rand_core::{CryptoRng, TryCryptoRng};

use crate::ring::{Member, Members};
use crate::Error;

/// Signature length for a ring of `members`: one packed s per member and the salt.
pub const fn signature_len(params: Params, members: usize) -> usize {
    members * params.s_bytes() + params.salt_bytes()
}

/// MAYO keys share a ring by parameter set.
impl Member for VerifyingKey {
    type Params = Params;
    const MIXED: Error = Error::MixedParams;
    fn params(&self) -> Params {
        self.params()
    }
}

/// An ordered ring of MAYO public keys of one parameter set. Order matters: it is hashed.
#[derive(Clone)]
pub struct Ring {
    params: Params,
    members: Members<VerifyingKey>,
    /// SHAKE256 after "MAYO-RS" || N || pk_0 || ... || pk_{N-1}: the digest's prefix, the same
    /// for every signature of the ring (2.8 KB at MAYO_1, 9.8 KB at MAYO_2 for two members),
    /// absorbed once here rather than on every sign and verify.
    prefix: alibi_keccak::Shake256,
}

impl PartialEq for Ring {
    fn eq(&self, other: &Ring) -> bool {
        // The prefix is a function of these two.
        self.params == other.params && self.members == other.members
    }
}

impl Eq for Ring {}

impl core::fmt::Debug for Ring {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Ring")
            .field("params", &self.params)
            .field("members", &self.members)
            .finish()
    }
}

impl Ring {
    /// A ring of 2 to [`MAX_MEMBERS`](crate::MAX_MEMBERS) distinct keys of one parameter set.
    pub fn new(members: Vec<VerifyingKey>) -> Result<Ring, Error> {
        let members = Members::new(members, |_| Ok(()))?;
        let params = members.params();
        let mut prefix = alibi_keccak::Shake256::default();
        prefix.update(b"MAYO-RS");
        prefix.update(&(members.len() as u16).to_be_bytes());
        for m in members.keys() {
            prefix.update(m.as_bytes());
        }
        Ok(Ring {
            params,
            members,
            prefix,
        })
    }

    /// A ring from compact public-key encodings of `params`.
    pub fn from_public_keys<B: AsRef<[u8]>>(params: Params, keys: &[B]) -> Result<Ring, Error> {
        let members = keys
            .iter()
            .map(|k| VerifyingKey::from_bytes(params, k.as_ref()))
            .collect::<Result<Vec<_>, _>>()?;
        Ring::new(members)
    }

    /// The parameter set.
    pub fn params(&self) -> Params {
        self.params
    }

    /// The number of members.
    pub fn len(&self) -> usize {
        self.members.len()
    }

    /// Never true: a ring has at least two members.
    pub fn is_empty(&self) -> bool {
        self.members.len() == 0
    }

    /// The members, in order.
    pub fn members(&self) -> &[VerifyingKey] {
        self.members.keys()
    }

    /// Where `vk` sits in the ring.
    pub fn position(&self, vk: &VerifyingKey) -> Option<usize> {
        self.members.position(|m| m == vk)
    }

    /// Where the member whose compact public key is `pk` sits.
    fn position_of(&self, pk: &[u8]) -> Option<usize> {
        self.members.position(|m| m.as_bytes() == pk)
    }

    /// Signature length for this ring.
    pub fn signature_len(&self) -> usize {
        signature_len(self.params, self.len())
    }

    /// t for `msg` and `salt`, with the ring bound into the digest.
    fn target(&self, msg: &[u8], salt: &[u8]) -> Vec<u8> {
        let p = self.params;
        let mut h = self.prefix.clone();
        h.update(msg);
        let mut digest = vec![0u8; p.digest_bytes()];
        h.finalize_xof().read(&mut digest);
        alibi_mayo::target(p, &digest, salt)
    }

    /// Signs `msg` for this ring with the key of one of its members.
    pub fn sign<R: CryptoRng + ?Sized>(
        &self,
        signer: &SigningKey,
        msg: &[u8],
        rng: &mut R,
    ) -> Result<RingSignature, Error> {
        let p = self.params;
        if signer.params() != p {
            return Err(Error::SignerNotInRing);
        }
        let j = self
            .position_of(signer.public_key_bytes())
            .ok_or(Error::SignerNotInRing)?;
        let len = p.k() * p.n();
        let mut salt = vec![0u8; p.salt_bytes()];
        rng.fill_bytes(&mut salt);
        let mut t = self.target(msg, &salt);
        let mut parts: Vec<Vec<u8>> = Vec::with_capacity(self.len());
        for (i, member) in self.members().iter().enumerate() {
            if i == j {
                parts.push(Vec::new());
                continue;
            }
            let mut bytes = vec![0u8; p.s_bytes()];
            rng.fill_bytes(&mut bytes);
            // An odd k n leaves a padding nibble, which is not part of s: cleared so that the
            // strict decoder takes the random bytes.
            if len % 2 == 1 {
                bytes[len / 2] &= 0x0f;
            }
            let s = alibi_mayo::decode_vector(&bytes, len)?;
            for (a, b) in t.iter_mut().zip(member.evaluate(&s)?) {
                *a ^= b;
            }
            parts.push(s);
        }
        parts[j] = signer.sample_preimage(&t, rng)?;
        Ok(RingSignature {
            params: p,
            parts,
            salt,
        })
    }

    /// Verifies a ring signature on `msg` for this ring.
    pub fn verify(&self, msg: &[u8], sig: &RingSignature) -> Result<(), Error> {
        if sig.params != self.params || sig.parts.len() != self.len() {
            return Err(Error::InvalidSignature);
        }
        let mut sum = vec![0u8; self.params.m()];
        for (member, s) in self.members().iter().zip(&sig.parts) {
            for (a, b) in sum.iter_mut().zip(member.evaluate(s)?) {
                *a ^= b;
            }
        }
        if sum == self.target(msg, &sig.salt) {
            Ok(())
        } else {
            Err(Error::InvalidSignature)
        }
    }
}

/// A MAYO-RS signature: one s per member and the salt.
#[derive(Clone, PartialEq, Eq)]
pub struct RingSignature {
    params: Params,
    parts: Vec<Vec<u8>>,
    salt: Vec<u8>,
}

impl core::fmt::Debug for RingSignature {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "RingSignature({}, {} members)",
            self.params,
            self.parts.len()
        )
    }
}

impl RingSignature {
    /// Decodes a signature for `ring`: the length must fit the ring, and any padding nibble
    /// must be zero.
    pub fn from_bytes(ring: &Ring, bytes: &[u8]) -> Result<RingSignature, Error> {
        let p = ring.params;
        let expected = ring.signature_len();
        if bytes.len() != expected {
            return Err(Error::length("MAYO ring signature", expected, bytes.len()));
        }
        let len = p.k() * p.n();
        let parts = bytes[..ring.len() * p.s_bytes()]
            .chunks_exact(p.s_bytes())
            .enumerate()
            .map(|(i, c)| alibi_mayo::decode_vector(c, len).map_err(|_| Error::Encoding(i)))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(RingSignature {
            params: p,
            parts,
            salt: bytes[ring.len() * p.s_bytes()..].to_vec(),
        })
    }

    /// The encoding: the packed parts in ring order, then the salt.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out: Vec<u8> = self
            .parts
            .iter()
            .flat_map(|s| alibi_mayo::encode_vector(s))
            .collect();
        out.extend_from_slice(&self.salt);
        out
    }

    /// The parts s_i, one element of F16 per byte.
    pub fn parts(&self) -> &[Vec<u8>] {
        &self.parts
    }

    /// The salt.
    pub fn salt(&self) -> &[u8] {
        &self.salt
    }

    /// The parameter set.
    pub fn params(&self) -> Params {
        self.params
    }
}

/// A member's key bound to a ring, for the RustCrypto `signature` traits.
pub struct RingSigner {
    ring: Ring,
    key: SigningKey,
}

impl RingSigner {
    /// Binds `key` to `ring`; fails if it is not a member.
    pub fn new(ring: Ring, key: SigningKey) -> Result<Self, Error> {
        ring.position_of(key.public_key_bytes())
            .ok_or(Error::SignerNotInRing)?;
        Ok(RingSigner { ring, key })
    }

    /// The ring.
    pub fn ring(&self) -> &Ring {
        &self.ring
    }
}

impl signature::RandomizedSigner<RingSignature> for RingSigner {
    fn try_sign_with_rng<R: TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        msg: &[u8],
    ) -> Result<RingSignature, signature::Error> {
        alibi_encoding::sign_seeded(rng, |stream| self.ring.sign(&self.key, msg, stream))?
            .map_err(|_| signature::Error::new())
    }
}

impl signature::Verifier<RingSignature> for Ring {
    fn verify(&self, msg: &[u8], sig: &RingSignature) -> Result<(), signature::Error> {
        Ring::verify(self, msg, sig).map_err(|_| signature::Error::new())
    }
}
