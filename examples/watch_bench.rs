//! Load generator for `bench/watch.sh`: delivers N copies of a file into a running
//! `tracelint watch` spool (write in tmp/, rename into new/), then reads the daemon's JSON Lines
//! event log and reports throughput and the latency from each rename to its verdict line
//! (written once the report and the input are in place).
//!
//! `watch_bench SPOOL LOG SAMPLE N RATE LABEL [PID]` — RATE in files/s, 0 = as fast as
//! possible; with the daemon's PID, its CPU time per file is reported too (`CLK_TCK` from the
//! environment, default 100).

use std::collections::HashMap;
use std::fs;
use std::path::PathBuf;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

fn now_ms() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64() * 1000.0)
        .unwrap_or(0.0)
}

fn pct(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    if a.len() != 7 && a.len() != 8 {
        eprintln!("usage: watch_bench SPOOL LOG SAMPLE N RATE LABEL [PID]");
        std::process::exit(2);
    }
    let spool = PathBuf::from(&a[1]);
    let log = PathBuf::from(&a[2]);
    let sample = fs::read(&a[3]).expect("read the sample file");
    let n: usize = a[4].parse().expect("N");
    let rate: f64 = a[5].parse().expect("RATE");
    let label = &a[6];
    let prefix = format!("{label}-");

    let mut sent: HashMap<String, f64> = HashMap::with_capacity(n);
    let start = Instant::now();
    let t0 = now_ms();
    for i in 0..n {
        if rate > 0.0 {
            let due = Duration::from_secs_f64(i as f64 / rate);
            if let Some(wait) = due.checked_sub(start.elapsed()) {
                std::thread::sleep(wait);
            }
        }
        let name = format!("{prefix}{i:06}.tf");
        let tmp = spool.join("tmp").join(&name);
        fs::write(&tmp, &sample).expect("write in tmp/");
        fs::rename(&tmp, spool.join("new").join(&name)).expect("rename into new/");
        sent.insert(name, now_ms());
    }
    let produced_s = start.elapsed().as_secs_f64();

    // Wait for every verdict line.
    let deadline = Instant::now() + Duration::from_secs(300);
    let mut done: HashMap<String, f64> = HashMap::new();
    let mut verdicts: HashMap<String, usize> = HashMap::new();
    while done.len() < n && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
        done.clear();
        verdicts.clear();
        let text = fs::read_to_string(&log).unwrap_or_default();
        for line in text.lines() {
            let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
                continue;
            };
            let Some(name) = v["name"].as_str() else {
                continue;
            };
            if !name.starts_with(&prefix) {
                continue;
            }
            let at = v["unix_ms"].as_f64().unwrap_or(0.0);
            done.insert(name.to_string(), at);
            *verdicts
                .entry(v["verdict"].as_str().unwrap_or("?").to_string())
                .or_default() += 1;
        }
    }
    let mut lat: Vec<f64> = done
        .iter()
        .filter_map(|(k, at)| sent.get(k).map(|s| at - s))
        .collect();
    lat.sort_by(|a, b| a.total_cmp(b));
    let last = done.values().cloned().fold(f64::MIN, f64::max);
    let total_s = (last - t0) / 1000.0;
    let fps = done.len() as f64 / total_s;
    let cpu_ms = a
        .get(7)
        .and_then(|pid| fs::read_to_string(format!("/proc/{pid}/stat")).ok())
        .and_then(|st| {
            let rest = &st[st.rfind(')')? + 1..];
            let f: Vec<&str> = rest.split_whitespace().collect();
            let ticks: f64 = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
            let hz: f64 = std::env::var("CLK_TCK")
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(100.0);
            Some(ticks / hz * 1000.0)
        });
    let cpu = cpu_ms.map_or("?".to_string(), |c| format!("{:.2}", c / n as f64));
    let rate_s = if rate > 0.0 {
        format!("{rate:.0}/s")
    } else {
        "burst".to_string()
    };
    println!(
        "| {label} | {n} | {rate_s} | {:.2} | {:.2} | {fps:.0} | {:.1} | {:.1} | {:.1} | {cpu} | {:?} |",
        produced_s,
        total_s,
        pct(&lat, 0.5),
        pct(&lat, 0.99),
        lat.last().cloned().unwrap_or(f64::NAN),
        verdicts,
    );
    if done.len() < n {
        eprintln!("only {} of {n} verdicts arrived", done.len());
        std::process::exit(1);
    }
}
