//! The daemon serving another user's deliveries, as packaged: an upload account delivers, the
//! daemon runs as a second account, both in the spool's group (`tmp/` and `new/` setgid and
//! group-writable, as the Debian package makes them), with the default
//! `fs.protected_hardlinks = 1`, under which the daemon may not hard-link a file it neither
//! owns nor may write. Every file and directory delivered is placed; what the daemon cannot
//! read is an I/O error (quarantine). Needs root (to make the two users); skips otherwise.

mod common;

use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn corpus(p: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus").join(p)
}

fn sh(cmd: &str, args: &[&str]) {
    let o = Command::new(cmd).args(args).output().unwrap();
    assert!(
        o.status.success(),
        "{cmd} {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// A user and a group made for the test, removed when dropped.
struct Accounts {
    group: String,
    producer: String,
    daemon: String,
}

impl Accounts {
    fn make() -> Option<Accounts> {
        if !is_root() {
            common::skip_or_fail("making a second and third user needs root");
            return None;
        }
        let n = std::process::id();
        let a = Accounts {
            group: format!("tlspool{n}"),
            producer: format!("tlprod{n}"),
            daemon: format!("tldaemon{n}"),
        };
        sh("groupadd", &[&a.group]);
        for u in [&a.producer, &a.daemon] {
            sh(
                "useradd",
                &[
                    "--no-create-home",
                    "--home-dir",
                    "/nonexistent",
                    "--shell",
                    "/usr/sbin/nologin",
                    "--user-group",
                    "--groups",
                    &a.group,
                    u,
                ],
            );
        }
        Some(a)
    }

    /// `setpriv` arguments that run a command as `user` with its groups.
    fn as_user(&self, user: &str) -> Command {
        let mut c = Command::new("setpriv");
        c.args([
            &format!("--reuid={user}"),
            &format!("--regid={user}"),
            "--init-groups",
            "--",
        ]);
        c
    }
}

impl Drop for Accounts {
    fn drop(&mut self) {
        for u in [&self.producer, &self.daemon] {
            let _ = Command::new("userdel").arg(u).status();
        }
        let _ = Command::new("groupdel").arg(&self.group).status();
    }
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.trim_ascii() == b"0")
}

fn chown(p: &Path, spec: &str) {
    sh("chown", &[spec, p.to_str().unwrap()]);
}

/// The inputs delivered, by name, with where each must end up.
fn deliveries() -> Vec<(Vec<u8>, &'static str)> {
    let long = format!("{}.tf", "l".repeat(200));
    vec![
        (b"good.tf".to_vec(), "accepted"),
        (b"broken.tf".to_vec(), "rejected"),
        (b"secret.tf".to_vec(), "quarantine"),
        (long.into_bytes(), "accepted"),
        (b"caf\xe9-latin1.tf".to_vec(), "accepted"),
        (b"recording".to_vec(), "accepted"),
        (b"recording-unreadable".to_vec(), "quarantine"),
        (b"recording-own".to_vec(), "accepted"),
    ]
}

#[test]
fn another_users_files_and_directories_are_all_placed() {
    let Some(acc) = Accounts::make() else {
        return;
    };
    let protected = fs::read_to_string("/proc/sys/fs/protected_hardlinks").unwrap_or_default();
    let top = tempfile::tempdir().unwrap();
    fs::set_permissions(top.path(), fs::Permissions::from_mode(0o755)).unwrap();
    // The spool as the package makes it: the root and the verdict folders the daemon's, tmp/
    // and new/ setgid and writable by the group.
    let spool = top.path().join("spool");
    fs::create_dir(&spool).unwrap();
    fs::set_permissions(&spool, fs::Permissions::from_mode(0o750)).unwrap();
    chown(&spool, &format!("{}:{}", acc.daemon, acc.group));
    for d in ["tmp", "new"] {
        let p = spool.join(d);
        fs::create_dir(&p).unwrap();
        chown(&p, &format!("{}:{}", acc.daemon, acc.group));
        fs::set_permissions(&p, fs::Permissions::from_mode(0o2770)).unwrap();
    }
    let log_dir = top.path().join("log");
    fs::create_dir(&log_dir).unwrap();
    chown(&log_dir, &format!("{}:{}", acc.daemon, acc.daemon));

    // What the producer delivers, staged where it can read it.
    let stage = top.path().join("stage");
    fs::create_dir(&stage).unwrap();
    let good = fs::read(corpus("gdb/memory.tf")).unwrap();
    for (name, _) in deliveries() {
        let p = stage.join(OsStr::from_bytes(&name));
        match name.as_slice() {
            b"broken.tf" => {
                fs::copy(corpus("gdb/defects/circular-corrupt.tf"), &p).unwrap();
            }
            b"recording" | b"recording-unreadable" | b"recording-own" => {
                fs::create_dir(&p).unwrap();
                for e in fs::read_dir(corpus("uftrace/args")).unwrap().flatten() {
                    fs::copy(e.path(), p.join(e.file_name())).unwrap();
                }
            }
            _ => fs::write(&p, &good).unwrap(),
        }
    }
    sh("chmod", &["-R", "a+rX", stage.to_str().unwrap()]);

    // The producer: files written under its usual umask (0644: the daemon may read them, not
    // write them), directories group-writable (umask 002, as watch.md asks) but one (0755:
    // the daemon may not move it, so it copies it), one file only its own (0600), one
    // directory holding a file only its own; each renamed into new/.
    let script = r#"
set -e
cd "$STAGE"
for f in *; do
  if [ "$f" = recording-own ]; then
    (umask 022; cp -r "$f" "$SPOOL/tmp/$f.part"; chmod -R go-w "$SPOOL/tmp/$f.part")
  elif [ -d "$f" ]; then
    (umask 002; cp -r "$f" "$SPOOL/tmp/$f.part"; chmod -R g+w "$SPOOL/tmp/$f.part")
  else
    (umask 022; cp "$f" "$SPOOL/tmp/$f.part")
  fi
done
chmod 600 "$SPOOL/tmp/secret.tf.part" "$SPOOL/tmp/recording-unreadable.part/info"
for f in *; do mv "$SPOOL/tmp/$f.part" "$SPOOL/new/$f"; done
"#;
    let o = acc
        .as_user(&acc.producer)
        .args(["sh", "-c", script])
        .env("STAGE", &stage)
        .env("SPOOL", &spool)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "delivery: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let owner = fs::metadata(spool.join("new/good.tf")).unwrap().uid();
    assert_ne!(owner, 0, "delivered by the producer");

    // The daemon, as the other user, judges what is there and exits.
    let events = log_dir.join("events.jsonl");
    let o = acc
        .as_user(&acc.daemon)
        .arg(env!("CARGO_BIN_EXE_tracelint"))
        .args(["watch", "--once", "--jobs", "2", "--log"])
        .arg(&events)
        .arg(&spool)
        .current_dir(top.path())
        .env_remove("TRACELINT_CONFIG")
        .env("TRACELINT_LOG", "info")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        protected.trim() != "1" || !err.contains("cannot move"),
        "placement failed under protected_hardlinks:\n{err}"
    );

    // Every input is placed where its verdict says; nothing stays in new/ or work/ but the
    // original of the directory the daemon copied, which it may not remove (under a dot
    // name, which rescans skip; the log says so).
    for d in ["new", "work"] {
        let left: Vec<_> = fs::read_dir(spool.join(d))
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .filter(|n| {
                !(d == "new"
                    && n.as_bytes()
                        .starts_with(b".tracelint-copy.recording-own.tlw."))
            })
            .collect();
        assert!(left.is_empty(), "left in {d}/: {left:?}\n{err}");
    }
    assert!(err.contains("was copied to be judged"), "{err}");
    // The copy placed is the recording, file for file.
    for e in fs::read_dir(corpus("uftrace/args")).unwrap().flatten() {
        assert_eq!(
            fs::read(spool.join("accepted/recording-own").join(e.file_name())).unwrap(),
            fs::read(e.path()).unwrap()
        );
    }
    let log = fs::read_to_string(&events).unwrap();
    let lines: Vec<serde_json::Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    for (name, verdict) in deliveries() {
        let shown = tracelint::check::escape_path(Path::new(OsStr::from_bytes(&name)));
        let line = lines
            .iter()
            .find(|l| l["name"] == shown.as_str())
            .unwrap_or_else(|| panic!("no event for {shown}:\n{log}\n{err}"));
        assert_eq!(line["verdict"], verdict, "{shown}: {line}");
        let placed = PathBuf::from(line["path"].as_str().unwrap());
        assert!(
            placed.starts_with(spool.join(verdict)),
            "{shown}: placed at {}",
            placed.display()
        );
        // The full name, every byte of it, in the report (a name over 140 bytes is shortened
        // in the folders, keeping its ending). The log's paths escape bytes that are not
        // UTF-8, so that report is found by its folder.
        let report_path = if std::str::from_utf8(&name).is_ok() {
            PathBuf::from(line["report"].as_str().unwrap())
        } else {
            fs::read_dir(spool.join(verdict))
                .unwrap()
                .flatten()
                .map(|e| e.path())
                .find(|p| {
                    p.as_os_str().as_bytes().starts_with(
                        spool
                            .join(verdict)
                            .join(OsStr::from_bytes(&name))
                            .as_os_str()
                            .as_bytes(),
                    ) && p.to_string_lossy().ends_with(".tracelint.json")
                })
                .unwrap()
        };
        let report: serde_json::Value =
            serde_json::from_slice(&fs::read(report_path).unwrap()).unwrap();
        assert_eq!(report["watch"]["name"], shown.as_str());
        assert_eq!(report["path"], shown.as_str());
        if name.len() > 140 {
            let file = placed.file_name().unwrap().as_bytes();
            assert!(file.len() <= 140 && file.ends_with(b".tf"), "{placed:?}");
        }
    }
    // The file only the producer could read, and the directory holding one: I/O errors.
    for n in ["secret.tf", "recording-unreadable"] {
        let l = lines.iter().find(|l| l["name"] == n).unwrap();
        assert!(
            l["reason"].as_str().unwrap().starts_with("io-error"),
            "{n}: {l}"
        );
    }
    // The non-UTF-8 name, logged without loss.
    assert!(log.contains(r#""name":"caf\\xe9-latin1.tf""#), "{log}");
    // The placed inputs are the producer's bytes, still its own.
    let placed_good = spool.join("accepted/good.tf");
    assert_eq!(fs::read(&placed_good).unwrap(), good);
    assert_eq!(fs::metadata(&placed_good).unwrap().uid(), owner);
}

/// Probes left by a daemon killed while it started (a `.tracelint-probe-*` file and folder
/// named after a dead instance) are removed at the next start; nothing else is touched.
#[test]
fn probes_of_a_dead_start_are_removed() {
    let top = tempfile::tempdir().unwrap();
    let spool = top.path().join("spool");
    let host: String = fs::read_to_string("/proc/sys/kernel/hostname")
        .unwrap_or_default()
        .trim()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .take(32)
        .collect();
    // Same host, another boot: certainly dead.
    let dead = format!(".tracelint-probe-{host}-00000000-4242-17");
    for d in ["work", "accepted", "quarantine"] {
        fs::create_dir_all(spool.join(d)).unwrap();
        fs::write(spool.join(d).join(format!("{dead}.f")), b"").unwrap();
        fs::create_dir(spool.join(d).join(format!("{dead}.d"))).unwrap();
    }
    fs::write(spool.join("accepted/.keep-me"), b"").unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_tracelint"))
        .args(["watch", "--once", "--log"])
        .arg(top.path().join("events.jsonl"))
        .arg(&spool)
        .current_dir(top.path())
        .env_remove("TRACELINT_CONFIG")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    for d in ["work", "accepted", "rejected", "quarantine"] {
        let left: Vec<_> = fs::read_dir(spool.join(d))
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .filter(|n| n.as_bytes().starts_with(b".tracelint-probe-"))
            .collect();
        assert!(left.is_empty(), "{d}/: {left:?}\n{err}");
    }
    assert!(spool.join("accepted/.keep-me").exists());
}
