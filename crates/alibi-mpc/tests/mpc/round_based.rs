//! A protocol written for the `round-based` 0.4 framework, knowing nothing of alibi, run
//! unchanged through the adapter ([`alibi_mpc::delivery`]): in memory and over a relay, in the
//! group and pairwise modes.

use crate::common;

use std::sync::Arc;
use std::time::Duration;

use alibi_mpc::delivery::delivery;
use alibi_mpc::local::{prepare_all, register_parties};
use alibi_mpc::net::{Net, NetConfig};
use alibi_mpc::relay::{Mode, RelayParty};
use alibi_mpc::transport::{Delivery, MemoryTransport, Transport};
use alibi_mpc::PartyIndex;
use alibi_relay::local::LocalRelay;
use round_based::rounds_router::simple_store::RoundInput;
use round_based::rounds_router::RoundsRouter;
use round_based::{Delivery as _, Mpc, MpcParty, Outgoing, ProtocolMessage, SinkExt};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::sync::atomic::Ordering;

/// Joint randomness by commit and reveal: the framework's textbook protocol, with one
/// point-to-point round added so that both kinds of message travel.
mod coin {
    use super::*;

    #[derive(Clone, Debug, PartialEq, ProtocolMessage, Serialize, Deserialize)]
    pub enum Msg {
        Commit(Commit),
        Hello(Hello),
        Reveal(Reveal),
    }
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    pub struct Commit(pub [u8; 32]);
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    pub struct Hello(pub u16);
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    pub struct Reveal(pub [u8; 32]);

    #[derive(Debug, thiserror::Error)]
    #[error("coin toss failed: {0}")]
    pub struct Failed(pub String);

    fn failed(e: impl std::fmt::Display) -> Failed {
        Failed(e.to_string())
    }

    pub async fn toss<M: Mpc<ProtocolMessage = Msg>>(
        party: M,
        i: u16,
        n: u16,
        mine: [u8; 32],
    ) -> Result<[u8; 32], Failed> {
        let MpcParty { delivery, .. } = party.into_party();
        let (incoming, mut outgoing) = delivery.split();
        let mut rounds = RoundsRouter::<Msg>::builder();
        let r1 = rounds.add_round(RoundInput::<Commit>::broadcast(i, n));
        let r2 = rounds.add_round(RoundInput::<Hello>::p2p(i, n));
        let r3 = rounds.add_round(RoundInput::<Reveal>::broadcast(i, n));
        let mut rounds = rounds.listen(incoming);
        let commit = Commit(Sha256::digest(mine).into());
        outgoing
            .send(Outgoing::broadcast(Msg::Commit(commit)))
            .await
            .map_err(failed)?;
        let commits = rounds.complete(r1).await.map_err(failed)?;
        for j in (0..n).filter(|&j| j != i) {
            outgoing
                .send(Outgoing::p2p(j, Msg::Hello(Hello(i))))
                .await
                .map_err(failed)?;
        }
        for (j, _, hello) in rounds
            .complete(r2)
            .await
            .map_err(failed)?
            .into_iter_indexed()
        {
            if hello.0 != j {
                return Err(Failed(format!("party {j} says it is {}", hello.0)));
            }
        }
        outgoing
            .send(Outgoing::broadcast(Msg::Reveal(Reveal(mine))))
            .await
            .map_err(failed)?;
        let reveals = rounds.complete(r3).await.map_err(failed)?;
        let mut out = mine;
        for ((j, _, c), r) in commits
            .into_iter_indexed()
            .zip(reveals.into_vec_without_me())
        {
            if <[u8; 32]>::from(Sha256::digest(r.0)) != c.0 {
                return Err(Failed(format!("party {j} revealed another value")));
            }
            out.iter_mut().zip(r.0).for_each(|(o, x)| *o ^= x);
        }
        Ok(out)
    }
}

/// Every party of `nets` tosses the coin; returns each outcome and the transports back.
async fn toss<T: Transport + 'static>(
    nets: Vec<Net<T>>,
) -> (Vec<T>, Vec<Result<[u8; 32], coin::Failed>>) {
    let n = nets.len() as u16;
    common::on_each(nets, |i, net| {
        let party = MpcParty::connected(delivery::<T, coin::Msg>(&net));
        coin::toss(party, i as u16, n, [i as u8 + 1; 32])
    })
    .await
}

async fn toss_all<T: Transport + 'static>(nets: Vec<Net<T>>) -> Vec<[u8; 32]> {
    let (_, results) = toss(nets).await;
    results.into_iter().map(|r| r.expect("toss")).collect()
}

fn expected(n: u16) -> [u8; 32] {
    let mut x = [0u8; 32];
    for i in 0..n {
        x.iter_mut().for_each(|o| *o ^= i as u8 + 1);
    }
    x
}

fn config(reliable: bool) -> NetConfig {
    NetConfig {
        timeout: Duration::from_secs(20),
        reliable,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_round_based_protocol_runs_unchanged_in_memory() {
    for reliable in [false, true] {
        let parties = common::parties(4);
        let network =
            MemoryTransport::network_with(&parties[0].roster, Arc::new(|_: &Delivery| true));
        let all: Vec<PartyIndex> = (1..=4).collect();
        let nets = parties
            .into_iter()
            .zip(network)
            .map(|(p, t)| Net::new(t, p, [3; 16], &all, config(reliable)).expect("net"))
            .collect();
        assert!(toss_all(nets).await.iter().all(|x| *x == expected(4)));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_round_based_protocol_runs_unchanged_over_a_relay() {
    let relay = alibi_relay::local::LocalRelay::start(Default::default())
        .await
        .expect("relay");
    for mode in [Mode::Group, Mode::Pairwise] {
        let indices: Vec<PartyIndex> = (1..=3).collect();
        let parties = alibi_mpc::local::register_parties(&relay.url, &indices, mode)
            .await
            .expect("parties");
        let nets = parties
            .into_iter()
            .map(|p| {
                let party = p.party();
                Net::new(p, party, [4; 16], &indices, config(true)).expect("net")
            })
            .collect();
        assert!(
            toss_all(nets).await.iter().all(|x| *x == expected(3)),
            "{mode}"
        );
    }
}

fn relay_nets(
    parties: Vec<RelayParty>,
    session: [u8; 16],
    timeout: Duration,
) -> Vec<Net<RelayParty>> {
    let indices: Vec<PartyIndex> = parties.iter().map(Transport::me).collect();
    let config = NetConfig {
        timeout,
        reliable: true,
    };
    parties
        .into_iter()
        .map(|p| {
            let party = p.party();
            Net::new(p, party, session, &indices, config).expect("net")
        })
        .collect()
}

/// A relay that loses one delivery, at every position of the toss (n = 3), over pairwise and
/// group channels: the lost part is asked for again, every party ends with the same outcome.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_single_lost_delivery_of_a_round_based_run_is_recovered() {
    let relay = LocalRelay::start(Default::default()).await.expect("relay");
    let proxy = alibi_testkit::proxy::Proxy::start(&relay.url).await;
    let timeout = Duration::from_secs(2);
    for mode in [Mode::Pairwise, Mode::Group] {
        let parties = register_parties(&proxy.url, &[1, 2, 3], mode)
            .await
            .expect("parties");
        let (parties, _) = prepare_all(parties).await.expect("prepare");
        proxy.count_from_zero();
        let (mut parties, clean) = toss(relay_nets(parties, [0xee; 16], timeout)).await;
        assert!(clean.iter().all(Result::is_ok));
        let total = proxy.deliveries.load(Ordering::SeqCst);
        for k in 0..total {
            proxy.rules.lock().expect("rules").drop_delivery = Some(k);
            proxy.count_from_zero();
            let session = [
                k as u8, mode as u8, 0x5a, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2,
            ];
            let (back, results) = toss(relay_nets(parties, session, timeout)).await;
            parties = back;
            for r in results {
                assert_eq!(
                    r.expect("lost delivery recovered"),
                    expected(3),
                    "{mode}, {k}"
                );
            }
        }
        proxy.rules.lock().expect("rules").drop_delivery = None;
    }
}

/// A relay that answers requests for party 2's bundle with party 3's: nobody encrypts to the
/// impostor; the run fails as a transport fault, no party blamed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_substituted_bundle_fails_a_round_based_run_closed() {
    let relay = LocalRelay::start(Default::default()).await.expect("relay");
    let proxy = alibi_testkit::proxy::Proxy::start(&relay.url).await;
    for mode in [Mode::Pairwise, Mode::Group] {
        let parties = register_parties(&proxy.url, &[1, 2, 3], mode)
            .await
            .expect("parties");
        let account = |i: usize| parties[i].messenger().account().to_string();
        proxy.rules.lock().expect("rules").rewrite = vec![(
            format!("/v2/keys/{}/", account(1)),
            format!("/v2/keys/{}/", account(2)),
        )];
        let (_, results) = toss(relay_nets(parties, [8; 16], Duration::from_secs(2))).await;
        for (i, r) in results.iter().enumerate() {
            let e = r.as_ref().expect_err("nobody finishes");
            assert!(
                !e.0.contains("aborted"),
                "{mode}: party {} blames: {}",
                i + 1,
                e.0
            );
        }
        assert!(
            results.iter().any(|r| r
                .as_ref()
                .is_err_and(|e| e.0.contains("does not match its card"))),
            "{mode}: {results:?}"
        );
        proxy.rules.lock().expect("rules").rewrite.clear();
    }
}
