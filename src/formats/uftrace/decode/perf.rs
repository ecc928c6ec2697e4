//! `perf-cpuN.dat`: raw perf ring-buffer records (`perf_event_header` + body + sample_id).

use super::super::rules;
use crate::finding::Sink;
use crate::reader::{Endian, Reader};

/// Counts of one perf file.
#[derive(Clone, Debug, Default)]
pub struct PerfStats {
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
