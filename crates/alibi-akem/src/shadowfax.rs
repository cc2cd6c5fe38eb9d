//! SHADOWFAX[X25519, KEM, GANDALF]: the hybrid deniable AKEM, as the authors' code builds it
//! ("Figure 9" of the artifact; vectors README, steps 1-8), over ML-KEM with GANDALF[Falcon] or over
//! BAT-257 with GANDALF[Antrag, Mitaka] (the suite of [`crate::pq::Suite`]):
//!
//! 1. (esk, epk) fresh X25519; nk = HM(NIKE(sk_S.x, pk_R.x)[0..32], "auth");
//! 2. nk1 || nk2 = NIKE(esk, pk_R.x);
//! 3. (ct, k1 || k2) = KEM.Encaps(pk_R.ek) with a 64-byte secret (SHAKE256 of ML-KEM's key; BAT's
//!    own expansion);
//! 4. sigma = ring signature by the sender on ct || pk_R.ek for the ring (pk_S.h, pk_R.h);
//! 5. k' = HM(nk1, k1); c_sigma = AES-128-CTR(k'[0..16], zero counter block, sigma);
//! 6. C = epk || ct || c_sigma; T = HM(k2, C || pk_S || pk_R); K = HM(HM(nk, nk2), T).
//!
//! NIKE(sk, pk) = SHA3-512(X25519(sk, pk)); HM is the artifact's SHA3 "HMAC" ([`crate::primitives::hm`]).
//! Security and deniability hold if either the X25519 or the post-quantum part does.

use alibi_encoding::LengthChecked;
use rand_core::CryptoRng;
use zeroize::Zeroizing;

use crate::dh::{self, array32};
use crate::pq::{self, decrypt_and_verify, session_ring, sign_and_encrypt, Suite};
use crate::primitives::{aes_key, halves, hm, nike_batch};
use crate::Error;

/// Public key length: x25519 (32) || ek || h (1,728 bytes for the standard suite, 1,449 with BAT).
pub fn public_len(suite: Suite) -> usize {
    32 + suite.pq_public_len()
}

/// Secret key length: x25519 (32) || dk || f || g || F || G (3,712 bytes for the standard suite,
/// 5,033 with BAT).
pub fn secret_len(suite: Suite) -> usize {
    32 + suite.pq_secret_len()
}

/// Ciphertext length: epk (32) || ct || c_sigma (2,076 bytes for the standard suite, 1,781 with
/// BAT).
pub fn ciphertext_len(suite: Suite) -> usize {
    32 + suite.kem().ct_len() + suite.ring_sig_len()
}

/// A SHADOWFAX public key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PublicKey {
    x: [u8; 32],
    pq: pq::PublicKey,
}

impl PublicKey {
    /// Decodes x25519 || ek || h.
    pub fn from_bytes(suite: Suite, b: &[u8]) -> Result<Self, Error> {
        Error::check_len("SHADOWFAX public key", public_len(suite), b.len())?;
        Ok(PublicKey {
            x: array32(&b[..32], "X25519 public key")?,
            pq: pq::PublicKey::from_bytes(suite, &b[32..])?,
        })
    }

    /// x25519 || ek || h.
    pub fn to_bytes(&self) -> Vec<u8> {
        [&self.x[..], &self.pq.to_bytes()].concat()
    }

    /// The suite.
    pub fn suite(&self) -> Suite {
        self.pq.suite()
    }
}

/// A SHADOWFAX secret key.
pub struct SecretKey {
    x: dh::SecretKey,
    pq: pq::SecretKey,
    public: PublicKey,
}

impl SecretKey {
    /// A fresh key.
    pub fn generate<R: CryptoRng + ?Sized>(suite: Suite, rng: &mut R) -> Self {
        Self::assemble(
            dh::SecretKey::generate(rng),
            pq::SecretKey::generate(suite, rng),
        )
    }

    fn assemble(x: dh::SecretKey, pq: pq::SecretKey) -> Self {
        let public = PublicKey {
            x: *x.public(),
            pq: pq.public_key().clone(),
        };
        SecretKey { x, pq, public }
    }

    /// Decodes x25519 || dk || f || g || F || G (the artifact's layout).
    pub fn from_bytes(suite: Suite, b: &[u8]) -> Result<Self, Error> {
        Error::check_len("SHADOWFAX secret key", secret_len(suite), b.len())?;
        let x = dh::SecretKey::from_secret(array32(&b[..32], "X25519 secret key")?);
        Ok(Self::assemble(
            x,
            pq::SecretKey::from_bytes(suite, &b[32..])?,
        ))
    }

    /// x25519 || dk || f || g || F || G.
    pub fn to_bytes(&self) -> Zeroizing<Vec<u8>> {
        let mut v = Zeroizing::new(self.x.secret().to_vec());
        v.extend_from_slice(&self.pq.to_bytes());
        v
    }

    /// The matching public key.
    pub fn public_key(&self) -> &PublicKey {
        &self.public
    }
}

/// Encapsulation in the name of `sender`, computed by `signer`, who holds either the sender's
/// secret key (honest) or the receiver's (deniability: every value below is then recomputed from
/// the receiver's side of each key exchange).
fn encap_by<R: CryptoRng + ?Sized>(
    signer: &SecretKey,
    static_peer: &[u8; 32],
    sender: &PublicKey,
    receiver: &PublicKey,
    rng: &mut R,
) -> Result<(Vec<u8>, Zeroizing<[u8; 32]>), Error> {
    let ring = session_ring(&sender.pq, &receiver.pq)?;
    let eph = dh::SecretKey::generate(rng);
    let [nk0, nke] = nike_batch([
        (signer.x.secret(), static_peer),
        (eph.secret(), &receiver.x),
    ])?;
    let (nk_in, _) = halves(&nk0);
    let nk = hm(&nk_in, &[b"auth"]);
    let (nk1, nk2) = halves(&nke);
    let mut k1k2 = Zeroizing::new([0u8; 64]);
    let ct = receiver.pq.ek.encapsulate_secret(rng, &mut k1k2[..])?;
    let (k1, k2) = halves(&k1k2);
    let m = [&ct[..], receiver.pq.ek()].concat();
    let k_prime = Zeroizing::new(hm(&nk1, &[&k1[..]]));
    let c_sigma = sign_and_encrypt(&signer.pq, &ring, &m, &aes_key(&k_prime), rng)?;
    let c = [&eph.public()[..], &ct, &c_sigma].concat();
    let key = derive_key(&nk, &nk2, &k2, &c, sender, receiver);
    Ok((c, key))
}

fn derive_key(
    nk: &[u8; 32],
    nk2: &[u8; 32],
    k2: &[u8; 32],
    c: &[u8],
    sender: &PublicKey,
    receiver: &PublicKey,
) -> Zeroizing<[u8; 32]> {
    let t = hm(k2, &[c, &sender.to_bytes(), &receiver.to_bytes()]);
    let inner = Zeroizing::new(hm(nk, &[&nk2[..]]));
    Zeroizing::new(hm(&inner, &[&t]))
}

/// AuthEncap: (C, K) for `receiver`, authenticated by `sender`.
pub fn encap<R: CryptoRng + ?Sized>(
    sender: &SecretKey,
    receiver: &PublicKey,
    rng: &mut R,
) -> Result<(Vec<u8>, Zeroizing<[u8; 32]>), Error> {
    encap_by(sender, &receiver.x, &sender.public, receiver, rng)
}

/// AuthDecap: K from C if it authenticates as coming from `sender`; an explicit error otherwise.
pub fn decap(
    receiver: &SecretKey,
    sender: &PublicKey,
    c: &[u8],
) -> Result<Zeroizing<[u8; 32]>, Error> {
    let suite = receiver.public.suite();
    if sender.suite() != suite {
        return Err(Error::SuiteMismatch);
    }
    Error::check_len("SHADOWFAX ciphertext", ciphertext_len(suite), c.len())?;
    let ring = session_ring(&sender.pq, &receiver.public.pq)?;
    let epk = array32(&c[..32], "ephemeral key")?;
    let (ct, c_sigma) = c[32..].split_at(suite.kem().ct_len());
    let [nks, nke] = nike_batch([
        (receiver.x.secret(), &sender.x),
        (receiver.x.secret(), &epk),
    ])?;
    let (nk_in, _) = halves(&nks);
    let nk = hm(&nk_in, &[b"auth"]);
    let (nk1, nk2) = halves(&nke);
    let mut k1k2 = Zeroizing::new([0u8; 64]);
    receiver.pq.dk().decapsulate_secret(ct, &mut k1k2[..])?;
    let (k1, k2) = halves(&k1k2);
    let m = [ct, receiver.public.pq.ek()].concat();
    let k_prime = Zeroizing::new(hm(&nk1, &[&k1[..]]));
    decrypt_and_verify(&ring, c_sigma, &m, &aes_key(&k_prime))?;
    Ok(derive_key(&nk, &nk2, &k2, c, sender, &receiver.public))
}

/// Deniability: the receiver, with only its own secret key and the sender's public key, makes a
/// (C, K) that [`decap`] accepts as sent by `sender`.
pub fn fake_encap<R: CryptoRng + ?Sized>(
    receiver: &SecretKey,
    sender: &PublicKey,
    rng: &mut R,
) -> Result<(Vec<u8>, Zeroizing<[u8; 32]>), Error> {
    encap_by(receiver, &sender.x, sender, &receiver.public, rng)
}
