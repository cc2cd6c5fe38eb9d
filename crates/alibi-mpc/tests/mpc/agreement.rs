//! The promise of identifiable abort, tested against cheaters and a lossy network (issue 20): all
//! honest parties end with the same key, qualified set and named parties, or all stop naming the
//! same parties, and no honest party is ever named, whatever the cheaters (up to n - t - 1 of
//! them) do and whatever single delivery, or link, the network loses.

use crate::common;

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use alibi_mpc::dkg::{KeyShare, Misbehaviour};
use alibi_mpc::transport::{Adversary, Delivery, MemoryTransport, Packet, Transport};
use alibi_mpc::{Blame, Error, Fault, PartyIndex, Result};
use common::{blst_verifies, keygen_all, keygen_over, parties, reliable, run_keygen, sign_all};
use rand_chacha::rand_core::{Rng, SeedableRng};

/// How one party's key generation ended, comparable across parties.
fn verdict(r: &Result<KeyShare>) -> String {
    match r {
        Ok(s) => format!(
            "key {} qualified {:?} named {:?}",
            hex::encode(&s.group_key),
            s.qualified,
            s.blamed
        ),
        Err(Error::Aborted { blamed, .. }) => format!("aborted, named {blamed:?}"),
        Err(Error::Unreachable { parties, .. }) => format!("unreachable {parties:?}"),
        Err(e) => format!("error {e}"),
    }
}

/// Every honest party ended the same way and none of them is named; returns that verdict.
fn agreed(results: &[(PartyIndex, Result<KeyShare>)], honest: &[PartyIndex], what: &str) -> String {
    let verdicts: Vec<(PartyIndex, String)> = results
        .iter()
        .filter(|(p, _)| honest.contains(p))
        .map(|(p, r)| (*p, verdict(r)))
        .collect();
    for (p, v) in &verdicts {
        assert_eq!(
            v, &verdicts[0].1,
            "{what}: party {p} disagrees with party {}",
            verdicts[0].0
        );
    }
    for (_, r) in results.iter().filter(|(p, _)| honest.contains(p)) {
        let named: Vec<Blame> = match r {
            Ok(s) => s.blamed.clone(),
            Err(Error::Aborted { blamed, .. }) => blamed.clone(),
            _ => vec![],
        };
        for b in named {
            assert!(
                !honest.contains(&b.party),
                "{what}: honest party named: {b:?}"
            );
        }
    }
    verdicts[0].1.clone()
}

fn all_finish(results: &[(PartyIndex, Result<KeyShare>)]) -> Vec<KeyShare> {
    results
        .iter()
        .map(|(p, r)| match r {
            Ok(s) => s.clone(),
            Err(e) => panic!("party {p}: {e}"),
        })
        .collect()
}

/// Two dealers deal the same victim shares off by +5 and -5: an unweighted sum of its shares
/// passes, and once the second falls silent the first one's error stays in the victim's share
/// (which then fails its proof, and the victim is named). With random weights both are caught.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn offsetting_bad_shares_of_two_colluders_are_both_caught() {
    let ps = parties(5);
    let cheat = [
        (4, Misbehaviour::OffsetShareTo(1, 5)),
        (5, Misbehaviour::OffsetShareThenSilent(1, -5)),
    ];
    let results = keygen_all(&ps, 2, &cheat, reliable(), Duration::from_secs(2)).await;
    let v = agreed(&results, &[1, 2, 3], "offsetting shares");
    assert!(v.starts_with("key"), "{v}");
    let shares: Vec<KeyShare> = results
        .into_iter()
        .filter(|(p, _)| *p <= 3)
        .map(|(_, r)| r.unwrap())
        .collect();
    assert_eq!(shares[0].qualified, vec![1, 2, 3]);
    assert_eq!(
        shares[0].blamed,
        vec![
            Blame {
                party: 4,
                fault: Fault::BadShare
            },
            Blame {
                party: 5,
                fault: Fault::Silent { round: 4 }
            }
        ]
    );
    let signed = sign_all(&ps, &shares, &[1, 2, 3], b"m", &[], reliable()).await;
    for (_, s) in &signed {
        let s = s.as_ref().unwrap();
        assert!(blst_verifies(&shares[0].group_key, b"m", &s.signature));
    }
}

/// A reliable network that records every delivery.
fn recording() -> (Adversary, Arc<std::sync::Mutex<Vec<Delivery>>>) {
    let log = Arc::new(std::sync::Mutex::new(vec![]));
    let l = log.clone();
    let adversary: Adversary = Arc::new(move |d: &Delivery| {
        l.lock().unwrap().push(*d);
        true
    });
    (adversary, log)
}

/// The rounds in which `cheater` sent its round's parts to every one of `others` but nothing
/// to `victim` (the withholding, as the network saw it), and of those the rounds in which
/// `victim` got a forward from another party (not necessarily all: a party that has finished
/// asks for no late round).
fn withheld_and_forwarded(
    log: &[Delivery],
    cheater: PartyIndex,
    victim: PartyIndex,
    others: &[PartyIndex],
) -> (BTreeSet<u16>, BTreeSet<u16>) {
    let sent = |to: PartyIndex, round: u16| {
        log.iter()
            .any(|d| d.from == cheater && d.to == to && d.kind == 0 && d.round == round)
    };
    let rounds: BTreeSet<u16> = log.iter().map(|d| d.round).collect();
    let withheld: BTreeSet<u16> = rounds
        .into_iter()
        .filter(|&r| others.iter().all(|&o| sent(o, r)) && !sent(victim, r))
        .collect();
    let forwarded = withheld
        .iter()
        .copied()
        .filter(|&r| {
            log.iter()
                .any(|d| d.to == victim && d.from != cheater && d.kind == 2 && d.round == r)
        })
        .collect();
    (withheld, forwarded)
}

/// A party that sends its broadcasts to all but one honest party (and answers no wants): the
/// others forward them, so the victim does not call it silent and everyone ends alike, nobody
/// named. The same for a partial signature withheld from one signer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_broadcast_withheld_from_one_party_reaches_it_through_the_others() {
    let ps = parties(4);
    let cheat = [(4, Misbehaviour::WithholdBroadcastFrom(2))];
    let (network, log) = recording();
    let results = keygen_all(&ps, 1, &cheat, network, Duration::from_secs(2)).await;
    let v = agreed(&results, &[1, 2, 3, 4], "withheld broadcast");
    assert!(v.ends_with("named []"), "{v}");
    // The withholding happened (in some round party 4 sent 1 and 3 their parts, 2 nothing), and
    // party 2 got the first such round, which it could not go on without, from a forward.
    let (withheld, forwarded) = withheld_and_forwarded(&log.lock().unwrap(), 4, 2, &[1, 3]);
    assert!(!withheld.is_empty(), "party 4 withheld nothing from 2");
    assert!(
        withheld.first().is_some_and(|r| forwarded.contains(r)),
        "withheld from 2 in rounds {withheld:?}, forwarded to it in {forwarded:?} only"
    );
    let shares = all_finish(&results);
    let cheat = [(4, Misbehaviour::WithholdBroadcastFrom(1))];
    let (network, log) = recording();
    let signed = sign_all(&ps, &shares, &[1, 2, 4], b"m", &cheat, network).await;
    let (withheld, forwarded) = withheld_and_forwarded(&log.lock().unwrap(), 4, 1, &[2]);
    assert!(!withheld.is_empty(), "signer 4 withheld nothing from 1");
    assert!(
        withheld.first().is_some_and(|r| forwarded.contains(r)),
        "withheld from 1 in rounds {withheld:?}, forwarded to it in {forwarded:?} only"
    );
    for (p, s) in signed {
        let s = s.unwrap_or_else(|e| panic!("signer {p}: {e}"));
        assert!(s.blamed.is_empty(), "{p}: {:?}", s.blamed);
        assert!(blst_verifies(&shares[0].group_key, b"m", &s.signature));
    }
}

/// A signer that sends one signer an invalid partial and the others a valid one is named for
/// equivocating by every honest signer, and all combine the same signature without it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_equivocating_signer_is_named_by_every_signer() {
    let ps = parties(4);
    let shares = run_keygen(&ps, 1, &[]).await;
    let cheat = [(3, Misbehaviour::EquivocatePartial)];
    let signed = sign_all(&ps, &shares, &[1, 2, 3, 4], b"m", &cheat, reliable()).await;
    let honest: Vec<_> = signed.into_iter().filter(|(p, _)| *p != 3).collect();
    for (p, s) in &honest {
        let s = s.as_ref().unwrap_or_else(|e| panic!("signer {p}: {e}"));
        assert_eq!(
            s.blamed,
            vec![Blame {
                party: 3,
                fault: Fault::Equivocation { round: 1 }
            }],
            "signer {p}"
        );
        assert!(!s.combined.contains(&3));
        assert_eq!(
            s.signature,
            honest[0].1.as_ref().unwrap().signature,
            "one signature"
        );
    }
}

/// The network loses everything party 2 sends party 3 (its broadcasts, its share, its answers):
/// party 3 gets the broadcasts from the others and the share from the public reveal; nobody is
/// named and all hold the same key; signing too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_network_that_drops_one_link_changes_nothing() {
    for (n, t) in [(4, 1), (5, 2)] {
        let ps = parties(n);
        let cut: Adversary = Arc::new(|d: &Delivery| !(d.from == 2 && d.to == 3));
        let results = keygen_all(&ps, t, &[], cut.clone(), Duration::from_secs(1)).await;
        let honest: Vec<PartyIndex> = (1..=n).collect();
        let v = agreed(&results, &honest, &format!("n={n} t={t} link 2->3 cut"));
        assert!(v.ends_with("named []"), "{v}");
        let shares = all_finish(&results);
        let signers: Vec<PartyIndex> = (1..=t as u16 + 2).collect();
        let signed = sign_all(&ps, &shares, &signers, b"m", &[], cut).await;
        for (p, s) in signed {
            let s = s.unwrap_or_else(|e| panic!("signer {p}: {e}"));
            assert!(s.blamed.is_empty());
            assert!(blst_verifies(&shares[0].group_key, b"m", &s.signature));
        }
    }
}

/// Party 1 cannot reach party 2 (its relay serves another identity for it) and stops; the network
/// also loses its stop notice to party 4. Every party stops, party 1 for its transport fault, the
/// others naming party 1's notice (party 2 and 4 through party 3's forwarding); nobody goes on
/// without party 1 and nobody is named.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_party_that_cannot_reach_another_stops_everyone() {
    let ps = parties(4);
    let lose: Adversary =
        Arc::new(|d: &Delivery| !(d.from == 1 && d.to == 4 && d.round == u16::MAX));
    let mut nets = MemoryTransport::network_with(&ps[0].roster, lose);
    nets[0].refuse(2);
    let results = keygen_over(&ps, 1, &[], nets, Duration::from_secs(2)).await;
    for (p, r) in results {
        match (p, r) {
            (1, Err(Error::Transport(m))) => assert!(m.contains("party 2"), "{m}"),
            (_, Err(Error::Stopped { stopped })) if p != 1 => {
                assert_eq!(stopped.len(), 1, "party {p} names {stopped:?}");
                assert_eq!(stopped[0].0, 1);
                assert!(stopped[0].1.contains("party 2"), "{}", stopped[0].1);
            }
            (p, r) => panic!("party {p}: {}", verdict(&r)),
        }
    }
}

/// Two colluders: party 4 signs a second round-2 broadcast and hands it to party 5 alone, after
/// the round (no honest party could echo it); party 5 confirms a wrong outcome, so that everyone
/// stops, and in the closing round, which nobody echoes, shows the proof of party 4's
/// equivocation to party 1 alone. Before the agreement step party 1 stopped naming parties 4
/// and 5, parties 2 and 3 naming party 5 alone (for an outcome that differs, which is no
/// evidence). Now the stopping parties pass the proof on (Dolev-Strong) and all name party 4,
/// for its equivocation, and nobody else.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_cheaters_releasing_at_the_last_moment_leave_honest_parties_agreeing() {
    let ps = parties(5);
    let cheat = [
        (4, Misbehaviour::SecretVersionTo(5)),
        (5, Misbehaviour::ReleaseLateTo(1)),
    ];
    let started = std::time::Instant::now();
    let results = keygen_all(&ps, 2, &cheat, reliable(), Duration::from_secs(1)).await;
    let v = agreed(&results, &[1, 2, 3], "last-moment release");
    assert_eq!(
        v,
        format!(
            "aborted, named {:?}",
            vec![Blame {
                party: 4,
                fault: Fault::Equivocation { round: 2 }
            }]
        )
    );
    eprintln!("stopped alike in {:?}", started.elapsed());
}

/// Drops exactly the k-th delivery of the run, for every k a clean run makes.
fn drop_kth(k: usize) -> Adversary {
    let count = AtomicUsize::new(0);
    Arc::new(move |_: &Delivery| count.fetch_add(1, Ordering::Relaxed) != k)
}

/// The deliveries of a clean run: every position a single loss can hit.
fn counting() -> (Adversary, Arc<AtomicUsize>) {
    let count = Arc::new(AtomicUsize::new(0));
    let c = count.clone();
    (
        Arc::new(move |_: &Delivery| {
            c.fetch_add(1, Ordering::Relaxed);
            true
        }),
        count,
    )
}

/// A network that loses any one delivery, at every position of a key generation (n = 4, t = 1)
/// and of a signing: all recover it (a want), and end alike with nobody named.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn any_single_lost_delivery_is_recovered() {
    let ps = parties(4);
    let (count, deliveries) = counting();
    let results = keygen_all(&ps, 1, &[], count, Duration::from_secs(2)).await;
    let shares = all_finish(&results);
    let total = deliveries.load(Ordering::Relaxed);
    // Five rounds of 12 deliveries (n = 4): the shares ride with round 2's decommitments, the
    // confirmations with round 4's complaints.
    assert!(total >= 5 * 12, "{total} deliveries");
    let mut keys = BTreeSet::new();
    for k in 0..total {
        let results = keygen_all(&ps, 1, &[], drop_kth(k), Duration::from_secs(2)).await;
        let v = agreed(
            &results,
            &[1, 2, 3, 4],
            &format!("delivery {k} of {total} lost"),
        );
        assert!(
            v.ends_with("qualified [1, 2, 3, 4] named []"),
            "delivery {k}: {v}"
        );
        keys.insert(v);
    }
    assert_eq!(keys.len(), total, "every run has its own key");
    let (count, deliveries) = counting();
    sign_all(&ps, &shares, &[1, 2, 3], b"m", &[], count).await;
    let total = deliveries.load(Ordering::Relaxed);
    for k in 0..total {
        let signed = sign_all(&ps, &shares, &[1, 2, 3], b"m", &[], drop_kth(k)).await;
        for (p, s) in signed {
            let s = s.unwrap_or_else(|e| panic!("delivery {k}: signer {p}: {e}"));
            assert!(s.blamed.is_empty(), "delivery {k}: {:?}", s.blamed);
            assert!(blst_verifies(&shares[0].group_key, b"m", &s.signature));
        }
    }
}

/// One cheating strategy, drawn at random.
fn strategy(rng: &mut impl Rng, me: PartyIndex, n: u16, t: usize) -> Misbehaviour {
    let victim = loop {
        let v = 1 + (rng.next_u32() % u32::from(n)) as u16;
        if v != me {
            break v;
        }
    };
    let offset = i64::from(rng.next_u32() % 1000) + 1;
    let offset = if rng.next_u32().is_multiple_of(2) {
        offset
    } else {
        -offset
    };
    match rng.next_u32() % 10 {
        0 => Misbehaviour::BadShareTo(victim),
        1 => Misbehaviour::WithholdShareFrom(victim),
        2 => Misbehaviour::EquivocateCommit,
        3 => Misbehaviour::Garbage {
            round: [1, 2, 4, 5, 6][(rng.next_u32() % 5) as usize],
        },
        4 => Misbehaviour::WrongShareProof,
        5 => Misbehaviour::WithholdBroadcastFrom(victim),
        6 => Misbehaviour::OffsetShareTo(victim, offset),
        7 => Misbehaviour::OffsetShareThenSilent(victim, offset),
        8 if t >= 3 => Misbehaviour::TorsionCommitment,
        _ => Misbehaviour::BadShareTo(victim),
    }
}

/// Random cheaters (0 to n - t - 1 of them, each with a random strategy) over many seeds: the
/// honest parties always end alike and are never named; when they finish, their key signs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn random_cheating_strategies_never_split_the_honest_parties() {
    for seed in 0..10u64 {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let n = 4 + (rng.next_u32() % 3) as u16;
        let t = 1 + (rng.next_u32() % u32::from(n - 2)) as usize;
        let k = (rng.next_u32() as usize) % (n as usize - t);
        let mut cheaters = BTreeSet::new();
        while cheaters.len() < k {
            cheaters.insert(1 + (rng.next_u32() % u32::from(n)) as u16);
        }
        let cheat: Vec<(PartyIndex, Misbehaviour)> = cheaters
            .iter()
            .map(|&c| (c, strategy(&mut rng, c, n, t)))
            .collect();
        let honest: Vec<PartyIndex> = (1..=n).filter(|p| !cheaters.contains(p)).collect();
        let ps = parties(n);
        let what = format!("seed {seed}: n={n} t={t} cheaters {cheat:?}");
        let results = keygen_all(&ps, t, &cheat, reliable(), Duration::from_millis(1500)).await;
        let v = agreed(&results, &honest, &what);
        if v.starts_with("key") {
            let shares: Vec<KeyShare> = results
                .into_iter()
                .filter_map(|(p, r)| r.ok().filter(|_| honest.contains(&p)))
                .collect();
            let signers: Vec<PartyIndex> = shares[0]
                .eligible_signers()
                .into_iter()
                .filter(|p| honest.contains(p))
                .take(t + 1)
                .collect();
            assert_eq!(signers.len(), t + 1, "{what}: {v}");
            let signed = sign_all(&ps, &shares, &signers, b"m", &[], reliable()).await;
            for (p, s) in signed {
                let s = s.unwrap_or_else(|e| panic!("{what}: signer {p}: {e}"));
                assert!(blst_verifies(&shares[0].group_key, b"m", &s.signature));
            }
        }
        eprintln!("{what}: {v}");
    }
}

/// Key generation (n = 4, t = 1) while party 4 floods party 1 (issue 41, N1): without pause, frames
/// of `sessions` made-up sessions and of `rounds` made-up rounds of the real one, as they would
/// arrive over its authenticated channel. Every party's result and the frames party 1 did not
/// file, by sender.
async fn keygen_with_flooder(
    sessions: u8,
    rounds: u16,
) -> (
    Vec<(PartyIndex, Result<KeyShare>)>,
    std::collections::BTreeMap<PartyIndex, u64>,
) {
    let ps = parties(4);
    let nets = MemoryTransport::network(&ps[0].roster);
    let victim = nets[0].mailbox().clone();
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flood = {
        let (victim, done) = (victim.clone(), done.clone());
        tokio::spawn(async move {
            let junk = Packet::Round {
                broadcast: None,
                p2p: Some(vec![7; 64]),
            };
            let mut k: u8 = 0;
            while !done.load(Ordering::Relaxed) {
                for s in 0..sessions {
                    k = k.wrapping_add(1);
                    let mut made_up = [0xa5; 16];
                    made_up[..2].copy_from_slice(&[s, k]);
                    victim.file(made_up, 1, 4, junk.clone());
                }
                for r in 0..rounds {
                    victim.file([1; 16], 1000 + r, 4, junk.clone());
                }
                tokio::task::yield_now().await;
            }
        })
    };
    let results = keygen_over(&ps, 1, &[], nets, Duration::from_secs(2)).await;
    done.store(true, Ordering::Relaxed);
    flood.await.unwrap();
    (results, victim.strays())
}

/// N1: a party keeps sending the victim frames of made-up sessions, two at a time. Before, the
/// victim's mailbox kept the last two sessions it saw and dropped the real run's state, so the
/// honest parties named the victim silent. Now only sessions a party opened are filed: everyone
/// ends with the same key, nobody is named, and the victim's stray count names the flooder alone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn frames_of_made_up_sessions_do_not_exclude_the_victim() {
    let (results, strays) = keygen_with_flooder(2, 0).await;
    let v = agreed(&results, &[1, 2, 3, 4], "made-up sessions");
    assert!(v.contains("named []"), "{v}");
    assert_eq!(
        strays.keys().copied().collect::<Vec<_>>(),
        vec![4],
        "{strays:?}"
    );
    assert!(strays[&4] >= 2, "{strays:?}");
}

/// N1: slots of any round were uncapped. A party that keeps sending the victim frames of 500
/// made-up rounds of the real session fills slots of a bounded number of rounds; the rest are
/// dropped and counted against it, and the run ends as a clean one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_made_up_rounds_is_capped_per_sender() {
    let (results, strays) = keygen_with_flooder(0, 500).await;
    let v = agreed(&results, &[1, 2, 3, 4], "made-up rounds");
    assert!(v.contains("named []"), "{v}");
    // Of each burst of 500, the same rounds up to the cap (32 and one per party, the party's
    // own among them) are admitted, the rest counted.
    assert!(
        strays.get(&4).copied().unwrap_or(0) >= 500 - 36,
        "{strays:?}"
    );
    assert_eq!(strays.len(), 1, "{strays:?}");
}

/// N8: parties 4 and 5 each send a signed stop notice at the start (n = 5, t = 1), and the
/// network loses party 5's own notice to party 1. Before, each honest party stopped naming the
/// lowest stopper it happened to hold and nobody was named; now every honest party passes each
/// notice on, waits for others, and names both `Stopped`, alike.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stoppers_are_named_alike_by_every_honest_party() {
    let ps = parties(5);
    let lose: Adversary = Arc::new(|d: &Delivery| !(d.from == 5 && d.to == 1));
    let cheats = [(4, Misbehaviour::Stop), (5, Misbehaviour::Stop)];
    let results = keygen_all(&ps, 1, &cheats, lose, Duration::from_secs(2)).await;
    for (p, r) in results.into_iter().filter(|(p, _)| *p <= 3) {
        match r {
            Err(Error::Stopped { stopped }) => {
                let who: Vec<PartyIndex> = stopped.iter().map(|s| s.0).collect();
                assert_eq!(who, vec![4, 5], "party {p}: {stopped:?}");
            }
            r => panic!("party {p}: {}", verdict(&r)),
        }
    }
}

/// A network under two colluding signers' control (n = 6, t = 3, signers 1, 2, 5 and 6):
/// party 5's messages reach party 1 alone and party 6's party 2 alone, and nobody's forward of
/// a partial arrives. Party 1 then holds the partials of 1, 2 and 5, party 2 those of 1, 2 and
/// 6: three each, one short. Before, each stopped naming a different party silent (party 1
/// party 6, party 2 party 5). Now the signers that stop agree on every partial any of them
/// holds (Dolev-Strong, `alibi_mpc::agreement`), hold four, and finish with the same signature
/// naming nobody.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn partials_shown_to_one_signer_alone_count_for_every_signer_that_stops() {
    let ps = parties(6);
    let shares = run_keygen(&ps, 3, &[]).await;
    let lose: Adversary = Arc::new(|d: &Delivery| {
        let cheater_to_other = (d.from == 5 && d.to != 1) || (d.from == 6 && d.to != 2);
        !(cheater_to_other || (d.kind == 2 && d.round == 1))
    });
    let signed = sign_all(&ps, &shares, &[1, 2, 5, 6], b"m", &[], lose).await;
    let honest: Vec<_> = signed.into_iter().filter(|(p, _)| *p <= 2).collect();
    let mut signatures = BTreeSet::new();
    for (p, s) in &honest {
        let s = s.as_ref().unwrap_or_else(|e| panic!("signer {p}: {e}"));
        assert_eq!(s.blamed, vec![], "signer {p}");
        signatures.insert(s.signature);
    }
    assert_eq!(signatures.len(), 1, "one signature");
    let signature = signatures.into_iter().next().unwrap();
    assert!(blst_verifies(&shares[0].group_key, b"m", &signature));
}

/// The same network, but party 5 says nothing at all: the honest signers hold three partials
/// even together. Before, party 1 (shown party 6's partial) named party 5 silent and party 2
/// named parties 5 and 6; now both name party 5 alone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn signers_that_stop_name_the_same_silent_parties() {
    let ps = parties(6);
    let shares = run_keygen(&ps, 3, &[]).await;
    let lose: Adversary = Arc::new(|d: &Delivery| {
        let cheater_to_other = d.from == 5 || (d.from == 6 && d.to != 1);
        !(cheater_to_other || (d.kind == 2 && d.round == 1))
    });
    let signed = sign_all(&ps, &shares, &[1, 2, 5, 6], b"m", &[], lose).await;
    for (p, s) in signed.into_iter().filter(|(p, _)| *p <= 2) {
        match s {
            Err(Error::Unreachable { parties, .. }) => assert_eq!(parties, vec![5], "signer {p}"),
            Err(e) => panic!("signer {p}: {e}"),
            Ok(_) => panic!("signer {p} signed with three partials"),
        }
    }
}

/// Two colluders in key generation (n = 5, t = 2): party 4 signs a second round-2 broadcast and
/// hands it to party 5 alone; party 5 shows party 1 alone, in its confirmation, the proof of
/// party 4's equivocation. Party 1 alone then confirms again (round 7) while the others close
/// the run. Before, party 1 named parties 2, 3 and 5 silent in round 7 (and stopped on too few
/// parties): honest parties named. Now it sees their closing broadcasts, names them nothing,
/// and stops without a share naming only party 4, proven; the others finish alike.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_party_shown_a_proof_alone_in_the_confirm_round_names_no_honest_party() {
    let ps = parties(5);
    let cheat = [
        (4, Misbehaviour::SecretVersionTo(5)),
        (5, Misbehaviour::ShowInConfirmTo(1)),
    ];
    let results = keygen_all(&ps, 2, &cheat, reliable(), Duration::from_secs(1)).await;
    let v = agreed(&results, &[2, 3], "the others");
    assert!(v.starts_with("key "), "{v}");
    match &results.iter().find(|(p, _)| *p == 1).expect("party 1").1 {
        Err(Error::Aborted { blamed, reason }) => assert_eq!(
            blamed,
            &vec![Blame {
                party: 4,
                fault: Fault::Equivocation { round: 2 }
            }],
            "{reason}"
        ),
        r => panic!("party 1: {}", verdict(r)),
    }
}

/// Key generation (n = 4, t = 2) in which party 4 shows party 1 alone garbage in `round`: the
/// honest parties must all finish alike, with `qualified`, naming party 4 alone for two versions
/// of `round`.
async fn garbage_to_party_1_ends_alike(round: u16, qualified: &[PartyIndex]) {
    let ps = parties(4);
    let cheat = [(4, Misbehaviour::GarbageTo { round, to: 1 })];
    let results = keygen_all(&ps, 2, &cheat, reliable(), Duration::from_secs(1)).await;
    let v = agreed(
        &results,
        &[1, 2, 3],
        &format!("garbage to party 1 in round {round}"),
    );
    assert!(v.starts_with("key "), "{v}");
    for (_, s) in results.iter().filter(|(p, _)| *p != 4) {
        let s = s.as_ref().expect("agreed on a key");
        assert_eq!(s.qualified, qualified);
        let fault = Fault::Equivocation { round };
        assert_eq!(s.blamed, vec![Blame { party: 4, fault }]);
    }
}

/// Party 4 confirms early in round 4 like everyone, then shows party 1 alone garbage in round 5.
/// Round 5 cannot undo the early confirmations for this: party 1 alone saw it, and nobody
/// echoes round 5 before the closing round. Every honest party finishes with the key all of
/// them confirmed, party 4 in it (its dealing was good), and names party 4 for its two versions
/// of round 5 (the closing round's attestations show both to everyone). Fails if a round-5
/// fault undoes the early confirmations: party 1 alone confirms again and stops without a share.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn garbage_shown_to_one_party_after_the_early_confirmations_leaves_everyone_alike() {
    garbage_to_party_1_ends_alike(5, &[1, 2, 3, 4]).await;
}

/// Party 4 shows party 1 alone garbage in round 4: party 1 has no early confirmations, the
/// others have all of them. Round 5's attestations show both versions of party 4's round 4 to
/// everyone, so every honest party names it and confirms again without it (round 6): none
/// finishes on confirmations that party 1 never saw. Fails if the early confirmations stand
/// whatever round 5 brings to light (the others finish with party 4, party 1 stops).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_complaint_round_shown_differently_to_one_party_undoes_the_early_confirmations() {
    garbage_to_party_1_ends_alike(4, &[1, 2, 3]).await;
}
