//! Hostile and huge inputs through the built binary: overlapping zip members are refused from
//! their headers before anything is unpacked, and the human renderer reads only the rows it
//! shows, whatever the length of a span.

#[path = "common/cli.rs"]
mod cli_support;

use cli_support::{bin, cmd, corpus, text};
use std::path::Path;
use std::process::{Command, Output};

fn le16(v: &mut Vec<u8>, x: u16) {
    v.extend_from_slice(&x.to_le_bytes());
}

fn le32(v: &mut Vec<u8>, x: u32) {
    v.extend_from_slice(&x.to_le_bytes());
}

fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

fn local_header(v: &mut Vec<u8>, name: &str, size: u32, crc: u32) {
    le32(v, 0x0403_4b50);
    le16(v, 20); // version needed
    le16(v, 0); // flags
    le16(v, 0); // stored
    le16(v, 0); // time
    le16(v, 0); // date
    le32(v, crc);
    le32(v, size);
    le32(v, size);
    le16(v, name.len() as u16);
    le16(v, 0);
    v.extend_from_slice(name.as_bytes());
}

/// A stored zip whose central directory lists `entries` (name, local header offset, size).
fn zip_with(mut body: Vec<u8>, entries: &[(String, u32, u32)], crc: u32) -> Vec<u8> {
    let cd_start = body.len() as u32;
    for (name, at, size) in entries {
        let v = &mut body;
        le32(v, 0x0201_4b50);
        le16(v, 20); // version made by
        le16(v, 20);
        le16(v, 0);
        le16(v, 0);
        le16(v, 0);
        le16(v, 0);
        le32(v, crc);
        le32(v, *size);
        le32(v, *size);
        le16(v, name.len() as u16);
        le16(v, 0); // extra
        le16(v, 0); // comment
        le16(v, 0); // disk
        le16(v, 0); // internal attributes
        le32(v, 0); // external attributes
        le32(v, *at);
        v.extend_from_slice(name.as_bytes());
    }
    let cd_len = body.len() as u32 - cd_start;
    let v = &mut body;
    le32(v, 0x0605_4b50);
    le16(v, 0);
    le16(v, 0);
    le16(v, entries.len() as u16);
    le16(v, entries.len() as u16);
    le32(v, cd_len);
    le32(v, cd_start);
    le16(v, 0);
    body
}

fn check(path: &Path) -> Output {
    cmd().args(["--color", "never"]).arg(path).output().unwrap()
}

#[test]
fn zip_members_sharing_a_local_header_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let tf = std::fs::read(corpus("gdb/regs.tf")).unwrap();
    let mut body = Vec::new();
    let crc = crc32(&tf);
    local_header(&mut body, "a.tf", tf.len() as u32, crc);
    body.extend_from_slice(&tf);
    // A sound zip of that one member passes.
    let one = zip_with(body.clone(), &[("a.tf".into(), 0, tf.len() as u32)], crc);
    let p = dir.path().join("one.zip");
    std::fs::write(&p, one).unwrap();
    let o = check(&p);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o).0);

    // 1,000 central-directory entries, one local header.
    let entries: Vec<_> = (0..1000)
        .map(|i| (format!("m{i:04}.tf"), 0, tf.len() as u32))
        .collect();
    let p = dir.path().join("shared.zip");
    std::fs::write(&p, zip_with(body, &entries, crc)).unwrap();
    let o = check(&p);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{err}");
    assert!(out.contains("error[TL015]"), "{out}");
    assert!(out.contains("share the local header at offset 0"), "{out}");
    assert!(out.contains("1000 entries"), "{out}");
    // Nothing was unpacked: no member is listed or checked.
    assert!(out.contains("shared.zip: fail (unknown, "), "{out}");
}

#[test]
fn zip_members_inside_other_members_are_refused() {
    // The overlap-bomb layout: each member's data holds the next member's local header.
    let dir = tempfile::tempdir().unwrap();
    let tf = std::fs::read(corpus("gdb/regs.tf")).unwrap();
    let n = 200;
    let mut body = Vec::new();
    let mut entries = Vec::new();
    for i in 0..n {
        let name = format!("m{i:03}.tf");
        let at = body.len() as u32;
        // Everything after this header is this member's data.
        let rest = ((n - 1 - i) * (30 + 7) + tf.len()) as u32;
        local_header(&mut body, &name, rest, 0);
        entries.push((name, at, rest));
    }
    body.extend_from_slice(&tf);
    let p = dir.path().join("nested.zip");
    std::fs::write(&p, zip_with(body, &entries, 0)).unwrap();
    let o = check(&p);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{err}");
    assert!(out.contains("error[TL015]"), "{out}");
    assert!(out.contains("lies inside member `m000.tf`"), "{out}");
}

#[test]
fn a_span_of_gigabytes_is_shown_from_its_first_rows_only() {
    // A valid trace followed by a 4 GiB sparse tail (TD040 spans the whole tail). The data
    // segment is limited to 256 MiB: materialising the span would abort.
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("tail.dat");
    let good = std::fs::read(corpus("tracecmd/v6.dat")).unwrap();
    std::fs::write(&p, &good).unwrap();
    let f = std::fs::OpenOptions::new().write(true).open(&p).unwrap();
    f.set_len(good.len() as u64 + (4 << 30)).unwrap();
    f.write_at_end(b"x");
    let o = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -d 262144 && exec '{}' --color never check -o human '{}'",
            bin(),
            p.display()
        ))
        .env_remove("TRACELINT_CONFIG")
        .output()
        .unwrap();
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    assert!(out.contains("warning[TD040]"), "{out}");
    assert!(out.contains("span continues to"), "{out}");
}

trait WriteAtEnd {
    fn write_at_end(&self, b: &[u8]);
}

impl WriteAtEnd for std::fs::File {
    fn write_at_end(&self, b: &[u8]) {
        use std::os::unix::fs::FileExt;
        let len = self.metadata().unwrap().len();
        self.write_all_at(b, len).unwrap();
    }
}

#[test]
fn a_file_that_changes_while_checked_is_an_io_failure() {
    use std::io::Write;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("growing.dat");
    std::fs::copy(corpus("tracecmd/full-meta-v7-zstd.dat"), &p).unwrap();
    // Unchanged, it passes.
    let o = check(&p);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o).0);
    // A writer appends without pause until the check is over: the size after the check
    // differs from the size before it.
    let done = Arc::new(AtomicBool::new(false));
    let writer = {
        let (p, done) = (p.clone(), Arc::clone(&done));
        std::thread::spawn(move || {
            let mut f = std::fs::OpenOptions::new().append(true).open(p).unwrap();
            let mut n = 0u64;
            while !done.load(Ordering::Relaxed) {
                f.write_all(&[0u8; 64]).unwrap();
                n += 1;
            }
            n
        })
    };
    // The writer is under way before the check starts.
    while std::fs::metadata(&p).unwrap().len() < 1_200_000 {
        std::thread::yield_now();
    }
    for mmap in [true, false] {
        let mut c = cmd();
        c.args(["--color", "never"]);
        if !mmap {
            c.arg("--no-mmap");
        }
        let o = c.arg(&p).output().unwrap();
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(3), "mmap {mmap}: {out}{err}");
        assert!(
            out.contains("changed while it was checked: grew from"),
            "{out}"
        );
        assert!(out.contains(": unreadable ("), "{out}");
    }
    done.store(true, Ordering::Relaxed);
    assert!(writer.join().unwrap() > 0);
}
