//! Threshold signatures alibi did not write, run over its channels: FROST from `givre`
//! (`alibi-frost`) and CGGMP24 threshold ECDSA from `cggmp24` (`alibi-threshold-ecdsa`), each
//! party its own [`Net`] end, each protocol through the `round-based` adapter
//! ([`crate::delivery`]) unchanged.
//!
//! A [`Share`] records what the schemes leave to their caller: which parties of the group took
//! part in key generation (a signer's index in the scheme is its position among them) and the
//! threshold. Signatures are the schemes' standard ones: Ed25519, BIP-340 Schnorr and ECDSA
//! `r || s`; [`verify`] checks them with verifiers that share no code with the protocols
//! (ed25519-dalek, k256).

use core::str::FromStr;

use alibi_frost::suite::{Ed25519, Secp256k1Tr};
use alibi_frost::FrostSuite;
use alibi_threshold_ecdsa as ecdsa;
use round_based::MpcParty;
use sha2::{Digest, Sha256};
use zeroize::Zeroizing;

use crate::delivery::delivery_from;
use crate::net::Net;
use crate::transport::Transport;
use crate::{Error, PartyIndex, Result, SessionId};

/// A threshold scheme from an established crate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scheme {
    /// FROST(Ed25519, SHA-512), RFC 9591: Ed25519 signatures.
    FrostEd25519,
    /// FROST over secp256k1 with BIP-340 challenges and the BIP-341 key tweak (givre's Bitcoin
    /// ciphersuite): BIP-340 Schnorr signatures under an x-only taproot key.
    FrostSecp256k1Tr,
    /// CGGMP24 threshold ECDSA over secp256k1 (SHA-256 of the message, low-S).
    EcdsaSecp256k1,
}

impl Scheme {
    /// Every scheme, in the order of [`Scheme::tag`].
    pub const ALL: [Scheme; 3] = [
        Scheme::FrostEd25519,
        Scheme::FrostSecp256k1Tr,
        Scheme::EcdsaSecp256k1,
    ];

    /// The name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Scheme::FrostEd25519 => "frost-ed25519",
            Scheme::FrostSecp256k1Tr => "frost-secp256k1-tr",
            Scheme::EcdsaSecp256k1 => "ecdsa-secp256k1",
        }
    }

    /// The byte that names the scheme in a [`Share`]'s encoding.
    fn tag(self) -> u8 {
        match self {
            Scheme::FrostEd25519 => 1,
            Scheme::FrostSecp256k1Tr => 2,
            Scheme::EcdsaSecp256k1 => 3,
        }
    }

    /// The public key's length in its standard encoding.
    pub fn public_key_len(self) -> usize {
        match self {
            Scheme::EcdsaSecp256k1 => ecdsa::PUBLIC_KEY_LEN,
            _ => 32,
        }
    }

    /// What the public key is, in words (for messages about a wrong file).
    pub fn public_key_words(self) -> &'static str {
        match self {
            Scheme::FrostEd25519 => "a 32-byte Ed25519 public key",
            Scheme::FrostSecp256k1Tr => "a 32-byte x-only BIP-340 public key",
            Scheme::EcdsaSecp256k1 => "a 33-byte compressed secp256k1 public key",
        }
    }

    /// The signature's length (64 bytes for all three).
    pub fn signature_len(self) -> usize {
        64
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

/// One party's share of a threshold key: the scheme's own share, with the group indices of the
/// parties that made it.
pub struct Share {
    scheme: Scheme,
    /// The parties of key generation, in index order; the scheme numbers them 0..n.
    parties: Vec<PartyIndex>,
    /// This party's group index.
    me: PartyIndex,
    /// The scheme's encoding of its share (secret).
    inner: Zeroizing<Vec<u8>>,
    public_key: Vec<u8>,
    /// The number of signers needed.
    signers_needed: u16,
}

const MAGIC: &[u8; 4] = b"ATSH";
const VERSION: u8 = 1;

impl Share {
    /// The scheme.
    pub fn scheme(&self) -> Scheme {
        self.scheme
    }

    /// The group's public key in its standard encoding.
    pub fn public_key(&self) -> &[u8] {
        &self.public_key
    }

    /// The parties of key generation (group indices, in order).
    pub fn parties(&self) -> &[PartyIndex] {
        &self.parties
    }

    /// This party's group index.
    pub fn me(&self) -> PartyIndex {
        self.me
    }

    /// t: any t+1 of the parties sign together, exactly that many.
    pub fn threshold(&self) -> usize {
        usize::from(self.signers_needed).saturating_sub(1)
    }

    /// The encoding: `"ATSH"`, version 1, the scheme's tag, this party's index, the number of
    /// parties and each index (all u16 big-endian), then the scheme's own share encoding.
    /// Secret: seal it.
    pub fn to_bytes(&self) -> Zeroizing<Vec<u8>> {
        let mut out = Zeroizing::new(Vec::with_capacity(
            16 + 2 * self.parties.len() + self.inner.len(),
        ));
        out.extend_from_slice(MAGIC);
        out.push(VERSION);
        out.push(self.scheme.tag());
        out.extend_from_slice(&self.me.to_be_bytes());
        out.extend_from_slice(&(self.parties.len() as u16).to_be_bytes());
        for p in &self.parties {
            out.extend_from_slice(&p.to_be_bytes());
        }
        out.extend_from_slice(&self.inner);
        out
    }

    /// Decodes [`Share::to_bytes`], checking the scheme's share inside (never panics).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let bad = || Error::Malformed("threshold key share");
        let rest = bytes.strip_prefix(MAGIC.as_slice()).ok_or_else(bad)?;
        let (&[version, tag], rest) = rest.split_first_chunk::<2>().ok_or_else(bad)?;
        let scheme = Scheme::ALL
            .into_iter()
            .find(|s| s.tag() == tag)
            .filter(|_| version == VERSION)
            .ok_or_else(bad)?;
        let (me, rest) = rest.split_first_chunk::<2>().ok_or_else(bad)?;
        let (count, mut rest) = rest.split_first_chunk::<2>().ok_or_else(bad)?;
        let mut parties = vec![];
        for _ in 0..u16::from_be_bytes(*count) {
            let (p, more) = rest.split_first_chunk::<2>().ok_or_else(bad)?;
            parties.push(u16::from_be_bytes(*p));
            rest = more;
        }
        let share = Self::from_scheme(scheme, parties, u16::from_be_bytes(*me), rest)?;
        Ok(share)
    }

    /// A share from the scheme's own encoding, checked against the party list.
    fn from_scheme(
        scheme: Scheme,
        parties: Vec<PartyIndex>,
        me: PartyIndex,
        inner: &[u8],
    ) -> Result<Self> {
        let (index, n, needed, public_key) = match scheme {
            Scheme::EcdsaSecp256k1 => {
                let s = ecdsa::KeyShare::from_bytes(inner)
                    .map_err(|_| Error::Malformed("threshold key share"))?;
                (
                    s.index(),
                    s.parties(),
                    s.min_signers(),
                    s.public_key().to_vec(),
                )
            }
            _ => {
                let s = alibi_frost::KeyShare::from_bytes(inner)
                    .map_err(|_| Error::Malformed("threshold key share"))?;
                let frost = if scheme == Scheme::FrostEd25519 {
                    alibi_frost::Scheme::Ed25519
                } else {
                    alibi_frost::Scheme::Secp256k1Tr
                };
                if s.scheme() != frost {
                    return Err(Error::Malformed("threshold key share of another scheme"));
                }
                (s.index(), s.n(), s.threshold(), s.public_key())
            }
        };
        crate::check_indices(&parties)?;
        if usize::from(n) != parties.len() || parties.get(usize::from(index)) != Some(&me) {
            return Err(Error::Malformed(
                "threshold key share: its parties do not match the scheme's share",
            ));
        }
        Ok(Self {
            scheme,
            parties,
            me,
            inner: Zeroizing::new(inner.to_vec()),
            public_key,
            signers_needed: needed,
        })
    }
}

/// The failure of a protocol run over `net`: the typed error the net recorded (a transport
/// fault, a silent or stopping party, an undecodable message), else the protocol's own. When it
/// names parties, this party stops the run for the others with its accusation
/// ([`Net::accuse`]): most checks of these protocols are of pairwise messages, which only their
/// receiver sees, and the others would otherwise wait out a round and name nobody.
async fn failed<T: Transport>(net: &Net<T>, protocol: Error) -> Error {
    let e = net
        .failure()
        .unwrap_or_else(|| named_by_position(net.participants(), protocol));
    if let Error::Aborted { reason, blamed } = &e {
        if !blamed.is_empty() {
            net.accuse(blamed, reason).await;
        }
    }
    e
}

/// The protocol's result, or its failure as [`failed`] words it.
async fn settled<T: Transport, V>(net: &Net<T>, r: core::result::Result<V, Error>) -> Result<V> {
    match r {
        Ok(v) => Ok(v),
        Err(e) => Err(failed(net, e).await),
    }
}

/// An abort of FROST or CGGMP24 that names parties, named as parties of the group: the
/// protocols number a run's parties 0.. in the order of `participants` (round-based's
/// convention), which a reader takes for the group's 1-based numbers. Any other error is left as
/// it is.
fn named_by_position(participants: &[PartyIndex], e: Error) -> Error {
    let Error::Protocol(text) = &e else {
        return e;
    };
    let blamed: Vec<crate::Blame> = blamed_positions(text)
        .into_iter()
        .filter_map(|j| participants.get(usize::from(j)))
        .map(|&party| crate::Blame {
            party,
            fault: crate::Fault::FailedCheck,
        })
        .collect();
    if blamed.is_empty() {
        return e;
    }
    // The protocols' own words, without the Debug form that carried the positions.
    let reason = text
        .split_once(" (")
        .map_or(text.as_str(), |(words, _)| words);
    Error::Aborted {
        reason: reason.to_owned(),
        blamed,
    }
}

/// The positions an abort's text blames. The protocols keep their blame in private types, so
/// it is read from their Debug form: `faulty_party: J` (an `AbortBlame`), `parties: [J, ..]`
/// (a list of indices) and `NotReliable([(J, msg), ..])` (the senders of broadcasts that
/// differed).
fn blamed_positions(text: &str) -> std::collections::BTreeSet<u16> {
    let mut out = std::collections::BTreeSet::new();
    let number = |s: &str| -> Option<u16> {
        let digits: String = s.chars().take_while(char::is_ascii_digit).collect();
        digits.parse().ok()
    };
    for (at, _) in text.match_indices("faulty_party: ") {
        out.extend(number(&text[at + "faulty_party: ".len()..]));
    }
    for (at, _) in text.match_indices("parties: [") {
        let list = &text[at + "parties: [".len()..];
        let list = &list[..list.find(']').unwrap_or(list.len())];
        if list
            .chars()
            .all(|c| c.is_ascii_digit() || c == ',' || c == ' ')
        {
            out.extend(list.split(',').filter_map(|j| number(j.trim())));
        }
    }
    for (at, _) in text.match_indices("NotReliable([") {
        let list = &text[at + "NotReliable([".len()..];
        let list = &list[..list.find("])").unwrap_or(list.len())];
        out.extend(list.split('(').skip(1).filter_map(number));
    }
    out
}

fn frost_err(e: alibi_frost::Error) -> Error {
    match e {
        alibi_frost::Error::Transport(s) => Error::Transport(s),
        alibi_frost::Error::Params(s) => Error::Parameters(s),
        e => Error::Protocol(e.to_string()),
    }
}

fn ecdsa_err(e: ecdsa::Error) -> Error {
    match e {
        ecdsa::Error::Parameters(s) => Error::Parameters(s.into()),
        e => Error::Protocol(e.to_string()),
    }
}

pub use alibi_threshold_ecdsa::{PrimeProgress, Primes, PRIME_COUNT};

/// What key generation tells of its slow step, the safe primes of threshold ECDSA.
pub type OnPrimes<'a> = &'a mut (dyn FnMut(PrimeProgress) + Send);

/// Generates the [`PRIME_COUNT`] safe primes of a party's Paillier key and ring-Pedersen
/// modulus for threshold ECDSA's key generation, with the operating system's randomness (slow:
/// seconds to minutes; `progress` hears of it every few seconds).
pub fn generate_primes(progress: impl FnMut(PrimeProgress)) -> Primes {
    ecdsa::generate_primes(&mut rand_core::UnwrapErr(getrandom::SysRng), progress)
}

/// Key generation for `scheme` among the net's participants, any t+1 of whom sign. For
/// threshold ECDSA it also runs the auxiliary information step, with `primes` if given
/// (precomputed, [`ecdsa::generate_primes`]) or primes generated now (slow; `progress` hears
/// of it).
pub async fn keygen<T: Transport + 'static>(
    net: &Net<T>,
    scheme: Scheme,
    t: usize,
    primes: Option<Primes>,
    progress: OnPrimes<'_>,
) -> Result<Share> {
    let n = net.participants().len() as u16;
    let needed = u16::try_from(t + 1)
        .ok()
        .filter(|&k| k >= 2 && k <= n)
        .ok_or_else(|| Error::Parameters(format!("t = {t} with {n} parties")))?;
    let i = net.position(net.me()).unwrap_or(0);
    let session = net.session();
    let mut rng = alibi_frost::OsRng;
    let inner = match scheme {
        Scheme::FrostEd25519 => frost_keygen::<T, Ed25519>(net, i, n, needed).await?,
        Scheme::FrostSecp256k1Tr => frost_keygen::<T, Secp256k1Tr>(net, i, n, needed).await?,
        Scheme::EcdsaSecp256k1 => {
            let primes = match primes {
                Some(p) => p,
                None => generate_primes(progress),
            };
            let core = ecdsa::keygen(&mut rng, &session, i, n, needed, delivery_from(net, 0))
                .await
                .map_err(ecdsa_err);
            let core = settled(net, core).await?;
            let aux = ecdsa::aux_info_gen(&mut rng, &session, i, n, primes, delivery_from(net, 1))
                .await
                .map_err(ecdsa_err);
            let aux = settled(net, aux).await?;
            let share = ecdsa::KeyShare::from_parts(core, aux).map_err(ecdsa_err)?;
            share.to_bytes().map_err(ecdsa_err)?
        }
    };
    let share = Share::from_scheme(scheme, net.participants().to_vec(), net.me(), &inner)?;
    // Nobody claims the key before every participant holds the same: a party still missing a
    // message of the run can ask the others for it meanwhile.
    net.conclude(outcome(&share, net.session())).await?;
    Ok(share)
}

/// What key generation's participants confirm to each other: the scheme, the run, the public
/// key, and who holds a share.
fn outcome(share: &Share, session: SessionId) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(b"alibi mpc threshold keygen outcome v1\0");
    h.update(share.scheme().name().as_bytes());
    h.update([0]);
    h.update(session);
    h.update(share.public_key());
    h.update((share.threshold() as u64).to_be_bytes());
    for p in share.parties() {
        h.update(p.to_be_bytes());
    }
    h.finalize().into()
}

async fn frost_keygen<T: Transport + 'static, C: FrostSuite>(
    net: &Net<T>,
    i: u16,
    n: u16,
    needed: u16,
) -> Result<Zeroizing<Vec<u8>>> {
    let party = MpcParty::connected(delivery_from(net, 0));
    let share = alibi_frost::keygen::<C, _, _>(
        party,
        &net.session(),
        i,
        n,
        needed,
        &mut alibi_frost::OsRng,
    )
    .await
    .map_err(frost_err);
    let share = settled(net, share).await?;
    Ok(share.to_bytes())
}

/// Signs `msg` with `share` among the net's participants: exactly t+1 parties of key
/// generation, this one among them. Returns the scheme's standard 64-byte signature, checked.
pub async fn sign<T: Transport + 'static>(
    net: &Net<T>,
    share: &Share,
    msg: &[u8],
) -> Result<Vec<u8>> {
    let signers: Vec<u16> = net
        .participants()
        .iter()
        .map(|p| {
            share
                .parties
                .iter()
                .position(|q| q == p)
                .and_then(|x| u16::try_from(x).ok())
                .ok_or_else(|| Error::Parameters(format!("party {p} holds no share of this key")))
        })
        .collect::<Result<_>>()?;
    if signers.len() != usize::from(share.signers_needed) {
        return Err(Error::Parameters(format!(
            "{} signs with exactly t+1 = {} parties, not {}",
            share.scheme,
            share.signers_needed,
            signers.len()
        )));
    }
    let me = net.position(net.me()).unwrap_or(0);
    let sig = match share.scheme {
        Scheme::FrostEd25519 => frost_sign::<T, Ed25519>(net, share, &signers, me, msg).await?,
        Scheme::FrostSecp256k1Tr => {
            frost_sign::<T, Secp256k1Tr>(net, share, &signers, me, msg).await?
        }
        Scheme::EcdsaSecp256k1 => {
            let inner = ecdsa::KeyShare::from_bytes(&share.inner).map_err(ecdsa_err)?;
            let session = net.session();
            let sig = ecdsa::sign(
                &mut alibi_frost::OsRng,
                &session,
                &inner,
                &signers,
                msg,
                delivery_from(net, 0),
            )
            .await
            .map_err(ecdsa_err);
            let sig = settled(net, sig).await?;
            sig.to_vec()
        }
    };
    verify(share.scheme, &share.public_key, msg, &sig).map_err(|_| {
        Error::Verification("the combined signature does not verify under the group key")
    })?;
    Ok(sig)
}

async fn frost_sign<T: Transport + 'static, C: FrostSuite>(
    net: &Net<T>,
    share: &Share,
    signers: &[u16],
    me: u16,
    msg: &[u8],
) -> Result<Vec<u8>> {
    let inner = alibi_frost::KeyShare::from_bytes(&share.inner).map_err(frost_err)?;
    let party = MpcParty::connected(delivery_from(net, 0));
    let sig =
        alibi_frost::sign::<C, _, _>(party, &inner, signers, me, msg, &mut alibi_frost::OsRng)
            .await
            .map_err(frost_err);
    let sig = settled(net, sig).await?;
    Ok(sig.to_bytes().to_vec())
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

/// Checks a signature of `scheme` with an independent verifier: ed25519-dalek's strict
/// verification, k256's BIP-340 and ECDSA verifiers.
pub fn verify(
    scheme: Scheme,
    public_key: &[u8],
    msg: &[u8],
    sig: &[u8],
) -> core::result::Result<(), VerifyError> {
    match scheme {
        Scheme::EcdsaSecp256k1 => ecdsa::verify(public_key, msg, sig).map_err(|e| match e {
            ecdsa::Error::InvalidSignature => VerifyError::Invalid,
            e => VerifyError::Malformed(e.to_string()),
        }),
        _ => {
            let frost = if scheme == Scheme::FrostEd25519 {
                alibi_frost::Scheme::Ed25519
            } else {
                alibi_frost::Scheme::Secp256k1Tr
            };
            alibi_frost::verify(frost, public_key, msg, sig).map_err(|e| match e {
                alibi_frost::Error::InvalidSignature => VerifyError::Invalid,
                e => VerifyError::Malformed(e.to_string()),
            })
        }
    }
}

/// Decodes `data` as a share (for the fuzz target).
pub(crate) fn fuzz_decoders(data: &[u8]) {
    let _ = Share::from_bytes(data);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A real abort: party 2 of 3 runs FROST key generation under another session, and the
    /// others' check of the broadcast's echo names it, by position. Over a group whose
    /// participants are parties 3, 5 and 7, that is party 7, never "party 2".
    #[test]
    fn a_frost_abort_names_the_party_not_its_position() {
        let outs = round_based::sim::run(3, |i, party| async move {
            let session: &[u8] = if i == 2 { b"other" } else { b"agreed" };
            alibi_frost::keygen::<Ed25519, _, _>(party, session, i, 3, 2, &mut alibi_frost::OsRng)
                .await
        })
        .expect("simulation")
        .into_vec();
        let Err(alibi_frost::Error::Protocol(text)) = &outs[0] else {
            panic!("party 0 did not abort: {:?}", outs[0]);
        };
        match named_by_position(
            &[3, 5, 7],
            frost_err(alibi_frost::Error::Protocol(text.clone())),
        ) {
            Error::Aborted { reason, blamed } => {
                assert_eq!(
                    blamed,
                    [crate::Blame {
                        party: 7,
                        fault: crate::Fault::FailedCheck
                    }]
                );
                assert!(!reason.contains("Round1NotReliable"), "{reason}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn blame_is_read_from_each_form() {
        let text = "x: [AbortBlame { faulty_party: 4, data_message: 1 }] \
                    FeldmanVerificationFailed { parties: [0, 2] } Round1NotReliable([(1, 9), (3, 2)])";
        assert_eq!(
            blamed_positions(text).into_iter().collect::<Vec<_>>(),
            [0, 1, 2, 3, 4]
        );
        assert!(blamed_positions("invalid signature").is_empty());
        // A list of something else is no blame.
        assert!(blamed_positions("parties: [AbortBlame { data_message: 1 }]").is_empty());
    }

    #[test]
    fn an_abort_without_blame_or_a_position_past_the_run_stays_unnamed() {
        let e = named_by_position(&[1, 2], Error::Protocol("invalid signature".into()));
        assert!(matches!(e, Error::Protocol(_)), "{e:?}");
        let e = named_by_position(&[1, 2], Error::Protocol("x (faulty_party: 5)".into()));
        assert!(matches!(e, Error::Protocol(_)), "{e:?}");
    }
}
