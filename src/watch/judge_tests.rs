//! Unit tests of `judge`.

#![allow(clippy::unwrap_used)]

use super::*;

#[test]
fn a_check_over_budget_is_abandoned_and_quarantined() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("run");
    fs::create_dir(&d).unwrap();
    // Opening a FIFO without a writer blocks: the check never ends by itself.
    let ok = std::process::Command::new("mkfifo")
        .arg(d.join("info"))
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        eprintln!("skipping: mkfifo not available");
        return;
    }
    let mut config = Config::default();
    config.limits.max_check_seconds = 1;
    let config = Arc::new(config);
    let mut checker = Checker::default();
    let start = Instant::now();
    assert_eq!(
        checker
            .check(&d, "d", &config, Duration::from_secs(1))
            .err(),
        Some(true)
    );
    assert!(start.elapsed() < Duration::from_secs(5));
    // The checker carries on with a fresh thread.
    fs::write(dir.path().join("junk"), b"junk").unwrap();
    let r = checker
        .check(
            &dir.path().join("junk"),
            "junk",
            &config,
            Duration::from_secs(5),
        )
        .unwrap();
    assert_eq!(classify(&r, false).0, Verdict::Rejected);
    // Through `judge`, the special file is caught before any check.
    let abandoned = Arc::new(AtomicU64::new(0));
    let j = judge(&d, "run", &config, false, &mut checker, &abandoned);
    assert_eq!(j.verdict, Verdict::Quarantine);
    assert!(j.reason.unwrap().contains("special file"));
}

#[test]
fn unjudgeable_reports_go_to_quarantine() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("big");
    fs::write(&p, vec![0u8; 4096]).unwrap();
    let mut config = Config::default();
    config.limits.max_file_bytes = 100;
    let config = Arc::new(config);
    let abandoned = Arc::new(AtomicU64::new(0));
    let j = judge(
        &p,
        "big",
        &config,
        false,
        &mut Checker::default(),
        &abandoned,
    );
    assert_eq!(j.verdict, Verdict::Quarantine);
    assert!(j.reason.unwrap().starts_with("limit-exceeded"));
    let j = judge(
        &dir.path().join("missing"),
        "missing",
        &config,
        false,
        &mut Checker::default(),
        &abandoned,
    );
    assert_eq!(j.verdict, Verdict::Quarantine);
    assert!(j.report.io_failed);
}

#[test]
fn links_and_special_files_are_refused_at_every_depth() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("uftrace.data");
    fs::create_dir_all(d.join("sub/deeper")).unwrap();
    fs::write(d.join("info"), b"Ftrace!\0").unwrap();
    assert_eq!(dir_special_entry(&d), None);
    std::os::unix::fs::symlink("/etc/shadow", d.join("sub/deeper/shadow")).unwrap();
    assert_eq!(
        dir_special_entry(&d),
        Some(Inside::Special(
            "a symbolic link `sub/deeper/shadow`".into()
        ))
    );
    let config = Arc::new(Config::default());
    let abandoned = Arc::new(AtomicU64::new(0));
    let j = judge(&d, "u", &config, false, &mut Checker::default(), &abandoned);
    assert_eq!(j.verdict, Verdict::Quarantine);
    assert!(j.reason.unwrap().contains("sub/deeper/shadow"));
    fs::remove_file(d.join("sub/deeper/shadow")).unwrap();
    let ok = std::process::Command::new("mkfifo")
        .arg(d.join("sub/fifo"))
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        assert!(
            std::env::var("CI").map_or(true, |v| v != "true"),
            "mkfifo missing under CI"
        );
        eprintln!("skipping the FIFO case: mkfifo not available");
        return;
    }
    assert_eq!(
        dir_special_entry(&d),
        Some(Inside::Special("a special file `sub/fifo`".into()))
    );
}

#[test]
fn checks_never_run_beyond_their_slots() {
    let slots = Slots::new(2);
    let a = slots.acquire();
    let b = slots.acquire();
    let (tx, rx) = std::sync::mpsc::channel();
    let s2 = Arc::clone(&slots);
    let waiter = std::thread::spawn(move || {
        let p = s2.acquire();
        tx.send(()).unwrap();
        drop(p);
    });
    // Both slots are held: the third waits until one is given back.
    assert!(rx.try_recv().is_err());
    drop(a);
    rx.recv().unwrap();
    waiter.join().unwrap();
    drop(b);
}
