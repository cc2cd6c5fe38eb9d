//! One cell of the MPC grid with no channel between the parties: every party a task of this
//! process over alibi-mpc's in-memory transport ([`MemoryTransport`]), which files and checks
//! what the relay's transports deliver (each broadcast signed by its sender and verified, the
//! agreement round run) but encrypts nothing and has no relay, sockets or processes. Beside the
//! same cell over the relay it says what the channels cost: the run's CPU time ([`Cpu`]) is this
//! process's, the parties' work alone.

use std::collections::BTreeMap;

use alibi_identity::IdentityKeyPair;
use alibi_mpc::endpoint::{Endpoint, Keygen, PrimeSource, Signing};
use alibi_mpc::local::{keygen_all, session, sign_all, Timing};
use alibi_mpc::transport::MemoryTransport;
use alibi_mpc::{Party, PartyIndex};
use getrandom::SysRng;
use rand_core::UnwrapErr;

use super::scheme::{process_cpu, Cpu, PrimeBank, Run, Setup};
use crate::Error;

/// Parties 1..=n with fresh identity keys, each an endpoint of one in-memory network.
fn endpoints(n: u16) -> Vec<Endpoint<MemoryTransport>> {
    let keys: Vec<IdentityKeyPair> = (0..n)
        .map(|_| IdentityKeyPair::generate(&mut UnwrapErr(SysRng)))
        .collect();
    let roster: BTreeMap<PartyIndex, _> = (1..=n).zip(keys.iter().map(|k| k.identity)).collect();
    MemoryTransport::network(&roster)
        .into_iter()
        .zip((1..=n).zip(keys))
        .map(|(transport, (index, identity))| {
            let party = Party {
                index,
                identity,
                roster: roster.clone(),
            };
            Endpoint::new(transport, party)
        })
        .collect()
}

/// One cell in memory: a first run and `later` more, each key generation by all n and signing
/// by the first t + 1 eligible; threshold ECDSA's party i takes the bank's i-th primes. No
/// requests or bytes are counted: nothing goes through a relay.
pub async fn measure(setup: &Setup, primes: &PrimeBank) -> Result<Vec<Run>, Error> {
    let Setup {
        scheme,
        n,
        t,
        later,
        timeout,
        ..
    } = *setup;
    let mut parties = endpoints(n);
    let everyone: Vec<PartyIndex> = (1..=n).collect();
    let mut runs = vec![];
    for _ in 0..=later {
        let mut bad = None;
        let mut source = |i: PartyIndex| {
            if !scheme.needs_primes() {
                return None;
            }
            let p = primes.primes(i).map_err(|e| bad = Some(e)).ok()?;
            Some(PrimeSource::Given(p))
        };
        let (keygen_session, start) = (session(1), process_cpu());
        let job = |i| Keygen {
            primes: source(i),
            ..Keygen::new(scheme, keygen_session, t, everyone.clone(), timeout)
        };
        let generated = keygen_all(parties, job).await;
        if let Some(e) = bad {
            return Err(e);
        }
        let (back, shares, keygen) = generated.map_err(Error::harness)?;
        let keygen_cpu = process_cpu().saturating_sub(start);
        let signers = shares[0].eligible_signers().into_iter().take(t + 1);
        let job = Signing::new(session(2), signers.collect(), timeout);
        let start = process_cpu();
        let (back, _, sign) = sign_all(back, &shares, &job, b"alibi bench")
            .await
            .map_err(Error::harness)?;
        parties = back;
        runs.push(Run {
            timing: Timing {
                keygen,
                sign,
                requests: 0,
            },
            bytes: 0,
            presign: None,
            cpu: Some(Cpu {
                keygen: keygen_cpu,
                presign: None,
                sign: process_cpu().saturating_sub(start),
            }),
        });
    }
    Ok(runs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use alibi_mpc::relay::Mode;
    use alibi_mpc::scheme::Scheme;
    use std::time::Duration;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn every_scheme_runs_in_memory_and_costs_cpu() {
        let bank = PrimeBank::fixtures().expect("the fixture primes");
        for (scheme, n) in [(Scheme::Bls, 3), (Scheme::FrostEd25519, 3)] {
            let setup = Setup {
                scheme,
                n,
                t: 1,
                mode: Mode::Group,
                later: 1,
                timeout: Duration::from_secs(60),
                presigned: false,
            };
            let runs = measure(&setup, &bank).await.expect("runs in memory");
            assert_eq!(runs.len(), 2, "{scheme}");
            for r in runs {
                let cpu = r.cpu.expect("measured");
                assert!(cpu.keygen > Duration::ZERO && cpu.sign > Duration::ZERO);
                assert_eq!((r.timing.requests, r.bytes), (0, 0));
            }
        }
    }
}
