//! Cross-file checks and the order in which the files of a directory are decoded; [`dat`]
//! walks the task data files (`<TID>.dat`) against the decoded session.

pub mod dat;
mod perf_tasks;

use self::dat::{DatCtx, DatStats, FuncArgs, SessCtx};
use super::decode::argspec::{self, Item, ItemKind, Match};
use super::decode::info::{self, feat, Info, PatternType, Producer};
use super::decode::maps::{self, SessionMap};
use super::decode::runs::RecordSieve;
use super::decode::sym::{self, SymTable};
use super::decode::task::{self, TaskFile};
use super::decode::{dbg, kernel, perf};
use super::model::{classify, load, FileKind};
use super::rules;
use crate::finding::{Finding, Severity, Sink};
use crate::input::{DirEntry, DirSource};
use crate::map::MapNode;
use crate::options::CheckOptions;
use rayon::prelude::*;
use std::collections::{HashMap, HashSet};
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};

/// `.dbg` argument specs of one module: relative function address → (ENTRY items, EXIT items).
type DbgSpecs = HashMap<u64, (Vec<Item>, Vec<Item>)>;

/// One parsed spec list entry.
struct Spec {
    pattern: String,
    items: Vec<Item>,
}

/// Builds the argument specs of one function the way uftrace merges them.
struct SpecResolver<'a> {
    auto: Vec<Spec>,
    user: Vec<Spec>,
    dbg: Vec<DbgSpecs>,
    use_dbg: bool,
    pattern: PatternType,
    syms: &'a [SymTable],
    /// uftrace before 0.9 sorted argument items by index.
    sorted_args: bool,
}

impl SpecResolver<'_> {
    fn resolve(&self, table: usize, symi: usize) -> FuncArgs {
        let mut out = FuncArgs::default();
        let Some(t) = self.syms.get(table) else {
            return out;
        };
        let name = t.name(symi);
        let rel = t.syms.get(symi).map(|s| s.addr).unwrap_or(0);
        let mut list: Vec<Item> = Vec::new();
        let simple = argspec::simple_name(name);
        let apply = |specs: &[Spec], list: &mut Vec<Item>, unsupported: &mut bool, auto: bool| {
            for s in specs {
                // uftrace keys its auto-args list by the demangled name and looks a function
                // up by its own demangled name (utils/auto-args.c, utils/filter.c
                // find_auto_args): `_ZdlPv@arg1/x` applies to every `operator delete`.
                let m = if auto {
                    if argspec::simple_name(&s.pattern) == simple {
                        Match::Exact
                    } else {
                        Match::No
                    }
                } else {
                    // uftrace matches user patterns against the demangled name.
                    if simple != name {
                        argspec::matches(&s.pattern, &simple, self.pattern)
                    } else if name.starts_with("_Z") {
                        // A C++ name this checker cannot demangle (`ns::Class::method`): a
                        // plain name without `::` never equals it; anything else may match.
                        let plain = !s.pattern.contains(argspec::PATTERN_CHARS);
                        if plain && !s.pattern.contains("::") {
                            Match::No
                        } else {
                            Match::Unsupported
                        }
                    } else {
                        argspec::matches(&s.pattern, name, self.pattern)
                    }
                };
                let exact = match m {
                    Match::Exact => true,
                    Match::Pattern => false,
                    Match::Unsupported => {
                        *unsupported = true;
                        continue;
                    }
                    Match::No => continue,
                };
                for it in &s.items {
                    argspec::add_item(list, Item { exact, ..*it }, self.sorted_args);
                }
            }
        };
        let mut unsupported = false;
        apply(&self.auto, &mut list, &mut unsupported, true);
        if self.use_dbg {
            if let Some((a, r)) = self.dbg.get(table).and_then(|m| m.get(&rel)) {
                for it in a.iter().chain(r.iter()) {
                    argspec::add_item(&mut list, *it, self.sorted_args);
                }
            }
        }
        apply(&self.user, &mut list, &mut unsupported, false);
        for it in list {
            if it.kind == ItemKind::Ret {
                out.exit.push(it);
            } else {
                out.entry.push(it);
            }
        }
        out.unsupported = unsupported;
        out.compute_fixed();
        out
    }
}

/// The files of a directory being checked, by kind, with what decoding them needs (the
/// source and the options) and the structure map node of each file decoded so far.
struct Files<'a> {
    dir: &'a dyn DirSource,
    kinds: Vec<(FileKind, &'a DirEntry)>,
    opts: &'a CheckOptions,
    /// Map nodes by file name.
    nodes: HashMap<String, MapNode>,
}

impl<'a> Files<'a> {
    fn new(dir: &'a dyn DirSource, files: &'a [DirEntry], opts: &'a CheckOptions) -> Self {
        Files {
            dir,
            kinds: files.iter().map(|e| (classify(&e.name), e)).collect(),
            opts,
            nodes: HashMap::new(),
        }
    }

    /// Whether a file of kind `k` is present.
    fn has(&self, k: &FileKind) -> bool {
        has_kind(&self.kinds, k)
    }

    /// The bytes of file `name` (a finding when it cannot be read).
    fn load(&self, name: &str, sink: &mut Sink) -> Option<crate::input::Data> {
        load(self.dir, name, self.opts, sink)
    }
}

/// Decodes the files of a recording in the order each step needs the ones before (`info`,
/// `task.txt`, the small text files, symbol and debug files, session maps), checks the
/// relations between them, walks the task data files against the decoded sessions, levels
/// the findings that depend on what the walks entered, decodes the perf and kernel files, and
/// fills the structure map in directory order.
pub(crate) fn check_all(
    dir: &dyn DirSource,
    files: &[DirEntry],
    runs: &[(&str, &RecordSieve)],
    opts: &CheckOptions,
    sink: &mut Sink,
    root: &mut MapNode,
) {
    let mut fs = Files::new(dir, files, opts);
    let info = decode_info(&mut fs, sink);
    let producer = info.producer();
    let tf = decode_task_txt(&mut fs, &producer, sink);
    let user_events = decode_small_files(&mut fs, sink);

    // Symbol tables and debug files.
    let (syms, sym_by_name) = decode_syms(&mut fs, &info, &producer, sink);
    let (dbgs, n_dbg) = decode_dbgs(&mut fs, info.long_size(), &syms, &sym_by_name, sink);

    // Session maps and sessions.
    let (sessions, mismatched, malformed_map_lines) =
        build_sessions(&mut fs, &tf, &syms, &sym_by_name, sink);

    // Task relations.
    let task_txt = fs.has(&FileKind::TaskTxt);
    let (tids, task_set) = task_relations(&tf, task_txt, sink);
    taskinfo_vs_task_txt(&info, &task_set, task_txt, sink);
    feature_bits_vs_files(&info, &fs.kinds, n_dbg, sink);
    perf_files_vs_cpus(&info, &fs.kinds, sink);
    let resolver = spec_resolver(&info, &producer, dbgs, &syms, sink);

    // Timelines: for each tid, the sessions in force over time.
    let timelines = build_timelines(&tf);

    // Task data files.
    let dats = task_files(&fs.kinds);
    task_files_vs_tasks(&dats, &info, &tids, &tf, task_txt, sink);
    let spec_fn = |t: usize, s: usize| resolver.resolve(t, s);
    let flags = || -> Vec<AtomicBool> { syms.iter().map(|_| AtomicBool::new(false)).collect() };
    let (entered, misread) = (flags(), flags());
    // The perf files first (their findings join the sink after the walks'): the walks check
    // each record against the stretches the perf files say its task was switched out.
    let mut perf_sink = Sink::new(opts.limits.max_findings).with_levels(sink.levels().clone());
    let mut perf_files = Vec::new();
    let kernel_records =
        decode_perf_and_kernel(&mut fs, info.endian(), &mut perf_files, &mut perf_sink);
    let ended = ran_to_end(&info);
    // The tasks uftrace files perf events under: `taskinfo:tids` with a data file.
    let read: HashSet<u64> = dats
        .iter()
        .map(|d| d.1)
        .filter(|t| info.tids.is_empty() || info.tids.contains(t))
        .collect();
    // With `-e` libmcount writes EXIT records at estimated times, not while the task runs.
    let real_times = info.feat() & feat::ESTIMATE_RETURN == 0;
    let mut outs = perf_tasks::switched_out_intervals(&perf_files, ended && real_times);
    outs.retain(|t, _| read.contains(t));
    let perf_names: Vec<String> = perf_files.iter().map(|f| f.0.clone()).collect();
    let ctx = DatCtx {
        entered: &entered,
        misread: &misread,
        endian: info.endian(),
        version: info.version(),
        feat: info.feat(),
        max_stack: info.max_stack(),
        sessions: &sessions,
        syms: &syms,
        timelines: &timelines,
        specs: &spec_fn,
        user_events: user_events.as_deref(),
        fast: opts.fast_paths,
        outs: &outs,
        perf_names: &perf_names,
    };
    let results = walk_task_files(dir, &dats, runs, &ctx, opts, sink);
    let mut last_ts: HashMap<u64, u64> = HashMap::new();
    let mut total_records = absorb_walks(&mut fs, &dats, results, &tids, &mut last_ts, sink);

    // Findings whose level depends on whether the trace enters a module.
    level_skipped_sym_lines(&syms, &entered, &misread, sink);
    level_foreign_syms(mismatched, &entered, sink);
    level_malformed_map_lines(malformed_map_lines, &entered, sink);

    // perf and kernel files.
    sink.absorb(perf_sink);
    total_records = total_records.saturating_add(kernel_records);
    perf_tasks::perf_tasks(&perf_files, (&task_set, ended), &read, &last_ts, sink);
    if total_records == 0 && info.header.is_some() {
        sink.set_file(None);
        sink.report(
            &rules::NO_TASK_DATA,
            0..0,
            "no <TID>.dat file holds a record; uftrace refuses the recording",
        );
    }

    // The map, in directory order.
    root.set("sessions", tf.sessions.len());
    root.set("tasks", task_set.len());
    root.set("symbol tables", syms.len());
    root.set("symbols", syms.iter().map(|t| t.syms.len()).sum::<usize>());
    for e in files {
        let n = fs
            .nodes
            .remove(&e.name)
            .unwrap_or_else(|| MapNode::new(e.name.clone(), 0, e.len));
        root.push(n.in_file(e.name.clone()));
    }
}

/// The argument specs of `info` (auto, user) with those of the `.dbg` files, merged per
/// function as uftrace merges them; reports the spec items uftrace skips.
fn spec_resolver<'s>(
    info: &Info,
    producer: &Producer,
    dbgs: Vec<DbgSpecs>,
    syms: &'s [SymTable],
    sink: &mut Sink,
) -> SpecResolver<'s> {
    let long = info.long_size();
    let mut auto = Vec::new();
    let mut user = Vec::new();
    sink.set_file(Some("info".into()));
    for line in &info.specs {
        let mut parsed = Vec::new();
        let mut errors = Vec::new();
        argspec::parse_specs(&line.text, long, &mut parsed, &mut errors);
        for e in errors.iter().take(4) {
            sink.report(
                &rules::ARGSPEC_ITEM_IGNORED,
                line.span.clone(),
                format!(
                    "{} line: {e}; uftrace skips this item (neither recorded nor read)",
                    line.kind
                ),
            );
        }
        let dest = if !line.kind.ends_with("auto") {
            &mut user
        } else if info.feat() & feat::AUTO_ARGS != 0 {
            &mut auto
        } else {
            // uftrace 0.9.4–0.18.1 set the auto-args list up only with the AUTO_ARGS bit
            // (utils/data-file.c): without it no function takes its spec from these lines.
            continue;
        };
        for p in parsed {
            let want_ret = line.kind.starts_with("ret");
            let items: Vec<Item> = p
                .items
                .into_iter()
                .filter(|i| (i.kind == ItemKind::Ret) == want_ret || line.kind == "argspec")
                .collect();
            dest.push(Spec {
                pattern: p.pattern,
                items,
            });
        }
    }
    SpecResolver {
        auto,
        user,
        dbg: dbgs,
        use_dbg: info.feat() & feat::DEBUG_INFO != 0,
        pattern: info.pattern,
        syms,
        sorted_args: producer.older_than(0, 9) == Some(true),
    }
}

/// The task data files: (name, tid, length).
fn task_files<'k>(kinds: &Kinds<'k>) -> Vec<(&'k str, u64, u64)> {
    kinds
        .iter()
        .filter_map(|(k, e)| match k {
            FileKind::Dat(tid) => Some((e.name.as_str(), *tid, e.len)),
            _ => None,
        })
        .collect()
}

/// The task data files against the tasks of `taskinfo:tids` and `task.txt`: files of tasks
/// uftrace does not read, tasks without a file.
fn task_files_vs_tasks(
    dats: &[(&str, u64, u64)],
    info: &Info,
    tids: &HashMap<u64, &task::Task>,
    tf: &TaskFile,
    task_txt: bool,
    sink: &mut Sink,
) {
    let mut dat_tids: HashSet<u64> = HashSet::new();
    let has_taskinfo = info.nr_tid.is_some();
    for (name, tid, len) in dats {
        dat_tids.insert(*tid);
        let listed = info.tids.contains(tid);
        let known = tids.contains_key(tid);
        sink.set_file(Some((*name).to_string()));
        if task_txt && listed && !known {
            let f = sink
                .make(
                    &rules::STRAY_TASK_DATA,
                    0..0,
                    format!(
                        "{name} belongs to tid {tid}, which taskinfo:tids lists but task.txt has no TASK line for: uftrace reads the file for a task it does not know"
                    ),
                )
                .note("uftrace 0.13: `replay` shows its records with no symbols (the task has no session), `dump --chrome` and `report --task` crash (SIGSEGV)");
            sink.push(f);
        } else if has_taskinfo && !listed && *len > 0 {
            let f = sink
                .make(
                    &rules::STRAY_TASK_DATA,
                    0..0,
                    format!(
                        "{name} holds records of tid {tid}, which taskinfo:tids does not list: uftrace never opens the file, so its records are lost without notice"
                    ),
                )
                .note(if known {
                    "task.txt has the task, but uftrace takes the list of data files from taskinfo:tids"
                } else {
                    "task.txt does not know the task either: the file may be left over from another recording"
                });
            sink.push(f);
        } else if task_txt && !known {
            sink.report(
                &rules::UNKNOWN_FILE,
                0..0,
                format!(
                    "{name} belongs to tid {tid}, which task.txt does not list: uftrace does not read it"
                ),
            );
        }
    }
    sink.set_file(Some("task.txt".into()));
    let unfiltered = ran_to_end(info) && info.cmdline.as_deref().is_some_and(records_every_task);
    for t in &tf.tasks {
        if !dat_tids.contains(&t.tid) && tids.get(&t.tid).is_some_and(|f| f.span == t.span) {
            if unfiltered && info.tids.contains(&t.tid) {
                let f = sink
                    .make(
                        &rules::TASK_WITHOUT_DATA,
                        t.span.clone(),
                        format!(
                            "task {} has no {}.dat, though taskinfo:tids lists it and the recording filtered nothing (`{}`): libmcount lists a task when it makes its first traced call and, with no filter, writes that call's record, so the file was removed or lost; uftrace 0.9.4-0.18.1 read the other tasks and lose all of this one's records",
                            t.tid,
                            t.tid,
                            info.cmdline.as_deref().unwrap_or("")
                        ),
                    )
                    .fails("uftrace", "0.9.4–0.18.1", "loss");
                sink.push(f);
                continue;
            }
            // uftrace record lists in taskinfo:tids every task it saw, also one that wrote no
            // record (a filter, a thread that made no traced call): the file is created with
            // the first record. A healthy recording reaches this case, so it stays an info.
            let listed = if info.tids.contains(&t.tid) {
                ", though taskinfo:tids lists it"
            } else {
                ""
            };
            let f = sink
                .make(
                    &rules::TASK_WITHOUT_DATA,
                    t.span.clone(),
                    format!(
                        "task {} has no {}.dat{listed}: it wrote no record (a filter such as -F/-N/-C/-T, or a thread that made no traced call), or the file was removed; uftrace 0.9.4–0.18.1 read the other tasks the same either way",
                        t.tid, t.tid
                    ),
                )
                .impact("uftrace", "0.9.4–0.18.1", "same");
            sink.push(f);
        }
    }
}

/// Whether `uftrace record` ran to its end: it saw the traced program exit (`exit_status` of
/// 0 or more, cmds/record.c `stop_tracing`), or, with `--keep-pid` (the program is not its
/// child, so it never has a status: `exit_status:-1`), it ended once every task it was told
/// of had exited (`check_tid_list`). Either way it then read every perf buffer a last time.
/// A recorder killed before that leaves no `info`; one rebuilt by `tracelint fix` has no
/// `exit_status`.
fn ran_to_end(info: &Info) -> bool {
    match info.exit_status {
        Some(s) if s >= 0 => true,
        Some(-1) => info
            .cmdline
            .as_deref()
            .is_some_and(|c| c.split(' ').any(|w| w == "--keep-pid")),
        _ => false,
    }
}

/// Whether a `uftrace record` command line (`info`'s `cmdline:`) leaves every traced call
/// recorded: only options known not to filter, up to the program. A filter (`-F`, `-N`, `-C`,
/// `-T`, `-D`, `-t`, `-Z`, `--disable`, a `-P` pattern other than `.`, ...) lets a task make
/// traced calls and write no record; `--no-libcall` lets a forked child that execs at once
/// write none; an option not known here is taken as one that may filter.
fn records_every_task(cmdline: &str) -> bool {
    // Options without an argument, and options with one (`-b 4K`, `--clock=boot`).
    const FLAGS: [&str; 13] = [
        "-a",
        "--auto-args",
        "-l",
        "--nest-libcall",
        "--no-pltbind",
        "--no-event",
        "--no-sched",
        "--srcline",
        "--keep-pid",
        "-e",
        "--estimate-return",
        "--libmcount-single",
        "--no-merge",
    ];
    const WITH_ARG: [&str; 15] = [
        "-d",
        "--data",
        "-A",
        "--argument",
        "-R",
        "--retval",
        "-b",
        "--buffer",
        "--clock",
        "--num-thread",
        "-E",
        "--event",
        "--match",
        "-W",
        "--watch",
    ];
    let mut words = cmdline.split(' ').filter(|w| !w.is_empty());
    if words.next() != Some("uftrace") {
        return false;
    }
    if words.next() != Some("record") {
        return false;
    }
    while let Some(w) = words.next() {
        if !w.starts_with('-') {
            // The program: what follows are its own arguments.
            return true;
        }
        let (name, joined) = match w.split_once('=') {
            Some((n, _)) => (n, true),
            None => (w, false),
        };
        if FLAGS.contains(&name) && !joined {
            continue;
        }
        if WITH_ARG.contains(&name) {
            if !joined && words.next().is_none() {
                return false;
            }
            continue;
        }
        if name == "-P" || name == "--patch" {
            let arg = if joined {
                w.split_once('=').map(|x| x.1)
            } else {
                words.next()
            };
            if arg == Some(".") {
                continue;
            }
        }
        return false;
    }
    false
}

/// Walks the task data files in parallel, each into a sink of its own: (findings, stats)
/// per file, in the order of `dats`.
fn walk_task_files(
    dir: &dyn DirSource,
    dats: &[(&str, u64, u64)],
    runs: &[(&str, &RecordSieve)],
    ctx: &DatCtx<'_>,
    opts: &CheckOptions,
    sink: &Sink,
) -> Vec<(Sink, Option<DatStats>)> {
    let max_findings = opts.limits.max_findings;
    let max_bytes = opts.limits.max_file_bytes;
    let levels = sink.levels().clone();
    dats.par_iter()
        .map(|&(name, tid, len)| {
            let mut s = Sink::new(max_findings).with_levels(levels.clone());
            s.set_file(Some(name.to_string()));
            let stats = match dir.open_seq(name, max_bytes) {
                Ok(mut src) => {
                    let sieve = runs.iter().find(|(n, _)| *n == name).map(|&(_, sv)| sv);
                    Some(dat::walk(tid, &mut *src, len, ctx, sieve, &mut s))
                }
                Err(e) if e.kind() == io::ErrorKind::FileTooLarge => {
                    s.limit(
                        0..0,
                        &format!("size of {name}"),
                        len,
                        "max_file_bytes",
                        max_bytes,
                    );
                    None
                }
                Err(e) => {
                    s.report(
                        &rules::UNREADABLE_FILE,
                        0..0,
                        format!("cannot read {name}: {e}"),
                    );
                    None
                }
            };
            (s, stats)
        })
        .collect()
}

/// Takes the findings of the task walks in directory order, checks each task's first record
/// against its start in `task.txt`, and makes each file's map node; collects each task's last
/// record time into `last_ts`; returns the records.
fn absorb_walks(
    fs: &mut Files<'_>,
    dats: &[(&str, u64, u64)],
    results: Vec<(Sink, Option<DatStats>)>,
    tids: &HashMap<u64, &task::Task>,
    last_ts: &mut HashMap<u64, u64>,
    sink: &mut Sink,
) -> u64 {
    let mut total_records = 0u64;
    for ((name, tid, len), (findings, stats)) in dats.iter().zip(results) {
        sink.absorb(findings);
        if let Some(t) = stats.as_ref().and_then(|st| st.last_ts) {
            last_ts.insert(*tid, t);
        }
        let first = stats.as_ref().and_then(|st| st.first_ts);
        if let (Some(first), Some(t)) = (first, tids.get(tid)) {
            if first < t.ts {
                sink.set_file(Some("task.txt".into()));
                // The readers look a record up in the task's sessions, then its parent's: the
                // records no session covers are UF067 errors of the walk, one by one.
                let (line, severity, tail) = match t.ppid {
                    Some(_) => (
                        "FORK",
                        Severity::Info,
                        "uftrace record -e writes a child's FORK line after its first records; uftrace 0.9.4–0.18.1 resolve those in the parent's session and print every name",
                    ),
                    None => (
                        "TASK",
                        Severity::Warning,
                        "uftrace writes the TASK line before a task's records; uftrace 0.9.4–0.18.1 resolve the earlier records in the sessions of the task's pid or parent that cover them (any that none covers is reported as UF067)",
                    ),
                };
                let f = sink
                    .make(
                        &rules::TASK_STARTS_AFTER_RECORDS,
                        t.span.clone(),
                        format!(
                            "task {tid} starts at {} by its {line} line, but its first record in {name} is at {}: {tail}",
                            task::fmt_ts(t.ts),
                            task::fmt_ts(first)
                        ),
                    )
                    .level(severity)
                    .impact("uftrace", "0.9.4–0.18.1", "same");
                sink.push(f);
            }
        }
        if let Some(st) = stats
            .as_ref()
            .filter(|st| st.open_at_end > 0 && !st.stopped)
        {
            sink.set_file(Some((*name).to_string()));
            let f = sink
                .make(
                    &rules::FRAMES_OPEN_AT_END,
                    *len..*len,
                    format!(
                        "task {tid}'s data ends with {} call(s) still open: the task left them without returning (exit(), a signal, a finish trigger) or the recorder stopped or the file was cut there; uftrace 0.9.4–0.18.1 print them unclosed (\"uftrace stopped tracing with remaining functions\") and read every record before the end",
                        st.open_at_end
                    ),
                )
                .impact("uftrace", "0.9.4–0.18.1", "same");
            sink.push(f);
        }
        let mut n = MapNode::new(format!("task {tid}"), 0, *len);
        if let Some(st) = stats {
            total_records = total_records.saturating_add(st.records());
            n.set("records", st.records());
            n.set("entry", st.entries);
            n.set("exit", st.exits);
            n.set("event", st.events);
            n.set("lost", st.lost);
            n.set("arg payloads", st.arg_payloads);
            n.set("event payloads", st.event_payloads);
            n.set("max depth", st.max_depth);
            if let (Some(a), Some(b)) = (st.first_ts, st.last_ts) {
                n.set(
                    "time",
                    format!("{} .. {}", task::fmt_ts(a), task::fmt_ts(b)),
                );
            }
        }
        fs.nodes.insert((*name).to_string(), n);
    }
    total_records
}

/// Symbol lines uftrace skips: names are lost where the trace enters the module.
fn level_skipped_sym_lines(
    syms: &[SymTable],
    entered: &[AtomicBool],
    misread: &[AtomicBool],
    sink: &mut Sink,
) {
    for ((t, entered), misread) in syms.iter().zip(entered).zip(misread) {
        if t.skipped_lines.is_empty() {
            continue;
        }
        sink.set_file(Some(t.file.clone()));
        let entered = entered.load(Ordering::Relaxed);
        let misread = misread.load(Ordering::Relaxed);
        for f in &t.skipped_lines {
            // Where the lost or moved lines are is known (uftrace's own table, rebuilt), except
            // for lines missing by the count alone.
            let located = t.view.is_some() && f.rule.code != rules::SYM_COUNT_MISMATCH.code;
            let (level, effect, why) = if located && misread {
                (
                    Severity::Error,
                    "loss",
                    "records of the trace lie in the symbols this moves or loses, so uftrace 0.9.4–0.18.1 print some of them under another symbol's name",
                )
            } else if located && entered {
                (
                    Severity::Warning,
                    "same",
                    "the trace enters this module, but none of its records lies in the symbols this moves or loses (uftrace's own table, rebuilt line by line, names every record as the sorted table does), so every reader reads the same",
                )
            } else if entered {
                (
                    Severity::Error,
                    "loss",
                    "the trace enters this module, so uftrace 0.9.4–0.18.1 print some of its functions under another symbol's name",
                )
            } else {
                (
                    Severity::Warning,
                    "same",
                    "no record of the trace lies in this module, so every reader reads the same",
                )
            };
            let f = Finding {
                message: format!("{}; {why}", f.message),
                ..f.clone()
            }
            .level(level)
            .impact("uftrace", "0.9.4–0.18.1", effect);
            sink.push(f);
        }
    }
}

/// Symbol files uftrace 0.13 and later do not take for their module (`check_symbol_file`
/// compares the path name and build-id with the session map's).
fn level_foreign_syms(mismatched: Vec<(usize, Finding)>, entered: &[AtomicBool], sink: &mut Sink) {
    for (ti, f) in mismatched {
        let entered = entered.get(ti).is_some_and(|e| e.load(Ordering::Relaxed));
        let f = if entered {
            Finding {
                message: format!("{}; the trace enters this module, and uftrace 0.13–0.18.1 then look for `<name>-<build-id>.sym` instead, find none and print its functions as `<addr>` unless the ELF file at the recorded path is on the reading machine (uftrace 0.9.4 does not compare)", f.message),
                ..f
            }
            .fails("uftrace", "0.13–0.18.1", "loss")
        } else {
            Finding {
                message: format!("{}; no record of the trace lies in this module, so every reader reads the same", f.message),
                ..f
            }
            .impact("uftrace", "0.9.4–0.18.1", "same")
        };
        sink.set_file(f.file.clone());
        sink.push(f);
    }
}

/// Map lines uftrace skips or reads otherwise: they matter where the trace enters the module
/// they name.
fn level_malformed_map_lines(
    malformed: Vec<(Option<usize>, Finding)>,
    entered: &[AtomicBool],
    sink: &mut Sink,
) {
    // A record in no module may belong to a module whose line was lost: then no module counts
    // as not entered.
    let unresolved = dat::any_unresolved(sink);
    for (ti, f) in malformed {
        let entered = ti
            .and_then(|ti| entered.get(ti))
            .map(|e| e.load(Ordering::Relaxed) || unresolved);
        let f = match entered {
            Some(false) => Finding {
                message: format!("{}; no record of the trace lies in this module, so every reader reads the same", f.message),
                ..f
            }
            .read_same("uftrace", "0.9.4–0.18.1"),
            Some(true) => Finding {
                message: format!("{}; the trace enters this module (or has records in no module), and uftrace 0.9.4–0.18.1 skip the line or read it otherwise, so its functions are not named as recorded", f.message),
                ..f
            }
            .fails("uftrace", "0.9.4–0.18.1", "loss"),
            None => f,
        };
        sink.set_file(f.file.clone());
        sink.push(f);
    }
}

/// The files of a directory with their kinds, as [`check_all`] passes them on.
type Kinds<'a> = [(FileKind, &'a DirEntry)];

fn has_kind(kinds: &Kinds<'_>, k: &FileKind) -> bool {
    kinds.iter().any(|(kk, _)| kk == k)
}

/// Decodes `info` (or reports that it is missing).
fn decode_info(fs: &mut Files<'_>, sink: &mut Sink) -> Info {
    let mut info = Info::default();
    if fs.has(&FileKind::Info) {
        sink.set_file(Some("info".into()));
        if let Some(d) = fs.load("info", sink) {
            let (i, mut n) = info::decode(&d, sink);
            info = i;
            n.set("producer", info.producer().describe());
            fs.nodes.insert("info".into(), n);
        }
    } else {
        sink.set_file(None);
        sink.report(
            &rules::MISSING_FILE,
            0..0,
            "the directory has no `info` file: uftrace 0.9.4–0.18.1 cannot open the recording (`cannot open record data`; `replay` crashes with SIGSEGV)",
        );
    }
    info
}

/// Decodes `task.txt` (or reports that it is missing when there is no legacy task file either).
fn decode_task_txt(fs: &mut Files<'_>, producer: &Producer, sink: &mut Sink) -> TaskFile {
    let mut tf = TaskFile::default();
    if fs.has(&FileKind::TaskTxt) {
        sink.set_file(Some("task.txt".into()));
        if let Some(d) = fs.load("task.txt", sink) {
            tf = task::decode(&d, &fs.opts.limits, producer, sink);
            fs.nodes.insert(
                "task.txt".into(),
                MapNode::new("task.txt", 0, d.len() as u64)
                    .value("sessions", tf.sessions.len())
                    .value("tasks", tf.tasks.len())
                    .value("dlopens", tf.dlopens.len()),
            );
        }
    } else if !fs.has(&FileKind::TaskLegacy) {
        sink.set_file(None);
        sink.report(
            &rules::MISSING_FILE,
            0..0,
            "the directory has no `task.txt` file",
        );
    }
    tf
}

/// Decodes `events.txt`, `extern.dat` and `default.opts`; returns the user event ids.
fn decode_small_files(fs: &mut Files<'_>, sink: &mut Sink) -> Option<Vec<u64>> {
    let mut user_events: Option<Vec<u64>> = None;
    for (k, e) in &fs.kinds {
        let name = e.name.as_str();
        match k {
            FileKind::Events | FileKind::Extern | FileKind::DefaultOpts => {
                sink.set_file(Some(name.into()));
                let Some(d) = load(fs.dir, name, fs.opts, sink) else {
                    continue;
                };
                let mut n = MapNode::new(name, 0, d.len() as u64);
                match k {
                    FileKind::Events => {
                        let ids = kernel::events_txt(&d, sink);
                        n.set("events", ids.len());
                        user_events = Some(ids);
                    }
                    FileKind::Extern => n.set("lines", kernel::extern_dat(&d, sink)),
                    _ => kernel::default_opts(&d, sink),
                }
                fs.nodes.insert(name.into(), n);
            }
            _ => {}
        }
    }
    user_events
}

/// Decodes the `.sym` files (one `UF057` per legacy layout for the whole directory); returns
/// the tables and their index by file name.
fn decode_syms(
    fs: &mut Files<'_>,
    info: &Info,
    producer: &Producer,
    sink: &mut Sink,
) -> (Vec<SymTable>, HashMap<String, usize>) {
    let limits = &fs.opts.limits;
    let feat = info.feat();
    let mut syms: Vec<SymTable> = Vec::new();
    let mut sym_by_name: HashMap<String, usize> = HashMap::new();
    for (k, e) in &fs.kinds {
        if *k != FileKind::Sym {
            continue;
        }
        sink.set_file(Some(e.name.clone()));
        let Some(d) = load(fs.dir, &e.name, fs.opts, sink) else {
            continue;
        };
        let t = sym::decode(&e.name, &d, limits, producer, sink);
        if t.sized != (feat & feat::SYM_SIZE != 0) && !t.syms.is_empty() && info.header.is_some() {
            sink.report(
                &rules::FEATURE_FILE_MISMATCH,
                0..d.len() as u64,
                format!(
                    "symbol lines {} a size column but the SYM_SIZE feature is {}",
                    if t.sized { "have" } else { "lack" },
                    if feat & feat::SYM_SIZE != 0 {
                        "set"
                    } else {
                        "clear"
                    }
                ),
            );
        }
        fs.nodes.insert(
            e.name.clone(),
            MapNode::new("symbol table", 0, d.len() as u64)
                .value("symbols", t.syms.len())
                .value("path", t.path.clone().unwrap_or_default()),
        );
        sym_by_name.insert(e.name.clone(), syms.len());
        syms.push(t);
    }
    // One UF057 per layout and directory: the first file, with the count of the others.
    for kind in [0u8, 1] {
        let mut with: Vec<&Finding> = syms
            .iter()
            .filter_map(|t| t.legacy.as_ref())
            .filter(|(k, _)| *k == kind)
            .map(|(_, f)| f)
            .collect();
        with.sort_by(|a, b| a.file.cmp(&b.file));
        if let Some(first) = with.first() {
            let mut f = (*first).clone();
            let others = with.len().saturating_sub(1);
            if others > 0 {
                f = f.note(format!(
                    "{others} other `.sym` file(s) of this directory have the same layout"
                ));
            }
            sink.push(f);
        }
    }
    (syms, sym_by_name)
}

/// Decodes the `.dbg` files against their symbol tables; returns the argument specs per table
/// and how many `.dbg` files there are.
fn decode_dbgs(
    fs: &mut Files<'_>,
    long: u32,
    syms: &[SymTable],
    sym_by_name: &HashMap<String, usize>,
    sink: &mut Sink,
) -> (Vec<DbgSpecs>, usize) {
    let limits = &fs.opts.limits;
    let mut dbgs: Vec<DbgSpecs> = vec![HashMap::new(); syms.len()];
    let mut n_dbg = 0usize;
    let mut seen_dbg: HashMap<(Option<usize>, u64), (bool, bool)> = HashMap::new();
    for (k, e) in &fs.kinds {
        if *k != FileKind::Dbg {
            continue;
        }
        n_dbg = n_dbg.saturating_add(1);
        sink.set_file(Some(e.name.clone()));
        let Some(d) = load(fs.dir, &e.name, fs.opts, sink) else {
            continue;
        };
        let df = dbg::decode(&d, limits, sink);
        let stem = e.name.strip_suffix(".dbg").unwrap_or(&e.name);
        let table = sym_by_name.get(&format!("{stem}.sym")).copied();
        // uftrace 0.13–0.18.1 (`match_debug_file`) take a `.dbg` only if its last header line
        // matches the module (path name, or build-id by `strcmp`); otherwise they look for
        // `<name>-<build-id>.dbg` and its argument specs are lost.
        let module = table.and_then(|ti| syms.get(ti));
        let foreign = match (module, df.header.last()) {
            (Some(t), Some((true, p))) => t.path.as_deref().is_some_and(|mp| mp != p),
            (Some(t), Some((false, b))) => t.build_id.as_deref().unwrap_or("") != b,
            _ => false,
        };
        if foreign {
            sink.report(
                &rules::SYM_MODULE_MISMATCH,
                0..0,
                format!("{} names another build of its module than {stem}.sym: uftrace 0.13–0.18.1 then look for `<name>-<build-id>.dbg` and use none of its argument specs", e.name),
            );
        }
        fs.nodes.insert(
            e.name.clone(),
            MapNode::new("debug info", 0, d.len() as u64).value("functions", df.funcs.len()),
        );
        for f in &df.funcs {
            if let Some(ti) = table {
                if syms.get(ti).and_then(|t| t.at(f.addr)).is_none() {
                    sink.report(
                        &rules::DBG_UNKNOWN_FUNCTION,
                        f.span.clone(),
                        format!(
                            "`F: {:x} {}` is not the start of a symbol in {stem}.sym",
                            f.addr, f.name
                        ),
                    );
                }
            }
            let mut a = Vec::new();
            let mut r = Vec::new();
            for (spec, out) in [(&f.args, &mut a), (&f.ret, &mut r)] {
                let Some(spec) = spec else { continue };
                for it in spec.trim_start_matches('@').split(',') {
                    match argspec::parse_item(it, long) {
                        Some(Ok(i)) => out.push(i),
                        Some(Err(msg)) => sink.report(
                            &rules::ARGSPEC_ITEM_IGNORED,
                            f.span.clone(),
                            format!(
                                "argument spec of `{}`: {msg}; uftrace skips this item (neither recorded nor read)",
                                f.name
                            ),
                        ),
                        None => {}
                    }
                }
            }
            if df.broken.is_some() || foreign {
                continue;
            }
            if let Some(slot) = table.and_then(|ti| dbgs.get_mut(ti)) {
                // uftrace keys the specs by function offset and drops both of two for one
                // offset (`add_debug_entry`, "debug entry: conflict").
                let e = slot
                    .entry(f.addr)
                    .or_insert_with(|| (Vec::new(), Vec::new()));
                let (had_a, had_r) = (f.args.is_some(), f.ret.is_some());
                let seen = seen_dbg.entry((table, f.addr)).or_insert((false, false));
                e.0 = if f.conflict.0 || (had_a && seen.0) {
                    Vec::new()
                } else if had_a {
                    a
                } else {
                    std::mem::take(&mut e.0)
                };
                e.1 = if f.conflict.1 || (had_r && seen.1) {
                    Vec::new()
                } else if had_r {
                    r
                } else {
                    std::mem::take(&mut e.1)
                };
                seen.0 |= had_a;
                seen.1 |= had_r;
            }
        }
    }
    (dbgs, n_dbg)
}

/// `task.txt` relations: a SESS line first, FORK parents known, no tid defined twice without an
/// exec; returns the tasks by tid and the sorted tids.
fn task_relations<'t>(
    tf: &'t TaskFile,
    task_txt: bool,
    sink: &mut Sink,
) -> (HashMap<u64, &'t task::Task>, Vec<u64>) {
    if task_txt {
        let first_sess = tf.sessions.iter().map(|s| s.span.start).min();
        let first_other = tf
            .tasks
            .iter()
            .map(|t| t.span.start)
            .chain(tf.dlopens.iter().map(|d| d.span.start))
            .min();
        match (first_sess, first_other) {
            (None, _) => {
                sink.report(
                    &rules::NO_SESSION,
                    0..0,
                    "task.txt has no SESS line; uftrace stops with EINVAL",
                );
            }
            (Some(s), Some(o)) if o < s => {
                sink.report(
                    &rules::NO_SESSION,
                    o..o,
                    "a TASK/FORK/DLOP line precedes the first SESS line",
                );
            }
            _ => {}
        }
    }
    let mut tids: HashMap<u64, &task::Task> = HashMap::new();
    let mut task_set: Vec<u64> = Vec::new();
    for t in &tf.tasks {
        if let Some(ppid) = t.ppid {
            if !tf.tasks.iter().any(|o| o.tid == ppid) && !tf.sessions.iter().any(|s| s.pid == ppid)
            {
                sink.report(
                    &rules::TASK_RELATION,
                    t.span.clone(),
                    format!(
                        "FORK of {} names parent {ppid}, which is no known task",
                        t.tid
                    ),
                );
            }
        }
        if let Some(prev) = tids.get(&t.tid) {
            // A TASK line again after exec (same tid, a session in between) is legal.
            let exec_between = tf.sessions.iter().any(|s| {
                s.pid == t.pid && s.span.start > prev.span.start && s.span.start < t.span.start
            });
            if !exec_between {
                sink.report(
                    &rules::TASK_RELATION,
                    t.span.clone(),
                    format!(
                        "tid {} is defined again without an exec (SESS) in between",
                        t.tid
                    ),
                );
            }
        } else {
            tids.insert(t.tid, t);
            task_set.push(t.tid);
        }
    }
    task_set.sort_unstable();
    (tids, task_set)
}

/// `taskinfo:tids` of `info` against the tasks of `task.txt`.
fn taskinfo_vs_task_txt(info: &Info, task_set: &[u64], task_txt: bool, sink: &mut Sink) {
    if info.nr_tid.is_some() && task_txt {
        let mut listed = info.tids.clone();
        listed.sort_unstable();
        listed.dedup();
        if listed != *task_set {
            sink.set_file(Some("info".into()));
            let only_info: Vec<String> = listed
                .iter()
                .filter(|t| task_set.binary_search(t).is_err())
                .take(8)
                .map(u64::to_string)
                .collect();
            let only_task: Vec<String> = task_set
                .iter()
                .filter(|t| listed.binary_search(t).is_err())
                .take(8)
                .map(u64::to_string)
                .collect();
            sink.report(
                &rules::TASKINFO_TASKS_DIFFER,
                info.tids_span.clone(),
                format!(
                    "taskinfo:tids and task.txt differ: only in info [{}], only in task.txt [{}]",
                    only_info.join(","),
                    only_task.join(",")
                ),
            );
        }
    }
}

/// The feature bits of `info` against the files present.
fn feature_bits_vs_files(info: &Info, kinds: &Kinds<'_>, n_dbg: usize, sink: &mut Sink) {
    let feat = info.feat();
    if info.header.is_some() {
        sink.set_file(Some("info".into()));
        let mut fm_at = |cond: bool, level: Severity, msg: String| {
            if cond {
                let f = sink
                    .make(&rules::FEATURE_FILE_MISMATCH, 16..24, msg)
                    .level(level);
                let f = if level == Severity::Error {
                    f.impact("uftrace", "0.9.4–0.18.1", "loss")
                } else {
                    f
                };
                sink.push(f);
            }
        };
        // A bit set without its files is only a header not rewritten; a bit cleared while its
        // files exist makes every reader skip them (open_data_file trusts the bits).
        let perf_files = kinds.iter().any(|(k, _)| matches!(k, FileKind::Perf(_)));
        fm_at(
            feat & feat::PERF_EVENT == 0 && perf_files,
            Severity::Error,
            "the PERF_EVENT feature is clear but perf-cpuN.dat files exist: uftrace 0.9.4–0.18.1 never open them and their events are lost".into(),
        );
        let kernel_files_present = has_kind(kinds, &FileKind::KernelHeader)
            || kinds
                .iter()
                .any(|(k, _)| matches!(k, FileKind::KernelCpu(_)));
        fm_at(
            feat & feat::KERNEL == 0 && kernel_files_present,
            Severity::Error,
            "the KERNEL feature is clear but kernel files exist: uftrace 0.9.4–0.18.1 never read them and the kernel events are lost".into(),
        );
        let mut fm = |cond: bool, msg: String| fm_at(cond, Severity::Warning, msg);
        let kernel_files = has_kind(kinds, &FileKind::KernelHeader)
            || kinds
                .iter()
                .any(|(k, _)| matches!(k, FileKind::KernelCpu(_)));
        fm(
            feat & feat::KERNEL != 0 && !kernel_files,
            "the KERNEL feature is set but kernel files are absent".into(),
        );
        // Finished, a recording with the bit has perf records: uftrace writes the COMM and
        // EXIT events of every traced task to the perf-cpu files (also through `uftrace
        // recv`), so none of them left means they were removed.
        let finished = ran_to_end(info);
        fm_at(
            feat & feat::PERF_EVENT != 0 && !perf_files,
            if finished {
                Severity::Error
            } else {
                Severity::Warning
            },
            if finished {
                "the PERF_EVENT feature is set but there is no perf-cpuN.dat, in a recording that ran to its end: uftrace writes the COMM and EXIT events of every traced task there, so the files were removed, and uftrace 0.9.4–0.18.1 show none of those events (verified: `recv-host` without its perf-cpu0.dat)".into()
            } else {
                "the PERF_EVENT feature is set but there is no perf-cpuN.dat".into()
            },
        );
        let mut fm = |cond: bool, msg: String| fm_at(cond, Severity::Warning, msg);
        fm(
            (feat & feat::DEBUG_INFO != 0) != (n_dbg > 0),
            format!(
                "the DEBUG_INFO feature is {} but {} .dbg file(s) exist",
                onoff(feat & feat::DEBUG_INFO != 0),
                n_dbg
            ),
        );
        let argspec_bit = info
            .header
            .as_ref()
            .is_some_and(|h| h.info_mask & (1 << 10) != 0);
        fm(
            argspec_bit && feat & (feat::ARGUMENT | feat::RETVAL) == 0 && !info.auto_args,
            "the info has an ARG_SPEC section but neither ARGUMENT nor RETVAL is set".into(),
        );
    }
}

/// One `perf-cpu<N>.dat` per online CPU of `info` (`uftrace record` opens each when it
/// starts), unless the recording came through `uftrace recv` (`--host` on the command line).
fn perf_files_vs_cpus(info: &Info, kinds: &Kinds<'_>, sink: &mut Sink) {
    let present: std::collections::BTreeSet<u64> = kinds
        .iter()
        .filter_map(|(k, _)| match k {
            FileKind::Perf(n) => Some(*n),
            _ => None,
        })
        .collect();
    let (Some(n), Some(cmdline)) = (info.online_cpus, info.cmdline.as_deref()) else {
        return;
    };
    if info.feat() & feat::PERF_EVENT == 0
        || present.is_empty()
        || cmdline
            .split(' ')
            .any(|w| w == "--host" || w.starts_with("--host="))
    {
        return;
    }
    let missing: Vec<u64> = (0..n.min(1 << 16))
        .filter(|c| !present.contains(c))
        .collect();
    if missing.is_empty() {
        return;
    }
    let names: Vec<String> = missing
        .iter()
        .take(8)
        .map(|c| format!("perf-cpu{c}.dat"))
        .collect();
    let more = if missing.len() > 8 { ", ..." } else { "" };
    let span = info
        .sections
        .iter()
        .find(|(bit, _)| *bit == 4)
        .map_or(0..0, |(_, s)| s.clone());
    sink.set_file(Some("info".into()));
    sink.report(
        &rules::PERF_FILE_MISSING,
        span,
        format!(
            "the perf file of {} of the {n} online CPUs is missing ({}{more}): uftrace record opens one perf file per online CPU when it starts and leaves an idle CPU's empty, so the file was removed or lost; uftrace 0.9.4-0.18.1 read the perf files there are, and whatever events the missing one held are lost",
            missing.len(),
            names.join(", ")
        ),
    );
}

/// Decodes the perf and kernel files (and reports files of no known kind) and collects the
/// perf records into `perf_files`; returns the number of kernel events.
fn decode_perf_and_kernel(
    fs: &mut Files<'_>,
    endian: crate::reader::Endian,
    perf_files: &mut Vec<perf_tasks::PerfFile>,
    sink: &mut Sink,
) -> u64 {
    let (dir, opts, kinds, nodes) = (fs.dir, fs.opts, &fs.kinds, &mut fs.nodes);
    let mut kernel_events = 0u64;
    let mut kparams = None;
    if has_kind(kinds, &FileKind::KernelHeader) {
        sink.set_file(Some("kernel_header".into()));
        if let Some(d) = load(dir, "kernel_header", opts, sink) {
            kparams = kernel::kernel_header(&d, sink);
            nodes.insert(
                "kernel_header".into(),
                MapNode::new("kernel header", 0, d.len() as u64),
            );
        }
    }
    let mut kcpus: Vec<u64> = Vec::new();
    for (k, e) in kinds {
        match k {
            FileKind::Perf(_) => {
                sink.set_file(Some(e.name.clone()));
                let Some(d) = load(dir, &e.name, opts, sink) else {
                    continue;
                };
                let st = perf::walk(&d, endian, sink);
                nodes.insert(
                    e.name.clone(),
                    MapNode::new("perf events", 0, d.len() as u64)
                        .value("records", st.records)
                        .value("comm", st.comm)
                        .value("fork/exit", st.task)
                        .value("switch", st.switch),
                );
                perf_files.push((e.name.clone(), st.recs));
            }
            FileKind::KernelCpu(n) => {
                kcpus.push(*n);
                sink.set_file(Some(e.name.clone()));
                let Some(d) = load(dir, &e.name, opts, sink) else {
                    continue;
                };
                let mut node = MapNode::new("kernel ring buffer", 0, d.len() as u64);
                if let Some(p) = &kparams {
                    let st = kernel::kernel_cpu(&d, p, *n, sink);
                    node.set("pages", st.pages);
                    node.set("events", st.events);
                    kernel_events = kernel_events.saturating_add(st.events);
                }
                nodes.insert(e.name.clone(), node);
            }
            FileKind::Kallsyms => {
                sink.set_file(Some(e.name.clone()));
                let Some(d) = load(dir, &e.name, opts, sink) else {
                    continue;
                };
                let n = kernel::kallsyms(&d, sink);
                nodes.insert(
                    e.name.clone(),
                    MapNode::new("kernel symbols", 0, d.len() as u64).value("symbols", n),
                );
            }
            FileKind::Unknown => {
                sink.set_file(Some(e.name.clone()));
                sink.report(
                    &rules::UNKNOWN_FILE,
                    0..0,
                    format!("`{}` is not a file of the uftrace format", e.name),
                );
            }
            _ => {}
        }
    }
    kcpus.sort_unstable();
    if kcpus.iter().enumerate().any(|(i, &n)| i as u64 != n) {
        sink.set_file(None);
        sink.report(
            &rules::KERNEL_DATA,
            0..0,
            "kernel-cpuN.dat numbers are not contiguous from 0; uftrace numbers CPUs by position",
        );
    }
    kernel_events
}

/// The sessions, the symbol files of another build (by table), and the malformed map lines
/// (by the table of the module they name), the last two leveled after the task walks.
type Sessions = (
    Vec<SessCtx>,
    Vec<(usize, Finding)>,
    Vec<(Option<usize>, Finding)>,
);

/// Decodes the session maps, then builds each session of `task.txt`: its map, each module's
/// symbol table, its dlopen'ed libraries.
#[allow(clippy::too_many_lines)]
fn build_sessions(
    fs: &mut Files<'_>,
    tf: &TaskFile,
    syms: &[SymTable],
    sym_by_name: &HashMap<String, usize>,
    sink: &mut Sink,
) -> Sessions {
    let (dir, opts, kinds, nodes) = (fs.dir, fs.opts, &fs.kinds, &mut fs.nodes);
    let limits = &opts.limits;
    let mut mismatched: Vec<(usize, Finding)> = Vec::new();
    let mut malformed: Vec<(Option<String>, Finding)> = Vec::new();
    // Session maps.
    let mut sessions: Vec<SessCtx> = Vec::new();
    let mut map_cache: HashMap<String, Option<usize>> = HashMap::new();
    let mut maps_decoded: Vec<SessionMap> = Vec::new();
    for (k, e) in kinds {
        let FileKind::Map(sid) = k else { continue };
        sink.set_file(Some(e.name.clone()));
        let Some(d) = load(dir, &e.name, opts, sink) else {
            map_cache.insert(sid.clone(), None);
            continue;
        };
        // Malformed lines are leveled once the task walks say whether the trace enters the
        // module they name.
        let mut sub = Sink::new(limits.max_findings);
        sub.set_file(Some(e.name.clone()));
        let m = maps::decode(&d, limits, &mut sub);
        for f in sub.into_parts().0 {
            if maps::leveled_by_entry(&f) {
                let path = maps::named_module(&d, f.offset);
                malformed.push((path, f));
            } else {
                sink.push(f);
            }
        }
        if m.stack_lines == 0 {
            let end = d.len() as u64;
            let f = sink
                .make(
                    &rules::MAP_NO_STACK,
                    end..end,
                    "the session map has no `[stack]` line",
                )
                .note("uftrace 0.13 derives the kernel address boundary from it; without it no user address resolves");
            sink.push(f);
        }
        let mut node =
            MapNode::new("session map", 0, d.len() as u64).value("modules", m.modules.len());
        if !tf.sessions.iter().any(|s| &s.sid == sid) && has_kind(kinds, &FileKind::TaskTxt) {
            sink.report(
                &rules::MODULE_WITHOUT_SYMBOLS,
                0..0,
                format!("no SESS line of task.txt has sid {sid}: this map belongs to no session"),
            );
        }
        for md in &m.modules {
            node.push(
                MapNode::new(
                    maps::basename(&md.path).to_string(),
                    md.span.start,
                    md.span.end.saturating_sub(md.span.start),
                )
                .value("start", format!("0x{:x}", md.start))
                .value("end", format!("0x{:x}", md.end)),
            );
        }
        nodes.insert(e.name.clone(), node);
        map_cache.insert(sid.clone(), Some(maps_decoded.len()));
        maps_decoded.push(m);
    }
    let mut maps_slots: Vec<Option<SessionMap>> = maps_decoded.into_iter().map(Some).collect();

    // Sessions: map each module to its symbol table.
    sink.set_file(Some("task.txt".into()));
    let mut seen_sids: HashSet<&str> = HashSet::new();
    let mut sid_to_sess: HashMap<String, usize> = HashMap::new();
    for s in &tf.sessions {
        let map = match map_cache.get(&s.sid) {
            Some(Some(i)) => maps_slots.get_mut(*i).and_then(Option::take),
            Some(None) => None,
            None => {
                sink.set_file(Some("task.txt".into()));
                sink.report(
                    &rules::SESSION_MAP_MISSING,
                    s.span.clone(),
                    format!(
                        "session {} has no sid-{}.map (uftrace: \"cannot open maps file\")",
                        s.sid, s.sid
                    ),
                );
                None
            }
        };
        seen_sids.insert(s.sid.as_str());
        let mut ctx = SessCtx {
            sid: s.sid.clone(),
            ..Default::default()
        };
        if let Some(m) = map {
            let map_file = format!("sid-{}.map", s.sid);
            for md in &m.modules {
                let t = find_table(syms, sym_by_name, &md.path, md.build_id.as_deref());
                let base = maps::basename(&md.path);
                sink.set_file(Some(map_file.clone()));
                match t {
                    Ok(ti) => ctx.module_syms.push(Some(ti)),
                    Err(Some(ti)) => {
                        // Decided after the task walks: whether the trace enters the module.
                        let tname = syms.get(ti).map(|t| t.file.as_str()).unwrap_or("?");
                        let f = sink.make(
                            &rules::SYM_MODULE_MISMATCH,
                            md.span.clone(),
                            format!(
                                "{tname} does not describe {} (its path name or build-id differ)",
                                md.path
                            ),
                        );
                        mismatched.push((ti, f));
                        ctx.module_syms.push(Some(ti));
                    }
                    Err(None) => {
                        if !base.starts_with("libmcount") && !base.starts_with("libstdc++") {
                            sink.report(
                                &rules::MODULE_WITHOUT_SYMBOLS,
                                md.span.clone(),
                                format!("module {} has no {base}.sym; uftrace reads the host's file instead", md.path),
                            );
                        }
                        ctx.module_syms.push(None);
                    }
                }
            }
            if !m.modules.iter().any(|md| md.path == s.exename) {
                sink.report(
                    &rules::MAP_MISSING_EXE,
                    0..0,
                    format!("the session's executable {} is not in the map", s.exename),
                );
            }
            ctx.map = Some(m);
        }
        sid_to_sess.insert(s.sid.clone(), sessions.len());
        sessions.push(ctx);
    }
    sink.set_file(Some("task.txt".into()));
    for d in &tf.dlopens {
        match sid_to_sess.get(&d.sid) {
            Some(&si) => {
                let base = maps::basename(&d.libname);
                let t = sym_by_name.get(&format!("{base}.sym")).copied();
                if t.is_none() {
                    sink.report(
                        &rules::MODULE_WITHOUT_SYMBOLS,
                        d.span.clone(),
                        format!("dlopen'ed library {} has no {base}.sym", d.libname),
                    );
                }
                if let Some(s) = sessions.get_mut(si) {
                    s.dlopens.push((d.ts, d.base, t));
                }
            }
            None => {
                let f = sink
                    .make(
                        &rules::DLOP_UNKNOWN_SESSION,
                        d.span.clone(),
                        format!("DLOP names session {}, which no SESS line defines", d.sid),
                    )
                    .note("uftrace 0.13 aborts on `ASSERT(s)` here");
                sink.push(f);
            }
        }
    }
    let malformed = malformed
        .into_iter()
        .map(|(path, f)| {
            let t = path.and_then(|p| match find_table(syms, sym_by_name, &p, None) {
                Ok(ti) | Err(Some(ti)) => Some(ti),
                Err(None) => None,
            });
            (t, f)
        })
        .collect();
    (sessions, mismatched, malformed)
}

fn onoff(b: bool) -> &'static str {
    if b {
        "set"
    } else {
        "clear"
    }
}

/// The symbol table describing a module: Ok(index) when path/build-id match; Err(Some) when
/// only a table of the same base name exists; Err(None) when there is none.
fn find_table(
    syms: &[SymTable],
    by_name: &HashMap<String, usize>,
    path: &str,
    build_id: Option<&str>,
) -> Result<usize, Option<usize>> {
    let base = maps::basename(path);
    // As uftrace's check_symbol_file/load_module_symbol: a table naming no path and no
    // build-id is used as it is; otherwise its path must equal the module's and a build-id on
    // both sides must agree.
    let matches = |t: &SymTable| {
        let path_ok = match (&t.path, &t.build_id) {
            (None, None) => true,
            (p, _) => p.as_deref() == Some(path),
        };
        path_ok
            && match (t.build_id.as_deref(), build_id) {
                // `strcmp`, as uftrace compares them.
                (Some(a), Some(b)) => a == b,
                _ => true,
            }
    };
    let plain = by_name.get(&format!("{base}.sym")).copied();
    if let Some(i) = plain {
        if syms.get(i).is_some_and(matches) {
            return Ok(i);
        }
    }
    // `<base>-XXXX.sym` alternatives.
    let prefix = format!("{base}-");
    for (i, t) in syms.iter().enumerate() {
        if t.file.starts_with(&prefix) && matches(t) {
            return Ok(i);
        }
    }
    Err(plain)
}

/// For each task, the sessions in force over time, as uftrace assigns them (utils/session.c,
/// 0.9.4–0.18.1), reading task.txt in order: a TASK or FORK line gives its task the latest
/// session of its pid (a FORK: of the parent) that starts no later than the line and was
/// defined before it, or else, for a new task, the parent's last session if that started
/// earlier; a record is looked up in its task's session intervals, then in its parent's (or its
/// process leader's). Entries are (start, session index), `usize::MAX` where no session is in
/// force.
fn build_timelines(tf: &TaskFile) -> HashMap<u64, Vec<(u64, usize)>> {
    struct T {
        pid: u64,
        ppid: u64,
        srefs: Vec<(u64, u64, usize)>,
    }
    let mut order: Vec<(u64, bool, usize)> = tf
        .sessions
        .iter()
        .enumerate()
        .map(|(i, s)| (s.span.start, true, i))
        .chain(
            tf.tasks
                .iter()
                .enumerate()
                .map(|(i, t)| (t.span.start, false, i)),
        )
        .collect();
    order.sort_by_key(|&(off, _, _)| off);
    let mut known: Vec<usize> = Vec::new();
    let mut tasks: HashMap<u64, T> = HashMap::new();
    let find_session = |known: &[usize], pid: u64, ts: u64| -> Option<usize> {
        let mut best: Option<(u64, usize)> = None;
        for &i in known {
            if let Some(s) = tf.sessions.get(i) {
                if s.pid == pid && s.ts <= ts && best.is_none_or(|(bt, _)| s.ts >= bt) {
                    best = Some((s.ts, i));
                }
            }
        }
        best.map(|(_, i)| i)
    };
    let add_ref = |t: &mut T, sess: usize, ts: u64| {
        if let Some(last) = t.srefs.last_mut() {
            last.1 = ts;
        }
        t.srefs.push((ts, u64::MAX, sess));
    };
    for (_, is_sess, i) in order {
        if is_sess {
            known.push(i);
            continue;
        }
        let Some(t) = tf.tasks.get(i) else { continue };
        let fork = t.ppid.is_some();
        let msg_pid = t.ppid.unwrap_or(t.pid);
        if let Some(old) = tasks.get_mut(&t.tid) {
            if let Some(si) = find_session(&known, msg_pid, t.ts) {
                add_ref(old, si, t.ts);
            }
            continue;
        }
        let parent_last = tasks
            .get(&msg_pid)
            .and_then(|p| p.srefs.last())
            .filter(|r| r.0 < t.ts)
            .map(|r| r.2);
        let mut new = T {
            pid: if fork { t.tid } else { msg_pid },
            ppid: if fork { msg_pid } else { 0 },
            srefs: Vec::new(),
        };
        if let Some(si) = find_session(&known, msg_pid, t.ts).or(parent_last) {
            add_ref(&mut new, si, t.ts);
        }
        tasks.insert(t.tid, new);
    }
    // The session of `tid` at `ts`: its own intervals, then its parent's or leader's.
    let at = |tid: u64, ts: u64| -> usize {
        let mut cur = tid;
        for _ in 0..64 {
            let Some(t) = tasks.get(&cur) else { break };
            if let Some(r) = t.srefs.iter().find(|r| r.0 <= ts && ts < r.1) {
                return r.2;
            }
            let parent = if t.ppid != 0 { t.ppid } else { t.pid };
            if parent == 0 || parent == cur {
                break;
            }
            cur = parent;
        }
        usize::MAX
    };
    let mut out = HashMap::new();
    for &tid in tasks.keys() {
        // Every interval boundary of the task and its ancestors.
        let mut points: Vec<u64> = Vec::new();
        let mut cur = tid;
        for _ in 0..64 {
            let Some(t) = tasks.get(&cur) else { break };
            for r in &t.srefs {
                points.push(r.0);
                if r.1 != u64::MAX {
                    points.push(r.1);
                }
            }
            let parent = if t.ppid != 0 { t.ppid } else { t.pid };
            if parent == 0 || parent == cur {
                break;
            }
            cur = parent;
        }
        points.sort_unstable();
        points.dedup();
        let mut tl: Vec<(u64, usize)> = Vec::new();
        for p in points {
            let s = at(tid, p);
            if tl.last().is_none_or(|&(_, last)| last != s) {
                tl.push((p, s));
            }
        }
        // Leading "no session" entries add nothing: before the first entry there is none.
        while tl.first().is_some_and(|&(_, s)| s == usize::MAX) {
            tl.remove(0);
        }
        out.insert(tid, tl);
    }
    out
}

#[cfg(test)]
mod cmdline_tests {
    use super::records_every_task;

    #[test]
    fn only_options_that_filter_nothing_record_every_task() {
        for c in [
            "uftrace record -d plain /tmp/bin/uf_basic",
            "uftrace record -d a -A leaf@arg1 -R leaf@retval --clock=boot -e ./p -F x",
            "uftrace record -d patch -P . /tmp/bin/uf_basic_pe",
            "uftrace record --keep-pid -b 4K --srcline prog",
        ] {
            assert!(records_every_task(c), "{c}");
        }
        for c in [
            "uftrace record -d f -F worker prog",
            "uftrace record -d n --no-libcall prog",
            "uftrace record -d p -P main prog",
            "uftrace record -d t -T top@depth=2 prog",
            "uftrace record -d x --unknown-option prog",
            "uftrace record -d",
            "uftrace replay -d x",
            "",
        ] {
            assert!(!records_every_task(c), "{c}");
        }
    }
}
