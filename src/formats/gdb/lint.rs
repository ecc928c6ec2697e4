//! Semantic checks over the decoded model: relations between definition lines, between the
//! definitions and the frames, and between the status counts and the frames found.

use super::decode::tdesc::TdescInfo;
use super::decode::text::{parse_dec, parse_hex, show};
use super::model::{
    Block, BlockCounts, DescLine, Description, FieldKey, Frame, FramesEnd, ReasonKind, SourceKind,
    TpStats, Tracepoint,
};
use super::rules;
use crate::finding::{Capped, Severity, Sink};
use crate::program::{Insn, Known, Program};
use crate::rule::Rule;
use std::collections::{HashMap, HashSet};
use std::ops::Range;

/// Findings of one rule reported individually by the frame checks; later ones are counted.
const MAX_PER_RULE: u64 = 20;

/// Per-rule caps for findings that can repeat in every frame, in the order the rules first
/// fired.
#[derive(Debug, Default)]
struct Throttle {
    caps: Vec<Capped>,
}

impl Throttle {
    /// Counts one finding of `rule` (in the frame at `span`); true when it is reported.
    fn allow(&mut self, rule: &'static Rule, span: &Range<u64>) -> bool {
        if let Some(c) = self.caps.iter_mut().find(|c| c.rule() == rule) {
            return c.hit(span);
        }
        let mut c = Capped::new(rule, MAX_PER_RULE);
        let reported = c.hit(span);
        self.caps.push(c);
        reported
    }

    fn summarize(&self, sink: &mut Sink, span: Range<u64>) {
        for c in &self.caps {
            c.finish_at(sink, span.clone(), |extra| {
                format!("{extra} more finding(s) of this kind in later frames were not reported one by one")
            });
        }
    }
}

/// Checks relations between definition lines.
pub fn check_description(d: &Description, tdesc: &TdescInfo, sink: &mut Sink) {
    check_register_size(d, tdesc, sink);
    check_status(d, sink);
    check_tsvs(d, sink);
    check_tracepoints(d, tdesc, sink);
}

fn check_register_size(d: &Description, tdesc: &TdescInfo, sink: &mut Sink) {
    let r_lines: Vec<&DescLine> = d
        .lines
        .iter()
        .filter(|l| matches!(l, DescLine::Register { .. }))
        .collect();
    for l in r_lines.iter().skip(1) {
        sink.report(
            &rules::DUPLICATE_REGISTER_SIZE,
            l.span().clone(),
            format!(
                "another R line (there are {}); GDB silently uses the last one",
                r_lines.len()
            ),
        );
    }
    match d.register_sizes.last() {
        None if r_lines.is_empty() => {
            sink.push(
                sink.make(
                    &rules::REGISTER_SIZE_MISSING,
                    d.span.clone(),
                    "the definition section has no R line (register block size)",
                )
                .note("GDB refuses the file: \"No register block size recorded in trace file\""),
            );
        }
        None => {}
        Some((0, span)) => {
            sink.push(
                sink.make(
                    &rules::REGISTER_SIZE_MISSING,
                    span.clone(),
                    "the register block size is 0",
                )
                .note("GDB refuses the file: \"No register block size recorded in trace file\""),
            );
        }
        Some((v, span)) => {
            if *v > 0x10000 {
                sink.report(
                    &rules::REGISTER_SIZE_IMPLAUSIBLE,
                    span.clone(),
                    format!("register block size 0x{v:x} ({v} bytes) is larger than 64 KiB"),
                );
            }
            if let Some(t) = tdesc.register_bytes.filter(|t| t != v) {
                sink.push(
                    sink.make(
                        &rules::REGISTER_SIZE_TDESC_MISMATCH,
                        span.clone(),
                        format!(
                            "R is 0x{v:x} ({v}) bytes but the target description's {} registers take {t} bytes (0x{t:x})",
                            tdesc.registers
                        ),
                    ),
                );
            }
        }
    }
}

fn check_status(d: &Description, sink: &mut Sink) {
    for s in d.statuses.iter().skip(1) {
        sink.report(
            &rules::DUPLICATE_STATUS,
            s.span.clone(),
            format!(
                "another status line (there are {}); GDB silently uses the last one",
                d.statuses.len()
            ),
        );
    }
    let Some(st) = d.status() else {
        sink.push(
            sink.make(&rules::STATUS_MISSING, d.span.clone(), "the definition section has no status line")
                .note("GDB 13.1 warns \"No traceframes present in this file\", tstatus says \"Run/stop status is unknown\", and MI -trace-status aborts GDB (internal error: trace_status_mi: Assertion `ts->running_known' failed)"),
        );
        return;
    };
    if let Some(r) = &st.reason {
        if let Some(tp) = r.tp {
            match r.kind {
                ReasonKind::PassCount | ReasonKind::Error if d.tracepoint(tp).is_none() => {
                    sink.report(
                        &rules::STATUS_STOP_TRACEPOINT,
                        r.tp_span.clone(),
                        format!(
                            "`{}` blames tracepoint {tp}, which no tp line defines",
                            r.kind.name()
                        ),
                    );
                }
                ReasonKind::PassCount | ReasonKind::Error => {}
                _ if tp != 0 => sink.report(
                    &rules::STATUS_STOP_TRACEPOINT,
                    r.tp_span.clone(),
                    format!(
                        "`{}` carries tracepoint number {tp}; only tpasscount and terror name a tracepoint (expected 0)",
                        r.kind.name()
                    ),
                ),
                _ => {}
            }
        }
    }
    if let (Some(true), Some(span)) = (st.running, st.field_span(FieldKey::Stoptime)) {
        sink.report(
            &rules::STATUS_TIMES_INCONSISTENT,
            span,
            "the trace is marked running (status 1) but has a stop time",
        );
    }
    if let (Some(a), Some(b)) = (st.num(FieldKey::Starttime), st.num(FieldKey::Stoptime)) {
        if b < a {
            sink.report(
                &rules::STATUS_TIMES_INCONSISTENT,
                st.field_span(FieldKey::Stoptime).unwrap_or(st.span.clone()),
                format!("stop time 0x{b:x} is before start time 0x{a:x}"),
            );
        }
    }
    let circular = st.num(FieldKey::Circular).is_some_and(|c| c != 0);
    if let (Some(fr), Some(cr)) = (st.num(FieldKey::Tframes), st.num(FieldKey::Tcreated)) {
        let span = st.field_span(FieldKey::Tcreated).unwrap_or(st.span.clone());
        if cr < fr {
            sink.report(
                &rules::TCREATED_INCONSISTENT,
                span,
                format!("tcreated 0x{cr:x} is less than tframes 0x{fr:x}: more frames kept than created"),
            );
        } else if cr > fr && !circular {
            sink.report(
                &rules::TCREATED_INCONSISTENT,
                span,
                format!("tcreated 0x{cr:x} is more than tframes 0x{fr:x} but the buffer is not circular (no circular:1): frames were lost"),
            );
        }
    }
    if let (Some(free), Some(size)) = (st.num(FieldKey::Tfree), st.num(FieldKey::Tsize)) {
        if free > size {
            sink.report(
                &rules::BUFFER_USAGE_INCONSISTENT,
                st.field_span(FieldKey::Tfree).unwrap_or(st.span.clone()),
                format!("tfree 0x{free:x} is larger than tsize 0x{size:x}"),
            );
        }
    }
}

fn valid_tsv_name(n: &[u8]) -> Result<(), &'static str> {
    if n.is_empty() {
        return Err("is empty (GDB creates a variable named `$`)");
    }
    if n.iter().all(u8::is_ascii_digit) {
        return Err("is all digits (it would read as a value history reference)");
    }
    if !n.iter().all(|&b| b.is_ascii_alphanumeric() || b == b'_') {
        return Err("has characters other than letters, digits and `_`");
    }
    Ok(())
}

fn check_tsvs(d: &Description, sink: &mut Sink) {
    let mut by_num: HashMap<u64, usize> = HashMap::new();
    let mut by_name: HashMap<&[u8], usize> = HashMap::new();
    for (i, t) in d.tsvs.iter().enumerate() {
        let first_num = *by_num.entry(t.num).or_insert(i);
        let first_name = *by_name.entry(t.name.as_slice()).or_insert(i);
        let same = |o: &super::model::Tsv| {
            (o.num, o.initial, o.builtin, &o.name) == (t.num, t.initial, t.builtin, &t.name)
        };
        if let Some(o) = d.tsvs.get(first_num).filter(|o| first_num != i && same(o)) {
            // tracepoint.c get_uploaded_tsv (GDB 7.2–15) keeps one variable per number: the
            // same definition twice is one variable.
            sink.push(
                sink.make(
                    &rules::DUPLICATE_TSV,
                    t.span.clone(),
                    format!(
                        "trace state variable {} (`${}`) is defined again, the same, at 0x{:x}; GDB 13 keeps one variable per number and reads the file the same",
                        t.num,
                        show(&t.name),
                        o.span.start
                    ),
                )
                .read_same("GDB", "13"),
            );
        } else if let Some(o) = d.tsvs.get(first_num).filter(|_| first_num != i) {
            sink.report(
                &rules::DUPLICATE_TSV,
                t.span.clone(),
                format!(
                    "trace state variable number {} is already defined (as `${}`) at 0x{:x}; GDB overwrites it",
                    t.num,
                    show(&o.name),
                    o.span.start
                ),
            );
        } else if let Some(o) = d
            .tsvs
            .get(first_name)
            .filter(|_| first_name != i && !t.name.is_empty())
        {
            sink.report(
                &rules::DUPLICATE_TSV,
                t.name_span.clone(),
                format!(
                    "trace state variable name `${}` is already used by number {}",
                    show(&t.name),
                    o.num
                ),
            );
        }
        if let Err(why) = valid_tsv_name(&t.name) {
            sink.report(
                &rules::TSV_INVALID_NAME,
                if t.name_span.is_empty() {
                    t.span.clone()
                } else {
                    t.name_span.clone()
                },
                format!(
                    "trace state variable {} name `{}` {why}",
                    t.num,
                    show(&t.name)
                ),
            );
        }
    }
}

/// Names that are not trace state variables but valid in collect/teval expressions.
fn special_name(name: &str) -> bool {
    matches!(name, "regs" | "args" | "locals" | "pc" | "sp" | "fp" | "ps")
        || name.starts_with('_')
        || name.bytes().all(|b| b.is_ascii_digit())
}

fn check_tracepoints(d: &Description, tdesc: &TdescInfo, sink: &mut Sink) {
    let mut by_num: HashMap<u64, usize> = HashMap::new();
    let names = Names {
        tsvs: d.tsvs.iter().map(|v| v.name.as_slice()).collect(),
        regs: tdesc.register_names.iter().map(String::as_str).collect(),
    };
    for (i, t) in d.tracepoints.iter().enumerate() {
        let first = *by_num.entry(t.num).or_insert(i);
        if let Some(o) = d.tracepoints.get(first).filter(|_| first != i) {
            // tracepoint.c get_uploaded_tp (GDB 7.2–15) merges lines of the same number and
            // address; lines of the same number at other addresses are the locations of one
            // tracepoint, as `tsave` writes them for a name that matches several places.
            let f = if o.addr == t.addr {
                sink.make(
                    &rules::DUPLICATE_TRACEPOINT,
                    t.span.clone(),
                    format!(
                        "tracepoint number {} is already defined at the same address 0x{:x}; GDB 13 merges both lines into one tracepoint and reads every frame the same",
                        t.num, o.addr
                    ),
                )
                .read_same("GDB", "13")
            } else if (o.fast.is_some(), o.is_static) != (t.fast.is_some(), t.is_static) {
                let kind = |x: &Tracepoint| match (x.fast.is_some(), x.is_static) {
                    (true, _) => "fast",
                    (false, true) => "static",
                    (false, false) => "normal",
                };
                sink.make(
                    &rules::DUPLICATE_TRACEPOINT,
                    t.span.clone(),
                    format!(
                        "tracepoint number {} is a {} tracepoint here but a {} one at its other location 0x{:x}: `tsave` writes the locations of one tracepoint with its one type, so a flag is damaged; GDB 13 no longer takes the lines for one tracepoint and creates another for each type (`corpus/gdb/twoloc.tf` with `:S` on one location: three tracepoints for the recording's two), so the tracepoints it shows are not the recording's",
                        t.num,
                        kind(t),
                        kind(o),
                        o.addr
                    ),
                )
                .fails("GDB", "13", "loss")
            } else {
                sink.make(
                    &rules::DUPLICATE_TRACEPOINT,
                    t.span.clone(),
                    format!(
                        "tracepoint number {} is also defined at address 0x{:x}: GDB's `tsave` writes one `tp T` line per location of a tracepoint set on a name that matches several places; GDB 13 recreates the tracepoint's locations (those that resolve to one place in the program as one tracepoint) and reads every frame",
                        t.num, o.addr
                    ),
                )
                .level(Severity::Info)
                .impact("GDB", "13", "same")
            };
            sink.push(f);
        }
        if t.num == 0 || t.num > 0x7fff {
            sink.report(
                &rules::TRACEPOINT_NUMBER_RANGE,
                t.num_span.clone(),
                format!(
                    "tracepoint number {} is outside 1..=32767; frames store it as a signed 16-bit value where 0 ends the frames",
                    t.num
                ),
            );
        }
        if !t.sources.iter().any(|s| s.kind == SourceKind::At) {
            // tracepoint.c create_tracepoint_from_upload (GDB 7.2–15): without an `at` string
            // GDB warns and creates the tracepoint at `*ADDR`, an expression it cannot parse
            // before the program's symbols are loaded: `target tfile` then fails with "No
            // symbol table is loaded".
            let f = sink
                .make(
                    &rules::TP_SOURCE_INCONSISTENT,
                    t.span.clone(),
                    format!(
                        "tracepoint {} has no `at` source line: GDB 13 falls back to `*0x{:x}`; without the program's symbols loaded `target tfile` fails with \"No symbol table is loaded\" (with them it warns \"Uploaded tracepoint {} has no source location, using raw address\" and reads the frames the same)",
                        t.num, t.addr, t.num
                    ),
                )
                .fails("GDB", "13", "reject");
            sink.push(f);
        }
        at_control_byte(t, sink);
        for kind in [SourceKind::At, SourceKind::Cond] {
            for s in t.sources.iter().filter(|s| s.kind == kind).skip(1) {
                sink.report(
                    &rules::TP_SOURCE_INCONSISTENT,
                    s.span.clone(),
                    format!(
                        "tracepoint {} has more than one `{}` source line",
                        t.num,
                        if kind == SourceKind::At { "at" } else { "cond" }
                    ),
                );
            }
        }
        for v in t.stats.iter().skip(1) {
            sink.report(
                &rules::DUPLICATE_TP_STATUS,
                v.span.clone(),
                format!(
                    "tracepoint {} has another V line; GDB keeps the last counts",
                    t.num
                ),
            );
        }
        let unlinked: Vec<u64> = d
            .tracepoints
            .iter()
            .take(i.saturating_add(1))
            .rev()
            .map(|x| x.num)
            .collect();
        check_commands(t, &unlinked, &names, sink);
    }
}

/// A control byte in the `at` location GDB re-creates tracepoint `t` from (the last `at` line,
/// `parse_tracepoint_definition`): no location a user types or GDB writes holds one, so no
/// symbol or file of the program matches it. A name the program lacks is only told by the
/// program; a control byte is told by the file.
fn at_control_byte(t: &super::model::Tracepoint, sink: &mut Sink) {
    let Some(s) = t.sources.iter().rev().find(|s| s.kind == SourceKind::At) else {
        return;
    };
    let Some(i) = s.text.iter().position(|&b| b < 0x20 || b == 0x7f) else {
        return;
    };
    let f = sink
        .make(
            &rules::TP_SOURCE_INCONSISTENT,
            s.span.clone(),
            format!(
                "the `at` location `{}` of tracepoint {} holds the control byte 0x{:02x} at position {i}: no location GDB writes holds one; with the program loaded GDB 13 cannot resolve it (\"Function … not defined\", \"Failed to create tracepoint for target's tracepoint {}\"), creates no tracepoint and `tdump` fails",
                show(&s.text),
                t.num,
                s.text.get(i).copied().unwrap_or(0),
                t.num
            ),
        )
        .fails("GDB", "13", "loss");
    sink.push(f);
}

/// Names `$name` may refer to in tracepoint commands.
struct Names<'a> {
    tsvs: HashSet<&'a [u8]>,
    regs: HashSet<&'a str>,
}

/// What GDB 13.1 does when it rejects a tracepoint's command lines while opening the file:
/// `merge_uploaded_tracepoints` stops at the error. `list`: the tracepoints left unlinked.
fn rejected_note(t: &super::model::Tracepoint, list: &str) -> String {
    format!(
        "GDB 13.1 stops creating tracepoints at this error when it opens the file (`target tfile` \
         itself succeeds): tracepoint {} gets no actions, and it and the tracepoints GDB would create \
         after it (those defined earlier in the file) are not linked to their frames: tracepoint(s) \
         {list}; `tdump` on their frames fails with \"No known tracepoint matches 'current' \
         tracepoint #N\"",
        t.num
    )
}

fn check_commands(
    t: &super::model::Tracepoint,
    unlinked: &[u64],
    names: &Names<'_>,
    sink: &mut Sink,
) {
    let mut depth = 0u32;
    let mut last = None;
    let mut cut = false;
    let list = unlinked
        .iter()
        .map(u64::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    // GDB reports the first error of a tracepoint's list and stops there.
    let mut reject = |sink: &mut Sink, span: Range<u64>, message: String, gdb_says: &str| {
        if cut {
            return;
        }
        cut = true;
        let message = format!(
            "{message}; GDB 13.1 rejects it when it opens the file, and `tdump` then fails on the frames of tracepoint(s) {list}"
        );
        sink.push(
            sink.make(&rules::TP_COMMAND_INVALID, span, message)
                .note(format!("GDB 13.1 says: {gdb_says}"))
                .note(rejected_note(t, &list)),
        );
    };
    let mut ended = false;
    for s in t.sources.iter().filter(|s| s.kind == SourceKind::Cmd) {
        last = Some(s.span.clone());
        let text = String::from_utf8_lossy(&s.text);
        let text = text.trim();
        let word_end = text
            .find(|c: char| c.is_whitespace() || c == '/')
            .unwrap_or(text.len());
        let word = text.get(..word_end).unwrap_or("");
        let modifier = text
            .get(word_end..)
            .and_then(|r| r.strip_prefix('/'))
            .map(|r| r.split(|c: char| c.is_whitespace()).next().unwrap_or(""));
        let is = |full: &str| {
            !word.is_empty() && (word == full || (word.len() >= 3 && full.starts_with(word)))
        };
        if ended {
            // GDB stopped reading this list at a top-level `end`.
            continue;
        }
        if word == "end" {
            if depth == 0 {
                ended = true;
                let more = t
                    .sources
                    .iter()
                    .filter(|x| x.kind == SourceKind::Cmd && x.span.start > s.span.start)
                    .count();
                sink.report(
                    &rules::TP_COMMAND_LIST_UNBALANCED,
                    s.span.clone(),
                    format!(
                        "tracepoint {}: `end` closes no while-stepping; GDB 13.1 ends the action list here and drops the {more} command line(s) after it, so `tdump` does not show what they collected",
                        t.num
                    ),
                );
            } else {
                depth = depth.saturating_sub(1);
            }
            continue;
        }
        if is("while-stepping") || word == "ws" || word == "stepping" {
            if depth > 0 {
                reject(
                    sink,
                    s.span.clone(),
                    format!("tracepoint {}: while-stepping inside while-stepping", t.num),
                    "The 'while-stepping' command cannot be nested",
                );
            }
            depth = depth.saturating_add(1);
            continue;
        }
        if !(is("collect") || is("teval")) {
            reject(
                sink,
                s.span.clone(),
                format!(
                    "tracepoint {}: `{text}` is not a tracepoint action (collect, teval, while-stepping, end)",
                    t.num
                ),
                &format!("`{word}' is not a tracepoint action, or is ambiguous."),
            );
            continue;
        }
        if modifier.is_some_and(|m| m.contains('s')) {
            reject(
                sink,
                s.span.clone(),
                format!("tracepoint {}: `{text}` uses collect/s", t.num),
                "Target does not support \"/s\" option for string tracing.",
            );
        }
        // Only `teval` is checked: `collect` may name pseudo-registers (`$eax`, `$ymm0`) that a
        // target description does not list.
        if names.regs.is_empty() || !is("teval") {
            continue;
        }
        let bytes = text.as_bytes();
        let mut i = 0usize;
        while let Some(p) = bytes
            .get(i..)
            .and_then(|r| r.iter().position(|&b| b == b'$'))
        {
            let start = i.saturating_add(p).saturating_add(1);
            let len = bytes
                .get(start..)
                .unwrap_or(&[])
                .iter()
                .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
                .count();
            let name = text.get(start..start.saturating_add(len)).unwrap_or("");
            i = start.saturating_add(len);
            if name.is_empty() || special_name(name) {
                continue;
            }
            let rest = text
                .get(start.saturating_add(len)..)
                .unwrap_or("")
                .trim_start();
            let assigned = rest.starts_with('=') && !rest.starts_with("==");
            let is_tsv = names.tsvs.contains(name.as_bytes());
            let is_reg = names.regs.contains(name);
            if !is_tsv && !is_reg {
                reject(
                    sink,
                    s.span.clone(),
                    format!(
                        "tracepoint {}: `${name}` in `{text}` is neither a trace state variable nor a register of the target description",
                        t.num
                    ),
                    &if assigned {
                        format!("${name} is not a trace state variable, may not assign to it")
                    } else {
                        format!("${name} is not a trace state variable; GDB agent expressions cannot use convenience variables.")
                    },
                );
            }
        }
    }
    if let (true, Some(span)) = (depth > 0, last) {
        sink.report(
            &rules::TP_COMMAND_LIST_UNBALANCED,
            span,
            format!(
                "tracepoint {}: while-stepping is not closed by `end`; GDB 13.1 closes it at the end of the list",
                t.num
            ),
        );
    }
}

/// Per-tracepoint totals of the frames.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TpFrames {
    /// Frames.
    pub frames: u64,
    /// Data bytes (headers excluded).
    pub bytes: u64,
}

/// Checks frames one by one and keeps the totals the final checks need.
#[derive(Debug)]
pub struct FrameLint {
    defined: HashSet<u64>,
    /// The file's tracepoint numbers in the order GDB 13 creates its own tracepoints for them
    /// (numbered from 1): `get_uploaded_tp` puts each new one first, so the reverse of the
    /// order of the lines (a number at several addresses is one tracepoint).
    created: Vec<u64>,
    tsvs: HashSet<u64>,
    /// Per tracepoint number.
    pub per_tp: HashMap<i16, TpFrames>,
    /// All blocks.
    pub counts: BlockCounts,
    /// Frames seen.
    pub frames: u64,
    /// Σ (6 + size).
    pub bytes: u64,
    /// Frames whose blocks did not tile.
    pub untiled: u64,
    throttle: Throttle,
    ranges: Vec<(u64, u64, usize)>,
}

impl FrameLint {
    /// A checker for the frames of `d`.
    pub fn new(d: &Description) -> Self {
        FrameLint {
            defined: d.tracepoints.iter().map(|t| t.num).collect(),
            created: {
                let mut order: Vec<(u64, u64)> = Vec::new();
                for t in &d.tracepoints {
                    if !order.contains(&(t.num, t.addr)) {
                        order.push((t.num, t.addr));
                    }
                }
                // Several locations of one number are one tracepoint of GDB's.
                let mut nums: Vec<u64> = Vec::new();
                for &(n, _) in order.iter().rev() {
                    if !nums.contains(&n) {
                        nums.push(n);
                    }
                }
                nums
            },
            tsvs: d.tsvs.iter().map(|t| t.num).collect(),
            per_tp: HashMap::new(),
            counts: BlockCounts::default(),
            frames: 0,
            bytes: 0,
            untiled: 0,
            throttle: Throttle::default(),
            ranges: Vec::new(),
        }
    }

    /// Checks one frame.
    pub fn frame(&mut self, f: &Frame, sink: &mut Sink) {
        self.frames = self.frames.saturating_add(1);
        self.bytes = self
            .bytes
            .saturating_add(6)
            .saturating_add(u64::from(f.size));
        self.counts.merge(&f.counts);
        if !f.tiled {
            self.untiled = self.untiled.saturating_add(1);
        }
        let e = self.per_tp.entry(f.tpnum).or_default();
        e.frames = e.frames.saturating_add(1);
        e.bytes = e.bytes.saturating_add(u64::from(f.size));
        let head = f.span.start..f.span.start.saturating_add(2);
        if f.tpnum < 0 {
            if self
                .throttle
                .allow(&rules::FRAME_TRACEPOINT_INVALID, &f.span)
            {
                sink.report(
                    &rules::FRAME_TRACEPOINT_INVALID,
                    head,
                    if f.tpnum == -1 {
                        format!(
                            "frame {} has tracepoint number -1; GDB 13.1 finds it (\"Found trace frame {}, tracepoint -1\") and then treats it as no frame (tdump: \"No current trace frame.\")",
                            f.index, f.index
                        )
                    } else {
                        format!(
                            "frame {} has tracepoint number {}; GDB 13.1 finds it but tdump fails with \"No known tracepoint matches 'current' tracepoint #{}.\"",
                            f.index, f.tpnum, f.tpnum
                        )
                    },
                );
            }
        } else if !self.defined.contains(&u64::from(f.tpnum.unsigned_abs()))
            && self
                .throttle
                .allow(&rules::FRAME_TRACEPOINT_UNDEFINED, &f.span)
        {
            // GDB numbers the tracepoints it creates from the file from 1: in a file of one
            // tracepoint (number N, perhaps at several locations), a frame of number 1 is shown
            // as GDB's tracepoint 1, the one it made for N, exactly as N's own frames are.
            // GDB 13 shows a frame of a number no tracepoint has on the target as its own
            // tracepoint of that number (tracepoint.c `tfind_1`: `set_tracepoint_num (tp ?
            // tp->number : target_tracept)`), and `tdump` dumps it as that one's.
            let own = usize::try_from(f.tpnum)
                .ok()
                .and_then(|n| n.checked_sub(1))
                .and_then(|i| self.created.get(i).copied());
            if let Some(n) = own {
                let f = sink
                    .make(
                        &rules::FRAME_TRACEPOINT_UNDEFINED,
                        head,
                        format!(
                            "frame {} belongs to tracepoint {}, which no `tp T` line defines; GDB 13.1 numbers the tracepoints it creates from 1 (the file's last-defined first) and shows this frame as its tracepoint {}, the one it made for the file's tracepoint {n}, as it shows that one's frames (`tdump` works)",
                            f.index, f.tpnum, f.tpnum
                        ),
                    )
                    .read_same("GDB", "13");
                sink.push(f);
            } else {
                sink.report(
                    &rules::FRAME_TRACEPOINT_UNDEFINED,
                    head,
                    format!(
                        "frame {} belongs to tracepoint {}, which no `tp T` line defines; GDB 13.1 finds the frame (`tfind`), and `tdump` fails with \"No known tracepoint matches 'current' tracepoint #{}\" or, where GDB's own numbering of the file's tracepoints (from 1, in the order it creates them) gives {} to another tracepoint, shows the frame as that one's{}",
                        f.index,
                        f.tpnum,
                        f.tpnum,
                        f.tpnum,
                        if f.blocks.iter().any(|b| matches!(b, Block::Registers { .. })) {
                            ""
                        } else {
                            ", and without an R block it has no PC for the frame"
                        }
                    ),
                );
            }
        }
        let mut regs = 0u32;
        self.ranges.clear();
        for (i, b) in f.blocks.iter().enumerate() {
            match b {
                Block::Registers { span } => {
                    regs = regs.saturating_add(1);
                    if regs == 2
                        && self
                            .throttle
                            .allow(&rules::DUPLICATE_REGISTER_BLOCK, &f.span)
                    {
                        sink.report(
                            &rules::DUPLICATE_REGISTER_BLOCK,
                            span.clone(),
                            format!("frame {} has a second R block; GDB uses the first", f.index),
                        );
                    }
                }
                Block::Memory { span, addr, len } => {
                    if *len == 0 {
                        if self.throttle.allow(&rules::EMPTY_MEMORY_BLOCK, &f.span) {
                            sink.report(
                                &rules::EMPTY_MEMORY_BLOCK,
                                span.clone(),
                                format!(
                                    "frame {}: M block at address 0x{addr:x} has length 0",
                                    f.index
                                ),
                            );
                        }
                        continue;
                    }
                    match addr.checked_add(u64::from(*len)) {
                        Some(end) => self.ranges.push((*addr, end, i)),
                        None => {
                            if self
                                .throttle
                                .allow(&rules::MEMORY_BLOCK_ADDRESS_OVERFLOW, &f.span)
                            {
                                sink.report(
                                    &rules::MEMORY_BLOCK_ADDRESS_OVERFLOW,
                                    span.clone(),
                                    format!(
                                        "frame {}: M block at 0x{addr:x} of {len} bytes wraps past the top of the address space",
                                        f.index
                                    ),
                                );
                            }
                        }
                    }
                }
                Block::Tsv { span, num, .. } => {
                    let defined = u64::try_from(*num).is_ok_and(|n| self.tsvs.contains(&n));
                    if !defined && self.throttle.allow(&rules::UNDEFINED_TSV_BLOCK, &f.span) {
                        sink.report(
                            &rules::UNDEFINED_TSV_BLOCK,
                            span.clone(),
                            format!(
                                "frame {}: V block for trace state variable {num}, which no tsv line defines",
                                f.index
                            ),
                        );
                    }
                }
                Block::Static { span, len } => {
                    if self.throttle.allow(&rules::UNKNOWN_BLOCK_TYPE, &f.span) {
                        sink.push(
                            sink.make(
                                &rules::UNKNOWN_BLOCK_TYPE,
                                span.start..span.start.saturating_add(1),
                                format!(
                                    "frame {}: S block ({len} bytes of static tracepoint data); GDB's reader rejects it (\"Unknown block type 'S'\")",
                                    f.index
                                ),
                            )
                            .note("S blocks hold gdbserver UST static tracepoint data"),
                        );
                    }
                }
            }
        }
        if self.ranges.len() > 1 {
            self.ranges.sort_unstable();
            let mut reported = false;
            for w in self.ranges.windows(2) {
                if let [(a0, a1, ia), (b0, _, ib)] = w {
                    if b0 < a1 && !reported {
                        reported = true;
                        if self
                            .throttle
                            .allow(&rules::OVERLAPPING_MEMORY_BLOCKS, &f.span)
                        {
                            let span = f
                                .blocks
                                .get((*ia).max(*ib))
                                .map(|b| b.span().clone())
                                .unwrap_or(f.span.clone());
                            sink.report(
                                &rules::OVERLAPPING_MEMORY_BLOCKS,
                                span,
                                format!(
                                    "frame {}: M blocks 0x{a0:x}..0x{a1:x} and 0x{b0:x}.. overlap; GDB shows the first one's bytes (gdbserver, verified with 13.1, writes such blocks when an action list collects the same memory twice)",
                                    f.index
                                ),
                            );
                        }
                    }
                }
            }
        }
    }

    /// Reports the counts of findings that were not reported one by one.
    pub fn summarize(&self, sink: &mut Sink, span: Range<u64>) {
        self.throttle.summarize(sink, span);
    }
}

/// What the frame walk found, for the final checks.
#[derive(Debug)]
pub struct WalkResult<'a> {
    /// Per-frame checker with totals.
    pub lint: &'a FrameLint,
    /// How the walk ended.
    pub end: &'a FramesEnd,
    /// Whether any structural error was found in the frames.
    pub had_errors: bool,
    /// Fast tracepoint numbers.
    pub fast: &'a [i16],
    /// Span of the frame section.
    pub frames_span: Range<u64>,
    /// File length.
    pub file_len: u64,
}

/// Cross-checks the status and tp V counts against the frames found.
pub fn check_totals(d: &Description, w: &WalkResult<'_>, sink: &mut Sink) {
    let lint = w.lint;
    let complete = matches!(w.end, FramesEnd::Marker { .. });
    let st = d.status();
    let circular = st
        .and_then(|s| s.num(FieldKey::Circular))
        .is_some_and(|c| c != 0);
    let tframes = st.and_then(|s| s.num(FieldKey::Tframes));
    let wrapped = circular
        && match (tframes, st.and_then(|s| s.num(FieldKey::Tcreated))) {
            (Some(f), Some(c)) => c > f,
            _ => false,
        };
    if let Some(st) = st {
        match tframes {
            Some(n) if n != lint.frames => sink.report(
                &rules::TFRAMES_MISMATCH,
                st.field_span(FieldKey::Tframes).unwrap_or(st.span.clone()),
                format!(
                    "status says tframes:{n:x} ({n} frames) but {} frame(s) {}",
                    lint.frames,
                    if complete {
                        "are present"
                    } else {
                        "were found before the walk stopped"
                    }
                ),
            ),
            None if lint.frames > 0 => sink.push(
                sink.make(
                    &rules::TFRAMES_MISMATCH,
                    st.span.clone(),
                    format!(
                        "the status has no tframes field but {} frame(s) are present",
                        lint.frames
                    ),
                )
                .note("GDB warns \"No traceframes present in this file\""),
            ),
            _ => {}
        }
    }
    let mut usage_ok = true;
    if let Some(st) = st {
        if let (Some(free), Some(size), true) =
            (st.num(FieldKey::Tfree), st.num(FieldKey::Tsize), complete)
        {
            if let Some(used) = size.checked_sub(free) {
                if used != lint.bytes {
                    usage_ok = false;
                    sink.report(
                        &rules::BUFFER_USAGE_INCONSISTENT,
                        st.field_span(FieldKey::Tfree).unwrap_or(st.span.clone()),
                        format!(
                            "tsize - tfree = 0x{size:x} - 0x{free:x} = {used} bytes used, but the frames take {} bytes (with their 6-byte headers)",
                            lint.bytes
                        ),
                    );
                }
            }
        }
    }
    let trailing_garbage = matches!(
        w.end,
        FramesEnd::Marker {
            tail_zero: false,
            ..
        }
    );
    if wrapped {
        let st_span = st.map(|s| s.span.clone()).unwrap_or(d.span.clone());
        let (fr, cr) = (
            tframes.unwrap_or(0),
            st.and_then(|s| s.num(FieldKey::Tcreated)).unwrap_or(0),
        );
        let lost = w.had_errors || tframes != Some(lint.frames);
        if lost || !usage_ok || trailing_garbage {
            // GDB 13 walks every frame the status counts, each whole: the buffer usage or
            // the bytes after the end marker disagree, but nothing is lost.
            let level = |f: crate::finding::Finding| {
                if lost {
                    f
                } else {
                    f.note(format!("GDB 13 walks all {} frames the status counts, each whole, and never reads past the end marker: it reads the file the same (campaign: the bytes after the end marker or a last frame's size changed)", lint.frames))
                        .read_same("GDB", "13")
                }
            };
            sink.push(level(
                sink.make(
                    &rules::CORRUPT_CIRCULAR_IMAGE,
                    st_span,
                    format!(
                        "the circular buffer wrapped ({cr} frames created, {fr} kept) and its saved image is inconsistent"
                    ),
                )
                .note(format!("{}; gdbserver (verified with 13.1) adds the wrap offset only at the start of each qTBuffer request, so a wrapped buffer is saved as garbage; GDB 13.1 walks the first frames and then fails with \"Unknown block type\" or stops early; the frame findings of this file follow from that", d.writer_hint().describe()))
                .help("save wrapped circular traces with a gdbserver that handles the wrap, or use a linear buffer"),
            ));
        } else {
            sink.report(
                &rules::CIRCULAR_BUFFER_WRAPPED,
                st_span,
                format!(
                    "the circular buffer wrapped: {cr} frames were created, the oldest {} were discarded and {fr} kept",
                    cr.saturating_sub(fr)
                ),
            );
        }
    }
    // tp V counts against the frames.
    if complete && !wrapped && !w.had_errors {
        check_tp_counts(d, w, sink);
    }
    check_end_marker_tail(w, tframes, sink);
}

/// The `tp V` hit and usage counts of every tracepoint against its frames (for a complete
/// walk of a buffer that did not wrap): usage in hex, or decimal digits gdbserver wrote into
/// the hex fields, and no more frames than hits.
fn check_tp_counts(d: &Description, w: &WalkResult<'_>, sink: &mut Sink) {
    let lint = w.lint;
    for (i, t) in d.tracepoints.iter().enumerate() {
        let Some(v) = t.stats.last() else { continue };
        // A tracepoint on a name that matches several places: `tsave` writes one `T` and one
        // `V` line per location, all with its number, and the frames of every location carry
        // it. The counts of the locations add up to the frames; they are compared once, at
        // the first location.
        let locations: Vec<&Tracepoint> = d
            .tracepoints
            .iter()
            .filter(|o| o.num == t.num && o.addr != t.addr)
            .collect();
        if d.tracepoints
            .iter()
            .take(i)
            .any(|o| o.num == t.num && o.addr != t.addr)
        {
            continue;
        }
        let mut counts = Counts::of(v);
        for o in &locations {
            match o.stats.last() {
                Some(ov) => counts.add(&Counts::of(ov)),
                None => counts = Counts::default(),
            }
        }
        let several = if locations.is_empty() {
            String::new()
        } else {
            format!(
                " (summed over its {} locations)",
                locations.len().saturating_add(1)
            )
        };
        let tp16 = i16::try_from(t.num).ok();
        let got = tp16
            .and_then(|n| lint.per_tp.get(&n).copied())
            .unwrap_or_default();
        let decimal = if counts.usage_hex == Some(got.bytes) {
            false
        } else if counts.usage_dec == Some(got.bytes) {
            sink.push(
                sink.make(
                    &rules::DECIMAL_TP_STATUS_COUNTS,
                    v.counts_span.clone(),
                    format!(
                        "tracepoint {} counts `{}`{several} are decimal digits in hex fields: the usage matches the {} bytes of its {} frame(s) only when read as decimal",
                        t.num,
                        if locations.is_empty() {
                            format!("{}:{}", show(&v.hits), show(&v.usage))
                        } else {
                            format!(
                                "{}:{}",
                                counts.hits_dec.map_or("?".into(), |n| n.to_string()),
                                counts.usage_dec.map_or("?".into(), |n| n.to_string())
                            )
                        },
                        got.bytes,
                        got.frames
                    ),
                )
                .note(format!("{}; gdbserver answers qTP in decimal and GDB stores the digits unchanged, so GDB shows wrong hit counts", d.writer_hint().describe())),
            );
            true
        } else {
            sink.report(
                &rules::TP_STATUS_MISMATCH,
                v.counts_span.clone(),
                format!(
                    "tracepoint {} usage `{}`{several} matches neither as hex nor as decimal the {} byte(s) of its {} frame(s)",
                    t.num,
                    show(&v.usage),
                    got.bytes,
                    got.frames
                ),
            );
            continue;
        };
        let hits = if decimal {
            counts.hits_dec
        } else {
            counts.hits_hex
        };
        let fast = t.fast.is_some() || tp16.is_some_and(|n| w.fast.contains(&n));
        // While-stepping frames carry their tracepoint's number and cannot be told apart
        // from hit frames, so only tracepoints without stepping are compared.
        if let (Some(h), false, 0) = (hits, fast, t.step) {
            if got.frames > h {
                sink.report(
                    &rules::TP_STATUS_MISMATCH,
                    v.counts_span.clone(),
                    format!(
                        "tracepoint {} was hit {h} time(s){several} but has {} frames",
                        t.num, got.frames
                    ),
                );
            }
        }
    }
}

/// A `tp V` line's hit and usage counts read as hex and as decimal (`None`: not a number of
/// that base, or a sum that overflowed).
#[derive(Default)]
struct Counts {
    usage_hex: Option<u64>,
    usage_dec: Option<u64>,
    hits_hex: Option<u64>,
    hits_dec: Option<u64>,
}

impl Counts {
    fn of(v: &TpStats) -> Self {
        Counts {
            usage_hex: parse_hex(&v.usage).ok(),
            usage_dec: parse_dec(&v.usage),
            hits_hex: parse_hex(&v.hits).ok(),
            hits_dec: parse_dec(&v.hits),
        }
    }

    fn add(&mut self, o: &Counts) {
        let sum = |a: Option<u64>, b: Option<u64>| a?.checked_add(b?);
        self.usage_hex = sum(self.usage_hex, o.usage_hex);
        self.usage_dec = sum(self.usage_dec, o.usage_dec);
        self.hits_hex = sum(self.hits_hex, o.hits_hex);
        self.hits_dec = sum(self.hits_dec, o.hits_dec);
    }
}

/// What follows the end marker: data (a frame or not) or zero padding of an unusual length.
fn check_end_marker_tail(w: &WalkResult<'_>, tframes: Option<u64>, sink: &mut Sink) {
    if let FramesEnd::Marker {
        span,
        tail,
        tail_zero,
        tail_frame,
    } = w.end
    {
        let tail_span = span.end..w.file_len;
        if !tail_zero {
            let f = if *tail_frame {
                sink.make(
                    &rules::DATA_AFTER_END_MARKER,
                    tail_span,
                    format!(
                        "{tail} byte(s) follow the end marker (tracepoint number 0 at 0x{:x}) and start with a whole frame; GDB 13 stops at the marker and never shows the frames after it",
                        span.start
                    ),
                )
                .fails("GDB", "13", "loss")
            } else {
                sink.make(
                    &rules::DATA_AFTER_END_MARKER,
                    tail_span,
                    format!(
                        "{tail} byte(s) follow the end marker (tracepoint number 0 at 0x{:x}) and not all are zero; they hold no frame, and GDB 13 never reads them",
                        span.start
                    ),
                )
                .read_same("GDB", "13")
            };
            sink.push(f);
        } else if let Some(k) = tframes
            .and_then(|t| t.checked_sub(w.lint.frames))
            .filter(|&k| {
                k > 0
                    && k <= 0x1000
                    && [0, 2, 4]
                        .iter()
                        .any(|pad| *tail == k.saturating_mul(6).saturating_add(*pad))
            })
        {
            // The status counts k frames more than the walk finds, and the zero bytes after
            // the marker are k frame headers of no data plus GDB's padding: the numbers of the
            // last k frames (of a tracepoint that collects nothing) were zeroed.
            sink.push(
                sink.make(
                    &rules::DATA_AFTER_END_MARKER,
                    tail_span,
                    format!(
                        "the status counts {k} frame(s) more than the {} before the end marker, and the {tail} zero byte(s) after it are {k} frame header(s) of no data and the padding: the numbers of the last frames were zeroed; GDB 13 stops at the marker and never shows them",
                        w.lint.frames
                    ),
                )
                .fails("GDB", "13", "loss"),
            );
        } else if !matches!(tail, 0 | 2 | 4) {
            sink.report(
                &rules::END_MARKER_PADDING,
                tail_span,
                format!(
                    "{tail} zero byte(s) follow the end marker; GDB writes 2 (its testsuite 4)"
                ),
            );
        }
    }
}

/// Where GDB 13 re-creates a tracepoint, from its last `at` line
/// (breakpoint.c `create_tracepoint_from_upload`).
enum Location<'a> {
    /// No `at` line (GDB uses `*ADDR`) or `*ADDR`: this address.
    Raw(u64),
    /// A plain function name.
    Function(&'a [u8]),
    /// `FILE:LINE`: the source file's name.
    FileLine(&'a [u8]),
    /// Anything else (`file.c:LINE`, an expression): resolved by GDB through the program's
    /// line table, where it was the `T` line's address when the program was traced.
    Other,
}

fn location(t: &Tracepoint) -> Location<'_> {
    let Some(s) = t.sources.iter().rev().find(|s| s.kind == SourceKind::At) else {
        return Location::Raw(t.addr);
    };
    let text = s.text.as_slice();
    if let Some(expr) = text.strip_prefix(b"*") {
        let expr = expr.trim_ascii();
        let v = match expr
            .strip_prefix(b"0x")
            .or_else(|| expr.strip_prefix(b"0X"))
        {
            Some(h) => parse_hex(h).ok(),
            None => parse_dec(expr),
        };
        if let Some(v) = v {
            return Location::Raw(v);
        }
        return Location::Other;
    }
    let ident = text
        .first()
        .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_')
        && text.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_');
    if ident {
        return Location::Function(text);
    }
    if let Some(colon) = text.iter().rposition(|&c| c == b':') {
        let (file, line) = (
            text.get(..colon).unwrap_or_default(),
            text.get(colon.saturating_add(1)..).unwrap_or_default(),
        );
        let plain = |c: &u8| c.is_ascii_graphic() && *c != b':' && *c != b'*';
        if !file.is_empty()
            && file.iter().all(plain)
            && !line.is_empty()
            && line.iter().all(u8::is_ascii_digit)
        {
            return Location::FileLine(file);
        }
    }
    Location::Other
}

/// The tracepoints checked against the program GDB is given with the file (`--program`):
/// fast tracepoints' instructions, the functions `at` locations name, addresses outside the
/// program, and static tracepoints (which need no program).
pub fn check_program(d: &Description, program: Option<&Program>, sink: &mut Sink) {
    // Names looked up, and how many more may be searched for in `.debug_info` (a scan each).
    let mut known: (HashMap<&[u8], Known>, u32) = (HashMap::new(), DEEP_LOOKUPS);
    for (i, t) in d.tracepoints.iter().enumerate() {
        if t.is_static && t.fast.is_none() {
            // GDB refuses while-stepping on a static tracepoint, so it never writes one.
            let stepping = t.step > 0 || t.step_actions > 0;
            let msg = if stepping {
                format!("tracepoint {} is a static tracepoint (`S`) with while-stepping (step count {}): GDB 13 re-creates its actions, refuses with \"The 'while-stepping' command cannot be used for static tracepoint\" and loses the tracepoint's frames; GDB never creates such a tracepoint, so the flag or the step count is damaged", t.num, t.step)
            } else {
                format!("tracepoint {} is a static tracepoint (`S`): GDB 13 re-creates it as one at its location, warns \"Couldn't determine the static tracepoint marker to probe\" (a trace file has no markers) and reads its frames the same", t.num)
            };
            let f = sink.make(&rules::STATIC_TRACEPOINT, t.span.clone(), msg);
            sink.push(if stepping {
                f.fails("GDB", "13", "loss")
            } else {
                f.impact("GDB", "13", "same")
            });
        }
        let Some(p) = program else {
            if t.fast.is_some() {
                fast_unchecked(t, "no program was given (`--program`)", sink);
            }
            continue;
        };
        let prog = p.path.display();
        if !p.sections.iter().any(|s| s.exec && s.contains(t.addr)) {
            let f = sink
                .make(
                    &rules::TRACEPOINT_OUTSIDE_PROGRAM,
                    t.span.clone(),
                    format!(
                        "the address 0x{:x} of tracepoint {} lies in no executable section of {prog} (a shared library's code, or another program's): GDB 13 re-creates a tracepoint from its `at` location, or at the raw address when it has none, and reads its frames",
                        t.addr, t.num
                    ),
                )
                .impact("GDB", "13", "same");
            sink.push(f);
        }
        // The tracepoints GDB has not created when it stops at this one (it creates them in
        // reverse file order): the first 20 named, the rest counted.
        let unlinked = || {
            let all = i.saturating_add(1);
            let mut list = d
                .tracepoints
                .iter()
                .take(all)
                .rev()
                .take(20)
                .map(|x| x.num.to_string())
                .collect::<Vec<_>>()
                .join(", ");
            if all > 20 {
                list.push_str(&format!(" and {} more", all.saturating_sub(20)));
            }
            list
        };
        let places = match location(t) {
            Location::Raw(a) => vec![a],
            Location::Function(name) => match lookup(&mut known, p, name) {
                Known::No => {
                    let f = sink
                        .make(
                            &rules::TRACEPOINT_FUNCTION_UNKNOWN,
                            t.span.clone(),
                            format!(
                                "the `at` location `{}` of tracepoint {} names a function {prog} does not have (no symbol, no debug information string): with the program loaded GDB 13 prints `Function \"{}\" not defined.` and \"Failed to create tracepoint for target's tracepoint {}\", creates no tracepoint, and `tdump` on its frames fails with \"No known tracepoint matches 'current' tracepoint #{}\"",
                                show(name), t.num, show(name), t.num, t.num
                            ),
                        )
                        .fails("GDB", "13", "loss");
                    sink.push(f);
                    continue;
                }
                Known::Yes | Known::Unknown(_) => {
                    // The places GDB resolves the name to, as the recording wrote them: the
                    // addresses of this tracepoint's `T` lines (one per location) that lie in
                    // a function of that name.
                    let inside = |a: u64| {
                        p.functions_named(name)
                            .any(|f| a >= f.addr && a.wrapping_sub(f.addr) < f.size.max(1))
                    };
                    let mut places: Vec<u64> = d
                        .tracepoints
                        .iter()
                        .filter(|x| x.num == t.num && inside(x.addr))
                        .filter(|x| matches!(location(x), Location::Function(n) if n == name))
                        .map(|x| x.addr)
                        .collect();
                    places.sort_unstable();
                    places.dedup();
                    if places.is_empty() {
                        if t.fast.is_some() {
                            fast_unchecked(
                                t,
                                &format!("its `at` location `{}` does not name a function of {prog} that holds its address 0x{:x}, so the address GDB re-creates it at is not known", show(name), t.addr),
                                sink,
                            );
                        }
                        continue;
                    }
                    places
                }
            },
            Location::FileLine(file) => {
                if p.knows_source_file(file) == Known::No {
                    let f = sink
                        .make(
                            &rules::TRACEPOINT_FUNCTION_UNKNOWN,
                            t.span.clone(),
                            format!(
                                "the `at` location of tracepoint {} names the source file `{}`, which the debug information of {prog} does not: with the program loaded GDB 13 prints `No source file named {}.` and \"Failed to create tracepoint for target's tracepoint {}\", creates no tracepoint, and its frames cannot be dumped",
                                t.num, show(file), show(file), t.num
                            ),
                        )
                        .fails("GDB", "13", "loss");
                    sink.push(f);
                    continue;
                }
                vec![t.addr]
            }
            Location::Other => vec![t.addr],
        };
        if t.fast.is_none() {
            continue;
        }
        // GDB 13 checks the places in turn and stops at the first that fails; other
        // architectures than x86 it does not check (default_fast_tracepoint_valid_at).
        let Some((at, insn)) = places
            .iter()
            .filter_map(|&a| Some((a, p.x86_insn_at(a)?)))
            .find(|(_, i)| !matches!(i, Insn::Len(5..)))
        else {
            continue;
        };
        let lost = unlinked();
        let (level, what) = match insn {
            Insn::Len(n) if n >= 5 => continue,
            Insn::Len(n) => (
                Severity::Error,
                format!(
                    "the instruction at 0x{at:x} in {prog} is only {n} bytes long: GDB 13 re-creating fast tracepoint {} from the file fails with \"May not have a fast tracepoint at 0x{at:x}; instruction is only {n} bytes long, need at least 5 bytes for the jump\"",
                    t.num
                ),
            ),
            Insn::Unreadable => (
                Severity::Error,
                format!(
                    "0x{at:x} lies in no read-only section of {prog} with bytes in the file: GDB 13 cannot read the instruction of fast tracepoint {} (\"Cannot access memory at address 0x{at:x}\")",
                    t.num
                ),
            ),
            Insn::Invalid(n) => (
                Severity::Warning,
                format!(
                    "the bytes at 0x{at:x} in {prog} do not decode as an x86 instruction ({n} byte(s) read): GDB 13 measures the instruction of fast tracepoint {} with its disassembler and asks for at least 5 bytes",
                    t.num
                ),
            ),
        };
        let msg = if level == Severity::Error {
            format!(
                "{what}; `target tfile` stops creating tracepoints there: tracepoint(s) {lost} are not created and `tdump` on their frames fails with \"No known tracepoint matches 'current' tracepoint #N\""
            )
        } else {
            what
        };
        let mut f = sink
            .make(&rules::FAST_TRACEPOINT_TOO_SHORT, t.span.clone(), msg)
            .level(level);
        if level == Severity::Error {
            f = f.fails("GDB", "13", "loss");
        }
        sink.push(f);
    }
}

/// Distinct `at` names of one file searched for in the program's `.debug_info`: a scan of the
/// section each, so a file of many names costs at most this many scans.
const DEEP_LOOKUPS: u32 = 64;

/// Whether the program knows `name`, once per name; the first [`DEEP_LOOKUPS`] names are also
/// searched for in its debug information.
fn lookup<'a>(known: &mut (HashMap<&'a [u8], Known>, u32), p: &Program, name: &'a [u8]) -> Known {
    if let Some(k) = known.0.get(name) {
        return *k;
    }
    let mut k = p.knows(name, false);
    if k == Known::Unknown(crate::program::NOT_SEARCHED) && known.1 > 0 {
        known.1 = known.1.saturating_sub(1);
        k = p.knows(name, true);
    }
    known.0.insert(name, k);
    k
}

/// `GT066`: a fast tracepoint whose instruction was not checked, and why.
fn fast_unchecked(t: &Tracepoint, why: &str, sink: &mut Sink) {
    sink.report(
        &rules::FAST_TRACEPOINT_UNCHECKED,
        t.span.clone(),
        format!(
            "tracepoint {} is a fast tracepoint and {why}: GDB 13 re-creating it from the file checks in the program loaded with it that the instruction at its address is at least 5 bytes long (x86-64, i386) and, when it is not, creates no tracepoint for its frames; `--program PROGRAM` lets tracelint check it",
            t.num
        ),
    );
}
