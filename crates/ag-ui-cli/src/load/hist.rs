//! A lock-free log-bucket histogram of microseconds: 16 buckets per power of two (a
//! relative error under 3.2 %), one atomic add per value, 8 KiB whatever the count.

use std::sync::atomic::{AtomicU64, Ordering};

/// Buckets per power of two.
const SUB: u64 = 16;
const SUB_BITS: u32 = 4;
/// Values below `SUB` have a bucket each; then `SUB` buckets for each of the 60 powers
/// of two from `SUB` up.
const BUCKETS: usize = (SUB + 60 * SUB) as usize;

/// Counts of values (microseconds) in logarithmic buckets, shared between tasks.
pub(crate) struct Histogram {
    buckets: Box<[AtomicU64]>,
    count: AtomicU64,
    sum: AtomicU64,
    max: AtomicU64,
}

impl std::fmt::Debug for Histogram {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Histogram")
            .field("count", &self.count())
            .finish_non_exhaustive()
    }
}

/// The bucket of `v`.
fn bucket(v: u64) -> usize {
    if v < SUB {
        return v as usize;
    }
    let octave = 63 - v.leading_zeros(); // >= SUB_BITS
    let shift = octave - SUB_BITS;
    let sub = (v >> shift) & (SUB - 1);
    (SUB + u64::from(shift) * SUB + sub) as usize
}

/// The middle of bucket `i`'s range of values.
fn middle(i: usize) -> u64 {
    let i = i as u64;
    if i < SUB {
        return i;
    }
    let shift = (i - SUB) / SUB;
    let sub = (i - SUB) % SUB;
    let low = (SUB + sub) << shift;
    low + ((1u64 << shift) >> 1)
}

/// Percentiles of a histogram, in microseconds.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Summary {
    pub(crate) count: u64,
    pub(crate) mean: u64,
    pub(crate) p50: u64,
    pub(crate) p90: u64,
    pub(crate) p99: u64,
    pub(crate) max: u64,
}

impl Histogram {
    /// An empty histogram.
    pub(crate) fn new() -> Self {
        Histogram {
            buckets: (0..BUCKETS).map(|_| AtomicU64::new(0)).collect(),
            count: AtomicU64::new(0),
            sum: AtomicU64::new(0),
            max: AtomicU64::new(0),
        }
    }

    /// Counts one value (microseconds).
    pub(crate) fn record(&self, micros: u64) {
        let i = bucket(micros).min(BUCKETS - 1);
        self.buckets[i].fetch_add(1, Ordering::Relaxed);
        self.count.fetch_add(1, Ordering::Relaxed);
        self.sum.fetch_add(micros, Ordering::Relaxed);
        self.max.fetch_max(micros, Ordering::Relaxed);
    }

    /// How many values were counted.
    pub(crate) fn count(&self) -> u64 {
        self.count.load(Ordering::Relaxed)
    }

    /// The percentiles (each the middle of its bucket, capped by the exact maximum).
    pub(crate) fn summary(&self) -> Summary {
        let counts: Vec<u64> = self
            .buckets
            .iter()
            .map(|b| b.load(Ordering::Relaxed))
            .collect();
        let count: u64 = counts.iter().sum();
        let max = self.max.load(Ordering::Relaxed);
        if count == 0 {
            return Summary::default();
        }
        let at = |q: f64| -> u64 {
            // The smallest value with at least q of the values at or below it.
            let rank = ((q * count as f64).ceil() as u64).clamp(1, count);
            let mut seen = 0;
            for (i, c) in counts.iter().enumerate() {
                seen += c;
                if seen >= rank {
                    return middle(i).min(max);
                }
            }
            max
        };
        Summary {
            count,
            mean: self.sum.load(Ordering::Relaxed) / count,
            p50: at(0.50),
            p90: at(0.90),
            p99: at(0.99),
            max,
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn buckets_are_ordered_and_within_three_percent() {
        let mut last = 0;
        for v in (0..2_000_000u64).step_by(7).chain([u64::MAX / 2, u64::MAX]) {
            let b = bucket(v);
            assert!(b >= last, "{v}");
            assert!(b < BUCKETS, "{v}");
            last = b;
            if v > 0 && v < u64::MAX / 4 {
                let m = middle(b) as f64;
                assert!((m - v as f64).abs() / (v as f64) < 0.032, "{v} -> {m}");
            }
        }
    }

    #[test]
    fn percentiles_of_one_to_a_thousand() {
        let h = Histogram::new();
        for v in 1..=1000 {
            h.record(v);
        }
        let s = h.summary();
        assert_eq!(s.count, 1000);
        assert_eq!(s.max, 1000);
        assert_eq!(s.mean, 500);
        for (got, want) in [(s.p50, 500.0), (s.p90, 900.0), (s.p99, 990.0)] {
            assert!((got as f64 - want).abs() / want < 0.04, "{got} for {want}");
        }
    }
}
