//! The SVG a plot is written as, and the size of its text before any font lays it out.
//!
//! Widths are estimated per character from DejaVu Sans, the widest of the fonts a reader's
//! `sans-serif` is likely to be (Arial, Helvetica and Liberation Sans are narrower), rounded up:
//! a layout that leaves room for the estimate leaves room for the real text.

use std::fmt::Write as _;

/// The font the plots ask for, DejaVu Sans (the estimate's) first.
const FAMILY: &str = "DejaVu Sans, Verdana, Arial, Helvetica, sans-serif";
/// A line's box above the baseline, in ems (DejaVu Sans's ascent, 0.928, rounded up).
const ASCENT: f64 = 0.93;
/// A line's box below the baseline, in ems (its descent, 0.236, rounded up).
const DESCENT: f64 = 0.24;
/// Lines of one label, baseline to baseline, in ems.
pub(crate) const LINE: f64 = 1.25;

/// The estimated advance of `c`, in ems (DejaVu Sans's, rounded up by class).
fn advance(c: char) -> f64 {
    match c {
        'i' | 'j' | 'l' | 'I' | 'J' | '.' | ',' | ':' | ';' | '\'' | '|' | '!' | ' ' => 0.33,
        'f' | 't' | 'r' | '[' | ']' | '(' | ')' | '{' | '}' | '/' | '\\' | '-' | '"' => 0.43,
        'm' | 'M' | 'W' | '%' | '@' => 1.0,
        'w' => 0.82,
        '+' | '=' | '<' | '>' | '^' | '~' | '×' | '*' | '#' => 0.84,
        'A'..='Z' => 0.79,
        '0'..='9' | 'a'..='z' | 'µ' => 0.64,
        c if c.is_ascii() => 0.7,
        _ => 1.0,
    }
}

/// The estimated width of `s` at `size` pixels.
pub(crate) fn width(s: &str, size: f64) -> f64 {
    s.chars().map(advance).sum::<f64>() * size
}

/// The height of `lines` lines of text at `size`, first top to last bottom.
pub(crate) fn height(lines: usize, size: f64) -> f64 {
    if lines == 0 {
        return 0.0;
    }
    ((lines - 1) as f64 * LINE + ASCENT + DESCENT) * size
}

/// `label` broken into lines of at most `max` pixels at `size` where it can be: between words;
/// inside a word too wide alone, before an opening bracket or after a comma or a slash, and
/// only where that is not enough after a hyphen. A piece with no such place stays whole (the
/// caller makes room for its width).
pub(crate) fn wrap(label: &str, size: f64, max: f64) -> Vec<String> {
    let mut pieces: Vec<String> = vec![];
    for word in label.split_inclusive(' ') {
        for coarse in split(
            word,
            size,
            max,
            |c| matches!(c, ',' | '/'),
            |c| matches!(c, '[' | '('),
        ) {
            pieces.extend(split(&coarse, size, max, |c| c == '-', |_| false));
        }
    }
    let mut lines: Vec<String> = vec![];
    let mut line = String::new();
    for p in pieces {
        if !line.trim().is_empty() && width(format!("{line}{p}").trim_end(), size) > max {
            lines.push(line.trim_end().to_string());
            line.clear();
        }
        line.push_str(&p);
    }
    if !line.trim().is_empty() || lines.is_empty() {
        lines.push(line.trim().to_string());
    }
    lines
}

/// `word` as it is if it fits in `max`, else cut after each character `after` accepts and before
/// each one `before` accepts (not at its start).
fn split(
    word: &str,
    size: f64,
    max: f64,
    after: impl Fn(char) -> bool,
    before: impl Fn(char) -> bool,
) -> Vec<String> {
    if width(word.trim_end(), size) <= max {
        return vec![word.to_string()];
    }
    let mut pieces = vec![];
    let mut piece = String::new();
    for c in word.chars() {
        if before(c) && !piece.is_empty() {
            pieces.push(std::mem::take(&mut piece));
        }
        piece.push(c);
        if after(c) {
            pieces.push(std::mem::take(&mut piece));
        }
    }
    if !piece.is_empty() {
        pieces.push(piece);
    }
    pieces
}

/// Where a text's x is: its start, middle or end.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Anchor {
    /// x is the left edge.
    Start,
    /// x is the middle.
    Middle,
    /// x is the right edge.
    End,
}

/// An SVG document being drawn; it grows to hold whatever is drawn on it.
#[derive(Debug, Default)]
pub(crate) struct Canvas {
    body: String,
    right: f64,
    bottom: f64,
}

/// `s` as SVG character data.
fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

impl Canvas {
    /// Makes room for a box reaching to (`x`, `y`).
    fn reach(&mut self, x: f64, y: f64) {
        self.right = self.right.max(x);
        self.bottom = self.bottom.max(y);
    }

    /// One line of text at `size`, its box's top at `top`, with an `id` (empty for none).
    pub(crate) fn text(
        &mut self,
        id: &str,
        (x, top): (f64, f64),
        size: f64,
        anchor: Anchor,
        s: &str,
    ) {
        let w = width(s, size);
        let (left, a) = match anchor {
            Anchor::Start => (x, "start"),
            Anchor::Middle => (x - w / 2.0, "middle"),
            Anchor::End => (x - w, "end"),
        };
        self.reach(left + w, top + height(1, size));
        let id = id_attr(id);
        let _ = writeln!(
            self.body,
            "<text{id} x=\"{x:.1}\" y=\"{:.1}\" font-size=\"{size}\" text-anchor=\"{a}\">{}</text>",
            top + ASCENT * size,
            escape(s)
        );
    }

    /// A rectangle; `fill` and `stroke` are SVG paints (`none` for none).
    pub(crate) fn rect(
        &mut self,
        (x, y, w, h): (f64, f64, f64, f64),
        fill: &str,
        stroke: &str,
        id: &str,
    ) {
        self.reach(x + w, y + h);
        let id = id_attr(id);
        let _ = writeln!(
            self.body,
            "<rect{id} x=\"{x:.1}\" y=\"{y:.1}\" width=\"{w:.1}\" height=\"{h:.1}\" fill=\"{fill}\" stroke=\"{stroke}\"/>"
        );
    }

    /// A line through `points`, `width` pixels wide.
    pub(crate) fn polyline(&mut self, points: &[(f64, f64)], colour: &str, width: f64) {
        for &(x, y) in points {
            self.reach(x, y);
        }
        let pts: Vec<String> = points
            .iter()
            .map(|(x, y)| format!("{x:.1},{y:.1}"))
            .collect();
        let _ = writeln!(
            self.body,
            "<polyline points=\"{}\" fill=\"none\" stroke=\"{colour}\" stroke-width=\"{width}\"/>",
            pts.join(" ")
        );
    }

    /// A dot of radius `r` at (`x`, `y`).
    pub(crate) fn dot(&mut self, (x, y): (f64, f64), r: f64, colour: &str) {
        self.reach(x + r, y + r);
        let _ = writeln!(
            self.body,
            "<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"{r}\" fill=\"{colour}\"/>"
        );
    }

    /// Opens a group named `id` (what a test looks for: `data`, `legend`).
    pub(crate) fn open(&mut self, id: &str) {
        let _ = writeln!(self.body, "<g id=\"{id}\">");
    }

    /// Closes the group last opened.
    pub(crate) fn close(&mut self) {
        self.body.push_str("</g>\n");
    }

    /// How far right anything drawn reaches.
    pub(crate) fn right(&self) -> f64 {
        self.right
    }

    /// The document: big enough for everything drawn plus `margin`, on white.
    pub(crate) fn finish(self, margin: f64) -> String {
        let (w, h) = ((self.right + margin).ceil(), (self.bottom + margin).ceil());
        format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" font-family=\"{FAMILY}\">\n<rect x=\"0\" y=\"0\" width=\"{w}\" height=\"{h}\" fill=\"#ffffff\"/>\n{}</svg>\n",
            self.body
        )
    }
}

/// The ` id="..."` attribute of an element, or nothing for an empty id.
fn id_attr(id: &str) -> String {
    if id.is_empty() {
        String::new()
    } else {
        format!(" id=\"{id}\"")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_wrap_at_their_joints() {
        let lines = wrap("PQ-AKEM[ML-KEM-512, GANDALF[Falcon-512]]", 12.0, 110.0);
        assert!(lines.len() >= 2, "{lines:?}");
        assert_eq!(
            lines.concat().replace(' ', ""),
            "PQ-AKEM[ML-KEM-512,GANDALF[Falcon-512]]"
        );
        for l in &lines {
            assert!(
                width(l, 12.0) <= 110.0 || !l.contains([' ', ',', '-', '[']),
                "{l}"
            );
        }
        assert_eq!(wrap("sign", 12.0, 110.0), vec!["sign"]);
        assert_eq!(wrap("", 12.0, 110.0), vec![""]);
        // No place to break: one line, as wide as it is.
        assert_eq!(wrap("abcdefghijklmnopqrstuvwxyz", 12.0, 50.0).len(), 1);
    }

    #[test]
    fn the_canvas_grows_to_hold_its_text() {
        let mut c = Canvas::default();
        c.text("t", (10.0, 10.0), 12.0, Anchor::Start, "a<b & c");
        assert!(c.right() > 10.0 + width("a<b & c", 12.0) - 0.1);
        let svg = c.finish(12.0);
        assert!(
            svg.starts_with("<svg") && svg.contains("a&lt;b &amp; c"),
            "{svg}"
        );
    }
}
