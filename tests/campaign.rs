//! Classes the differential campaign (campaign/) found, kept as fixtures: each is built from a
//! recorded corpus directory (or kept as the mutant file under `corpus/*/defects/campaign-*`),
//! asserts tracelint's code and level for the case, and, where the reader matrix is present,
//! that the readers really do what the level claims (fail on errors, read the same on
//! warnings).

mod common;

use std::path::{Path, PathBuf};
use tracelint::{CheckOptions, Severity};

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}

/// The (code, severity) pairs tracelint reports for `path`.
fn levels(path: &Path) -> Vec<(String, Severity)> {
    let r = tracelint::check_path(path, &CheckOptions::default(), &Default::default());
    r.findings
        .iter()
        .map(|f| (f.rule.code.to_string(), f.severity))
        .collect()
}

fn has(l: &[(String, Severity)], code: &str, sev: Severity) -> bool {
    l.iter().any(|(c, s)| c == code && *s == sev)
}

fn no_error(l: &[(String, Severity)]) -> bool {
    l.iter().all(|(_, s)| *s != Severity::Error)
}

/// `uftrace dump` of `dir` by every uftrace of the matrix: (exit ok, stdout without its perf
/// file headings).
fn dumps(dir: &Path) -> Vec<(&'static str, bool, String)> {
    common::matrix_readers("uftrace")
        .into_iter()
        .map(|r| {
            let out = std::process::Command::new("timeout")
                .args(["-s", "KILL", "30"])
                .arg(&r.path)
                .args(["dump", "--no-pager", "-d"])
                .arg(dir)
                .env("HOME", "/nonexistent")
                .output()
                .unwrap();
            // The events, without the perf file headings: uftrace names a perf file by its
            // place among those there are, not by its own name.
            let text: String = String::from_utf8_lossy(&out.stdout)
                .lines()
                .filter(|l| !l.is_empty() && !l.starts_with("reading perf-cpu"))
                .map(|l| format!("{l}\n"))
                .collect();
            (r.name, out.status.success(), text)
        })
        .collect()
}

/// A mutated copy of a corpus recording.
fn mutant(name: &str, edit: impl FnOnce(&Path)) -> (tempfile::TempDir, PathBuf) {
    let t = tempfile::tempdir().unwrap();
    let d = t.path().join(name);
    copy_dir(&common::corpus(&format!("uftrace/{name}")), &d);
    edit(&d);
    (t, d)
}

fn set_feat(d: &Path, f: impl FnOnce(u64) -> u64) {
    let p = d.join("info");
    let mut b = std::fs::read(&p).unwrap();
    let old = u64::from_le_bytes(b[16..24].try_into().unwrap());
    b[16..24].copy_from_slice(&f(old).to_le_bytes());
    std::fs::write(&p, b).unwrap();
}

const TASK_SESSION: u64 = 1 << 1;
const ARGUMENT: u64 = 1 << 3;
const RETVAL: u64 = 1 << 4;
const PERF_EVENT: u64 = 1 << 8;
const AUTO_ARGS: u64 = 1 << 9;

/// What readers must do with a mutant tracelint calls an error: some reader of the matrix
/// fails or reads other records than on the original.
fn readers_fail(orig: &Path, mutant: &Path) {
    let a = dumps(orig);
    let b = dumps(mutant);
    if a.is_empty() {
        return;
    }
    let differs = a
        .iter()
        .zip(&b)
        .any(|((_, ok0, out0), (_, ok1, out1))| ok0 != ok1 || out0 != out1);
    assert!(
        differs,
        "every reader reads {} as the original",
        mutant.display()
    );
}

/// What readers must do with a mutant tracelint passes: every reader dumps it as the original.
fn readers_same(orig: &Path, mutant: &Path) {
    let a = dumps(orig);
    let b = dumps(mutant);
    for ((name, ok0, out0), (_, ok1, out1)) in a.iter().zip(&b) {
        assert_eq!((ok0, out0), (ok1, out1), "{name} on {}", mutant.display());
    }
}

#[test]
fn a_recording_without_info_is_an_error() {
    let (_t, d) = mutant("plain", |d| std::fs::remove_file(d.join("info")).unwrap());
    assert!(tracelint::formats::uftrace::is_data_dir(&d));
    let l = levels(&d);
    assert!(has(&l, "UF001", Severity::Error), "{l:?}");
    readers_fail(&common::corpus("uftrace/plain"), &d);
}

#[test]
fn task_session_cleared_is_an_error() {
    let (_t, d) = mutant("plain", |d| set_feat(d, |f| f & !TASK_SESSION));
    let l = levels(&d);
    assert!(has(&l, "UF014", Severity::Error), "{l:?}");
    readers_fail(&common::corpus("uftrace/plain"), &d);
}

#[test]
fn info_mask_zero_is_an_error() {
    let (_t, d) = mutant("plain", |d| {
        let p = d.join("info");
        let mut b = std::fs::read(&p).unwrap();
        b[24..32].fill(0);
        std::fs::write(&p, b).unwrap();
    });
    let l = levels(&d);
    assert!(has(&l, "UF014", Severity::Error), "{l:?}");
    readers_fail(&common::corpus("uftrace/plain"), &d);
}

#[test]
fn perf_event_cleared_with_perf_files_is_an_error() {
    let (_t, d) = mutant("threads", |d| set_feat(d, |f| f & !PERF_EVENT));
    assert!(d.join("perf-cpu0.dat").exists());
    let l = levels(&d);
    assert!(has(&l, "UF022", Severity::Error), "{l:?}");
    readers_fail(&common::corpus("uftrace/threads"), &d);
}

#[test]
fn payloads_without_argument_features_are_an_error() {
    let (_t, d) = mutant("args", |d| {
        set_feat(d, |f| f & !(ARGUMENT | RETVAL | AUTO_ARGS))
    });
    let l = levels(&d);
    assert!(has(&l, "UF022", Severity::Error), "{l:?}");
    readers_fail(&common::corpus("uftrace/args"), &d);
}

/// AUTO_ARGS cleared alone: uftrace 0.9.4–0.18.1 set the auto-args list up only with that bit,
/// so `malloc`'s payload has no spec and every reader stops ("record missing argument info").
#[test]
fn auto_args_cleared_on_an_auto_args_recording_is_an_error() {
    let (_t, d) = mutant("args", |d| set_feat(d, |f| f & !AUTO_ARGS));
    let l = levels(&d);
    assert!(has(&l, "UF068", Severity::Error), "{l:?}");
    readers_fail(&common::corpus("uftrace/args"), &d);
}

#[test]
fn a_missing_sym_of_the_traced_program_is_an_error() {
    let (_t, d) = mutant("plain", |d| {
        std::fs::remove_file(d.join("uf_basic.sym")).unwrap()
    });
    let l = levels(&d);
    assert!(has(&l, "UF067", Severity::Error), "{l:?}");
    readers_fail(&common::corpus("uftrace/plain"), &d);
}

#[test]
fn a_wrong_small_symbol_count_is_a_warning() {
    let (_t, d) = mutant("plain", |d| {
        let p = d.join("libc.so.6.sym");
        let s = std::fs::read_to_string(&p).unwrap();
        let first = s.lines().next().unwrap().to_string();
        std::fs::write(&p, s.replacen(&first, "# symbols: 3", 1)).unwrap();
    });
    let l = levels(&d);
    assert!(has(&l, "UF052", Severity::Warning), "{l:?}");
    assert!(no_error(&l), "{l:?}");
    readers_same(&common::corpus("uftrace/plain"), &d);
}

#[test]
fn a_huge_symbol_count_is_an_error() {
    let (_t, d) = mutant("plain", |d| {
        let p = d.join("uf_basic.sym");
        let s = std::fs::read_to_string(&p).unwrap();
        let first = s.lines().next().unwrap().to_string();
        std::fs::write(&p, s.replacen(&first, "# symbols: 99999999999", 1)).unwrap();
    });
    let l = levels(&d);
    assert!(has(&l, "UF052", Severity::Error), "{l:?}");
    readers_fail(&common::corpus("uftrace/plain"), &d);
}

#[test]
fn a_symbol_line_uftrace_reads_is_a_warning() {
    // A short address: tracelint's layout wants 16 digits, uftrace's strtoull takes any.
    let (_t, d) = mutant("plain", |d| {
        let p = d.join("libm.so.6.sym");
        let s = std::fs::read_to_string(&p).unwrap();
        let line = s.lines().nth(5).unwrap().to_string();
        let short = line.trim_start_matches('0').to_string();
        std::fs::write(&p, s.replacen(&line, &short, 1)).unwrap();
    });
    let l = levels(&d);
    assert!(has(&l, "UF051", Severity::Warning), "{l:?}");
    assert!(no_error(&l), "{l:?}");
    readers_same(&common::corpus("uftrace/plain"), &d);
}

/// The campaign's kept trace.dat and GDB mutants: `campaign-<code>-<what>`; each must give an
/// error of its code.
#[test]
fn kept_campaign_mutants_give_their_error() {
    let mut n = 0;
    for fmt in ["tracecmd", "gdb"] {
        let dir = common::corpus(&format!("{fmt}/defects"));
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            let Some(rest) = name.strip_prefix("campaign-") else {
                continue;
            };
            let code = rest.split('-').next().unwrap().to_uppercase();
            let l = levels(&p);
            assert!(has(&l, &code, Severity::Error), "{name}: {l:?}");
            n += 1;
        }
    }
    assert!(n >= 5, "only {n} kept campaign mutants replayed");
}

/// What a third-party writer of the uftrace format writes (a Rust tracer in the wild):
/// `timestamp=S.0`, a two-digit session id, a zero-length `[stack]` line at the top of the
/// address space and `nm` output with data symbols. uftrace reads all of it with its `sscanf`
/// patterns and skips what it does not use: warnings, never errors.
#[test]
fn a_third_party_writers_recording_is_read_the_same() {
    let (_t, d) = mutant("plain", |d| {
        let map = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.file_name().unwrap().to_string_lossy().starts_with("sid-"))
            .unwrap();
        let old_sid = map.file_name().unwrap().to_string_lossy()[4..20].to_string();
        // A zero-length [stack] line at the top of the address space.
        let m = std::fs::read_to_string(&map).unwrap();
        let mut lines: Vec<String> = m.lines().map(str::to_string).collect();
        let last = lines.pop().unwrap();
        let rest = last.split_once(' ').unwrap().1.to_string();
        lines.push(format!("7ffffffff000-7ffffffff000 {rest}"));
        std::fs::write(d.join("sid-00.map"), lines.join("\n") + "\n").unwrap();
        std::fs::remove_file(&map).unwrap();
        // `timestamp=S.0` and session id `00`.
        let t = std::fs::read_to_string(d.join("task.txt")).unwrap();
        let t: Vec<String> = t
            .lines()
            .map(|l| {
                let l = l.replace(&old_sid, "00");
                let (head, tail) = l.split_once("timestamp=").unwrap();
                let (ts, after) = tail.split_once(' ').unwrap();
                let secs = ts.split('.').next().unwrap();
                format!("{head}timestamp={secs}.0 {after}")
            })
            .collect();
        std::fs::write(d.join("task.txt"), t.join("\n") + "\n").unwrap();
        // `nm` output: a data symbol among the functions.
        let p = d.join("libm.so.6.sym");
        let s = std::fs::read_to_string(&p).unwrap();
        std::fs::write(&p, s + "0000000000123456 B some_bss_variable\n").unwrap();
    });
    let l = levels(&d);
    assert!(no_error(&l), "{l:?}");
    for code in ["UF030", "UF035", "UF040"] {
        assert!(has(&l, code, Severity::Warning), "{code}: {l:?}");
    }
    // Every reader reads the records (the session's own timestamps and id are values).
    let orig = common::corpus("uftrace/plain");
    for ((name, ok0, out0), (_, ok1, out1)) in dumps(&orig).iter().zip(&dumps(&d)) {
        assert!(ok0 == ok1, "{name}");
        let records = |s: &str| {
            s.lines()
                .filter(|l| l.contains("[entry]") || l.contains("[exit ]"))
                .map(str::to_string)
                .collect::<Vec<_>>()
        };
        assert_eq!(records(out0), records(out1), "{name}");
    }
}

/// A symbol line uftrace skips loses names only where the trace enters the module: an error in
/// the traced program's `.sym`, a warning in a library the trace never enters.
#[test]
fn a_skipped_symbol_line_is_an_error_only_where_the_trace_goes() {
    let orig = common::corpus("uftrace/plain");
    let (_t, lib) = mutant("plain", |d| {
        let p = d.join("libm.so.6.sym");
        let s = std::fs::read_to_string(&p).unwrap();
        let line = s.lines().nth(5).unwrap().to_string();
        std::fs::write(&p, s.replacen(&line, &line.replacen(' ', "", 1), 1)).unwrap();
    });
    let l = levels(&lib);
    assert!(has(&l, "UF051", Severity::Warning), "{l:?}");
    assert!(no_error(&l), "{l:?}");
    readers_same(&orig, &lib);

    let (_t2, exe) = mutant("plain", |d| {
        let p = d.join("uf_basic.sym");
        let s = std::fs::read_to_string(&p).unwrap();
        let line = s
            .lines()
            .find(|l| l.ends_with(" main"))
            .unwrap()
            .to_string();
        std::fs::write(&p, s.replacen(&line, &line.replacen(' ', "", 1), 1)).unwrap();
    });
    let l = levels(&exe);
    assert!(has(&l, "UF051", Severity::Error), "{l:?}");
    readers_fail(&orig, &exe);
}

/// A finding whose level was decided from the case carries the readers' behaviour as data
/// (JSON, JSON Lines and SARIF `properties.impact`).
#[test]
fn case_levels_carry_the_readers_impact() {
    let p = common::corpus("tracecmd/defects/campaign-td104-commit-zero.dat");
    let r = tracelint::check_path(&p, &CheckOptions::default(), &Default::default());
    let f = r.findings.iter().find(|f| f.rule.code == "TD104").unwrap();
    let i = f.impact.as_ref().expect("an impact");
    assert_eq!(
        (i.reader, i.versions, i.effect),
        ("trace-cmd report", "2.4–3.3.4", "loss")
    );
    let json = serde_json::to_value(f).unwrap();
    assert_eq!(json["impact"]["effect"], "loss");
}

/// A TASK line stamped after the task's records (campaign: every uftrace loses the names of
/// the records no session covers): those records are the errors (`UF067`), the line itself a
/// warning.
#[test]
fn a_task_line_after_its_records_is_an_error() {
    let (_t, d) = mutant("plain", |d| {
        let p = d.join("task.txt");
        let s = std::fs::read_to_string(&p).unwrap();
        let line = s
            .lines()
            .find(|l| l.starts_with("TASK "))
            .unwrap()
            .to_string();
        let (head, tail) = line.split_once("timestamp=").unwrap();
        let (_, after) = tail.split_once('.').unwrap();
        std::fs::write(
            &p,
            s.replacen(&line, &format!("{head}timestamp=4294967295.{after}"), 1),
        )
        .unwrap();
    });
    let l = levels(&d);
    assert!(has(&l, "UF073", Severity::Warning), "{l:?}");
    assert!(has(&l, "UF067", Severity::Error), "{l:?}");
    readers_fail(&common::corpus("uftrace/plain"), &d);
}

/// A compressed section's `usize` one too large reads the same (trace-cmd decompresses into
/// max(usize, csize) bytes); one too small loses the section.
#[test]
fn a_section_usize_is_an_error_only_when_the_block_does_not_fit() {
    let orig = common::corpus("tracecmd/clock-x86-tsc-v7-zstd.dat");
    let data = std::fs::read(&orig).unwrap();
    let at = 0x14e;
    let usize_ = u32::from_le_bytes(data[at..at + 4].try_into().unwrap());
    let tmp = tempfile::tempdir().unwrap();
    let report = |p: &Path| {
        common::matrix_readers("trace-cmd")
            .into_iter()
            .filter(|r| r.v7)
            .map(|r| {
                let o = std::process::Command::new(&r.path)
                    .args(["report", "-i"])
                    .arg(p)
                    .output()
                    .unwrap();
                (
                    o.status.success(),
                    String::from_utf8_lossy(&o.stdout).into_owned(),
                )
            })
            .collect::<Vec<_>>()
    };
    let base = report(&orig);
    for (delta, sev) in [(1i64, Severity::Warning), (-1, Severity::Error)] {
        let mut d = data.clone();
        let v = (i64::from(usize_) + delta) as u32;
        d[at..at + 4].copy_from_slice(&v.to_le_bytes());
        let p = tmp.path().join(format!("usize{delta}.dat"));
        std::fs::write(&p, &d).unwrap();
        let l = levels(&p);
        assert!(has(&l, "TD018", sev), "{delta}: {l:?}");
        let got = report(&p);
        if sev == Severity::Warning {
            assert_eq!(got, base, "readers differ on usize{delta}");
        } else {
            assert!(
                got.is_empty() || got != base,
                "readers read usize{delta} the same"
            );
        }
    }
}

/// The 16-byte records of a `<TID>.dat` without payloads: (offset, type, depth, address).
fn records(p: &Path) -> Vec<(usize, u64, u64, u64)> {
    let b = std::fs::read(p).unwrap();
    b.chunks_exact(16)
        .enumerate()
        .map(|(i, r)| {
            let w = u64::from_le_bytes(r[8..16].try_into().unwrap());
            (i * 16, w & 3, (w >> 6) & 0x3ff, w >> 16)
        })
        .collect()
}

fn dat_of(d: &Path) -> PathBuf {
    std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            let n = p.file_name().unwrap().to_string_lossy().to_string();
            n.ends_with(".dat") && n.chars().next().unwrap().is_ascii_digit()
        })
        .unwrap()
}

fn edit_word(p: &Path, off: usize, f: impl FnOnce(u64) -> u64) {
    let mut b = std::fs::read(p).unwrap();
    let w = u64::from_le_bytes(b[off + 8..off + 16].try_into().unwrap());
    b[off + 8..off + 16].copy_from_slice(&f(w).to_le_bytes());
    std::fs::write(p, b).unwrap();
}

#[test]
fn a_lost_record_libmcount_never_writes_is_an_error() {
    // An EXIT turned LOST keeps its time: libmcount writes LOST with time 0.
    let (_t, d) = mutant("plain", |d| {
        let p = dat_of(d);
        let (off, ..) = records(&p).into_iter().find(|r| r.1 == 1).unwrap();
        edit_word(&p, off, |w| (w & !3) | 2);
    });
    let l = levels(&d);
    assert!(has(&l, "UF062", Severity::Error), "{l:?}");
    readers_fail(&common::corpus("uftrace/plain"), &d);
}

#[test]
fn a_depth_jump_is_an_error() {
    let (_t, d) = mutant("plain", |d| {
        let p = dat_of(d);
        edit_word(&p, 0, |w| (w & !(0x3ff << 6)) | (1020 << 6));
    });
    let l = levels(&d);
    assert!(has(&l, "UF064", Severity::Error), "{l:?}");
    readers_fail(&common::corpus("uftrace/plain"), &d);
}

#[test]
fn an_exit_named_by_another_function_is_an_error() {
    // The EXIT of one call gets the address of another function's ENTRY.
    let (_t, d) = mutant("plain", |d| {
        let p = dat_of(d);
        let recs = records(&p);
        let (off, _, depth, addr) = *recs.iter().find(|r| r.1 == 1).unwrap();
        let other = recs.iter().find(|r| r.1 == 0 && r.3 != addr).unwrap().3;
        let _ = depth;
        edit_word(&p, off, |w| (w & 0xffff) | (other << 16));
    });
    let l = levels(&d);
    assert!(has(&l, "UF065", Severity::Error), "{l:?}");
    readers_fail(&common::corpus("uftrace/plain"), &d);
}

#[test]
fn an_address_in_no_module_is_an_error() {
    let (_t, d) = mutant("plain", |d| {
        let p = dat_of(d);
        let (off, ..) = records(&p).into_iter().find(|r| r.1 == 0).unwrap();
        edit_word(&p, off, |w| (w & 0xffff) | (0x10 << 16));
    });
    let l = levels(&d);
    assert!(has(&l, "UF067", Severity::Error), "{l:?}");
    readers_fail(&common::corpus("uftrace/plain"), &d);
}

#[test]
fn a_sym_header_of_another_build_is_an_error_only_where_the_trace_goes() {
    let damage = |file: &'static str| {
        move |d: &Path| {
            let p = d.join(file);
            let s = std::fs::read_to_string(&p).unwrap();
            let line = s
                .lines()
                .find(|l| l.starts_with("# build-id: "))
                .unwrap()
                .to_string();
            let mut bad = line.clone();
            bad.replace_range(12..13, if &line[12..13] == "0" { "1" } else { "0" });
            std::fs::write(&p, s.replacen(&line, &bad, 1)).unwrap();
        }
    };
    // The traced program: uftrace 0.13 and later look for another file and lose its names.
    let (_t, d) = mutant("plain", damage("uf_basic.sym"));
    let l = levels(&d);
    assert!(has(&l, "UF054", Severity::Error), "{l:?}");
    readers_fail(&common::corpus("uftrace/plain"), &d);
    // A library no record lies in: every reader reads the same.
    let (_t2, d2) = mutant("plain", damage("libz.so.1.2.13.sym"));
    let l2 = levels(&d2);
    assert!(has(&l2, "UF054", Severity::Warning), "{l2:?}");
    assert!(no_error(&l2), "{l2:?}");
    readers_same(&common::corpus("uftrace/plain"), &d2);
}

#[test]
fn a_deleted_symbol_line_of_the_traced_program_is_an_error() {
    let (_t, d) = mutant("plain", |d| {
        let p = d.join("uf_basic.sym");
        let s = std::fs::read_to_string(&p).unwrap();
        let line = s
            .lines()
            .find(|l| l.ends_with(" T leaf"))
            .unwrap()
            .to_string();
        std::fs::write(&p, s.replacen(&format!("{line}\n"), "", 1)).unwrap();
    });
    let l = levels(&d);
    assert!(has(&l, "UF052", Severity::Error), "{l:?}");
    readers_fail(&common::corpus("uftrace/plain"), &d);
}

#[test]
fn a_symbol_line_uftrace_reads_out_of_order_is_an_error_where_the_trace_goes() {
    // `0 t fib`: uftrace's strtoull reads address 0, so calls of fib print under the symbol
    // before it.
    let (_t, d) = mutant("plain", |d| {
        let p = d.join("uf_basic.sym");
        let s = std::fs::read_to_string(&p).unwrap();
        std::fs::write(&p, s.replacen("00000000000011f9 t fib", "0 t fib", 1)).unwrap();
    });
    let l = levels(&d);
    assert!(has(&l, "UF053", Severity::Error), "{l:?}");
    readers_fail(&common::corpus("uftrace/plain"), &d);
}

#[test]
fn a_repeated_dbg_spec_is_dropped_as_uftrace_drops_it() {
    // A second `A:` line for one function: uftrace marks the spec broken ("debug entry:
    // conflict"), and the function's payloads have no spec left.
    let (_t, d) = mutant("args", |d| {
        let p = d.join("uf_basic.dbg");
        let s = std::fs::read_to_string(&p).unwrap();
        std::fs::write(
            &p,
            s.replacen("A: @arg1/p,arg2\n", "A: @arg1/p,arg2\nA: @arg1/p,arg2\n", 1),
        )
        .unwrap();
    });
    let l = levels(&d);
    assert!(has(&l, "UF068", Severity::Error), "{l:?}");
    readers_fail(&common::corpus("uftrace/args"), &d);
}

#[test]
fn taskinfo_cleared_is_an_error() {
    let (_t, d) = mutant("plain", |d| {
        let p = d.join("info");
        let mut b = std::fs::read(&p).unwrap();
        let m = u64::from_le_bytes(b[24..32].try_into().unwrap());
        b[24..32].copy_from_slice(&(m & !(1 << 7)).to_le_bytes());
        std::fs::write(&p, b).unwrap();
    });
    let l = levels(&d);
    assert!(has(&l, "UF014", Severity::Error), "{l:?}");
    readers_fail(&common::corpus("uftrace/plain"), &d);
}

#[test]
fn a_task_line_before_its_session_is_an_error() {
    // uftrace gives a task the session of its pid in force at its TASK line: before the SESS
    // line there is none, and nothing of the task resolves.
    let (_t, d) = mutant("plain", |d| {
        let p = d.join("task.txt");
        let s = std::fs::read_to_string(&p).unwrap();
        let line = s
            .lines()
            .find(|l| l.starts_with("TASK timestamp="))
            .unwrap()
            .to_string();
        let ts = &line[15..line.find('.').unwrap()];
        let earlier = format!("TASK timestamp={}", &ts[..ts.len() - 1]);
        std::fs::write(&p, s.replacen(&format!("TASK timestamp={ts}"), &earlier, 1)).unwrap();
    });
    let l = levels(&d);
    assert!(has(&l, "UF067", Severity::Error), "{l:?}");
    readers_fail(&common::corpus("uftrace/plain"), &d);
}

/// A field line with an unknown attribute in a v6 file: every reader, trace-cmd 2.4 and 2.9.5
/// included, skips the format and prints its events as `[FAILED TO PARSE]`: a warning.
#[test]
fn a_broken_v6_format_every_reader_skips_is_a_warning() {
    let (_t, p) = edited("tracecmd/v6.dat", |b| {
        let needle = b"field:char prev_comm[16];\toffset:8;\tsize:16;";
        let at = b.windows(needle.len()).position(|w| w == needle).unwrap();
        let size_at = at + needle.len() - 8;
        b[size_at..size_at + 4].copy_from_slice(b"sizx");
    });
    let r = tracelint::check_path(&p, &CheckOptions::default(), &Default::default());
    let f = r
        .findings
        .iter()
        .find(|f| f.rule.code == "TD053")
        .expect("TD053");
    assert_eq!(f.severity, Severity::Warning, "{}", f.message);
    for (name, ok, out) in reports(&p, false, false) {
        assert!(ok, "{name} fails on {}", p.display());
        assert!(
            out.contains("[FAILED TO PARSE]"),
            "{name} parses the broken format"
        );
    }
}

/// A v6 field line whose `field:` keyword is damaged (kept from campaign `full18`): trace-cmd
/// 2.4 and 2.9.5, which read every v6 file whoever wrote it, crash parsing it; 3.x skip it.
#[test]
fn a_damaged_field_keyword_in_a_v6_format_is_an_error() {
    let p = common::corpus("tracecmd/defects/campaign-td053-field-keyword-crashes-2x.dat");
    let l = levels(&p);
    assert!(has(&l, "TD053", Severity::Error), "{l:?}");
    for (name, ok, _) in reports(&p, false, false) {
        if name.starts_with("trace-cmd 2.") {
            assert!(!ok, "{name} reads {}", p.display());
        } else {
            assert!(ok, "{name} fails on {}", p.display());
        }
    }
}

/// A byte-edited copy of a shipped trace.dat or tfile: (tempdir, path).
fn edited(rel: &str, edit: impl FnOnce(&mut Vec<u8>)) -> (tempfile::TempDir, PathBuf) {
    let mut b = std::fs::read(common::corpus(rel)).unwrap();
    edit(&mut b);
    let t = tempfile::tempdir().unwrap();
    let p = t.path().join(Path::new(rel).file_name().unwrap());
    std::fs::write(&p, &b).unwrap();
    (t, p)
}

fn find(b: &[u8], needle: &[u8]) -> usize {
    b.windows(needle.len()).position(|w| w == needle).unwrap()
}

/// `trace-cmd report` of every trace-cmd of the matrix that reads v6: (name, exit ok).
fn reports_ok(p: &Path) -> Vec<(&'static str, bool)> {
    common::matrix_readers("trace-cmd")
        .into_iter()
        .map(|r| {
            let out = std::process::Command::new("timeout")
                .args(["-s", "KILL", "30"])
                .arg(&r.path)
                .arg("report")
                .arg(p)
                .output()
                .unwrap();
            (r.name, out.status.success() && !out.stdout.is_empty())
        })
        .collect()
}

#[test]
fn a_print_symbolic_of_no_field_is_an_error() {
    // libtraceevent crashes parsing `__print_symbolic(REC->x, …)` when `x` is no field, even
    // for an event absent from the data.
    let (_t, p) = edited("tracecmd/v6.dat", |b| {
        let at = find(b, b"\tfield:clockid_t clockid;");
        b[at + b"\tfield:clockid_t ".len()] = b'X';
    });
    let l = levels(&p);
    assert!(has(&l, "TD053", Severity::Error), "{l:?}");
    for (name, ok) in reports_ok(&p) {
        assert!(!ok, "{name} reads {} without failing", p.display());
    }
}

#[test]
fn a_format_longer_than_its_size_is_an_error() {
    // A field line repeated without growing the format's size: the tail of the format is
    // read as the next system's name, and everything after it is shifted.
    let (_t, p) = edited("tracecmd/v6.dat", |b| {
        let line = b"\tfield:pid_t pid;\toffset:12;\tsize:4;\tsigned:1;\n";
        let at = find(b, b"name: sched_kthread_stop");
        let at = at + find(&b[at..], line);
        let copy = line.to_vec();
        b.splice(at..at, copy);
    });
    let l = levels(&p);
    assert!(has(&l, "TD053", Severity::Error), "{l:?}");
}

#[test]
fn a_long_size_above_eight_is_an_error() {
    let (_t, p) = edited("tracecmd/kernel-stack-v7-zstd.dat", |b| b[13] = 0xff);
    let l = levels(&p);
    assert!(has(&l, "TD004", Severity::Error), "{l:?}");
    let (_t2, p2) = edited("tracecmd/v7-zstd.dat", |b| b[13] = 7);
    let l2 = levels(&p2);
    assert!(has(&l2, "TD004", Severity::Warning), "{l2:?}");
    // `raw_data` records are misprinted for any size but 8.
    let (_t5, p5) = edited("tracecmd/marker-v6.dat", |b| b[13] = 7);
    let l5 = levels(&p5);
    assert!(has(&l5, "TD004", Severity::Error), "{l5:?}");
    // `raw_data` records (ftrace): trace-cmd 3.x crash.
    let (_t4, p4) = edited("tracecmd/marker-v6.dat", |b| b[13] = 0xff);
    let l4 = levels(&p4);
    assert!(has(&l4, "TD004", Severity::Error), "{l4:?}");
    // Without records of ftrace events or of events printing pointers, every reader reads the
    // same events whatever the size.
    for (rel, v7) in [
        ("tracecmd/v7-zstd.dat", true),
        ("tracecmd/subbuf-8k-v6.dat", false),
    ] {
        for size in [0u8, 0xff] {
            let (_t3, p3) = edited(rel, |b| b[13] = size);
            let l3 = levels(&p3);
            assert!(
                has(&l3, "TD004", Severity::Warning) && no_error(&l3),
                "{rel} {size}: {l3:?}"
            );
            let base = reports(&common::corpus(rel), v7, false);
            for ((name, _, o0), (_, _, o1)) in base.iter().zip(reports(&p3, v7, false)) {
                if name.starts_with("trace-cmd 3.") {
                    assert_eq!(o0, &o1, "{name} on {rel} with long size {size}");
                }
            }
        }
    }
}

#[test]
fn a_tracepoint_without_its_at_line_is_an_error() {
    let (_t, p) = edited("gdb/multi.tf", |b| {
        let line = b"tp Z4:4011db:at:0:9:746c5f66696e697368\n";
        let at = find(b, line);
        b.drain(at..at + line.len());
    });
    let l = levels(&p);
    assert!(has(&l, "GT031", Severity::Error), "{l:?}");
}

#[test]
fn a_zero_size_tdesc_flags_type_is_an_error() {
    let (_t, p) = edited("gdb/regs.tf", |b| {
        let at = find(b, b"<flags id=\"i386_eflags\" size=\"4\">");
        b[at + b"<flags id=\"i386_eflags\" size=\"".len()] = b'0';
    });
    let l = levels(&p);
    assert!(has(&l, "GT036", Severity::Error), "{l:?}");
}

/// `trace-cmd report` of every trace-cmd of the matrix that reads `p` (v7 only by 3.x, zlib
/// only by the matrix's own builds): (name, exit ok, stdout).
fn reports(p: &Path, v7: bool, zlib: bool) -> Vec<(&'static str, bool, String)> {
    common::matrix_readers("trace-cmd")
        .into_iter()
        .filter(|r| (!v7 || r.v7) && (!zlib || r.zlib))
        .map(|r| {
            let out = std::process::Command::new("timeout")
                .args(["-s", "KILL", "30"])
                .arg(&r.path)
                .arg("report")
                .arg(p)
                .output()
                .unwrap();
            (
                r.name,
                out.status.success(),
                String::from_utf8_lossy(&out.stdout).into_owned(),
            )
        })
        .collect()
}

/// `p`, an edited copy of the v7 corpus file `rel`, gets `code` as a warning and no error, and
/// every 3.x reader reports it as the original.
fn warning_read_same(rel: &str, p: &Path, code: &str) {
    let l = levels(p);
    assert!(has(&l, code, Severity::Warning), "{l:?}");
    assert!(no_error(&l), "{l:?}");
    let base = reports(&common::corpus(rel), true, false);
    assert_eq!(reports(p, true, false), base);
}

fn event_lines(out: &str) -> usize {
    out.lines()
        .filter(|l| l.contains(": ") && l.contains('['))
        .count()
}

#[test]
fn a_record_at_the_all_ones_time_is_an_error() {
    // CPU 1's first page timestamp set to all ones and its first record's delta to 0: the record
    // is at time -1, trace-cmd 3.3.4's "no more records" mark.
    let rel = "tracecmd/subbuf-8k-v6.dat";
    let (_t, p) = edited(rel, |b| {
        let fly = find(b, b"flyrecord\0") + 10;
        let e = fly + 16;
        let off = u64::from_le_bytes(b[e..e + 8].try_into().unwrap()) as usize;
        b[off..off + 8].copy_from_slice(&u64::MAX.to_le_bytes());
        let w = off + 16;
        let word = u32::from_le_bytes(b[w..w + 4].try_into().unwrap());
        b[w..w + 4].copy_from_slice(&(word & 31).to_le_bytes());
    });
    let l = levels(&p);
    assert!(has(&l, "TD114", Severity::Error), "{l:?}");
    let base = reports(&common::corpus(rel), false, false);
    for ((name, _, o0), (_, _, o1)) in base.iter().zip(reports(&p, false, false)) {
        if *name == "trace-cmd 3.3.4" {
            assert!(
                event_lines(&o1) < event_lines(o0),
                "{name} keeps every event"
            );
        } else {
            assert_eq!(event_lines(&o1), event_lines(o0), "{name}");
        }
    }
}

#[test]
fn an_instance_table_no_option_points_at_is_an_error() {
    // The v6 BUFFER option of instance `tracelint-foo` turned into a DATE option: its CPU
    // table and data stay in the file, after the top buffer's, and nothing reads them.
    let rel = "tracecmd/instances-v6.dat";
    let (_t, p) = edited(rel, |b| {
        let id = find(b, b"tracelint-foo\0") - 8 - 4 - 2;
        assert_eq!(&b[id..id + 2], &[3, 0]);
        b[id] = 1;
    });
    let l = levels(&p);
    assert!(has(&l, "TD040", Severity::Error), "{l:?}");
    let base = reports(&common::corpus(rel), false, false);
    for ((name, _, o0), (_, _, o1)) in base.iter().zip(reports(&p, false, false)) {
        assert!(
            event_lines(&o1) < event_lines(o0),
            "{name} reads every event"
        );
    }
}

/// `rel` with the data size of CPU `cpu` of its first `flyrecord\0` table halved.
fn cpu_size_halved(rel: &str, cpu: usize) -> (tempfile::TempDir, PathBuf) {
    edited(rel, |b| {
        let at = find(b, b"flyrecord\0") + 10 + 16 * cpu + 8;
        let size = u64::from_le_bytes(b[at..at + 8].try_into().unwrap());
        assert!(size >= 8192, "{rel} CPU {cpu} holds {size} bytes");
        b[at..at + 8].copy_from_slice(&(size / 2).to_le_bytes());
    })
}

#[test]
fn a_cpu_size_cut_inside_its_pages_loses_the_pages_after_it() {
    // A v6 CPU size halved: trace-cmd maps the page the size ends in whole and never reads the
    // pages after it, whether they are the file's tail (the last CPU with data: TD040) or lie
    // before the next CPU's data (TD039).
    for (rel, cpu, code) in [
        ("tracecmd/bigmarker-v6.dat", 0, "TD040"),
        ("tracecmd/lost-v6.dat", 1, "TD040"),
        ("tracecmd/kernel-stack-v6.dat", 0, "TD039"),
    ] {
        let (_t, p) = cpu_size_halved(rel, cpu);
        let l = levels(&p);
        assert!(has(&l, code, Severity::Error), "{rel}: {l:?}");
        let base = reports(&common::corpus(rel), false, false);
        for ((name, _, o0), (_, _, o1)) in base.iter().zip(reports(&p, false, false)) {
            assert!(
                event_lines(&o1) < event_lines(o0),
                "{name} reads every event of {rel}"
            );
        }
    }
}

#[test]
fn an_instance_page_size_below_the_page_header_is_an_error() {
    // Instance `tracelint-mono` (zstd, 16 KiB pages holding 716 and 1,008 bytes): trace-cmd 3.x
    // read its pages with the BUFFER option's page size.
    let rel = "tracecmd/clock-counter-inst-v7-zstd.dat";
    let with = |ps: u32| {
        edited(rel, |b| {
            let at = find(b, b"tracelint-mono\0counter\0") + b"tracelint-mono\0counter\0".len();
            assert_eq!(&b[at..at + 4], &16384u32.to_le_bytes());
            b[at..at + 4].copy_from_slice(&ps.to_le_bytes());
        })
    };
    for ps in [1, 8] {
        let (_t, p) = with(ps);
        let l = levels(&p);
        assert!(has(&l, "TD031", Severity::Error), "{ps}: {l:?}");
        for (name, ok, _) in reports(&p, true, false) {
            assert!(!ok, "{name} reads page size {ps} without failing");
        }
    }
    // Its pages' data fits in 1,024 bytes: every reader prints the same events.
    let (_t, p) = with(1024);
    let l = levels(&p);
    assert!(no_error(&l), "{l:?}");
    let base = reports(&common::corpus(rel), true, false);
    for ((name, _, o0), (_, ok, o1)) in base.iter().zip(reports(&p, true, false)) {
        assert!(ok, "{name}");
        assert_eq!(event_lines(&o1), event_lines(o0), "{name}");
    }
}

#[test]
fn a_header_page_size_below_4096_is_leveled_by_the_page_walk() {
    // The header's page size halved: every ring page is read as two, the page's data and the
    // kernel's zero fill. Where every page's data fits in 2,048 bytes the readers print the
    // same report; where one does not (lost-v6's full pages) they reject the file or lose events.
    let half = |b: &mut Vec<u8>| {
        assert_eq!(&b[14..18], &4096u32.to_le_bytes());
        b[14..18].copy_from_slice(&2048u32.to_le_bytes());
    };
    for (rel, v7) in [
        ("tracecmd/marker-v6.dat", false),
        ("tracecmd/v7-none.dat", true),
    ] {
        let (_t, p) = edited(rel, half);
        let l = levels(&p);
        assert!(
            has(&l, "TD005", Severity::Warning) && no_error(&l),
            "{rel}: {l:?}"
        );
        assert_eq!(
            reports(&p, v7, false),
            reports(&common::corpus(rel), v7, false),
            "{rel}"
        );
    }
    let rel = "tracecmd/lost-v6.dat";
    let (_t, p) = edited(rel, half);
    let l = levels(&p);
    assert!(has(&l, "TD101", Severity::Error), "{l:?}");
    let base = reports(&common::corpus(rel), false, false);
    for ((name, _, o0), (_, ok, o1)) in base.iter().zip(reports(&p, false, false)) {
        assert!(
            !ok || event_lines(&o1) < event_lines(o0),
            "{name} reads every event"
        );
    }
}

#[test]
fn a_last_record_made_an_absolute_time_stamp_is_an_error() {
    // CPU 1's last record (type_len 16, 68 bytes, ending at the commit) made an absolute time
    // stamp (type_len 31, 8 bytes): its tail is read as a record of no defined event, 4 bytes
    // past the commit with zeros after it, and it is not the page's last record of its own.
    let rel = "tracecmd/clock-uptime-v6.dat";
    let (_t, p) = edited(rel, |b| {
        assert_eq!(b[0x10164] & 31, 16);
        b[0x10164] = (b[0x10164] & !31) | 31;
    });
    let l = levels(&p);
    assert!(has(&l, "TD105", Severity::Error), "{l:?}");
    let base = reports(&common::corpus(rel), false, false);
    for ((name, _, o0), (_, ok, o1)) in base.iter().zip(reports(&p, false, false)) {
        assert!(!ok || o1 != *o0, "{name} reads the same");
    }
}

#[test]
fn a_commit_zeroed_over_a_record_at_delta_zero_is_an_error() {
    // The second page of bigmarker-v6's CPU 0 starts with a length-word record at time delta 0
    // (header word 0): its commit set to 0 leaves the page's records after the data, and every
    // reader skips the page.
    let rel = "tracecmd/bigmarker-v6.dat";
    let (_t, p) = edited(rel, |b| {
        assert_eq!(&b[0x11010..0x11014], &[0, 0, 0, 0]);
        assert_ne!(&b[0x11008..0x11010], &[0; 8]);
        b[0x11008..0x11010].copy_from_slice(&[0; 8]);
    });
    let l = levels(&p);
    assert!(has(&l, "TD104", Severity::Error), "{l:?}");
    let base = reports(&common::corpus(rel), false, false);
    for ((name, _, o0), (_, _, o1)) in base.iter().zip(reports(&p, false, false)) {
        assert!(
            event_lines(&o1) < event_lines(o0),
            "{name} reads every event"
        );
    }
}

#[test]
fn a_counter_clock_without_traceclock_is_an_error() {
    let rel = "tracecmd/clock-counter-inst-v7-zstd.dat";
    let (_t, p) = edited(rel, |b| {
        let id = find(b, b"local global [counter]") - 6;
        assert_eq!(&b[id..id + 2], &[4, 0]);
        b[id] = 1;
    });
    let l = levels(&p);
    assert!(has(&l, "TD030", Severity::Error), "{l:?}");
    // Every timestamp of the top buffer prints as 0.000000: the counter values are lost (the
    // instance's lines, prefixed with its name, keep their own clock).
    for (name, _, out) in reports(&p, true, false) {
        let times: std::collections::HashSet<&str> = out
            .lines()
            .filter(|l| !l.starts_with("tracelint-"))
            .filter_map(|l| l.split(']').nth(1)?.split(':').next())
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .collect();
        assert!(
            times.len() <= 1,
            "{name} shows {} distinct times",
            times.len()
        );
    }
}

#[test]
fn a_v7_cpucount_below_the_buffer_table_is_a_warning() {
    let rel = "tracecmd/v7-none.dat";
    let (_t, p) = edited(rel, |b| {
        // trace-cmd convert writes CPUCOUNT twice: both say 1.
        let pat = b"\x08\x00\x04\x00\x00\x00\x02\x00\x00\x00";
        while let Some(at) = b.windows(pat.len()).position(|w| w == pat) {
            b[at + 6] = 1;
        }
    });
    warning_read_same(rel, &p, "TD028");
}

#[test]
fn an_unreadable_strings_section_is_a_warning() {
    // The STRINGS section only names sections, and trace-cmd 3.x ignores a failed read of it.
    let rel = "tracecmd/full-meta-v7-zstd.dat";
    let (_t, p) = edited(rel, |b| {
        let hdr = find(b, b"\x0f\x00\x01\x00");
        b[hdr + 16..hdr + 20].copy_from_slice(&1u32.to_le_bytes());
    });
    warning_read_same(rel, &p, "TD017");
}

#[test]
fn an_empty_instance_page_size_is_a_warning() {
    // The page size of instance `tracelint-idle` (no CPU data) set to 0: unused by every reader.
    let rel = "tracecmd/empty-cpu-v7-none.dat";
    let (_t, p) = edited(rel, |b| {
        let name = find(b, b"tracelint-idle\0");
        let clock = name + b"tracelint-idle\0".len();
        let ps = clock + b[clock..].iter().position(|&c| c == 0).unwrap() + 1;
        b[ps..ps + 4].copy_from_slice(&0u32.to_le_bytes());
    });
    warning_read_same(rel, &p, "TD031");
}

#[test]
fn a_short_metadata_section_size_is_a_warning() {
    // The HEADER_INFO section's size one byte short, and KALLSYMS's cut to 0: trace-cmd 3.x
    // read metadata by the content's own sizes, wherever the section says it ends.
    let rel = "tracecmd/v7-none.dat";
    for (id, size) in [(16u16, None), (19, Some(0u64))] {
        let (_t, p) = edited(rel, |b| {
            let mut hdr = [0u8; 4];
            hdr[..2].copy_from_slice(&id.to_le_bytes());
            let at = find(b, &hdr);
            let v = u64::from_le_bytes(b[at + 8..at + 16].try_into().unwrap());
            let n = size.unwrap_or(v - 1);
            b[at + 8..at + 16].copy_from_slice(&n.to_le_bytes());
        });
        let l = levels(&p);
        assert!(has(&l, "TD016", Severity::Warning), "{id}: {l:?}");
        assert!(no_error(&l), "{id}: {l:?}");
        let base = reports(&common::corpus(rel), true, false);
        assert_eq!(reports(&p, true, false), base, "section {id}");
    }
}

#[test]
fn a_buffer_cpu_id_is_an_error_only_when_readers_cannot_size_for_it() {
    // The second CPU entry of v7-none's top BUFFER option (name "", clock "local").
    let rel = "tracecmd/v7-none.dat";
    let at = {
        let b = std::fs::read(common::corpus(rel)).unwrap();
        find(&b, b"\0local\0\x00\x10\x00\x00\x02\x00\x00\x00") + 7 + 8 + 20
    };
    let base = reports(&common::corpus(rel), true, false);
    for (id, sev) in [(7u32, Severity::Warning), (0x7fff_ffff, Severity::Error)] {
        let (_t, p) = edited(rel, |b| b[at..at + 4].copy_from_slice(&id.to_le_bytes()));
        let l = levels(&p);
        assert!(has(&l, "TD028", sev), "{id}: {l:?}");
        for ((name, _, o0), (_, _, o1)) in base.iter().zip(reports(&p, true, false)) {
            if sev == Severity::Warning {
                assert_eq!(event_lines(&o1), event_lines(o0), "{name} on id {id}");
            } else {
                assert_eq!(event_lines(&o1), 0, "{name} on id {id}");
            }
        }
    }
}

#[test]
fn a_version_string_strtol_reads_as_six_is_a_warning() {
    let rel = "tracecmd/v6.dat";
    let (_t, p) = edited(rel, |b| b[10] = 0x1b);
    let l = levels(&p);
    assert!(has(&l, "TD002", Severity::Warning), "{l:?}");
    assert!(no_error(&l), "{l:?}");
    // trace-cmd 2.4 also prints the version it read (`version = \x1b`): the events are the same.
    let events = |out: &str| -> Vec<String> {
        out.lines()
            .filter(|l| l.contains(": ") && l.contains('['))
            .map(str::to_string)
            .collect()
    };
    for ((name, ok0, o0), (_, ok1, o1)) in reports(&common::corpus(rel), false, false)
        .iter()
        .zip(reports(&p, false, false))
    {
        assert_eq!((ok0, events(o0)), (&ok1, events(&o1)), "{name}");
    }
}

fn map_of(d: &Path) -> PathBuf {
    std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.file_name().unwrap().to_string_lossy().starts_with("sid-"))
        .unwrap()
}

#[test]
fn a_broken_map_line_loses_only_the_records_it_maps() {
    // libcapstone (mapped by every uftrace-recorded process, never entered by the trace):
    // its range damaged, uftrace skips the line and reads the same.
    let (_t, d) = mutant("plain", |d| {
        let p = map_of(d);
        let text = std::fs::read_to_string(&p).unwrap();
        let line = text.lines().find(|l| l.contains("libcapstone")).unwrap();
        let broken = line.replacen('-', "-x", 1);
        std::fs::write(&p, text.replacen(line, &broken, 1)).unwrap();
    });
    let l = levels(&d);
    assert!(has(&l, "UF040", Severity::Warning), "{l:?}");
    assert!(no_error(&l), "{l:?}");
    readers_same(&common::corpus("uftrace/plain"), &d);
    // The traced program's own line: its functions are no longer named.
    let (_t2, d2) = mutant("plain", |d| {
        let p = map_of(d);
        let text = std::fs::read_to_string(&p).unwrap();
        let line = text
            .lines()
            .find(|l| l.contains("r-xp") && l.contains("/uf_"))
            .unwrap();
        let broken = line.replacen('-', "-x", 1);
        std::fs::write(&p, text.replacen(line, &broken, 1)).unwrap();
    });
    // uftrace skips the line as tracelint does: the loss is on the records it no longer maps.
    let l2 = levels(&d2);
    assert!(has(&l2, "UF040", Severity::Warning), "{l2:?}");
    assert!(has(&l2, "UF067", Severity::Error), "{l2:?}");
    readers_fail(&common::corpus("uftrace/plain"), &d2);
}

#[test]
fn an_overlong_build_id_word_is_an_error() {
    let (_t, d) = mutant("plain", |d| {
        let p = map_of(d);
        let text = std::fs::read_to_string(&p).unwrap();
        let line = text.lines().find(|l| l.contains("libcapstone")).unwrap();
        let long = format!("{line}{}", "0".repeat(20));
        std::fs::write(&p, text.replacen(line, &long, 1)).unwrap();
    });
    let l = levels(&d);
    assert!(has(&l, "UF040", Severity::Error), "{l:?}");
    // One hex digit more than a build-id: the word fits its buffer, the map entry's field
    // does not, and uftrace 0.13 aborts although the trace never enters libcapstone.
    let (_t2, d2) = mutant("plain", |d| {
        let p = map_of(d);
        let text = std::fs::read_to_string(&p).unwrap();
        let line = text.lines().find(|l| l.contains("libcapstone")).unwrap();
        let long = format!("{line}0");
        std::fs::write(&p, text.replacen(line, &long, 1)).unwrap();
    });
    let l2 = levels(&d2);
    assert!(has(&l2, "UF040", Severity::Error), "{l2:?}");
    readers_fail(&common::corpus("uftrace/plain"), &d2);
}

#[test]
fn a_format_head_libtraceevent_drops_loses_its_events() {
    // `ID:` before `name:`: libtraceevent reads `name` first and drops the format, so every
    // sched_switch record prints as `[UNKNOWN EVENT]` (campaign: a swapped format line).
    let rel = "tracecmd/v7-none.dat";
    let (_t, p) = edited(rel, |b| {
        let at = find(b, b"name: sched_switch\nID: ");
        let id_end = at + find(&b[at..], b"\nformat:");
        let name = b"name: sched_switch".to_vec();
        let id = b[at + name.len() + 1..id_end].to_vec();
        let mut swapped = id.clone();
        swapped.push(b'\n');
        swapped.extend_from_slice(&name);
        b.splice(at..id_end, swapped);
    });
    let l = levels(&p);
    assert!(has(&l, "TD053", Severity::Warning), "{l:?}");
    assert!(has(&l, "TD111", Severity::Error), "{l:?}");
    for (name, _, out) in reports(&p, true, false) {
        assert!(out.contains("[UNKNOWN EVENT]"), "{name} reads every event");
    }
}

#[test]
fn a_lowest_id_format_run_into_its_format_line_is_an_error() {
    // `ID: 1\nformat:` with the line end flipped: libtraceevent reads id 1 (`strtoul` of the
    // token `1Vformat`), fails at `format:` and keeps the format with no fields. It is the
    // lowest id, whose `common_type` gives every record's id: every event is unknown.
    let rel = "tracecmd/v7-none.dat";
    let (_t, p) = edited(rel, |b| {
        let at = find(b, b"name: function\nID: 1\nformat:");
        b[at + b"name: function\nID: 1".len()] = b'V';
    });
    let l = levels(&p);
    assert!(has(&l, "TD053", Severity::Error), "{l:?}");
    let base = reports(&common::corpus(rel), true, false);
    for ((name, _, o0), (_, _, o1)) in base.iter().zip(reports(&p, true, false)) {
        assert!(!o0.contains("[UNKNOWN EVENT]"), "{name}");
        assert!(o1.contains("[UNKNOWN EVENT]"), "{name} reads the events");
    }
}

#[test]
fn a_plt_symbol_out_of_step_with_the_records_is_an_error() {
    // `malloc`'s PLT entry moved 8 bytes: the PLT hook records the entry's own address, which
    // now lies inside `__monstartup`'s entry, and uftrace prints the calls under that name.
    let (_t, d) = mutant("plain", |d| {
        let p = d.join("uf_basic.sym");
        let s = std::fs::read_to_string(&p).unwrap();
        std::fs::write(
            &p,
            s.replacen("0000000000001080 P malloc", "0000000000001088 P malloc", 1),
        )
        .unwrap();
    });
    let l = levels(&d);
    assert!(has(&l, "UF067", Severity::Error), "{l:?}");
    readers_fail(&common::corpus("uftrace/plain"), &d);
}

#[test]
fn every_adjacent_symbol_swap_is_leveled_by_what_uftrace_prints() {
    // uftrace sizes each symbol up to the next *line* and finds records with `bsearch`: a
    // swap is an error exactly where that names some record otherwise, whichever symbols the
    // trace calls. Every adjacent pair of uf_basic.sym, swapped.
    let orig = common::corpus("uftrace/plain");
    let text = std::fs::read_to_string(orig.join("uf_basic.sym")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let first = lines.iter().position(|l| !l.starts_with('#')).unwrap();
    let (mut errors, mut warnings) = (0, 0);
    for i in first..lines.len() - 1 {
        let mut swapped = lines.clone();
        swapped.swap(i, i + 1);
        let body = swapped.join("\n") + "\n";
        let (_t, d) = mutant("plain", |d| {
            std::fs::write(d.join("uf_basic.sym"), &body).unwrap()
        });
        let l = levels(&d);
        if has(&l, "UF053", Severity::Error) {
            errors += 1;
            readers_fail(&orig, &d);
        } else if has(&l, "UF053", Severity::Warning) {
            warnings += 1;
            assert!(no_error(&l), "swap {i}: {l:?}");
            readers_same(&orig, &d);
        }
    }
    assert!(
        errors > 0 && warnings > 0,
        "{errors} errors, {warnings} warnings"
    );
}

/// `plain` with `from` replaced by `to` (same length) in `file`.
fn plain_with(file: &str, from: &str, to: &str) -> (tempfile::TempDir, PathBuf) {
    assert_eq!(from.len(), to.len());
    mutant("plain", |d| {
        let p = d.join(file);
        let mut b = std::fs::read(&p).unwrap();
        let at = find(&b, from.as_bytes());
        b[at..at + to.len()].copy_from_slice(to.as_bytes());
        std::fs::write(&p, b).unwrap();
    })
}

#[test]
fn an_info_value_uftrace_does_not_check_is_a_warning() {
    // uftrace checks each info line's `key:` prefix and `sscanf`s the value unchecked.
    let orig = common::corpus("uftrace/plain");
    for (from, to) in [
        ("cpuinfo:nr_cpus=", "cpuinfo:br_cpus="),
        ("(free / total)", "(free / xotal)"),
        ("usageinfo:usrtime=0.", "usageinfo:usrtime=0\u{7f}"),
    ] {
        let (_t, d) = plain_with("info", from, to);
        let l = levels(&d);
        assert!(has(&l, "UF017", Severity::Warning), "{to}: {l:?}");
        assert!(no_error(&l), "{to}: {l:?}");
        readers_same(&orig, &d);
    }
    let (_t, d) = plain_with("info", "cpuinfo:nr_cpus=", "cpuinfx:nr_cpus=");
    let l = levels(&d);
    assert!(has(&l, "UF017", Severity::Error), "{l:?}");
    readers_fail(&orig, &d);
}

#[test]
fn a_map_line_uftrace_skips_too_is_a_warning_unless_records_lie_there() {
    let orig = common::corpus("uftrace/plain");
    // libm's line, its fields cut short: uftrace's sscanf skips it, as tracelint does, and no
    // record lies in libm.
    let (_t, d) = mutant("plain", |d| {
        let p = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.extension().is_some_and(|x| x == "map"))
            .unwrap();
        let s = std::fs::read_to_string(&p).unwrap();
        let line = s.lines().find(|l| l.contains("/libm.so.6")).unwrap();
        let cut = &line[..36];
        std::fs::write(&p, s.replacen(line, cut, 1)).unwrap();
    });
    let l = levels(&d);
    assert!(has(&l, "UF040", Severity::Warning), "{l:?}");
    assert!(no_error(&l), "{l:?}");
    readers_same(&orig, &d);
    // A protection word of four other characters: uftrace copies it and never looks at it.
    let (_t2, d2) = plain_with(
        &std::fs::read_dir(&orig)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .find(|n| n.ends_with(".map"))
            .unwrap(),
        "561e8d055000 r-xp",
        "561e8d055000 r-x\u{7f}",
    );
    let l2 = levels(&d2);
    assert!(has(&l2, "UF040", Severity::Warning), "{l2:?}");
    assert!(no_error(&l2), "{l2:?}");
    readers_same(&orig, &d2);
}

/// Where the v6 clock record (`u64 length · "[clock]"`) is: after the flyrecord table
/// (`u64 offset · u64 size` per CPU), before the CPU data.
fn v6_clock_record(b: &[u8]) -> usize {
    let cpus = v6_cpus(b);
    let at = find(b, b"flyrecord\0") + 10 + 16 * cpus.len();
    assert!(at < cpus[0].0, "the clock record precedes the CPU data");
    at
}

/// The CPU data table of a v6 file: (offset, size) per CPU, after the top `flyrecord`.
fn v6_cpus(b: &[u8]) -> Vec<(usize, usize)> {
    let fly = find(b, b"flyrecord\0") + 10;
    let word = |at: usize| u64::from_le_bytes(b[at..at + 8].try_into().unwrap()) as usize;
    let mut out = Vec::new();
    let mut at = fly;
    while out.len() < 64 {
        let (off, size) = (word(at), word(at + 8));
        if off == 0 || off % 4096 != 0 || off + size > b.len() {
            break;
        }
        out.push((off, size));
        at += 16;
    }
    out
}

/// The data records of the (64-bit, little-endian) ring page at `page`: (offset, type_len,
/// event id), up to the first record of another kind.
fn page_records(b: &[u8], page: usize) -> Vec<(usize, u32, u16)> {
    let commit = u64::from_le_bytes(b[page + 8..page + 16].try_into().unwrap()) as usize & 0xfffff;
    let (mut p, end) = (page + 16, page + 16 + commit);
    let mut out = Vec::new();
    while p < end {
        let h = u32::from_le_bytes(b[p..p + 4].try_into().unwrap());
        match h & 31 {
            tl @ 1..=28 => {
                out.push((p, tl, u16::from_le_bytes([b[p + 4], b[p + 5]])));
                p += 4 + 4 * tl as usize;
            }
            30 => p += 8,
            _ => break,
        }
    }
    out
}

/// Grows the first record of `b`'s CPU 0 first page whose event id is `pick`ed so that it
/// swallows the record after it (a damaged type_len); returns nothing, edits in place.
fn grow_over_next(b: &mut [u8], pick: impl Fn(u16) -> bool) {
    let (off, _) = v6_cpus(b)[0];
    let recs = page_records(b, off);
    let i = recs
        .windows(2)
        .position(|w| pick(w[0].2) && w[0].0 + 4 + 4 * w[0].1 as usize == w[1].0)
        .expect("no record to grow");
    let ((at, tl, _), (_, tl2, _)) = (recs[i], recs[i + 1]);
    let h = u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
    let grown = tl + 1 + tl2;
    assert!(grown <= 28);
    b[at..at + 4].copy_from_slice(&((h & !31) | grown).to_le_bytes());
}

#[test]
fn a_record_grown_over_the_next_is_an_error() {
    // A `print` record (id 5 in these recordings) and a tracepoint record of a fixed-size event
    // (`sched_switch`, id above the ftrace ids) each grown over the record after it: every page
    // still walks, and readers print one event fewer.
    for (rel, pick) in [
        ("tracecmd/marker-v6.dat", (|id| id == 5) as fn(u16) -> bool),
        ("tracecmd/v6.dat", |id| id > 100),
    ] {
        let (_t, p) = edited(rel, |b| grow_over_next(b, pick));
        let l = levels(&p);
        assert!(has(&l, "TD115", Severity::Error), "{rel}: {l:?}");
        let base = reports(&common::corpus(rel), false, false);
        for ((name, _, o0), (_, _, o1)) in base.iter().zip(reports(&p, false, false)) {
            assert_eq!(event_lines(&o1) + 1, event_lines(o0), "{name} on {rel}");
        }
    }
}

#[test]
fn a_record_header_turned_into_an_absolute_time_stamp_is_an_error() {
    // A data record's header set to all ones: an absolute time stamp of a time far past the
    // next page's, and the records after it misframed.
    middle_header_misframes(|h| h.copy_from_slice(&u32::MAX.to_le_bytes()));
}

/// The header of the middle record of CPU 0's first page of kernel-stack-v6.dat edited by
/// `edit`: `TD112` is an error, and every reader reads other records than on the original.
fn middle_header_misframes(edit: impl FnOnce(&mut [u8])) {
    let rel = "tracecmd/kernel-stack-v6.dat";
    let (_t, p) = edited(rel, |b| {
        let (off, size) = v6_cpus(b)[0];
        assert!(size > 4096, "CPU 0 has one page");
        let recs = page_records(b, off);
        let (at, _, _) = recs[recs.len() / 2];
        edit(&mut b[at..at + 4]);
    });
    let l = levels(&p);
    assert!(has(&l, "TD112", Severity::Error), "{l:?}");
    let base = reports(&common::corpus(rel), false, false);
    for ((name, _, o0), (_, _, o1)) in base.iter().zip(reports(&p, false, false)) {
        assert_ne!(o0, &o1, "{name} reads {} as the original", p.display());
    }
}

#[test]
fn a_record_header_turned_into_a_time_extend_is_an_error() {
    // A data record's header read as a time extend (type_len 30): its payload's first word
    // (common_type and flags) << 27 is added to the time, past the next page's, and the
    // records after it are misframed; every reader reads other records there.
    middle_header_misframes(|h| h[0] = (h[0] & !0x1f) | 30);
}

#[test]
fn a_clock_record_trace_cmd_2_4_finds_no_clock_in_is_an_error() {
    // The v6 clock record's length set to 0 with TRACECLOCK present: trace-cmd 2.4 reads an
    // empty string, sets no trace clock and crashes at the first event; 2.9.5 and 3.x read on.
    let rel = "tracecmd/v6.dat";
    let (_t, p) = edited(rel, |b| {
        let at = v6_clock_record(b);
        assert_eq!(&b[at + 8..at + 15], b"[local]");
        b[at..at + 8].copy_from_slice(&0u64.to_le_bytes());
    });
    let l = levels(&p);
    assert!(has(&l, "TD043", Severity::Error), "{l:?}");
    for (name, ok, _) in reports(&p, false, false) {
        if name == "trace-cmd 2.4" {
            assert!(!ok, "{name} reads a v6 file with an empty clock record");
        } else if name.starts_with("trace-cmd 3.") {
            assert!(ok, "{name} fails on an empty clock record");
        }
    }
}

#[test]
fn a_commit_size_halved_under_missed_event_flags_is_an_error() {
    // The first page's commit word: size halved, RB_MISSED_EVENTS and RB_MISSED_STORED set.
    // The events after the cut are read as the lost-events count and what follows it; every
    // reader stops at the commit size and loses them.
    let rel = "tracecmd/v6.dat";
    let (_t, p) = edited(rel, |b| {
        let (off, _) = v6_cpus(b)[0];
        let c = u64::from_le_bytes(b[off + 8..off + 16].try_into().unwrap());
        let size = c & 0x0fff_ffff;
        let new = (size / 2) | (1 << 31) | (1 << 30);
        b[off + 8..off + 16].copy_from_slice(&new.to_le_bytes());
    });
    let l = levels(&p);
    assert!(has(&l, "TD104", Severity::Error), "{l:?}");
    let base = reports(&common::corpus(rel), false, false);
    for ((name, _, o0), (_, _, o1)) in base.iter().zip(reports(&p, false, false)) {
        assert!(
            event_lines(&o1) < event_lines(o0),
            "{name} on {}",
            p.display()
        );
    }
}

#[test]
fn a_clock_record_cut_to_its_bracket_is_an_error() {
    // The v6 clock record's length set to 1: the record reads `[`, a clock with no name, and
    // every trace-cmd crashes in extract_trace_clock (campaign `full18`).
    let rel = "tracecmd/clock-counter-v6.dat";
    let (_t, p) = edited(rel, |b| {
        let at = v6_clock_record(b);
        assert_eq!(&b[at + 8..at + 17], b"[counter]");
        b[at..at + 8].copy_from_slice(&1u64.to_le_bytes());
    });
    let l = levels(&p);
    assert!(has(&l, "TD070", Severity::Error), "{l:?}");
    for (name, ok, out) in reports(&p, false, false) {
        assert!(
            !ok || event_lines(&out) == 0,
            "{name} reads {}",
            p.display()
        );
    }
}

#[test]
fn a_cpu_size_cut_to_zero_before_the_end_is_an_error() {
    // The last CPU's size set to 0: its pages follow the last CPU data as trailing bytes,
    // which no reader reads.
    let rel = "tracecmd/subbuf-8k-v6.dat";
    let (_t, p) = edited(rel, |b| {
        let fly = find(b, b"flyrecord\0") + 10;
        let n = v6_cpus(b).len();
        let at = fly + 16 * (n - 1) + 8;
        b[at..at + 8].copy_from_slice(&0u64.to_le_bytes());
    });
    let l = levels(&p);
    assert!(has(&l, "TD040", Severity::Error), "{l:?}");
    let base = reports(&common::corpus(rel), false, false);
    for ((name, _, o0), (_, _, o1)) in base.iter().zip(reports(&p, false, false)) {
        assert!(event_lines(&o1) < event_lines(o0), "{name}");
    }
}

/// What GDB 13 reads of a tfile: `tstatus` and every frame's registers and collected
/// memory as `tdump` shows them; warning lines left out (GDB warns about lines it ignores).
fn gdb_reads(p: &Path) -> Option<String> {
    let script = "python exec(\"n=0\\nwhile True:\\n try:\\n  out=gdb.execute('tfind %d'%n,to_string=True)\\n except gdb.error: break\\n if 'Found trace frame' not in out: break\\n print(out)\\n print(gdb.execute('tdump',to_string=True))\\n n+=1\")";
    let out = std::process::Command::new("timeout")
        .args(["60", "gdb", "-nx", "-batch", "-ex"])
        .arg(format!("target tfile {}", p.display()))
        .args(["-ex", "tstatus", "-ex", script])
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    Some(
        text.lines()
            .filter(|l| !l.contains("warning") && !l.contains(&p.display().to_string()))
            .collect::<Vec<_>>()
            .join("\n"),
    )
}

/// The frames of a tfile: (offset of the frame header, size of its blocks), up to the end
/// marker (tracepoint number 0).
fn gdb_frames(b: &[u8]) -> Vec<(usize, usize)> {
    let mut at = find(b, b"\n\n") + 2;
    let mut out = Vec::new();
    while at + 6 <= b.len() {
        let num = u16::from_le_bytes(b[at..at + 2].try_into().unwrap());
        if num == 0 {
            break;
        }
        let size = u32::from_le_bytes(b[at + 2..at + 6].try_into().unwrap()) as usize;
        out.push((at, size));
        at += 6 + size;
    }
    out
}

/// GDB 13 on `tf` with the program `exe` loaded (so that it creates the file's tracepoints):
/// every frame `tfind` finds and its `tdump`, the file's own path left out.
fn gdb_reads_with(exe: &Path, tf: &Path) -> String {
    let script = "python exec(\"n=0\\nwhile True:\\n try:\\n  out=gdb.execute('tfind %d'%n,to_string=True)\\n except gdb.error: break\\n if 'Found trace frame' not in out: break\\n print(out)\\n print(gdb.execute('tdump',to_string=True))\\n n+=1\")";
    let out = std::process::Command::new("timeout")
        .args(["60", "gdb", "-nx", "-batch", "-ex"])
        .arg(format!("file {}", exe.display()))
        .arg("-ex")
        .arg(format!("target tfile {}", tf.display()))
        .args(["-ex", script])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| !l.contains("warning") && !l.contains(&tf.display().to_string()))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn a_frame_of_number_1_in_a_file_of_one_tracepoint_is_a_warning() {
    // GDB numbers the tracepoints it creates from 1: the only tracepoint of tsv.tf (number 2)
    // becomes GDB's tracepoint 1, so a frame whose number is changed to 1 is shown and dumped
    // exactly as before.
    let rel = "gdb/tsv.tf";
    let (t, p) = edited(rel, |b| {
        let (at, _) = gdb_frames(b)[5];
        assert_eq!(&b[at..at + 2], &2u16.to_le_bytes());
        b[at..at + 2].copy_from_slice(&1u16.to_le_bytes());
    });
    let l = levels(&p);
    assert!(has(&l, "GT043", Severity::Warning), "{l:?}");
    assert!(no_error(&l), "{l:?}");
    let exe = t.path().join("tpdemo");
    let built = std::process::Command::new("gcc")
        .args(["-g", "-O0", "-fno-pie", "-no-pie", "-o"])
        .arg(&exe)
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/corpus/src/tpdemo.c"))
        .status()
        .is_ok_and(|s| s.success());
    if !built || !Path::new("/usr/bin/gdb").is_file() {
        common::skip_or_fail("gcc or gdb is not installed");
        return;
    }
    let a = gdb_reads_with(&exe, &common::corpus(rel));
    assert!(a.contains("Found trace frame 5, tracepoint 1"), "{a}");
    assert_eq!(
        a,
        gdb_reads_with(&exe, &p),
        "GDB reads the mutant otherwise"
    );
}

#[test]
fn a_bad_byte_gdb_never_uses_is_a_warning() {
    // A target description line whose `tdesc` prefix is damaged (GDB ignores the line, cannot
    // parse the XML, falls back to its default description), and a byte in a `tp A` action
    // string (kept as text, never parsed when the file is opened): GDB reads the same frames.
    let tdesc = |b: &mut Vec<u8>| {
        let at = find(b, b"\ntdesc ") + 1 + 40 * 60;
        let at = at + find(&b[at..], b"\ntdesc ") + 1;
        b[at + 2] = 0x10;
    };
    let action = |b: &mut Vec<u8>| {
        let at = find(b, b"\ntp A") + 1;
        let second = at + find(&b[at..], b":") + 1;
        let second = second + find(&b[second..], b":") + 1;
        b[second + 3] = 0xb2;
    };
    for (rel, edit) in [
        ("gdb/regs.tf", &tdesc as &dyn Fn(&mut Vec<u8>)),
        ("gdb/multi.tf", &action),
    ] {
        let (_t, p) = edited(rel, |b| edit(b));
        let l = levels(&p);
        assert!(has(&l, "GT004", Severity::Warning), "{rel}: {l:?}");
        assert!(no_error(&l), "{rel}: {l:?}");
        match (gdb_reads(&common::corpus(rel)), gdb_reads(&p)) {
            (Some(a), Some(b)) if a.contains("Found trace frame") => {
                assert_eq!(a, b, "GDB reads the {rel} mutant otherwise")
            }
            _ => common::skip_or_fail("gdb is not installed"),
        }
    }
}

#[test]
fn a_cpu_size_that_wraps_is_an_error_only_when_more_than_a_page_is_lost() {
    // `offset + size` wraps past 2^64: trace-cmd's range check passes and it reads one page.
    // CPU 0 of clock-x86-tsc-v6.dat has one page (read the same), CPU 0 of
    // kernel-stack-v6.dat three.
    for (rel, one_page) in [
        ("tracecmd/clock-x86-tsc-v6.dat", true),
        ("tracecmd/kernel-stack-v6.dat", false),
    ] {
        let (_t, p) = edited(rel, |b| {
            let (_, size) = v6_cpus(b)[0];
            assert_eq!(size == 4096, one_page, "{rel}: CPU 0 has {size} bytes");
            let at = find(b, b"flyrecord\0") + 10 + 8;
            b[at..at + 8].copy_from_slice(&u64::MAX.to_le_bytes());
        });
        let l = levels(&p);
        let base = reports(&common::corpus(rel), false, false);
        let got = reports(&p, false, false);
        if one_page {
            // 3.x read the one page there is; 2.4 and 2.9.5, which read every v6 file
            // whoever wrote it, then fail on the next page and lose records of other CPUs.
            assert!(has(&l, "TD033", Severity::Error), "{rel}: {l:?}");
            for ((name, _, o0), (_, _, o1)) in base.iter().zip(&got) {
                if name.starts_with("trace-cmd 3.") {
                    assert_eq!(event_lines(o0), event_lines(o1), "{name} on {rel}");
                } else if name.starts_with("trace-cmd 2.") {
                    assert!(event_lines(o1) < event_lines(o0), "{name} on {rel}");
                }
            }
        } else {
            assert!(has(&l, "TD033", Severity::Error), "{rel}: {l:?}");
            for ((name, _, o0), (_, _, o1)) in base.iter().zip(&got) {
                assert!(event_lines(o1) < event_lines(o0), "{name} on {rel}");
            }
        }
    }
    // The last CPU's size wrapped: its data runs to the file's end, and trace-cmd 3.x cannot
    // map its page.
    let rel = "tracecmd/clock-x86-tsc-v6.dat";
    let (_t, p) = edited(rel, |b| {
        let at = find(b, b"flyrecord\0") + 10 + 16 + 8;
        b[at..at + 8].copy_from_slice(&u64::MAX.to_le_bytes());
    });
    let l = levels(&p);
    assert!(has(&l, "TD033", Severity::Error), "{l:?}");
    for (name, ok, _) in reports(&p, false, false) {
        if name.starts_with("trace-cmd 3.") {
            assert!(!ok, "{name} reads the last CPU with a wrapped size");
        }
    }
    // A compressed stream is read by its chunk count whatever the size: the instance's
    // BUFFER option (`u64 offset · name · clock · u32 page size · u32 cpus · (u32 cpu · u64
    // offset · u64 size)*`), CPU 0's size.
    let rel = "tracecmd/instances-v7-zstd.dat";
    let (_t, p) = edited(rel, |b| {
        let key = b"tracelint-foo\0local\0";
        let at = find(b, key) + key.len() + 4 + 4 + 4 + 8;
        b[at..at + 8].copy_from_slice(&u64::MAX.to_le_bytes());
    });
    let l = levels(&p);
    assert!(has(&l, "TD033", Severity::Warning) && no_error(&l), "{l:?}");
    let base = reports(&common::corpus(rel), true, false);
    for ((name, _, o0), (_, _, o1)) in base.iter().zip(reports(&p, true, false)) {
        assert_eq!(o0, &o1, "{name}");
    }
}

#[test]
fn options_readers_do_not_use_as_written_are_warnings() {
    // An instance's BUFFER offset pointing at no section: readers take only the flags of the
    // 16 bytes there (the instance stays compressed, as the top buffer is) and read its CPU
    // data at the entries' offsets.
    let rel = "tracecmd/instances-v7-zstd.dat";
    let (_t, p) = edited(rel, |b| {
        let at = find(b, b"tracelint-foo\0local\0") - 8;
        b[at..at + 8].copy_from_slice(&1u64.to_le_bytes());
    });
    let l = levels(&p);
    assert!(has(&l, "TD015", Severity::Warning) && no_error(&l), "{l:?}");
    let base = reports(&common::corpus(rel), true, false);
    for ((name, _, o0), (_, _, o1)) in base.iter().zip(reports(&p, true, false)) {
        assert_eq!(o0, &o1, "{name} on the BUFFER offset mutant");
    }
    // The KALLSYMS option's id made PRINTK: readers keep the last PRINTK option's section.
    let rel = "tracecmd/v7-none.dat";
    let (_t2, p2) = edited(rel, |b| {
        let at = find(b, b"\x13\x00\x08\x00\x00\x00");
        b[at] = 0x14;
    });
    let l2 = levels(&p2);
    assert!(
        has(&l2, "TD027", Severity::Warning) && no_error(&l2),
        "{l2:?}"
    );
    let base = reports(&common::corpus(rel), true, false);
    for ((name, _, o0), (_, _, o1)) in base.iter().zip(reports(&p2, true, false)) {
        assert_eq!(o0, &o1, "{name} on the option id mutant");
    }
}

#[test]
fn a_ktrace_file_cut_inside_its_header_padding_is_an_error() {
    // Cut 4 bytes into the 8-byte padding after the V3 header (campaign, `full17`): a header
    // and no chunk.
    let (_t, p) = edited("ktrace/v3-lldbmacros-style.ktrace", |b| b.truncate(0x5f));
    let l = levels(&p);
    assert!(has(&l, "KT007", Severity::Error), "{l:?}");
    // The whole file has no such finding.
    let l2 = levels(&common::corpus("ktrace/v3-lldbmacros-style.ktrace"));
    assert!(no_error(&l2), "{l2:?}");
}

/// A v6 CPU data size one byte short of its page (campaign `full18`, 24 mutants): trace-cmd
/// maps the last page whole, and 2.4, 2.9.5, 3.1.6 and 3.3.4 print the same report: a
/// `TD035` warning. One byte more reads the next CPU's page as this CPU's: an error.
#[test]
fn a_v6_cpu_size_short_of_its_page_is_a_warning() {
    let rel = "tracecmd/clock-tai-v6.dat";
    let entry = |b: &[u8]| find(b, b"flyrecord\0") + 10 + 8;
    for cut in [1usize, 0x800] {
        let (_t, p) = edited(rel, |b| {
            let at = entry(b);
            let size = u64::from_le_bytes(b[at..at + 8].try_into().unwrap());
            b[at..at + 8].copy_from_slice(&(size - cut as u64).to_le_bytes());
        });
        let l = levels(&p);
        assert!(has(&l, "TD035", Severity::Warning), "{l:?}");
        assert!(no_error(&l), "{l:?}");
        let base = reports(&common::corpus(rel), false, false);
        for ((name, ok0, o0), (_, ok1, o1)) in base.iter().zip(reports(&p, false, false)) {
            assert_eq!((ok0, o0), (&ok1, &o1), "{name} on a CPU size {cut} short");
        }
    }
    let (_t, p) = edited(rel, |b| {
        let at = entry(b);
        let size = u64::from_le_bytes(b[at..at + 8].try_into().unwrap());
        b[at..at + 8].copy_from_slice(&(size + 1).to_le_bytes());
    });
    let l = levels(&p);
    assert!(!no_error(&l), "{l:?}");
    let base = reports(&common::corpus(rel), false, false);
    for ((name, _, o0), (_, _, o1)) in base.iter().zip(reports(&p, false, false)) {
        assert_ne!(
            o0, &o1,
            "{name} reads a CPU size one byte long as the original"
        );
    }
}

/// RB_MISSED_STORED without RB_MISSED_EVENTS in a ring page's commit word (campaign `full18`):
/// kbuffer reads bit 30 only under bit 31, so every trace-cmd reads the page as without it: a
/// `TD102` warning. Bit 30 with the reserved bit 27 stays an error.
#[test]
fn missed_stored_alone_is_a_warning() {
    let rel = "tracecmd/clock-tai-v6.dat";
    let commit = |b: &[u8]| v6_cpus(b)[0].0 + 8;
    let (_t, p) = edited(rel, |b| {
        let at = commit(b);
        b[at + 3] |= 0x40;
    });
    let l = levels(&p);
    assert!(has(&l, "TD102", Severity::Warning), "{l:?}");
    assert!(no_error(&l), "{l:?}");
    let base = reports(&common::corpus(rel), false, false);
    for ((name, ok0, o0), (_, ok1, o1)) in base.iter().zip(reports(&p, false, false)) {
        assert_eq!((ok0, o0), (&ok1, &o1), "{name} on MISSED_STORED alone");
    }
    let (_t2, p2) = edited(rel, |b| {
        let at = commit(b);
        b[at + 3] |= 0x48;
    });
    assert!(has(&levels(&p2), "TD102", Severity::Error));
}

/// A ring page's commit one or four bytes short of its last record (campaign `full18`, 7
/// mutants): kbuffer bounds its walk by each record's start, reads that record whole and stops
/// after it; every trace-cmd prints the same report: a `TD105` warning. A commit cut by half
/// loses the records after it: an error.
#[test]
fn a_commit_a_word_short_of_the_last_record_is_a_warning() {
    let rel = "tracecmd/clock-tai-v6.dat";
    let commit = |b: &[u8]| v6_cpus(b)[0].0 + 8;
    let base = reports(&common::corpus(rel), false, false);
    for short in [1u64, 4] {
        let (_t, p) = edited(rel, |b| {
            let at = commit(b);
            let c = u64::from_le_bytes(b[at..at + 8].try_into().unwrap());
            b[at..at + 8].copy_from_slice(&(c - short).to_le_bytes());
        });
        let l = levels(&p);
        assert!(has(&l, "TD105", Severity::Warning), "{l:?}");
        assert!(no_error(&l), "{l:?}");
        for ((name, ok0, o0), (_, ok1, o1)) in base.iter().zip(reports(&p, false, false)) {
            assert_eq!((ok0, o0), (&ok1, &o1), "{name} on a commit {short} short");
        }
    }
    let (_t, p) = edited(rel, |b| {
        let at = commit(b);
        let c = u64::from_le_bytes(b[at..at + 8].try_into().unwrap());
        b[at..at + 8].copy_from_slice(&(c / 2).to_le_bytes());
    });
    assert!(!no_error(&levels(&p)));
}

/// The corpus program `tpdemo` built into `dir` (GDB creates a tfile's tracepoints only with
/// the traced program loaded); `None` (after skip_or_fail) without gcc or gdb.
fn tpdemo(dir: &Path) -> Option<PathBuf> {
    let exe = dir.join("tpdemo");
    let built = std::process::Command::new("gcc")
        .args(["-g", "-O0", "-fno-pie", "-no-pie", "-o"])
        .arg(&exe)
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/corpus/src/tpdemo.c"))
        .status()
        .is_ok_and(|s| s.success());
    if !built || !Path::new("/usr/bin/gdb").is_file() {
        common::skip_or_fail("gcc or gdb is not installed");
        return None;
    }
    Some(exe)
}

/// A byte of a definition line changed: (corpus file, rule, line prefix, byte, was, becomes).
type LineEdit = (&'static str, &'static str, &'static [u8], usize, u8, u8);

/// Sets byte `i` of the definition line starting with `prefix` (which must be `was`) to `to`.
fn line_byte(b: &mut [u8], prefix: &[u8], i: usize, was: u8, to: u8) {
    let at = find(b, &[b"\n", prefix].concat()) + 1 + i;
    assert_eq!(b[at], was, "{}", String::from_utf8_lossy(prefix));
    b[at] = to;
}

/// Asserts that GDB 13, with tpdemo loaded, finds and dumps the frames of `rel` and of the
/// mutant `p` the same.
fn gdb_reads_same(exe: &Path, rel: &str, p: &Path) {
    let a = gdb_reads_with(exe, &common::corpus(rel));
    assert!(a.contains("Found trace frame"), "{rel}: {a}");
    assert_eq!(
        a,
        gdb_reads_with(exe, p),
        "GDB reads the {rel} mutant otherwise"
    );
}

#[test]
fn a_definition_line_gdb_parses_by_position_is_a_warning() {
    // GDB 13 parses status, tp and tsv lines by position: a byte where a `:` or `;` belongs is
    // skipped, a T line's enable flag is `E` or not, the condition bytecode is kept as text.
    let t = tempfile::tempdir().unwrap();
    let Some(exe) = tpdemo(t.path()) else { return };
    // (file, rule, line prefix, byte, was, becomes)
    let cases: [LineEdit; 8] = [
        (
            "gdb/regs.tf",
            "GT024",
            b"tp T2:401145:E:0:0",
            16,
            b':',
            b'g',
        ),
        ("gdb/ret.tf", "GT024", b"tp T2:401145:E:0:0", 5, b':', b'g'),
        (
            "gdb/memory.tf",
            "GT024",
            b"tp T2:40117d:E:0:0",
            13,
            b'E',
            b'g',
        ),
        (
            "gdb/running.tf",
            "GT024",
            b"tp A2:40117d:R40",
            12,
            b':',
            b'S',
        ),
        ("gdb/full.tf", "GT012", b"status 0;tstop", 8, b';', b'j'),
        ("gdb/teval.tf", "GT021", b"tsv 1:0:1:", 5, b':', b'g'),
        (
            "gdb/passcount.tf",
            "GT026",
            b"tp T2:401145:E:0:2:X17,",
            23,
            b'2',
            b':',
        ),
        (
            "gdb/bigmem.tf",
            "GT060",
            b"tp T2:40117d:E:0:0:X12,",
            46,
            b'9',
            0xc2,
        ),
    ];
    for (rel, code, prefix, i, was, to) in cases {
        let (_t, p) = edited(rel, |b| line_byte(b, prefix, i, was, to));
        let l = levels(&p);
        assert!(has(&l, code, Severity::Warning), "{rel} {code}: {l:?}");
        assert!(no_error(&l), "{rel} {code}: {l:?}");
        gdb_reads_same(&exe, rel, &p);
    }
}

#[test]
fn an_at_location_with_a_control_byte_is_an_error() {
    // memory.tf's `tp Z2:40117d:at` string `tl_scale`: with tpdemo loaded GDB 13 re-creates
    // tracepoint 2 from it. `tl\x01scale` names nothing (no location holds a control byte):
    // GDB creates no tracepoint and `tdump` fails on every frame. `ul_scale`, a name tpdemo
    // lacks, fails the same but is a name a file can hold: only the program tells.
    let rel = "gdb/memory.tf";
    let t = tempfile::tempdir().unwrap();
    let Some(exe) = tpdemo(t.path()) else { return };
    let with = |hex: &[u8]| {
        edited(rel, |b| {
            let at = find(b, b"tp Z2:40117d:at:0:8:") + b"tp Z2:40117d:at:0:8:".len();
            assert_eq!(&b[at..at + 16], b"746c5f7363616c65");
            b[at..at + 16].copy_from_slice(hex);
        })
    };
    let base = gdb_reads_with(&exe, &common::corpus(rel));
    assert!(base.contains("Data collected"), "{base}");
    for (hex, error) in [(b"746c017363616c65", true), (b"756c5f7363616c65", false)] {
        let (_t, p) = with(hex);
        let l = levels(&p);
        assert_eq!(has(&l, "GT031", Severity::Error), error, "{l:?}");
        assert_eq!(no_error(&l), !error, "{l:?}");
        let out = gdb_reads_with(&exe, &p);
        assert!(out.contains("Found trace frame"), "{out}");
        assert!(
            !out.contains("Data collected"),
            "GDB dumps the frames of {}: {out}",
            String::from_utf8_lossy(hex)
        );
    }
}

#[test]
fn a_status_line_gdb_cannot_parse_is_an_error() {
    // A last status field without `:`: GDB 13 fails with "Malformed trace status" and finds
    // no frame.
    let rel = "gdb/full.tf";
    let (t, p) = edited(rel, |b| {
        let at = find(b, b"\nstatus ") + 1;
        let end = at + find(&b[at..], b"\n");
        b.splice(end..end, b";junk".iter().copied());
    });
    let l = levels(&p);
    assert!(has(&l, "GT012", Severity::Error), "{l:?}");
    let Some(exe) = tpdemo(t.path()) else { return };
    assert!(gdb_reads_with(&exe, &common::corpus(rel)).contains("Found trace frame"));
    let m = gdb_reads_with(&exe, &p);
    assert!(!m.contains("Found trace frame"), "{m}");
}

#[test]
fn an_undefined_frame_number_gdb_gives_its_own_tracepoint_is_a_warning() {
    // GDB numbers the tracepoints it creates from 1, the file's last-defined first: multi.tf
    // defines 5, 4, 3, 2 (GDB's 4, 3, 2, 1), default-collect.tf 2 then 3 (GDB's 2 and 1). A
    // frame of a number no line defines is shown and dumped as GDB's tracepoint of that
    // number: 2 -> 1 in multi.tf and 3 -> 1 in default-collect.tf read the same.
    let t = tempfile::tempdir().unwrap();
    let Some(exe) = tpdemo(t.path()) else { return };
    for (rel, from) in [("gdb/multi.tf", 2u16), ("gdb/default-collect.tf", 3)] {
        let (_t, p) = edited(rel, |b| {
            let at = gdb_frames(b)
                .into_iter()
                .map(|(at, _)| at)
                .find(|&at| b[at..at + 2] == from.to_le_bytes())
                .unwrap();
            b[at..at + 2].copy_from_slice(&1u16.to_le_bytes());
        });
        let l = levels(&p);
        assert!(has(&l, "GT043", Severity::Warning), "{rel}: {l:?}");
        assert!(no_error(&l), "{rel}: {l:?}");
        gdb_reads_same(&exe, rel, &p);
    }
    // A number past the tracepoints GDB creates stays an error: `tdump` fails.
    let (_t, p) = edited("gdb/multi.tf", |b| {
        let (at, _) = gdb_frames(b)[0];
        b[at..at + 2].copy_from_slice(&9u16.to_le_bytes());
    });
    assert!(has(&levels(&p), "GT043", Severity::Error));
}

#[test]
fn a_short_last_frame_or_a_changed_tail_gdb_reads_whole_is_a_warning() {
    // The last frame's size cut (by 1 where its last data byte is 0, by half where its R block
    // holds zeros there): GDB reads the last block by its own length and stops at the end
    // marker it finds at the frame's declared end. The 2 bytes after the end marker of the
    // wrapped circular buffer made non-zero: GDB never reads them.
    let t = tempfile::tempdir().unwrap();
    let Some(exe) = tpdemo(t.path()) else { return };
    let last = |b: &[u8]| *gdb_frames(b).last().unwrap();
    let cut = |half: bool| {
        move |b: &mut Vec<u8>| {
            let (at, size) = last(b);
            let new = if half { size / 2 } else { size - 1 };
            b[at + 2..at + 6].copy_from_slice(&(new as u32).to_le_bytes());
        }
    };
    for (rel, half) in [
        ("gdb/passcount.tf", false),
        ("gdb/fast.tf", false),
        ("gdb/twoloc.tf", true),
    ] {
        let (_t, p) = edited(rel, cut(half));
        let l = levels(&p);
        assert!(has(&l, "GT046", Severity::Warning), "{rel}: {l:?}");
        assert!(no_error(&l), "{rel}: {l:?}");
        gdb_reads_same(&exe, rel, &p);
    }
    let rel = "gdb/circular-wrapped.tf";
    let (_t, p) = edited(rel, |b| {
        let (at, size) = last(b);
        let tail = at + 6 + size + 2;
        assert_eq!(&b[tail..tail + 2], &[0, 0]);
        b[tail..tail + 2].copy_from_slice(&[0xff, 0xff]);
    });
    let l = levels(&p);
    assert!(has(&l, "GT058", Severity::Warning), "{l:?}");
    assert!(no_error(&l), "{l:?}");
    gdb_reads_same(&exe, rel, &p);
}

#[test]
fn a_zeroed_frame_of_no_data_before_other_frames_is_an_error() {
    // teval.tf's frames collect nothing (size 0): the number of its second frame zeroed, GDB
    // stops there and never shows the ten frames after it.
    let rel = "gdb/teval.tf";
    let (t, p) = edited(rel, |b| {
        let (at, size) = gdb_frames(b)[1];
        assert_eq!(size, 0);
        b[at..at + 2].copy_from_slice(&0u16.to_le_bytes());
    });
    let l = levels(&p);
    assert!(has(&l, "GT055", Severity::Error), "{l:?}");
    let Some(exe) = tpdemo(t.path()) else { return };
    let frames = |p: &Path| gdb_reads_with(&exe, p).matches("Found trace frame").count();
    assert_eq!((frames(&common::corpus(rel)), frames(&p)), (12, 1));
    // The last frame's number zeroed: the zero bytes after the marker are its header and
    // the padding, and the status counts one frame more than GDB shows.
    let (_t, p) = edited(rel, |b| {
        let (at, _) = *gdb_frames(b).last().unwrap();
        b[at..at + 2].copy_from_slice(&0u16.to_le_bytes());
    });
    let l = levels(&p);
    assert!(has(&l, "GT055", Severity::Error), "{l:?}");
    assert_eq!(frames(&p), 11);
}

#[test]
fn a_reordered_or_repeated_definition_gdb_reads_the_same_is_a_warning() {
    // A `tp T` line after a piece of its tracepoint (GDB makes the tracepoint on the first
    // line of its number and address, the `T` line completes it), and a `tsv` line written
    // twice (one variable per number).
    let t = tempfile::tempdir().unwrap();
    let Some(exe) = tpdemo(t.path()) else { return };
    let rel = "gdb/twoloc.tf";
    let (_t, p) = edited(rel, |b| {
        let at = find(b, b"\ntp T") + 1;
        let next = at + find(&b[at..], b"\n") + 1;
        let end = next + find(&b[next..], b"\n") + 1;
        let (t_line, piece) = (b[at..next].to_vec(), b[next..end].to_vec());
        assert!(
            piece.starts_with(b"tp "),
            "{}",
            String::from_utf8_lossy(&piece)
        );
        b.splice(at..end, [piece, t_line].concat());
    });
    let l = levels(&p);
    assert!(!l.iter().any(|(c, _)| c == "GT029"), "{l:?}");
    assert!(no_error(&l), "{l:?}");
    gdb_reads_same(&exe, rel, &p);
    let rel = "gdb/ret.tf";
    let (_t, p) = edited(rel, |b| {
        let at = find(b, b"\ntsv ") + 1;
        let end = at + find(&b[at..], b"\n") + 1;
        let line = b[at..end].to_vec();
        b.splice(end..end, line);
    });
    let l = levels(&p);
    assert!(has(&l, "GT022", Severity::Warning), "{l:?}");
    assert!(no_error(&l), "{l:?}");
    gdb_reads_same(&exe, rel, &p);
}

/// `trace-cmd report` of every trace-cmd of the matrix that reads v6 files, killed after
/// `secs`: (name, what it did: `ok`, `crash`, `hang` or `reject`, stdout).
fn v6_outcomes(p: &Path, secs: u32) -> Vec<(&'static str, &'static str, String)> {
    use std::os::unix::process::ExitStatusExt;
    common::matrix_readers("trace-cmd")
        .into_iter()
        .map(|r| {
            let out = std::process::Command::new("timeout")
                .args(["-s", "KILL", &secs.to_string()])
                .arg(&r.path)
                .arg("report")
                .arg(p)
                .output()
                .unwrap();
            // `timeout -s KILL` kills itself with the reader when time runs out.
            let what = match (out.status.code(), out.status.signal()) {
                (Some(0), _) => "ok",
                (Some(124 | 137), _) | (None, Some(9)) => "hang",
                (Some(c), _) if c >= 128 => "crash",
                (None, _) => "crash",
                (Some(_), _) => "reject",
            };
            (
                r.name,
                what,
                String::from_utf8_lossy(&out.stdout).into_owned(),
            )
        })
        .collect()
}

/// v6.dat with `from` replaced by `to` (same length) inside the `sched_kthread_stop` format,
/// an event the recording has no record of.
fn kthread_stop_edit(from: &str, to: &str) -> (tempfile::TempDir, PathBuf) {
    assert_eq!(from.len(), to.len());
    edited("tracecmd/v6.dat", |b| {
        let at = find(b, b"name: sched_kthread_stop\n");
        let at = at + find(&b[at..], from.as_bytes());
        b[at..at + to.len()].copy_from_slice(to.as_bytes());
    })
}

/// Checks the v6 readers against the level tracelint gives `code` on `p`: for an error the
/// 2.x readers do `fate` and the 3.x readers print the original report; for a warning every
/// reader prints the original report.
fn v6_fate(p: &Path, code: &str, fate: Option<&str>) {
    let l = levels(p);
    match fate {
        Some(_) => assert!(has(&l, code, Severity::Error), "{l:?}"),
        None => {
            assert!(has(&l, code, Severity::Warning), "{l:?}");
            assert!(no_error(&l), "{l:?}");
        }
    }
    let base = v6_outcomes(&common::corpus("tracecmd/v6.dat"), 5);
    for ((name, w0, o0), (_, w1, o1)) in base.iter().zip(v6_outcomes(p, 5)) {
        assert_eq!(*w0, "ok", "{name} on the original");
        match fate {
            Some(f) if name.starts_with("trace-cmd 2.") => {
                assert_eq!(w1, f, "{name} on {}", p.display())
            }
            _ => assert_eq!((*w0, o0), (w1, &o1), "{name} on {}", p.display()),
        }
    }
}

/// Campaign `full18`: the v6 field-line damage the 2.x parser survives and the damage it
/// does not. trace-cmd 2.4 and 2.9.5's `event_read_fields` frees the last field it linked
/// when the next line breaks before its field is allocated; a break in a list's first line
/// frees nothing listed.
#[test]
fn a_v6_field_line_broken_after_another_field_crashes_2x() {
    // `pid` is the second field of the event's own list: `comm` is freed while listed.
    let (_t, p) = kthread_stop_edit("\tfield:pid_t pid;", "\tfi)ld:pid_t pid;");
    v6_fate(&p, "TD053", Some("crash"));
    let (_t, p) = kthread_stop_edit("\tfield:pid_t pid;", "\tfield:(id_t pid;");
    v6_fate(&p, "TD053", Some("crash"));
    // `comm` is the first: the break frees nothing listed, every reader skips the format.
    let (_t, p) = kthread_stop_edit("\tfield:__data_loc", "\tfi)ld:__data_loc");
    v6_fate(&p, "TD053", None);
    // A break after the field is allocated frees only that field.
    let (_t, p) = kthread_stop_edit("\tsize:4;\tsigned:1;\n\n", "\tsizx:4;\tsigned:1;\n\n");
    v6_fate(&p, "TD053", None);
    // A damaged `print fmt` keyword: every reader skips the format.
    let (_t, p) = kthread_stop_edit("print fmt:", "pr)nt fmt:");
    v6_fate(&p, "TD053", None);
}

/// Campaign `full18`: a quote no later quote closes, reached by the 2.x parser, makes trace-cmd
/// 2.4 and 2.9.5 read past the end of the format for ever; 3.x stop at the end of the text.
#[test]
fn a_v6_format_quote_nothing_closes_hangs_2x() {
    let (_t, p) = kthread_stop_edit("pid=%d\", __get", "pid=%dh, __get");
    v6_fate(&p, "TD053", Some("hang"));
    let (_t, p) = kthread_stop_edit("\tsize:4;\tsigned:1;\n\n", "\tsize:4;\tsigned:';\n\n");
    v6_fate(&p, "TD053", Some("hang"));
}

/// Campaign `full18`: overlapping fields in a v6 file are read by every reader at their own
/// offsets; no parser crashes on them.
#[test]
fn overlapping_fields_in_a_v6_format_are_a_warning() {
    let (_t, p) = kthread_stop_edit(
        "\tfield:pid_t pid;\toffset:12;",
        "\tfield:pid_t pid;\toffset:10;",
    );
    v6_fate(&p, "TD054", None);
}

/// Campaign `full18`: the last format of a system sized 0: readers read the format's text up
/// to the next system's name as that name, and go on in step.
#[test]
fn a_short_last_format_read_up_to_the_next_system_name_is_a_warning() {
    let (_t, p) = edited("tracecmd/v6.dat", |b| {
        let at = find(b, b"name: sched_kthread_stop\n") - 8;
        b[at..at + 8].copy_from_slice(&0u64.to_le_bytes());
    });
    let l = levels(&p);
    assert!(has(&l, "TD053", Severity::Warning), "{l:?}");
    assert!(no_error(&l), "{l:?}");
    let base = v6_outcomes(&common::corpus("tracecmd/v6.dat"), 30);
    assert_eq!(v6_outcomes(&p, 30), base);
}

/// Campaign `full18`: a kallsyms line without a word, a character and another word makes
/// trace-cmd 2.4 free the previous line's symbol name again (abort); 2.9.5 and later stop
/// reading symbols there.
#[test]
fn a_kallsyms_line_2_4_scans_no_name_from_is_an_error_in_v6() {
    let (_t, p) = edited("tracecmd/v6.dat", |b| {
        let at = find(b, b"ffffffff81000df0 T asm_sysvec_apic_timer_interrupt\n");
        b[at + 16] = b'\n';
    });
    let l = levels(&p);
    assert!(has(&l, "TD057", Severity::Error), "{l:?}");
    for (name, what, _) in v6_outcomes(&p, 30) {
        let want = if name == "trace-cmd 2.4" {
            "crash"
        } else {
            "ok"
        };
        assert_eq!(what, want, "{name}");
    }
}

/// Campaign `full18`: a NUL in saved_cmdlines ends the text for every reader; the line it
/// cuts, `158` without a name, makes trace-cmd 2.4 free the previous name again.
#[test]
fn a_nul_in_saved_cmdlines_ends_the_text() {
    let rel = "tracecmd/bigmarker-v6.dat";
    let (_t, p) = edited(rel, |b| {
        let at = find(b, b"\n15850 lto cgu.2.rcgu.\n");
        b[at + 4] = 0;
    });
    let l = levels(&p);
    assert!(has(&l, "TD059", Severity::Error), "{l:?}");
    for (name, what, _) in v6_outcomes(&p, 30) {
        if name == "trace-cmd 2.4" {
            assert_eq!(what, "crash", "{name}");
        }
    }
    // A NUL at a line start: the line before is whole, the rest is not read.
    let (_t, p) = edited(rel, |b| {
        let at = find(b, b"\n15850 lto cgu.2.rcgu.\n");
        b[at + 1] = 0;
    });
    let l = levels(&p);
    assert!(has(&l, "TD059", Severity::Warning), "{l:?}");
    assert!(no_error(&l), "{l:?}");
    for (name, what, _) in v6_outcomes(&p, 30) {
        assert_eq!(what, "ok", "{name}");
    }
}

/// Campaign `full18`: a saved_cmdlines line without a name in a v7 file: trace-cmd 3.1.6–3.3.4,
/// its only readers, stop reading names there and read the same events.
#[test]
fn a_saved_cmdlines_line_without_a_name_is_a_warning_in_v7() {
    let rel = "tracecmd/v7-none.dat";
    let (_t, p) = edited(rel, |b| {
        // The last saved_cmdlines line: its name replaced by newlines.
        let text = find(b, b"7453 cc1\n15 rcu_preempt\n");
        let size = u64::from_le_bytes(b[text - 8..text].try_into().unwrap()) as usize;
        let end = text + size - 1;
        assert_eq!(b[end], b'\n');
        let start = b[..end].iter().rposition(|&c| c == b'\n').unwrap() + 1;
        let space = start + b[start..end].iter().position(|&c| c == b' ').unwrap();
        for c in &mut b[space..end] {
            *c = b'\n';
        }
    });
    let l = levels(&p);
    assert!(has(&l, "TD059", Severity::Warning), "{l:?}");
    assert!(no_error(&l), "{l:?}");
    let base = reports(&common::corpus(rel), true, false);
    for ((name, ok0, o0), (_, ok1, o1)) in base.iter().zip(reports(&p, true, false)) {
        assert!(*ok0 && ok1, "{name}");
        assert_eq!(event_lines(o0), event_lines(&o1), "{name}");
    }
}

/// Campaign `full18`: the STRINGS section of a v7 file with a csize past the end of the file
/// or a usize of 2^31 or more: trace-cmd 3.x ignore it unread and print the same report. The
/// same usize on another section loses it (`int` overflow in `tracecmd_uncompress_block`).
#[test]
fn an_unreadable_strings_block_is_a_warning_and_another_an_error() {
    let rel = "tracecmd/clock-boot-v7-zstd.dat";
    let data = std::fs::read(common::corpus(rel)).unwrap();
    // Section 15 ("strings") at 0x415d: a 16-byte header, then csize and usize.
    let (csize_at, usize_at) = (0x416d, 0x4171);
    assert_eq!(u16::from_le_bytes([data[0x415d], data[0x415e]]), 15);
    let base = reports(&common::corpus(rel), true, false);
    for (at, v, code) in [
        (usize_at, 0x8000_0000u32, "TD018"),
        (usize_at, 0xffff_ffff, "TD018"),
        (usize_at, 0x5000_0000, "TD018"),
        (csize_at, 0xffff_ffff, "TD007"),
    ] {
        let (_t, p) = edited(rel, |b| b[at..at + 4].copy_from_slice(&v.to_le_bytes()));
        let l = levels(&p);
        assert!(has(&l, code, Severity::Warning), "{v:#x}: {l:?}");
        assert!(no_error(&l), "{v:#x}: {l:?}");
        assert_eq!(reports(&p, true, false), base, "{v:#x} at {at:#x}");
    }
    // The kallsyms section (19, at 0x16b6): its usize at 0x16ca.
    assert_eq!(u16::from_le_bytes([data[0x16b6], data[0x16b7]]), 19);
    let (_t, p) = edited(rel, |b| {
        b[0x16ca..0x16ce].copy_from_slice(&0x8000_0000u32.to_le_bytes())
    });
    let l = levels(&p);
    assert!(has(&l, "TD018", Severity::Error), "{l:?}");
    let got = reports(&p, true, false);
    assert!(
        got.is_empty() || got != base,
        "readers read a lost kallsyms section the same"
    );
}

/// Writes `bytes` at `off` of `file` in the recording `d`, or cuts the file there (`None`).
fn patch_file(d: &Path, file: &str, off: usize, bytes: Option<&[u8]>) {
    let p = d.join(file);
    let mut b = std::fs::read(&p).unwrap();
    match bytes {
        Some(v) => b[off..off + v.len()].copy_from_slice(v),
        None => b.truncate(off),
    }
    std::fs::write(&p, b).unwrap();
}

/// A perf record of a type uftrace's perf event never gives (a SWITCH of task 13448 made type
/// 4660): every uftrace skips it and loses the `sched-in`.
#[test]
fn a_perf_record_of_another_type_is_an_error() {
    let (_t, d) = mutant("threads", |d| {
        patch_file(d, "perf-cpu0.dat", 0, Some(&4660u32.to_le_bytes()))
    });
    let l = levels(&d);
    assert!(has(&l, "UF083", Severity::Error), "{l:?}");
    readers_fail(&common::corpus("uftrace/threads"), &d);
}

/// The same for the EXIT of a thread that has no data file (`idle-thread`, task 16213): uftrace
/// drops that task's events either way, so it is a warning.
#[test]
fn a_perf_record_of_another_type_of_an_unread_task_is_a_warning() {
    let (_t, d) = mutant("idle-thread", |d| {
        patch_file(d, "perf-cpu0.dat", 0x18, Some(&4660u32.to_le_bytes()))
    });
    assert!(!d.join("16213.dat").exists());
    let l = levels(&d);
    assert!(has(&l, "UF083", Severity::Warning), "{l:?}");
    assert!(no_error(&l), "{l:?}");
    readers_same(&common::corpus("uftrace/idle-thread"), &d);
}

/// An EXIT whose body tid (the one uftrace reads) was changed: the exit is lost to task 13448.
/// Its trailer tid changed instead is a field uftrace does not read: a warning.
#[test]
fn a_perf_exit_of_another_tid_is_an_error_only_in_the_field_uftrace_reads() {
    let (_t, d) = mutant("threads", |d| {
        patch_file(d, "perf-cpu0.dat", 0x58, Some(&9999u32.to_le_bytes()))
    });
    let l = levels(&d);
    assert!(has(&l, "UF084", Severity::Error), "{l:?}");
    readers_fail(&common::corpus("uftrace/threads"), &d);

    let (_t2, d2) = mutant("threads", |d| {
        patch_file(d, "perf-cpu0.dat", 0x6c, Some(&9999u32.to_le_bytes()))
    });
    let l = levels(&d2);
    assert!(has(&l, "UF084", Severity::Warning), "{l:?}");
    assert!(no_error(&l), "{l:?}");
    readers_same(&common::corpus("uftrace/threads"), &d2);
}

/// A FORK whose child tid became a tid with no event of its own (`forkexec-e`, 26482 made
/// 26619): uftrace files `task-new` under a task it does not know.
#[test]
fn a_perf_fork_of_a_child_without_events_is_an_error() {
    let (_t, d) = mutant("forkexec-e", |d| {
        patch_file(d, "perf-cpu1.dat", 0xd0, Some(&26619u32.to_le_bytes()))
    });
    let l = levels(&d);
    assert!(has(&l, "UF084", Severity::Error), "{l:?}");
    readers_fail(&common::corpus("uftrace/forkexec-e"), &d);
}

/// A switch-out whose direction bit was cleared: task 13448 is switched in three times in a
/// row, and every uftrace shows `sched-in` where `sched-out` was recorded.
#[test]
fn a_task_switched_in_twice_is_an_error() {
    let (_t, d) = mutant("threads", |d| {
        patch_file(d, "perf-cpu0.dat", 0x1c, Some(&[0, 0]))
    });
    let l = levels(&d);
    assert!(has(&l, "UF085", Severity::Error), "{l:?}");
    readers_fail(&common::corpus("uftrace/threads"), &d);
}

/// perf files cut at a record boundary: `threads` perf-cpu1.dat after its 13th record (task
/// 13446's data goes on after its last switch-out there), `srcline-threads` perf-cpu1.dat
/// after its 6th (thread 16270 of an exited process without its EXIT). Every uftrace loses the
/// cut events.
#[test]
fn a_perf_file_cut_at_a_record_boundary_is_an_error() {
    let (_t, d) = mutant("threads", |d| patch_file(d, "perf-cpu1.dat", 0x138, None));
    let l = levels(&d);
    assert!(has(&l, "UF085", Severity::Error), "{l:?}");
    readers_fail(&common::corpus("uftrace/threads"), &d);

    let (_t2, d2) = mutant("srcline-threads", |d| {
        patch_file(d, "perf-cpu1.dat", 0x90, None)
    });
    let l = levels(&d2);
    assert!(has(&l, "UF086", Severity::Error), "{l:?}");
    readers_fail(&common::corpus("uftrace/srcline-threads"), &d2);

    // `fork-noexec` perf-cpu0.dat after its first record: the forked process 16187 has no
    // EXIT, though the traced program exited (uftrace record waits for every task).
    let (_t3, d3) = mutant("fork-noexec", |d| {
        patch_file(d, "perf-cpu0.dat", 0x18, None)
    });
    let l = levels(&d3);
    assert!(has(&l, "UF086", Severity::Error), "{l:?}");
    readers_fail(&common::corpus("uftrace/fork-noexec"), &d3);

    // `args` perf-cpu1.dat after its 6th record: the program's own EXIT is gone, but info's
    // `exit_status:0` says uftrace record saw it exit.
    let (_t4, d4) = mutant("args", |d| patch_file(d, "perf-cpu1.dat", 0x90, None));
    let l = levels(&d4);
    assert!(has(&l, "UF086", Severity::Error), "{l:?}");
    readers_fail(&common::corpus("uftrace/args"), &d4);
}

/// A task's switch-in and the switch-out after it cut out of a perf file (`srcline-threads`
/// perf-cpu0.dat 0x150..0x180, task 16268, between its switch-out at 0x108 and a later
/// switch-in): the task's records in that stretch lie where the perf files say it was
/// switched out, and every uftrace loses the two scheduling events.
#[test]
fn records_inside_a_switched_out_stretch_are_an_error() {
    let (_t, d) = mutant("srcline-threads", |d| {
        let p = d.join("perf-cpu0.dat");
        let mut b = std::fs::read(&p).unwrap();
        b.drain(0x150..0x180);
        std::fs::write(&p, b).unwrap();
    });
    let l = levels(&d);
    assert!(has(&l, "UF085", Severity::Error), "{l:?}");
    let r = tracelint::check_path(&d, &CheckOptions::default(), &Default::default());
    assert!(
        r.findings
            .iter()
            .any(|f| f.rule.code == "UF085" && f.message.contains("lies between its switch-out")),
        "{:?}",
        r.findings
    );
    readers_fail(&common::corpus("uftrace/srcline-threads"), &d);
}

/// A `<TID>.dat` removed from a recording that filtered nothing (`threads`, 13448.dat): every
/// task of `task.txt` made a traced call and wrote its record, so the loss is an error; the
/// same task missing from a filtered recording (`filter-F-worker`) is uftrace's normal output.
#[test]
fn a_task_file_removed_from_an_unfiltered_recording_is_an_error() {
    let (_t, d) = mutant("threads", |d| {
        std::fs::remove_file(d.join("13448.dat")).unwrap()
    });
    let l = levels(&d);
    assert!(has(&l, "UF037", Severity::Error), "{l:?}");
    readers_fail(&common::corpus("uftrace/threads"), &d);

    let l = levels(&common::corpus("uftrace/filter-F-worker"));
    assert!(has(&l, "UF037", Severity::Info), "{l:?}");
    assert!(no_error(&l), "{l:?}");
}

/// A `perf-cpu<N>.dat` removed: `UF087` warns (the directory cannot tell whether the file held
/// events), and the loss is an error where the other files show it (`args` perf-cpu1.dat held
/// the program's EXIT: `UF086`). An idle CPU's empty file removed (`args` perf-cpu0.dat) is the
/// warning alone, and every uftrace reads the same. `recv-host` (written by `uftrace recv`,
/// which gets nothing for an idle CPU) has one file of two and no `UF087`.
#[test]
fn a_missing_perf_file_is_a_warning_and_an_error_where_the_loss_shows() {
    let args = common::corpus("uftrace/args");
    assert_eq!(
        std::fs::metadata(args.join("perf-cpu0.dat")).unwrap().len(),
        0
    );
    let (_t, d) = mutant("args", |d| {
        std::fs::remove_file(d.join("perf-cpu1.dat")).unwrap()
    });
    let l = levels(&d);
    assert!(has(&l, "UF087", Severity::Warning), "{l:?}");
    assert!(has(&l, "UF086", Severity::Error), "{l:?}");
    readers_fail(&args, &d);

    let (_t2, d2) = mutant("args", |d| {
        std::fs::remove_file(d.join("perf-cpu0.dat")).unwrap()
    });
    let l = levels(&d2);
    assert!(has(&l, "UF087", Severity::Warning), "{l:?}");
    assert!(no_error(&l), "{l:?}");
    readers_same(&args, &d2);

    let l = levels(&common::corpus("uftrace/recv-host"));
    assert!(!l.iter().any(|(c, _)| c == "UF087"), "{l:?}");

    // `--keep-pid` leaves `exit_status:-1` (the program is not the recorder's child), but
    // uftrace record still ended once every task had exited: the loss is shown the same way.
    let (_t3, d3) = mutant("forkexec-keep-pid", |d| {
        std::fs::remove_file(d.join("perf-cpu1.dat")).unwrap()
    });
    let l = levels(&d3);
    assert!(has(&l, "UF086", Severity::Error), "{l:?}");
    readers_fail(&common::corpus("uftrace/forkexec-keep-pid"), &d3);
}

/// Every healthy recording of the corpus (every producer option) has its perf records in the
/// shape the kernel writes: none of the perf rules fires at any level.
#[test]
fn healthy_perf_files_give_no_perf_finding() {
    let root = common::corpus("uftrace");
    let mut n = 0;
    for e in std::fs::read_dir(&root).unwrap() {
        let p = e.unwrap().path();
        if !p.join("perf-cpu0.dat").exists() {
            continue;
        }
        n += 1;
        let l = levels(&p);
        for code in [
            "UF080", "UF081", "UF082", "UF083", "UF084", "UF085", "UF086", "UF087",
        ] {
            assert!(!l.iter().any(|(c, _)| c == code), "{}: {l:?}", p.display());
        }
    }
    assert!(n > 20, "only {n} recordings with perf files");
}

/// An exec COMM whose body tid and trailer tid were both changed (`forkexec-keep-pid`, task
/// 17870 made 17872, its trailer garbage): its pid still names the task, and every uftrace
/// loses the `task-name` of 17870.
#[test]
fn an_exec_comm_of_another_tid_is_an_error() {
    let (_t, d) = mutant("forkexec-keep-pid", |d| {
        patch_file(d, "perf-cpu0.dat", 0x24, Some(&17872u32.to_le_bytes()));
        patch_file(d, "perf-cpu0.dat", 0x3c, Some(&11945422u32.to_le_bytes()));
    });
    let l = levels(&d);
    assert!(has(&l, "UF084", Severity::Error), "{l:?}");
    readers_fail(&common::corpus("uftrace/forkexec-keep-pid"), &d);

    // The program's exec COMM with its pid and trailer tid changed but its tid kept
    // (`max-stack-8`): its trailer's pid still names the task, which stays the traced
    // program; uftrace reads the tid: a warning, every reader the same.
    let (_t2, d2) = mutant("max-stack-8", |d| {
        patch_file(d, "perf-cpu1.dat", 0x8, Some(&21016u32.to_le_bytes()));
        patch_file(d, "perf-cpu1.dat", 0x1c, Some(&3096344u32.to_le_bytes()));
    });
    let l = levels(&d2);
    assert!(has(&l, "UF084", Severity::Warning), "{l:?}");
    assert!(no_error(&l), "{l:?}");
    readers_same(&common::corpus("uftrace/max-stack-8"), &d2);
}

/// A `default.opts` time filter of 1000 or more in its unit (or negative, which `strtoull`
/// wraps): every uftrace stops ("Limited 3 digits"); 999 reads.
#[test]
fn a_default_opts_time_filter_uftrace_refuses_is_an_error() {
    for (v, bad) in [
        ("-t -1ms\n", true),
        ("-t 1000us\n", true),
        ("-t 999us\n", false),
    ] {
        let (_t, d) = mutant("time-filter-t1ms", |d| {
            std::fs::write(d.join("default.opts"), v).unwrap()
        });
        let l = levels(&d);
        assert_eq!(has(&l, "UF096", Severity::Error), bad, "{v}: {l:?}");
        if bad {
            readers_fail(&common::corpus("uftrace/time-filter-t1ms"), &d);
        }
    }
}

/// An EXIT of the traced task whose type and body tid were both changed (`depth3`): its
/// trailer still names task 13482, whose `task-exit` every uftrace loses.
#[test]
fn a_perf_record_of_another_type_named_by_its_trailer_is_an_error() {
    let (_t, d) = mutant("depth3", |d| {
        patch_file(d, "perf-cpu1.dat", 0x30, Some(&93u32.to_le_bytes()));
        patch_file(d, "perf-cpu1.dat", 0x40, Some(&0xb9002a2au32.to_le_bytes()));
    });
    let l = levels(&d);
    assert!(has(&l, "UF083", Severity::Error), "{l:?}");
    readers_fail(&common::corpus("uftrace/depth3"), &d);
}

/// Damage in the perf records of a task uftrace does not read (no data file): the EXIT tid of
/// `filter-F-worker`'s filtered main task. Every uftrace drops that task's events anyway: a
/// warning. A file cut inside the main task's EXIT of `caller-C-work-threads` stays an error:
/// whatever followed the cut is gone too.
#[test]
fn perf_damage_of_an_unread_task_is_a_warning() {
    let (_t, d) = mutant("filter-F-worker", |d| {
        patch_file(d, "perf-cpu1.dat", 0x238, Some(&40885u32.to_le_bytes()))
    });
    assert!(!d.join("16053.dat").exists());
    let l = levels(&d);
    assert!(has(&l, "UF084", Severity::Warning), "{l:?}");
    assert!(no_error(&l), "{l:?}");
    readers_same(&common::corpus("uftrace/filter-F-worker"), &d);

    let (_t2, d2) = mutant("caller-C-work-threads", |d| {
        patch_file(d, "perf-cpu0.dat", 0x110, None)
    });
    let l = levels(&d2);
    assert!(has(&l, "UF081", Severity::Error), "{l:?}");
}

/// An EXIT whose body tid and trailer tid were both changed (`dlopen`): the pid still names
/// the traced process 6464, whose `task-exit` every uftrace loses.
#[test]
fn a_perf_exit_with_both_tids_changed_is_an_error() {
    let (_t, d) = mutant("dlopen", |d| {
        patch_file(d, "perf-cpu0.dat", 0x40, Some(&2768247104u32.to_le_bytes()));
        patch_file(d, "perf-cpu0.dat", 0x54, Some(&6591u32.to_le_bytes()));
    });
    let l = levels(&d);
    assert!(has(&l, "UF084", Severity::Error), "{l:?}");
    readers_fail(&common::corpus("uftrace/dlopen"), &d);
}
