//! Parties in one process on the in-memory network (with an adversary that may drop deliveries),
//! and runners for key generation and signing that return every party's result.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use alibi_identity::IdentityKeyPair;
use alibi_mpc::dkg::{keygen, KeyShare, KeygenConfig, Misbehaviour, Resharing};
use alibi_mpc::sign::{sign, SignConfig, Signed};
use alibi_mpc::transport::{Adversary, Delivery, MemoryTransport};
use alibi_mpc::{Party, PartyIndex, Result};
use getrandom::SysRng;
use rand_core::UnwrapErr;

/// Parties 1..=n with fresh identity keys.
pub fn parties(n: u16) -> Vec<Party> {
    let ids: Vec<IdentityKeyPair> = (0..n)
        .map(|_| IdentityKeyPair::generate(&mut UnwrapErr(SysRng)))
        .collect();
    let roster: BTreeMap<PartyIndex, _> = ids
        .iter()
        .enumerate()
        .map(|(i, k)| (i as u16 + 1, k.identity))
        .collect();
    ids.into_iter()
        .enumerate()
        .map(|(i, identity)| Party {
            index: i as u16 + 1,
            identity,
            roster: roster.clone(),
        })
        .collect()
}

/// A network that loses nothing.
pub fn reliable() -> Adversary {
    Arc::new(|_: &Delivery| true)
}

fn cheat_of(cheat: &[(PartyIndex, Misbehaviour)], p: PartyIndex) -> Option<Misbehaviour> {
    cheat.iter().find(|(c, _)| *c == p).map(|(_, m)| *m)
}

/// Key generation by all of `ps` at once; every party's result, by index.
pub async fn keygen_all(
    ps: &[Party],
    t: usize,
    cheat: &[(PartyIndex, Misbehaviour)],
    adversary: Adversary,
    timeout: Duration,
) -> Vec<(PartyIndex, Result<KeyShare>)> {
    let nets = MemoryTransport::network_with(&ps[0].roster, adversary);
    keygen_over(ps, t, cheat, nets, timeout).await
}

/// Key generation by all of `ps` at once over these transports (one per party, in order).
pub async fn keygen_over(
    ps: &[Party],
    t: usize,
    cheat: &[(PartyIndex, Misbehaviour)],
    nets: Vec<MemoryTransport>,
    timeout: Duration,
) -> Vec<(PartyIndex, Result<KeyShare>)> {
    reshare_over(ps, t, cheat, nets, timeout, |_| None).await
}

/// Resharing by all of `ps` at once on a reliable network, each party with what `from` gives
/// it (as [`keygen_over`] otherwise; `None`: a new key).
pub async fn reshare_all(
    ps: &[Party],
    t: usize,
    cheat: &[(PartyIndex, Misbehaviour)],
    from: impl FnMut(PartyIndex) -> Option<Resharing>,
) -> Vec<(PartyIndex, Result<KeyShare>)> {
    let nets = MemoryTransport::network_with(&ps[0].roster, reliable());
    reshare_over(ps, t, cheat, nets, Duration::from_secs(2), from).await
}

async fn reshare_over(
    ps: &[Party],
    t: usize,
    cheat: &[(PartyIndex, Misbehaviour)],
    nets: Vec<MemoryTransport>,
    timeout: Duration,
    mut from: impl FnMut(PartyIndex) -> Option<Resharing>,
) -> Vec<(PartyIndex, Result<KeyShare>)> {
    let indices: Vec<PartyIndex> = ps.iter().map(|p| p.index).collect();
    let mut tasks = vec![];
    for (p, mut net) in ps.iter().cloned().zip(nets) {
        let config = KeygenConfig {
            session: [1; 16],
            threshold: t,
            parties: indices.clone(),
            timeout,
            resharing: from(p.index),
            misbehaviour: cheat_of(cheat, p.index),
        };
        tasks.push(tokio::spawn(async move {
            let r = keygen(&p, &config, &mut net, &mut UnwrapErr(SysRng)).await;
            (p.index, r)
        }));
    }
    let mut out = vec![];
    for t in tasks {
        out.push(t.await.unwrap());
    }
    out
}

/// Key generation on a reliable network: the shares of every party that finished (all honest
/// ones must; a cheater may).
pub async fn run_keygen(
    ps: &[Party],
    t: usize,
    cheat: &[(PartyIndex, Misbehaviour)],
) -> Vec<KeyShare> {
    keygen_all(ps, t, cheat, reliable(), Duration::from_secs(2))
        .await
        .into_iter()
        .filter_map(|(p, r)| match (cheat_of(cheat, p), r) {
            (None, r) => Some(r.unwrap_or_else(|e| panic!("honest party {p}: {e}"))),
            (Some(_), r) => r.ok(),
        })
        .collect()
}

/// Signing by `signers` at once; every signer's result, in signer order.
pub async fn sign_all(
    ps: &[Party],
    shares: &[KeyShare],
    signers: &[PartyIndex],
    msg: &[u8],
    cheat: &[(PartyIndex, Misbehaviour)],
    adversary: Adversary,
) -> Vec<(PartyIndex, Result<Signed>)> {
    let nets = MemoryTransport::network_with(&ps[0].roster, adversary);
    let mut tasks = vec![];
    for mut net in nets {
        let s = alibi_mpc::transport::Transport::me(&net);
        if !signers.contains(&s) {
            continue;
        }
        let p = ps[s as usize - 1].clone();
        let share = shares
            .iter()
            .find(|x| x.index == s)
            .expect("a share")
            .clone();
        let config = SignConfig {
            session: [2; 16],
            signers: signers.to_vec(),
            timeout: Duration::from_secs(2),
            first_t_plus_1: false,
            misbehaviour: cheat_of(cheat, s),
        };
        let msg = msg.to_vec();
        tasks.push(tokio::spawn(async move {
            let r = sign(&p, &share, &config, &msg, &mut net, &mut UnwrapErr(SysRng)).await;
            (s, r)
        }));
    }
    let mut out = vec![];
    for t in tasks {
        out.push(t.await.unwrap());
    }
    out
}

/// Signing on a reliable network; every signer must finish.
pub async fn run_sign(
    ps: &[Party],
    shares: &[KeyShare],
    signers: &[PartyIndex],
    msg: &[u8],
    cheat: &[(PartyIndex, Misbehaviour)],
) -> Vec<Signed> {
    sign_all(ps, shares, signers, msg, cheat, reliable())
        .await
        .into_iter()
        .map(|(s, r)| r.unwrap_or_else(|e| panic!("signer {s}: {e}")))
        .collect()
}

/// Plain blst verification under the group key, as any BLS verifier would do it.
pub fn blst_verifies(group_key: &[u8], msg: &[u8], sig: &[u8]) -> bool {
    use blst::min_pk::{PublicKey, Signature};
    let pk = PublicKey::key_validate(group_key).unwrap();
    let sig = Signature::sig_validate(sig, true).unwrap();
    sig.verify(true, msg, alibi_mpc::bls::DST_SIG, &[], &pk, true) == blst::BLST_ERROR::BLST_SUCCESS
}

/// Runs `run` on every net, each party its own task, and gives back each party's transport
/// (the run over) and its result, in the order of `nets`.
pub async fn on_each<T, R, F, Fut>(
    nets: Vec<alibi_mpc::net::Net<T>>,
    mut run: F,
) -> (Vec<T>, Vec<R>)
where
    T: alibi_mpc::transport::Transport + 'static,
    R: Send + 'static,
    F: FnMut(usize, alibi_mpc::net::Net<T>) -> Fut,
    Fut: std::future::Future<Output = R> + Send + 'static,
{
    let runs = nets.into_iter().enumerate().map(|(i, net)| {
        let running = run(i, net.clone());
        tokio::spawn(async move {
            let r = running.await;
            (net.into_transport().ok().expect("the run is over"), r)
        })
    });
    futures_util::future::join_all(runs)
        .await
        .into_iter()
        .map(|r| r.expect("task"))
        .unzip()
}
