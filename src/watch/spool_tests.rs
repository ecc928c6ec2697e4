//! Unit tests of `spool`.

#![allow(clippy::unwrap_used)]

use super::*;

#[test]
fn instance_round_trip() {
    let me = Instance::current();
    let back = Instance::parse(&me.id()).unwrap();
    assert_eq!(me, back);
    assert_eq!(me.is_dead(&back), Liveness::Alive);
    assert!(me.start > 0);
    let mut gone = me.clone();
    gone.start = me.start.wrapping_add(12345);
    assert_eq!(me.is_dead(&gone), Liveness::Dead);
    let mut other_host = me.clone();
    other_host.host = "elsewhere".into();
    assert_eq!(me.is_dead(&other_host), Liveness::Unknown);
    let mut other_boot = gone.clone();
    other_boot.boot = "ffffffff".into();
    other_boot.start = me.start;
    assert_eq!(me.is_dead(&other_boot), Liveness::Dead);
}

#[test]
fn claim_names() {
    let dir = tempfile::tempdir().unwrap();
    let sp = Spool::open(dir.path(), false).unwrap();
    for name in ["a.tf", "x.tlw.y", "weird name.tlw.z.tlw.", "-"] {
        let c = sp.new_claim(OsStr::new(name));
        let f = c.file_name();
        assert_eq!(ClaimName::parse(&f).unwrap(), c, "{f:?}");
        assert_eq!(ClaimName::parse_temp(&c.temp_name()).unwrap(), c);
        assert!(ClaimName::parse_temp(&f).is_none());
    }
    assert!(ClaimName::parse(OsStr::new("plain.tf")).is_none());
    assert!(ClaimName::parse(OsStr::new("a.tlw.b.c")).is_none());
    let long = "n".repeat(300);
    let c = sp.new_claim(OsStr::new(&long));
    assert_eq!(c.name.len(), MAX_KEPT_NAME);
}

#[test]
fn place_never_overwrites() {
    let dir = tempfile::tempdir().unwrap();
    let sp = Spool::open(dir.path(), true).unwrap();
    let acc = sp.dir(Verdict::Accepted).to_path_buf();
    fs::write(acc.join("x"), b"old").unwrap();
    fs::write(acc.join("x.~1~.tracelint.json"), b"{}").unwrap();
    let c = sp.new_claim(OsStr::new("x"));
    fs::write(sp.work.join(c.file_name()), b"new").unwrap();
    let t = sp.write_temp(&c, b"{\"watch\":{}}").unwrap();
    let p = sp.place(&c, Verdict::Accepted, &t, false).unwrap();
    assert_eq!(p, acc.join("x.~2~"));
    assert_eq!(fs::read(acc.join("x")).unwrap(), b"old");
    assert_eq!(fs::read(acc.join("x.~2~")).unwrap(), b"new");
    assert!(acc.join("x.~2~.tracelint.json").exists());
    assert_eq!(fs::read_dir(&sp.work).unwrap().count(), 0);
}

#[test]
fn take_over_finds_a_half_finished_move() {
    let dir = tempfile::tempdir().unwrap();
    let sp = Spool::open(dir.path(), false).unwrap();
    let rej = sp.dir(Verdict::Rejected).to_path_buf();
    for linked_data in [false, true] {
        let c = sp.new_claim(OsStr::new("y"));
        let w = sp.work.join(c.file_name());
        fs::write(&w, b"input").unwrap();
        let doc = format!("{{\"watch\":{{\"claim\":\"{}\"}}}}", c.claim);
        let t = sp.write_temp(&c, doc.as_bytes()).unwrap();
        // The previous owner died after linking the report (and maybe the input).
        let cand = candidate(OsStr::new("y"), u64::from(linked_data));
        fs::hard_link(&t, rej.join(sidecar_name(&cand))).unwrap();
        if linked_data {
            fs::hard_link(&w, rej.join(&cand)).unwrap();
        }
        // A new owner takes the claim over under its own name.
        let mine = ClaimName {
            owner: Instance::current().id(),
            ..c.clone()
        };
        assert_eq!(sp.find_placed(&c).unwrap().unwrap().data, rej.join(&cand));
        let placed = sp.find_placed(&mine).unwrap().unwrap();
        assert_eq!(placed.verdict, Verdict::Rejected);
        assert_eq!(placed.data, rej.join(&cand));
        sp.complete_placed(&mine, &placed).unwrap();
        assert_eq!(fs::read(rej.join(&cand)).unwrap(), b"input");
        assert!(!w.exists());
        let _ = fs::remove_file(&t);
    }
    // Another claim with the same name is not mistaken for it.
    let other = sp.new_claim(OsStr::new("y"));
    assert!(sp.find_placed(&other).unwrap().is_none());
}
