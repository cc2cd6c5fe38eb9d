//! The threshold schemes alibi did not write, run over its channels: FROST from `givre`
//! (`alibi-frost`) and CGGMP24 threshold ECDSA from `cggmp24` (`alibi-threshold-ecdsa`), each
//! party its own [`Net`] end, each protocol through the `round-based` adapter
//! ([`crate::delivery`]) unchanged.
//!
//! A [`Held`] share records what the schemes leave to their caller: which parties of the group
//! took part in key generation (a signer's index in the scheme is its position among them) and
//! the threshold. Signatures are the schemes' standard ones, checked by [`super::verify`].

use alibi_frost::suite::{Ed25519, Secp256k1Tr};
use alibi_frost::FrostSuite;
use alibi_threshold::hd::{DerivationPath, ExtendedPublicKey};
use alibi_threshold::Header;
use alibi_threshold_ecdsa as ecdsa;
use round_based::MpcParty;
use sha2::{Digest, Sha256};
use zeroize::Zeroizing;

use super::Scheme;
use crate::delivery::delivery_from;
use crate::net::Net;
use crate::transport::Transport;
use crate::{Error, PartyIndex, Result, SessionId};

/// One party's share of a key of an external scheme: the scheme's own share, with the group
/// indices of the parties that made it.
#[derive(Clone)]
pub(crate) struct Held {
    pub(crate) scheme: Scheme,
    /// The parties of key generation, in index order; the scheme numbers them 0..n.
    pub(crate) parties: Vec<PartyIndex>,
    /// This party's group index.
    pub(crate) me: PartyIndex,
    /// The scheme's encoding of its share (secret).
    inner: Zeroizing<Vec<u8>>,
    pub(crate) public_key: Vec<u8>,
    /// t: any t+1 parties sign, exactly that many.
    pub(crate) t: usize,
    /// Threshold ECDSA: the number of the next presignature this party may use; every lower
    /// number was used (or thrown away) and is refused ([`super::presign::Presignatures`]).
    pub(crate) presigned: u64,
}

/// The header of the encoding ([`Held::to_bytes`]).
pub(crate) const HEADER: Header = Header {
    what: "threshold key share",
    magic: *b"ATSH",
    version: 1,
};

/// The header of a share that has counted presignatures: version 1's layout with the count
/// (u64 big-endian) after the party list. A share that has counted none is still written as
/// version 1, so that shares from before the count keep their bytes.
const HEADER_COUNTED: Header = Header {
    version: 2,
    ..HEADER
};

impl Held {
    /// The encoding: `"ATSH"`, version 1, the scheme's tag, this party's index, the number of
    /// parties and each index (all u16 big-endian), then the scheme's own share encoding;
    /// version 2 once presignatures were counted, with the count after the party list.
    pub(crate) fn to_bytes(&self) -> Zeroizing<Vec<u8>> {
        let header = match self.presigned {
            0 => HEADER,
            _ => HEADER_COUNTED,
        };
        let mut out = header.write(16 + 2 * self.parties.len() + self.inner.len());
        out.push(self.scheme.tag());
        out.extend_from_slice(&self.me.to_be_bytes());
        write_indices(&mut out, &self.parties);
        if self.presigned != 0 {
            out.extend_from_slice(&self.presigned.to_be_bytes());
        }
        out.extend_from_slice(&self.inner);
        out
    }

    /// Decodes [`Held::to_bytes`] of either version, checking the scheme's share inside
    /// (never panics).
    pub(crate) fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let bad = || Error::Malformed("threshold key share");
        let (rest, counted) = match HEADER.open(bytes) {
            Ok(rest) => (rest, false),
            Err(_) => (HEADER_COUNTED.open(bytes).map_err(|_| bad())?, true),
        };
        let (&tag, rest) = rest.split_first().ok_or_else(bad)?;
        let scheme = Scheme::ALL
            .into_iter()
            .filter(|s| *s != Scheme::Bls)
            .find(|s| s.tag() == tag)
            .ok_or_else(bad)?;
        let (me, rest) = rest.split_first_chunk::<2>().ok_or_else(bad)?;
        let (parties, mut rest) = read_indices(rest).ok_or_else(bad)?;
        let mut presigned = 0;
        if counted {
            let (count, after) = rest.split_first_chunk::<8>().ok_or_else(bad)?;
            presigned = u64::from_be_bytes(*count);
            if presigned == 0 {
                return Err(bad());
            }
            rest = after;
        }
        let held = Self::from_scheme(scheme, parties, u16::from_be_bytes(*me), rest)?;
        Ok(Self { presigned, ..held })
    }

    /// The scheme's encoding of its share (secret).
    pub(crate) fn inner(&self) -> &[u8] {
        &self.inner
    }

    /// The key's extended public key ([`super::Share::extended_public_key`]).
    pub(crate) fn extended_public_key(&self) -> Option<ExtendedPublicKey> {
        match frost_suite(self.scheme) {
            None => ecdsa::KeyShare::from_bytes(&self.inner)
                .ok()?
                .extended_public_key(),
            Some(_) => alibi_frost::KeyShare::from_bytes(&self.inner)
                .ok()?
                .extended_public_key(),
        }
    }

    /// A share from the scheme's own encoding, checked against the party list.
    pub(crate) fn from_scheme(
        scheme: Scheme,
        parties: Vec<PartyIndex>,
        me: PartyIndex,
        inner: &[u8],
    ) -> Result<Self> {
        let (index, n, t, public_key) = match frost_suite(scheme) {
            None => {
                let s = ecdsa::KeyShare::from_bytes(inner)
                    .map_err(|_| Error::Malformed("threshold key share"))?;
                (
                    s.index(),
                    s.parties(),
                    s.threshold(),
                    s.public_key().to_vec(),
                )
            }
            Some(frost) => {
                let s = alibi_frost::KeyShare::from_bytes(inner)
                    .map_err(|_| Error::Malformed("threshold key share"))?;
                if s.scheme() != frost {
                    return Err(Error::Malformed("threshold key share of another scheme"));
                }
                (s.index(), s.parties(), s.threshold(), s.public_key())
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
            t: usize::from(t),
            presigned: 0,
        })
    }
}

/// Appends a list of party indices: its length, then each index (u16 big-endian).
pub(crate) fn write_indices(out: &mut Vec<u8>, indices: &[PartyIndex]) {
    out.extend_from_slice(&(indices.len() as u16).to_be_bytes());
    for p in indices {
        out.extend_from_slice(&p.to_be_bytes());
    }
}

/// Reads [`write_indices`]'s list at the start of `bytes`: the list and what follows it.
pub(crate) fn read_indices(bytes: &[u8]) -> Option<(Vec<PartyIndex>, &[u8])> {
    let (count, mut rest) = bytes.split_first_chunk::<2>()?;
    let mut indices = vec![];
    for _ in 0..u16::from_be_bytes(*count) {
        let (p, more) = rest.split_first_chunk::<2>()?;
        indices.push(u16::from_be_bytes(*p));
        rest = more;
    }
    Some((indices, rest))
}

/// The FROST ciphersuite of `scheme`, `None` for threshold ECDSA.
pub(crate) fn frost_suite(scheme: Scheme) -> Option<alibi_frost::Scheme> {
    match scheme {
        Scheme::FrostEd25519 => Some(alibi_frost::Scheme::Ed25519),
        Scheme::FrostSecp256k1Tr => Some(alibi_frost::Scheme::Secp256k1Tr),
        _ => None,
    }
}

/// The failure of a protocol run over `net`: the typed error the net recorded (a transport
/// fault, a silent or stopping party, an undecodable message), else the protocol's own. When it
/// names parties, this party stops the run for the others with its accusation
/// ([`Net::accuse`]): most checks of these protocols are of pairwise messages, which only their
/// receiver sees, and the others would otherwise wait out a round and name nobody.
async fn failed<T: Transport>(net: &Net<T>, protocol: Error) -> Error {
    let e = net.failure().unwrap_or(protocol);
    if let Error::Aborted { reason, blamed } = &e {
        if !blamed.is_empty() {
            net.accuse(blamed, reason).await;
        }
    }
    e
}

/// The protocol's result, or its failure as [`failed`] words it.
pub(crate) async fn settled<T: Transport, V>(
    net: &Net<T>,
    r: core::result::Result<V, Error>,
) -> Result<V> {
    match r {
        Ok(v) => Ok(v),
        Err(e) => Err(failed(net, e).await),
    }
}

/// A failure of the threshold contract (alibi-threshold) as this crate's error. An abort names
/// parties by their position in the run, which the protocols number 0.. in the order of
/// `participants` (round-based's convention): they are named here as the group's parties,
/// never as positions a reader would take for the group's 1-based numbers. An abort that names
/// no one, or a position past the run, names no one.
fn contract_err(participants: &[PartyIndex], e: alibi_threshold::Error) -> Error {
    use alibi_threshold::Error as Contract;
    match e {
        Contract::Transport(s) => Error::Transport(s),
        Contract::Parameters(s) => Error::Parameters(s),
        Contract::Signers(fault) => Error::Parameters(fault.to_string()),
        Contract::Aborted { reason, blamed } => {
            let named: Option<Vec<crate::Blame>> = blamed
                .iter()
                .map(|&j| {
                    participants.get(usize::from(j)).map(|&party| crate::Blame {
                        party,
                        fault: crate::Fault::FailedCheck,
                    })
                })
                .collect();
            match named {
                Some(blamed) if !blamed.is_empty() => Error::Aborted { reason, blamed },
                _ => Error::Protocol(reason),
            }
        }
        Contract::Derivation(s) => Error::Parameters(s),
        e @ (Contract::Foreign { .. } | Contract::Version { .. }) => Error::Protocol(e.to_string()),
    }
}

fn frost_err(participants: &[PartyIndex], e: alibi_frost::Error) -> Error {
    match e {
        alibi_frost::Error::Threshold(e) => contract_err(participants, e),
        e => Error::Protocol(e.to_string()),
    }
}

pub(crate) fn ecdsa_err(participants: &[PartyIndex], e: ecdsa::Error) -> Error {
    match e {
        ecdsa::Error::Threshold(e) => contract_err(participants, e),
        e => Error::Protocol(e.to_string()),
    }
}

/// Key generation for `scheme` among the net's participants, any t+1 of whom sign. Threshold
/// ECDSA also runs the auxiliary information step, with `primes` (its Paillier primes).
pub(crate) async fn keygen<T: Transport + 'static>(
    net: &Net<T>,
    scheme: Scheme,
    t: usize,
    primes: Option<ecdsa::Primes>,
) -> Result<Held> {
    let n = net.participants().len() as u16;
    let t = u16::try_from(t)
        .ok()
        .filter(|&t| t >= 1 && t < n)
        .ok_or_else(|| Error::Parameters(format!("t = {t} with {n} parties")))?;
    let i = net.position(net.me()).unwrap_or(0);
    let inner = match scheme {
        Scheme::FrostEd25519 => frost_keygen::<T, Ed25519>(net, i, n, t).await?,
        Scheme::FrostSecp256k1Tr => frost_keygen::<T, Secp256k1Tr>(net, i, n, t).await?,
        Scheme::EcdsaSecp256k1 => {
            let primes = primes.ok_or_else(|| {
                Error::Parameters("ecdsa-secp256k1 key generation needs safe primes".into())
            })?;
            ecdsa_keygen(net, i, n, t, primes).await?
        }
        Scheme::Bls => return Err(Error::Parameters("bls is not an external scheme".into())),
    };
    let share = Held::from_scheme(scheme, net.participants().to_vec(), net.me(), &inner)?;
    // Nobody claims the key before every participant holds the same: a party still missing a
    // message of the run can ask the others for it meanwhile.
    net.conclude(outcome(&share, net.session())).await?;
    Ok(share)
}

/// CGGMP24's key generation then its auxiliary information, one protocol after the other on
/// `net`: the scheme's encoded share.
async fn ecdsa_keygen<T: Transport + 'static>(
    net: &Net<T>,
    i: u16,
    n: u16,
    t: u16,
    primes: ecdsa::Primes,
) -> Result<Zeroizing<Vec<u8>>> {
    let (session, mut rng) = (net.session(), alibi_frost::OsRng);
    let ours = |e| ecdsa_err(net.participants(), e);
    let party = MpcParty::connected(delivery_from(net, 0));
    let core = ecdsa::keygen(&mut rng, &session, i, n, t, party).await;
    let core = settled(net, core.map_err(ours)).await?;
    let party = MpcParty::connected(delivery_from(net, 1));
    let aux = ecdsa::aux_info_gen(&mut rng, &session, i, n, primes, party).await;
    let aux = settled(net, aux.map_err(ours)).await?;
    let share = ecdsa::KeyShare::from_parts(core, aux).map_err(ours)?;
    share.to_bytes().map_err(ours)
}

/// What key generation's participants confirm to each other: the scheme, the run, the public
/// key, and who holds a share.
fn outcome(share: &Held, session: SessionId) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(b"alibi mpc threshold keygen outcome v1\0");
    h.update(share.scheme.name().as_bytes());
    h.update([0]);
    h.update(session);
    h.update(&share.public_key);
    h.update((share.t as u64).to_be_bytes());
    for p in &share.parties {
        h.update(p.to_be_bytes());
    }
    h.finalize().into()
}

async fn frost_keygen<T: Transport + 'static, C: FrostSuite>(
    net: &Net<T>,
    i: u16,
    n: u16,
    t: u16,
) -> Result<Zeroizing<Vec<u8>>> {
    let party = MpcParty::connected(delivery_from(net, 0));
    let share =
        alibi_frost::keygen::<C, _, _>(&mut alibi_frost::OsRng, &net.session(), i, n, t, party)
            .await
            .map_err(|e| frost_err(net.participants(), e));
    let share = settled(net, share).await?;
    Ok(share.to_bytes())
}

/// Signs `msg` with `share` under the key at `path` among the net's participants (the signers,
/// checked by the caller: exactly t+1 parties of key generation, this one among them). Returns
/// the scheme's standard 64-byte signature, unchecked.
pub(crate) async fn sign<T: Transport + 'static>(
    net: &Net<T>,
    (share, path): (&Held, &DerivationPath),
    msg: &[u8],
) -> Result<Vec<u8>> {
    let signers = signer_positions(net, share);
    let at = (share, path);
    match share.scheme {
        Scheme::FrostEd25519 => frost_sign::<T, Ed25519>(net, at, &signers, msg).await,
        Scheme::FrostSecp256k1Tr => frost_sign::<T, Secp256k1Tr>(net, at, &signers, msg).await,
        _ => {
            let ours = |e| ecdsa_err(net.participants(), e);
            let inner = ecdsa::KeyShare::from_bytes(&share.inner).map_err(ours)?;
            let party = MpcParty::connected(delivery_from(net, 0));
            let session = net.session();
            let sig = ecdsa::sign(
                &mut alibi_frost::OsRng,
                &session,
                &inner,
                path,
                &signers,
                msg,
                party,
            )
            .await;
            Ok(settled(net, sig.map_err(ours)).await?.to_vec())
        }
    }
}

async fn frost_sign<T: Transport + 'static, C: FrostSuite>(
    net: &Net<T>,
    (share, path): (&Held, &DerivationPath),
    signers: &[u16],
    msg: &[u8],
) -> Result<Vec<u8>> {
    let ours = |e| frost_err(net.participants(), e);
    let inner = alibi_frost::KeyShare::from_bytes(&share.inner).map_err(ours)?;
    let party = MpcParty::connected(delivery_from(net, 0));
    let rng = &mut alibi_frost::OsRng;
    let sig = alibi_frost::sign::<C, _, _>(rng, &inner, path, signers, msg, party)
        .await
        .map_err(ours);
    let sig = settled(net, sig).await?;
    Ok(sig.to_bytes().to_vec())
}

/// The net's participants as the scheme numbers them: by their position among key
/// generation's parties.
pub(crate) fn signer_positions<T: Transport>(net: &Net<T>, share: &Held) -> Vec<u16> {
    net.participants()
        .iter()
        .filter_map(|p| share.parties.iter().position(|q| q == p))
        .filter_map(|x| u16::try_from(x).ok())
        .collect()
}

/// Decodes `data` as a share (for the fuzz target).
pub(crate) fn fuzz_decoders(data: &[u8]) {
    let _ = Held::from_bytes(data);
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
            let mut rng = alibi_frost::OsRng;
            alibi_frost::keygen::<Ed25519, _, _>(&mut rng, session, i, 3, 1, party).await
        })
        .expect("simulation")
        .into_vec();
        let Err(e) = outs.into_iter().next().expect("party 0") else {
            panic!("party 0 did not abort");
        };
        match frost_err(&[3, 5, 7], e) {
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
    fn an_abort_without_blame_or_a_position_past_the_run_stays_unnamed() {
        let abort = |blamed: Vec<u16>| alibi_threshold::Error::Aborted {
            reason: "invalid signature".into(),
            blamed,
        };
        let e = contract_err(&[1, 2], abort(vec![]));
        assert!(matches!(e, Error::Protocol(_)), "{e:?}");
        let e = contract_err(&[1, 2], abort(vec![5]));
        assert!(matches!(e, Error::Protocol(_)), "{e:?}");
        let e = contract_err(&[1, 2], alibi_threshold::Error::Transport("eof".into()));
        assert!(matches!(e, Error::Transport(_)), "{e:?}");
    }
}
