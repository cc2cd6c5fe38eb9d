//! PQ-AKEM[KEM, GANDALF] as the SHADOWFAX artifact builds it, over ML-KEM with GANDALF[Falcon] or
//! over BAT-257 with GANDALF[Antrag, Mitaka], and the post-quantum key material SHADOWFAX shares
//! with it.
//!
//! Encap(sk_S, pk_R): (ct, kk) = KEM.Encaps(pk_R.ek) with a 48-byte secret kk (the artifact's
//! `kem_encap(kk, 48, ...)`: SHAKE256 of ML-KEM's key, BAT's own expansion);
//! m = ct || pk_S.ek || pk_R.ek || pk_R.h; sigma = ring signature on m by the sender for the ring
//! (pk_S.h, pk_R.h); c_sigma = AES-128-CTR(kk[0..16], zero counter block, sigma);
//! K = SHA3-256(kk[16..48] || c_sigma || pk_S.h || m); C = ct || c_sigma.
//! Decap reverses it and rejects explicitly when the ring signature fails.

use alibi_encoding::LengthChecked;
use alibi_falcon::{ExpandedSigningKey, Level, SigningKey, VerifyingKey};
use alibi_keccak::{Absorb, Sha3_256};
use alibi_ringsig::{Ring, Trapdoor};
use rand_core::CryptoRng;
use zeroize::Zeroizing;

use crate::kem::{DecapsulationKey, EncapsulationKey, Kem};
use crate::mlkem::MlKem;
use crate::primitives::{aes128_ctr, aes_key};
use crate::Error;

/// A choice of KEM and ring-signature parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Suite {
    /// ML-KEM-512 with GANDALF[Falcon-512]: the authors' instantiation (NIST level 1).
    MlKem512Falcon512,
    /// ML-KEM-768 with GANDALF[Falcon-1024]: a higher level (KEM at level 3, signature at 5).
    MlKem768Falcon1024,
    /// BAT-257 with GANDALF[Antrag, Mitaka] at Falcon-512's lattice: the artifact's other
    /// instantiation (seed 001, Table 1).
    Bat257Mitaka512,
}

impl Suite {
    /// Every suite, the authors' instantiation first.
    pub const ALL: [Suite; 3] = [
        Suite::MlKem512Falcon512,
        Suite::MlKem768Falcon1024,
        Suite::Bat257Mitaka512,
    ];

    /// The lower-case name, e.g. "mlkem512-falcon512" (the command line's `--suite`).
    pub fn name(self) -> &'static str {
        match self {
            Suite::MlKem512Falcon512 => "mlkem512-falcon512",
            Suite::MlKem768Falcon1024 => "mlkem768-falcon1024",
            Suite::Bat257Mitaka512 => "bat257-mitaka512",
        }
    }

    /// The KEM.
    pub fn kem(self) -> Kem {
        match self {
            Suite::MlKem512Falcon512 => Kem::MlKem(MlKem::K512),
            Suite::MlKem768Falcon1024 => Kem::MlKem(MlKem::K768),
            Suite::Bat257Mitaka512 => Kem::Bat257,
        }
    }

    /// The ring signature's trapdoor.
    pub fn trapdoor(self) -> Trapdoor {
        match self {
            Suite::Bat257Mitaka512 => Trapdoor::AntragMitaka,
            _ => Trapdoor::Falcon,
        }
    }

    /// The lattice of the ring signature (and of the identity's plain signatures), named by its
    /// Falcon level.
    pub fn falcon(self) -> Level {
        match self {
            Suite::MlKem768Falcon1024 => Level::Falcon1024,
            _ => Level::Falcon512,
        }
    }

    /// Bytes of the headerless public polynomial h.
    pub fn h_len(self) -> usize {
        self.falcon().public_key_len() - 1
    }

    /// Bytes of f, g, F, G at one signed byte per coefficient.
    pub fn ntru_len(self) -> usize {
        4 * self.falcon().n()
    }

    /// Bytes of the two-member ring signature.
    pub fn ring_sig_len(self) -> usize {
        alibi_ringsig::signature_len(self.falcon(), 2)
    }

    /// PQ-AKEM public key: ek || h (1,696 bytes for the standard suite, 1,417 with BAT).
    pub fn pq_public_len(self) -> usize {
        self.kem().ek_len() + self.h_len()
    }

    /// PQ-AKEM secret key: dk || f || g || F || G (3,680 bytes for the standard suite, 5,001 with
    /// BAT).
    pub fn pq_secret_len(self) -> usize {
        self.kem().dk_len() + self.ntru_len()
    }

    /// PQ-AKEM ciphertext: ct || c_sigma (2,044 bytes for the standard suite, 1,749 with BAT).
    pub fn pq_ciphertext_len(self) -> usize {
        self.kem().ct_len() + self.ring_sig_len()
    }
}

impl core::fmt::Display for Suite {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

/// The post-quantum public key: a KEM encapsulation key and a ring member's public key h.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PublicKey {
    suite: Suite,
    pub(crate) ek: EncapsulationKey,
    vk: VerifyingKey,
}

impl PublicKey {
    /// Decodes ek || h.
    pub fn from_bytes(suite: Suite, b: &[u8]) -> Result<Self, Error> {
        Error::check_len("PQ-AKEM public key", suite.pq_public_len(), b.len())?;
        let (ek, h) = b.split_at(suite.kem().ek_len());
        Ok(PublicKey {
            suite,
            ek: EncapsulationKey::from_bytes(suite.kem(), ek)?,
            vk: VerifyingKey::from_h_bytes(suite.falcon(), h)?,
        })
    }

    /// ek || h.
    pub fn to_bytes(&self) -> Vec<u8> {
        [self.ek.as_bytes(), self.vk.h_bytes()].concat()
    }

    /// The suite.
    pub fn suite(&self) -> Suite {
        self.suite
    }

    /// The KEM encapsulation key.
    pub fn ek(&self) -> &[u8] {
        self.ek.as_bytes()
    }

    /// The ring member's public key h, as a key of the Falcon lattice.
    pub fn falcon(&self) -> &VerifyingKey {
        &self.vk
    }

    /// Verifies a plain signature by this identity ([`SecretKey::sign`]): a Falcon signature
    /// for the Falcon suites, a Mitaka signature for BAT's.
    pub fn verify(&self, msg: &[u8], sig: &[u8]) -> Result<(), Error> {
        match self.suite.trapdoor() {
            Trapdoor::Falcon => {
                let sig = alibi_falcon::Signature::from_bytes(sig)?;
                Ok(self.vk.verify(msg, &sig)?)
            }
            Trapdoor::AntragMitaka => {
                let sig = alibi_mitaka::Signature::from_bytes(sig)?;
                alibi_mitaka::VerifyingKey::from_lattice_key(self.vk.clone())?
                    .verify(msg, &sig)
                    .map_err(|_| Error::InvalidSignature)
            }
        }
    }
}

/// The ring member's secret key, of the suite's trapdoor, with its expansion for signing.
enum MemberKey {
    Falcon {
        key: SigningKey,
        expanded: ExpandedSigningKey,
    },
    Mitaka {
        key: alibi_mitaka::SigningKey,
        expanded: alibi_mitaka::ExpandedSigningKey,
    },
}

impl MemberKey {
    fn generate<R: CryptoRng + ?Sized>(suite: Suite, rng: &mut R) -> Self {
        match suite.trapdoor() {
            Trapdoor::Falcon => {
                let key = SigningKey::generate(suite.falcon(), rng);
                MemberKey::Falcon {
                    expanded: key.expand(),
                    key,
                }
            }
            Trapdoor::AntragMitaka => {
                let key = alibi_mitaka::SigningKey::generate(rng);
                MemberKey::Mitaka {
                    expanded: key.expand(),
                    key,
                }
            }
        }
    }

    /// f || g || F || G, one signed byte per coefficient (the artifact's `sign_sk` in both cases).
    fn from_bytes(suite: Suite, ntru: &[u8]) -> Result<Self, Error> {
        match suite.trapdoor() {
            Trapdoor::Falcon => {
                let n = suite.falcon().n();
                let p: Zeroizing<Vec<i8>> = Zeroizing::new(ntru.iter().map(|&x| x as i8).collect());
                let key = SigningKey::from_ntru_polynomials(
                    suite.falcon(),
                    &p[..n],
                    &p[n..2 * n],
                    &p[2 * n..3 * n],
                    &p[3 * n..],
                )?;
                Ok(MemberKey::Falcon {
                    expanded: key.expand(),
                    key,
                })
            }
            Trapdoor::AntragMitaka => {
                let key = alibi_mitaka::SigningKey::from_bytes(ntru)?;
                Ok(MemberKey::Mitaka {
                    expanded: key.expand(),
                    key,
                })
            }
        }
    }

    fn ntru_polynomials(&self) -> [&[i8]; 4] {
        match self {
            MemberKey::Falcon { key, .. } => key.ntru_polynomials(),
            MemberKey::Mitaka { key, .. } => key.ntru_polynomials(),
        }
    }

    fn verifying_key(&self) -> &VerifyingKey {
        match self {
            MemberKey::Falcon { key, .. } => key.verifying_key(),
            MemberKey::Mitaka { key, .. } => key.verifying_key().lattice_key(),
        }
    }
}

/// The post-quantum secret key: a KEM decapsulation key and a ring member's basis (f, g, F, G).
pub struct SecretKey {
    suite: Suite,
    dk: DecapsulationKey,
    member: MemberKey,
    public: PublicKey,
}

impl SecretKey {
    /// A fresh key.
    pub fn generate<R: CryptoRng + ?Sized>(suite: Suite, rng: &mut R) -> Self {
        let (dk, ek) = DecapsulationKey::generate(suite.kem(), rng);
        let member = MemberKey::generate(suite, rng);
        Self::assemble(suite, dk, ek, member)
    }

    fn assemble(
        suite: Suite,
        dk: DecapsulationKey,
        ek: EncapsulationKey,
        member: MemberKey,
    ) -> Self {
        let public = PublicKey {
            suite,
            ek,
            vk: member.verifying_key().clone(),
        };
        SecretKey {
            suite,
            dk,
            member,
            public,
        }
    }

    /// Decodes dk || f || g || F || G (the artifact's layout).
    pub fn from_bytes(suite: Suite, b: &[u8]) -> Result<Self, Error> {
        Error::check_len("PQ-AKEM secret key", suite.pq_secret_len(), b.len())?;
        let (dk, ntru) = b.split_at(suite.kem().dk_len());
        let (dk, ek) = DecapsulationKey::from_bytes(suite.kem(), dk)?;
        let member = MemberKey::from_bytes(suite, ntru)?;
        Ok(Self::assemble(suite, dk, ek, member))
    }

    /// dk || f || g || F || G.
    pub fn to_bytes(&self) -> Zeroizing<Vec<u8>> {
        let mut v = self.dk.to_bytes();
        for p in self.member.ntru_polynomials() {
            v.extend(p.iter().map(|&x| x as u8));
        }
        v
    }

    /// The matching public key.
    pub fn public_key(&self) -> &PublicKey {
        &self.public
    }

    /// A plain signature by the identity's key, for protocols that also sign with it outside a
    /// ring (RingXKEM's prekey and ratchet-key signatures): Falcon's for the Falcon suites,
    /// Mitaka's (650 bytes) for BAT's. [`PublicKey::verify`] checks it.
    pub fn sign<R: CryptoRng + ?Sized>(&self, msg: &[u8], rng: &mut R) -> Vec<u8> {
        match &self.member {
            MemberKey::Falcon { expanded, .. } => expanded.sign(msg, rng).to_bytes(),
            MemberKey::Mitaka { expanded, .. } => expanded.sign(msg, rng).to_bytes(),
        }
    }

    /// The suite.
    pub fn suite(&self) -> Suite {
        self.suite
    }

    pub(crate) fn dk(&self) -> &DecapsulationKey {
        &self.dk
    }
}

/// The ring of an AKEM session: (sender, receiver), in that order.
pub(crate) fn session_ring(sender: &PublicKey, receiver: &PublicKey) -> Result<Ring, Error> {
    if sender.suite != receiver.suite {
        return Err(Error::SuiteMismatch);
    }
    Ok(Ring::with_trapdoor(
        sender.suite.trapdoor(),
        vec![sender.vk.clone(), receiver.vk.clone()],
    )?)
}

/// Signs `m` for the session ring with `signer` (the sender, or the receiver when faking) and
/// encrypts the signature under `aes_key`.
pub(crate) fn sign_and_encrypt<R: CryptoRng + ?Sized>(
    signer: &SecretKey,
    ring: &Ring,
    m: &[u8],
    aes_key: &[u8; 16],
    rng: &mut R,
) -> Result<Vec<u8>, Error> {
    let mut sig = match &signer.member {
        MemberKey::Falcon { expanded, .. } => ring.sign(expanded, m, rng)?,
        MemberKey::Mitaka { expanded, .. } => ring.sign(expanded, m, rng)?,
    }
    .to_bytes();
    aes128_ctr(aes_key, &mut sig);
    Ok(sig)
}

/// The session ring signature's bytes from c_sigma.
fn decrypt(c_sigma: &[u8], aes_key: &[u8; 16]) -> Zeroizing<Vec<u8>> {
    let mut sig = Zeroizing::new(c_sigma.to_vec());
    aes128_ctr(aes_key, &mut sig);
    sig
}

/// Decrypts and verifies the session ring signature on `m`.
pub(crate) fn decrypt_and_verify(
    ring: &Ring,
    c_sigma: &[u8],
    m: &[u8],
    aes_key: &[u8; 16],
) -> Result<(), Error> {
    let sig = decrypt(c_sigma, aes_key);
    // The same work whether the decrypted signature is garbled or only wrong (ringsig's
    // `verify_encoded`): see benches/ct.rs, `pq_akem_decap_invalid`.
    ring.verify_encoded(m, &sig)
        .map_err(|_| Error::InvalidCiphertext)
}

/// [`decrypt_and_verify`], absorbing `parts` into `other` in the same permutations as the ring
/// signature's hash (ringsig's `verify_encoded_absorbing`).
pub(crate) fn decrypt_and_verify_absorbing<A: Absorb>(
    ring: &Ring,
    c_sigma: &[u8],
    m: &[u8],
    aes_key: &[u8; 16],
    other: &mut A,
    parts: &[&[u8]],
) -> Result<(), Error> {
    let sig = decrypt(c_sigma, aes_key);
    ring.verify_encoded_absorbing(m, &sig, other, parts)
        .map_err(|_| Error::InvalidCiphertext)
}

fn signed_message(ct: &[u8], sender: &PublicKey, receiver: &PublicKey) -> Vec<u8> {
    [ct, sender.ek(), receiver.ek(), receiver.vk.h_bytes()].concat()
}

/// K's input: kk[16..48] || c_sigma || pk_S.h || m.
fn session_key_input<'a>(
    kk: &'a [u8; 48],
    c_sigma: &'a [u8],
    sender: &'a PublicKey,
    m: &'a [u8],
) -> [&'a [u8]; 4] {
    [&kk[16..], c_sigma, sender.vk.h_bytes(), m]
}

/// K = SHA3-256 of [`session_key_input`].
fn session_key(kk: &[u8; 48], c_sigma: &[u8], sender: &PublicKey, m: &[u8]) -> Zeroizing<[u8; 32]> {
    let mut h = Sha3_256::new();
    for part in session_key_input(kk, c_sigma, sender, m) {
        h.update(part);
    }
    Zeroizing::new(h.finalize())
}

/// Encapsulation for `signer`, who is the sender (honest) or the receiver (deniability).
fn encap_signed_by<R: CryptoRng + ?Sized>(
    signer: &SecretKey,
    sender: &PublicKey,
    receiver: &PublicKey,
    rng: &mut R,
) -> Result<(Vec<u8>, Zeroizing<[u8; 32]>), Error> {
    let ring = session_ring(sender, receiver)?;
    let mut kk = Zeroizing::new([0u8; 48]);
    let ct = receiver.ek.encapsulate_secret(rng, &mut kk[..])?;
    let m = signed_message(&ct, sender, receiver);
    let c_sigma = sign_and_encrypt(signer, &ring, &m, &aes_key(&kk), rng)?;
    let key = session_key(&kk, &c_sigma, sender, &m);
    Ok(([ct, c_sigma].concat(), key))
}

/// AuthEncap: a ciphertext for `receiver` authenticated by `sender`; returns (C, K).
pub fn encap<R: CryptoRng + ?Sized>(
    sender: &SecretKey,
    receiver: &PublicKey,
    rng: &mut R,
) -> Result<(Vec<u8>, Zeroizing<[u8; 32]>), Error> {
    encap_signed_by(sender, &sender.public, receiver, rng)
}

/// AuthDecap: K from C, if it is authenticated by `sender` (or by the receiver itself: the ring
/// signature cannot tell, which is the point).
pub fn decap(
    receiver: &SecretKey,
    sender: &PublicKey,
    c: &[u8],
) -> Result<Zeroizing<[u8; 32]>, Error> {
    let suite = receiver.suite;
    Error::check_len("PQ-AKEM ciphertext", suite.pq_ciphertext_len(), c.len())?;
    let ring = session_ring(sender, &receiver.public)?;
    let (ct, c_sigma) = c.split_at(suite.kem().ct_len());
    let mut kk = Zeroizing::new([0u8; 48]);
    receiver.dk.decapsulate_secret(ct, &mut kk[..])?;
    let m = signed_message(ct, sender, &receiver.public);
    // K's hash runs beside the ring signature's, two Keccak states per permutation; it is
    // returned only if the signature verifies.
    let mut key = Sha3_256::new();
    let input = session_key_input(&kk, c_sigma, sender, &m);
    decrypt_and_verify_absorbing(&ring, c_sigma, &m, &aes_key(&kk), &mut key, &input)?;
    Ok(Zeroizing::new(key.finalize()))
}

/// Deniability: the receiver alone (its secret key and the sender's public key) makes a ciphertext
/// and key that [`decap`] accepts as coming from `sender`.
pub fn fake_encap<R: CryptoRng + ?Sized>(
    receiver: &SecretKey,
    sender: &PublicKey,
    rng: &mut R,
) -> Result<(Vec<u8>, Zeroizing<[u8; 32]>), Error> {
    encap_signed_by(receiver, sender, &receiver.public, rng)
}
