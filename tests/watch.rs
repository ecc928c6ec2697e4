//! The spool daemon, run as a real process on real directories.
//!
//! Every test bounds its waits; a daemon left running is killed when its handle drops.

mod common;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::ffi::OsString;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant, SystemTime};
use tracelint::check::{check_path, CheckOptions};
use tracelint::config::Config;
use tracelint::input::LoadMode;

const VERDICTS: [&str; 3] = ["accepted", "rejected", "quarantine"];
const SIDECAR: &str = ".tracelint.json";

/// `tracelint watch` once the command line has it; the `watch` example until then.
fn daemon_command() -> Command {
    static BIN: OnceLock<(PathBuf, bool)> = OnceLock::new();
    let (bin, sub) = BIN.get_or_init(|| {
        let cli = PathBuf::from(env!("CARGO_BIN_EXE_tracelint"));
        let has_watch = Command::new(&cli)
            .args(["watch", "--help"])
            .stderr(Stdio::null())
            .output()
            .map(|o| o.status.success() && String::from_utf8_lossy(&o.stdout).contains("--settle"))
            .unwrap_or(false);
        if has_watch {
            (cli, true)
        } else {
            let ex = cli
                .parent()
                .unwrap()
                .join("examples")
                .join(format!("watch{}", std::env::consts::EXE_SUFFIX));
            assert!(
                ex.exists(),
                "neither `tracelint watch` nor {} exist",
                ex.display()
            );
            (ex, false)
        }
    });
    let mut c = Command::new(bin);
    if *sub {
        c.arg("watch");
    }
    c
}

struct Daemon {
    child: Option<Child>,
    stderr: PathBuf,
}

impl Daemon {
    fn start(spool: &Path, extra: &[&str]) -> Daemon {
        Self::start_in(spool, extra, spool.parent().unwrap())
    }

    fn start_in(spool: &Path, extra: &[&str], cwd: &Path) -> Daemon {
        static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let stderr = cwd.join(format!("daemon-{}-{n}.stderr", std::process::id()));
        let mut c = daemon_command();
        c.arg(spool);
        if !extra.contains(&"--jobs") {
            c.args(["--jobs", "2"]);
        }
        c.args(extra)
            .current_dir(cwd)
            .env("TRACELINT_LOG", "info")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(fs::File::create(&stderr).unwrap());
        let child = c.spawn().expect("start the daemon");
        Daemon {
            child: Some(child),
            stderr,
        }
    }

    fn pid(&self) -> u32 {
        self.child.as_ref().unwrap().id()
    }

    fn stderr(&self) -> String {
        fs::read_to_string(&self.stderr).unwrap_or_default()
    }

    /// Waits until the daemon logged that it watches `new/`.
    fn wait_armed(&self) {
        let ok = wait_until(PATIENCE, || self.stderr().contains("watching"));
        assert!(ok, "daemon did not arm its watcher:\n{}", self.stderr());
    }

    fn signal(&self, sig: &str) {
        let st = Command::new("kill")
            .args([&format!("-{sig}"), &self.pid().to_string()])
            .status()
            .unwrap();
        assert!(st.success());
    }

    /// Waits for exit; returns the exit code.
    fn wait(&mut self, limit: Duration) -> i32 {
        let start = Instant::now();
        let child = self.child.as_mut().unwrap();
        loop {
            if let Some(st) = child.try_wait().unwrap() {
                self.child = None;
                return st.code().unwrap_or(-1);
            }
            if start.elapsed() > limit {
                let _ = child.kill();
                let _ = child.wait();
                self.child = None;
                panic!("daemon did not exit within {limit:?}:\n{}", self.stderr());
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    fn stop(&mut self) -> i32 {
        self.signal("TERM");
        self.wait(PATIENCE)
    }

    fn kill9(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        self.kill9();
    }
}

/// How long a test waits for the daemon to do something before it calls it hung: a guard
/// against waiting forever, far beyond what any machine, however loaded, takes; never a
/// claim about speed.
const PATIENCE: Duration = Duration::from_secs(600);

fn wait_until(limit: Duration, mut f: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    loop {
        if f() {
            return true;
        }
        if start.elapsed() > limit {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn corpus(p: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus").join(p)
}

fn gdb_files() -> Vec<Vec<u8>> {
    let mut v: Vec<(PathBuf, Vec<u8>)> = fs::read_dir(corpus("gdb"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "tf"))
        .map(|p| {
            let d = fs::read(&p).unwrap();
            (p, d)
        })
        .collect();
    v.sort();
    assert!(!v.is_empty());
    v.into_iter().map(|(_, d)| d).collect()
}

/// Delivers `data` as `new/<name>` the Maildir way: write in tmp/, then rename.
fn deliver(spool: &Path, name: &str, data: &[u8]) {
    let tmp = spool.join("tmp").join(format!("{name}.part"));
    fs::write(&tmp, data).unwrap();
    fs::rename(&tmp, spool.join("new").join(name)).unwrap();
}

/// The verdict the library gives `path` (what the daemon must agree with).
fn expected_verdict(path: &Path, config: &Config) -> &'static str {
    let opts = CheckOptions {
        limits: config.limits.clone(),
        load_mode: LoadMode::Read,
        ..CheckOptions::default()
    };
    let r = check_path(path, &opts, config);
    let unjudged = ["TL001", "TL003", "TL004", "TL007"];
    if r.io_failed || r.findings.iter().any(|f| unjudged.contains(&f.rule.code)) {
        "quarantine"
    } else if r.counts.error > 0 {
        "rejected"
    } else {
        "accepted"
    }
}

/// Data entries (not sidecars) of each verdict folder: name → folder.
fn placed(spool: &Path) -> Vec<(String, &'static str)> {
    let mut out = Vec::new();
    for v in VERDICTS {
        let Ok(rd) = fs::read_dir(spool.join(v)) else {
            continue;
        };
        for e in rd.flatten() {
            let n = e.file_name().to_string_lossy().into_owned();
            if !n.ends_with(SIDECAR) {
                out.push((n, v));
            }
        }
    }
    out
}

fn count_placed(spool: &Path) -> usize {
    placed(spool).len()
}

fn sidecar(spool: &Path, verdict: &str, name: &str) -> serde_json::Value {
    let p = spool.join(verdict).join(format!("{name}{SIDECAR}"));
    let text = fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    serde_json::from_str(&text).unwrap()
}

fn log_lines(path: &Path) -> Vec<serde_json::Value> {
    fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad log line {l:?}: {e}")))
        .collect()
}

fn dir_entries(p: &Path) -> Vec<OsString> {
    fs::read_dir(p)
        .map(|rd| rd.flatten().map(|e| e.file_name()).collect())
        .unwrap_or_default()
}

/// Tiny deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn seeded() -> Rng {
        let seed = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap()
            .as_nanos() as u64
            | 1;
        eprintln!("rng seed {seed}");
        Rng(seed)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// A mixed set of inputs: good GDB tfiles, truncated copies, garbage, empty files.
fn mixed_inputs(n: usize, rng: &mut Rng) -> Vec<(String, Vec<u8>)> {
    let good = gdb_files();
    (0..n)
        .map(|i| {
            let g = &good[i % good.len()];
            let data = match i % 4 {
                0 | 1 => g.clone(),
                2 => g[..(rng.below(g.len() as u64 - 1) as usize).max(1)].to_vec(),
                _ => {
                    if i % 8 == 3 {
                        Vec::new()
                    } else {
                        (0..(rng.below(200) + 1))
                            .map(|_| rng.next() as u8)
                            .collect()
                    }
                }
            };
            (format!("in-{i:05}.tf"), data)
        })
        .collect()
}

/// Asserts each input ended, byte-identical, exactly once in the right folder with a report.
fn assert_all_placed(spool: &Path, inputs: &[(String, Vec<u8>)], config: &Config) {
    let mut where_: HashMap<String, Vec<&str>> = HashMap::new();
    for (n, v) in placed(spool) {
        where_.entry(n).or_default().push(v);
    }
    let scratch = spool.parent().unwrap().join("expect.tmp");
    for (name, data) in inputs {
        let got = where_
            .get(name)
            .unwrap_or_else(|| panic!("{name} is in no verdict folder"));
        assert_eq!(got.len(), 1, "{name} placed {} times: {got:?}", got.len());
        let v = got[0];
        let path = spool.join(v).join(name);
        assert_eq!(&fs::read(&path).unwrap(), data, "{name} changed");
        fs::write(&scratch, data).unwrap();
        assert_eq!(
            v,
            expected_verdict(&scratch, config),
            "{name} in the wrong folder"
        );
        let s = sidecar(spool, v, name);
        assert_eq!(s["schema_version"], 1);
        assert_eq!(s["watch"]["verdict"], v);
        assert_eq!(s["watch"]["name"], name.as_str());
        assert_eq!(s["size"], data.len() as u64);
        assert!(s["findings"].is_array());
    }
    assert_eq!(
        where_.len(),
        inputs.len(),
        "unexpected entries in verdict folders"
    );
    let work: Vec<_> = dir_entries(&spool.join("work"));
    assert!(work.is_empty(), "work/ not empty: {work:?}");
    let new = dir_entries(&spool.join("new"));
    assert!(new.is_empty(), "new/ not empty: {new:?}");
}

#[test]
fn thousand_mixed_files_each_judged_once_with_report() {
    let dir = tempfile::tempdir().unwrap();
    let spool = dir.path().join("spool");
    let log = dir.path().join("events.jsonl");
    let prom = dir.path().join("tracelint.prom");
    let mut d = Daemon::start(
        &spool,
        &[
            "--log",
            log.to_str().unwrap(),
            "--metrics-file",
            prom.to_str().unwrap(),
        ],
    );
    d.wait_armed();
    let mut rng = Rng::seeded();
    let inputs = mixed_inputs(1000, &mut rng);
    for (n, data) in &inputs {
        deliver(&spool, n, data);
    }
    let ok = wait_until(PATIENCE, || count_placed(&spool) >= inputs.len());
    assert!(
        ok,
        "only {} of 1000 judged:\n{}",
        count_placed(&spool),
        d.stderr()
    );
    assert_eq!(d.stop(), 0);
    assert_all_placed(&spool, &inputs, &Config::default());

    let lines = log_lines(&log);
    assert_eq!(lines.len(), 1000);
    let names: BTreeSet<&str> = lines.iter().map(|l| l["name"].as_str().unwrap()).collect();
    assert_eq!(names.len(), 1000);
    for l in &lines {
        for k in ["ts", "path", "verdict", "counts", "duration_ms", "format"] {
            assert!(l.get(k).is_some(), "log line without {k}: {l}");
        }
        assert_eq!(l["event"], "verdict");
    }
    let prom = fs::read_to_string(&prom).unwrap();
    let by_verdict: BTreeMap<&str, usize> = VERDICTS
        .iter()
        .map(|v| (*v, lines.iter().filter(|l| l["verdict"] == *v).count()))
        .collect();
    for (v, n) in by_verdict {
        assert!(
            prom.contains(&format!(
                "tracelint_watch_files_total{{verdict=\"{v}\"}} {n}\n"
            )),
            "{v}={n} not in metrics:\n{prom}"
        );
    }
    assert!(prom.contains("tracelint_watch_check_duration_seconds_count 1000\n"));
}

#[test]
fn settle_never_judges_a_half_written_file() {
    let dir = tempfile::tempdir().unwrap();
    let spool = dir.path().join("spool");
    let log = dir.path().join("events.jsonl");
    let mut d = Daemon::start(
        &spool,
        &["--settle", "600ms", "--log", log.to_str().unwrap()],
    );
    d.wait_armed();
    let good = gdb_files();
    let writers: Vec<_> = (0..4)
        .map(|i| {
            let path = spool.join("new").join(format!("slow-{i}.tf"));
            let data = good[i % good.len()].clone();
            std::thread::spawn(move || {
                let chunks: Vec<&[u8]> = data.chunks(data.len() / 8 + 1).collect();
                let mut last = SystemTime::now();
                if i % 2 == 0 {
                    // One open file, written with pauses shorter than the settle period.
                    let mut f = fs::File::create(&path).unwrap();
                    for c in chunks {
                        std::thread::sleep(Duration::from_millis(200));
                        f.write_all(c).unwrap();
                        f.flush().unwrap();
                        last = SystemTime::now();
                    }
                } else {
                    // Reopened in append mode for every chunk (a close after each write).
                    for c in chunks {
                        let mut f = fs::OpenOptions::new()
                            .create(true)
                            .append(true)
                            .open(&path)
                            .unwrap();
                        f.write_all(c).unwrap();
                        drop(f);
                        last = SystemTime::now();
                        std::thread::sleep(Duration::from_millis(200));
                    }
                }
                (path, data, last)
            })
        })
        .collect();
    // While writers run, nothing may be judged.
    let start = Instant::now();
    while start.elapsed() < Duration::from_millis(1500) {
        assert_eq!(count_placed(&spool), 0, "judged while being written");
        std::thread::sleep(Duration::from_millis(25));
    }
    let results: Vec<_> = writers.into_iter().map(|w| w.join().unwrap()).collect();
    let ok = wait_until(PATIENCE, || count_placed(&spool) >= 4);
    assert!(ok, "settled files not judged:\n{}", d.stderr());
    assert_eq!(d.stop(), 0);
    for (path, data, finished) in results {
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        let (_, v) = placed(&spool)
            .into_iter()
            .find(|(n, _)| *n == name)
            .unwrap();
        assert_eq!(fs::read(spool.join(v).join(&name)).unwrap(), data);
        let s = sidecar(&spool, v, &name);
        assert_eq!(
            s["size"],
            data.len() as u64,
            "{name} judged before complete"
        );
        let line = log_lines(&log)
            .into_iter()
            .find(|l| l["name"] == name.as_str())
            .unwrap();
        let judged_ms = line["unix_ms"].as_f64().unwrap();
        let finished_ms = finished
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap()
            .as_secs_f64()
            * 1000.0;
        assert!(
            judged_ms >= finished_ms + 500.0,
            "{name} judged {} ms after its last write",
            judged_ms - finished_ms
        );
    }
}

#[test]
fn kill_dash_nine_loses_nothing_and_judges_once() {
    let dir = tempfile::tempdir().unwrap();
    let spool = dir.path().join("spool");
    for sub in ["tmp", "new"] {
        fs::create_dir_all(spool.join(sub)).unwrap();
    }
    let mut rng = Rng::seeded();
    let inputs = mixed_inputs(600, &mut rng);
    let mut next = 0usize;
    let mut logs = Vec::new();
    // A longer campaign: TRACELINT_KILL_RUNS=100 TRACELINT_KILL_DAEMONS=2.
    let env = |k: &str, d: usize| {
        std::env::var(k)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(d)
    };
    let runs = env("TRACELINT_KILL_RUNS", 24);
    let daemons = env("TRACELINT_KILL_DAEMONS", 1).max(1);
    for run in 0..runs {
        let mut ds = Vec::new();
        for k in 0..daemons {
            let log = dir.path().join(format!("events-{run}-{k}.jsonl"));
            ds.push(Daemon::start(&spool, &["--log", log.to_str().unwrap()]));
            logs.push(log);
        }
        let kill_after = Duration::from_millis(30 + rng.below(250));
        let start = Instant::now();
        let per_run = inputs.len() / runs + 1;
        let mut sent = 0;
        while start.elapsed() < kill_after {
            if sent < per_run && next < inputs.len() {
                let (n, data) = &inputs[next];
                deliver(&spool, n, data);
                next += 1;
                sent += 1;
            }
            std::thread::sleep(Duration::from_micros(200 + rng.below(2000)));
        }
        for d in &mut ds {
            d.kill9();
        }
    }
    while next < inputs.len() {
        let (n, data) = &inputs[next];
        deliver(&spool, n, data);
        next += 1;
    }
    // A clean final pass takes over every leftover.
    let log = dir.path().join("events-final.jsonl");
    let mut d = Daemon::start(&spool, &["--once", "--log", log.to_str().unwrap()]);
    assert_eq!(d.wait(PATIENCE), 0, "{}", d.stderr());
    eprintln!(
        "final pass took over {} claim(s) left by killed daemons",
        d.stderr().matches("taking over").count()
    );
    logs.push(log);
    assert_all_placed(&spool, &inputs, &Config::default());

    // No input was judged twice: at most one fresh verdict line per name (a line may be lost
    // when the kill lands between the move and the log write; a take-over then logs it as
    // recovered without judging again).
    let mut fresh: HashMap<String, usize> = HashMap::new();
    let all: Vec<_> = logs.iter().flat_map(|p| log_lines(p)).collect();
    // Every placed input has its verdict line: a kill between the move and the log write
    // leaves the input's trace in work/, and the take-over logs it.
    let logged: BTreeSet<(String, String)> = all
        .iter()
        .map(|l| {
            let p = Path::new(l["path"].as_str().unwrap());
            let folder = p.parent().unwrap().file_name().unwrap();
            (
                folder.to_string_lossy().into_owned(),
                p.file_name().unwrap().to_string_lossy().into_owned(),
            )
        })
        .collect();
    let placed_now = placed(&spool);
    let missing: Vec<_> = placed_now
        .iter()
        .filter(|(n, v)| !logged.contains(&(v.to_string(), n.clone())))
        .collect();
    eprintln!(
        "{} kills, {} inputs placed, {} missing event-log lines",
        runs * daemons,
        placed_now.len(),
        missing.len()
    );
    assert!(
        missing.is_empty(),
        "placed without a verdict line: {missing:?}"
    );
    eprintln!(
        "{} verdict lines, {} completed after a take-over without judging again",
        all.len(),
        all.iter().filter(|l| l["recovered"] == true).count()
    );
    for l in all {
        if l["recovered"] == false {
            *fresh
                .entry(l["name"].as_str().unwrap().to_string())
                .or_default() += 1;
        }
    }
    for (n, c) in fresh {
        assert_eq!(c, 1, "{n} judged {c} times");
    }
}

#[test]
fn lost_events_are_recovered_by_rescans() {
    let dir = tempfile::tempdir().unwrap();
    let spool = dir.path().join("spool");
    let prom = dir.path().join("m.prom");
    // An event channel of 4 overflows with any burst.
    let mut d = Daemon::start(
        &spool,
        &[
            "--event-queue",
            "4",
            "--queue",
            "50",
            "--metrics-file",
            prom.to_str().unwrap(),
        ],
    );
    d.wait_armed();
    let mut rng = Rng::seeded();
    let inputs = mixed_inputs(800, &mut rng);
    for (n, data) in &inputs {
        deliver(&spool, n, data);
    }
    let ok = wait_until(PATIENCE, || count_placed(&spool) >= inputs.len());
    assert!(ok, "only {} judged:\n{}", count_placed(&spool), d.stderr());
    std::thread::sleep(Duration::from_millis(1200));
    assert_eq!(d.stop(), 0);
    assert_all_placed(&spool, &inputs, &Config::default());
    let m = fs::read_to_string(&prom).unwrap();
    let overflows: u64 = m
        .lines()
        .find_map(|l| l.strip_prefix("tracelint_watch_overflows_total "))
        .unwrap()
        .parse()
        .unwrap();
    assert!(overflows > 0, "no overflow recorded:\n{m}");
    assert!(d.stderr().contains("rescanning") || d.stderr().contains("queue full"));
}

/// Restores `/proc/sys/fs/inotify/max_queued_events` when dropped.
struct SysctlGuard(PathBuf, String);

impl Drop for SysctlGuard {
    fn drop(&mut self) {
        let _ = fs::write(&self.0, &self.1);
    }
}

#[test]
fn kernel_queue_overflow_is_recovered() {
    let knob = PathBuf::from("/proc/sys/fs/inotify/max_queued_events");
    let Ok(old) = fs::read_to_string(&knob) else {
        common::skip_or_fail(&format!("{} not readable", knob.display()));
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let spool = dir.path().join("spool");
    let prom = dir.path().join("m.prom");
    let mut d = {
        if fs::write(&knob, "32").is_err() {
            common::skip_or_fail(&format!("cannot lower {} (not root)", knob.display()));
            return;
        }
        // The limit applies to inotify instances created while it is low: only the daemon's.
        let _restore = SysctlGuard(knob.clone(), old.trim().to_string());
        let d = Daemon::start(&spool, &["--metrics-file", prom.to_str().unwrap()]);
        d.wait_armed();
        d
    };
    assert_eq!(fs::read_to_string(&knob).unwrap().trim(), old.trim());
    // Stop the daemon from reading events for a moment, then burst.
    d.signal("STOP");
    let mut rng = Rng::seeded();
    let inputs = mixed_inputs(400, &mut rng);
    for (n, data) in &inputs {
        deliver(&spool, n, data);
    }
    d.signal("CONT");
    let ok = wait_until(PATIENCE, || count_placed(&spool) >= inputs.len());
    assert!(ok, "only {} judged:\n{}", count_placed(&spool), d.stderr());
    std::thread::sleep(Duration::from_millis(1200));
    assert_eq!(d.stop(), 0);
    assert_all_placed(&spool, &inputs, &Config::default());
    assert!(
        d.stderr().contains("kernel queue overflow"),
        "no overflow seen:\n{}",
        d.stderr()
    );
}

#[test]
fn poll_watcher_judges_a_burst() {
    let dir = tempfile::tempdir().unwrap();
    let spool = dir.path().join("spool");
    let mut d = Daemon::start(&spool, &["--poll", "100ms"]);
    d.wait_armed();
    let mut rng = Rng::seeded();
    let inputs = mixed_inputs(300, &mut rng);
    for (n, data) in &inputs {
        deliver(&spool, n, data);
    }
    let ok = wait_until(PATIENCE, || count_placed(&spool) >= inputs.len());
    assert!(ok, "only {} judged:\n{}", count_placed(&spool), d.stderr());
    assert_eq!(d.stop(), 0);
    assert_all_placed(&spool, &inputs, &Config::default());
}

#[test]
fn two_daemons_judge_each_file_exactly_once() {
    let dir = tempfile::tempdir().unwrap();
    let spool = dir.path().join("spool");
    let (la, lb) = (dir.path().join("a.jsonl"), dir.path().join("b.jsonl"));
    let mut a = Daemon::start(&spool, &["--log", la.to_str().unwrap()]);
    let mut b = Daemon::start(&spool, &["--log", lb.to_str().unwrap()]);
    a.wait_armed();
    b.wait_armed();
    for sub in ["tmp", "new"] {
        fs::create_dir_all(spool.join(sub)).unwrap();
    }
    let mut rng = Rng::seeded();
    let inputs = mixed_inputs(600, &mut rng);
    for (n, data) in &inputs {
        deliver(&spool, n, data);
    }
    let ok = wait_until(PATIENCE, || count_placed(&spool) >= inputs.len());
    assert!(ok, "only {} judged", count_placed(&spool));
    assert_eq!(a.stop(), 0);
    assert_eq!(b.stop(), 0);
    assert_all_placed(&spool, &inputs, &Config::default());
    let (ea, eb) = (log_lines(&la), log_lines(&lb));
    assert_eq!(ea.len() + eb.len(), inputs.len());
    let names: BTreeSet<String> = ea
        .iter()
        .chain(eb.iter())
        .map(|l| l["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(names.len(), inputs.len());
    eprintln!("daemon a judged {}, daemon b {}", ea.len(), eb.len());
}

#[test]
fn sigterm_stops_intake_and_exits_zero() {
    let dir = tempfile::tempdir().unwrap();
    let spool = dir.path().join("spool");
    let mut d = Daemon::start(&spool, &["--jobs", "1"]);
    d.wait_armed();
    let mut rng = Rng::seeded();
    let inputs = mixed_inputs(400, &mut rng);
    for (n, data) in &inputs {
        deliver(&spool, n, data);
    }
    assert_eq!(d.stop(), 0, "{}", d.stderr());
    // Nothing half-done: every input is untouched in new/ or placed with its report.
    assert!(dir_entries(&spool.join("work")).is_empty());
    let left = dir_entries(&spool.join("new")).len();
    assert_eq!(left + count_placed(&spool), inputs.len());
    eprintln!("{left} inputs left in new/ at SIGTERM");
    // The next run judges the rest.
    let mut d = Daemon::start(&spool, &["--once"]);
    assert_eq!(d.wait(PATIENCE), 0);
    assert_all_placed(&spool, &inputs, &Config::default());
}

#[test]
fn symlinks_are_quarantined_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    let spool = dir.path().join("spool");
    let target = dir.path().join("target.tf");
    let good = &gdb_files()[0];
    fs::write(&target, good).unwrap();
    fs::create_dir_all(spool.join("new")).unwrap();
    std::os::unix::fs::symlink(&target, spool.join("new").join("link.tf")).unwrap();
    std::os::unix::fs::symlink("/nonexistent", spool.join("new").join("dangling")).unwrap();
    // A directory with a link inside.
    let d2 = spool.join("tmp").join("linkdir");
    fs::create_dir_all(&d2).unwrap();
    fs::copy(corpus("uftrace/plain/info"), d2.join("info")).unwrap();
    std::os::unix::fs::symlink("/etc/passwd", d2.join("task.txt")).unwrap();
    fs::rename(&d2, spool.join("new").join("linkdir")).unwrap();
    let mut d = Daemon::start(&spool, &["--once"]);
    assert_eq!(d.wait(PATIENCE), 0);
    for name in ["link.tf", "dangling", "linkdir"] {
        let p = spool.join("quarantine").join(name);
        let m = fs::symlink_metadata(&p).unwrap_or_else(|_| panic!("{name} not quarantined"));
        if name != "linkdir" {
            assert!(m.file_type().is_symlink(), "{name} is no longer a link");
        }
        let s = sidecar(&spool, "quarantine", name);
        assert!(
            s["watch"]["reason"]
                .as_str()
                .unwrap()
                .starts_with("symlink"),
            "{s}"
        );
    }
    assert_eq!(
        fs::read_link(spool.join("quarantine/link.tf")).unwrap(),
        target
    );
    assert_eq!(&fs::read(&target).unwrap(), good);
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for e in fs::read_dir(from).unwrap().flatten() {
        fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}

#[test]
fn uftrace_directory_is_judged_and_moved_whole() {
    let src = corpus("uftrace/plain");
    let dir = tempfile::tempdir().unwrap();
    let spool = dir.path().join("spool");
    let mut d = Daemon::start(&spool, &[]);
    d.wait_armed();
    copy_dir(&src, &spool.join("tmp").join("run-1"));
    fs::rename(spool.join("tmp/run-1"), spool.join("new/run-1")).unwrap();
    let ok = wait_until(PATIENCE, || count_placed(&spool) >= 1);
    assert!(ok, "{}", d.stderr());
    assert_eq!(d.stop(), 0);
    let (name, v) = placed(&spool).pop().unwrap();
    assert_eq!(name, "run-1");
    assert_eq!(v, expected_verdict(&src, &Config::default()));
    let moved = spool.join(v).join("run-1");
    assert!(moved.is_dir());
    let mut n = 0;
    for e in fs::read_dir(&src).unwrap().flatten() {
        assert_eq!(
            fs::read(e.path()).unwrap(),
            fs::read(moved.join(e.file_name())).unwrap()
        );
        n += 1;
    }
    assert_eq!(dir_entries(&moved).len(), n);
    let s = sidecar(&spool, v, "run-1");
    assert_eq!(s["format"], "uftrace");
}

#[test]
fn collisions_get_a_suffix_and_nothing_is_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let spool = dir.path().join("spool");
    fs::create_dir_all(spool.join("rejected")).unwrap();
    fs::write(spool.join("rejected/x.bin"), b"first").unwrap();
    fs::create_dir_all(spool.join("tmp")).unwrap();
    fs::create_dir_all(spool.join("new")).unwrap();
    deliver(&spool, "x.bin", b"second");
    // Dot files in new/ are someone's temporary files: left alone.
    fs::write(spool.join("new/.x.bin.part"), b"partial").unwrap();
    let mut d = Daemon::start(&spool, &["--once"]);
    assert_eq!(d.wait(PATIENCE), 0);
    deliver(&spool, "x.bin", b"third");
    let mut d = Daemon::start(&spool, &["--once"]);
    assert_eq!(d.wait(PATIENCE), 0);
    assert_eq!(fs::read(spool.join("rejected/x.bin")).unwrap(), b"first");
    assert_eq!(
        fs::read(spool.join("rejected/x.bin.~1~")).unwrap(),
        b"second"
    );
    assert_eq!(
        fs::read(spool.join("rejected/x.bin.~2~")).unwrap(),
        b"third"
    );
    assert!(spool.join("rejected/x.bin.~2~.tracelint.json").exists());
    assert_eq!(fs::read(spool.join("new/.x.bin.part")).unwrap(), b"partial");
}

#[test]
fn sighup_reloads_config_and_limits_quarantine() {
    let dir = tempfile::tempdir().unwrap();
    let spool = dir.path().join("spool");
    let cwd = dir.path().join("cwd");
    fs::create_dir_all(&cwd).unwrap();
    let mut d = Daemon::start_in(&spool, &[], &cwd);
    d.wait_armed();
    deliver(&spool, "junk-1", b"not a trace at all");
    assert!(wait_until(PATIENCE, || count_placed(&spool) >= 1));
    assert!(spool.join("rejected/junk-1").exists());

    // Unknown formats allowed, tiny file limit.
    fs::write(
        cwd.join("tracelint.toml"),
        "[rules]\nTL002 = \"allow\"\n[limits]\nmax_file_bytes = 1000\n",
    )
    .unwrap();
    d.signal("HUP");
    assert!(wait_until(PATIENCE, || d.stderr().contains("reloaded")));
    deliver(&spool, "junk-2", b"not a trace at all");
    deliver(&spool, "big.tf", &gdb_files()[0]);
    assert!(wait_until(PATIENCE, || count_placed(&spool) >= 3));
    assert!(spool.join("accepted/junk-2").exists());
    assert!(spool.join("quarantine/big.tf").exists());
    let s = sidecar(&spool, "quarantine", "big.tf");
    assert!(s["watch"]["reason"]
        .as_str()
        .unwrap()
        .starts_with("limit-exceeded"));

    // A broken configuration is reported and the old one kept.
    fs::write(cwd.join("tracelint.toml"), "[rules\n").unwrap();
    d.signal("HUP");
    assert!(wait_until(PATIENCE, || d.stderr().contains("not reloaded")));
    deliver(&spool, "junk-3", b"still not a trace");
    assert!(wait_until(PATIENCE, || count_placed(&spool) >= 4));
    assert!(spool.join("accepted/junk-3").exists());
    assert_eq!(d.stop(), 0);
}

#[test]
fn refuses_folders_on_another_file_system() {
    // /dev/shm is a tmpfs on Linux; a spool folder there spans file systems.
    let shm = Path::new("/dev/shm");
    if !shm.is_dir() {
        common::record_skip("no /dev/shm");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let spool = dir.path().join("spool");
    fs::create_dir_all(&spool).unwrap();
    let other = tempfile::tempdir_in(shm).unwrap();
    use std::os::unix::fs::MetadataExt;
    if fs::metadata(shm).unwrap().dev() == fs::metadata(&spool).unwrap().dev() {
        common::record_skip("/dev/shm is on the same file system");
        return;
    }
    std::os::unix::fs::symlink(other.path(), spool.join("work")).unwrap();
    let mut d = Daemon::start(&spool, &["--once"]);
    assert_eq!(d.wait(PATIENCE), 2);
    assert!(d.stderr().contains("another file system"), "{}", d.stderr());
}

#[test]
fn metrics_endpoint_on_any_named_address() {
    let dir = tempfile::tempdir().unwrap();
    let spool = dir.path().join("spool");
    let port = 20000 + (std::process::id() % 20000) as u16;
    let addr = format!("127.0.0.1:{port}");
    let mut d = Daemon::start(&spool, &["--metrics", &addr]);
    d.wait_armed();
    deliver(&spool, "a.tf", &gdb_files()[0]);
    assert!(wait_until(PATIENCE, || count_placed(&spool) >= 1));
    let get = |path: &str| -> String {
        use std::io::Read;
        let mut s = std::net::TcpStream::connect(&addr).unwrap();
        s.write_all(format!("GET {path} HTTP/1.0\r\nHost: x\r\n\r\n").as_bytes())
            .unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).unwrap();
        out
    };
    let m = get("/metrics");
    assert!(m.starts_with("HTTP/1.1 200"), "{m}");
    assert!(m.contains("tracelint_watch_files_total{verdict="));
    assert!(get("/healthz").contains("ok"));
    assert!(get("/nope").starts_with("HTTP/1.1 404"));
    assert!(
        m.contains(&format!(
            "tracelint_build_info{{version=\"{}\"}} 1",
            env!("CARGO_PKG_VERSION")
        )),
        "{m}"
    );
    assert_eq!(d.stop(), 0);
    // Any address the operator names is served (here every interface), with a warning about
    // the exposure.
    let wide = format!("0.0.0.0:{}", port.wrapping_add(1));
    let mut d = Daemon::start(&spool, &["--metrics", &wide]);
    d.wait_armed();
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port.wrapping_add(1))).unwrap();
    s.write_all(b"GET /healthz HTTP/1.0\r\n\r\n").unwrap();
    let mut out = String::new();
    std::io::Read::read_to_string(&mut s, &mut out).unwrap();
    assert!(out.contains("ok"), "{out}");
    assert_eq!(d.stop(), 0);
    assert!(
        d.stderr().contains("without authentication"),
        "{}",
        d.stderr()
    );
}

#[test]
fn relative_spool_and_symlinked_new_are_watched() {
    let dir = tempfile::tempdir().unwrap();
    let spool = dir.path().join("spool");
    fs::create_dir_all(&spool).unwrap();
    fs::create_dir_all(dir.path().join("incoming")).unwrap();
    std::os::unix::fs::symlink("../incoming", spool.join("new")).unwrap();
    let mut d = Daemon::start_in(
        Path::new("spool"),
        &["--rescan-interval", "24h"],
        dir.path(),
    );
    d.wait_armed();
    // The first rescan is done (armed) and the next is a day away: only a watcher event
    // can place the file within PATIENCE.
    std::thread::sleep(Duration::from_millis(300));
    deliver(&spool, "a.tf", &gdb_files()[0]);
    let ok = wait_until(PATIENCE, || count_placed(&spool) >= 1);
    assert!(ok, "event not seen:\n{}", d.stderr());
    assert_eq!(d.stop(), 0);
    assert!(fs::read_dir(dir.path().join("incoming"))
        .unwrap()
        .next()
        .is_none());
}

/// A tar.gz of a tar of traces, gzip and zstd files: one verdict per landed file, its report lists
/// every member, and the file is moved byte for byte.
#[test]
fn compressed_files_and_archives_are_judged_whole_and_moved_unmodified() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let spool = dir.path().join("spool");
    for d in ["new", "tmp"] {
        fs::create_dir_all(spool.join(d)).unwrap();
    }
    let mut tar = tar::Builder::new(Vec::new());
    tar.append_dir_all("plain", corpus("uftrace/plain"))
        .unwrap();
    tar.append_path_with_name(corpus("gdb/defects/truncated.tf"), "bad.tf")
        .unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&tar.into_inner().unwrap()).unwrap();
    let bad_archive = gz.finish().unwrap();
    let good = zstd::bulk::compress(&fs::read(corpus("tracecmd/v6.dat")).unwrap(), 3).unwrap();
    deliver(&spool, "upload.tar.gz", &bad_archive);
    deliver(&spool, "v6.dat.zst", &good);
    let mut d = Daemon::start(&spool, &["--once"]);
    assert_eq!(d.wait(PATIENCE), 0, "{}", d.stderr());
    assert_eq!(
        fs::read(spool.join("rejected/upload.tar.gz")).unwrap(),
        bad_archive
    );
    assert_eq!(fs::read(spool.join("accepted/v6.dat.zst")).unwrap(), good);
    let s = sidecar(&spool, "rejected", "upload.tar.gz");
    let members: Vec<&str> = s["members"]
        .as_array()
        .unwrap_or_else(|| panic!("no members in {s}"))
        .iter()
        .map(|m| m["path"].as_str().unwrap())
        .collect();
    assert_eq!(members, ["bad.tf", "plain"], "{s}");
    assert!(s["findings"]
        .as_array()
        .unwrap()
        .iter()
        .all(|f| f["member"] == "bad.tf"));
    let s = sidecar(&spool, "accepted", "v6.dat.zst");
    assert_eq!(s["members"][0]["path"], "v6.dat", "{s}");
}

/// Runs `script` in a new user and mount namespace (as root inside it), where bind mounts
/// can be made; `None` (after a printed reason, or a failure under CI) when that is not
/// allowed here.
fn in_mount_namespace(script: &str, envs: &[(&str, &Path)]) -> Option<std::process::Output> {
    let probe = Command::new("unshare")
        .args(["-r", "-m", "true"])
        .stderr(Stdio::null())
        .status();
    if !probe.is_ok_and(|s| s.success()) {
        common::skip_or_fail("cannot make a user and mount namespace (unshare -rm)");
        return None;
    }
    let mut c = Command::new("unshare");
    c.args(["-r", "-m", "sh", "-ec", script]);
    for (k, v) in envs {
        c.env(k, v);
    }
    c.env("TL", daemon_command().get_program());
    Some(c.output().unwrap())
}

#[test]
fn a_verdict_folder_on_a_bind_mount_is_refused_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let spool = dir.path().join("spool");
    let other = dir.path().join("other");
    fs::create_dir_all(spool.join("rejected")).unwrap();
    fs::create_dir_all(&other).unwrap();
    // Same file system, same st_dev: only a real link or rename shows the mount.
    let Some(o) = in_mount_namespace(
        r#"mount --bind "$OTHER" "$SPOOL/rejected"; exec "$TL" watch --once "$SPOOL""#,
        &[("OTHER", &other), ("SPOOL", &spool)],
    ) else {
        return;
    };
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("rejected is on another mount than"), "{err}");
    assert!(err.contains("bind mount"), "{err}");
    assert_eq!(dir_entries(&spool.join("work")).len(), 0);
    assert_eq!(dir_entries(&other).len(), 0, "the probe is cleaned up");
}

#[test]
fn a_stuck_input_is_placed_at_the_next_rescan_once_the_cause_is_gone() {
    let dir = tempfile::tempdir().unwrap();
    let spool = dir.path().join("spool");
    let other = dir.path().join("other");
    fs::create_dir_all(&other).unwrap();
    let input = dir.path().join("a.tf");
    fs::write(&input, &gdb_files()[0]).unwrap();
    let log = dir.path().join("events.jsonl");
    // The accepted folder becomes a bind mount after the start: the move fails with EXDEV
    // and the input stays in work/; once unmounted, a periodic rescan places it.
    let Some(o) = in_mount_namespace(
        r#"
        mkdir -p "$SPOOL"
        "$TL" watch --rescan-interval 1s --log "$LOG" "$SPOOL" 2> "$ERR" &
        pid=$!
        for i in $(seq 200); do [ -d "$SPOOL/accepted" ] && grep -q starting "$ERR" && break; sleep 0.05; done
        sleep 0.3
        mount --bind "$OTHER" "$SPOOL/accepted"
        cp "$INPUT" "$SPOOL/tmp/a.tf" && mv "$SPOOL/tmp/a.tf" "$SPOOL/new/a.tf"
        for i in $(seq 400); do grep -q "cannot move a.tf" "$ERR" && break; sleep 0.05; done
        ls "$SPOOL/work" > "$WORK"
        umount "$SPOOL/accepted"
        for i in $(seq 400); do [ -e "$SPOOL/accepted/a.tf" ] && break; sleep 0.05; done
        kill -TERM $pid; wait $pid
        "#,
        &[
            ("OTHER", &other),
            ("SPOOL", &spool),
            ("INPUT", &input),
            ("LOG", &log),
            ("ERR", &dir.path().join("stderr")),
            ("WORK", &dir.path().join("work.txt")),
        ],
    ) else {
        return;
    };
    let err = fs::read_to_string(dir.path().join("stderr")).unwrap_or_default();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{err}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(err.contains("EXDEV"), "{err}");
    assert!(err.contains("tried again at the next rescan"), "{err}");
    let stuck_in_work = fs::read_to_string(dir.path().join("work.txt")).unwrap();
    assert!(stuck_in_work.contains("a.tf"), "{stuck_in_work}");
    assert_eq!(
        fs::read(spool.join("accepted/a.tf")).unwrap(),
        gdb_files()[0]
    );
    assert!(spool.join("accepted/a.tf.tracelint.json").exists());
    assert!(err.contains("a.tf placed in accepted/ after"), "{err}");
    assert_eq!(dir_entries(&spool.join("work")).len(), 0);
    let lines = log_lines(&log);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_eq!(lines[0]["verdict"], "accepted");
}

/// `--deny warnings` (and `-D warnings`, as `check` spells it) rejects inputs with warnings;
/// the old `--deny-warnings` still works; anything but `warnings` is a usage error.
#[test]
fn deny_warnings_is_spelled_as_check_spells_it() {
    let cases: [(&[&str], &str); 4] = [
        (&[], "accepted"),
        (&["--deny", "warnings"], "rejected"),
        (&["-D", "warnings"], "rejected"),
        (&["--deny-warnings"], "rejected"),
    ];
    for (flags, verdict) in cases {
        let dir = tempfile::tempdir().unwrap();
        // Every finding a warning: the first GDB file has info findings only.
        fs::write(
            dir.path().join("tracelint.toml"),
            "[rules]\nALL = \"warn\"\n",
        )
        .unwrap();
        let spool = dir.path().join("spool");
        for sub in ["tmp", "new"] {
            fs::create_dir_all(spool.join(sub)).unwrap();
        }
        deliver(&spool, "a.tf", &gdb_files()[0]);
        let mut args = vec!["--once"];
        args.extend_from_slice(flags);
        let mut d = Daemon::start(&spool, &args);
        assert_eq!(d.wait(PATIENCE), 0, "{flags:?}: {}", d.stderr());
        assert!(
            spool.join(verdict).join("a.tf").is_file(),
            "{flags:?}: not in {verdict}/: {:?}",
            placed(&spool)
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let mut d = Daemon::start(&dir.path().join("spool"), &["--once", "--deny", "errors"]);
    assert_eq!(d.wait(PATIENCE), 2);
}

/// Under systemd (`JOURNAL_STREAM` set) log lines start with their sd-daemon priority and
/// carry no timestamp of their own; elsewhere they keep the timestamp.
#[test]
fn journal_lines_carry_priorities_and_no_timestamps() {
    let dir = tempfile::tempdir().unwrap();
    let spool = dir.path().join("spool");
    let run = |journal: bool| {
        let mut c = daemon_command();
        c.arg(&spool)
            .args(["--once", "--jobs", "1"])
            .current_dir(dir.path())
            .env("TRACELINT_LOG", "debug")
            .env_remove("JOURNAL_STREAM")
            .stdout(Stdio::null());
        if journal {
            c.env("JOURNAL_STREAM", "8:12345");
        }
        let o = c.output().unwrap();
        assert_eq!(o.status.code(), Some(0));
        String::from_utf8(o.stderr).unwrap()
    };
    let timestamp = |l: &str| {
        l.len() > 20 && l.as_bytes()[4] == b'-' && l.as_bytes()[10] == b'T' && l.starts_with("20")
    };
    let journal = run(true);
    let lines: Vec<&str> = journal.lines().filter(|l| !l.is_empty()).collect();
    assert!(!lines.is_empty());
    for l in &lines {
        let b = l.as_bytes();
        assert!(
            b.len() > 3
                && b[0] == b'<'
                && matches!(b[1], b'3' | b'4' | b'6' | b'7')
                && b[2] == b'>',
            "no priority prefix: {l}"
        );
        assert!(!timestamp(&l[3..]), "own timestamp under journald: {l}");
        assert!(!l.contains(" INFO "), "level word under journald: {l}");
    }
    assert!(lines
        .iter()
        .any(|l| l.starts_with("<6>") && l.contains("starting")));
    let plain = run(false);
    assert!(plain.lines().any(timestamp), "{plain}");
    assert!(!plain.contains("<6>"), "{plain}");
}

/// A `TRACELINT_LOG` that is no filter (`inf` would be a target name and turn the log off) is
/// a start-up error, exit 2, naming the variable.
#[test]
fn an_unknown_log_filter_is_a_start_up_error() {
    let dir = tempfile::tempdir().unwrap();
    for (filter, ok) in [
        ("inf", false),
        ("info,tracelint=verbose", false),
        ("warn", true),
        ("tracelint=debug,info", true),
    ] {
        let o = daemon_command()
            .arg(dir.path().join("spool"))
            .arg("--once")
            .current_dir(dir.path())
            .env("TRACELINT_LOG", filter)
            .stdout(Stdio::null())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        if ok {
            assert_eq!(o.status.code(), Some(0), "{filter}: {err}");
        } else {
            assert_eq!(o.status.code(), Some(2), "{filter}: {err}");
            assert!(err.contains("TRACELINT_LOG"), "{filter}: {err}");
        }
    }
}

/// (code, severity, member, file, offset, length) of every finding in a JSON finding list.
fn finding_keys(findings: &[serde_json::Value]) -> Vec<String> {
    findings
        .iter()
        .map(|f| {
            format!(
                "{} {} {} {} {}+{}",
                f["code"], f["severity"], f["member"], f["file"], f["offset"], f["length"]
            )
        })
        .collect()
}

#[test]
fn daemon_findings_equal_check_findings_on_every_corpus_and_sample_file() {
    let mut inputs = Vec::new();
    common::inputs(&corpus(""), &mut inputs);
    for sub in ["samples/wild", "samples/ktrace"] {
        let p = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("..")
            .join("shared")
            .join(sub);
        if p.is_dir() {
            common::inputs(&p, &mut inputs);
        } else {
            common::skip_or_fail(&format!("{} is not present", p.display()));
        }
    }
    assert!(inputs.len() > 50, "{} inputs", inputs.len());
    let dir = tempfile::tempdir().unwrap();
    // Each input under one unique name, the same for check and for the daemon (archive
    // members are named after the input).
    let stage = dir.path().join("stage");
    let spool = dir.path().join("spool");
    for d in [&stage, &spool.join("new"), &spool.join("tmp")] {
        fs::create_dir_all(d).unwrap();
    }
    let mut names = Vec::new();
    for (i, p) in inputs.iter().enumerate() {
        let name = format!("{i:03}-{}", p.file_name().unwrap().to_string_lossy());
        if p.is_dir() {
            copy_dir(p, &stage.join(&name));
        } else {
            fs::copy(p, stage.join(&name)).unwrap();
        }
        names.push(name);
    }
    let out = Command::new(env!("CARGO_BIN_EXE_tracelint"))
        .args(["check", "-o", "jsonl", "stage"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let mut by_check: HashMap<String, Vec<serde_json::Value>> = HashMap::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        if v["kind"] == "finding" {
            let path = v["path"].as_str().unwrap();
            let name = path.trim_start_matches("stage/").to_string();
            by_check.entry(name).or_default().push(v);
        }
    }
    for name in &names {
        fs::rename(stage.join(name), spool.join("new").join(name)).unwrap();
    }
    let mut d = Daemon::start_in(&spool, &["--once"], dir.path());
    assert_eq!(d.wait(PATIENCE), 0, "{}", d.stderr());
    let placed: HashMap<String, &str> = placed(&spool).into_iter().collect();
    let mut differ = Vec::new();
    for name in &names {
        let verdict = placed
            .get(name)
            .unwrap_or_else(|| panic!("{name} was not placed"));
        let s = sidecar(&spool, verdict, name);
        let daemon = finding_keys(s["findings"].as_array().unwrap());
        let check = finding_keys(by_check.get(name).map_or(&[][..], Vec::as_slice));
        if daemon != check {
            differ.push(format!("{name}:\n  daemon {daemon:?}\n  check  {check:?}"));
        }
    }
    assert!(differ.is_empty(), "{}", differ.join("\n"));
}
