//! Bounded decompression of zstd and zlib blocks into caller-sized buffers.

use super::super::model::Algo;

/// Why a block did not decompress to its declared size.
#[derive(Debug)]
pub enum DecompError {
    /// The block is corrupt (message from the decoder).
    Failed(String),
    /// The block produces more bytes than declared.
    TooLarge,
    /// The block ended before its stream end (zlib).
    Incomplete(usize),
}

/// A reusable decompressor.
pub struct Decompressor {
    zstd: Option<zstd::bulk::Decompressor<'static>>,
}

impl std::fmt::Debug for Decompressor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Decompressor")
    }
}

impl Default for Decompressor {
    fn default() -> Self {
        Self::new()
    }
}

thread_local! {
    /// The zstd context of the last decompressor dropped on this thread: making one costs
    /// more than decompressing a small file's blocks, so a thread checking many files makes
    /// it once.
    static SPARE_ZSTD: std::cell::RefCell<Option<zstd::bulk::Decompressor<'static>>> =
        const { std::cell::RefCell::new(None) };
}

impl Drop for Decompressor {
    fn drop(&mut self) {
        if let Some(z) = self.zstd.take() {
            let _ = SPARE_ZSTD.try_with(|s| {
                if let Ok(mut s) = s.try_borrow_mut() {
                    *s = Some(z);
                }
            });
        }
    }
}

impl Decompressor {
    /// A new decompressor (the zstd context is made on first use, or taken from the last
    /// decompressor this thread dropped).
    pub fn new() -> Self {
        Decompressor { zstd: None }
    }

    fn zstd_context() -> std::io::Result<zstd::bulk::Decompressor<'static>> {
        let spare = SPARE_ZSTD
            .try_with(|s| s.try_borrow_mut().ok().and_then(|mut s| s.take()))
            .ok()
            .flatten();
        match spare {
            Some(z) => Ok(z),
            None => zstd::bulk::Decompressor::new(),
        }
    }

    /// Decompresses `input` into exactly `out` (whose length is the declared size). Returns the
    /// number of bytes produced (≤ `out.len()`).
    pub fn decompress(
        &mut self,
        algo: Algo,
        input: &[u8],
        out: &mut [u8],
    ) -> Result<usize, DecompError> {
        match algo {
            Algo::None => Err(DecompError::Failed("no compression algorithm".into())),
            Algo::Zstd => {
                if self.zstd.is_none() {
                    self.zstd =
                        Some(Self::zstd_context().map_err(|e| DecompError::Failed(e.to_string()))?);
                }
                let Some(d) = self.zstd.as_mut() else {
                    return Err(DecompError::Failed("no zstd context".into()));
                };
                match d.decompress_to_buffer(input, out) {
                    Ok(n) => Ok(n),
                    Err(e) => {
                        let msg = e.to_string();
                        if msg.contains("too small") {
                            Err(DecompError::TooLarge)
                        } else {
                            Err(DecompError::Failed(msg))
                        }
                    }
                }
            }
            Algo::Zlib => {
                let mut d = flate2::Decompress::new(true);
                match d.decompress(input, out, flate2::FlushDecompress::Finish) {
                    Ok(flate2::Status::StreamEnd) => {
                        usize::try_from(d.total_out()).map_err(|_| DecompError::TooLarge)
                    }
                    Ok(_) => {
                        let produced =
                            usize::try_from(d.total_out()).map_err(|_| DecompError::TooLarge)?;
                        if produced >= out.len() {
                            Err(DecompError::TooLarge)
                        } else {
                            Err(DecompError::Incomplete(produced))
                        }
                    }
                    Err(e) => Err(DecompError::Failed(e.to_string())),
                }
            }
        }
    }
}
