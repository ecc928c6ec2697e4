//! `tracelint fix`: the contract (IN never written, OUT new, exit codes, dry run), and each
//! repair on real corpus files damaged here, proven by the real readers (trace-cmd report,
//! uftrace replay, GDB's tfind walk): what they read of OUT is what they read of the original,
//! or a per-CPU prefix of it; the ledger's counts are what was lost; fix of OUT does nothing.

mod common;

use common::skip_or_fail;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_tracelint")
}

fn corpus(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus")
        .join(rel)
}

/// `tracelint fix IN -o OUT --ledger L --output-format json`: exit code and the ledger.
fn fix(input: &Path, out: &Path, extra: &[&str]) -> (i32, serde_json::Value) {
    let ledger = out.with_extension("ledger.json");
    let _ = std::fs::remove_file(&ledger);
    let o = Command::new(bin())
        .env_remove("TRACELINT_CONFIG")
        .arg("fix")
        .arg(input)
        .arg("-o")
        .arg(out)
        .arg("--ledger")
        .arg(&ledger)
        .args(extra)
        .output()
        .unwrap();
    let code = o.status.code().unwrap();
    let text = std::fs::read_to_string(&ledger).unwrap_or_else(|_| {
        panic!(
            "no ledger written (exit {code}): {}",
            String::from_utf8_lossy(&o.stderr)
        )
    });
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    (code, v["fix"].clone())
}

/// The error findings of `tracelint check` on `p`.
fn errors(p: &Path) -> Vec<String> {
    let o = Command::new(bin())
        .env_remove("TRACELINT_CONFIG")
        .args(["check", "-o", "concise"])
        .arg(p)
        .output()
        .unwrap();
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter(|l| l.contains("[error]"))
        .map(str::to_string)
        .collect()
}

/// A digest of a file or of every file of a directory.
fn digest(p: &Path) -> Vec<(String, Vec<u8>)> {
    if p.is_dir() {
        let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(p)
            .unwrap()
            .map(|e| e.unwrap().path())
            .map(|f| {
                (
                    f.file_name().unwrap().to_string_lossy().into_owned(),
                    std::fs::read(&f).unwrap(),
                )
            })
            .collect();
        v.sort();
        v
    } else {
        vec![(String::new(), std::fs::read(p).unwrap())]
    }
}

fn tool(name: &str, arg: &str) -> bool {
    if Command::new(name).arg(arg).output().is_ok() {
        true
    } else {
        skip_or_fail(&format!("`{name}` is not installed"));
        false
    }
}

/// `trace-cmd report` lines by CPU (`[001]`), in order.
fn report_by_cpu(p: &Path) -> BTreeMap<String, Vec<String>> {
    let o: Output = Command::new("trace-cmd")
        .args(["report", "-i"])
        .arg(p)
        .output()
        .unwrap();
    let mut m: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for l in String::from_utf8_lossy(&o.stdout).lines() {
        let Some(a) = l.find(" [") else { continue };
        let Some(b) = l[a..].find(']') else { continue };
        let cpu = l[a + 2..a + b].to_string();
        if cpu.chars().all(|c| c.is_ascii_digit()) && !cpu.is_empty() {
            m.entry(cpu).or_default().push(l.to_string());
        }
    }
    m
}

fn events(m: &BTreeMap<String, Vec<String>>) -> usize {
    m.values().map(Vec::len).sum()
}

/// A v6/v7 file's CPU tables (buffer name, cpu, offset, size) as the library decodes them.
fn cpu_tables(data: &[u8]) -> Vec<(String, u32, u64, u64)> {
    let opts = tracelint::CheckOptions::default();
    let mut sink = tracelint::Sink::new(1000);
    let m = tracelint::formats::tracecmd::decode(data, &opts, &mut sink).unwrap();
    m.buffers
        .iter()
        .flat_map(|b| {
            b.cpus
                .iter()
                .map(move |c| (b.name.clone(), c.cpu, c.offset, c.size))
        })
        .collect()
}

/// Cuts `data` at `at` into `dir/name`; runs fix; checks the contract every repair holds.
/// Returns the exit code, the ledger and OUT.
fn cut_and_fix(
    dir: &Path,
    name: &str,
    data: &[u8],
    at: usize,
    extra: &[&str],
) -> (i32, serde_json::Value, PathBuf) {
    let input = dir.join(format!("{name}.cut{at}"));
    std::fs::write(&input, &data[..at]).unwrap();
    let out = dir.join(format!("{name}.cut{at}.fixed"));
    let before = digest(&input);
    let (code, ledger) = fix(&input, &out, extra);
    assert_eq!(digest(&input), before, "{name} cut at {at}: IN changed");
    assert_eq!(ledger["exit_code"], code);
    match code {
        4 | 5 => {
            assert!(out.exists(), "{name} cut at {at}: exit {code} but no OUT");
            let errs = errors(&out);
            assert!(
                errs.is_empty(),
                "{name} cut at {at}: OUT has errors: {errs:?}"
            );
            // fix of OUT changes nothing.
            let again = dir.join(format!("{name}.cut{at}.again"));
            let (c2, l2) = fix(&out, &again, &[]);
            assert_eq!(c2, 0, "{name} cut at {at}: fix of OUT: {l2}");
            assert!(!again.exists());
            assert_eq!(
                code == 5,
                !ledger["plan"]["losses"].as_array().unwrap().is_empty()
            );
        }
        0 | 1 => assert!(
            !out.exists(),
            "{name} cut at {at}: exit {code} but OUT written"
        ),
        c => panic!("{name} cut at {at}: exit {c}: {ledger}"),
    }
    (code, ledger, out)
}

#[test]
fn trace_dat_v6_cut_inside_cpu_data() {
    let have = tool("trace-cmd", "--version");
    let tmp = tempfile::tempdir().unwrap();
    let mut repaired = 0;
    let mut refused = 0;
    for name in [
        "v6.dat",
        "clock-counter-v6.dat",
        "empty-cpu-v6.dat",
        "instances-v6.dat",
        "kernel-stack-v6.dat",
        "marker-v6.dat",
        "subbuf-8k-v6.dat",
    ] {
        let path = corpus(&format!("tracecmd/{name}"));
        let data = std::fs::read(&path).unwrap();
        let table = cpu_tables(&data);
        let instances = table.iter().any(|t| !t.0.is_empty());
        let original = if have {
            report_by_cpu(&path)
        } else {
            BTreeMap::new()
        };
        let page = if name.contains("8k") { 8192usize } else { 4096 };
        let mut cuts = vec![data.len() - 1, data.len() - 100];
        for &(_, _, off, size) in table.iter().filter(|t| t.3 > 0) {
            let (off, size) = (off as usize, size as usize);
            for d in [1, 7, 8, page, page + 1, size / 2] {
                if d < size {
                    cuts.push(off + d);
                }
            }
            cuts.push(off + size - 1);
        }
        cuts.retain(|&c| c < data.len());
        cuts.sort_unstable();
        cuts.dedup();
        for at in cuts {
            let (code, ledger, out) = cut_and_fix(tmp.path(), name, &data, at, &[]);
            // An instance's CPU table lies after the top buffer's data: a cut before it is
            // refused (its BUFFER option cannot be dropped).
            if code == 0 {
                // Bytes after all the CPU data: nothing of the trace was cut.
                assert_eq!(
                    ledger["input_errors"].as_array().unwrap().len(),
                    0,
                    "{name} cut at {at}"
                );
                continue;
            }
            if code == 1 && instances {
                assert!(
                    ledger["refusal"]["reason"]
                        .as_str()
                        .unwrap()
                        .contains("CPU table of buffer"),
                    "{name} cut at {at}: {ledger}"
                );
                refused += 1;
                continue;
            }
            assert!(code == 5, "{name} cut at {at}: exit {code}: {ledger}");
            repaired += 1;
            // Ledger: pages lost per CPU = (declared before - declared after) / page size.
            let fixed = std::fs::read(&out).unwrap();
            let after = cpu_tables(&fixed);
            for loss in ledger["plan"]["losses"].as_array().unwrap() {
                let cpu = loss["cpu"].as_u64().unwrap() as u32;
                let buf = loss["buffer"].as_str().unwrap();
                let find = |t: &[(String, u32, u64, u64)]| {
                    t.iter()
                        .find(|x| x.0 == buf && x.1 == cpu)
                        .map(|x| x.3)
                        .unwrap()
                };
                let ps = if name.contains("8k") { 8192 } else { 4096 };
                assert_eq!(
                    loss["count"].as_u64().unwrap(),
                    (find(&table) - find(&after)).div_ceil(ps),
                    "{name} cut at {at}: {loss}"
                );
            }
            if have {
                let got = report_by_cpu(&out);
                for (cpu, lines) in &got {
                    let orig = &original[cpu];
                    // With instances, a CPU's lines of several buffers merge by time: what is
                    // left of one buffer is then a subsequence.
                    let ok = if instances {
                        let mut it = orig.iter();
                        lines.iter().all(|l| it.any(|o| o == l))
                    } else {
                        orig.starts_with(lines)
                    };
                    assert!(
                        ok,
                        "{name} cut at {at}: CPU {cpu} of OUT is not a prefix of the original"
                    );
                }
                // The cut input reads as nothing; the repaired one reads.
                assert!(
                    events(&got) > 0 || events(&original) == 0 || at < table[0].2 as usize + page,
                    "{name} cut at {at}: trace-cmd reads no event of OUT"
                );
            }
        }
    }
    assert!(repaired > 50, "{repaired} repairs, {refused} refused");
}

/// The end of the last BUFFER section of a v7 file: what a writer killed after the CPU data
/// leaves.
fn buffer_end(data: &[u8]) -> usize {
    let opts = tracelint::CheckOptions::default();
    let mut sink = tracelint::Sink::new(1000);
    let m = tracelint::formats::tracecmd::decode(data, &opts, &mut sink).unwrap();
    m.sections.iter().rfind(|s| s.id == 3).unwrap().body.end as usize
}

#[test]
fn trace_dat_v7_trailing_options_rebuilt() {
    let have = tool("trace-cmd", "--version");
    let tmp = tempfile::tempdir().unwrap();
    for name in [
        "v7-zstd.dat",
        "full-meta-v7-zstd.dat",
        "clock-x86-tsc-v7-zstd.dat",
        "kernel-stack-v7-zstd.dat",
        "lost-v7-zstd.dat",
        "subbuf-8k-v7-zstd.dat",
    ] {
        let path = corpus(&format!("tracecmd/{name}"));
        let data = std::fs::read(&path).unwrap();
        let end = buffer_end(&data);
        let original = if have {
            report_by_cpu(&path)
        } else {
            BTreeMap::new()
        };
        for at in [
            end,
            end + 1,
            end + 7,
            end + 8,
            end + 16,
            end + 40,
            data.len() - 1,
        ] {
            let (code, ledger, out) = cut_and_fix(tmp.path(), name, &data, at, &[]);
            assert_eq!(code, 4, "{name} cut at {at}: {ledger}");
            if have {
                assert_eq!(
                    report_by_cpu(&out),
                    original,
                    "{name} cut at {at}: trace-cmd reads other events of OUT than of the original"
                );
                if at == end {
                    let cut = tmp.path().join(format!("{name}.cut{at}"));
                    assert_eq!(
                        events(&report_by_cpu(&cut)),
                        0,
                        "{name}: the cut file reads"
                    );
                }
            }
            // The rebuilt BUFFER option is the writer's: same CPU table as the original.
            let fixed = std::fs::read(&out).unwrap();
            assert_eq!(cpu_tables(&fixed), cpu_tables(&data), "{name} cut at {at}");
        }
    }
}

#[test]
fn trace_dat_v7_uncompressed_needs_cpu_sizes() {
    let tmp = tempfile::tempdir().unwrap();
    let path = corpus("tracecmd/v7-none.dat");
    let data = std::fs::read(&path).unwrap();
    let end = buffer_end(&data);
    let (code, ledger, _) = cut_and_fix(tmp.path(), "v7-none", &data, end, &[]);
    assert_eq!(code, 1, "{ledger}");
    assert_eq!(ledger["refusal"]["option"], "--cpu-sizes");
    assert!(ledger["message"].as_str().unwrap().contains("--cpu-sizes"));
    // With the sizes the original machine knew, the writer's file comes back byte for byte.
    let sizes: Vec<String> = cpu_tables(&data).iter().map(|t| t.3.to_string()).collect();
    let arg = sizes.join(",");
    let input = tmp.path().join(format!("v7-none.cut{end}"));
    let out = tmp.path().join("v7-none.sized");
    let (code, ledger) = fix(&input, &out, &["--cpu-sizes", &arg]);
    assert_eq!(code, 4, "{ledger}");
    assert_eq!(std::fs::read(&out).unwrap(), data);
    assert_eq!(
        ledger["plan"]["invented"].as_array().unwrap().len(),
        sizes.len()
    );
}

/// A trace.dat cut inside its metadata has no event on disk: fix refuses, says so, and names
/// no option (no donor brings back events that were never in the file).
#[test]
fn trace_dat_cut_inside_metadata_is_refused_as_empty() {
    let tmp = tempfile::tempdir().unwrap();
    for name in ["v6", "v7-none", "v7-zstd"] {
        let data = std::fs::read(corpus(&format!("tracecmd/{name}.dat"))).unwrap();
        // Inside the header, the event formats and the formats' end (every corpus file has
        // more than 3 KiB of metadata).
        for at in [100, 1000, 2999] {
            let (code, ledger, _) = cut_and_fix(tmp.path(), name, &data, at, &[]);
            assert_eq!(code, 1, "{name} cut at {at}: {ledger}");
            let reason = ledger["refusal"]["reason"].as_str().unwrap_or_default();
            assert!(
                reason.contains("no event of this recording is on disk"),
                "{name} cut at {at}: {ledger}"
            );
            assert!(ledger["refusal"]["option"].is_null(), "{ledger}");
        }
    }
}

/// Frame boundaries of a tfile (little-endian frames: the corpus is x86-64).
fn tfile_frames(data: &[u8]) -> Vec<(usize, usize)> {
    let mut pos = data.windows(2).position(|w| w == b"\n\n").unwrap() + 2;
    let mut v = Vec::new();
    loop {
        let tp = i16::from_le_bytes([data[pos], data[pos + 1]]);
        if tp == 0 {
            return v;
        }
        let size = u32::from_le_bytes(data[pos + 2..pos + 6].try_into().unwrap()) as usize;
        v.push((pos, pos + 6 + size));
        pos += 6 + size;
    }
}

/// GDB's walk of a tfile: the frames `tfind` finds, and whether the walk ended cleanly.
fn gdb_walk(p: &Path) -> (Vec<String>, bool) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("campaign/gdb_walk.py");
    let o = Command::new("gdb")
        .args(["-nx", "-batch", "-x"])
        .arg(&script)
        .env("TFILE", p)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    let frames = text
        .lines()
        .filter(|l| l.starts_with("FRAME "))
        .map(str::to_string)
        .collect();
    let clean = text.lines().any(|l| l.starts_with("END ok"));
    (frames, clean)
}

#[test]
fn tfile_cut_gets_its_end_marker() {
    let have = tool("gdb", "--version");
    let tmp = tempfile::tempdir().unwrap();
    let mut repaired = 0;
    for name in ["multi.tf", "regs.tf", "memory.tf", "kinds.tf", "tsv.tf"] {
        let path = corpus(&format!("gdb/{name}"));
        let data = std::fs::read(&path).unwrap();
        let frames = tfile_frames(&data);
        let (orig, _) = if have {
            gdb_walk(&path)
        } else {
            (Vec::new(), true)
        };
        let mut cuts = vec![data.len() - 4, data.len() - 3, data.len() - 1];
        for &(s, e) in &frames {
            for at in [s + 1, s + 5, s + 7, s + 8, (s + e) / 2, e - 1] {
                if at < e {
                    cuts.push(at);
                }
            }
        }
        cuts.sort_unstable();
        cuts.dedup();
        for at in cuts {
            let (code, ledger, out) = cut_and_fix(tmp.path(), name, &data, at, &[]);
            let whole = frames.iter().filter(|f| f.1 <= at).count();
            let partial = frames.iter().any(|f| f.0 < at && at < f.1);
            // Two bytes of the marker left are a whole marker: nothing to do.
            let last = frames.last().map_or(0, |f| f.1);
            if at >= last + 2 {
                assert_eq!(code, 0, "{name} cut at {at}: {ledger}");
                continue;
            }
            assert_eq!(
                code,
                if partial { 5 } else { 4 },
                "{name} cut at {at}: {ledger}"
            );
            repaired += 1;
            let lost: u64 = ledger["plan"]["losses"]
                .as_array()
                .unwrap()
                .iter()
                .map(|l| l["count"].as_u64().unwrap())
                .sum();
            assert_eq!(lost, u64::from(partial), "{name} cut at {at}");
            if have {
                let (got, clean) = gdb_walk(&out);
                assert!(
                    clean,
                    "{name} cut at {at}: GDB's walk of OUT did not end cleanly"
                );
                assert_eq!(got.len(), whole, "{name} cut at {at}");
                assert!(orig.starts_with(&got), "{name} cut at {at}");
            }
        }
    }
    assert!(repaired > 50, "{repaired} repairs");
}

fn replay(d: &Path) -> String {
    let o = Command::new("uftrace")
        .args(["replay", "-d"])
        .arg(d)
        .output()
        .unwrap();
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let p = e.unwrap().path();
        std::fs::copy(&p, to.join(p.file_name().unwrap())).unwrap();
    }
}

/// A recording without `info`: fix writes one, and `uftrace replay` of OUT prints exactly what
/// it prints of the recording with its own `info`.
fn info_rebuilt(original: &Path, tmp: &Path, name: &str, have: bool, estimate: bool) {
    let damaged = tmp.join(format!("{name}.noinfo"));
    copy_dir(original, &damaged);
    std::fs::remove_file(damaged.join("info")).unwrap();
    let out = tmp.join(format!("{name}.fixed"));
    let before = digest(&damaged);
    let (code, ledger) = fix(&damaged, &out, &[]);
    assert_eq!(digest(&damaged), before, "{name}: IN changed");
    assert_eq!(code, 4, "{name}: {ledger}");
    let errs = errors(&out);
    assert!(errs.is_empty(), "{name}: OUT has errors: {errs:?}");
    // Every other file is copied byte for byte.
    let (a, b) = (digest(&damaged), digest(&out));
    assert_eq!(b.len(), a.len() + 1);
    for (n, bytes) in &a {
        assert!(
            b.contains(&(n.clone(), bytes.clone())),
            "{name}: {n} differs"
        );
    }
    let again = tmp.join(format!("{name}.again"));
    assert_eq!(fix(&out, &again, &[]).0, 0);
    if have {
        let want = replay(original);
        assert!(!want.is_empty());
        if estimate {
            // The estimated returns move in time (and the perf events between them, in
            // depth): the same calls of the same tasks, as a multiset, without the durations
            // and depths.
            let calls = |t: String| -> Vec<String> {
                let mut v: Vec<String> = t
                    .lines()
                    .map(|l| {
                        let tid = l.find('[').map(|a| &l[a..]).unwrap_or("");
                        tid.split('|').next().unwrap_or("").to_string()
                            + l.split('|').skip(1).collect::<String>().trim()
                    })
                    .collect();
                v.sort();
                v
            };
            assert_eq!(
                calls(replay(&out)),
                calls(want),
                "{name}: replay of OUT differs"
            );
        } else {
            assert_eq!(replay(&out), want, "{name}: replay of OUT differs");
        }
        assert_eq!(
            replay(&damaged),
            "",
            "{name}: uftrace replays a recording without info"
        );
    }
}

/// The u64 at `at` of a corpus recording's `info` header.
fn info_word(dir: &Path, at: usize) -> u64 {
    let b = std::fs::read(dir.join("info")).unwrap();
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}

#[test]
fn uftrace_without_info_replays_as_recorded() {
    let have = tool("uftrace", "--version");
    let tmp = tempfile::tempdir().unwrap();
    let mut dirs = Vec::new();
    common::inputs(&corpus("uftrace"), &mut dirs);
    dirs.retain(|d| d.is_dir() && !d.components().any(|c| c.as_os_str() == "defects"));
    let (mut same, mut refused) = (0, 0);
    for original in &dirs {
        let name = original.file_name().unwrap().to_string_lossy().into_owned();
        // Argument and return-value records need the argument specs (info_mask bit 10),
        // which were only in info: refused, nothing written.
        if info_word(original, 24) & (1 << 10) != 0 {
            let damaged = tmp.path().join(format!("{name}.noinfo"));
            copy_dir(original, &damaged);
            std::fs::remove_file(damaged.join("info")).unwrap();
            let out = tmp.path().join(format!("{name}.fixed"));
            let (code, ledger) = fix(&damaged, &out, &[]);
            assert_eq!(code, 1, "{name}: {ledger}");
            assert!(!out.exists());
            refused += 1;
            continue;
        }
        // `record -e` (ESTIMATE_RETURN, feature bit 11): replay estimates the last returns
        // from what the lost info held; the durations of those lines differ.
        let estimate = info_word(original, 16) & (1 << 11) != 0;
        info_rebuilt(original, tmp.path(), &name, have, estimate);
        same += 1;
    }
    assert!(same >= 8, "{same} rebuilt, {refused} refused");
}

#[test]
fn uftrace_fresh_recording_without_info() {
    if !tool("uftrace", "--version") || !tool("gcc", "--version") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/corpus/src/uf_threads.c");
    let exe = tmp.path().join("uf_threads");
    let st = Command::new("gcc")
        .args(["-pg", "-g", "-O0", "-pthread", "-o"])
        .arg(&exe)
        .arg(&src)
        .status()
        .unwrap();
    assert!(st.success());
    let rec = tmp.path().join("rec");
    let st = Command::new("uftrace")
        .arg("record")
        .arg("-d")
        .arg(&rec)
        .arg(&exe)
        .output()
        .unwrap();
    assert!(
        st.status.success(),
        "{}",
        String::from_utf8_lossy(&st.stderr)
    );
    info_rebuilt(&rec, tmp.path(), "fresh", true, false);
}

#[test]
fn uftrace_task_file_cut_inside_a_record() {
    let have = tool("uftrace", "--version");
    let tmp = tempfile::tempdir().unwrap();
    for (name, cut) in [
        ("plain", 5usize),
        ("threads", 9),
        ("events", 3),
        ("args", 1),
    ] {
        let original = corpus(&format!("uftrace/{name}"));
        let damaged = tmp.path().join(format!("{name}.cut"));
        copy_dir(&original, &damaged);
        let dat = std::fs::read_dir(&damaged)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| {
                let n = p.file_name().unwrap().to_string_lossy().into_owned();
                n.ends_with(".dat") && n.chars().next().unwrap().is_ascii_digit()
            })
            .unwrap();
        let len = std::fs::metadata(&dat).unwrap().len();
        let keep = len / 2 - (len / 2) % 16 + cut as u64;
        let f = std::fs::OpenOptions::new().write(true).open(&dat).unwrap();
        f.set_len(keep).unwrap();
        let out = tmp.path().join(format!("{name}.fixed"));
        let before = digest(&damaged);
        let (code, ledger) = fix(&damaged, &out, &[]);
        assert_eq!(digest(&damaged), before);
        assert_eq!(code, 5, "{name}: {ledger}");
        let errs = errors(&out);
        assert!(errs.is_empty(), "{name}: OUT has errors: {errs:?}");
        let loss = &ledger["plan"]["losses"][0];
        let fixed_len = std::fs::metadata(out.join(dat.file_name().unwrap()))
            .unwrap()
            .len();
        assert_eq!(loss["bytes"].as_u64().unwrap(), keep - fixed_len, "{name}");
        assert!(fixed_len < keep && keep - fixed_len < 16 + 64, "{name}");
        let again = tmp.path().join(format!("{name}.again"));
        assert_eq!(fix(&out, &again, &[]).0, 0);
        if have {
            // What uftrace replays of OUT is a prefix of what it replays of the original (of
            // the damaged copy it may show the cut record misread: an event of zeros).
            let body = |t: String| -> Vec<String> {
                t.lines()
                    .take_while(|l| !l.is_empty())
                    .map(str::to_string)
                    .collect()
            };
            // Lines of perf events (merged in by time) are left aside.
            let ours = |v: Vec<String>| -> Vec<String> {
                v.into_iter().filter(|l| !l.contains("/* linux:")).collect()
            };
            // By task: tasks interleave by time.
            let by_tid = |v: Vec<String>| -> BTreeMap<String, Vec<String>> {
                let mut m: BTreeMap<String, Vec<String>> = BTreeMap::new();
                for l in v {
                    if let (Some(a), Some(b)) = (l.find('['), l.find(']')) {
                        let tid = l[a + 1..b].trim().to_string();
                        // `f();` is `f() {` and its `}`: a call cut short prints as the
                        // first alone.
                        let rest = l[b + 1..].trim_start_matches([' ', '|']).to_string();
                        let indent = l[b + 1..].trim_start_matches(' ').trim_start_matches('|');
                        let depth = indent.len() - indent.trim_start().len();
                        let e = m.entry(tid).or_default();
                        match rest.strip_suffix("();") {
                            Some(f) => {
                                e.push(format!("{depth} {f}() {{"));
                                e.push(format!("{depth} }}"));
                            }
                            None if rest.starts_with('}') => e.push(format!("{depth} }}")),
                            None => e.push(format!("{depth} {rest}")),
                        }
                    }
                }
                m
            };
            let got = by_tid(ours(body(replay(&out))));
            let orig = by_tid(ours(body(replay(&original))));
            assert!(!got.is_empty(), "{name}");
            for (tid, lines) in &got {
                assert!(
                    orig[tid].starts_with(lines),
                    "{name}: task {tid}: {lines:?}"
                );
            }
        }
    }
}

/// Every healthy recording of the corpus and every real file of `../shared/samples/wild`.
#[test]
fn healthy_corpus_files_write_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let mut inputs = Vec::new();
    for f in ["tracecmd", "uftrace", "gdb", "ktrace", "perf"] {
        common::inputs(&corpus(f), &mut inputs);
    }
    inputs.retain(|p| {
        !p.components()
            .any(|c| c.as_os_str() == "defects" || c.as_os_str() == "regressions")
    });
    // The real files from public repositories: each a trace.dat or a uftrace directory.
    if let Some(wild) = common::shared("samples/wild") {
        for fmt in ["tracecmd", "uftrace"] {
            if let Ok(rd) = std::fs::read_dir(wild.join(fmt)) {
                inputs.extend(rd.flatten().map(|e| e.path()));
            }
        }
    }
    assert!(inputs.len() > 30);
    for (i, p) in inputs.iter().enumerate() {
        let out = tmp.path().join(format!("out{i}"));
        let o = Command::new(bin())
            .env_remove("TRACELINT_CONFIG")
            .arg("fix")
            .arg(p)
            .arg("-o")
            .arg(&out)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&o.stdout);
        assert_eq!(o.status.code(), Some(0), "{}: {text}", p.display());
        assert!(text.contains("nothing written"), "{}: {text}", p.display());
        assert!(!out.exists());
    }
}

#[test]
fn contract_and_exit_codes() {
    let tmp = tempfile::tempdir().unwrap();
    let data = std::fs::read(corpus("tracecmd/v6.dat")).unwrap();
    let cut = tmp.path().join("cut.dat");
    std::fs::write(&cut, &data[..data.len() - 100]).unwrap();
    let run = |args: &[&std::ffi::OsStr]| {
        Command::new(bin())
            .env_remove("TRACELINT_CONFIG")
            .arg("fix")
            .args(args)
            .output()
            .unwrap()
    };
    // OUT exists: usage error, OUT untouched.
    let exists = tmp.path().join("exists.dat");
    std::fs::write(&exists, b"keep me").unwrap();
    let o = run(&[cut.as_os_str(), "-o".as_ref(), exists.as_os_str()]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(std::fs::read(&exists).unwrap(), b"keep me");
    // OUT is IN: usage error, IN untouched.
    let o = run(&[cut.as_os_str(), "-o".as_ref(), cut.as_os_str()]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(std::fs::read(&cut).unwrap(), &data[..data.len() - 100]);
    // No OUT: usage error.
    assert_eq!(run(&[cut.as_os_str()]).status.code(), Some(2));
    // OUT inside an input directory.
    let dir = tmp.path().join("rec");
    copy_dir(&corpus("uftrace/plain"), &dir);
    let inside = dir.join("out");
    let o = run(&[dir.as_os_str(), "-o".as_ref(), inside.as_os_str()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(!inside.exists());
    // A missing input: I/O error.
    let missing = tmp.path().join("missing.dat");
    let out = tmp.path().join("m.out");
    assert_eq!(
        run(&[missing.as_os_str(), "-o".as_ref(), out.as_os_str()])
            .status
            .code(),
        Some(3)
    );
    // Dry run: the plan, the exit code the repair would have, nothing written.
    let out = tmp.path().join("dry.dat");
    let o = run(&[
        cut.as_os_str(),
        "-o".as_ref(),
        out.as_os_str(),
        "--dry-run".as_ref(),
    ]);
    assert_eq!(o.status.code(), Some(5));
    assert!(String::from_utf8_lossy(&o.stdout).contains("TD033"));
    assert!(!out.exists());
    let o = run(&[cut.as_os_str(), "--dry-run".as_ref()]);
    assert_eq!(o.status.code(), Some(5));
    // No temporary is left behind by any of these.
    let left: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("tracelint-fix"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
    // JSON on stdout: every edit has its rule, offset, old and new bytes.
    let out = tmp.path().join("json.dat");
    let o = run(&[
        cut.as_os_str(),
        "-o".as_ref(),
        out.as_os_str(),
        "--output-format".as_ref(),
        "json".as_ref(),
    ]);
    assert_eq!(o.status.code(), Some(5));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let edits = v["fix"]["plan"]["files"][0]["edits"].as_array().unwrap();
    assert!(!edits.is_empty());
    for e in edits {
        assert_eq!(e["rule"], "TD033");
        assert_eq!(e["old"].as_str().unwrap().len(), 16);
        assert_eq!(e["new"].as_str().unwrap().len(), 16);
        let off = e["offset"].as_u64().unwrap() as usize;
        let old = &data[off..off + 8];
        let hex: String = old.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(e["old"], hex.as_str());
    }
    // The exit codes are documented in the command's help.
    let o = run(&["--help".as_ref()]);
    let help = String::from_utf8_lossy(&o.stdout);
    let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
    for c in [
        "0 nothing to do",
        "1 cannot repair",
        "2 usage",
        "3 I/O",
        "4 repaired without loss",
        "5 repaired with loss",
    ] {
        assert!(help.contains(c), "{c} missing from --help");
    }
}

#[test]
fn compressed_input_is_unpacked_and_repaired() {
    let tmp = tempfile::tempdir().unwrap();
    let data = std::fs::read(corpus("tracecmd/v6.dat")).unwrap();
    let cut = &data[..data.len() - 100];
    let gz = tmp.path().join("cut.dat.gz");
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut e, cut).unwrap();
    std::fs::write(&gz, e.finish().unwrap()).unwrap();
    let out = tmp.path().join("fixed.dat");
    let (code, ledger) = fix(&gz, &out, &[]);
    assert_eq!(code, 5, "{ledger}");
    assert!(errors(&out).is_empty());
    // The same bytes as the repair of the plain cut file.
    let plain = tmp.path().join("cut.dat");
    std::fs::write(&plain, cut).unwrap();
    let out2 = tmp.path().join("fixed2.dat");
    assert_eq!(fix(&plain, &out2, &[]).0, 5);
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&out2).unwrap());
}

#[test]
fn watch_salvages_rejected_inputs() {
    let tmp = tempfile::tempdir().unwrap();
    let spool = tmp.path().join("spool");
    std::fs::create_dir_all(spool.join("new")).unwrap();
    let data = std::fs::read(corpus("tracecmd/v6.dat")).unwrap();
    let cut = &data[..data.len() - 100];
    std::fs::write(spool.join("new/cut.dat"), cut).unwrap();
    // Rejected and not repairable: no salvaged copy.
    std::fs::write(spool.join("new/head.dat"), &data[..200]).unwrap();
    let o = Command::new(bin())
        .env_remove("TRACELINT_CONFIG")
        .arg("watch")
        .arg(&spool)
        .args(["--once", "--salvage"])
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    // The input stays in rejected/, byte for byte.
    assert_eq!(std::fs::read(spool.join("rejected/cut.dat")).unwrap(), cut);
    let out = spool.join("salvaged/cut.dat");
    assert!(errors(&out).is_empty());
    let ledger: serde_json::Value =
        serde_json::from_slice(&std::fs::read(spool.join("salvaged/cut.dat.fix.json")).unwrap())
            .unwrap();
    assert_eq!(ledger["fix"]["outcome"], "repaired-with-loss");
    assert!(spool.join("rejected/head.dat").exists());
    assert!(!spool.join("salvaged/head.dat").exists());
}

#[test]
fn trace_dat_v7_writer_stopped_during_the_copy() {
    // A writer stopped while copying CPU data leaves the BUFFER section's size 0 (patched
    // only after the copy), the options chain unpatched, and the chunk count of the CPU it
    // was copying 0 (patched after its last chunk). The whole chunks are kept; the data of
    // a stream whose count was never written may have gone on, so that is always a loss.
    let have = tool("trace-cmd", "--version");
    let tmp = tempfile::tempdir().unwrap();
    let path = corpus("tracecmd/v7-zstd.dat");
    let mut data = std::fs::read(&path).unwrap();
    let original = if have {
        report_by_cpu(&path)
    } else {
        BTreeMap::new()
    };
    let opts = tracelint::CheckOptions::default();
    let mut sink = tracelint::Sink::new(1000);
    let m = tracelint::formats::tracecmd::decode(&data, &opts, &mut sink).unwrap();
    let buf = m.sections.iter().rfind(|s| s.id == 3).unwrap();
    let (at, end) = (buf.offset as usize, buf.body.end as usize);
    data[at + 8..at + 16].copy_from_slice(&0u64.to_le_bytes());
    for o in m
        .options
        .iter()
        .filter(|o| o.id == 0 && (o.span.end as usize) <= at)
    {
        let p = o.span.start as usize + 6;
        data[p..p + 8].copy_from_slice(&0u64.to_le_bytes());
    }
    // Stopped after both CPUs' data, before the size: nothing is lost.
    let (code, ledger, out) = cut_and_fix(tmp.path(), "stopped", &data, end, &[]);
    assert_eq!(code, 4, "{ledger}");
    if have {
        assert_eq!(report_by_cpu(&out), original);
    }
    // Stopped inside CPU 1's only chunk: CPU 0 is whole, CPU 1 lost.
    let (code, ledger, out) = cut_and_fix(tmp.path(), "stopped", &data, end - 100, &[]);
    assert_eq!(code, 5, "{ledger}");
    if have {
        let got = report_by_cpu(&out);
        assert_eq!(got.get("000"), original.get("000"));
        assert!(!got.contains_key("001"));
    }
    // Stopped after CPU 1's chunk but before its count was patched: it is kept, and the
    // ledger says the rest of CPU 1 is unknown.
    let cpu1 = (end - 307) & !4095;
    data[cpu1..cpu1 + 4].fill(0);
    let (code, ledger, out) = cut_and_fix(tmp.path(), "unpatched", &data, end, &[]);
    assert_eq!(code, 5, "{ledger}");
    let losses = ledger["plan"]["losses"].as_array().unwrap();
    assert!(
        losses.iter().any(|l| l["cpu"] == 1 && l["count"] == 0),
        "{ledger}"
    );
    if have {
        assert_eq!(report_by_cpu(&out), original);
    }
}

/// `perf script -F tid,time` lines of `p` (the samples perf 6.1 shows), and its exit code.
fn perf_samples(p: &Path) -> (Vec<String>, Option<i32>) {
    let o = Command::new("perf")
        .args(["script", "-F", "tid,time", "-i"])
        .arg(p)
        .output()
        .unwrap();
    let lines = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| l.trim().to_string())
        .filter(|l| !l.is_empty())
        .collect();
    (lines, o.status.code())
}

/// (offset, type, size) of the records of a little-endian perf.data from its data offset to
/// `end`, whole ones only.
fn perf_records(b: &[u8], end: usize) -> Vec<(usize, u32, usize)> {
    let mut o = u64::from_le_bytes(b[40..48].try_into().unwrap()) as usize;
    let mut out = Vec::new();
    while o + 8 <= end {
        let t = u32::from_le_bytes(b[o..o + 4].try_into().unwrap());
        let s = u16::from_le_bytes(b[o + 6..o + 8].try_into().unwrap()) as usize;
        if s < 8 || o + s > end {
            break;
        }
        out.push((o, t, s));
        o += s;
    }
    out
}

#[test]
fn perf_killed_recordings_get_their_samples_back() {
    let have = tool("perf", "--version");
    let tmp = tempfile::tempdir().unwrap();
    // Real recordings SIGKILLed by scripts/corpus/perf.sh: data.size 0, no feature table;
    // perf 6.1 shows none of their samples.
    for (name, samples) in [("killed.data", 192usize), ("killed-zstd.data", 192)] {
        let input = corpus(&format!("perf/defects/{name}"));
        let out = tmp.path().join(name);
        let (code, ledger) = fix(&input, &out, &[]);
        assert_eq!(code, 4, "{name}: {ledger}");
        assert!(errors(&out).is_empty(), "{name}: {:?}", errors(&out));
        let plan = &ledger["plan"];
        assert!(plan["mends"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m == "PF006"));
        let zstd = name.contains("zstd");
        // -z: COMPRESSED is the one feature written back, its mmap_len and level invented.
        assert_eq!(
            plan["invented"].as_array().unwrap().len(),
            if zstd { 2 } else { 0 },
            "{name}: {plan}"
        );
        let out_bytes = std::fs::read(&out).unwrap();
        let features = u64::from_le_bytes(out_bytes[72..80].try_into().unwrap());
        assert_eq!(features, if zstd { 1 << 27 } else { 0 }, "{name}");
        if have {
            let (before, _) = perf_samples(&input);
            assert!(
                before.is_empty(),
                "{name}: perf shows {} before",
                before.len()
            );
            let (after, rc) = perf_samples(&out);
            assert_eq!(rc, Some(0), "{name}");
            assert_eq!(after.len(), samples, "{name}");
        }
        let again = tmp.path().join(format!("{name}.again"));
        assert_eq!(fix(&out, &again, &[]).0, 0);
    }
}

#[test]
fn perf_data_size_zeroed_with_its_features_is_restored_exactly() {
    // A finished recording whose data.size was zeroed: the feature sections follow the
    // records whole, so writing data.size back restores the recording byte for byte.
    let tmp = tempfile::tempdir().unwrap();
    for name in [
        "cpu-clock.data",
        "zstd.data",
        "callchain-fp.data",
        "group.data",
    ] {
        let good = std::fs::read(corpus(&format!("perf/{name}"))).unwrap();
        let mut bad = good.clone();
        bad[48..56].fill(0);
        let input = tmp.path().join(format!("{name}.zero"));
        std::fs::write(&input, &bad).unwrap();
        let out = tmp.path().join(name);
        let (code, ledger) = fix(&input, &out, &[]);
        assert_eq!(code, 4, "{name}: {ledger}");
        assert_eq!(std::fs::read(&out).unwrap(), good, "{name}");
    }
}

#[test]
fn perf_cut_inside_the_data_keeps_every_whole_sample() {
    let have = tool("perf", "--version");
    let tmp = tempfile::tempdir().unwrap();
    let mut repaired = 0;
    for name in ["cpu-clock-999.data", "callchain-fp.data", "zstd.data"] {
        let data = std::fs::read(corpus(&format!("perf/{name}"))).unwrap();
        let start = u64::from_le_bytes(data[40..48].try_into().unwrap()) as usize;
        let end = start + u64::from_le_bytes(data[48..56].try_into().unwrap()) as usize;
        let recs = perf_records(&data, end);
        let orig: std::collections::BTreeSet<String> = if have {
            perf_samples(&corpus(&format!("perf/{name}")))
                .0
                .into_iter()
                .collect()
        } else {
            Default::default()
        };
        let mut cuts: Vec<usize> = Vec::new();
        let step = (recs.len() / 6).max(1);
        for &(o, _, s) in recs.iter().step_by(step) {
            cuts.extend([o, o + 3, o + s / 2, o + s - 1]);
        }
        cuts.push(end - 1);
        cuts.retain(|&c| c > start && c < end);
        cuts.sort_unstable();
        cuts.dedup();
        for at in cuts {
            let (code, ledger, out) = cut_and_fix(tmp.path(), name, &data, at, &[]);
            let whole = perf_records(&data, at);
            if whole.is_empty() {
                // Nothing to recover.
                assert_eq!(code, 1, "{name} cut at {at}: {ledger}");
                continue;
            }
            // A cut file loses at least its feature sections: always "with loss".
            assert_eq!(code, 5, "{name} cut at {at}: {ledger}");
            repaired += 1;
            let kept = whole.last().map_or(start, |&(o, _, s)| o + s);
            let out_bytes = std::fs::read(&out).unwrap();
            assert_eq!(
                u64::from_le_bytes(out_bytes[48..56].try_into().unwrap()) as usize,
                kept - start,
                "{name} cut at {at}"
            );
            assert_eq!(
                out_bytes[start..kept],
                data[start..kept],
                "{name} cut at {at}"
            );
            if have && !name.starts_with("zstd") {
                // Every whole SAMPLE record before the cut is shown, and nothing else.
                let n = whole.iter().filter(|r| r.1 == 9).count();
                let (got, rc) = perf_samples(&out);
                assert_eq!(rc, Some(0), "{name} cut at {at}");
                assert_eq!(got.len(), n, "{name} cut at {at}");
                assert!(got.iter().all(|l| orig.contains(l)), "{name} cut at {at}");
            } else if have {
                let (got, rc) = perf_samples(&out);
                assert_eq!(rc, Some(0), "{name} cut at {at}");
                assert!(got.iter().all(|l| orig.contains(l)), "{name} cut at {at}");
            }
        }
    }
    assert!(repaired > 30, "{repaired} repairs");
}

#[test]
fn perf_killed_tracepoint_recording_needs_a_donor() {
    // Without TRACING_DATA (written only at exit) perf rejects tracepoint attrs: nothing in
    // the file can supply the event formats.
    let tmp = tempfile::tempdir().unwrap();
    let good = std::fs::read(corpus("perf/tracepoint.data")).unwrap();
    let start = u64::from_le_bytes(good[40..48].try_into().unwrap()) as usize;
    let end = start + u64::from_le_bytes(good[48..56].try_into().unwrap()) as usize;
    let mut bad = good[..end].to_vec();
    bad[48..56].fill(0);
    let input = tmp.path().join("tp-killed.data");
    std::fs::write(&input, &bad).unwrap();
    let out = tmp.path().join("tp.data");
    let (code, ledger) = fix(&input, &out, &[]);
    assert_eq!(code, 1, "{ledger}");
    assert!(!out.exists());
    assert!(
        ledger["refusal"]["reason"]
            .as_str()
            .unwrap()
            .contains("TRACING_DATA"),
        "{ledger}"
    );
    assert_eq!(ledger["refusal"]["option"], "--metadata-from", "{ledger}");
    // A donor without the formats, or without this recording's events, is refused too.
    let donor = corpus("perf/cpu-clock.data");
    let (code, ledger) = fix(&input, &out, &["--metadata-from", donor.to_str().unwrap()]);
    assert_eq!(code, 1, "{ledger}");
    assert!(!out.exists());
    // A healthy recording of the same events supplies them: every sample comes back, and the
    // ledger marks the copied feature as supplied.
    let donor = corpus("perf/tracepoint.data");
    let (code, ledger) = fix(&input, &out, &["--metadata-from", donor.to_str().unwrap()]);
    assert_eq!(code, 4, "{ledger}");
    assert!(errors(&out).is_empty(), "{:?}", errors(&out));
    let invented = ledger["plan"]["invented"].as_array().unwrap();
    assert!(
        invented
            .iter()
            .any(|i| i["field"] == "TRACING_DATA feature"),
        "{ledger}"
    );
    if tool("perf", "--version") {
        let (orig, _) = perf_samples(&donor);
        let (got, rc) = perf_samples(&out);
        assert_eq!(rc, Some(0));
        assert_eq!(got, orig);
    }
}

#[test]
fn perf_threads_directory_with_a_cut_stream() {
    let have = tool("perf", "--version");
    let tmp = tempfile::tempdir().unwrap();
    let good = corpus("perf/threads.data");
    let orig: std::collections::BTreeSet<String> = if have {
        perf_samples(&good).0.into_iter().collect()
    } else {
        Default::default()
    };
    let input = corpus("perf/defects/threads-cut.data");
    let out = tmp.path().join("threads.out");
    let before = digest(&input.join("data.1"));
    let (code, ledger) = fix(&input, &out, &[]);
    assert_eq!(code, 5, "{ledger}");
    assert_eq!(digest(&input.join("data.1")), before);
    assert!(errors(&out).is_empty(), "{:?}", errors(&out));
    let losses = ledger["plan"]["losses"].as_array().unwrap();
    assert_eq!(losses.len(), 1, "{ledger}");
    assert_eq!(losses[0]["file"], "data.1");
    // The other files are copied as they are.
    for f in ["data", "data.0"] {
        assert_eq!(
            std::fs::read(out.join(f)).unwrap(),
            std::fs::read(input.join(f)).unwrap(),
            "{f}"
        );
    }
    if have {
        let (cut, _) = perf_samples(&input);
        let (got, rc) = perf_samples(&out);
        assert_eq!(rc, Some(0));
        assert!(got.len() > cut.len(), "{} vs {}", got.len(), cut.len());
        assert!(got.iter().all(|l| orig.contains(l)));
    }
}

/// The `adds_features` bits of a little-endian perf.data.
fn perf_feature_bits(b: &[u8]) -> Vec<u64> {
    (0..256u64)
        .filter(|bit| {
            let w = 72 + (bit / 64) as usize * 8;
            u64::from_le_bytes(b[w..w + 8].try_into().unwrap()) & (1 << (bit % 64)) != 0
        })
        .collect()
}

#[test]
fn perf_cut_inside_the_features_keeps_every_sample_and_the_whole_sections() {
    // A copy cut after its records, inside the feature table or sections: perf 6.1 stops at
    // the first feature past the end (a `perf stat record` file then loses its STAT flag, a
    // -z file its COMPRESSED feature and so every sample). The repair keeps the sections on
    // disk whole, the STAT flag, and writes COMPRESSED anew when its section is cut.
    let have = tool("perf", "--version");
    let tmp = tempfile::tempdir().unwrap();
    for name in ["cpu-clock.data", "zstd.data", "stat.data"] {
        let data = std::fs::read(corpus(&format!("perf/{name}"))).unwrap();
        let start = u64::from_le_bytes(data[40..48].try_into().unwrap()) as usize;
        let end = start + u64::from_le_bytes(data[48..56].try_into().unwrap()) as usize;
        let bits = perf_feature_bits(&data);
        let (orig, _) = if have {
            perf_samples(&corpus(&format!("perf/{name}")))
        } else {
            Default::default()
        };
        let mut cuts: Vec<usize> = (1..8).map(|k| end + (data.len() - end) * k / 8).collect();
        cuts.extend([end + 1, end + 7, end + 16 * bits.len() + 1, data.len() - 1]);
        for at in cuts {
            let (code, ledger, out) = cut_and_fix(tmp.path(), name, &data, at, &[]);
            assert_eq!(code, 5, "{name} cut at {at}: {ledger}");
            let out_bytes = std::fs::read(&out).unwrap();
            // The records are kept as they are, the features kept are the file's.
            assert_eq!(
                out_bytes[start..end],
                data[start..end],
                "{name} cut at {at}"
            );
            let kept = perf_feature_bits(&out_bytes);
            assert!(kept.iter().all(|b| bits.contains(b)), "{name} cut at {at}");
            if name == "stat.data" {
                assert!(kept.contains(&19), "{name} cut at {at}: STAT dropped");
            }
            if name == "zstd.data" {
                assert!(kept.contains(&27), "{name} cut at {at}: COMPRESSED dropped");
            }
            if have {
                let (got, rc) = perf_samples(&out);
                assert_eq!(rc, Some(0), "{name} cut at {at}");
                assert_eq!(got, orig, "{name} cut at {at}");
            }
        }
    }
}

#[test]
fn perf_tracepoint_recording_cut_inside_its_features_is_refused() {
    // lock.data records tracepoints; a cut inside its feature table takes TRACING_DATA away.
    let tmp = tempfile::tempdir().unwrap();
    let data = std::fs::read(corpus("perf/lock.data")).unwrap();
    let start = u64::from_le_bytes(data[40..48].try_into().unwrap()) as usize;
    let end = start + u64::from_le_bytes(data[48..56].try_into().unwrap()) as usize;
    for at in [end + 5, end + 100] {
        let (code, ledger, out) = cut_and_fix(tmp.path(), "lock.data", &data, at, &[]);
        assert_eq!(code, 1, "cut at {at}: {ledger}");
        assert!(!out.exists());
        assert!(
            ledger["refusal"]["reason"]
                .as_str()
                .unwrap()
                .contains("TRACING_DATA"),
            "{ledger}"
        );
    }
}

#[test]
fn perf_threads_directory_with_a_cut_data_keeps_its_streams() {
    // `data` of a --threads directory cut inside its records: without DIR_FORMAT perf reads
    // `data` alone and shows none of the samples of the data.N streams.
    let have = tool("perf", "--version");
    let tmp = tempfile::tempdir().unwrap();
    let good = corpus("perf/threads.data");
    let (orig, _) = if have {
        perf_samples(&good)
    } else {
        Default::default()
    };
    let data = std::fs::read(good.join("data")).unwrap();
    let start = u64::from_le_bytes(data[40..48].try_into().unwrap()) as usize;
    for at in [start + 81, start + 215] {
        let input = tmp.path().join(format!("in{at}"));
        std::fs::create_dir(&input).unwrap();
        for f in ["data", "data.0", "data.1"] {
            std::fs::copy(good.join(f), input.join(f)).unwrap();
        }
        std::fs::write(input.join("data"), &data[..at]).unwrap();
        let out = tmp.path().join(format!("out{at}"));
        let (code, ledger) = fix(&input, &out, &[]);
        assert_eq!(code, 5, "cut at {at}: {ledger}");
        assert!(errors(&out).is_empty(), "{:?}", errors(&out));
        let bits = perf_feature_bits(&std::fs::read(out.join("data")).unwrap());
        assert_eq!(bits, vec![24], "cut at {at}: DIR_FORMAT only");
        if have {
            let (got, rc) = perf_samples(&out);
            assert_eq!(rc, Some(0));
            assert_eq!(got, orig, "cut at {at}");
        }
        assert_eq!(fix(&out, &tmp.path().join(format!("again{at}")), &[]).0, 0);
    }
    // A stream cut less than a record header after its last whole record: those bytes are
    // no record, as in a file.
    let input = tmp.path().join("short");
    std::fs::create_dir(&input).unwrap();
    for f in ["data", "data.0", "data.1"] {
        std::fs::copy(good.join(f), input.join(f)).unwrap();
    }
    let s = std::fs::read(good.join("data.1")).unwrap();
    let first = u16::from_le_bytes(s[6..8].try_into().unwrap()) as usize;
    std::fs::write(input.join("data.1"), &s[..first + 1]).unwrap();
    let (code, ledger) = fix(&input, &tmp.path().join("short.out"), &[]);
    assert_eq!(code, 5, "{ledger}");
    let losses = ledger["plan"]["losses"].as_array().unwrap();
    assert_eq!(losses[0]["count"], 0, "{ledger}");
}

/// The start of the last BUFFER section's body (after its 16-byte header) of a v7 file.
fn buffer_start(data: &[u8]) -> usize {
    let opts = tracelint::CheckOptions::default();
    let mut sink = tracelint::Sink::new(1000);
    let m = tracelint::formats::tracecmd::decode(data, &opts, &mut sink).unwrap();
    let s = m.sections.iter().rfind(|s| s.id == 3).unwrap();
    s.offset as usize + 16
}

/// Where the `next` field of the last DONE option before `offset` is.
fn last_done_next(data: &[u8], offset: usize) -> usize {
    let opts = tracelint::CheckOptions::default();
    let mut sink = tracelint::Sink::new(1000);
    let m = tracelint::formats::tracecmd::decode(data, &opts, &mut sink).unwrap();
    let o = m
        .options
        .iter()
        .rfind(|o| o.id == 0 && (o.span.end as usize) <= offset)
        .unwrap();
    o.span.start as usize + 6
}

#[test]
fn trace_dat_v7_cut_inside_compressed_data() {
    let have = tool("trace-cmd", "--version");
    let tmp = tempfile::tempdir().unwrap();
    let mut repaired = 0;
    for name in [
        "v7-zstd.dat",
        "bufsize-big-v7-zstd.dat",
        "lost-v7-zstd.dat",
        "subbuf-8k-v7-zstd.dat",
        "kernel-stack-v7-zstd.dat",
    ] {
        let path = corpus(&format!("tracecmd/{name}"));
        let data = std::fs::read(&path).unwrap();
        let (start, end) = (buffer_start(&data), buffer_end(&data));
        let original = if have {
            report_by_cpu(&path)
        } else {
            BTreeMap::new()
        };
        // A copy cut inside the data, and a writer stopped while copying it (the section's
        // size never written).
        for stopped in [false, true] {
            let mut src = data.clone();
            if stopped {
                // As the writer leaves it: the size 0, and the options section before the
                // data not yet pointed at the one after it.
                src[start - 8..start].fill(0);
                let done = last_done_next(&data, start - 16);
                src[done..done + 8].fill(0);
            }
            let step = ((end - start) / 23).max(1);
            for at in (start + 1..end).step_by(step) {
                let label = format!("{name}{}", if stopped { ".stopped" } else { "" });
                let (code, ledger, out) = cut_and_fix(tmp.path(), &label, &src, at, &[]);
                assert!(
                    code == 5 || code == 1,
                    "{label} cut at {at}: exit {code}: {ledger}"
                );
                if code == 1 {
                    let why = ledger["refusal"]["reason"].as_str().unwrap_or_default();
                    assert!(
                        why.contains("nothing to recover") || why.contains("which CPUs"),
                        "{label} cut at {at}: {why}"
                    );
                    continue;
                }
                repaired += 1;
                if have {
                    // Per CPU, a prefix of what trace-cmd reads of the original.
                    let got = report_by_cpu(&out);
                    assert!(events(&got) > 0, "{label} cut at {at}");
                    for (cpu, lines) in &got {
                        let orig = &original[cpu];
                        assert!(
                            orig.starts_with(lines),
                            "{label} cut at {at}: CPU {cpu} is no prefix"
                        );
                    }
                }
            }
        }
    }
    assert!(repaired >= 30, "{repaired} repairs");
}

#[test]
fn trace_dat_v6_writer_stopped_during_the_copy() {
    // The v6 writer writes the flyrecord table as zeros and patches each CPU's pair right
    // after copying its pages: stopped while copying CPU z, the pairs from z on are (0, 0).
    let have = tool("trace-cmd", "--version");
    let tmp = tempfile::tempdir().unwrap();
    let mut repaired = 0;
    for name in [
        "v6.dat",
        "marker-v6.dat",
        "lost-v6.dat",
        "kernel-stack-v6.dat",
    ] {
        let path = corpus(&format!("tracecmd/{name}"));
        let data = std::fs::read(&path).unwrap();
        let tables = cpu_tables(&data);
        let original = if have {
            report_by_cpu(&path)
        } else {
            BTreeMap::new()
        };
        let fly = data.windows(10).position(|w| w == b"flyrecord\0").unwrap() + 10;
        for (z, &(_, _, off, size)) in tables.iter().enumerate() {
            if size == 0 {
                continue;
            }
            let mut src = data.clone();
            src[fly + 16 * z..fly + 16 * tables.len()].fill(0);
            let mut cuts: Vec<usize> = [off + 4096, off + size, off + 4096 + 100, off + 100]
                .iter()
                .map(|&a| a.min(off + size) as usize)
                .collect();
            cuts.sort_unstable();
            cuts.dedup();
            for at in cuts {
                let (code, ledger, out) =
                    cut_and_fix(tmp.path(), &format!("{name}.z{z}"), &src, at, &[]);
                let whole_pages = (at as u64 - off) / 4096;
                if whole_pages == 0 {
                    assert_ne!(code, 5, "{name} z{z} cut at {at}: {ledger}");
                    continue;
                }
                assert_eq!(code, 5, "{name} z{z} cut at {at}: {ledger}");
                repaired += 1;
                if have {
                    let got = report_by_cpu(&out);
                    for (cpu, lines) in &got {
                        assert!(
                            original[cpu].starts_with(lines),
                            "{name} z{z} cut at {at}: CPU {cpu} is no prefix"
                        );
                    }
                    let cpu = format!("{:03}", tables[z].1);
                    assert!(
                        got.contains_key(&cpu),
                        "{name} z{z} cut at {at}: no CPU {cpu}"
                    );
                }
            }
        }
    }
    assert!(repaired >= 8, "{repaired} repairs");
}

#[test]
fn uftrace_arguments_need_the_specs_of_a_donor() {
    // Records with arguments or return values are framed by the argument specs, which only
    // `info` held: without it the repair refuses and names --metadata-from; a healthy
    // recording of the same program with the same options supplies them.
    let have = tool("uftrace", "--version");
    let tmp = tempfile::tempdir().unwrap();
    for name in ["args", "args-A-R-c"] {
        let original = corpus(&format!("uftrace/{name}"));
        let input = tmp.path().join(name);
        copy_dir(&original, &input);
        std::fs::remove_file(input.join("info")).unwrap();
        let out = tmp.path().join(format!("{name}.out"));
        let (code, ledger) = fix(&input, &out, &[]);
        assert_eq!(code, 1, "{name}: {ledger}");
        assert_eq!(
            ledger["refusal"]["option"], "--metadata-from",
            "{name}: {ledger}"
        );
        // A donor without argument specs is refused.
        let plain = corpus("uftrace/plain");
        let (code, _) = fix(&input, &out, &["--metadata-from", plain.to_str().unwrap()]);
        assert_eq!(code, 1, "{name}");
        let (code, ledger) = fix(
            &input,
            &out,
            &["--metadata-from", original.to_str().unwrap()],
        );
        assert_eq!(code, 4, "{name}: {ledger}");
        let invented = ledger["plan"]["invented"].as_array().unwrap();
        assert!(
            invented.iter().any(|i| i["field"] == "argument specs"),
            "{name}: {ledger}"
        );
        if have {
            assert_eq!(replay(&out), replay(&original), "{name}");
        }
    }
}

/// A `uftrace record` SIGKILLed while the program runs: no `info`, no `.sym` files (both are
/// written at the end), and a perf file possibly cut inside a record.
#[test]
fn uftrace_killed_recorder_with_symbols_from_another_recording() {
    if !tool("uftrace", "--version") || !tool("gcc", "--version") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("p.c");
    std::fs::write(
        &src,
        "#include <unistd.h>\nint f(int x){return x+1;}\nint main(){int s=0;for(long i=0;i<100000000;i++){s=f(s);if(i%1000==0)usleep(200);}return s&1;}\n",
    )
    .unwrap();
    let exe = tmp.path().join("p");
    assert!(Command::new("gcc")
        .args(["-pg", "-O0", "-o"])
        .arg(&exe)
        .arg(&src)
        .status()
        .unwrap()
        .success());
    let record = |dir: &str, signal: &str| {
        let mut child = Command::new("uftrace")
            .args(["record", "-d", dir])
            .arg(&exe)
            .current_dir(tmp.path())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(1500));
        let _ = Command::new("kill")
            .args([signal, &child.id().to_string()])
            .status();
        let _ = child.wait();
        let _ = Command::new("pkill").args(["-9", "-f"]).arg(&exe).status();
    };
    // A recording of the same binary that ended normally (SIGINT: uftrace finishes it).
    record("good.data", "-INT");
    record("killed.data", "-9");
    let killed = tmp.path().join("killed.data");
    let good = tmp.path().join("good.data");
    assert!(!killed.join("info").exists());
    assert!(
        good.join("p.sym").exists(),
        "the SIGINTed recording has its symbols"
    );
    let out = tmp.path().join("out.data");
    let (code, ledger) = fix(&killed, &out, &[]);
    assert_eq!(code, 1, "{ledger}");
    assert_eq!(ledger["refusal"]["option"], "--with-syms", "{ledger}");
    let (code, ledger) = fix(&killed, &out, &["--with-syms", good.to_str().unwrap()]);
    assert!(code == 4 || code == 5, "{ledger}");
    assert!(out.join("p.sym").exists());
    let text = replay(&out);
    assert!(
        text.lines().filter(|l| l.contains("f();")).count() > 100,
        "replay of OUT: {}",
        text.lines().take(5).collect::<Vec<_>>().join("\n")
    );
}

/// `trace-cmd report` lines, in order, without their leading blanks.
fn report_lines(p: &Path) -> Vec<String> {
    let o = Command::new("trace-cmd")
        .args(["report", "-i"])
        .arg(p)
        .output()
        .unwrap();
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter(|l| l.contains(": ") && l.contains(" ["))
        // The width of the task column follows the longest buffer name.
        .map(|l| l.trim_start().to_string())
        .collect()
}

/// A v7 file with an instance (`-B tracelint-foo`), cut around the instance's buffer: the
/// instance is named again from its CPUSTAT marker when its data is on disk, and the ledger
/// says it is lost when it is not.
#[test]
fn trace_dat_v7_instance_cut_is_named_or_ledgered() {
    let have = tool("trace-cmd", "--version");
    let tmp = tempfile::tempdir().unwrap();
    let name = "instances-v7-zstd.dat";
    let path = corpus(&format!("tracecmd/{name}"));
    let data = std::fs::read(&path).unwrap();
    let opts = tracelint::CheckOptions::default();
    let mut sink = tracelint::Sink::new(1000);
    let m = tracelint::formats::tracecmd::decode(&data, &opts, &mut sink).unwrap();
    let bufs: Vec<_> = m.sections.iter().filter(|s| s.id == 3).collect();
    assert_eq!(bufs.len(), 2, "{name}: a top buffer and an instance");
    let (top, inst) = (bufs[0], bufs[1]);
    let top_end = usize::try_from(top.body.end).unwrap();
    let inst_start = usize::try_from(inst.offset).unwrap();
    let inst_end = usize::try_from(inst.body.end).unwrap();
    let original = if have {
        report_lines(&path)
    } else {
        Vec::new()
    };
    let of_instance = |l: &String| l.starts_with("tracelint-foo:");
    if have {
        assert!(original.iter().any(of_instance) && !original.iter().all(of_instance));
    }
    let lost_instance = |ledger: &serde_json::Value| {
        ledger["plan"]["losses"]
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l["buffer"] == "tracelint-foo" && l["cpu"].is_null())
    };
    // Cut before any of the instance's data: the top buffer is kept whole, the instance is a
    // loss the ledger names.
    for at in [top_end, top_end + 50, inst_start, inst_start + 100] {
        let (code, ledger, out) = cut_and_fix(tmp.path(), name, &data, at, &[]);
        assert_eq!(code, 5, "{name} cut at {at}: {ledger}");
        assert!(lost_instance(&ledger), "{name} cut at {at}: {ledger}");
        if have {
            let top_lines: Vec<String> = original
                .iter()
                .filter(|l| !of_instance(l))
                .cloned()
                .collect();
            assert_eq!(report_lines(&out), top_lines, "{name} cut at {at}");
        }
    }
    // Cut after the instance's data: its BUFFER option is rebuilt under its own name and
    // every event reads as recorded.
    for at in [inst_end, inst_end + 40] {
        let (code, ledger, out) = cut_and_fix(tmp.path(), name, &data, at, &[]);
        assert_eq!(code, 4, "{name} cut at {at}: {ledger}");
        if have {
            assert_eq!(report_lines(&out), original, "{name} cut at {at}");
        }
    }
    // Cut inside the instance's last CPU stream: its first CPU reads whole, the cut one is
    // ledgered under the instance's name.
    let at = inst_end - 50;
    let (code, ledger, out) = cut_and_fix(tmp.path(), name, &data, at, &[]);
    assert_eq!(code, 5, "{name} cut at {at}: {ledger}");
    assert!(
        ledger["plan"]["losses"]
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l["buffer"] == "tracelint-foo" && l["cpu"] == 1),
        "{name} cut at {at}: {ledger}"
    );
    if have {
        let got = report_lines(&out);
        assert!(
            got.iter().all(|l| original.contains(l)),
            "{name} cut at {at}"
        );
        let cpu0 = |v: &[String]| {
            v.iter()
                .filter(|l| of_instance(l) && l.contains("[000]"))
                .count()
        };
        assert!(cpu0(&original) > 0);
        assert_eq!(cpu0(&got), cpu0(&original), "{name} cut at {at}");
    }
}
