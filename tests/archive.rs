//! Compressed files, archives and standard input: every corpus input gives exactly the findings
//! of the unpacked input, whatever the compression or archive kind; hostile containers get
//! findings and never harm.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use tracelint::check::{check_path, CheckOptions, Report};
use tracelint::config::Config;
use tracelint::input::LoadMode;
use tracelint::Limits;

use common::{keys, Key};

/// The findings of `r` as if they had no member (to compare with the unpacked input).
fn unmembered(r: &Report, member: &str) -> Vec<Key> {
    keys(r)
        .into_iter()
        .map(|mut k| {
            assert_eq!(
                k.2.as_deref(),
                Some(member),
                "finding not in member {member}: {k:?}"
            );
            k.2 = None;
            k
        })
        .collect()
}

fn check(p: &Path) -> Report {
    check_path(p, &CheckOptions::default(), &Config::default())
}

fn check_with(p: &Path, limits: Limits) -> Report {
    let opts = CheckOptions {
        limits,
        ..CheckOptions::default()
    };
    check_path(p, &opts, &Config::default())
}

/// Limits that send every unpacked member over 64 bytes to a temporary file.
fn spilling() -> Limits {
    Limits {
        unpack_memory_bytes: 64,
        ..Limits::default()
    }
}

fn compress(kind: &str, data: &[u8]) -> Vec<u8> {
    match kind {
        "gz" => {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            e.write_all(data).unwrap();
            e.finish().unwrap()
        }
        "zst" => zstd::bulk::compress(data, 3).unwrap(),
        "xz" => {
            let mut e = liblzma::write::XzEncoder::new(Vec::new(), 1);
            e.write_all(data).unwrap();
            e.finish().unwrap()
        }
        "bz2" => {
            let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
            e.write_all(data).unwrap();
            e.finish().unwrap()
        }
        "lz4" => {
            let mut e = lz4_flex::frame::FrameEncoder::new(Vec::new());
            e.write_all(data).unwrap();
            e.finish().unwrap()
        }
        _ => unreachable!(),
    }
}

const CODECS: &[&str] = &["gz", "zst", "xz", "bz2", "lz4"];

/// Every single-file corpus input (traces, defects, regressions).
fn corpus_files() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for fmt in ["tracecmd", "gdb", "ktrace"] {
        let mut stack = vec![common::corpus(fmt)];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    stack.push(p);
                } else if p.extension().is_none_or(|x| x != "md") {
                    out.push(p);
                }
            }
        }
    }
    out.sort();
    out
}

fn uftrace_dirs() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(common::corpus("uftrace"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("info").is_file())
        .collect();
    out.sort();
    out
}

#[test]
fn compressed_files_give_the_findings_of_the_plain_file() {
    let tmp = tempfile::tempdir().unwrap();
    let files = corpus_files();
    assert!(files.len() > 30, "corpus too small: {}", files.len());
    for p in &files {
        let plain = check(p);
        // Only inputs with a magic are detected in a container (a V0 ktrace needs a hint).
        if plain.format.is_none() {
            continue;
        }
        let data = std::fs::read(p).unwrap();
        let name = p.file_name().unwrap().to_str().unwrap();
        for kind in CODECS {
            let c = tmp.path().join(format!("{name}.{kind}"));
            std::fs::write(&c, compress(kind, &data)).unwrap();
            let r = check(&c);
            assert_eq!(r.format, plain.format, "{}", c.display());
            assert_eq!(unmembered(&r, name), keys(&plain), "{}", c.display());
            assert_eq!(r.counts, plain.counts, "{}", c.display());
        }
        // The same, unpacked through a temporary file instead of memory, which is then mapped
        // (the command line) or read (the spool daemon).
        let c = tmp.path().join(format!("{name}.zst"));
        for mode in [LoadMode::Mmap, LoadMode::Read] {
            let opts = CheckOptions {
                limits: spilling(),
                load_mode: mode,
                ..CheckOptions::default()
            };
            let r = check_path(&c, &opts, &Config::default());
            let what = format!("spilled, {mode:?}: {}", c.display());
            assert_eq!(unmembered(&r, name), keys(&plain), "{what}");
            assert_eq!(r.counts, plain.counts, "{what}");
        }
    }
}

fn tar_of(dir: &Path, name: &str) -> Vec<u8> {
    let mut b = tar::Builder::new(Vec::new());
    b.append_dir_all(name, dir).unwrap();
    b.into_inner().unwrap()
}

fn zip_of(dirs: &[(&Path, &str)]) -> Vec<u8> {
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (dir, name) in dirs {
        let mut names: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        names.sort();
        for n in names {
            let data = std::fs::read(dir.join(&n)).unwrap();
            let opts = zip::write::SimpleFileOptions::default();
            w.start_file(format!("{name}/{}", n.to_str().unwrap()), opts)
                .unwrap();
            w.write_all(&data).unwrap();
        }
    }
    w.finish().unwrap().into_inner()
}

/// `tar -C DIR -cf x.tar .` stores the directory itself as `./` and its files as `./NAME`:
/// the archive's own top directory, neither unsafe nor a member to check.
#[test]
fn a_tar_of_dot_is_the_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let d = common::corpus("uftrace/plain");
    let plain = check(&d);
    let a = tmp.path().join("dot.tar");
    let status = std::process::Command::new("tar")
        .arg("-C")
        .arg(&d)
        .arg("-cf")
        .arg(&a)
        .arg(".")
        .status();
    if !status.is_ok_and(|s| s.success()) {
        return common::skip_or_fail("tar is not installed");
    }
    let listed = std::process::Command::new("tar")
        .arg("-tf")
        .arg(&a)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&listed.stdout)
        .lines()
        .any(|l| l == "./"));
    let r = check(&a);
    assert_eq!(unmembered(&r, "."), keys(&plain), "{:?}", codes(&r));
    assert_eq!(r.counts, plain.counts);
}

#[test]
fn archived_uftrace_directories_give_the_findings_of_the_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let dirs = uftrace_dirs();
    assert!(dirs.len() >= 5);
    let mut with_runs = Vec::new();
    for d in &dirs {
        let plain = check(d);
        let name = d.file_name().unwrap().to_str().unwrap();
        let tar = tar_of(d, name);
        let mut variants = vec![
            (format!("{name}.tar"), tar.clone()),
            (format!("{name}.zip"), zip_of(&[(d, name)])),
        ];
        for kind in ["gz", "zst", "xz"] {
            variants.push((format!("{name}.tar.{kind}"), compress(kind, &tar)));
        }
        for (file, bytes) in variants {
            let a = tmp.path().join(&file);
            std::fs::write(&a, bytes).unwrap();
            let r = check(&a);
            assert_eq!(unmembered(&r, name), keys(&plain), "{file}");
            assert_eq!(r.counts, plain.counts, "{file}");
            let s = check_with(&a, spilling());
            assert_eq!(unmembered(&s, name), keys(&plain), "spilled {file}");
            assert_eq!(s.counts, plain.counts, "spilled {file}");
            assert_eq!(r.members.len(), 1, "{file}: {:?}", r.members);
            // A spilled task file gets the first pass, whose runs the walk takes.
            if s.map.as_ref().map_or(0, common::runs_taken) > 0 {
                with_runs.push(name.to_string());
            }
        }
    }
    for name in ["plain", "cxx_auto", "depth3"] {
        assert!(
            with_runs.iter().filter(|n| *n == name).count() == 5,
            "the walk of {name} took no run in some spilled archive: {with_runs:?}"
        );
    }
}

#[test]
fn an_artifact_zip_checks_every_trace_and_lists_the_rest() {
    let tmp = tempfile::tempdir().unwrap();
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default();
    let v6 = std::fs::read(common::corpus("tracecmd/v6.dat")).unwrap();
    let tf = std::fs::read(common::corpus("gdb/defects/truncated.tf")).unwrap();
    w.start_file("out/v6.dat.zst", opts).unwrap();
    w.write_all(&compress("zst", &v6)).unwrap();
    w.start_file("out/bad.tf", opts).unwrap();
    w.write_all(&tf).unwrap();
    w.start_file("build.log", opts).unwrap();
    w.write_all(b"all good\n").unwrap();
    let z = tmp.path().join("artifacts.zip");
    std::fs::write(&z, w.finish().unwrap().into_inner()).unwrap();
    let r = check(&z);
    let plain_tf = check(&common::corpus("gdb/defects/truncated.tf"));
    let in_tf: Vec<Key> = keys(&r)
        .into_iter()
        .filter(|k| k.2.as_deref() == Some("out/bad.tf"))
        .map(|mut k| {
            k.2 = None;
            k
        })
        .collect();
    assert_eq!(in_tf, keys(&plain_tf));
    assert!(r.counts.error > 0);
    let paths: Vec<_> = r.members.iter().map(|m| m.path.as_str()).collect();
    assert_eq!(paths, ["out/v6.dat.zst", "out/bad.tf", "build.log"]);
    assert!(r
        .findings
        .iter()
        .any(|f| f.rule.code == "TL009" && f.member.as_deref() == Some("build.log")));
}

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_tracelint"))
}

fn run_stdin(args: &[&str], input: &[u8], tmpdir: &Path) -> (i32, String) {
    let mut c = bin()
        .args(args)
        .env("TMPDIR", tmpdir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    c.stdin.take().unwrap().write_all(input).unwrap();
    let o = c.wait_with_output().unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
    )
}

/// The findings of JSON Lines output, without the path and member.
fn jsonl_findings(out: &str) -> Vec<serde_json::Value> {
    out.lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v["kind"] == "finding")
        .map(|mut v| {
            let o = v.as_object_mut().unwrap();
            o.remove("path");
            o.remove("member");
            v
        })
        .collect()
}

#[test]
fn standard_input_takes_traces_compressed_traces_and_archives() {
    let spill = tempfile::tempdir().unwrap();
    let p = common::corpus("gdb/defects/truncated.tf");
    let data = std::fs::read(&p).unwrap();
    let plain = bin()
        .args(["check", "-o", "jsonl"])
        .arg(&p)
        .output()
        .unwrap();
    let want = jsonl_findings(&String::from_utf8_lossy(&plain.stdout));
    assert!(!want.is_empty());
    for input in [data.clone(), compress("xz", &data), compress("gz", &data)] {
        for args in [
            &["-", "-o", "jsonl"][..],
            &["check", "-o", "jsonl", "-"][..],
        ] {
            let (code, out) = run_stdin(args, &input, spill.path());
            assert_eq!(code, 1, "{out}");
            assert_eq!(jsonl_findings(&out), want);
            assert!(out.contains("\"path\":\"-\""), "{out}");
        }
    }
    // A uftrace directory piped as a tar.zst.
    let d = common::corpus("uftrace/args");
    let (code, out) = run_stdin(
        &["-", "-o", "jsonl"],
        &compress("zst", &tar_of(&d, "args")),
        spill.path(),
    );
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("\"format\":\"uftrace\"") || out.contains("\"members\""),
        "{out}"
    );
    // Nothing is left in the temporary directory.
    assert_eq!(std::fs::read_dir(spill.path()).unwrap().count(), 0);
}

#[test]
fn every_output_names_the_member() {
    let tmp = tempfile::tempdir().unwrap();
    let d = common::corpus("gdb/defects");
    let a = tmp.path().join("defects.tar.gz");
    std::fs::write(&a, compress("gz", &tar_of(&d, "defects"))).unwrap();
    let human = bin().arg(&a).output().unwrap();
    let human = String::from_utf8_lossy(&human.stdout).into_owned();
    assert!(
        human.contains("defects.tar.gz!defects/truncated.tf:0x"),
        "{human}"
    );
    let json = bin().args(["-o", "json"]).arg(&a).output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let f = &v["files"][0]["findings"][0];
    assert!(f["member"].as_str().unwrap().starts_with("defects/"), "{f}");
    let jsonl = bin().args(["-o", "jsonl"]).arg(&a).output().unwrap();
    assert!(String::from_utf8_lossy(&jsonl.stdout).contains("\"member\":\"defects/"));
    let sarif = bin().args(["-o", "sarif"]).arg(&a).output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&sarif.stdout).unwrap();
    let res = &v["runs"][0]["results"][0];
    let loc = &res["locations"][0];
    assert!(loc["physicalLocation"]["artifactLocation"]["uri"]
        .as_str()
        .unwrap()
        .ends_with("defects.tar.gz"));
    assert!(loc["physicalLocation"]["region"]
        .get("byteOffset")
        .is_none());
    assert!(loc["logicalLocations"][0]["fullyQualifiedName"]
        .as_str()
        .unwrap()
        .starts_with("defects/"));
    assert!(res["message"]["text"]
        .as_str()
        .unwrap()
        .starts_with("in member defects/"));
    let map = bin().arg("map").arg(&a).output().unwrap();
    assert!(String::from_utf8_lossy(&map.stdout).contains("member defects/truncated.tf"));
}

/// (name, type, link target, data) of a raw tar member.
type RawMember<'a> = (&'a [u8], tar::EntryType, &'a [u8], &'a [u8]);

fn tar_raw(members: &[RawMember<'_>]) -> Vec<u8> {
    // (name, type, link target, data), names written raw so that `..` and `/` survive.
    let mut out = Vec::new();
    for (name, et, link, data) in members {
        let mut h = tar::Header::new_gnu();
        {
            let old = h.as_old_mut();
            old.name[..name.len()].copy_from_slice(name);
            old.linkname[..link.len()].copy_from_slice(link);
        }
        h.set_entry_type(*et);
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        h.set_cksum();
        out.extend_from_slice(h.as_bytes());
        out.extend_from_slice(data);
        out.resize(out.len().div_ceil(512) * 512, 0);
    }
    out.extend_from_slice(&[0u8; 1024]);
    out
}

fn codes(r: &Report) -> Vec<(&'static str, Option<String>)> {
    r.findings
        .iter()
        .map(|f| (f.rule.code, f.member.clone()))
        .collect()
}

#[test]
fn hostile_archives_get_findings_and_never_harm() {
    let tmp = tempfile::tempdir().unwrap();
    let tf = std::fs::read(common::corpus("gdb/regs.tf")).unwrap();
    let reg = tar::EntryType::Regular;
    let a = tmp.path().join("evil.tar");
    std::fs::write(
        &a,
        tar_raw(&[
            (b"../escape.tf", reg, b"", &tf),
            (b"/etc/abs.tf", reg, b"", &tf),
            (b"link.tf", tar::EntryType::Symlink, b"/etc/passwd", b""),
            (b"hard.tf", tar::EntryType::Link, b"ok.tf", b""),
            (b"ok.tf", reg, b"", &tf),
            (b"./ok.tf", reg, b"", &tf),
        ]),
    )
    .unwrap();
    let r = check(&a);
    let c = codes(&r);
    assert!(c.contains(&("TL010", Some("../escape.tf".into()))), "{c:?}");
    assert!(c.contains(&("TL010", Some("/etc/abs.tf".into()))), "{c:?}");
    assert!(c.contains(&("TL011", Some("link.tf".into()))), "{c:?}");
    assert!(c.contains(&("TL011", Some("hard.tf".into()))), "{c:?}");
    assert!(c.contains(&("TL012", Some("ok.tf".into()))), "{c:?}");
    assert_eq!(r.members.len(), 1, "only ok.tf is checked: {:?}", r.members);
    assert!(!tmp.path().parent().unwrap().join("escape.tf").exists());
    assert!(!Path::new("/etc/abs.tf").exists());

    // Truncated archive and stream: what was read is checked, the damage is TL013.
    let tar = tar_of(&common::corpus("uftrace/args"), "args");
    let gz = compress("gz", &tar);
    let t = tmp.path().join("cut.tar.gz");
    std::fs::write(&t, &gz[..gz.len() / 2]).unwrap();
    let r = check(&t);
    assert!(
        codes(&r).iter().any(|(c, _)| *c == "TL013"),
        "{:?}",
        codes(&r)
    );
    assert!(r.counts.error > 0);
    let t = tmp.path().join("cut.tar");
    std::fs::write(&t, &tar[..tar.len() - 3000]).unwrap();
    let r = check(&t);
    assert!(r.counts.error > 0, "{:?}", codes(&r));

    // Zeros are no trace: judged from their first bytes, never unpacked further.
    let zeros = vec![0u8; 128 << 20];
    let b = tmp.path().join("zeros.zst");
    std::fs::write(&b, compress("zst", &zeros)).unwrap();
    let r = check_with(
        &b,
        Limits {
            max_spill_bytes: 1,
            ..Limits::default()
        },
    );
    assert_eq!(codes(&r), [("TL002", Some("zeros".into()))]);
    assert!(r.findings[0].notes[0].contains("judged from its first 512 bytes"));
    assert_eq!(r.members[0].size, 512);

    // A decompression bomb behind a trace magic: 128 MiB of zeros in a few KiB hits the
    // ratio limit; the absolute limit stops it too.
    let mut zeros = zeros;
    zeros[..8].copy_from_slice(b"\x7fTRACE0\n");
    let bomb = compress("zst", &zeros);
    let b = tmp.path().join("bomb.zst");
    std::fs::write(&b, &bomb).unwrap();
    let r = check(&b);
    let lim: Vec<_> = r
        .findings
        .iter()
        .filter(|f| f.rule.code == "TL003")
        .collect();
    assert!(
        lim.iter().any(|f| f.message.contains("max_unpack_ratio")),
        "{:?}",
        codes(&r)
    );
    let r = check_with(
        &b,
        Limits {
            max_unpacked_bytes: 1 << 20,
            ..Limits::default()
        },
    );
    assert!(r
        .findings
        .iter()
        .any(|f| f.message.contains("max_unpacked_bytes")));

    // In a zip, a bomb member stops that member only: the trace after it is still checked.
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default();
    w.start_file("bomb.bin", opts).unwrap();
    w.write_all(&zeros).unwrap();
    w.start_file("after.tf", opts).unwrap();
    w.write_all(&tf).unwrap();
    let z = tmp.path().join("bomb.zip");
    std::fs::write(&z, w.finish().unwrap().into_inner()).unwrap();
    let r = check_with(
        &z,
        Limits {
            max_unpack_ratio: 100,
            ..Limits::default()
        },
    );
    assert!(
        codes(&r).contains(&("TL003", Some("bomb.bin".into()))),
        "{:?}",
        codes(&r)
    );
    assert!(r
        .members
        .iter()
        .any(|m| m.path == "after.tf" && m.format.is_some()));

    // Nesting beyond max_archive_depth.
    let mut nested = tf.clone();
    for _ in 0..6 {
        nested = compress("gz", &nested);
    }
    let n = tmp.path().join("deep.gz");
    std::fs::write(&n, &nested).unwrap();
    let r = check(&n);
    assert!(r
        .findings
        .iter()
        .any(|f| f.message.contains("max_archive_depth")));

    // Member floods.
    let many: Vec<(Vec<u8>, Vec<u8>)> = (0..50)
        .map(|i| (format!("f{i}").into_bytes(), vec![b'x']))
        .collect();
    let refs: Vec<RawMember<'_>> = many
        .iter()
        .map(|(n, d)| (n.as_slice(), reg, &b""[..], d.as_slice()))
        .collect();
    let m = tmp.path().join("many.tar");
    std::fs::write(&m, tar_raw(&refs)).unwrap();
    let r = check_with(
        &m,
        Limits {
            max_archive_members: 10,
            ..Limits::default()
        },
    );
    assert!(r
        .findings
        .iter()
        .any(|f| f.message.contains("max_archive_members")));
    assert!(r.members.len() <= 10);
}

#[test]
fn directory_walks_take_compressed_traces_and_archives_not_compressed_logs() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("artifacts");
    std::fs::create_dir_all(d.join("sub")).unwrap();
    let v6 = std::fs::read(common::corpus("tracecmd/v6.dat")).unwrap();
    std::fs::write(d.join("v6.dat.xz"), compress("xz", &v6)).unwrap();
    std::fs::write(d.join("build.log.gz"), compress("gz", b"compiling...\n")).unwrap();
    std::fs::write(
        d.join("sub/u.tar.zst"),
        compress("zst", &tar_of(&common::corpus("uftrace/plain"), "plain")),
    )
    .unwrap();
    let o = bin()
        .args(["check", "-o", "jsonl"])
        .arg(&d)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    let out = String::from_utf8_lossy(&o.stdout);
    let files: Vec<String> = out
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v["kind"] == "file")
        .map(|v| {
            v["path"]
                .as_str()
                .unwrap()
                .rsplit('/')
                .next()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(files, ["u.tar.zst", "v6.dat.xz"], "{out}");
}

#[test]
fn spill_and_size_limits_name_the_limit_that_cut_a_member() {
    let tmp = tempfile::tempdir().unwrap();
    let v6 = std::fs::read(common::corpus("tracecmd/v6.dat")).unwrap();
    let gz = tmp.path().join("v6.dat.gz");
    let packed = compress("gz", &v6);
    std::fs::write(&gz, &packed).unwrap();
    // Room for the archive itself, not for its unpacked member.
    let file_max = packed.len() as u64 + 1;
    assert!(file_max < v6.len() as u64);
    let small = |spill: u64, file: u64| Limits {
        unpack_memory_bytes: 1024,
        max_spill_bytes: spill,
        max_file_bytes: file,
        ..Limits::default()
    };
    for (limits, name) in [
        (small(4096, 1 << 30), "max_spill_bytes"),
        (small(1 << 30, file_max), "max_file_bytes"),
    ] {
        let r = check_with(&gz, limits);
        let lim: Vec<_> = r
            .findings
            .iter()
            .filter(|f| f.rule.code == "TL003")
            .collect();
        assert_eq!(lim.len(), 1, "{:?}", codes(&r));
        assert!(lim[0].message.contains(name), "{}", lim[0].message);
        assert_eq!(lim[0].member.as_deref(), Some("v6.dat"));
    }
}
