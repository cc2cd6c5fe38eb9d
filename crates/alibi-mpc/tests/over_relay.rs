//! Key generation and signing between parties on a real relay (in-process, loopback, redb), over
//! pairwise and over group channels: first runs (PQXDH sessions and sender keys set up on the way)
//! and later runs, and a cheater named over each transport.

use std::time::Duration;

use alibi_mpc::bench::{keygen_and_sign, register_parties};
use alibi_mpc::dkg::{keygen, KeygenConfig, Misbehaviour};
use alibi_mpc::relay::Mode;
use alibi_mpc::{bls, Blame, Fault};
use alibi_relay::local::LocalRelay;
use getrandom::SysRng;
use rand_core::UnwrapErr;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keygen_and_sign_over_both_transports() {
    let relay = LocalRelay::start(Default::default()).await.unwrap();
    for mode in [Mode::Pairwise, Mode::PairwiseConcurrent, Mode::Group] {
        let parties = register_parties(&relay.url, &[1, 2, 3, 4], mode)
            .await
            .unwrap();
        let (parties, shares, sig, first) =
            keygen_and_sign(parties, 2, b"over the relay", Duration::from_secs(20))
                .await
                .unwrap();
        assert!(shares
            .iter()
            .all(|s| s.group_key == shares[0].group_key && s.blamed.is_empty()));
        assert!(bls::verify(&shares[0].group_key, b"over the relay", &sig).is_ok());
        let (_, shares2, sig2, later) =
            keygen_and_sign(parties, 2, b"again", Duration::from_secs(20))
                .await
                .unwrap();
        assert_ne!(shares2[0].group_key, shares[0].group_key);
        assert!(bls::verify(&shares2[0].group_key, b"again", &sig2).is_ok());
        // Later runs skip the one-time steps (bundles, sender keys): fewer requests.
        assert!(
            later.requests < first.requests,
            "{mode}: {first:?} then {later:?}"
        );
        // Group mode: one request per party per round (7 keygen rounds: 6 broadcast and the
        // shares; 2 signing rounds by 3: partials and close). Pairwise: one per recipient. No
        // wants: nothing was lost.
        if mode == Mode::Group {
            assert_eq!(later.requests, 4 * 7 + 3 * 2);
        } else {
            assert_eq!(later.requests, 4 * (6 * 3 + 3) + 3 * 2 * 2);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cheater_is_named_over_each_transport() {
    let relay = LocalRelay::start(Default::default()).await.unwrap();
    for (mode, cheat, fault) in [
        (Mode::Pairwise, Misbehaviour::BadShareTo(1), Fault::BadShare),
        (Mode::Group, Misbehaviour::BadShareTo(1), Fault::BadShare),
        (
            Mode::Group,
            Misbehaviour::EquivocateCommit,
            Fault::Equivocation { round: 1 },
        ),
    ] {
        let parties = register_parties(&relay.url, &[1, 2, 3, 4], mode)
            .await
            .unwrap();
        let mut tasks = vec![];
        for mut p in parties {
            let config = KeygenConfig {
                session: [9; 16],
                threshold: 2,
                parties: vec![1, 2, 3, 4],
                timeout: Duration::from_secs(3),
                misbehaviour: (alibi_mpc::engine::Transport::me(&p) == 4).then_some(cheat),
            };
            tasks.push(tokio::spawn(async move {
                let party = p.party();
                (
                    party.index,
                    keygen(&party, &config, &mut p, &mut UnwrapErr(SysRng)).await,
                )
            }));
        }
        for task in tasks {
            let (index, r) = task.await.unwrap();
            if index == 4 {
                continue;
            }
            let share = r.unwrap();
            assert_eq!(
                share.blamed,
                vec![Blame { party: 4, fault }],
                "{mode} {cheat:?}"
            );
            assert_eq!(share.qualified, vec![1, 2, 3]);
        }
    }
}

/// A relay in the middle that answers every request for party 2's bundle with party 3's genuine
/// one (so "to 2" would be encrypted to 3): no party opens a session with the impostor; key
/// generation fails closed at once, naming party 2's contact, and party 2 hears nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keygen_fails_closed_under_a_relay_that_swaps_bundles() {
    let relay = LocalRelay::start(Default::default()).await.unwrap();
    let proxy = alibi_testkit::proxy::Proxy::start(&relay.url).await;
    for mode in [Mode::Pairwise, Mode::Group] {
        let parties = register_parties(&proxy.url, &[1, 2, 3], mode)
            .await
            .unwrap();
        let account = |i: usize| parties[i].messenger().account();
        proxy.rules.lock().unwrap().rewrite = vec![(
            format!("/v2/keys/{}/", account(1)),
            format!("/v2/keys/{}/", account(2)),
        )];
        let mut tasks = vec![];
        for mut p in parties {
            let config = KeygenConfig {
                session: [7; 16],
                threshold: 1,
                parties: vec![1, 2, 3],
                timeout: Duration::from_secs(2),
                misbehaviour: None,
            };
            tasks.push(tokio::spawn(async move {
                let party = p.party();
                let r = keygen(&party, &config, &mut p, &mut UnwrapErr(SysRng)).await;
                (party.index, r)
            }));
        }
        for task in tasks {
            let (index, r) = task.await.unwrap();
            match (index, r) {
                (1 | 3, Err(e)) => assert!(
                    e.to_string()
                        .contains("identity of contact party-2 does not match its card"),
                    "{mode}: party {index}: {e}"
                ),
                // Party 2 never hears from the others: too few remain for it.
                (2, r) => assert!(r.is_err(), "{mode}: party 2 must not finish"),
                (i, r) => panic!("{mode}: party {i} finished: {:?}", r.map(|s| s.group_key)),
            }
        }
        proxy.rules.lock().unwrap().rewrite.clear();
    }
}
