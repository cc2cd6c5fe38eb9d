//! The life of a threshold key, step by step (docs/mpc.md, "The life of a key"): n parties
//! (t = n - 1), each a task of this process, over one relay with a delay per request, generate
//! a key and sign, then take every further step their scheme has (presign and sign with the
//! presignature; derive a child key and sign under it; refresh; move a BLS key to n + 1
//! parties), each step timed (the slowest party) with the requests and request bytes all
//! parties sent. The first life opens the sessions and sender keys the later ones reuse, so it
//! is reported apart from the median of the later lives, as the grid of [`super::measure`] does.

use std::collections::BTreeMap;
use std::future::Future;
use std::time::{Duration, Instant};

use alibi_mpc::dkg::Resharing;
use alibi_mpc::endpoint::{Endpoint, Keygen, PrimeSource, Signing};
use alibi_mpc::local::{endpoints, register_parties, session};
use alibi_mpc::relay::{Mode, RelayParty};
use alibi_mpc::scheme::{DerivationPath, Scheme, Share};
use alibi_mpc::PartyIndex;

use super::scheme::{bench_relay, traffic, PrimeBank};
use crate::measure::median_by;
use crate::Error;

/// One step of a key's life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Step {
    /// Key generation by all n parties.
    Generate,
    /// A signature by t + 1 of them under the group key.
    Sign,
    /// Threshold ECDSA: one presignature by the t + 1 signers.
    Presign,
    /// Threshold ECDSA: the signature with that presignature, one round.
    SignPresigned,
    /// The child public key at `m/0/7`, computed by one party alone (no request).
    Derive,
    /// A signature by t + 1 parties under that child key.
    SignDerived,
    /// New shares of the same key among the same n parties.
    Refresh,
    /// A BLS key moved to n + 1 parties (the n old ones and a new one), t kept.
    Reshare,
}

impl Step {
    /// As tables and JSON name it.
    pub fn name(self) -> &'static str {
        match self {
            Step::Generate => "generate",
            Step::Sign => "sign",
            Step::Presign => "presign",
            Step::SignPresigned => "sign, presigned",
            Step::Derive => "derive m/0/7",
            Step::SignDerived => "sign at m/0/7",
            Step::Refresh => "refresh",
            Step::Reshare => "reshare to n + 1",
        }
    }

    /// The steps a key of `scheme` takes in a measured life, in order.
    pub fn of(scheme: Scheme) -> Vec<Step> {
        let mut steps = vec![Step::Generate, Step::Sign];
        if scheme == Scheme::EcdsaSecp256k1 {
            steps.extend([Step::Presign, Step::SignPresigned]);
        }
        if scheme != Scheme::Bls {
            steps.extend([Step::Derive, Step::SignDerived]);
        }
        if scheme.refresh_refusal().is_none() {
            steps.push(Step::Refresh);
        }
        if scheme == Scheme::Bls {
            steps.push(Step::Reshare);
        }
        steps
    }
}

/// What one step cost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cost {
    /// From the start of the step to when its slowest party finished.
    pub time: Duration,
    /// Requests all parties sent to the relay.
    pub requests: u64,
    /// Bytes of the request bodies they sent.
    pub bytes: u64,
}

/// One measured step of one (scheme, n, delay).
#[derive(Clone, Copy, Debug)]
pub struct Row {
    /// The scheme.
    pub scheme: Scheme,
    /// Parties of the key.
    pub n: u16,
    /// Its threshold (n - 1).
    pub t: usize,
    /// Relay delay per request, ms.
    pub delay: u64,
    /// The step.
    pub step: Step,
    /// Its cost in the first life (sessions and sender keys set up on the way).
    pub first: Cost,
    /// The median of its cost in the later lives, by time.
    pub later: Cost,
}

/// What a life runs with.
#[derive(Clone, Copy, Debug)]
pub struct Setup {
    /// The scheme.
    pub scheme: Scheme,
    /// Parties of the key.
    pub n: u16,
    /// Relay delay per request, ms.
    pub delay: u64,
    /// Lives after the first.
    pub later: usize,
    /// How long a party waits for a round.
    pub timeout: Duration,
}

/// Lives `setup.later + 1` times over a fresh relay (group channels) and reports each step:
/// the first life's cost and the later lives' median. Threshold ECDSA's party i takes the
/// bank's i-th primes.
pub async fn measure(setup: Setup, primes: &PrimeBank) -> Result<Vec<Row>, Error> {
    let Setup {
        scheme,
        n,
        delay,
        later,
        ..
    } = setup;
    if n < 2 {
        return Err(Error::Run(format!("{n} parties: a key needs at least 2")));
    }
    let relay = bench_relay(delay).await?;
    // The reshare's new party is registered with the others, idle until then.
    let registered = if scheme == Scheme::Bls { n + 1 } else { n };
    let indices: Vec<u16> = (1..=registered).collect();
    let mut parties = endpoints(
        register_parties(&relay.url, &indices, Mode::Group)
            .await
            .map_err(Error::harness)?,
    );
    let mut lives = vec![];
    for _ in 0..=later {
        let (back, life) = live(parties, setup, primes).await?;
        parties = back;
        lives.push(life);
    }
    let first = lives.remove(0);
    let mut rows = vec![];
    for (i, &(step, cost)) in first.iter().enumerate() {
        let costs: Vec<Cost> = lives.iter().map(|l| l[i].1).collect();
        let median = median_by(costs, |c| c.time).unwrap_or(cost);
        rows.push(Row {
            scheme,
            n,
            t: usize::from(n) - 1,
            delay,
            step,
            first: cost,
            later: median,
        });
    }
    Ok(rows)
}

/// The endpoints, by index.
type Parties = Vec<Endpoint<RelayParty>>;

/// What a step gives back: the endpoints and each one's outcome.
type Ran<R> = (Parties, Vec<alibi_mpc::Result<R>>);

/// Runs `step` on each of `parties` at once, each in its own task; the endpoints back (in
/// index order), their outcomes (in the same order) and the time of the slowest.
async fn all<R, F, Fut>(parties: Parties, mut step: F) -> Result<(Ran<R>, Duration), Error>
where
    R: Send + 'static,
    F: FnMut(Endpoint<RelayParty>) -> Fut,
    Fut: Future<Output = (Endpoint<RelayParty>, alibi_mpc::Result<R>)> + Send + 'static,
{
    let start = Instant::now();
    let tasks: Vec<_> = parties
        .into_iter()
        .map(|e| {
            let run = step(e);
            tokio::spawn(async move {
                let (e, r) = run.await;
                (e, r, start.elapsed())
            })
        })
        .collect();
    let (mut back, mut outcomes, mut slowest) = (vec![], vec![], Duration::ZERO);
    for task in tasks {
        let (e, r, took) = task.await.map_err(Error::harness)?;
        back.push(e);
        outcomes.push(r);
        slowest = slowest.max(took);
    }
    Ok(((back, outcomes), slowest))
}

/// Every outcome, or the first party's error.
fn each<R>(outcomes: Vec<alibi_mpc::Result<R>>) -> Result<Vec<R>, Error> {
    outcomes
        .into_iter()
        .collect::<alibi_mpc::Result<Vec<R>>>()
        .map_err(Error::harness)
}

/// The endpoints in `parties` whose index is in `those`, and the rest.
fn split(parties: Parties, those: &[PartyIndex]) -> (Parties, Parties) {
    parties.into_iter().partition(|e| those.contains(&e.me()))
}

/// `a` and `b` together, in index order.
fn join(mut a: Parties, b: Parties) -> Parties {
    a.extend(b);
    a.sort_by_key(Endpoint::me);
    a
}

/// Records the cost of a step that ran from traffic `before` for `time`.
fn cost(parties: &[Endpoint<RelayParty>], before: (u64, u64), time: Duration) -> Cost {
    let after = traffic(parties);
    Cost {
        time,
        requests: after.0 - before.0,
        bytes: after.1 - before.1,
    }
}

/// The share of party `me`.
fn share_of(shares: &[Share], me: PartyIndex) -> Share {
    shares
        .iter()
        .find(|s| s.me() == me)
        .cloned()
        .expect("every party of the key has a share")
}

/// One life of a key: every step of [`Step::of`], in order, with its cost.
async fn live(
    parties: Parties,
    setup: Setup,
    primes: &PrimeBank,
) -> Result<(Parties, Vec<(Step, Cost)>), Error> {
    let Setup {
        scheme, n, timeout, ..
    } = setup;
    let t = usize::from(n) - 1;
    let holders: Vec<PartyIndex> = (1..=n).collect();
    let (parties, idle) = split(parties, &holders);
    let (parties, shares, generate) = keygen(parties, setup, primes).await?;
    let mut steps = vec![(Step::Generate, generate)];
    let signers: Vec<PartyIndex> = shares[0]
        .eligible_signers()
        .into_iter()
        .take(t + 1)
        .collect();
    let signing = Signing::new(session(2), signers.clone(), timeout);
    let (mut parties, c) = sign(parties, &shares, signing).await?;
    steps.push((Step::Sign, c));
    if scheme == Scheme::EcdsaSecp256k1 {
        let (back, [presign, online]) =
            presign_and_sign(parties, &shares, &signers, timeout).await?;
        parties = back;
        steps.extend([(Step::Presign, presign), (Step::SignPresigned, online)]);
    }
    if scheme != Scheme::Bls {
        let path = DerivationPath::new(vec![0, 7]).map_err(Error::harness)?;
        steps.push((Step::Derive, derive(&shares[0], &path)?));
        let job = Signing {
            path,
            ..Signing::new(session(5), signers, timeout)
        };
        let (back, c) = sign(parties, &shares, job).await?;
        parties = back;
        steps.push((Step::SignDerived, c));
    }
    if scheme.refresh_refusal().is_none() {
        let (back, c) = refresh(parties, &shares, &holders, timeout).await?;
        parties = back;
        steps.push((Step::Refresh, c));
    }
    if scheme == Scheme::Bls {
        let (back, c) = reshare(parties, idle, &shares, timeout).await?;
        steps.push((Step::Reshare, c));
        return Ok((back, steps));
    }
    Ok((join(parties, idle), steps))
}

/// Key generation by every one of `parties` (t = n - 1); threshold ECDSA's party i with the
/// bank's i-th primes.
async fn keygen(
    parties: Parties,
    setup: Setup,
    primes: &PrimeBank,
) -> Result<(Parties, Vec<Share>, Cost), Error> {
    let Setup {
        scheme, n, timeout, ..
    } = setup;
    let holders: Vec<PartyIndex> = (1..=n).collect();
    let run = session(1);
    let mut jobs = BTreeMap::new();
    for &i in &holders {
        let primes = match scheme.needs_primes() {
            true => Some(PrimeSource::Given(primes.primes(i)?)),
            false => None,
        };
        let keygen = Keygen {
            primes,
            ..Keygen::new(scheme, run, usize::from(n) - 1, holders.clone(), timeout)
        };
        jobs.insert(i, keygen);
    }
    let before = traffic(&parties);
    let ((back, outcomes), time) = all(parties, |mut e| {
        let job = jobs
            .remove(&e.me())
            .expect("a job for every party of the key");
        async move {
            let r = e.keygen(job).await;
            (e, r)
        }
    })
    .await?;
    let shares = each(outcomes)?;
    let c = cost(&back, before, time);
    Ok((back, shares, c))
}

/// Signing by `job.signers` with their shares; every endpoint back, and the cost.
async fn sign(parties: Parties, shares: &[Share], job: Signing) -> Result<(Parties, Cost), Error> {
    let before = traffic(&parties);
    let (signers, others) = split(parties, &job.signers);
    let ((back, outcomes), time) = all(signers, |mut e| {
        let (share, job) = (share_of(shares, e.me()), job.clone());
        async move {
            let r = e.sign(&share, &job, b"alibi life").await;
            (e, r)
        }
    })
    .await?;
    each(outcomes)?;
    let parties = join(back, others);
    let c = cost(&parties, before, time);
    Ok((parties, c))
}

/// One presignature by the signers, then the signature with it: two costs.
async fn presign_and_sign(
    parties: Parties,
    shares: &[Share],
    signers: &[PartyIndex],
    timeout: Duration,
) -> Result<(Parties, [Cost; 2]), Error> {
    let before = traffic(&parties);
    let (signing, others) = split(parties, signers);
    let job = Signing::new(session(3), signers.to_vec(), timeout);
    let ((back, outcomes), time) = all(signing, |mut e| {
        let (share, job) = (share_of(shares, e.me()), job.clone());
        async move {
            let r = e.presign(&share, &job).await.map(|p| (share, p));
            (e, r)
        }
    })
    .await?;
    let mut presigned: BTreeMap<PartyIndex, _> =
        back.iter().map(Endpoint::me).zip(each(outcomes)?).collect();
    let presign = cost(&back, before, time);
    let before = traffic(&back);
    let job = Signing::new(session(4), signers.to_vec(), timeout);
    let ((back, outcomes), time) = all(back, |mut e| {
        let (share, presig) = presigned.remove(&e.me()).expect("presigned above");
        let job = job.clone();
        async move {
            let r = e.sign_presigned(&share, presig, &job, b"alibi life").await;
            (e, r)
        }
    })
    .await?;
    each(outcomes)?;
    let sign = cost(&back, before, time);
    Ok((join(back, others), [presign, sign]))
}

/// The child key at `path` of `share`'s key, by its party alone: the time, and no traffic.
fn derive(share: &Share, path: &DerivationPath) -> Result<Cost, Error> {
    let start = Instant::now();
    share.public_key_at(path).map_err(Error::harness)?;
    Ok(Cost {
        time: start.elapsed(),
        requests: 0,
        bytes: 0,
    })
}

/// A refresh by every party of the key.
async fn refresh(
    parties: Parties,
    shares: &[Share],
    holders: &[PartyIndex],
    timeout: Duration,
) -> Result<(Parties, Cost), Error> {
    let before = traffic(&parties);
    let (scheme, t, run) = (shares[0].scheme(), shares[0].threshold(), session(6));
    let ((back, outcomes), time) = all(parties, |mut e| {
        let share = share_of(shares, e.me());
        let job = Keygen::new(scheme, run, t, holders.to_vec(), timeout);
        async move {
            let r = e.refresh(&share, job).await;
            (e, r)
        }
    })
    .await?;
    each(outcomes)?;
    let c = cost(&back, before, time);
    Ok((back, c))
}

/// A BLS key of the n `parties` moved to them and the `idle` party n + 1, t kept; every
/// endpoint back.
async fn reshare(
    parties: Parties,
    idle: Parties,
    shares: &[Share],
    timeout: Duration,
) -> Result<(Parties, Cost), Error> {
    let old = shares[0]
        .bls()
        .ok_or_else(|| Error::Run("a reshare of a bls key only".into()))?
        .key_set();
    let stay: BTreeMap<PartyIndex, PartyIndex> = parties.iter().map(|e| (e.me(), e.me())).collect();
    let everyone = join(parties, idle);
    let new_parties: Vec<PartyIndex> = everyone.iter().map(Endpoint::me).collect();
    let (t, run) = (shares[0].threshold(), session(7));
    let before = traffic(&everyone);
    let ((back, outcomes), time) = all(everyone, |mut e| {
        let mine = shares
            .iter()
            .find(|s| s.me() == e.me())
            .and_then(Share::bls);
        let resharing = Resharing::new(&old, stay.clone(), mine);
        let job = Keygen::new(Scheme::Bls, run, t, new_parties.clone(), timeout);
        async move {
            let r = match resharing {
                Ok(r) => {
                    let job = Keygen {
                        resharing: Some(r),
                        ..job
                    };
                    e.keygen(job).await
                }
                Err(err) => Err(err),
            };
            (e, r)
        }
    })
    .await?;
    each(outcomes)?;
    let c = cost(&back, before, time);
    Ok((back, c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_scheme_has_its_steps() {
        assert_eq!(
            Step::of(Scheme::Bls),
            [Step::Generate, Step::Sign, Step::Refresh, Step::Reshare]
        );
        assert_eq!(
            Step::of(Scheme::EcdsaSecp256k1),
            [
                Step::Generate,
                Step::Sign,
                Step::Presign,
                Step::SignPresigned,
                Step::Derive,
                Step::SignDerived
            ]
        );
        assert!(Step::of(Scheme::FrostEd25519).contains(&Step::Refresh));
    }

    /// BLS and FROST-Ed25519 at n = 3 with no delay, two lives each: every step that talks
    /// sends requests and bytes, derivation sends none, and the reshare reaches the new party.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_key_lives_every_step_of_its_scheme() {
        let bank = PrimeBank::fixtures().unwrap();
        for scheme in [Scheme::Bls, Scheme::FrostEd25519] {
            let setup = Setup {
                scheme,
                n: 3,
                delay: 0,
                later: 1,
                timeout: Duration::from_secs(60),
            };
            let rows = measure(setup, &bank).await.unwrap();
            let steps: Vec<Step> = rows.iter().map(|r| r.step).collect();
            assert_eq!(steps, Step::of(scheme));
            for r in &rows {
                let talks = r.step != Step::Derive;
                assert_eq!(r.later.requests > 0, talks, "{r:?}");
                assert_eq!(r.later.bytes > 0, talks, "{r:?}");
            }
        }
    }
}
