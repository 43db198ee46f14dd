//! The work budget of one function's check: wall-clock time and memory, shared by every phase.
//!
//! Input: when the check of one function starts, its deadline (`function-time-ms`) and how many
//! bytes its growing tables may take (`function-memory-mb`). Output: whether a budget ran out,
//! and which one came first (`Hit`).
//! Invariants:
//! - One `Budget` per check of one function, handed to every phase of that check (the context
//!   `cfg::FnCx` holds it; the guard arenas and SAT solvers of its passes share it): a hit in
//!   one phase stops all the later ones, and nothing is shared between functions, so a
//!   function's result never depends on what other threads do.
//! - Once hit, it stays hit. A phase that sees `over()` stops and concludes nothing; the driver
//!   then gives the function's undecided sites the `over-budget` category and a conservative
//!   summary, and names the function.
//! - The clock is read once every `TICKS` calls of `tick`, so loops can call it at every step:
//!   a phase notices the deadline within a few thousand steps of it. The size budget counts
//!   what the tables that can grow faster than the function (sets of reaching definitions, memo
//!   vectors per local) add, so it is exact and the same on every machine and at every `-j`.

use std::sync::atomic::{AtomicU32, AtomicU64, AtomicU8, Ordering};
use std::time::Instant;

/// Steps between two readings of the clock (reading it costs tens of nanoseconds).
const TICKS: u32 = 64;

/// Which budget ran out first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hit {
    Time,
    Size,
}

const NONE: u8 = 0;
const TIME: u8 = 1;
const SIZE: u8 = 2;

/// Atomics rather than cells only so the guard arenas holding one stay `Send`: a budget is
/// used by one thread at a time, and relaxed ordering is all it needs.
#[derive(Debug)]
pub struct Budget {
    deadline: Option<Instant>,
    /// Bytes the growing tables may take; `u64::MAX`: no limit.
    max_bytes: u64,
    bytes: AtomicU64,
    ticks: AtomicU32,
    hit: AtomicU8,
}

impl Budget {
    /// A budget ending at `deadline` (`None`: no time limit) and `max_bytes` (`None`: no size
    /// limit).
    pub fn new(deadline: Option<Instant>, max_bytes: Option<u64>) -> Budget {
        Budget {
            deadline,
            max_bytes: max_bytes.unwrap_or(u64::MAX),
            bytes: AtomicU64::new(0),
            ticks: AtomicU32::new(0),
            hit: AtomicU8::new(NONE),
        }
    }

    /// No limit at all (tests, and passes outside a function's check).
    pub fn unlimited() -> Budget {
        Budget::new(None, None)
    }

    fn set(&self, what: u8) {
        // The first hit is the one reported.
        let _ = self.hit.compare_exchange(NONE, what, Ordering::Relaxed, Ordering::Relaxed);
    }

    /// One step of work: true when a budget has run out (the clock is read every `TICKS` steps).
    pub fn tick(&self) -> bool {
        if self.hit.load(Ordering::Relaxed) != NONE {
            return true;
        }
        // One thread at a time: a load and a store, not a locked add (this is every step of
        // some loops).
        let t = self.ticks.load(Ordering::Relaxed).wrapping_add(1);
        self.ticks.store(t, Ordering::Relaxed);
        t % TICKS == 0 && self.check_clock()
    }

    /// Read the clock now: true when a budget has run out. For steps that each cost much more
    /// than reading the clock (a SAT query).
    pub fn check_clock(&self) -> bool {
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            self.set(TIME);
        }
        self.over()
    }

    /// `bytes` more are kept: true when that puts the function over its size budget.
    pub fn grow(&self, bytes: usize) -> bool {
        // One thread at a time: a load and a store, saturating, are enough.
        let total = self.bytes.load(Ordering::Relaxed).saturating_add(bytes as u64);
        self.bytes.store(total, Ordering::Relaxed);
        if total > self.max_bytes {
            self.set(SIZE);
        }
        self.over()
    }

    /// A budget has run out.
    pub fn over(&self) -> bool {
        self.hit.load(Ordering::Relaxed) != NONE
    }

    /// Which budget ran out, if one did.
    pub fn hit(&self) -> Option<Hit> {
        match self.hit.load(Ordering::Relaxed) {
            TIME => Some(Hit::Time),
            SIZE => Some(Hit::Size),
            _ => None,
        }
    }

    /// Record a time budget hit seen elsewhere (a guard arena with its own clock).
    pub fn note_time(&self) {
        self.set(TIME);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_past_deadline_is_seen_within_one_round_of_ticks_and_stays() {
        let b = Budget::new(Some(Instant::now()), None);
        let seen = (0..TICKS).any(|_| b.tick());
        assert!(seen);
        assert_eq!(b.hit(), Some(Hit::Time));
        assert!(b.tick() && b.over());
    }

    #[test]
    fn the_size_budget_counts_every_byte_and_the_first_hit_wins() {
        let b = Budget::new(Some(Instant::now()), Some(100));
        assert!(!b.grow(60));
        assert!(!b.grow(40), "exactly the limit is within it");
        assert!(b.grow(1));
        assert_eq!(b.hit(), Some(Hit::Size));
        assert!(b.check_clock());
        assert_eq!(b.hit(), Some(Hit::Size), "the later time hit does not replace it");
    }

    #[test]
    fn unlimited_never_runs_out() {
        let b = Budget::unlimited();
        assert!(!(0..10 * TICKS).any(|_| b.tick()));
        assert!(!b.grow(usize::MAX) && !b.grow(usize::MAX));
        assert_eq!(b.hit(), None);
    }
}
