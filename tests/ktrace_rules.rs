//! One fixture per KT rule: the writer makes a file with exactly that defect, and the finding
//! must carry the rule's code and the span of the defect.
#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::expect_used)]

use tracelint::formats::ktrace::model::{
    Event, TAG_COMPRESSED_EVENTS, TAG_CONFIG, TAG_CPU_MAP, TAG_EVENTS, TAG_HW_MODEL, TAG_NULL,
    TAG_THREAD_MAP,
};
use tracelint::formats::ktrace::writer::*;
use tracelint::{check_bytes, CheckOptions, Finding, Limits, Severity, Sink};

fn run(data: &[u8], opts: &CheckOptions) -> Vec<Finding> {
    let mut sink = Sink::with_limits(&opts.limits);
    let _ = check_bytes(data, opts, &mut sink);
    sink.into_parts().0
}

/// Asserts a finding of `code` with exactly `span` exists, and returns it.
#[track_caller]
fn expect_with(
    data: &[u8],
    opts: &CheckOptions,
    code: &str,
    span: std::ops::Range<u64>,
) -> Finding {
    let f = run(data, opts);
    let hit = f.iter().find(|f| {
        f.rule.code == code && f.offset == span.start && f.length == span.end - span.start
    });
    match hit {
        Some(h) => h.clone(),
        None => panic!(
            "no {code} at {}..{}; findings:\n{}",
            span.start,
            span.end,
            f.iter()
                .map(|f| format!("  {} {}+{}: {}", f.rule.code, f.offset, f.length, f.message))
                .collect::<Vec<_>>()
                .join("\n")
        ),
    }
}

#[track_caller]
fn expect(data: &[u8], code: &str, span: std::ops::Range<u64>) -> Finding {
    expect_with(data, &CheckOptions::default(), code, span)
}

fn v3() -> V3File {
    // Layout: header 0..56, CPU map sub-chunk 56..104, thread map 104..216 (entries from 120),
    // events 216..880 (events from 240), events 880..1224.
    sample_v3(V3Magic::Libktrace)
}

fn w3(f: V3File) -> Vec<u8> {
    write(&File::V3(f))
}

fn wr(f: RawFile) -> Vec<u8> {
    write(&File::Raw(f))
}

fn first_events(f: &mut V3File) -> &mut Vec<Event> {
    for c in &mut f.body {
        if let Payload::Events { events, .. } = &mut c.payload {
            return events;
        }
    }
    unreachable!()
}

#[test]
fn base_layout_is_as_documented() {
    let b = w3(v3());
    assert_eq!(b.len(), 1224);
    assert_eq!(&b[104..108], &TAG_THREAD_MAP.to_le_bytes());
    assert_eq!(&b[216..220], &TAG_EVENTS.to_le_bytes());
    assert_eq!(&b[880..884], &TAG_EVENTS.to_le_bytes());
    let f = run(&b, &CheckOptions::default());
    assert!(f.iter().all(|f| f.severity == Severity::Info), "{f:#?}");
}

#[test]
fn kt001_truncated_header() {
    let b = w3(v3());
    expect(&b[..50], "KT001", 0..50);
    let v1 = wr(sample_raw(RawVersion::V1));
    expect(&v1[..20], "KT001", 0..20);
    let v2 = wr(sample_raw(RawVersion::V2));
    expect(&v2[..200], "KT001", 0..200);
}

#[test]
fn kt002_v0_by_hint() {
    let b = wr(sample_raw(RawVersion::V0));
    let opts = CheckOptions {
        format_hint: Some(tracelint::formats::ktrace::FORMAT_V0),
        ..CheckOptions::default()
    };
    let f = expect_with(&b, &opts, "KT002", 0..4);
    assert_eq!(f.severity, Severity::Info);
    // kperfdata's layout: events at the next 4 KiB boundary after the map.
    let mut aligned = b[..4 + 96].to_vec();
    aligned.resize(4096, 0);
    aligned.extend_from_slice(&b[4 + 96..]);
    let f = expect_with(&aligned, &opts, "KT002", 100..4096);
    assert!(f.message.contains("kperfdata"), "{}", f.message);
    let all = run(&aligned, &opts);
    assert!(
        !all.iter().any(|f| f.severity == Severity::Error),
        "{all:#?}"
    );
}

#[test]
fn kt003_header_version() {
    let mut f = v3();
    f.header.major = 2;
    expect(&w3(f), "KT003", 4..8);
}

#[test]
fn kt004_zero_timebase() {
    let mut f = v3();
    f.header.denom = 0;
    expect(&w3(f), "KT004", 16..24);
}

#[test]
fn kt005_reserved_flags() {
    let mut f = v3();
    f.header.flags = 3;
    expect(&w3(f), "KT005", 52..56);
    let mut r = sample_raw(RawVersion::V2);
    r.v2_flags = 2;
    expect(&wr(r), "KT005", 20..24);
}

#[test]
fn kt006_header_size() {
    let mut f = v3();
    f.header.header_size = Some(30);
    expect(&w3(f), "KT006", 8..16);
    let mut f = v3();
    f.header.header_size = Some(1 << 40);
    expect(&w3(f), "KT006", 8..16);
    // 8 bytes more than the sub-chunks: a fragment too short for a sub-chunk header.
    let mut f = v3();
    f.header.header_size = Some(40 + 48 + 8);
    expect(&w3(f), "KT006", 104..112);
}

#[test]
fn kt007_chunk_truncated() {
    let b = w3(v3());
    expect(&b[..1000], "KT007", 880..1000);
    // A header sub-chunk longer than the header.
    let mut f = v3();
    f.header_chunks[0].length = LengthMode::Value(100);
    expect(&w3(f), "KT007", 56..104);
}

#[test]
fn kt008_unfinalized_chunk() {
    let mut f = v3();
    f.body[2].length = LengthMode::Unfinalized;
    let b = w3(f);
    let hit = expect(&b, "KT008", 888..896);
    assert_eq!(hit.severity, Severity::Error);
}

#[test]
fn kt009_chunk_misplaced() {
    let mut f = v3();
    f.header_chunks
        .push(Chunk::new(TAG_NULL, 0, Payload::Bytes(vec![0; 8])));
    expect(&w3(f), "KT009", 104..120);
    let mut f = v3();
    f.body.push(Chunk::new(
        TAG_HW_MODEL,
        0,
        Payload::Bytes(b"Mac14,2".to_vec()),
    ));
    expect(&w3(f), "KT009", 1224..1240);
}

#[test]
fn kt010_unknown_chunk() {
    let mut f = v3();
    f.body
        .push(Chunk::new(0x4242, 0, Payload::Bytes(vec![1; 5])));
    f.body
        .push(Chunk::new(0x4242, 0, Payload::Bytes(vec![1; 5])));
    let b = w3(f);
    let hit = expect(&b, "KT010", 1224..1240);
    assert_eq!(hit.severity, Severity::Info);
    let n = run(&b, &CheckOptions::default())
        .iter()
        .filter(|f| f.rule.code == "KT010")
        .count();
    assert_eq!(n, 1, "reported once per tag");
}

#[test]
fn kt011_nonzero_padding() {
    let mut f = v3();
    let mut c = Chunk::new(0x4242, 0, Payload::Bytes(vec![1; 5]));
    c.pad = PadMode::Byte(0xaa);
    f.body.push(c);
    expect(&w3(f), "KT011", 1245..1248);
    let mut r = sample_raw(RawVersion::V1);
    r.header_pad = 7;
    expect(&wr(r), "KT011", 20..24);
    let mut r = sample_raw(RawVersion::V2);
    r.v2_reserved_byte = 1;
    expect(&wr(r), "KT011", 32..288);
    let mut r = sample_raw(RawVersion::V1);
    r.gap_byte = 0xff;
    expect(&wr(r), "KT011", 120..4096);
}

#[test]
fn kt012_missing_chunk_padding() {
    let mut f = v3();
    let mut c = Chunk::new(0x8002, 1, Payload::Bytes(vec![1; 5]));
    c.pad = PadMode::Omit;
    f.body.insert(2, c);
    let b = w3(f);
    expect(&b, "KT012", 901..917);
    // Checking resumed at the unpadded chunk: its events were read.
    let f = run(&b, &CheckOptions::default());
    assert!(
        !f.iter()
            .any(|f| f.rule.code == "KT013" || f.rule.code == "KT007"),
        "{f:#?}"
    );
}

#[test]
fn kt013_trailing_bytes() {
    let mut f = v3();
    f.trailing = vec![0; 5];
    expect(&w3(f), "KT013", 1224..1229);
}

#[test]
fn kt014_cpumap_size() {
    let mut f = v3();
    f.header_chunks = vec![Chunk::new(TAG_CPU_MAP, 0, Payload::Bytes(vec![0; 20]))];
    expect(&w3(f), "KT014", 64..72);
    let mut r = sample_raw(RawVersion::V1);
    r.cpus = Some(vec![Cpu::ap(0)]);
    r.cpu_count = Some(0);
    expect(&wr(r), "KT014", 124..128);
    let mut r = sample_raw(RawVersion::V1);
    r.cpus = Some(vec![Cpu::ap(0)]);
    r.cpu_count = Some(1000);
    expect(&wr(r), "KT014", 124..128);
}

#[test]
fn kt015_cpumap_ext() {
    let mut f = v3();
    f.header_chunks = vec![Chunk::new(
        TAG_CPU_MAP,
        0,
        Payload::CpuMapExt(vec![Cpu::ap(0), Cpu::ap(1)]),
    )];
    let b = w3(f);
    let hit = expect(&b, "KT015", 56..72);
    assert_eq!(hit.severity, Severity::Info);
}

#[test]
fn kt016_cpumap_entry() {
    let mut f = v3();
    f.header_chunks = vec![Chunk::cpu_map(0, vec![Cpu::ap(0), Cpu::ap(5)])];
    expect(&w3(f), "KT016", 88..92);
    let mut f = v3();
    f.header_chunks = vec![Chunk::cpu_map(0, vec![Cpu::iop(0, "SIO"), Cpu::ap(1)])];
    expect(&w3(f), "KT016", 88..92);
    let mut f = v3();
    let mut c = Cpu::ap(1);
    c.name[..8].copy_from_slice(b"ABCDEFGH");
    f.header_chunks = vec![Chunk::cpu_map(0, vec![Cpu::ap(0), c])];
    expect(&w3(f), "KT016", 96..104);
}

#[test]
fn kt017_duplicate_cpumap() {
    let mut f = v3();
    f.header_chunks.push(Chunk::cpu_map(0, vec![Cpu::ap(0)]));
    expect(&w3(f), "KT017", 104..120);
}

#[test]
fn kt018_threadmap_size() {
    let mut f = v3();
    f.body[0] = Chunk::new(TAG_THREAD_MAP, 0, Payload::Bytes(vec![0; 40]));
    expect(&w3(f), "KT018", 112..120);
    // A thread count of 2^31 is checked against the bytes that remain, not allocated.
    let mut r = sample_raw(RawVersion::V1);
    r.thread_count = Some(1 << 31);
    expect(&wr(r), "KT018", 4..8);
    let mut r = sample_raw(RawVersion::V2);
    r.thread_count = Some(u32::MAX);
    expect(&wr(r), "KT018", 4..8);
}

#[test]
fn thread_count_above_max_entries_is_a_limit() {
    let b = wr(sample_raw(RawVersion::V1));
    let opts = CheckOptions {
        limits: Limits {
            max_entries: 2,
            ..Limits::default()
        },
        ..CheckOptions::default()
    };
    expect_with(&b, &opts, "TL003", 24..120);
}

#[test]
fn kt019_thread_name() {
    let mut f = v3();
    let mut t = Thread::new(0x101, 0, "x");
    t.command = *b"abcdefghijklmnopqrst";
    f.body[0] = Chunk::thread_map(0, vec![t]);
    expect(&w3(f), "KT019", 132..152);
    let mut f = v3();
    let mut t = Thread::new(0x101, 0, "ab");
    t.command[10] = b'z';
    f.body[0] = Chunk::thread_map(0, vec![t]);
    expect(&w3(f), "KT019", 142..152);
}

#[test]
fn kt020_thread_entry() {
    let zero = Thread {
        thread: 0,
        pid: 0,
        command: [0; 20],
    };
    let mut f = v3();
    f.body[0] = Chunk::thread_map(0, vec![zero.clone(), Thread::new(0x101, 0, "a")]);
    expect(&w3(f), "KT020", 120..152);
    let mut f = v3();
    f.body[0] = Chunk::thread_map(0, vec![Thread::new(0, 5, "a")]);
    expect(&w3(f), "KT020", 120..128);
    // Trailing zero entries counted in thread_count are the kernel's padding: fine.
    let mut r = sample_raw(RawVersion::V1);
    r.extra_zero_threads = 5;
    let f = run(&wr(r), &CheckOptions::default());
    assert!(!f.iter().any(|f| f.rule.code == "KT020"), "{f:#?}");
}

#[test]
fn kt021_event_chunk_size() {
    let mut f = v3();
    f.body.push(Chunk::new(
        TAG_EVENTS,
        0,
        Payload::Bytes(vec![0; 8 + 64 + 10]),
    ));
    expect(&w3(f), "KT021", 1232..1240);
    let mut f = v3();
    f.body.push(Chunk::new(
        TAG_COMPRESSED_EVENTS,
        0,
        Payload::Bytes(vec![0; 8]),
    ));
    expect(&w3(f), "KT021", 1232..1240);
    // Without a valid chunk after it, a 64n length is an error, not the quirk.
    let mut f = v3();
    f.body[1].length = LengthMode::OmitEventTimestamp;
    f.body[2] = Chunk::new(0x7777_7777, 9, Payload::Bytes(vec![0; 8]));
    expect(&w3(f), "KT021", 224..232);
}

#[test]
fn kt022_event_length_quirk() {
    let mut f = sample_v3(V3Magic::Kernel);
    f.body[1].length = LengthMode::OmitEventTimestamp;
    let b = w3(f);
    let hit = expect(&b, "KT022", 224..232);
    assert_eq!(hit.severity, Severity::Info);
    let f = run(&b, &CheckOptions::default());
    assert!(!f.iter().any(|f| f.severity == Severity::Error), "{f:#?}");
}

#[test]
fn kt023_compressed_events() {
    let mut f = v3();
    f.body.push(Chunk::new(
        TAG_COMPRESSED_EVENTS,
        0,
        Payload::Bytes(vec![0; 16]),
    ));
    expect(&w3(f), "KT023", 1224..1240);
}

#[test]
fn kt024_null_chunk_data() {
    let mut f = v3();
    f.body.push(Chunk::new(
        TAG_NULL,
        0,
        Payload::Bytes(vec![0, 0, 1, 0, 0, 0, 0, 0]),
    ));
    expect(&w3(f), "KT024", 1242..1243);
}

#[test]
fn kt025_config_chunk() {
    let mut f = v3();
    f.body
        .push(Chunk::new(TAG_CONFIG, 0, Payload::Bytes(vec![0; 8])));
    expect(&w3(f), "KT025", 1224..1240);
}

#[test]
fn kt026_events_offset() {
    let b = wr(sample_raw(RawVersion::V1));
    expect(&b[..2000], "KT026", 120..2000);
    // Events written right after the V2 header (as pykdebugparser's test vector does).
    let mut r = sample_raw(RawVersion::V2);
    r.threads.clear();
    r.events.truncate(3);
    r.events_gap = Some(0);
    expect(&wr(r), "KT026", 288..480);
}

#[test]
fn kt027_partial_event() {
    let mut r = sample_raw(RawVersion::V1);
    r.trailing = vec![0; 10];
    expect(&wr(r), "KT027", 5376..5386);
}

#[test]
fn kt028_v2_tick_frequency() {
    let mut r = sample_raw(RawVersion::V2);
    r.tick_frequency = 0;
    expect(&wr(r), "KT028", 24..32);
}

#[test]
fn kt029_event_cpu_range() {
    let mut f = v3();
    first_events(&mut f)[0].cpuid = 7;
    expect(&w3(f), "KT029", 240..304);
    let mut r = sample_raw(RawVersion::V1);
    r.cpus = Some(vec![Cpu::ap(0), Cpu::ap(1)]);
    r.events[1].cpuid = 2;
    expect(&wr(r), "KT029", 4160..4224);
}

#[test]
fn kt030_event_unused() {
    let mut f = v3();
    first_events(&mut f)[0].unused = 1;
    expect(&w3(f), "KT030", 240..304);
}

#[test]
fn kt031_event_debugid() {
    let mut f = v3();
    first_events(&mut f)[0].debugid = 0x0000_1234;
    expect(&w3(f), "KT031", 240..304);
}

#[test]
fn kt032_timestamp_backwards() {
    let mut f = v3();
    first_events(&mut f)[2].timestamp = 5;
    let hit = expect(&w3(f), "KT032", 368..432);
    assert_eq!(hit.severity, Severity::Warning);
}

#[test]
fn kt033_unknown_thread() {
    let mut f = v3();
    first_events(&mut f)[0].thread = 0x999;
    first_events(&mut f)[1].thread = 0;
    let b = w3(f);
    expect(&b, "KT033", 240..304);
    let n = run(&b, &CheckOptions::default())
        .iter()
        .filter(|f| f.rule.code == "KT033")
        .count();
    assert_eq!(n, 1, "thread 0 is not reported");
}

#[test]
fn kt034_chunk_version() {
    let mut f = v3();
    f.body[0].major = 2;
    expect(&w3(f), "KT034", 108..112);
}

#[test]
fn many_defects_are_summarised() {
    let mut f = v3();
    for e in first_events(&mut f).iter_mut() {
        e.unused = 9;
    }
    for c in &mut f.body {
        if let Payload::Events { events, .. } = &mut c.payload {
            for e in events.iter_mut() {
                e.unused = 9;
            }
        }
    }
    let found = run(&w3(f), &CheckOptions::default());
    let n: Vec<_> = found.iter().filter(|f| f.rule.code == "KT030").collect();
    assert_eq!(n.len(), 11, "10 shown + 1 summary");
    assert!(n[10].message.contains("5 more"), "{}", n[10].message);
}

/// Every fixture of this file is named after its rule (`fn kt011_...`); which rules a fixture
/// raises is checked by `tests/rule_coverage.rs`.
#[test]
fn every_rule_documents_its_spec() {
    for r in tracelint::formats::ktrace::rules::RULES {
        assert!(
            r.docs.contains("## What it checks") && r.docs.contains("## Spec"),
            "{}",
            r.code
        );
    }
}
