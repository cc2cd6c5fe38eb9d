//! The four threshold schemes alibi runs as one type: [`Scheme`] names them, [`Share`] is a
//! party's share of a key of any of them, [`verify`] checks their signatures. Running them is
//! [`crate::endpoint::Endpoint`]'s.
//!
//! * BLS is alibi's own protocol ([`crate::dkg`], [`crate::sign`]): identifiable abort, any t+1
//!   of the parties sign.
//! * FROST-Ed25519, FROST-secp256k1-tr (givre) and CGGMP24 ECDSA (cggmp24) are established
//!   crates' protocols run unchanged over a [`crate::net::Net`] ([`external`]): exactly t+1
//!   parties sign.
//!
//! Signatures are the schemes' standard ones (BLS of the POP ciphersuite, Ed25519, BIP-340
//! Schnorr, ECDSA `r || s`), checked by verifiers that share no code with the protocols (blst,
//! ed25519-dalek, k256).

pub(crate) mod external;
pub(crate) mod presign;
pub(crate) mod refresh;

use core::str::FromStr;

use alibi_threshold_ecdsa as ecdsa;
use zeroize::Zeroizing;

use crate::dkg::KeyShare;
use crate::{bls, Blame, Error, PartyIndex, Result};
use external::Held;

pub use alibi_threshold::hd::{DerivationPath, ExtendedPublicKey, HdCurve};
pub use alibi_threshold_ecdsa::{PrimeProgress, Primes, PRIME_COUNT};
pub use presign::{Presignature, Presignatures, Taken, MAX_STORED};

/// A threshold scheme alibi runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scheme {
    /// Threshold BLS on BLS12-381 (G2 signatures, POP ciphersuite), alibi's own protocol with
    /// identifiable abort.
    Bls,
    /// FROST(Ed25519, SHA-512), RFC 9591: Ed25519 signatures.
    FrostEd25519,
    /// FROST over secp256k1 with BIP-340 challenges and the BIP-341 key tweak (givre's Bitcoin
    /// ciphersuite): BIP-340 Schnorr signatures under an x-only taproot key.
    FrostSecp256k1Tr,
    /// CGGMP24 threshold ECDSA over secp256k1 (SHA-256 of the message, low-S).
    EcdsaSecp256k1,
}

impl Scheme {
    /// Every scheme, BLS first.
    pub const ALL: [Scheme; 4] = [
        Scheme::Bls,
        Scheme::FrostEd25519,
        Scheme::FrostSecp256k1Tr,
        Scheme::EcdsaSecp256k1,
    ];

    /// The name on the command line, in files and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Scheme::Bls => "bls",
            Scheme::FrostEd25519 => "frost-ed25519",
            Scheme::FrostSecp256k1Tr => "frost-secp256k1-tr",
            Scheme::EcdsaSecp256k1 => "ecdsa-secp256k1",
        }
    }

    /// The byte that names the scheme in a share's encoding.
    pub(crate) fn tag(self) -> u8 {
        match self {
            Scheme::Bls => 0,
            Scheme::FrostEd25519 => 1,
            Scheme::FrostSecp256k1Tr => 2,
            Scheme::EcdsaSecp256k1 => 3,
        }
    }

    /// The public key's length in its standard encoding.
    pub fn public_key_len(self) -> usize {
        match self {
            Scheme::Bls => 48,
            Scheme::EcdsaSecp256k1 => ecdsa::PUBLIC_KEY_LEN,
            _ => 32,
        }
    }

    /// What the public key is, in words (for messages about a wrong file).
    pub fn public_key_words(self) -> &'static str {
        match self {
            Scheme::Bls => "a 48-byte BLS group key (compressed G1 point)",
            Scheme::FrostEd25519 => "a 32-byte Ed25519 public key",
            Scheme::FrostSecp256k1Tr => "a 32-byte x-only BIP-340 public key",
            Scheme::EcdsaSecp256k1 => "a 33-byte compressed secp256k1 public key",
        }
    }

    /// The signature's length: 96 bytes (compressed G2) for BLS, 64 for the others.
    pub fn signature_len(self) -> usize {
        match self {
            Scheme::Bls => 96,
            _ => 64,
        }
    }

    /// What the signature is, in words.
    pub fn signature_words(self) -> &'static str {
        match self {
            Scheme::Bls => "a 96-byte BLS signature (compressed G2 point)",
            _ => "a 64-byte signature",
        }
    }

    /// Whether exactly t+1 parties sign (the external protocols); BLS signs with the first t+1
    /// valid partials of any number asked.
    pub fn exactly_t_plus_1(self) -> bool {
        self != Scheme::Bls
    }

    /// Whether key generation takes safe primes (threshold ECDSA's Paillier keys).
    pub fn needs_primes(self) -> bool {
        self == Scheme::EcdsaSecp256k1
    }

    /// Why keys of this scheme are not refreshed; `None` when they are
    /// ([`crate::endpoint::Endpoint::refresh`]). The one place the rule is written.
    pub fn refresh_refusal(self) -> Option<&'static str> {
        (self == Scheme::EcdsaSecp256k1).then_some(
            "ecdsa-secp256k1 keys are not refreshed: the key refresh of cggmp24 (cggmp21's \
             protocol) covers non-threshold shares only, every party needed to sign, and \
             alibi's ecdsa-secp256k1 keys are threshold keys",
        )
    }
}

impl core::fmt::Display for Scheme {
    fn fmt(&self, f: &mut core::fmt::Formatter) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Scheme {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        Scheme::ALL
            .into_iter()
            .find(|x| x.name() == s)
            .ok_or_else(|| Error::Parameters(format!("no threshold scheme named {s}")))
    }
}

/// Generates the [`PRIME_COUNT`] safe primes of a party's Paillier key and ring-Pedersen
/// modulus for threshold ECDSA's key generation, with the operating system's randomness (slow:
/// seconds to minutes; `progress` hears of it every few seconds).
pub fn generate_primes(progress: impl FnMut(PrimeProgress)) -> Primes {
    ecdsa::generate_primes(&mut rand_core::UnwrapErr(getrandom::SysRng), progress)
}

/// One party's share of a threshold key, of any [`Scheme`].
#[derive(Clone)]
pub struct Share(Inner);

#[derive(Clone)]
enum Inner {
    Bls(KeyShare),
    External(Held),
}

impl From<KeyShare> for Share {
    fn from(share: KeyShare) -> Self {
        Share(Inner::Bls(share))
    }
}

impl From<Held> for Share {
    fn from(share: Held) -> Self {
        Share(Inner::External(share))
    }
}

impl core::fmt::Debug for Share {
    fn fmt(&self, f: &mut core::fmt::Formatter) -> core::fmt::Result {
        f.debug_struct("Share")
            .field("scheme", &self.scheme())
            .field("me", &self.me())
            .field("public_key", &hex::encode(self.public_key()))
            .finish_non_exhaustive()
    }
}

impl Share {
    /// The scheme.
    pub fn scheme(&self) -> Scheme {
        match &self.0 {
            Inner::Bls(_) => Scheme::Bls,
            Inner::External(h) => h.scheme,
        }
    }

    /// The group's public key in its standard encoding ([`Scheme::public_key_len`] bytes).
    pub fn public_key(&self) -> &[u8] {
        match &self.0 {
            Inner::Bls(s) => &s.group_key,
            Inner::External(h) => &h.public_key,
        }
    }

    /// This party's group index.
    pub fn me(&self) -> PartyIndex {
        match &self.0 {
            Inner::Bls(s) => s.index,
            Inner::External(h) => h.me,
        }
    }

    /// t: any t+1 of the parties sign together, t cannot.
    pub fn threshold(&self) -> usize {
        match &self.0 {
            Inner::Bls(s) => s.threshold,
            Inner::External(h) => h.t,
        }
    }

    /// The parties of key generation (group indices, in order).
    pub fn parties(&self) -> &[PartyIndex] {
        match &self.0 {
            Inner::Bls(s) => &s.parties,
            Inner::External(h) => &h.parties,
        }
    }

    /// The parties whose dealings make up the key: BLS leaves out those it named; the
    /// external schemes finish with every party or none.
    pub fn qualified(&self) -> &[PartyIndex] {
        match &self.0 {
            Inner::Bls(s) => &s.qualified,
            Inner::External(h) => &h.parties,
        }
    }

    /// Who key generation named (BLS finishes without them; the external schemes abort).
    pub fn blamed(&self) -> &[Blame] {
        match &self.0 {
            Inner::Bls(s) => &s.blamed,
            Inner::External(_) => &[],
        }
    }

    /// The parties that may sign: those of key generation less the named.
    pub fn eligible_signers(&self) -> Vec<PartyIndex> {
        match &self.0 {
            Inner::Bls(s) => s.eligible_signers(),
            Inner::External(h) => h.parties.clone(),
        }
    }

    /// Threshold ECDSA: the number of the next presignature this party may use (every lower
    /// number was used or thrown away, and [`Presignatures::take`] refuses it); 0 for a share
    /// that never signed with one, and for the other schemes.
    pub fn presignatures_used(&self) -> u64 {
        match &self.0 {
            Inner::Bls(_) => 0,
            Inner::External(h) => h.presigned,
        }
    }

    /// Counts presignatures up to `number` as used (never back: a lower count is ignored).
    pub(crate) fn count_presignatures(&mut self, number: u64) {
        if let Inner::External(h) = &mut self.0 {
            h.presigned = h.presigned.max(number);
        }
    }

    /// The key's extended public key (the key and its chain code, depth 0): what anyone
    /// derives the keys a signing run with a path signs under from ([`public_key_at`]). `None`
    /// for BLS, which does not derive, and for a key generated without a chain code (alibi
    /// before derived keys).
    pub fn extended_public_key(&self) -> Option<ExtendedPublicKey> {
        self.external()?.extended_public_key()
    }

    /// The key signatures verify under at `path`, in the scheme's standard encoding: the group
    /// key at `m`, else the child [`public_key_at`] derives.
    pub fn public_key_at(&self, path: &DerivationPath) -> Result<Vec<u8>> {
        if path.is_master() {
            return Ok(self.public_key().to_vec());
        }
        let xpub = self.extended_public_key().ok_or_else(|| {
            Error::Parameters(match self.scheme() {
                Scheme::Bls => "bls keys do not derive child keys".into(),
                s => format!(
                    "this {s} key was generated without a chain code (before alibi derived \
                     keys): it has no child keys"
                ),
            })
        })?;
        public_key_at(self.scheme(), &xpub, path)
    }

    /// The BLS share inside, for BLS's own protocol.
    pub fn bls(&self) -> Option<&KeyShare> {
        match &self.0 {
            Inner::Bls(s) => Some(s),
            Inner::External(_) => None,
        }
    }

    pub(crate) fn external(&self) -> Option<&Held> {
        match &self.0 {
            Inner::Bls(_) => None,
            Inner::External(h) => Some(h),
        }
    }

    /// Checks a signing run's signers against this share, the one place every scheme's rule
    /// is written: indices from 1, none twice, this party among them, each a party of key
    /// generation, and t+1 of them (exactly t+1 where [`Scheme::exactly_t_plus_1`]).
    pub fn check_signers(&self, signers: &[PartyIndex]) -> core::result::Result<(), SignerFault> {
        if signers.contains(&0) {
            return Err(SignerFault::IndexZero);
        }
        if let Some((_, &p)) = signers
            .iter()
            .enumerate()
            .find(|(i, p)| signers[..*i].contains(p))
        {
            return Err(SignerFault::Twice(p));
        }
        if !signers.contains(&self.me()) {
            return Err(SignerFault::NotAmong(self.me()));
        }
        if let Some(&p) = signers.iter().find(|p| !self.parties().contains(p)) {
            return Err(SignerFault::NoShare(p));
        }
        let (scheme, needed, given) = (self.scheme(), self.threshold() + 1, signers.len());
        if scheme.exactly_t_plus_1() && given != needed {
            return Err(SignerFault::NotExactly {
                scheme,
                needed,
                given,
            });
        }
        if given < needed {
            return Err(SignerFault::TooFew { needed, given });
        }
        Ok(())
    }

    /// The encoding, secret (seal it): BLS's key share file (JSON, [`KeyShare::to_json`]), the
    /// other schemes' `"ATSH"` header and their own share encoding.
    pub fn to_bytes(&self) -> Zeroizing<Vec<u8>> {
        match &self.0 {
            Inner::Bls(s) => Zeroizing::new(s.to_json().as_bytes().to_vec()),
            Inner::External(h) => h.to_bytes(),
        }
    }

    /// Decodes [`Share::to_bytes`] of any scheme (never panics).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        if bytes.starts_with(&external::HEADER.magic) {
            return Held::from_bytes(bytes).map(Share::from);
        }
        let text =
            core::str::from_utf8(bytes).map_err(|_| Error::Malformed("threshold key share"))?;
        KeyShare::from_json(text).map(Share::from)
    }
}

/// The public key signatures of `scheme` verify under at `path` below `xpub` (the group's
/// extended public key, [`Share::extended_public_key`]), in the scheme's standard encoding:
/// ECDSA's BIP-32 child (33 bytes SEC1 compressed); FROST-secp256k1-tr's BIP-32 child of the
/// internal key, tweaked as BIP-341 says (32 bytes x-only); FROST-Ed25519's child by the
/// non-standard Edwards derivation givre signs with (32 bytes). BLS keys do not derive.
pub fn public_key_at(
    scheme: Scheme,
    xpub: &ExtendedPublicKey,
    path: &DerivationPath,
) -> Result<Vec<u8>> {
    let refused = |e: alibi_threshold::Error| Error::Parameters(e.to_string());
    match (scheme, external::frost_suite(scheme)) {
        (Scheme::Bls, _) => Err(Error::Parameters(
            "bls keys do not derive child keys".into(),
        )),
        (_, Some(frost)) => match alibi_frost::public_key_at(frost, xpub, path) {
            Ok(key) => Ok(key.to_vec()),
            Err(alibi_frost::Error::Threshold(e)) => Err(refused(e)),
            Err(e) => Err(Error::Parameters(e.to_string())),
        },
        (_, None) if xpub.curve() != HdCurve::Secp256k1 => Err(Error::Parameters(
            "an Ed25519 extended key is no ecdsa-secp256k1 key".into(),
        )),
        (_, None) => Ok(xpub.derive(path).map_err(refused)?.public_key().to_vec()),
    }
}

/// Why a list of signers cannot sign with a share ([`Share::check_signers`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SignerFault {
    /// Index 0, which is no party's.
    #[error("party index 0 (indices start at 1)")]
    IndexZero,
    /// A party listed twice.
    #[error("party {0} appears twice")]
    Twice(PartyIndex),
    /// The share's own party is not listed.
    #[error("party {0} is not among the signers")]
    NotAmong(PartyIndex),
    /// A party that holds no share of this key.
    #[error("party {0} holds no share of this key")]
    NoShare(PartyIndex),
    /// Fewer than t+1.
    #[error("{given} signers; t+1 = {needed} are needed")]
    TooFew {
        /// t+1.
        needed: usize,
        /// How many were listed.
        given: usize,
    },
    /// Not exactly t+1, where the scheme signs with exactly that many.
    #[error("{scheme} signs with exactly t+1 = {needed} parties, not {given}")]
    NotExactly {
        /// The scheme.
        scheme: Scheme,
        /// t+1.
        needed: usize,
        /// How many were listed.
        given: usize,
    },
}

/// Why a signature was not accepted.
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    /// A public key or signature that does not decode (wrong length or not a point).
    #[error("malformed: {0}")]
    Malformed(String),
    /// A well-formed signature that does not verify.
    #[error("invalid signature")]
    Invalid,
}

/// Checks a signature of `scheme` under the group key with an independent verifier: blst's
/// BLS (POP ciphersuite), ed25519-dalek's strict verification, k256's BIP-340 and ECDSA.
pub fn verify(
    scheme: Scheme,
    public_key: &[u8],
    msg: &[u8],
    sig: &[u8],
) -> core::result::Result<(), VerifyError> {
    match (scheme, external::frost_suite(scheme)) {
        (Scheme::Bls, _) => bls_verify(public_key, msg, sig),
        (_, Some(frost)) => alibi_frost::verify(frost, public_key, msg, sig).map_err(|e| match e {
            alibi_frost::Error::InvalidSignature => VerifyError::Invalid,
            e => VerifyError::Malformed(e.to_string()),
        }),
        (_, None) => ecdsa::verify(public_key, msg, sig).map_err(|e| match e {
            ecdsa::Error::InvalidSignature => VerifyError::Invalid,
            e => VerifyError::Malformed(e.to_string()),
        }),
    }
}

fn bls_verify(public_key: &[u8], msg: &[u8], sig: &[u8]) -> core::result::Result<(), VerifyError> {
    if public_key.len() != 48 || !bls::g1_decodes(public_key) {
        return Err(VerifyError::Malformed(
            "not a BLS group key (48-byte compressed G1 point)".into(),
        ));
    }
    if sig.len() != 96 || !bls::g2_decodes(sig) {
        return Err(VerifyError::Malformed(
            "not a BLS signature (96-byte compressed G2 point)".into(),
        ));
    }
    bls::verify(public_key, msg, sig).map_err(|_| VerifyError::Invalid)
}

/// Decodes `data` as a share of each scheme and as a presignature (for the fuzz target).
pub(crate) fn fuzz_decoders(data: &[u8]) {
    let _ = Share::from_bytes(data);
    external::fuzz_decoders(data);
    let _ = Presignature::from_bytes(data);
    if let Ok(store) = Presignatures::from_bytes(data) {
        let again = store.to_bytes().expect("a decoded store encodes");
        let back = Presignatures::from_bytes(&again).expect("an encoded store decodes");
        assert_eq!(back.len(), store.len());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemes_by_name_and_tag() {
        for s in Scheme::ALL {
            assert_eq!(s.name().parse::<Scheme>().unwrap(), s);
        }
        let tags: std::collections::BTreeSet<u8> = Scheme::ALL.map(Scheme::tag).into();
        assert_eq!(tags.len(), 4);
        assert!("rsa".parse::<Scheme>().is_err());
    }

    /// A store of presignatures decodes only whole: no byte missing or left over, no count
    /// beyond [`MAX_STORED`].
    #[test]
    fn stored_presignatures_decode_strictly() {
        let empty = Presignatures::default().to_bytes().unwrap();
        let back = Presignatures::from_bytes(&empty).unwrap();
        assert!(back.is_empty() && back.next_number() == 0);
        let mut longer = empty.to_vec();
        longer.push(0);
        assert!(Presignatures::from_bytes(&longer).is_err());
        assert!(Presignatures::from_bytes(&empty[..empty.len() - 1]).is_err());
        let mut many = empty.to_vec();
        many[13..17].copy_from_slice(&(MAX_STORED as u32 + 1).to_be_bytes());
        assert!(Presignatures::from_bytes(&many).is_err());
        many[13..17].copy_from_slice(&1u32.to_be_bytes());
        assert!(
            Presignatures::from_bytes(&many).is_err(),
            "one announced, none there"
        );
    }

    #[test]
    fn garbage_is_no_share_of_any_scheme() {
        for bad in [&b""[..], b"ATSH", b"ATSH\x01\x00", b"{}", b"\xff\xfe"] {
            assert!(Share::from_bytes(bad).is_err());
        }
    }

    /// Every rule of the signers, for a 2-of-3 share of each kind (t = 1).
    #[test]
    fn signers_are_checked_in_one_place() {
        let bls = |me| Share::from(KeyShare::for_tests(me, 1, vec![1, 2, 3]));
        let s = bls(2);
        assert_eq!(s.check_signers(&[1, 2]), Ok(()));
        assert_eq!(s.check_signers(&[1, 2, 3]), Ok(()));
        assert_eq!(s.check_signers(&[0, 2]), Err(SignerFault::IndexZero));
        assert_eq!(s.check_signers(&[2, 2]), Err(SignerFault::Twice(2)));
        assert_eq!(s.check_signers(&[1, 3]), Err(SignerFault::NotAmong(2)));
        assert_eq!(s.check_signers(&[2, 4]), Err(SignerFault::NoShare(4)));
        let few = SignerFault::TooFew {
            needed: 2,
            given: 1,
        };
        assert_eq!(s.check_signers(&[2]), Err(few));
    }

    /// BLS keys have no children: the master path gives the group key, any other is refused
    /// before a run would start.
    #[test]
    fn bls_keys_do_not_derive() {
        let s = Share::from(KeyShare::for_tests(1, 1, vec![1, 2, 3]));
        assert!(s.extended_public_key().is_none());
        let master = s.public_key_at(&DerivationPath::master()).unwrap();
        assert_eq!(master, s.public_key());
        let e = s.public_key_at(&"m/1".parse().unwrap()).unwrap_err();
        assert!(e.to_string().contains("bls keys do not derive"), "{e}");
    }

    #[test]
    fn a_bls_verification_of_garbage_is_malformed_not_invalid() {
        let e = verify(Scheme::Bls, &[0; 48], b"m", &[0; 96]).unwrap_err();
        assert!(matches!(e, VerifyError::Malformed(_)), "{e:?}");
        let e = verify(Scheme::FrostEd25519, &[0; 31], b"m", &[0; 64]).unwrap_err();
        assert!(matches!(e, VerifyError::Malformed(_)), "{e:?}");
    }
}
