//! Code hygiene that the compiler does not enforce on its own.

mod common;

use std::path::Path;

/// `unsafe` appears exactly once: the read-only mmap in src/input.rs.
#[test]
fn only_one_unsafe_block() {
    let mut files = Vec::new();
    common::rs_files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut files,
    );
    let mut hits = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        for (i, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            if code.contains("unsafe {")
                || code.contains("unsafe fn")
                || code.contains("unsafe impl")
            {
                hits.push(format!("{}:{}", f.display(), i + 1));
            }
        }
    }
    assert_eq!(
        hits.len(),
        1,
        "unsafe code outside the one mmap call: {hits:?}"
    );
    assert!(hits[0].contains("input.rs"), "{hits:?}");
}
