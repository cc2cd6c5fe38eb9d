//! One cell of the MPC grid with every party its own OS process, as the paper ran them. The bench
//! starts n party processes (the CLI: itself, `alibi mpc bench-party`, through a [`Launch`]) and
//! drives them over their stdin and stdout, one JSON line at a time:
//!
//! 1. each party registers (a messenger in memory) and prints its contact card;
//! 2. the bench sends every party the group file, and for threshold ECDSA `{"primes": [..]}`,
//!    its safe primes (made before anything is timed, [`crate::mpc::scheme::PrimeBank`]);
//! 3. per run, the bench sends `{"keygen": r}` to all at once and reads each party's time (and
//!    CPU time, which with this process's own, the relay's, makes the run's [`Cpu`]), then
//!    `{"sign": [r, [signers]]}` likewise; the run's time is the slowest party's, its requests
//!    and bytes the sum of the parties'. Each party also reports when it sent each round, from
//!    which [`steps`] makes the run's time per round ([`crate::mpc::Progress::Rounds`]). With
//!    presignatures ([`Setup::presigned`]), `{"presign": [r, [signers]]}` comes between the
//!    two, and `{"sign_presigned": [r, [signers]]}` signs with what it made, in one round; the
//!    key is then generated in the first run only (the later runs' key generation reads 0).
//!
//! [`party`] is the other end, what a party process runs.

use std::process::Stdio;
use std::time::{Duration, Instant};

use alibi_messenger::{ContactCard, Messenger, Options};
use alibi_mpc::endpoint::{Endpoint, Keygen, PrimeSource, Signing};
use alibi_mpc::group::GroupFile;
use alibi_mpc::local::Timing;
use alibi_mpc::relay::{Mode, RelayParty};
use alibi_mpc::scheme::{Presignature, Primes, Share};
use alibi_mpc::transport::{Mailbox, Outgoing, Packet, Transport, Waiting};
use alibi_mpc::{PartyIndex, SessionId};
use getrandom::SysRng;
use rand_core::{Rng, UnwrapErr};
use serde::{Deserialize, Serialize};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout};

use super::rounds::{steps, Phase, Step};
use super::scheme::{process_cpu, Cpu, PrimeBank, Run, Scheme, Setup};
use crate::Error;

/// What one party process is started for.
#[derive(Clone, Copy, Debug)]
pub struct PartyArgs<'a> {
    /// The relay's URL.
    pub relay: &'a str,
    /// The party's index, 1 to n.
    pub index: PartyIndex,
    /// The transport.
    pub mode: Mode,
    /// Round timeout.
    pub timeout: Duration,
    /// The protocol.
    pub scheme: Scheme,
}

/// How to start one party process: a command that runs [`party`] with these arguments (its
/// standard streams are set by the bench). The CLI passes its own binary, so that this crate
/// needs no path to it.
pub type Launch<'a> = dyn Fn(&PartyArgs) -> std::process::Command + 'a;

/// What the bench tells a party.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Order {
    Primes(Vec<u8>),
    Keygen(u32),
    Sign(u32, Vec<PartyIndex>),
    Presign(u32, Vec<PartyIndex>),
    SignPresigned(u32, Vec<PartyIndex>),
}

/// What a party answers.
#[derive(Serialize, Deserialize, Default)]
struct Report {
    ms: f64,
    requests: u64,
    #[serde(default)]
    bytes: u64,
    eligible: Vec<PartyIndex>,
    error: Option<String>,
    /// When this party first sent each round, ms after the order came, in sending order.
    #[serde(default)]
    sent: Vec<(u16, f64)>,
    /// The CPU time this party process spent on the order, ms.
    #[serde(default)]
    cpu_ms: f64,
}

struct Party {
    _child: Child,
    stdin: ChildStdin,
    stdout: Lines<BufReader<ChildStdout>>,
}

impl Party {
    async fn line(&mut self, who: PartyIndex) -> Result<String, Error> {
        self.stdout
            .next_line()
            .await
            .map_err(Error::harness)?
            .ok_or_else(|| Error::Run(format!("bench party {who} exited")))
    }

    async fn send(&mut self, line: &str) -> Result<(), Error> {
        self.stdin
            .write_all(format!("{line}\n").as_bytes())
            .await
            .map_err(Error::harness)
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Hears each run's time per round of one phase as soon as it is measured: the run (0 for the
/// first), the phase and its rounds ([`crate::mpc::rounds`]).
pub type OnRounds<'a> = dyn FnMut(u32, Phase, Vec<Step>) + 'a;

/// One cell with every party a process: the first run and `later` more, in order. Each run's
/// time per round goes to `on_rounds` as it comes (BLS only: the other schemes run their own
/// crates' rounds).
pub async fn measure(
    launch: &Launch<'_>,
    url: &str,
    setup: &Setup,
    primes: &PrimeBank,
    on_rounds: &mut OnRounds<'_>,
) -> Result<Vec<Run>, Error> {
    let Setup {
        scheme,
        n,
        t,
        mode,
        later,
        timeout,
        presigned,
    } = *setup;
    let mut parties = vec![];
    for index in 1..=n {
        let args = PartyArgs {
            relay: url,
            index,
            mode,
            timeout,
            scheme,
        };
        parties.push(start(launch, &args)?);
    }
    let mut cards = vec![];
    for (i, p) in parties.iter_mut().enumerate() {
        let line = p.line(i as PartyIndex + 1).await?;
        cards.push(ContactCard::from_json(&line).map_err(Error::harness)?);
    }
    let mut id = [0u8; 16];
    UnwrapErr(SysRng).fill_bytes(&mut id);
    let group = GroupFile::new(t, cards, uuid::Uuid::from_bytes(id)).map_err(Error::harness)?;
    let group_line = serde_json::to_string(&group).map_err(Error::harness)?;
    for (i, p) in parties.iter_mut().enumerate() {
        p.send(&group_line).await?;
        if scheme.needs_primes() {
            let index = i as PartyIndex + 1;
            let mine = primes
                .encoded(index)
                .ok_or_else(|| Error::Run(format!("no safe primes for party {index}")))?;
            let order =
                serde_json::to_string(&Order::Primes(mine.to_vec())).map_err(Error::harness)?;
            p.send(&order).await?;
        }
    }
    let mut runs = vec![];
    let mut signers: Vec<PartyIndex> = vec![];
    for r in 0..=later as u32 {
        // With presignatures the key is generated once, in the first run: presignatures are
        // made for a key that exists, and the later runs time presigning and online signing.
        let (mut keygen, mut requests, mut bytes) = (Duration::ZERO, 0, 0);
        let mut cpu = Cpu::default();
        if r == 0 || !presigned {
            let (reports, spent) = phase(&mut parties, &Order::Keygen(r)).await?;
            cpu.keygen = spent;
            rounds(on_rounds, r, Phase::Keygen, &reports);
            keygen = slowest(&reports);
            requests = reports.iter().map(|x| x.requests).sum();
            bytes = reports.iter().map(|x| x.bytes).sum();
            // t + 1 signers, the first eligible of the group.
            signers = reports[0].eligible.iter().copied().take(t + 1).collect();
        }
        let mut presign = None;
        let sign = if presigned {
            let (reports, spent) = phase(&mut parties, &Order::Presign(r, signers.clone())).await?;
            presign = Some(slowest(&reports));
            cpu.presign = Some(spent);
            requests += reports.iter().map(|x| x.requests).sum::<u64>();
            bytes += reports.iter().map(|x| x.bytes).sum::<u64>();
            Order::SignPresigned(r, signers.clone())
        } else {
            Order::Sign(r, signers.clone())
        };
        let (reports, spent) = phase(&mut parties, &sign).await?;
        cpu.sign = spent;
        rounds(on_rounds, r, Phase::Sign, &reports);
        requests += reports.iter().map(|x| x.requests).sum::<u64>();
        bytes += reports.iter().map(|x| x.bytes).sum::<u64>();
        runs.push(Run {
            timing: Timing {
                keygen,
                sign: slowest(&reports),
                requests,
            },
            bytes,
            presign,
            cpu: Some(cpu),
        });
    }
    Ok(runs)
}

/// Starts one party process with piped stdin and stdout.
fn start(launch: &Launch<'_>, args: &PartyArgs) -> Result<Party, Error> {
    let mut child = tokio::process::Command::from(launch(args))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .map_err(Error::harness)?;
    let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        return Err(Error::Run("bench party without pipes".into()));
    };
    Ok(Party {
        _child: child,
        stdin,
        stdout: BufReader::new(stdout).lines(),
    })
}

/// Tells `on_rounds` run `run`'s time per round of `phase`, when its parties sent any.
fn rounds(on_rounds: &mut OnRounds<'_>, run: u32, phase: Phase, reports: &[Report]) {
    let end = reports.iter().map(|r| r.ms).fold(0.0, f64::max);
    let steps = steps(reports.iter().map(|r| &r.sent[..]), end);
    if !steps.is_empty() {
        on_rounds(run, phase, steps);
    }
}

/// A party's transport that notes when each round is first sent ([`Report::sent`]).
struct Timed {
    inner: RelayParty,
    start: Instant,
    sent: Vec<(u16, f64)>,
}

impl Timed {
    fn new(inner: RelayParty) -> Self {
        Timed {
            inner,
            start: Instant::now(),
            sent: vec![],
        }
    }

    /// Times from now, with nothing sent.
    fn restart(&mut self) {
        self.start = Instant::now();
        self.sent.clear();
    }
}

#[async_trait::async_trait]
impl Transport for Timed {
    fn me(&self) -> PartyIndex {
        self.inner.me()
    }

    fn mailbox(&self) -> &Mailbox {
        self.inner.mailbox()
    }

    async fn send(&mut self, out: Outgoing) -> alibi_mpc::Result<()> {
        if !self.sent.iter().any(|(r, _)| *r == out.round) {
            self.sent.push((out.round, ms(self.start.elapsed())));
        }
        self.inner.send(out).await
    }

    async fn send_packet(
        &mut self,
        session: SessionId,
        round: u16,
        to: PartyIndex,
        packet: Packet,
    ) -> alibi_mpc::Result<()> {
        self.inner.send_packet(session, round, to, packet).await
    }

    async fn send_each(
        &mut self,
        session: SessionId,
        round: u16,
        to: &[PartyIndex],
        packet: Packet,
    ) {
        self.inner.send_each(session, round, to, packet).await
    }

    fn waiting(&mut self, waiting: &Waiting) {
        self.inner.waiting(waiting);
    }
}

fn slowest(reports: &[Report]) -> Duration {
    Duration::from_secs_f64(reports.iter().map(|r| r.ms).fold(0.0, f64::max) / 1e3)
}

/// Sends `order` to every party at once and collects their reports, with the CPU time the
/// phase cost: every party's and this process's (the relay's).
async fn phase(parties: &mut [Party], order: &Order) -> Result<(Vec<Report>, Duration), Error> {
    let relay = process_cpu();
    let line = serde_json::to_string(order).map_err(Error::harness)?;
    for p in parties.iter_mut() {
        p.send(&line).await?;
    }
    let mut out = vec![];
    for (i, p) in parties.iter_mut().enumerate() {
        let who = i as PartyIndex + 1;
        let r: Report = serde_json::from_str(&p.line(who).await?).map_err(Error::harness)?;
        if let Some(e) = r.error {
            return Err(Error::Run(format!("bench party {who}: {e}")));
        }
        out.push(r);
    }
    let relay = process_cpu().saturating_sub(relay);
    let parties: f64 = out.iter().map(|r| r.cpu_ms).sum();
    Ok((out, relay + Duration::from_secs_f64(parties.max(0.0) / 1e3)))
}

/// One party process: registers on `relay`, prints its card, reads the group file, then answers
/// orders on stdin until it closes. Returns when the bench closes stdin.
pub fn party(
    relay: &str,
    index: PartyIndex,
    mode: Mode,
    timeout: Duration,
    scheme: Scheme,
) -> Result<(), Error> {
    // One thread per party: n processes share the machine's cores.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(Error::harness)?;
    rt.block_on(async {
        let messenger = Messenger::ephemeral(relay, &format!("party-{index}"), &Options::default())
            .await
            .map_err(Error::harness)?;
        let mut out = tokio::io::stdout();
        let mut input = BufReader::new(tokio::io::stdin()).lines();
        say(
            &mut out,
            serde_json::to_string(&messenger.card()).map_err(Error::harness)?,
        )
        .await?;
        let Some(line) = input.next_line().await.map_err(Error::harness)? else {
            return Ok(());
        };
        let group: GroupFile = serde_json::from_str(&line).map_err(Error::harness)?;
        let party = RelayParty::new(messenger, index, &group.members(), group.group_id, mode)
            .map_err(Error::harness)?;
        let identity = party.party();
        let mut state = State {
            endpoint: Endpoint::new(Timed::new(party), identity),
            share: None,
            primes: None,
            presignature: None,
        };
        while let Some(line) = input.next_line().await.map_err(Error::harness)? {
            let order: Order = serde_json::from_str(&line).map_err(Error::harness)?;
            if let Order::Primes(p) = order {
                state.primes = Some(p);
                continue;
            }
            let report = obey(&mut state, scheme, &group, order, timeout).await;
            say(
                &mut out,
                serde_json::to_string(&report).map_err(Error::harness)?,
            )
            .await?;
        }
        Ok(())
    })
}

/// What a party process holds between orders.
struct State {
    /// Its end of the group.
    endpoint: Endpoint<Timed>,
    /// Its share, after key generation.
    share: Option<Share>,
    /// Its safe primes for threshold ECDSA, encoded.
    primes: Option<Vec<u8>>,
    /// Its presignature, between a presigning and the signing that uses it.
    presignature: Option<Presignature>,
}

/// One order carried out, as its report.
async fn obey(
    state: &mut State,
    scheme: Scheme,
    group: &GroupFile,
    order: Order,
    timeout: Duration,
) -> Report {
    let mut report = Report::default();
    let Some(timed) = state.endpoint.transport_mut() else {
        report.error = Some("an earlier run failed".into());
        return report;
    };
    timed.restart();
    let (before, sent) = (timed.inner.requests(), timed.inner.sent_bytes());
    let me = state.endpoint.me();
    let (start, cpu) = (Instant::now(), process_cpu());
    let done = match order {
        Order::Keygen(r) => {
            let session = group.session("bench keygen", &r.to_string());
            let job = Keygen::new(scheme, session, group.threshold, group.indices(), timeout);
            let primes = state.primes.as_deref().map(Primes::from_bytes).transpose();
            match primes {
                Ok(primes) => {
                    let job = Keygen {
                        primes: primes.map(PrimeSource::Given),
                        ..job
                    };
                    state.endpoint.keygen(job).await.map(|s| {
                        report.eligible = s.eligible_signers();
                        state.share = Some(s);
                    })
                }
                Err(e) => Err(alibi_mpc::Error::Parameters(e.to_string())),
            }
        }
        Order::Sign(r, signers) => match &state.share {
            Some(s) if signers.contains(&me) => {
                let session = group.session("bench sign", &r.to_string());
                let job = Signing::new(session, signers, timeout);
                state
                    .endpoint
                    .sign(s, &job, b"alibi bench")
                    .await
                    .map(|_| ())
            }
            Some(_) => Ok(()),
            None => Err(alibi_mpc::Error::Parameters("no share to sign with".into())),
        },
        Order::Presign(_, signers) | Order::SignPresigned(_, signers) if !signers.contains(&me) => {
            Ok(())
        }
        Order::Presign(r, signers) => match &state.share {
            Some(s) => {
                let session = group.session("bench presign", &r.to_string());
                let job = Signing::new(session, signers, timeout);
                state.endpoint.presign(s, &job).await.map(|p| {
                    state.presignature = Some(p);
                })
            }
            None => Err(alibi_mpc::Error::Parameters(
                "no share to presign with".into(),
            )),
        },
        Order::SignPresigned(r, signers) => match (&state.share, state.presignature.take()) {
            (Some(s), Some(p)) => {
                let session = group.session("bench sign presigned", &r.to_string());
                let job = Signing::new(session, signers, timeout);
                let signed = state.endpoint.sign_presigned(s, p, &job, b"alibi bench");
                signed.await.map(|_| ())
            }
            _ => Err(alibi_mpc::Error::Parameters(
                "no presignature to sign with".into(),
            )),
        },
        Order::Primes(_) => Ok(()),
    };
    match (done, state.endpoint.transport_mut()) {
        (Err(e), _) => report.error = Some(e.to_string()),
        (Ok(()), None) => report.error = Some("the run kept the transport".into()),
        (Ok(()), Some(timed)) => {
            report.ms = ms(start.elapsed());
            report.cpu_ms = ms(process_cpu().saturating_sub(cpu));
            report.requests = timed.inner.requests() - before;
            report.bytes = timed.inner.sent_bytes() - sent;
            // Rounds are timed for BLS alone: the other schemes run their own crates' rounds.
            if scheme == Scheme::Bls {
                report.sent = std::mem::take(&mut timed.sent);
            }
        }
    }
    report
}

/// Writes one line to the bench and flushes it.
async fn say(out: &mut tokio::io::Stdout, line: String) -> Result<(), Error> {
    out.write_all(format!("{line}\n").as_bytes())
        .await
        .map_err(Error::harness)?;
    out.flush().await.map_err(Error::harness)
}
