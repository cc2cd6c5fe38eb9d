//! Every SVG plot of the benchmarks: grouped bar charts of a report table's figures ([`svg`]) and
//! line charts of a measure against a count ([`lines`], `alibi mpc bench`); plotters' SVG
//! backend, no system fonts needed beyond what it embeds as text.

use plotters::prelude::*;

use crate::table::Plot;
use crate::Error;

/// Colours of the series, in order (ours first).
const COLOURS: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
];

/// Draws `plot` as an SVG document: one group of bars per operation, on a logarithmic axis.
pub fn svg(plot: &Plot, title: &str) -> Result<String, Error> {
    let values: Vec<f64> = plot
        .groups
        .iter()
        .flat_map(|(_, v)| v.iter().flatten().copied())
        .filter(|v| *v > 0.0)
        .collect();
    let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = values.iter().copied().fold(0.0, f64::max);
    let (lo, hi) = if values.is_empty() {
        (1.0, 10.0)
    } else {
        (lo / 2.0, hi * 2.0)
    };
    let width = (160 + 70 * plot.groups.len().max(4)) as u32;
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (width, 480)).into_drawing_area();
        let draw = |e: &dyn std::fmt::Display| Error::Plot(e.to_string());
        root.fill(&WHITE).map_err(|e| draw(&e))?;
        let groups = plot.groups.len().max(1);
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(90)
            .y_label_area_size(70)
            .build_cartesian_2d(0f64..groups as f64, (lo..hi).log_scale())
            .map_err(|e| draw(&e))?;
        let labels: Vec<String> = plot.groups.iter().map(|(l, _)| l.clone()).collect();
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(groups * 2 + 1)
            .x_label_formatter(&|x| {
                // Labels sit at the middle of each group.
                let i = x.floor() as usize;
                if (x - i as f64 - 0.5).abs() < 1e-6 {
                    labels.get(i).cloned().unwrap_or_default()
                } else {
                    String::new()
                }
            })
            .x_label_style(
                ("sans-serif", 11)
                    .into_font()
                    .transform(FontTransform::Rotate90),
            )
            .y_desc(plot.unit.as_str())
            .draw()
            .map_err(|e| draw(&e))?;
        let k = plot.series.len().max(1) as f64;
        for (s, name) in plot.series.iter().enumerate() {
            let colour = COLOURS[s % COLOURS.len()];
            let bars = plot.groups.iter().enumerate().filter_map(|(g, (_, v))| {
                let value = v.get(s).copied().flatten().filter(|v| *v > 0.0)?;
                let x0 = g as f64 + 0.1 + 0.8 * s as f64 / k;
                Some(Rectangle::new(
                    [(x0, lo), (x0 + 0.8 / k, value)],
                    colour.filled(),
                ))
            });
            chart
                .draw_series(bars)
                .map_err(|e| draw(&e))?
                .label(name.as_str())
                .legend(move |(x, y)| {
                    Rectangle::new([(x, y - 5), (x + 10, y + 5)], colour.filled())
                });
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()
            .map_err(|e| draw(&e))?;
        root.present().map_err(|e| draw(&e))?;
    }
    Ok(out)
}

/// Colours of the lines of [`lines`], in order.
const LINE_COLOURS: [RGBColor; 6] = [RED, BLUE, MAGENTA, CYAN, GREEN, BLACK];

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

/// Draws `panels` side by side as an SVG document, 550 pixels wide each: lines with a dot at each
/// point, x in powers of two and y logarithmic, axes described by `(x, y)`.
pub fn lines(panels: &[Panel], (x_desc, y_desc): (&str, &str)) -> Result<String, Error> {
    let mut out = String::new();
    {
        let width = 550 * panels.len().max(1) as u32;
        let root = SVGBackend::with_string(&mut out, (width, 480)).into_drawing_area();
        let draw = |e: &dyn std::fmt::Display| Error::Plot(e.to_string());
        root.fill(&WHITE).map_err(|e| draw(&e))?;
        let areas = root.split_evenly((1, panels.len().max(1)));
        let all = || {
            panels
                .iter()
                .flat_map(|p| &p.series)
                .flat_map(|s| &s.points)
        };
        let max_x = all().map(|p| p.0).reduce(f64::max).unwrap_or(2.0);
        for (area, panel) in areas.iter().zip(panels) {
            let ys = || {
                panel
                    .series
                    .iter()
                    .flat_map(|s| s.points.iter().map(|p| p.1))
            };
            let max_y = ys().fold(1.0, f64::max);
            let min_y = ys().fold(max_y, f64::min).max(0.1);
            let mut chart = ChartBuilder::on(area)
                .caption(&panel.title, ("sans-serif", 18))
                .margin(12)
                .x_label_area_size(36)
                .y_label_area_size(56)
                .build_cartesian_2d(
                    1f64..(max_x.log2() + 0.3),
                    (min_y * 0.8..max_y * 1.25).log_scale(),
                )
                .map_err(|e| draw(&e))?;
            chart
                .configure_mesh()
                .x_desc(x_desc)
                .y_desc(y_desc)
                .x_label_formatter(&|x| format!("{:.0}", 2f64.powf(*x)))
                .draw()
                .map_err(|e| draw(&e))?;
            for (k, series) in panel.series.iter().enumerate() {
                let colour = LINE_COLOURS[k % LINE_COLOURS.len()];
                let pts: Vec<(f64, f64)> =
                    series.points.iter().map(|&(x, y)| (x.log2(), y)).collect();
                chart
                    .draw_series(LineSeries::new(pts.clone(), colour.stroke_width(2)))
                    .map_err(|e| draw(&e))?
                    .label(series.label.as_str())
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 16, y)], colour.stroke_width(2))
                    });
                chart
                    .draw_series(pts.iter().map(|&p| Circle::new(p, 3, colour.filled())))
                    .map_err(|e| draw(&e))?;
            }
            chart
                .configure_series_labels()
                .border_style(BLACK)
                .background_style(WHITE.mix(0.9))
                .position(SeriesLabelPosition::UpperLeft)
                .draw()
                .map_err(|e| draw(&e))?;
        }
        root.present().map_err(|e| draw(&e))?;
    }
    Ok(out)
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
