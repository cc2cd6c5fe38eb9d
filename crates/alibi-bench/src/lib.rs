//! `alibi bench`: the headline table of each seed document measured on this machine in one run,
//! with the peers (PQClean, the `hpke` crate, dgsp 0.1.2) measured beside our code, the papers'
//! own figures quoted and marked as quoted, and a report (Markdown, one CSV and one SVG plot per
//! table, the machine's description) that docs/BENCHMARKS.md includes.
//!
//! The harnesses of `alibi mpc bench` ([`mpc`], [`mpc::processes`]) and `alibi relay bench`
//! ([`relay_load`]) live here too, with their tables, CSVs and plots: one home for measurement.
//!
//! Seeds: 000 ring signatures (KNTW25, Table 3), 001 SHADOWFAX (Table 1), 002 MPC over Signal-style
//! channels (the paper's section 4), 003 DGSP (its README's tables), 004 TACHYON (Table 2).
//!
//! ```no_run
//! use alibi_bench::{run, Options, Scale};
//! let report = run(&Options { scale: Scale::Quick, only: vec![] }, &mut |_| {}).unwrap();
//! for (name, text) in report.files().unwrap() {
//!     std::fs::write(name, text).unwrap();
//! }
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod machine;
pub mod measure;
pub mod mpc;
pub mod plot;
pub mod relay_load;
mod seeds;
pub mod summary;
pub mod table;

use std::time::{Duration, Instant};

use machine::Machine;
use measure::Budget;
use seeds::Measurement;
use table::Table;

/// What can go wrong.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A seed name that is not one of 000-004.
    #[error("unknown seed {0:?} (expected 000, 001, 002, 003 or 004)")]
    UnknownSeed(String),
    /// Drawing a plot.
    #[error("plot: {0}")]
    Plot(String),
    /// An operation under measurement failed (a bug: every input is valid).
    #[error("{0}: {1}")]
    Operation(&'static str, String),
    /// The document to update has no block to replace (its first marker given).
    #[error("no `{0}` ... block to replace")]
    NoBlock(&'static str),
    /// A relay, a party (task or process) or a protocol run that a harness drives failed; the
    /// message is the failing layer's.
    #[error("{0}")]
    Run(String),
    /// The relay client of the relay load failed.
    #[error(transparent)]
    Messenger(#[from] alibi_messenger::Error),
    /// A relay load with nothing to measure.
    #[error("a relay load needs at least one pair, message, send and recipient per scenario")]
    EmptyLoad,
    /// Not a CSV that [`mpc::csv`] wrote.
    #[error("not a CSV written by `alibi mpc bench`")]
    NotMpcCsv,
    /// A CSV of [`mpc::csv`]'s shape without rows.
    #[error("no measurements in it")]
    NoMeasurements,
}

impl Error {
    /// A harness's failure ([`Error::Run`]) in the failing layer's words: the one way a relay,
    /// party or protocol error becomes this crate's.
    pub(crate) fn harness(e: impl core::fmt::Display) -> Self {
        Error::Run(e.to_string())
    }
}

/// The seeds, in report order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Seed {
    /// 000: FalconRS and MAYO-RS against plain Falcon and MAYO (Table 3).
    Ring,
    /// 001: SHADOWFAX and its parts (Table 1).
    Akem,
    /// 002: threshold BLS over pairwise and group channels.
    Mpc,
    /// 003: DGSP.
    Dgsp,
    /// 004: TACHYON (Table 2).
    Tachyon,
}

impl Seed {
    /// All five.
    pub const ALL: [Seed; 5] = [Seed::Ring, Seed::Akem, Seed::Mpc, Seed::Dgsp, Seed::Tachyon];

    /// Its number, as the seed files are named.
    pub fn number(self) -> &'static str {
        match self {
            Seed::Ring => "000",
            Seed::Akem => "001",
            Seed::Mpc => "002",
            Seed::Dgsp => "003",
            Seed::Tachyon => "004",
        }
    }

    /// From "000" (or "0"), or from a name: ring, akem, mpc, dgsp, tachyon.
    pub fn parse(s: &str) -> Result<Seed, Error> {
        let t = s.trim().to_ascii_lowercase();
        let by_number = t
            .parse::<u8>()
            .ok()
            .and_then(|n| Seed::ALL.get(n as usize).copied());
        by_number
            .or(match t.as_str() {
                "ring" => Some(Seed::Ring),
                "akem" | "shadowfax" => Some(Seed::Akem),
                "mpc" => Some(Seed::Mpc),
                "dgsp" => Some(Seed::Dgsp),
                "tachyon" => Some(Seed::Tachyon),
                _ => None,
            })
            .ok_or_else(|| Error::UnknownSeed(s.to_string()))
    }
}

/// How much to measure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    /// Every row, short budgets, the smaller grids: a few minutes.
    Quick,
    /// Longer budgets, the larger grids and DGSP at 2^25 members (see [`Scale::expected`]).
    Full,
    /// One sample of each row on the smallest grids: for tests of the report itself.
    Tiny,
}

impl Scale {
    /// The time budget of one measured row.
    fn budget(self) -> Budget {
        match self {
            Scale::Quick => Budget {
                time: Duration::from_millis(400),
                min_samples: 5,
            },
            Scale::Full => Budget {
                time: Duration::from_secs(2),
                min_samples: 10,
            },
            Scale::Tiny => Budget {
                time: Duration::ZERO,
                min_samples: 1,
            },
        }
    }

    /// A rough expected wall-clock time for `seeds` (all five when empty) on a 2-core x86-64
    /// machine, for the CLI to state before it starts. Measured on a 2-vCPU AMD EPYC: `--quick`
    /// 95 s for all five, `--full` 288 s for all but DGSP before seed 002 gained threshold ECDSA
    /// (n = 3: about 25 s per key generation, 12 of them).
    pub fn expected(self, seeds: &[Seed]) -> &'static str {
        let dgsp = seeds.is_empty() || seeds.contains(&Seed::Dgsp);
        match self {
            // 141 s measured on a 2-vCPU machine (issue 66): the estimate says so.
            Scale::Quick => "2 to 3 minutes on two cores",
            Scale::Full if !dgsp => "about 10 minutes",
            Scale::Full => "an hour or more, with about 10 GB free in the temporary directory and several GB of memory: DGSP's 2^25-member stores (the published crate's on-disk one alone takes about 20 minutes and 8 GB to fill, by its README), and 2-second budgets per row",
            Scale::Tiny => "seconds",
        }
    }
}

/// What to run.
#[derive(Clone, Debug)]
pub struct Options {
    /// How much.
    pub scale: Scale,
    /// These seeds only (empty: all).
    pub only: Vec<Seed>,
}

/// Progress as measurement goes: the seed starting, with its number of steps, or one step.
#[derive(Clone, Debug)]
pub enum Event {
    /// A seed starts; `steps` steps follow.
    Seed {
        /// Which.
        seed: Seed,
        /// How many [`Event::Step`]s it will report.
        steps: usize,
    },
    /// One step is about to be measured.
    Step(String),
}

/// What seeds measure with: the budget and the progress callback.
pub(crate) struct Ctx<'a> {
    pub scale: Scale,
    pub budget: Budget,
    progress: &'a mut dyn FnMut(Event),
}

impl Ctx<'_> {
    pub fn begin(&mut self, seed: Seed, steps: usize) {
        (self.progress)(Event::Seed { seed, steps });
    }

    pub fn step(&mut self, what: impl Into<String>) {
        (self.progress)(Event::Step(what.into()));
    }
}

/// Everything one run measured.
#[derive(Clone, Debug)]
pub struct Report {
    /// Where.
    pub machine: Machine,
    /// How much.
    pub scale: Scale,
    /// One table per seed run.
    pub tables: Vec<Table>,
    /// How long each table took, in the same order.
    pub times: Vec<Duration>,
    /// Wall-clock time of the whole run.
    pub elapsed: Duration,
}

/// Runs the seeds `options` selects, reporting progress to `progress`.
pub fn run(options: &Options, progress: &mut dyn FnMut(Event)) -> Result<Report, Error> {
    let start = Instant::now();
    let mut seeds = if options.only.is_empty() {
        Seed::ALL.to_vec()
    } else {
        options.only.clone()
    };
    seeds.sort();
    seeds.dedup();
    let mut ctx = Ctx {
        scale: options.scale,
        budget: options.scale.budget(),
        progress,
    };
    let (mut tables, mut times) = (vec![], vec![]);
    for seed in seeds {
        let t0 = Instant::now();
        tables.push(match seed {
            Seed::Ring => seeds::ring::Measured::measure(&mut ctx)?.render(),
            Seed::Akem => seeds::akem::Measured::measure(&mut ctx)?.render(),
            Seed::Mpc => seeds::mpc::Measured::measure(&mut ctx)?.render(),
            Seed::Dgsp => seeds::dgsp::Measured::measure(&mut ctx)?.render(),
            Seed::Tachyon => seeds::tachyon::Measured::measure(&mut ctx)?.render(),
        });
        times.push(t0.elapsed());
    }
    Ok(Report {
        machine: Machine::here(),
        scale: options.scale,
        tables,
        times,
        elapsed: start.elapsed(),
    })
}

/// Marks the start of the block of a document that [`replace_block`] replaces.
pub const BEGIN: &str = "<!-- BEGIN alibi bench report -->";
/// Marks its end.
pub const END: &str = "<!-- END alibi bench report -->";

impl Report {
    /// The report as Markdown, headings from level `depth` down (1: `#`), its CSVs and plots
    /// referred to by their file names (as they sit beside report.md).
    pub fn markdown(&self, depth: usize) -> String {
        self.markdown_linking(depth, "")
    }

    /// As [`Report::markdown`], with `prefix` (a directory, ending in `/`, or empty) before the file
    /// names of the CSVs and plots: for a document elsewhere that includes the report.
    pub fn markdown_linking(&self, depth: usize, prefix: &str) -> String {
        let h = |d: usize| "#".repeat(depth + d);
        let scale = match self.scale {
            Scale::Quick => "--quick",
            Scale::Full => "--full",
            Scale::Tiny => "--tiny (a test of the report; figures from one sample)",
        };
        let mut s = format!(
            "{} alibi bench\n\nGenerated by `alibi bench {scale}` in {:.0} s. Every figure is a median over \
             samples of one run with its range in parentheses; a ratio ours / peer is taken per pair of \
             adjacent samples, ours and the peer's alternating, and summarised the same way. Figures \
             from the papers and the DGSP README are quoted, marked as quoted, from their authors' \
             machines.\n\n{} Machine\n\n{}",
            h(0),
            self.elapsed.as_secs_f64(),
            h(1),
            self.machine.markdown()
        );
        for (t, time) in self.tables.iter().zip(&self.times) {
            s.push_str(&format!(
                "\n{} {}\n\nMeasured in {:.0} s. Data: [{id}.csv]({prefix}{id}.csv), plot: [{id}.svg]({prefix}{id}.svg).\n\n{}\n![{}]({prefix}{id}.svg)\n",
                h(1),
                t.title,
                time.as_secs_f64(),
                t.markdown(),
                t.title,
                id = t.id,
            ));
        }
        s
    }

    /// The report's files, (name, contents): report.md and, per table, ID.csv and ID.svg. The
    /// caller writes them (the CLI atomically, all or none).
    pub fn files(&self) -> Result<Vec<(String, String)>, Error> {
        let mut out = vec![("report.md".to_string(), self.markdown(1))];
        for t in &self.tables {
            out.push((format!("{}.csv", t.id), t.csv()));
            out.push((format!("{}.svg", t.id), plot::svg(&t.plot, &t.title)?));
        }
        Ok(out)
    }
}

/// `doc` with the text between [`BEGIN`] and [`END`] replaced by `report` (markers kept), so that
/// a document's figures come from one generator.
pub fn replace_block(doc: &str, report: &str) -> Result<String, Error> {
    replace_between(doc, (BEGIN, END), report)
}

/// `doc` with the text between the markers `begin` and `end` replaced by `text` (markers kept).
pub(crate) fn replace_between(
    doc: &str,
    (begin, end): (&'static str, &'static str),
    text: &str,
) -> Result<String, Error> {
    let (Some(a), Some(b)) = (doc.find(begin), doc.find(end)) else {
        return Err(Error::NoBlock(begin));
    };
    if b < a {
        return Err(Error::NoBlock(begin));
    }
    Ok(format!("{}{begin}\n{text}\n{}", &doc[..a], &doc[b..]))
}

/// A failed operation as [`Error::Operation`].
pub(crate) fn op<T, E: std::fmt::Display>(what: &'static str, r: Result<T, E>) -> Result<T, Error> {
    r.map_err(|e| Error::Operation(what, e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_parse_by_number_and_name() {
        assert_eq!(Seed::parse("000").unwrap(), Seed::Ring);
        assert_eq!(Seed::parse("4").unwrap(), Seed::Tachyon);
        assert_eq!(Seed::parse("DGSP").unwrap(), Seed::Dgsp);
        assert!(matches!(Seed::parse("005"), Err(Error::UnknownSeed(_))));
        assert!(matches!(Seed::parse("x"), Err(Error::UnknownSeed(_))));
    }

    #[test]
    fn the_document_block_is_replaced_and_the_rest_kept() {
        let doc = format!("head\n{BEGIN}\nold\n{END}\ntail\n");
        let once = replace_block(&doc, "new").unwrap();
        assert_eq!(
            replace_block(&once, "newer").unwrap(),
            format!("head\n{BEGIN}\nnewer\n{END}\ntail\n")
        );
        assert!(matches!(
            replace_block("no markers", "x"),
            Err(Error::NoBlock(_))
        ));
        let reversed = format!("{END}\n{BEGIN}\n");
        assert!(matches!(
            replace_block(&reversed, "x"),
            Err(Error::NoBlock(_))
        ));
    }
}
