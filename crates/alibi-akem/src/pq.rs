//! PQ-AKEM[ML-KEM, GANDALF[Falcon]] as the SHADOWFAX artifact builds it, and the post-quantum key
//! material SHADOWFAX shares with it.
//!
//! Encap(sk_S, pk_R): (ct, ss) = ML-KEM.Encaps(pk_R.ek); kk = SHAKE256(ss, 48 bytes);
//! m = ct || pk_S.ek || pk_R.ek || pk_R.h; sigma = ring signature on m by the sender for the ring
//! (pk_S.h, pk_R.h); c_sigma = AES-128-CTR(kk[0..16], zero counter block, sigma);
//! K = SHA3-256(kk[16..48] || c_sigma || pk_S.h || m); C = ct || c_sigma.
//! Decap reverses it and rejects explicitly when the ring signature fails.

use alibi_encoding::LengthChecked;
use alibi_falcon::{ExpandedSigningKey, Level, SigningKey, VerifyingKey};
use alibi_ringsig::Ring;
use rand_core::CryptoRng;
use sha3::{Digest, Sha3_256};
use zeroize::Zeroizing;

use crate::mlkem::MlKem;
use crate::primitives::{aes128_ctr, aes_key, shake256};
use crate::Error;

/// A choice of ML-KEM and Falcon parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Suite {
    /// ML-KEM-512 with GANDALF[Falcon-512]: the authors' instantiation (NIST level 1).
    MlKem512Falcon512,
    /// ML-KEM-768 with GANDALF[Falcon-1024]: a higher level (KEM at level 3, signature at 5).
    MlKem768Falcon1024,
}

impl Suite {
    /// The ML-KEM parameter set.
    pub fn kem(self) -> MlKem {
        match self {
            Suite::MlKem512Falcon512 => MlKem::K512,
            Suite::MlKem768Falcon1024 => MlKem::K768,
        }
    }

    /// The Falcon level of the ring signature.
    pub fn falcon(self) -> Level {
        match self {
            Suite::MlKem512Falcon512 => Level::Falcon512,
            Suite::MlKem768Falcon1024 => Level::Falcon1024,
        }
    }

    /// Bytes of the headerless Falcon public polynomial h.
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

    /// PQ-AKEM public key: ek || h (1,696 bytes for the standard suite).
    pub fn pq_public_len(self) -> usize {
        self.kem().ek_len() + self.h_len()
    }

    /// PQ-AKEM secret key: dk || f || g || F || G (3,680 bytes for the standard suite).
    pub fn pq_secret_len(self) -> usize {
        self.kem().dk_len() + self.ntru_len()
    }

    /// PQ-AKEM ciphertext: ct || c_sigma (2,044 bytes for the standard suite).
    pub fn pq_ciphertext_len(self) -> usize {
        self.kem().ct_len() + self.ring_sig_len()
    }
}

/// The post-quantum public key: an ML-KEM encapsulation key and a Falcon public key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PqPublicKey {
    suite: Suite,
    ek: Vec<u8>,
    vk: VerifyingKey,
}

impl PqPublicKey {
    /// Decodes ek || h.
    pub fn from_bytes(suite: Suite, b: &[u8]) -> Result<Self, Error> {
        Error::check_len("PQ-AKEM public key", suite.pq_public_len(), b.len())?;
        let (ek, h) = b.split_at(suite.kem().ek_len());
        Ok(PqPublicKey {
            suite,
            ek: ek.to_vec(),
            vk: VerifyingKey::from_h_bytes(suite.falcon(), h)?,
        })
    }

    /// ek || h.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut v = self.ek.clone();
        v.extend_from_slice(self.vk.h_bytes());
        v
    }

    /// The suite.
    pub fn suite(&self) -> Suite {
        self.suite
    }

    /// The ML-KEM encapsulation key.
    pub fn ek(&self) -> &[u8] {
        &self.ek
    }

    /// The Falcon (ring-member) public key.
    pub fn falcon(&self) -> &VerifyingKey {
        &self.vk
    }
}

/// The post-quantum secret key: an ML-KEM decapsulation key and a Falcon basis (f, g, F, G).
pub struct PqSecretKey {
    suite: Suite,
    dk: Zeroizing<Vec<u8>>,
    falcon: SigningKey,
    expanded: ExpandedSigningKey,
    public: PqPublicKey,
}

impl PqSecretKey {
    /// A fresh key.
    pub fn generate(suite: Suite, rng: &mut impl CryptoRng) -> Self {
        let (dk, ek) = suite.kem().generate(rng);
        let falcon = SigningKey::generate(suite.falcon(), rng);
        Self::assemble(suite, dk, ek, falcon)
    }

    fn assemble(suite: Suite, dk: Zeroizing<Vec<u8>>, ek: Vec<u8>, falcon: SigningKey) -> Self {
        let public = PqPublicKey {
            suite,
            ek,
            vk: falcon.verifying_key(),
        };
        PqSecretKey {
            suite,
            expanded: falcon.expand(),
            dk,
            falcon,
            public,
        }
    }

    /// Decodes dk || f || g || F || G (the artifact's layout).
    pub fn from_bytes(suite: Suite, b: &[u8]) -> Result<Self, Error> {
        Error::check_len("PQ-AKEM secret key", suite.pq_secret_len(), b.len())?;
        let (dk, ntru) = b.split_at(suite.kem().dk_len());
        suite.kem().check_dk(dk)?;
        let n = suite.falcon().n();
        let p: Vec<i8> = ntru.iter().map(|&x| x as i8).collect();
        let falcon = SigningKey::from_ntru_polynomials(
            suite.falcon(),
            &p[..n],
            &p[n..2 * n],
            &p[2 * n..3 * n],
            &p[3 * n..],
        )?;
        let ek = suite.kem().ek_of_dk(dk)?;
        Ok(Self::assemble(
            suite,
            Zeroizing::new(dk.to_vec()),
            ek,
            falcon,
        ))
    }

    /// dk || f || g || F || G.
    pub fn to_bytes(&self) -> Zeroizing<Vec<u8>> {
        let mut v = Zeroizing::new(self.dk.to_vec());
        for p in self.falcon.ntru_polynomials() {
            v.extend(p.iter().map(|&x| x as u8));
        }
        v
    }

    /// The matching public key.
    pub fn public_key(&self) -> &PqPublicKey {
        &self.public
    }

    /// The Falcon key (expanded for signing), for protocols that also sign plainly with the
    /// identity, such as RingXKEM's prekey signatures.
    pub fn falcon_signing_key(&self) -> &ExpandedSigningKey {
        &self.expanded
    }

    /// The suite.
    pub fn suite(&self) -> Suite {
        self.suite
    }

    pub(crate) fn dk(&self) -> &[u8] {
        &self.dk
    }
}

/// The ring of an AKEM session: (sender, receiver), in that order.
pub(crate) fn session_ring(sender: &PqPublicKey, receiver: &PqPublicKey) -> Result<Ring, Error> {
    if sender.suite != receiver.suite {
        return Err(Error::SuiteMismatch);
    }
    Ok(Ring::new(vec![sender.vk.clone(), receiver.vk.clone()])?)
}

/// Signs `m` for the session ring with `signer` (the sender, or the receiver when faking) and
/// encrypts the signature under `aes_key`.
pub(crate) fn sign_and_encrypt(
    signer: &PqSecretKey,
    ring: &Ring,
    m: &[u8],
    aes_key: &[u8; 16],
    rng: &mut impl CryptoRng,
) -> Result<Vec<u8>, Error> {
    let mut sig = ring.sign(signer.falcon_signing_key(), m, rng)?.to_bytes();
    aes128_ctr(aes_key, &mut sig);
    Ok(sig)
}

/// Decrypts and verifies the session ring signature on `m`.
pub(crate) fn decrypt_and_verify(
    ring: &Ring,
    c_sigma: &[u8],
    m: &[u8],
    aes_key: &[u8; 16],
) -> Result<(), Error> {
    let mut sig = Zeroizing::new(c_sigma.to_vec());
    aes128_ctr(aes_key, &mut sig);
    // The same work whether the decrypted signature is garbled or only wrong (ringsig's
    // `verify_encoded`): see benches/ct.rs, `pq_akem_decap_invalid`.
    ring.verify_encoded(m, &sig)
        .map_err(|_| Error::InvalidCiphertext)
}

fn signed_message(ct: &[u8], sender: &PqPublicKey, receiver: &PqPublicKey) -> Vec<u8> {
    [ct, &sender.ek, &receiver.ek, receiver.vk.h_bytes()].concat()
}

fn session_key(
    kk: &[u8; 48],
    c_sigma: &[u8],
    sender: &PqPublicKey,
    m: &[u8],
) -> Zeroizing<[u8; 32]> {
    Zeroizing::new(
        Sha3_256::new()
            .chain_update(&kk[16..])
            .chain_update(c_sigma)
            .chain_update(sender.vk.h_bytes())
            .chain_update(m)
            .finalize()
            .into(),
    )
}

/// Encapsulation for `signer`, who is the sender (honest) or the receiver (deniability).
fn encap_signed_by(
    signer: &PqSecretKey,
    sender: &PqPublicKey,
    receiver: &PqPublicKey,
    rng: &mut impl CryptoRng,
) -> Result<(Vec<u8>, Zeroizing<[u8; 32]>), Error> {
    let ring = session_ring(sender, receiver)?;
    let (ct, ss) = sender.suite.kem().encapsulate(&receiver.ek, rng)?;
    let kk = shake256::<48>(&ss[..]);
    let m = signed_message(&ct, sender, receiver);
    let c_sigma = sign_and_encrypt(signer, &ring, &m, &aes_key(&kk), rng)?;
    let key = session_key(&kk, &c_sigma, sender, &m);
    Ok(([ct, c_sigma].concat(), key))
}

/// AuthEncap: a ciphertext for `receiver` authenticated by `sender`; returns (C, K).
pub fn encap(
    sender: &PqSecretKey,
    receiver: &PqPublicKey,
    rng: &mut impl CryptoRng,
) -> Result<(Vec<u8>, Zeroizing<[u8; 32]>), Error> {
    encap_signed_by(sender, &sender.public, receiver, rng)
}

/// AuthDecap: K from C, if it is authenticated by `sender` (or by the receiver itself: the ring
/// signature cannot tell, which is the point).
pub fn decap(
    receiver: &PqSecretKey,
    sender: &PqPublicKey,
    c: &[u8],
) -> Result<Zeroizing<[u8; 32]>, Error> {
    let suite = receiver.suite;
    Error::check_len("PQ-AKEM ciphertext", suite.pq_ciphertext_len(), c.len())?;
    let ring = session_ring(sender, &receiver.public)?;
    let (ct, c_sigma) = c.split_at(suite.kem().ct_len());
    let ss = suite.kem().decapsulate(&receiver.dk, ct)?;
    let kk = shake256::<48>(&ss[..]);
    let m = signed_message(ct, sender, &receiver.public);
    decrypt_and_verify(&ring, c_sigma, &m, &aes_key(&kk))?;
    Ok(session_key(&kk, c_sigma, sender, &m))
}

/// Deniability: the receiver alone (its secret key and the sender's public key) makes a ciphertext
/// and key that [`decap`] accepts as coming from `sender`.
pub fn fake_encap(
    receiver: &PqSecretKey,
    sender: &PqPublicKey,
    rng: &mut impl CryptoRng,
) -> Result<(Vec<u8>, Zeroizing<[u8; 32]>), Error> {
    encap_signed_by(receiver, sender, &receiver.public, rng)
}
