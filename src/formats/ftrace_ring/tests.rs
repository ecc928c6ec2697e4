//! Unit tests of `ftrace_ring`.

#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use super::*;

#[test]
fn event_table_is_indexed_by_u16_ids() {
    let mut t = EventTable::new();
    assert!(t.is_empty());
    assert!(t.insert(5, "a", 8));
    assert!(t.insert(65535, "b", 12));
    assert!(t.insert(5, "a2", 16));
    assert!(!t.insert(65536, "c", 8));
    assert_eq!(t.len(), 2);
    assert_eq!(t.get(5).unwrap().name, "a2");
    assert_eq!(t.min_payload(5), Some(16));
    assert_eq!(t.min_payload(6), None);
    assert_eq!(t.min_payload(65535), Some(12));
    assert!(t.get(70000).is_none());
}

#[test]
fn format_text_gives_id_name_and_static_size() {
    let text = b"name: sched_switch\nID: 316\nformat:\n\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n\tfield:__data_loc char[] name;\toffset:24;\tsize:4;\tsigned:0;\n\nprint fmt: \"x\"\n";
    let mut t = EventTable::new();
    assert_eq!(t.insert_format_text(text), Some(316));
    assert_eq!(
        t.get(316),
        Some(&EventInfo {
            name: "sched_switch".into(),
            min_payload: 28,
            tail: Tail::Open
        })
    );
    assert_eq!(t.insert_format_text(b"name: x\nID: 99999\n"), None);
    assert_eq!(t.insert_format_text(b"ID: 5\n"), None);
    assert_eq!(t.insert_format_text(b"\xff\xfe field:offset:;size:"), None);
    assert_eq!(t.len(), 1);
}

#[test]
fn header_bitfields_follow_byte_order() {
    assert_eq!(split_header((77 << 5) | 30, Endian::Little), (30, 77));
    assert_eq!(split_header((30 << 27) | 77, Endian::Big), (30, 77));
    for e in [Endian::Little, Endian::Big] {
        let w = writer::header_word(TYPE_PADDING, (1 << 27) - 1, e);
        assert_eq!(split_header(w, e), (TYPE_PADDING, (1 << 27) - 1));
    }
}
