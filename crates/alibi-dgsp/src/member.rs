//! What a member keeps and what it exchanges with the manager, as values with their byte
//! layouts (the files of `alibi group`):
//!
//! | value | bytes |
//! |---|---|
//! | [`Credential`] | tag (1) \|\| id (8, big-endian) \|\| cid* (n) |
//! | [`UserKey`] | tag (1) \|\| id (8, big-endian) \|\| seed (n) |
//! | [`CertificateRequest`] | a credential's bytes \|\| pk_1 \|\| .. \|\| pk_b (n each, b >= 1) |
//! | [`PendingKeys`] | seed_1 \|\| .. \|\| seed_b (n each) |
//! | [`CertificateList`] | certificate_1 \|\| .. \|\| certificate_b ([`Certificate::encoded_len`] each) |
//!
//! The tag is [`Params::tag`]. Pending seeds and certificates pair up in order: the manager
//! certifies a request's keys in the order the member generated their seeds.
//!
//! The member's own files number its one-time keys, so that a restored backup of the pending
//! keys (whose first key was used since) is refused rather than used twice:
//!
//! | file | bytes |
//! |---|---|
//! | credential file ([`Credential::to_file_bytes`]) | a credential's bytes \|\| issued (4) \|\| used (4) |
//! | pending file ([`PendingKeys::to_file_bytes`]) | first (4) \|\| seed_1 \|\| .. \|\| seed_b |
//!
//! (big-endian u32s). `issued` is the index the next request's first key gets, `used` the lowest
//! index not used yet; `first` is the index of seed_1. The older files without numbers (a bare
//! credential, bare seeds) still decode, unnumbered; the lengths tell them apart, as 4 and 8 are
//! no multiple of n.

use std::collections::VecDeque;

use alibi_encoding::LengthChecked;
use zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

use rand_core::CryptoRng;

use crate::{
    csr, spx, Certificate, Error, ManagerPublicKey, OneTimeKey, Params, UserKey, WotsSeed,
};

/// Bytes of the head every tagged member value starts with: the tag and the member id.
const HEAD_LEN: usize = 9;

/// tag || id.
fn head(p: Params, id: u64) -> [u8; HEAD_LEN] {
    let mut h = [0u8; HEAD_LEN];
    h[0] = p.tag();
    h[1..].copy_from_slice(&id.to_be_bytes());
    h
}

/// The parameter set and member id of `b`, which must be `HEAD_LEN + p.n()` bytes long, and the
/// n bytes after the head.
fn decode_member_value<'a>(
    what: &'static str,
    b: &'a [u8],
) -> Result<(Params, u64, &'a [u8]), Error> {
    let p = Params::of_encoding(b)?;
    Error::check_len(what, HEAD_LEN + p.n(), b.len())?;
    let (h, rest) = b.split_at(HEAD_LEN);
    let id = alibi_encoding::array(what, &h[1..]).map(u64::from_be_bytes)?;
    Ok((p, id, rest))
}

/// A member's credential: its parameter set, id and cid* from [`crate::Manager::join`], which it
/// shows with every certificate request. Secret: whoever holds it can have keys certified in the
/// member's name.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct Credential {
    #[zeroize(skip)]
    params: Params,
    #[zeroize(skip)]
    id: u64,
    cid_star: Vec<u8>,
    #[zeroize(skip)]
    issued: u32,
    #[zeroize(skip)]
    used: u32,
}

/// Bytes of the one-time key numbers a credential file adds to a credential: issued || used.
const COUNTERS_LEN: usize = 8;

impl Credential {
    /// The credential of member `id` with `cid_star` (n bytes).
    pub fn new(params: Params, id: u64, cid_star: &[u8]) -> Result<Self, Error> {
        Error::check_len("cid*", params.n(), cid_star.len())?;
        Ok(Credential {
            params,
            id,
            cid_star: cid_star.to_vec(),
            issued: 0,
            used: 0,
        })
    }

    /// Encoded length at `p`: 9 + n.
    pub fn encoded_len(p: Params) -> usize {
        HEAD_LEN + p.n()
    }

    /// tag || id || cid*.
    pub fn to_bytes(&self) -> Zeroizing<Vec<u8>> {
        Zeroizing::new([&head(self.params, self.id)[..], &self.cid_star].concat())
    }

    /// Decodes tag || id || cid*: [`Error::UnknownParams`] for an empty input or an unknown tag,
    /// [`Error::Length`] for a length other than [`Self::encoded_len`].
    pub fn from_bytes(b: &[u8]) -> Result<Self, Error> {
        let (params, id, cid_star) = decode_member_value("credential", b)?;
        Credential::new(params, id, cid_star)
    }

    /// The parameter set.
    pub fn params(&self) -> Params {
        self.params
    }

    /// The member id.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// cid* = H(cid || id).
    pub fn cid_star(&self) -> &[u8] {
        &self.cid_star
    }

    /// The member's credential file: the credential's bytes, then its one-time key numbers
    /// (issued, used). Requests carry [`Self::to_bytes`], without the numbers.
    pub fn to_file_bytes(&self) -> Zeroizing<Vec<u8>> {
        let mut v = self.to_bytes();
        v.extend_from_slice(&self.issued.to_be_bytes());
        v.extend_from_slice(&self.used.to_be_bytes());
        v
    }

    /// Decodes a credential file: with its key numbers, or a bare credential (numbers 0).
    /// [`Error::UnknownParams`] as [`Self::from_bytes`]; [`Error::Length`] for another length.
    pub fn from_file_bytes(b: &[u8]) -> Result<Self, Error> {
        let p = Params::of_encoding(b)?;
        let bare = Self::encoded_len(p);
        if b.len() == bare {
            return Self::from_bytes(b);
        }
        Error::check_len("credential file", bare + COUNTERS_LEN, b.len())?;
        let (cred, numbers) = b.split_at(bare);
        let mut c = Self::from_bytes(cred)?;
        let (issued, used) = numbers.split_at(4);
        c.issued = alibi_encoding::array("issued", issued).map(u32::from_be_bytes)?;
        c.used = alibi_encoding::array("used", used).map(u32::from_be_bytes)?;
        Ok(c)
    }

    /// The lowest one-time key index not used yet.
    pub fn next_unused(&self) -> u32 {
        self.used
    }

    /// Numbers `count` new one-time keys: the first one's index, or
    /// [`Error::CounterExhausted`].
    pub fn issue(&mut self, count: u32) -> Result<u32, Error> {
        let first = self.issued.max(self.used);
        self.issued = first.checked_add(count).ok_or(Error::CounterExhausted)?;
        Ok(first)
    }

    /// Records that the key numbered `index` is about to be used: [`Error::OneTimeKeyUsed`] if
    /// it (or a later key) was used already, else every index up to it counts as used.
    pub fn use_key(&mut self, index: u32) -> Result<(), Error> {
        if index < self.used {
            return Err(Error::OneTimeKeyUsed {
                index,
                next: self.used,
            });
        }
        self.used = index.checked_add(1).ok_or(Error::CounterExhausted)?;
        self.issued = self.issued.max(self.used);
        Ok(())
    }
}

impl UserKey {
    /// Encoded length at `p`: 9 + n.
    pub fn encoded_len(p: Params) -> usize {
        HEAD_LEN + p.n()
    }

    /// tag || id || seed: the member's secret key file.
    pub fn to_bytes(&self) -> Zeroizing<Vec<u8>> {
        Zeroizing::new([&head(self.params, self.id)[..], &self.seed_u].concat())
    }

    /// Decodes tag || id || seed: [`Error::UnknownParams`] for an empty input or an unknown tag,
    /// [`Error::Length`] for a length other than [`Self::encoded_len`].
    pub fn from_bytes(b: &[u8]) -> Result<Self, Error> {
        let (params, id, seed) = decode_member_value("member secret key", b)?;
        UserKey::from_parts(params, id, seed)
    }
}

/// A certificate request: the member's credential and the WOTS+ public keys of [`crate::csr`]
/// (at least one), for [`crate::Manager::gen_cert`].
#[derive(Clone)]
pub struct CertificateRequest {
    credential: Credential,
    public_keys: Vec<Vec<u8>>,
}

impl CertificateRequest {
    /// A request for `public_keys` (n bytes each) under `credential`; [`Error::NoOneTimeKey`] if
    /// there is none, since such a request would certify nothing.
    pub fn new(credential: Credential, public_keys: Vec<Vec<u8>>) -> Result<Self, Error> {
        if public_keys.is_empty() {
            return Err(Error::NoOneTimeKey);
        }
        for pk in &public_keys {
            Error::check_len("WOTS+ public key", credential.params.n(), pk.len())?;
        }
        Ok(CertificateRequest {
            credential,
            public_keys,
        })
    }

    /// tag || id || cid* || pk_1 || .. || pk_b.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut v = self.credential.to_bytes().to_vec();
        for pk in &self.public_keys {
            v.extend_from_slice(pk);
        }
        v
    }

    /// Decodes a request: [`Error::UnknownParams`] for an empty input or an unknown tag,
    /// [`Error::NoOneTimeKey`] for a credential's bytes alone, [`Error::ListLength`] when the
    /// bytes after the credential are not whole public keys.
    pub fn from_bytes(b: &[u8]) -> Result<Self, Error> {
        let p = Params::of_encoding(b)?;
        let n = p.n();
        let cred_len = Credential::encoded_len(p);
        if b.len() == cred_len {
            return Err(Error::NoOneTimeKey);
        }
        if b.len() < cred_len || !(b.len() - cred_len).is_multiple_of(n) {
            return Err(Error::ListLength {
                what: "certificate request",
                got: b.len(),
            });
        }
        let (cred, keys) = b.split_at(cred_len);
        let public_keys = keys.chunks_exact(n).map(<[u8]>::to_vec).collect();
        CertificateRequest::new(Credential::from_bytes(cred)?, public_keys)
    }

    /// The credential it was made under.
    pub fn credential(&self) -> &Credential {
        &self.credential
    }

    /// The parameter set.
    pub fn params(&self) -> Params {
        self.credential.params
    }

    /// The member id.
    pub fn id(&self) -> u64 {
        self.credential.id
    }

    /// The WOTS+ public keys to certify, in the order of their seeds.
    pub fn public_keys(&self) -> &[Vec<u8>] {
        &self.public_keys
    }
}

/// `b` cut into entries of `len` bytes, or [`Error::ListLength`].
fn entries<'a>(
    what: &'static str,
    b: &'a [u8],
    len: usize,
) -> Result<std::slice::ChunksExact<'a, u8>, Error> {
    if !b.len().is_multiple_of(len) {
        return Err(Error::ListLength { what, got: b.len() });
    }
    Ok(b.chunks_exact(len))
}

/// The seeds of one-time keys a member requested and has not used yet, oldest first. Not
/// `Clone`, as [`WotsSeed`] is not: a seed taken with [`Self::take_next`] leaves the list.
pub struct PendingKeys {
    params: Params,
    seeds: VecDeque<WotsSeed>,
    /// The index of the first seed, for a numbered list.
    first: Option<u32>,
}

/// Bytes of a pending file's number: the index of its first seed.
const FIRST_LEN: usize = 4;

impl PendingKeys {
    /// A list of `seeds` (n bytes each; [`crate::csr`] makes them so).
    pub fn new(params: Params, seeds: Vec<WotsSeed>) -> Result<Self, Error> {
        for s in &seeds {
            Error::check_len("WOTS+ seed", params.n(), s.as_bytes().len())?;
        }
        Ok(PendingKeys {
            params,
            seeds: seeds.into(),
            first: None,
        })
    }

    /// A numbered list of `seeds`, the first of index `first` (see [`Credential::issue`]).
    pub fn numbered(params: Params, seeds: Vec<WotsSeed>, first: u32) -> Result<Self, Error> {
        let mut k = Self::new(params, seeds)?;
        k.first = Some(first);
        Ok(k)
    }

    /// The pending file: first || seeds for a numbered list, the bare seeds otherwise.
    pub fn to_file_bytes(&self) -> Zeroizing<Vec<u8>> {
        let mut v = Zeroizing::new(self.first.map_or(vec![], |f| f.to_be_bytes().to_vec()));
        v.extend_from_slice(&self.to_bytes());
        v
    }

    /// Decodes a pending file of parameter set `p`: numbered (4 bytes, then whole seeds) or bare
    /// seeds; [`Error::ListLength`] for any other length.
    pub fn from_file_bytes(p: Params, b: &[u8]) -> Result<Self, Error> {
        if b.len() % p.n() != FIRST_LEN {
            return Self::from_bytes(p, b);
        }
        let (first, seeds) = b.split_at(FIRST_LEN);
        let mut k = Self::from_bytes(p, seeds)?;
        k.first = Some(alibi_encoding::array("first", first).map(u32::from_be_bytes)?);
        Ok(k)
    }

    /// The index of the seed [`Self::take_next`] returns, for a numbered list.
    pub fn next_index(&self) -> Option<u32> {
        self.first
    }

    /// seed_1 || .. || seed_b.
    pub fn to_bytes(&self) -> Zeroizing<Vec<u8>> {
        let mut v = Zeroizing::new(Vec::with_capacity(self.seeds.len() * self.params.n()));
        for s in &self.seeds {
            v.extend_from_slice(s.as_bytes());
        }
        v
    }

    /// Decodes the seeds of parameter set `p`: [`Error::ListLength`] unless `b` is whole seeds.
    pub fn from_bytes(p: Params, b: &[u8]) -> Result<Self, Error> {
        let seeds = entries("pending one-time keys", b, p.n())?
            .map(|s| WotsSeed::from_bytes(p, s))
            .collect::<Result<_, _>>()?;
        Ok(PendingKeys {
            params: p,
            seeds,
            first: None,
        })
    }

    /// Removes and returns the oldest seed (the next index moves on past it).
    pub fn take_next(&mut self) -> Option<WotsSeed> {
        let seed = self.seeds.pop_front()?;
        self.first = self.first.map(|f| f.saturating_add(1));
        Some(seed)
    }

    /// How many seeds are left.
    pub fn len(&self) -> usize {
        self.seeds.len()
    }

    /// Whether none is left.
    pub fn is_empty(&self) -> bool {
        self.seeds.is_empty()
    }

    /// The parameter set.
    pub fn params(&self) -> Params {
        self.params
    }
}

/// Certificates in the order of their one-time keys: what [`crate::Manager::gen_cert`] returns
/// for a request, stored beside the member's [`PendingKeys`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CertificateList {
    params: Params,
    certs: VecDeque<Certificate>,
}

impl CertificateList {
    /// A list of `certs`, each of parameter set `params`.
    pub fn new(params: Params, certs: Vec<Certificate>) -> Result<Self, Error> {
        for c in &certs {
            Error::check_len("certificate's pi", params.n(), c.pi.len())?;
            Error::check_len(
                "certificate's SPHINCS+ signature",
                spx::signature_len(params),
                c.spx_sig.len(),
            )?;
        }
        Ok(CertificateList {
            params,
            certs: certs.into(),
        })
    }

    /// certificate_1 || .. || certificate_b.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.certs.iter().flat_map(Certificate::to_bytes).collect()
    }

    /// Decodes the certificates of parameter set `p`: [`Error::ListLength`] unless `b` is whole
    /// certificates.
    pub fn from_bytes(p: Params, b: &[u8]) -> Result<Self, Error> {
        let certs = entries("certificates", b, Certificate::encoded_len(p))?
            .map(|c| Certificate::from_bytes(p, c))
            .collect::<Result<_, _>>()?;
        Ok(CertificateList { params: p, certs })
    }

    /// Removes and returns the oldest certificate.
    pub fn take_next(&mut self) -> Option<Certificate> {
        self.certs.pop_front()
    }

    /// How many certificates are left.
    pub fn len(&self) -> usize {
        self.certs.len()
    }

    /// Whether none is left.
    pub fn is_empty(&self) -> bool {
        self.certs.is_empty()
    }

    /// The parameter set.
    pub fn params(&self) -> Params {
        self.params
    }
}

/// The member's side of signing from its stored state: takes the next one-time key out of
/// `pending` and its certificate out of `certs` and checks the certificate under the manager's
/// key. With the member's `credential`, the key is first counted used there, and a key counted
/// already (pending keys restored from an older copy) is refused with [`Error::OneTimeKeyUsed`]
/// instead of signing with a WOTS+ one-time key a second time. The caller stores the changed
/// `pending`, `certs` and `credential` before it signs, so that a crash cannot reuse the key.
pub fn take_one_time_key(
    user: &UserKey,
    pending: &mut PendingKeys,
    certs: &mut CertificateList,
    credential: Option<&mut Credential>,
    pkm: &ManagerPublicKey,
) -> Result<OneTimeKey, Error> {
    if let Some(c) = &credential {
        if c.params() != user.params() || c.id() != user.id() {
            return Err(Error::OtherMember {
                credential: c.id(),
                key: user.id(),
            });
        }
    }
    if pending.is_empty() {
        return Err(Error::NoPendingKey);
    }
    if certs.is_empty() {
        return Err(Error::NoCertificate);
    }
    if let (Some(index), Some(c)) = (pending.next_index(), credential) {
        c.use_key(index)?;
    }
    let (Some(seed), Some(cert)) = (pending.take_next(), certs.take_next()) else {
        return Err(Error::NoPendingKey);
    };
    user.accept(vec![seed], vec![cert], pkm)?
        .pop()
        .ok_or(Error::InvalidCertificate)
}

/// The member's side of a certificate request from its stored state: `count` fresh one-time
/// keys ([`csr`]), numbered from the `credential`, which counts them first (store it before the
/// rest, so that a failure after that only skips numbers). Returns the request for the manager
/// and the pending keys the member keeps.
pub fn request_keys<R: CryptoRng + ?Sized>(
    credential: &mut Credential,
    user: &UserKey,
    count: u32,
    rng: &mut R,
) -> Result<(CertificateRequest, PendingKeys), Error> {
    if credential.params() != user.params() || credential.id() != user.id() {
        return Err(Error::OtherMember {
            credential: credential.id(),
            key: user.id(),
        });
    }
    let (seeds, pks) = csr(user, count as usize, rng);
    let first = credential.issue(count)?;
    let request = CertificateRequest::new(credential.clone(), pks)?;
    let pending = PendingKeys::numbered(user.params(), seeds, first)?;
    Ok((request, pending))
}
