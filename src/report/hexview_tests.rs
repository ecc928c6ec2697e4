//! Unit tests of `hexview`.

use super::*;

#[test]
fn hex_and_text_windows() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("f");
    let mut data: Vec<u8> = (0u8..=255).collect();
    data.extend_from_slice(b"hello world\nsecond line\n");
    std::fs::write(&p, &data).unwrap();
    let w = window(&p, "f", data.len() as u64, 0x85..0x87).unwrap();
    assert!(w.name.starts_with("f @ 0x70"), "{}", w.name);
    assert_eq!(&w.text[w.label.clone()], "85 86");
    assert!(w.text.is_ascii());
    let w = window(&p, "f", data.len() as u64, 262..267).unwrap();
    assert!(w.name.ends_with("(text)"), "{}", w.name);
    assert_eq!(&w.text[w.label.clone()], "world");
}
