//! The XML target description carried by the `tdesc` lines.

use super::super::model::Description;
use super::super::rules;
use crate::finding::Sink;
use crate::options::CheckOptions;
use crate::reader::Endian;

/// What the target description tells.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TdescInfo {
    /// Whether it parsed as a target description.
    pub valid: bool,
    /// `<architecture>` text.
    pub architecture: Option<String>,
    /// `<osabi>` text.
    pub osabi: Option<String>,
    /// Sum of the register sizes in bytes (the `g` packet), when every register has a size.
    pub register_bytes: Option<u64>,
    /// Number of `<reg>` elements.
    pub registers: u64,
    /// Register names (for checking `$name` in tracepoint commands).
    pub register_names: Vec<String>,
}

/// Byte order an architecture name implies, if it implies one.
pub fn arch_endian(arch: &str) -> Option<Endian> {
    const LITTLE: [&str; 10] = [
        "i386",
        "i8086",
        "aarch64",
        "riscv",
        "loongarch",
        "ia64",
        "alpha",
        "nios2",
        "csky",
        "bpf",
    ];
    const BIG: [&str; 7] = ["s390", "sparc", "m68k", "hppa", "or1k", "avr32", "m32c"];
    if arch.ends_with("_be") || arch.contains("aarch64_be") {
        return Some(Endian::Big);
    }
    if LITTLE.iter().any(|p| arch.starts_with(p)) {
        return Some(Endian::Little);
    }
    if BIG.iter().any(|p| arch.starts_with(p)) {
        return Some(Endian::Big);
    }
    None
}

/// Whether GDB knows the architecture name (by family prefix).
pub fn arch_known(arch: &str) -> bool {
    const KNOWN: [&str; 44] = [
        "i386",
        "i8086",
        "aarch64",
        "arm",
        "riscv",
        "loongarch",
        "ia64",
        "alpha",
        "nios2",
        "csky",
        "bpf",
        "s390",
        "sparc",
        "m68k",
        "hppa",
        "or1k",
        "powerpc",
        "rs6000",
        "mips",
        "sh",
        "microblaze",
        "xtensa",
        "avr",
        "msp430",
        "arc",
        "tic6x",
        "bfin",
        "frv",
        "m32r",
        "m32c",
        "cris",
        "iq2000",
        "v850",
        "ft32",
        "lm32",
        "mn10300",
        "moxie",
        "pru",
        "rl78",
        "rx",
        "score",
        "tilegx",
        "xstormy16",
        "z80",
    ];
    KNOWN.iter().any(|p| arch.starts_with(p))
}

/// Parses and checks the joined tdesc text.
pub fn check(d: &Description, opts: &CheckOptions, sink: &mut Sink) -> TdescInfo {
    let mut info = TdescInfo::default();
    let Some(first) = d.tdesc_lines.first() else {
        return info;
    };
    let last = d.tdesc_lines.last().cloned().unwrap_or(first.clone());
    let whole = first.start..last.end;
    // The span of tdesc line `row` (1-based).
    let row_span = |row: u32| {
        let i = usize::try_from(row).unwrap_or(0).saturating_sub(1);
        d.tdesc_lines.get(i).cloned().unwrap_or(whole.clone())
    };
    let text = match std::str::from_utf8(&d.tdesc) {
        Ok(t) => t,
        Err(e) => {
            let upto = d.tdesc.get(..e.valid_up_to()).unwrap_or(&[]);
            let row = upto.iter().filter(|&&b| b == b'\n').count();
            sink.report(
                &rules::TDESC_INVALID,
                row_span(u32::try_from(row).unwrap_or(0).saturating_add(1)),
                "the target description is not valid UTF-8",
            );
            return info;
        }
    };
    let trimmed = text.trim_start();
    if trimmed.len() != text.len() && trimmed.starts_with("<?xml") {
        let row = text.len().saturating_sub(trimmed.len());
        let row = text.get(..row).unwrap_or("").matches('\n').count();
        sink.report(
            &rules::TDESC_INVALID,
            row_span(u32::try_from(row).unwrap_or(0).saturating_add(1)),
            "the XML declaration `<?xml …?>` follows other text; it must come first (GDB's writer drops it)",
        );
        return info;
    }
    let nodes_limit = u32::try_from(opts.limits.max_xml_nodes).unwrap_or(u32::MAX);
    let popts = roxmltree::ParsingOptions {
        allow_dtd: true,
        nodes_limit,
        ..roxmltree::ParsingOptions::default()
    };
    let doc = match roxmltree::Document::parse_with_options(text, popts) {
        Ok(doc) => doc,
        Err(roxmltree::Error::NodesLimitReached) => {
            sink.limit(
                whole,
                "target description XML nodes",
                opts.limits.max_xml_nodes,
                "max_xml_nodes",
                opts.limits.max_xml_nodes,
            );
            return info;
        }
        Err(e) => {
            let pos = e.pos();
            sink.push(
                sink.make(
                    &rules::TDESC_INVALID,
                    row_span(pos.row),
                    format!("the target description is not well-formed XML: {e}"),
                )
                .note("GDB warns \"Could not load XML target description; ignoring\" and falls back to the executable's architecture"),
            );
            return info;
        }
    };
    let root = doc.root_element();
    let row_of = |n: roxmltree::Node| doc.text_pos_at(n.range().start).row;
    if root.tag_name().name() != "target" {
        sink.report(
            &rules::TDESC_INVALID,
            row_span(row_of(root)),
            format!(
                "the target description's root element is <{}>, not <target>",
                root.tag_name().name()
            ),
        );
        return info;
    }
    let mut regs_ok = true;
    let mut bytes: u64 = 0;
    for n in root.descendants().filter(|n| n.is_element()) {
        let name = n.tag_name().name();
        if name == "include" {
            sink.report(
                &rules::TDESC_INVALID,
                row_span(row_of(n)),
                "the target description uses xi:include; GDB saves descriptions with includes expanded and cannot resolve them from a file",
            );
            return info;
        }
        if name == "flags" && n.attribute("size").map(str::trim) == Some("0") {
            // xml-tdesc.c creates a 0-byte flags type; its fields then do not fit, and GDB 13
            // aborts opening the file ("Recursive internal problem", campaign).
            let f = sink
                .make(
                    &rules::TDESC_INVALID,
                    row_span(row_of(n)),
                    format!(
                        "<flags id=\"{}\"> has size 0: GDB 13 aborts opening the file (\"Recursive internal problem\")",
                        n.attribute("id").unwrap_or("")
                    ),
                )
                .fails("GDB", "13", "crash");
            sink.push(f);
        }
        if name == "reg" {
            info.registers = info.registers.saturating_add(1);
            if let Some(r) = n.attribute("name") {
                if info.register_names.len() < 4096 {
                    info.register_names.push(r.to_string());
                }
            }
            match n.attribute("bitsize").and_then(|b| b.parse::<u64>().ok()) {
                Some(bits) if bits % 8 == 0 => bytes = bytes.saturating_add(bits / 8),
                _ => regs_ok = false,
            }
        }
    }
    info.valid = true;
    if regs_ok && info.registers > 0 {
        info.register_bytes = Some(bytes);
    }
    let child_text = |tag: &str| {
        root.children()
            .find(|c| c.is_element() && c.tag_name().name() == tag)
            .map(|c| (c, c.text().unwrap_or("").trim().to_string()))
    };
    if let Some((node, arch)) = child_text("architecture") {
        if !arch_known(&arch) {
            sink.report(
                &rules::TDESC_UNKNOWN_ARCHITECTURE,
                row_span(row_of(node)),
                format!("architecture `{arch}` is not one GDB knows; GDB ignores the target description"),
            );
        }
        info.architecture = Some(arch);
    }
    info.osabi = child_text("osabi").map(|(_, s)| s);
    info
}
