//! Signing that binds what it signs and finishes at t+1: a signer holding another message or a
//! share of another key generation is reported as such (never named for a bad partial), and a
//! signing by any t+1 of the parties asked ends as soon as t+1 valid partials are in hand.

use crate::common;

use std::time::{Duration, Instant};

use alibi_mpc::dkg::KeyShare;
use alibi_mpc::sign::{sign, Disagreement, SignConfig, Signed};
use alibi_mpc::transport::MemoryTransport;
use alibi_mpc::{Error, Party, PartyIndex, Result};
use common::{blst_verifies, parties, run_keygen};
use getrandom::SysRng;
use rand_core::UnwrapErr;

/// Each of `jobs` (a share and the message its holder signs) signs under `config` on one
/// in-memory network; the parties without a job never start. Results by signer.
async fn sign_each(
    ps: &[Party],
    jobs: Vec<(KeyShare, &[u8])>,
    config: &SignConfig,
) -> Vec<(PartyIndex, Result<Signed>)> {
    let nets = MemoryTransport::network(&ps[0].roster);
    let mut tasks = vec![];
    for mut net in nets {
        let me = alibi_mpc::transport::Transport::me(&net);
        let Some((share, msg)) = jobs.iter().find(|(s, _)| s.index == me).cloned() else {
            continue;
        };
        let (p, config, msg) = (ps[me as usize - 1].clone(), config.clone(), msg.to_vec());
        tasks.push(tokio::spawn(async move {
            let r = sign(&p, &share, &config, &msg, &mut net, &mut UnwrapErr(SysRng)).await;
            (me, r)
        }));
    }
    let mut out = vec![];
    for t in tasks {
        out.push(t.await.expect("task"));
    }
    out
}

fn share_of(shares: &[KeyShare], p: PartyIndex) -> KeyShare {
    shares.iter().find(|s| s.index == p).expect("share").clone()
}

/// n = 5, t = 2: three of the five asked sign at once; they finish with one valid signature as
/// soon as their partials are in, long before the timeout, naming nobody.
#[tokio::test(flavor = "multi_thread")]
async fn any_t_plus_1_finish_without_waiting_for_the_rest() {
    let ps = parties(5);
    let shares = run_keygen(&ps, 2, &[]).await;
    let config = SignConfig::any_t_plus_1([3; 16], vec![1, 2, 3, 4, 5], Duration::from_secs(60));
    let jobs = [1, 3, 5]
        .map(|p| (share_of(&shares, p), b"pay 1".as_slice()))
        .to_vec();
    let start = Instant::now();
    let signed = sign_each(&ps, jobs, &config).await;
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "waited for the absent"
    );
    for (p, r) in &signed {
        let s = r.as_ref().unwrap_or_else(|e| panic!("signer {p}: {e}"));
        assert!(s.blamed.is_empty(), "signer {p} named {:?}", s.blamed);
        assert!(blst_verifies(&shares[0].group_key, b"pay 1", &s.signature));
    }
}

/// A signer given another message: in a signing by all, the others report that it signs another
/// message (and it the same of them); nobody is named for a bad partial.
#[tokio::test(flavor = "multi_thread")]
async fn another_message_is_reported_as_a_disagreement() {
    let ps = parties(3);
    let shares = run_keygen(&ps, 1, &[]).await;
    let config = SignConfig::new([4; 16], vec![1, 2], Duration::from_secs(2));
    let jobs = vec![
        (share_of(&shares, 1), b"pay alice".as_slice()),
        (share_of(&shares, 2), b"pay mallory".as_slice()),
    ];
    for (p, r) in sign_each(&ps, jobs, &config).await {
        let other = 3 - p;
        match r {
            Err(Error::Disagreed { disagreeing }) => {
                assert_eq!(
                    disagreeing,
                    [(other, Disagreement::OtherMessage)],
                    "signer {p}"
                )
            }
            other => panic!("signer {p}: {other:?}"),
        }
    }
}

/// A signer whose share is from an earlier key generation (it missed the rerun): reported as a
/// share from another key generation, not as a bad partial; with any t+1 of the rest the
/// signature is still made, and the stale signer noted.
#[tokio::test(flavor = "multi_thread")]
async fn a_stale_share_is_reported_as_from_another_key_generation() {
    let ps = parties(4);
    let old = run_keygen(&ps, 1, &[]).await;
    let new = run_keygen(&ps, 1, &[]).await;
    let all = SignConfig::new([5; 16], vec![1, 2], Duration::from_secs(2));
    let jobs = vec![
        (share_of(&new, 1), b"m".as_slice()),
        (share_of(&old, 2), b"m".as_slice()),
    ];
    let signed = sign_each(&ps, jobs, &all).await;
    match &signed[0].1 {
        Err(Error::Disagreed { disagreeing }) => {
            assert_eq!(disagreeing, &[(2, Disagreement::OtherKeyGeneration)])
        }
        other => panic!("signer 1: {other:?}"),
    }
    let any = SignConfig::any_t_plus_1([6; 16], vec![1, 2, 3, 4], Duration::from_secs(2));
    let jobs = vec![
        (share_of(&new, 1), b"m".as_slice()),
        (share_of(&old, 2), b"m".as_slice()),
        (share_of(&new, 3), b"m".as_slice()),
    ];
    let signed = sign_each(&ps, jobs, &any).await;
    for (p, r) in signed.iter().filter(|(p, _)| *p != 2) {
        let s = r.as_ref().unwrap_or_else(|e| panic!("signer {p}: {e}"));
        assert!(s.blamed.is_empty(), "signer {p} named {:?}", s.blamed);
        assert!(blst_verifies(&new[0].group_key, b"m", &s.signature));
    }
}

/// Any t+1 asked, but only t came: the wait ends at the timeout with the parties not heard from
/// listed, none of them named.
#[tokio::test(flavor = "multi_thread")]
async fn too_few_signers_name_nobody() {
    let ps = parties(3);
    let shares = run_keygen(&ps, 1, &[]).await;
    let config = SignConfig::any_t_plus_1([7; 16], vec![1, 2, 3], Duration::from_millis(500));
    let jobs = vec![(share_of(&shares, 1), b"m".as_slice())];
    match &sign_each(&ps, jobs, &config).await[0].1 {
        Err(Error::Unreachable { parties, .. }) => assert_eq!(parties, &[2, 3]),
        other => panic!("{other:?}"),
    }
}
