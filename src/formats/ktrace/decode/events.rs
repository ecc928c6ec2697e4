//! The event walk: every `kd_buf` of every event run, checked without allocating per event.

use super::super::lint::SHOWN_PER_RULE;
use super::super::model::*;
use super::super::rules;
use crate::finding::Capped;
use crate::finding::Sink;
use crate::input::ByteSource;
use crate::limits::Limits;

/// CPU numbers below this get a per-CPU last timestamp; larger ones are not ordered.
const MAX_TRACKED_CPUS: usize = 4096;

/// What the event walk found, for the structure map.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EventSummary {
    /// Events checked.
    pub events: u64,
    /// Highest CPU number seen.
    pub max_cpu: Option<u32>,
    /// Smallest and largest timestamp.
    pub time_range: Option<(u64, u64)>,
}

/// A set of thread ids built once: open addressing with linear probing over a power-of-two
/// table at most half full. Faster than a binary search for the per-event lookup.
struct ThreadSet {
    slots: Vec<u64>,
    mask: usize,
    shift: u32,
    has_zero: bool,
}

impl ThreadSet {
    fn new(ids: &[u64]) -> Self {
        let want = ids.len().saturating_mul(2).max(16).next_power_of_two();
        let bits = want.trailing_zeros();
        let mut set = ThreadSet {
            slots: vec![0; want],
            mask: want.saturating_sub(1),
            shift: 64u32.saturating_sub(bits),
            has_zero: false,
        };
        for &id in ids {
            set.insert(id);
        }
        set
    }

    #[inline(always)]
    fn slot(&self, id: u64) -> usize {
        usize::try_from(id.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> self.shift).unwrap_or(0)
    }

    fn insert(&mut self, id: u64) {
        if id == 0 {
            self.has_zero = true;
            return;
        }
        let mut i = self.slot(id);
        // At most half full: an empty slot is always found.
        for _ in 0..self.slots.len() {
            match self.slots.get_mut(i) {
                Some(s) if *s == 0 => {
                    *s = id;
                    return;
                }
                Some(s) if *s == id => return,
                _ => i = i.wrapping_add(1) & self.mask,
            }
        }
    }

    #[inline(always)]
    fn contains(&self, id: u64) -> bool {
        if id == 0 {
            return self.has_zero;
        }
        let mut i = self.slot(id);
        loop {
            match self.slots.get(i) {
                Some(&s) if s == id => return true,
                Some(&0) | None => return false,
                _ => i = i.wrapping_add(1) & self.mask,
            }
        }
    }
}

struct Checker {
    ncpu: Option<u32>,
    last_ts: Vec<u64>,
    threads: ThreadSet,
    have_threads: bool,
    last_known_thread: Option<u64>,
    cpu_range: Capped,
    unused: Capped,
    debugid: Capped,
    backwards: Capped,
    unknown_thread: Capped,
    summary: EventSummary,
}

impl Checker {
    #[inline(always)]
    fn one(&mut self, ev: Event, off: u64, size: u64, sink: &mut Sink) {
        let span = off..off.saturating_add(size);
        if let Some(n) = self.ncpu {
            if ev.cpuid >= n {
                self.cpu_range.report(sink, span.clone(), || {
                    format!(
                        "event at 0x{off:x} is on CPU {}, but the CPU map has {n} CPUs",
                        ev.cpuid
                    )
                });
            }
        }
        if ev.unused != 0 {
            self.unused.report(sink, span.clone(), || {
                format!(
                    "event at 0x{off:x} has unused = 0x{:x}; writers put 0 there, and kdprof refuses files where it is not",
                    ev.unused
                )
            });
        }
        if ev.debugid >> 24 == 0 {
            self.debugid.report(sink, span.clone(), || {
                format!(
                    "event at 0x{off:x} has debugid 0x{:08x}: class 0 is not a kdebug class",
                    ev.debugid
                )
            });
        }
        let cpu = ev.cpuid as usize;
        if let Some(last) = self.last_ts.get_mut(cpu) {
            if ev.timestamp < *last {
                let prev = *last;
                self.backwards.report(sink, span.clone(), || {
                    format!(
                        "event at 0x{off:x} on CPU {} has timestamp {} < {prev} of the previous event on that CPU",
                        ev.cpuid, ev.timestamp
                    )
                });
            }
            *last = ev.timestamp;
        } else if cpu < MAX_TRACKED_CPUS {
            self.last_ts.resize(cpu.saturating_add(1), 0);
            if let Some(last) = self.last_ts.get_mut(cpu) {
                *last = ev.timestamp;
            }
        }
        if self.have_threads && ev.thread != 0 && Some(ev.thread) != self.last_known_thread {
            if self.threads.contains(ev.thread) {
                self.last_known_thread = Some(ev.thread);
            } else {
                self.unknown_thread.report(sink, span, || {
                    format!(
                        "event at 0x{off:x} (debugid 0x{:08x}) has thread id 0x{:x}, which is not in the thread map",
                        ev.debugid, ev.thread
                    )
                });
            }
        }
        let s = &mut self.summary;
        s.events = s.events.saturating_add(1);
        s.max_cpu = Some(s.max_cpu.map_or(ev.cpuid, |m| m.max(ev.cpuid)));
        s.time_range = Some(match s.time_range {
            None => (ev.timestamp, ev.timestamp),
            Some((lo, hi)) => (lo.min(ev.timestamp), hi.max(ev.timestamp)),
        });
    }
}

/// Walks every event of `trace`.
pub fn check_events<S: ByteSource + ?Sized>(
    src: &S,
    trace: &Trace,
    limits: &Limits,
    sink: &mut Sink,
) -> EventSummary {
    let mut threads: Vec<u64> = trace
        .threads
        .iter()
        .filter(|t| !t.is_zero())
        .map(|t| t.thread)
        .collect();
    threads.sort_unstable();
    threads.dedup();
    if threads.len() as u64 > limits.max_entries {
        threads.clear();
    }
    let mut c = Checker {
        ncpu: trace
            .cpu_map
            .as_ref()
            .map(|m| u32::try_from(m.entries.len()).unwrap_or(u32::MAX)),
        last_ts: vec![0; 64],
        have_threads: !threads.is_empty(),
        threads: ThreadSet::new(&threads),
        last_known_thread: None,
        cpu_range: Capped::new(&rules::EVENT_CPU_RANGE, SHOWN_PER_RULE),
        unused: Capped::new(&rules::EVENT_UNUSED, SHOWN_PER_RULE),
        debugid: Capped::new(&rules::EVENT_DEBUGID, SHOWN_PER_RULE),
        backwards: Capped::new(&rules::TIMESTAMP_BACKWARDS, SHOWN_PER_RULE),
        unknown_thread: Capped::new(&rules::UNKNOWN_THREAD, SHOWN_PER_RULE),
        summary: EventSummary::default(),
    };
    let wide = trace.wide;
    let es = trace.event_size();
    for run in &trace.event_runs {
        let res = src.windows(run.span.clone(), es, &mut |r| {
            let mut off = r.base();
            let bytes = r.all_bytes();
            if wide {
                for e in bytes.chunks_exact(64) {
                    if let Some(arr) = e.first_chunk::<64>() {
                        c.one(Event::from_64(arr), off, 64, sink);
                    }
                    off = off.wrapping_add(64);
                }
            } else {
                for e in bytes.chunks_exact(32) {
                    if let Some(arr) = e.first_chunk::<32>() {
                        c.one(Event::from_32(arr), off, 32, sink);
                    }
                    off = off.wrapping_add(32);
                }
            }
        });
        if let Err(e) = res {
            sink.read_error(&rules::PARTIAL_EVENT, &e);
            break;
        }
    }
    let summary = c.summary.clone();
    c.cpu_range
        .finish(sink, "events on CPUs outside the CPU map");
    c.unused.finish(sink, "events with a non-zero unused field");
    c.debugid.finish(sink, "events with an implausible debugid");
    c.backwards
        .finish(sink, "events going back in time on their CPU");
    c.unknown_thread
        .finish(sink, "events of threads not in the thread map");
    summary
}

#[cfg(test)]
#[allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]
mod tests {
    use super::ThreadSet;

    #[test]
    fn thread_set_finds_members_only() {
        let ids: Vec<u64> = (0..1000u64).map(|i| i * 0x1000 + 7).collect();
        let set = ThreadSet::new(&ids);
        for &id in &ids {
            assert!(set.contains(id));
        }
        for i in 0..1000u64 {
            assert!(!set.contains(i * 0x1000 + 8));
        }
        assert!(!set.contains(0));
        assert!(ThreadSet::new(&[0, u64::MAX]).contains(0));
        assert!(ThreadSet::new(&[0, u64::MAX]).contains(u64::MAX));
        assert!(!ThreadSet::new(&[]).contains(5));
    }
}
