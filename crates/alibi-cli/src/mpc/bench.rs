//! `alibi mpc bench` (the paper's experiment: every scheme over pairwise and group channels)
//! and `alibi mpc bench-party`, one party process of `bench --processes`.

use std::path::Path;
use std::time::Duration;

use alibi_bench::mpc::processes::PartyArgs;
use alibi_bench::mpc::rounds::RunRounds;
use alibi_bench::mpc::{Comparison, Cpu, Grid, Measured, Parties, PrimeBank, Progress};
use alibi_mpc::relay::Mode;
use alibi_mpc::scheme::Scheme;
use serde_json::json;

use super::args::{BenchArgs, BenchPartyArgs};
use crate::failure::{usage, CmdResult, Failure};
use crate::files::{read, write, Kind};
use crate::net::runtime;
use crate::report::{say, Format};
use crate::say;

/// `alibi mpc bench-party`.
pub(super) fn party(a: BenchPartyArgs) -> CmdResult {
    alibi_bench::mpc::processes::party(
        &a.relay,
        a.index,
        a.transport.into(),
        Duration::from_secs(a.timeout_s),
        a.scheme.into(),
    )
    .map_err(usage)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// `alibi mpc bench`: the grid measured, or `--replot`'s CSV drawn again.
pub(super) fn bench(a: BenchArgs) -> CmdResult {
    let BenchArgs {
        scheme,
        parties,
        delays,
        transports,
        later,
        processes,
        in_memory,
        presigned,
        rounds,
        csv,
        plot,
        timeout_s,
        primes,
        replot,
        life,
        format,
    } = a;
    if let Some(from) = replot {
        return replot_csv(&from, &plot, format);
    }
    let schemes: Vec<Scheme> = scheme.into_iter().map(Scheme::from).collect();
    if life {
        let mut bank = prime_bank(primes.as_deref())?;
        let timeout = Duration::from_secs(timeout_s);
        let grid = (&schemes[..], &parties[..], &delays[..]);
        return super::life::life(grid, usize::from(later), timeout, &mut bank, format);
    }
    if presigned && schemes != [Scheme::EcdsaSecp256k1] {
        return Err(Failure::Usage(
            "--presigned: presignatures are for --scheme ecdsa-secp256k1 alone".into(),
        ));
    }
    // In memory there is no relay to delay and one way to deliver (the mailbox of each party).
    let (delays, transports) = match in_memory {
        true => (vec![0], vec![Mode::Group]),
        false => (delays, transports.into_iter().map(Mode::from).collect()),
    };
    let grid = Grid {
        schemes,
        ns: parties,
        delays,
        modes: transports,
        later: usize::from(later),
        timeout: Duration::from_secs(timeout_s),
        presigned,
    };
    let parties = match (processes, in_memory) {
        (true, _) => How::Processes,
        (_, true) => How::Memory,
        _ => How::Tasks,
    };
    measure(
        &grid,
        parties,
        primes.as_deref(),
        (&csv, &plot, rounds.as_deref()),
        format,
    )
}

/// How the parties run: [`Parties`] without the launcher.
#[derive(Clone, Copy, PartialEq)]
enum How {
    Tasks,
    Processes,
    Memory,
}

/// Measures every cell of the grid (t = n-1), then prints the tables and writes the CSV and
/// the plot (one per scheme after the first, named after it), and with `rounds` each run's
/// time per round; in memory, the CPU table alone.
fn measure(
    grid: &Grid,
    how: How,
    more_primes: Option<&Path>,
    (csv, plot, rounds): (&Path, &Path, Option<&Path>),
    format: Format,
) -> CmdResult {
    let mut primes = prime_bank(more_primes)?;
    let bar = crate::report::progress_bar(grid.cells() as u64)?;
    let label = match how {
        How::Processes => "processes",
        How::Tasks => "tasks",
        How::Memory => "in memory",
    };
    let mut timed: Vec<RunRounds> = vec![];
    let mut progress = |p| match p {
        Progress::Cell {
            scheme,
            n,
            mode,
            delay,
        } => {
            let what = match scheme {
                Scheme::Bls => String::new(),
                s => format!("{s}, "),
            };
            let text = match how {
                How::Memory => format!("measuring {what}n = {n}, {label}"),
                _ => format!("measuring {what}n = {n}, {mode}, {delay} ms delay, {label}"),
            };
            let event = json!({"event": "cell", "scheme": scheme.name(), "n": n,
                               "transport": mode.to_string(), "delay_ms": delay});
            crate::report::progress_note(&bar, text, event, format)
        }
        Progress::Rounds(r) => timed.push(r),
        Progress::Primes { party, elapsed_s } => {
            super::primes::for_bench(&bar, party, elapsed_s, format)
        }
        Progress::Run {
            run,
            of,
            timing,
            presign,
            cpu,
        } => bar.suspend(|| eprintln!("{}", run_line(run, of, (&timing, presign, cpu), format))),
        Progress::Done => bar.inc(1),
    };
    // Party processes are this binary again, as `alibi mpc bench-party`.
    let exe = std::env::current_exe().map_err(usage)?;
    let launch = |p: &PartyArgs| {
        let mut c = std::process::Command::new(&exe);
        c.args(["mpc", "bench-party", "--relay", p.relay, "--index"])
            .arg(p.index.to_string())
            .args(["--transport", &p.mode.to_string(), "--timeout-s"])
            .arg(p.timeout.as_secs().to_string())
            .args(["--scheme", p.scheme.name()]);
        c
    };
    let parties = match how {
        How::Processes => Parties::Processes(&launch),
        How::Tasks => Parties::Tasks,
        How::Memory => Parties::Memory,
    };
    let cells = runtime()?
        .block_on(alibi_bench::mpc::measure(
            grid,
            parties,
            &mut primes,
            &mut progress,
        ))
        .map_err(usage)?;
    bar.finish_and_clear();
    if how == How::Memory {
        return print_cpu(&cells, true, format);
    }
    if primes.generated() > 0 && !format.json {
        say!(
            "threshold ECDSA: {} parties' safe primes generated ahead of the timed runs, the \
             rest from the test fixtures\n",
            primes.generated()
        )?;
    }
    print_tables(&cells, format)?;
    print_cpu(&cells, false, format)?;
    if let Some(path) = rounds {
        print_rounds(&timed, format)?;
        let text = alibi_bench::mpc::rounds::rounds_csv(&timed);
        write("--rounds", path, Kind::Report, text.as_bytes(), false)?;
    }
    let text = alibi_bench::mpc::scheme_csv(&cells);
    write("--csv", csv, Kind::Report, text.as_bytes(), false)?;
    let plots = draw_all(&cells, &grid.delays, plot)?;
    if !format.json {
        let also = rounds.map_or(String::new(), |r| format!(", {}", r.display()));
        say!("\nwrote {}{also} and {}", csv.display(), plots.join(", "))?;
    }
    Ok(())
}

/// The test fixtures' safe primes, and those of `more` (`--primes`) after them.
fn prime_bank(more: Option<&Path>) -> Result<PrimeBank, Failure> {
    let mut primes = PrimeBank::fixtures().map_err(usage)?;
    if let Some(path) = more {
        let text = String::from_utf8(read(path)?)
            .map_err(|_| Failure::Usage(format!("{}: not text", path.display())))?;
        primes
            .extend_from_hex(&text)
            .map_err(|e| Failure::Usage(format!("{}: {e}", path.display())))?;
    }
    Ok(primes)
}

/// One run's figures as a line on stderr: text, or with `--json` an object (`"event": "run"`).
fn run_line(
    run: usize,
    of: usize,
    (timing, presign, cpu): (&alibi_bench::mpc::Timing, Option<Duration>, Option<Cpu>),
    format: Format,
) -> String {
    if format.json {
        return json!({"event": "run", "run": run + 1, "of": of,
                       "keygen_ms": ms(timing.keygen), "sign_ms": ms(timing.sign),
                       "presign_ms": presign.map(ms), "requests": timing.requests,
                       "cpu": cpu.map(cpu_json)})
        .to_string();
    }
    let presigned = presign.map_or(String::new(), |p| {
        format!(", presign {:.1} s", p.as_secs_f64())
    });
    let cpu = cpu.map_or(String::new(), |c| {
        let presign = c.presign.map_or(String::new(), |p| {
            format!(", presign {:.2} s", p.as_secs_f64())
        });
        format!(
            "; CPU: keygen {:.2} s{presign}, sign {:.2} s",
            c.keygen.as_secs_f64(),
            c.sign.as_secs_f64()
        )
    });
    format!(
        "run {} of {of}: keygen {:.1} s{presigned}, sign {:.0} ms, {} requests{cpu}",
        run + 1,
        timing.keygen.as_secs_f64(),
        ms(timing.sign),
        timing.requests
    )
}

/// A run's CPU time as JSON, in ms.
fn cpu_json(c: Cpu) -> serde_json::Value {
    json!({"keygen_ms": ms(c.keygen), "presign_ms": c.presign.map(ms), "sign_ms": ms(c.sign)})
}

/// Each run whose CPU time was measured, as JSON rows (`--json`: the `cpu` of the report).
fn cpu_rows(cells: &[Measured], in_memory: bool) -> Vec<serde_json::Value> {
    let mut rows = vec![];
    for m in cells {
        let c = &m.cell;
        for ((run, tm), cpu) in [("first", c.first), ("later", c.later)]
            .into_iter()
            .zip(m.cpu)
        {
            let Some(cpu) = cpu else { continue };
            let transport = (!in_memory).then(|| c.mode.to_string());
            rows.push(json!({"scheme": m.scheme.name(), "n": c.n, "t": c.t,
                "in_memory": in_memory, "transport": transport,
                "delay_ms": (!in_memory).then_some(c.delay), "run": run,
                "cpu": cpu_json(cpu), "keygen_ms": ms(tm.keygen), "sign_ms": ms(tm.sign)}));
        }
    }
    rows
}

/// The CPU table of the cells whose CPU time was measured ([`alibi_bench::mpc::cpu_table`]);
/// nothing when none was. With `--json`, only in memory (where it is the whole report, one
/// object); otherwise the rows are in [`print_tables`]' object.
fn print_cpu(cells: &[Measured], in_memory: bool, format: Format) -> CmdResult {
    if format.json {
        return match in_memory {
            true => say(json!({ "cpu": cpu_rows(cells, true) })),
            false => Ok(()),
        };
    }
    let table = alibi_bench::mpc::cpu_table(cells, in_memory);
    if table.rows.is_empty() {
        return Ok(());
    }
    let whose = if in_memory {
        "of this process"
    } else {
        "of every party process and of this one, which runs the relay"
    };
    say(format!(
        "\nCPU seconds (user and system, every thread {whose}) beside wall-clock seconds, per \
         run:\n\n{}",
        table.markdown().trim_end()
    ))
}

/// The later runs' median time per round ([`alibi_bench::mpc::rounds::summary`]), as a table or
/// as JSON rows (a second JSON line, after the comparison's).
fn print_rounds(timed: &[RunRounds], format: Format) -> CmdResult {
    let summary = alibi_bench::mpc::rounds::summary(timed);
    if format.json {
        let rows: Vec<serde_json::Value> = summary
            .iter()
            .map(|r| {
                let c = &r.cell;
                json!({
                    "scheme": c.scheme.name(), "n": c.n, "delay_ms": c.delay,
                    "transport": c.mode.to_string(), "phase": r.phase.name(),
                    "round": r.round, "median_ms": r.median_ms, "min_ms": r.min_ms,
                    "max_ms": r.max_ms, "runs": r.runs,
                })
            })
            .collect();
        return say(json!({ "rounds": rows }));
    }
    if summary.is_empty() {
        return say("\nno round timed: only BLS runs are timed per round");
    }
    let table = alibi_bench::mpc::rounds::rounds_table(&summary);
    say(format!(
        "\ntime per round, median of the later runs (a round lasts from when the last party sent \
         it to when the last party sent the next; start: until every party had sent its first):\n\n{}",
        table.markdown().trim_end()
    ))
}

/// `--replot`: the tables and the plots again from a CSV `bench` wrote (this or the older
/// BLS-only format), without measuring.
fn replot_csv(from: &Path, plot: &Path, format: Format) -> CmdResult {
    let cells = alibi_bench::mpc::parse_scheme_csv(&read(from)?)
        .map_err(|e| Failure::Usage(format!("{}: {e}", from.display())))?;
    let mut delays: Vec<u64> = cells.iter().map(|c| c.cell.delay).collect();
    delays.sort_unstable();
    delays.dedup();
    print_tables(&cells, format)?;
    draw_all(&cells, &delays, plot).map(|_| ())
}

/// The schemes measured, in the order they came.
fn schemes_of(cells: &[Measured]) -> Vec<Scheme> {
    let mut out: Vec<Scheme> = vec![];
    for c in cells {
        if !out.contains(&c.scheme) {
            out.push(c.scheme);
        }
    }
    out
}

/// Per scheme: the comparison table (a heading names the scheme unless it is BLS alone), then
/// the requests and bytes per run; or the same as JSON rows.
fn print_tables(cells: &[Measured], format: Format) -> CmdResult {
    let schemes = schemes_of(cells);
    let mut json_rows = vec![];
    for (i, &scheme) in schemes.iter().enumerate() {
        let mine: Vec<Measured> = cells
            .iter()
            .filter(|c| c.scheme == scheme)
            .copied()
            .collect();
        let plain: Vec<alibi_bench::mpc::Cell> = mine.iter().map(|m| m.cell).collect();
        let rows = alibi_bench::mpc::comparison(&plain);
        if !format.json {
            if i > 0 {
                say("")?;
            }
            if schemes != [Scheme::Bls] {
                say(format!("## {scheme}\n"))?;
            }
            let table = alibi_bench::mpc::comparison_table(&rows).markdown();
            say(table.trim_end())?;
            let traffic = alibi_bench::mpc::traffic_table(&mine).markdown();
            say(format!(
                "\nrequests and KiB sent per run, all parties:\n\n{}",
                traffic.trim_end()
            ))?;
            continue;
        }
        json_rows.extend(rows.iter().map(|r| comparison_json(scheme, r, &mine)));
    }
    let presign = presign_rows(cells);
    if format.json {
        let cpu = cpu_rows(cells, false);
        return say(json!({ "rows": json_rows, "presign": presign, "cpu": cpu }));
    }
    if !presign.is_empty() {
        say(
            "\npresigning, timed apart (the sign columns above are the online signing with the \
             presignature, one round):\n",
        )?;
        for r in &presign {
            say(format!(
                "n = {}, {} ms delay, {}: first {:.0} ms, later {:.0} ms",
                r["n"],
                r["delay_ms"],
                r["transport"].as_str().unwrap_or(""),
                r["first_ms"].as_f64().unwrap_or(f64::NAN),
                r["later_ms"].as_f64().unwrap_or(f64::NAN)
            ))?;
        }
    }
    Ok(())
}

/// The presigning time of each cell that presigned, first and later run.
fn presign_rows(cells: &[Measured]) -> Vec<serde_json::Value> {
    cells
        .iter()
        .filter_map(|m| {
            let [Some(first), Some(later)] = m.presign else {
                return None;
            };
            let c = &m.cell;
            Some(
                json!({"scheme": m.scheme.name(), "n": c.n, "t": c.t, "delay_ms": c.delay,
                        "transport": c.mode.to_string(), "first_ms": ms(first),
                        "later_ms": ms(later)}),
            )
        })
        .collect()
}

/// One comparison row as JSON, with the requests and bytes of each transport's run.
fn comparison_json(scheme: Scheme, r: &Comparison, cells: &[Measured]) -> serde_json::Value {
    let msv = |d: Option<Duration>| d.map(ms);
    let (k, s) = (&r.keygen, &r.sign);
    let (kf, sf) = (Comparison::group_faster(k), Comparison::group_faster(s));
    let i = usize::from(r.run == "later");
    let of = |mode: Mode| {
        cells
            .iter()
            .find(|m| m.cell.mode == mode && m.cell.delay == r.delay && m.cell.n == r.n)
    };
    let requests =
        |mode| of(mode).map(|m| if i == 0 { m.cell.first } else { m.cell.later }.requests);
    let bytes = |mode| of(mode).and_then(|m| m.bytes[i]);
    json!({
        "scheme": scheme.name(),
        "n": r.n, "t": r.t, "delay_ms": r.delay, "run": r.run,
        "keygen_pairwise_ms": msv(k[0]), "keygen_concurrent_ms": msv(k[1]),
        "keygen_group_ms": msv(k[2]),
        "keygen_group_vs_pairwise_pct": kf[0],
        "keygen_group_vs_concurrent_pct": kf[1],
        "sign_pairwise_ms": msv(s[0]), "sign_concurrent_ms": msv(s[1]),
        "sign_group_ms": msv(s[2]),
        "sign_group_vs_pairwise_pct": sf[0],
        "sign_group_vs_concurrent_pct": sf[1],
        "requests_pairwise": requests(Mode::Pairwise),
        "requests_concurrent": requests(Mode::PairwiseConcurrent),
        "requests_group": requests(Mode::Group),
        "bytes_pairwise": bytes(Mode::Pairwise),
        "bytes_concurrent": bytes(Mode::PairwiseConcurrent),
        "bytes_group": bytes(Mode::Group),
    })
}

/// Every scheme's plot: the first at `path`, each other beside it named after its scheme.
fn draw_all(cells: &[Measured], delays: &[u64], path: &Path) -> Result<Vec<String>, Failure> {
    let mut written = vec![];
    for (i, scheme) in schemes_of(cells).into_iter().enumerate() {
        let plain: Vec<alibi_bench::mpc::Cell> = cells
            .iter()
            .filter(|c| c.scheme == scheme)
            .map(|c| c.cell)
            .collect();
        let at = if i == 0 {
            path.to_path_buf()
        } else {
            let stem = path
                .file_stem()
                .map_or("mpc-bench".into(), |s| s.to_string_lossy());
            let ext = path
                .extension()
                .map_or("svg".into(), |e| e.to_string_lossy());
            path.with_file_name(format!("{stem}-{scheme}.{ext}"))
        };
        draw(&plain, delays, &at)?;
        written.push(at.display().to_string());
    }
    Ok(written)
}

/// The plot, atomically (data: an existing file is replaced, as `--replot` redraws the old one).
fn draw(cells: &[alibi_bench::mpc::Cell], delays: &[u64], path: &Path) -> CmdResult {
    let svg = alibi_bench::mpc::svg(cells, delays)
        .map_err(|e| Failure::Usage(format!("{}: {e}", path.display())))?;
    write("--plot", path, Kind::Report, svg.as_bytes(), false)
}
