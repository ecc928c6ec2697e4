//! The ftrace ring-buffer page walker: one fixture per rule (built with the page writer, each
//! asserting the code and the exact span), encoding round trips, robustness sweeps, and a
//! comparison with `trace-cmd report` on the real corpus files.
#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]

mod common;

use std::collections::BTreeMap;
use std::process::Command;
use tracelint::formats::ftrace_ring::writer::{self, payload, payload_in, Item, PageBuilder};
use tracelint::formats::ftrace_ring::{walk_cpu, CpuStats, EventTable, RingParams, Walker};
use tracelint::reader::{Endian, Reader};
use tracelint::{Finding, Severity, Sink};

const PS: u32 = 4096;
const BASE: u64 = 0x10000;
/// Data start in an 8-byte-long page.
const D: u64 = BASE + 16;

fn table() -> EventTable {
    let mut t = EventTable::new();
    assert!(t.insert(7, "test:seven", 16));
    assert!(t.insert(300, "test:big", 8));
    assert!(!t.insert(70000, "test:too-big-id", 8));
    t
}

fn params() -> RingParams {
    RingParams::new(PS, 8, Endian::Little, 0, "")
}

fn walk_with(data: &[u8], params: RingParams, table: &EventTable) -> (CpuStats, Vec<Finding>) {
    let mut sink = Sink::new(10_000);
    let stats = walk_cpu(
        Reader::with_base(data, BASE, params.endian),
        params,
        table,
        &mut sink,
    );
    let (f, _) = sink.into_parts();
    for x in &f {
        assert!(
            x.offset >= BASE && x.offset + x.length <= BASE + data.len() as u64,
            "{} span {:#x}+{} outside the data: {}",
            x.rule.code,
            x.offset,
            x.length,
            x.message
        );
    }
    (stats, f)
}

fn walk(pages: &[PageBuilder]) -> (CpuStats, Vec<Finding>) {
    walk_with(
        &writer::pages(pages, PS, 8, Endian::Little),
        params(),
        &table(),
    )
}

/// Asserts exactly one finding of `code` with span `start..end`; returns it.
fn one<'a>(f: &'a [Finding], code: &str, start: u64, end: u64) -> &'a Finding {
    let hits: Vec<_> = f.iter().filter(|x| x.rule.code == code).collect();
    assert_eq!(hits.len(), 1, "want one {code}, got {f:#?}");
    let h = hits[0];
    assert_eq!(
        (h.offset, h.offset + h.length),
        (start, end),
        "span of {code}: {}",
        h.message
    );
    h
}

fn codes(f: &[Finding]) -> Vec<&'static str> {
    f.iter().map(|x| x.rule.code).collect()
}

fn good_page(ts: u64) -> PageBuilder {
    PageBuilder::new(ts)
        .event(10, payload(7, 16))
        .event(3, payload(300, 8))
        .time_extend(5 << 27)
        .event(0, payload(7, 200))
        .padding(1, 12)
        .event(2, payload(7, 112))
        .long_event(1, payload(7, 40))
}

#[test]
fn clean_pages_have_no_findings() {
    let (s, f) = walk(&[good_page(1000), good_page(1_000_000_000_000)]);
    assert!(f.is_empty(), "{f:#?}");
    assert_eq!(s.pages, 2);
    assert_eq!(s.events, 10);
    assert_eq!(s.padding, 2);
    assert_eq!(s.time_extends, 2);
    assert_eq!(s.first_ts, Some(1010));
    assert_eq!(s.lost_events, 0);
    let last = 1_000_000_000_000 + 10 + 3 + (5 << 27) + 1 + 2 + 1;
    assert_eq!(s.last_ts, Some(last));
}

#[test]
fn timestamps_follow_deltas_extends_and_stamps() {
    for (ls, e) in [
        (8u8, Endian::Little),
        (4, Endian::Little),
        (8, Endian::Big),
        (4, Endian::Big),
    ] {
        let pl = || payload_in(7, 16, e);
        let page = PageBuilder::new(100)
            .event(5, pl())
            .time_extend((3 << 27) + 9)
            .event(0, pl())
            .time_stamp(0x0123_4567_89ab)
            .event(4, pl())
            .padding(6, 8)
            .event(1, pl());
        let bytes = page.build(PS, ls, e);
        let p = RingParams::new(PS, ls, e, 3, "inst");
        let t = table();
        let mut w = Walker::new(p, &t);
        let mut sink = Sink::new(100);
        let mut got = Vec::new();
        w.page_with(Reader::with_base(&bytes, 0, e), &mut sink, |r| {
            got.push((r.ts, r.id, r.payload.len()))
        });
        let s = w.finish(&mut sink);
        assert!(
            sink.findings().is_empty(),
            "{ls} {e}: {:#?}",
            sink.findings()
        );
        assert_eq!(
            got,
            vec![
                (105, Some(7), 16),
                (105 + (3 << 27) + 9, Some(7), 16),
                (0x0123_4567_89ab + 4, Some(7), 16),
                (0x0123_4567_89ab + 4 + 6 + 1, Some(7), 16),
            ],
            "{ls} {e}"
        );
        assert_eq!((s.time_stamps, s.time_extends, s.padding), (1, 1, 1));
    }
}

#[test]
fn td100_partial_page() {
    let mut data = writer::pages(&[good_page(1)], PS, 8, Endian::Little);
    data.extend_from_slice(&[0; 100]);
    let (s, f) = walk_with(&data, params(), &table());
    one(&f, "TD100", BASE + 4096, BASE + 4196);
    assert_eq!(s.pages, 2);
    // A page shorter than its header.
    let (_, f) = walk_with(&[0; 10], params(), &table());
    one(&f, "TD100", BASE, BASE + 10);
}

#[test]
fn td101_commit_too_large() {
    let (_, f) = walk(&[PageBuilder::new(1).commit(4081)]);
    one(&f, "TD101", BASE + 8, BASE + 16);
    // With a 4-byte commit word the data area is 4084 bytes.
    let page = PageBuilder::new(1)
        .commit(4085)
        .build(PS, 4, Endian::Little);
    let (_, f) = walk_with(
        &page,
        RingParams::new(PS, 4, Endian::Little, 0, ""),
        &table(),
    );
    one(&f, "TD101", BASE + 8, BASE + 12);
    let page = PageBuilder::new(1)
        .commit(4084)
        .build(PS, 4, Endian::Little);
    let (_, f) = walk_with(
        &page,
        RingParams::new(PS, 4, Endian::Little, 0, ""),
        &table(),
    );
    assert!(!codes(&f).contains(&"TD101"), "{f:#?}");
}

#[test]
fn td102_commit_flags() {
    for commit in [
        1u64 << 30,            // stored without missed
        (1 << 28),             // reserved bit
        0xffff_ffff_0000_0000, // ones without missed
        0x0000_0001_8000_0000, // partial upper half
    ] {
        let (_, f) = walk(&[PageBuilder::new(1).commit(commit)]);
        one(&f, "TD102", BASE + 8, BASE + 16);
    }
    // The kernel's sign-extended flags and a zero upper half with the flag are both fine.
    for commit in [0xffff_ffff_8000_0000u64, 0x8000_0000] {
        let (s, f) = walk(&[PageBuilder::new(1).commit(commit)]);
        assert_eq!(codes(&f), vec!["TD113"], "{commit:#x}");
        assert!(
            f[0].message
                .contains("an unknown number of events were lost on CPU 0"),
            "{}",
            f[0].message
        );
        assert_eq!(s.missed_unknown_pages, 1);
    }
}

#[test]
fn td103_missed_count_outside_page() {
    // 4076 data bytes: a padding event filling them leaves 4 bytes, too few for a u64 count.
    let page = PageBuilder::new(1).padding(1, 4072).missed(Some(5));
    let (s, f) = walk(&[page]);
    one(&f, "TD103", BASE + 8, BASE + 16);
    assert_eq!(s.missed_unknown_pages, 1);
    // 4072 bytes leave exactly room for the count.
    let page = PageBuilder::new(1).padding(1, 4068).missed(Some(5));
    let (s, f) = walk(&[page]);
    assert_eq!(codes(&f), vec!["TD113"]);
    assert_eq!(s.lost_events, 5);
}

#[test]
fn td104_tail_not_zero() {
    let page = PageBuilder::new(1)
        .event(0, payload(7, 16))
        .patch(16 + 20 + 30, 1)
        .patch(4095, 9);
    let (_, f) = walk(&[page]);
    let x = one(&f, "TD104", D + 20 + 30, BASE + 4096);
    assert!(x.message.contains("2 non-zero"), "{}", x.message);
    // After a stored lost count, the tail starts after the count.
    let page = PageBuilder::new(1)
        .event(0, payload(7, 16))
        .missed(Some(u64::MAX))
        .patch(16 + 28, 1);
    let (_, f) = walk(&[page]);
    one(&f, "TD104", D + 28, D + 29);
}

#[test]
fn td105_event_overruns_commit() {
    // A 20-byte event with commit 12.
    let page = PageBuilder::new(1).event(0, payload(7, 16)).commit(12);
    let (_, f) = walk(&[page]);
    one(&f, "TD105", D, D + 12);
    one(&f, "TD104", D + 12, D + 20);
    // A type_len 0 event whose array[0] runs past the data.
    let page = PageBuilder::new(1)
        .event(0, payload(7, 16))
        .item(Item::Header {
            type_len: 0,
            delta: 0,
        })
        .raw(4000u32.to_le_bytes().to_vec())
        .raw(payload(7, 8));
    let (_, f) = walk(&[page]);
    one(&f, "TD105", D + 20, D + 36);
    // A lone header word piece: 2 bytes left.
    let page = PageBuilder::new(1).event(0, payload(7, 16)).raw(vec![1, 0]);
    let (_, f) = walk(&[page]);
    one(&f, "TD105", D + 20, D + 22);
    // Padding running past the end.
    let page = PageBuilder::new(1).padding(1, 16).commit(12);
    let (_, f) = walk(&[page]);
    one(&f, "TD105", D, D + 12);
}

#[test]
fn td106_data_length_invalid() {
    let page = PageBuilder::new(1)
        .item(Item::Header {
            type_len: 0,
            delta: 0,
        })
        .raw(2u32.to_le_bytes().to_vec());
    let (_, f) = walk(&[page]);
    one(&f, "TD106", D + 4, D + 8);
}

#[test]
fn td107_data_length_unaligned() {
    let page = PageBuilder::new(1).long_event(0, payload(7, 17));
    let (s, f) = walk(&[page]);
    assert_eq!(codes(&f), vec!["TD107"]);
    one(&f, "TD107", D + 4, D + 8);
    assert_eq!(s.events, 1);
    assert_eq!(f[0].severity, Severity::Warning);
}

#[test]
fn td108_padding_length_invalid() {
    for len in [0u32, 2, 6] {
        let page = PageBuilder::new(1).event(0, payload(7, 16)).padding(1, len);
        let (_, f) = walk(&[page]);
        one(&f, "TD108", D + 24, D + 28);
    }
    // The hang of trace-cmd 3.1.6: array[0] = 0xfffffffc.
    let page = PageBuilder::new(1)
        .item(Item::Header {
            type_len: 29,
            delta: 1,
        })
        .raw(0xffff_fffcu32.to_le_bytes().to_vec());
    let (_, f) = walk(&[page]);
    one(&f, "TD105", D, D + 8);
}

#[test]
fn td109_null_padding_in_data() {
    let page = PageBuilder::new(1)
        .event(0, payload(7, 16))
        .item(Item::NullPadding)
        .event(0, payload(7, 16));
    let (s, f) = walk(&[page]);
    one(&f, "TD109", D + 20, D + 24);
    assert_eq!(s.events, 1);
}

#[test]
fn td110_payload_too_short() {
    // Format needs 16 bytes, payload has 8.
    let (_, f) = walk(&[PageBuilder::new(1).event(0, payload(7, 8))]);
    let x = one(&f, "TD110", D + 4, D + 12);
    assert!(x.message.contains("test:seven"), "{}", x.message);
    // No room for common_type at all.
    let page = PageBuilder::new(1).long_event(0, vec![]);
    let (_, f) = walk(&[page]);
    one(&f, "TD110", D + 8, D + 8);
    // Without formats only the id space is checked.
    let data = writer::pages(
        &[PageBuilder::new(1).event(0, payload(7, 8))],
        PS,
        8,
        Endian::Little,
    );
    let (_, f) = walk_with(&data, params(), &EventTable::new());
    assert!(f.is_empty());
}

#[test]
fn td111_unknown_event_id() {
    let (_, f) = walk(&[PageBuilder::new(1)
        .event(0, payload(7, 16))
        .event(0, payload(99, 16))]);
    one(&f, "TD111", D + 24, D + 26);
    // Capped per CPU, with a summary.
    let mut p = PageBuilder::new(1);
    for _ in 0..30 {
        p = p.event(0, payload(99, 16));
    }
    let (_, f) = walk(&[p]);
    let n = f.iter().filter(|x| x.rule.code == "TD111").count();
    assert_eq!(n, 21);
    assert!(
        f.last().unwrap().message.contains("10 more"),
        "{:#?}",
        f.last()
    );
}

#[test]
fn td112_timestamp_backwards() {
    // The second page starts before the first page's last record.
    let (_, f) = walk(&[
        PageBuilder::new(1000).event(50, payload(7, 16)),
        PageBuilder::new(1020).event(50, payload(7, 16)),
    ]);
    let x = one(&f, "TD112", BASE + 4096, BASE + 4104);
    assert_eq!(x.severity, Severity::Warning);
    // One jump back is one finding, not one per later record; pages without records count.
    let (_, f) = walk(&[
        PageBuilder::new(5000),
        PageBuilder::new(1020)
            .event(50, payload(7, 16))
            .event(50, payload(7, 16))
            .event(50, payload(7, 16)),
    ]);
    one(&f, "TD112", BASE + 4096, BASE + 4104);
    // An all-zero page header (the unused part of a larger sub-buffer written by trace-cmd
    // convert) is not a jump back, and later pages are still compared with the last record.
    let (_, f) = walk(&[
        PageBuilder::new(1000).event(50, payload(7, 16)),
        PageBuilder::new(0),
        PageBuilder::new(2000).event(50, payload(7, 16)),
    ]);
    assert!(!f.iter().any(|x| x.rule.code == "TD112"), "{f:?}");
    let (_, f) = walk(&[
        PageBuilder::new(1000).event(50, payload(7, 16)),
        PageBuilder::new(0),
        PageBuilder::new(1020),
    ]);
    one(&f, "TD112", BASE + 8192, BASE + 8200);
    // An absolute stamp going back inside a page.
    let (_, f) = walk(&[PageBuilder::new(1000)
        .event(50, payload(7, 16))
        .time_stamp(500)
        .event(0, payload(7, 16))]);
    one(&f, "TD112", D + 28, D + 32);
}

#[test]
fn td113_events_lost() {
    let (s, f) = walk(&[
        good_page(1),
        PageBuilder::new(1 << 40)
            .event(0, payload(7, 16))
            .missed(Some(42)),
        PageBuilder::new(1 << 41)
            .event(0, payload(7, 16))
            .missed(Some(8)),
        PageBuilder::new(1 << 42).padding(1, 4076).missed(None),
    ]);
    let x = one(&f, "TD113", BASE + 4096 + 8, BASE + 4096 + 16);
    assert!(
        x.message.contains("50 events lost on CPU 0"),
        "{}",
        x.message
    );
    assert!(x.message.contains("unknown number"), "{}", x.message);
    assert_eq!(
        (s.missed_pages, s.missed_unknown_pages, s.lost_events),
        (3, 1, 50)
    );
    assert_eq!(codes(&f), vec!["TD113"]);
}

#[test]
fn context_note_and_buffer_name() {
    let t = table();
    let mut w = Walker::new(RingParams::new(PS, 8, Endian::Little, 1, "foo"), &t);
    w.set_context(Some(
        "in the decompressed chunk at file offset 0x3000".into(),
    ));
    let page = PageBuilder::new(1)
        .commit(5000)
        .build(PS, 8, Endian::Little);
    let mut sink = Sink::new(10);
    w.page(Reader::with_base(&page, 0x3000, Endian::Little), &mut sink);
    w.finish(&mut sink);
    let f = &sink.findings()[0];
    assert_eq!(f.rule.code, "TD101");
    assert!(
        f.message.contains("CPU 1 of buffer \"foo\""),
        "{}",
        f.message
    );
    assert_eq!(
        f.notes,
        vec!["in the decompressed chunk at file offset 0x3000"]
    );
}

/// Every single-byte change and every truncation of a page of all event kinds gives findings
/// inside the data and never panics; random pages too.
#[test]
fn mutation_sweep_never_panics() {
    let t = table();
    for (ls, e) in [(8u8, Endian::Little), (4, Endian::Big)] {
        let page = good_page(77)
            .time_stamp(1 << 40)
            .event(1, payload(7, 16))
            .missed(Some(3))
            .build(PS, ls, e);
        let used = 16 + 400;
        let p = RingParams::new(PS, ls, e, 0, "");
        for i in 0..used {
            for v in [0u8, 0xff, page[i] ^ 0x1f, page[i] ^ 0xe0] {
                let mut m = page.clone();
                m[i] = v;
                walk_with(&m, p.clone(), &t);
            }
        }
        for cut in (0..page.len()).step_by(7) {
            walk_with(&page[..cut], p.clone(), &t);
        }
    }
}

/// Single-byte changes of a real page (v6.dat, CPU 0) never panic and keep spans inside.
#[test]
fn real_page_mutation_sweep() {
    let bytes = std::fs::read(corpus_path("v6.dat")).unwrap();
    let page = &bytes[65536..65536 + 4096];
    let t = if have_trace_cmd() {
        table_from_trace_cmd(&corpus_path("v6.dat"))
    } else {
        table()
    };
    let commit = u64::from_le_bytes(page[8..16].try_into().unwrap()) as usize;
    let mut flagged = 0;
    for i in 0..(16 + commit + 8).min(4096) {
        for v in [page[i] ^ 0xff, page[i] ^ 0x01, page[i] ^ 0x20, 0] {
            let mut m = page.to_vec();
            if m[i] == v {
                continue;
            }
            m[i] = v;
            let (_, f) = walk_with(&m, params(), &t);
            if f.iter().any(|x| x.severity == Severity::Error) {
                flagged += 1;
            }
        }
    }
    assert!(flagged > 100, "only {flagged} mutations flagged");
}

/// A page read from `per_cpu/cpu0/trace_pipe_raw` of a tracefs instance on this machine's
/// kernel (6.18, x86-64): 12 `tracing_mark_write` records of 28 and 140 payload bytes (the
/// long ones use `type_len 0`), with a `TIME_EXTEND` before every pair (writes 0.2 s apart).
/// The data (16-byte header + 1120 bytes) is below; the rest of the page was zero.
const KERNEL_PAGE_HEX: &str = concat!(
    "ab27c7776a03000060040000000000000700000005000001e32e0000da874981ffffffff73686f727420310a00000000",
    "405406009000000005000001e32e0000da874981ffffffff746869732069732061206c6f6e67206d61726b6572206c69",
    "6e65207468617420697320646566696e6974656c79206c6f6e676572207468616e206f6e652068756e6472656420616e",
    "64207477656c766520627974657320736f20746865206b65726e656c207573657320747970655f6c656e207a65726f20",
    "310a0000be171bab010000000700000005000001e82e0000da874981ffffffff73686f727420320a0000000000d70400",
    "9000000005000001e82e0000da874981ffffffff746869732069732061206c6f6e67206d61726b6572206c696e652074",
    "68617420697320646566696e6974656c79206c6f6e676572207468616e206f6e652068756e6472656420616e64207477",
    "656c766520627974657320736f20746865206b65726e656c207573657320747970655f6c656e207a65726f20320a0000",
    "fe397f94010000000700000005000001ec2e0000da874981ffffffff73686f727420330a0000000060fa040090000000",
    "05000001ec2e0000da874981ffffffff746869732069732061206c6f6e67206d61726b6572206c696e65207468617420",
    "697320646566696e6974656c79206c6f6e676572207468616e206f6e652068756e6472656420616e64207477656c7665",
    "20627974657320736f20746865206b65726e656c207573657320747970655f6c656e207a65726f20330a00005e51938b",
    "010000000700000005000001ef2e0000da874981ffffffff73686f727420340a00000000c0b206009000000005000001",
    "ef2e0000da874981ffffffff746869732069732061206c6f6e67206d61726b6572206c696e6520746861742069732064",
    "6566696e6974656c79206c6f6e676572207468616e206f6e652068756e6472656420616e64207477656c766520627974",
    "657320736f20746865206b65726e656c207573657320747970655f6c656e207a65726f20340a0000be3b029d01000000",
    "0700000005000001f42e0000da874981ffffffff73686f727420350a00000000a0fc04009000000005000001f42e0000",
    "da874981ffffffff746869732069732061206c6f6e67206d61726b6572206c696e65207468617420697320646566696e",
    "6974656c79206c6f6e676572207468616e206f6e652068756e6472656420616e64207477656c76652062797465732073",
    "6f20746865206b65726e656c207573657320747970655f6c656e207a65726f20350a00001ee226b30100000007000000",
    "05000001fc2e0000da874981ffffffff73686f727420360a0000000020d105009000000005000001fc2e0000da874981",
    "ffffffff746869732069732061206c6f6e67206d61726b6572206c696e65207468617420697320646566696e6974656c",
    "79206c6f6e676572207468616e206f6e652068756e6472656420616e64207477656c766520627974657320736f207468",
    "65206b65726e656c207573657320747970655f6c656e207a65726f20360a0000",
);

/// Timestamps the instance's `trace` file showed for these records (µs, rounded).
const KERNEL_PAGE_US: [u64; 12] = [
    3755810957, 3755810970, 3756034897, 3756034907, 3756246979, 3756246990, 3756454385, 3756454399,
    3756670934, 3756670945, 3756899089, 3756899101,
];

#[test]
fn kernel_page_with_long_events_and_time_extends() {
    let hex = KERNEL_PAGE_HEX.as_bytes();
    let mut page: Vec<u8> = hex
        .chunks(2)
        .map(|c| u8::from_str_radix(std::str::from_utf8(c).unwrap(), 16).unwrap())
        .collect();
    page.resize(4096, 0);
    let mut t = EventTable::new();
    t.insert(5, "ftrace:print", 16);
    let mut w = Walker::new(params(), &t);
    let mut sink = Sink::new(100);
    let mut recs = Vec::new();
    w.page_with(Reader::new(&page, Endian::Little), &mut sink, |r| {
        recs.push(((r.ts + 500) / 1000, r.payload.len()))
    });
    let s = w.finish(&mut sink);
    assert!(sink.findings().is_empty(), "{:#?}", sink.findings());
    assert_eq!(
        recs.iter().map(|r| r.0).collect::<Vec<_>>(),
        KERNEL_PAGE_US.to_vec()
    );
    assert_eq!(
        recs.iter().map(|r| r.1).collect::<Vec<_>>(),
        [28, 140].repeat(6)
    );
    assert_eq!((s.events, s.time_extends, s.data_bytes), (12, 5, 1120));
}

mod prop {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]
        #[test]
        fn random_pages_stay_in_bounds(
            bytes in proptest::collection::vec(any::<u8>(), 0..600),
            commit in any::<u64>(),
            ls in prop_oneof![Just(4u8), Just(8u8)],
            big in any::<bool>(),
            ps in prop_oneof![Just(64u32), Just(256u32), Just(4096u32)],
        ) {
            let e = if big { Endian::Big } else { Endian::Little };
            let page = PageBuilder::new(5).raw(bytes).commit((commit % 8192) | (commit & 0xffff_ffff_c000_0000));
            let data = page.build(ps, ls, e);
            walk_with(&data, RingParams::new(ps, ls, e, 0, ""), &table());
        }

        #[test]
        fn random_items_stay_in_bounds(
            items in proptest::collection::vec((0u32..32, any::<u32>(), any::<u32>()), 0..40),
        ) {
            let mut p = PageBuilder::new(9);
            for (tl, d, a) in items {
                p = p.item(Item::Header { type_len: tl, delta: d }).raw((a % 64).to_le_bytes().to_vec());
            }
            let data = p.build(PS, 8, Endian::Little);
            walk_with(&data, params(), &table());
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Real files.

/// Per-CPU data of the corpus files, located with `trace-cmd dump --options --flyrecord`
/// (checked against the BUFFER option / flyrecord table by `located_offsets_match_dump`).
struct Cpu {
    file: &'static str,
    buffer: &'static str,
    cpu: u32,
    offset: u64,
    size: u64,
    zstd: bool,
}

const CPUS: &[Cpu] = &[
    Cpu {
        file: "v6.dat",
        buffer: "",
        cpu: 0,
        offset: 65536,
        size: 4096,
        zstd: false,
    },
    Cpu {
        file: "v6.dat",
        buffer: "",
        cpu: 1,
        offset: 69632,
        size: 4096,
        zstd: false,
    },
    Cpu {
        file: "v7-none.dat",
        buffer: "",
        cpu: 0,
        offset: 65536,
        size: 4096,
        zstd: false,
    },
    Cpu {
        file: "v7-none.dat",
        buffer: "",
        cpu: 1,
        offset: 69632,
        size: 4096,
        zstd: false,
    },
    Cpu {
        file: "empty-cpu-v7-none.dat",
        buffer: "",
        cpu: 0,
        offset: 65536,
        size: 4096,
        zstd: false,
    },
    Cpu {
        file: "v7-zstd.dat",
        buffer: "",
        cpu: 0,
        offset: 12288,
        size: 193,
        zstd: true,
    },
    Cpu {
        file: "v7-zstd.dat",
        buffer: "",
        cpu: 1,
        offset: 16384,
        size: 307,
        zstd: true,
    },
    Cpu {
        file: "lost-v7-zstd.dat",
        buffer: "",
        cpu: 0,
        offset: 12288,
        size: 1255,
        zstd: true,
    },
    Cpu {
        file: "lost-v7-zstd.dat",
        buffer: "",
        cpu: 1,
        offset: 16384,
        size: 780,
        zstd: true,
    },
    Cpu {
        file: "instances-v7-zstd.dat",
        buffer: "",
        cpu: 0,
        offset: 12288,
        size: 374,
        zstd: true,
    },
    Cpu {
        file: "instances-v7-zstd.dat",
        buffer: "",
        cpu: 1,
        offset: 16384,
        size: 92,
        zstd: true,
    },
    Cpu {
        file: "instances-v7-zstd.dat",
        buffer: "tracelint-foo",
        cpu: 0,
        offset: 20480,
        size: 885,
        zstd: true,
    },
    Cpu {
        file: "instances-v7-zstd.dat",
        buffer: "tracelint-foo",
        cpu: 1,
        offset: 24576,
        size: 303,
        zstd: true,
    },
    Cpu {
        file: "instances-v6.dat",
        buffer: "",
        cpu: 0,
        offset: 65536,
        size: 4096,
        zstd: false,
    },
    Cpu {
        file: "instances-v6.dat",
        buffer: "",
        cpu: 1,
        offset: 69632,
        size: 4096,
        zstd: false,
    },
    Cpu {
        file: "instances-v6.dat",
        buffer: "tracelint-foo",
        cpu: 0,
        offset: 77824,
        size: 4096,
        zstd: false,
    },
    Cpu {
        file: "instances-v6.dat",
        buffer: "tracelint-foo",
        cpu: 1,
        offset: 81920,
        size: 4096,
        zstd: false,
    },
    Cpu {
        file: "full-meta-v7-zstd.dat",
        buffer: "",
        cpu: 0,
        offset: 1142784,
        size: 242,
        zstd: true,
    },
    Cpu {
        file: "full-meta-v7-zstd.dat",
        buffer: "",
        cpu: 1,
        offset: 1146880,
        size: 118,
        zstd: true,
    },
];

fn have_trace_cmd() -> bool {
    match Command::new("trace-cmd").arg("--version").output() {
        Ok(_) => true,
        Err(_) => {
            common::skip_or_fail("trace-cmd is not installed");
            false
        }
    }
}

fn run(args: &[&str]) -> String {
    let out = Command::new("trace-cmd").args(args).output().unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The event table from `trace-cmd dump --events --ftrace-events`: min_payload = end of the last field.
fn table_from_trace_cmd(path: &str) -> EventTable {
    let text = run(&["dump", "-i", path, "--events", "--ftrace-events"]);
    let mut t = EventTable::new();
    let mut cur: Option<(String, u32, u32)> = None;
    let flush = |t: &mut EventTable, c: &mut Option<(String, u32, u32)>| {
        if let Some((n, id, m)) = c.take() {
            t.insert(id, n, m);
        }
    };
    for line in text.lines() {
        if let Some(n) = line.strip_prefix("name: ") {
            flush(&mut t, &mut cur);
            cur = Some((n.to_string(), u32::MAX, 0));
        } else if let Some(id) = line.strip_prefix("ID: ") {
            if let Some(c) = &mut cur {
                c.1 = id.trim().parse().unwrap();
            }
        } else if line.trim_start().starts_with("field:") {
            let num = |key: &str| -> u32 {
                let i = line.find(key).unwrap() + key.len();
                line[i..].split(';').next().unwrap().parse().unwrap()
            };
            let end = num("offset:") + num("size:");
            if let Some(c) = &mut cur {
                c.2 = c.2.max(end);
            }
        }
    }
    flush(&mut t, &mut cur);
    t
}

/// Decompresses a trace-cmd chunk stream (u32 count, then per chunk u32 zsize, u32 usize, data).
fn unchunk(data: &[u8]) -> Vec<u8> {
    let n = u32::from_le_bytes(data[0..4].try_into().unwrap());
    let mut p = 4;
    let mut out = Vec::new();
    for _ in 0..n {
        let z = u32::from_le_bytes(data[p..p + 4].try_into().unwrap()) as usize;
        let u = u32::from_le_bytes(data[p + 4..p + 8].try_into().unwrap()) as usize;
        let block = zstd::bulk::decompress(&data[p + 8..p + 8 + z], u).unwrap();
        assert_eq!(block.len(), u);
        out.extend_from_slice(&block);
        p += 8 + z;
    }
    out
}

type Key = (String, u32);

/// Records of `trace-cmd report --raw-ts` per (buffer, cpu): timestamps in order, and the
/// dropped-event counts.
fn report(path: &str) -> (BTreeMap<Key, Vec<u64>>, BTreeMap<u32, u64>) {
    let text = run(&["report", "-i", path, "-N", "--raw-ts", "-t", "-R"]);
    let mut recs: BTreeMap<Key, Vec<u64>> = BTreeMap::new();
    let mut dropped = BTreeMap::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("CPU:") {
            let (cpu, rest) = rest.split_once(' ').unwrap();
            let n: u64 = rest
                .trim_start_matches('[')
                .split(' ')
                .next()
                .unwrap()
                .parse()
                .unwrap_or(0);
            *dropped.entry(cpu.parse().unwrap()).or_insert(0) += n;
            continue;
        }
        let buffer = if line.starts_with(' ') || !line.contains(": ") {
            String::new()
        } else {
            line.split(':').next().unwrap().to_string()
        };
        let Some(i) = line.find(" [") else { continue };
        let rest = &line[i + 2..];
        let Some((cpu, rest)) = rest.split_once(']') else {
            continue;
        };
        let Ok(cpu) = cpu.parse::<u32>() else {
            continue;
        };
        let ts: u64 = rest.split(':').next().unwrap().parse().unwrap();
        recs.entry((buffer, cpu)).or_default().push(ts);
    }
    (recs, dropped)
}

fn corpus_path(file: &str) -> String {
    common::corpus("tracecmd").join(file).display().to_string()
}

#[test]
fn real_files_have_no_findings_and_match_trace_cmd() {
    let tc = have_trace_cmd();
    let mut files: Vec<&str> = CPUS.iter().map(|c| c.file).collect();
    files.dedup();
    for file in files {
        let path = corpus_path(file);
        let bytes = std::fs::read(&path).unwrap();
        let t = if tc {
            table_from_trace_cmd(&path)
        } else {
            EventTable::new()
        };
        if tc {
            assert!(t.len() > 10, "{file}: {} formats", t.len());
        }
        let mut mine: BTreeMap<Key, Vec<u64>> = BTreeMap::new();
        let mut lost = BTreeMap::new();
        for c in CPUS.iter().filter(|c| c.file == file) {
            let region = &bytes[c.offset as usize..(c.offset + c.size) as usize];
            // Compressed data: the walker sees the decompressed pages at the block's offset.
            let owned;
            let (data, note) = if c.zstd {
                // 3.1.6 declares the chunk stream 4 bytes short.
                owned = unchunk(&bytes[c.offset as usize..(c.offset + c.size + 4) as usize]);
                (
                    &owned[..],
                    Some(format!("decompressed chunk at 0x{:x}", c.offset)),
                )
            } else {
                (region, None)
            };
            let p = RingParams::new(4096, 8, Endian::Little, c.cpu, c.buffer);
            let mut w = Walker::new(p, &t);
            w.set_context(note);
            let mut sink = Sink::new(1000);
            let mut ts = Vec::new();
            for (k, page) in data.chunks(4096).enumerate() {
                w.page_with(
                    Reader::with_base(page, c.offset + (k * 4096) as u64, Endian::Little),
                    &mut sink,
                    |r| ts.push(r.ts),
                );
            }
            let s = w.finish(&mut sink);
            let (f, _) = sink.into_parts();
            let expect_lost = file.starts_with("lost");
            for x in &f {
                assert!(
                    expect_lost && x.rule.code == "TD113",
                    "{file} cpu {}: {} {}",
                    c.cpu,
                    x.rule.code,
                    x.message
                );
            }
            if expect_lost {
                assert_eq!(codes(&f), vec!["TD113"], "{file}");
                assert!(s.lost_events > 0);
                lost.insert(c.cpu, s.lost_events);
            }
            eprintln!(
                "{file} {:?} cpu {}: {} pages, {} events, {} padding, {} extends, {} stamps, lost {}",
                c.buffer, c.cpu, s.pages, s.events, s.padding, s.time_extends, s.time_stamps, s.lost_events
            );
            assert_eq!(s.events, ts.len() as u64);
            assert!(s.events > 0, "{file} cpu {}", c.cpu);
            mine.insert((c.buffer.to_string(), c.cpu), ts);
        }
        if !tc {
            continue;
        }
        let (theirs, dropped) = report(&path);
        assert_eq!(
            mine, theirs,
            "{file}: per-CPU timestamps differ from trace-cmd report"
        );
        assert_eq!(lost, dropped, "{file}: lost counts");
        eprintln!(
            "{file}: {} records on {} CPU buffers match trace-cmd report",
            mine.values().map(|v| v.len()).sum::<usize>(),
            mine.len()
        );
    }
}

#[test]
fn located_offsets_match_dump() {
    if !have_trace_cmd() {
        return;
    }
    for c in CPUS {
        let text = run(&[
            "dump",
            "-i",
            &corpus_path(c.file),
            "--options",
            "--flyrecord",
        ]);
        let v7 = format!(
            "{} {}\t{}\t[id, data offset and size]",
            c.cpu, c.offset, c.size
        );
        let v6 = format!(
            "{:>11} {:>10}\t[offset, size of cpu {}]",
            c.offset, c.size, c.cpu
        );
        // A v6 instance's table follows its own "flyrecord" tag, which dump does not print.
        let bytes = std::fs::read(corpus_path(c.file)).unwrap();
        let mut pair = c.offset.to_le_bytes().to_vec();
        pair.extend_from_slice(&c.size.to_le_bytes());
        let in_table = bytes.windows(10).enumerate().any(|(i, w)| {
            w == b"flyrecord\0" && (0..4).any(|k| bytes[i + 10 + 16 * k..].starts_with(&pair))
        });
        assert!(
            text.contains(&v7) || text.contains(&v6) || in_table,
            "{} cpu {}: {v7:?} / {v6:?} not in dump output",
            c.file,
            c.cpu
        );
    }
}
