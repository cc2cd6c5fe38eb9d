//! Threshold BLS on BLS12-381 (ciphersuite `BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_`, public
//! keys in G1, signatures in G2) between parties that talk over Signal channels, with identifiable
//! abort: a party that cheats is named and the others finish without it.
//!
//! * [`bls`]: the single-signer primitive (`alibi-bls`, on blst).
//! * [`curve`]: the groups key generation runs in (G1 for BLS; Ed25519 and secp256k1 to refresh
//!   FROST keys).
//! * [`poly`]: Shamir shares, Feldman commitments, Lagrange interpolation.
//! * [`transport`]: how a round's parts travel: the [`transport::Transport`] trait, each
//!   party's mailbox (wants, forwarding, caps), and the in-memory transport. Above it, the
//!   crate-private `echo` (signed broadcasts echoed by attestations, who is named) and
//!   `agreement` (Dolev-Strong among the parties that stop).
//! * [`relay`]: the transports over the relay, an adapter onto `alibi-messenger`: pairwise (a
//!   broadcast is n-1 Double Ratchet messages, one after another or all at once) and group (a
//!   round is one sender-key message in one multi-recipient request).
//! * [`group`]: the group file the parties share (cards, threshold, trust root, group id).
//! * [`dkg`]: distributed key generation (Yang and Zhang's four rounds, with echo, signed shares,
//!   complaints and reveals).
//! * [`share_proof`]: the proof of the share that closes key generation (Schnorr, checked
//!   in one batch against the joint commitment).
//! * [`sign`]: one-round threshold signing with per-partial checks.
//! * [`scheme`]: the four schemes as one type ([`scheme::Scheme`], [`scheme::Share`],
//!   [`scheme::verify`]): BLS above, FROST and CGGMP24 ECDSA from established crates.
//! * [`endpoint`]: one party's end of the group, running key generation and signing of any
//!   scheme with the same jobs and outcomes.
//! * [`local`]: parties in one process on one relay; the paper's experiment, pairwise against
//!   group.

#![deny(unsafe_code)]
#![deny(missing_docs)]
#![deny(clippy::unwrap_used)]

mod adversary;
mod agreement;
pub mod curve;
pub mod delivery;
pub mod dkg;
mod echo;
pub mod endpoint;
mod erased;
pub mod group;
pub mod local;
pub mod net;
pub mod poly;
pub mod relay;
pub mod scheme;
pub mod share_proof;
pub mod sign;
pub mod transport;

/// The single-signer BLS primitive, from its own crate.
pub use alibi_bls as bls;

use std::collections::BTreeMap;

use alibi_identity::{xeddsa, IdentityKey, IdentityKeyPair};
use getrandom::SysRng;
use rand_core::UnwrapErr;
use serde::{de::DeserializeOwned, Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// A party's number in a session, 1..=n (the x at which its share is evaluated).
pub type PartyIndex = u16;

/// A protocol run's identifier; every signature and frame of the run is bound to it.
pub type SessionId = [u8; 16];

/// Errors of the MPC layer.
#[derive(Clone, Debug, thiserror::Error)]
pub enum Error {
    /// Bytes that do not decode.
    #[error("malformed: {0}")]
    Malformed(&'static str),
    /// A parameter out of range.
    #[error("bad parameters: {0}")]
    Parameters(String),
    /// Too few honest parties were left to finish; the named ones cheated or went silent.
    #[error("aborted: {reason}; blamed: {}", list(blamed))]
    Aborted {
        /// Why.
        reason: String,
        /// Who was named, and for what.
        blamed: Vec<Blame>,
    },
    /// The transport failed: the relay refused or could not be reached, or a contact's identity
    /// does not match its card. No party is at fault.
    #[error("transport: {0}")]
    Transport(String),
    /// The relay would not deliver to these parties, for their accounts (a full mailbox, an
    /// account or a carded device it does not know), each with its answer. No party is blamed:
    /// the party, a flood of others' mail or the relay itself may be the cause (absence, which
    /// only excludes); a next run may leave them out.
    #[error(
        "unreachable: the relay will not deliver to {}",
        undeliverable(parties)
    )]
    Undeliverable {
        /// Each party, with the relay's answer.
        parties: Vec<(PartyIndex, String)>,
    },
    /// Too few parties were heard from to go on, though the relay was asked again and the others
    /// were asked to forward: the relay or these parties failed. No party is blamed.
    #[error(
        "unreachable: nothing heard from parties {} in round {round}",
        list(parties)
    )]
    Unreachable {
        /// The round.
        round: u16,
        /// The parties nothing was heard from.
        parties: Vec<PartyIndex>,
    },
    /// Parties stopped the run with a signed stop notice, each for a transport fault it reports
    /// in its own words: every party that hears of one stops too, passes every notice it holds
    /// on, and names each stopper, so that the honest parties stop together
    /// and name the same stoppers. A cheater can stop a run this way, but only under its own
    /// name: the next run excludes it.
    #[error("stopped by {}", stoppers(stopped))]
    Stopped {
        /// The parties that stopped the run, in index order, each with its reason as it signed it
        /// (control characters removed, at most 300 characters).
        stopped: Vec<(PartyIndex, String)>,
    },
    /// Participants stopped the run naming others whose messages to them failed the
    /// protocol's checks (FROST, CGGMP24: a pairwise message only its receiver can check).
    /// Nothing proves such an accusation to a third party (the pairwise channels are
    /// deniable), so it is its accuser's word: the accuser or the accused cheated. Each party
    /// that hears of one stops, passes it on, and names the accused as its accuser did.
    #[error("{}", accused(accusations))]
    Accused {
        /// Each accusation, in the accusers' index order.
        accusations: Vec<Accusation>,
    },
    /// A stored presignature that this party's share counts as used already: the share was
    /// counted before a crash stopped the signing, or the presignatures are an older copy
    /// (a restored backup). It is thrown away, never used: a second message signed with one
    /// presignature gives the key away.
    #[error(
        "presignature #{number} was used already (the share counts #{next} as the next unused): \
         a signing stopped after counting it, or the presignatures were restored from an older \
         copy; it is thrown away, never used twice"
    )]
    PresignatureUsed {
        /// The stored presignature's number.
        number: u64,
        /// The share's next unused number.
        next: u64,
    },
    /// A signature, proof of possession or share does not verify.
    #[error("does not verify: {0}")]
    Verification(&'static str),
    /// The parties this one waits for closed the run without it (they named it silent: it
    /// started late, or could not be heard), each with a signed notice. No party is blamed.
    #[error("the run was closed without this party by parties {}", list(by))]
    Closed {
        /// The parties whose closed notice reached this one, in index order.
        by: Vec<PartyIndex>,
    },
    /// A protocol from another crate (FROST, CGGMP24: [`scheme`]) aborted, in its own words,
    /// which name the parties it blames by their position in the run (0 for the first
    /// participant) when it identifies any.
    #[error("the protocol aborted: {0}")]
    Protocol(String),
    /// Too few signers signed what this one signs: the others hold another message, or a share
    /// of another key generation. No party is blamed: nothing shows who is out of date.
    #[error("signers disagree: {}", disagreements(disagreeing))]
    Disagreed {
        /// Each signer whose partial was for something else, and what.
        disagreeing: Vec<(PartyIndex, sign::Disagreement)>,
    },
}

impl Error {
    /// What a party tells the others in its stop notice when a send of its run fails this way: a
    /// transport fault, or the relay's refusal to deliver to some parties. Other failures do not
    /// stop a run for everyone.
    pub(crate) fn stop_reason(&self) -> Option<String> {
        match self {
            Error::Transport(reason) => Some(reason.clone()),
            e @ Error::Undeliverable { .. } => Some(e.to_string()),
            _ => None,
        }
    }
}

/// Items in words, comma-separated (never `Debug` text).
pub(crate) fn list<T: core::fmt::Display>(items: &[T]) -> String {
    let each: Vec<String> = items.iter().map(T::to_string).collect();
    each.join(", ")
}

fn undeliverable(parties: &[(PartyIndex, String)]) -> String {
    let each: Vec<String> = parties
        .iter()
        .map(|(p, why)| format!("party {p} ({why})"))
        .collect();
    each.join(", ")
}

fn disagreements(d: &[(PartyIndex, sign::Disagreement)]) -> String {
    let each: Vec<String> = d
        .iter()
        .map(|(p, how)| format!("party {p}: {how}"))
        .collect();
    each.join("; ")
}

fn accused(each: &[Accusation]) -> String {
    let each: Vec<String> = each.iter().map(Accusation::to_string).collect();
    each.join("; ")
}

/// One participant's signed word that others' messages to it failed the protocol's checks
/// ([`Error::Accused`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Accusation {
    /// Who accuses (it signed the notice).
    pub by: PartyIndex,
    /// Whom it names, and for what.
    pub blamed: Vec<Blame>,
    /// Its reason, as it signed it (printable text only, at most 300 characters).
    pub reason: String,
}

impl core::fmt::Display for Accusation {
    fn fmt(&self, f: &mut core::fmt::Formatter) -> core::fmt::Result {
        write!(
            f,
            "party {} names {} ({})",
            self.by,
            list(&self.blamed),
            self.reason
        )
    }
}

fn stoppers(stopped: &[(PartyIndex, String)]) -> String {
    let each: Vec<String> = stopped
        .iter()
        .map(|(p, reason)| format!("party {p} ({reason})"))
        .collect();
    each.join(", ")
}

/// The crate's result type.
pub type Result<T> = core::result::Result<T, Error>;

impl From<bls::Error> for Error {
    fn from(e: bls::Error) -> Error {
        match e {
            bls::Error::Malformed(what) => Error::Malformed(what),
            bls::Error::Verification(what) => Error::Verification(what),
        }
    }
}

/// What a named party did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Fault {
    /// Sent nothing (or not all it owed) in a round before the timeout.
    Silent {
        /// The round.
        round: u16,
    },
    /// Signed bytes that do not decode, or an attestation whose signature fails.
    Malformed {
        /// The round.
        round: u16,
    },
    /// Signed two different messages for one round (two attestations prove it).
    Equivocation {
        /// The round.
        round: u16,
    },
    /// Its decommitment does not open its commitment.
    BadDecommitment,
    /// Dealt a share, signed, that fails its own Feldman commitment.
    BadShare,
    /// Did not answer a complaint with a valid public share.
    FailedReveal,
    /// Complained with evidence that refutes the complaint.
    FalseComplaint,
    /// Its proof of the share does not verify, or the verification key it announced is not the
    /// joint commitment's value at its index.
    BadProof,
    /// Announced a key-generation outcome the others do not share.
    WrongOutcome,
    /// Its partial signature does not verify against its verification key.
    BadPartial,
    /// Resharing: its commitment's constant term is not what it must deal (its old
    /// verification key, or zero for a party that held no old share).
    WrongConstant,
    /// Its message failed a check of a protocol alibi runs unchanged (FROST, CGGMP24), which
    /// named it.
    FailedCheck,
}

impl core::fmt::Display for Fault {
    /// The fault in words, for reports and records (never `Debug` text).
    fn fmt(&self, f: &mut core::fmt::Formatter) -> core::fmt::Result {
        match self {
            Fault::Silent { round } => write!(f, "silent in round {round}"),
            Fault::Malformed { round } => write!(f, "malformed message in round {round}"),
            Fault::Equivocation { round } => write!(f, "equivocated in round {round}"),
            Fault::BadDecommitment => f.write_str("decommitment does not open its commitment"),
            Fault::BadShare => f.write_str("dealt a bad share"),
            Fault::FailedReveal => f.write_str("did not reveal a share complained about"),
            Fault::FalseComplaint => f.write_str("complained falsely"),
            Fault::BadProof => f.write_str("bad proof of its share"),
            Fault::WrongOutcome => f.write_str("announced another outcome"),
            Fault::BadPartial => f.write_str("bad partial signature"),
            Fault::WrongConstant => {
                f.write_str("dealt another secret than its share of the old key")
            }
            Fault::FailedCheck => f.write_str("its message failed the protocol's check"),
        }
    }
}

/// A named party and its fault.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Blame {
    /// Who.
    pub party: PartyIndex,
    /// What.
    pub fault: Fault,
}

impl core::fmt::Display for Blame {
    fn fmt(&self, f: &mut core::fmt::Formatter) -> core::fmt::Result {
        write!(f, "party {} ({})", self.party, self.fault)
    }
}

/// A participant: its index, its long-term identity key (the Signal identity key that also signs
/// its broadcasts and dealt shares), and everyone's identity keys.
#[derive(Clone)]
pub struct Party {
    /// This party's index.
    pub index: PartyIndex,
    /// Its identity key pair.
    pub identity: IdentityKeyPair,
    /// Every party's identity key, this one's included.
    pub roster: BTreeMap<PartyIndex, IdentityKey>,
}

#[derive(Serialize, Deserialize)]
pub(crate) struct SignedBroadcast {
    #[serde(with = "serde_bytes")]
    pub(crate) body: Vec<u8>,
    /// XEdDSA, 64 bytes.
    #[serde(with = "serde_bytes")]
    pub(crate) sig: Vec<u8>,
}

/// The round number of a stop notice ([`Error::Stopped`]): a signed broadcast whose body is the
/// reason, outside every protocol's rounds.
pub(crate) const ROUND_STOP: u16 = u16::MAX;

/// The round number of a party's note to the others ([`crate::net::Net::announce`]): a signed
/// broadcast whose body is text the others show while they wait for that party.
pub(crate) const ROUND_NOTE: u16 = u16::MAX - 2;

/// The round number of a closed notice ([`Error::Closed`]): a signed broadcast a party that
/// finished a run sends each party it named silent, so that one started late learns the run is
/// over instead of waiting for rounds nobody will send.
pub(crate) const ROUND_CLOSED: u16 = u16::MAX - 1;

/// What a party signs for a broadcast: domain, session, round, sender, and the SHA-256 digest of
/// the body, so that a digest with its signature (an attestation) can be checked without the body.
pub(crate) fn broadcast_transcript(
    session: &SessionId,
    round: u16,
    from: PartyIndex,
    body_digest: &[u8; 32],
) -> Vec<u8> {
    let mut m = b"alibi-mpc v2 broadcast".to_vec();
    m.extend_from_slice(session);
    m.extend_from_slice(&round.to_be_bytes());
    m.extend_from_slice(&from.to_be_bytes());
    m.extend_from_slice(body_digest);
    m
}

impl Party {
    /// Signs a broadcast body; the result is what goes on the wire.
    pub(crate) fn sign_broadcast(&self, session: &SessionId, round: u16, body: Vec<u8>) -> Vec<u8> {
        let sig = self.identity.sign(
            &broadcast_transcript(session, round, self.index, &digest(&body)),
            &mut UnwrapErr(SysRng),
        );
        encode(&SignedBroadcast {
            body,
            sig: sig.to_vec(),
        })
    }

    /// Whether every one of `attestations` is signed by its sender (each as [`Party::attests`]
    /// would find), checked as one batch ([`all_signed`]).
    pub(crate) fn all_attest(
        &self,
        session: &SessionId,
        attestations: &[&echo::Attestation],
    ) -> bool {
        let transcripts: Vec<Vec<u8>> = attestations
            .iter()
            .map(|a| broadcast_transcript(session, a.round, a.sender, &a.digest))
            .collect();
        let items: Vec<(PartyIndex, &[u8], &[u8])> = attestations
            .iter()
            .zip(&transcripts)
            .map(|(a, t)| (a.sender, &t[..], &a.sig[..]))
            .collect();
        all_signed(&self.roster, &items)
    }

    /// Whether `from` signed the body with this digest for (`session`, `round`).
    pub(crate) fn attests(
        &self,
        session: &SessionId,
        round: u16,
        from: PartyIndex,
        body_digest: &[u8; 32],
        sig: &[u8],
    ) -> bool {
        // The equation the mailbox's batches check: the same verdict on every path.
        self.roster.get(&from).is_some_and(|k| {
            k.verify_cofactored(
                &broadcast_transcript(session, round, from, body_digest),
                sig,
            )
            .is_ok()
        })
    }
}

/// Entry points for the fuzz targets.
#[doc(hidden)]
pub mod fuzzing {
    /// Runs every decoder that reads bytes another party (or a file) controls on `data`: protocol
    /// messages, transport frames, signed broadcasts, key share files, BLS encodings.
    /// `rng` draws the batch check's coefficients; a seeded one keeps a crash reproducible.
    pub fn decoders<R: rand_core::CryptoRng + ?Sized>(data: &[u8], rng: &mut R) {
        crate::dkg::fuzz_decoders(data);
        crate::relay::fuzz_decoders(data);
        if let Ok(text) = core::str::from_utf8(data) {
            let _ = crate::group::GroupFile::from_json(text);
        }
        let _ = crate::decode::<crate::transport::Packet>(data);
        let _ = crate::decode::<super::SignedBroadcast>(data);
        crate::echo::fuzz_decoders(data);
        crate::agreement::fuzz_decoders(data);
        crate::net::fuzz_decoders(data);
        crate::scheme::fuzz_decoders(data);
        let _ = crate::bls::g1_decodes(data);
        let _ = crate::bls::g2_decodes(data);
        crate::sign::fuzz_decoders(data, rng);
    }
}

/// Refuses party lists with index 0 (indices are the points shares are evaluated at; 0 would be
/// the secret) or an index twice.
pub(crate) fn check_indices(parties: &[PartyIndex]) -> Result<()> {
    let mut seen = std::collections::BTreeSet::new();
    for &p in parties {
        if p == 0 {
            return Err(Error::Parameters(
                "party index 0 (indices start at 1)".into(),
            ));
        }
        if !seen.insert(p) {
            return Err(Error::Parameters(format!("party index {p} appears twice")));
        }
    }
    Ok(())
}

/// Parties 1..=n with fresh identity keys, each holding the roster of all: for unit tests.
#[cfg(test)]
pub(crate) fn test_parties(n: u16) -> Vec<Party> {
    let mut rng = UnwrapErr(SysRng);
    let keys: Vec<IdentityKeyPair> = (0..n)
        .map(|_| IdentityKeyPair::generate(&mut rng))
        .collect();
    let roster: BTreeMap<PartyIndex, IdentityKey> =
        (1..=n).zip(&keys).map(|(i, k)| (i, k.identity)).collect();
    (1..=n)
        .zip(keys)
        .map(|(index, identity)| Party {
            index,
            identity,
            roster: roster.clone(),
        })
        .collect()
}

/// Whether every `(sender, signed bytes, signature)` verifies under the sender's key in `roster`:
/// one random-weight batch by XEdDSA's cofactored equation, the one every single check of a
/// broadcast signature uses, so `true` never differs from checking them one by one (up to
/// 2^-128). `false` says only that some failed, or that a sender is not in `roster`.
pub(crate) fn all_signed(
    roster: &BTreeMap<PartyIndex, IdentityKey>,
    items: &[(PartyIndex, &[u8], &[u8])],
) -> bool {
    let parts: Vec<[&[u8]; 1]> = items.iter().map(|(_, m, _)| [*m]).collect();
    let mut batch = Vec::with_capacity(items.len());
    for ((sender, _, sig), m) in items.iter().zip(&parts) {
        let Some(key) = roster.get(sender) else {
            return false;
        };
        batch.push((&key.0, &m[..], *sig));
    }
    batch.is_empty() || xeddsa::verify_batch(&batch, &mut UnwrapErr(SysRng)).is_ok()
}

pub(crate) fn encode<T: Serialize>(v: &T) -> Vec<u8> {
    postcard::to_stdvec(v).expect("in-memory serialization does not fail")
}

pub(crate) fn decode<T: DeserializeOwned>(b: &[u8]) -> Result<T> {
    postcard::from_bytes(b).map_err(|_| Error::Malformed("protocol message"))
}

pub(crate) fn digest(b: &[u8]) -> [u8; 32] {
    Sha256::digest(b).into()
}

/// A list of byte strings as `serde_bytes` writes each one (for `#[serde(with = ...)]`): the
/// same postcard bytes as a plain `Vec<Vec<u8>>`, decoded a slice at a time.
pub(crate) mod byte_strings {
    use serde::{Deserialize, Deserializer, Serializer};
    use serde_bytes::{ByteBuf, Bytes};

    pub(crate) fn serialize<S: Serializer>(v: &[Vec<u8>], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(v.iter().map(|b| Bytes::new(b)))
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Vec<u8>>, D::Error> {
        let v = Vec::<ByteBuf>::deserialize(d)?;
        Ok(v.into_iter().map(ByteBuf::into_vec).collect())
    }
}

#[cfg(test)]
mod wire_tests {
    use serde::{Deserialize, Serialize};

    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct Plain {
        a: Vec<u8>,
        b: Option<Vec<u8>>,
        c: Vec<Vec<u8>>,
    }

    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct Bytes {
        #[serde(with = "serde_bytes")]
        a: Vec<u8>,
        #[serde(with = "serde_bytes")]
        b: Option<Vec<u8>>,
        #[serde(with = "super::byte_strings")]
        c: Vec<Vec<u8>>,
    }

    /// Byte strings written by `serde_bytes` are the bytes postcard writes for a sequence of
    /// u8, so messages of builds before it decode (and the reverse), lengths of every size class.
    #[test]
    fn byte_strings_keep_the_wire() {
        for len in [0usize, 1, 127, 128, 300, 20_000] {
            let v: Vec<u8> = (0..len).map(|i| (i * 7) as u8).collect();
            let plain = Plain {
                a: v.clone(),
                b: Some(v.clone()),
                c: vec![v.clone(), vec![], v.clone()],
            };
            let bytes = Bytes {
                a: v.clone(),
                b: Some(v.clone()),
                c: vec![v.clone(), vec![], v.clone()],
            };
            let wire = super::encode(&plain);
            assert_eq!(super::encode(&bytes), wire);
            assert_eq!(super::decode::<Bytes>(&wire).unwrap(), bytes);
            let none = Plain { b: None, ..plain };
            let w = super::encode(&none);
            assert_eq!(super::decode::<Bytes>(&w).unwrap().b, None);
        }
    }
}
