//! `tracelint map` of trace.dat v7 files against `trace-cmd dump --sections` (each trace-cmd 3.x
//! of the reader matrix lists its own section offsets, ids, flags and sizes).

mod common;

use std::process::Command;
use tracelint::check::{check_path, CheckOptions};
use tracelint::config::Config;
use tracelint::map::MapNode;

#[derive(Debug, PartialEq)]
struct Section {
    id: u64,
    offset: u64,
    flags: u64,
    /// (compressed size without the 8-byte size header, uncompressed size), or plain size.
    sizes: (u64, Option<u64>),
}

fn parse_dump(text: &str) -> Vec<Section> {
    let mut v = Vec::new();
    for line in text.lines() {
        let Some(rest) = line.trim().strip_prefix("[Section") else {
            continue;
        };
        let (id, rest) = rest.split_once('@').unwrap();
        let mut words = rest.split_whitespace();
        let offset: u64 = words.next().unwrap().parse().unwrap();
        let flags_part = rest.split("flags ").nth(1).unwrap();
        let (flags, tail) = flags_part.split_once(',').unwrap();
        let flags = u64::from_str_radix(flags.trim_start_matches("0x"), 16).unwrap();
        let nums: Vec<u64> = tail
            .split(|c: char| !c.is_ascii_digit())
            .filter(|s| !s.is_empty())
            .map(|s| s.parse().unwrap())
            .collect();
        let sizes = if tail.contains("uncompressed") {
            (nums[0], Some(nums[1]))
        } else {
            (nums[0], None)
        };
        v.push(Section {
            id: id.trim().parse().unwrap(),
            offset,
            flags,
            sizes,
        });
    }
    v
}

fn value<'a>(n: &'a MapNode, key: &str) -> Option<&'a str> {
    n.values
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

fn from_map(map: &MapNode) -> Vec<Section> {
    map.children
        .iter()
        .filter(|n| n.label.starts_with("section "))
        .map(|n| {
            let id: u64 = value(n, "id").unwrap().parse().unwrap();
            let flags =
                u64::from_str_radix(value(n, "flags").unwrap().trim_start_matches("0x"), 16)
                    .unwrap();
            let size: u64 = value(n, "size").unwrap().parse().unwrap();
            let sizes = match value(n, "uncompressed") {
                Some(u) => (size - 8, Some(u.parse().unwrap())),
                None => (size, None),
            };
            Section {
                id,
                offset: n.offset,
                flags,
                sizes,
            }
        })
        .collect()
}

/// Every v7 corpus file: tracelint's sections equal those `trace-cmd dump --sections` lists,
/// for every trace-cmd 3.x of the reader matrix that decompresses the file (the zlib files need
/// a build with zlib; one without lists no section, "cannot uncompress the file"). A file no
/// reader here can read is skipped with its reason (a failure in CI).
#[test]
fn v7_sections_match_trace_cmd_dump() {
    let readers: Vec<common::MatrixReader> = common::matrix_readers("trace-cmd")
        .into_iter()
        .filter(|r| r.v7)
        .collect();
    if readers.is_empty() {
        common::skip_or_fail("no trace-cmd 3.x is installed or built");
        return;
    }
    let mut files: Vec<_> = std::fs::read_dir(common::corpus("tracecmd"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "dat"))
        .collect();
    files.sort();
    let mut compared = 0;
    for p in files {
        let data = std::fs::read(&p).unwrap();
        let Some(compression) = common::tracedat_compression(&data) else {
            continue;
        };
        let r = check_path(&p, &CheckOptions::default(), &Config::default());
        let mine = from_map(r.map.as_ref().unwrap());
        let mut read_by = 0;
        for reader in &readers {
            let out = Command::new("timeout")
                .arg("60")
                .arg(&reader.path)
                .args(["dump", "--sections", "-i"])
                .arg(&p)
                .output()
                .unwrap();
            let dump = parse_dump(&String::from_utf8_lossy(&out.stdout));
            if compression == "zlib" && !reader.zlib {
                assert!(
                    dump.is_empty(),
                    "{} (built without zlib) listed the sections of {}",
                    reader.name,
                    p.display()
                );
                continue;
            }
            assert!(
                !dump.is_empty(),
                "{}: {} listed no sections: {out:?}",
                p.display(),
                reader.name
            );
            assert_eq!(mine, dump, "{} on {}", reader.name, p.display());
            read_by += 1;
        }
        if read_by == 0 {
            common::skip_or_fail(&format!(
                "no trace-cmd here reads {} ({compression})",
                p.display()
            ));
            continue;
        }
        compared += 1;
    }
    assert!(
        compared >= 3,
        "expected v7 corpus files, compared {compared}"
    );
}
