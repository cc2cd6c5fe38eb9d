//! # alibi-dgsp
//!
//! DGSP (ePrint 2025/760): a fully dynamic post-quantum group signature built from SPHINCS+ and
//! WOTS+. Members sign anonymously with one-time WOTS+ keys that the manager certified with
//! SPHINCS+; the manager can open a signature to its signer, a judge can check that opening, and
//! revocation invalidates every certificate a member ever received.
//!
//! The published `dgsp` 0.1.2 crate can be forged by anyone (its WOTS+ chains all start from one
//! secret); this implementation sets every address on the hashed value ([`wots`]), verifies before
//! opening or judging, updates the certificate counter atomically ([`storage`]), and consumes each
//! one-time key by value when signing.
//!
//! What a member stores and sends the manager (its credential, secret key, certificate requests,
//! pending one-time seeds and certificates) are typed values with their byte layouts in
//! [`member`].
//!
//! ```
//! use alibi_dgsp::{csr, verify, Manager, Params, UserKey};
//! use alibi_dgsp::storage::{MemoryPlm, MemoryRevokedList};
//! let mut rng = rand_core::UnwrapErr(getrandom::SysRng);
//! let p = Params::Shake128f;
//! let manager = Manager::generate(p, MemoryPlm::default(), MemoryRevokedList::default(), &mut rng);
//! let (id, cid_star) = manager.join("alice").unwrap();
//! let alice = UserKey::generate(p, id, &mut rng);
//! let (seeds, pks) = csr(&alice, 1, &mut rng);
//! let certs = manager.gen_cert(id, &cid_star, &pks).unwrap();
//! let mut keys = alice.accept(seeds, certs, manager.public_key()).unwrap();
//! let sig = alice.sign(keys.pop().unwrap(), b"hello");
//! assert!(verify(manager.public_key(), b"hello", &sig, manager.revoked()).is_ok());
//! let opened = manager.open(b"hello", &sig).unwrap();
//! assert_eq!(opened.username, "alice");
//! ```

// Unsafe code is denied everywhere but in the AVX-512 Keccak (sphincs::keccak_x8), which allows it
// for its intrinsics.
#![deny(unsafe_code)]
#![deny(missing_docs)]
#![deny(clippy::unwrap_used)]

pub(crate) mod hash;
pub mod member;
pub mod params;
pub mod sphincs;
pub mod spx;
pub mod storage;

/// Entry points for the fuzz targets (`fuzz/`): decoders the public API reaches only through a
/// store file.
#[doc(hidden)]
pub mod fuzzing {
    /// Runs a `members.redb` record decoder and the WOTS+ seed decoder of every parameter set
    /// on `data`: a typed error or a value, never a panic.
    pub fn decoders(data: &[u8]) {
        if let Ok(m) = crate::storage::decode_member(data) {
            assert!(data.len() >= 9 && m.username.len() == data.len() - 9);
        }
        for p in crate::Params::ALL {
            if let Ok(s) = crate::WotsSeed::from_bytes(p, data) {
                assert_eq!(s.as_bytes(), data);
            }
        }
    }
}
pub(crate) mod wots;

use aes::cipher::{BlockCipherDecrypt, BlockCipherEncrypt, KeyInit};
use alibi_encoding::LengthChecked;
use rand_core::CryptoRng;
use rayon::prelude::*;
use storage::{Plm, RevokedList};
use zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

pub use member::{
    request_keys, take_one_time_key, CertificateList, CertificateRequest, Credential, PendingKeys,
};
pub use params::Params;

/// Errors of DGSP.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// No member has this id.
    #[error("unknown member id {0}")]
    UnknownId(u64),
    /// The member, or the certificate's position, is revoked.
    #[error("revoked")]
    Revoked,
    /// The username is already a member.
    #[error("username already taken")]
    UsernameTaken,
    /// A username that cannot be shown on one line: empty, over 255 bytes, or with a control
    /// character (`open` prints it on a line of its own).
    #[error("username: 1 to 255 bytes of printable text, no control characters")]
    BadUsername,
    /// A member's certificate counter would overflow.
    #[error("certificate counter exhausted")]
    CounterExhausted,
    /// The cid* presented with a certificate request does not match the member.
    #[error("cid* does not match the member")]
    BadCid,
    /// The signature does not verify.
    #[error("invalid group signature")]
    InvalidSignature,
    /// A certificate does not verify under the manager's key.
    #[error("invalid certificate")]
    InvalidCertificate,
    /// A SPHINCS+ signature does not verify.
    #[error("invalid SPHINCS+ signature")]
    InvalidSpxSignature,
    /// The judge rejects the claimed opening.
    #[error("the opening does not match the signature")]
    WrongOpening,
    /// An input has the wrong length.
    #[error(transparent)]
    Length(#[from] alibi_encoding::LengthError),
    /// Unknown parameter-set tag.
    #[error("unknown parameter set")]
    UnknownParams,
    /// A certificate request holds no one-time key (it is a credential's bytes alone).
    #[error("the certificate request holds no one-time key")]
    NoOneTimeKey,
    /// A list's bytes are not whole entries (a certificate request's public keys, pending seeds,
    /// certificates).
    #[error("{what}: {got} bytes are not whole entries")]
    ListLength {
        /// What was being decoded.
        what: &'static str,
        /// Its length.
        got: usize,
    },
    /// A storage backend failed.
    #[error("storage: {0}")]
    Storage(String),
    /// A one-time key's index is below the credential's next unused one: the key was used
    /// already (a restored backup of the pending keys), and signing with it again would reuse a
    /// WOTS+ one-time key.
    #[error(
        "one-time key #{index} was used already (the credential's next unused key is #{next})"
    )]
    OneTimeKeyUsed {
        /// The index of the key about to be used.
        index: u32,
        /// The credential's next unused index.
        next: u32,
    },
    /// The database file is held by another process (its lock is taken): nothing is wrong
    /// with it, it is busy.
    #[error("{} is in use by another process", .0.display())]
    Busy(std::path::PathBuf),
    /// A member's pending one-time keys are all used: it must request new ones.
    #[error("no pending one-time key left: make a certificate request for new ones")]
    NoPendingKey,
    /// A member holds no certificate for its next pending one-time key.
    #[error("no certificate for the next pending one-time key: the manager has not certified it")]
    NoCertificate,
    /// A member's files belong to two members (a credential and a secret key of different ids
    /// or parameter sets).
    #[error("the credential is member {credential}'s, the secret key member {key}'s")]
    OtherMember {
        /// The credential's member id.
        credential: u64,
        /// The secret key's member id.
        key: u64,
    },
}

fn id_bytes(id: u64) -> [u8; 8] {
    id.to_be_bytes()
}

/// The length check, written once in `alibi-encoding`.
impl alibi_encoding::LengthChecked for Error {}

/// The manager's public key: a SPHINCS+ public key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ManagerPublicKey {
    params: Params,
    spx_pk: Vec<u8>,
}

impl ManagerPublicKey {
    /// tag || SPHINCS+ public key.
    pub fn to_bytes(&self) -> Vec<u8> {
        [&[self.params.tag()][..], &self.spx_pk].concat()
    }

    /// Decodes tag || SPHINCS+ public key.
    pub fn from_bytes(b: &[u8]) -> Result<Self, Error> {
        let p = Params::of_encoding(b)?;
        Error::check_len("manager public key", 1 + spx::public_key_len(p), b.len())?;
        Ok(ManagerPublicKey {
            params: p,
            spx_pk: b[1..].to_vec(),
        })
    }

    /// The parameter set.
    pub fn params(&self) -> Params {
        self.params
    }
}

/// The manager's secret key: msk = (hash_secret, aes_key) and the SPHINCS+ secret key.
#[derive(Zeroize, ZeroizeOnDrop)]
pub struct ManagerSecretKey {
    #[zeroize(skip)]
    params: Params,
    hash_secret: Vec<u8>,
    aes_key: Vec<u8>,
    spx_sk: Vec<u8>,
    #[zeroize(skip)]
    public: Option<ManagerPublicKey>,
}

impl ManagerSecretKey {
    /// A fresh key (keygen_manager).
    pub fn generate<R: CryptoRng + ?Sized>(params: Params, rng: &mut R) -> Self {
        let n = params.n();
        let mut hash_secret = vec![0u8; n];
        let mut aes_key = vec![0u8; n];
        rng.fill_bytes(&mut hash_secret);
        rng.fill_bytes(&mut aes_key);
        let (spx_pk, spx_sk) = spx::keypair(params);
        ManagerSecretKey {
            params,
            hash_secret,
            aes_key,
            spx_sk,
            public: Some(ManagerPublicKey { params, spx_pk }),
        }
    }

    /// tag || hash_secret || aes_key || SPHINCS+ secret key (1 + 6n bytes).
    pub fn to_bytes(&self) -> Zeroizing<Vec<u8>> {
        Zeroizing::new(
            [
                &[self.params.tag()][..],
                &self.hash_secret,
                &self.aes_key,
                &self.spx_sk,
            ]
            .concat(),
        )
    }

    /// Decodes a manager secret key; the public key is the tail of PQClean's SPHINCS+ secret key.
    pub fn from_bytes(b: &[u8]) -> Result<Self, Error> {
        let p = Params::of_encoding(b)?;
        let n = p.n();
        Error::check_len(
            "manager secret key",
            1 + 2 * n + spx::secret_key_len(p),
            b.len(),
        )?;
        let spx_sk = b[1 + 2 * n..].to_vec();
        let spx_pk = spx_sk[spx_sk.len() - spx::public_key_len(p)..].to_vec();
        Ok(ManagerSecretKey {
            params: p,
            hash_secret: b[1..1 + n].to_vec(),
            aes_key: b[1 + n..1 + 2 * n].to_vec(),
            spx_sk,
            public: Some(ManagerPublicKey { params: p, spx_pk }),
        })
    }

    /// The manager's public key.
    pub fn public_key(&self) -> &ManagerPublicKey {
        self.public.as_ref().expect("always set")
    }

    /// zeta = AES_{aes_key}(id || ctr): the certificate's position, which only the manager can
    /// invert (AES-128/192/256 for n = 16/24/32).
    fn zeta(&self, id: u64, ctr: u64) -> [u8; 16] {
        let mut block = [0u8; 16];
        block[..8].copy_from_slice(&id.to_be_bytes());
        block[8..].copy_from_slice(&ctr.to_be_bytes());
        let mut b = block.into();
        match self.aes_key.len() {
            16 => aes_key::<aes::Aes128>(&self.aes_key).encrypt_block(&mut b),
            24 => aes_key::<aes::Aes192>(&self.aes_key).encrypt_block(&mut b),
            _ => aes_key::<aes::Aes256>(&self.aes_key).encrypt_block(&mut b),
        }
        b.into()
    }

    /// (id, ctr) from zeta.
    fn unzeta(&self, zeta: &[u8; 16]) -> (u64, u64) {
        let mut b = (*zeta).into();
        match self.aes_key.len() {
            16 => aes_key::<aes::Aes128>(&self.aes_key).decrypt_block(&mut b),
            24 => aes_key::<aes::Aes192>(&self.aes_key).decrypt_block(&mut b),
            _ => aes_key::<aes::Aes256>(&self.aes_key).decrypt_block(&mut b),
        }
        let b: [u8; 16] = b.into();
        let (id, ctr) = b.split_at(8);
        (
            u64::from_be_bytes(id.try_into().expect("8 bytes")),
            u64::from_be_bytes(ctr.try_into().expect("8 bytes")),
        )
    }

    /// cid = H(hash_secret || id).
    fn cid(&self, id: u64) -> Vec<u8> {
        hash::h(self.params, &[&self.hash_secret, &id_bytes(id)])
    }
}

/// A certificate on one WOTS+ public key: its position zeta, pi = H(pk || cid), and the manager's
/// SPHINCS+ signature on pk || zeta || tau.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Certificate {
    /// The position.
    pub zeta: [u8; 16],
    /// pi = H(pk || cid).
    pub pi: Vec<u8>,
    /// SPHINCS+ signature on pk || zeta || tau.
    pub spx_sig: Vec<u8>,
}

/// The secret seed of one WOTS+ key. Not `Clone`: it is consumed when signing.
#[derive(Zeroize, ZeroizeOnDrop)]
pub struct WotsSeed(Vec<u8>);

impl WotsSeed {
    /// The seed's bytes, for the member's own storage.
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    /// Restores a seed of parameter set `p`.
    pub fn from_bytes(p: Params, b: &[u8]) -> Result<Self, Error> {
        Error::check_len("WOTS+ seed", p.n(), b.len())?;
        Ok(WotsSeed(b.to_vec()))
    }
}

impl Certificate {
    /// Encoded length: zeta (16) || pi (n) || SPHINCS+ signature.
    pub fn encoded_len(p: Params) -> usize {
        16 + p.n() + spx::signature_len(p)
    }

    /// zeta || pi || SPHINCS+ signature.
    pub fn to_bytes(&self) -> Vec<u8> {
        [&self.zeta[..], &self.pi, &self.spx_sig].concat()
    }

    /// Decodes a certificate of parameter set `p`.
    pub fn from_bytes(p: Params, b: &[u8]) -> Result<Self, Error> {
        Error::check_len("certificate", Self::encoded_len(p), b.len())?;
        Ok(Certificate {
            zeta: b[..16].try_into().expect("16 bytes"),
            pi: b[16..16 + p.n()].to_vec(),
            spx_sig: b[16 + p.n()..].to_vec(),
        })
    }
}

/// A WOTS+ seed with its checked certificate: one signature's worth of key, consumed by value, so
/// the API cannot sign twice with it (a second WOTS+ signature would reveal more of its chains):
///
/// ```compile_fail
/// # use alibi_dgsp::{csr, Manager, Params, UserKey};
/// # use alibi_dgsp::storage::{MemoryPlm, MemoryRevokedList};
/// # let mut rng = rand_core::UnwrapErr(getrandom::SysRng);
/// # let m = Manager::generate(Params::Shake128f, MemoryPlm::default(), MemoryRevokedList::default(), &mut rng);
/// # let (id, cid) = m.join("a").unwrap();
/// # let u = UserKey::generate(Params::Shake128f, id, &mut rng);
/// # let (s, pks) = csr(&u, 1, &mut rng);
/// # let c = m.gen_cert(id, &cid, &pks).unwrap();
/// let key = u.accept(s, c, m.public_key()).unwrap().pop().unwrap();
/// let first = u.sign(key, b"one");
/// let second = u.sign(key, b"two"); // error: use of moved value `key`
/// ```
pub struct OneTimeKey {
    seed: WotsSeed,
    cert: Certificate,
}

impl OneTimeKey {
    /// seed || zeta || pi || SPHINCS+ signature: for a member's own storage. Whoever restores a
    /// key from bytes must make sure it is used once (the CLI deletes the file it read).
    pub fn to_bytes(&self) -> Zeroizing<Vec<u8>> {
        Zeroizing::new(
            [
                &self.seed.0[..],
                &self.cert.zeta,
                &self.cert.pi,
                &self.cert.spx_sig,
            ]
            .concat(),
        )
    }

    /// Restores a one-time key of parameter set `p` from [`Self::to_bytes`].
    pub fn from_bytes(p: Params, b: &[u8]) -> Result<Self, Error> {
        let n = p.n();
        Error::check_len("one-time key", 2 * n + 16 + spx::signature_len(p), b.len())?;
        Ok(OneTimeKey {
            seed: WotsSeed(b[..n].to_vec()),
            cert: Certificate {
                zeta: b[n..n + 16].try_into().expect("16 bytes"),
                pi: b[n + 16..2 * n + 16].to_vec(),
                spx_sig: b[2 * n + 16..].to_vec(),
            },
        })
    }
}

/// A member's long-term secret seed and id.
#[derive(Zeroize, ZeroizeOnDrop)]
pub struct UserKey {
    #[zeroize(skip)]
    params: Params,
    #[zeroize(skip)]
    id: u64,
    seed_u: Vec<u8>,
}

impl UserKey {
    /// keygen_user: a random n-byte seed for member `id`.
    pub fn generate<R: CryptoRng + ?Sized>(params: Params, id: u64, rng: &mut R) -> Self {
        let mut seed_u = vec![0u8; params.n()];
        rng.fill_bytes(&mut seed_u);
        UserKey { params, id, seed_u }
    }

    /// Restores a member key from its parts.
    pub fn from_parts(params: Params, id: u64, seed_u: &[u8]) -> Result<Self, Error> {
        Error::check_len("user seed", params.n(), seed_u.len())?;
        Ok(UserKey {
            params,
            id,
            seed_u: seed_u.to_vec(),
        })
    }

    /// The member id.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// The parameter set.
    pub fn params(&self) -> Params {
        self.params
    }

    /// The seed (secret).
    pub fn seed(&self) -> &[u8] {
        &self.seed_u
    }

    /// rho = H(wots_seed) and the WOTS+ secret seed H(seed_u || wots_seed).
    fn wots_seeds(&self, wots_seed: &[u8]) -> (Vec<u8>, Zeroizing<Vec<u8>>) {
        let p = self.params;
        (
            hash::h(p, &[wots_seed]),
            Zeroizing::new(hash::h(p, &[&self.seed_u, wots_seed])),
        )
    }

    fn wots_pk(&self, wots_seed: &[u8]) -> Vec<u8> {
        let (rho, sk) = self.wots_seeds(wots_seed);
        wots::public_key(self.params, &sk, &rho)
    }

    /// Checks certificates against their seeds and the manager's key (the check the published
    /// crate dropped), pairing each seed with its certificate.
    pub fn accept(
        &self,
        seeds: Vec<WotsSeed>,
        certs: Vec<Certificate>,
        pkm: &ManagerPublicKey,
    ) -> Result<Vec<OneTimeKey>, Error> {
        if seeds.len() != certs.len() {
            return Err(Error::InvalidCertificate);
        }
        seeds
            .into_iter()
            .zip(certs)
            .map(|(seed, cert)| {
                let pk = self.wots_pk(&seed.0);
                let tau = hash::h(self.params, &[&pk, &cert.pi, &id_bytes(self.id)]);
                let m = [&pk[..], &cert.zeta, &tau].concat();
                spx::verify(self.params, &m, &cert.spx_sig, &pkm.spx_pk)
                    .map_err(|_| Error::InvalidCertificate)?;
                Ok(OneTimeKey { seed, cert })
            })
            .collect()
    }

    /// sign: a WOTS+ signature on H(rho || m), with the certificate; consumes the one-time key.
    pub fn sign(&self, key: OneTimeKey, msg: &[u8]) -> GroupSignature {
        let p = self.params;
        let (rho, sk) = self.wots_seeds(&key.seed.0);
        let digest = hash::h(p, &[&rho, msg]);
        let wots_sig = wots::sign(p, &digest, &sk, &rho);
        let pk = wots::public_key_from_signature(p, &wots_sig, &digest, &rho);
        let tau = hash::h(p, &[&pk, &key.cert.pi, &id_bytes(self.id)]);
        GroupSignature {
            params: p,
            wots_sig,
            rho,
            zeta: key.cert.zeta,
            spx_sig: key.cert.spx_sig,
            tau,
        }
    }
}

/// csr: `b` fresh WOTS+ keys; the seeds stay with the member, the public keys go to the manager.
pub fn csr<R: CryptoRng + ?Sized>(
    user: &UserKey,
    b: usize,
    rng: &mut R,
) -> (Vec<WotsSeed>, Vec<Vec<u8>>) {
    // The seeds come from the caller's RNG in order; the keys are then computed in parallel.
    let seeds: Vec<WotsSeed> = (0..b)
        .map(|_| {
            let mut s = vec![0u8; user.params.n()];
            rng.fill_bytes(&mut s);
            WotsSeed(s)
        })
        .collect();
    let pks = seeds.par_iter().map(|s| user.wots_pk(&s.0)).collect();
    (seeds, pks)
}

// Here rather than in params.rs: the SPHINCS+ length comes from spx.rs, which builds on params.rs.
impl Params {
    /// The set a tagged encoding (manager keys, member values) names by its first byte:
    /// [`Error::UnknownParams`] for an empty input or an unknown tag.
    pub fn of_encoding(b: &[u8]) -> Result<Params, Error> {
        b.first()
            .and_then(|&t| Params::from_tag(t))
            .ok_or(Error::UnknownParams)
    }

    /// Group signature bytes: WOTS+ signature (len n), rho (n), zeta (16), SPHINCS+ signature, tau (n).
    pub fn signature_len(self) -> usize {
        self.wots_len() * self.n() + self.n() + 16 + spx::signature_len(self) + self.n()
    }
}

/// A group signature: WOTS+ signature, rho, zeta, the certificate's SPHINCS+ signature, tau.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupSignature {
    params: Params,
    wots_sig: Vec<u8>,
    rho: Vec<u8>,
    zeta: [u8; 16],
    spx_sig: Vec<u8>,
    tau: Vec<u8>,
}

impl GroupSignature {
    /// wots_sig || rho || zeta || spx_sig || tau (17,696 bytes at 128f).
    pub fn to_bytes(&self) -> Vec<u8> {
        [
            &self.wots_sig[..],
            &self.rho,
            &self.zeta,
            &self.spx_sig,
            &self.tau,
        ]
        .concat()
    }

    /// Decodes a signature of parameter set `p`.
    pub fn from_bytes(p: Params, b: &[u8]) -> Result<Self, Error> {
        Error::check_len("group signature", p.signature_len(), b.len())?;
        let n = p.n();
        let w = p.wots_len() * n;
        let s = spx::signature_len(p);
        Ok(GroupSignature {
            params: p,
            wots_sig: b[..w].to_vec(),
            rho: b[w..w + n].to_vec(),
            zeta: b[w + n..w + n + 16].try_into().expect("16 bytes"),
            spx_sig: b[w + n + 16..w + n + 16 + s].to_vec(),
            tau: b[w + n + 16 + s..].to_vec(),
        })
    }

    /// The certificate position.
    pub fn zeta(&self) -> &[u8; 16] {
        &self.zeta
    }

    /// The WOTS+ public key this signature implies for `msg`.
    fn wots_pk(&self, msg: &[u8]) -> Vec<u8> {
        let digest = hash::h(self.params, &[&self.rho, msg]);
        wots::public_key_from_signature(self.params, &self.wots_sig, &digest, &self.rho)
    }
}

/// Cryptographic validity (without the revocation check): returns the implied WOTS+ key.
fn check(pkm: &ManagerPublicKey, msg: &[u8], sig: &GroupSignature) -> Result<Vec<u8>, Error> {
    if sig.params != pkm.params {
        return Err(Error::InvalidSignature);
    }
    let pk = sig.wots_pk(msg);
    let m = [&pk[..], &sig.zeta, &sig.tau].concat();
    spx::verify(pkm.params, &m, &sig.spx_sig, &pkm.spx_pk).map_err(|_| Error::InvalidSignature)?;
    Ok(pk)
}

/// verify: not revoked, and the WOTS+ key implied by the signature is certified.
pub fn verify(
    pkm: &ManagerPublicKey,
    msg: &[u8],
    sig: &GroupSignature,
    revoked: &impl RevokedList,
) -> Result<(), Error> {
    if revoked.contains(&sig.zeta)? {
        return Err(Error::Revoked);
    }
    check(pkm, msg, sig).map(|_| ())
}

/// judge: the signature is valid and tau = H(pk || pi || id) binds it to the claimed (id, pi).
/// A pi that is not n bytes is no opening's: [`Error::Length`], told apart from an opening that
/// does not match ([`Error::WrongOpening`]).
pub fn judge(
    pkm: &ManagerPublicKey,
    msg: &[u8],
    sig: &GroupSignature,
    id: u64,
    pi: &[u8],
) -> Result<(), Error> {
    Error::check_len("pi", pkm.params.n(), pi.len())?;
    let pk = check(pkm, msg, sig)?;
    if hash::h(pkm.params, &[&pk, pi, &id_bytes(id)]) == sig.tau {
        Ok(())
    } else {
        Err(Error::WrongOpening)
    }
}

/// What `open` reveals: the signer's id and name, and pi for the judge.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    /// The member id.
    pub id: u64,
    /// The member's name.
    pub username: String,
    /// pi = H(pk || cid), which lets a judge check the opening.
    pub pi: Vec<u8>,
}

/// The group manager: its keys and its two lists.
pub struct Manager<P: Plm, R: RevokedList> {
    sk: ManagerSecretKey,
    plm: P,
    revoked: R,
}

impl<P: Plm, R: RevokedList> Manager<P, R> {
    /// A manager with a fresh key (keygen_manager) over the given stores.
    pub fn generate<Rg: CryptoRng + ?Sized>(
        params: Params,
        plm: P,
        revoked: R,
        rng: &mut Rg,
    ) -> Self {
        Manager {
            sk: ManagerSecretKey::generate(params, rng),
            plm,
            revoked,
        }
    }

    /// A manager from an existing key and stores.
    pub fn new(sk: ManagerSecretKey, plm: P, revoked: R) -> Self {
        Manager { sk, plm, revoked }
    }

    /// The public key.
    pub fn public_key(&self) -> &ManagerPublicKey {
        self.sk.public_key()
    }

    /// The secret key.
    pub fn secret_key(&self) -> &ManagerSecretKey {
        &self.sk
    }

    /// The revocation list (verifiers need it).
    pub fn revoked(&self) -> &R {
        &self.revoked
    }

    /// The private list.
    pub fn plm(&self) -> &P {
        &self.plm
    }

    /// join: a new member; returns its id and cid* = H(cid || id), its credential for csr. The
    /// username is 1 to 255 bytes without control characters ([`Error::BadUsername`]).
    pub fn join(&self, username: &str) -> Result<(u64, Vec<u8>), Error> {
        if username.is_empty() || username.len() > 255 || username.chars().any(char::is_control) {
            return Err(Error::BadUsername);
        }
        let id = self.plm.add_new_user(username)?;
        let cid = self.sk.cid(id);
        Ok((id, hash::h(self.sk.params, &[&cid, &id_bytes(id)])))
    }

    /// gen_cert: certificates for a batch of WOTS+ public keys of member `id`.
    pub fn gen_cert(
        &self,
        id: u64,
        cid_star: &[u8],
        pks: &[Vec<u8>],
    ) -> Result<Vec<Certificate>, Error> {
        let p = self.sk.params;
        // An early refusal only: `fetch_add_ctr` below checks activity again in the transaction
        // that reserves the positions, which is what a concurrent `revoke` is ordered against.
        let member = self.plm.member(id)?;
        if !member.active {
            return Err(Error::Revoked);
        }
        let cid = self.sk.cid(id);
        if hash::h(p, &[&cid, &id_bytes(id)]) != cid_star {
            return Err(Error::BadCid);
        }
        for pk in pks {
            Error::check_len("WOTS+ public key", p.n(), pk.len())?;
        }
        // One atomic step reserves the whole batch of positions; the SPHINCS+ signatures of a
        // batch then run in parallel.
        let ctr = self.plm.fetch_add_ctr(id, pks.len() as u64)?;
        Ok(pks
            .par_iter()
            .enumerate()
            .map(|(i, pk)| {
                let zeta = self.sk.zeta(id, ctr + i as u64);
                let pi = hash::h(p, &[pk, &cid]);
                let tau = hash::h(p, &[pk, &pi, &id_bytes(id)]);
                let m = [&pk[..], &zeta, &tau].concat();
                let spx_sig =
                    spx::sign(p, &m, &self.sk.spx_sk).expect("own key has the right length");
                Certificate { zeta, pi, spx_sig }
            })
            .collect())
    }

    /// open: verifies the signature, then recovers the signer from zeta. Fails on positions that
    /// were never issued.
    pub fn open(&self, msg: &[u8], sig: &GroupSignature) -> Result<Opening, Error> {
        let pk = check(self.public_key(), msg, sig)?;
        let (id, ctr) = self.sk.unzeta(&sig.zeta);
        let member = self.plm.member(id)?;
        if ctr >= member.ctr {
            return Err(Error::UnknownId(id));
        }
        let pi = hash::h(self.sk.params, &[&pk, &self.sk.cid(id)]);
        Ok(Opening {
            id,
            username: member.username,
            pi,
        })
    }

    /// revoke: every position ever issued to these members goes on the revocation list, and the
    /// members can no longer obtain certificates.
    ///
    /// Each member is deactivated first, reading its final counter in the same transaction in
    /// which [`Manager::gen_cert`] reserves positions (so a certificate issued concurrently is
    /// either refused or below that counter), then every position below the final counters is
    /// listed in one transaction. An unknown id fails before anything changes. An error between
    /// the two steps leaves members deactivated but not yet listed: calling `revoke` again
    /// finishes it.
    pub fn revoke(&self, ids: &[u64]) -> Result<(), Error> {
        for &id in ids {
            self.plm.member(id)?;
        }
        let finals = ids
            .iter()
            .map(|&id| Ok((id, self.plm.deactivate(id)?)))
            .collect::<Result<Vec<(u64, u64)>, Error>>()?;
        let mut zetas = finals
            .iter()
            .flat_map(|&(id, ctr)| (0..ctr).map(move |j| self.sk.zeta(id, j)));
        self.revoked.insert_all(&mut zetas)
    }
}

/// The manager's AES key schedule. `key` is n = 16, 24 or 32 bytes long (generation draws n bytes
/// and decoding checks the length), and the caller picks the cipher for that n.
fn aes_key<C: KeyInit>(key: &[u8]) -> C {
    C::new_from_slice(key).expect("aes_key is n bytes, the key size of the cipher chosen for n")
}
