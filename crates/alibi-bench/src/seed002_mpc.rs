//! Seed 002 (Yang, Zhang 2023), section 4: threshold BLS key generation (t = n - 1) and signing
//! by n parties over an in-process relay, with broadcasts as sequential pairwise messages,
//! concurrent pairwise messages, or one group message; the first run (sessions and sender keys
//! set up) and later runs; no delay and 50 ms per relay request. The paper's Table 2 reports the
//! same cells; its claim is that group broadcast is at least 37.48% faster than pairwise.

use std::time::Duration;

use crate::mpc::{self, Grid, Parties, Progress, Timing, MODES};
use crate::table::{Cell, Plot, Table};
use crate::{op, Ctx, Error, Scale, Seed};

/// One (n, delay) cell: per mode, the first run and the median of the later ones.
struct Measured {
    n: u16,
    delay: u64,
    first: [Timing; 3],
    later: [Timing; 3],
}

/// The grid of each scale.
fn grid(scale: Scale) -> Grid {
    let (ns, delays, later): (&[u16], &[u64], usize) = match scale {
        Scale::Tiny => (&[3], &[0], 1),
        Scale::Quick => (&[3, 4, 5], &[0, 50], 2),
        Scale::Full => (&[3, 4, 5, 8, 16], &[0, 50], 4),
    };
    Grid {
        ns: ns.to_vec(),
        delays: delays.to_vec(),
        modes: MODES.to_vec(),
        later,
        timeout: Duration::from_secs(120),
    }
}

/// The grid's cells grouped by (delay, n), the transports in [`MODES`] order.
fn measured(cells: &[mpc::Cell]) -> Result<Vec<Measured>, Error> {
    let mut out = vec![];
    for c in cells.chunks(MODES.len()) {
        let of = |mode| {
            c.iter()
                .find(|x| x.mode == mode)
                .ok_or(Error::Operation("MPC run", format!("no {mode} cell")))
        };
        let [p, pc, g] = [of(MODES[0])?, of(MODES[1])?, of(MODES[2])?];
        out.push(Measured {
            n: p.n,
            delay: p.delay,
            first: [p.first, pc.first, g.first],
            later: [p.later, pc.later, g.later],
        });
    }
    Ok(out)
}

pub(crate) fn table(ctx: &mut Ctx) -> Result<Table, Error> {
    let grid = grid(ctx.scale);
    let later = grid.later;
    ctx.begin(Seed::Mpc, grid.cells());
    let runtime = op(
        "tokio runtime",
        tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build(),
    )?;
    let mut progress = |p| {
        if let Progress::Cell { n, mode, delay } = p {
            ctx.step(format!("MPC n = {n}, {mode}, {delay} ms"));
        }
    };
    let cells = runtime
        .block_on(mpc::measure(&grid, Parties::Tasks, &mut progress))
        .map_err(|e| match e {
            Error::Run(m) => Error::Operation("MPC run", m),
            e => e,
        })?;
    let cells = measured(&cells)?;

    let ms = |d: Duration| format!("{:.1}", d.as_secs_f64() * 1e3);
    let faster = |base: Duration, group: Duration| format!("{:.0}%", mpc::faster(base, group));
    let mut rows = vec![];
    let mut plot = Plot {
        unit: "ms".into(),
        series: vec![
            "pairwise".into(),
            "pairwise concurrent".into(),
            "group".into(),
        ],
        groups: vec![],
    };
    for c in &cells {
        for (run, t) in [("first", &c.first), ("later", &c.later)] {
            rows.push(
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
                ]
                .into_iter()
                .map(Cell::from)
                .collect(),
            );
            if run == "later" {
                plot.groups.push((
                    format!("keygen n={} {}ms", c.n, c.delay),
                    t.iter()
                        .map(|x| Some(x.keygen.as_secs_f64() * 1e3))
                        .collect(),
                ));
            }
        }
    }
    Ok(Table {
        id: "seed002-mpc".into(),
        title: "Seed 002: threshold BLS over pairwise and group channels".into(),
        intro: vec![format!(
            "n parties (t = n - 1), each a task with its own messenger, on an in-process relay with the \
             given delay per request; times in ms are the slowest party's (all start together). \
             \"first\" includes fetching bundles, opening sessions and handing out sender keys; \
             \"later\" is the median of {later} further runs on the same sessions. `alibi mpc bench \
             --processes` runs each party as its own OS process."
        )],
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
        ]
        .map(String::from)
        .to_vec(),
        rows,
        notes: vec![
            "The paper's claim (quoted): broadcasting through the group channel is at least 37.48% \
             faster than pairwise fan-out."
                .into(),
        ],
        plot,
    })
}
