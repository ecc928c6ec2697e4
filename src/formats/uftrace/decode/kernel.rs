//! The smaller files: `events.txt`, `extern.dat`, `default.opts`, `kernel_header`,
//! `kernel-cpuN.dat` (checked at the ring-buffer page-header level).

use super::super::rules;
use super::text::{self, parse_u64, show};
use crate::finding::{Capped, Sink};
use crate::formats::ftrace_ring::{walk_cpu, CpuStats, EventTable, RingParams};
use crate::reader::{Endian, Reader};

/// Decodes `events.txt`; returns the sorted user event ids.
pub fn events_txt(data: &[u8], sink: &mut Sink) -> Vec<u64> {
    let mut ids = Vec::new();
    for line in text::lines(data) {
        let ok = (|| {
            let rest = line.text.strip_prefix(b"EVENT: ")?;
            let (id, name) = rest.split_at(rest.iter().position(|&c| c == b' ')?);
            let id = parse_u64(id)?;
            let name = name.get(1..)?;
            let colon = name.iter().position(|&c| c == b':')?;
            if colon == 0 || colon.saturating_add(1) >= name.len() || name.contains(&b' ') {
                return None;
            }
            Some(id)
        })();
        match ok {
            Some(id) if line.text.len() < 512 => ids.push(id),
            _ => sink.report(
                &rules::TEXT_FILE_LINE,
                line.span(),
                format!(
                    "events.txt line `{}` is not `EVENT: <id> <provider>:<event>` (under 512 bytes)",
                    show(line.text)
                ),
            ),
        }
    }
    ids.sort_unstable();
    ids
}

/// Checks `extern.dat`.
pub fn extern_dat(data: &[u8], sink: &mut Sink) -> u64 {
    let mut n = 0u64;
    for line in text::lines(data) {
        let t = line.text;
        if t.is_empty() || t.starts_with(b"#") {
            continue;
        }
        let ok = t.len() < 512 && {
            let sp = t.iter().position(|&c| c == b' ');
            let ts = sp.and_then(|i| t.get(..i)).unwrap_or(t);
            let mut it = ts.splitn(2, |&c| c == b'.');
            it.next().and_then(parse_u64).is_some() && it.next().and_then(parse_u64).is_some()
        };
        if ok {
            n = n.saturating_add(1);
        } else {
            sink.report(
                &rules::TEXT_FILE_LINE,
                line.span(),
                format!(
                    "extern.dat line `{}` is not `<sec>.<nsec> <message>`",
                    show(t)
                ),
            );
        }
    }
    n
}

/// Checks `default.opts`.
pub fn default_opts(data: &[u8], sink: &mut Sink) {
    for line in text::lines(data) {
        let t = line.text;
        if t.is_empty() {
            continue;
        }
        let ok = ["-t ", "--time-filter=", "--time-filter "].iter().any(|p| {
            t.strip_prefix(p.as_bytes())
                .is_some_and(|v| !v.is_empty() && !v.contains(&b' '))
        });
        if !ok {
            sink.report(
                &rules::DEFAULT_OPTS,
                line.span(),
                format!(
                    "`{}` is not an option uftrace writes to default.opts (`-t <time>`); analysis commands apply it as a command-line option",
                    show(t)
                ),
            );
            continue;
        }
        let value = ["-t ", "--time-filter=", "--time-filter "]
            .iter()
            .find_map(|p| t.strip_prefix(p.as_bytes()))
            .unwrap_or(&[]);
        if time_digits_refused(value) {
            let f = sink
                .make(
                    &rules::DEFAULT_OPTS,
                    line.span(),
                    format!(
                        "the time filter `{}` has a whole part of 1000 or more (as C's strtoull reads it, a minus sign wraps): uftrace 0.9.4-0.18.1 stop every analysis command (\"Limited 3 digits (before and after decimal point)\")",
                        show(t)
                    ),
                )
                .level(crate::finding::Severity::Error);
            sink.push(f);
        }
    }
}

/// Whether uftrace's `parse_time(arg, 3)` (utils/utils.c) refuses `v`: the whole part, read by
/// `strtoull` (leading blanks, a sign, digits; a minus negates in 64 bits), is 1000 or more.
fn time_digits_refused(v: &[u8]) -> bool {
    let v = v.trim_ascii_start();
    let (neg, rest) = match v.first() {
        Some(b'-') => (true, v.get(1..).unwrap_or(&[])),
        Some(b'+') => (false, v.get(1..).unwrap_or(&[])),
        _ => (false, v),
    };
    let mut val: u64 = 0;
    for d in rest.iter().map_while(|&c| char::from(c).to_digit(10)) {
        match val
            .checked_mul(10)
            .and_then(|x| x.checked_add(u64::from(d)))
        {
            Some(x) => val = x,
            // strtoull saturates at ULLONG_MAX.
            None => return true,
        }
    }
    if neg && val != 0 {
        return true;
    }
    val >= 1000
}

/// Parameters from `kernel_header`.
#[derive(Clone, Debug)]
pub struct KernelParams {
    /// Page size.
    pub page_size: u64,
    /// Long size.
    pub long_size: u8,
    /// Byte order.
    pub endian: Endian,
    /// The events whose `format` files the header holds (funcgraph entry/exit and each
    /// enabled event), by id: the kernel pages' records are checked against them.
    pub events: EventTable,
}

/// Decodes `kernel_header`.
pub fn kernel_header(data: &[u8], sink: &mut Sink) -> Option<KernelParams> {
    let mut r = Reader::new(data, Endian::Little);
    let mut page = None;
    let mut long = None;
    let mut endian = None;
    for (i, key) in ["PAGE_SIZE: ", "LONG_SIZE: ", "ENDIAN: "]
        .iter()
        .enumerate()
    {
        let Some(line) = r.line() else {
            sink.report(
                &rules::KERNEL_HEADER,
                r.offset()..r.offset(),
                format!("kernel_header ends before its `{}` line", key.trim_end()),
            );
            return None;
        };
        let v = line.text.strip_prefix(key.as_bytes());
        let ok = match (i, v) {
            (0, Some(v)) => {
                page = parse_u64(v).filter(|p| p.is_power_of_two() && (1024..=1 << 20).contains(p));
                page.is_some()
            }
            (1, Some(v)) => {
                long = match v {
                    b"4" => Some(4),
                    b"8" => Some(8),
                    _ => None,
                };
                long.is_some()
            }
            (2, Some(v)) => {
                endian = match v {
                    b"LE" => Some(Endian::Little),
                    b"BE" => Some(Endian::Big),
                    _ => None,
                };
                endian.is_some()
            }
            _ => false,
        };
        if !ok {
            sink.report(
                &rules::KERNEL_HEADER,
                line.span(),
                format!(
                    "kernel_header line `{}` is not a valid `{}<value>`",
                    show(line.text),
                    key
                ),
            );
        }
    }
    let mut events = EventTable::new();
    while let Some(line) = r.line() {
        let t = line.text;
        let parsed = (|| {
            let rest = t.strip_prefix(b"TRACEFS: ")?;
            let colon = rest.iter().rposition(|&c| c == b':')?;
            let name = rest.get(..colon)?;
            let len = parse_u64(rest.get(colon.saturating_add(2)..)?)?;
            Some((name, len))
        })();
        let Some((name, len)) = parsed else {
            sink.report(
                &rules::KERNEL_HEADER,
                line.span(),
                format!(
                    "kernel_header line `{}` is not `TRACEFS: <path>: <length>`",
                    show(t)
                ),
            );
            return None;
        };
        if name.len() >= 128 {
            sink.report(
                &rules::KERNEL_HEADER,
                line.span(),
                format!(
                    "TRACEFS path is {} bytes; uftrace reads it into a 128-byte buffer",
                    name.len()
                ),
            );
        }
        if len > 4096 {
            let f = sink
                .make(
                    &rules::KERNEL_HEADER,
                    line.span(),
                    format!("TRACEFS block `{}` is {len} bytes; uftrace reads blocks into a 4096-byte stack buffer", show(name)),
                )
                .note("uftrace 0.13 does not check the length and aborts with a buffer overflow");
            sink.push(f);
        }
        let block_start = r.offset();
        let Ok(block) = r.bytes_u64(len, "TRACEFS block") else {
            sink.report(
                &rules::KERNEL_HEADER,
                line.span(),
                format!(
                    "TRACEFS block `{}` of {len} bytes runs past the end of kernel_header",
                    show(name)
                ),
            );
            return None;
        };
        if name.ends_with(b"/format") && events.insert_format_text(block).is_none() {
            sink.report(
                &rules::KERNEL_HEADER,
                block_start..block_start.saturating_add(len),
                format!(
                    "TRACEFS block `{}` has no `name:` and numeric `ID:` line, so the kernel records of this event cannot be decoded",
                    show(name)
                ),
            );
        }
    }
    match (page, long, endian) {
        (Some(page_size), Some(long_size), Some(endian)) => Some(KernelParams {
            page_size,
            long_size,
            endian,
            events,
        }),
        _ => None,
    }
}

/// Checks one `kernel-cpuN.dat`: a whole number of pages, each walked with the shared
/// ftrace ring-buffer walker (its findings use the `TD1xx` ring-buffer rules), with the event
/// formats of `kernel_header`: every record's event id must have a format and its payload
/// must hold the format's fields. Returns the walker's statistics.
pub fn kernel_cpu(data: &[u8], p: &KernelParams, cpu: u64, sink: &mut Sink) -> CpuStats {
    let len = data.len() as u64;
    let partial = len.checked_rem(p.page_size).unwrap_or(0);
    if partial != 0 {
        sink.report(
            &rules::KERNEL_DATA,
            len.saturating_sub(partial)..len,
            format!(
                "file size {len} is not a multiple of the {}-byte page size",
                p.page_size
            ),
        );
    }
    let whole = len.saturating_sub(partial);
    let r = Reader::new(data, p.endian);
    let Ok(pages) = r.slice_abs(0..whole, "kernel pages") else {
        return CpuStats::default();
    };
    let params = RingParams::new(
        u32::try_from(p.page_size).unwrap_or(4096),
        p.long_size,
        p.endian,
        u32::try_from(cpu).unwrap_or(u32::MAX),
        "",
    );
    walk_cpu(pages, params, &p.events, sink)
}

/// Checks `kallsyms` (a copy of `/proc/kallsyms`: `<hex addr> <type> <name>[\t[module]]`);
/// returns the number of symbol lines. At most eight malformed lines are reported.
pub fn kallsyms(data: &[u8], sink: &mut Sink) -> u64 {
    let mut n = 0u64;
    let mut bad = Capped::new(&rules::SYM_LINE_MALFORMED, 8);
    for line in text::lines(data) {
        let t = line.text;
        let ok = (|| -> Option<bool> {
            let sp = t.iter().position(|&c| c == b' ')?;
            text::parse_hex(t.get(..sp)?)?;
            let rest = t.get(sp.saturating_add(1)..)?;
            let (&ty, rest) = rest.split_first()?;
            let name = rest.strip_prefix(b" ")?;
            Some((ty.is_ascii_alphabetic() || ty == b'?') && !name.is_empty())
        })() == Some(true)
            && line.terminated;
        if ok {
            n = n.saturating_add(1);
        } else {
            bad.report(sink, line.span(), || {
                format!(
                    "kallsyms line `{}` is not `<hex address> <type> <name>`",
                    show(t)
                )
            });
        }
    }
    n
}
