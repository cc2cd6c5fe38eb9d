//! A global allocator that counts the bytes in use and their peak, for tests that bound what one
//! request costs in memory. Each test binary that uses it declares it:
//! `#[global_allocator] static ALLOC: Counting = Counting::new();`, and runs its measuring tests
//! one at a time (the count is the whole process's).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The system allocator, counting the bytes in use and their peak.
pub struct Counting {
    in_use: AtomicUsize,
    peak: AtomicUsize,
}

impl Counting {
    /// A counter at zero.
    pub const fn new() -> Self {
        Self {
            in_use: AtomicUsize::new(0),
            peak: AtomicUsize::new(0),
        }
    }

    /// Starts a measurement: the peak is reset to the bytes in use now, which it returns.
    pub fn start(&self) -> usize {
        let base = self.in_use.load(Ordering::Relaxed);
        self.peak.store(base, Ordering::Relaxed);
        base
    }

    /// How far the peak rose above `base` (from [`Counting::start`]).
    pub fn grown_since(&self, base: usize) -> usize {
        self.peak.load(Ordering::Relaxed).saturating_sub(base)
    }
}

impl Default for Counting {
    fn default() -> Self {
        Self::new()
    }
}

// SAFETY: every call is forwarded unchanged to the system allocator; the counters only observe.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        // SAFETY: forwarded unchanged to the system allocator, under the caller's contract.
        let p = unsafe { System.alloc(l) };
        if !p.is_null() {
            let now = self.in_use.fetch_add(l.size(), Ordering::Relaxed) + l.size();
            self.peak.fetch_max(now, Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        // SAFETY: forwarded unchanged to the system allocator, under the caller's contract.
        unsafe { System.dealloc(p, l) };
        self.in_use.fetch_sub(l.size(), Ordering::Relaxed);
    }
}
