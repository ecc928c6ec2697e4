//! The program a trace was recorded from (`check --program`): an ELF file read once, whole and
//! bounded (`limits.max_read_bytes`), into what the checks ask of it: its allocated sections
//! (address range, flags, file bytes), the names of its symbols and function ranges, whether
//! its debug information names something, and the length of the x86 instruction at an
//! address.
//!
//! The ELF is parsed by the `object` crate over the bytes in memory (every access bounds
//! checked, nothing allocated by a size read from the file); instructions are decoded by
//! `iced-x86`. A file that is not an ELF, or one whose headers do not parse, is a
//! [`ProgramError::Invalid`]; one that cannot be read is a [`ProgramError::Io`].
#![deny(
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::cast_possible_truncation,
    clippy::panic
)]

use crate::input::{self, Data, LoadMode};
use crate::limits::Limits;
use object::{Object, ObjectSection, ObjectSymbol, SectionFlags, SectionKind, SymbolKind};
use std::path::{Path, PathBuf};

/// `SHF_WRITE`.
const SHF_WRITE: u64 = 0x1;
/// `SHF_ALLOC`.
const SHF_ALLOC: u64 = 0x2;
/// `SHF_EXECINSTR`.
const SHF_EXECINSTR: u64 = 0x4;
/// `SHF_COMPRESSED`.
const SHF_COMPRESSED: u64 = 0x800;
/// The longest x86 instruction.
const MAX_X86_INSN: u64 = 15;

/// [`Known::Unknown`]'s reason when a name was not searched for in `.debug_info`.
pub const NOT_SEARCHED: &str = "the lookups of its debug information are spent";

/// Why a program could not be taken.
#[derive(Debug)]
pub enum ProgramError {
    /// It could not be opened or read (exit code 3).
    Io(std::io::Error),
    /// It is not an ELF file, its headers do not parse, or it is larger than the limit (exit
    /// code 2: the option names the wrong file).
    Invalid(String),
}

impl std::fmt::Display for ProgramError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ProgramError::Io(e) => write!(f, "cannot read: {e}"),
            ProgramError::Invalid(why) => f.write_str(why),
        }
    }
}

/// The instruction set of a program, as far as the checks tell them apart.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Arch {
    /// x86-64 (ELF machine `EM_X86_64`, also the x32 ABI).
    X86_64,
    /// i386 (`EM_386`).
    I386,
    /// Any other machine (as `object` names it).
    Other(String),
}

/// One allocated section.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Section {
    /// Its name (lossy UTF-8).
    pub name: String,
    /// First address.
    pub addr: u64,
    /// Size in memory.
    pub size: u64,
    /// Where its bytes are in the file (`None` for `SHT_NOBITS`).
    pub file: Option<(u64, u64)>,
    /// `SHF_EXECINSTR`.
    pub exec: bool,
    /// `SHF_WRITE`.
    pub write: bool,
}

impl Section {
    /// Whether `addr` lies in it.
    pub fn contains(&self, addr: u64) -> bool {
        addr >= self.addr && addr.wrapping_sub(self.addr) < self.size
    }
}

/// A function symbol's range.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Function {
    /// Its name.
    pub name: Box<[u8]>,
    /// Its address.
    pub addr: u64,
    /// Its size (0 when the symbol does not say).
    pub size: u64,
}

/// Whether a program knows a name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Known {
    /// A symbol or its debug information has it.
    Yes,
    /// Neither has it, and the program's names are complete (symbols and debug information in
    /// the file, none left past a limit, no separate debug file GDB could load).
    No,
    /// Cannot tell: the symbols were cut at `max_entries`, the debug information is
    /// compressed, or a separate debug file may hold more names (the reason).
    Unknown(&'static str),
}

/// The instruction at an address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Insn {
    /// Decoded: its length in bytes.
    Len(u64),
    /// The bytes there do not decode as an instruction (iced-x86); the length it consumed.
    Invalid(u64),
    /// The address lies in no allocated, read-only section with bytes in the file: nothing
    /// there can be read from the program.
    Unreadable,
}

/// A program: its bytes and what was read of them.
pub struct Program {
    /// The path it was read from.
    pub path: PathBuf,
    /// Its instruction set.
    pub arch: Arch,
    /// Whether it is a 64-bit ELF.
    pub is_64: bool,
    /// Its allocated sections.
    pub sections: Vec<Section>,
    /// Function symbols (`.symtab` and `.dynsym`), by address.
    pub functions: Vec<Function>,
    /// [`Program::functions`] indices sorted by name (without a `@version`).
    by_name: Vec<usize>,
    /// Every symbol name (`.symtab` and `.dynsym`, defined or not), sorted.
    names: Vec<Box<[u8]>>,
    /// The `<length><name>` parts of the C++ symbols' mangled names (`_ZN2ns3fooEv`: `ns`,
    /// `foo`), sorted.
    cxx_parts: Vec<Box<[u8]>>,
    /// The strings of `.debug_str` and `.debug_line_str`, sorted.
    debug_strs: Vec<Box<[u8]>>,
    /// The file range of `.debug_info` (uncompressed), whose inline strings are searched.
    debug_info: Option<(u64, u64)>,
    /// Why a name's absence cannot be told, if it cannot.
    names_incomplete: Option<&'static str>,
    data: Data,
}

impl std::fmt::Debug for Program {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Program")
            .field("path", &self.path)
            .field("arch", &self.arch)
            .field("sections", &self.sections.len())
            .field("functions", &self.functions.len())
            .field("names", &self.names.len())
            .finish_non_exhaustive()
    }
}

impl Program {
    /// Reads and parses `path` (at most `limits.max_read_bytes` bytes, at most
    /// `limits.max_entries` symbols kept).
    pub fn load(path: &Path, limits: &Limits) -> Result<Program, ProgramError> {
        let data = match input::load(path, LoadMode::Read, limits.max_read_bytes) {
            Ok(d) => d,
            Err(e) if e.kind() == std::io::ErrorKind::FileTooLarge => {
                return Err(ProgramError::Invalid(format!(
                    "{e} bytes: larger than limits.max_read_bytes ({})",
                    limits.max_read_bytes
                )))
            }
            Err(e) => return Err(ProgramError::Io(e)),
        };
        Self::parse(path, data, limits)
    }

    /// Parses a program already in memory.
    pub fn from_bytes(
        path: &Path,
        bytes: Vec<u8>,
        limits: &Limits,
    ) -> Result<Program, ProgramError> {
        Self::parse(path, Data::Owned(bytes), limits)
    }

    fn parse(path: &Path, data: Data, limits: &Limits) -> Result<Program, ProgramError> {
        if !data.starts_with(b"\x7fELF") {
            return Err(ProgramError::Invalid(
                "not an ELF file (no \\x7fELF magic)".into(),
            ));
        }
        let file = object::File::parse(&*data)
            .map_err(|e| ProgramError::Invalid(format!("not a readable ELF file: {e}")))?;
        let is_64 = file.is_64();
        let arch = match file.architecture() {
            object::Architecture::X86_64 | object::Architecture::X86_64_X32 => Arch::X86_64,
            object::Architecture::I386 => Arch::I386,
            other => Arch::Other(format!("{other:?}")),
        };
        let max = usize::try_from(limits.max_entries).unwrap_or(usize::MAX);
        let mut incomplete: Option<&'static str> = None;
        let mut sections = Vec::new();
        let mut debug_strs: Vec<Box<[u8]>> = Vec::new();
        let mut debug_info = None;
        let mut has_symtab = false;
        let mut has_debug_info = false;
        let mut has_build_id = false;
        for s in file.sections() {
            let flags = match s.flags() {
                SectionFlags::Elf { sh_flags, .. } => sh_flags.0,
                _ => 0,
            };
            let name = s.name_bytes().unwrap_or_default();
            match name {
                b".symtab" => has_symtab = true,
                b".gnu_debuglink" | b".gnu_debugaltlink" => {
                    incomplete = Some("the program names a separate debug file GDB may load");
                }
                b".note.gnu.build-id" => has_build_id = true,
                _ => {}
            }
            if name.starts_with(b".zdebug") {
                incomplete = Some("its debug information is compressed");
            }
            if matches!(name, b".debug_str" | b".debug_info" | b".debug_line_str") {
                if name == b".debug_info" {
                    has_debug_info = true;
                }
                if flags & SHF_COMPRESSED != 0 {
                    incomplete = Some("its debug information is compressed");
                } else if name == b".debug_info" {
                    debug_info = s.file_range();
                } else if let Ok(bytes) = s.data() {
                    for text in bytes.split(|&b| b == 0).filter(|t| !t.is_empty()) {
                        if debug_strs.len() >= max {
                            incomplete = Some("its debug strings are more than limits.max_entries");
                            break;
                        }
                        debug_strs.push(text.into());
                    }
                }
            }
            if flags & SHF_ALLOC == 0 || s.kind() == SectionKind::Metadata {
                continue;
            }
            if sections.len() >= max {
                break;
            }
            sections.push(Section {
                name: String::from_utf8_lossy(name).into_owned(),
                addr: s.address(),
                size: s.size(),
                file: s
                    .file_range()
                    .filter(|_| s.kind() != SectionKind::UninitializedData),
                exec: flags & SHF_EXECINSTR != 0,
                write: flags & SHF_WRITE != 0,
            });
        }
        if !has_symtab && !has_debug_info && has_build_id && incomplete.is_none() {
            incomplete = Some(
                "it is stripped and has a build ID, by which GDB may load a separate debug file",
            );
        }
        let mut names: Vec<Box<[u8]>> = Vec::new();
        let mut functions = Vec::new();
        for sym in file.symbols().chain(file.dynamic_symbols()) {
            if names.len() >= max {
                incomplete = Some("it has more symbols than limits.max_entries");
                break;
            }
            let Ok(name) = sym.name_bytes() else { continue };
            if name.is_empty() {
                continue;
            }
            if sym.kind() == SymbolKind::Text && sym.is_definition() {
                functions.push(Function {
                    name: name.into(),
                    addr: sym.address(),
                    size: sym.size(),
                });
            }
            names.push(name.into());
        }
        names.sort_unstable();
        names.dedup();
        debug_strs.sort_unstable();
        debug_strs.dedup();
        let mut cxx_parts: Vec<Box<[u8]>> = Vec::new();
        for n in names.iter().filter(|n| n.starts_with(b"_Z")) {
            if cxx_parts.len() >= max {
                incomplete = Some("its C++ names are more than limits.max_entries");
                break;
            }
            mangled_parts(n, &mut cxx_parts);
        }
        cxx_parts.sort_unstable();
        cxx_parts.dedup();
        functions.sort_by_key(|f| f.addr);
        let mut by_name: Vec<usize> = (0..functions.len()).collect();
        by_name.sort_by(|&a, &b| {
            let key = |i: usize| functions.get(i).map(|f| strip_version(&f.name));
            key(a).cmp(&key(b))
        });
        drop(file);
        Ok(Program {
            path: path.to_path_buf(),
            arch,
            is_64,
            sections,
            functions,
            by_name,
            names,
            cxx_parts,
            debug_strs,
            debug_info,
            names_incomplete: incomplete,
            data,
        })
    }

    /// The allocated section `addr` lies in, if any.
    pub fn section_at(&self, addr: u64) -> Option<&Section> {
        self.sections.iter().find(|s| s.contains(addr))
    }

    /// The function symbols named `name` (`name` itself or a versioned `name@...`).
    pub fn functions_named<'p>(
        &'p self,
        name: &'p [u8],
    ) -> impl Iterator<Item = &'p Function> + 'p {
        let key = |i: &usize| self.functions.get(*i).map(|f| strip_version(&f.name));
        let from = self.by_name.partition_point(|i| key(i) < Some(name));
        self.by_name
            .get(from..)
            .unwrap_or_default()
            .iter()
            .take_while(move |i| key(i) == Some(name))
            .filter_map(|&i| self.functions.get(i))
    }

    /// Whether the program knows `name` as GDB looks a plain function name up: a symbol of that
    /// name (or `name@version`, `name.suffix` as compilers clone functions), a C++ symbol
    /// whose mangled name holds it (`_Z...3foo...`), or the name as a string of its debug
    /// information (a function inlined everywhere has no symbol of its own). `deep`: also
    /// search the inline strings of `.debug_info` (a scan of the section; without it a name
    /// found nowhere else is [`Known::Unknown`] when the program has debug information).
    pub fn knows(&self, name: &[u8], deep: bool) -> Known {
        let has =
            |list: &[Box<[u8]>], key: &[u8]| list.binary_search_by(|n| n.as_ref().cmp(key)).is_ok();
        let has_prefix = |list: &[Box<[u8]>], prefix: &[u8]| {
            let at = list.partition_point(|n| n.as_ref() < prefix);
            list.get(at).is_some_and(|n| n.starts_with(prefix))
        };
        let with = |c: u8| {
            let mut v = name.to_vec();
            v.push(c);
            v
        };
        if has(&self.names, name)
            || has_prefix(&self.names, &with(b'@'))
            || has_prefix(&self.names, &with(b'.'))
            || has(&self.cxx_parts, name)
            || has(&self.debug_strs, name)
        {
            return Known::Yes;
        }
        if let Some((off, len)) = self.debug_info {
            if !deep {
                return Known::Unknown(NOT_SEARCHED);
            }
            let bytes = usize::try_from(off)
                .ok()
                .zip(usize::try_from(off.saturating_add(len)).ok())
                .and_then(|(a, b)| self.data.get(a..b))
                .unwrap_or_default();
            if memchr::memmem::find(bytes, &with(0)).is_some() {
                return Known::Yes;
            }
        }
        match self.names_incomplete {
            Some(why) => Known::Unknown(why),
            None => Known::No,
        }
    }

    /// Whether the program's debug information names the source file `file` as GDB matches a
    /// `FILE:LINE` location: a file name string that is `file` or ends in `/file`. A program
    /// without debug strings, or whose names are incomplete, is [`Known::Unknown`].
    pub fn knows_source_file(&self, file: &[u8]) -> Known {
        if let Some(why) = self.names_incomplete {
            return Known::Unknown(why);
        }
        if self.debug_strs.is_empty() {
            return Known::Unknown("the program has no debug strings");
        }
        let suffix = [b"/".as_slice(), file].concat();
        if self
            .debug_strs
            .iter()
            .any(|s| s.as_ref() == file || s.ends_with(&suffix))
        {
            Known::Yes
        } else {
            Known::No
        }
    }

    /// The bytes at `addr`, at most `n`, from the allocated section with file bytes holding
    /// it, and whether that section is read-only (what GDB reads from the program when a
    /// trace file is the target).
    pub fn bytes_at(&self, addr: u64, n: u64) -> Option<(&[u8], bool)> {
        let s = self.section_at(addr)?;
        let (off, len) = s.file?;
        let within = addr.checked_sub(s.addr)?;
        let avail = len.min(s.size).checked_sub(within)?;
        let start = off.checked_add(within)?;
        let end = start.checked_add(avail.min(n))?;
        let bytes = self
            .data
            .get(usize::try_from(start).ok()?..usize::try_from(end).ok()?)?;
        Some((bytes, !s.write))
    }

    /// The x86 instruction at `addr` (`None` for a program that is not x86), read from the
    /// read-only sections only, as GDB reads the program's memory when a trace file is its
    /// target (exec.c `section_table_available_memory`: `SEC_READONLY` sections).
    pub fn x86_insn_at(&self, addr: u64) -> Option<Insn> {
        let bitness = match &self.arch {
            Arch::X86_64 => 64,
            Arch::I386 => 32,
            Arch::Other(_) => return None,
        };
        let Some((bytes, true)) = self.bytes_at(addr, MAX_X86_INSN) else {
            return Some(Insn::Unreadable);
        };
        let mut d =
            iced_x86::Decoder::with_ip(bitness, bytes, addr, iced_x86::DecoderOptions::NONE);
        let insn = d.decode();
        let len = insn.len() as u64;
        Some(match d.last_error() {
            iced_x86::DecoderError::None => Insn::Len(len),
            iced_x86::DecoderError::NoMoreBytes => Insn::Unreadable,
            _ => Insn::Invalid(len.max(1)),
        })
    }
}

/// The `<length><identifier>` parts of a mangled C++ name, pushed onto `out`.
fn mangled_parts(n: &[u8], out: &mut Vec<Box<[u8]>>) {
    let mut i = 0usize;
    while let Some(&c) = n.get(i) {
        if !c.is_ascii_digit() {
            i = i.saturating_add(1);
            continue;
        }
        let digits = n
            .get(i..)
            .unwrap_or_default()
            .iter()
            .take_while(|d| d.is_ascii_digit())
            .count();
        let len = std::str::from_utf8(n.get(i..i.saturating_add(digits)).unwrap_or_default())
            .ok()
            .and_then(|t| t.parse::<usize>().ok())
            .unwrap_or(0);
        let start = i.saturating_add(digits);
        match n.get(start..start.saturating_add(len)) {
            Some(part)
                if len > 0 && part.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'_') =>
            {
                out.push(part.into());
                i = start.saturating_add(len);
            }
            _ => i = start,
        }
    }
}

/// `name@VERSION` / `name@@VERSION` without its version.
fn strip_version(n: &[u8]) -> &[u8] {
    match memchr::memchr(b'@', n) {
        Some(i) => n.get(..i).unwrap_or(n),
        None => n,
    }
}

#[cfg(test)]
#[allow(clippy::panic, clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn not_elf_is_invalid() {
        let e = Program::from_bytes(Path::new("x"), b"#!/bin/sh\n".to_vec(), &Limits::default());
        assert!(matches!(e, Err(ProgramError::Invalid(_))), "{e:?}");
        let e = Program::from_bytes(
            Path::new("x"),
            b"\x7fELF\x02\x01".to_vec(),
            &Limits::default(),
        );
        assert!(matches!(e, Err(ProgramError::Invalid(_))), "{e:?}");
    }

    #[test]
    fn mangled_names_give_their_parts() {
        let mut v = Vec::new();
        mangled_parts(b"_ZN2ns3fooEv", &mut v);
        mangled_parts(b"_Z3barIiEvT_", &mut v);
        mangled_parts(b"_Z99x", &mut v);
        let v: Vec<&[u8]> = v.iter().map(|b| b.as_ref()).collect();
        assert_eq!(v, [&b"ns"[..], b"foo", b"bar"]);
    }

    #[test]
    fn missing_file_is_io() {
        let e = Program::load(
            Path::new("/nonexistent/tracelint-program"),
            &Limits::default(),
        );
        assert!(matches!(e, Err(ProgramError::Io(_))), "{e:?}");
    }

    #[test]
    fn reads_its_own_test_binary() {
        // The test binary is an ELF on Linux: its sections, symbols and code.
        let Ok(exe) = std::env::current_exe() else {
            return;
        };
        let p = match Program::load(&exe, &Limits::default()) {
            Ok(p) => p,
            Err(e) => panic!("{e}"),
        };
        assert!(p.sections.iter().any(|s| s.exec && !s.write));
        assert_eq!(p.knows(b"main", false), Known::Yes);
        assert_ne!(p.knows(b"no_such_function_in_tracelint", true), Known::Yes);
        if p.arch == Arch::X86_64 {
            let f = p
                .functions
                .iter()
                .find(|f| f.size > 0 && p.section_at(f.addr).is_some_and(|s| s.exec));
            if let Some(f) = f {
                assert!(matches!(p.x86_insn_at(f.addr), Some(Insn::Len(1..=15))));
            }
            assert_eq!(p.x86_insn_at(0), Some(Insn::Unreadable));
        }
    }
}
