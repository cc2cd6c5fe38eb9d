//! Seed 002 (Yang, Zhang 2023), section 4: threshold BLS key generation (t = n - 1) and signing
//! by n parties over an in-process relay, with broadcasts as sequential pairwise messages,
//! concurrent pairwise messages, or one group message; the first run (sessions and sender keys
//! set up) and later runs; no delay and 50 ms per relay request. The paper's Table 2 reports the
//! same cells; its claim is that group broadcast is at least 37.48% faster than pairwise. The
//! same grid, smaller, runs for FROST-Ed25519 and threshold ECDSA (CGGMP24) through the
//! round-based adapter (issue 44), with the requests and bytes the parties sent.

use std::time::Duration;

use super::Measurement;
use crate::mpc::{self, Grid, Parties, PrimeBank, Progress, Scheme, Timing, MODES};
use crate::table::{Cell, Plot, Table};
use crate::{op, Ctx, Error, Scale, Seed};

/// One (n, delay) point of a grid: per mode, the first run and the median of the later ones.
#[derive(Clone, Copy, Debug)]
struct Point {
    scheme: Scheme,
    n: u16,
    delay: u64,
    first: [Timing; 3],
    later: [Timing; 3],
    /// Bytes sent per mode, first and later run.
    bytes: [[Option<u64>; 3]; 2],
}

/// What one grid covered, for the intro: its scheme, party counts and later runs per cell.
#[derive(Clone, Debug)]
struct GridShape {
    scheme: Scheme,
    ns: Vec<u16>,
    later: usize,
}

/// What seed 002 measures: every grid's points, BLS first.
#[derive(Clone, Debug)]
pub(crate) struct Measured {
    /// Later runs per cell of the first (BLS) grid, which the intro names.
    later: usize,
    /// The grids, in the order they ran.
    grids: Vec<GridShape>,
    /// Every grid's points, in the order they ran.
    points: Vec<Point>,
    /// Threshold ECDSA's safe-prime sets generated in this run (the rest are fixtures).
    generated: usize,
}

impl Measurement for Measured {
    fn measure(ctx: &mut Ctx) -> Result<Self, Error> {
        measure(ctx)
    }

    fn render(&self) -> Table {
        render(self)
    }
}

/// The grids of each scale: BLS as before, FROST-Ed25519 on the same party counts, threshold
/// ECDSA (slow: its key generation proves its Paillier key to every party) at n = 3 in the full
/// run only.
fn grids(scale: Scale) -> Vec<Grid> {
    type Spec = (Scheme, &'static [u16], &'static [u64], usize);
    let frost = Scheme::FrostEd25519;
    let ecdsa = Scheme::EcdsaSecp256k1;
    let specs: &[Spec] = match scale {
        Scale::Tiny => &[(Scheme::Bls, &[3], &[0], 1), (frost, &[3], &[0], 1)],
        // ECDSA's key generation takes tens of seconds at n = 3 on two cores (its auxiliary
        // information proves each Paillier key to every party): only the full run has it.
        Scale::Quick => &[
            (Scheme::Bls, &[3, 4, 5], &[0, 50], 2),
            (frost, &[3, 4, 5], &[0, 50], 2),
        ],
        Scale::Full => &[
            (Scheme::Bls, &[3, 4, 5, 8, 16], &[0, 50], 4),
            (frost, &[3, 4, 5, 8, 16], &[0, 50], 4),
            (ecdsa, &[3], &[0, 50], 1),
        ],
    };
    specs
        .iter()
        .map(|&(scheme, ns, delays, later)| Grid {
            schemes: vec![scheme],
            ns: ns.to_vec(),
            delays: delays.to_vec(),
            modes: MODES.to_vec(),
            later,
            timeout: Duration::from_secs(120),
            presigned: false,
        })
        .collect()
}

/// The grid's cells grouped by (delay, n), the transports in [`MODES`] order.
fn points(cells: &[mpc::Measured]) -> Result<Vec<Point>, Error> {
    let mut out = vec![];
    for c in cells.chunks(MODES.len()) {
        let of = |mode| {
            c.iter()
                .find(|x| x.cell.mode == mode)
                .ok_or(Error::Operation("MPC run", format!("no {mode} cell")))
        };
        let [p, pc, g] = [of(MODES[0])?, of(MODES[1])?, of(MODES[2])?];
        out.push(Point {
            scheme: p.scheme,
            n: p.cell.n,
            delay: p.cell.delay,
            first: [p.cell.first, pc.cell.first, g.cell.first],
            later: [p.cell.later, pc.cell.later, g.cell.later],
            bytes: [0, 1].map(|i| [p.bytes[i], pc.bytes[i], g.bytes[i]]),
        });
    }
    Ok(out)
}

/// Runs every grid of `ctx.scale` with the parties as tasks of one runtime.
fn measure(ctx: &mut Ctx) -> Result<Measured, Error> {
    let grids = grids(ctx.scale);
    let later = grids[0].later;
    ctx.begin(Seed::Mpc, grids.iter().map(Grid::cells).sum());
    let runtime = op(
        "tokio runtime",
        tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build(),
    )?;
    let mut primes = PrimeBank::fixtures()?;
    let mut progress = |p| {
        if let Progress::Cell {
            scheme,
            n,
            mode,
            delay,
        } = p
        {
            ctx.step(format!("MPC {scheme} n = {n}, {mode}, {delay} ms"));
        }
    };
    let mut all = vec![];
    let mut shapes = vec![];
    for grid in &grids {
        let cells = runtime
            .block_on(mpc::measure(
                grid,
                Parties::Tasks,
                &mut primes,
                &mut progress,
            ))
            .map_err(|e| match e {
                Error::Run(m) => Error::Operation("MPC run", m),
                e => e,
            })?;
        shapes.push(GridShape {
            scheme: grid.schemes[0],
            ns: grid.ns.clone(),
            later: grid.later,
        });
        all.extend(cells);
    }
    Ok(Measured {
        later,
        grids: shapes,
        points: points(&all)?,
        generated: primes.generated(),
    })
}

/// The table, from the figures alone.
fn render(m: &Measured) -> Table {
    Table {
        id: "seed002-mpc".into(),
        title: "Seed 002: threshold BLS over pairwise and group channels".into(),
        intro: intro(m),
        columns: [
            "n",
            "t",
            "delay (ms)",
            "run",
            "keygen pairwise (ms)",
            "keygen concurrent (ms)",
            "keygen group (ms)",
            "group faster than pairwise",
            "sign pairwise (ms)",
            "sign concurrent (ms)",
            "sign group (ms)",
            "group faster than pairwise",
            "scheme",
            "requests (pairwise / concurrent / group)",
            "KiB sent (pairwise / concurrent / group)",
        ]
        .map(String::from)
        .to_vec(),
        rows: m.points.iter().flat_map(rows).collect(),
        notes: vec![
            "The paper's claim (quoted): broadcasting through the group channel is at least 37.48% \
             faster than pairwise fan-out."
                .into(),
        ],
        plot: plot(&m.points),
    }
}

/// The paragraphs before the table: how the runs were made, and what each grid covered.
fn intro(m: &Measured) -> Vec<String> {
    let measured_what: Vec<String> = m
        .grids
        .iter()
        .map(|g| {
            let ns: Vec<String> = g.ns.iter().map(u16::to_string).collect();
            format!(
                "{}: n = {}, median of {} later runs",
                g.scheme,
                ns.join(", "),
                g.later
            )
        })
        .collect();
    let (later, generated) = (m.later, m.generated);
    vec![format!(
        "n parties (t = n - 1), each a task with its own messenger, on an in-process relay with the \
         given delay per request; times in ms are the slowest party's (all start together). \
         \"first\" includes fetching bundles, opening sessions and handing out sender keys; \
         \"later\" is the median of {later} further runs on the same sessions. `alibi mpc bench \
         --processes` runs each party as its own OS process."
    ), format!(
        "Schemes: BLS is alibi's own; frost-ed25519 (givre) and ecdsa-secp256k1 (cggmp24, key \
         generation with its auxiliary information) run unchanged through the round-based \
         adapter over the same channels, signing with exactly t + 1 = n parties. Measured: {}. \
         Threshold ECDSA's safe primes are made before timing ({generated} sets generated \
         here, the rest the test fixtures of alibi-threshold-ecdsa) and are not in its key \
         generation time. Requests and KiB are what all parties sent to the relay in the run \
         (request bodies), per transport.",
        measured_what.join("; ")
    )]
}

/// A point's two rows: its first run, then its later runs.
fn rows(c: &Point) -> [Vec<Cell>; 2] {
    let ms = |d: Duration| format!("{:.1}", d.as_secs_f64() * 1e3);
    let faster = |base: Duration, group: Duration| format!("{:.0}%", mpc::faster(base, group));
    let kib = |b: Option<u64>| b.map_or("-".into(), |b| format!("{:.1}", b as f64 / 1024.0));
    let row = |i: usize, run: &str, t: &[Timing; 3]| -> Vec<Cell> {
        let requests: Vec<String> = t.iter().map(|x| x.requests.to_string()).collect();
        let bytes: Vec<String> = c.bytes[i].iter().map(|&b| kib(b)).collect();
        vec![
            c.n.to_string(),
            (c.n - 1).to_string(),
            c.delay.to_string(),
            run.to_string(),
            ms(t[0].keygen),
            ms(t[1].keygen),
            ms(t[2].keygen),
            faster(t[0].keygen, t[2].keygen),
            ms(t[0].sign),
            ms(t[1].sign),
            ms(t[2].sign),
            faster(t[0].sign, t[2].sign),
            c.scheme.to_string(),
            requests.join(" / "),
            bytes.join(" / "),
        ]
        .into_iter()
        .map(Cell::from)
        .collect()
    };
    [row(0, "first", &c.first), row(1, "later", &c.later)]
}

/// Key generation's later runs, one group of bars per point (BLS unlabelled).
fn plot(points: &[Point]) -> Plot {
    let groups = points
        .iter()
        .map(|c| {
            let scheme = match c.scheme {
                Scheme::Bls => String::new(),
                s => format!("{s} "),
            };
            (
                format!("{scheme}keygen n={} {}ms", c.n, c.delay),
                c.later
                    .iter()
                    .map(|x| Some(x.keygen.as_secs_f64() * 1e3))
                    .collect(),
            )
        })
        .collect();
    Plot {
        unit: "ms".into(),
        series: vec![
            "pairwise".into(),
            "pairwise concurrent".into(),
            "group".into(),
        ],
        groups,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Times in ms (keygen, sign per mode) and requests: made up, nothing runs.
    fn timings(keygen: [u64; 3], sign: [u64; 3]) -> [Timing; 3] {
        [0, 1, 2].map(|i| Timing {
            keygen: Duration::from_millis(keygen[i]),
            sign: Duration::from_millis(sign[i]),
            requests: 10 * (i as u64 + 1),
        })
    }

    #[test]
    fn two_rows_per_point_with_the_group_saving() {
        let point = |scheme, n| Point {
            scheme,
            n,
            delay: 50,
            first: timings([400, 300, 100], [200, 150, 50]),
            later: timings([200, 150, 150], [100, 80, 40]),
            bytes: [[Some(2048), Some(3072), None], [Some(1024), None, None]],
        };
        let m = Measured {
            later: 2,
            grids: vec![GridShape {
                scheme: Scheme::Bls,
                ns: vec![3, 4],
                later: 2,
            }],
            points: vec![point(Scheme::Bls, 3), point(Scheme::FrostEd25519, 4)],
            generated: 0,
        };
        let table = m.render();
        assert_eq!(table.rows.len(), 4);
        assert!(table.rows.iter().all(|r| r.len() == table.columns.len()));
        let text = |r: usize, c: usize| table.rows[r][c].markdown();
        // First run: pairwise 400 ms, group 100 ms, so group is 75% faster; signing 200 / 50.
        assert_eq!(text(0, 4), "400.0");
        assert_eq!(text(0, 7), "75%");
        assert_eq!(text(0, 11), "75%");
        // Later runs: 200 / 150 and 100 / 40.
        assert_eq!(text(1, 3), "later");
        assert_eq!(text(1, 7), "25%");
        assert_eq!(text(1, 11), "60%");
        assert_eq!(text(2, 1), "3");
        assert_eq!(text(0, 13), "10 / 20 / 30");
        assert_eq!(text(0, 14), "2.0 / 3.0 / -");
        assert_eq!(text(1, 14), "1.0 / - / -");
        assert_eq!(text(3, 12), "frost-ed25519");
        assert_eq!(table.plot.groups.len(), 2);
        assert_eq!(table.plot.groups[1].0, "frost-ed25519 keygen n=4 50ms");
        assert_eq!(
            table.plot.groups[0].1,
            vec![Some(200.0), Some(150.0), Some(150.0)]
        );
        assert!(table.intro[1].contains("bls: n = 3, 4, median of 2 later runs"));
    }
}
