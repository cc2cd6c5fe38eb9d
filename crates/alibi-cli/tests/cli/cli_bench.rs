//! `alibi bench`: a tiny run of each seed writes its table to report.md, a CSV and an SVG plot,
//! and can replace the report block of a document; bad seeds are usage errors. The plots can be
//! read: `mpc bench --replot` of the committed CSV draws log axes ticked at 1-2-5, no text rotated.

use crate::common;
use common::{alibi, code};

#[test]
fn a_tiny_run_of_each_seed_writes_its_table_csv_and_plot() {
    let d = common::scratch("bench");
    for (seed, stem, title) in [
        ("000", "seed000-ring-signatures", "FalconRS and MAYO-RS"),
        ("001", "seed001-shadowfax", "SHADOWFAX and its parts"),
        ("002", "seed002-mpc", "threshold BLS"),
        ("003", "seed003-dgsp", "DGSP"),
        ("004", "seed004-tachyon", "TACHYON"),
    ] {
        let out = d.join(seed);
        let o = alibi(&[
            "bench",
            "--quick",
            "--tiny",
            "--only",
            seed,
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(
            code(&o),
            0,
            "seed {seed}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        // Not a terminal here: every step is a line on stderr, where a bar would draw nothing.
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.lines()
                .any(|l| l.starts_with("alibi bench: step 1 of ")),
            "seed {seed}: {err}"
        );
        let report = std::fs::read_to_string(out.join("report.md")).unwrap();
        assert!(report.contains(title), "seed {seed}: {report}");
        assert!(report.contains("- CPU: "), "the machine is described");
        let csv = std::fs::read_to_string(out.join(format!("{stem}.csv"))).unwrap();
        let lines: Vec<&str> = csv.lines().collect();
        assert!(lines.len() >= 2, "seed {seed}: a header and rows: {csv}");
        let columns = lines[0].split(',').count();
        assert!(columns >= 5, "seed {seed}: {}", lines[0]);
        let svg = std::fs::read_to_string(out.join(format!("{stem}.svg"))).unwrap();
        assert!(
            svg.starts_with("<svg") && svg.contains("<rect"),
            "seed {seed}"
        );
    }
}

#[test]
fn the_document_block_is_regenerated() {
    let d = common::scratch("bench-doc");
    let doc = d.join("BENCHMARKS.md");
    std::fs::write(
        &doc,
        "before\n<!-- BEGIN alibi bench report -->\nold figures\n<!-- END alibi bench report -->\nafter\n",
    )
    .unwrap();
    let out = d.join("report");
    let args = |doc: &str| {
        vec![
            "bench".to_string(),
            "--tiny".into(),
            "--only".into(),
            "ring".into(),
            "--out".into(),
            out.to_str().unwrap().into(),
            "--doc".into(),
            doc.into(),
        ]
    };
    let a = args(doc.to_str().unwrap());
    let o = alibi(&a.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(code(&o), 0, "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&doc).unwrap();
    assert!(
        text.starts_with("before\n") && text.ends_with("after\n"),
        "{text}"
    );
    assert!(!text.contains("old figures") && text.contains("FalconRS and MAYO-RS"));
    // The document links the CSV and plot where they were written, relative to itself.
    assert!(
        text.contains("](report/seed000-ring-signatures.svg)"),
        "{text}"
    );
    // A document without the block is refused before anything is measured.
    let bare = d.join("bare.md");
    std::fs::write(&bare, "no block\n").unwrap();
    let a = args(bare.to_str().unwrap());
    assert_eq!(
        code(&alibi(&a.iter().map(String::as_str).collect::<Vec<_>>())),
        2
    );
}

/// `--readme` writes the README's summary from the CSVs in `--out`: this run's ring table
/// beside an AKEM CSV an earlier run left there.
#[test]
fn the_readme_summary_is_made_from_the_csvs_in_out() {
    let d = common::scratch("bench-readme");
    let readme = d.join("README.md");
    std::fs::write(
        &readme,
        "top\n<!-- BEGIN alibi bench summary -->\n| typed | 0.5 |\n<!-- END alibi bench summary -->\nend\n",
    )
    .unwrap();
    let out = d.join("bench");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(
        out.join("seed001-shadowfax.csv"),
        "row,Enc / hpke Enc: median,Enc / hpke Enc: min,Enc / hpke Enc: max,Dec / hpke Dec: median,\
         Dec / hpke Dec: min,Dec / hpke Dec: max\nSHADOWFAX,1.5,1.4,1.6,1.1,1.0,1.2\n",
    )
    .unwrap();
    let (o, r) = (out.to_str().unwrap(), readme.to_str().unwrap());
    let a = [
        "bench", "--tiny", "--only", "ring", "--out", o, "--readme", r,
    ];
    let run = alibi(&a);
    assert_eq!(code(&run), 0, "{}", String::from_utf8_lossy(&run.stderr));
    let text = std::fs::read_to_string(&readme).unwrap();
    assert!(
        text.starts_with("top\n") && text.ends_with("end\n"),
        "{text}"
    );
    assert!(!text.contains("| typed |"), "{text}");
    assert!(
        text.contains("| SHADOWFAX | 1.50 (1.40-1.60) | 1.10 (1.00-1.20) |"),
        "{text}"
    );
    assert!(
        text.contains("| Falcon-512 |"),
        "this run's ring table: {text}"
    );
    // A README without the block is refused before anything is measured.
    std::fs::write(&readme, "no block\n").unwrap();
    assert_eq!(code(&alibi(&a)), 2);
}

#[test]
fn unknown_seeds_and_missing_output_are_usage_errors() {
    let d = common::scratch("bench-usage");
    let out = d.join("r");
    assert_eq!(
        code(&alibi(&[
            "bench",
            "--only",
            "009",
            "--out",
            out.to_str().unwrap()
        ])),
        2
    );
    assert_eq!(code(&alibi(&["bench", "--only", "000"])), 2);
    assert_eq!(
        code(&alibi(&[
            "bench",
            "--quick",
            "--full",
            "--out",
            out.to_str().unwrap()
        ])),
        2
    );
}

/// The texts of an SVG document, in order.
fn svg_texts(svg: &str) -> Vec<String> {
    svg.split("<text")
        .skip(1)
        .filter_map(|t| t.split_once('>'))
        .map(|(_, rest)| rest.split("</text>").next().unwrap_or("").to_string())
        .collect()
}

/// Whether `v` is 1, 2 or 5 times a power of ten.
fn one_two_five(v: f64) -> bool {
    v > 0.0 && {
        let m = v / 10f64.powf(v.log10().floor());
        [1.0, 2.0, 5.0, 10.0].iter().any(|x| (m - x).abs() < 1e-9)
    }
}

#[test]
fn the_mpc_plot_is_ticked_at_1_2_5() {
    let d = common::scratch("bench-replot");
    let csv = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/mpc-bench.csv");
    let out = d.join("out.svg");
    let o = alibi(&[
        "mpc",
        "bench",
        "--replot",
        csv,
        "--plot",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code(&o), 0, "{}", String::from_utf8_lossy(&o.stderr));
    let svg = std::fs::read_to_string(&out).unwrap();
    // Both axes of both panels are logarithmic: every number on the plot is a tick.
    let ticks: Vec<f64> = svg_texts(&svg)
        .iter()
        .filter_map(|t| t.trim().parse().ok())
        .collect();
    assert!(ticks.len() >= 8, "ticks on four axes: {ticks:?}");
    let odd: Vec<&f64> = ticks.iter().filter(|t| !one_two_five(**t)).collect();
    assert!(odd.is_empty(), "ticks not at 1-2-5: {odd:?} of {ticks:?}");
    // Labels are read level: nothing turned on its side.
    assert!(!svg.contains("rotate("), "rotated text");
}
