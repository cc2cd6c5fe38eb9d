//! A result table: Markdown for the report, CSV for other tools, and the figures a plot draws.
//!
//! Cells keep their measurements, not only their text: the Markdown shows a median with its range
//! in a readable unit, the CSV gives the median, minimum and maximum as plain numbers (ns, or the
//! bare ratio) in three columns, for plotting or statistics elsewhere.

use crate::measure::{Pair, Stats};

/// One table of the report (one per seed), with the notes that go under it.
#[derive(Clone, Debug, Default)]
pub struct Table {
    /// File stem of its CSV and plot, e.g. `seed000-ring-signatures`.
    pub id: String,
    /// Section title in the report.
    pub title: String,
    /// What the rows measure and how; Markdown paragraphs, before the table.
    pub intro: Vec<String>,
    /// Column headings.
    pub columns: Vec<String>,
    /// Cells, one `Vec` per row, as many as there are columns.
    pub rows: Vec<Vec<Cell>>,
    /// Paragraphs after the table (quoted figures, the paper's claims beside ours).
    pub notes: Vec<String>,
    /// The bars of its plot.
    pub plot: Plot,
}

/// One cell of a table.
#[derive(Clone, Debug)]
pub enum Cell {
    /// Text (names, sizes, quoted figures).
    Text(String),
    /// A measured time, in ns per call.
    Time(Stats),
    /// A measured ratio ours / peer.
    Ratio(Stats),
    /// Nothing measured here.
    None,
}

impl From<String> for Cell {
    fn from(s: String) -> Cell {
        Cell::Text(s)
    }
}

impl From<&str> for Cell {
    fn from(s: &str) -> Cell {
        Cell::Text(s.to_string())
    }
}

impl Cell {
    /// As the report shows it.
    pub fn markdown(&self) -> String {
        match self {
            Cell::Text(t) => t.clone(),
            Cell::Time(s) => stats_text(s),
            Cell::Ratio(s) => ratio_text(s),
            Cell::None => "-".into(),
        }
    }

    /// Median, minimum and maximum as plain numbers, for a CSV; text in the first field.
    fn numbers(&self) -> [String; 3] {
        match self {
            Cell::Time(s) => [s.median, s.min, s.max].map(|x| format!("{x:.1}")),
            Cell::Ratio(s) => [s.median, s.min, s.max].map(|x| format!("{x:.4}")),
            Cell::Text(t) => [t.clone(), String::new(), String::new()],
            Cell::None => Default::default(),
        }
    }
}

/// A grouped bar chart: for each group (an operation), one bar per series (ours, a peer).
#[derive(Clone, Debug, Default)]
pub struct Plot {
    /// The unit of the values (the axis is logarithmic).
    pub unit: String,
    /// Series names, in bar order.
    pub series: Vec<String>,
    /// (group label, one value per series; `None` where that series has none).
    pub groups: Vec<(String, Vec<Option<f64>>)>,
}

impl Table {
    /// The table as GitHub Markdown, without its title.
    pub fn markdown(&self) -> String {
        let mut s = String::new();
        for p in &self.intro {
            s.push_str(p);
            s.push_str("\n\n");
        }
        s.push_str(&markdown_head(&self.columns));
        s.push('\n');
        for r in &self.rows {
            s.push_str(&markdown_row(r));
            s.push('\n');
        }
        for p in &self.notes {
            s.push('\n');
            s.push_str(p);
            s.push('\n');
        }
        s
    }

    /// The table as CSV (RFC 4180 quoting), header first. A column that holds measurements becomes
    /// three: its median, minimum and maximum (in ns for times).
    pub fn csv(&self) -> String {
        let field = |c: &str| {
            if c.contains([',', '"', '\n']) {
                format!("\"{}\"", c.replace('"', "\"\""))
            } else {
                c.to_string()
            }
        };
        let line = |r: &[String]| r.iter().map(|c| field(c)).collect::<Vec<_>>().join(",");
        // Which columns hold measurements, and their unit.
        let unit = |j: usize| {
            self.rows.iter().find_map(|r| match r.get(j) {
                Some(Cell::Time(_)) => Some(" (ns)"),
                Some(Cell::Ratio(_)) => Some(""),
                _ => None,
            })
        };
        let units: Vec<Option<&str>> = (0..self.columns.len()).map(unit).collect();
        let mut header = vec![];
        for (c, u) in self.columns.iter().zip(&units) {
            match u {
                Some(u) => header.extend(["median", "min", "max"].map(|p| format!("{c}: {p}{u}"))),
                None => header.push(c.clone()),
            }
        }
        let mut s = line(&header);
        s.push('\n');
        for r in &self.rows {
            let mut out = vec![];
            for (c, u) in r.iter().zip(&units) {
                match u {
                    Some(_) => out.extend(c.numbers()),
                    None => out.push(c.markdown()),
                }
            }
            s.push_str(&line(&out));
            s.push('\n');
        }
        s
    }
}

/// A Markdown table's heading line and the rule under it (two lines, no final newline): for a
/// table printed row by row as it is measured.
pub fn markdown_head(columns: &[String]) -> String {
    format!(
        "| {} |\n|{}",
        columns.join(" | "),
        "---|".repeat(columns.len())
    )
}

/// One Markdown table row (no final newline), `|` in cells escaped.
pub fn markdown_row(cells: &[Cell]) -> String {
    let cells: Vec<String> = cells
        .iter()
        .map(|c| c.markdown().replace('|', "\\|"))
        .collect();
    format!("| {} |", cells.join(" | "))
}

/// A duration in ns, in the unit that suits it.
pub fn ns(x: f64) -> String {
    if x >= 1e9 {
        format!("{:.2} s", x / 1e9)
    } else if x >= 1e6 {
        format!("{:.2} ms", x / 1e6)
    } else if x >= 1e3 {
        format!("{:.1} µs", x / 1e3)
    } else {
        format!("{x:.0} ns")
    }
}

/// A measured time as a cell.
pub fn stats(s: &Stats) -> Cell {
    Cell::Time(s.clone())
}

/// A measured ratio as a cell.
pub fn ratio(s: &Stats) -> Cell {
    Cell::Ratio(s.clone())
}

/// The three cells of a pair: ours, the peer's, ours / peer.
pub fn pair(p: &Pair) -> [Cell; 3] {
    [stats(&p.ours), stats(&p.peer), ratio(&p.ratio)]
}

/// Median and range, e.g. `45.1 µs (44.9–46.0)`, the range in the median's unit when the three
/// share it; just the median for one sample.
fn stats_text(s: &Stats) -> String {
    if s.samples == 1 {
        return ns(s.median);
    }
    let (m, lo, hi) = (ns(s.median), ns(s.min), ns(s.max));
    let unit = |x: &str| x.split_once(' ').map(|(_, u)| u.to_string());
    let number = |x: &str| {
        x.split_once(' ')
            .map_or(x.to_string(), |(n, _)| n.to_string())
    };
    if unit(&m) == unit(&lo) && unit(&m) == unit(&hi) {
        format!("{m} ({}–{})", number(&lo), number(&hi))
    } else {
        format!("{m} ({lo}–{hi})")
    }
}

/// A ratio's median and range, e.g. `0.93 (0.91–0.95)`.
fn ratio_text(s: &Stats) -> String {
    if s.samples == 1 || (s.max - s.min) < 0.005 {
        return format!("{:.2}", s.median);
    }
    format!("{:.2} ({:.2}–{:.2})", s.median, s.min, s.max)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> Table {
        Table {
            id: "t".into(),
            title: "T".into(),
            intro: vec!["about".into()],
            columns: vec!["a".into(), "b".into()],
            rows: vec![
                vec!["1, 2".into(), "say \"x\" | y".into()],
                vec!["t".into(), Cell::None],
            ],
            notes: vec!["quoted".into()],
            plot: Plot::default(),
        }
    }

    #[test]
    fn csv_quotes_what_needs_it() {
        assert_eq!(table().csv(), "a,b\n\"1, 2\",\"say \"\"x\"\" | y\"\nt,-\n");
    }

    #[test]
    fn measured_columns_become_three_numbers() {
        let mut t = table();
        let s = Stats {
            median: 1500.0,
            min: 1000.0,
            max: 2500.0,
            samples: 3,
        };
        t.rows[0][1] = Cell::Time(s.clone());
        assert_eq!(
            t.csv(),
            "a,b: median (ns),b: min (ns),b: max (ns)\n\"1, 2\",1500.0,1000.0,2500.0\nt,,,\n"
        );
        assert!(
            t.markdown().contains("| 1, 2 | 1.5 µs (1.0–2.5) |"),
            "{}",
            t.markdown()
        );
        t.rows[0][1] = Cell::Ratio(Stats { median: 0.5, ..s });
        assert!(t
            .csv()
            .starts_with("a,b: median,b: min,b: max\n\"1, 2\",0.5000,1000.0000,"));
    }

    #[test]
    fn markdown_escapes_bars() {
        let md = table().markdown();
        assert!(md.contains("| 1, 2 | say \"x\" \\| y |"), "{md}");
        assert!(md.starts_with("about\n\n| a | b |\n|---|---|\n"));
        assert!(md.contains("| t | - |"));
    }

    #[test]
    fn ranges_share_the_median_unit_when_they_can() {
        let s = |median, min, max| Stats {
            median,
            min,
            max,
            samples: 3,
        };
        assert_eq!(
            stats_text(&s(45_100.0, 44_900.0, 46_000.0)),
            "45.1 µs (44.9–46.0)"
        );
        assert_eq!(
            stats_text(&s(990_000.0, 980_000.0, 1_200_000.0)),
            "990.0 µs (980.0 µs–1.20 ms)"
        );
    }

    #[test]
    fn units() {
        assert_eq!(ns(512.0), "512 ns");
        assert_eq!(ns(45_100.0), "45.1 µs");
        assert_eq!(ns(2_150_000.0), "2.15 ms");
        assert_eq!(ns(3.2e9), "3.20 s");
    }
}
