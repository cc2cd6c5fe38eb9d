//! Parties in one process on one relay, for examples, tests and measurement: registering them,
//! preparing their sessions, and running key generation and signing of any scheme with all of
//! them at once ([`keygen_all`], [`sign_all`]: each party an [`Endpoint`] in its own task).
//! [`measure`] is the paper's experiment (seed 002, section 4): n parties on one relay run key
//! generation and then t+1 of them sign, over pairwise or group channels; the time is that of
//! the slowest party (all start together). The first run includes the one-time steps (fetching
//! bundles, opening PQXDH sessions, handing out sender keys); later runs reuse the sessions. The
//! parties' own registration is preparation and not timed, as in the paper.

use std::time::{Duration, Instant};

use getrandom::SysRng;
use rand_core::{Rng, UnwrapErr};

use crate::endpoint::{Endpoint, Keygen, PrimeSource, Signature, Signing};
use crate::relay::{Mode, RelayParty};
use crate::scheme::{Scheme, Share};
use crate::transport::Transport;
use crate::{Error, PartyIndex, Result};

/// Registers parties with these indices on the relay (messengers in memory, named `party-I`) and
/// introduces them to each other as one group.
pub async fn register_parties(url: &str, indices: &[u16], mode: Mode) -> Result<Vec<RelayParty>> {
    let options = alibi_messenger::Options::default();
    let names: Vec<String> = indices.iter().map(|i| format!("party-{i}")).collect();
    let registrations = names
        .iter()
        .map(|n| alibi_messenger::Messenger::ephemeral(url, n, &options));
    let messengers = futures_util::future::join_all(registrations)
        .await
        .into_iter()
        .collect::<core::result::Result<Vec<_>, _>>()
        .map_err(|e| Error::Transport(e.to_string()))?;
    let members: Vec<(u16, alibi_messenger::ContactCard)> = indices
        .iter()
        .zip(&messengers)
        .map(|(&i, m)| (i, m.card()))
        .collect();
    let mut group = [0u8; 16];
    UnwrapErr(SysRng).fill_bytes(&mut group);
    let group = uuid::Uuid::from_bytes(group);
    indices
        .iter()
        .zip(messengers)
        .map(|(&i, m)| RelayParty::new(m, i, &members, group, mode))
        .collect()
}

/// Runs [`RelayParty::prepare`] on every party at once; returns the parties and the requests it
/// took.
pub async fn prepare_all(parties: Vec<RelayParty>) -> Result<(Vec<RelayParty>, u64)> {
    let before: u64 = parties.iter().map(RelayParty::requests).sum();
    let mut tasks = vec![];
    for mut p in parties {
        tasks.push(tokio::spawn(async move {
            let r = p.prepare().await;
            (p, r)
        }));
    }
    let mut out = vec![];
    for task in tasks {
        let (p, r) = task.await.map_err(|e| Error::Transport(e.to_string()))?;
        r?;
        out.push(p);
    }
    let after: u64 = out.iter().map(RelayParty::requests).sum();
    Ok((out, after - before))
}

/// The parties as endpoints, each with its own identity.
pub fn endpoints(parties: Vec<RelayParty>) -> Vec<Endpoint<RelayParty>> {
    parties
        .into_iter()
        .map(|p| {
            let party = p.party();
            Endpoint::new(p, party)
        })
        .collect()
}

/// The timings of one key generation and one signature.
#[derive(Clone, Copy, Debug)]
pub struct Timing {
    /// Key generation, slowest party.
    pub keygen: Duration,
    /// Signing by t+1 parties, slowest signer.
    pub sign: Duration,
    /// Requests the parties sent to the relay during both, in total.
    pub requests: u64,
}

/// A fresh session id whose first byte is `tag`.
pub fn session(tag: u8) -> [u8; 16] {
    let mut s = [0u8; 16];
    UnwrapErr(SysRng).fill_bytes(&mut s);
    s[0] = tag;
    s
}

fn join_err(e: tokio::task::JoinError) -> Error {
    Error::Transport(e.to_string())
}

/// Runs key generation on every endpoint at once (each in its own task), party i with
/// `job(i)`; returns the endpoints in index order, their shares (or errors) in the same order,
/// and the time of the slowest.
pub async fn keygen_each<T: Transport + Sync + 'static>(
    endpoints: Vec<Endpoint<T>>,
    mut job: impl FnMut(PartyIndex) -> Keygen,
) -> Result<(Vec<Endpoint<T>>, Vec<Result<Share>>, Duration)> {
    let start = Instant::now();
    let mut tasks = vec![];
    for mut e in endpoints {
        let job = job(e.me());
        tasks.push(tokio::spawn(async move {
            let r = e.keygen(job).await;
            (e, r, start.elapsed())
        }));
    }
    let (mut back, mut shares, mut slowest) = (vec![], vec![], Duration::ZERO);
    for task in tasks {
        let (e, r, took) = task.await.map_err(join_err)?;
        back.push(e);
        shares.push(r);
        slowest = slowest.max(took);
    }
    Ok((back, shares, slowest))
}

/// [`keygen_each`], failing with the first party's error.
pub async fn keygen_all<T: Transport + Sync + 'static>(
    endpoints: Vec<Endpoint<T>>,
    job: impl FnMut(PartyIndex) -> Keygen,
) -> Result<(Vec<Endpoint<T>>, Vec<Share>, Duration)> {
    let (back, shares, took) = keygen_each(endpoints, job).await?;
    let shares = shares.into_iter().collect::<Result<Vec<Share>>>()?;
    Ok((back, shares, took))
}

/// The signers of `job` sign `message` with their shares (looked up by index), each in its own
/// task; returns every endpoint (in index order), each signer's outcome (in index order) and
/// the time of the slowest.
pub async fn sign_each<T: Transport + Sync + 'static>(
    endpoints: Vec<Endpoint<T>>,
    shares: &[Share],
    job: &Signing,
    message: &[u8],
) -> Result<(Vec<Endpoint<T>>, Vec<Result<Signature>>, Duration)> {
    let start = Instant::now();
    let mut tasks = vec![];
    let mut done = vec![];
    for mut e in endpoints {
        let me = e.me();
        let share = shares.iter().find(|s| s.me() == me).cloned();
        let Some(share) = share.filter(|_| job.signers.contains(&me)) else {
            done.push(e);
            continue;
        };
        let (job, message) = (job.clone(), message.to_vec());
        tasks.push(tokio::spawn(async move {
            let r = e.sign(&share, &job, &message).await;
            (e, r, start.elapsed())
        }));
    }
    let (mut signed, mut slowest) = (vec![], Duration::ZERO);
    for task in tasks {
        let (e, r, took) = task.await.map_err(join_err)?;
        done.push(e);
        signed.push(r);
        slowest = slowest.max(took);
    }
    done.sort_by_key(Endpoint::me);
    Ok((done, signed, slowest))
}

/// [`sign_each`], failing with the first signer's error; one signer's outcome.
pub async fn sign_all<T: Transport + Sync + 'static>(
    endpoints: Vec<Endpoint<T>>,
    shares: &[Share],
    job: &Signing,
    message: &[u8],
) -> Result<(Vec<Endpoint<T>>, Signature, Duration)> {
    let (done, signed, slowest) = sign_each(endpoints, shares, job, message).await?;
    let mut signed = signed.into_iter().collect::<Result<Vec<Signature>>>()?;
    let signed = signed
        .pop()
        .ok_or_else(|| Error::Parameters("no signer among the parties".into()))?;
    Ok((done, signed, slowest))
}

/// What [`keygen_and_sign`] gives: the endpoints back, their shares, the signature and the
/// times.
pub type Ran<T> = (Vec<Endpoint<T>>, Vec<Share>, Vec<u8>, Timing);

/// Runs key generation of `scheme` on every endpoint (threshold ECDSA with `primes(i)` for
/// party i), then t+1 of them sign `message`; the signature is checked under the group key.
/// The endpoints come back for later runs.
pub async fn keygen_and_sign(
    endpoints: Vec<Endpoint<RelayParty>>,
    (scheme, t): (Scheme, usize),
    message: &[u8],
    timeout: Duration,
    mut primes: impl FnMut(PartyIndex) -> Option<PrimeSource>,
) -> Result<Ran<RelayParty>> {
    let requests = |es: &[Endpoint<RelayParty>]| -> u64 {
        es.iter()
            .filter_map(Endpoint::transport)
            .map(RelayParty::requests)
            .sum()
    };
    let before = requests(&endpoints);
    let everyone: Vec<PartyIndex> = endpoints.iter().map(Endpoint::me).collect();
    let keygen_session = session(1);
    let (endpoints, shares, keygen_time) = keygen_all(endpoints, |i| Keygen {
        primes: primes(i),
        ..Keygen::new(scheme, keygen_session, t, everyone.clone(), timeout)
    })
    .await?;
    let signers = shares[0]
        .eligible_signers()
        .into_iter()
        .take(t + 1)
        .collect();
    let job = Signing::new(session(2), signers, timeout);
    let (endpoints, signed, sign_time) = sign_all(endpoints, &shares, &job, message).await?;
    let after = requests(&endpoints);
    Ok((
        endpoints,
        shares,
        signed.bytes,
        Timing {
            keygen: keygen_time,
            sign: sign_time,
            requests: after - before,
        },
    ))
}

/// One cell of the experiment (BLS): fresh parties on `url`, a first run and `later` more.
pub async fn measure(
    url: &str,
    n: u16,
    t: usize,
    mode: Mode,
    later: usize,
    timeout: Duration,
) -> Result<(Timing, Vec<Timing>)> {
    let indices: Vec<u16> = (1..=n).collect();
    let parties = endpoints(register_parties(url, &indices, mode).await?);
    let bls = (Scheme::Bls, t);
    let (mut parties, _, _, first) =
        keygen_and_sign(parties, bls, b"alibi bench", timeout, |_| None).await?;
    let mut rest = vec![];
    for _ in 0..later {
        let (p, _, _, timing) =
            keygen_and_sign(parties, bls, b"alibi bench", timeout, |_| None).await?;
        parties = p;
        rest.push(timing);
    }
    Ok((first, rest))
}
