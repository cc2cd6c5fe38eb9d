//! A logarithmic axis ticked at 1-2-5 steps (1, 2, 5, 10, 20, 50, ...): its range is the data's,
//! widened to the nearest such values, so that its ends are ticks and the data lie between them.

/// The mantissas of the ticks, finest level first.
const STEPS: [f64; 3] = [1.0, 2.0, 5.0];

/// A logarithmic axis from `lo` to `hi` (both 1, 2 or 5 times a power of ten), drawn from pixel
/// `from` (where `lo` is) to pixel `to` (where `hi` is; either way round).
#[derive(Clone, Copy, Debug)]
pub(crate) struct LogAxis {
    lo: f64,
    hi: f64,
    from: f64,
    to: f64,
}

/// `10^e`, exactly for the exponents an axis meets.
fn decade(e: i32) -> f64 {
    10f64.powi(e)
}

/// The decade of `v` (`v` in `[10^e, 10^(e+1))`), robust to `log10` landing just under an integer.
fn exponent(v: f64) -> i32 {
    let e = v.log10().floor() as i32;
    if v >= decade(e + 1) * (1.0 - 1e-12) {
        e + 1
    } else {
        e
    }
}

/// The largest 1-2-5 value at or below `v` (> 0).
pub(crate) fn step_at_or_below(v: f64) -> f64 {
    let e = exponent(v);
    let m = v / decade(e);
    let s = STEPS
        .iter()
        .rev()
        .find(|s| m >= **s * (1.0 - 1e-12))
        .unwrap_or(&1.0);
    s * decade(e)
}

/// The smallest 1-2-5 value at or above `v` (> 0).
pub(crate) fn step_at_or_above(v: f64) -> f64 {
    let e = exponent(v);
    let m = v / decade(e);
    match STEPS.iter().find(|s| **s >= m * (1.0 - 1e-12)) {
        Some(s) => s * decade(e),
        None => decade(e + 1),
    }
}

impl LogAxis {
    /// The axis over the positive `values` (`1..10` when there are none), its ends at the nearest
    /// 1-2-5 values outside them; `headroom` (>= 1) first widens the data range by that factor at
    /// the low end (a bar of the smallest value keeps some height).
    pub(crate) fn fit(values: impl Iterator<Item = f64>, headroom: f64) -> LogAxis {
        let (mut lo, mut hi) = (f64::INFINITY, 0f64);
        for v in values.filter(|v| v.is_finite() && *v > 0.0) {
            lo = lo.min(v);
            hi = hi.max(v);
        }
        if hi == 0.0 {
            (lo, hi) = (1.0, 10.0);
        }
        let lo = step_at_or_below(lo / headroom);
        let mut hi = step_at_or_above(hi);
        if hi <= lo {
            // One value that is itself a step: the next step up.
            hi = step_at_or_above(lo * 1.5);
        }
        LogAxis {
            lo,
            hi,
            from: 0.0,
            to: 1.0,
        }
    }

    /// The same axis drawn from pixel `from` (the low end) to pixel `to`.
    pub(crate) fn placed(self, from: f64, to: f64) -> LogAxis {
        LogAxis { from, to, ..self }
    }

    /// The pixel of `v`, clamped to the axis.
    pub(crate) fn pixel(&self, v: f64) -> f64 {
        let v = v.clamp(self.lo, self.hi);
        let f = (v / self.lo).ln() / (self.hi / self.lo).ln();
        self.from + f * (self.to - self.from)
    }

    /// The pixel of the axis's low end.
    pub(crate) fn start(&self) -> f64 {
        self.from
    }

    /// Tick values: every 1-2-5 value from end to end if `fits` accepts them, else the decades
    /// only, else every second, third, ... decade; the ends always among them at the finest level.
    pub(crate) fn ticks(&self, fits: impl Fn(&[f64]) -> bool) -> Vec<f64> {
        let (e0, e1) = (exponent(self.lo), exponent(self.hi));
        let within = |v: f64| v >= self.lo * (1.0 - 1e-9) && v <= self.hi * (1.0 + 1e-9);
        let all: Vec<f64> = (e0..=e1)
            .flat_map(|e| STEPS.map(|s| s * decade(e)))
            .filter(|v| within(*v))
            .collect();
        if fits(&all) {
            return all;
        }
        let mut every = 1;
        loop {
            let decades: Vec<f64> = (e0..=e1)
                .filter(|e| e.rem_euclid(every) == 0)
                .map(decade)
                .filter(|v| within(*v))
                .collect();
            // At most one tick left: as sparse as it gets.
            if decades.len() <= 2 || fits(&decades) {
                return if decades.is_empty() { all } else { decades };
            }
            every += 1;
        }
    }
}

/// A tick's label: the plain number, as many decimals as a value below 1 needs.
pub(crate) fn label(v: f64) -> String {
    if v >= 1.0 {
        format!("{}", v.round() as u64)
    } else {
        let decimals = (-v.log10()).ceil().max(0.0) as usize;
        format!("{v:.decimals$}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_are_1_2_5() {
        assert_eq!(step_at_or_below(11.0), 10.0);
        assert_eq!(step_at_or_above(45.0), 50.0);
        assert_eq!(step_at_or_below(1000.0), 1000.0);
        assert_eq!(step_at_or_above(1000.0), 1000.0);
        assert_eq!(step_at_or_above(501.0), 1000.0);
        assert_eq!(step_at_or_below(0.3), 0.2);
        assert_eq!(step_at_or_above(0.03), 0.05);
    }

    #[test]
    fn ticks_cover_the_data_at_1_2_5() {
        let axis = LogAxis::fit([11.0, 23.0, 45.0].into_iter(), 1.0);
        assert_eq!(axis.ticks(|_| true), vec![10.0, 20.0, 50.0]);
        // Too dense: decades only, then every second decade.
        let wide = LogAxis::fit([0.02, 3e6].into_iter(), 1.0);
        let decades = wide.ticks(|t| t.len() <= 8);
        assert_eq!(decades.len(), 8, "{decades:?}");
        assert!(wide.ticks(|t| t.len() <= 5).len() <= 5);
        // One value, itself a step: still two ticks.
        let one = LogAxis::fit([20.0].into_iter(), 1.0);
        assert_eq!(one.ticks(|_| true), vec![20.0, 50.0]);
        // No values at all.
        assert_eq!(
            LogAxis::fit(std::iter::empty(), 1.0).ticks(|_| true),
            vec![1.0, 2.0, 5.0, 10.0]
        );
    }

    #[test]
    fn pixels_run_from_end_to_end() {
        let axis = LogAxis::fit([1.0, 100.0].into_iter(), 1.0).placed(300.0, 100.0);
        assert_eq!(axis.pixel(1.0), 300.0);
        assert_eq!(axis.pixel(100.0), 100.0);
        assert!((axis.pixel(10.0) - 200.0).abs() < 1e-9);
        assert_eq!(axis.pixel(1e9), 100.0);
    }

    #[test]
    fn labels_are_plain_numbers() {
        assert_eq!(label(50.0), "50");
        assert_eq!(label(2e6), "2000000");
        assert_eq!(label(0.5), "0.5");
        assert_eq!(label(0.02), "0.02");
        assert_eq!(label(0.1), "0.1");
    }
}
