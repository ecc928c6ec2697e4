//! The typed model of a perf.data file: header, attributes, feature sections and what the
//! record walk counted, each with its byte span (absolute file offsets).

use crate::reader::Endian;
use std::ops::Range;

/// `PERFILE2` as the little-endian u64 perf writes natively.
pub const MAGIC: &[u8; 8] = b"PERFILE2";
/// `PERFILE2` written by a big-endian machine (the same u64, bytes reversed).
pub const MAGIC_SWAPPED: &[u8; 8] = b"2ELIFREP";
/// The legacy version-1 magic.
pub const MAGIC_V1: &[u8; 8] = b"PERFFILE";

/// `sizeof(struct perf_file_header)`.
pub const FILE_HEADER_SIZE: u64 = 104;
/// The header of a pipe-mode stream (magic and size).
pub const PIPE_HEADER_SIZE: u64 = 16;
/// `offsetof(struct perf_file_header, adds_features)`: the size of ancient headers.
pub const OLD_HEADER_SIZE: u64 = 72;
/// The attr size perf 6.1 writes and knows (`PERF_ATTR_SIZE_VER7`).
pub const ATTR_SIZE_61: u32 = 128;
/// Every `perf_event_attr` size of a published ABI version (VER0..VER8).
pub const ATTR_SIZES: &[u32] = &[64, 72, 80, 96, 104, 112, 120, 128, 136];
/// The feature bit perf 6.1 treats as the last (`HEADER_LAST_FEATURE`).
pub const LAST_FEATURE_61: u64 = 32;

/// The three layouts of perf.data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// `perf record -o file`: header, attrs, data, features.
    File,
    /// `perf record -o -`: a 16-byte header, then records only.
    Pipe,
}

/// A `{u64 offset, u64 size}` section of the file header or feature table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Section {
    /// Absolute file offset.
    pub offset: u64,
    /// Size in bytes.
    pub size: u64,
}

impl Section {
    /// The section's bytes as a range, `None` when `offset + size` overflows.
    pub fn range(&self) -> Option<Range<u64>> {
        Some(self.offset..self.offset.checked_add(self.size)?)
    }
}

/// The file header.
#[derive(Clone, Debug)]
pub struct Header {
    /// Byte order of the file (from the magic).
    pub endian: Endian,
    /// File or pipe mode.
    pub mode: Mode,
    /// The header's `size` field.
    pub size: u64,
    /// `attr_size`: the stride the header claims for `perf_file_attr`s.
    pub attr_size: u64,
    /// The attrs section.
    pub attrs: Section,
    /// The data section.
    pub data: Section,
    /// The deprecated event_types section.
    pub event_types: Section,
    /// The 256-bit `adds_features` bitmap, as four u64 words.
    pub features: [u64; 4],
}

impl Header {
    /// Whether feature bit `bit` is set.
    pub fn has_feature(&self, bit: u64) -> bool {
        let word = usize::try_from(bit / 64).ok();
        word.and_then(|w| self.features.get(w))
            .is_some_and(|w| w & (1u64 << (bit % 64)) != 0)
    }

    /// The set feature bits, in order.
    pub fn feature_bits(&self) -> Vec<u64> {
        (0u64..256).filter(|b| self.has_feature(*b)).collect()
    }
}

/// `sample_type` bits (`enum perf_event_sample_format`).
pub mod st {
    /// `PERF_SAMPLE_IP`.
    pub const IP: u64 = 1 << 0;
    /// `PERF_SAMPLE_TID`.
    pub const TID: u64 = 1 << 1;
    /// `PERF_SAMPLE_TIME`.
    pub const TIME: u64 = 1 << 2;
    /// `PERF_SAMPLE_ADDR`.
    pub const ADDR: u64 = 1 << 3;
    /// `PERF_SAMPLE_READ`.
    pub const READ: u64 = 1 << 4;
    /// `PERF_SAMPLE_CALLCHAIN`.
    pub const CALLCHAIN: u64 = 1 << 5;
    /// `PERF_SAMPLE_ID`.
    pub const ID: u64 = 1 << 6;
    /// `PERF_SAMPLE_CPU`.
    pub const CPU: u64 = 1 << 7;
    /// `PERF_SAMPLE_PERIOD`.
    pub const PERIOD: u64 = 1 << 8;
    /// `PERF_SAMPLE_STREAM_ID`.
    pub const STREAM_ID: u64 = 1 << 9;
    /// `PERF_SAMPLE_RAW`.
    pub const RAW: u64 = 1 << 10;
    /// `PERF_SAMPLE_BRANCH_STACK`.
    pub const BRANCH_STACK: u64 = 1 << 11;
    /// `PERF_SAMPLE_REGS_USER`.
    pub const REGS_USER: u64 = 1 << 12;
    /// `PERF_SAMPLE_STACK_USER`.
    pub const STACK_USER: u64 = 1 << 13;
    /// `PERF_SAMPLE_WEIGHT`.
    pub const WEIGHT: u64 = 1 << 14;
    /// `PERF_SAMPLE_DATA_SRC`.
    pub const DATA_SRC: u64 = 1 << 15;
    /// `PERF_SAMPLE_IDENTIFIER`.
    pub const IDENTIFIER: u64 = 1 << 16;
    /// `PERF_SAMPLE_TRANSACTION`.
    pub const TRANSACTION: u64 = 1 << 17;
    /// `PERF_SAMPLE_REGS_INTR`.
    pub const REGS_INTR: u64 = 1 << 18;
    /// `PERF_SAMPLE_PHYS_ADDR`.
    pub const PHYS_ADDR: u64 = 1 << 19;
    /// `PERF_SAMPLE_AUX`.
    pub const AUX: u64 = 1 << 20;
    /// `PERF_SAMPLE_CGROUP`.
    pub const CGROUP: u64 = 1 << 21;
    /// `PERF_SAMPLE_DATA_PAGE_SIZE`.
    pub const DATA_PAGE_SIZE: u64 = 1 << 22;
    /// `PERF_SAMPLE_CODE_PAGE_SIZE`.
    pub const CODE_PAGE_SIZE: u64 = 1 << 23;
    /// `PERF_SAMPLE_WEIGHT_STRUCT`.
    pub const WEIGHT_STRUCT: u64 = 1 << 24;
    /// Every bit perf 6.1 knows (`PERF_SAMPLE_MAX - 1`).
    pub const KNOWN: u64 = (1 << 25) - 1;
}

/// `read_format` bits.
pub mod rf {
    /// `PERF_FORMAT_TOTAL_TIME_ENABLED`.
    pub const TOTAL_TIME_ENABLED: u64 = 1 << 0;
    /// `PERF_FORMAT_TOTAL_TIME_RUNNING`.
    pub const TOTAL_TIME_RUNNING: u64 = 1 << 1;
    /// `PERF_FORMAT_ID`.
    pub const ID: u64 = 1 << 2;
    /// `PERF_FORMAT_GROUP`.
    pub const GROUP: u64 = 1 << 3;
    /// `PERF_FORMAT_LOST`.
    pub const LOST: u64 = 1 << 4;
}

/// Attr flag bit `sample_id_all`.
pub const FLAG_SAMPLE_ID_ALL: u64 = 1 << 18;
/// `exclude_guest`: the event does not count while a guest runs.
pub const FLAG_EXCLUDE_GUEST: u64 = 1 << 20;
/// Attr flag bits perf 6.1 does not know (38..63).
pub const FLAGS_RESERVED: u64 = !((1u64 << 38) - 1);
/// `branch_sample_type` bit PERF_SAMPLE_BRANCH_HW_INDEX.
pub const BRANCH_HW_INDEX: u64 = 1 << 17;

/// One event attribute (`perf_event_attr`) with its ids.
#[derive(Clone, Debug, Default)]
pub struct Attr {
    /// The bytes of the attr.
    pub span: Range<u64>,
    /// `type`.
    pub kind: u32,
    /// `size` as written.
    pub size: u32,
    /// `config`.
    pub config: u64,
    /// `sample_type`.
    pub sample_type: u64,
    /// `read_format`.
    pub read_format: u64,
    /// The flag bits word.
    pub flags: u64,
    /// `branch_sample_type` (0 when the attr is too old to hold it).
    pub branch_sample_type: u64,
    /// `sample_regs_user`.
    pub sample_regs_user: u64,
    /// `sample_stack_user`.
    pub sample_stack_user: u32,
    /// `sample_regs_intr`.
    pub sample_regs_intr: u64,
    /// The event ids of this attr.
    pub ids: Vec<u64>,
    /// Where the ids are.
    pub ids_span: Range<u64>,
}

impl Attr {
    /// Whether non-sample records carry the `sample_id_all` trailer.
    pub fn sample_id_all(&self) -> bool {
        self.flags & FLAG_SAMPLE_ID_ALL != 0
    }

    /// Bytes of the `sample_id_all` trailer.
    pub fn trailer_size(&self) -> u64 {
        let t = self.sample_type;
        let mut n = 0u64;
        for bit in [
            st::TID,
            st::TIME,
            st::ID,
            st::STREAM_ID,
            st::CPU,
            st::IDENTIFIER,
        ] {
            if t & bit != 0 {
                n = n.saturating_add(8);
            }
        }
        n
    }
}

/// Feature bit names as perf 6.1 calls them (`HEADER_*`).
pub fn feature_name(bit: u64) -> &'static str {
    match bit {
        0 => "RESERVED",
        1 => "TRACING_DATA",
        2 => "BUILD_ID",
        3 => "HOSTNAME",
        4 => "OSRELEASE",
        5 => "VERSION",
        6 => "ARCH",
        7 => "NRCPUS",
        8 => "CPUDESC",
        9 => "CPUID",
        10 => "TOTAL_MEM",
        11 => "CMDLINE",
        12 => "EVENT_DESC",
        13 => "CPU_TOPOLOGY",
        14 => "NUMA_TOPOLOGY",
        15 => "BRANCH_STACK",
        16 => "PMU_MAPPINGS",
        17 => "GROUP_DESC",
        18 => "AUXTRACE",
        19 => "STAT",
        20 => "CACHE",
        21 => "SAMPLE_TIME",
        22 => "MEM_TOPOLOGY",
        23 => "CLOCKID",
        24 => "DIR_FORMAT",
        25 => "BPF_PROG_INFO",
        26 => "BPF_BTF",
        27 => "COMPRESSED",
        28 => "CPU_PMU_CAPS",
        29 => "CLOCK_DATA",
        30 => "HYBRID_TOPOLOGY",
        31 => "PMU_CAPS",
        128 => "FILE (simpleperf)",
        129 => "META_INFO (simpleperf)",
        130 => "DEBUG_UNWIND (simpleperf)",
        131 => "DEBUG_UNWIND_FILE (simpleperf)",
        132 => "FILE2 (simpleperf)",
        _ => "unknown",
    }
}

/// Record type names.
pub fn record_name(kind: u32) -> &'static str {
    match kind {
        1 => "MMAP",
        2 => "LOST",
        3 => "COMM",
        4 => "EXIT",
        5 => "THROTTLE",
        6 => "UNTHROTTLE",
        7 => "FORK",
        8 => "READ",
        9 => "SAMPLE",
        10 => "MMAP2",
        11 => "AUX",
        12 => "ITRACE_START",
        13 => "LOST_SAMPLES",
        14 => "SWITCH",
        15 => "SWITCH_CPU_WIDE",
        16 => "NAMESPACES",
        17 => "KSYMBOL",
        18 => "BPF_EVENT",
        19 => "CGROUP",
        20 => "TEXT_POKE",
        21 => "AUX_OUTPUT_HW_ID",
        64 => "HEADER_ATTR",
        65 => "HEADER_EVENT_TYPE",
        66 => "HEADER_TRACING_DATA",
        67 => "HEADER_BUILD_ID",
        68 => "FINISHED_ROUND",
        69 => "ID_INDEX",
        70 => "AUXTRACE_INFO",
        71 => "AUXTRACE",
        72 => "AUXTRACE_ERROR",
        73 => "THREAD_MAP",
        74 => "CPU_MAP",
        75 => "STAT_CONFIG",
        76 => "STAT",
        77 => "STAT_ROUND",
        78 => "EVENT_UPDATE",
        79 => "TIME_CONV",
        80 => "HEADER_FEATURE",
        81 => "COMPRESSED",
        82 => "FINISHED_INIT",
        83 => "COMPRESSED2",
        84 => "BPF_METADATA",
        85 => "SCHEDSTAT_CPU",
        86 => "SCHEDSTAT_DOMAIN",
        32769..=32777 => "simpleperf record",
        _ => "unknown",
    }
}

/// One feature section found through the table (file mode) or a HEADER_FEATURE record (pipe).
#[derive(Clone, Debug)]
pub struct Feature {
    /// The feature bit.
    pub bit: u64,
    /// Where its payload is.
    pub span: Range<u64>,
}

/// One event of the EVENT_DESC feature.
#[derive(Clone, Debug, Default)]
pub struct EventDesc {
    /// Where its attr starts (absolute offset).
    pub attr_at: u64,
    /// The size of its attr.
    pub attr_size: u32,
    /// Its ids.
    pub ids: Vec<u64>,
    /// Its name.
    pub name: String,
    /// Whether the name's bytes (up to the NUL) are UTF-8.
    pub name_utf8: bool,
}

/// What the features said that the record walk and the cross-checks use.
#[derive(Clone, Debug, Default)]
pub struct FeatureInfo {
    /// NRCPUS: (available, online).
    pub nr_cpus: Option<(u32, u32)>,
    /// SAMPLE_TIME: (first, last).
    pub sample_time: Option<(u64, u64)>,
    /// COMPRESSED: (type, mmap_len), when the section parsed.
    pub compressed: Option<(u32, u32)>,
    /// EVENT_DESC: the section span and its events.
    pub event_desc: Option<(Range<u64>, Vec<EventDesc>)>,
    /// VERSION: the perf version that wrote the file.
    pub version: Option<String>,
    /// TRACING_DATA: the event format ids it describes, when it was read to its end.
    pub tracepoint_ids: Option<Vec<u32>>,
    /// TRACING_DATA: the ids of event formats whose `name:` and `ID:` lines read but whose
    /// fields do not parse (libtraceevent keeps such an event, flagged as failed).
    pub tracepoint_unparsed: Vec<u32>,
    /// BUILD_ID: the names of its entries (file mode).
    pub build_id_names: Vec<Vec<u8>>,
    /// Whether there is a TRACING_DATA at all (the feature, or a HEADER_TRACING_DATA record),
    /// read to its end or not.
    pub tracing_data: bool,
    /// Features whose payload did not parse (bit, span): perf stops reading features at the
    /// first it cannot read.
    pub unreadable: Vec<(u64, Range<u64>)>,
    /// Features whose payload does not parse within its own section (bit, span), though perf
    /// may read it past the section: linux-perf-data reads each section whole and no further.
    pub short_sections: Vec<(u64, Range<u64>)>,
}

/// What the record walk counted.
#[derive(Clone, Debug, Default)]
pub struct Walk {
    /// Records per type.
    pub by_type: std::collections::BTreeMap<u32, u64>,
    /// SAMPLE records whose body parsed against their attr.
    pub samples: u64,
    /// Where the walk stopped early (its offset), if it did.
    pub stopped_at: Option<u64>,
    /// SAMPLE records before the stop.
    pub samples_before_stop: u64,
    /// COMPRESSED records.
    pub compressed: u64,
    /// Bytes decompressed from them.
    pub decompressed_bytes: u64,
    /// The most output one COMPRESSED record needed (its own and what the previous one left
    /// of a cut record): the least `mmap_len` that decompresses every record.
    pub max_output: u64,
    /// Lowest and highest sample time.
    pub time_range: Option<(u64, u64)>,
    /// Highest sample CPU, with the first record that showed it.
    pub max_cpu: Option<(u32, Range<u64>)>,
    /// Lost events reported by LOST records and LOST_SAMPLES.
    pub lost: u64,
    /// The end of the last whole record.
    pub end: u64,
    /// The attrs' ids that samples and `sample_id_all` trailers carry (files of several
    /// attrs).
    pub ids_seen: std::collections::BTreeSet<u64>,
}

/// A decoded perf.data file.
#[derive(Clone, Debug)]
pub struct PerfData {
    /// File size.
    pub size: u64,
    /// The header.
    pub header: Header,
    /// The attrs (from the attrs section, or HEADER_ATTR records in pipe mode).
    pub attrs: Vec<Attr>,
    /// The feature table's span (file mode).
    pub feature_table: Option<Range<u64>>,
    /// Feature sections.
    pub features: Vec<Feature>,
    /// What the features said.
    pub info: FeatureInfo,
    /// The record walk.
    pub walk: Walk,
    /// The data section as walked (`data.size == 0`: to the end of the file).
    pub data: Range<u64>,
    /// `data.size` was 0 with records after it: an unfinished recording.
    pub unfinished: bool,
}

/// Whether `name` is a stream file of a `perf record --threads` directory (`data.<n>`).
pub fn is_stream_name(name: &str) -> bool {
    stream_number(name).is_some()
}

/// The `n` of a stream file `data.<n>`.
pub fn stream_number(name: &str) -> Option<u64> {
    let n = name.strip_prefix("data.")?;
    if n.is_empty() || !n.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    n.parse().ok()
}
