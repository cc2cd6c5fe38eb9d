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

#[cfg(test)]
impl Stats {
    /// A made-up figure for the renderers' tests: `median` with a ±10 % range over five
    /// samples.
    pub(crate) fn around(median: f64) -> Stats {
        Stats {
            median,
            min: median * 0.9,
            max: median * 1.1,
            samples: 5,
        }
    }
}

/// The middle element of `v` by `key` (of the two middle ones, the later), or `None` for none:
/// a whole run picked as the median, where a mean of two would mix two runs' parts.
pub fn median_by<T, K: Ord>(mut v: Vec<T>, key: impl FnMut(&T) -> K) -> Option<T> {
    v.sort_by_key(key);
    let middle = v.len() / 2;
    v.into_iter().nth(middle)
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
    let (mut xa, mut xb) = (vec![], vec![]);
    while xa.len() < budget.min_samples || start.elapsed() < 2 * budget.time {
        xa.push(batch(&mut ours, ca));
        xb.push(batch(&mut peer, cb));
    }
    summarise(&xa, &xb)
}

/// Ours and the peer's samples, taken alternately (`xa[i]` just before `xb[i]`), summarised with
/// one ratio per pair.
fn summarise(xa: &[f64], xb: &[f64]) -> Pair {
    let r: Vec<f64> = xa.iter().zip(xb).map(|(a, b)| a / b).collect();
    Pair {
        ours: Stats::of(xa),
        peer: Stats::of(xb),
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
    fn the_median_element_is_a_whole_one() {
        assert_eq!(median_by(Vec::<(u8, u8)>::new(), |x| x.0), None);
        assert_eq!(
            median_by(vec![(3, 0), (1, 1), (2, 2)], |x| x.0),
            Some((2, 2))
        );
        assert_eq!(median_by(vec![(3, 0), (1, 1)], |x| x.0), Some((3, 0)));
    }

    #[test]
    fn ratios_are_taken_pair_by_pair() {
        // Not the ratio of the medians (2 / 4): the median of 1/2, 3/6, 20/4.
        let p = summarise(&[1.0, 3.0, 20.0], &[2.0, 6.0, 4.0]);
        assert_eq!((p.ours.median, p.peer.median), (3.0, 4.0));
        assert_eq!((p.ratio.median, p.ratio.min, p.ratio.max), (0.5, 0.5, 5.0));
    }

    #[test]
    fn a_pair_alternates_batches() {
        // With no time budget each batch is one call: after one calibration call each, the
        // calls go ours, peer, ours, peer, as many pairs as the samples asked for.
        let log = std::cell::RefCell::new(String::new());
        let budget = Budget {
            time: Duration::ZERO,
            min_samples: 4,
        };
        let p = pair(
            budget,
            || log.borrow_mut().push('a'),
            || log.borrow_mut().push('b'),
        );
        assert_eq!(log.into_inner(), "ababababab");
        assert_eq!((p.ours.samples, p.peer.samples, p.ratio.samples), (4, 4, 4));
        let mut calls = 0;
        let s = time(budget, || calls += 1);
        assert_eq!((s.samples, calls), (4, 5));
    }
}
