//! Feature payloads (file-mode sections and pipe-mode HEADER_FEATURE records): each parsed
//! to exactly its size.

use super::super::model::*;
use super::super::rules;
use crate::finding::{Severity, Sink};
use crate::limits::Limits;
use crate::reader::{Endian, ReadError, ReadResult, Reader};
use std::ops::Range;

/// `perf_header_string`: u32 len, then len bytes holding a NUL-terminated text.
fn string(r: &mut Reader<'_>, what: &'static str) -> ReadResult<String> {
    let at = r.offset();
    let len = r.u32(what)?;
    let b = r.bytes_u64(u64::from(len), what)?;
    let Some(nul) = b.iter().position(|c| *c == 0) else {
        return Err(ReadError {
            offset: at,
            what,
            kind: crate::reader::ReadErrorKind::Unterminated {
                scanned: u64::from(len),
            },
        });
    };
    Ok(String::from_utf8_lossy(b.get(..nul).unwrap_or_default()).into_owned())
}

/// A string as perf 6.1's `do_read_string` reads it (`lax`): `len` bytes, a NUL inside them
/// or not; else as [`string`].
fn string_in(r: &mut Reader<'_>, lax: bool, what: &'static str) -> ReadResult<String> {
    if !lax {
        return string(r, what);
    }
    let len = r.u32(what)?;
    let b = r.bytes_u64(u64::from(len), what)?;
    let n = b.iter().position(|c| *c == 0).unwrap_or(b.len());
    Ok(String::from_utf8_lossy(b.get(..n).unwrap_or_default()).into_owned())
}

fn string_list(
    r: &mut Reader<'_>,
    lax: bool,
    what: &'static str,
    max: u64,
) -> ReadResult<Vec<String>> {
    let nr = r.u32(what)?;
    let mut out = Vec::new();
    for _ in 0..u64::from(nr).min(max) {
        out.push(string_in(r, lax, what)?);
    }
    if u64::from(nr) > max {
        r.skip(u64::MAX, what)?;
    }
    Ok(out)
}

/// Checks that `n` entries of at least `min` bytes can fit the bytes left.
fn count(r: &Reader<'_>, n: u64, min: u64, what: &'static str) -> ReadResult<u64> {
    let need = n.saturating_mul(min);
    if need > r.remaining() as u64 {
        let mut q = r.clone();
        q.skip(need, what)?;
    }
    Ok(n)
}

/// Parses one feature payload at `span` and records what later checks need in `info`.
/// `in_stream`: a pipe-mode HEADER_FEATURE record, which perf 6.1 reads bounded by the record;
/// a file-mode section is read from the file bounded by its end, not by the section.
#[allow(clippy::too_many_arguments)]
pub fn check_feature(
    data: &[u8],
    endian: Endian,
    bit: u64,
    span: Range<u64>,
    nattrs: usize,
    in_stream: bool,
    info: &mut FeatureInfo,
    limits: &Limits,
    sink: &mut Sink,
) {
    let name = feature_name(bit);
    if bit >= LAST_FEATURE_61 {
        sink.report(
            &rules::UNKNOWN_FEATURE,
            span.clone(),
            format!("feature {bit} ({name}) is unknown to perf 6.1, which skips it"),
        );
        return;
    }
    if bit == 1 {
        info.tracing_data = true;
        let (ids, unparsed) = tracing_data(data, span.clone(), false, limits, sink);
        info.tracepoint_ids = ids;
        info.tracepoint_unparsed = unparsed;
        return;
    }
    let Ok(mut r) = Reader::new(data, endian).slice_abs(span.clone(), "feature section") else {
        return;
    };
    let res = parse(&mut r, bit, nattrs, None, info, limits);
    // perf 6.1 reads a file-mode feature from the file, bounded by its end, not by the
    // section: a section whose size alone is wrong is read as written (verified: sections of
    // 0, 1 or half their size, a string length one past its section, all read the same). It
    // cannot read the feature only when the payload does not parse up to the end of the file.
    // CMDLINE is the exception: perf 6.1 copies its strings into a buffer of the section's
    // size, so one that does not fit the section overruns the heap.
    if res.is_err() {
        info.short_sections.push((bit, span.clone()));
    }
    // What perf 6.1 reads: a stream's feature from its record, a file's from the file up to
    // its end; strings as `do_read_string` does (a NUL inside them or not); CPU_TOPOLOGY's
    // per-CPU ids for the CPUs NRCPUS says are available.
    let sec = span.end.saturating_sub(span.start);
    // BUILD_ID's entries are read up to the section's end (`perf_header__read_build_ids`).
    let perf_range = if in_stream || bit == 2 {
        span.clone()
    } else {
        span.start..data.len() as u64
    };
    let mut perf_res = Err(Bad(String::new()));
    if let Ok(mut whole) = Reader::new(data, endian).slice_abs(perf_range, "feature") {
        let mut scratch = info.clone();
        perf_res = parse(&mut whole, bit, nattrs, Some(sec), &mut scratch, limits);
        if perf_res.is_ok() && res.is_err() {
            *info = scratch;
        }
    }
    let readable = perf_res.is_ok();
    if !readable {
        info.unreadable.push((bit, span.clone()));
    }
    // What perf 6.1 does with a payload it cannot parse: in a stream it stops at the record
    // ("failed to process type: 80") and shows no sample (verified: CPUID length 0x80000000,
    // a NUMA_TOPOLOGY count of 0x80000000, a BPF_PROG_INFO byte changed); BUILD_ID (a build id
    // above 20 bytes: an assertion, SIGABRT), CMDLINE (strings past the section: "free():
    // invalid pointer") and PMU_MAPPINGS (a count from about 160,000 on) crash it (verified on
    // damaged copies of real recordings).
    let fatal: Option<&'static str> = if readable && res.is_ok() {
        None
    } else if bit == 17 && group_count(data, endian, &span) >= GROUP_DESC_HANG {
        Some("hang")
    } else if in_stream && !readable {
        Some("reject")
    } else if in_stream {
        None
    } else if (bit == 11 && cmdline_overflows(data, endian, &span))
        || (bit == 2 && build_id_too_long(data, endian, &span))
        || (bit == 16 && group_count(data, endian, &span) >= PMU_MAPPINGS_CRASH)
        || (bit == 22 && mem_topology_overflows(data, endian, &span))
    {
        Some("crash")
    } else {
        None
    };
    let msg = match res {
        Ok(()) if !readable => Some(format!(
            "feature {bit} ({name}) does not parse as perf 6.1 reads it: {}",
            perf_res.err().map_or(String::new(), |Bad(e)| e)
        )),
        Err(Bad(e)) => Some(format!(
            "feature {bit} ({name}) does not parse within its {} bytes: {e}",
            span.end.saturating_sub(span.start)
        )),
        Ok(()) if bit != 1 && !r.is_empty() => Some(format!(
            "feature {bit} ({name}) leaves {} of its {} bytes unread",
            r.remaining(),
            span.end.saturating_sub(span.start)
        )),
        Ok(()) => None,
    };
    if let Some(m) = msg {
        let groups = group_count(data, endian, &span);
        let f = sink.make(&rules::FEATURE_PAYLOAD, span.clone(), m);
        let f = match fatal {
            Some("hang") => f
                .note(format!("perf 6.1 allocates 16 bytes per group of the count ({groups} here), then writes every entry of the array before it gives up on the feature: its time and memory grow with the count (verified on a machine of 23 GiB, `perf script`: 2^28 groups 5.5 s and 4.2 GB, 2^29 groups 10.8 s and 8.4 GB, 0x52000000 groups over 60 s and 13 GB when stopped, `perf report` 45 s and 21 GB; 0xf0000000 groups, more than the machine's memory: the allocation is refused and the feature skipped at once)"))
                .fails("perf", "6.1", "hang"),
            Some("reject") => f
                .note("perf 6.1 reads a HEADER_FEATURE bounded by its record: it stops the stream there (\"failed to process type: 80\") and shows none of the samples")
                .fails("perf", "6.1", "reject"),
            Some(_) => f
                .note(match bit {
                    2 => "perf 6.1 walks the BUILD_ID entries of the section and aborts on a build id above 20 bytes (`assertion failed at util/build-id.c`, SIGABRT)",
                    11 => "perf 6.1 copies the CMDLINE strings into a buffer of the section's size and points at them from an array of count + 1 entries computed in 32 bits: strings that do not fit the buffer, or a count of 0xffffffff (an array of 0 entries), overrun the heap (\"free(): invalid pointer\", \"free(): invalid size\", SIGABRT)",
                    22 => "perf 6.1 allocates a MEM_TOPOLOGY node bitmap for its bit count cut to 32 bits (`bitmap_zalloc(int)`) and reads the words of the whole 64-bit count into it, up to the end of the file: a count above 32 bits overruns the heap (\"malloc assertion failure in sysmalloc\", SIGABRT, `perf script` and `perf report` exit 134, verified for counts of 2^32 + 64, 2^32 + 200 and 2^40 + 200 bits)",
                    _ => "perf 6.1 crashes (SIGSEGV, `perf script` and `perf report` exit 139) on a PMU_MAPPINGS count from about 160,000 on, under the default 8 MiB stack (verified: from 160,313, 161,770 and 162,534 on in three recordings, and 0x7fffffff, 0x80000000, 0xffffffff); a smaller count that runs past the entries fails the feature and perf reads on (verified: counts of 1, 2 and 1,000 more than the entries in nine recordings)",
                })
                .fails("perf", "6.1", "crash"),
            None if readable && in_stream => f
                .note("perf 6.1 reads the strings of a HEADER_FEATURE as their lengths say, a NUL in them or not: it reads this one as written")
                .level(Severity::Warning),
            None if readable => f
                .note("perf 6.1 reads feature payloads from the file bounded by its end, not by the section, and strings as their lengths say: it reads this one as written")
                .level(Severity::Warning),
            None => f
                .note("perf 6.1 reads feature payloads from the file bounded by its end, not by the section")
                .level(Severity::Warning),
        };
        sink.push(f);
    }
    if bit == 2 && !in_stream {
        info.build_id_names = build_id_names(data, endian, &span);
        if let Some((at, dso)) = build_id_user_as_kernel(data, endian, &span) {
            sink.push(
                sink.make(
                    &rules::FEATURE_PAYLOAD,
                    at..at.saturating_add(8),
                    format!("the BUILD_ID entry at 0x{at:x} says {dso} is a kernel object (the cpu mode of its misc): perf 6.1 marks that user-space object as kernel and then takes the memory after its user map's allocation for the kernel map data (`map__kmap`), corrupting the heap"),
                )
                .note("verified on every user-space entry of the recordings of `corpus/perf` and `campaign/perf_seeds.sh` given cpu mode 1 (57 entries: programs, libc, ld.so, libpython, [vdso]): `perf report` aborted (\"double free or corruption\", \"free(): invalid next size\", SIGABRT) or was killed by SIGSEGV on each; `[kernel.kallsyms]` entries are kernel ones")
                .fails("perf", "6.1", "crash"),
            );
        }
    }
    if bit == 2 && !in_stream {
        if let Some(o) = build_id_name_overrun(data, endian, &span) {
            let header = if o.at < 8 {
                " (the section starts in the file header: the size is the last two bytes of the magic, \"E2\")"
            } else {
                ""
            };
            let msg = format!(
                "the BUILD_ID entry at 0x{:x} is {} bytes{header}: perf 6.1 reads its name, {} bytes, {} of them there before the end of the file, into a stack buffer of {PATH_MAX} bytes (`perf_header__read_build_ids`' `filename[PATH_MAX]`)",
                o.at, o.size, o.want, o.written
            );
            let f = sink.make(&rules::FEATURE_PAYLOAD, o.at..o.at.saturating_add(8), msg);
            let f = if o.crashes {
                f.note(format!("past {BUILD_ID_NAME_ROOM} bytes the name overwrites the stack protector's canary of perf 6.1.187 (Debian): `perf script` and `perf report` abort (\"*** stack smashing detected ***\", exit 134; verified with names of 8,201 to 65,499 bytes and with the section moved to offset 0 of 16 recordings above 8,236 bytes); no real recording has a name above 64 bytes (71 entries of 26 recordings)"))
                    .fails("perf", "6.1", "crash")
            } else {
                f.note(format!("the name runs past the buffer but stops short of the stack protector's canary of perf 6.1.187 (Debian), {BUILD_ID_NAME_ROOM} bytes from its start: `perf script` and `perf report` exit 0 (verified with names of 4,097 to 8,200 bytes and with the section moved to offset 0 of 10 recordings of 8,236 bytes or fewer)"))
                    .level(Severity::Warning)
            };
            sink.push(f);
        }
    }
}

/// `PATH_MAX`: the size of the stack buffer perf 6.1 reads a BUILD_ID entry's name into.
const PATH_MAX: u64 = 4096;

/// How many bytes of a BUILD_ID entry's name perf 6.1.187 (Debian) writes from the start of
/// its `filename[PATH_MAX]` before it reaches the stack protector's canary (measured: a name
/// of 8,200 bytes reads, one of 8,201 whose last byte is not 0, or of 8,202, aborts).
const BUILD_ID_NAME_ROOM: u64 = 8200;

/// A BUILD_ID entry whose name perf 6.1 reads past its stack buffer.
struct NameOverrun {
    at: u64,
    size: u16,
    /// The name's length as the entry's size gives it.
    want: u64,
    /// The bytes of it the file holds (`readn` stops at the end of the file).
    written: u64,
    /// Whether the bytes written reach the canary with a byte other than its own: the
    /// canary's first byte is 0, the others random.
    crashes: bool,
}

/// The first BUILD_ID entry, walked as `perf_header__read_build_ids` walks them (from the
/// section's start while the offset is below its end, each entry's 36 fixed bytes then
/// `size - 36` name bytes read from the file, not bounded by the section), whose name perf
/// reads past its `PATH_MAX` buffer. A size below 36 makes perf ask `read` for a negative
/// length, which the kernel refuses: perf stops there.
fn build_id_name_overrun(data: &[u8], endian: Endian, span: &Range<u64>) -> Option<NameOverrun> {
    let len = data.len() as u64;
    let mut at = span.start;
    for _ in 0..65_536 {
        if at >= span.end || at.saturating_add(36) > len {
            return None;
        }
        let mut r = Reader::new(data, endian);
        r.seek(at.saturating_add(6), "build id size").ok()?;
        let size = r.u16("build id size").ok()?;
        let want = u64::from(size).checked_sub(36)?;
        let written = want.min(len.saturating_sub(at.saturating_add(36)));
        if written > PATH_MAX {
            let name = at.saturating_add(36);
            let first = usize::try_from(name.saturating_add(BUILD_ID_NAME_ROOM))
                .ok()
                .and_then(|i| data.get(i).copied());
            let crashes = written > BUILD_ID_NAME_ROOM.saturating_add(1)
                || (written == BUILD_ID_NAME_ROOM.saturating_add(1) && first != Some(0));
            return Some(NameOverrun {
                at,
                size,
                want,
                written,
                crashes,
            });
        }
        if written < want {
            return None;
        }
        at = at.saturating_add(u64::from(size));
    }
    None
}

/// The names of the BUILD_ID entries of a section (at most 65,536).
fn build_id_names(data: &[u8], endian: Endian, span: &Range<u64>) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut at = span.start;
    for _ in 0..65_536 {
        if at.saturating_add(36) > span.end {
            break;
        }
        let mut r = Reader::new(data, endian);
        let Some(size) = r
            .seek(at.saturating_add(6), "build id size")
            .ok()
            .and_then(|()| r.u16("build id size").ok())
        else {
            break;
        };
        if size < 36 {
            break;
        }
        let end = at.saturating_add(u64::from(size)).min(span.end);
        let raw = usize::try_from(at.saturating_add(36))
            .ok()
            .zip(usize::try_from(end).ok())
            .and_then(|(a, b)| data.get(a..b))
            .unwrap_or_default();
        let name = raw.get(..raw.iter().position(|c| *c == 0).unwrap_or(raw.len()));
        out.push(name.unwrap_or_default().to_vec());
        at = at.saturating_add(u64::from(size));
    }
    out
}

/// The first BUILD_ID entry (its offset, its name) whose cpu mode is kernel (1) or guest
/// kernel (4; hypervisor, 3, is skipped by perf)
/// though it names a user-space object: `[vdso]` and the like, or a path that is neither a
/// kernel module (`.ko`, compressed or not) nor a vmlinux.
fn build_id_user_as_kernel(
    data: &[u8],
    endian: Endian,
    span: &Range<u64>,
) -> Option<(u64, String)> {
    let mut at = span.start;
    for _ in 0..65_536 {
        if at.saturating_add(36) > span.end {
            return None;
        }
        let mut r = Reader::new(data, endian);
        r.seek(at.saturating_add(4), "build id record").ok()?;
        let misc = r.u16("build id misc").ok()?;
        let size = r.u16("build id size").ok()?;
        if size < 36 {
            return None;
        }
        let end = at.saturating_add(u64::from(size)).min(span.end);
        let raw = Reader::new(data, endian)
            .slice_abs(at.saturating_add(36)..end, "build id name")
            .ok()
            .and_then(|mut q| q.bytes_u64(q.remaining() as u64, "build id name").ok())
            .unwrap_or_default();
        let raw = raw
            .get(..raw.iter().position(|c| *c == 0).unwrap_or(raw.len()))
            .unwrap_or_default();
        let name = String::from_utf8_lossy(raw);
        let user = matches!(&*name, "[vdso]" | "[vdso32]" | "[vdsox32]" | "[vsyscall]")
            || (name.starts_with('/')
                && !name.ends_with(".ko")
                && !name.contains(".ko.")
                && !name.contains("vmlinux"));
        if matches!(misc & 7, 1 | 4) && user {
            return Some((at, name.into_owned()));
        }
        at = at.saturating_add(u64::from(size));
    }
    None
}

/// The GROUP_DESC group count from which perf 6.1's `process_group_desc` takes seconds and
/// gigabytes: it `calloc`s 16 bytes per group and clears every entry when it fails the
/// feature (2^28 groups: a 4 GiB array). A recording has at most one group per event.
const GROUP_DESC_HANG: u32 = 1 << 28;

/// The PMU_MAPPINGS count from which perf 6.1 crashes (measured under the default 8 MiB
/// stack: 160,313 in the lowest of three recordings); a machine has a few dozen PMUs.
const PMU_MAPPINGS_CRASH: u32 = 160_313;

/// The first u32 of a section: the group count of GROUP_DESC, the PMU count of PMU_MAPPINGS
/// (0 when it is not there).
fn group_count(data: &[u8], endian: Endian, span: &Range<u64>) -> u32 {
    let mut r = Reader::new(data, endian);
    if r.seek(span.start, "group count").is_err() {
        return 0;
    }
    r.u32("group count").unwrap_or(0)
}

/// Whether perf 6.1's `process_cmdline` overruns its buffers: it copies each string (up to its
/// NUL) into a buffer of the section's size plus the count plus one, reading the strings from
/// the file past the section if their lengths say so, and points at each from an array of
/// `nr + 1` entries (u32 arithmetic).
fn cmdline_overflows(data: &[u8], endian: Endian, span: &Range<u64>) -> bool {
    let size = span.end.saturating_sub(span.start);
    let mut r = Reader::new(data, endian);
    if r.seek(span.start, "command line").is_err() {
        return false;
    }
    let Ok(nr) = r.u32("command line count") else {
        return false;
    };
    if nr == u32::MAX {
        // `argv = zalloc(sizeof(char *) * (nr + 1))`: nr + 1 is 0 in 32 bits, and the first
        // string is written past the empty array (verified: "free(): invalid size", SIGABRT).
        return true;
    }
    let room = size.saturating_add(u64::from(nr)).saturating_add(1);
    let mut used = 0u64;
    for _ in 0..nr.min(65_536) {
        let Ok(len) = r.u32("command line string") else {
            return false;
        };
        let Ok(b) = r.bytes_u64(u64::from(len), "command line string") else {
            return false;
        };
        let n = b.iter().position(|c| *c == 0).unwrap_or(b.len()) as u64;
        used = used.saturating_add(n).saturating_add(1);
        if used > room {
            return true;
        }
    }
    false
}

/// Whether perf 6.1's `process_mem_topology` writes past a node bitmap: `do_read_bitmap`
/// allocates `bitmap_zalloc(size)` with the 64-bit bit count passed as an `int` (a negative one
/// fails the allocation, and the feature), then reads `BITS_TO_LONGS(size)` words of the full
/// count from the file into it, each read bounded by the end of the file, not the section.
fn mem_topology_overflows(data: &[u8], endian: Endian, span: &Range<u64>) -> bool {
    let len = data.len() as u64;
    let mut r = Reader::new(data, endian);
    if r.seek(span.start.saturating_add(16), "memory topology")
        .is_err()
    {
        return false;
    }
    let Ok(nr) = r.u64("memory node count") else {
        return false;
    };
    for _ in 0..nr.min(65_536) {
        let (Ok(_), Ok(_), Ok(nbits)) =
            (r.u64("node"), r.u64("node size"), r.u64("node bitmap bits"))
        else {
            return false;
        };
        // The count as C's `int`: the low 32 bits, signed (negative from bit 31 on).
        let low = nbits & 0xffff_ffff;
        if low >= 0x8000_0000 {
            return false;
        }
        let allocated = low.div_ceil(64);
        let wanted = nbits.div_ceil(64);
        let there = len.saturating_sub(r.offset()) / 8;
        if wanted > allocated && there > allocated {
            return true;
        }
        if r.skip(wanted.saturating_mul(8), "node bitmap").is_err() {
            return false;
        }
    }
    false
}

/// Whether a BUILD_ID entry of the section says its build id is longer than 20 bytes with
/// PERF_RECORD_MISC_BUILD_ID_SIZE set: perf 6.1 aborts (`assertion failed at
/// util/build-id.c`).
fn build_id_too_long(data: &[u8], endian: Endian, span: &Range<u64>) -> bool {
    let mut at = span.start;
    for _ in 0..65_536 {
        if at.saturating_add(36) > span.end {
            return false;
        }
        let mut r = Reader::new(data, endian);
        if r.seek(at.saturating_add(4), "build id record").is_err() {
            return false;
        }
        let (Ok(misc), Ok(size)) = (r.u16("build id misc"), r.u16("build id size")) else {
            return false;
        };
        if r.seek(at.saturating_add(32), "build id size").is_err() {
            return false;
        }
        let Ok(n) = r.u8("build id size") else {
            return false;
        };
        if misc & 0x8000 != 0 && n > 20 {
            return true;
        }
        if size < 8 {
            return false;
        }
        at = at.saturating_add(u64::from(size));
    }
    false
}

/// Whether libperf's `perf_cpu_map__new` (perf 6.1) parses `list`: empty, or numbers
/// (`strtoul` base 0: decimal, octal with a leading 0, hex with 0x) each followed by the end,
/// a comma or a dash and a number not below it (then the end or a comma); what follows a
/// comma that starts no number is ignored.
fn cpu_list_parses(list: &str) -> bool {
    // strtoul base 0 at the start of `s`: (value, rest), or None when no digit is read.
    fn number(s: &[u8]) -> Option<(u64, &[u8])> {
        let (radix, digits) = match s {
            [b'0', b'x' | b'X', rest @ ..] if rest.first().is_some_and(u8::is_ascii_hexdigit) => {
                (16, rest)
            }
            [b'0', ..] => (8, s),
            _ => (10, s),
        };
        let n = digits
            .iter()
            .take_while(|c| char::from(**c).is_digit(radix))
            .count();
        if n == 0 {
            return None;
        }
        let text = std::str::from_utf8(digits.get(..n)?).ok()?;
        let v = u64::from_str_radix(text, radix).unwrap_or(u64::MAX);
        Some((v, digits.get(n..)?))
    }
    let int_max = u64::from(i32::MAX.unsigned_abs());
    let mut s = list.as_bytes();
    if s.first().is_some_and(|c| !c.is_ascii_digit()) {
        return false;
    }
    while s.first().is_some_and(u8::is_ascii_digit) {
        let Some((start, rest)) = number(s) else {
            return false;
        };
        if start >= int_max || !matches!(rest.first(), None | Some(b',' | b'-')) {
            return false;
        }
        s = rest;
        if s.first() == Some(&b'-') {
            let Some((end, rest)) = number(s.get(1..).unwrap_or_default()) else {
                return false;
            };
            if end >= int_max || end < start || !matches!(rest.first(), None | Some(b',')) {
                return false;
            }
            s = rest;
        }
        s = s.get(1..).unwrap_or_default();
    }
    true
}

/// The TRACING_DATA block (file-mode feature 1, or the payload after a pipe-mode
/// HEADER_TRACING_DATA record): the metadata items of a trace.dat v6, checked by the trace.dat
/// checks (their findings are `TD` rules), and its end against the section's. Returns the ids
/// of the event formats that parsed (`None` when the block does not read) and of those
/// libtraceevent registers but fails to parse: perf 6.1 prints their samples as
/// "[FAILED TO PARSE]".
pub fn tracing_data(
    data: &[u8],
    span: Range<u64>,
    in_stream: bool,
    limits: &Limits,
    sink: &mut Sink,
) -> (Option<Vec<u32>>, Vec<u32>) {
    // perf 6.1 reads a file's block from the file (`trace_report` on the file descriptor),
    // not bounded by its section: a section whose size alone is wrong is read as written
    // (verified: TRACING_DATA sizes made 0, 1, half or one less in lock.data, syscalls.data
    // and tracepoint.data, every record read the same by both readers).
    let block = if in_stream {
        span.clone()
    } else {
        span.start..data.len() as u64
    };
    let read = crate::formats::tracecmd::decode::v6_metadata_block(data, block, limits, sink);
    let end = read.as_ref().map(|b| b.end);
    let ids = read.map(|b| (Some(b.ids), b.unparsed)).unwrap_or_default();
    // A stream's HEADER_TRACING_DATA gives the block's size padded to 8: the walk compares
    // them (`tracing_data_len`).
    if let (true, Some(_)) = (in_stream, end) {
        return ids;
    }
    let msg = match end {
        None => format!(
            "the tracing data block at 0x{:x} cannot be read as trace.dat v6 metadata (see the TD findings); perf 6.1 refuses every tracepoint recording whose block is broken (\"incompatible file format\", exit 255)",
            span.start
        ),
        Some(e) if e != span.end => format!(
            "the tracing data block ends at 0x{e:x}, its section at 0x{:x} ({} bytes apart); perf 6.1 reads the block from the file, not bounded by the section",
            span.end,
            span.end.abs_diff(e)
        ),
        Some(_) => return ids,
    };
    let f = sink.make(&rules::FEATURE_PAYLOAD, span, msg);
    let f = if end.is_none() {
        f.fails("perf", "6.1", "reject")
    } else {
        f.level(Severity::Warning)
    };
    sink.push(f);
    ids
}

/// The rest of CPU_TOPOLOGY as perf 6.1's `process_cpu_topology` reads it after the sibling
/// lists (`start`: where the section starts, `sec`: its size): when the section goes on, a
/// core and a socket id for each of the `nr_cpus_avail` CPUs of NRCPUS (an `int`: a table of
/// a negative count cannot be allocated), then, when it still goes on, the die siblings and a
/// die id per CPU.
fn cpu_topology_ids(
    r: &mut Reader<'_>,
    start: u64,
    sec: u64,
    info: &FeatureInfo,
) -> Result<(), Bad> {
    let cpus = info.nr_cpus.map_or(0, |(a, _)| a);
    if r.offset().saturating_sub(start) >= sec {
        return Ok(());
    }
    if i32::try_from(cpus).is_err() {
        return Err(Bad(format!(
            "NRCPUS says {cpus} CPUs are available: perf 6.1 cannot allocate its CPU table for a count read as negative"
        )));
    }
    // `process_cpu_topology` fails the feature on a socket id above the CPU count (but
    // 0xffffffff): "socket_id number is too big".
    for cpu in 0..cpus {
        let _core = r.u32("cpu core id")?;
        let socket = r.u32("cpu socket id")?;
        if socket != u32::MAX && socket > cpus {
            return Err(Bad(format!(
                "CPU {cpu}'s socket id is {socket}, above the {cpus} CPUs NRCPUS says are available: perf 6.1 fails the feature (\"socket_id number is too big\")"
            )));
        }
    }
    if r.offset().saturating_sub(start) >= sec {
        return Ok(());
    }
    let nr = r.u32("die siblings")?;
    for _ in 0..nr.min(65_536) {
        string_in(r, true, "die siblings")?;
    }
    r.skip(u64::from(cpus).saturating_mul(4), "die ids")?;
    Ok(())
}

/// The length of the TRACING_DATA block at `span.start` as the trace.dat v6 metadata reads,
/// with no finding: None when it does not read.
pub fn tracing_data_len(data: &[u8], span: Range<u64>, limits: &Limits) -> Option<u64> {
    let mut quiet = Sink::new(0);
    crate::formats::tracecmd::decode::v6_metadata_block(data, span.clone(), limits, &mut quiet)
        .map(|b| b.end.saturating_sub(span.start))
}

/// Why a payload does not parse.
struct Bad(String);

impl From<ReadError> for Bad {
    fn from(e: ReadError) -> Self {
        Bad(e.to_string())
    }
}

fn parse(
    r: &mut Reader<'_>,
    bit: u64,
    nattrs: usize,
    perf: Option<u64>,
    info: &mut FeatureInfo,
    limits: &Limits,
) -> Result<(), Bad> {
    // `perf`: read as perf 6.1 does, the section being that many bytes.
    let lax = perf.is_some();
    let max = limits.max_entries;
    match bit {
        1 => {
            // TRACING_DATA: the metadata items of a trace.dat v6, checked by `check_feature`.
            r.skip(r.remaining() as u64, "tracing data")?;
        }
        2 => {
            // BUILD_ID: build_id_event records filling the section.
            while !r.is_empty() {
                let _kind = r.u32("build id record type")?;
                let _misc = r.u16("build id record misc")?;
                let size = r.u16("build id record size")?;
                if size < 8 + 4 + 24 {
                    return Err(Bad(format!(
                        "the build id record at 0x{:x} is {size} bytes, below the 36 of its fixed fields",
                        r.offset().saturating_sub(8)
                    )));
                }
                let mut body = r.sub(u64::from(size).saturating_sub(8), "build id record")?;
                body.skip(4 + 20, "build id")?;
                let n = body.u8("build id size")?;
                if n > 20 {
                    return Err(Bad(format!(
                        "the build id at 0x{:x} says it is {n} bytes, above 20",
                        body.offset().saturating_sub(1)
                    )));
                }
                body.skip(3, "build id padding")?;
                body.cstr(body.remaining(), "build id file name")?;
            }
        }
        3..=6 | 8 | 9 => {
            let s = string_in(r, lax, "feature string")?;
            if bit == 5 {
                info.version = Some(s);
            }
        }
        7 => {
            let avail = r.u32("nr_cpus_available")?;
            let online = r.u32("nr_cpus_online")?;
            info.nr_cpus = Some((avail, online));
        }
        10 | 23 => {
            r.u64("feature value")?;
        }
        11 => {
            string_list(r, lax, "command line", max)?;
        }
        12 => {
            let at = r.offset();
            let nr = r.u32("event count")?;
            let asz = r.u32("event attr size")?;
            count(
                r,
                u64::from(nr),
                u64::from(asz).saturating_add(8),
                "event descriptions",
            )?;
            let mut evs = Vec::new();
            for _ in 0..u64::from(nr).min(max) {
                let attr_at = r.offset();
                r.skip(u64::from(asz), "event attr")?;
                let nids = r.u32("event id count")?;
                // The name's bytes up to its NUL, as linux-perf-data reads them.
                let mut peek = r.clone();
                let name_utf8 = peek
                    .u32("event name")
                    .ok()
                    .and_then(|n| peek.bytes_u64(u64::from(n), "event name").ok())
                    .is_none_or(|b| {
                        let n = b.iter().position(|c| *c == 0).unwrap_or(b.len());
                        std::str::from_utf8(b.get(..n).unwrap_or_default()).is_ok()
                    });
                let name = string_in(r, lax, "event name")?;
                count(r, u64::from(nids), 8, "event ids")?;
                let mut ids = Vec::new();
                for _ in 0..nids {
                    ids.push(r.u64("event id")?);
                }
                evs.push(EventDesc {
                    attr_at,
                    attr_size: asz,
                    ids,
                    name,
                    name_utf8,
                });
            }
            let _ = nattrs;
            info.event_desc = Some((at..r.end_offset(), evs));
        }
        _ => parse_more(r, bit, perf, info, limits)?,
    }
    Ok(())
}

/// The payloads of features 13 and up.
fn parse_more(
    r: &mut Reader<'_>,
    bit: u64,
    perf: Option<u64>,
    info: &mut FeatureInfo,
    limits: &Limits,
) -> Result<(), Bad> {
    let lax = perf.is_some();
    let max = limits.max_entries;
    match bit {
        13 => {
            let start = r.offset();
            string_list(r, lax, "core siblings", max)?;
            string_list(r, lax, "thread siblings", max)?;
            if let Some(sec) = perf {
                return cpu_topology_ids(r, start, sec, info);
            }
            // Per-CPU core/socket ids, dies and clusters follow; their count is only known
            // from NRCPUS, so the rest is taken as it is.
            r.skip(r.remaining() as u64, "cpu topology")?;
        }
        14 => {
            let nr = r.u32("node count")?;
            count(r, u64::from(nr), 24, "numa nodes")?;
            for _ in 0..nr {
                r.u32("node")?;
                r.u64("mem total")?;
                r.u64("mem free")?;
                let at = r.offset();
                let len = r.clone().u32("node cpus")?;
                let cpus = string_in(r, lax, "node cpus")?;
                if lax && len == 0 {
                    // `do_read_string` mallocs 0 bytes and reads none: the list perf parses is
                    // whatever the heap held there, no string perf writes (its strings are
                    // padded to 64 with their NUL).
                    return Err(Bad(format!(
                        "the NUMA node CPU list at 0x{at:x} has length 0: perf 6.1 reads it into a 0-byte allocation and parses what the heap held there as the list (verified: a node count made 2 in a `-z` recording, whose second node's list is 0 bytes long, failed the feature)"
                    )));
                }
                if !cpu_list_parses(&cpus) {
                    return Err(Bad(format!(
                        "the NUMA node CPU list at 0x{at:x}, {cpus:?}, is none perf 6.1 parses (`perf_cpu_map__new`: numbers and ranges separated by commas), so it fails the feature"
                    )));
                }
            }
        }
        15 | 19 => {}
        16 => {
            let nr = r.u32("pmu count")?;
            count(r, u64::from(nr), 8, "pmu mappings")?;
            for _ in 0..nr {
                r.u32("pmu type")?;
                string_in(r, lax, "pmu name")?;
            }
        }
        17 => {
            let nr = r.u32("group count")?;
            count(r, u64::from(nr), 12, "groups")?;
            for _ in 0..nr {
                string_in(r, lax, "group name")?;
                r.u32("group leader")?;
                r.u32("group members")?;
            }
        }
        18 => {
            let nr = r.u64("auxtrace index count")?;
            count(r, nr, 16, "auxtrace index")?;
            r.skip(nr.saturating_mul(16), "auxtrace index")?;
        }
        20 => {
            // perf 6.1's process_cache reads only version 1: any other fails the feature, and
            // perf reads no feature after it (verified: version 2 in a `-z` recording, COMPRESSED
            // never read, 0 of 30 samples).
            let at = r.offset();
            let version = r.u32("cache version")?;
            if version != 1 {
                return Err(Bad(format!(
                    "the CACHE version at 0x{at:x} is {version}; perf 6.1 reads only version 1 and fails the feature"
                )));
            }
            let nr = r.u32("cache count")?;
            count(r, u64::from(nr), 28, "caches")?;
            for _ in 0..nr {
                r.skip(16, "cache level")?;
                string_in(r, lax, "cache type")?;
                string_in(r, lax, "cache size")?;
                string_in(r, lax, "cache map")?;
            }
        }
        21 => {
            let first = r.u64("first sample time")?;
            let last = r.u64("last sample time")?;
            info.sample_time = Some((first, last));
        }
        22 => {
            // process_mem_topology, like process_cache, reads only version 1 (verified as
            // for CACHE).
            let at = r.offset();
            let version = r.u64("memory version")?;
            if version != 1 {
                return Err(Bad(format!(
                    "the MEM_TOPOLOGY version at 0x{at:x} is {version}; perf 6.1 reads only version 1 and fails the feature"
                )));
            }
            r.u64("memory block size")?;
            let nr = r.u64("memory node count")?;
            count(r, nr, 24, "memory nodes")?;
            for _ in 0..nr {
                r.u64("node")?;
                r.u64("node size")?;
                let nbits = r.u64("node bitmap bits")?;
                let words = nbits.div_ceil(64);
                r.skip(words.saturating_mul(8), "node bitmap")?;
            }
        }
        24 => {
            r.u64("dir format version")?;
        }
        25 => {
            let nr = r.u32("bpf prog count")?;
            count(r, u64::from(nr), 8, "bpf progs")?;
            for _ in 0..nr {
                let info_len = r.u32("bpf info length")?;
                let data_len = r.u32("bpf data length")?;
                r.skip(
                    u64::from(info_len).saturating_add(u64::from(data_len)),
                    "bpf prog info",
                )?;
            }
        }
        26 => {
            let nr = r.u32("btf count")?;
            count(r, u64::from(nr), 8, "btf entries")?;
            for _ in 0..nr {
                r.u32("btf id")?;
                let n = r.u32("btf size")?;
                r.skip(u64::from(n), "btf data")?;
            }
        }
        27 => {
            r.u32("compression version")?;
            let kind = r.u32("compression type")?;
            r.u32("compression level")?;
            r.u32("compression ratio")?;
            let mmap_len = r.u32("compression mmap_len")?;
            info.compressed = Some((kind, mmap_len));
        }
        28 => {
            let nr = r.u32("cpu pmu caps count")?;
            count(r, u64::from(nr), 8, "cpu pmu caps")?;
            for _ in 0..nr {
                string_in(r, lax, "cap name")?;
                string_in(r, lax, "cap value")?;
            }
        }
        29 => {
            r.u32("clock data version")?;
            r.u32("clockid")?;
            r.u64("wall clock ns")?;
            r.u64("clockid ns")?;
        }
        30 => {
            let nr = r.u32("hybrid pmu count")?;
            count(r, u64::from(nr), 8, "hybrid pmus")?;
            for _ in 0..nr {
                string_in(r, lax, "pmu name")?;
                string_in(r, lax, "pmu cpus")?;
            }
        }
        31 => {
            let nr = r.u32("pmu caps pmu count")?;
            count(r, u64::from(nr), 8, "pmu caps")?;
            for _ in 0..nr {
                let caps = r.u32("pmu caps count")?;
                count(r, u64::from(caps), 8, "pmu caps")?;
                for _ in 0..caps {
                    string_in(r, lax, "cap name")?;
                    string_in(r, lax, "cap value")?;
                }
                string_in(r, lax, "pmu name")?;
            }
        }
        _ => {
            r.skip(r.remaining() as u64, "feature")?;
        }
    }
    Ok(())
}
