//! Every SVG plot of the benchmarks: grouped bar charts of a report table's figures ([`svg`]) and
//! line charts of a measure against a count ([`lines`], `alibi mpc bench`).
//!
//! Drawn for a reader: labels horizontal, wrapped where long and never cut (the plot grows to
//! hold them), legends beside or below the data and never over it, logarithmic axes ticked at
//! 1-2-5 steps. The SVG is written here rather than by a plotting library so that every text's
//! place and size is chosen knowing the others'.

mod axis;
mod canvas;

use axis::LogAxis;
use canvas::{height, width, wrap, Anchor, Canvas};

use crate::table::Plot;
use crate::Error;

/// Colours of the series of [`svg`], in order (ours first).
const COLOURS: [&str; 6] = [
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
];
/// Colours of the lines of [`lines`], in order.
const LINE_COLOURS: [&str; 6] = [
    "#e41a1c", "#1f4fd8", "#c51bc5", "#0097a7", "#2e9e2e", "#000000",
];
/// Space around the whole plot, in pixels.
const MARGIN: f64 = 12.0;
/// Text size of titles.
const TITLE: f64 = 16.0;
/// Text size of everything else.
const FONT: f64 = 12.0;
/// Space between an axis and its labels.
const GAP: f64 = 8.0;
/// Height of a data area.
const AREA_H: f64 = 320.0;
/// Width of a line chart's data area.
const AREA_W: f64 = 420.0;
/// Data kept this far inside a line chart's frame.
const INSET: f64 = 8.0;
/// Legend rows, top to top.
const ROW: f64 = 20.0;

/// A data area, in pixels.
#[derive(Clone, Copy, Debug)]
struct Area {
    left: f64,
    top: f64,
    w: f64,
    h: f64,
}

impl Area {
    fn right(&self) -> f64 {
        self.left + self.w
    }

    fn bottom(&self) -> f64 {
        self.top + self.h
    }
}

/// What a legend entry shows beside its name.
#[derive(Clone, Copy, Debug)]
enum Swatch {
    /// A filled square (a bar).
    Square,
    /// A short line (a line).
    Line,
}

/// The top of the data area below a title and an axis unit, for a plot whose top is at 0.
fn area_top() -> f64 {
    MARGIN + height(1, TITLE) + GAP + height(1, FONT) + 10.0
}

/// Whether tick labels one text line high at `ticks` on the vertical `axis` stay apart.
fn apart_vertically(axis: &LogAxis, ticks: &[f64]) -> bool {
    ticks
        .windows(2)
        .all(|p| (axis.pixel(p[0]) - axis.pixel(p[1])).abs() >= height(1, FONT) + 4.0)
}

/// Whether tick labels at `ticks` on the horizontal `axis`, centred on them, stay apart.
fn apart_horizontally(axis: &LogAxis, ticks: &[f64]) -> bool {
    ticks.windows(2).all(|p| {
        let half = (width(&axis::label(p[0]), FONT) + width(&axis::label(p[1]), FONT)) / 2.0;
        (axis.pixel(p[0]) - axis.pixel(p[1])).abs() >= half + 8.0
    })
}

/// The y axis of panel `panel`: its unit above the area's left edge, grid lines and tick labels.
fn y_axis(c: &mut Canvas, panel: usize, (axis, ticks): (&LogAxis, &[f64]), area: Area, unit: &str) {
    let unit_top = area.top - 10.0 - height(1, FONT);
    let unit_x = ticks
        .iter()
        .map(|t| width(&axis::label(*t), FONT))
        .fold(0.0, f64::max);
    c.text(
        "",
        (area.left - GAP - unit_x, unit_top),
        FONT,
        Anchor::Start,
        unit,
    );
    for (j, &t) in ticks.iter().enumerate() {
        let y = axis.pixel(t);
        c.polyline(&[(area.left, y), (area.right(), y)], "#e4e4e4", 1.0);
        c.polyline(&[(area.left - 4.0, y), (area.left, y)], "#444444", 1.0);
        let top = y - height(1, FONT) / 2.0;
        let id = format!("ytick-{panel}-{j}");
        c.text(
            &id,
            (area.left - GAP, top),
            FONT,
            Anchor::End,
            &axis::label(t),
        );
    }
}

/// A legend of `entries` (name, colour) with its top left corner at `at`, in as many columns as
/// fit in `max_w` (one at least), framed; its group is named `legend-{panel}`.
fn legend(
    c: &mut Canvas,
    panel: usize,
    at: (f64, f64),
    max_w: f64,
    entries: &[(&str, &str)],
    swatch: Swatch,
) {
    if entries.is_empty() {
        return;
    }
    let entry_w = 20.0 + entries.iter().map(|e| width(e.0, FONT)).fold(0.0, f64::max);
    let cols =
        (((max_w - 12.0 + 16.0) / (entry_w + 16.0)).floor() as usize).clamp(1, entries.len());
    let rows = entries.len().div_ceil(cols);
    c.open(&format!("legend-{panel}"));
    let w = 12.0 + cols as f64 * entry_w + (cols - 1) as f64 * 16.0;
    let h = 12.0 + (rows - 1) as f64 * ROW + height(1, FONT);
    c.rect((at.0, at.1, w, h), "#ffffff", "#999999", "");
    for (i, (name, colour)) in entries.iter().enumerate() {
        let (col, row) = (i / rows, i % rows);
        let x = at.0 + 6.0 + col as f64 * (entry_w + 16.0);
        let top = at.1 + 6.0 + row as f64 * ROW;
        let mid = top + height(1, FONT) / 2.0;
        match swatch {
            Swatch::Square => c.rect((x, mid - 6.0, 12.0, 12.0), colour, "none", ""),
            Swatch::Line => c.polyline(&[(x, mid), (x + 14.0, mid)], colour, 2.0),
        }
        c.text("", (x + 20.0, top), FONT, Anchor::Start, name);
    }
    c.close();
}

/// `title` centred over the plot drawn so far from `left`, or from `left` on if it is wider.
fn title(c: &mut Canvas, left: f64, size: f64, title: &str) {
    let w = width(title, size);
    let centre = ((left + c.right()) / 2.0).max(left + w / 2.0);
    c.text("", (centre, MARGIN), size, Anchor::Middle, title);
}

/// The group labels of `plot` wrapped, and the width of each group's slot: room for its bars
/// (`block` pixels together) and its label, the slots together at least 240 pixels wide.
fn slots(plot: &Plot, block: f64) -> (Vec<Vec<String>>, Vec<f64>) {
    let wrap_at = (block + 12.0).max(110.0);
    let labels: Vec<Vec<String>> = plot
        .groups
        .iter()
        .map(|(l, _)| wrap(l, FONT, wrap_at))
        .collect();
    let mut slots: Vec<f64> = labels
        .iter()
        .map(|ls| {
            let widest = ls.iter().map(|l| width(l, FONT)).fold(0.0, f64::max);
            (block + 12.0).max(widest + 12.0)
        })
        .collect();
    let total: f64 = slots.iter().sum();
    if total < 240.0 && !slots.is_empty() {
        let extra = (240.0 - total) / slots.len() as f64;
        slots.iter_mut().for_each(|s| *s += extra);
    }
    (labels, slots)
}

/// Draws `plot` as an SVG document: one group of bars per operation, on a logarithmic axis, the
/// operations' names under them (wrapped), the legend to the right.
pub fn svg(plot: &Plot, title_text: &str) -> Result<String, Error> {
    let k = plot.series.len().max(1);
    let bar = if k >= 3 { 14.0 } else { 20.0 };
    let block = bar * k as f64;
    let (labels, slots) = slots(plot, block);
    let values = plot
        .groups
        .iter()
        .flat_map(|(_, v)| v.iter().flatten().copied());
    let top = area_top();
    let y = LogAxis::fit(values, 1.5).placed(top + AREA_H, top + INSET);
    let ticks = y.ticks(|t| apart_vertically(&y, t));
    let tick_w = ticks
        .iter()
        .map(|t| width(&axis::label(*t), FONT))
        .fold(0.0, f64::max);
    let left = MARGIN + tick_w + GAP + 4.0;
    let area = Area {
        left,
        top,
        w: slots.iter().sum::<f64>().max(240.0),
        h: AREA_H,
    };
    let mut c = Canvas::default();
    y_axis(&mut c, 0, (&y, &ticks), area, &plot.unit);
    c.open("data-0");
    let mut x = area.left;
    for ((_, values), slot) in plot.groups.iter().zip(&slots) {
        let centre = x + slot / 2.0;
        for (s, v) in values.iter().enumerate() {
            let Some(v) = v.filter(|v| *v > 0.0) else {
                continue;
            };
            let x0 = centre - block / 2.0 + s as f64 * bar;
            let y0 = y.pixel(v);
            c.rect(
                (x0, y0, bar - 1.0, y.start() - y0),
                COLOURS[s % COLOURS.len()],
                "none",
                "",
            );
        }
        x += slot;
    }
    c.close();
    c.rect(
        (area.left, area.top, area.w, area.h),
        "none",
        "#444444",
        "plot-area-0",
    );
    let mut x = area.left;
    for (g, (slot, lines)) in slots.iter().zip(&labels).enumerate() {
        for (n, line) in lines.iter().enumerate() {
            let top = area.bottom() + GAP + n as f64 * canvas::LINE * FONT;
            c.text(
                &format!("label-{g}-{n}"),
                (x + slot / 2.0, top),
                FONT,
                Anchor::Middle,
                line,
            );
        }
        x += slot;
    }
    let entries: Vec<(&str, &str)> = plot
        .series
        .iter()
        .enumerate()
        .map(|(s, name)| (name.as_str(), COLOURS[s % COLOURS.len()]))
        .collect();
    legend(
        &mut c,
        0,
        (area.right() + 20.0, area.top),
        0.0,
        &entries,
        Swatch::Square,
    );
    title(&mut c, MARGIN, TITLE, title_text);
    Ok(c.finish(MARGIN))
}

/// One panel of a line chart.
#[derive(Clone, Debug, Default)]
pub struct Panel {
    /// Its caption.
    pub title: String,
    /// Its lines, in legend order.
    pub series: Vec<Series>,
}

/// One line: (x, y) points, both positive (both axes are logarithmic).
#[derive(Clone, Debug, Default)]
pub struct Series {
    /// Its legend entry.
    pub label: String,
    /// The points, in drawing order.
    pub points: Vec<(f64, f64)>,
}

/// Draws `panels` side by side as an SVG document: lines with a dot at each point, both axes
/// logarithmic (x shared by the panels, y each its own), described by `(x, y)`; each panel's
/// legend under it.
pub fn lines(panels: &[Panel], descs: (&str, &str)) -> Result<String, Error> {
    let xs = panels
        .iter()
        .flat_map(|p| &p.series)
        .flat_map(|s| s.points.iter().map(|p| p.0));
    let x_fit = LogAxis::fit(xs, 1.0);
    let mut c = Canvas::default();
    let mut x0 = 0.0;
    for (i, panel) in panels.iter().enumerate() {
        line_panel(&mut c, (i, x0), panel, &x_fit, descs);
        x0 = c.right() + MARGIN;
    }
    Ok(c.finish(MARGIN))
}

/// Panel `i` of [`lines`], its left edge at `x0`.
fn line_panel(
    c: &mut Canvas,
    (i, x0): (usize, f64),
    panel: &Panel,
    x_fit: &LogAxis,
    (x_desc, y_desc): (&str, &str),
) {
    let top = area_top();
    let ys = panel
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1));
    let y = LogAxis::fit(ys, 1.0).placed(top + AREA_H - INSET, top + INSET);
    let y_ticks = y.ticks(|t| apart_vertically(&y, t));
    let tick_w = y_ticks
        .iter()
        .map(|t| width(&axis::label(*t), FONT))
        .fold(0.0, f64::max);
    let area = Area {
        left: x0 + MARGIN + tick_w + GAP + 4.0,
        top,
        w: AREA_W,
        h: AREA_H,
    };
    let x = x_fit.placed(area.left + INSET, area.right() - INSET);
    let x_ticks = x.ticks(|t| apart_horizontally(&x, t));
    y_axis(c, i, (&y, &y_ticks), area, y_desc);
    for (j, &t) in x_ticks.iter().enumerate() {
        let px = x.pixel(t);
        c.polyline(&[(px, area.top), (px, area.bottom())], "#e4e4e4", 1.0);
        c.polyline(
            &[(px, area.bottom()), (px, area.bottom() + 4.0)],
            "#444444",
            1.0,
        );
        let id = format!("xtick-{i}-{j}");
        c.text(
            &id,
            (px, area.bottom() + GAP),
            FONT,
            Anchor::Middle,
            &axis::label(t),
        );
    }
    let desc_top = area.bottom() + GAP + height(1, FONT) + 6.0;
    c.text(
        "",
        ((area.left + area.right()) / 2.0, desc_top),
        FONT,
        Anchor::Middle,
        x_desc,
    );
    c.open(&format!("data-{i}"));
    for (k, series) in panel.series.iter().enumerate() {
        let colour = LINE_COLOURS[k % LINE_COLOURS.len()];
        let pts: Vec<(f64, f64)> = series
            .points
            .iter()
            .map(|&(px, py)| (x.pixel(px), y.pixel(py)))
            .collect();
        c.polyline(&pts, colour, 2.0);
        for &p in &pts {
            c.dot(p, 3.0, colour);
        }
    }
    c.close();
    c.rect(
        (area.left, area.top, area.w, area.h),
        "none",
        "#444444",
        &format!("plot-area-{i}"),
    );
    let entries: Vec<(&str, &str)> = panel
        .series
        .iter()
        .enumerate()
        .map(|(k, s)| (s.label.as_str(), LINE_COLOURS[k % LINE_COLOURS.len()]))
        .collect();
    let legend_top = desc_top + height(1, FONT) + 12.0;
    legend(
        c,
        i,
        (x0 + MARGIN, legend_top),
        area.right() - x0 - MARGIN,
        &entries,
        Swatch::Line,
    );
    let left = x0 + MARGIN;
    let w = width(&panel.title, TITLE);
    let centre = ((area.left + area.right()) / 2.0).max(left + w / 2.0);
    c.text("", (centre, MARGIN), TITLE, Anchor::Middle, &panel.title);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_every_series() {
        let plot = Plot {
            unit: "µs".into(),
            series: vec!["alibi".into(), "peer".into()],
            groups: vec![
                ("sign".into(), vec![Some(10.0), Some(20.0)]),
                ("verify".into(), vec![Some(1.0), None]),
            ],
        };
        let s = svg(&plot, "test").unwrap();
        assert!(s.starts_with("<svg") && s.contains("alibi") && s.contains("peer"));
        // Three bars and two legend swatches.
        assert!(s.matches("<rect").count() >= 5, "{s}");
    }

    #[test]
    fn draws_every_line() {
        let panel = |title: &str| Panel {
            title: title.into(),
            series: vec![
                Series {
                    label: "fast".into(),
                    points: vec![(3.0, 10.0), (16.0, 40.0)],
                },
                Series {
                    label: "slow".into(),
                    points: vec![(3.0, 100.0)],
                },
            ],
        };
        let s = lines(&[panel("left"), panel("right")], ("n", "ms")).unwrap();
        assert!(s.starts_with("<svg") && s.contains("left") && s.contains("right"));
        assert!(s.contains("fast") && s.contains("slow"));
        // A dot per point.
        assert_eq!(s.matches("<circle").count(), 2 * 3, "{s}");
    }
}
