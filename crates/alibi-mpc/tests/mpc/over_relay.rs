//! Key generation and signing between parties on a real relay (in-process, loopback, redb), over
//! pairwise and over group channels: first runs (PQXDH sessions and sender keys set up on the way)
//! and later runs, and a cheater named over each transport.

use std::time::Duration;

use alibi_mpc::dkg::{keygen, KeyShare, KeygenConfig, Misbehaviour};
use alibi_mpc::local::{endpoints, keygen_and_sign, prepare_all, register_parties};
use alibi_mpc::relay::{Mode, RelayParty};
use alibi_mpc::scheme::Scheme;
use alibi_mpc::transport::Packet;
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
        let bls2 = (Scheme::Bls, 2);
        let wait = Duration::from_secs(20);
        let (parties, shares, sig, first) =
            keygen_and_sign(endpoints(parties), bls2, b"over the relay", wait, |_| None)
                .await
                .unwrap();
        assert!(shares
            .iter()
            .all(|s| s.public_key() == shares[0].public_key() && s.blamed().is_empty()));
        assert!(bls::verify(shares[0].public_key(), b"over the relay", &sig).is_ok());
        let (_, shares2, sig2, later) = keygen_and_sign(parties, bls2, b"again", wait, |_| None)
            .await
            .unwrap();
        assert_ne!(shares2[0].public_key(), shares[0].public_key());
        assert!(bls::verify(shares2[0].public_key(), b"again", &sig2).is_ok());
        // Later runs skip the one-time steps (bundles, sender keys): fewer requests.
        assert!(
            later.requests < first.requests,
            "{mode}: {first:?} then {later:?}"
        );
        // Group mode: one request per party per round (5 keygen rounds: the shares ride with
        // the decommitments, the confirmations with the complaints; 2 signing rounds by 3:
        // partials and close). Pairwise: one per
        // recipient. No wants: nothing was lost.
        if mode == Mode::Group {
            assert_eq!(later.requests, 4 * 5 + 3 * 2);
        } else {
            assert_eq!(later.requests, 4 * 5 * 3 + 3 * 2 * 2);
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
            let config: KeygenConfig = KeygenConfig {
                session: [9; 16],
                threshold: 2,
                parties: vec![1, 2, 3, 4],
                timeout: Duration::from_secs(3),
                resharing: None,
                misbehaviour: (alibi_mpc::transport::Transport::me(&p) == 4).then_some(cheat),
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
            let config: KeygenConfig = KeygenConfig {
                session: [7; 16],
                threshold: 1,
                parties: vec![1, 2, 3],
                timeout: Duration::from_secs(2),
                resharing: None,
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

/// Key generation by all `parties` at once (session `session`, threshold `t`): every party's
/// result, and the parties back for the next run.
async fn keygen_round(
    parties: Vec<RelayParty>,
    session: [u8; 16],
    t: usize,
    timeout: Duration,
) -> (Vec<RelayParty>, Vec<(u16, alibi_mpc::Result<KeyShare>)>) {
    let indices: Vec<u16> = parties
        .iter()
        .map(alibi_mpc::transport::Transport::me)
        .collect();
    let mut tasks = vec![];
    for mut p in parties {
        let config: KeygenConfig = KeygenConfig {
            session,
            threshold: t,
            parties: indices.clone(),
            timeout,
            resharing: None,
            misbehaviour: None,
        };
        tasks.push(tokio::spawn(async move {
            let party = p.party();
            let r = keygen(&party, &config, &mut p, &mut UnwrapErr(SysRng)).await;
            (p, (party.index, r))
        }));
    }
    let mut back = vec![];
    let mut results = vec![];
    for task in tasks {
        let (p, r) = task.await.unwrap();
        back.push(p);
        results.push(r);
    }
    (back, results)
}

/// A relay that loses one delivery, at every position of a key generation (n = 4, t = 1), over
/// pairwise and over group channels: the lost message is asked for and sent again, and every
/// party ends with the same key, nobody named.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_single_lost_delivery_over_the_relay_is_recovered() {
    let relay = LocalRelay::start(Default::default()).await.unwrap();
    let proxy = alibi_testkit::proxy::Proxy::start(&relay.url).await;
    let timeout = Duration::from_secs(2);
    for mode in [Mode::Pairwise, Mode::Group] {
        let parties = register_parties(&proxy.url, &[1, 2, 3, 4], mode)
            .await
            .unwrap();
        let (parties, _) = prepare_all(parties).await.unwrap();
        proxy.count_from_zero();
        let (mut parties, clean) = keygen_round(parties, [0xee; 16], 1, timeout).await;
        assert!(clean.iter().all(|(_, r)| r.is_ok()));
        let total = proxy.deliveries.load(std::sync::atomic::Ordering::SeqCst);
        // Five rounds of 12 deliveries (the shares ride with round 2's decommitments, the
        // confirmations with round 4's complaints).
        assert!(total >= 5 * 12, "{mode}: {total} deliveries");
        for k in 0..total {
            proxy.rules.lock().unwrap().drop_delivery = Some(k);
            proxy.count_from_zero();
            let session = [
                k as u8,
                (k >> 8) as u8,
                mode as u8,
                0x5a,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                1,
            ];
            let (back, results) = keygen_round(parties, session, 1, timeout).await;
            parties = back;
            let mut verdicts = results.iter().map(|(p, r)| match r {
                Ok(s) => {
                    assert!(s.blamed.is_empty(), "{mode}, delivery {k}: {:?}", s.blamed);
                    assert_eq!(s.qualified, vec![1, 2, 3, 4]);
                    s.group_key.clone()
                }
                Err(e) => panic!("{mode}, delivery {k} of {total} lost: party {p}: {e}"),
            });
            let first = verdicts.next().unwrap();
            assert!(
                verdicts.all(|k| k == first),
                "{mode}, delivery {k}: keys differ"
            );
        }
        proxy.rules.lock().unwrap().drop_delivery = None;
    }
}

/// N1 (issue 41) over the relay: party 4 keeps sending party 1, over their authenticated pairwise
/// channel, frames of made-up sessions (two at a time) while key generation runs. Before, party
/// 1's mailbox kept the last two sessions it saw, so the run's state was pushed out and the
/// others named party 1 silent. Now every party finishes with the same key, nobody is named, and
/// party 1 counts the flooder's stray frames.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_made_up_sessions_over_the_relay_leaves_the_victim_in() {
    let relay = LocalRelay::start(Default::default()).await.unwrap();
    let parties = register_parties(&relay.url, &[1, 2, 3, 4], Mode::Group)
        .await
        .unwrap();
    let (parties, _) = prepare_all(parties).await.unwrap();
    let flooder = parties[3].messenger().clone();
    let victim_name = parties[3].name_of(1).unwrap().to_string();
    let victim_box = alibi_mpc::transport::Transport::mailbox(&parties[0]).clone();
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flood = {
        let done = done.clone();
        tokio::spawn(async move {
            let mut k: u8 = 0;
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                for _ in 0..2 {
                    k = k.wrapping_add(1);
                    let packet = Packet::Round {
                        broadcast: None,
                        p2p: Some(vec![7; 64]),
                    };
                    // A transport frame as the relay transport encodes it: session, round,
                    // sender, packet.
                    let frame = postcard::to_stdvec(&([k; 16], 1u16, 4u16, packet)).unwrap();
                    let _ = flooder.send(&victim_name, &frame).await;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        })
    };
    let mut tasks = vec![];
    for mut p in parties {
        let config: KeygenConfig = KeygenConfig {
            session: [5; 16],
            threshold: 1,
            parties: vec![1, 2, 3, 4],
            timeout: Duration::from_secs(3),
            resharing: None,
            misbehaviour: None,
        };
        tasks.push(tokio::spawn(async move {
            let party = p.party();
            let r = keygen(&party, &config, &mut p, &mut UnwrapErr(SysRng)).await;
            (party.index, r)
        }));
    }
    let mut keys = vec![];
    for task in tasks {
        let (index, r) = task.await.unwrap();
        let share = r.unwrap_or_else(|e| panic!("party {index}: {e}"));
        assert!(share.blamed.is_empty(), "party {index}: {:?}", share.blamed);
        keys.push(share.group_key);
    }
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    flood.await.unwrap();
    assert!(keys.iter().all(|k| *k == keys[0]));
    let strays = victim_box.strays();
    assert_eq!(
        strays.keys().copied().collect::<Vec<_>>(),
        vec![4],
        "{strays:?}"
    );
}
