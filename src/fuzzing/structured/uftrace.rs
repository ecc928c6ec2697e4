//! The structure-aware model of uftrace data directories: an `arbitrary` model written by the format's
//! writer, rendered and run.

use super::gdb::*;
use super::mutation::*;
use crate::check::check_dir;
use crate::finding::Sink;
use crate::formats::uftrace::writer as uw;
use crate::fuzzing::image::*;
use crate::fuzzing::invariants::*;
use crate::fuzzing::raw::*;
use arbitrary::{Arbitrary, Unstructured};

pub use uw::TaskLine;

pub(crate) const INFO_KEYS: [&str; 16] = [
    "exename:",
    "build_id:",
    "exit_status:",
    "cmdline:",
    "cpuinfo:lines=",
    "cpuinfo:nr_cpus=",
    "cpuinfo:desc=",
    "meminfo:",
    "osinfo:lines=",
    "taskinfo:lines=",
    "taskinfo:nr_tid=",
    "taskinfo:tids=",
    "usageinfo:lines=",
    "argspec:lines=",
    "record_date:",
    "pattern_type:",
];

pub(crate) const FILE_NAMES: [&str; 10] = [
    "100.dat",
    "101.dat",
    "perf-cpu0.dat",
    "events.txt",
    "t.sym",
    "t.dbg",
    "extern.dat",
    "kernel_header",
    "default.opts",
    "sid-0123456789abcdef.map",
];

/// A uftrace data directory model, written through [`uw::minimal`] and edited.
#[derive(Arbitrary, Debug)]
pub struct UftraceModel {
    /// Records of task 100 (`None`: the writer's sound default).
    pub records: Option<Vec<uw::Record>>,
    /// `info` header fields: version, feature mask, info mask, max stack.
    pub header: Option<(u32, u64, u64, u16)>,
    /// Extra `info` lines: (key index, value).
    pub info_lines: Vec<(u8, String)>,
    /// Extra `task.txt` lines.
    pub task_lines: Vec<TaskLine>,
    /// Records of a second task (file `101.dat`).
    pub second_task: Option<Vec<uw::Record>>,
    /// Remove the file at this index (sorted by name).
    pub drop_file: Option<u8>,
    /// Files replaced or added: (name index, content).
    pub files: Vec<(u8, Vec<u8>)>,
    /// A kernel recording (`kernel_header`, `kernel-cpuN.dat`).
    pub kernel: Option<KernelModel>,
    /// Changes to one file: (file index, mutations).
    pub mutations: Vec<(u8, Vec<Mutation>)>,
}

/// The kernel side of a uftrace recording, as the writer writes it.
pub type KernelModel = uw::Kernel;

/// The files of a kernel recording of at most 4 event formats and 4 CPUs of bounded pages.
pub(crate) fn kernel_files(k: &KernelModel) -> Vec<(String, Vec<u8>)> {
    let bounded = uw::Kernel {
        events: k.events.iter().take(4).cloned().collect(),
        cpus: k
            .cpus
            .iter()
            .take(4)
            .map(|pages| bound_pages(pages, k.page_size()))
            .collect(),
        ..*k
    };
    bounded.files()
}

/// The directory image of a structured uftrace input.
pub fn render_uftrace(data: &[u8]) -> Option<Vec<u8>> {
    uftrace_build(data).map(|(_, image)| image)
}

/// Record counts of one task: (tid, records, entries, exits, events, lost).
pub type TaskCounts = (u32, u64, u64, u64, u64, u64);

/// The counts a task's records give, when every record is a bare 16-byte record (no
/// payload, no `more` flag: what is read then does not depend on argument specs).
pub(crate) fn task_counts(tid: u32, recs: &[uw::Record]) -> Option<TaskCounts> {
    let mut c = (tid, 0u64, 0u64, 0u64, 0u64, 0u64);
    for r in recs {
        if r.more || !r.payload.is_empty() {
            return None;
        }
        c.1 = c.1.checked_add(1)?;
        match r.typ & 3 {
            0 => c.2 = c.2.checked_add(1)?,
            1 => c.3 = c.3.checked_add(1)?,
            3 => c.4 = c.4.checked_add(1)?,
            _ => c.5 = c.5.checked_add(1)?,
        }
    }
    Some(c)
}

/// What a uftrace model says the check must count per task, when the directory is written
/// without changes (the writer's `info` header, no file replaced, dropped or edited) and
/// the model gives the records of task 100 and/or task 101 as bare records.
pub(crate) fn uftrace_expected(m: &UftraceModel) -> Option<Vec<TaskCounts>> {
    if m.header.is_some()
        || !m.files.is_empty()
        || m.drop_file.is_some()
        || m.mutations.iter().any(|(_, v)| !v.is_empty())
    {
        return None;
    }
    let mut want = Vec::new();
    if let Some(r) = &m.records {
        want.push(task_counts(100, r.get(..r.len().min(64))?)?);
    }
    if let Some(r) = &m.second_task {
        want.push(task_counts(101, r.get(..r.len().min(64))?)?);
    }
    (!want.is_empty()).then_some(want)
}

/// Checks a directory image written from a model and asserts the per-task record counts
/// the model gives ([`uftrace_expected`]).
pub fn uftrace_differential(image: &[u8], want: &[TaskCounts]) {
    let dir = decode_dir_image(image);
    let opts = fuzz_options(Some(crate::formats::uftrace::FORMAT));
    let mut sink = Sink::with_limits(&opts.limits);
    let map = check_dir(&dir, &opts, &mut sink);
    for &(tid, records, entry, exit, event, lost) in want {
        let label = format!("task {tid}");
        let Some(n) = find_node(&map, &label) else {
            panic!("no {label} in the structure map of a directory written with its records");
        };
        let val = |k: &str| -> Option<u64> {
            n.values
                .iter()
                .find(|(key, _)| key == k)
                .and_then(|(_, v)| v.parse().ok())
        };
        let got = (
            tid,
            val("records"),
            val("entry"),
            val("exit"),
            val("event"),
            val("lost"),
        );
        let want = (
            tid,
            Some(records),
            Some(entry),
            Some(exit),
            Some(event),
            Some(lost),
        );
        assert!(
            got == want,
            "{label}: records read (records, entry, exit, event, lost) {got:?}, written {want:?}"
        );
    }
}

/// A uftrace model's directory image, and the per-task counts when the model is sound.
pub fn uftrace_build(data: &[u8]) -> Option<(Option<Vec<TaskCounts>>, Vec<u8>)> {
    let m = UftraceModel::arbitrary_take_rest(Unstructured::new(data)).ok()?;
    let want = uftrace_expected(&m);
    let records = m.records.map(|r| cap(r, 64));
    let dir = uw::minimal(records.as_deref());
    let mut files: Vec<(String, Vec<u8>)> = dir.files().to_vec();
    let find = |files: &mut Vec<(String, Vec<u8>)>, name: &str| -> usize {
        match files.iter().position(|(n, _)| n == name) {
            Some(i) => i,
            None => {
                files.push((name.to_string(), Vec::new()));
                files.len().saturating_sub(1)
            }
        }
    };
    let info = find(&mut files, "info");
    if let Some(f) = files.get_mut(info) {
        if let Some((v, feat, mask, stack)) = m.header {
            let text = f.1.get(40..).unwrap_or_default().to_vec();
            f.1 = uw::info_header(v, feat, mask, stack);
            f.1.extend_from_slice(&text);
        }
        for (k, v) in m.info_lines.iter().take(12) {
            let key = INFO_KEYS
                .get(usize::from(*k) % INFO_KEYS.len())
                .copied()
                .unwrap_or("exename:");
            f.1.extend_from_slice(format!("{key}{v}\n").as_bytes());
        }
    }
    let task = find(&mut files, "task.txt");
    if let Some(f) = files.get_mut(task) {
        for t in m.task_lines.iter().take(8) {
            f.1.extend_from_slice(t.text().as_bytes());
        }
    }
    if let Some(r) = m.second_task {
        let i = find(&mut files, "101.dat");
        if let Some(f) = files.get_mut(i) {
            f.1 = uw::encode_records(&cap(r, 64));
        }
    }
    for (k, content) in m.files.iter().take(4) {
        let name = FILE_NAMES
            .get(usize::from(*k) % FILE_NAMES.len())
            .copied()
            .unwrap_or("100.dat");
        let i = find(&mut files, name);
        if let Some(f) = files.get_mut(i) {
            f.1 = cap(content.clone(), 4096);
        }
    }
    if let Some(k) = &m.kernel {
        for (name, data) in kernel_files(k) {
            let i = find(&mut files, &name);
            if let Some(f) = files.get_mut(i) {
                f.1 = data;
            }
        }
    }
    files.sort();
    if let Some(d) = m.drop_file {
        let i = usize::from(d);
        if i < files.len() {
            files.remove(i);
        }
    }
    for (k, muts) in m.mutations.iter().take(3) {
        let n = files.len().max(1);
        if let Some(f) = files.get_mut(usize::from(*k) % n) {
            apply(&mut f.1, muts);
        }
    }
    Some((want, encode_dir_image(&files)))
}

/// Structured uftrace: model → writer → edits → [`run_uftrace`]; a directory written
/// without changes is also compared with the model's records ([`uftrace_differential`]).
pub fn run_uftrace_structured(data: &[u8]) {
    if let Some((want, b)) = uftrace_build(data) {
        run_uftrace(&b);
        if let Some(want) = want {
            uftrace_differential(&b, &want);
        }
    }
}
