//! The records of all `perf-cpuN.dat` files together: the task ids of each record against
//! each other (`UF084`), the tasks the events are read for against the tasks the recording
//! created (`UF084`), and each task's switches in time order (`UF085`).

use super::super::decode::perf::{PerfKind, PerfRecord};
use super::super::decode::task::fmt_ts;
use super::super::rules;
use crate::finding::{Severity, Sink};
use std::collections::{HashMap, HashSet};

/// The records of one perf file, by file name.
pub(super) type PerfFile = (String, Vec<PerfRecord>);

/// Checks the perf records of the directory; `listed` are the tids of `task.txt`, `ended` tells
/// that `uftrace record` saw the traced program exit (`info`'s `exit_status` of 0 or more), `read` the
/// tasks uftrace files perf events under (`taskinfo:tids` with a data file), `last_ts` each
/// task's last record time in its data file.
pub(super) fn perf_tasks(
    files: &[PerfFile],
    (listed, ended): (&[u64], bool),
    read: &HashSet<u64>,
    last_ts: &HashMap<u64, u64>,
    sink: &mut Sink,
) {
    // No perf file: a recording without perf events (`--no-event`, or perf unavailable).
    if files.is_empty() {
        return;
    }
    let lost = files
        .iter()
        .flat_map(|(_, r)| r.iter())
        .any(|r| r.kind == PerfKind::Lost);
    let (created, twice, root) = created_tasks(files);
    let known = |tid: u32| created.contains(&tid) || listed.contains(&u64::from(tid));
    let created_twice = |tid: u32| twice.contains(&tid);
    // Tasks with events of their own (SWITCH, EXIT, a COMM not from an exec), or listed.
    let own: HashSet<u32> = files
        .iter()
        .flat_map(|(_, r)| r.iter())
        .filter(|r| {
            !matches!(
                r.kind,
                PerfKind::Task { exit: false, .. } | PerfKind::Comm { exec: true, .. }
            )
        })
        .filter_map(|r| r.reader_task().map(|t| t.0))
        .collect();
    let has_events = |tid: u32| own.contains(&tid) || listed.contains(&u64::from(tid));
    let is_read = |tid: u32| read.contains(&u64::from(tid));
    let mut reported: HashSet<(usize, u64)> = HashSet::new();
    for (fi, (name, recs)) in files.iter().enumerate() {
        sink.set_file(Some(name.clone()));
        for r in recs {
            other_type(r, &is_read, sink);
            if record_ids(r, &known, &has_events, &created_twice, &is_read, sink) {
                reported.insert((fi, r.off));
            }
        }
    }
    // What follows compares records across the perf files: it needs every record of the
    // recording. A LOST record says some are missing; so does a recorder stopped before its
    // end (no `exit_status`), whose per-CPU buffers were last flushed at moments of their own
    // (a killed `uftrace record` leaves switches and FORKs of one CPU after the last flush of
    // another: a task switched in twice, a task no FORK creates).
    if lost || !ended {
        sink.set_file(None);
        return;
    }
    uncreated_tasks(files, &created, &reported, sink);
    threads_without_exit(files, &is_read, sink);
    listed_without_exit(files, (root, ended), listed, &is_read, sink);
    let last = switch_order(files, &is_read, sink);
    records_after_last_out(files, &last, last_ts, &is_read, sink);
    sink.set_file(None);
}

/// The tasks a FORK creates (its child) or an exec COMM names (when its tid agrees with its
/// trailer's tid, its pid or its trailer's pid: a damaged trailer leaves the task it names),
/// and those created twice
/// (a FORK whose child tid became another task's), and the traced program's task.
fn created_tasks(files: &[PerfFile]) -> (HashSet<u32>, HashSet<u32>, Option<u32>) {
    let mut forked: HashSet<u32> = HashSet::new();
    let mut twice = HashSet::new();
    let mut root: Option<(u64, u32)> = None;
    for r in files.iter().flat_map(|(_, r)| r.iter()) {
        match (r.kind, r.sid) {
            (
                PerfKind::Task {
                    exit: false, tid, ..
                },
                _,
            ) if !forked.insert(tid) => {
                twice.insert(tid);
            }
            (
                PerfKind::Comm {
                    pid,
                    tid,
                    exec: true,
                },
                Some(s),
            ) if (s.tid == tid || pid == tid || s.pid == tid)
                && root.is_none_or(|(t, _)| s.time < t) =>
            {
                root = Some((s.time, tid));
            }
            _ => {}
        }
    }
    // The first exec is the traced program's (uftrace enables its event there); every other
    // task, one that execs later too, is forked inside the recording.
    forked.extend(root.map(|r| r.1));
    (forked, twice, root.map(|r| r.1))
}

/// One record's ids against each other; true when it reported something. An error needs the
/// tid uftrace reads to be the odd one and the record's owner (its trailer, for EXIT and COMM)
/// to be a task uftrace reads: an event of a task it does not read is dropped either way.
fn record_ids(
    r: &PerfRecord,
    known: &dyn Fn(u32) -> bool,
    has_events: &dyn Fn(u32) -> bool,
    created_twice: &dyn Fn(u32) -> bool,
    is_read: &dyn Fn(u32) -> bool,
    sink: &mut Sink,
) -> bool {
    let Some(s) = r.sid else { return false };
    let off = r.off;
    let (what, reader_bad) = match r.kind {
        PerfKind::Task { exit: false, pid, ppid, tid, ptid, .. } => {
            if pid != tid && pid != ppid {
                (
                    format!("FORK at 0x{off:x} has child pid {pid}, tid {tid} and parent pid {ppid}: a child is a new process (pid = tid) or a thread of its parent (pid = ppid)"),
                    !has_events(tid) || created_twice(tid),
                )
            } else if s.pid != ppid || s.tid != ptid {
                (
                    format!("FORK at 0x{off:x} has parent {ppid}/{ptid} but its trailer (the forking task) is {}/{}", s.pid, s.tid),
                    false,
                )
            } else {
                return false;
            }
        }
        PerfKind::Task { exit: true, pid, ppid, tid, ptid, .. } => {
            if s.tid != tid || s.pid != pid {
                (
                    format!("EXIT at 0x{off:x} is of task {pid}/{tid} but its trailer (the exiting task) is {}/{}", s.pid, s.tid),
                    // The trailer names the exiting task; when it is damaged too, the pid
                    // names its process.
                    s.tid != tid
                        && !known(tid)
                        && (is_read(s.tid) || (!known(s.tid) && is_read(pid))),
                )
            } else if ppid != ptid {
                (
                    format!("EXIT at 0x{off:x} has parent pid {ppid} and parent tid {ptid}; the kernel writes the parent's pid in both"),
                    false,
                )
            } else {
                return false;
            }
        }
        // The body's pid and the trailer's tid are two witnesses of the tid uftrace reads.
        PerfKind::Comm { pid, tid, exec: true } if s.tid != tid || s.pid != pid || pid != tid => (
            format!("exec COMM at 0x{off:x} is of task {pid}/{tid} with trailer {}/{}; after an exec the task is its process's leader and writes the record itself", s.pid, s.tid),
            tid != pid && (s.tid != tid || !known(tid)) && (is_read(s.tid) || is_read(pid)),
        ),
        _ => return false,
    };
    let (level, span, tail) = if reader_bad {
        (
            Severity::Error,
            r.body_tid_span(),
            "uftrace 0.9.4-0.18.1 file this event under that tid, which has no other event in the recording: the event is lost to the task it belongs to",
        )
    } else {
        (
            Severity::Warning,
            r.trailer_tid_span(),
            "uftrace 0.9.4-0.18.1 do not read the field that disagrees and show the same events",
        )
    };
    let f = sink
        .make(&rules::PERF_TASK_IDS, span, format!("{what}; {tail}"))
        .level(level);
    sink.push(f);
    true
}

/// A record of a type uftrace's perf event never gives: an error when it belongs to a task
/// uftrace reads (its event is lost), a warning when to one it drops either way.
fn other_type(r: &PerfRecord, is_read: &dyn Fn(u32) -> bool, sink: &mut Sink) {
    let PerfKind::Other { typ, owners } = r.kind else {
        return;
    };
    let off = r.off;
    let owner = owners
        .into_iter()
        .find(|&t| is_read(t))
        .unwrap_or(owners[0]);
    let (level, tail) = if is_read(owner) {
        (
            Severity::Error,
            format!("uftrace 0.9.4-0.18.1 skip it: the event of task {owner} is lost"),
        )
    } else {
        (
            Severity::Warning,
            format!("uftrace 0.9.4-0.18.1 skip it, and would drop the event of task {owner} (no data file) anyway"),
        )
    };
    let f = sink
        .make(
            &rules::PERF_RECORD_TYPE,
            off..off.saturating_add(4),
            format!("perf record at 0x{off:x} has type {typ}; uftrace's perf event (a dummy event with task, comm and context_switch) gives only COMM, EXIT, FORK, SWITCH and LOST; {tail}"),
        )
        .level(level);
    sink.push(f);
}

/// Events read for a task no FORK or exec created: reported once per task.
fn uncreated_tasks(
    files: &[PerfFile],
    created: &HashSet<u32>,
    reported: &HashSet<(usize, u64)>,
    sink: &mut Sink,
) {
    let mut seen: HashSet<u32> = HashSet::new();
    for (fi, (name, recs)) in files.iter().enumerate() {
        for r in recs {
            let creates = matches!(r.kind, PerfKind::Task { exit: false, .. });
            let Some((tid, _)) = r.reader_task() else {
                continue;
            };
            if creates || created.contains(&tid) || reported.contains(&(fi, r.off)) {
                continue;
            }
            if !seen.insert(tid) {
                continue;
            }
            let span = match r.kind {
                PerfKind::Switch { .. } => r.trailer_tid_span(),
                _ => r.body_tid_span(),
            };
            sink.set_file(Some(name.clone()));
            sink.report(
                &rules::PERF_TASK_IDS,
                span,
                format!(
                    "the record at 0x{:x} is read for task {tid}, which no FORK record creates and which is not the task of the first exec (the traced program, where uftrace enables its perf event; every task after it is forked inside the recording): the tid is damaged, or the task's FORK is damaged or was in a perf file that is cut or missing; either way uftrace 0.9.4-0.18.1 show other events than were recorded (a misfiled event, or a lost `task-new`)",
                    r.off
                ),
            );
        }
    }
}

/// The SWITCH records of all perf files as (time, file index, offset, tid, out), in time
/// order.
fn switches(files: &[PerfFile]) -> Vec<(u64, usize, u64, u32, bool)> {
    let mut sw: Vec<(u64, usize, u64, u32, bool)> = Vec::new();
    for (fi, (_, recs)) in files.iter().enumerate() {
        for r in recs {
            if let (PerfKind::Switch { out }, Some(s)) = (r.kind, r.sid) {
                sw.push((s.time, fi, r.off, s.tid, out));
            }
        }
    }
    sw.sort_unstable();
    sw
}

/// Per task, SWITCH records of all files in time order alternate out and in; an error for a
/// task uftrace reads, a warning for one it drops either way. Returns each task's last switch
/// (time, file, offset, out).
fn switch_order(
    files: &[PerfFile],
    is_read: &dyn Fn(u32) -> bool,
    sink: &mut Sink,
) -> HashMap<u32, LastSwitch> {
    let sw = switches(files);
    let mut last: HashMap<u32, LastSwitch> = HashMap::new();
    for &(time, fi, off, tid, out) in &sw {
        if let Some(&(t0, f0, o0, out0)) = last.get(&tid) {
            // Two switches at one nanosecond on two CPUs are read in either order.
            if out0 == out && t0 != time {
                let dir = if out { "out" } else { "in" };
                let prev = files.get(f0).map(|f| f.0.as_str()).unwrap_or("?");
                let name = files.get(fi).map(|f| f.0.clone());
                sink.set_file(name);
                let (level, tail) = if is_read(tid) {
                    (Severity::Error, "uftrace 0.9.4-0.18.1 show the task's scheduling events other than recorded")
                } else {
                    (Severity::Warning, "uftrace 0.9.4-0.18.1 do not read this task's events (it has no data file), so they read the same")
                };
                let f = sink
                    .make(
                        &rules::PERF_SWITCH_ORDER,
                        off.saturating_add(4)..off.saturating_add(6),
                        format!(
                            "task {tid} is switched {dir} at {time} (record at 0x{off:x}) after being switched {dir} at {t0} ({prev} at 0x{o0:x}) with no switch between: a SWITCH record of the task is damaged or missing; {tail}"
                        ),
                    )
                    .level(level);
                sink.push(f);
            }
        }
        last.insert(tid, (time, fi, off, out));
    }
    last
}

/// One stretch of time a task spent switched out: from a switch-out to its next switch-in,
/// with where each record is (perf file index, offset).
#[derive(Clone, Copy, Debug)]
pub(crate) struct OutInterval {
    /// Time of the switch-out.
    pub out: u64,
    /// Time of the next switch-in.
    pub back: u64,
    /// The switch-out record: file index, offset.
    pub out_at: (usize, u64),
    /// The switch-in record: file index, offset.
    pub back_at: (usize, u64),
}

/// Per task, the stretches between a switch-out and the next switch-in in the perf files
/// (all files together, in time order), for a recording that ran to its end without a LOST
/// record: a task switched out runs no code, so its data file has no record inside one
/// (what [`records_after_last_out`] checks after the last switch-out, for the stretches that
/// end). Empty otherwise. Memory is bounded by the perf records already decoded.
pub(crate) fn switched_out_intervals(
    files: &[PerfFile],
    ended: bool,
) -> HashMap<u64, Vec<OutInterval>> {
    let mut by_task: HashMap<u64, Vec<OutInterval>> = HashMap::new();
    let lost = files
        .iter()
        .flat_map(|(_, r)| r.iter())
        .any(|r| r.kind == PerfKind::Lost);
    if lost || !ended {
        return by_task;
    }
    let sw = switches(files);
    let mut open: HashMap<u32, (u64, usize, u64)> = HashMap::new();
    for (time, fi, off, tid, out) in sw {
        if out {
            open.insert(tid, (time, fi, off));
        } else if let Some((t0, f0, o0)) = open.remove(&tid) {
            if t0 < time {
                by_task
                    .entry(u64::from(tid))
                    .or_default()
                    .push(OutInterval {
                        out: t0,
                        back: time,
                        out_at: (f0, o0),
                        back_at: (fi, off),
                    });
            }
        }
    }
    by_task
}

/// A record of task `tid` at `off` of its data file, at `time`, inside the switched-out
/// stretch `iv` (found by the walk of the data file).
pub(crate) fn record_while_out(
    sink: &mut Sink,
    (tid, off, time): (u64, u64, u64),
    iv: &OutInterval,
    perf_names: &[String],
) {
    let name = |(fi, _): (usize, u64)| perf_names.get(fi).map_or("?", String::as_str);
    let msg = format!(
        "task {tid}'s record at {} lies between its switch-out at {} ({} at 0x{:x}) and its next switch-in at {} ({} at 0x{:x}): a task switched out runs no code, so it ran on a CPU whose switch records (in, then out) are missing, from a perf-cpu<N>.dat removed or cut at a record boundary; uftrace 0.9.4-0.18.1 show the task's scheduling events without them",
        fmt_ts(time),
        fmt_ts(iv.out),
        name(iv.out_at),
        iv.out_at.1,
        fmt_ts(iv.back),
        name(iv.back_at),
        iv.back_at.1,
    );
    let f = sink
        .make(&rules::PERF_SWITCH_ORDER, off..off.saturating_add(8), msg)
        .fails("uftrace", "0.9.4–0.18.1", "loss");
    sink.push(f);
}

/// A task's last switch: time, file index, offset, out.
type LastSwitch = (u64, usize, u64, bool);

/// A task whose last switch is out runs no more code: a record in its data file after that
/// time means a later switch-in (and what follows) is missing from the perf files. A task
/// that exits writes its EXIT while running, and its events go with it, so its last switch
/// is in. Only for a recording that ran to its end (`uftrace record` reads the perf buffers
/// last, after every task ended); a killed recorder's perf files may end before its tasks'.
fn records_after_last_out(
    files: &[PerfFile],
    last: &HashMap<u32, LastSwitch>,
    last_ts: &HashMap<u64, u64>,
    is_read: &dyn Fn(u32) -> bool,
    sink: &mut Sink,
) {
    let mut tids: Vec<&u32> = last.keys().collect();
    tids.sort_unstable();
    for &tid in tids {
        let Some(&(time, fi, off, true)) = last.get(&tid) else {
            continue;
        };
        let Some(&rec) = last_ts.get(&u64::from(tid)) else {
            continue;
        };
        if rec <= time || !is_read(tid) {
            continue;
        }
        sink.set_file(files.get(fi).map(|f| f.0.clone()));
        sink.report(
            &rules::PERF_SWITCH_ORDER,
            off.saturating_add(4)..off.saturating_add(6),
            format!(
                "task {tid}'s last switch in the perf files is out, at {time} (record at 0x{off:x}), but its data file has records until {rec}: a task switched out runs no code, so its later switch-in (and what followed) is missing, from a perf file cut at a record boundary or removed; uftrace 0.9.4-0.18.1 show the task's scheduling events without them"
            ),
        );
    }
}

/// The threads of a process whose leader's EXIT is recorded each have an EXIT: a process ends
/// when its last thread does, and every thread writes its own EXIT (`perf_event_exit_task`).
fn threads_without_exit(files: &[PerfFile], is_read: &dyn Fn(u32) -> bool, sink: &mut Sink) {
    let mut exited: HashSet<u32> = HashSet::new();
    let mut threads: Vec<(usize, &PerfRecord, u32, u32)> = Vec::new();
    for (fi, (_, recs)) in files.iter().enumerate() {
        for r in recs {
            match r.kind {
                PerfKind::Task {
                    exit: true, tid, ..
                } => {
                    exited.insert(tid);
                }
                PerfKind::Task {
                    exit: false,
                    pid,
                    tid,
                    ..
                } if pid != tid => {
                    threads.push((fi, r, pid, tid));
                }
                _ => {}
            }
        }
    }
    for (fi, r, pid, tid) in threads {
        if !exited.contains(&pid) || exited.contains(&tid) {
            continue;
        }
        let (level, tail) = if is_read(tid) {
            (
                Severity::Error,
                "uftrace 0.9.4-0.18.1 show the thread without its last events",
            )
        } else {
            (
                Severity::Warning,
                "uftrace 0.9.4-0.18.1 do not read this thread's events (it has no data file)",
            )
        };
        let name = files.get(fi).map(|f| f.0.clone());
        sink.set_file(name);
        let f = sink
            .make(
                &rules::PERF_TASK_EXIT,
                r.body_tid_span(),
                format!(
                    "thread {tid} of process {pid} (FORK at 0x{:x}) has no EXIT record, but the process's leader exited: a perf file that held the thread's last records is cut or missing, or the record is damaged; {tail}",
                    r.off
                ),
            )
            .level(level);
        sink.push(f);
    }
}

/// When the traced program's task exited, so did every task of `task.txt`: `uftrace record`
/// waits until each task it was told of has exited (cmds/record.c `check_tid_list`) before it
/// reads the perf buffers a last time, and each wrote its EXIT.
fn listed_without_exit(
    files: &[PerfFile],
    (root, ended): (Option<u32>, bool),
    listed: &[u64],
    is_read: &dyn Fn(u32) -> bool,
    sink: &mut Sink,
) {
    let mut exited: HashSet<u32> = HashSet::new();
    let mut root_exit: Option<(usize, u64)> = None;
    for (fi, (_, recs)) in files.iter().enumerate() {
        for r in recs {
            if let PerfKind::Task {
                exit: true, tid, ..
            } = r.kind
            {
                exited.insert(tid);
                if Some(tid) == root {
                    root_exit = Some((fi, r.off));
                }
            }
        }
    }
    // Without the program's EXIT, `info`'s exit status tells that the recording ran to the end.
    let (fi, off, why) = match root_exit {
        Some((fi, off)) => (
            fi,
            off,
            format!(
                "the traced program's task {} exited (EXIT at 0x{off:x})",
                root.unwrap_or(0)
            ),
        ),
        None if ended => (
            0,
            0,
            "info's exit_status says uftrace record saw the traced program exit".to_string(),
        ),
        None => return,
    };
    let mut missing: Vec<u32> = listed
        .iter()
        .filter_map(|&t| u32::try_from(t).ok())
        .filter(|t| !exited.contains(t))
        .collect();
    missing.sort_unstable();
    missing.dedup();
    for tid in missing {
        let (level, tail) = if is_read(tid) {
            (
                Severity::Error,
                "uftrace 0.9.4-0.18.1 show the task without its last events",
            )
        } else {
            (
                Severity::Warning,
                "uftrace 0.9.4-0.18.1 do not read this task's events (it has no data file)",
            )
        };
        sink.set_file(files.get(fi).map(|f| f.0.clone()));
        let f = sink
            .make(
                &rules::PERF_TASK_EXIT,
                off..off.saturating_add(if root_exit.is_some() { 8 } else { 0 }),
                format!(
                    "task {tid} of task.txt has no EXIT record, but {why}, and uftrace record waits for every task before it reads the perf buffers a last time: a perf file that held the task's last records is cut or missing, or the record is damaged; {tail}"
                ),
            )
            .level(level);
        sink.push(f);
    }
}
