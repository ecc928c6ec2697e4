//! Small helpers: durations on the command line, RFC 3339 timestamps, the JSON Lines log.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Parses `250ms`, `2s`, `1.5` (seconds), `5m`, `1h`.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let (num, mult) = if let Some(n) = s.strip_suffix("ms") {
        (n, 0.001)
    } else if let Some(n) = s.strip_suffix('s') {
        (n, 1.0)
    } else if let Some(n) = s.strip_suffix('m') {
        (n, 60.0)
    } else if let Some(n) = s.strip_suffix('h') {
        (n, 3600.0)
    } else {
        (s, 1.0)
    };
    let v: f64 = num
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a duration (examples: 250ms, 2s, 1.5, 5m)"))?;
    if !v.is_finite() || v < 0.0 || v * mult > 1e9 {
        return Err(format!("`{s}` is out of range"));
    }
    Ok(Duration::from_secs_f64(v * mult))
}

/// RFC 3339 UTC timestamp with milliseconds.
pub fn rfc3339(t: SystemTime) -> String {
    let d = t.duration_since(UNIX_EPOCH).unwrap_or(Duration::ZERO);
    let secs = d.as_secs();
    let ms = d.subsec_millis();
    let days = i64::try_from(secs / 86_400).unwrap_or(0);
    let rem = secs % 86_400;
    let (y, m, dd) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{dd:02}T{:02}:{:02}:{:02}.{ms:03}Z",
        rem / 3600,
        (rem % 3600) / 60,
        rem % 60
    )
}

/// Milliseconds since the Unix epoch (fractional).
pub fn unix_ms(t: SystemTime) -> f64 {
    t.duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64() * 1000.0)
        .unwrap_or(0.0)
}

// Howard Hinnant's days-to-civil algorithm.
#[allow(clippy::arithmetic_side_effects)]
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    (
        y,
        u32::try_from(m).unwrap_or(1),
        u32::try_from(d).unwrap_or(1),
    )
}

/// A failure that repeats (the same cause, tried again every second): [`Repeated::failed`]
/// says when to warn (the first time, then once per `every`), with how many failures were not
/// warned about in between; [`Repeated::recovered`], when it stopped.
#[derive(Debug)]
pub struct Repeated {
    every: Duration,
    last_warned: Option<Instant>,
    failures: u64,
    unwarned: u64,
}

impl Repeated {
    /// Warns at most once per `every`.
    pub fn new(every: Duration) -> Self {
        Repeated {
            every,
            last_warned: None,
            failures: 0,
            unwarned: 0,
        }
    }

    /// One more failure: `Some(failures not warned about since the last warning)` when this
    /// one is to be warned about, `None` when it is to stay quiet.
    pub fn failed(&mut self) -> Option<u64> {
        self.failures = self.failures.saturating_add(1);
        let due = self.last_warned.is_none_or(|t| t.elapsed() >= self.every);
        if due {
            self.last_warned = Some(Instant::now());
            Some(std::mem::take(&mut self.unwarned))
        } else {
            self.unwarned = self.unwarned.saturating_add(1);
            None
        }
    }

    /// A success: `Some(failures before it)` when it ends a run of failures.
    pub fn recovered(&mut self) -> Option<u64> {
        let n = std::mem::take(&mut self.failures);
        self.last_warned = None;
        self.unwarned = 0;
        (n > 0).then_some(n)
    }
}

enum Sink {
    Stdout,
    File(PathBuf, File),
}

/// The JSON Lines event log: stdout or an append-only file (reopened on SIGHUP for rotation).
pub struct EventLog {
    out: Mutex<Sink>,
}

impl EventLog {
    /// Logs to `path`, or stdout.
    pub fn open(path: Option<&Path>) -> io::Result<EventLog> {
        let sink = match path {
            None => Sink::Stdout,
            Some(p) => Sink::File(p.to_path_buf(), open_append(p)?),
        };
        Ok(EventLog {
            out: Mutex::new(sink),
        })
    }

    /// Reopens the file (after rotation).
    pub fn reopen(&self) -> io::Result<()> {
        let mut g = self.out.lock().map_err(|_| io::Error::other("log lock"))?;
        if let Sink::File(p, f) = &mut *g {
            *f = open_append(p)?;
        }
        Ok(())
    }

    /// Writes one line (the value serialised, then `\n`) in a single write.
    pub fn line<T: serde::Serialize>(&self, value: &T) {
        let Ok(mut text) = serde_json::to_vec(value) else {
            return;
        };
        text.push(b'\n');
        let Ok(mut g) = self.out.lock() else { return };
        let r = match &mut *g {
            Sink::Stdout => {
                let mut o = io::stdout().lock();
                o.write_all(&text).and_then(|_| o.flush())
            }
            Sink::File(_, f) => f.write_all(&text),
        };
        if let Err(e) = r {
            tracing::warn!("cannot write the event log: {e}");
        }
    }
}

impl EventLog {
    /// Whether a line naming `report` (a sidecar path) is among the last lines of the log
    /// file (the last 4 MiB): a recovery after a crash between logging a verdict and
    /// cleaning `work/` does not log it twice. `false` for stdout, which cannot be read back.
    pub fn logged(&self, report: &str) -> bool {
        use std::io::{Read, Seek, SeekFrom};
        let Ok(needle) = serde_json::to_string(report) else {
            return false;
        };
        let needle = format!("\"report\":{needle}");
        let Ok(g) = self.out.lock() else { return false };
        let Sink::File(p, _) = &*g else { return false };
        let Ok(mut f) = File::open(p) else {
            return false;
        };
        let len = f.metadata().map_or(0, |m| m.len());
        let from = len.saturating_sub(4 << 20);
        if f.seek(SeekFrom::Start(from)).is_err() {
            return false;
        }
        let mut tail = Vec::new();
        if f.take(4 << 20).read_to_end(&mut tail).is_err() {
            return false;
        }
        tail.windows(needle.len()).any(|w| w == needle.as_bytes())
    }
}

fn open_append(p: &Path) -> io::Result<File> {
    OpenOptions::new().create(true).append(true).open(p)
}

// Test code: unwrap on fixtures this module creates itself, never on input.
#[cfg(test)]
#[path = "util_tests.rs"]
mod tests;
