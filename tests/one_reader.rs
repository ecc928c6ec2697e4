//! Every integer read from file bytes goes through `src/reader.rs` (the `Reader` cursor, its
//! fast reads `u16_at`/`u32_at`/`u64_at` and the `Endianity` byte orders): no other product
//! source converts bytes to integers by hand. Writers, fuzz support and tests are left out.

mod common;

use std::path::Path;

/// Ways of turning bytes into integers (or byte slices into arrays to convert).
const PATTERNS: &[&str] = &[
    "from_le_bytes",
    "from_be_bytes",
    "from_ne_bytes",
    "]>::try_from(",
    ".try_into()",
];

#[test]
fn integers_are_read_only_through_the_reader() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    common::rs_files(&src, &mut files);
    let mut hits = Vec::new();
    for f in files {
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        let rel = f.strip_prefix(&src).unwrap().display().to_string();
        if rel == "reader.rs" || name == "writer.rs" || name.ends_with("tests.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&f).unwrap();
        for (i, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            if PATTERNS.iter().any(|p| code.contains(p)) {
                hits.push(format!("src/{rel}:{}: {}", i + 1, line.trim()));
            }
        }
    }
    assert!(
        hits.is_empty(),
        "bytes converted to integers outside src/reader.rs (use Reader or reader::u32_at & co.):\n{}",
        hits.join("\n")
    );
}
