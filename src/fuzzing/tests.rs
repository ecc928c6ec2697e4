#![allow(clippy::unwrap_used, clippy::indexing_slicing)]
use super::*;

#[test]
fn image_round_trip() {
    let files = vec![
        ("info".to_string(), b"Ftrace!\0abc".to_vec()),
        ("1.dat".to_string(), vec![0u8; 40]),
        ("task.txt".to_string(), Vec::new()),
    ];
    let img = encode_dir_image(&files);
    let dir = decode_dir_image(&img);
    let mut want = files.clone();
    want.sort();
    assert_eq!(dir.files(), &want[..]);
}

#[test]
fn image_decoder_is_total() {
    for data in [
        &b""[..],
        b"\x05ab",
        b"\x00\xff\xff\xff\xff",
        b"\x02..\x01\x00\x00\x00x\x01/",
    ] {
        let dir = decode_dir_image(data);
        for (name, _) in dir.files() {
            assert!(!name.is_empty() && !name.contains('/') && name != "..");
        }
    }
    let many: Vec<u8> = (0..200u8).flat_map(|i| [1, i, 0, 0, 0, 0]).collect();
    assert!(decode_dir_image(&many).files().len() <= IMAGE_MAX_FILES);
}

#[cfg(feature = "fuzzing")]
#[test]
fn structured_runners_accept_patterned_inputs() {
    use super::structured::*;
    for seed in 0u8..16 {
        let data: Vec<u8> = (0..512u32)
            .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
            .collect();
        run_ktrace_structured(&data);
        run_ktrace_roundtrip(&data);
        run_gdb_structured(&data);
        run_uftrace_structured(&data);
        run_tracecmd_structured(&data);
    }
}

/// The `check_path` runner on the shipped single-file traces (good ones, defects and
/// fuzzer-found inputs): mapped and read give the same findings.
#[test]
fn check_path_runner_on_the_corpus() {
    let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let mut files = Vec::new();
    let mut folders: Vec<&str> = crate::formats::FORMATS
        .iter()
        .filter(|s| s.dir.is_none())
        .map(|s| s.corpus)
        .collect();
    folders.dedup();
    for fmt in folders {
        for sub in ["", "defects", "regressions"] {
            let Ok(rd) = std::fs::read_dir(corpus.join(fmt).join(sub)) else {
                continue;
            };
            files.extend(rd.flatten().map(|e| e.path()).filter(|p| p.is_file()));
        }
    }
    assert!(files.len() > 20, "{files:?}");
    for f in files {
        run_check_path(&std::fs::read(&f).unwrap());
    }
    run_check_path(b"");
    run_check_path(b"\x17\x08\x44tracing6\0");
}

#[cfg(feature = "fuzzing")]
#[test]
fn differential_checks_agree_with_the_writers() {
    use super::structured::*;
    use crate::formats::ktrace::writer as kw;
    use crate::formats::tracecmd::writer as tw;
    use crate::formats::uftrace::writer as uw;
    for magic in [kw::V3Magic::Kernel, kw::V3Magic::Libktrace] {
        let file = kw::File::V3(kw::sample_v3(magic));
        let want = ktrace_expected(&file).unwrap();
        assert!(want.events > 0 && want.chunks.len() > 1);
        ktrace_differential(&file, &kw::write(&file));
    }
    for n in 0..4 {
        for endian in [crate::reader::Endian::Little, crate::reader::Endian::Big] {
            let mut s = crate::formats::gdb::writer::Sample::new(n);
            s.endian = endian;
            gdb_differential(&s.build(), endian);
        }
    }
    let cpus = |name: &str, events| {
        vec![
            (name.to_string(), 0, events, 1),
            (name.to_string(), 1, events, 1),
        ]
    };
    for (v, c) in [
        (6, tw::Compression::None),
        (7, tw::Compression::None),
        (7, tw::Compression::Zstd),
        (7, tw::Compression::Zlib),
    ] {
        let b = tw::Builder::new(v, c);
        tracecmd_differential(&b.build().0, &cpus("", 3));
        let (bytes, _) = b.with_instance("inst").build();
        let mut want = cpus("", 3);
        want.extend(cpus("inst", 2));
        tracecmd_differential(&bytes, &want);
    }
    let rec = |typ, depth| uw::Record {
        time: 1_000_000_100 + u64::from(depth),
        typ,
        more: false,
        depth,
        addr: 0x400110,
        payload: Vec::new(),
    };
    let recs = [rec(0, 0), rec(0, 1), rec(1, 1), rec(3, 1), rec(1, 0)];
    let image = encode_dir_image(uw::minimal(Some(&recs)).files());
    uftrace_differential(&image, &[(100, 5, 2, 2, 1, 0)]);
}

#[cfg(feature = "fuzzing")]
#[test]
#[should_panic(expected = "per-CPU")]
fn differential_check_catches_a_lost_event() {
    use crate::formats::tracecmd::writer as tw;
    let bytes = tw::Builder::new(7, tw::Compression::Zstd).build().0;
    structured::tracecmd_differential(&bytes, &[("".into(), 0, 4, 1), ("".into(), 1, 3, 1)]);
}

#[test]
fn runners_accept_trivial_inputs() {
    for data in [
        &b""[..],
        b"\x7fTRACE0\n",
        b"\x17\x08\x44tracing6\0",
        b"\x00\x03\xaa\x55",
        b"x",
    ] {
        run_detect(data);
        run_tracecmd(data);
        run_gdb_tfile(data);
        run_ktrace(data);
        run_uftrace(data);
    }
}
