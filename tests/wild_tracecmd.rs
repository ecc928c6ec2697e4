//! trace.dat files as older trace-cmd versions and kernels write them: the real files under
//! `../shared/samples/wild/tracecmd/` (no errors, and `trace-cmd report` reads them), and one
//! byte-built fixture per writer quirk class.
#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]

mod common;

use std::path::Path;
use tracelint::formats::tracecmd::writer::{format_text, Builder, Compression};
use tracelint::{CheckOptions, Finding, Severity};

fn run(data: &[u8]) -> Vec<Finding> {
    let opts = CheckOptions {
        format_hint: Some(tracelint::formats::tracecmd::FORMAT),
        ..CheckOptions::default()
    };
    common::check(data, &opts)
}

use common::show;

fn codes(f: &[Finding], sev: Severity) -> Vec<&'static str> {
    let mut v: Vec<&str> = f
        .iter()
        .filter(|x| x.severity == sev)
        .map(|x| x.rule.code)
        .collect();
    v.sort_unstable();
    v
}

fn has_trace_cmd() -> bool {
    let ok = std::process::Command::new("trace-cmd")
        .arg("--version")
        .output()
        .is_ok();
    if !ok {
        common::skip_or_fail("the trace-cmd part: trace-cmd is not installed");
    }
    ok
}

/// `trace-cmd report` on `path`: (exit status, stdout).
fn report(path: &Path) -> (std::process::ExitStatus, String) {
    let out = std::process::Command::new("timeout")
        .args(["60", "trace-cmd", "report", "-i"])
        .arg(path)
        .output()
        .unwrap();
    (
        out.status,
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

fn write_tmp(name: &str, data: &[u8]) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("tracelint-wild-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, data).unwrap();
    p
}

#[test]
fn wild_files_have_no_errors_and_trace_cmd_reads_them() {
    let Some(dir) = common::shared("samples/wild/tracecmd") else {
        return;
    };
    let tc = has_trace_cmd();
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "{} is empty", dir.display());
    for p in files {
        let data = std::fs::read(&p).unwrap();
        let f = run(&data);
        eprintln!("== {}\n{}", p.display(), show(&f));
        assert!(
            codes(&f, Severity::Error).is_empty(),
            "{}: {}",
            p.display(),
            show(&f)
        );
        if tc {
            let (status, out) = report(&p);
            assert!(
                status.success(),
                "trace-cmd report {}: {status}",
                p.display()
            );
            let events = tracelint::formats::tracecmd::summarize(&data, &CheckOptions::default())
                .iter()
                .map(|c| c.events)
                .sum::<u64>();
            let lines = out.lines().filter(|l| !l.starts_with("cpus=")).count() as u64;
            assert_eq!(lines, events, "events of {}", p.display());
        }
    }
}

/// A v6 file as trace-cmd 2.9.7 writes it on a 32-bit Linux 4.13: an empty TRACECLOCK flag, the
/// whole trace_clock file as clock record, the pre-4.17 header_event, and the kernel's
/// `ftrace:funcgraph_exit` whose fields are not listed in offset order.
fn v6_trace_cmd_2x() -> Builder {
    let mut b = Builder::new(6, Compression::None);
    b.options = vec![
        (4, Vec::new()),
        (5, b"Linux buildroot 4.13.9 i686\0".to_vec()),
        (9, b"2.9.7 not-a-git-repo\0".to_vec()),
    ];
    b.clock_record =
        Some(b"[local] global counter uptime perf mono mono_raw boot x86-tsc\n".to_vec());
    b.header_event = b"# compressed entry header\n\ttype_len    :    5 bits\n\ttime_delta  :   27 bits\n\tarray       :   32 bits\n\n\tpadding     : type == 29\n\ttime_extend : type == 30\n\tdata max type_len  == 28\n".to_vec();
    b.ftrace_formats.push(format_text(
        "funcgraph_exit",
        10,
        &[
            ("func", 8, 4),
            ("calltime", 16, 8),
            ("rettime", 24, 8),
            ("overrun", 12, 4),
            ("depth", 32, 4),
        ],
    ));
    b
}

#[test]
fn trace_cmd_2x_layout_is_info_only() {
    let (d, l) = v6_trace_cmd_2x().build();
    let f = run(&d);
    assert!(
        codes(&f, Severity::Error).is_empty() && codes(&f, Severity::Warning).is_empty(),
        "{}",
        show(&f)
    );
    assert_eq!(
        codes(&f, Severity::Info),
        ["TD067", "TD068", "TD069"],
        "{}",
        show(&f)
    );
    let rec = l.get("clock record").unwrap();
    let td068 = f.iter().find(|x| x.rule.code == "TD068").unwrap();
    assert_eq!(td068.span(), rec);
    assert!(
        td068.message.contains("written by trace-cmd 2.9.7"),
        "{}",
        td068.message
    );
    let td069 = f.iter().find(|x| x.rule.code == "TD069").unwrap();
    assert!(td069.message.contains("Linux 4.13.9"), "{}", td069.message);
    if has_trace_cmd() {
        let (status, out) = report(&write_tmp("tc2x.dat", &d));
        assert!(status.success(), "{status}");
        assert!(out.lines().count() > 1, "{out}");
    }
}

#[test]
fn clock_list_with_another_selected_clock() {
    let mut b = v6_trace_cmd_2x();
    b.clock_record = Some(b"local [global] counter uptime perf\n".to_vec());
    let f = run(&b.build().0);
    let x = f.iter().find(|x| x.rule.code == "TD068").unwrap();
    assert!(
        x.message.contains("readers select `global`"),
        "{}",
        x.message
    );
    assert!(codes(&f, Severity::Warning).is_empty(), "{}", show(&f));
}

#[test]
fn producer_is_named_from_the_options() {
    // No VERSION option, UNAME present: trace-cmd 2.5–2.7.
    let mut b = v6_trace_cmd_2x();
    b.options.retain(|(id, _)| *id != 9);
    let f = run(&b.build().0);
    let m = &f.iter().find(|x| x.rule.code == "TD067").unwrap().message;
    assert!(m.contains("trace-cmd 2.5–2.7"), "{m}");
    // Neither: trace-cmd 2.2.1–2.4.
    b.options.retain(|(id, _)| *id != 5);
    let f = run(&b.build().0);
    let m = &f.iter().find(|x| x.rule.code == "TD067").unwrap().message;
    assert!(m.contains("trace-cmd 2.2.1–2.4"), "{m}");
    // The kernel is unknown without UNAME: still the pre-4.17 text.
    assert!(f.iter().any(|x| x.rule.code == "TD069"), "{}", show(&f));
}

#[test]
fn old_header_event_on_a_newer_kernel_is_a_warning() {
    let mut b = v6_trace_cmd_2x();
    b.options[1].1 = b"Linux host 5.15.0 x86_64\0".to_vec();
    let f = run(&b.build().0);
    assert_eq!(codes(&f, Severity::Warning), ["TD052"], "{}", show(&f));
    assert!(!f.iter().any(|x| x.rule.code == "TD069"), "{}", show(&f));
}

#[test]
fn no_options_section_is_read() {
    // trace-cmd before 1.0 writes no options section: the flyrecord tag follows the CPU count.
    let mut b = Builder::new(6, Compression::None);
    b.no_options_section = true;
    b.options.clear();
    let (d, l) = b.build();
    assert!(l.get("options tag").is_none());
    let f = run(&d);
    assert!(
        !f.iter().any(|x| x.severity >= Severity::Warning),
        "{}",
        show(&f)
    );
    let events = tracelint::formats::tracecmd::summarize(&d, &CheckOptions::default())
        .iter()
        .map(|c| c.events)
        .sum::<u64>();
    assert_eq!(events, 6);
}

#[test]
fn event_fields_out_of_offset_order_are_fine_but_overlaps_are_not() {
    let (d, _) = v6_trace_cmd_2x().build();
    assert!(!run(&d).iter().any(|x| x.rule.code == "TD054"));
    let mut b = v6_trace_cmd_2x();
    b.ftrace_formats.push(format_text(
        "overlap",
        11,
        &[("a", 16, 8), ("b", 8, 4), ("c", 20, 4)],
    ));
    let f = run(&b.build().0);
    // Every reader, trace-cmd 2.4 and 2.9.5 included, reads each field at its own offset
    // (tests/campaign.rs `overlapping_fields_in_a_v6_format_are_a_warning`).
    let x = f.iter().find(|x| x.rule.code == "TD054").unwrap();
    assert_eq!(x.severity, Severity::Warning);
    assert!(
        x.message
            .contains("field `c` (offset 20, size 4) overlaps field `a`"),
        "{}",
        x.message
    );
}

#[test]
fn clock_name_cut_by_nul_is_an_error() {
    // `[` then NUL: trace-cmd 3.1.6 segfaults in extract_trace_clock.
    let mut b = v6_trace_cmd_2x();
    b.clock_record = Some(b"[\0ocal] global counter\n".to_vec());
    let (d, l) = b.build();
    let f = run(&d);
    let x = f.iter().find(|x| x.rule.code == "TD070").unwrap();
    assert_eq!(x.severity, Severity::Error);
    assert_eq!(x.span(), l.get("clock record").unwrap());
    assert!(x.message.contains("crashes"), "{}", x.message);
    if has_trace_cmd() {
        let (status, _) = report(&write_tmp("clock-nul.dat", &d));
        assert!(!status.success(), "trace-cmd report read it: {status}");
    }
    // `[]`: the same crash.
    b.clock_record = Some(b"[]".to_vec());
    let f = run(&b.build().0);
    assert!(f.iter().any(|x| x.rule.code == "TD070"), "{}", show(&f));
    // A NUL inside the name: trace-cmd selects another clock.
    b.clock_record = Some(b"[lo\0al] global\n".to_vec());
    let f = run(&b.build().0);
    let x = f.iter().find(|x| x.rule.code == "TD070").unwrap();
    assert!(x.message.contains("selects clock `lo`"), "{}", x.message);
    // Without a TRACECLOCK option trace-cmd does not read the record: a warning at most.
    b.options.retain(|(id, _)| *id != 4);
    b.clock_record = Some(b"[\0ocal]".to_vec());
    let f = run(&b.build().0);
    assert!(codes(&f, Severity::Error).is_empty(), "{}", show(&f));
}

#[test]
fn compressed_size_quirk_names_the_writer() {
    let mut b = Builder::new(7, Compression::Zstd);
    b.quirk_short4 = true;
    let f = run(&b.build().0);
    let x = f.iter().find(|x| x.rule.code == "TD036").unwrap();
    assert_eq!(x.severity, Severity::Info);
    assert!(
        x.message.contains("written by trace-cmd 3.1.6"),
        "{}",
        x.message
    );
}
