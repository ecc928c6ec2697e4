//! Every integer read from file bytes goes through `src/reader.rs` (the `Reader` cursor, its
//! fast reads `u16_at`/`u32_at`/`u64_at` and the `Endianity` byte orders): no other product
//! source converts bytes to integers by hand. Writers, fuzz support and tests are left out.

use std::path::{Path, PathBuf};

fn rs_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rs_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

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
    rs_files(&src, &mut files);
    let mut hits = Vec::new();
    for f in files {
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        let rel = f.strip_prefix(&src).unwrap().display().to_string();
        if rel == "reader.rs"
            || rel == "fuzzing.rs"
            || name == "writer.rs"
            || name.ends_with("tests.rs")
        {
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
