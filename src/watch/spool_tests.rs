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
        // The work/ entry stays until the verdict is logged, then goes.
        assert!(w.exists());
        sp.release(&mine, false).unwrap();
        assert!(!w.exists());
        let _ = fs::remove_file(&t);
    }
    // Another claim with the same name is not mistaken for it.
    let other = sp.new_claim(OsStr::new("y"));
    assert!(sp.find_placed(&other).unwrap().is_none());
}

#[test]
fn a_placed_report_is_found_by_its_claim_past_a_gap() {
    let dir = tempfile::tempdir().unwrap();
    let sp = Spool::open(dir.path(), false).unwrap();
    let acc = sp.dir(Verdict::Accepted).to_path_buf();
    let c = sp.new_claim(OsStr::new("z"));
    let w = sp.work.join(c.file_name());
    fs::write(&w, b"input").unwrap();
    let doc = format!("{{\"watch\":{{\"claim\":\"{}\"}}}}", c.claim);
    let t = sp.write_temp(&c, doc.as_bytes()).unwrap();
    // z and z.~1~ were placed and later removed by the operator; the dead owner placed its
    // report as z.~3~ (z.~2~ is another input's).
    fs::write(acc.join("z.~2~"), b"other").unwrap();
    fs::write(
        acc.join("z.~2~.tracelint.json"),
        b"{\"watch\":{\"claim\":\"x\"}}",
    )
    .unwrap();
    fs::hard_link(&t, acc.join("z.~3~.tracelint.json")).unwrap();
    let placed = sp.find_placed(&c).unwrap().unwrap();
    assert_eq!(placed.data, acc.join("z.~3~"));
    sp.complete_placed(&c, &placed).unwrap();
    assert_eq!(fs::read(acc.join("z.~3~")).unwrap(), b"input");
    // A name that only starts like it is not a candidate.
    assert_eq!(
        candidate_number(OsStr::new("z"), OsStr::new("z.~3~")),
        Some(3)
    );
    assert_eq!(candidate_number(OsStr::new("z"), OsStr::new("zz")), None);
    assert_eq!(
        candidate_number(OsStr::new("z"), OsStr::new("z.~03~")),
        None
    );
}

#[test]
fn names_go_on_past_99999() {
    let dir = tempfile::tempdir().unwrap();
    let sp = Spool::open(dir.path(), false).unwrap();
    let acc = sp.dir(Verdict::Accepted).to_path_buf();
    for n in 0..20u64 {
        fs::write(acc.join(candidate(OsStr::new("x"), n)), b"old").unwrap();
    }
    fs::write(acc.join("x.~99999~"), b"old").unwrap();
    let c = sp.new_claim(OsStr::new("x"));
    fs::write(sp.work.join(c.file_name()), b"new").unwrap();
    let t = sp.write_temp(&c, b"{\"watch\":{}}").unwrap();
    let p = sp.place(&c, Verdict::Accepted, &t, false).unwrap();
    assert_eq!(p, acc.join("x.~100000~"));
    assert_eq!(fs::read(&p).unwrap(), b"new");
}

#[test]
fn the_start_up_probe_moves_a_file_and_a_directory() {
    let dir = tempfile::tempdir().unwrap();
    let sp = Spool::open(dir.path(), false).unwrap();
    // Nothing is left behind by the probe.
    for d in [&sp.work, &sp.dir(Verdict::Accepted).to_path_buf()] {
        assert_eq!(fs::read_dir(d).unwrap().count(), 0, "{}", d.display());
    }
    // A verdict folder that cannot be moved into is refused.
    let acc = sp.dir(Verdict::Accepted).to_path_buf();
    fs::remove_dir(&acc).unwrap();
    fs::write(&acc, b"not a folder").unwrap();
    assert!(sp.probe_links(&acc).is_err());
}

#[test]
fn long_names_keep_their_start_and_ending() {
    let short = OsStr::new("trace.dat");
    assert_eq!(kept_name(short), short);
    let long = format!("{}.tar.zst", "a".repeat(200));
    let kept = kept_name(OsStr::new(&long));
    assert_eq!(kept.len(), MAX_KEPT_NAME);
    assert!(kept.as_bytes().ends_with(b"a.tar.zst"), "{kept:?}");
    // UTF-8 stays UTF-8: the cut backs off to a character boundary.
    let wide = format!("{}.dat", "é".repeat(100));
    let kept = kept_name(OsStr::new(&wide));
    let text = kept.to_str().unwrap();
    assert!(
        text.ends_with("é.dat") && kept.len() <= MAX_KEPT_NAME,
        "{text}"
    );
    // No dot near the end: the first bytes only.
    let plain = "b".repeat(300);
    assert_eq!(kept_name(OsStr::new(&plain)).len(), MAX_KEPT_NAME);
}

#[test]
fn a_copy_interrupted_by_a_crash_is_delivered_again_or_finished() {
    let dir = tempfile::tempdir().unwrap();
    let sp = Spool::open(&dir.path().join("spool"), false).unwrap();
    let me = Instance::current();
    let dead = Instance {
        boot: "00000000".into(),
        ..me.clone()
    };
    let claim = |n: u32| ClaimName {
        name: OsString::from(format!("rec{n}")),
        claim: format!("00000000-1-2-{n}"),
        owner: dead.id(),
    };
    // Died while copying: the original hidden in new/, a partial copy in work/.
    let c1 = claim(1);
    let hidden1 = sp.new.join(copy_name(&c1));
    fs::create_dir(&hidden1).unwrap();
    fs::write(hidden1.join("info"), b"Ftrace!\0").unwrap();
    fs::create_dir(sp.work.join(copy_name(&c1))).unwrap();
    assert!(sp.recover_copy(&copy_name(&c1)).unwrap());
    assert_eq!(fs::read(sp.new.join("rec1/info")).unwrap(), b"Ftrace!\0");
    assert!(!hidden1.exists() && !sp.work.join(copy_name(&c1)).exists());
    // Died after the copy reached work/: only the original goes.
    let c2 = claim(2);
    let hidden2 = sp.new.join(copy_name(&c2));
    fs::create_dir(&hidden2).unwrap();
    fs::create_dir(sp.work.join(c2.file_name())).unwrap();
    assert!(sp.recover_copy(&copy_name(&c2)).unwrap());
    assert!(!hidden2.exists() && !sp.new.join("rec2").exists());
    assert!(sp.work.join(c2.file_name()).is_dir());
    // A live owner's copy is left alone.
    let c3 = ClaimName {
        owner: me.id(),
        ..claim(3)
    };
    let hidden3 = sp.new.join(copy_name(&c3));
    fs::create_dir(&hidden3).unwrap();
    assert!(!sp.recover_copy(&copy_name(&c3)).unwrap());
    assert!(hidden3.is_dir());
}

#[test]
fn a_directory_claimed_by_copy_is_the_same_tree_in_work() {
    let dir = tempfile::tempdir().unwrap();
    let sp = Spool::open(&dir.path().join("spool"), true).unwrap();
    let d = sp.new.join("rec");
    fs::create_dir_all(d.join("sub")).unwrap();
    fs::write(d.join("info"), b"Ftrace!\0").unwrap();
    fs::write(d.join("sub/x.dat"), vec![7u8; 5000]).unwrap();
    let (c, removed) = sp.claim_by_copy(OsStr::new("rec")).unwrap().unwrap();
    assert!(removed, "root may remove the original");
    let w = sp.work.join(c.file_name());
    assert_eq!(fs::read(w.join("info")).unwrap(), b"Ftrace!\0");
    assert_eq!(fs::read(w.join("sub/x.dat")).unwrap(), vec![7u8; 5000]);
    assert!(fs::read_dir(&sp.new).unwrap().next().is_none());
    // Gone meanwhile: nothing claimed.
    assert!(sp.claim_by_copy(OsStr::new("rec")).unwrap().is_none());
}
