//! `alibi mpc keygen|sign|verify|bench`: threshold BLS between parties on a relay, over pairwise
//! or group channels, and the paper's experiment comparing the two.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use alibi_mpc::bench::{keygen_all, measure, register_parties, sign_all, Timing};
use alibi_mpc::dkg::{KeyShare, KeygenConfig};
use alibi_mpc::relay::Mode;
use alibi_mpc::sign::SignConfig;
use alibi_mpc::{bls, PartyIndex};
use alibi_relay::local::LocalRelay;
use alibi_relay::server::Config;
use clap::{Subcommand, ValueEnum};
use rand_core::Rng;
use serde_json::json;

use crate::failure::{usage, CmdResult, Failure};
use crate::files::{
    check_outputs, read, read_input, read_secret, write, write_outputs, Kind, Output,
};
use crate::net::{relay_url, runtime};
use crate::report::{say, Format};
use crate::rng::os_rng;
use crate::say;

/// `alibi mpc <verb>`.
#[derive(Subcommand, Debug)]
pub enum Cmd {
    /// Threshold key generation: N parties on a relay; each share to DIR/share-I.json (mode
    /// 0600), the group key to DIR/group.pk
    Keygen {
        /// The number of parties, 2 to 256
        #[arg(long, value_name = "N", default_value_t = 5, value_parser = clap::value_parser!(u16).range(2..=256))]
        parties: u16,
        /// t: any t+1 parties can sign, t cannot [default: parties - 2, at least 1]
        #[arg(long, value_name = "T")]
        threshold: Option<usize>,
        #[command(flatten)]
        net: NetArgs,
        /// The directory for the shares and the group key (created if missing)
        #[arg(long, value_name = "DIR", default_value = "mpc-keys")]
        out: PathBuf,
        /// Replace share files that already exist
        #[arg(long)]
        force: bool,
        #[command(flatten)]
        format: Format,
    },
    /// Threshold signing: t+1 shareholders sign over a relay; the result is checked under the
    /// group key before it is written
    Sign {
        /// The directory holding share-*.json (from keygen)
        #[arg(long, value_name = "DIR")]
        keys: PathBuf,
        /// The message
        #[arg(long, value_name = "FILE")]
        msg: PathBuf,
        /// Where to write the 96-byte signature
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
        /// The signing parties' indices [default: the first t+1 eligible parties with shares]
        #[arg(long, value_name = "I,J,...", value_delimiter = ',')]
        signers: Option<Vec<PartyIndex>>,
        #[command(flatten)]
        net: NetArgs,
        #[command(flatten)]
        format: Format,
    },
    /// Plain BLS verification under the group key: exit 0 if valid, 1 if not
    Verify {
        /// The 48-byte group public key (compressed G1)
        #[arg(long, value_name = "FILE")]
        pk: PathBuf,
        /// The message
        #[arg(long, value_name = "FILE")]
        msg: PathBuf,
        /// The 96-byte signature (compressed G2)
        #[arg(long, value_name = "FILE")]
        sig: PathBuf,
        #[command(flatten)]
        format: Format,
    },
    /// The paper's experiment: keygen and signing (t = n-1) over pairwise and group channels,
    /// for each party count and relay delay; prints the table, writes a CSV and an SVG plot
    Bench {
        /// Party counts
        #[arg(long, value_name = "N,...", value_delimiter = ',', default_value = "3,4,5,8,16,32,64",
              value_parser = clap::value_parser!(u16).range(2..=256))]
        parties: Vec<u16>,
        /// Relay delays per request, in milliseconds
        #[arg(
            long,
            value_name = "MS,...",
            value_delimiter = ',',
            default_value = "0,50"
        )]
        delays: Vec<u64>,
        /// Runs after the first, of which the median is reported
        #[arg(long, value_name = "K", default_value_t = 2, value_parser = clap::value_parser!(u16).range(1..))]
        later: u16,
        /// Where to write the measurements
        #[arg(long, value_name = "FILE", default_value = "mpc-bench.csv")]
        csv: PathBuf,
        /// Where to write the plot
        #[arg(long, value_name = "FILE", default_value = "mpc-bench.svg")]
        plot: PathBuf,
        /// Give up on one run after this many seconds
        #[arg(long, value_name = "S", default_value_t = 300)]
        timeout_s: u64,
        /// Do not measure: print the table and redraw the plot from a CSV this command wrote
        #[arg(long, value_name = "CSV", conflicts_with_all = ["parties", "delays", "later", "csv", "timeout_s"])]
        replot: Option<PathBuf>,
        #[command(flatten)]
        format: Format,
    },
}

/// Where and how the parties talk.
#[derive(clap::Args, Debug)]
pub struct NetArgs {
    /// The relay, e.g. http://127.0.0.1:8080 [default: a relay started in this process]
    #[arg(long, value_name = "URL")]
    relay: Option<String>,
    /// The channels a broadcast goes over
    #[arg(long, value_enum, default_value_t = Transport::Group)]
    transport: Transport,
    /// Give up on a round after this many seconds
    #[arg(long, value_name = "S", default_value_t = 60)]
    timeout_s: u64,
}

/// The two transports of the experiment.
#[derive(ValueEnum, Clone, Copy, Debug)]
pub enum Transport {
    /// One sender-key message, sealed once, in one multi-recipient request per round
    Group,
    /// n-1 Double Ratchet messages per broadcast
    Pairwise,
}

impl From<Transport> for Mode {
    fn from(t: Transport) -> Mode {
        match t {
            Transport::Group => Mode::Group,
            Transport::Pairwise => Mode::Pairwise,
        }
    }
}

/// Runs `alibi mpc <verb>`.
pub fn run(cmd: Cmd) -> CmdResult {
    match cmd {
        Cmd::Keygen {
            parties,
            threshold,
            net,
            out,
            force,
            format,
        } => keygen(parties, threshold, &net, &out, force, format),
        Cmd::Sign {
            keys,
            msg,
            out,
            signers,
            net,
            format,
        } => sign(&keys, &msg, &out, signers, &net, format),
        Cmd::Verify {
            pk,
            msg,
            sig,
            format,
        } => verify(&pk, &msg, &sig, format),
        Cmd::Bench {
            parties,
            delays,
            later,
            csv,
            plot,
            timeout_s,
            replot,
            format,
        } => match replot {
            Some(from) => {
                // Table and plot again from a CSV this command wrote, without measuring.
                let cells = read_csv(&from)?;
                let mut ds: Vec<u64> = cells.iter().map(|c| c.delay).collect();
                ds.dedup();
                print_table(&cells, format)?;
                draw(&cells, &ds, &plot)
            }
            None => bench(&parties, &delays, later, &csv, &plot, timeout_s, format),
        },
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn session() -> [u8; 16] {
    let mut s = [0u8; 16];
    os_rng().fill_bytes(&mut s);
    s
}

/// The relay to use: `--relay URL`, or one started in this process.
async fn relay(net: &NetArgs) -> Result<(String, Option<LocalRelay>), Failure> {
    match &net.relay {
        Some(url) => Ok((relay_url(url)?, None)),
        None => {
            let r = LocalRelay::start(Config::default()).await.map_err(usage)?;
            Ok((r.url.clone(), Some(r)))
        }
    }
}

fn share_path(dir: &Path, i: PartyIndex) -> PathBuf {
    dir.join(format!("share-{i}.json"))
}

fn keygen(
    n: u16,
    threshold: Option<usize>,
    net: &NetArgs,
    out: &Path,
    force: bool,
    format: Format,
) -> CmdResult {
    let t = threshold.unwrap_or(usize::from(n.saturating_sub(2)).max(1));
    if t == 0 || t >= usize::from(n) {
        return Err(Failure::Usage(format!(
            "--threshold must be 1 to {} for {n} parties",
            n - 1
        )));
    }
    if let Some(u) = &net.relay {
        relay_url(u)?;
    }
    let indices: Vec<PartyIndex> = (1..=n).collect();
    let paths: Vec<PathBuf> = indices.iter().map(|&i| share_path(out, i)).collect();
    let pk_path = out.join("group.pk");
    let mut planned: Vec<(&'static str, &Path, Kind)> = paths
        .iter()
        .map(|p| ("--out", p.as_path(), Kind::Secret))
        .collect();
    planned.push(("--out", &pk_path, Kind::PublicKey));
    check_outputs(&planned, force)?;
    let mode = Mode::from(net.transport);
    runtime()?.block_on(async move {
        let (url, _local) = relay(net).await?;
        let parties = register_parties(&url, &indices, mode)
            .await
            .map_err(usage)?;
        let config = KeygenConfig {
            session: session(),
            threshold: t,
            parties: indices.clone(),
            timeout: Duration::from_secs(net.timeout_s),
            misbehaviour: None,
        };
        let (_, shares, took) = keygen_all(parties, &config).await.map_err(usage)?;
        std::fs::create_dir_all(out)
            .map_err(|e| Failure::Usage(format!("cannot create {}: {e}", out.display())))?;
        let texts: Vec<(PathBuf, zeroize::Zeroizing<String>)> = shares
            .iter()
            .map(|s| (share_path(out, s.index), s.to_json()))
            .collect();
        let first = shares
            .first()
            .ok_or_else(|| Failure::Usage("key generation produced no share".into()))?;
        let mut files: Vec<Output> = texts
            .iter()
            .map(|(p, t)| Output {
                flag: "--out",
                path: p,
                kind: Kind::Secret,
                data: t.as_bytes(),
            })
            .collect();
        files.push(Output {
            flag: "--out",
            path: &pk_path,
            kind: Kind::PublicKey,
            data: &first.group_key,
        });
        write_outputs(&files, force)?;
        let group_key = hex::encode(&first.group_key);
        let text = format!(
            "keygen: {n} parties, t = {t} ({} to sign), {mode} channels via {url}: {:.0} ms\n\
             group key: {group_key}\n{}wrote {} share files and {}",
            t + 1,
            ms(took),
            if first.blamed.is_empty() {
                String::new()
            } else {
                format!("named and excluded: {:?}\n", first.blamed)
            },
            shares.len(),
            pk_path.display()
        );
        format.report(
            text,
            json!({
                "parties": n, "threshold": t, "transport": mode.to_string(), "relay": url,
                "ms": ms(took), "group_key": group_key, "blamed": first.blamed,
                "shares": texts.iter().map(|(p, _)| p.to_string_lossy()).collect::<Vec<_>>(),
                "public_key": pk_path.to_string_lossy(),
            }),
        )
    })
}

fn load_shares(dir: &Path) -> Result<BTreeMap<PartyIndex, KeyShare>, Failure> {
    let mut out = BTreeMap::new();
    let entries = std::fs::read_dir(dir)
        .map_err(|e| Failure::Usage(format!("cannot read {}: {e}", dir.display())))?;
    for e in entries {
        let path = e.map_err(usage)?.path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        if name.starts_with("share-") && name.ends_with(".json") {
            let b = read_secret(&path, "a key share")?;
            let text = std::str::from_utf8(&b)
                .map_err(|_| Failure::Usage(format!("{}: not UTF-8", path.display())))?;
            let s = KeyShare::from_json(text)
                .map_err(|e| Failure::Usage(format!("{}: {e}", path.display())))?;
            out.insert(s.index, s);
        }
    }
    if out.is_empty() {
        return Err(Failure::Usage(format!(
            "{}: no share-*.json files",
            dir.display()
        )));
    }
    Ok(out)
}

fn sign(
    keys: &Path,
    msg: &Path,
    out: &Path,
    signers: Option<Vec<PartyIndex>>,
    net: &NetArgs,
    format: Format,
) -> CmdResult {
    let shares = load_shares(keys)?;
    let msg = read(msg)?;
    let any = shares
        .values()
        .next()
        .ok_or_else(|| Failure::Usage("no shares".into()))?;
    let t = any.threshold;
    let signers: Vec<PartyIndex> = match signers {
        Some(list) => {
            if let Some(i) = list.iter().find(|i| !shares.contains_key(i)) {
                return Err(Failure::Usage(format!(
                    "--signers: party {i} has no share in {} (shares: {:?})",
                    keys.display(),
                    shares.keys().collect::<Vec<_>>()
                )));
            }
            list
        }
        None => any
            .eligible_signers()
            .into_iter()
            .filter(|p| shares.contains_key(p))
            .take(t + 1)
            .collect(),
    };
    if signers.len() <= t {
        return Err(Failure::Usage(format!(
            "need at least t+1 = {} signers whose shares are in {}, have {}",
            t + 1,
            keys.display(),
            signers.len()
        )));
    }
    if let Some(u) = &net.relay {
        relay_url(u)?;
    }
    let mode = Mode::from(net.transport);
    runtime()?.block_on(async move {
        let (url, _local) = relay(net).await?;
        let parties = register_parties(&url, &signers, mode)
            .await
            .map_err(usage)?;
        let config = SignConfig {
            session: session(),
            signers: signers.clone(),
            timeout: Duration::from_secs(net.timeout_s),
            misbehaviour: None,
        };
        let shares: Vec<KeyShare> = shares.into_values().collect();
        let (_, signed, took) = sign_all(parties, &shares, &config, &msg)
            .await
            .map_err(usage)?;
        let group_key = &any_key(&shares)?;
        if bls::verify(group_key, &msg, &signed.signature).is_err() {
            return Err(Failure::Invalid(
                "the combined signature does not verify under the group key".into(),
            ));
        }
        write("--out", out, Kind::Data, &signed.signature, false)?;
        let mut text = format!(
            "signed by {:?} over {mode} channels in {:.0} ms; the signature ({} bytes) verifies under the group key; wrote {}",
            signed.combined,
            ms(took),
            signed.signature.len(),
            out.display()
        );
        if !signed.blamed.is_empty() {
            text.push_str(&format!("\nnamed: {:?}", signed.blamed));
        }
        format.report(
            text,
            json!({"signers": signed.combined, "transport": mode.to_string(), "ms": ms(took),
                   "blamed": signed.blamed, "signature": out.to_string_lossy()}),
        )
    })
}

fn any_key(shares: &[KeyShare]) -> Result<Vec<u8>, Failure> {
    shares
        .first()
        .map(|s| s.group_key.to_vec())
        .ok_or_else(|| Failure::Usage("no shares".into()))
}

fn verify(pk: &Path, msg: &Path, sig: &Path, format: Format) -> CmdResult {
    let pkb = read_input(pk, "a 48-byte BLS group key")?;
    let sigb = read_input(sig, "a 96-byte BLS signature")?;
    let msg = read(msg)?;
    if pkb.len() != 48 || !bls::g1_decodes(&pkb) {
        return Err(Failure::Usage(format!(
            "{} is no BLS group key (48-byte compressed G1 point; {} bytes)",
            pk.display(),
            pkb.len()
        )));
    }
    if sigb.len() != 96 || !bls::g2_decodes(&sigb) {
        return Err(Failure::Usage(format!(
            "{} is no BLS signature (96-byte compressed G2 point; {} bytes)",
            sig.display(),
            sigb.len()
        )));
    }
    let fields = json!({"scheme": "BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_"});
    if bls::verify(&pkb, &msg, &sigb).is_ok() {
        format.verdict(Ok(None), fields)
    } else {
        format.verdict(Err("invalid signature".into()), fields)
    }
}

/// One measured cell of the experiment.
struct Cell {
    n: u16,
    t: usize,
    delay: u64,
    mode: Mode,
    first: Timing,
    later: Timing,
}

fn median(mut v: Vec<Timing>) -> Option<Timing> {
    if v.is_empty() {
        return None;
    }
    v.sort_by_key(|t| t.keygen + t.sign);
    Some(v[v.len() / 2])
}

fn faster(pairwise: Duration, group: Duration) -> f64 {
    100.0 * (1.0 - group.as_secs_f64() / pairwise.as_secs_f64())
}

/// Measures every cell of the grid (t = n-1, both transports), then prints the table and writes
/// the CSV and the plot.
fn bench(
    ns: &[u16],
    delays: &[u64],
    later: u16,
    csv: &Path,
    plot: &Path,
    timeout_s: u64,
    format: Format,
) -> CmdResult {
    let timeout = Duration::from_secs(timeout_s);
    let bar = indicatif::ProgressBar::new((ns.len() * delays.len() * 2) as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} {msg}")
            .map_err(usage)?
            .progress_chars("=> "),
    );
    let cells = runtime()?.block_on(async {
        let mut cells = vec![];
        for &delay in delays {
            let relay = LocalRelay::start(Config {
                delay: Duration::from_millis(delay),
                ..Config::default()
            })
            .await
            .map_err(usage)?;
            for &n in ns {
                let t = usize::from(n) - 1;
                for mode in [Mode::Pairwise, Mode::Group] {
                    bar.set_message(format!("n = {n}, {mode}, {delay} ms delay"));
                    let (first, rest) =
                        measure(&relay.url, n, t, mode, usize::from(later), timeout)
                            .await
                            .map_err(usage)?;
                    let later = median(rest)
                        .ok_or_else(|| Failure::Usage("no later run measured".into()))?;
                    cells.push(Cell {
                        n,
                        t,
                        delay,
                        mode,
                        first,
                        later,
                    });
                    bar.inc(1);
                }
            }
        }
        Ok::<_, Failure>(cells)
    })?;
    bar.finish_and_clear();
    print_table(&cells, format)?;
    let mut text = String::from("n,t,delay_ms,run,transport,keygen_ms,sign_ms,requests\n");
    for c in &cells {
        for (run, tm) in [("first", c.first), ("later", c.later)] {
            text.push_str(&format!(
                "{},{},{},{run},{},{:.1},{:.1},{}\n",
                c.n,
                c.t,
                c.delay,
                c.mode,
                ms(tm.keygen),
                ms(tm.sign),
                tm.requests
            ));
        }
    }
    write("--csv", csv, Kind::Data, text.as_bytes(), false)?;
    draw(&cells, delays, plot)?;
    if !format.json {
        say!("\nwrote {} and {}", csv.display(), plot.display())?;
    }
    Ok(())
}

/// The header line of the CSV `bench` writes.
const CSV_HEADER: &str = "n,t,delay_ms,run,transport,keygen_ms,sign_ms,requests";

/// Reads a CSV `bench` wrote; anything else (another header, no rows) is refused rather than
/// drawn as an empty table.
fn read_csv(path: &Path) -> Result<Vec<Cell>, Failure> {
    let bad = || {
        Failure::Usage(format!(
            "{}: not a CSV written by `alibi mpc bench`",
            path.display()
        ))
    };
    let text = String::from_utf8(read(path)?).map_err(|_| bad())?;
    if text.lines().next().map(str::trim) != Some(CSV_HEADER) {
        return Err(bad());
    }
    // (delay, n, transport) -> (t, first run, later runs)
    type Row = (usize, Option<Timing>, Option<Timing>);
    let mut rows: BTreeMap<(u64, u16, String), Row> = BTreeMap::new();
    for line in text.lines().skip(1).filter(|l| !l.is_empty()) {
        let f: Vec<&str> = line.split(',').collect();
        if f.len() != 8 {
            return Err(bad());
        }
        let num = |i: usize| f[i].parse::<f64>().map_err(|_| bad());
        let timing = Timing {
            keygen: Duration::from_secs_f64(num(5)? / 1e3),
            sign: Duration::from_secs_f64(num(6)? / 1e3),
            requests: num(7)? as u64,
        };
        let key = (num(2)? as u64, num(0)? as u16, f[4].to_string());
        let row = rows.entry(key).or_insert((num(1)? as usize, None, None));
        match f[3] {
            "first" => row.1 = Some(timing),
            "later" => row.2 = Some(timing),
            _ => return Err(bad()),
        }
    }
    if rows.is_empty() {
        return Err(Failure::Usage(format!(
            "{}: no measurements in it",
            path.display()
        )));
    }
    rows.into_iter()
        .map(|((delay, n, mode), (t, first, later))| {
            let mode = match mode.as_str() {
                "pairwise" => Mode::Pairwise,
                "group" => Mode::Group,
                _ => return Err(bad()),
            };
            Ok(Cell {
                n,
                t,
                delay,
                mode,
                first: first.ok_or_else(bad)?,
                later: later.ok_or_else(bad)?,
            })
        })
        .collect()
}

/// The table of later (and first) runs, pairwise against group, or the same as JSON rows.
fn print_table(cells: &[Cell], format: Format) -> CmdResult {
    let mut rows = vec![];
    if !format.json {
        say("| n | t | delay | run | keygen pairwise | keygen group | group faster | sign pairwise | sign group | group faster |")?;
        say("|---|---|---|---|---|---|---|---|---|---|")?;
    }
    for c in cells.iter().filter(|c| c.mode == Mode::Pairwise) {
        let Some(g) = cells
            .iter()
            .find(|g| g.mode == Mode::Group && g.n == c.n && g.delay == c.delay)
        else {
            continue;
        };
        for (run, p, q) in [("first", c.first, g.first), ("later", c.later, g.later)] {
            if format.json {
                rows.push(json!({
                    "n": c.n, "t": c.t, "delay_ms": c.delay, "run": run,
                    "keygen_pairwise_ms": ms(p.keygen), "keygen_group_ms": ms(q.keygen),
                    "keygen_group_faster_pct": faster(p.keygen, q.keygen),
                    "sign_pairwise_ms": ms(p.sign), "sign_group_ms": ms(q.sign),
                    "sign_group_faster_pct": faster(p.sign, q.sign),
                }));
                continue;
            }
            say!(
                "| {} | {} | {} ms | {run} | {:.0} ms | {:.0} ms | {:.1}% | {:.0} ms | {:.0} ms | {:.1}% |",
                c.n,
                c.t,
                c.delay,
                ms(p.keygen),
                ms(q.keygen),
                faster(p.keygen, q.keygen),
                ms(p.sign),
                ms(q.sign),
                faster(p.sign, q.sign)
            )?;
        }
    }
    if format.json {
        say(json!({ "rows": rows }))?;
    }
    Ok(())
}

/// Two panels (key generation, signing): time of later runs against n, one line per transport
/// and delay.
fn draw(cells: &[Cell], delays: &[u64], path: &Path) -> CmdResult {
    use plotters::prelude::*;
    let fail = |e: &dyn std::fmt::Display| Failure::Usage(format!("{}: {e}", path.display()));
    let root = SVGBackend::new(path, (1100, 480)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| fail(&e))?;
    let panels = root.split_evenly((1, 2));
    let max_n = cells.iter().map(|c| c.n).max().unwrap_or(2) as f64;
    for (panel, (title, pick)) in panels.iter().zip([
        (
            "key generation (later runs)",
            (|t: &Timing| t.keygen) as fn(&Timing) -> Duration,
        ),
        ("signing, t+1 = n signers (later runs)", |t: &Timing| t.sign),
    ]) {
        let values = || cells.iter().map(|c| ms(pick(&c.later)));
        let max_ms = values().fold(1.0, f64::max);
        let min_ms = values().fold(max_ms, f64::min).max(0.1);
        let mut chart = ChartBuilder::on(panel)
            .caption(title, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(56)
            .build_cartesian_2d(
                1f64..(max_n.log2() + 0.3),
                (min_ms * 0.8..max_ms * 1.25).log_scale(),
            )
            .map_err(|e| fail(&e))?;
        chart
            .configure_mesh()
            .x_desc("parties n (log scale)")
            .y_desc("ms (log scale)")
            .x_label_formatter(&|x| format!("{:.0}", 2f64.powf(*x)))
            .draw()
            .map_err(|e| fail(&e))?;
        let colors = [RED, BLUE, MAGENTA, CYAN];
        let mut k = 0;
        for &delay in delays {
            for mode in [Mode::Pairwise, Mode::Group] {
                let pts: Vec<(f64, f64)> = cells
                    .iter()
                    .filter(|c| c.mode == mode && c.delay == delay)
                    .map(|c| ((c.n as f64).log2(), ms(pick(&c.later))))
                    .collect();
                let color = colors[k % colors.len()];
                k += 1;
                chart
                    .draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)))
                    .map_err(|e| fail(&e))?
                    .label(format!("{mode}, {delay} ms delay"))
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 16, y)], color.stroke_width(2))
                    });
                chart
                    .draw_series(pts.iter().map(|&p| Circle::new(p, 3, color.filled())))
                    .map_err(|e| fail(&e))?;
            }
        }
        chart
            .configure_series_labels()
            .border_style(BLACK)
            .background_style(WHITE.mix(0.9))
            .position(SeriesLabelPosition::UpperLeft)
            .draw()
            .map_err(|e| fail(&e))?;
    }
    root.present().map_err(|e| fail(&e))?;
    Ok(())
}
