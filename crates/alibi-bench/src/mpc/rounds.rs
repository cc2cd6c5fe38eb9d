//! A run's time per round, for `alibi mpc bench --processes --rounds`: each party process notes
//! when it first sends each round ([`crate::mpc::processes`]), [`steps`] turns the parties' notes
//! into how long each round kept the run, [`rounds_csv`] writes every run's rounds and
//! [`summary`] (shown by [`rounds_table`]) sums the later runs up. It answers "which round costs
//! what" with a command, where a trace printed from inside the protocol would have to be built
//! for the occasion.

use alibi_mpc::relay::Mode;

use super::scheme::Scheme;
use crate::table::{self, Table};

/// A protocol phase of one run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Key generation.
    Keygen,
    /// Signing.
    Sign,
}

impl Phase {
    /// Its name in tables and CSV.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Keygen => "keygen",
            Phase::Sign => "sign",
        }
    }
}

/// One round of a run and how long it kept the run, as the last party to get there saw it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Step {
    /// The protocol round (the numbers `alibi_mpc`'s key generation and signing send under,
    /// agreement rounds among them); `None` for the time before every party had sent its first.
    pub round: Option<u16>,
    /// Its time in milliseconds.
    pub ms: f64,
}

/// A round as tables and CSV name it: its number, or `start` for what came before the first.
pub fn round_label(round: Option<u16>) -> String {
    round.map_or("start".into(), |r| r.to_string())
}

/// The cell of the grid a run belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CellId {
    /// Protocol.
    pub scheme: Scheme,
    /// Parties.
    pub n: u16,
    /// Relay delay, ms.
    pub delay: u64,
    /// Transport.
    pub mode: Mode,
}

impl CellId {
    /// Its scheme, n, delay and transport as the first four columns of the CSV and the table
    /// (the delay with its unit in the table).
    fn columns(&self, unit: &str) -> [String; 4] {
        [
            self.scheme.name().to_string(),
            self.n.to_string(),
            format!("{}{unit}", self.delay),
            self.mode.to_string(),
        ]
    }
}

/// A run's time per round from when each party first sent each round (`sent`, one list per
/// party: round and ms after the run began) and when the slowest party was done (`end`, ms).
/// Round r starts when the last party sends it and lasts until the last party sends the round
/// sent next (the last round: until `end`), so the steps add up to `end`; the first step is
/// what came before every party had sent the first round. Empty when nobody sent anything.
pub fn steps<'a>(sent: impl IntoIterator<Item = &'a [(u16, f64)]>, end: f64) -> Vec<Step> {
    let mut latest: Vec<(u16, f64)> = vec![];
    for &(round, at) in sent.into_iter().flatten() {
        match latest.iter_mut().find(|(r, _)| *r == round) {
            Some((_, t)) => *t = t.max(at),
            None => latest.push((round, at)),
        }
    }
    if latest.is_empty() {
        return vec![];
    }
    latest.sort_by(|a, b| a.1.total_cmp(&b.1));
    let starts = latest.iter().map(|&(round, at)| (Some(round), at));
    let ends = latest
        .iter()
        .map(|x| x.1)
        .chain([end.max(latest[latest.len() - 1].1)]);
    core::iter::once((None, 0.0))
        .chain(starts)
        .zip(ends)
        .map(|((round, from), to)| Step {
            round,
            ms: to - from,
        })
        .collect()
}

/// One run of one cell, round by round.
#[derive(Clone, Debug)]
pub struct RunRounds {
    /// Its cell.
    pub cell: CellId,
    /// The run: 0 for the first, then the later ones.
    pub run: u32,
    /// Key generation or signing.
    pub phase: Phase,
    /// Its rounds, in the order they were sent.
    pub steps: Vec<Step>,
}

/// The columns of [`rounds_csv`]: one row per cell, run, phase and round.
pub const ROUNDS_CSV_COLUMNS: [&str; 8] = [
    "scheme",
    "n",
    "delay_ms",
    "transport",
    "run",
    "phase",
    "round",
    "ms",
];

/// Every run's rounds as CSV ([`ROUNDS_CSV_COLUMNS`]; run 0 is the first, `round` is `start`
/// for the time before the first round).
pub fn rounds_csv(runs: &[RunRounds]) -> String {
    let rows = runs
        .iter()
        .flat_map(|r| {
            r.steps.iter().map(move |s| {
                let run = [
                    r.run.to_string(),
                    r.phase.name().to_string(),
                    round_label(s.round),
                    format!("{:.1}", s.ms),
                ];
                r.cell
                    .columns("")
                    .into_iter()
                    .chain(run)
                    .map(table::Cell::from)
                    .collect()
            })
        })
        .collect();
    Table {
        columns: ROUNDS_CSV_COLUMNS.map(String::from).to_vec(),
        rows,
        ..Table::default()
    }
    .csv()
}

/// One round of one cell and phase over the later runs.
#[derive(Clone, Debug, PartialEq)]
pub struct RoundSummary {
    /// The cell.
    pub cell: CellId,
    /// Key generation or signing.
    pub phase: Phase,
    /// The round (`None`: before the first, as in [`Step`]).
    pub round: Option<u16>,
    /// Median time over the later runs that had the round, ms (the upper middle one for an
    /// even count, as the bench's other medians).
    pub median_ms: f64,
    /// Least of those times, ms.
    pub min_ms: f64,
    /// Greatest, ms.
    pub max_ms: f64,
    /// How many later runs had the round.
    pub runs: usize,
}

/// The later runs' rounds (run 0, the first, sets sessions up and is left out): per cell, phase
/// and round, in the order the runs sent them, the median time with its range.
pub fn summary(runs: &[RunRounds]) -> Vec<RoundSummary> {
    let later: Vec<&RunRounds> = runs.iter().filter(|r| r.run > 0).collect();
    let mut cells: Vec<(CellId, Phase)> = vec![];
    for r in &later {
        if !cells.contains(&(r.cell, r.phase)) {
            cells.push((r.cell, r.phase));
        }
    }
    let mut out = vec![];
    for (cell, phase) in cells {
        let of_cell: Vec<&RunRounds> = later
            .iter()
            .copied()
            .filter(|r| (r.cell, r.phase) == (cell, phase))
            .collect();
        let mut rounds: Vec<Option<u16>> = vec![];
        for s in of_cell.iter().flat_map(|r| &r.steps) {
            if !rounds.contains(&s.round) {
                rounds.push(s.round);
            }
        }
        for round in rounds {
            let mut ms: Vec<f64> = of_cell
                .iter()
                .flat_map(|r| r.steps.iter().filter(|s| s.round == round).map(|s| s.ms))
                .collect();
            ms.sort_by(f64::total_cmp);
            out.push(RoundSummary {
                cell,
                phase,
                round,
                median_ms: ms[ms.len() / 2],
                min_ms: ms[0],
                max_ms: ms[ms.len() - 1],
                runs: ms.len(),
            });
        }
    }
    out
}

/// The [`summary`] as a table.
pub fn rounds_table(summary: &[RoundSummary]) -> Table {
    let rows = summary
        .iter()
        .map(|r| {
            let round = [
                r.phase.name().to_string(),
                round_label(r.round),
                format!("{:.0}", r.median_ms),
                format!("{:.0}-{:.0}", r.min_ms, r.max_ms),
                r.runs.to_string(),
            ];
            r.cell
                .columns(" ms")
                .into_iter()
                .chain(round)
                .map(table::Cell::from)
                .collect()
        })
        .collect();
    let columns = [
        "scheme",
        "n",
        "delay",
        "transport",
        "phase",
        "round",
        "ms, median",
        "range",
        "runs",
    ];
    Table {
        columns: columns.map(String::from).to_vec(),
        rows,
        ..Table::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_run_from_the_last_sender_of_a_round_to_the_last_sender_of_the_next() {
        // Party 1 sends round 1 at 10 ms and round 2 at 50; party 2 at 30 and 40 (it got there
        // first); the slowest party is done at 90.
        let a = [(1, 10.0), (2, 50.0)];
        let b = [(1, 30.0), (2, 40.0)];
        let s = steps([&a[..], &b[..]], 90.0);
        let want = [(None, 30.0), (Some(1), 20.0), (Some(2), 40.0)];
        assert_eq!(s.len(), want.len());
        for (got, (round, ms)) in s.iter().zip(want) {
            assert_eq!(got.round, round);
            assert!((got.ms - ms).abs() < 1e-9, "{got:?}");
        }
        let total: f64 = s.iter().map(|x| x.ms).sum();
        assert!((total - 90.0).abs() < 1e-9);
    }

    #[test]
    fn rounds_are_ordered_by_when_they_were_sent_not_by_number() {
        // Agreement rounds carry numbers above the protocol's: 10 is sent before 2 here.
        let a = [(1, 5.0), (10, 20.0), (2, 60.0)];
        let s = steps([&a[..]], 70.0);
        let order: Vec<Option<u16>> = s.iter().map(|x| x.round).collect();
        assert_eq!(order, [None, Some(1), Some(10), Some(2)]);
    }

    #[test]
    fn nothing_sent_is_no_steps() {
        assert!(steps([&[][..], &[][..]], 12.0).is_empty());
    }

    #[test]
    fn the_table_takes_the_later_runs_median_and_leaves_the_first_out() {
        let run = |run: u32, first: f64| RunRounds {
            cell: CellId {
                scheme: Scheme::Bls,
                n: 3,
                delay: 0,
                mode: Mode::Group,
            },
            run,
            phase: Phase::Sign,
            steps: vec![
                Step {
                    round: None,
                    ms: first,
                },
                Step {
                    round: Some(1),
                    ms: 7.0,
                },
            ],
        };
        let runs = [run(0, 1000.0), run(1, 2.0), run(2, 4.0), run(3, 3.0)];
        let sum = summary(&runs);
        assert_eq!(sum.len(), 2);
        assert_eq!(
            (sum[0].median_ms, sum[0].min_ms, sum[0].max_ms),
            (3.0, 2.0, 4.0)
        );
        let t = rounds_table(&sum);
        assert_eq!(t.rows.len(), 2);
        let text: Vec<String> = t.rows[0].iter().map(|c| c.markdown()).collect();
        assert_eq!(text[5..], ["start", "3", "2-4", "3"]);
        let csv = rounds_csv(&runs);
        assert_eq!(csv.lines().count(), 1 + 8);
        assert!(csv
            .lines()
            .nth(1)
            .unwrap()
            .starts_with("bls,3,0,group,0,sign,start,1000.0"));
    }
}
