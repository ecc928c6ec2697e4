//! GDB tfile validator: real corpus files, real defects, one fixture per rule, crash inputs of
//! GDB 13.1, robustness sweeps and a differential check against GDB itself.

mod common;
#[path = "common/gdb_cases.rs"]
mod gdb_cases;

use gdb_cases::{fixtures, frame, hexs, last_line, with_extra, with_frames, with_status};
use tracelint::formats::gdb::writer::{Built, Sample, SampleBlock, StatusLine};
use tracelint::formats::gdb::{frame_count, rules as gt};
use tracelint::reader::Endian;
use tracelint::registry::Rule;
use tracelint::{check_bytes, CheckOptions, Finding, Severity, Sink};

fn check_opts(data: &[u8], opts: &CheckOptions) -> (Vec<Finding>, Option<u64>) {
    let mut sink = Sink::new(10_000);
    let (_, map) = check_bytes(data, opts, &mut sink);
    let (f, _) = sink.into_parts();
    for x in &f {
        assert!(
            x.offset + x.length <= data.len() as u64,
            "{} span outside input: {}",
            x.rule.code,
            x.message
        );
    }
    (f, frame_count(&map))
}

fn check(data: &[u8]) -> Vec<Finding> {
    check_opts(data, &CheckOptions::default()).0
}

fn dump(f: &[Finding]) -> String {
    f.iter()
        .map(|f| {
            format!(
                "  {} {} {}..{}: {}\n",
                f.severity,
                f.rule.code,
                f.offset,
                f.offset + f.length,
                f.message
            )
        })
        .collect()
}

#[track_caller]
fn expect_code(f: &[Finding], rule: &tracelint::registry::Rule) {
    assert!(
        f.iter().any(|x| x.rule == rule),
        "expected {}, got:\n{}",
        rule.code,
        dump(f)
    );
}

#[track_caller]
fn no_errors(f: &[Finding]) {
    let e: Vec<Finding> = f
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .cloned()
        .collect();
    assert!(e.is_empty(), "unexpected errors:\n{}", dump(&e));
}

#[track_caller]
fn clean(f: &[Finding]) {
    let e: Vec<Finding> = f
        .iter()
        .filter(|f| f.severity != Severity::Info)
        .cloned()
        .collect();
    assert!(e.is_empty(), "unexpected findings:\n{}", dump(&e));
}

fn corpus_files() -> Vec<std::path::PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(common::corpus("gdb"))
        .expect("corpus/gdb")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "tf"))
        .collect();
    v.sort();
    assert!(v.len() >= 7, "corpus/gdb has {} files", v.len());
    v
}

#[test]
fn real_corpus_files_have_no_errors() {
    for p in corpus_files() {
        let data = std::fs::read(&p).unwrap();
        let (f, frames) = check_opts(&data, &CheckOptions::default());
        clean(&f);
        assert!(frames.is_some(), "{}: no frame count", p.display());
    }
}

/// Frame counts of every healthy corpus file, as GDB 13.1's `tstatus` and `tfind` count them
/// (corpus_matches_gdb_tstatus_and_tfind runs GDB itself); a new file must be added here.
#[test]
fn real_corpus_frame_counts() {
    let want = [
        ("bigmem.tf", 1),
        ("circular-nowrap.tf", 12),
        ("circular-wrapped.tf", 2),
        ("default-collect.tf", 5),
        ("empty.tf", 0),
        ("fast.tf", 12),
        ("full.tf", 12),
        ("kinds.tf", 27),
        ("memory.tf", 4),
        ("multi.tf", 16),
        ("passcount.tf", 2),
        ("regs.tf", 12),
        ("ret.tf", 12),
        ("running.tf", 4),
        ("stepping.tf", 20),
        ("teval.tf", 12),
        ("tsv.tf", 12),
        ("twoloc.tf", 6),
    ];
    let names: Vec<String> = corpus_files()
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    let listed: Vec<String> = want.iter().map(|(n, _)| n.to_string()).collect();
    assert_eq!(
        names, listed,
        "every file of corpus/gdb needs its frame count here"
    );
    for (name, n) in want {
        let data = std::fs::read(common::corpus("gdb").join(name)).unwrap();
        let (f, frames) = check_opts(&data, &CheckOptions::default());
        assert_eq!(frames, Some(n), "{name}:\n{}", dump(&f));
    }
}

#[test]
fn real_quirks_are_named() {
    let data = std::fs::read(common::corpus("gdb/regs.tf")).unwrap();
    let f = check(&data);
    expect_code(&f, &gt::DECIMAL_TP_STATUS_COUNTS);
    let data = std::fs::read(common::corpus("gdb/circular-wrapped.tf")).unwrap();
    let f = check(&data);
    expect_code(&f, &gt::CIRCULAR_BUFFER_WRAPPED);
}

#[test]
fn defect_fast_tracepoint() {
    let data = std::fs::read(common::corpus("gdb/defects/fast.tf")).unwrap();
    let (f, frames) = check_opts(&data, &CheckOptions::default());
    // GDB 13.1 cannot read the memory these frames collected ("Unknown block type").
    let x = f
        .iter()
        .find(|x| x.rule == &gt::FAST_TRACEPOINT_REGISTER_BLOCK)
        .unwrap_or_else(|| panic!("no GT049:\n{}", dump(&f)));
    assert_eq!(x.severity, Severity::Error);
    assert!(x.message.contains("2500"), "{}", x.message);
    assert!(x.message.contains("2420"), "{}", x.message);
    assert!(x.message.contains("12 frame"), "{}", x.message);
    assert_eq!(frames, Some(12));
}

/// A real tsave output cut inside its last frame: GDB 13.1 fails with "Premature end of file"
/// when `tfind` reaches it.
#[test]
fn defect_truncated() {
    let data = std::fs::read(common::corpus("gdb/defects/truncated.tf")).unwrap();
    let (f, frames) = check_opts(&data, &CheckOptions::default());
    let x = f
        .iter()
        .find(|x| x.rule == &gt::FRAME_OVERRUNS_FILE)
        .unwrap_or_else(|| panic!("no GT044:\n{}", dump(&f)));
    assert_eq!(x.severity, Severity::Error);
    assert!(x.message.contains("frame 11"), "{}", x.message);
    assert_eq!(frames, Some(11));
}

#[test]
fn defect_circular_corrupt() {
    let data = std::fs::read(common::corpus("gdb/defects/circular-corrupt.tf")).unwrap();
    let f = check(&data);
    expect_code(&f, &gt::CORRUPT_CIRCULAR_IMAGE);
    expect_code(&f, &gt::UNKNOWN_BLOCK_TYPE);
    expect_code(&f, &gt::DATA_AFTER_END_MARKER);
    expect_code(&f, &gt::BUFFER_USAGE_INCONSISTENT);
    assert!(f.iter().any(|x| x.severity == Severity::Error));
}

#[test]
fn sample_is_clean() {
    let b = Sample::new(5).build();
    let (f, n) = check_opts(&b.bytes, &CheckOptions::default());
    clean(&f);
    assert_eq!(n, Some(5));
    let mut s = Sample::new(3);
    s.endian = Endian::Big;
    s.tdesc.clear();
    let b = s.build();
    let (f, n) = check_opts(&b.bytes, &CheckOptions::default());
    clean(&f);
    assert_eq!(n, Some(3));
    let x = f.iter().find(|x| x.rule == &gt::BYTE_ORDER).unwrap();
    assert!(x.message.contains("big-endian"), "{}", x.message);
}

#[test]
fn sweep_corpus() {
    for p in corpus_files().into_iter().chain([
        common::corpus("gdb/defects/fast.tf"),
        common::corpus("gdb/defects/circular-corrupt.tf"),
    ]) {
        let data = std::fs::read(&p).unwrap();
        let bad = common::sweep(&data, 150);
        assert!(bad > 0, "{}: no sweep case gave an error", p.display());
    }
}

#[test]
fn fixture_per_rule_exact_span() {
    let opts = CheckOptions {
        format_hint: Some(tracelint::formats::gdb::FORMAT),
        ..CheckOptions::default()
    };
    let mut failed = String::new();
    for (rule, bytes, span) in fixtures() {
        let (f, _) = check_opts(&bytes, &opts);
        if !f.iter().any(|x| x.rule == rule && x.span() == span) {
            failed += &format!(
                "{} expected at {}..{}, got:\n{}",
                rule.code,
                span.start,
                span.end,
                dump(&f)
            );
        }
    }
    assert!(failed.is_empty(), "{failed}");
}

/// Inputs that crash GDB 13.1 (spec §3) must each give an error finding.
#[test]
fn gdb_crash_inputs_give_errors() {
    let mut cases: Vec<(&str, Vec<u8>, &'static Rule)> = Vec::new();
    for r in ["-974", "7fffffff"] {
        let mut s = Sample::new(2);
        s.register_line = Some(r.into());
        cases.push(("R", s.build().bytes, &gt::REGISTER_SIZE_INVALID));
    }
    cases.push((
        "terror",
        with_status(2, "0;terror:4142").bytes,
        &gt::STATUS_TERROR_MALFORMED,
    ));
    cases.push((
        "Z no colon",
        with_extra(2, "tp Z2:401145:at").bytes,
        &gt::TP_MALFORMED,
    ));
    cases.push((
        "orphan A",
        with_extra(2, "tp A7:401175:R40").bytes,
        &gt::ORPHAN_TP_PIECE,
    ));
    cases.push((
        "orphan V",
        with_extra(2, "tp V7:401175:1:10").bytes,
        &gt::ORPHAN_TP_PIECE,
    ));
    let mut s = Sample::new(2);
    s.tps = s
        .tps
        .iter()
        .map(|t| t.replace(":401145:", ":401146:"))
        .collect();
    s.replace_tp("T2:", "T2:401145:E:0:0");
    cases.push(("A other addr", s.build().bytes, &gt::ORPHAN_TP_PIECE));
    let mut s = Sample::new(2);
    s.replace_tp("T2:", "T2:401145:E:0:0:Xffffffffffffffff,ab");
    cases.push(("X huge", s.build().bytes, &gt::TP_CONDITION_LENGTH));
    // MI -trace-status aborts on a file without status: a warning here, plus the frames are fine.
    for (name, bytes, rule) in cases {
        let f = check(&bytes);
        assert!(
            f.iter()
                .any(|x| x.rule == rule && x.severity == Severity::Error),
            "{name}: expected error {}, got:\n{}",
            rule.code,
            dump(&f)
        );
    }
}

/// The malformed inputs of spec §3 that GDB rejects or misreads give an error or warning.
#[test]
fn gdb_rejected_inputs_are_flagged() {
    let base = Sample::new(3);
    let mut cases: Vec<(&str, Vec<u8>)> = Vec::new();
    cases.push(("empty", Vec::new()));
    cases.push(("7 bytes", b"\x7fTRACE0".to_vec()));
    let mut s = base.clone();
    s.header = b"XTRACE0\n".to_vec();
    cases.push(("no 7f", s.build().bytes));
    for r in ["0", "32", "10", "20xyz", "   20"] {
        let mut s = base.clone();
        s.register_line = Some(r.into());
        cases.push(("R", s.build().bytes));
    }
    for st in [
        "0;bogus",
        "",
        "0;tstop::0;tframes:zz",
        "0;tstop:zz:0;tframes:3",
        "0;tstop::0;tframes:3;notes:414",
        "x;tstop::0;tframes:3",
    ] {
        cases.push(("status", with_status(3, st).bytes));
    }
    cases.push((
        "999+1",
        with_extra(3, &format!("tp A2:401145:R{}", "0".repeat(986))).bytes,
    ));
    let mut s = base.clone();
    s.end = b"\0\0".to_vec();
    let b = s.build();
    let mut cut = b.bytes.clone();
    cut.truncate(cut.len() - 500);
    cases.push(("cut", cut));
    let mut s = base.clone();
    for f in &mut s.frames {
        f.size = Some(64);
    }
    cases.push(("size -1", s.build().bytes));
    let mut s = base.clone();
    for f in &mut s.frames {
        f.blocks.push(SampleBlock::Raw(vec![0]));
    }
    cases.push(("slack", s.build().bytes));
    let mut s = base.clone();
    s.frames[1].blocks[1] = SampleBlock::MLen(0x404060, 40, vec![1, 2, 3, 4]);
    cases.push(("M len 40", s.build().bytes));
    let mut s = base.clone();
    s.frames[2].tpnum = 0;
    cases.push(("tp 0 midway", s.build().bytes));
    let mut s = base.clone();
    s.end = b"\0\0\xff\xff\xff\xff".to_vec();
    cases.push(("nonzero after marker", s.build().bytes));
    for (name, bytes) in cases {
        let (f, _) = check_opts(&bytes, &CheckOptions::default());
        assert!(
            f.iter().any(|x| x.severity >= Severity::Warning),
            "{name}: expected a finding, got:\n{}",
            dump(&f)
        );
    }
}

/// Lines, pieces and status fields GDB ignores (as it would those of a newer writer) are
/// informational: GDB 13.1 opens such files and reads every frame the same.
#[test]
fn ignored_definitions_are_info() {
    let cases: [(&str, Built, &Rule); 4] = [
        (
            "tdesc without space",
            with_extra(3, "tdesc"),
            &gt::UNKNOWN_DEFINITION_LINE,
        ),
        (
            "unknown line",
            with_extra(3, "foo bar"),
            &gt::UNKNOWN_DEFINITION_LINE,
        ),
        (
            "unknown piece",
            with_extra(3, "tp Y2:401145:zz"),
            &gt::TP_UNKNOWN_PIECE,
        ),
        (
            "unknown field",
            with_status(3, "0;tstop::0;tframes:3;newkey:12"),
            &gt::STATUS_UNKNOWN_FIELD,
        ),
    ];
    for (name, b, rule) in cases {
        let f = check(&b.bytes);
        assert!(
            f.iter()
                .any(|x| x.rule == rule && x.severity == Severity::Info),
            "{name}:\n{}",
            dump(&f)
        );
        no_errors(&f);
    }
}

#[test]
fn forced_byte_order_is_honoured() {
    let mut s = Sample::new(2);
    s.endian = Endian::Big;
    s.tdesc.clear();
    let b = s.build();
    let opts = CheckOptions {
        endian: Some(Endian::Little),
        ..CheckOptions::default()
    };
    let (f, _) = check_opts(&b.bytes, &opts);
    expect_code(&f, &gt::BYTE_ORDER_CONFLICT);
    let opts = CheckOptions {
        endian: Some(Endian::Big),
        ..CheckOptions::default()
    };
    let (f, n) = check_opts(&b.bytes, &opts);
    clean(&f);
    assert_eq!(n, Some(2));
}

#[test]
fn many_bad_frames_are_summarised() {
    let frames = (0..500)
        .map(|_| frame(2, vec![SampleBlock::R(32), SampleBlock::Raw(b"Q".to_vec())]))
        .collect();
    let b = with_frames(frames).build();
    let f = check(&b.bytes);
    let n = f
        .iter()
        .filter(|x| x.rule == &gt::UNKNOWN_BLOCK_TYPE)
        .count();
    assert!(n <= 40, "{n} findings");
    assert!(
        f.iter().any(|x| x.message.contains("more frame")),
        "{}",
        dump(&f)
    );
}

/// GDB as oracle: the frame count it walks equals tracelint's on every file tracelint finds
/// sound, and where GDB cannot walk all frames tracelint has a finding.
#[test]
fn differential_against_gdb() {
    if std::process::Command::new("gdb")
        .arg("--version")
        .output()
        .is_err()
    {
        common::skip_or_fail("gdb is not installed");
        return;
    }
    let script = "python exec(\"n=0\\nwhile True:\\n try:\\n  out=gdb.execute('tfind %d'%n,to_string=True)\\n except gdb.error: break\\n if 'Found trace frame' not in out: break\\n n+=1\\nprint('WALKED',n)\")";
    let mut files = corpus_files();
    files.push(common::corpus("gdb/defects/fast.tf"));
    files.push(common::corpus("gdb/defects/circular-corrupt.tf"));
    files.push(common::corpus("gdb/defects/truncated.tf"));
    for p in files {
        let out = std::process::Command::new("timeout")
            .arg("60")
            .arg("gdb")
            .args(["-nx", "-batch", "-ex"])
            .arg(format!("target tfile {}", p.display()))
            .args(["-ex", "tstatus", "-ex", script])
            .output();
        let Ok(out) = out else {
            common::skip_or_fail("cannot run gdb");
            return;
        };
        let text = String::from_utf8_lossy(&out.stdout).to_string()
            + &String::from_utf8_lossy(&out.stderr);
        let walked: Option<u64> = text
            .lines()
            .find_map(|l| l.strip_prefix("WALKED "))
            .and_then(|n| n.trim().parse().ok());
        let Some(walked) = walked else {
            common::skip_or_fail(&format!(
                "{}: gdb gave no frame count:\n{text}",
                p.display()
            ));
            continue;
        };
        let claimed: Option<u64> = text.lines().find_map(|l| {
            let l = l.trim();
            let rest = l
                .strip_prefix("Collected ")
                .or_else(|| l.strip_prefix("Buffer contains "))?;
            rest.split_whitespace().next()?.parse().ok()
        });
        let data = std::fs::read(&p).unwrap();
        let (f, ours) = check_opts(&data, &CheckOptions::default());
        let ours = ours.unwrap();
        let flagged = f.iter().any(|x| x.severity >= Severity::Warning);
        if !flagged {
            assert_eq!(
                walked,
                ours,
                "{}: gdb walked {walked} frames, tracelint {ours}",
                p.display()
            );
            if let Some(c) = claimed {
                assert_eq!(c, ours, "{}: gdb reports {c} frames", p.display());
            }
        } else if walked != ours {
            eprintln!(
                "{}: gdb walked {walked} of {ours} frames; tracelint flags it:\n{}",
                p.display(),
                dump(&f)
            );
        }
        if walked < ours {
            assert!(
                flagged,
                "{}: gdb stops after {walked} frames but tracelint is silent",
                p.display()
            );
        }
    }
}

/// Many definitions (and many orphan pieces) are all checked: every orphan piece and every
/// duplicate among 10,000 tracepoints and 20,000 variables is found, each once. How long it
/// takes is a benchmark's question (`bench/gdb.sh definitions` times 10,000 and 40,000 of
/// them), not a test's.
#[test]
fn many_definitions_are_all_checked() {
    let n = 10_000u64;
    let b = Sample::many_definitions(n).build();
    // Room for every finding (the usual cap keeps 10,000).
    let mut sink = Sink::new(100_000);
    check_bytes(&b.bytes, &CheckOptions::default(), &mut sink);
    let (f, dropped) = sink.into_parts();
    assert_eq!(dropped, 0);
    let count = |rule: &tracelint::registry::Rule| f.iter().filter(|x| x.rule == rule).count();
    assert_eq!(
        count(&gt::ORPHAN_TP_PIECE),
        (n / 1000) as usize,
        "{}",
        dump(&f[..f.len().min(20)])
    );
    assert_eq!(count(&gt::DUPLICATE_TSV), n as usize);
}

#[test]
fn command_names_are_checked_in_teval_only() {
    let cmd = "teval $nosuch = 1";
    let b = with_extra(
        1,
        &format!("tp Z2:401145:cmd:0:{:x}:{}", cmd.len(), hexs(cmd)),
    );
    let f = check(&b.bytes);
    let l = last_line(&b, "tp Z2:401145:cmd:0:11");
    assert!(
        f.iter().any(|x| x.rule == &gt::TP_COMMAND_INVALID
            && x.span() == l
            && x.message.contains("$nosuch")),
        "{}",
        dump(&f)
    );
    let mut s = Sample::new(1);
    for cmd in [
        "collect $eax, $ymm0",
        "teval $hits = $hits + $rip",
        "while-stepping 2",
        "collect $regs",
        "end",
    ] {
        s.extra_lines
            .push(format!("tp Z2:401145:cmd:0:{:x}:{}", cmd.len(), hexs(cmd)).into_bytes());
    }
    let f = check(&s.build().bytes);
    assert!(
        !f.iter().any(|x| x.rule == &gt::TP_COMMAND_INVALID),
        "{}",
        dump(&f)
    );
}

/// Replaces the definition lines of a real tsave output: `edit` maps the lines (without `\n`).
fn edit_definitions(data: &[u8], edit: impl Fn(Vec<String>) -> Vec<String>) -> Vec<u8> {
    let end = data.windows(2).position(|w| w == b"\n\n").unwrap();
    let head = String::from_utf8(data[..end].to_vec()).unwrap();
    let lines = edit(head.split('\n').map(str::to_string).collect());
    let mut out = lines.join("\n").into_bytes();
    out.extend_from_slice(&data[end..]);
    out
}

fn hex_cmd_line(tp: &str, cmd: &str) -> String {
    format!("tp Z{tp}:cmd:0:{:x}:{}", cmd.len(), hexs(cmd))
}

/// The programs scripts/corpus/gdb.sh traces: its variable, the executable's name and its
/// sources in scripts/corpus/src.
const PROGRAMS: &[(&str, &str, &[&str])] = &[
    ("EXE", "tpdemo", &["tpdemo.c"]),
    ("EXE_MULTI", "tpmulti", &["tpmulti.c", "tpmulti2.c"]),
];

fn gdb_sh() -> String {
    std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/corpus/gdb.sh"),
    )
    .unwrap()
}

/// The program scripts/corpus/gdb.sh traced to make the corpus file `stem`.tf: the
/// `PROG=$VAR` before its `run_shape` (`$EXE`, tpdemo, without one). Fails when gdb.sh does not
/// make the file, or traces it with a program [`PROGRAMS`] lacks or whose sources it never
/// names.
fn program_of(stem: &str) -> &'static str {
    let script = gdb_sh();
    let shape = format!("run_shape {stem} ");
    let line = script
        .lines()
        .map(str::trim_start)
        .find(|l| {
            let cmd = match l.strip_prefix("PROG=") {
                Some(r) => r.split_once(' ').map_or("", |(_, c)| c),
                None => l,
            };
            cmd.starts_with(&shape)
        })
        .unwrap_or_else(|| panic!("scripts/corpus/gdb.sh makes no {stem}.tf"));
    let var = line
        .strip_prefix("PROG=$")
        .and_then(|r| r.split(' ').next())
        .unwrap_or("EXE");
    let &(_, name, sources) = PROGRAMS
        .iter()
        .find(|p| p.0 == var)
        .unwrap_or_else(|| panic!("{stem}.tf: gdb.sh traces ${var}, which PROGRAMS lacks"));
    for s in sources {
        assert!(
            script.contains(&format!("/src/{s}")),
            "gdb.sh builds ${var} without src/{s}"
        );
    }
    name
}

/// Builds the corpus program `name` of [`PROGRAMS`] as scripts/corpus/gdb.sh does (GDB needs the
/// executable to re-create the tracepoints of a tfile); `None` when gcc or gdb is missing.
fn corpus_program(tag: &str, name: &str) -> Option<std::path::PathBuf> {
    let have = |t: &str| {
        std::process::Command::new(t)
            .arg("--version")
            .output()
            .is_ok()
    };
    if !have("gdb") || !have("gcc") {
        common::skip_or_fail("gdb or gcc is not installed");
        return None;
    }
    let &(_, _, sources) = PROGRAMS.iter().find(|p| p.1 == name).unwrap();
    let dir = std::env::temp_dir().join(format!("tracelint-gdb-test-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&dir).ok()?;
    let exe = dir.join(name);
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/corpus/src");
    let ok = std::process::Command::new("gcc")
        .args(["-g", "-O0", "-fno-pie", "-no-pie", "-o"])
        .arg(&exe)
        .args(sources.iter().map(|s| src.join(s)))
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        common::skip_or_fail(&format!("cannot build {name} from {sources:?}"));
        return None;
    }
    Some(exe)
}

/// tpdemo, the program of every corpus file but twoloc.tf.
fn tpdemo_executable(tag: &str) -> Option<std::path::PathBuf> {
    corpus_program(tag, "tpdemo")
}

/// Runs GDB on `data` (written next to `exe`) with `cmds` after `target tfile`; stdout+stderr.
fn gdb_output(exe: &std::path::Path, name: &str, data: &[u8], cmds: &[&str]) -> Option<String> {
    let tf = exe.with_file_name(format!("{name}.tf"));
    std::fs::write(&tf, data).ok()?;
    let mut c = std::process::Command::new("timeout");
    c.args(["60", "gdb", "-nx", "-batch", "-ex"])
        .arg(format!("file {}", exe.display()))
        .arg("-ex")
        .arg(format!("target tfile {}", tf.display()));
    for x in cmds {
        c.args(["-ex", x]);
    }
    let out = c.output().ok()?;
    let mut s = String::from_utf8_lossy(&out.stdout).into_owned();
    s.push_str(&String::from_utf8_lossy(&out.stderr));
    Some(s.replace('\0', ""))
}

/// Tracepoints whose command lines GDB rejects, and frames of undefined tracepoints: GDB 13.1
/// opens the file and finds the frames but cannot dump them; tracelint reports errors.
#[test]
fn frames_gdb_cannot_dump_are_errors() {
    let Some(exe) = tpdemo_executable("dump") else {
        return;
    };
    let multi = std::fs::read(common::corpus("gdb/multi.tf")).unwrap();
    // The definition lines starting with `prefix` replaced by the command lines `cmds` of `tp`.
    let replace_cmd = |prefix: &str, tp: &str, cmds: &[&str]| {
        edit_definitions(&multi, |l| {
            l.into_iter()
                .flat_map(|x| {
                    if x.starts_with(prefix) {
                        cmds.iter().map(|c| hex_cmd_line(tp, c)).collect()
                    } else {
                        vec![x]
                    }
                })
                .collect()
        })
    };
    let bogus = replace_cmd("tp Z5:40125c:cmd:", "5:40125c", &["bogus"]);
    let string_collect = replace_cmd("tp Z2:401145:cmd:", "2:401145", &["collect/s label"]);
    let nested = replace_cmd(
        "tp Z3:40117d:cmd:0:f:",
        "3:40117d",
        &["while-stepping 1", "collect r", "end"],
    );
    let undefined = edit_definitions(&multi, |l| {
        l.into_iter()
            .filter(|x| {
                !x.starts_with("tp T5:")
                    && !x.starts_with("tp A5:")
                    && !x.starts_with("tp Z5:")
                    && !x.starts_with("tp V5:")
            })
            .collect()
    });
    // (name, file, rule, frame to dump, tracepoint number of that frame)
    let cases: [(&str, &[u8], &Rule, u32, u32); 4] = [
        ("bogus", &bogus, &gt::TP_COMMAND_INVALID, 15, 5),
        ("collect-s", &string_collect, &gt::TP_COMMAND_INVALID, 0, 2),
        ("nested", &nested, &gt::TP_COMMAND_INVALID, 15, 5),
        (
            "undefined",
            &undefined,
            &gt::FRAME_TRACEPOINT_UNDEFINED,
            15,
            5,
        ),
    ];
    for (name, data, rule, frame, tp) in cases {
        let f = check(data);
        assert!(
            f.iter()
                .any(|x| x.rule == rule && x.severity == Severity::Error),
            "{name}: expected error {}, got:\n{}",
            rule.code,
            dump(&f)
        );
        let tfind = format!("tfind {frame}");
        let Some(out) = gdb_output(&exe, name, data, &["tstatus", &tfind, "tdump"]) else {
            common::skip_or_fail("cannot run gdb");
            return;
        };
        assert!(out.contains("Collected 16 trace frames"), "{name}: {out}");
        assert!(
            out.contains(&format!("Found trace frame {frame}, tracepoint {tp}")),
            "{name}: {out}"
        );
        assert!(
            out.contains(&format!(
                "No known tracepoint matches 'current' tracepoint #{tp}"
            )),
            "{name}: gdb dumped the frame:\n{out}"
        );
    }
    // The untouched file: every tracepoint is linked and frame 15 is dumped.
    let out = gdb_output(&exe, "multi", &multi, &["tfind 15", "tdump"]).unwrap();
    assert!(
        out.contains("Data collected at tracepoint 4, trace frame 15"),
        "{out}"
    );
    assert!(!out.contains("No known tracepoint"), "{out}");
    // A stray `end` only cuts the action list: a warning, and GDB still dumps the frame.
    let stray = edit_definitions(&multi, |l| {
        l.into_iter()
            .flat_map(|x| {
                if x.starts_with("tp Z2:401145:cmd:") {
                    vec![hex_cmd_line("2:401145", "end"), x]
                } else {
                    vec![x]
                }
            })
            .collect()
    });
    let f = check(&stray);
    no_errors(&f);
    expect_code(&f, &gt::TP_COMMAND_LIST_UNBALANCED);
    let out = gdb_output(&exe, "stray-end", &stray, &["tfind 0", "tdump"]).unwrap();
    assert!(
        out.contains("Data collected at tracepoint 1, trace frame 0:"),
        "{out}"
    );
    assert!(!out.contains("label ="), "{out}");
    let _ = std::fs::remove_dir_all(exe.parent().unwrap());
}

/// The file names no writer; what it shows (tdesc lines, gdbserver's builtin variable) is
/// named in the quirk findings.
#[test]
fn writer_hint_of_real_tsave_output() {
    let data = std::fs::read(common::corpus("gdb/regs.tf")).unwrap();
    let f = check(&data);
    let x = f
        .iter()
        .find(|x| x.rule == &gt::DECIMAL_TP_STATUS_COUNTS)
        .unwrap_or_else(|| panic!("{}", dump(&f)));
    assert!(
        x.notes
            .iter()
            .any(|n| n.contains("2016 or later") && n.contains("gdbserver target")),
        "{:?}",
        x.notes
    );
}

/// Counts per target tracepoint number: from tracelint's map ("tracepoint N" of the frames node).
fn tracelint_counts(data: &[u8]) -> (u64, std::collections::BTreeMap<i64, u64>) {
    let mut sink = Sink::new(10_000);
    let (_, map) = check_bytes(data, &CheckOptions::default(), &mut sink);
    let frames = frame_count(&map).unwrap();
    let node = map.children.iter().find(|c| c.label == "frames").unwrap();
    let per_tp = node
        .values
        .iter()
        .filter_map(|(k, v)| {
            let tp = k.strip_prefix("tracepoint ")?.parse().ok()?;
            let n = v.split(' ').next()?.parse().ok()?;
            Some((tp, n))
        })
        .collect();
    (frames, per_tp)
}

/// GDB as oracle on every untouched tsave output of the corpus, each read with the program it
/// traced (as scripts/corpus/gdb.sh builds it): `tstatus`'s frame count, the frames `tfind`
/// walks per tracepoint (mapped back to the file's numbers through "Created tracepoint G for
/// target's tracepoint T"), every tracepoint location GDB created or merged ("Assuming
/// tracepoint G is same as target's tracepoint T at A") and the trace state variables equal
/// what tracelint decodes.
#[test]
fn corpus_matches_gdb_tstatus_and_tfind() {
    let mut programs: std::collections::HashMap<&str, std::path::PathBuf> = Default::default();
    let mut dir = None;
    for p in corpus_files() {
        let data = std::fs::read(&p).unwrap();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        let prog = program_of(name.strip_suffix(".tf").unwrap());
        let exe = match programs.get(prog) {
            Some(e) => e.clone(),
            None => {
                let Some(e) = corpus_program("status", prog) else {
                    return;
                };
                programs.insert(prog, e.clone());
                e
            }
        };
        let walk = exe.with_file_name("walk.py");
        if dir.is_none() {
            std::fs::write(
                &walk,
                "import gdb, re\ncounts = {}\nn = 0\nwhile True:\n    try:\n        out = gdb.execute('tfind %d' % n, to_string=True)\n    except gdb.error:\n        break\n    m = re.search(r'Found trace frame (\\d+), tracepoint (-?\\d+)', out)\n    if not m:\n        break\n    t = int(m.group(2))\n    counts[t] = counts.get(t, 0) + 1\n    n += 1\nprint('WALKED', n, 'PER_TP', ' '.join('%d:%d' % kv for kv in sorted(counts.items())))\n",
            )
            .unwrap();
            dir = exe.parent().map(std::path::Path::to_path_buf);
        }
        let source = format!("source {}", walk.display());
        let (frames, per_tp) = tracelint_counts(&data);
        let d = tracelint::formats::gdb::decode::text::decode_description(
            &data,
            &CheckOptions::default(),
            &mut Sink::new(10_000),
        );
        let Some(out) = gdb_output(&exe, &name, &data, &["tstatus", "info tvariables", &source])
        else {
            common::skip_or_fail("cannot run gdb");
            return;
        };
        // tstatus: "Collected N trace frames." or "Buffer contains N trace frames (of M ...".
        let status_frames: u64 = out
            .lines()
            .find_map(|l| {
                l.strip_prefix("Collected ")
                    .or_else(|| l.strip_prefix("Buffer contains "))
                    .and_then(|r| r.split(' ').next())
                    .and_then(|n| n.parse().ok())
            })
            .unwrap_or(0);
        assert_eq!(status_frames, frames, "{name}: tstatus\n{out}");
        // GDB's tracepoint G for the target's T, and every (T, address) it created or merged.
        let mut gdb_to_target = std::collections::HashMap::new();
        let mut locations = std::collections::BTreeSet::new();
        for l in out.lines() {
            let (r, target_at) = if let Some(r) = l.strip_prefix("Created tracepoint ") {
                (r, 4)
            } else if let Some(r) = l.strip_prefix("Assuming tracepoint ") {
                (r, 6)
            } else {
                continue;
            };
            let w: Vec<&str> = r.split(' ').collect();
            let g: i64 = w[0].parse().unwrap();
            let t: u64 = w[target_at].parse().unwrap();
            let addr = w[target_at + 2]
                .trim_end_matches('.')
                .trim_start_matches("0x");
            if target_at == 4 {
                gdb_to_target.insert(g, t as i64);
            }
            locations.insert((t, u64::from_str_radix(addr, 16).unwrap()));
        }
        let ours: std::collections::BTreeSet<(u64, u64)> =
            d.tracepoints.iter().map(|t| (t.num, t.addr)).collect();
        assert_eq!(
            ours.len(),
            d.tracepoints.len(),
            "{name}: a tracepoint location defined twice"
        );
        assert_eq!(locations, ours, "{name}: tracepoint locations\n{out}");
        let walked = out.lines().find(|l| l.starts_with("WALKED ")).unwrap();
        let mut w = walked.split(' ');
        let n: u64 = w.nth(1).unwrap().parse().unwrap();
        assert_eq!(n, frames, "{name}: tfind walked {walked}");
        let mut gdb_per_tp: std::collections::BTreeMap<i64, u64> = Default::default();
        for kv in w.skip(1).filter(|s| !s.is_empty()) {
            let (k, v) = kv.split_once(':').unwrap();
            let g: i64 = k.parse().unwrap();
            *gdb_per_tp
                .entry(gdb_to_target.get(&g).copied().unwrap_or(g))
                .or_default() += v.parse::<u64>().unwrap();
        }
        assert_eq!(gdb_per_tp, per_tp, "{name}: frames per tracepoint");
        let tvariables = out.lines().filter(|l| l.starts_with('$')).count();
        assert_eq!(
            tvariables,
            d.tsvs.len(),
            "{name}: trace state variables\n{out}"
        );
    }
    if let Some(dir) = dir {
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// Every file under corpus/gdb/defects is really defective: GDB fails on it, and tracelint
/// reports an error.
#[test]
fn every_defect_file_has_an_error() {
    let dir = common::corpus("gdb/defects");
    let mut n = 0;
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        let f = check(&std::fs::read(&p).unwrap());
        assert!(
            f.iter().any(|x| x.severity == Severity::Error),
            "{}: no error:\n{}",
            p.display(),
            dump(&f)
        );
        n += 1;
    }
    assert!(n >= 2);
}

/// The writer hint follows what each tsave generation wrote.
#[test]
fn writer_hint_follows_tsave_generations() {
    let hint = |s: Sample| {
        tracelint::formats::gdb::decode::text::decode_description(
            &s.build().bytes,
            &CheckOptions::default(),
            &mut Sink::new(1000),
        )
        .writer_hint()
    };
    // Before 2013: no status times/notes/user, no tdesc.
    let mut s = Sample::new(1);
    s.tdesc.clear();
    s.status = StatusLine::Custom("0;tstop:0;tframes:1;tcreated:1".into());
    let h = hint(s);
    assert!(!h.tdesc && !h.status_times, "{h:?}");
    assert!(h.describe().contains("before 2013"), "{}", h.describe());
    // 2013 to 2016: status times, no tdesc.
    let mut s = Sample::new(1);
    s.tdesc.clear();
    s.status = StatusLine::Custom("0;tstop::0;tframes:1;starttime:10;stoptime:20".into());
    assert!(hint(s).describe().contains("2013 to 2016"));
    // Since 2016: tdesc lines.
    assert!(hint(Sample::new(1)).describe().contains("2016 or later"));
}

/// Definitions GDB ignores or only echoes (unknown lines, pieces and status keys, a second status
/// line or field, a status frame count that disagrees with the frames): GDB 13.1 opens the file
/// and reads every frame the same, so tracelint reports no error.
#[test]
fn definitions_gdb_reads_around_are_not_errors() {
    let Some(exe) = tpdemo_executable("around") else {
        return;
    };
    let multi = std::fs::read(common::corpus("gdb/multi.tf")).unwrap();
    let status = |l: &str| l.starts_with("status ");
    let cases: Vec<(&str, Vec<u8>, &Rule)> = vec![
        (
            "unknown line",
            edit_definitions(&multi, |mut l| {
                l.insert(2, "foo bar".into());
                l
            }),
            &gt::UNKNOWN_DEFINITION_LINE,
        ),
        (
            "unknown piece",
            edit_definitions(&multi, |mut l| {
                l.push("tp Y4:4011db:zz".into());
                l
            }),
            &gt::TP_UNKNOWN_PIECE,
        ),
        (
            "unknown field",
            edit_definitions(&multi, |l| {
                l.into_iter()
                    .map(|x| {
                        if status(&x) {
                            format!("{x};newkey:12")
                        } else {
                            x
                        }
                    })
                    .collect()
            }),
            &gt::STATUS_UNKNOWN_FIELD,
        ),
        (
            "second status",
            edit_definitions(&multi, |mut l| {
                l.insert(2, "status 0;tstop::0;tframes:3".into());
                l
            }),
            &gt::DUPLICATE_STATUS,
        ),
        (
            "tframes",
            edit_definitions(&multi, |l| {
                l.into_iter()
                    .map(|x| {
                        if status(&x) {
                            x.replace(";tframes:10;", ";tframes:4;")
                        } else {
                            x
                        }
                    })
                    .collect()
            }),
            &gt::TFRAMES_MISMATCH,
        ),
    ];
    for (name, data, rule) in cases {
        let f = check(&data);
        expect_code(&f, rule);
        no_errors(&f);
        let Some(out) = gdb_output(
            &exe,
            &name.replace(' ', "-"),
            &data,
            &["tfind 15", "print acc"],
        ) else {
            common::skip_or_fail("cannot run gdb");
            return;
        };
        assert!(
            out.contains("Found trace frame 15, tracepoint 4"),
            "{name}: {out}"
        );
        assert!(out.contains("$1 = 10"), "{name}: {out}");
    }
    let _ = std::fs::remove_dir_all(exe.parent().unwrap());
}

/// What GDB 13, given `exe`, prints opening `data` and dumping its frame 0.
fn gdb_open_with(exe: &std::path::Path, name: &str, data: &[u8]) -> String {
    gdb_output(exe, name, data, &["info tracepoints", "tfind 0", "tdump"]).unwrap()
}

fn with_program(data: &[u8], exe: &std::path::Path) -> Vec<Finding> {
    let program = tracelint::program::Program::load(exe, &tracelint::Limits::default()).unwrap();
    let opts = CheckOptions {
        program: Some(std::sync::Arc::new(program)),
        ..CheckOptions::default()
    };
    check_opts(data, &opts).0
}

/// `data` with `old` (once, as a whole line) replaced by `new`.
fn replace_line(data: &[u8], old: &[u8], new: &[u8]) -> Vec<u8> {
    let needle = [b"\n", old, b"\n"].concat();
    let at = data
        .windows(needle.len())
        .position(|w| w == needle.as_slice())
        .unwrap_or_else(|| panic!("no line {}", String::from_utf8_lossy(old)));
    [&data[..at + 1], new, &data[at + 1 + old.len()..]].concat()
}

#[test]
fn healthy_fast_tracepoint_passes_with_its_program() {
    let Some(exe) = tpdemo_executable("program") else {
        return;
    };
    let data = std::fs::read(common::corpus("gdb/fast.tf")).unwrap();
    let f = with_program(&data, &exe);
    clean(&f);
    assert!(
        !f.iter().any(|x| x.rule == &gt::FAST_TRACEPOINT_UNCHECKED),
        "{}",
        dump(&f)
    );
    // Without the program the fast tracepoint is a note saying what `--program` would check.
    let f = check(&data);
    let n = f
        .iter()
        .find(|x| x.rule == &gt::FAST_TRACEPOINT_UNCHECKED)
        .expect("GT066");
    assert_eq!(n.severity, Severity::Info);
    assert!(n.message.contains("--program"), "{}", n.message);
    // GDB 13 reads it with the program: the fast tracepoint is created, frame 0 dumped.
    let out = gdb_open_with(&exe, "fast", &data);
    assert!(out.contains("fast tracepoint"), "{out}");
    assert!(
        out.contains("Data collected at tracepoint 1, trace frame 0"),
        "{out}"
    );
}

#[test]
fn every_corpus_file_with_its_program_has_no_errors() {
    let Some(demo) = tpdemo_executable("program") else {
        return;
    };
    let Some(multi) = corpus_program("program", "tpmulti") else {
        return;
    };
    for p in corpus_files() {
        let exe = if p.ends_with("twoloc.tf") {
            &multi
        } else {
            &demo
        };
        let f = with_program(&std::fs::read(&p).unwrap(), exe);
        no_errors(&f);
        for r in [
            &gt::FAST_TRACEPOINT_TOO_SHORT,
            &gt::TRACEPOINT_FUNCTION_UNKNOWN,
        ] {
            assert!(
                !f.iter().any(|x| x.rule == r),
                "{}: {}",
                p.display(),
                dump(&f)
            );
        }
    }
}

#[test]
fn a_normal_tracepoint_made_fast_at_a_short_instruction_is_an_error_with_the_program() {
    // regs.tf's tracepoint 2 is at tl_step+15 (0x401145), a 4-byte `mov -0x20(%rbp),%rax`.
    let Some(exe) = tpdemo_executable("program") else {
        return;
    };
    let data = std::fs::read(common::corpus("gdb/regs.tf")).unwrap();
    let base = gdb_open_with(&exe, "regs", &data);
    assert!(
        base.contains("Data collected at tracepoint 1, trace frame 0"),
        "{base}"
    );
    for flag in [":F5", ":F0", ":F", ":Fzz"] {
        let line = format!("tp T2:401145:E:0:0{flag}");
        let m = replace_line(&data, b"tp T2:401145:E:0:0", line.as_bytes());
        let f = with_program(&m, &exe);
        let e = f
            .iter()
            .find(|x| x.rule == &gt::FAST_TRACEPOINT_TOO_SHORT)
            .unwrap_or_else(|| panic!("{flag}: no GT062:\n{}", dump(&f)));
        assert_eq!(e.severity, Severity::Error, "{flag}");
        assert!(e.message.contains("only 4 bytes long"), "{}", e.message);
        // Without the program it cannot be told: a note, no error.
        let f = check(&m);
        expect_code(&f, &gt::FAST_TRACEPOINT_UNCHECKED);
        assert!(!f.iter().any(|x| x.rule == &gt::FAST_TRACEPOINT_TOO_SHORT));
        // GDB 13 with the program: no tracepoint, the frames lose theirs.
        let out = gdb_open_with(&exe, "fast-mutant", &m);
        assert!(
            out.contains("May not have a fast tracepoint at 0x401145; instruction is only 4 bytes long, need at least 5 bytes for the jump"),
            "{flag}: {out}"
        );
        assert!(out.contains("No tracepoints."), "{flag}: {out}");
        assert!(
            out.contains("No known tracepoint matches 'current' tracepoint #2."),
            "{flag}: {out}"
        );
    }
}

#[test]
fn an_at_location_the_program_lacks_is_an_error_with_the_program() {
    let Some(exe) = tpdemo_executable("program") else {
        return;
    };
    let data = std::fs::read(common::corpus("gdb/regs.tf")).unwrap();
    // `tl_step` (746c5f73746570) renamed `tl_stex`.
    let m = replace_line(
        &data,
        b"tp Z2:401145:at:0:7:746c5f73746570",
        b"tp Z2:401145:at:0:7:746c5f73746578",
    );
    let f = with_program(&m, &exe);
    let e = f
        .iter()
        .find(|x| x.rule == &gt::TRACEPOINT_FUNCTION_UNKNOWN)
        .expect("GT064");
    assert_eq!(e.severity, Severity::Error);
    assert!(!check(&m)
        .iter()
        .any(|x| x.rule == &gt::TRACEPOINT_FUNCTION_UNKNOWN));
    let out = gdb_open_with(&exe, "renamed", &m);
    assert!(out.contains("Function \"tl_stex\" not defined."), "{out}");
    assert!(
        out.contains("No known tracepoint matches 'current' tracepoint #2."),
        "{out}"
    );
}

#[test]
fn a_static_flag_and_an_address_outside_the_program_are_notes() {
    let Some(exe) = tpdemo_executable("program") else {
        return;
    };
    let data = std::fs::read(common::corpus("gdb/regs.tf")).unwrap();
    let base = gdb_open_with(&exe, "regs", &data);
    let frame0 = |s: &str| {
        let dump = s.split("Found trace frame 0").nth(1)?;
        let lines: Vec<&str> = dump
            .lines()
            .filter(|l| !l.starts_with("warning:"))
            .collect();
        Some(lines.join("\n"))
    };
    // `:S`: GDB 13 re-creates a static tracepoint with a warning and dumps the same frame.
    let m = replace_line(&data, b"tp T2:401145:E:0:0", b"tp T2:401145:E:0:0:S");
    let f = with_program(&m, &exe);
    clean(&f);
    expect_code(&f, &gt::STATIC_TRACEPOINT);
    let out = gdb_open_with(&exe, "static", &m);
    assert!(
        out.contains("Couldn't determine the static tracepoint marker to probe"),
        "{out}"
    );
    assert_eq!(frame0(&out), frame0(&base));
    // The address moved out of the program (every piece of the tracepoint): GDB re-creates
    // it from its `at` location and dumps the same frame.
    let end = data.windows(2).position(|w| w == b"\n\n").unwrap();
    let text = String::from_utf8(data[..end].to_vec()).unwrap();
    let m = [
        text.replace(":401145:", ":500000:").as_bytes(),
        &data[end..],
    ]
    .concat();
    assert_ne!(m, data);
    let f = with_program(&m, &exe);
    clean(&f);
    expect_code(&f, &gt::TRACEPOINT_OUTSIDE_PROGRAM);
    let out = gdb_open_with(&exe, "outside", &m);
    assert_eq!(frame0(&out), frame0(&base));
}

#[test]
fn a_fast_flag_on_one_location_is_checked_at_every_place_of_its_name() {
    // twoloc.tf's tracepoint 2 (`at` = `step`) has three locations: two static `step`s of
    // tpmulti (3-byte instructions at 0x40112d and 0x40119f) and glibc's. `:F` on the glibc
    // one: GDB resolves `step` in the program and fails at 0x40112d.
    let Some(exe) = corpus_program("program", "tpmulti") else {
        return;
    };
    let data = std::fs::read(common::corpus("gdb/twoloc.tf")).unwrap();
    let m = replace_line(
        &data,
        b"tp T2:7ffff7f26ee0:E:0:0",
        b"tp T2:7ffff7f26ee0:E:0:0:F",
    );
    let f = with_program(&m, &exe);
    let e = f
        .iter()
        .find(|x| x.rule == &gt::FAST_TRACEPOINT_TOO_SHORT)
        .unwrap_or_else(|| panic!("no GT062:\n{}", dump(&f)));
    assert_eq!(e.severity, Severity::Error);
    assert!(
        e.message.contains("0x40112d") && e.message.contains("only 3 bytes"),
        "{}",
        e.message
    );
    let out = gdb_open_with(&exe, "twoloc-fast", &m);
    assert!(
        out.contains(
            "May not have a fast tracepoint at 0x40112d; instruction is only 3 bytes long"
        ),
        "{out}"
    );
}

#[test]
fn a_damaged_program_never_crashes_the_check() {
    // tpdemo cut at many lengths and with bytes of its ELF and section headers changed: it is
    // refused (`ProgramError::Invalid`) or read, and fast.tf and regs.tf with a fast flag are
    // checked against whatever was read.
    let Some(exe) = tpdemo_executable("damaged") else {
        return;
    };
    let good = std::fs::read(&exe).unwrap();
    let fast = std::fs::read(common::corpus("gdb/fast.tf")).unwrap();
    let regs = replace_line(
        &std::fs::read(common::corpus("gdb/regs.tf")).unwrap(),
        b"tp T2:401145:E:0:0",
        b"tp T2:401145:E:0:0:F5",
    );
    let limits = tracelint::Limits::default();
    let mut variants: Vec<Vec<u8>> = Vec::new();
    for cut in (0..good.len()).step_by(211) {
        variants.push(good[..cut].to_vec());
    }
    // The ELF header, the section headers (at e_shoff) and the start of .text.
    let shoff = u64::from_le_bytes(good[0x28..0x30].try_into().unwrap()) as usize;
    let places: Vec<usize> = (0..0x40)
        .chain((shoff..good.len()).step_by(7))
        .chain(0x1050..0x1100)
        .collect();
    for (k, &at) in places.iter().enumerate() {
        for v in [0x00u8, 0xff, 0x7f, 0x80] {
            let mut b = good.clone();
            if at < b.len() && b[at] != v {
                b[at] = v ^ (k as u8 & 1);
                variants.push(b);
            }
        }
    }
    let mut read = 0;
    for b in variants {
        let Ok(p) = tracelint::program::Program::from_bytes(&exe, b, &limits) else {
            continue;
        };
        read += 1;
        for s in &p.sections {
            let _ = p.x86_insn_at(s.addr);
            let _ = p.x86_insn_at(s.addr.wrapping_add(s.size).wrapping_sub(1));
        }
        let _ = p.knows(b"tl_tick", true);
        let opts = CheckOptions {
            program: Some(std::sync::Arc::new(p)),
            ..CheckOptions::default()
        };
        check_opts(&fast, &opts);
        check_opts(&regs, &opts);
    }
    assert!(read > 100, "only {read} variants were read");
}

#[test]
fn many_unknown_names_are_judged_within_the_lookup_budget() {
    // 500 fast tracepoints whose `at` names tpdemo lacks: the first 64 distinct names are
    // searched for in the program's debug information too and are GT064 errors; the later ones
    // are found in neither its symbols nor `.debug_str`, are not judged, and say so (GT066).
    let Some(exe) = tpdemo_executable("budget") else {
        return;
    };
    let mut s = Sample::new(1);
    for n in 0..500u32 {
        let num = 100 + n;
        let name = format!("nofn{n}");
        s.extra_lines
            .push(format!("tp T{num:x}:401145:E:0:0:F5").into_bytes());
        s.extra_lines
            .push(format!("tp Z{num:x}:401145:at:0:{:x}:{}", name.len(), hexs(&name)).into_bytes());
    }
    let f = with_program(&s.build().bytes, &exe);
    let count = |r: &Rule| f.iter().filter(|x| x.rule == r).count();
    let missing: Vec<u32> = (0..64u32)
        .filter(|n| {
            let name = format!("`nofn{n}`");
            !f.iter()
                .any(|x| x.rule == &gt::TRACEPOINT_FUNCTION_UNKNOWN && x.message.contains(&name))
        })
        .collect();
    assert!(missing.is_empty(), "{missing:?}");
    assert_eq!(count(&gt::TRACEPOINT_FUNCTION_UNKNOWN), 64);
    assert_eq!(count(&gt::FAST_TRACEPOINT_UNCHECKED), 500 - 64);
}

/// A static flag on a tracepoint with while-stepping (`multi.tf` T3, `step` 2): GDB 13 refuses
/// while-stepping on a static tracepoint ("The 'while-stepping' command cannot be used for
/// static tracepoint") and loses the tracepoint's frames; GDB never creates such a tracepoint,
/// so a file cannot hold one healthy.
#[test]
fn a_static_flag_on_a_while_stepping_tracepoint_is_an_error() {
    let Some(exe) = tpdemo_executable("static-step") else {
        return;
    };
    assert_eq!(program_of("multi"), "tpdemo");
    let data = std::fs::read(common::corpus("gdb/multi.tf")).unwrap();
    let m = replace_line(&data, b"tp T3:40117d:E:2:a", b"tp T3:40117d:E:2:a:S");
    let f = with_program(&m, &exe);
    assert!(
        f.iter()
            .any(|x| x.rule.code == "GT065" && x.severity == Severity::Error),
        "{f:#?}"
    );
    let out = gdb_open_with(&exe, "static-step", &m);
    assert!(
        out.contains("The 'while-stepping' command cannot be used for static tracepoint"),
        "{out}"
    );
    let base = gdb_open_with(&exe, "static-step-base", &data);
    assert_ne!(out, base);
}

/// A `FILE:LINE` location whose file the program lacks (`multi.tf` T5's `tpdemo.c:49` made
/// `tpdemn.c:49`): GDB 13 prints "No source file named tpdemn.c.", creates no tracepoint, and
/// its frames cannot be dumped; with the program, tracelint says so (`GT064`). The healthy
/// file's locations all name the program's source file.
#[test]
fn a_file_line_location_the_program_lacks_is_an_error_with_the_program() {
    let Some(exe) = tpdemo_executable("file-line") else {
        return;
    };
    let data = std::fs::read(common::corpus("gdb/multi.tf")).unwrap();
    let old = b"747064656d6f2e633a3439";
    let at = data.windows(old.len()).position(|w| w == old).unwrap();
    let mut m = data.clone();
    m[at..at + old.len()].copy_from_slice(b"747064656d6e2e633a3439");
    let f = with_program(&m, &exe);
    assert!(
        f.iter().any(|x| x.rule.code == "GT064"
            && x.severity == Severity::Error
            && x.message.contains("tpdemn.c")),
        "{f:#?}"
    );
    let out = gdb_open_with(&exe, "file-line", &m);
    assert!(out.contains("No source file named tpdemn.c"), "{out}");
    let f = with_program(&data, &exe);
    assert!(!f.iter().any(|x| x.rule.code == "GT064"), "{f:#?}");
}

/// One location of a multi-location tracepoint made static (`twoloc.tf`, `:S` on the
/// `0x40112d` line): `tsave` writes every location of a tracepoint with its one type, and GDB
/// 13 creates a tracepoint per type, three for the recording's two.
#[test]
fn locations_of_one_tracepoint_of_two_types_are_an_error() {
    let data = std::fs::read(common::corpus("gdb/twoloc.tf")).unwrap();
    let end = data.windows(2).position(|w| w == b"\n\n").unwrap();
    let text = String::from_utf8(data[..end].to_vec()).unwrap();
    let line = text
        .lines()
        .find(|l| l.starts_with("tp T2:40112d:"))
        .expect("twoloc.tf has a T2 line at 0x40112d");
    let m = replace_line(&data, line.as_bytes(), format!("{line}:S").as_bytes());
    let (f, _) = check_opts(&m, &CheckOptions::default());
    assert!(
        f.iter()
            .any(|x| x.rule.code == "GT027" && x.severity == Severity::Error),
        "{f:#?}"
    );
    let (f, _) = check_opts(&data, &CheckOptions::default());
    assert!(!f.iter().any(|x| x.severity == Severity::Error), "{f:#?}");
    let Some(exe) = corpus_program("twoloc-types", program_of("twoloc")) else {
        return;
    };
    let count = |s: &str| s.matches("Created tracepoint").count();
    let base = gdb_open_with(&exe, "twoloc-base", &data);
    let out = gdb_open_with(&exe, "twoloc-types", &m);
    assert!(count(&out) > count(&base), "{base}\n---\n{out}");
}
