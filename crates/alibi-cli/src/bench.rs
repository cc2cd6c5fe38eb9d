//! `alibi bench`: every seed's headline table measured here in one run, peers beside ours (the
//! measuring is `alibi-bench`'s; this draws the progress bar and writes the report).

use std::path::{Path, PathBuf};

use alibi_bench::{replace_block, run as measure, summary, Event, Options, Scale, Seed};

use crate::failure::{usage, CmdResult, Failure};
use crate::files::{self, Kind, Output};
use crate::report::progress_bar;
use crate::say;

/// `alibi bench`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Short budgets and the smaller grids (the default)
    #[arg(long, conflicts_with = "full")]
    quick: bool,
    /// Longer budgets, larger MPC grids, DGSP at 2^25 members
    #[arg(long)]
    full: bool,
    /// One sample per row on the smallest grids: a test of the report, not a measurement
    #[arg(long, hide = true, conflicts_with = "full")]
    tiny: bool,
    /// Only these seeds, comma-separated: 000-004 or ring, akem, mpc, dgsp, tachyon
    #[arg(long, value_name = "SEED,...", value_delimiter = ',')]
    only: Vec<String>,
    /// Directory for report.md, the CSVs and the plots (created if missing)
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Also replace the marked report block of this Markdown file (docs/BENCHMARKS.md)
    #[arg(long, value_name = "FILE")]
    doc: Option<PathBuf>,
    /// Also replace the marked summary block of this Markdown file (README.md) with the ratios
    /// of the CSVs in --out (this run's and any others there)
    #[arg(long, value_name = "FILE")]
    readme: Option<PathBuf>,
}

pub fn run(a: Args) -> CmdResult {
    let scale = if a.full {
        Scale::Full
    } else if a.tiny {
        Scale::Tiny
    } else {
        Scale::Quick
    };
    let only = a
        .only
        .iter()
        .map(|s| Seed::parse(s))
        .collect::<Result<Vec<_>, _>>()
        .map_err(usage)?;
    if let Some(doc) = &a.doc {
        // Refuse before measuring, not after minutes of it.
        replace_block(&read_doc(doc)?, "").map_err(|e| usage(format!("{}: {e}", doc.display())))?;
    }
    if let Some(readme) = &a.readme {
        summary::replace_block(&read_doc(readme)?, "")
            .map_err(|e| usage(format!("{}: {e}", readme.display())))?;
    }
    eprintln!("alibi bench: expected time {}", scale.expected(&only));
    let bar = progress_bar(0)?;
    // The bar is drawn on a terminal only; elsewhere (a log, CI, a pipe) each step is a line.
    let lines = !std::io::IsTerminal::is_terminal(&std::io::stderr());
    let start = std::time::Instant::now();
    let mut started = false;
    let report = measure(&Options { scale, only }, &mut |e| match e {
        Event::Seed { seed, steps } => {
            bar.inc_length(steps as u64);
            bar.set_message(format!("seed {}", seed.number()));
        }
        Event::Step(what) => {
            if started {
                bar.inc(1);
            }
            started = true;
            if lines {
                eprintln!(
                    "alibi bench: step {} of {}: {what} ({} s)",
                    bar.position() + 1,
                    bar.length().unwrap_or(0),
                    start.elapsed().as_secs()
                );
            }
            bar.set_message(what);
        }
    })
    .map_err(|e| Failure::Usage(format!("bench: {e}")))?;
    bar.finish_and_clear();
    // Every file atomically, all or none, as every command writes.
    let new_dir = files::NewDir::create(&a.out)?;
    let contents = report.files().map_err(usage)?;
    let written: Vec<PathBuf> = contents.iter().map(|(name, _)| a.out.join(name)).collect();
    let outputs: Vec<Output> = contents
        .iter()
        .zip(&written)
        .map(|((_, text), path)| Output {
            flag: "--out",
            path,
            kind: Kind::Report,
            data: text.as_bytes(),
        })
        .collect();
    files::write_outputs(&outputs, false)?;
    new_dir.keep();
    if let Some(doc) = &a.doc {
        // Read again: the document may have changed while the benchmarks ran.
        let block = report.markdown_linking(3, &link_prefix(doc, &a.out));
        let text = replace_block(&read_doc(doc)?, &block)
            .map_err(|e| usage(format!("{}: {e}", doc.display())))?;
        files::rewrite("--doc", doc, Kind::Report, text.as_bytes())?;
    }
    if let Some(readme) = &a.readme {
        let text = summary::replace_block(&read_doc(readme)?, &summary_of(&a.out)?)
            .map_err(|e| usage(format!("{}: {e}", readme.display())))?;
        files::rewrite("--readme", readme, Kind::Report, text.as_bytes())?;
    }
    say!(
        "measured {} table(s) in {:.0} s; wrote {}{}",
        report.tables.len(),
        report.elapsed.as_secs_f64(),
        written
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", "),
        [&a.doc, &a.readme]
            .into_iter()
            .flatten()
            .map(|d| format!(" and updated {}", d.display()))
            .collect::<String>()
    )?;
    Ok(())
}

/// The README summary of the CSVs in `out` ([`summary::markdown`]).
fn summary_of(out: &Path) -> Result<String, Failure> {
    let mut csvs = vec![];
    let entries = std::fs::read_dir(out).map_err(|e| usage(format!("{}: {e}", out.display())))?;
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "csv") {
            let text = String::from_utf8(files::read(&path)?)
                .map_err(|_| usage(format!("{}: not UTF-8 text", path.display())))?;
            let id = path.file_stem().unwrap_or_default().to_string_lossy();
            csvs.push((id.into_owned(), text));
        }
    }
    summary::markdown(&csvs).map_err(|e| usage(format!("{}: {e}", out.display())))
}

/// The Markdown document of `--doc`, as text.
fn read_doc(doc: &Path) -> Result<String, Failure> {
    String::from_utf8(files::read(doc)?)
        .map_err(|_| usage(format!("{}: not UTF-8 text", doc.display())))
}

/// How `doc` refers to files in `out`: relative to the document's directory when `out` lies
/// below it, by absolute path otherwise; with a trailing `/`.
fn link_prefix(doc: &Path, out: &Path) -> String {
    let abs = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let out = abs(out);
    let base = abs(doc).parent().map(Path::to_path_buf).unwrap_or_default();
    let p = out
        .strip_prefix(&base)
        .map_or(out.clone(), Path::to_path_buf);
    let s = p.to_string_lossy().replace('\\', "/");
    if s.is_empty() {
        String::new()
    } else {
        format!("{s}/")
    }
}
