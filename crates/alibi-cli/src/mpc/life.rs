//! `alibi mpc bench --life`: the time, requests and bytes of each step of a key's life
//! ([`alibi_bench::mpc::life`]), per scheme, party count and relay delay.

use std::time::Duration;

use alibi_bench::mpc::life::{self, Cost, Row, Setup};
use alibi_bench::mpc::{PrimeBank, Progress};
use alibi_bench::table::{Cell, Table};
use alibi_mpc::scheme::Scheme;
use serde_json::json;

use crate::failure::{usage, CmdResult};
use crate::net::runtime;
use crate::report::{say, Format};

/// Lives every (scheme, n, delay) of `grid` `later + 1` times and prints each step's costs;
/// threshold ECDSA's safe primes beyond `primes` are searched for first (untimed).
pub(super) fn life(
    (schemes, ns, delays): (&[Scheme], &[u16], &[u64]),
    later: usize,
    timeout: Duration,
    primes: &mut PrimeBank,
    format: Format,
) -> CmdResult {
    let cells = schemes.len() * ns.len() * delays.len();
    let bar = crate::report::progress_bar(cells as u64)?;
    alibi_bench::mpc::fill_primes(primes, schemes, ns, &mut |p| {
        if let Progress::Primes { party, elapsed_s } = p {
            super::primes::for_bench(&bar, party, elapsed_s, format);
        }
    });
    let mut rows: Vec<Row> = vec![];
    let rt = runtime()?;
    for &scheme in schemes {
        for &delay in delays {
            for &n in ns {
                bar.set_message(format!("{scheme}, n = {n}, {delay} ms delay"));
                let setup = Setup {
                    scheme,
                    n,
                    delay,
                    later,
                    timeout,
                };
                rows.extend(rt.block_on(life::measure(setup, primes)).map_err(usage)?);
                bar.inc(1);
            }
        }
    }
    bar.finish_and_clear();
    if format.json {
        return say(json!({ "life": rows.iter().map(row_json).collect::<Vec<_>>() }));
    }
    say(table(&rows).markdown().trim_end())?;
    say(format!(
        "\nt = n-1, group channels, every party a task of this process; time: the slowest \
         party's; requests and KiB: what all parties sent. first: the first life (sessions and \
         sender keys set up); later: the median of {later} more"
    ))
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// One step's row as JSON.
fn row_json(r: &Row) -> serde_json::Value {
    let cost = |c: &Cost| json!({"ms": ms(c.time), "requests": c.requests, "bytes": c.bytes});
    json!({
        "scheme": r.scheme.name(), "n": r.n, "t": r.t, "delay_ms": r.delay,
        "step": r.step.name(), "first": cost(&r.first), "later": cost(&r.later),
    })
}

/// The steps as a table: the first life's time, then the later lives' time, requests and KiB.
fn table(rows: &[Row]) -> Table {
    let columns = [
        "scheme", "n", "delay ms", "step", "first ms", "later ms", "requests", "KiB sent",
    ];
    let time = |d: Duration| match ms(d) {
        x if x < 1.0 => format!("{x:.3}"),
        x if x < 10.0 => format!("{x:.1}"),
        x => format!("{x:.0}"),
    };
    let body = rows
        .iter()
        .map(|r| {
            [
                r.scheme.name().to_string(),
                r.n.to_string(),
                r.delay.to_string(),
                r.step.name().to_string(),
                time(r.first.time),
                time(r.later.time),
                r.later.requests.to_string(),
                format!("{:.1}", r.later.bytes as f64 / 1024.0),
            ]
            .map(Cell::from)
            .to_vec()
        })
        .collect();
    Table {
        columns: columns.map(String::from).to_vec(),
        rows: body,
        ..Table::default()
    }
}
