//! Threshold key generation (t = n - 1) and signing by n parties over a relay in this process,
//! the experiment of seed 002 (Yang, Zhang 2023, section 4): one [`Grid`] of schemes (alibi's BLS
//! and the established crates' threshold signatures, [`crate::mpc::scheme`]), party counts, relay
//! delays and transports, every party a task of this process or its own OS process
//! ([`crate::mpc::processes`]); per cell the first run (sessions and sender keys set up) and the
//! median of the later ones, with the requests and bytes the parties sent. `alibi bench` reports
//! it as seed 002; `alibi mpc bench` prints the [`comparison`] and [`traffic_table`] tables,
//! writes the [`scheme_csv`] and draws the [`svg`] plot.

pub mod life;
pub mod memory;
pub mod processes;
pub mod rounds;
pub mod scheme;

use std::collections::BTreeMap;
use std::time::Duration;

pub use alibi_mpc::local::Timing;
pub use alibi_mpc::relay::Mode;

use crate::measure::median_by;
use crate::plot::{self, Panel, Series};
use crate::table::{self, Table};
use crate::Error;
use processes::Launch;
use rounds::{CellId, RunRounds};
pub use scheme::{Cpu, PrimeBank, Run, Scheme, Setup};

/// The transports, in the order of tables and plots.
pub const MODES: [Mode; 3] = [Mode::Pairwise, Mode::PairwiseConcurrent, Mode::Group];

/// What to measure: every (scheme, delay, n, transport), in that nesting, with t = n - 1.
#[derive(Clone, Debug)]
pub struct Grid {
    /// Protocols.
    pub schemes: Vec<Scheme>,
    /// Party counts.
    pub ns: Vec<u16>,
    /// Relay delays per request, in milliseconds.
    pub delays: Vec<u64>,
    /// Transports.
    pub modes: Vec<Mode>,
    /// Runs after the first, of which the median is kept.
    pub later: usize,
    /// Give up on one run after this long.
    pub timeout: Duration,
    /// Threshold ECDSA with parties as processes: sign with presignatures (see
    /// [`Setup::presigned`]).
    pub presigned: bool,
}

impl Grid {
    /// How many cells it has.
    pub fn cells(&self) -> usize {
        self.schemes.len() * self.ns.len() * self.delays.len() * self.modes.len()
    }
}

/// How the parties of a cell run.
#[derive(Clone, Copy)]
pub enum Parties<'a> {
    /// Each a task of this process.
    Tasks,
    /// Each its own OS process, started by the launcher.
    Processes(&'a Launch<'a>),
    /// Each a task of this process over an in-memory transport, no relay ([`memory`]): the
    /// delay and the transport do not apply.
    Memory,
}

/// Progress through the grid.
#[derive(Clone, Debug)]
pub enum Progress {
    /// Safe primes for threshold ECDSA are being generated ahead of the timed runs.
    Primes {
        /// The party (1-based) whose pair is being searched for.
        party: usize,
        /// Seconds spent on this pair so far.
        elapsed_s: u64,
    },
    /// A cell is about to be measured.
    Cell {
        /// Protocol.
        scheme: Scheme,
        /// Parties.
        n: u16,
        /// Transport.
        mode: Mode,
        /// Relay delay, ms.
        delay: u64,
    },
    /// One run's time per round, with its cell (BLS with every party a process; the steps add
    /// up to the run's time).
    Rounds(RunRounds),
    /// One run of the cell announced last is measured (run 0 is the first, with its one-time
    /// steps): every run's figures, so that a report can give their spread, not only the
    /// first run and the later ones' median.
    Run {
        /// The run, 0 for the first, of `of`.
        run: usize,
        /// How many runs the cell made.
        of: usize,
        /// Its key generation and signing (online signing, with presignatures).
        timing: Timing,
        /// Its presigning, with presignatures.
        presign: Option<Duration>,
        /// Its CPU time, where measured (parties as processes, or in memory).
        cpu: Option<Cpu>,
    },
    /// The cell announced last is measured.
    Done,
}

/// One measured cell.
#[derive(Clone, Copy, Debug)]
pub struct Cell {
    /// Parties.
    pub n: u16,
    /// Threshold (n - 1 in the grid).
    pub t: usize,
    /// Relay delay, ms.
    pub delay: u64,
    /// Transport.
    pub mode: Mode,
    /// The first run.
    pub first: Timing,
    /// The median of the later runs.
    pub later: Timing,
}

/// One measured cell of a scheme, with the bytes its runs sent.
#[derive(Clone, Copy, Debug)]
pub struct Measured {
    /// Protocol.
    pub scheme: Scheme,
    /// Times and requests.
    pub cell: Cell,
    /// Bytes of request bodies the parties sent in the first run and the median later run
    /// (`None` where a CSV of the older format did not record them).
    pub bytes: [Option<u64>; 2],
    /// With presignatures ([`Grid::presigned`]), the presigning of the first run and of the
    /// median later run; the cell's signing times are then the online signing's.
    pub presign: [Option<Duration>; 2],
    /// The CPU time of the first run and of the median later run, where measured (parties as
    /// processes or in memory; not kept in the CSV).
    pub cpu: [Option<Cpu>; 2],
}

/// Generates safe primes into `primes` up to the largest of `ns` when one of `schemes` needs
/// them (threshold ECDSA; slow, untimed), telling `progress` of the search
/// ([`Progress::Primes`]).
pub fn fill_primes(
    primes: &mut PrimeBank,
    schemes: &[Scheme],
    ns: &[u16],
    progress: &mut dyn FnMut(Progress),
) {
    if !schemes.iter().any(|s| s.needs_primes()) {
        return;
    }
    let most = ns.iter().copied().max().map_or(0, usize::from);
    primes.fill(most, &mut |party, p| {
        if let alibi_mpc::scheme::PrimeProgress::Searching { elapsed, .. } = p {
            let elapsed_s = elapsed.as_secs();
            progress(Progress::Primes { party, elapsed_s });
        }
    });
}

/// Measures every cell of `grid`, reporting progress to `progress`. Threshold ECDSA's safe
/// primes come from `primes`, which is first filled up to the largest n (untimed).
pub async fn measure(
    grid: &Grid,
    parties: Parties<'_>,
    primes: &mut PrimeBank,
    progress: &mut dyn FnMut(Progress),
) -> Result<Vec<Measured>, Error> {
    if let Some(n) = grid.ns.iter().find(|&&n| n < 2) {
        return Err(Error::Run(format!("{n} parties: a cell needs at least 2")));
    }
    fill_primes(primes, &grid.schemes, &grid.ns, progress);
    let mut cells = vec![];
    for &scheme in &grid.schemes {
        for &delay in &grid.delays {
            for &n in &grid.ns {
                for &mode in &grid.modes {
                    progress(Progress::Cell {
                        scheme,
                        n,
                        mode,
                        delay,
                    });
                    let which = (scheme, delay, n, mode);
                    cells.push(cell(grid, parties, primes, which, progress).await?);
                    progress(Progress::Done);
                }
            }
        }
    }
    Ok(cells)
}

/// One cell: a fresh relay, the first run and the median of the later ones.
async fn cell(
    grid: &Grid,
    parties: Parties<'_>,
    primes: &PrimeBank,
    (scheme, delay, n, mode): (Scheme, u64, u16, Mode),
    progress: &mut dyn FnMut(Progress),
) -> Result<Measured, Error> {
    let t = usize::from(n) - 1;
    let setup = Setup {
        scheme,
        n,
        t,
        mode,
        later: grid.later,
        timeout: grid.timeout,
        presigned: grid.presigned,
    };
    if grid.presigned && !matches!(parties, Parties::Processes(_)) {
        return Err(Error::Run(
            "presignatures are measured with parties as processes".into(),
        ));
    }
    // A fresh relay per cell: what earlier cells left in a relay (their parties'
    // accounts, keys and last unacknowledged envelopes) would otherwise slow the
    // transports measured later, at n = 64 by about 1 s.
    let relay = match parties {
        Parties::Memory => None,
        _ => Some(scheme::bench_relay(delay).await?),
    };
    let url = relay.as_ref().map_or("", |r| r.url.as_str());
    let mut runs = match parties {
        Parties::Processes(launch) => {
            let cell = CellId {
                scheme,
                n,
                delay,
                mode,
            };
            let mut on_rounds = |run, phase, steps| {
                progress(Progress::Rounds(RunRounds {
                    cell,
                    run,
                    phase,
                    steps,
                }))
            };
            processes::measure(launch, url, &setup, primes, &mut on_rounds).await?
        }
        Parties::Tasks => scheme::measure(url, &setup, primes).await?,
        Parties::Memory => memory::measure(&setup, primes).await?,
    };
    if runs.is_empty() {
        return Err(Error::Run("no run measured".into()));
    }
    for (run, r) in runs.iter().enumerate() {
        let (of, timing, presign, cpu) = (runs.len(), r.timing, r.presign, r.cpu);
        progress(Progress::Run {
            run,
            of,
            timing,
            presign,
            cpu,
        });
    }
    let first = runs.remove(0);
    let later = median_by(runs, |r| r.timing.keygen + r.timing.sign)
        .ok_or(Error::Run("no later run measured".into()))?;
    Ok(Measured {
        scheme,
        cell: Cell {
            n,
            t,
            delay,
            mode,
            first: first.timing,
            later: later.timing,
        },
        bytes: [Some(first.bytes), Some(later.bytes)],
        presign: [first.presign, later.presign],
        cpu: [first.cpu, later.cpu],
    })
}

/// The run whose key generation and signing took the median time together (the later of the
/// two middle ones for an even count); `None` for none.
pub fn median(v: Vec<Timing>) -> Option<Timing> {
    median_by(v, |t| t.keygen + t.sign)
}

/// How much less time `group` took than `baseline`, in percent.
pub fn faster(baseline: Duration, group: Duration) -> f64 {
    100.0 * (1.0 - group.as_secs_f64() / baseline.as_secs_f64())
}

/// A duration in milliseconds.
pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The columns of the CSV [`csv`] writes: one row per cell and run.
pub const CSV_COLUMNS: [&str; 8] = [
    "n",
    "t",
    "delay_ms",
    "run",
    "transport",
    "keygen_ms",
    "sign_ms",
    "requests",
];

/// The cells as CSV, one row per cell and run (first, later), in the cells' order.
pub fn csv(cells: &[Cell]) -> String {
    let mut rows = vec![];
    for c in cells {
        for (run, tm) in [("first", c.first), ("later", c.later)] {
            rows.push(run_fields(c, run, tm).map(table::Cell::from).to_vec());
        }
    }
    Table {
        columns: CSV_COLUMNS.map(String::from).to_vec(),
        rows,
        ..Table::default()
    }
    .csv()
}

/// One run of a cell as the [`CSV_COLUMNS`] say.
fn run_fields(c: &Cell, run: &str, tm: Timing) -> [String; 8] {
    [
        c.n.to_string(),
        c.t.to_string(),
        c.delay.to_string(),
        run.to_string(),
        c.mode.to_string(),
        format!("{:.1}", ms(tm.keygen)),
        format!("{:.1}", ms(tm.sign)),
        tm.requests.to_string(),
    ]
}

/// The cells of a CSV [`csv`] wrote, ordered by (delay, n, transport name); anything else
/// (another header, no rows) is refused rather than read as an empty grid.
pub fn parse_csv(bytes: &[u8]) -> Result<Vec<Cell>, Error> {
    let text = std::str::from_utf8(bytes).map_err(|_| Error::NotMpcCsv)?;
    if text.lines().next().map(str::trim) != Some(CSV_COLUMNS.join(",").as_str()) {
        return Err(Error::NotMpcCsv);
    }
    // (delay, n, transport) -> (t, first run, later runs)
    type Row = (usize, Option<Timing>, Option<Timing>);
    let mut rows: BTreeMap<(u64, u16, String), Row> = BTreeMap::new();
    for line in text.lines().skip(1).filter(|l| !l.is_empty()) {
        let f: Vec<&str> = line.split(',').collect();
        if f.len() != CSV_COLUMNS.len() {
            return Err(Error::NotMpcCsv);
        }
        let num = |i: usize| f[i].parse::<f64>().map_err(|_| Error::NotMpcCsv);
        let timing = Timing {
            keygen: Duration::try_from_secs_f64(num(5)? / 1e3).map_err(|_| Error::NotMpcCsv)?,
            sign: Duration::try_from_secs_f64(num(6)? / 1e3).map_err(|_| Error::NotMpcCsv)?,
            requests: num(7)? as u64,
        };
        let key = (num(2)? as u64, num(0)? as u16, f[4].to_string());
        let row = rows.entry(key).or_insert((num(1)? as usize, None, None));
        match f[3] {
            "first" => row.1 = Some(timing),
            "later" => row.2 = Some(timing),
            _ => return Err(Error::NotMpcCsv),
        }
    }
    if rows.is_empty() {
        return Err(Error::NoMeasurements);
    }
    rows.into_iter()
        .map(|((delay, n, mode), (t, first, later))| {
            let mode = MODES
                .into_iter()
                .find(|m| m.to_string() == mode)
                .ok_or(Error::NotMpcCsv)?;
            Ok(Cell {
                n,
                t,
                delay,
                mode,
                first: first.ok_or(Error::NotMpcCsv)?,
                later: later.ok_or(Error::NotMpcCsv)?,
            })
        })
        .collect()
}

/// The columns of the CSV [`scheme_csv`] writes: [`CSV_COLUMNS`] with the scheme first and the
/// bytes the parties sent last.
pub const SCHEME_CSV_COLUMNS: [&str; 10] = [
    "scheme",
    "n",
    "t",
    "delay_ms",
    "run",
    "transport",
    "keygen_ms",
    "sign_ms",
    "requests",
    "bytes",
];

/// The measured cells as CSV, one row per cell and run (first, later), in their order.
pub fn scheme_csv(cells: &[Measured]) -> String {
    let mut rows = vec![];
    for m in cells {
        let c = &m.cell;
        for ((run, tm), bytes) in [("first", c.first), ("later", c.later)]
            .into_iter()
            .zip(m.bytes)
        {
            let scheme = core::iter::once(m.scheme.to_string());
            let bytes = bytes.map_or(String::new(), |b| b.to_string());
            let fields = scheme.chain(run_fields(c, run, tm)).chain([bytes]);
            rows.push(fields.map(table::Cell::from).collect());
        }
    }
    Table {
        columns: SCHEME_CSV_COLUMNS.map(String::from).to_vec(),
        rows,
        ..Table::default()
    }
    .csv()
}

/// The cells of a CSV [`scheme_csv`] wrote, by scheme in [`Scheme::ALL`] order and then as
/// [`parse_csv`] orders them; a CSV of the older format ([`csv`], BLS only, no bytes) reads as
/// BLS cells without bytes.
pub fn parse_scheme_csv(bytes: &[u8]) -> Result<Vec<Measured>, Error> {
    let text = std::str::from_utf8(bytes).map_err(|_| Error::NotMpcCsv)?;
    let header = text.lines().next().map(str::trim);
    if header == Some(CSV_COLUMNS.join(",").as_str()) {
        let cells = parse_csv(bytes)?;
        return Ok(cells
            .into_iter()
            .map(|cell| Measured {
                scheme: Scheme::Bls,
                cell,
                bytes: [None, None],
                presign: [None, None],
                cpu: [None, None],
            })
            .collect());
    }
    if header != Some(SCHEME_CSV_COLUMNS.join(",").as_str()) {
        return Err(Error::NotMpcCsv);
    }
    // Each scheme's rows as a CSV of the older format (bytes kept aside by key).
    let mut out = vec![];
    for scheme in Scheme::ALL {
        let mut old = CSV_COLUMNS.join(",");
        let mut bytes_of: BTreeMap<(String, String, String, String), Option<u64>> = BTreeMap::new();
        for line in text.lines().skip(1).filter(|l| !l.is_empty()) {
            let f: Vec<&str> = line.split(',').collect();
            if f.len() != SCHEME_CSV_COLUMNS.len() {
                return Err(Error::NotMpcCsv);
            }
            if f[0].parse::<Scheme>().is_err() {
                return Err(Error::NotMpcCsv);
            }
            if f[0] != scheme.name() {
                continue;
            }
            old.push('\n');
            old.push_str(&f[1..9].join(","));
            let b = match f[9] {
                "" => None,
                b => Some(b.parse::<u64>().map_err(|_| Error::NotMpcCsv)?),
            };
            let key = (
                f[3].to_string(),
                f[1].to_string(),
                f[5].to_string(),
                f[4].to_string(),
            );
            bytes_of.insert(key, b);
        }
        if !old.contains('\n') {
            continue;
        }
        old.push('\n');
        for cell in parse_csv(old.as_bytes())? {
            let key = |run: &str| {
                let k = (
                    cell.delay.to_string(),
                    cell.n.to_string(),
                    cell.mode.to_string(),
                    run.to_string(),
                );
                bytes_of.get(&k).copied().flatten()
            };
            out.push(Measured {
                scheme,
                cell,
                bytes: [key("first"), key("later")],
                presign: [None, None],
                cpu: [None, None],
            });
        }
    }
    if out.is_empty() {
        return Err(Error::NoMeasurements);
    }
    Ok(out)
}

/// Per (delay, n, run) as the cells come: the requests and bytes each transport's run sent
/// (all parties together), in [`MODES`] order.
pub fn traffic_table(cells: &[Measured]) -> Table {
    let mut keys: Vec<(u64, u16, usize)> = cells
        .iter()
        .map(|m| (m.cell.delay, m.cell.n, m.cell.t))
        .collect();
    keys.dedup();
    let mut rows = vec![];
    for (delay, n, t) in keys {
        let of = |mode: Mode| {
            cells
                .iter()
                .find(|m| m.cell.mode == mode && m.cell.delay == delay && m.cell.n == n)
        };
        for (i, run) in ["first", "later"].into_iter().enumerate() {
            let mut row = vec![
                n.to_string(),
                t.to_string(),
                format!("{delay} ms"),
                run.into(),
            ];
            for mode in MODES {
                let tm = of(mode).map(|m| if i == 0 { m.cell.first } else { m.cell.later });
                row.push(tm.map_or("-".into(), |x| x.requests.to_string()));
            }
            for mode in MODES {
                let b = of(mode).and_then(|m| m.bytes[i]);
                row.push(b.map_or("-".into(), |b| format!("{:.1}", b as f64 / 1024.0)));
            }
            rows.push(row.into_iter().map(table::Cell::from).collect());
        }
    }
    let mut columns: Vec<String> = ["n", "t", "delay", "run"].map(String::from).to_vec();
    for what in ["requests", "KiB sent"] {
        columns.extend([
            format!("{what} pairwise"),
            format!("{what} concurrent"),
            format!("{what} group"),
        ]);
    }
    Table {
        columns,
        rows,
        ..Table::default()
    }
}

/// CPU seconds beside wall-clock seconds of each cell's first and median later run, where its
/// CPU time was measured ([`Measured::cpu`]): key generation, presigning where there was one,
/// and signing. `in_memory` names the channel column for cells of [`Parties::Memory`].
pub fn cpu_table(cells: &[Measured], in_memory: bool) -> Table {
    let s = |d: Duration| format!("{:.2}", d.as_secs_f64());
    let mut rows = vec![];
    for m in cells {
        let c = &m.cell;
        let channel = if in_memory {
            "in memory".to_string()
        } else {
            format!("{}, {} ms", c.mode, c.delay)
        };
        for (i, run) in ["first", "later"].into_iter().enumerate() {
            let Some(cpu) = m.cpu[i] else { continue };
            let tm = if i == 0 { c.first } else { c.later };
            let presign = cpu.presign.map_or("-".into(), s);
            let row = [
                m.scheme.name().to_string(),
                c.n.to_string(),
                c.t.to_string(),
                channel.clone(),
                run.into(),
                s(cpu.keygen),
                s(tm.keygen),
                presign,
                s(cpu.sign),
                s(tm.sign),
            ];
            rows.push(row.into_iter().map(table::Cell::from).collect());
        }
    }
    let columns = [
        "scheme",
        "n",
        "t",
        "channel",
        "run",
        "keygen CPU s",
        "keygen s",
        "presign CPU s",
        "sign CPU s",
        "sign s",
    ];
    Table {
        columns: columns.map(String::from).to_vec(),
        rows,
        ..Table::default()
    }
}

/// One row of the [`comparison`] table: per (delay, n, run), each transport's times (in
/// [`MODES`] order; `None` where the transport was not measured).
#[derive(Clone, Debug)]
pub struct Comparison {
    /// Parties.
    pub n: u16,
    /// Threshold.
    pub t: usize,
    /// Relay delay, ms.
    pub delay: u64,
    /// "first" or "later".
    pub run: &'static str,
    /// Key generation: pairwise, pairwise concurrent, group.
    pub keygen: [Option<Duration>; 3],
    /// Signing: pairwise, pairwise concurrent, group.
    pub sign: [Option<Duration>; 3],
}

impl Comparison {
    /// How much faster group was than each pairwise baseline (sequential, concurrent), in
    /// percent, for the key generation or signing times `x`; none against a baseline that
    /// took no time (a key generated in an earlier run, [`Grid::presigned`]).
    pub fn group_faster(x: &[Option<Duration>; 3]) -> [Option<f64>; 2] {
        [0, 1].map(|b| {
            let pair = x[b].zip(x[2]).filter(|(b, _)| !b.is_zero());
            pair.map(|(b, g)| faster(b, g))
        })
    }
}

/// The rows of the table that compares the transports: per (delay, n) as the cells come, the
/// first run and the later ones.
pub fn comparison(cells: &[Cell]) -> Vec<Comparison> {
    let mut keys: Vec<(u64, u16, usize)> = cells.iter().map(|c| (c.delay, c.n, c.t)).collect();
    keys.dedup();
    let mut rows = vec![];
    for (delay, n, t) in keys {
        let of = |mode: Mode| {
            cells
                .iter()
                .find(|c| c.mode == mode && c.delay == delay && c.n == n)
        };
        let measured = MODES.map(of);
        for run in ["first", "later"] {
            let pick = |c: Option<&Cell>| c.map(|c| if run == "first" { c.first } else { c.later });
            let timings = measured.map(pick);
            rows.push(Comparison {
                n,
                t,
                delay,
                run,
                keygen: timings.map(|x| x.map(|x| x.keygen)),
                sign: timings.map(|x| x.map(|x| x.sign)),
            });
        }
    }
    rows
}

/// The [`comparison`] rows as a table: times in whole ms, percentages to a tenth.
pub fn comparison_table(rows: &[Comparison]) -> Table {
    let shown = |d: Option<Duration>| d.map_or("-".to_string(), |d| format!("{:.0} ms", ms(d)));
    let pct = |p: Option<f64>| p.map_or("-".to_string(), |p| format!("{p:.1}%"));
    let mut cells = vec![];
    for r in rows {
        let mut row = vec![
            r.n.to_string(),
            r.t.to_string(),
            format!("{} ms", r.delay),
            r.run.to_string(),
        ];
        for x in [&r.keygen, &r.sign] {
            row.extend(x.map(shown));
            row.extend(Comparison::group_faster(x).map(pct));
        }
        cells.push(row.into_iter().map(table::Cell::from).collect());
    }
    let mut columns: Vec<String> = ["n", "t", "delay", "run"].map(String::from).to_vec();
    for what in ["keygen", "sign"] {
        columns.extend([
            format!("{what} pairwise"),
            format!("{what} concurrent"),
            format!("{what} group"),
            "group vs pairwise".into(),
            "group vs concurrent".into(),
        ]);
    }
    Table {
        columns,
        rows: cells,
        ..Table::default()
    }
}

/// Two panels (key generation, signing): the later runs' time against n, one line per
/// transport and delay (`delays` in order, each with the transports in [`MODES`] order).
pub fn svg(cells: &[Cell], delays: &[u64]) -> Result<String, Error> {
    let panel = |title: &str, pick: fn(&Timing) -> Duration| {
        let mut series = vec![];
        for &delay in delays {
            for mode in MODES {
                let points: Vec<(f64, f64)> = cells
                    .iter()
                    .filter(|c| c.mode == mode && c.delay == delay)
                    .map(|c| (f64::from(c.n), ms(pick(&c.later))))
                    .collect();
                if !points.is_empty() {
                    series.push(Series {
                        label: format!("{mode}, {delay} ms delay"),
                        points,
                    });
                }
            }
        }
        Panel {
            title: title.to_string(),
            series,
        }
    };
    plot::lines(
        &[
            panel("key generation (later runs)", |t| t.keygen),
            panel("signing, t+1 = n signers (later runs)", |t| t.sign),
        ],
        ("parties n (log scale)", "ms (log scale)"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn timing(keygen: u64, sign: u64) -> Timing {
        Timing {
            keygen: Duration::from_millis(keygen),
            sign: Duration::from_millis(sign),
            requests: 7,
        }
    }

    fn cells() -> Vec<Cell> {
        MODES
            .into_iter()
            .zip([(100, 40), (50, 20), (25, 10)])
            .map(|(mode, (k, s))| Cell {
                n: 3,
                t: 2,
                delay: 50,
                mode,
                first: timing(2 * k, 2 * s),
                later: timing(k, s),
            })
            .collect()
    }

    #[test]
    fn the_cpu_table_has_a_row_per_run_whose_cpu_was_measured() {
        let mut m: Vec<Measured> = cells()
            .into_iter()
            .map(|cell| Measured {
                scheme: Scheme::Bls,
                cell,
                bytes: [None, None],
                presign: [None, None],
                cpu: [None, None],
            })
            .collect();
        let cpu = Cpu {
            keygen: Duration::from_millis(2500),
            presign: None,
            sign: Duration::from_millis(400),
        };
        m[0].cpu = [Some(cpu), None];
        m[2].cpu = [Some(cpu), Some(cpu)];
        let over_relay = cpu_table(&m, false).markdown();
        assert_eq!(cpu_table(&m, false).rows.len(), 3, "{over_relay}");
        assert!(over_relay.contains("| 2.50 |") && over_relay.contains("| 0.40 |"));
        assert!(over_relay.contains("pairwise, 50 ms") && over_relay.contains("group, 50 ms"));
        let in_memory = cpu_table(&m, true).markdown();
        assert!(in_memory.contains("in memory") && !in_memory.contains("50 ms"));
        assert!(cpu_table(&m[1..2], false).rows.is_empty());
    }

    #[test]
    fn the_median_run_is_the_later_middle_one() {
        assert!(median(vec![]).is_none());
        let m = median(vec![timing(30, 0), timing(10, 0), timing(20, 1)]).unwrap();
        assert_eq!(m.keygen, Duration::from_millis(20));
        let m = median(vec![timing(30, 0), timing(10, 0)]).unwrap();
        assert_eq!(m.keygen, Duration::from_millis(30));
    }

    #[test]
    fn the_csv_reads_back_as_written() {
        let text = csv(&cells());
        assert!(text.starts_with("n,t,delay_ms,run,transport,keygen_ms,sign_ms,requests\n"));
        assert!(
            text.contains("3,2,50,later,pairwise-concurrent,50.0,20.0,7\n"),
            "{text}"
        );
        let back = parse_csv(text.as_bytes()).unwrap();
        assert_eq!(csv(&back).lines().count(), text.lines().count());
        // Read back ordered by transport name: group, pairwise, pairwise-concurrent.
        assert_eq!(back[0].mode, Mode::Group);
        assert_eq!(back[2].later.sign, Duration::from_millis(20));
    }

    #[test]
    fn other_csvs_are_refused() {
        let header = CSV_COLUMNS.join(",");
        for bad in [
            "hello,world\n1,2\n".to_string(),
            format!("{header}\n3,2,0,first,group,1.0,2.0\n"),
            format!("{header}\n3,2,0,third,group,1.0,2.0,3\n"),
            format!("{header}\n3,2,0,first,carrier-pigeon,1.0,2.0,3\n"),
            format!("{header}\n3,2,0,first,group,-1.0,2.0,3\n"),
            format!("{header}\n3,2,0,first,group,1.0,2.0,3\n"),
        ] {
            assert!(
                matches!(parse_csv(bad.as_bytes()), Err(Error::NotMpcCsv)),
                "{bad}"
            );
        }
        assert!(matches!(
            parse_csv(format!("{header}\n").as_bytes()),
            Err(Error::NoMeasurements)
        ));
        assert!(matches!(parse_csv(&[0xff, 0xfe]), Err(Error::NotMpcCsv)));
    }

    #[test]
    fn the_comparison_puts_group_against_both_baselines() {
        let rows = comparison(&cells());
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[1].run, "later");
        assert_eq!(
            Comparison::group_faster(&rows[1].keygen),
            [Some(75.0), Some(50.0)]
        );
        let md = comparison_table(&rows).markdown();
        assert!(md.starts_with("| n | t | delay | run | keygen pairwise | keygen concurrent | keygen group | group vs pairwise | group vs concurrent | sign pairwise |"), "{md}");
        assert!(
            md.contains("| 3 | 2 | 50 ms | later | 100 ms | 50 ms | 25 ms | 75.0% | 50.0% | 40 ms | 20 ms | 10 ms | 75.0% | 50.0% |"),
            "{md}"
        );
        // A key generated in an earlier run took no time: nothing to compare, not NaN.
        let zero = Some(Duration::ZERO);
        let reused = [zero, Some(Duration::from_millis(5)), zero];
        assert_eq!(Comparison::group_faster(&reused), [None, Some(100.0)]);
    }

    #[test]
    fn the_scheme_csv_reads_back_and_old_csvs_read_as_bls() {
        let frost = Scheme::FrostEd25519;
        let measured: Vec<Measured> = [Scheme::Bls, frost]
            .into_iter()
            .flat_map(|scheme| {
                cells().into_iter().map(move |cell| Measured {
                    scheme,
                    cell,
                    bytes: [Some(2048), Some(1024)],
                    presign: [None, None],
                    cpu: [None, None],
                })
            })
            .collect();
        let text = scheme_csv(&measured);
        assert!(text
            .starts_with("scheme,n,t,delay_ms,run,transport,keygen_ms,sign_ms,requests,bytes\n"));
        assert!(
            text.contains("frost-ed25519,3,2,50,later,group,25.0,10.0,7,1024\n"),
            "{text}"
        );
        let back = parse_scheme_csv(text.as_bytes()).unwrap();
        assert_eq!(back.len(), 6);
        assert_eq!(back[3].scheme, frost);
        assert_eq!(back[3].bytes, [Some(2048), Some(1024)]);
        assert_eq!(scheme_csv(&back).lines().count(), text.lines().count());
        let old = parse_scheme_csv(csv(&cells()).as_bytes()).unwrap();
        assert!(old
            .iter()
            .all(|m| m.scheme == Scheme::Bls && m.bytes == [None, None]));
        let table = traffic_table(&back[..3]).markdown();
        assert!(
            table.contains("| 3 | 2 | 50 ms | later | 7 | 7 | 7 | 1.0 | 1.0 | 1.0 |"),
            "{table}"
        );
        for bad in ["scheme,n\n", "hello\n"] {
            assert!(matches!(
                parse_scheme_csv(bad.as_bytes()),
                Err(Error::NotMpcCsv)
            ));
        }
        let unknown = text.replace("frost-ed25519,", "rsa,");
        assert!(matches!(
            parse_scheme_csv(unknown.as_bytes()),
            Err(Error::NotMpcCsv)
        ));
    }

    #[test]
    fn the_plot_has_a_line_per_transport_and_delay() {
        let s = svg(&cells(), &[50]).unwrap();
        assert!(s.starts_with("<svg"));
        assert!(s.contains("pairwise-concurrent, 50 ms delay"), "{s}");
        assert!(s.contains("signing, t+1 = n signers (later runs)"));
    }
}
