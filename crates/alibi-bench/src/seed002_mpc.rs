//! Seed 002 (Yang, Zhang 2023), section 4: threshold BLS key generation (t = n - 1) and signing
//! by n parties over an in-process relay, with broadcasts as sequential pairwise messages,
//! concurrent pairwise messages, or one group message; the first run (sessions and sender keys
//! set up) and later runs; no delay and 50 ms per relay request. The paper's Table 2 reports the
//! same cells; its claim is that group broadcast is at least 37.48% faster than pairwise.

use std::time::Duration;

use alibi_mpc::local::{measure, Timing};
use alibi_mpc::relay::Mode;
use alibi_relay::local::LocalRelay;
use alibi_relay::server::Config;

use crate::table::{Cell, Plot, Table};
use crate::{op, Ctx, Error, Scale, Seed};

const MODES: [Mode; 3] = [Mode::Pairwise, Mode::PairwiseConcurrent, Mode::Group];

/// One (n, delay) cell: per mode, the first run and the median of the later ones.
struct Measured {
    n: u16,
    delay: u64,
    first: [Timing; 3],
    later: [Timing; 3],
}

fn median(mut v: Vec<Timing>) -> Option<Timing> {
    v.sort_by_key(|t| t.keygen + t.sign);
    v.get(v.len() / 2).copied()
}

pub(crate) fn table(ctx: &mut Ctx) -> Result<Table, Error> {
    let (ns, delays, later): (&[u16], &[u64], usize) = match ctx.scale {
        Scale::Tiny => (&[3], &[0], 1),
        Scale::Quick => (&[3, 4, 5], &[0, 50], 2),
        Scale::Full => (&[3, 4, 5, 8, 16], &[0, 50], 4),
    };
    ctx.begin(Seed::Mpc, ns.len() * delays.len() * MODES.len());
    let runtime = op(
        "tokio runtime",
        tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build(),
    )?;
    let timeout = Duration::from_secs(120);
    let mut cells = vec![];
    for &delay in delays {
        for &n in ns {
            let mut first = vec![];
            let mut rest = vec![];
            for mode in MODES {
                ctx.step(format!("MPC n = {n}, {mode}, {delay} ms"));
                let (f, l) = runtime.block_on(async {
                    // A fresh relay per cell, so that no cell inherits another's accounts.
                    let relay = op(
                        "local relay",
                        LocalRelay::start(Config {
                            delay: Duration::from_millis(delay),
                            ..Config::default()
                        })
                        .await,
                    )?;
                    op(
                        "MPC run",
                        measure(&relay.url, n, usize::from(n) - 1, mode, later, timeout).await,
                    )
                })?;
                first.push(f);
                rest.push(median(l).ok_or(Error::Operation("MPC run", "no later run".into()))?);
            }
            let arr = |v: Vec<Timing>| -> [Timing; 3] { [v[0], v[1], v[2]] };
            cells.push(Measured {
                n,
                delay,
                first: arr(first),
                later: arr(rest),
            });
        }
    }

    let ms = |d: Duration| format!("{:.1}", d.as_secs_f64() * 1e3);
    let faster = |base: Duration, group: Duration| {
        format!(
            "{:.0}%",
            100.0 * (1.0 - group.as_secs_f64() / base.as_secs_f64())
        )
    };
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
