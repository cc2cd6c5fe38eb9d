//! The protocols the MPC grid measures: alibi's threshold BLS, and the threshold signatures of
//! established crates that run over [`alibi_mpc::net`] (FROST, CGGMP24 ECDSA), each party a task
//! of this process ([`crate::mpc::measure`]) or its own process ([`crate::mpc_processes`]).
//!
//! Threshold ECDSA's key generation needs two safe primes per party. Finding them takes tens of
//! seconds to minutes per party and needs no other party, so it is not part of the timed key
//! generation: a [`PrimeBank`] holds them before anything is timed (the five test-only fixtures
//! of `alibi-threshold-ecdsa`, and primes generated ahead for larger n), and every run of party
//! i uses the bank's i-th set of primes (bench primes, never a real key's).

use core::str::FromStr;
use std::time::{Duration, Instant};

use alibi_mpc::net::{Net, NetConfig};
use alibi_mpc::relay::{Mode, RelayParty};
use alibi_mpc::threshold::{self, PrimeProgress, Primes, Share};
use alibi_mpc::PartyIndex;
use getrandom::SysRng;
use rand_core::{Rng, UnwrapErr};

pub use alibi_mpc::local::Timing;

use crate::Error;

/// A protocol of the grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scheme {
    /// alibi's threshold BLS (its DKG and signing).
    Bls,
    /// A threshold signature of an established crate, through the round-based adapter.
    Threshold(threshold::Scheme),
}

impl Scheme {
    /// Every scheme, BLS first.
    pub const ALL: [Scheme; 4] = [
        Scheme::Bls,
        Scheme::Threshold(threshold::Scheme::FrostEd25519),
        Scheme::Threshold(threshold::Scheme::FrostSecp256k1Tr),
        Scheme::Threshold(threshold::Scheme::EcdsaSecp256k1),
    ];

    /// The name on the command line and in CSVs.
    pub fn name(self) -> &'static str {
        match self {
            Scheme::Bls => "bls",
            Scheme::Threshold(s) => s.name(),
        }
    }

    /// Whether its key generation takes safe primes (threshold ECDSA).
    pub fn needs_primes(self) -> bool {
        self == Scheme::Threshold(threshold::Scheme::EcdsaSecp256k1)
    }
}

impl core::fmt::Display for Scheme {
    fn fmt(&self, f: &mut core::fmt::Formatter) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Scheme {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Error> {
        Scheme::ALL
            .into_iter()
            .find(|x| x.name() == s)
            .ok_or_else(|| Error::Run(format!("no MPC scheme named {s}")))
    }
}

/// One run's times and traffic.
#[derive(Clone, Copy, Debug)]
pub struct Run {
    /// Key generation and signing times, and relay requests.
    pub timing: Timing,
    /// Bytes of request bodies the parties sent to the relay during both, in total.
    pub bytes: u64,
}

/// The test-only safe primes of `alibi-threshold-ecdsa` (five parties' worth).
const FIXTURE_PRIMES: &str = include_str!("../../alibi-threshold-ecdsa/tests/vectors/primes.hex");

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
            let primes = threshold::generate_primes(|p| progress(which, p));
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
        Primes::from_bytes(bytes).map_err(run)
    }
}

fn run(e: impl std::fmt::Display) -> Error {
    Error::Run(e.to_string())
}

fn session(tag: u8) -> [u8; 16] {
    let mut s = [0u8; 16];
    UnwrapErr(SysRng).fill_bytes(&mut s);
    s[0] = tag;
    s
}

/// What the parties have sent so far: (requests, bytes).
fn traffic(parties: &[RelayParty]) -> (u64, u64) {
    parties
        .iter()
        .fold((0, 0), |(r, b), p| (r + p.requests(), b + p.sent_bytes()))
}

/// One cell of BLS with the parties as tasks: fresh parties on `url`, a first run and `later`
/// more (as [`alibi_mpc::local::measure`], with the bytes sent).
pub async fn measure_bls(
    url: &str,
    n: u16,
    t: usize,
    mode: Mode,
    later: usize,
    timeout: Duration,
) -> Result<Vec<Run>, Error> {
    let indices: Vec<u16> = (1..=n).collect();
    let mut parties = alibi_mpc::local::register_parties(url, &indices, mode)
        .await
        .map_err(run)?;
    let mut runs = vec![];
    for _ in 0..=later {
        let (_, before) = traffic(&parties);
        let (p, _, _, timing) =
            alibi_mpc::local::keygen_and_sign(parties, t, b"alibi bench", timeout)
                .await
                .map_err(run)?;
        parties = p;
        let bytes = traffic(&parties).1 - before;
        runs.push(Run { timing, bytes });
    }
    Ok(runs)
}

/// One cell of a threshold scheme with the parties as tasks: fresh parties on `url`, a first
/// run and `later` more; key generation by all n (t = n - 1), signing by all n (t + 1 = n).
#[allow(clippy::too_many_arguments)]
pub async fn measure_threshold(
    url: &str,
    scheme: threshold::Scheme,
    n: u16,
    t: usize,
    mode: Mode,
    later: usize,
    timeout: Duration,
    primes: &PrimeBank,
) -> Result<Vec<Run>, Error> {
    let indices: Vec<u16> = (1..=n).collect();
    let mut parties = alibi_mpc::local::register_parties(url, &indices, mode)
        .await
        .map_err(run)?;
    let config = NetConfig {
        timeout,
        reliable: false,
    };
    let mut runs = vec![];
    for _ in 0..=later {
        let before = traffic(&parties);
        let mut inputs = vec![];
        for p in parties {
            let me = alibi_mpc::transport::Transport::me(&p);
            let input = match scheme {
                threshold::Scheme::EcdsaSecp256k1 => Input::Primes(primes.primes(me)?),
                _ => Input::None,
            };
            inputs.push((p, input));
        }
        let (done, keygen) = all(inputs, session(1), config, Op::Keygen(scheme, t)).await?;
        let (done, sign) = all(done, session(2), config, Op::Sign).await?;
        parties = done.into_iter().map(|(p, _)| p).collect();
        let after = traffic(&parties);
        runs.push(Run {
            timing: Timing {
                keygen,
                sign,
                requests: after.0 - before.0,
            },
            bytes: after.1 - before.1,
        });
    }
    Ok(runs)
}

/// What a party takes into an [`Op`] and comes out with.
pub(crate) enum Input {
    /// Nothing (FROST's key generation).
    None,
    /// The safe primes of one ECDSA key generation.
    Primes(Primes),
    /// The share to sign with.
    Share(Share),
}

/// A step of a threshold scheme.
#[derive(Clone, Copy)]
pub(crate) enum Op {
    /// Key generation of this scheme with this t.
    Keygen(threshold::Scheme, usize),
    /// Signing by every participant.
    Sign,
}

/// Party `party`'s part of `op` in run `session` among `participants`; the party comes back for
/// the next run, with its share.
pub(crate) async fn one(
    party: RelayParty,
    input: Input,
    session: alibi_mpc::SessionId,
    participants: &[PartyIndex],
    config: NetConfig,
    op: Op,
) -> Result<(RelayParty, Input), Error> {
    let identity = party.party();
    let net = Net::new(party, identity, session, participants, config).map_err(run)?;
    let out = match (op, input) {
        (Op::Keygen(scheme, t), input) => {
            let primes = match input {
                Input::Primes(p) => Some(p),
                _ => None,
            };
            let share = threshold::keygen(&net, scheme, t, primes, &mut |_| {}).await;
            Input::Share(share.map_err(run)?)
        }
        (Op::Sign, Input::Share(share)) => {
            threshold::sign(&net, &share, b"alibi bench")
                .await
                .map_err(run)?;
            Input::Share(share)
        }
        (Op::Sign, _) => return Err(Error::Run("no share to sign with".into())),
    };
    let party = net
        .into_transport()
        .map_err(|_| Error::Run("the run's net is still in use".into()))?;
    Ok((party, out))
}

/// Every party does `op` at once, each in its own task; returns them in order and the time of
/// the slowest.
async fn all(
    parties: Vec<(RelayParty, Input)>,
    session: alibi_mpc::SessionId,
    config: NetConfig,
    op: Op,
) -> Result<(Vec<(RelayParty, Input)>, Duration), Error> {
    let indices: Vec<PartyIndex> = parties
        .iter()
        .map(|(p, _)| alibi_mpc::transport::Transport::me(p))
        .collect();
    let start = Instant::now();
    let mut tasks = vec![];
    for (p, input) in parties {
        let indices = indices.clone();
        tasks.push(tokio::spawn(async move {
            let r = one(p, input, session, &indices, config, op).await;
            r.map(|x| (x, start.elapsed()))
        }));
    }
    let (mut out, mut slowest) = (vec![], Duration::ZERO);
    for task in tasks {
        let (x, took) = task.await.map_err(run)??;
        out.push(x);
        slowest = slowest.max(took);
    }
    Ok((out, slowest))
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

    #[test]
    fn schemes_by_name() {
        for s in Scheme::ALL {
            assert_eq!(s.name().parse::<Scheme>().unwrap(), s);
        }
        assert!("rsa".parse::<Scheme>().is_err());
    }

    /// FROST-Ed25519 (two runs, group and sequential pairwise) and threshold ECDSA (one run,
    /// group: its key generation alone takes seconds), n = 3, tasks over a relay: the group
    /// channel sends fewer requests than pairwise.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn threshold_schemes_run_for_three_tasks() {
        let relay = alibi_relay::local::LocalRelay::start(Default::default())
            .await
            .unwrap();
        let bank = PrimeBank::fixtures().unwrap();
        let timeout = Duration::from_secs(120);
        let frost = threshold::Scheme::FrostEd25519;
        let mut requests = vec![];
        for mode in [Mode::Group, Mode::Pairwise] {
            let runs = measure_threshold(&relay.url, frost, 3, 2, mode, 1, timeout, &bank)
                .await
                .unwrap();
            assert_eq!(runs.len(), 2);
            assert!(runs.iter().all(|r| r.timing.requests > 0 && r.bytes > 0));
            requests.push(runs[1].timing.requests);
        }
        assert!(requests[0] < requests[1], "{requests:?}");
        let ecdsa = threshold::Scheme::EcdsaSecp256k1;
        let runs = measure_threshold(&relay.url, ecdsa, 3, 2, Mode::Group, 0, timeout, &bank)
            .await
            .unwrap();
        assert!(runs[0].bytes > 100_000, "{runs:?}");
    }
}
