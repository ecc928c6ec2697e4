//! Compression layers: detection by content, streaming decoders from the ecosystem's crates,
//! and the meters that bound what a layer may unpack (absolute total and ratio).

use std::cell::Cell;
use std::io::{self, Read};
use std::rc::Rc;

/// A container layer, detected by its first bytes (never by a file name).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Layer {
    /// gzip (RFC 1952), members concatenated.
    Gzip,
    /// Zstandard frames.
    Zstd,
    /// xz streams.
    Xz,
    /// bzip2 streams.
    Bzip2,
    /// LZ4 frames.
    Lz4,
    /// tar (POSIX ustar, GNU, or a v7 header with a valid checksum).
    Tar,
    /// zip.
    Zip,
}

impl Layer {
    /// The usual name (and file suffix) of the layer.
    pub fn name(self) -> &'static str {
        match self {
            Layer::Gzip => "gzip",
            Layer::Zstd => "zstd",
            Layer::Xz => "xz",
            Layer::Bzip2 => "bzip2",
            Layer::Lz4 => "lz4",
            Layer::Tar => "tar",
            Layer::Zip => "zip",
        }
    }

    /// True for the single-stream compressions (not archives).
    pub fn is_compression(self) -> bool {
        !matches!(self, Layer::Tar | Layer::Zip)
    }
}

/// Bytes of a stream's start that [`sniff`] needs (a tar header).
pub const SNIFF_BYTES: usize = 512;

/// The container layer `head` (the first up to [`SNIFF_BYTES`] of a stream) starts, if any.
pub fn sniff(head: &[u8]) -> Option<Layer> {
    if head.starts_with(&[0x1f, 0x8b]) {
        return Some(Layer::Gzip);
    }
    if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
        return Some(Layer::Zstd);
    }
    if head.starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0x00]) {
        return Some(Layer::Xz);
    }
    if head.len() >= 10
        && head.starts_with(b"BZh")
        && head.get(3).is_some_and(|b| (b'1'..=b'9').contains(b))
        && head.get(4..10) == Some(&[0x31, 0x41, 0x59, 0x26, 0x53, 0x59][..])
    {
        return Some(Layer::Bzip2);
    }
    if head.starts_with(&[0x04, 0x22, 0x4d, 0x18]) {
        return Some(Layer::Lz4);
    }
    if head.starts_with(b"PK\x03\x04") || head.starts_with(b"PK\x05\x06") {
        return Some(Layer::Zip);
    }
    if is_tar_header(head) {
        return Some(Layer::Tar);
    }
    None
}

/// A 512-byte tar header: the `ustar` magic, or (v7 tar) a checksum field that matches the
/// header's bytes and a non-empty name.
fn is_tar_header(h: &[u8]) -> bool {
    let Some(h) = h.get(..512) else {
        return false;
    };
    if h.get(257..262) == Some(b"ustar") {
        return true;
    }
    let (Some(name0), Some(field)) = (h.first(), h.get(148..156)) else {
        return false;
    };
    if *name0 == 0 {
        return false;
    }
    let digits: String = field
        .iter()
        .map(|&b| b as char)
        .filter(|c| ('0'..='7').contains(c))
        .collect();
    let Ok(stored) = u32::from_str_radix(&digits, 8) else {
        return false;
    };
    let sum: u32 = h
        .iter()
        .enumerate()
        .map(|(i, &b)| {
            if (148..156).contains(&i) {
                32
            } else {
                u32::from(b)
            }
        })
        .sum();
    sum == stored
}

/// Why a meter stopped a stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LimitHit {
    /// What was measured.
    pub what: &'static str,
    /// The value reached.
    pub value: u64,
    /// The `[limits]` key.
    pub limit_name: &'static str,
    /// The configured limit.
    pub limit: u64,
}

/// Counts the bytes read through it (the packed side of a layer).
pub struct CountIn<R> {
    inner: R,
    n: Rc<Cell<u64>>,
}

impl<R: Read> CountIn<R> {
    /// Wraps `inner`; the count is shared through `n`.
    pub fn new(inner: R, n: Rc<Cell<u64>>) -> Self {
        CountIn { inner, n }
    }
}

impl<R: Read> Read for CountIn<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let k = self.inner.read(buf)?;
        self.n.set(self.n.get().saturating_add(k as u64));
        Ok(k)
    }
}

/// Shared budget of unpacked bytes for one input.
#[derive(Clone)]
pub struct Budget {
    used: Rc<Cell<u64>>,
    max: u64,
    /// The first limit hit, if any.
    pub hit: Rc<Cell<Option<LimitHitCell>>>,
}

/// [`LimitHit`] in a `Cell` (it is `Copy`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LimitHitCell {
    what: &'static str,
    value: u64,
    limit_name: &'static str,
    limit: u64,
}

impl From<LimitHitCell> for LimitHit {
    fn from(c: LimitHitCell) -> Self {
        LimitHit {
            what: c.what,
            value: c.value,
            limit_name: c.limit_name,
            limit: c.limit,
        }
    }
}

impl Budget {
    /// A budget of `max` unpacked bytes.
    pub fn new(max: u64) -> Self {
        Budget {
            used: Rc::new(Cell::new(0)),
            max,
            hit: Rc::new(Cell::new(None)),
        }
    }

    /// Takes the first limit hit since the last call.
    pub fn take_hit(&self) -> Option<LimitHit> {
        self.hit.take().map(LimitHit::from)
    }

    fn fail(
        &self,
        what: &'static str,
        value: u64,
        limit_name: &'static str,
        limit: u64,
    ) -> io::Error {
        if self.hit.get().is_none() {
            self.hit.set(Some(LimitHitCell {
                what,
                value,
                limit_name,
                limit,
            }));
        }
        io::Error::other(format!("{what} is {value}, above {limit_name} = {limit}"))
    }
}

/// Meters the unpacked side of one layer: the input's total budget, and the ratio to the
/// packed bytes counted by the layer's [`CountIn`] once 64 MiB were unpacked.
pub struct Meter<R> {
    inner: R,
    packed: Rc<Cell<u64>>,
    out: u64,
    ratio: u64,
    budget: Budget,
}

/// Unpacked bytes after which the ratio limit applies.
const RATIO_FLOOR: u64 = 64 << 20;

impl<R: Read> Meter<R> {
    /// Meters `inner`, whose packed bytes are counted in `packed`.
    pub fn new(inner: R, packed: Rc<Cell<u64>>, ratio: u64, budget: Budget) -> Self {
        Meter {
            inner,
            packed,
            out: 0,
            ratio,
            budget,
        }
    }
}

impl<R: Read> Read for Meter<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let k = self.inner.read(buf)?;
        let k64 = k as u64;
        self.out = self.out.saturating_add(k64);
        let used = self.budget.used.get().saturating_add(k64);
        self.budget.used.set(used);
        if used > self.budget.max {
            return Err(self.budget.fail(
                "the unpacked size",
                used,
                "max_unpacked_bytes",
                self.budget.max,
            ));
        }
        let packed = self.packed.get().max(1);
        if self.out > RATIO_FLOOR && self.out / packed > self.ratio {
            return Err(self.budget.fail(
                "the unpack ratio",
                self.out / packed,
                "max_unpack_ratio",
                self.ratio,
            ));
        }
        Ok(k)
    }
}

/// A streaming decoder for compression `layer` over `r`; `Err` for an archive layer or a
/// decoder that cannot start (corrupt header). Decoder memory is bounded: zstd windows up to
/// 2^27 bytes (the format's default maximum), xz up to 256 MiB of dictionary state.
pub fn decoder<'r>(layer: Layer, r: Box<dyn Read + 'r>) -> io::Result<Box<dyn Read + 'r>> {
    Ok(match layer {
        Layer::Gzip => Box::new(flate2::read::MultiGzDecoder::new(r)),
        Layer::Zstd => {
            let mut d = zstd::stream::read::Decoder::new(r)?;
            d.window_log_max(27)?;
            Box::new(d)
        }
        Layer::Xz => {
            let stream = liblzma::stream::Stream::new_stream_decoder(
                256 << 20,
                liblzma::stream::CONCATENATED,
            )
            .map_err(io::Error::other)?;
            Box::new(liblzma::read::XzDecoder::new_stream(r, stream))
        }
        Layer::Bzip2 => Box::new(bzip2::read::MultiBzDecoder::new(r)),
        Layer::Lz4 => Box::new(lz4_flex::frame::FrameDecoder::new(r)),
        Layer::Tar | Layer::Zip => {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "not a compression layer",
            ))
        }
    })
}

/// The name a compressed file's content goes by: `x.dat.gz` → `x.dat`, `x.tgz` → `x.tar`;
/// otherwise the name with `.<layer>` appended in angle brackets (`x` → `x<gzip>`).
pub fn inner_name(name: &str, layer: Layer) -> String {
    let suffixes: &[(&str, &str)] = match layer {
        Layer::Gzip => &[(".gz", ""), (".tgz", ".tar"), (".gzip", "")],
        Layer::Zstd => &[(".zst", ""), (".zstd", ""), (".tzst", ".tar")],
        Layer::Xz => &[(".xz", ""), (".txz", ".tar")],
        Layer::Bzip2 => &[(".bz2", ""), (".tbz2", ".tar"), (".tbz", ".tar")],
        Layer::Lz4 => &[(".lz4", "")],
        Layer::Tar | Layer::Zip => &[],
    };
    let lower = name.to_ascii_lowercase();
    for (suf, rep) in suffixes {
        if lower.len() > suf.len() && lower.ends_with(suf) {
            if let Some(stem) = name.get(..name.len() - suf.len()) {
                return format!("{stem}{rep}");
            }
        }
    }
    format!("{name}<{}>", layer.name())
}
