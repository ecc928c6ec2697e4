//! Repairs of uftrace recordings (`tracelint fix`).
//!
//! * No `info` (the recorder was killed: `uftrace record` writes `info` only at the end, in
//!   `fill_file_header`, after the task files, `task.txt` and the maps): a minimal `info` is
//!   written from what the directory holds. The header's byte order comes from the records'
//!   magic, the ELF class from the map's addresses; the feature bits are the recorder's
//!   defaults (PLTHOOK, TASK_SESSION, SYM_REL_ADDR, MAX_STACK, AUTO_ARGS) plus PERF_EVENT when
//!   a `perf-cpu*.dat` holds data, EVENT when `events.txt` is there and DEBUG_INFO when `.dbg`
//!   files are; the sections are EXE_NAME (the first session's `exename`), CMDLINE (a marker
//!   saying the line is rebuilt) and TASKINFO (the TASK and FORK tids of `task.txt`). Nothing else is
//!   invented. Records carrying arguments or return values cannot be framed without the
//!   argument specs, which were only in `info`: refused, unless `--metadata-from DONOR` names
//!   a healthy recording of the same program with the same options, whose ARG_SPEC (and
//!   PATTERN_TYPE) sections are copied (ledgered as supplied).
//!   A killed recorder also leaves no `.sym` files (written at the end too): they are taken
//!   from `--with-syms DIR`, or the repair refuses naming that option. A `perf-cpu<N>.dat` the
//!   recorder stopped inside a record is cut at that record.
//! * A `<TID>.dat` or `perf-cpu<N>.dat` that ends inside a record: cut at the last whole record
//!   (uftrace drops the tail silently; the repair turns it into a ledgered loss).

use super::decode::info::{feat, HEADER_SIZE, MAGIC};
use super::decode::maps;
use super::decode::record::{record_at, RecordWord, EVENT, RECORD_LEN, RECORD_MAGIC};
use super::decode::task;
use super::model::{classify, FileKind};
use super::rules;
use crate::finding::Sink;
use crate::formats::spec::Subject;
use crate::input::{DirEntry, DirSource, EntryKind};
use crate::ledger::{
    Cut, Edit, FilePlan, Invented, Loss, Plan, Refusal, RepairOptions, Unit, Verdict,
};
use crate::options::CheckOptions;
use crate::reader::{BigEndian, Endian, Endianity, LittleEndian};
use std::io::Read;

/// The `cmdline:` text of a rebuilt `info` (uftrace prints it as the recording's command line).
pub const REBUILT_CMDLINE: &str = "(info rebuilt by tracelint fix; the command line was not saved)";

/// Feature bits every `uftrace record` of 0.9 and later sets unless told otherwise.
const DEFAULT_FEATURES: u64 =
    feat::PLTHOOK | feat::TASK_SESSION | (1 << 5) | feat::MAX_STACK | feat::AUTO_ARGS;
/// info_mask bits: EXE_NAME, CMDLINE, TASKINFO.
const INFO_MASK: u64 = 1 | (1 << 3) | (1 << 7);
/// uftrace's default `max_stack`.
const MAX_STACK: u16 = 1024;
/// Bytes read per step when walking a task file.
const WALK_BYTES: usize = 1 << 20;

/// The repair entry of the format table.
pub fn repair(subject: Subject<'_>, opts: &CheckOptions, ropts: &RepairOptions) -> Verdict {
    let Subject::Dir(dir) = subject else {
        return Verdict::Healthy;
    };
    let entries: Vec<DirEntry> = match dir.list() {
        Ok(e) => e
            .into_iter()
            .filter(|e| e.kind == EntryKind::File)
            .collect(),
        Err(e) => return refuse("the directory cannot be listed", &e.to_string()),
    };
    let has = |n: &str| entries.iter().any(|e| e.name == n);
    if has("info") {
        return cut_tasks(dir, &entries, opts);
    }
    rebuild_info(dir, &entries, opts, ropts)
}

/// What a donor recording (`--metadata-from`) supplies to a rebuilt `info`: its argument-spec
/// feature bits and the bytes of its ARG_SPEC (and PATTERN_TYPE) sections.
struct DonorSpecs {
    features: u64,
    info_mask: u64,
    text: Vec<u8>,
    shown: String,
}

/// info_mask bits a donor's argument specs come in: ARG_SPEC, PATTERN_TYPE.
const SPEC_SECTIONS: [usize; 2] = [10, 12];

fn donor_specs(
    donor: &std::path::Path,
    exename: &str,
    opts: &CheckOptions,
) -> Result<DonorSpecs, String> {
    let shown = donor.display().to_string();
    let path = donor.join("info");
    let data = crate::input::load(
        &path,
        crate::input::LoadMode::Read,
        opts.limits.max_read_bytes,
    )
    .map_err(|e| format!("the donor's info ({}) cannot be read: {e}", path.display()))?;
    let mut sink = Sink::new(opts.limits.max_findings);
    let (info, _) = super::decode::info::decode(&data, &mut sink);
    let h = info
        .header
        .ok_or_else(|| format!("the donor {shown} has no valid info header"))?;
    // The same program: the same file name (it may have been built or installed elsewhere).
    let base = |p: &str| p.rsplit('/').next().unwrap_or(p).to_string();
    if info.exename.as_deref().map(base) != Some(base(exename)) {
        return Err(format!(
            "the donor {shown} recorded {}, not {exename}",
            info.exename.as_deref().unwrap_or("an unknown program")
        ));
    }
    let mut text = Vec::new();
    let mut info_mask = 0u64;
    for bit in SPEC_SECTIONS {
        if let Some((_, span)) = info.sections.iter().find(|(b, _)| *b == bit) {
            let a = usize::try_from(span.start).unwrap_or(usize::MAX);
            let b = usize::try_from(span.end).unwrap_or(usize::MAX);
            let bytes = data.get(a..b).unwrap_or_default();
            text.extend_from_slice(bytes);
            if !bytes.ends_with(b"\n") {
                text.push(b'\n');
            }
            info_mask |= 1 << bit;
        }
    }
    if info_mask & (1 << 10) == 0 {
        return Err(format!(
            "the donor {shown} has no argument specs (ARG_SPEC)"
        ));
    }
    Ok(DonorSpecs {
        features: h.feat_mask & (feat::ARGUMENT | feat::RETVAL | feat::AUTO_ARGS),
        info_mask,
        text,
        shown,
    })
}

fn refuse(damage: &str, reason: &str) -> Verdict {
    Verdict::Refuse(Refusal {
        damage: damage.to_string(),
        reason: reason.to_string(),
        option: None,
    })
}

/// What a walk over one task file found.
#[derive(Default)]
struct Walk {
    records: u64,
    /// Bytes of whole records.
    whole: u64,
    first: Option<u64>,
    last: Option<u64>,
    /// A record with a payload (arguments, return value, event data).
    payload: bool,
    /// Offset of a record whose magic is not 5.
    bad_magic: Option<u64>,
}

/// Walks the 16-byte records of a task file without payloads, in windows.
fn walk<E: Endianity>(e: E, r: &mut dyn Read) -> std::io::Result<Walk> {
    let mut w = Walk::default();
    let mut buf = vec![0u8; WALK_BYTES];
    let mut fill = 0usize;
    loop {
        let n = r.read(buf.get_mut(fill..).unwrap_or_default())?;
        fill = fill.saturating_add(n);
        let mut at = 0usize;
        while let Some((time, word)) = buf.get(at..fill).and_then(|v| record_at(e, v)) {
            if !word.magic_ok() {
                w.bad_magic = Some(w.whole);
                return Ok(w);
            }
            // An event's data says its own length (u16, then the data, to 8 bytes); an
            // argument payload's length is in the argument specs only.
            let len = if !word.more {
                RECORD_LEN
            } else if word.typ == EVENT {
                let Some(n) = buf
                    .get(at..fill)
                    .and_then(|v| crate::reader::u16_at(v, RECORD_LEN, e))
                else {
                    break;
                };
                RECORD_LEN.saturating_add(usize::from(n).saturating_add(2).next_multiple_of(8))
            } else {
                w.payload = true;
                return Ok(w);
            };
            if fill.saturating_sub(at) < len {
                break;
            }
            w.first.get_or_insert(time);
            w.last = Some(time);
            w.records = w.records.saturating_add(1);
            w.whole = w.whole.saturating_add(len as u64);
            at = at.saturating_add(len);
        }
        // Keep the partial record for the next read.
        buf.copy_within(at..fill, 0);
        fill = fill.saturating_sub(at);
        if n == 0 {
            return Ok(w);
        }
    }
}

/// The byte order of the records of a task file, from the first record's magic.
fn record_order(head: &[u8]) -> Option<Endian> {
    let ok = |w: Option<(u64, RecordWord)>| w.is_some_and(|(_, w)| w.magic == RECORD_MAGIC);
    if ok(record_at(LittleEndian, head)) {
        Some(Endian::Little)
    } else if ok(record_at(BigEndian, head)) {
        Some(Endian::Big)
    } else {
        None
    }
}

fn tid_of(name: &str) -> Option<u64> {
    match classify(name) {
        FileKind::Dat(t) => Some(t),
        _ => None,
    }
}

fn cut_loss(name: &str, tid: u64, len: u64, w: &Walk) -> (FilePlan, Loss) {
    let mut f = FilePlan::new(Some(name.to_string()), w.whole);
    let rest = len.saturating_sub(w.whole);
    f.cut = Some(Cut {
        rule: rules::DAT_TRUNCATED.code,
        at: w.whole,
        bytes: rest,
        what: "a partial record at the end".into(),
    });
    let loss = Loss {
        file: Some(name.to_string()),
        buffer: None,
        cpu: None,
        task: Some(tid),
        count: 0,
        unit: Unit::Bytes,
        bytes: rest,
        time: None,
        what: format!(
            "{rest} byte(s) of a record cut short at 0x{:x} (after {} whole record(s){})",
            w.whole,
            w.records,
            match w.last {
                Some(t) => format!(", the last at {}", task::fmt_ts(t)),
                None => String::new(),
            }
        ),
    };
    (f, loss)
}

/// Walks the task files of a recording without `info`: their byte order (`None` when no file
/// holds a record), and a cut of each that ends inside a record; a refusal for what cannot be
/// framed (records with payloads, unless `donor` specs frame them).
fn task_files(
    dir: &dyn DirSource,
    entries: &[DirEntry],
    opts: &CheckOptions,
    damage: &str,
    donor: bool,
    plan: &mut Plan,
) -> Result<Option<Endian>, Verdict> {
    let mut order: Option<Endian> = None;
    for e in entries {
        let Some(tid) = tid_of(&e.name) else { continue };
        let mut r = match dir.open_seq(&e.name, opts.limits.max_file_bytes) {
            Ok(r) => r,
            Err(err) => {
                return Err(refuse(
                    damage,
                    &format!("`{}` cannot be read: {err}", e.name),
                ))
            }
        };
        let mut head = [0u8; RECORD_LEN];
        let got = r.read(&mut head).unwrap_or(0);
        let Some(o) = head.get(..got).and_then(record_order).or(order) else {
            if got == 0 {
                continue;
            }
            return Err(refuse(
                damage,
                &format!(
                    "the first record of `{}` has no valid magic in either byte order",
                    e.name
                ),
            ));
        };
        if order.is_some_and(|x| x != o) {
            return Err(refuse(damage, "the task files disagree on the byte order"));
        }
        order = Some(o);
        let mut chained = head.get(..got).unwrap_or_default().chain(r);
        let w = match o {
            Endian::Little => walk(LittleEndian, &mut chained),
            Endian::Big => walk(BigEndian, &mut chained),
        };
        let w = match w {
            Ok(w) => w,
            Err(err) => {
                return Err(refuse(
                    damage,
                    &format!("`{}` cannot be read: {err}", e.name),
                ))
            }
        };
        if w.payload {
            if donor {
                // Framed by the donor's specs: the check of the output judges the records
                // (a cut one makes the repair fail rather than guess).
                continue;
            }
            return Err(Verdict::Refuse(Refusal {
                damage: damage.into(),
                reason: format!("`{}` holds records with arguments or return values, whose lengths are given only by the argument specs in the lost `info`", e.name),
                option: Some("--metadata-from"),
            }));
        }
        if let Some(at) = w.bad_magic {
            return Err(refuse(
                damage,
                &format!("`{}` has a record with a bad magic at 0x{at:x}", e.name),
            ));
        }
        if w.whole < e.len {
            let (f, loss) = cut_loss(&e.name, tid, e.len, &w);
            plan.mend(rules::DAT_TRUNCATED.code);
            plan.files.push(f);
            plan.losses.push(loss);
        }
    }
    Ok(order)
}

/// The feature and info_mask bits of a rebuilt `info`, with why each feature is there: the
/// recorder's defaults, what the directory's files show, and what a donor's specs need.
fn header_bits(entries: &[DirEntry], donor: Option<&DonorSpecs>) -> (u64, u64, Vec<String>) {
    let mut features = DEFAULT_FEATURES;
    let mut why = vec!["the recorder's default features (PLTHOOK, TASK_SESSION, SYM_REL_ADDR, MAX_STACK, AUTO_ARGS)".to_string()];
    if entries
        .iter()
        .any(|e| matches!(classify(&e.name), FileKind::Perf(_)) && e.len > 0)
    {
        features |= feat::PERF_EVENT;
        why.push("PERF_EVENT: a perf-cpu*.dat holds data".into());
    }
    if entries.iter().any(|e| e.name == "events.txt") {
        features |= 1 << 7;
        why.push("EVENT: events.txt is there".into());
    }
    if entries
        .iter()
        .any(|e| matches!(classify(&e.name), FileKind::Dbg))
    {
        features |= feat::DEBUG_INFO;
        why.push("DEBUG_INFO: .dbg files are there".into());
    }
    let mut info_mask = INFO_MASK;
    if let Some(d) = donor {
        features |= d.features;
        info_mask |= d.info_mask;
        why.push(format!(
            "ARGUMENT/RETVAL/AUTO_ARGS as the donor {} has them",
            d.shown
        ));
    }
    (features, info_mask, why)
}

fn rebuild_info(
    dir: &dyn DirSource,
    entries: &[DirEntry],
    opts: &CheckOptions,
    ropts: &RepairOptions,
) -> Verdict {
    let damage = "uftrace recording without `info` (the recorder did not finish)";
    let max = opts.limits.max_read_bytes;
    if !entries.iter().any(|e| e.name == "task.txt") {
        return refuse(
            damage,
            "`task.txt` is missing too: the tasks and the program are unknown",
        );
    }
    let mut scratch = Sink::new(opts.limits.max_findings);
    let text = match dir.load("task.txt", max) {
        Ok(d) => d,
        Err(e) => return refuse(damage, &format!("`task.txt` cannot be read: {e}")),
    };
    let tf = task::decode(
        &text,
        &opts.limits,
        &super::decode::info::Producer::Unknown,
        &mut scratch,
    );
    let Some(sess) = tf.sessions.first() else {
        return refuse(
            damage,
            "`task.txt` has no SESS line: the program's name is unknown",
        );
    };
    let mut tids: Vec<u64> = tf.tasks.iter().map(|t| t.tid).collect();
    tids.sort_unstable();
    tids.dedup();
    if tids.is_empty() {
        return refuse(damage, "`task.txt` has no TASK line");
    }
    if entries
        .iter()
        .any(|e| matches!(classify(&e.name), FileKind::KernelCpu(_)) || e.name == "kernel_header")
    {
        return refuse(damage, "kernel tracing data (kernel-cpu*.dat) needs header fields this version does not rebuild");
    }
    // The ELF class from the session's map: 64-bit processes map above 4 GiB.
    let map_name = format!("sid-{}.map", sess.sid);
    let map = match dir.load(&map_name, max) {
        Ok(d) => maps::decode(&d, &opts.limits, &mut scratch),
        Err(e) => return refuse(damage, &format!("`{map_name}` cannot be read: {e}")),
    };
    if map.modules.is_empty() {
        return refuse(damage, &format!("`{map_name}` lists no module"));
    }
    let class: u8 = if map.modules.iter().any(|m| m.end > u64::from(u32::MAX)) {
        2
    } else {
        1
    };
    let donor = match &ropts.metadata_from {
        Some(d) => match donor_specs(d, &sess.exename, opts) {
            Ok(s) => Some(s),
            Err(reason) => {
                return Verdict::Refuse(Refusal {
                    damage: damage.into(),
                    reason,
                    option: Some("--metadata-from"),
                })
            }
        },
        None => None,
    };
    let mut plan = Plan::new(damage);
    plan.mend(rules::MISSING_FILE.code);
    if let Err(v) = add_symbol_files(&map, entries, ropts, opts, damage, &mut plan) {
        return v;
    }
    let order = match task_files(dir, entries, opts, damage, donor.is_some(), &mut plan) {
        Ok(o) => o,
        Err(v) => return v,
    };
    let Some(order) = order else {
        return refuse(damage, "no task file holds a record");
    };
    cut_perf_files(dir, entries, order, opts, &mut plan);
    let (features, info_mask, why) = header_bits(entries, donor.as_ref());
    let mut info = Vec::new();
    info.extend_from_slice(MAGIC);
    info.extend_from_slice(&order.u32_bytes(4));
    info.extend_from_slice(&order.u16_bytes(u16::try_from(HEADER_SIZE).unwrap_or(40)));
    info.push(if order == Endian::Little { 1 } else { 2 });
    info.push(class);
    info.extend_from_slice(&order.u64_bytes(features));
    info.extend_from_slice(&order.u64_bytes(info_mask));
    info.extend_from_slice(&order.u16_bytes(MAX_STACK));
    info.extend_from_slice(&[0u8; 6]);
    let tid_list: Vec<String> = tids.iter().map(u64::to_string).collect();
    let text = format!(
        "exename:{}\ncmdline:{REBUILT_CMDLINE}\ntaskinfo:lines=2\ntaskinfo:nr_tid={}\ntaskinfo:tids={}\n",
        sess.exename,
        tids.len(),
        tid_list.join(",")
    );
    info.extend_from_slice(text.as_bytes());
    if let Some(d) = &donor {
        info.extend_from_slice(&d.text);
        plan.invented.push(Invented {
            file: Some("info".into()),
            field: "argument specs".into(),
            value: format!("{} bytes copied from {}", d.text.len(), d.shown),
            why: "given by --metadata-from: the ARG_SPEC (and PATTERN_TYPE) sections of a healthy recording of the same program with the same options".into(),
        });
    }
    let mut f = FilePlan::new(Some("info".into()), 0);
    f.created = true;
    f.edits.push(Edit {
        rule: rules::MISSING_FILE.code,
        offset: 0,
        old: Vec::new(),
        new: info,
        what: format!(
            "a minimal info: {}-endian, ELF class {}, features 0x{features:x}, exename {}, {} task(s)",
            if order == Endian::Little { "little" } else { "big" },
            if class == 2 { 64 } else { 32 },
            sess.exename,
            tids.len()
        ),
    });
    plan.files.push(f);
    let file = Some("info".to_string());
    plan.invented.push(Invented {
        file: file.clone(),
        field: "feat_mask".into(),
        value: format!("0x{features:x}"),
        why: why.join("; "),
    });
    plan.invented.push(Invented {
        file: file.clone(),
        field: "cmdline".into(),
        value: REBUILT_CMDLINE.into(),
        why: "the recorder's command line is not in the directory".into(),
    });
    plan.invented.push(Invented {
        file,
        field: "max_stack".into(),
        value: MAX_STACK.to_string(),
        why: "uftrace's default".into(),
    });
    Verdict::Repair(plan)
}

/// The `.sym` files of the map's modules that the directory lacks (a killed recorder writes
/// them only at its end), copied from `--with-syms DIR`; a refusal naming that option when
/// they are not there.
fn add_symbol_files(
    map: &maps::SessionMap,
    entries: &[DirEntry],
    ropts: &RepairOptions,
    opts: &CheckOptions,
    damage: &str,
    plan: &mut Plan,
) -> Result<(), Verdict> {
    let mut missing: Vec<String> = Vec::new();
    for m in &map.modules {
        let base = maps::basename(&m.path);
        if base.starts_with("libmcount") || base.starts_with("libstdc++") || base.starts_with('[') {
            continue;
        }
        let name = format!("{base}.sym");
        if !entries.iter().any(|e| e.name == name) && !missing.contains(&name) {
            missing.push(name);
        }
    }
    if missing.is_empty() {
        return Ok(());
    }
    let refusal = |reason: String| {
        Verdict::Refuse(Refusal {
            damage: damage.to_string(),
            reason,
            option: Some("--with-syms"),
        })
    };
    let Some(dir) = &ropts.with_syms else {
        return Err(refusal(format!(
            "the recorder stopped before it wrote the symbol files of {} module(s) ({}): uftrace 0.9.4–0.18.1 take names from the ELF files at the recorded paths where they exist and print `<addr>` elsewhere",
            missing.len(),
            missing.join(", ")
        )));
    };
    for name in missing {
        let path = dir.join(&name);
        let data = crate::input::load(
            &path,
            crate::input::LoadMode::Read,
            opts.limits.max_read_bytes,
        )
        .map_err(|e| refusal(format!("{} cannot be read: {e}", path.display())))?;
        let mut f = FilePlan::new(Some(name.clone()), 0);
        f.created = true;
        f.edits.push(Edit {
            rule: rules::MODULE_WITHOUT_SYMBOLS.code,
            offset: 0,
            old: Vec::new(),
            new: data.to_vec(),
            what: format!("the symbols of {name}, copied from {}", dir.display()),
        });
        plan.files.push(f);
        plan.invented.push(Invented {
            file: Some(name),
            field: "symbol file".into(),
            value: path.display().to_string(),
            why: "given by --with-syms: the symbols of the same binary from another recording"
                .into(),
        });
    }
    Ok(())
}

/// A cut at `at` of the perf file `name` (`perf-cpu<N>.dat`) of `len` bytes, whose record
/// there runs past the end: the writer (the recorder's perf reader) was stopped inside it.
fn cut_perf(plan: &mut Plan, name: &str, len: u64, at: u64) {
    let rest = len.saturating_sub(at);
    let mut fp = FilePlan::new(Some(name.to_string()), at);
    fp.cut = Some(Cut {
        rule: rules::PERF_TRUNCATED.code,
        at,
        bytes: rest,
        what: "a perf record cut short".into(),
    });
    plan.mend(rules::PERF_TRUNCATED.code);
    plan.files.push(fp);
    plan.losses.push(Loss {
        file: Some(name.to_string()),
        buffer: None,
        cpu: match classify(name) {
            FileKind::Perf(n) => u32::try_from(n).ok(),
            _ => None,
        },
        task: None,
        count: 1,
        unit: Unit::Records,
        bytes: rest,
        time: None,
        what: format!("a perf record (a task or schedule event) cut short at 0x{at:x}: {rest} byte(s) on disk"),
    });
}

/// The perf files of a recording without `info` that end inside a record, cut there.
fn cut_perf_files(
    dir: &dyn DirSource,
    entries: &[DirEntry],
    order: Endian,
    opts: &CheckOptions,
    plan: &mut Plan,
) {
    for e in entries
        .iter()
        .filter(|e| matches!(classify(&e.name), FileKind::Perf(_)) && e.len > 0)
    {
        let Ok(data) = dir.load(&e.name, opts.limits.max_file_bytes) else {
            continue;
        };
        let mut sink = Sink::new(16);
        super::decode::perf::walk(&data, order, &mut sink);
        if let Some(f) = sink
            .findings()
            .iter()
            .find(|f| f.rule.code == rules::PERF_TRUNCATED.code)
        {
            cut_perf(plan, &e.name, e.len, f.offset);
        }
    }
}

/// With `info` in place: each task file the check finds ending inside a record is cut at the
/// last whole record, and each perf file likewise.
fn cut_tasks(dir: &dyn DirSource, entries: &[DirEntry], opts: &CheckOptions) -> Verdict {
    let mut sink = Sink::new(opts.limits.max_findings);
    let mut root = crate::map::MapNode::new("uftrace data directory", 0, 0);
    super::checks::check_all(dir, entries, &[], opts, &mut sink, &mut root);
    let mut plan = Plan::new("uftrace task or perf file(s) ending inside a record");
    for f in sink.findings() {
        if f.rule.code == rules::PERF_TRUNCATED.code {
            if let Some(e) = f
                .file
                .as_ref()
                .and_then(|n| entries.iter().find(|e| &e.name == n))
            {
                if !plan
                    .files
                    .iter()
                    .any(|p| p.name.as_deref() == Some(e.name.as_str()))
                {
                    cut_perf(&mut plan, &e.name, e.len, f.offset);
                }
            }
            continue;
        }
        if f.rule.code != rules::DAT_TRUNCATED.code {
            continue;
        }
        let Some(name) = f.file.clone() else { continue };
        let Some(tid) = tid_of(&name) else { continue };
        let Some(e) = entries.iter().find(|e| e.name == name) else {
            continue;
        };
        // A partial record is reported at its start, a partial payload at the payload's.
        let start = if f.message.starts_with("the file ends inside") {
            f.offset.saturating_sub(RECORD_LEN as u64)
        } else {
            f.offset
        };
        if plan
            .files
            .iter()
            .any(|p| p.name.as_deref() == Some(name.as_str()))
        {
            continue;
        }
        let w = Walk {
            records: start.checked_div(RECORD_LEN as u64).unwrap_or(0),
            whole: start,
            ..Walk::default()
        };
        let (fp, mut loss) = cut_loss(&name, tid, e.len, &w);
        loss.what = format!(
            "{} byte(s) of a record cut short at 0x{start:x}",
            e.len.saturating_sub(start)
        );
        plan.mend(rules::DAT_TRUNCATED.code);
        plan.files.push(fp);
        plan.losses.push(loss);
    }
    if plan.files.is_empty() {
        Verdict::Healthy
    } else {
        Verdict::Repair(plan)
    }
}
