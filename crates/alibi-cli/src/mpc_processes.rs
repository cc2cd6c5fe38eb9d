//! `alibi mpc bench --processes`: every party its own OS process, as the paper ran them. The
//! bench starts `alibi mpc bench-party` n times and drives the children over their stdin and
//! stdout, one JSON line at a time:
//!
//! 1. each child registers (a messenger in memory) and prints its contact card;
//! 2. the bench sends every child the group file;
//! 3. per run, the bench sends `{"keygen": r}` to all at once and reads each child's time, then
//!    `{"sign": r, "signers": [...]}` likewise; the run's time is the slowest child's.

use std::process::Stdio;
use std::time::{Duration, Instant};

use alibi_messenger::{ContactCard, Messenger, Options};
use alibi_mpc::dkg::{keygen, KeyShare, KeygenConfig};
use alibi_mpc::group::GroupFile;
use alibi_mpc::local::Timing;
use alibi_mpc::relay::{Mode, RelayParty};
use alibi_mpc::sign::{sign, SignConfig};
use alibi_mpc::PartyIndex;
use serde::{Deserialize, Serialize};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout};

use crate::failure::{usage, CmdResult, Failure};
use crate::rng::os_rng;

/// What the bench tells a child.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Order {
    Keygen(u32),
    Sign(u32, Vec<PartyIndex>),
}

/// What a child answers.
#[derive(Serialize, Deserialize, Default)]
struct Report {
    ms: f64,
    requests: u64,
    eligible: Vec<PartyIndex>,
    error: Option<String>,
}

struct Party {
    _child: Child,
    stdin: ChildStdin,
    stdout: Lines<BufReader<ChildStdout>>,
}

impl Party {
    async fn line(&mut self, who: PartyIndex) -> Result<String, Failure> {
        self.stdout
            .next_line()
            .await
            .map_err(usage)?
            .ok_or_else(|| Failure::Usage(format!("bench party {who} exited")))
    }

    async fn send(&mut self, line: &str) -> CmdResult {
        self.stdin
            .write_all(format!("{line}\n").as_bytes())
            .await
            .map_err(usage)
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// One cell with every party a process: a first run and `later` more.
pub async fn measure(
    url: &str,
    n: u16,
    t: usize,
    mode: Mode,
    later: usize,
    timeout: Duration,
) -> Result<(Timing, Vec<Timing>), Failure> {
    let exe = std::env::current_exe().map_err(usage)?;
    let transport = match mode {
        Mode::Pairwise => "pairwise",
        Mode::PairwiseConcurrent => "pairwise-concurrent",
        Mode::Group => "group",
    };
    let mut parties = vec![];
    for i in 1..=n {
        let mut child = tokio::process::Command::new(&exe)
            .args(["mpc", "bench-party", "--relay", url, "--index"])
            .arg(i.to_string())
            .args(["--transport", transport, "--timeout-s"])
            .arg(timeout.as_secs().to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .map_err(usage)?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(Failure::Usage("bench party without pipes".into()));
        };
        parties.push(Party {
            _child: child,
            stdin,
            stdout: BufReader::new(stdout).lines(),
        });
    }
    let mut cards = vec![];
    for (i, p) in parties.iter_mut().enumerate() {
        let line = p.line(i as PartyIndex + 1).await?;
        cards.push(ContactCard::from_json(&line).map_err(usage)?);
    }
    let mut id = [0u8; 16];
    rand_core::Rng::fill_bytes(&mut os_rng(), &mut id);
    let group = GroupFile::new(t, cards, uuid::Uuid::from_bytes(id)).map_err(usage)?;
    let group_line = serde_json::to_string(&group).map_err(usage)?;
    for p in &mut parties {
        p.send(&group_line).await?;
    }
    let mut runs = vec![];
    for r in 0..=later as u32 {
        let reports = phase(&mut parties, &Order::Keygen(r)).await?;
        let keygen = slowest(&reports);
        let mut requests: u64 = reports.iter().map(|x| x.requests).sum();
        let signers: Vec<PartyIndex> = reports[0].eligible.iter().copied().take(t + 1).collect();
        let reports = phase(&mut parties, &Order::Sign(r, signers)).await?;
        requests += reports.iter().map(|x| x.requests).sum::<u64>();
        runs.push(Timing {
            keygen,
            sign: slowest(&reports),
            requests,
        });
    }
    let first = runs.remove(0);
    Ok((first, runs))
}

fn slowest(reports: &[Report]) -> Duration {
    Duration::from_secs_f64(reports.iter().map(|r| r.ms).fold(0.0, f64::max) / 1e3)
}

/// Sends `order` to every party at once and collects their reports.
async fn phase(parties: &mut [Party], order: &Order) -> Result<Vec<Report>, Failure> {
    let line = serde_json::to_string(order).map_err(usage)?;
    for p in parties.iter_mut() {
        p.send(&line).await?;
    }
    let mut out = vec![];
    for (i, p) in parties.iter_mut().enumerate() {
        let who = i as PartyIndex + 1;
        let r: Report = serde_json::from_str(&p.line(who).await?).map_err(usage)?;
        if let Some(e) = r.error {
            return Err(Failure::Usage(format!("bench party {who}: {e}")));
        }
        out.push(r);
    }
    Ok(out)
}

/// The child: `alibi mpc bench-party`.
pub fn party(relay: &str, index: PartyIndex, mode: Mode, timeout_s: u64) -> CmdResult {
    // One thread per party: n processes share the machine's cores.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(usage)?;
    rt.block_on(async {
        let messenger = Messenger::ephemeral(relay, &format!("party-{index}"), &Options::default())
            .await
            .map_err(usage)?;
        let mut out = tokio::io::stdout();
        let mut input = BufReader::new(tokio::io::stdin()).lines();
        let say = |line: String| format!("{line}\n");
        out.write_all(say(serde_json::to_string(&messenger.card()).map_err(usage)?).as_bytes())
            .await
            .map_err(usage)?;
        out.flush().await.map_err(usage)?;
        let Some(line) = input.next_line().await.map_err(usage)? else {
            return Ok(());
        };
        let group: GroupFile = serde_json::from_str(&line).map_err(usage)?;
        let mut party = RelayParty::new(messenger, index, &group.members(), group.group_id, mode)
            .map_err(usage)?;
        let timeout = Duration::from_secs(timeout_s);
        let mut share: Option<KeyShare> = None;
        while let Some(line) = input.next_line().await.map_err(usage)? {
            let order: Order = serde_json::from_str(&line).map_err(usage)?;
            let before = party.requests();
            let start = Instant::now();
            let mut report = Report::default();
            match order {
                Order::Keygen(r) => {
                    let session = group.session("bench keygen", &r.to_string());
                    let config =
                        KeygenConfig::new(session, group.threshold, group.indices(), timeout);
                    match keygen(&party.party(), &config, &mut party, &mut os_rng()).await {
                        Ok(s) => {
                            report.eligible = s.eligible_signers();
                            share = Some(s);
                        }
                        Err(e) => report.error = Some(e.to_string()),
                    }
                }
                Order::Sign(r, signers) => match &share {
                    Some(s) if signers.contains(&index) => {
                        let session = group.session("bench sign", &r.to_string());
                        let config = SignConfig::new(session, signers, timeout);
                        let msg = b"alibi bench";
                        if let Err(e) =
                            sign(&party.party(), s, &config, msg, &mut party, &mut os_rng()).await
                        {
                            report.error = Some(e.to_string());
                        }
                    }
                    Some(_) => {}
                    None => report.error = Some("no share to sign with".into()),
                },
            }
            if report.error.is_none() {
                report.ms = ms(start.elapsed());
            }
            report.requests = party.requests() - before;
            out.write_all(say(serde_json::to_string(&report).map_err(usage)?).as_bytes())
                .await
                .map_err(usage)?;
            out.flush().await.map_err(usage)?;
        }
        Ok(())
    })
}
