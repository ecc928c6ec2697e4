//! Counters and the Prometheus text exposition (text file and HTTP).

use super::spool::Verdict;
use std::fmt::Write as _;
use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Upper bounds (seconds) of the check-duration histogram buckets.
const BUCKETS: [f64; 12] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0, 30.0,
];

/// The daemon's counters.
#[derive(Default)]
pub struct Metrics {
    /// Inputs judged, by verdict.
    pub judged: [AtomicU64; 3],
    /// Inputs whose verdict was found already placed after a take-over.
    pub recovered: AtomicU64,
    /// Leftovers of dead instances taken over from `work/`.
    pub taken_over: AtomicU64,
    /// Full rescans of `new/` (and `work/`).
    pub rescans: AtomicU64,
    /// Lost-event situations: kernel queue overflow, full event channel, watcher errors.
    pub overflows: AtomicU64,
    /// Failed moves into a verdict folder (each try counts; see `stuck`).
    pub move_errors: AtomicU64,
    /// Checks abandoned after their wall-clock budget (still running in the background).
    pub abandoned: Arc<AtomicU64>,
    /// Inputs waiting (queued, settling) or being judged.
    pub queue_depth: AtomicU64,
    /// Inputs being judged now.
    pub in_flight: AtomicU64,
    /// Judged inputs whose move into a verdict folder failed (EPERM, ENOSPC, EXDEV, ...): they
    /// stay in `work/` and are tried again at every rescan.
    pub stuck: AtomicU64,
    /// Unix time (seconds) of the last verdict.
    pub last_success: AtomicU64,
    /// Unix time (seconds) of the start.
    pub started: AtomicU64,
    hist: Mutex<Hist>,
}

#[derive(Default)]
struct Hist {
    counts: [u64; BUCKETS.len()],
    count: u64,
    sum: f64,
}

impl Metrics {
    /// New counters, with the start time set.
    pub fn new() -> Metrics {
        let m = Metrics::default();
        m.started.store(unix_secs(), Ordering::Relaxed);
        m
    }

    /// Records one verdict and its check duration.
    pub fn verdict(&self, v: Verdict, check: Duration) {
        if let Some(c) = self.judged.get(v.index()) {
            c.fetch_add(1, Ordering::Relaxed);
        }
        self.last_success.store(unix_secs(), Ordering::Relaxed);
        let secs = check.as_secs_f64();
        if let Ok(mut h) = self.hist.lock() {
            for (i, b) in BUCKETS.iter().enumerate() {
                if secs <= *b {
                    if let Some(c) = h.counts.get_mut(i) {
                        *c = c.saturating_add(1);
                    }
                }
            }
            h.count = h.count.saturating_add(1);
            h.sum += secs;
        }
    }

    /// Prometheus text format.
    pub fn render(&self) -> String {
        let g = |a: &AtomicU64| a.load(Ordering::Relaxed);
        let mut s = String::new();
        let _ = writeln!(
            s,
            "# HELP tracelint_build_info The running build: version in the labels, value 1."
        );
        let _ = writeln!(s, "# TYPE tracelint_build_info gauge");
        let _ = writeln!(
            s,
            "tracelint_build_info{{version=\"{}\"}} 1",
            env!("CARGO_PKG_VERSION")
        );
        let _ = writeln!(
            s,
            "# HELP tracelint_watch_files_total Inputs judged, by verdict folder."
        );
        let _ = writeln!(s, "# TYPE tracelint_watch_files_total counter");
        for v in Verdict::ALL {
            let n = self.judged.get(v.index()).map(g).unwrap_or(0);
            let _ = writeln!(
                s,
                "tracelint_watch_files_total{{verdict=\"{}\"}} {n}",
                v.name()
            );
        }
        let simple: [(&str, &str, &str, u64); 10] = [
            ("tracelint_watch_recovered_total", "counter", "Verdicts found already placed after taking over a dead instance's claim.", g(&self.recovered)),
            ("tracelint_watch_taken_over_total", "counter", "Claims of dead instances taken over from work/.", g(&self.taken_over)),
            ("tracelint_watch_rescans_total", "counter", "Full rescans of the spool.", g(&self.rescans)),
            ("tracelint_watch_overflows_total", "counter", "Lost-event situations (queue overflow, watcher error, full queue) answered by a rescan.", g(&self.overflows)),
            ("tracelint_watch_move_errors_total", "counter", "Inputs that could not be moved to a verdict folder.", g(&self.move_errors)),
            ("tracelint_watch_abandoned_checks_total", "counter", "Checks abandoned after max_check_seconds.", g(&self.abandoned)),
            ("tracelint_watch_queue_depth", "gauge", "Inputs waiting or being judged.", g(&self.queue_depth)),
            ("tracelint_watch_in_flight", "gauge", "Inputs being judged.", g(&self.in_flight)),
            ("tracelint_watch_stuck", "gauge", "Judged inputs whose move failed; they stay in work/ and are retried at every rescan.", g(&self.stuck)),
            ("tracelint_watch_last_success_timestamp_seconds", "gauge", "Unix time of the last verdict (0: none yet).", g(&self.last_success)),
        ];
        for (name, kind, help, v) in simple {
            let _ = writeln!(s, "# HELP {name} {help}");
            let _ = writeln!(s, "# TYPE {name} {kind}");
            let _ = writeln!(s, "{name} {v}");
        }
        let _ = writeln!(
            s,
            "# HELP tracelint_watch_start_timestamp_seconds Unix time the daemon started."
        );
        let _ = writeln!(s, "# TYPE tracelint_watch_start_timestamp_seconds gauge");
        let _ = writeln!(
            s,
            "tracelint_watch_start_timestamp_seconds {}",
            g(&self.started)
        );
        let _ = writeln!(
            s,
            "# HELP tracelint_watch_check_duration_seconds Time to check one input."
        );
        let _ = writeln!(s, "# TYPE tracelint_watch_check_duration_seconds histogram");
        if let Ok(h) = self.hist.lock() {
            for (b, c) in BUCKETS.iter().zip(h.counts.iter()) {
                let _ = writeln!(
                    s,
                    "tracelint_watch_check_duration_seconds_bucket{{le=\"{b}\"}} {c}"
                );
            }
            let _ = writeln!(
                s,
                "tracelint_watch_check_duration_seconds_bucket{{le=\"+Inf\"}} {}",
                h.count
            );
            let _ = writeln!(s, "tracelint_watch_check_duration_seconds_sum {}", h.sum);
            let _ = writeln!(
                s,
                "tracelint_watch_check_duration_seconds_count {}",
                h.count
            );
        }
        s
    }
}

/// Seconds since the Unix epoch.
pub fn unix_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// Writes the metrics to `path` through a temporary file in the same folder and a rename.
pub fn write_file(path: &Path, text: &str) -> io::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp: PathBuf = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    std::fs::write(&tmp, text)?;
    // Readable by the collector's user whatever the daemon's umask: counts, timings and the
    // version, no file names.
    std::fs::set_permissions(&tmp, std::os::unix::fs::PermissionsExt::from_mode(0o644))?;
    std::fs::rename(&tmp, path)
}

/// Serves `/metrics` and `/healthz` on the address the operator named (loopback or not: the
/// operator decides the exposure), one connection at a time.
pub fn serve(addr: SocketAddr, metrics: Arc<Metrics>) -> Result<(), String> {
    if !addr.ip().is_loopback() {
        tracing::warn!(
            "--metrics {addr}: /metrics and /healthz are served without authentication to every host that can reach this address"
        );
    }
    let listener = TcpListener::bind(addr).map_err(|e| format!("--metrics {addr}: {e}"))?;
    std::thread::Builder::new()
        .name("tracelint-metrics".into())
        .spawn(move || {
            for conn in listener.incoming() {
                let Ok(mut conn) = conn else { continue };
                let _ = conn.set_read_timeout(Some(Duration::from_secs(2)));
                let _ = conn.set_write_timeout(Some(Duration::from_secs(2)));
                // Read the request head (bounded in size and time).
                let mut buf = Vec::new();
                let mut chunk = [0u8; 1024];
                while buf.len() < 8192 && !buf.windows(4).any(|w| w == b"\r\n\r\n") {
                    match conn.read(&mut chunk) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => buf.extend_from_slice(chunk.get(..n).unwrap_or(&[])),
                    }
                }
                let req = String::from_utf8_lossy(&buf);
                let target = req.split_whitespace().nth(1).unwrap_or("");
                let (status, body) = match target {
                    "/metrics" => ("200 OK", metrics.render()),
                    "/healthz" => ("200 OK", "ok\n".to_string()),
                    _ => ("404 Not Found", "not found\n".to_string()),
                };
                let resp = format!(
                    "HTTP/1.1 {status}\r\nContent-Type: text/plain; version=0.0.4\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = conn.write_all(resp.as_bytes());
            }
        })
        .map_err(|e| format!("cannot start the metrics thread: {e}"))?;
    Ok(())
}
