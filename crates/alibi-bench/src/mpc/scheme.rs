//! The protocols the MPC grid measures: alibi's threshold BLS, and the threshold signatures of
//! established crates that run over [`alibi_mpc::net`] (FROST, CGGMP24 ECDSA), each party a task
//! of this process ([`crate::mpc::measure`]) or its own process ([`crate::mpc::processes`]).
//!
//! Threshold ECDSA's key generation needs two safe primes per party. Finding them takes tens of
//! seconds to minutes per party and needs no other party, so it is not part of the timed key
//! generation: a [`PrimeBank`] holds them before anything is timed (the five test-only fixtures
//! of `alibi-threshold-ecdsa`, and primes generated ahead for larger n), and every run of party
//! i uses the bank's i-th set of primes (bench primes, never a real key's).

use std::time::Duration;

use alibi_mpc::endpoint::{Endpoint, PrimeSource};
use alibi_mpc::local::{endpoints, keygen_and_sign, register_parties};
use alibi_mpc::relay::{Mode, RelayParty};
use alibi_mpc::scheme::{generate_primes, PrimeProgress, Primes};
use alibi_mpc::PartyIndex;
use alibi_relay::local::LocalRelay;

pub use alibi_mpc::local::Timing;

use crate::Error;

pub use alibi_mpc::scheme::Scheme;

/// One run's times and traffic.
#[derive(Clone, Copy, Debug)]
pub struct Run {
    /// Key generation and signing times, and relay requests.
    pub timing: Timing,
    /// Bytes of request bodies the parties sent to the relay during both, in total.
    pub bytes: u64,
    /// With [`Setup::presigned`], the presigning between key generation and signing (whose
    /// time is then the online signing's, with the presignature).
    pub presign: Option<Duration>,
    /// The CPU time the run cost, where it was measured (party processes and in-memory runs).
    pub cpu: Option<Cpu>,
}

/// The CPU time (user and system, every thread) one run cost: with party processes, all the
/// parties' and this process's, which runs the relay; in memory, this process's.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Cpu {
    /// Key generation (zero where the run generated no key).
    pub keygen: Duration,
    /// Presigning, with [`Setup::presigned`].
    pub presign: Option<Duration>,
    /// Signing (online signing, with [`Setup::presigned`]).
    pub sign: Duration,
}

/// The CPU time this process has used so far, all its threads, user and system.
pub fn process_cpu() -> Duration {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ProcessCPUTime);
    Duration::new(
        u64::try_from(t.tv_sec).unwrap_or(0),
        u32::try_from(t.tv_nsec).unwrap_or(0),
    )
}

/// What one cell runs, whether the parties are tasks or processes.
#[derive(Clone, Copy, Debug)]
pub struct Setup {
    /// The protocol.
    pub scheme: Scheme,
    /// Parties.
    pub n: u16,
    /// Threshold.
    pub t: usize,
    /// Transport.
    pub mode: Mode,
    /// Runs after the first.
    pub later: usize,
    /// Round timeout.
    pub timeout: Duration,
    /// Threshold ECDSA, parties as processes: sign with a presignature made after key
    /// generation (its time apart), in one round; the key is generated in the first run only.
    pub presigned: bool,
}

/// The test-only safe primes of `alibi-threshold-ecdsa` (five parties' worth).
const FIXTURE_PRIMES: &str =
    include_str!("../../../alibi-threshold-ecdsa/tests/vectors/primes.hex");

/// Safe primes per party for threshold ECDSA, made before anything is timed.
#[derive(Clone, Default)]
pub struct PrimeBank {
    /// Party i's primes are entry i - 1, as [`Primes::to_bytes`] encodes it.
    encoded: Vec<Vec<u8>>,
    /// How many of them were generated here rather than taken from the fixtures.
    generated: usize,
}

impl PrimeBank {
    /// The five fixture sets.
    pub fn fixtures() -> Result<Self, Error> {
        let mut bank = Self::default();
        bank.extend_from_hex(FIXTURE_PRIMES)?;
        Ok(bank)
    }

    /// Adds the sets of `text`, one [`Primes::to_bytes`] encoding in hex per line (as the
    /// `pregenerate_primes` example of `alibi-threshold-ecdsa` prints them), after those held;
    /// every set is decoded first, so a bad line adds nothing.
    pub fn extend_from_hex(&mut self, text: &str) -> Result<(), Error> {
        let mut pairs = vec![];
        for (number, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() {
                continue;
            }
            let bytes = hex::decode(line)
                .ok()
                .filter(|b| Primes::from_bytes(b).is_ok())
                .ok_or_else(|| {
                    Error::Run(format!(
                        "line {}: not a party's safe primes in hex",
                        number + 1
                    ))
                })?;
            pairs.push(bytes);
        }
        self.encoded.extend(pairs);
        Ok(())
    }

    /// Pairs held.
    pub fn len(&self) -> usize {
        self.encoded.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.encoded.is_empty()
    }

    /// How many sets were generated ahead rather than taken from the fixtures.
    pub fn generated(&self) -> usize {
        self.generated
    }

    /// Generates sets until there are `n` (slow, untimed); `progress` hears of each set
    /// (its number, 1-based) and of the search.
    pub fn fill(&mut self, n: usize, progress: &mut dyn FnMut(usize, PrimeProgress)) {
        while self.encoded.len() < n {
            let which = self.encoded.len() + 1;
            let primes = generate_primes(|p| progress(which, p));
            self.encoded.push(primes.to_bytes().to_vec());
            self.generated += 1;
        }
    }

    /// Party `index`'s primes (1-based), encoded.
    pub fn encoded(&self, index: PartyIndex) -> Option<&[u8]> {
        self.encoded
            .get(usize::from(index).checked_sub(1)?)
            .map(Vec::as_slice)
    }

    /// Party `index`'s primes, decoded for one key generation.
    pub fn primes(&self, index: PartyIndex) -> Result<Primes, Error> {
        let bytes = self
            .encoded(index)
            .ok_or_else(|| Error::Run(format!("no safe primes for party {index}")))?;
        Primes::from_bytes(bytes).map_err(Error::harness)
    }
}

/// A relay on loopback that waits `delay` ms before answering each request, its limits
/// lifted for a bench's parties: every party connects from loopback, so no per-address
/// connection cap, and their accounts (up to 64 made at once) and bundle fetches (each
/// party's by all the others) all come from there.
pub async fn bench_relay(delay: u64) -> Result<LocalRelay, Error> {
    use alibi_relay::server::{AddressLimits, Config, Rate};
    LocalRelay::start(Config {
        delay: Duration::from_millis(delay),
        max_connections_per_address: usize::MAX,
        prekey_fetches_per_target: Rate::new(u32::MAX, 1e9),
        per_address: AddressLimits {
            account_creations: Rate::new(u32::MAX, 1e9),
            ..Default::default()
        },
        ..Config::default()
    })
    .await
    .map_err(Error::harness)
}

/// What the parties have sent so far: (requests, bytes).
pub(crate) fn traffic(parties: &[Endpoint<RelayParty>]) -> (u64, u64) {
    parties
        .iter()
        .filter_map(Endpoint::transport)
        .fold((0, 0), |(r, b), p| (r + p.requests(), b + p.sent_bytes()))
}

/// One cell with the parties as tasks: fresh parties on `url`, a first run and `later` more;
/// key generation by all n, signing by t + 1 (all n when t = n - 1). Threshold ECDSA's party i
/// takes the bank's i-th primes.
pub async fn measure(url: &str, setup: &Setup, primes: &PrimeBank) -> Result<Vec<Run>, Error> {
    let Setup {
        scheme,
        n,
        t,
        mode,
        later,
        timeout,
        ..
    } = *setup;
    let indices: Vec<u16> = (1..=n).collect();
    let mut parties = endpoints(
        register_parties(url, &indices, mode)
            .await
            .map_err(Error::harness)?,
    );
    let mut runs = vec![];
    for _ in 0..=later {
        let before = traffic(&parties);
        let mut bad = None;
        let primes = |i: PartyIndex| {
            if !scheme.needs_primes() {
                return None;
            }
            let p = primes.primes(i).map_err(|e| bad = Some(e)).ok()?;
            Some(PrimeSource::Given(p))
        };
        let ran = keygen_and_sign(parties, (scheme, t), b"alibi bench", timeout, primes).await;
        if let Some(e) = bad {
            return Err(e);
        }
        let (back, _, _, timing) = ran.map_err(Error::harness)?;
        parties = back;
        let after = traffic(&parties);
        runs.push(Run {
            timing: Timing {
                requests: after.0 - before.0,
                ..timing
            },
            bytes: after.1 - before.1,
            presign: None,
            cpu: None,
        });
    }
    Ok(runs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fixture_primes_decode() {
        let bank = PrimeBank::fixtures().unwrap();
        assert_eq!(bank.len(), 5);
        assert!(bank.primes(5).is_ok());
        assert!(bank.primes(6).is_err());
        assert!(bank.primes(0).is_err());
    }

    #[test]
    fn more_primes_come_from_hex_lines_and_a_bad_line_adds_none() {
        let mut bank = PrimeBank::fixtures().unwrap();
        let first = hex::encode(bank.encoded(1).unwrap());
        bank.extend_from_hex(&format!("\n{first}\n\n")).unwrap();
        assert_eq!(bank.len(), 6);
        assert_eq!(bank.encoded(6), bank.encoded(1));
        for bad in [format!("{first}\nzz"), format!("{first}\n{}", &first[2..])] {
            assert!(bank.extend_from_hex(&bad).is_err());
            assert_eq!(bank.len(), 6);
        }
    }

    /// FROST-Ed25519 (two runs, group and sequential pairwise, n = 3) and threshold ECDSA (one
    /// run, group, n = 2, t = 1: its key generation takes seconds a party), tasks over a relay:
    /// the group channel sends fewer requests than pairwise.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn threshold_schemes_run_for_three_tasks() {
        let relay = alibi_relay::local::LocalRelay::start(Default::default())
            .await
            .unwrap();
        let bank = PrimeBank::fixtures().unwrap();
        let timeout = Duration::from_secs(120);
        let frost = Scheme::FrostEd25519;
        let mut requests = vec![];
        for mode in [Mode::Group, Mode::Pairwise] {
            let setup = Setup {
                scheme: frost,
                n: 3,
                t: 2,
                mode,
                later: 1,
                timeout,
                presigned: false,
            };
            let runs = measure(&relay.url, &setup, &bank).await.unwrap();
            assert_eq!(runs.len(), 2);
            assert!(runs.iter().all(|r| r.timing.requests > 0 && r.bytes > 0));
            requests.push(runs[1].timing.requests);
        }
        assert!(requests[0] < requests[1], "{requests:?}");
        let ecdsa = Scheme::EcdsaSecp256k1;
        let setup = Setup {
            scheme: ecdsa,
            n: 2,
            t: 1,
            mode: Mode::Group,
            later: 0,
            timeout,
            presigned: false,
        };
        let runs = measure(&relay.url, &setup, &bank).await.unwrap();
        assert!(runs[0].bytes > 100_000, "{runs:?}");
    }
}
