//! `alibi bench`: every seed's headline table measured here in one run, peers beside ours (the
//! measuring is `alibi-bench`'s; this draws the progress bar and writes the report).

use std::path::{Path, PathBuf};

use alibi_bench::{run as measure, update_doc, Event, Options, Scale, Seed};

use crate::failure::{usage, CmdResult, Failure};
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
        let text =
            std::fs::read_to_string(doc).map_err(|e| usage(format!("{}: {e}", doc.display())))?;
        if !text.contains(alibi_bench::BEGIN) || !text.contains(alibi_bench::END) {
            return Err(usage(format!(
                "{}: no `{}` ... `{}` block to replace",
                doc.display(),
                alibi_bench::BEGIN,
                alibi_bench::END
            )));
        }
    }
    eprintln!("alibi bench: expected time {}", scale.expected(&only));
    let bar = indicatif::ProgressBar::new(0);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} {msg}")
            .map_err(usage)?
            .progress_chars("=> "),
    );
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
            bar.set_message(what);
        }
    })
    .map_err(|e| Failure::Usage(format!("bench: {e}")))?;
    bar.finish_and_clear();
    let written = report.write(&a.out).map_err(usage)?;
    if let Some(doc) = &a.doc {
        update_doc(doc, &report.markdown_linking(3, &link_prefix(doc, &a.out))).map_err(usage)?;
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
        a.doc
            .as_ref()
            .map_or(String::new(), |d| format!(" and updated {}", d.display()))
    )?;
    Ok(())
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
