//! GANDALF: deniable ring signatures from Falcon, as the SHADOWFAX authors' code builds
//! GANDALF[Falcon] (Gajland, Janneck, Kiltz, CRYPTO 2024; the artifact of "SHADOWFAX", USENIX
//! Security 2026), for two members as published and for rings of N members (our extension), at
//! Falcon-512 and Falcon-1024; and GANDALF[Antrag, Mitaka] on Falcon-512's lattice.
//!
//! ## The construction (two members; N members below)
//! Ring (h_0, h_1), signer j with Falcon trapdoor for h_j, message m:
//! 1. a fresh 24-byte salt; c = HashToPoly(SHAKE128(m || h_0 || h_1 || salt)), reading 16-bit
//!    little-endian words below 5q = 61445, reduced mod q;
//! 2. for the non-signer i: u_i from the discrete Gaussian D_{Z, sigma}^n, sigma = Falcon's signing
//!    sigma ([`alibi_falcon::DiscreteGaussian`]);
//! 3. (v, u_j) = Falcon's trapdoor preimage of c - h_i u_i under h_j, so that
//!    v + h_0 u_0 + h_1 u_1 = c;
//! 4. accept iff ||u_0||^2 + ||u_1||^2 + ||v||^2 <= floor(beta^2), beta = 1.22 sigma sqrt(3n)
//!    (62,798,289 for Falcon-512), and every u_i compresses into its block; else restart from 1;
//! 5. signature = comp(u_0) || comp(u_1) || salt, each comp a zero-padded block of Falcon's
//!    compressed encoding (626 bytes for Falcon-512: 1,276 bytes in all).
//!
//! Verification recomputes c, decodes every u_i strictly (non-zero padding is rejected, unlike the
//! artifact, which ignores its decoder's verdict), sets v = c - sum h_i u_i mod q (centred) and checks
//! the same bound.
//!
//! ## GANDALF[Antrag, Mitaka]
//! The same construction over keys from Antrag's key generation, with the Mitaka sampler as the
//! trapdoor ([`Trapdoor::AntragMitaka`], keys from `alibi-mitaka`), as the artifact's
//! `GandalfMitaka` folder builds it: Falcon-512's lattice and public keys, the same hash and the
//! same 1,276-byte layout; sigma = r alpha sqrt(q) = 162.90 (r Falcon-512's smoothing parameter,
//! alpha = 1.15) for the Gaussian parts and the sampler alike, and floor(beta^2) = 60,669,689 for two
//! members by the same rule beta = 1.22 sigma sqrt((N + 1) n). One difference of encoding: the
//! artifact's signer writes each compressed u_i into its block without clearing the bytes after
//! it, and its verifier ignores them, so a verifier of this variant ignores the whole bytes after
//! each block's body too (they are malleable; the unused bits of the body's last byte must still
//! be zero). Our signer writes zeros there.
//!
//! ## N members (beyond the papers)
//! All N keys are hashed in ring order; N - 1 parts are Gaussian, the signer's is the trapdoor
//! preimage. The bound is beta^2 = (1.22 sigma)^2 (N + 1) n: the acceptance vector (u_0..u_{N-1}, v)
//! has (N + 1) n coordinates, each of variance about sigma^2, so its squared norm concentrates at
//! (N + 1) n sigma^2 and the factor 1.22^2 = 1.49 leaves the same relative slack as Falcon's own
//! bound for every N (the rejection probability falls as N grows). For N = 2 this is exactly the
//! artifact's bound. Size and time grow linearly in N.
//!
//! ## Guarantee: deniability, not anonymity
//! The signer's part is a Falcon lattice-Gaussian sample, the others are plain discrete Gaussians of
//! the same sigma. Their distributions are close but not identical, so this is not an anonymous ring
//! signature in the classical sense: a verifier holding no secret key gets at most a bounded
//! advantage in telling who signed, which is the differential-privacy-style deniability metric of
//! Katsumata, Niot, Tucker and Wiggers (USENIX Security 2025, ePrint 2025/1090). That paper's own
//! FalconRS text and artifact were not available to us; where FalconRS may differ from GANDALF we
//! follow GANDALF as the SHADOWFAX artifact implements it, and offer no separate variant.
//!
//! Side channels: the Gaussian parts and the trapdoor preimage come from constant-time samplers
//! (up to their rejection counts); which member signs changes which code draws which part, and the
//! whole signature is resampled on rejection, so the signer's index does not steer a branch whose
//! timing depends on secret values. Signing keys are zeroized on drop (see `alibi-falcon`).

use alibi_encoding::LengthChecked;
use alibi_falcon::{
    compress_padded, norm_sq, sub_centered, sum_mul_h, DiscreteGaussian, ExpandedSigningKey, Level,
    Preimage, VerifyingKey, Q,
};
use alibi_keccak::{absorb_pair_read, Absorb, Shake128};
use rand_core::{CryptoRng, TryCryptoRng};
use std::sync::OnceLock;

use crate::ring::{Member, Members};
use crate::Error;

/// Length of the per-signature salt.
pub const SALT_LEN: usize = 24;

/// The trapdoor (key generation and preimage sampler) of a ring's members.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Trapdoor {
    /// Falcon keys (NTRUGen) and Falcon's ffSampling: GANDALF[Falcon].
    Falcon,
    /// Antrag keys and the Mitaka sampler, at Falcon-512's lattice: GANDALF[Antrag, Mitaka].
    AntragMitaka,
}

impl core::fmt::Display for Trapdoor {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Trapdoor::Falcon => "GANDALF[Falcon]",
            Trapdoor::AntragMitaka => "GANDALF[Antrag, Mitaka]",
        })
    }
}

impl Trapdoor {
    /// The width of every part: Falcon's signing sigma, or Mitaka's r alpha sqrt(q).
    pub fn sigma(self, level: Level) -> f64 {
        match self {
            Trapdoor::Falcon => level.sigma(),
            Trapdoor::AntragMitaka => alibi_mitaka::sigma(),
        }
    }

    /// floor(beta^2) for a ring of `members` at `level`: (1.22 sigma)^2 (members + 1) n.
    pub fn bound(self, level: Level, members: usize) -> u64 {
        let b = 1.22 * self.sigma(level);
        (b * b * ((members + 1) * level.n()) as f64).floor() as u64
    }

    /// Decodes one block: zero padding for GANDALF[Falcon]; the bytes after the body ignored for
    /// GANDALF[Antrag, Mitaka], as the artifact does.
    fn decode_block(self, b: &[u8], n: usize) -> Result<Vec<i16>, alibi_falcon::Error> {
        match self {
            Trapdoor::Falcon => alibi_falcon::decompress_padded(b, n),
            Trapdoor::AntragMitaka => alibi_falcon::decompress_prefix_block(b, n),
        }
    }

    /// [`Self::decode_block`] with uniform work and a validity flag.
    fn decode_block_uniform(self, b: &[u8], n: usize) -> (Vec<i16>, bool) {
        match self {
            Trapdoor::Falcon => alibi_falcon::decompress_padded_uniform(b, n),
            Trapdoor::AntragMitaka => alibi_falcon::decompress_prefix_block_uniform(b, n),
        }
    }

    fn gaussian(self, level: Level) -> &'static DiscreteGaussian {
        static G: [OnceLock<DiscreteGaussian>; 3] =
            [OnceLock::new(), OnceLock::new(), OnceLock::new()];
        let i = match (self, level) {
            (Trapdoor::Falcon, Level::Falcon512) => 0,
            (Trapdoor::Falcon, Level::Falcon1024) => 1,
            (Trapdoor::AntragMitaka, _) => 2,
        };
        G[i].get_or_init(|| {
            DiscreteGaussian::new(self.sigma(level)).expect("both sigmas are in range")
        })
    }
}

/// A member's key that can sign for a ring: it names its trapdoor and its public polynomial h,
/// and samples short preimages (s1, s2) with s1 + s2 h = c.
pub trait RingSigningKey {
    /// The trapdoor this key is for.
    fn trapdoor(&self) -> Trapdoor;
    /// The public polynomial h.
    fn h(&self) -> &[u16];
    /// One short preimage of the target c (coefficients in [0, q)).
    fn sample_preimage<R: CryptoRng + ?Sized>(
        &self,
        c: &[u16],
        rng: &mut R,
    ) -> Result<Preimage, Error>;
}

impl RingSigningKey for ExpandedSigningKey {
    fn trapdoor(&self) -> Trapdoor {
        Trapdoor::Falcon
    }
    fn h(&self) -> &[u16] {
        ExpandedSigningKey::h(self)
    }
    fn sample_preimage<R: CryptoRng + ?Sized>(
        &self,
        c: &[u16],
        rng: &mut R,
    ) -> Result<Preimage, Error> {
        Ok(ExpandedSigningKey::sample_preimage(self, c, rng)?)
    }
}

impl RingSigningKey for alibi_mitaka::ExpandedSigningKey {
    fn trapdoor(&self) -> Trapdoor {
        Trapdoor::AntragMitaka
    }
    fn h(&self) -> &[u16] {
        alibi_mitaka::ExpandedSigningKey::h(self)
    }
    fn sample_preimage<R: CryptoRng + ?Sized>(
        &self,
        c: &[u16],
        rng: &mut R,
    ) -> Result<Preimage, Error> {
        Ok(alibi_mitaka::ExpandedSigningKey::sample_preimage(
            self, c, rng,
        )?)
    }
}

/// Bytes of one compressed block: the Falcon signature body bound plus one, as the artifact has it
/// for Falcon-512 (666 - 41 + 1 = 626); 1,240 for Falcon-1024 by the same rule.
pub const fn block_len(level: Level) -> usize {
    level.sig_max_len() - 1 - alibi_falcon::SALT_LEN + 1
}

/// floor(beta^2) for a GANDALF[Falcon] ring of `members` at `level`: (1.22 sigma)^2 (members + 1) n
/// ([`Trapdoor::bound`] for either trapdoor).
pub fn bound(level: Level, members: usize) -> u64 {
    Trapdoor::Falcon.bound(level, members)
}

/// Signature length for a ring of `members` at `level`: N blocks and the salt.
pub const fn signature_len(level: Level, members: usize) -> usize {
    members * block_len(level) + SALT_LEN
}

/// Falcon-lattice keys share a ring by level.
impl Member for VerifyingKey {
    type Params = Level;
    const MIXED: Error = Error::MixedLevels;
    fn params(&self) -> Level {
        self.level()
    }
}

/// An ordered ring of Falcon-lattice public keys of one level and trapdoor. Order matters: it is
/// hashed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ring {
    trapdoor: Trapdoor,
    level: Level,
    members: Members<VerifyingKey>,
    /// h_0 || h_1 || ... in the 14-bit headerless packing, as hashed.
    encoded: Vec<u8>,
}

impl Ring {
    /// A GANDALF[Falcon] ring of 2 to [`MAX_MEMBERS`](crate::MAX_MEMBERS) distinct keys of one
    /// level.
    pub fn new(members: Vec<VerifyingKey>) -> Result<Ring, Error> {
        Ring::with_trapdoor(Trapdoor::Falcon, members)
    }

    /// A ring of 2 to [`MAX_MEMBERS`](crate::MAX_MEMBERS) distinct keys of one level for the given
    /// trapdoor (Falcon-512 keys only for [`Trapdoor::AntragMitaka`]).
    pub fn with_trapdoor(trapdoor: Trapdoor, members: Vec<VerifyingKey>) -> Result<Ring, Error> {
        let members = Members::new(members, |level| {
            if trapdoor == Trapdoor::AntragMitaka && level != Level::Falcon512 {
                return Err(Error::MitakaLevel);
            }
            Ok(())
        })?;
        let level = members.params();
        let mut encoded = Vec::with_capacity(members.len() * (level.public_key_len() - 1));
        for m in members.keys() {
            encoded.extend_from_slice(m.h_bytes());
        }
        Ok(Ring {
            trapdoor,
            level,
            members,
            encoded,
        })
    }

    /// A GANDALF[Antrag, Mitaka] ring of 2 to [`MAX_MEMBERS`](crate::MAX_MEMBERS) distinct Antrag
    /// public keys.
    pub fn mitaka(members: &[alibi_mitaka::VerifyingKey]) -> Result<Ring, Error> {
        Ring::with_trapdoor(
            Trapdoor::AntragMitaka,
            members.iter().map(|m| m.lattice_key().clone()).collect(),
        )
    }

    /// A GANDALF[Falcon] ring from standard Falcon public-key encodings (897 / 1,793 bytes each).
    pub fn from_public_keys<B: AsRef<[u8]>>(keys: &[B]) -> Result<Ring, Error> {
        let members = keys
            .iter()
            .map(|k| VerifyingKey::from_bytes(k.as_ref()))
            .collect::<Result<Vec<_>, _>>()?;
        Ring::new(members)
    }

    /// The members' trapdoor.
    pub fn trapdoor(&self) -> Trapdoor {
        self.trapdoor
    }

    /// The Falcon level of every member.
    pub fn level(&self) -> Level {
        self.level
    }

    /// Number of members.
    pub fn len(&self) -> usize {
        self.members.len()
    }

    /// Always false: a ring has at least two members.
    pub fn is_empty(&self) -> bool {
        self.members.len() == 0
    }

    /// The members, in ring order.
    pub fn members(&self) -> &[VerifyingKey] {
        self.members.keys()
    }

    /// Where `vk` sits in the ring.
    pub fn position(&self, vk: &VerifyingKey) -> Option<usize> {
        self.position_of(vk.h())
    }

    /// Where the member whose public polynomial is `h` sits (the ring is of one level, so h
    /// alone identifies a key).
    fn position_of(&self, h: &[u16]) -> Option<usize> {
        self.members.position(|m| m.h() == h)
    }

    /// floor(beta^2) for this ring.
    pub fn bound(&self) -> u64 {
        self.trapdoor.bound(self.level, self.len())
    }

    /// Signature length for this ring.
    pub fn signature_len(&self) -> usize {
        signature_len(self.level, self.len())
    }

    /// c = HashToPoly(SHAKE128(m || h_0 || ... || h_{N-1} || salt)): 16-bit little-endian words
    /// below 5q, reduced mod q.
    pub fn hash_to_poly(&self, msg: &[u8], salt: &[u8; SALT_LEN]) -> Vec<u16> {
        alibi_falcon::shake128_to_poly(&[msg, &self.encoded, salt], self.level.n())
    }

    /// Signs `msg` for this ring with the expanded key of one of its members (a Falcon
    /// [`ExpandedSigningKey`] or an [`alibi_mitaka::ExpandedSigningKey`], as the ring's trapdoor).
    pub fn sign<K: RingSigningKey + ?Sized, R: CryptoRng + ?Sized>(
        &self,
        signer: &K,
        msg: &[u8],
        rng: &mut R,
    ) -> Result<RingSignature, Error> {
        if signer.trapdoor() != self.trapdoor {
            return Err(Error::TrapdoorMismatch(signer.trapdoor(), self.trapdoor));
        }
        // By h, which the expanded key holds: building its VerifyingKey would cost an NTT.
        let j = self.position_of(signer.h()).ok_or(Error::SignerNotInRing)?;
        let level = self.level;
        let n = level.n();
        let gauss = self.trapdoor.gaussian(level);
        let blen = block_len(level);
        loop {
            let mut salt = [0u8; SALT_LEN];
            rng.fill_bytes(&mut salt);
            let c = self.hash_to_poly(msg, &salt);
            let mut us: Vec<Vec<i16>> = (0..self.len())
                .map(|i| {
                    if i == j {
                        Vec::new()
                    } else {
                        gauss.sample_poly(n, rng)
                    }
                })
                .collect();
            let terms: Vec<(&VerifyingKey, &[i16])> = self
                .members()
                .iter()
                .zip(&us)
                .filter(|(_, u)| !u.is_empty())
                .map(|(m, u)| (m, u.as_slice()))
                .collect();
            let acc = sum_mul_h(&terms)?;
            // The signer's target: c_j = c - sum_{i != j} h_i u_i = v + h_j u_j.
            let cj: Vec<u16> = c
                .iter()
                .zip(&acc)
                .map(|(&a, &b)| ((a as u32 + Q - b as u32) % Q) as u16)
                .collect();
            let p = signer.sample_preimage(&cj, rng)?;
            us[j] = p.s2;
            let norm = norm_sq(&p.s1, &[]) + us.iter().map(|u| norm_sq(u, &[])).sum::<u64>();
            if norm > self.bound() {
                continue;
            }
            let Some(blocks) = us
                .iter()
                .map(|u| compress_padded(u, blen))
                .collect::<Option<Vec<_>>>()
            else {
                continue;
            };
            return Ok(RingSignature {
                trapdoor: self.trapdoor,
                level,
                us,
                salt,
                blocks,
            });
        }
    }

    /// Verifies a ring signature on `msg` for this ring.
    pub fn verify(&self, msg: &[u8], sig: &RingSignature) -> Result<(), Error> {
        if sig.trapdoor != self.trapdoor || sig.level != self.level || sig.us.len() != self.len() {
            return Err(Error::InvalidSignature);
        }
        self.verify_hashed(&self.hash_to_poly(msg, &sig.salt), &sig.us)
    }

    /// The check once c = HashToPoly(m || ring || salt) is known: v = c - sum h_i u_i, and the
    /// norm of (u_0, ..., u_{N-1}, v).
    fn verify_hashed(&self, c: &[u16], us: &[Vec<i16>]) -> Result<(), Error> {
        let terms: Vec<(&VerifyingKey, &[i16])> = self
            .members()
            .iter()
            .zip(us)
            .map(|(m, u)| (m, u.as_slice()))
            .collect();
        // v = c - sum h_i u_i, centred; the bound covers (u_0, ..., u_{N-1}, v).
        let v = sub_centered(c, &sum_mul_h(&terms)?);
        let norm = norm_sq(&v, &[]) + us.iter().map(|u| norm_sq(u, &[])).sum::<u64>();
        if norm <= self.bound() {
            Ok(())
        } else {
            Err(Error::InvalidSignature)
        }
    }
}

impl Ring {
    /// Decodes `bytes` as a signature for this ring and verifies it on `msg`, doing the same work
    /// whether and wherever decoding fails: every block is decompressed (one that does not decode
    /// counts as zero) and the verification always runs; only the length is checked first.
    ///
    /// For decapsulation (alibi-akem's PQ-AKEM and SHADOWFAX), where the signature is encrypted
    /// and known only to the two parties: with [`RingSignature::from_bytes`] then
    /// [`Ring::verify`], a receiver refuses a garbled signature at once and a well-formed but
    /// wrong one only after the verification, so the time of a refusal would tell an attacker
    /// who modifies ciphertexts about the decrypted signature. Decompression itself still takes
    /// time that depends on the coefficients, as Falcon's reference decoder does (docs/SECURITY.md
    /// gives the measured difference).
    pub fn verify_encoded(&self, msg: &[u8], bytes: &[u8]) -> Result<(), Error> {
        let (body, salt) = self.split_encoded(bytes)?;
        self.verify_blocks(&self.hash_to_poly(msg, salt), body)
    }

    /// [`Ring::verify_encoded`], with the input of another hash absorbed in the same Keccak
    /// permutations as the ring's own SHAKE128, two states per permutation
    /// ([`alibi_keccak::absorb_pair_read`]): PQ-AKEM's decapsulation hashes its session key's input,
    /// about as long as the ring's, this way. After the length check, `other` takes
    /// `other_parts` whatever the outcome.
    pub fn verify_encoded_absorbing<A: Absorb>(
        &self,
        msg: &[u8],
        bytes: &[u8],
        other: &mut A,
        other_parts: &[&[u8]],
    ) -> Result<(), Error> {
        let (body, salt) = self.split_encoded(bytes)?;
        let n = self.level.n();
        // The words HashToPoly reads: 2n bytes if every word were kept; 15/16 are (below 5q),
        // so 2n + n/4 is nearly always enough, and the reader squeezes on if not.
        let parts = [msg, &self.encoded[..], &salt[..]];
        let h = absorb_pair_read(Shake128::new(), &parts, 2 * n + n / 4, other, other_parts);
        let c = alibi_falcon::shake128_poly(h, n);
        self.verify_blocks(&c, body)
    }

    /// The blocks and the salt of an encoded signature of this ring's length.
    fn split_encoded<'a>(&self, bytes: &'a [u8]) -> Result<(&'a [u8], &'a [u8; SALT_LEN]), Error> {
        let want = self.signature_len();
        if bytes.len() != want {
            return Err(Error::length("ring signature", want, bytes.len()));
        }
        let (body, salt) = bytes.split_at(self.len() * block_len(self.level));
        let salt = salt.try_into().map_err(|_| Error::InvalidSignature)?;
        Ok((body, salt))
    }

    /// Every block decompressed (one that does not decode counts as zero), then the check.
    fn verify_blocks(&self, c: &[u16], body: &[u8]) -> Result<(), Error> {
        let n = self.level.n();
        let mut decoded = true;
        let us: Vec<Vec<i16>> = body
            .chunks_exact(block_len(self.level))
            .map(|b| {
                let (u, ok) = self.trapdoor.decode_block_uniform(b, n);
                decoded &= ok;
                u
            })
            .collect();
        let verified = self.verify_hashed(c, &us).is_ok();
        if decoded & verified {
            Ok(())
        } else {
            Err(Error::InvalidSignature)
        }
    }
}

/// A ring signature: one short polynomial u_i per member and the salt.
#[derive(Clone, PartialEq, Eq)]
pub struct RingSignature {
    trapdoor: Trapdoor,
    level: Level,
    us: Vec<Vec<i16>>,
    salt: [u8; SALT_LEN],
    blocks: Vec<Vec<u8>>,
}

impl core::fmt::Debug for RingSignature {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "RingSignature({}, {} members)",
            self.level,
            self.us.len()
        )
    }
}

impl RingSignature {
    /// Decodes a signature made for `ring`: N compressed blocks, then the salt. For
    /// GANDALF[Falcon] any non-zero padding bit is rejected; for GANDALF[Antrag, Mitaka] the
    /// bytes after each body are ignored, as the artifact does.
    pub fn from_bytes(ring: &Ring, bytes: &[u8]) -> Result<RingSignature, Error> {
        let level = ring.level;
        let want = ring.signature_len();
        if bytes.len() != want {
            return Err(Error::length("ring signature", want, bytes.len()));
        }
        let blen = block_len(level);
        let (body, salt_bytes) = bytes.split_at(ring.len() * blen);
        let mut us = Vec::with_capacity(ring.len());
        let mut blocks = Vec::with_capacity(ring.len());
        for (i, b) in body.chunks_exact(blen).enumerate() {
            us.push(
                ring.trapdoor
                    .decode_block(b, level.n())
                    .map_err(|_| Error::Encoding(i))?,
            );
            blocks.push(b.to_vec());
        }
        let mut salt = [0u8; SALT_LEN];
        salt.copy_from_slice(salt_bytes);
        Ok(RingSignature {
            trapdoor: ring.trapdoor,
            level,
            us,
            salt,
            blocks,
        })
    }

    /// The encoding comp(u_0) || ... || comp(u_{N-1}) || salt.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.blocks.len() * block_len(self.level) + SALT_LEN);
        for b in &self.blocks {
            out.extend_from_slice(b);
        }
        out.extend_from_slice(&self.salt);
        out
    }

    /// The per-member polynomials u_i, in ring order.
    pub fn parts(&self) -> &[Vec<i16>] {
        &self.us
    }

    /// The salt.
    pub fn salt(&self) -> &[u8; SALT_LEN] {
        &self.salt
    }

    /// The Falcon level.
    pub fn level(&self) -> Level {
        self.level
    }

    /// The trapdoor of the ring it was made for.
    pub fn trapdoor(&self) -> Trapdoor {
        self.trapdoor
    }
}

/// A member's signing key bound to a ring: implements the RustCrypto `RandomizedSigner`. `K` is a
/// Falcon [`ExpandedSigningKey`] (the default) or an [`alibi_mitaka::ExpandedSigningKey`].
pub struct RingSigner<K: RingSigningKey = ExpandedSigningKey> {
    ring: Ring,
    key: K,
}

impl<K: RingSigningKey> RingSigner<K> {
    /// Binds `key` to `ring`; fails if the key is not a member or not of the ring's trapdoor.
    pub fn new(ring: Ring, key: K) -> Result<Self, Error> {
        if key.trapdoor() != ring.trapdoor {
            return Err(Error::TrapdoorMismatch(key.trapdoor(), ring.trapdoor));
        }
        ring.position_of(key.h()).ok_or(Error::SignerNotInRing)?;
        Ok(RingSigner { ring, key })
    }

    /// The ring.
    pub fn ring(&self) -> &Ring {
        &self.ring
    }
}

impl<K: RingSigningKey> signature::RandomizedSigner<RingSignature> for RingSigner<K> {
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
