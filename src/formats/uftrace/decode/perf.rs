//! `perf-cpuN.dat`: raw perf ring-buffer records (`perf_event_header` + body + sample_id).

use super::super::rules;
use crate::finding::Sink;
use crate::reader::{Endian, Reader};

/// The `sample_id` trailer uftrace's attr gives every record (`sample_id_all` with
/// `PERF_SAMPLE_TID | PERF_SAMPLE_TIME`): the task that was current when the kernel wrote the
/// record, and when.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SampleId {
    /// `pid` (thread group) of the current task.
    pub pid: u32,
    /// `tid` of the current task.
    pub tid: u32,
    /// Time of the record (the clock of `info`'s `clock:` line).
    pub time: u64,
}

/// What one record of a perf file is, with the fields uftrace's reader uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PerfKind {
    /// `PERF_RECORD_COMM`: the name of task `tid` (of process `pid`); `exec` when it comes from
    /// an exec (`PERF_RECORD_MISC_COMM_EXEC`).
    Comm {
        /// Process of the named task.
        pid: u32,
        /// The named task.
        tid: u32,
        /// From an exec.
        exec: bool,
    },
    /// `PERF_RECORD_FORK` (`exit` false) or `PERF_RECORD_EXIT`: task `tid` of process `pid`,
    /// its parent `ptid` of `ppid`, and the body's own time (which uftrace reads).
    Task {
        /// EXIT rather than FORK.
        exit: bool,
        /// Process of the task.
        pid: u32,
        /// Process of the parent.
        ppid: u32,
        /// The task (a FORK's child).
        tid: u32,
        /// The parent task.
        ptid: u32,
        /// The body's time.
        time: u64,
    },
    /// `PERF_RECORD_SWITCH`: the task of the trailer switched out (`out`) or in.
    Switch {
        /// Switched out (`PERF_RECORD_MISC_SWITCH_OUT`).
        out: bool,
    },
    /// `PERF_RECORD_LOST`: the kernel dropped records.
    Lost,
    /// Any other type: uftrace skips it. `owners` are the tasks the record would be read for
    /// if only its type were wrong, by its size: a FORK/EXIT body's tid (48 bytes) and, unless
    /// the body reads as a FORK of the trailer's task, the trailer's tid (an EXIT's); the
    /// trailer's tid (24, a SWITCH); else a COMM body's tid and the trailer's.
    Other {
        /// The type.
        typ: u32,
        /// See above.
        owners: [u32; 2],
    },
}

/// One whole record of a perf file whose size fits its type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PerfRecord {
    /// Offset of the record header in the file.
    pub off: u64,
    /// Size from the header.
    pub size: u16,
    /// The decoded body.
    pub kind: PerfKind,
    /// The trailer (every type uftrace's attr can give has one).
    pub sid: Option<SampleId>,
}

impl PerfRecord {
    /// The task and time uftrace's reader gives the record's event (`read_perf_event`: the
    /// body's tid for COMM, FORK and EXIT, the trailer's for SWITCH; the body's time for FORK
    /// and EXIT, the trailer's for the others). None for the types it skips.
    pub fn reader_task(&self) -> Option<(u32, u64)> {
        let sid = self.sid?;
        match self.kind {
            PerfKind::Comm { tid, .. } => Some((tid, sid.time)),
            PerfKind::Task { tid, time, .. } => Some((tid, time)),
            PerfKind::Switch { .. } => Some((sid.tid, sid.time)),
            PerfKind::Lost | PerfKind::Other { .. } => None,
        }
    }

    /// Span of the trailer's tid.
    pub fn trailer_tid_span(&self) -> std::ops::Range<u64> {
        let at = self
            .off
            .saturating_add(u64::from(self.size))
            .saturating_sub(12);
        at..at.saturating_add(4)
    }

    /// Span of the body's tid (COMM: after pid; FORK/EXIT: the third word), else the trailer's.
    pub fn body_tid_span(&self) -> std::ops::Range<u64> {
        let at = match self.kind {
            PerfKind::Comm { .. } => self.off.saturating_add(12),
            PerfKind::Task { .. } => self.off.saturating_add(16),
            _ => return self.trailer_tid_span(),
        };
        at..at.saturating_add(4)
    }
}

/// Counts of one perf file, and its records.
#[derive(Clone, Debug, Default)]
pub struct PerfStats {
    /// The records whose size fits their type, in file order.
    pub recs: Vec<PerfRecord>,
    /// Records walked.
    pub records: u64,
    /// COMM records.
    pub comm: u64,
    /// FORK/EXIT records.
    pub task: u64,
    /// SWITCH records.
    pub switch: u64,
    /// Other types.
    pub other: u64,
}

const LOST: u32 = 2;
const COMM: u32 = 3;
const EXIT: u32 = 4;
const FORK: u32 = 7;
const SWITCH: u32 = 14;

/// Walks one perf file.
pub fn walk(data: &[u8], endian: Endian, sink: &mut Sink) -> PerfStats {
    let mut st = PerfStats::default();
    let mut r = Reader::new(data, endian);
    let mut last_time: Option<u64> = None;
    let mut order_reported = false;
    let mut misc_reported = false;
    while !r.is_empty() {
        let off = r.offset();
        let hdr = (|| {
            Ok::<_, crate::reader::ReadError>((r.u32("type")?, r.u16("misc")?, r.u16("size")?))
        })();
        let (typ, misc, size) = match hdr {
            Ok(h) => h,
            Err(_) => {
                sink.report(
                    &rules::PERF_TRUNCATED,
                    off..data.len() as u64,
                    format!(
                        "the file ends with {} byte(s) of a partial 8-byte perf record header",
                        (data.len() as u64).saturating_sub(off)
                    ),
                );
                break;
            }
        };
        let size_span = off.saturating_add(6)..off.saturating_add(8);
        if size < 8 || size % 8 != 0 {
            let mut f = sink.make(
                &rules::PERF_RECORD_SIZE,
                size_span,
                format!("perf record of type {typ} has size {size}; sizes are multiples of 8 and at least 8"),
            );
            if size == 0 {
                f = f.note("uftrace 0.13 loops forever (ignoring SIGTERM) on a size-0 record");
            }
            f = f.note("the rest of the file was not checked");
            sink.push(f);
            break;
        }
        let body_len = u64::from(size).saturating_sub(8);
        let body = match r.sub(body_len, "perf record body") {
            Ok(b) => b,
            Err(_) => {
                // Whatever followed the cut record is gone too: an error whoever it belongs to.
                sink.report(
                    &rules::PERF_TRUNCATED,
                    off..data.len() as u64,
                    format!(
                        "perf record of size {size} at 0x{off:x} runs past the end of the file ({} byte(s) left)",
                        (data.len() as u64).saturating_sub(off)
                    ),
                );
                break;
            }
        };
        st.records = st.records.saturating_add(1);
        let (lo, hi) = match typ {
            COMM => {
                st.comm = st.comm.saturating_add(1);
                (40u16, 48u16)
            }
            EXIT | FORK => {
                st.task = st.task.saturating_add(1);
                (48, 48)
            }
            SWITCH => {
                st.switch = st.switch.saturating_add(1);
                (24, 24)
            }
            LOST => (40, 40),
            _ => {
                st.other = st.other.saturating_add(1);
                (8, u16::MAX)
            }
        };
        if size < lo || size > hi {
            let mut f = sink.make(
                &rules::PERF_RECORD_SIZE,
                size_span,
                format!(
                    "perf record of type {typ} has size {size}; this type is {}",
                    if lo == hi {
                        format!("{lo} bytes")
                    } else {
                        format!("{lo} to {hi} bytes")
                    }
                ),
            );
            if size > hi {
                f = f.note("uftrace 0.13 copies it into a fixed stack buffer and aborts (buffer overflow detected)");
            }
            sink.push(f);
            continue;
        }
        st.recs.push(decode_record(
            off,
            typ,
            misc,
            size,
            body.all_bytes(),
            endian,
        ));
        if matches!(typ, COMM | EXIT | FORK | SWITCH) {
            // Low three bits: cpumode.
            let m = misc & !0x7;
            let misc_ok = match typ {
                COMM => m & !0x2000 == 0,
                SWITCH => m & !0x6000 == 0,
                _ => m == 0,
            };
            if !misc_ok && !misc_reported {
                misc_reported = true;
                sink.report(
                    &rules::PERF_TIME_ORDER,
                    off.saturating_add(4)..off.saturating_add(6),
                    format!("misc flags 0x{misc:x} are not valid for perf record type {typ}"),
                );
            }
            // sample_id: u32 pid, u32 tid, u64 time at the end of the body.
            let all = body.all_bytes();
            let tpos = all.len().saturating_sub(8);
            if let Some(t) = crate::reader::u64_at(all, tpos, endian) {
                if let Some(prev) = last_time {
                    if t < prev && !order_reported {
                        order_reported = true;
                        let at = off.saturating_add(8).saturating_add(tpos as u64);
                        sink.report(
                            &rules::PERF_TIME_ORDER,
                            at..at.saturating_add(8),
                            format!(
                                "perf record time {t} is earlier than the previous record's {prev}"
                            ),
                        );
                    }
                }
                last_time = Some(t);
            }
        }
    }
    st
}

/// Decodes the body of a record whose size fits its type.
fn decode_record(off: u64, typ: u32, misc: u16, size: u16, b: &[u8], e: Endian) -> PerfRecord {
    use crate::reader::{u32_at, u64_at};
    let w = |at: usize| u32_at(b, at, e).unwrap_or(0);
    let t = b.len().saturating_sub(16);
    let sid = match (
        u32_at(b, t, e),
        u32_at(b, t.saturating_add(4), e),
        u64_at(b, t.saturating_add(8), e),
    ) {
        (Some(pid), Some(tid), Some(time)) if b.len() >= 16 => Some(SampleId { pid, tid, time }),
        _ => None,
    };
    let kind = match typ {
        COMM => PerfKind::Comm {
            pid: w(0),
            tid: w(4),
            exec: misc & 0x2000 != 0,
        },
        EXIT | FORK => PerfKind::Task {
            exit: typ == EXIT,
            pid: w(0),
            ppid: w(4),
            tid: w(8),
            ptid: w(12),
            time: u64_at(b, 16, e).unwrap_or(0),
        },
        SWITCH => PerfKind::Switch {
            out: misc & 0x2000 != 0,
        },
        LOST => PerfKind::Lost,
        other => PerfKind::Other {
            typ: other,
            owners: {
                let (spid, stid) = sid.map_or((0, 0), |s| (s.pid, s.tid));
                match size {
                    48 if w(4) == spid && w(12) == stid => [w(8), w(8)],
                    48 => [w(8), stid],
                    24 => [stid, stid],
                    _ => [w(4), stid],
                }
            },
        },
    };
    PerfRecord {
        off,
        size,
        kind,
        sid,
    }
}
