//! Unit tests of `runs`.

#![allow(
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    clippy::indexing_slicing
)]

use super::*;

fn rec(out: &mut Vec<u8>, time: u64, typ: u64, more: bool, depth: u64, addr: u64) {
    let w1 = typ | (u64::from(more) << 2) | (5 << 3) | (depth << 6) | (addr << 16);
    out.extend_from_slice(&time.to_le_bytes());
    out.extend_from_slice(&w1.to_le_bytes());
}

/// `main` calling `f(n)` `calls` times; `f` has an 8-byte argument and an 8-byte return value
/// when `args`; a `puts`-like `g` with a string argument of varying length after every 100th.
fn stream(calls: u64, args: bool, strings: bool) -> Vec<u8> {
    let mut v = Vec::new();
    let mut t = 1000u64;
    let mut tick = || {
        t += 3;
        t
    };
    rec(&mut v, tick(), 0, false, 0, 0x1000);
    for i in 0..calls {
        rec(&mut v, tick(), 0, args, 1, 0x1100);
        if args {
            v.extend_from_slice(&i.to_le_bytes());
        }
        rec(&mut v, tick(), 1, args, 1, 0x1100);
        if args {
            v.extend_from_slice(&(i * 2).to_le_bytes());
        }
        if strings && i % 100 == 99 {
            rec(&mut v, tick(), 0, true, 1, 0x1200);
            let len = 3 + (i / 100) as usize % 20;
            let mut p = (len as u16).to_le_bytes().to_vec();
            p.extend(std::iter::repeat_n(b'x', len));
            while p.len() % 8 != 0 {
                p.push(0);
            }
            v.extend_from_slice(&p);
            rec(&mut v, tick(), 1, false, 1, 0x1200);
        }
    }
    rec(&mut v, tick(), 1, false, 0, 0x1000);
    v
}

fn sift(data: &[u8], block: usize) -> RecordSieve {
    let mut sv = RecordSieve::default();
    for (i, c) in data.chunks(block).enumerate() {
        sv.feed((i * block) as u64, c);
    }
    sv.finish();
    sv
}

#[test]
fn runs_do_not_depend_on_how_the_file_is_cut() {
    for (args, strings) in [(false, false), (true, false), (true, true)] {
        let data = stream(3000, args, strings);
        let whole = sift(&data, data.len());
        assert!(!whole.runs().is_empty());
        for block in [1, 7, 16, 100, 1057, 4096, 65536] {
            assert_eq!(
                sift(&data, block).runs(),
                whole.runs(),
                "{block}-byte blocks (args {args}, strings {strings})"
            );
        }
    }
}

#[test]
fn runs_cover_clean_records_and_learn_payload_lengths() {
    let data = stream(3000, true, false);
    let sv = sift(&data, 1 << 20);
    let runs = sv.runs();
    // The first record (nothing before it) and the first payload of each kind of `f` are
    // left out; the rest is one run up to the last record.
    let first = runs.first().map(|r| r.start);
    assert_eq!(first, Some(16 + 24 + 24));
    assert_eq!(runs.last().map(|r| r.end), Some(data.len() as u64));
    let f = runs
        .iter()
        .flat_map(|r| r.funcs.iter())
        .find(|f| f.addr == 0x1100);
    assert_eq!(f.map(|f| f.len), Some([8, 8]));
    let records: u64 = runs.iter().map(|r| r.entries + r.exits).sum();
    assert_eq!(records, 3000 * 2 + 1 - 2);
    // Runs are cut at RUN_RECORDS records.
    assert!(runs.iter().all(|r| r.entries + r.exits <= RUN_RECORDS));
    // Consecutive runs meet, and each starts in the state the previous one ended in.
    for w in runs.windows(2) {
        if let [a, b] = w {
            if a.end == b.start {
                assert_eq!(a.end_stack, b.start_stack);
                assert_eq!(a.end_cur, b.start_cur);
            }
        }
    }
}

#[test]
fn varying_payloads_stay_outside_runs() {
    let data = stream(3000, true, true);
    let sv = sift(&data, 1 << 20);
    // The string function's payload length varies (padded: 8 for its 1st to 4th calls, then
    // 16): its first call is left out (first sight), the 2nd to 4th are framed with the learnt
    // 8 bytes (all in one run), the 5th does not fit that and marks it as varying; from then
    // on its records end runs, and the pass goes on after them.
    let with_string = sv
        .runs()
        .iter()
        .filter(|r| {
            r.funcs
                .iter()
                .any(|f| f.addr == 0x1200 && f.len[0] != NO_PAYLOAD)
        })
        .count();
    assert_eq!(with_string, 1);
    // 30 string calls, the 5th to the 30th each between two runs.
    assert_eq!(sv.runs().len(), 27);
    // The pass reaches the end: the last call's EXIT and main's EXIT are too short a run.
    let end = sv.runs().last().map_or(0, |r| r.end);
    assert_eq!(end, data.len() as u64 - 64);
}

#[test]
fn bad_magic_stops_the_pass() {
    let mut data = stream(100, false, false);
    let at = 16 * 50 + 8;
    if let Some(b) = data.get_mut(at) {
        *b ^= 0x38;
    }
    let sv = sift(&data, 4096);
    assert!(sv.runs().iter().all(|r| r.end <= 16 * 50));
    assert!(!sv.runs().is_empty());
}

#[test]
fn the_budget_bounds_the_summaries() {
    let data = stream(200_000, false, false);
    let mut sv = RecordSieve::default().with_budget(600);
    sv.feed(0, &data);
    sv.finish();
    let n = sv.runs().len();
    assert!((1..6).contains(&n), "{n} runs within a 600-byte budget");
}

#[test]
fn a_gap_or_garbage_gives_no_runs_and_no_panic() {
    let mut sv = RecordSieve::default();
    sv.feed(0, &[0u8; 100]);
    sv.feed(500, &[0xffu8; 100]);
    sv.finish();
    assert!(sv.runs().is_empty());
    let mut sv = RecordSieve::default();
    sv.feed(0, &[0x2du8; 10000]);
    sv.finish();
    assert!(sv.runs().iter().all(|r| r.end <= 10000));
}

#[test]
fn string_arguments_look_textual_and_numbers_do_not() {
    use super::looks_textual;
    // What uftrace 0.13 wrote for `work("hello", 3)` and for `fib(30)`'s argument.
    let hello = [
        0x05, 0x00, b'h', b'e', b'l', b'l', b'o', 0x00, 0x03, 0x00, 0x00, 0x00, 0, 0, 0, 0,
    ];
    assert!(looks_textual(&hello));
    // A string in the second argument slot.
    let second = [
        0x07, 0x00, 0x00, 0x00, 0x02, 0x00, b'o', b'k', 0x00, 0x00, 0x00, 0x00, 0, 0, 0, 0,
    ];
    assert!(looks_textual(&second));
    assert!(!looks_textual(&[30, 0, 0, 0, 0, 0, 0, 0]));
    assert!(!looks_textual(&[0x05, 0, 0, 0, 0, 0, 0, 0]));
    assert!(!looks_textual(&[0; 16]));
    assert!(!looks_textual(&[
        0x10, 0x00, 0xff, 0xfe, 0x41, 0x42, 0x43, 0x44
    ]));
}
