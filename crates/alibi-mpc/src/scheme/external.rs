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
}

/// The header of the encoding ([`Held::to_bytes`]).
pub(crate) const MAGIC: &[u8; 4] = b"ATSH";
const VERSION: u8 = 1;

impl Held {
    /// The encoding: `"ATSH"`, version 1, the scheme's tag, this party's index, the number of
    /// parties and each index (all u16 big-endian), then the scheme's own share encoding.
    pub(crate) fn to_bytes(&self) -> Zeroizing<Vec<u8>> {
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

    /// Decodes [`Held::to_bytes`], checking the scheme's share inside (never panics).
    pub(crate) fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let bad = || Error::Malformed("threshold key share");
        let rest = bytes.strip_prefix(MAGIC.as_slice()).ok_or_else(bad)?;
        let (&[version, tag], rest) = rest.split_first_chunk::<2>().ok_or_else(bad)?;
        let scheme = Scheme::ALL
            .into_iter()
            .filter(|s| *s != Scheme::Bls)
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
        Self::from_scheme(scheme, parties, u16::from_be_bytes(*me), rest)
    }

    /// A share from the scheme's own encoding, checked against the party list.
    fn from_scheme(
        scheme: Scheme,
        parties: Vec<PartyIndex>,
        me: PartyIndex,
        inner: &[u8],
    ) -> Result<Self> {
        let (index, n, needed, public_key) = match frost_suite(scheme) {
            None => {
                let s = ecdsa::KeyShare::from_bytes(inner)
                    .map_err(|_| Error::Malformed("threshold key share"))?;
                (
                    s.index(),
                    s.parties(),
                    s.min_signers(),
                    s.public_key().to_vec(),
                )
            }
            Some(frost) => {
                let s = alibi_frost::KeyShare::from_bytes(inner)
                    .map_err(|_| Error::Malformed("threshold key share"))?;
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
            t: usize::from(needed).saturating_sub(1),
        })
    }
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

/// Key generation for `scheme` among the net's participants, any t+1 of whom sign. Threshold
/// ECDSA also runs the auxiliary information step, with `primes` (its Paillier primes).
pub(crate) async fn keygen<T: Transport + 'static>(
    net: &Net<T>,
    scheme: Scheme,
    t: usize,
    primes: Option<ecdsa::Primes>,
) -> Result<Held> {
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
            let primes = primes.ok_or_else(|| {
                Error::Parameters("ecdsa-secp256k1 key generation needs safe primes".into())
            })?;
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
        Scheme::Bls => return Err(Error::Parameters("bls is not an external scheme".into())),
    };
    let share = Held::from_scheme(scheme, net.participants().to_vec(), net.me(), &inner)?;
    // Nobody claims the key before every participant holds the same: a party still missing a
    // message of the run can ask the others for it meanwhile.
    net.conclude(outcome(&share, net.session())).await?;
    Ok(share)
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

/// Signs `msg` with `share` among the net's participants (the signers, checked by the caller:
/// exactly t+1 parties of key generation, this one among them). Returns the scheme's standard
/// 64-byte signature, unchecked.
pub(crate) async fn sign<T: Transport + 'static>(
    net: &Net<T>,
    share: &Held,
    msg: &[u8],
) -> Result<Vec<u8>> {
    // The scheme numbers the signers by their position among key generation's parties.
    let signers: Vec<u16> = net
        .participants()
        .iter()
        .filter_map(|p| share.parties.iter().position(|q| q == p))
        .filter_map(|x| u16::try_from(x).ok())
        .collect();
    let me = net.position(net.me()).unwrap_or(0);
    match share.scheme {
        Scheme::FrostEd25519 => frost_sign::<T, Ed25519>(net, share, &signers, me, msg).await,
        Scheme::FrostSecp256k1Tr => {
            frost_sign::<T, Secp256k1Tr>(net, share, &signers, me, msg).await
        }
        _ => {
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
            Ok(settled(net, sig).await?.to_vec())
        }
    }
}

async fn frost_sign<T: Transport + 'static, C: FrostSuite>(
    net: &Net<T>,
    share: &Held,
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
