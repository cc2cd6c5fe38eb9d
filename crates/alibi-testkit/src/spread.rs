//! Operation times as distributions, for comparing two implementations on a noisy machine.
//!
//! On the 2-vCPU VMs of docs/BENCHMARKS.md, Criterion's medians of the same code moved by a third
//! between runs minutes apart, while the minimum and the 10th percentile of a few thousand calls,
//! the implementations timed in turn so that a slow spell falls on all of them alike, stayed
//! within about 1%. [`interleaved`] takes those samples; [`Quantiles`] summarizes them.

use std::time::Instant;

/// One operation to time: its name in the report, and a call of it.
pub type Operation<'a> = (&'a str, Box<dyn FnMut() + 'a>);

/// The minimum, 10th percentile and median of one operation's times, in µs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Quantiles {
    /// The fastest call.
    pub min: f64,
    /// The 10th percentile.
    pub p10: f64,
    /// The median.
    pub median: f64,
}

impl Quantiles {
    /// The quantiles of `times` (µs), which it sorts; `None` when there are none.
    pub fn of(times: &mut [f64]) -> Option<Self> {
        times.sort_by(f64::total_cmp);
        let n = times.len();
        (n > 0).then(|| Self {
            min: times[0],
            p10: times[n / 10],
            median: times[n / 2],
        })
    }

    /// Each quantile of `self` over the same of `other`.
    pub fn ratio(&self, other: &Quantiles) -> Quantiles {
        Quantiles {
            min: self.min / other.min,
            p10: self.p10 / other.p10,
            median: self.median / other.median,
        }
    }
}

/// Calls every operation once per round, in turn, for `count` rounds, and returns each one's
/// quantiles (in the order given); `None` when `count` is 0.
pub fn interleaved(count: usize, operations: &mut [Operation<'_>]) -> Option<Vec<Quantiles>> {
    if count == 0 {
        return None;
    }
    let mut times = vec![Vec::with_capacity(count); operations.len()];
    for _ in 0..count {
        for ((_, call), times) in operations.iter_mut().zip(&mut times) {
            let start = Instant::now();
            call();
            times.push(start.elapsed().as_secs_f64() * 1e6);
        }
    }
    times.iter_mut().map(|t| Quantiles::of(t)).collect()
}

/// Reads `[COUNT]` from the command line of a spread example: `default` when absent; exits with
/// status 2 and one line on stderr when it is not a positive number.
pub fn count_arg(example: &str, arg: Option<String>, default: usize) -> usize {
    match arg.map(|c| c.parse::<usize>()) {
        None => default,
        Some(Ok(c)) if c > 0 => c,
        Some(_) => {
            eprintln!("{example}: COUNT is a positive number of calls");
            std::process::exit(2);
        }
    }
}

/// Prints one line per operation (`what` names the operation family) and returns the quantiles.
pub fn report(what: &str, count: usize, operations: &mut [Operation<'_>]) -> Vec<Quantiles> {
    let Some(quantiles) = interleaved(count, operations) else {
        return vec![];
    };
    for ((name, _), q) in operations.iter().zip(&quantiles) {
        println!(
            "{what}, {name}: min {:.1} µs, p10 {:.1} µs, median {:.1} µs ({count} calls)",
            q.min, q.p10, q.median
        );
    }
    quantiles
}

/// Prints `label` and each quantile of `ours` over `theirs`.
pub fn print_ratio(label: &str, ours: &Quantiles, theirs: &Quantiles) {
    let r = ours.ratio(theirs);
    println!(
        "{label}: {:.3} (min), {:.3} (p10), {:.3} (median)",
        r.min, r.p10, r.median
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_are_read_from_the_sorted_times() {
        let mut t: Vec<f64> = (1..=20).rev().map(f64::from).collect();
        let q = Quantiles::of(&mut t).expect("twenty times");
        assert_eq!(
            q,
            Quantiles {
                min: 1.0,
                p10: 3.0,
                median: 11.0
            }
        );
        assert_eq!(Quantiles::of(&mut []), None);
        let half = q.ratio(&Quantiles {
            min: 2.0,
            p10: 6.0,
            median: 22.0,
        });
        assert_eq!(half.p10, 0.5);
    }

    #[test]
    fn every_operation_runs_once_per_round_in_turn() {
        let order = std::cell::RefCell::new(vec![]);
        let mut ops: Vec<Operation> = vec![
            ("a", Box::new(|| order.borrow_mut().push('a'))),
            ("b", Box::new(|| order.borrow_mut().push('b'))),
        ];
        let q = interleaved(3, &mut ops).expect("three rounds");
        drop(ops);
        assert_eq!(q.len(), 2);
        assert_eq!(order.into_inner(), vec!['a', 'b', 'a', 'b', 'a', 'b']);
        assert!(interleaved(0, &mut []).is_none());
    }
}
