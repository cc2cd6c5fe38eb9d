//! Wall-clock timing of one operation, or of ours and a peer's side by side.
//!
//! An operation is run in batches (enough calls per batch that a batch lasts about a tenth of the
//! budget); a batch's time divided by its calls is one sample. The median of the samples is the
//! figure, their minimum and maximum its spread. A pair (ours, a peer's) alternates batches, so a
//! drift of the machine's speed during the run reaches both alike, and each adjacent pair of batches
//! gives one ratio.

use std::hint::black_box;
use std::time::{Duration, Instant};

/// Samples and their summary, in nanoseconds per call.
#[derive(Clone, Debug, PartialEq)]
pub struct Stats {
    /// The median sample.
    pub median: f64,
    /// The smallest sample.
    pub min: f64,
    /// The largest sample.
    pub max: f64,
    /// How many samples.
    pub samples: usize,
}

impl Stats {
    /// The summary of `xs` (not empty).
    pub fn of(xs: &[f64]) -> Stats {
        let mut v = xs.to_vec();
        v.sort_by(f64::total_cmp);
        let n = v.len();
        let median = if n % 2 == 1 {
            v[n / 2]
        } else {
            (v[n / 2 - 1] + v[n / 2]) / 2.0
        };
        Stats {
            median,
            min: v[0],
            max: v[n - 1],
            samples: n,
        }
    }
}

/// Ours and a peer's, measured alternately, and their ratio per pair of batches.
#[derive(Clone, Debug)]
pub struct Pair {
    /// Our figures.
    pub ours: Stats,
    /// The peer's figures.
    pub peer: Stats,
    /// ours / peer, one per pair of adjacent batches.
    pub ratio: Stats,
}

/// How long to measure each operation.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    /// Wall-clock time per operation (per side, for a pair).
    pub time: Duration,
    /// At least this many samples, even past the budget.
    pub min_samples: usize,
}

/// Calls per batch so that one batch takes about `target`, from one timed call.
fn calls_per_batch<T>(op: &mut impl FnMut() -> T, target: Duration) -> (u64, f64) {
    let t = Instant::now();
    black_box(op());
    let once = t.elapsed().as_secs_f64().max(1e-9);
    let calls = (target.as_secs_f64() / once).clamp(1.0, 1e9) as u64;
    (calls, once)
}

/// One batch: ns per call.
fn batch<T>(op: &mut impl FnMut() -> T, calls: u64) -> f64 {
    let t = Instant::now();
    for _ in 0..calls {
        black_box(op());
    }
    t.elapsed().as_nanos() as f64 / calls as f64
}

/// Times `op` within `budget`.
pub fn time<T>(budget: Budget, mut op: impl FnMut() -> T) -> Stats {
    let (calls, _) = calls_per_batch(&mut op, budget.time / 10);
    let start = Instant::now();
    let mut xs = vec![];
    while xs.len() < budget.min_samples || start.elapsed() < budget.time {
        xs.push(batch(&mut op, calls));
    }
    Stats::of(&xs)
}

/// Times `ours` and `peer` alternately within `budget` each.
pub fn pair<A, B>(
    budget: Budget,
    mut ours: impl FnMut() -> A,
    mut peer: impl FnMut() -> B,
) -> Pair {
    let (ca, _) = calls_per_batch(&mut ours, budget.time / 10);
    let (cb, _) = calls_per_batch(&mut peer, budget.time / 10);
    let start = Instant::now();
    let (mut xa, mut xb, mut r) = (vec![], vec![], vec![]);
    while xa.len() < budget.min_samples || start.elapsed() < 2 * budget.time {
        let a = batch(&mut ours, ca);
        let b = batch(&mut peer, cb);
        xa.push(a);
        xb.push(b);
        r.push(a / b);
    }
    Pair {
        ours: Stats::of(&xa),
        peer: Stats::of(&xb),
        ratio: Stats::of(&r),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians_and_ranges() {
        let s = Stats::of(&[3.0, 1.0, 2.0]);
        assert_eq!((s.median, s.min, s.max, s.samples), (2.0, 1.0, 3.0, 3));
        assert_eq!(Stats::of(&[4.0, 1.0, 2.0, 3.0]).median, 2.5);
    }

    #[test]
    fn a_pair_sees_which_side_is_slower() {
        let budget = Budget {
            time: Duration::from_millis(30),
            min_samples: 3,
        };
        let spin = |n: u64| (0..n).fold(0u64, |a, x| black_box(a.wrapping_add(x * x)));
        let p = pair(budget, || spin(2_000), || spin(20_000));
        assert!(p.ratio.median < 0.5, "{p:?}");
        assert!(p.ours.samples >= 3 && p.peer.samples == p.ours.samples);
    }
}
