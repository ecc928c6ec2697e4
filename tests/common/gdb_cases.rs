//! Generated GDB tfile inputs, one (or more) per `GT` rule with the exact span it must give:
//! used by `tests/gdb.rs` (spans) and `tests/rule_coverage.rs` (every rule raised).
#![allow(dead_code)]

use std::ops::Range;
use tracelint::formats::gdb::rules as gt;
use tracelint::formats::gdb::writer::{Built, Sample, SampleBlock, SampleFrame, StatusLine};
use tracelint::reader::Endian;
use tracelint::registry::Rule;

pub fn hexs(s: &str) -> String {
    s.bytes().map(|b| format!("{b:02x}")).collect()
}

/// Span of the `n`-th (0-based) occurrence of `needle` in the first line starting with `prefix`.
pub fn nth_field(b: &Built, prefix: &str, needle: &str, n: usize) -> Range<u64> {
    let (span, text) = b
        .lines
        .iter()
        .find(|(_, t)| t.starts_with(prefix.as_bytes()))
        .unwrap_or_else(|| panic!("no line {prefix}"));
    let hits: Vec<usize> = text
        .windows(needle.len())
        .enumerate()
        .filter(|(_, w)| *w == needle.as_bytes())
        .map(|(i, _)| i)
        .collect();
    let a = span.start + hits[n] as u64;
    a..a + needle.len() as u64
}

/// Span of the last line (appended extra line) starting with `prefix`.
pub fn last_line(b: &Built, prefix: &str) -> Range<u64> {
    b.lines
        .iter()
        .rev()
        .find(|(_, t)| t.starts_with(prefix.as_bytes()))
        .map(|(s, _)| s.clone())
        .unwrap_or_else(|| panic!("no line {prefix}"))
}

pub fn with_status(frames: usize, status: &str) -> Built {
    let mut s = Sample::new(frames);
    s.status = StatusLine::Custom(status.into());
    s.build()
}

pub fn with_extra(frames: usize, line: &str) -> Built {
    let mut s = Sample::new(frames);
    s.extra_lines.push(line.as_bytes().to_vec());
    s.build()
}

pub fn with_frames(frames: Vec<SampleFrame>) -> Sample {
    let mut s = Sample::new(0);
    s.frames = frames;
    s
}

pub fn frame(tpnum: i16, blocks: Vec<SampleBlock>) -> SampleFrame {
    SampleFrame {
        tpnum,
        blocks,
        size: None,
    }
}

pub type Case = (&'static Rule, Vec<u8>, Range<u64>);

/// One input per rule with the exact span expected.
pub fn fixtures() -> Vec<Case> {
    let mut v: Vec<Case> = Vec::new();
    let mut add =
        |r: &'static Rule, b: &Built, span: Range<u64>| v.push((r, b.bytes.clone(), span));

    // GT001: wrong version digit; and a file cut inside the magic.
    let mut s = Sample::new(1);
    s.header = b"\x7fTRACE1\n".to_vec();
    add(&gt::BAD_MAGIC, &s.build(), 0..8);
    let short = Built {
        bytes: b"\x7fTRA".to_vec(),
        ..Built::default()
    };
    add(&gt::BAD_MAGIC, &short, 0..4);

    // GT002: no empty line before the end of the file; and a `\r\n` blank line.
    let mut s = Sample::new(0);
    s.section_end.clear();
    s.end.clear();
    let b = s.build();
    let n = b.bytes.len() as u64;
    add(&gt::MISSING_SECTION_END, &b, n..n);
    let mut s = Sample::new(2);
    s.section_end = b"\r\n".to_vec();
    let b = s.build();
    add(
        &gt::MISSING_SECTION_END,
        &b,
        b.frames_start - 2..b.frames_start - 1,
    );

    // GT003: a 1000-byte line.
    let long = format!("tp A2:401145:R{}", "f".repeat(986));
    let b = with_extra(1, &long);
    assert_eq!(
        last_line(&b, "tp A2").end - last_line(&b, "tp A2").start,
        1000
    );
    add(&gt::LINE_TOO_LONG, &b, last_line(&b, "tp A2:401145:Rff"));

    // GT004: a carriage return inside a line.
    let b = with_extra(1, "tsv 9:0:0:6162\r");
    let l = last_line(&b, "tsv 9");
    add(&gt::LINE_BAD_BYTE, &b, l.end - 1..l.end);

    // GT005: an unknown line.
    let b = with_extra(1, "foo bar");
    add(&gt::UNKNOWN_DEFINITION_LINE, &b, last_line(&b, "foo"));

    // GT006: no R line; R 0.
    let mut s = Sample::new(1);
    s.register_line = None;
    let b = s.build();
    add(&gt::REGISTER_SIZE_MISSING, &b, 8..b.frames_start);
    let mut s = Sample::new(0);
    s.register_line = Some("0".into());
    s.tdesc.clear();
    let b = s.build();
    add(&gt::REGISTER_SIZE_MISSING, &b, b.line("R "));

    // GT007: `R 0x20`; `R -974`.
    let mut s = Sample::new(1);
    s.register_line = Some("0x20".into());
    let b = s.build();
    let l = b.line("R ");
    add(&gt::REGISTER_SIZE_INVALID, &b, l.start + 2..l.end);

    // GT008: a second R line.
    let b = with_extra(1, "R 20");
    add(&gt::DUPLICATE_REGISTER_SIZE, &b, last_line(&b, "R "));

    // GT009: 128 KiB registers.
    let mut s = Sample::new(0);
    s.register_line = Some("20000".into());
    s.tdesc.clear();
    let b = s.build();
    add(&gt::REGISTER_SIZE_IMPLAUSIBLE, &b, b.line("R "));

    // GT010: a second status line.
    let b = with_extra(0, "status 0;tstop::0;tframes:0");
    add(&gt::DUPLICATE_STATUS, &b, last_line(&b, "status "));

    // GT011: empty status payload.
    let b = with_status(0, "");
    add(&gt::STATUS_EMPTY, &b, b.line("status"));

    // GT012: a field without `:`.
    let b = with_status(1, "0;tstop::0;tframes:1;bogus");
    add(&gt::STATUS_MALFORMED, &b, b.field("status ", "bogus"));
    // GT012: a prefix of a known key (`t` is read as tfull by GDB).
    let b = with_status(1, "0;tstop::0;tframes:1;t:3");
    let f = nth_field(&b, "status ", ";t:", 0);
    add(&gt::STATUS_MALFORMED, &b, f.start + 1..f.start + 2);

    // GT013: unknown key.
    let b = with_status(1, "0;tstop::0;tframes:1;zzz:1");
    add(&gt::STATUS_UNKNOWN_FIELD, &b, b.field("status ", "zzz:1"));

    // GT014: duplicate key.
    let b = with_status(1, "0;tstop::0;tframes:1;tframes:1");
    add(
        &gt::STATUS_DUPLICATE_FIELD,
        &b,
        nth_field(&b, "status ", "tframes:1", 1),
    );

    // GT015: terror without its tracepoint part (crashes GDB).
    let b = with_status(1, "0;terror:4142;tframes:1");
    add(
        &gt::STATUS_TERROR_MALFORMED,
        &b,
        b.field("status ", "terror:4142"),
    );

    // GT016: pass count stop naming an undefined tracepoint.
    let b = with_status(1, "0;tpasscount:7;tframes:1");
    add(&gt::STATUS_STOP_TRACEPOINT, &b, b.field("status ", "7"));

    // GT017: tframes disagrees with the frames.
    let b = with_status(3, "0;tstop::0;tframes:7;tcreated:7");
    add(&gt::TFRAMES_MISMATCH, &b, b.field("status ", "tframes:7"));

    // GT018: more created than kept without a circular buffer.
    let b = with_status(3, "0;tstop::0;tframes:3;tcreated:5");
    add(
        &gt::TCREATED_INCONSISTENT,
        &b,
        b.field("status ", "tcreated:5"),
    );

    // GT019: tfree > tsize; and tsize - tfree not the frame bytes.
    let b = with_status(1, "0;tstop::0;tframes:1;tcreated:1;tfree:10;tsize:5");
    add(
        &gt::BUFFER_USAGE_INCONSISTENT,
        &b,
        b.field("status ", "tfree:10"),
    );
    let b = with_status(1, "0;tstop::0;tframes:1;tcreated:1;tfree:100;tsize:1000");
    add(
        &gt::BUFFER_USAGE_INCONSISTENT,
        &b,
        b.field("status ", "tfree:100"),
    );

    // GT020: running with a stop time.
    let b = with_status(1, "1;tnotrun:0;tframes:1;tcreated:1;starttime:5;stoptime:9");
    add(
        &gt::STATUS_TIMES_INCONSISTENT,
        &b,
        b.field("status ", "stoptime:9"),
    );

    // GT021: tsv with 3 fields.
    let b = with_extra(1, "tsv 9:0:0");
    add(&gt::TSV_MALFORMED, &b, last_line(&b, "tsv 9"));

    // GT022: a tsv number defined twice.
    let b = with_extra(1, &format!("tsv 2:7:0:{}", hexs("other")));
    add(&gt::DUPLICATE_TSV, &b, last_line(&b, "tsv 2:7"));

    // GT023: a tsv name with a space.
    let name = hexs("a b");
    let b = with_extra(1, &format!("tsv 9:0:0:{name}"));
    let l = last_line(&b, "tsv 9");
    add(&gt::TSV_INVALID_NAME, &b, l.end - name.len() as u64..l.end);

    // GT024: a non-hex address; a Z line without `:` after its type (crashes GDB).
    let b = with_extra(1, "tp T9:zz:E:0:0");
    add(&gt::TP_MALFORMED, &b, b.field("tp T9", "zz"));
    let b = with_extra(1, "tp Z2:401145:at");
    add(&gt::TP_MALFORMED, &b, last_line(&b, "tp Z2:401145:at"));

    // GT025: unknown piece letter; unknown T option.
    let b = with_extra(1, "tp Q2:401145:xx");
    let l = last_line(&b, "tp Q");
    add(&gt::TP_UNKNOWN_PIECE, &b, l.start + 3..l.start + 4);
    let mut s = Sample::new(1);
    s.replace_tp("T2:", "T2:401145:E:0:0:Q");
    let b = s.build();
    add(
        &gt::TP_UNKNOWN_PIECE,
        &b,
        b.field("tp T2", ":Q").start + 1..b.field("tp T2", ":Q").end,
    );

    // GT026: condition shorter than its length; huge length (crashes GDB).
    let mut s = Sample::new(1);
    s.replace_tp("T2:", "T2:401145:E:0:0:X10,ab");
    let b = s.build();
    add(&gt::TP_CONDITION_LENGTH, &b, b.field("tp T2", "X10,ab"));
    let mut s = Sample::new(1);
    s.replace_tp("T2:", "T2:401145:E:0:0:Xffffffffffffffff,ab");
    let b = s.build();
    add(
        &gt::TP_CONDITION_LENGTH,
        &b,
        b.field("tp T2", "Xffffffffffffffff,ab"),
    );

    // GT027: tracepoint 2 again at another address.
    let b = with_extra(1, "tp T2:40119d:E:0:0");
    add(&gt::DUPLICATE_TRACEPOINT, &b, last_line(&b, "tp T2:40119d"));

    // GT028: number too large for a frame.
    let b = with_extra(1, "tp T8000:401000:E:0:0");
    add(
        &gt::TRACEPOINT_NUMBER_RANGE,
        &b,
        b.field("tp T8000", "8000"),
    );

    // GT029: orphan A and V lines (crash GDB).
    let b = with_extra(1, "tp A7:401175:R40");
    add(&gt::ORPHAN_TP_PIECE, &b, last_line(&b, "tp A7"));
    let b = with_extra(1, "tp V2:401146:1:10");
    add(&gt::ORPHAN_TP_PIECE, &b, last_line(&b, "tp V2:401146"));

    // GT030: odd register mask.
    let b = with_extra(1, "tp A2:401145:R4");
    let l = last_line(&b, "tp A2:401145:R4");
    add(&gt::TP_ACTION_SYNTAX, &b, l.end - 2..l.end);

    // GT031: source length field disagrees with the text.
    let b = with_extra(1, &format!("tp Z2:401145:cond:0:9:{}", hexs("i > 8")));
    add(
        &gt::TP_SOURCE_INCONSISTENT,
        &b,
        b.field("tp Z2:401145:cond", ":9:").start + 1
            ..b.field("tp Z2:401145:cond", ":9:").start + 2,
    );

    // GT032: a command GDB does not know.
    let b = with_extra(1, &format!("tp Z2:401145:cmd:0:8:{}", hexs("bogus cm")));
    add(
        &gt::TP_COMMAND_INVALID,
        &b,
        last_line(&b, "tp Z2:401145:cmd:0:8"),
    );

    // GT061: an `end` outside any while-stepping.
    let b = with_extra(1, &format!("tp Z2:401145:cmd:0:3:{}", hexs("end")));
    add(
        &gt::TP_COMMAND_LIST_UNBALANCED,
        &b,
        last_line(&b, "tp Z2:401145:cmd:0:3:"),
    );

    // GT065: a static tracepoint; GT066: a fast one checked without its program.
    let mut s = Sample::new(1);
    s.replace_tp("T2:", "T2:401145:E:0:0:S");
    let b = s.build();
    add(&gt::STATIC_TRACEPOINT, &b, last_line(&b, "tp T2"));
    let mut s = Sample::new(1);
    s.replace_tp("T2:", "T2:401145:E:0:0:F5");
    let b = s.build();
    add(&gt::FAST_TRACEPOINT_UNCHECKED, &b, last_line(&b, "tp T2"));

    // GT033: a second V line.
    let b = with_extra(1, "tp V2:401145:1:41");
    add(&gt::DUPLICATE_TP_STATUS, &b, last_line(&b, "tp V2"));

    // GT034: decimal counts (3 frames of 65 bytes = 195 bytes).
    let mut s = Sample::new(3);
    s.tp_stats.clear();
    s.extra_lines.push(b"tp V2:401145:3:195".to_vec());
    let b = s.build();
    add(&gt::DECIMAL_TP_STATUS_COUNTS, &b, b.field("tp V2", "3:195"));

    // GT035: usage matching nothing.
    let mut s = Sample::new(3);
    s.tp_stats.clear();
    s.extra_lines.push(b"tp V2:401145:3:999".to_vec());
    let b = s.build();
    add(&gt::TP_STATUS_MISMATCH, &b, b.field("tp V2", "3:999"));

    // GT036: xi:include.
    let mut s = Sample::new(1);
    s.tdesc = vec![
        "<target xmlns:xi=\"http://www.w3.org/2001/XInclude\">".into(),
        "<xi:include href=\"core.xml\"/>".into(),
        "</target>".into(),
    ];
    let b = s.build();
    let l = b.line("tdesc <xi");
    add(&gt::TDESC_INVALID, &b, l.start + 6..l.end);
    // GT036: not well-formed (unclosed element on line 2).
    let mut s = Sample::new(1);
    s.tdesc = vec![
        "<target>".into(),
        "<architecture>i386:x86-64</arch>".into(),
        "</target>".into(),
    ];
    let b = s.build();
    let l = b.line("tdesc <arch");
    add(&gt::TDESC_INVALID, &b, l.start + 6..l.end);

    // GT037: unknown architecture.
    let mut s = Sample::new(1);
    s.tdesc = vec![
        "<target>".into(),
        "<architecture>vax9000</architecture>".into(),
        "</target>".into(),
    ];
    let b = s.build();
    let l = b.line("tdesc <arch");
    add(&gt::TDESC_UNKNOWN_ARCHITECTURE, &b, l.start + 6..l.end);

    // GT038: byte order from the architecture.
    let b = Sample::new(1).build();
    add(&gt::BYTE_ORDER, &b, b.frames_start..b.frames_start + 6);

    // GT039: no status line.
    let mut s = Sample::new(1);
    s.status = StatusLine::Omit;
    let b = s.build();
    add(&gt::STATUS_MISSING, &b, 8..b.frames_start);

    // GT040: big-endian frames with an x86-64 description.
    let mut s = Sample::new(2);
    s.endian = Endian::Big;
    let b = s.build();
    add(
        &gt::BYTE_ORDER_CONFLICT,
        &b,
        b.frames_start..b.frames_start + 6,
    );

    // GT041: the file ends inside a frame header.
    let mut s = Sample::new(1);
    s.end = vec![2, 0, 5];
    let b = s.build();
    add(&gt::TRUNCATED_FRAME_HEADER, &b, b.end..b.end + 3);

    // GT042: negative tracepoint number.
    let b = with_frames(vec![Sample::standard_frame(-1, 32, 0)]).build();
    let fr = b.frames[0].clone();
    add(&gt::FRAME_TRACEPOINT_INVALID, &b, fr.start..fr.start + 2);

    // GT043: undefined tracepoint 9.
    let b = with_frames(vec![Sample::standard_frame(9, 32, 0)]).build();
    let fr = b.frames[0].clone();
    add(&gt::FRAME_TRACEPOINT_UNDEFINED, &b, fr.start..fr.start + 2);

    // GT044: last frame claims 10^6 bytes.
    let mut f0 = Sample::standard_frame(2, 32, 0);
    f0.size = Some(1_000_000);
    let b = with_frames(vec![Sample::standard_frame(2, 32, 1), f0]).build();
    let fr = b.frames[1].clone();
    add(&gt::FRAME_OVERRUNS_FILE, &b, fr.start..b.bytes.len() as u64);

    // GT045: size 0x80000000.
    let mut f0 = Sample::standard_frame(2, 32, 0);
    f0.size = Some(0x8000_0000);
    let b = with_frames(vec![f0]).build();
    let fr = b.frames[0].clone();
    add(&gt::FRAME_SIZE_TOO_LARGE, &b, fr.start + 2..fr.start + 6);

    // GT046: the last block straddles the frame end (size one short).
    let mut f0 = Sample::standard_frame(2, 32, 0);
    f0.size = Some(64);
    let b = with_frames(vec![f0]).build();
    let vb = b.blocks[0][2].clone();
    add(
        &gt::FRAME_BLOCKS_MISMATCH,
        &b,
        vb.start..b.frames[0].start + 6 + 64,
    );

    // GT047: unknown block type; an S block.
    let b = with_frames(vec![frame(
        2,
        vec![SampleBlock::R(32), SampleBlock::Raw(b"Q".to_vec())],
    )])
    .build();
    let q = b.blocks[0][1].clone();
    add(&gt::UNKNOWN_BLOCK_TYPE, &b, q.start..q.start + 1);
    let b = with_frames(vec![frame(
        2,
        vec![
            SampleBlock::R(32),
            SampleBlock::Raw(b"S\x03\x00ab\x00".to_vec()),
        ],
    )])
    .build();
    let q = b.blocks[0][1].clone();
    add(&gt::UNKNOWN_BLOCK_TYPE, &b, q.start..q.start + 1);

    // GT048: two R blocks.
    let b = with_frames(vec![frame(2, vec![SampleBlock::R(32), SampleBlock::R(32)])]).build();
    add(&gt::DUPLICATE_REGISTER_BLOCK, &b, b.blocks[0][1].clone());

    // GT049: fast tracepoint frames with 40-byte register blocks while R says 32.
    let mut s = with_frames(vec![
        Sample::standard_frame(2, 40, 0),
        Sample::standard_frame(2, 40, 1),
    ]);
    s.replace_tp("T2:", "T2:401145:E:0:0:F5");
    let b = s.build();
    add(
        &gt::FAST_TRACEPOINT_REGISTER_BLOCK,
        &b,
        b.blocks[0][0].clone(),
    );

    // GT050: empty M block.
    let b = with_frames(vec![frame(
        2,
        vec![SampleBlock::R(32), SampleBlock::M(0x404000, vec![])],
    )])
    .build();
    add(&gt::EMPTY_MEMORY_BLOCK, &b, b.blocks[0][1].clone());

    // GT051: M block wrapping past 2^64.
    let b = with_frames(vec![frame(
        2,
        vec![SampleBlock::M(u64::MAX - 1, vec![1, 2, 3, 4])],
    )])
    .build();
    add(
        &gt::MEMORY_BLOCK_ADDRESS_OVERFLOW,
        &b,
        b.blocks[0][0].clone(),
    );

    // GT052: overlapping M blocks.
    let b = with_frames(vec![frame(
        2,
        vec![
            SampleBlock::M(0x404060, vec![0; 8]),
            SampleBlock::M(0x404064, vec![0; 8]),
        ],
    )])
    .build();
    add(&gt::OVERLAPPING_MEMORY_BLOCKS, &b, b.blocks[0][1].clone());

    // GT053: V block of an undefined tsv.
    let b = with_frames(vec![frame(2, vec![SampleBlock::V(77, 1)])]).build();
    add(&gt::UNDEFINED_TSV_BLOCK, &b, b.blocks[0][0].clone());

    // GT054: no end marker; a 1-byte marker.
    let mut s = Sample::new(2);
    s.end.clear();
    let b = s.build();
    let n = b.bytes.len() as u64;
    add(&gt::MISSING_END_MARKER, &b, n..n);
    let mut s = Sample::new(2);
    s.end = vec![0];
    let b = s.build();
    add(&gt::MISSING_END_MARKER, &b, b.end..b.end + 1);

    // GT055: garbage after the marker.
    let mut s = Sample::new(1);
    s.end = b"\0\0\0\0GARBAGE".to_vec();
    let b = s.build();
    add(
        &gt::DATA_AFTER_END_MARKER,
        &b,
        b.end + 2..b.bytes.len() as u64,
    );

    // GT056: 3 zero bytes after the marker.
    let mut s = Sample::new(1);
    s.end = vec![0; 5];
    let b = s.build();
    add(&gt::END_MARKER_PADDING, &b, b.end + 2..b.end + 5);

    // GT057: a wrapped circular buffer, consistent (2 frames of 65 bytes + headers = 142).
    let b = with_status(
        2,
        "0;tstop::0;tframes:2;tcreated:c;tfree:0;tsize:8e;circular:1",
    );
    add(&gt::CIRCULAR_BUFFER_WRAPPED, &b, b.line("status "));

    // GT058: a wrapped circular buffer whose image does not add up.
    let b = with_status(
        2,
        "0;tstop::0;tframes:4;tcreated:c;tfree:0;tsize:200;circular:1",
    );
    add(&gt::CORRUPT_CIRCULAR_IMAGE, &b, b.line("status "));

    // GT059: R differs from the description's 32 register bytes.
    let mut s = with_frames(vec![Sample::standard_frame(2, 40, 0)]);
    s.register_line = Some("28".into());
    let b = s.build();
    add(&gt::REGISTER_SIZE_TDESC_MISMATCH, &b, b.line("R "));

    // GT060: a bad hex digit in the notes.
    let b = with_status(1, "0;tstop::0;tframes:1;notes:zz");
    let z = b.field("status ", "notes:zz");
    add(&gt::BAD_HEX_STRING, &b, z.start + 6..z.start + 7);
    v
}
