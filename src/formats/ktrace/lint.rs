//! Semantic checks of the decoded maps (thread and CPU entries).

use super::model::*;
use super::rules;
use crate::finding::{Capped, Sink};

/// How many findings of one rule are reported individually before a summary.
pub const SHOWN_PER_RULE: u64 = 10;

/// Checks thread map entries.
pub fn check_threads(trace: &Trace, sink: &mut Sink) {
    let name_off: u64 = if trace.wide { 12 } else { 8 };
    let id_len: u64 = if trace.wide { 8 } else { 4 };
    let mut names = Capped::new(&rules::THREAD_NAME, SHOWN_PER_RULE);
    let mut entries = Capped::new(&rules::THREAD_ENTRY, SHOWN_PER_RULE);
    // Threads are stored in file order, map after map: one pass, resetting at map ends.
    let mut maps = trace.thread_maps.iter().peekable();
    let mut zero_run_start: Option<u64> = None;
    {
        for t in &trace.threads {
            let mut moved = false;
            while maps.peek().is_some_and(|m| t.offset >= m.end) {
                maps.next();
                moved = true;
            }
            if moved {
                zero_run_start = None;
            }
            if t.is_zero() {
                zero_run_start.get_or_insert(t.offset);
                continue;
            }
            if let Some(z) = zero_run_start.take() {
                entries.report(sink, z..t.offset, || {
                    format!(
                        "all-zero thread entries at 0x{z:x}..0x{:x} are followed by a real entry; zero padding entries may only trail the map",
                        t.offset
                    )
                });
            }
            if t.thread == 0 {
                entries.report(sink, t.offset..t.offset.saturating_add(id_len), || {
                    format!(
                        "thread entry at 0x{:x} (pid {}) has thread id 0",
                        t.offset, t.pid
                    )
                });
            }
            let cmd = t.offset.saturating_add(name_off);
            match t.command.iter().position(|&b| b == 0) {
                None => names.report(sink, cmd..cmd.saturating_add(20), || {
                    format!(
                        "thread 0x{:x}: command \"{}\" has no NUL within its 20 bytes",
                        t.thread,
                        String::from_utf8_lossy(&t.command)
                    )
                }),
                Some(n) => {
                    let tail = t.command.get(n..).unwrap_or(&[]);
                    if let Some(j) = tail.iter().position(|&b| b != 0) {
                        let at = cmd.saturating_add(n as u64).saturating_add(j as u64);
                        names.report(sink, at..cmd.saturating_add(20), || {
                            format!(
                                "thread 0x{:x}: command \"{}\" has non-zero bytes after its NUL (at 0x{at:x})",
                                t.thread,
                                String::from_utf8_lossy(t.command.get(..n).unwrap_or(&[]))
                            )
                        });
                    }
                }
            }
        }
    }
    names.finish(sink, "thread names with this defect");
    entries.finish(sink, "thread entries with this defect");
}

/// Checks CPU map entries.
pub fn check_cpus(trace: &Trace, sink: &mut Sink) {
    let Some(map) = &trace.cpu_map else {
        return;
    };
    let mut tally = Capped::new(&rules::CPUMAP_ENTRY, SHOWN_PER_RULE);
    let mut seen_iop: Option<u64> = None;
    for (i, c) in map.entries.iter().enumerate() {
        if u64::from(c.cpu_id) != i as u64 {
            tally.report(sink, c.offset..c.offset.saturating_add(4), || {
                format!(
                    "CPU map entry {i} at 0x{:x} has cpu_id {}; the kernel writes ids equal to the index",
                    c.offset, c.cpu_id
                )
            });
        }
        if c.flags & !CPU_FLAG_IOP != 0 {
            let at = c.offset.saturating_add(4);
            tally.report(sink, at..at.saturating_add(4), || {
                format!(
                    "CPU map entry {i} has flags 0x{:x}; only 0x1 (IOP) is defined",
                    c.flags
                )
            });
        }
        if c.flags & CPU_FLAG_IOP != 0 {
            seen_iop.get_or_insert(c.offset);
        } else if let Some(iop) = seen_iop {
            tally.report(sink, c.offset..c.offset.saturating_add(4), || {
                format!(
                    "CPU {} (an application processor) follows the coprocessor entry at 0x{iop:x}; IOPs come last",
                    c.cpu_id
                )
            });
        }
        let width = usize::from(c.name_width);
        let name = c.name.get(..width).unwrap_or(&[]);
        let at = c.offset.saturating_add(8);
        match name.iter().position(|&b| b == 0) {
            None => tally.report(sink, at..at.saturating_add(width as u64), || {
                format!(
                    "CPU {} name \"{}\" has no NUL within its {width} bytes",
                    c.cpu_id,
                    String::from_utf8_lossy(name)
                )
            }),
            Some(n) => {
                if name.get(n..).unwrap_or(&[]).iter().any(|&b| b != 0) {
                    tally.report(sink, at..at.saturating_add(width as u64), || {
                        format!("CPU {} name has non-zero bytes after its NUL", c.cpu_id)
                    });
                }
            }
        }
    }
    tally.finish(sink, "CPU map entry defects");
}
