//! Unit tests of `place`.

#![allow(clippy::unwrap_used)]

use super::*;
use crate::config::Config;
use crate::watch::judge::Slots;
use crate::watch::metrics::Metrics;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

fn shared(root: &Path) -> Shared {
    Shared {
        spool: spool::Spool::open(&root.join("spool"), false).unwrap(),
        config: Mutex::new(Arc::new(Config::default())),
        config_path: None,
        metrics: Arc::new(Metrics::new()),
        log: util::EventLog::open(Some(&root.join("events.jsonl"))).unwrap(),
        deny_warnings: false,
        salvage: false,
        stopping: AtomicBool::new(false),
        slots: Slots::new(1),
        stuck: Mutex::new(Vec::new()),
        retry_max: Duration::from_secs(1),
        metrics_warning: Mutex::new(util::Repeated::new(Duration::from_secs(600))),
        claim_failures: Mutex::new(std::collections::HashSet::new()),
    }
}

/// An input deleted from `work/` while it was judged: placing it fails, and nothing of it
/// stays in `work/` (its report being written included) or on the stuck list.
#[test]
fn an_input_deleted_while_judged_leaves_nothing_in_work() {
    let dir = tempfile::tempdir().unwrap();
    let sh = shared(dir.path());
    let claim = sh.spool.new_claim(std::ffi::OsStr::new("gone.tf"));
    let p = Pending {
        claim: claim.clone(),
        shown: "gone.tf".into(),
        is_dir: false,
        verdict: Verdict::Quarantine,
        reason: Some("io-error: deleted".into()),
        format: None,
        counts: Counts::default(),
        size: 0,
        duration: Duration::ZERO,
        sidecar: b"{}\n".to_vec(),
    };
    commit(&sh, &p);
    let left: Vec<_> = std::fs::read_dir(&sh.spool.work)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert!(left.is_empty(), "left in work/: {left:?}");
    assert!(sh.stuck.lock().unwrap().is_empty());
    // Nothing was placed either.
    for v in Verdict::ALL {
        assert!(std::fs::read_dir(sh.spool.dir(v)).unwrap().next().is_none());
    }
}

/// A batch: every input placed in its verdict folder with its report (two inputs of one name
/// side by side, the second under `~1~`), one verdict line each, nothing left in `work/`; an
/// input deleted from `work/` meanwhile is dropped without holding up the others.
#[test]
fn a_batch_places_each_input_with_its_report() {
    let dir = tempfile::tempdir().unwrap();
    let sh = shared(dir.path());
    let mut batch = Vec::new();
    for (name, verdict, present) in [
        ("a.tf", Verdict::Accepted, true),
        ("b.dat", Verdict::Rejected, true),
        ("gone.tf", Verdict::Accepted, false),
        ("a.tf", Verdict::Accepted, true),
    ] {
        let claim = sh.spool.new_claim(std::ffi::OsStr::new(name));
        if present {
            std::fs::write(sh.spool.work.join(claim.file_name()), name).unwrap();
        }
        batch.push(Pending {
            claim: claim.clone(),
            shown: name.into(),
            is_dir: false,
            verdict,
            reason: None,
            format: None,
            counts: Counts::default(),
            size: 0,
            duration: Duration::ZERO,
            sidecar: format!("{{\"claim\": \"{}\"}}\n", claim.claim).into_bytes(),
        });
    }
    commit_batch(&sh, &batch);
    let left: Vec<_> = std::fs::read_dir(&sh.spool.work)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert!(left.is_empty(), "left in work/: {left:?}");
    assert!(sh.stuck.lock().unwrap().is_empty());
    let acc = sh.spool.dir(Verdict::Accepted);
    let rej = sh.spool.dir(Verdict::Rejected);
    for (data, side, p) in [
        (acc.join("a.tf"), acc.join("a.tf.tracelint.json"), &batch[0]),
        (
            rej.join("b.dat"),
            rej.join("b.dat.tracelint.json"),
            &batch[1],
        ),
        (
            acc.join("a.tf.~1~"),
            acc.join("a.tf.~1~.tracelint.json"),
            &batch[3],
        ),
    ] {
        assert_eq!(std::fs::read(&data).unwrap(), p.shown.as_bytes());
        assert_eq!(std::fs::read(&side).unwrap(), p.sidecar);
    }
    assert!(!acc.join("gone.tf").exists());
    let log = std::fs::read_to_string(dir.path().join("events.jsonl")).unwrap();
    assert_eq!(log.lines().count(), 3, "{log}");
}
