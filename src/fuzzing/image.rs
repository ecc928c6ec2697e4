//! The directory-image codec: a uftrace directory as one byte string, the input of the
//! directory fuzz targets and of the regression replay of directory inputs.

use crate::input::MemDir;

/// Most files a directory image holds; later entries are ignored.
pub const IMAGE_MAX_FILES: usize = 64;

/// Largest total of file bytes a directory image holds; file data beyond it is cut.
pub const IMAGE_MAX_BYTES: usize = 4 << 20;

/// Decodes a directory image: repeated `[u8 name_len][name][u32 LE data_len][data]`.
///
/// The decoder is total: a truncated entry keeps the bytes that are there, names are made
/// valid (lossy UTF-8, `/` and NUL replaced by `_`, empty / `.` / `..` renamed), duplicates keep
/// the first occurrence, and at most [`IMAGE_MAX_FILES`] files and [`IMAGE_MAX_BYTES`] bytes are
/// kept. Any byte string is therefore a directory.
pub fn decode_dir_image(data: &[u8]) -> MemDir {
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    let mut total = 0usize;
    let mut rest = data;
    while files.len() < IMAGE_MAX_FILES {
        let Some((&name_len, after)) = rest.split_first() else {
            break;
        };
        let name_len = usize::from(name_len).min(after.len());
        let (name, after) = after.split_at(name_len);
        let mut len_bytes = [0u8; 4];
        let take = after.len().min(4);
        let (lb, after) = after.split_at(take);
        len_bytes
            .iter_mut()
            .zip(lb.iter())
            .for_each(|(d, s)| *d = *s);
        let want = crate::reader::u32_at(&len_bytes, 0, crate::reader::LittleEndian)
            .and_then(|n| usize::try_from(n).ok())
            .unwrap_or(usize::MAX);
        let budget = IMAGE_MAX_BYTES.saturating_sub(total);
        let len = want.min(after.len()).min(budget);
        let (body, after) = after.split_at(len);
        rest = after;
        total = total.saturating_add(len);
        let name = sanitize_name(name);
        if files.iter().any(|(n, _)| *n == name) {
            continue;
        }
        files.push((name, body.to_vec()));
    }
    MemDir::new("image", files)
}

pub(crate) fn sanitize_name(raw: &[u8]) -> String {
    let s: String = String::from_utf8_lossy(raw)
        .chars()
        .map(|c| if c == '/' || c == '\0' { '_' } else { c })
        .collect();
    match s.as_str() {
        "" => "_empty".into(),
        "." => "_dot".into(),
        ".." => "_dotdot".into(),
        _ => s,
    }
}

/// Encodes files as a directory image that [`decode_dir_image`] reads back (names longer than
/// 255 bytes are cut; used to make seeds and regression files).
pub fn encode_dir_image(files: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut out = Vec::new();
    for (name, data) in files {
        let name = name.as_bytes();
        let name = name.get(..name.len().min(255)).unwrap_or_default();
        out.push(u8::try_from(name.len()).unwrap_or(u8::MAX));
        out.extend_from_slice(name);
        out.extend_from_slice(&u32::try_from(data.len()).unwrap_or(u32::MAX).to_le_bytes());
        out.extend_from_slice(data);
    }
    out
}
