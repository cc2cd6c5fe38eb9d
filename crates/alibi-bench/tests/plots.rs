//! Every kind of plot, drawn from the committed benchmark data and from awkward made-up data,
//! rendered to PNG with resvg and checked as a reader would see it: no text outside the canvas,
//! no two texts over each other, no text and no legend over the data, log axes ticked at 1-2-5.
//!
//! Text is laid out by usvg with DejaVu Sans from the `dejavu` crate, the one font loaded: the
//! boxes are real glyph metrics, the same on every machine, whatever fonts it has (none on a bare
//! CI machine). DejaVu Sans is wider than the fonts a browser usually picks for `sans-serif`
//! (Arial, Helvetica, Liberation Sans), so text that fits here fits there.

use std::path::{Path, PathBuf};

use alibi_bench::mpc;
use alibi_bench::plot::{self, Panel, Series};
use alibi_bench::table::Plot;
use resvg::tiny_skia;
use resvg::usvg::{self, Node, Rect};

/// The repository's docs/ directory, where the committed CSVs are.
fn docs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs")
}

fn options() -> usvg::Options<'static> {
    let mut o = usvg::Options::default();
    let db = o.fontdb_mut();
    db.load_font_data(dejavu::sans::regular().to_vec());
    db.set_sans_serif_family("DejaVu Sans");
    o.font_family = "DejaVu Sans".into();
    o
}

/// What the checks look at: each text with its box and id, the boxes of the data areas, of the
/// data drawn in them and of the legends.
#[derive(Default)]
struct Seen {
    texts: Vec<(String, String, Rect)>,
    areas: Vec<Rect>,
    data: Vec<Rect>,
    legends: Vec<Rect>,
}

fn walk(group: &usvg::Group, inside: Option<&str>, seen: &mut Seen) {
    for node in group.children() {
        let id = node.id();
        let here = if id.starts_with("data") || id.starts_with("legend") {
            Some(id)
        } else {
            inside
        };
        if id.starts_with("legend") {
            seen.legends.push(node.abs_bounding_box());
        }
        if id.starts_with("plot-area") {
            seen.areas.push(node.abs_bounding_box());
        }
        match node {
            Node::Group(g) => walk(g, here, seen),
            Node::Text(t) => {
                let text: String = t.chunks().iter().map(|c| c.text()).collect();
                seen.texts
                    .push((id.to_string(), text, t.abs_bounding_box()));
            }
            Node::Path(p) if here.is_some_and(|h| h.starts_with("data")) => {
                seen.data.push(p.abs_bounding_box());
            }
            _ => {}
        }
    }
}

/// Whether two boxes share more than a hair (half a pixel) of area.
fn overlap(a: &Rect, b: &Rect) -> bool {
    let e = 0.5;
    a.left() + e < b.right()
        && b.left() + e < a.right()
        && a.top() + e < b.bottom()
        && b.top() + e < a.bottom()
}

/// Whether `v` is 1, 2 or 5 times a power of ten.
fn one_two_five(v: f64) -> bool {
    if v <= 0.0 {
        return false;
    }
    let m = v / 10f64.powf(v.log10().floor());
    [1.0, 2.0, 5.0, 10.0].iter().any(|x| (m - x).abs() < 1e-9)
}

/// Renders `svg` to target/tmp/plots/`name`.png and checks it: what a reader would see wrong, one
/// line each (none when all is well).
fn check(name: &str, svg: &str, log_axes: &[&str]) -> Vec<String> {
    let mut problems = vec![];
    let mut expect = |ok: bool, what: String| {
        if !ok {
            problems.push(format!("{name}: {what}"));
        }
    };
    let tree = usvg::Tree::from_str(svg, &options()).unwrap_or_else(|e| panic!("{name}: {e}"));
    let size = tree.size();
    let mut pixmap =
        tiny_skia::Pixmap::new(size.width().ceil() as u32, size.height().ceil() as u32)
            .expect("a canvas of some size");
    pixmap.fill(tiny_skia::Color::WHITE);
    resvg::render(&tree, tiny_skia::Transform::default(), &mut pixmap.as_mut());
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("plots");
    std::fs::create_dir_all(&dir).unwrap();
    pixmap.save_png(dir.join(format!("{name}.png"))).unwrap();
    assert!(
        pixmap.pixels().iter().any(|p| p.red() < 128),
        "{name}: something is drawn"
    );

    let mut seen = Seen::default();
    walk(tree.root(), None, &mut seen);
    // Every <text> with something to say was laid out (none dropped for want of a font).
    let said = svg
        .split("<text")
        .skip(1)
        .filter(|t| {
            t.split_once('>').is_some_and(|(_, rest)| {
                !rest.split("</text>").next().unwrap_or("").trim().is_empty()
            })
        })
        .count();
    expect(
        seen.texts.len() == said,
        format!("{} texts laid out of {said}", seen.texts.len()),
    );
    let canvas = Rect::from_xywh(0.0, 0.0, size.width(), size.height()).unwrap();
    for (_, text, b) in &seen.texts {
        expect(
            b.left() >= canvas.left() - 0.5
                && b.top() >= canvas.top() - 0.5
                && b.right() <= canvas.right() + 0.5
                && b.bottom() <= canvas.bottom() + 0.5,
            format!("{text:?} at {b:?} is cut by the canvas {canvas:?}"),
        );
    }
    for (i, (_, a, ab)) in seen.texts.iter().enumerate() {
        for (_, b, bb) in &seen.texts[i + 1..] {
            expect(
                !overlap(ab, bb),
                format!("{a:?} {ab:?} overlaps {b:?} {bb:?}"),
            );
        }
        for area in &seen.areas {
            expect(
                !overlap(ab, area),
                format!("{a:?} {ab:?} is over the data area {area:?}"),
            );
        }
    }
    // On a plot with logarithmic axes, every number is a tick, 1, 2 or 5 times a power of ten.
    if !log_axes.is_empty() {
        for (_, t, _) in seen
            .texts
            .iter()
            .filter(|(id, _, _)| !id.starts_with("label"))
        {
            if let Ok(v) = t.trim().parse::<f64>() {
                expect(
                    one_two_five(v),
                    format!("tick {t:?} is not 1, 2 or 5 × 10^k"),
                );
            }
        }
    }
    for axis in log_axes {
        let ticks: Vec<f64> = seen
            .texts
            .iter()
            .filter(|(id, _, _)| id.starts_with(axis))
            .filter_map(|(_, t, _)| t.parse().ok())
            .collect();
        expect(ticks.len() >= 2, format!("{axis} has ticks {ticks:?}"));
        for t in &ticks {
            expect(
                one_two_five(*t),
                format!("{axis} tick {t} is not 1, 2 or 5 × 10^k"),
            );
        }
    }
    expect(
        !seen.areas.is_empty() && !seen.data.is_empty(),
        "data areas marked".to_string(),
    );
    expect(!seen.legends.is_empty(), "a legend, marked".to_string());
    for legend in &seen.legends {
        for area in &seen.areas {
            expect(
                !overlap(legend, area),
                format!("legend {legend:?} over the data area {area:?}"),
            );
        }
        for d in &seen.data {
            expect(
                !overlap(legend, d),
                format!("legend {legend:?} over the data {d:?}"),
            );
        }
    }
    problems
}

/// Each seed's table: its CSV under docs/bench/, its title, and its plot drawn again from the
/// CSV exactly as the seed draws it from its measurements (the same rows and columns, medians in
/// µs; seed 002's in ms, later runs only, as its CSV rounds them).
fn seed_plots() -> Vec<(&'static str, &'static str, Plot)> {
    let read = |file: &str| -> Vec<Vec<String>> {
        let text = std::fs::read_to_string(docs().join("bench").join(file)).unwrap();
        text.lines().map(csv_fields).collect()
    };
    // Column `name` of `row`, as a number divided by `unit`.
    let num = |rows: &[Vec<String>], row: &[String], name: &str, unit: f64| {
        let j = rows[0]
            .iter()
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("no {name}"));
        row.get(j)
            .and_then(|f| f.parse::<f64>().ok())
            .map(|v| v / unit)
    };
    let medians = |rows: &[Vec<String>], row: &[String], columns: &[&str]| -> Vec<Option<f64>> {
        columns
            .iter()
            .map(|c| num(rows, row, &format!("{c}: median (ns)"), 1e3))
            .collect()
    };
    let plot = |unit: &str, series: &[&str], groups: Vec<(String, Vec<Option<f64>>)>| Plot {
        unit: unit.into(),
        series: series.iter().map(|s| s.to_string()).collect(),
        groups,
    };
    let mut out = vec![];
    let r = read("seed000-ring-signatures.csv");
    let cols = [
        "keygen",
        "sign",
        "ring sign (2)",
        "verify",
        "ring verify (2)",
    ];
    let groups = r[1..]
        .iter()
        .map(|row| (row[0].clone(), medians(&r, row, &cols)))
        .collect();
    let series = ["keygen", "sign", "ring sign", "verify", "ring verify"];
    out.push((
        "seed000-ring-signatures",
        "Seed 000: FalconRS and MAYO-RS (Table 3)",
        plot("µs", &series, groups),
    ));
    let r = read("seed001-shadowfax.csv");
    let cols = ["Gen", "Enc (Sgn)", "Dec (Ver)"];
    let groups = r[1..]
        .iter()
        .map(|row| (row[0].clone(), medians(&r, row, &cols)))
        .collect();
    let series = ["Gen", "Enc / Sgn", "Dec / Ver"];
    out.push((
        "seed001-shadowfax",
        "Seed 001: SHADOWFAX and its parts (Table 1)",
        plot("µs", &series, groups),
    ));
    let r = read("seed002-mpc.csv");
    let groups = r[1..]
        .iter()
        .filter(|row| row[3] == "later")
        .map(|row| {
            let cols = [
                "keygen pairwise (ms)",
                "keygen concurrent (ms)",
                "keygen group (ms)",
            ];
            let v = cols.iter().map(|c| num(&r, row, c, 1.0)).collect();
            (format!("keygen n={} {}ms", row[0], row[2]), v)
        })
        .collect();
    let series = ["pairwise", "pairwise concurrent", "group"];
    out.push((
        "seed002-mpc",
        "Seed 002: threshold BLS over pairwise and group channels",
        plot("ms", &series, groups),
    ));
    let r = read("seed003-dgsp.csv");
    let groups = r[1..]
        .iter()
        .filter(|row| row[0] == "SHAKE-256f" && row[1] == "memory" && row[4] == "1")
        .map(|row| {
            let peer = num(&r, row, "dgsp 0.1.2, same run: median (ns)", 1e3);
            (
                row[3].clone(),
                vec![num(&r, row, "alibi: median (ns)", 1e3), peer],
            )
        })
        .collect();
    out.push((
        "seed003-dgsp",
        "Seed 003: DGSP (the README's tables)",
        plot("µs", &["alibi", "dgsp 0.1.2"], groups),
    ));
    let r = read("seed004-tachyon.csv");
    let cols = ["sign", "verify", "sign + verify"];
    let groups = r[1..]
        .iter()
        .map(|row| (format!("{} {}", row[0], row[1]), medians(&r, row, &cols)))
        .collect();
    out.push((
        "seed004-tachyon",
        "Seed 004: TACHYON and its counterparts (Table 2)",
        plot("µs", &cols, groups),
    ));
    out
}

/// The fields of one CSV line (RFC 4180 quotes).
fn csv_fields(line: &str) -> Vec<String> {
    let (mut out, mut field, mut quoted) = (vec![], String::new(), false);
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(std::mem::take(&mut field)),
            c => field.push(c),
        }
    }
    out.push(field);
    out
}

#[test]
fn seed_bar_plots_can_be_read() {
    let mut problems = vec![];
    for (stem, title, plot) in seed_plots() {
        let svg = plot::svg(&plot, title).unwrap();
        problems.extend(check(stem, &svg, &["ytick"]));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Not a check: draws docs/bench/*.svg again from the committed CSVs beside them, with the plot
/// code of today (`cargo test -p alibi-bench --test plots -- --ignored`), for when the plots
/// change and the benchmarks are not to be run again.
#[test]
#[ignore]
fn redraw_the_committed_seed_plots() {
    for (stem, title, plot) in seed_plots() {
        let svg = plot::svg(&plot, title).unwrap();
        std::fs::write(docs().join("bench").join(format!("{stem}.svg")), svg).unwrap();
    }
}

#[test]
fn awkward_bar_plots_can_be_read() {
    let long = "PQ-AKEM[ML-KEM-512, GANDALF[Falcon-512]] with a label longer than any seed's";
    let cases = [
        (
            "many-groups",
            Plot {
                unit: "µs".into(),
                series: (0..6).map(|i| format!("series number {i}")).collect(),
                groups: (0..14)
                    .map(|g| {
                        let v = (0..6)
                            .map(|s| Some(10f64.powi(g % 9 - 2) * (1.0 + s as f64)))
                            .collect();
                        (format!("operation {g} [Falcon-512]"), v)
                    })
                    .collect(),
            },
        ),
        (
            "one-long-word",
            Plot {
                unit: "ms".into(),
                series: vec!["ours".into(), "peer".into()],
                groups: vec![
                    (
                        "GANDALF[Falcon-512]ML-KEM-512MAYO1MAYO2".into(),
                        vec![Some(11.0), Some(45.0)],
                    ),
                    (long.into(), vec![Some(23.0), None]),
                ],
            },
        ),
        (
            "one-value",
            Plot {
                unit: "µs".into(),
                series: vec!["only".into()],
                groups: vec![("sign".into(), vec![Some(20.0)])],
            },
        ),
    ];
    let mut problems = vec![];
    for (name, plot) in cases {
        let svg = plot::svg(&plot, "an awkward plot").unwrap();
        problems.extend(check(name, &svg, &["ytick"]));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn mpc_line_plots_can_be_read() {
    let mut problems = vec![];
    for file in ["mpc-bench.csv", "mpc-processes.csv"] {
        let cells = mpc::parse_csv(&std::fs::read(docs().join(file)).unwrap()).unwrap();
        let mut delays: Vec<u64> = cells.iter().map(|c| c.delay).collect();
        delays.dedup();
        let svg = mpc::svg(&cells, &delays).unwrap();
        problems.extend(check(
            file.trim_end_matches(".csv"),
            &svg,
            &["ytick", "xtick"],
        ));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn awkward_line_plots_can_be_read() {
    let series = |label: &str, points: Vec<(f64, f64)>| Series {
        label: label.into(),
        points,
    };
    let panels = [
        Panel {
            title: "one point, and a title longer than its panel would be without it".into(),
            series: vec![series("alone", vec![(3.0, 11.0)])],
        },
        Panel {
            title: "many lines".into(),
            series: (0..8)
                .map(|k| {
                    let pts = [3.0, 4.0, 8.0, 16.0, 64.0]
                        .iter()
                        .map(|&n| (n, n * (k + 1) as f64 * 0.37))
                        .collect();
                    series(&format!("pairwise-concurrent, {k}00 ms delay"), pts)
                })
                .collect(),
        },
    ];
    let svg = plot::lines(&panels, ("parties n (log scale)", "ms (log scale)")).unwrap();
    let problems = check("lines-awkward", &svg, &["ytick", "xtick"]);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
