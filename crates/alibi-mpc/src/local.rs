//! Parties in one process on one relay, for examples, tests and measurement: registering them,
//! preparing their sessions, and running key generation and signing with all of them at once.
//! [`measure`] is the paper's experiment (seed 002, section 4): n parties on one relay run key generation and
//! then t+1 of them sign, over pairwise or group channels; the time is that of the slowest party
//! (all start together). The first run includes the one-time steps (fetching bundles, opening
//! PQXDH sessions, handing out sender keys); later runs reuse the sessions. The parties' own
//! registration is preparation and not timed, as in the paper.

use std::time::{Duration, Instant};

use getrandom::SysRng;
use rand_core::{Rng, UnwrapErr};

use crate::dkg::{keygen, KeyShare, KeygenConfig};
use crate::relay::{Mode, RelayParty};
use crate::sign::{sign, SignConfig, Signed};
use crate::{bls, Error, Result};

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

fn session(tag: u8) -> [u8; 16] {
    let mut s = [0u8; 16];
    UnwrapErr(SysRng).fill_bytes(&mut s);
    s[0] = tag;
    s
}

fn join_err(e: tokio::task::JoinError) -> Error {
    Error::Transport(e.to_string())
}

/// Runs key generation on every party at once (each in its own task); returns the parties, their
/// shares by index, and the time of the slowest.
pub async fn keygen_all(
    parties: Vec<RelayParty>,
    config: &KeygenConfig,
) -> Result<(Vec<RelayParty>, Vec<KeyShare>, Duration)> {
    let start = Instant::now();
    let mut tasks = vec![];
    for mut p in parties {
        let config = config.clone();
        tasks.push(tokio::spawn(async move {
            let r = keygen(&p.party(), &config, &mut p, &mut UnwrapErr(SysRng)).await;
            (p, r, start.elapsed())
        }));
    }
    let (mut parties, mut shares, mut slowest) = (vec![], vec![], Duration::ZERO);
    for task in tasks {
        let (p, r, took) = task.await.map_err(join_err)?;
        parties.push(p);
        shares.push(r?);
        slowest = slowest.max(took);
    }
    Ok((parties, shares, slowest))
}

/// The parties in `config.signers` sign `message` with their shares (looked up by index), each
/// in its own task; returns all parties, one signer's outcome and the time of the slowest.
pub async fn sign_all(
    parties: Vec<RelayParty>,
    shares: &[KeyShare],
    config: &SignConfig,
    message: &[u8],
) -> Result<(Vec<RelayParty>, Signed, Duration)> {
    let start = Instant::now();
    let mut tasks = vec![];
    let mut done = vec![];
    for mut p in parties {
        let me = crate::transport::Transport::me(&p);
        let share = shares.iter().find(|s| s.index == me).cloned();
        let Some(share) = share.filter(|_| config.signers.contains(&me)) else {
            done.push(p);
            continue;
        };
        let (config, message) = (config.clone(), message.to_vec());
        tasks.push(tokio::spawn(async move {
            let r = sign(
                &p.party(),
                &share,
                &config,
                &message,
                &mut p,
                &mut UnwrapErr(SysRng),
            )
            .await;
            (p, r, start.elapsed())
        }));
    }
    let (mut signed, mut slowest) = (None, Duration::ZERO);
    for task in tasks {
        let (p, r, took) = task.await.map_err(join_err)?;
        done.push(p);
        signed = Some(r?);
        slowest = slowest.max(took);
    }
    done.sort_by_key(crate::transport::Transport::me);
    let signed = signed.ok_or_else(|| Error::Parameters("no signer among the parties".into()))?;
    Ok((done, signed, slowest))
}

/// Runs key generation on every party, then t+1 of them sign `message`; checks the signature
/// with plain BLS verification under the group key. The parties come back for later runs.
pub async fn keygen_and_sign(
    parties: Vec<RelayParty>,
    t: usize,
    message: &[u8],
    timeout: Duration,
) -> Result<(Vec<RelayParty>, Vec<KeyShare>, [u8; 96], Timing)> {
    let before: u64 = parties.iter().map(RelayParty::requests).sum();
    let everyone = parties
        .iter()
        .map(crate::transport::Transport::me)
        .collect();
    let config = KeygenConfig::new(session(1), t, everyone, timeout);
    let (parties, shares, keygen_time) = keygen_all(parties, &config).await?;
    let signers = shares[0]
        .eligible_signers()
        .into_iter()
        .take(t + 1)
        .collect();
    let config = SignConfig::new(session(2), signers, timeout);
    let (parties, signed, sign_time) = sign_all(parties, &shares, &config, message).await?;
    if bls::verify(&shares[0].group_key, message, &signed.signature).is_err() {
        return Err(Error::Aborted {
            reason: "the threshold signature does not verify".into(),
            blamed: vec![],
        });
    }
    let after: u64 = parties.iter().map(RelayParty::requests).sum();
    Ok((
        parties,
        shares,
        signed.signature,
        Timing {
            keygen: keygen_time,
            sign: sign_time,
            requests: after - before,
        },
    ))
}

/// One cell of the experiment: fresh parties on `url`, a first run and `later` more.
pub async fn measure(
    url: &str,
    n: u16,
    t: usize,
    mode: Mode,
    later: usize,
    timeout: Duration,
) -> Result<(Timing, Vec<Timing>)> {
    let indices: Vec<u16> = (1..=n).collect();
    let parties = register_parties(url, &indices, mode).await?;
    let (mut parties, _, _, first) = keygen_and_sign(parties, t, b"alibi bench", timeout).await?;
    let mut rest = vec![];
    for _ in 0..later {
        let (p, _, _, timing) = keygen_and_sign(parties, t, b"alibi bench", timeout).await?;
        parties = p;
        rest.push(timing);
    }
    Ok((first, rest))
}
