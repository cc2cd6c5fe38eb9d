//! `alibi mpc keygen|sign|verify|bench`: threshold BLS between parties on a relay, over pairwise
//! or group channels, and the paper's experiment comparing the two.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use alibi_mpc::bench::{keygen_all, measure, register_parties, sign_all, Timing};
use alibi_mpc::dkg::{KeyShare, KeygenConfig};
use alibi_mpc::relay::Mode;
use alibi_mpc::sign::SignConfig;
use alibi_mpc::{bls, PartyIndex};
use alibi_relay::local::LocalRelay;
use alibi_relay::server::Config;
use getrandom::SysRng;
use rand_core::{Rng, UnwrapErr};

use crate::args::{read, runtime, usage, write, Opts};
use crate::{CmdResult, Failure};

fn mode(o: &Opts) -> Result<Mode, Failure> {
    match o.get("transport").unwrap_or("group") {
        "group" => Ok(Mode::Group),
        "pairwise" => Ok(Mode::Pairwise),
        other => Err(Failure::Usage(format!(
            "--transport: group or pairwise, not '{other}'"
        ))),
    }
}

fn number<T: std::str::FromStr>(o: &Opts, k: &str, default: T) -> Result<T, Failure> {
    o.get(k).map_or(Ok(default), |v| {
        v.parse()
            .map_err(|_| Failure::Usage(format!("--{k}: a number")))
    })
}

fn list(o: &Opts, k: &str, default: &str) -> Result<Vec<u64>, Failure> {
    o.get(k)
        .unwrap_or(default)
        .split(',')
        .map(|x| {
            x.trim()
                .parse()
                .map_err(|_| Failure::Usage(format!("--{k}: comma-separated numbers")))
        })
        .collect()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn session() -> [u8; 16] {
    let mut s = [0u8; 16];
    UnwrapErr(SysRng).fill_bytes(&mut s);
    s
}

/// The relay to use: `--relay URL`, or one started in this process.
async fn relay(o: &Opts) -> Result<(String, Option<LocalRelay>), Failure> {
    match o.get("relay") {
        Some(url) => Ok((url.trim_end_matches('/').to_string(), None)),
        None => {
            let r = LocalRelay::start(Config::default()).await.map_err(usage)?;
            Ok((r.url.clone(), Some(r)))
        }
    }
}

/// `alibi mpc keygen --parties N --threshold T [--relay URL] [--transport group|pairwise]
/// [--out DIR]`: N parties on the relay run key generation; each share goes to DIR.
fn keygen(args: &[String]) -> CmdResult {
    let o = Opts::parse(
        "mpc keygen",
        args,
        &[
            "parties",
            "threshold",
            "relay",
            "transport",
            "out",
            "timeout-s",
        ],
    )?;
    let n: u16 = number(&o, "parties", 5)?;
    let t: usize = number(&o, "threshold", usize::from(n.saturating_sub(2)).max(1))?;
    if !(2..=256).contains(&n) || t == 0 || t >= usize::from(n) {
        return Err(Failure::Usage(
            "need 2 <= parties <= 256 and 1 <= threshold < parties".into(),
        ));
    }
    let mode = mode(&o)?;
    let out = o.get("out").unwrap_or("mpc-keys").to_string();
    let timeout = Duration::from_secs(number(&o, "timeout-s", 60)?);
    runtime()?.block_on(async move {
        let (url, _local) = relay(&o).await?;
        let indices: Vec<PartyIndex> = (1..=n).collect();
        let parties = register_parties(&url, &indices, mode)
            .await
            .map_err(usage)?;
        let config = KeygenConfig {
            session: session(),
            threshold: t,
            parties: indices,
            timeout,
            misbehaviour: None,
        };
        let (_, shares, took) = keygen_all(parties, &config).await.map_err(usage)?;
        std::fs::create_dir_all(&out).map_err(usage)?;
        for s in &shares {
            write(
                &format!("{out}/share-{}.json", s.index),
                s.to_json().as_bytes(),
            )?;
        }
        write(&format!("{out}/group.pk"), &shares[0].group_key)?;
        println!(
            "keygen: {n} parties, t = {t} ({} to sign), {mode} channels via {url}: {:.0} ms",
            t + 1,
            ms(took)
        );
        println!("group key: {}", hex(&shares[0].group_key));
        if !shares[0].blamed.is_empty() {
            println!("named and excluded: {:?}", shares[0].blamed);
        }
        println!("wrote {out}/share-1..{n}.json and {out}/group.pk");
        Ok(())
    })
}

fn load_shares(dir: &str) -> Result<BTreeMap<PartyIndex, KeyShare>, Failure> {
    let mut out = BTreeMap::new();
    for e in std::fs::read_dir(dir).map_err(|e| Failure::Usage(format!("{dir}: {e}")))? {
        let path = e.map_err(usage)?.path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        if name.starts_with("share-") && name.ends_with(".json") {
            let text = String::from_utf8(read(&path.display().to_string())?)
                .map_err(|_| Failure::Usage(format!("{}: not UTF-8", path.display())))?;
            let s = KeyShare::from_json(&text)
                .map_err(|e| Failure::Usage(format!("{}: {e}", path.display())))?;
            out.insert(s.index, s);
        }
    }
    if out.is_empty() {
        return Err(Failure::Usage(format!("{dir}: no share-*.json files")));
    }
    Ok(out)
}

/// `alibi mpc sign --keys DIR --msg FILE --out FILE [--signers 1,2,3] [--relay URL]
/// [--transport group|pairwise]`: t+1 shareholders sign over the relay.
fn sign(args: &[String]) -> CmdResult {
    let o = Opts::parse(
        "mpc sign",
        args,
        &[
            "keys",
            "msg",
            "out",
            "signers",
            "relay",
            "transport",
            "timeout-s",
        ],
    )?;
    let shares = load_shares(o.req("keys")?)?;
    let msg = read(o.req("msg")?)?;
    let out = o.req("out")?.to_string();
    let mode = mode(&o)?;
    let timeout = Duration::from_secs(number(&o, "timeout-s", 60)?);
    let any = shares.values().next().expect("not empty");
    let t = any.threshold;
    let signers: Vec<PartyIndex> = match o.get("signers") {
        Some(_) => list(&o, "signers", "")?
            .into_iter()
            .map(|x| PartyIndex::try_from(x).map_err(usage))
            .collect::<Result<_, _>>()?,
        None => any
            .eligible_signers()
            .into_iter()
            .filter(|p| shares.contains_key(p))
            .take(t + 1)
            .collect(),
    };
    if signers.len() <= t || signers.iter().any(|s| !shares.contains_key(s)) {
        return Err(Failure::Usage(format!(
            "need at least t+1 = {} signers whose shares are in the directory",
            t + 1
        )));
    }
    runtime()?.block_on(async move {
        let (url, _local) = relay(&o).await?;
        let parties = register_parties(&url, &signers, mode)
            .await
            .map_err(usage)?;
        let config = SignConfig {
            session: session(),
            signers: signers.clone(),
            timeout,
            misbehaviour: None,
        };
        let shares: Vec<KeyShare> = shares.into_values().collect();
        let (_, signed, took) = sign_all(parties, &shares, &config, &msg)
            .await
            .map_err(usage)?;
        let group_key = &shares[0].group_key;
        if bls::verify(group_key, &msg, &signed.signature).is_err() {
            return Err(Failure::Invalid(
                "the combined signature does not verify".into(),
            ));
        }
        write(&out, &signed.signature)?;
        println!(
            "signed by {:?} over {mode} channels in {:.0} ms; signature ({} bytes) verifies under the group key; wrote {out}",
            signed.combined,
            ms(took),
            signed.signature.len()
        );
        if !signed.blamed.is_empty() {
            println!("named: {:?}", signed.blamed);
        }
        Ok(())
    })
}

/// `alibi mpc verify --pk FILE --msg FILE --sig FILE`: plain BLS verification (exit 1 if invalid).
fn verify(args: &[String]) -> CmdResult {
    let o = Opts::parse("mpc verify", args, &["pk", "msg", "sig"])?;
    let pk = read(o.req("pk")?)?;
    let sig = read(o.req("sig")?)?;
    let msg = read(o.req("msg")?)?;
    if pk.len() != 48 || !bls::g1_decodes(&pk) {
        return Err(Failure::Usage("--pk: a 48-byte compressed G1 key".into()));
    }
    if sig.len() != 96 || !bls::g2_decodes(&sig) {
        return Err(Failure::Usage(
            "--sig: a 96-byte compressed G2 signature".into(),
        ));
    }
    if bls::verify(&pk, &msg, &sig).is_ok() {
        println!("valid");
        Ok(())
    } else {
        Err(Failure::Invalid("signature invalid".into()))
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

/// `alibi mpc bench [--parties 3,4,5,8,16,32,64] [--delays 0,50] [--later 2] [--csv FILE]
/// [--plot FILE.svg]`: the paper's experiment (t = n-1), both transports.
fn bench(args: &[String]) -> CmdResult {
    let o = Opts::parse(
        "mpc bench",
        args,
        &[
            "parties",
            "delays",
            "later",
            "csv",
            "plot",
            "timeout-s",
            "replot",
        ],
    )?;
    if let Some(csv) = o.get("replot") {
        // Table and plot again from a CSV this command wrote, without measuring.
        let plot = o.get("plot").unwrap_or("mpc-bench.svg");
        let cells = read_csv(csv)?;
        let mut delays: Vec<u64> = cells.iter().map(|c| c.delay).collect();
        delays.dedup();
        print_table(&cells);
        return draw(&cells, &delays, plot);
    }
    let ns = list(&o, "parties", "3,4,5,8,16,32,64")?;
    let delays = list(&o, "delays", "0,50")?;
    let later: usize = number(&o, "later", 2)?;
    let csv = o.get("csv").unwrap_or("mpc-bench.csv").to_string();
    let plot = o.get("plot").unwrap_or("mpc-bench.svg").to_string();
    let timeout = Duration::from_secs(number(&o, "timeout-s", 300)?);
    if ns.iter().any(|&n| !(2..=256).contains(&n)) || later == 0 {
        return Err(Failure::Usage(
            "--parties: 2..=256 each; --later: at least 1".into(),
        ));
    }
    let bar = indicatif::ProgressBar::new((ns.len() * delays.len() * 2) as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} {msg}")
            .map_err(usage)?
            .progress_chars("=> "),
    );
    let cells = runtime()?.block_on(async {
        let mut cells = vec![];
        for &delay in &delays {
            let relay = LocalRelay::start(Config {
                delay: Duration::from_millis(delay),
                ..Config::default()
            })
            .await
            .map_err(usage)?;
            for &n in &ns {
                let n = n as u16;
                let t = usize::from(n) - 1;
                for mode in [Mode::Pairwise, Mode::Group] {
                    bar.set_message(format!("n = {n}, {mode}, {delay} ms delay"));
                    let (first, rest) = measure(&relay.url, n, t, mode, later, timeout)
                        .await
                        .map_err(usage)?;
                    cells.push(Cell {
                        n,
                        t,
                        delay,
                        mode,
                        first,
                        later: median(rest).expect("later >= 1"),
                    });
                    bar.inc(1);
                }
            }
        }
        Ok::<_, Failure>(cells)
    })?;
    bar.finish_and_clear();
    print_table(&cells);
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
    write(&csv, text.as_bytes())?;
    draw(&cells, &delays, &plot)?;
    println!("\nwrote {csv} and {plot}");
    Ok(())
}

fn read_csv(path: &str) -> Result<Vec<Cell>, Failure> {
    let text = String::from_utf8(read(path)?).map_err(usage)?;
    let bad = || Failure::Usage(format!("{path}: not a CSV written by `alibi mpc bench`"));
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

fn print_table(cells: &[Cell]) {
    println!("| n | t | delay | run | keygen pairwise | keygen group | group faster | sign pairwise | sign group | group faster |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for c in cells.iter().filter(|c| c.mode == Mode::Pairwise) {
        let Some(g) = cells
            .iter()
            .find(|g| g.mode == Mode::Group && g.n == c.n && g.delay == c.delay)
        else {
            continue;
        };
        for (run, p, q) in [("first", c.first, g.first), ("later", c.later, g.later)] {
            println!(
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
            );
        }
    }
}

/// Two panels (key generation, signing): time of later runs against n, one line per transport
/// and delay.
fn draw(cells: &[Cell], delays: &[u64], path: &str) -> CmdResult {
    use plotters::prelude::*;
    let fail = |e: &dyn std::fmt::Display| Failure::Usage(format!("{path}: {e}"));
    let root = SVGBackend::new(Path::new(path), (1100, 480)).into_drawing_area();
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

/// `alibi mpc <verb>`.
pub fn run(argv: &[String]) -> CmdResult {
    match argv.first().map(String::as_str) {
        Some("keygen") => keygen(&argv[1..]),
        Some("sign") => sign(&argv[1..]),
        Some("verify") => verify(&argv[1..]),
        Some("bench") => bench(&argv[1..]),
        _ => Err(Failure::Usage(
            "usage: alibi mpc keygen|sign|verify|bench [options] (see alibi --help)".into(),
        )),
    }
}
