//! The definition lines as GDB 13 parses them: `parse_trace_status`,
//! `parse_tracepoint_definition` and `parse_tsv_definition` (gdb/tracepoint.c, unchanged in
//! substance since GDB 7.2) read by position, not by field: a byte where a `:` or `;` belongs
//! is skipped whatever it is, a number is the run of hex digits there (none reads as 0, more
//! than 16 wrap), an unknown status key is skipped. What GDB then holds is what tracelint
//! judges a malformed line by: the file is read the same when GDB parses it without error.
//!
//! Each function takes the line's payload (after `status `, `tp `, `tsv `) up to its first NUL,
//! as GDB keeps lines as C strings, and returns what GDB reads or why it fails.

/// A line GDB cannot parse: it fails (`target tfile` is refused) or reads past the line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure(pub String);

/// The payload as GDB sees it: up to its first NUL.
pub fn c_str(p: &[u8]) -> &[u8] {
    match p.iter().position(|&b| b == 0) {
        Some(n) => p.get(..n).unwrap_or(p),
        None => p,
    }
}

/// `unpack_varlen_hex`: the hex digits from `i` (wrapping past 64 bits) and the index after.
fn varlen_hex(s: &[u8], mut i: usize) -> (u64, usize) {
    let mut v = 0u64;
    while let Some(d) = s.get(i).and_then(|&b| hex_digit(b)) {
        v = (v << 4) | u64::from(d);
        i = i.saturating_add(1);
    }
    (v, i)
}

fn hex_digit(b: u8) -> Option<u8> {
    char::from(b)
        .to_digit(16)
        .and_then(|d| u8::try_from(d).ok())
}

/// `hex2bin (s + from, buf, count)`: stops early at the end of the string, fails with
/// "Invalid hex digit" on any other byte.
fn hex2bin(s: &[u8], from: usize, count: usize) -> Result<Vec<u8>, Failure> {
    let mut out = Vec::new();
    let mut i = from;
    for _ in 0..count {
        let (Some(&a), Some(&b)) = (s.get(i), s.get(i.saturating_add(1))) else {
            break;
        };
        match (hex_digit(a), hex_digit(b)) {
            (Some(x), Some(y)) => out.push(x << 4 | y),
            _ => {
                let bad = if hex_digit(a).is_none() { a } else { b };
                return Err(Failure(format!(
                    "fails with \"Invalid hex digit {bad}\" and refuses the file"
                )));
            }
        }
        i = i.saturating_add(2);
    }
    Ok(out)
}

/// Skips the byte at `i` (GDB's `p++`); reading past the string's NUL is past the line.
fn skip(s: &[u8], i: usize) -> Result<usize, Failure> {
    if i >= s.len() {
        return Err(Failure(
            "reads past the end of the line (a field it expects is missing)".into(),
        ));
    }
    Ok(i.saturating_add(1))
}

/// A `tp` line as GDB reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tp {
    /// The piece letter.
    pub piece: u8,
    /// Tracepoint number (unknown pieces: 0).
    pub num: u64,
    /// Address (unknown pieces: 0).
    pub addr: u64,
    /// What a `T` line defines.
    pub def: Option<TpDef>,
    /// A `Z` line's type (`at`, `cond`, `cmd` or other) and decoded text.
    pub source: Option<(Vec<u8>, Vec<u8>)>,
}

/// The fields of a `tp T` line as GDB reads them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TpDef {
    /// `E` (anything else is disabled).
    pub enabled: bool,
    /// Step count.
    pub step: u64,
    /// Pass count.
    pub pass: u64,
    /// Fast tracepoint (`F`) with its instruction length.
    pub fast: Option<u64>,
    /// Static tracepoint (`S`).
    pub is_static: bool,
    /// Length of the condition bytecode (`X`), which GDB keeps as text and never decodes.
    pub cond_len: Option<u64>,
}

impl Tp {
    /// What GDB reads, in words.
    pub fn describe(&self) -> String {
        match (&self.def, &self.source) {
            (Some(d), _) => format!(
                "tracepoint {} at 0x{:x}, {}, step {}, pass {}{}{}",
                self.num,
                self.addr,
                if d.enabled { "enabled" } else { "disabled" },
                d.step,
                d.pass,
                match (d.fast, d.is_static) {
                    (Some(n), _) => format!(", fast (instruction length {n})"),
                    (None, true) => ", static".to_string(),
                    _ => String::new(),
                },
                match d.cond_len {
                    Some(n) => format!(", a condition of {n} bytes kept as text"),
                    None => String::new(),
                }
            ),
            (None, Some((ty, text))) => format!(
                "the `{}` source line of tracepoint {} at 0x{:x}: `{}`",
                String::from_utf8_lossy(ty),
                self.num,
                self.addr,
                String::from_utf8_lossy(text)
            ),
            _ if matches!(self.piece, b'A' | b'S' | b'V') => format!(
                "a `{}` piece of tracepoint {} at 0x{:x}",
                char::from(self.piece),
                self.num,
                self.addr
            ),
            _ => {
                "an unknown tracepoint piece, which it ignores (\"Unrecognized tracepoint piece\")"
                    .to_string()
            }
        }
    }
}

/// `parse_tracepoint_definition` on the payload after `tp `.
pub fn tp(p: &[u8]) -> Result<Tp, Failure> {
    let s = c_str(p);
    let Some(&piece) = s.first() else {
        return Err(Failure(
            "reads past the end of the line (it is empty)".into(),
        ));
    };
    if !matches!(piece, b'T' | b'A' | b'S' | b'Z' | b'V') {
        return Ok(Tp {
            piece,
            num: 0,
            addr: 0,
            def: None,
            source: None,
        });
    }
    let (num, i) = varlen_hex(s, 1);
    let i = skip(s, i)?;
    let (addr, i) = varlen_hex(s, i);
    let mut i = skip(s, i)?;
    let mut tp = Tp {
        piece,
        num,
        addr,
        def: None,
        source: None,
    };
    match piece {
        b'T' => {
            let enabled = s.get(i) == Some(&b'E');
            i = skip(s, i)?;
            i = skip(s, i)?;
            let (step, j) = varlen_hex(s, i);
            i = skip(s, j)?;
            let (pass, j) = varlen_hex(s, i);
            i = j;
            let mut def = TpDef {
                enabled,
                step,
                pass,
                fast: None,
                is_static: false,
                cond_len: None,
            };
            while s.get(i) == Some(&b':') {
                i = i.saturating_add(1);
                match s.get(i) {
                    Some(b'F') => {
                        let (n, j) = varlen_hex(s, i.saturating_add(1));
                        def.fast = Some(n);
                        i = j;
                    }
                    Some(b'S') => {
                        def.is_static = true;
                        i = i.saturating_add(1);
                    }
                    Some(b'X') => {
                        let (n, j) = varlen_hex(s, i.saturating_add(1));
                        let j = skip(s, j)?;
                        // `xmalloc (2 * xlen + 1)`, `strncpy`, then `p += 2 * xlen`: a length
                        // past the line's end leaves GDB reading beyond it.
                        let rest = s.len().saturating_sub(j) as u64;
                        if n.saturating_mul(2) > rest {
                            return Err(Failure(format!(
                                "reads past the end of the line: the condition length 0x{n:x} asks for {} hex digits and {rest} follow",
                                u128::from(n) * 2
                            )));
                        }
                        def.cond_len = Some(n);
                        i = j.saturating_add(
                            usize::try_from(n.saturating_mul(2)).unwrap_or(usize::MAX),
                        );
                    }
                    // "Unrecognized char ... skipping rest": the loop goes on only at a `:`.
                    _ => {}
                }
            }
            tp.def = Some(def);
        }
        b'Z' => {
            let ty_start = i;
            let Some(colon) = s.get(i..).and_then(|r| r.iter().position(|&b| b == b':')) else {
                return Err(Failure(
                    "crashes (SIGSEGV): the source line has no `:` after its type".into(),
                ));
            };
            let ty = s
                .get(ty_start..i.saturating_add(colon))
                .unwrap_or(&[])
                .to_vec();
            let i = skip(s, i.saturating_add(colon))?;
            let (_, j) = varlen_hex(s, i);
            let j = skip(s, j)?;
            let (_, j) = varlen_hex(s, j);
            let j = skip(s, j)?;
            let rest = s.len().saturating_sub(j);
            let text = hex2bin(s, j, rest / 2)?;
            tp.source = Some((ty, text));
        }
        b'V' => {
            // `parse_tracepoint_status`: hits, one byte, usage.
            let (_, j) = varlen_hex(s, i);
            skip(s, j)?;
        }
        _ => {}
    }
    Ok(tp)
}

/// A `tsv` line as GDB reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tsv {
    /// Number.
    pub num: u64,
    /// Initial value (as GDB's unsigned field).
    pub initial: u64,
    /// Builtin flag.
    pub builtin: u64,
    /// Decoded name.
    pub name: Vec<u8>,
}

/// `parse_tsv_definition` on the payload after `tsv `.
pub fn tsv(p: &[u8]) -> Result<Tsv, Failure> {
    let s = c_str(p);
    let (num, i) = varlen_hex(s, 0);
    let i = skip(s, i)?;
    let (initial, i) = varlen_hex(s, i);
    let i = skip(s, i)?;
    let (builtin, i) = varlen_hex(s, i);
    let i = skip(s, i)?;
    let rest = s.len().saturating_sub(i);
    let name = hex2bin(s, i, rest / 2)?;
    Ok(Tsv {
        num,
        initial,
        builtin,
        name,
    })
}

/// The status as GDB reads it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Status {
    /// Whether the trace was running (`1`).
    pub running: bool,
    /// The stop reason's name as GDB matched it (`tstop`, `tfull`, ...), if any.
    pub reason: Option<&'static str>,
    /// Known fields read, by name, with their values.
    pub fields: Vec<(&'static str, u64)>,
}

impl Status {
    /// What GDB reads, in words.
    pub fn describe(&self) -> String {
        let mut s = format!(
            "{}{}",
            if self.running {
                "running"
            } else {
                "not running"
            },
            match self.reason {
                Some(r) => format!(", stop reason {r}"),
                None => String::new(),
            }
        );
        for (k, v) in &self.fields {
            s.push_str(&format!(", {k} 0x{v:x}"));
        }
        s
    }
}

/// GDB's `strncmp (p, name, p1 - p) == 0`: the key is a prefix of `name` (an empty key
/// matches the first name tried), read as a C string compare.
fn key_matches(key: &[u8], name: &str) -> bool {
    let n = name.as_bytes();
    for (i, &k) in key.iter().enumerate() {
        match n.get(i) {
            Some(&c) if c == k => {}
            // `name` ended first: strncmp compares its NUL with the key's byte.
            _ => return false,
        }
    }
    true
}

/// `parse_trace_status` on the payload after `status `.
pub fn status(p: &[u8]) -> Result<Status, Failure> {
    let s = c_str(p);
    let mut st = Status {
        running: s.first() == Some(&b'1'),
        ..Status::default()
    };
    let mut i = 1usize;
    // `while (*p++)`
    loop {
        let c = s.get(i).copied().unwrap_or(0);
        if i > s.len() {
            return Err(Failure("reads past the end of the line".into()));
        }
        i = i.saturating_add(1);
        if c == 0 {
            break;
        }
        let find = |from: usize, b: u8| {
            s.get(from..)
                .and_then(|r| r.iter().position(|&x| x == b))
                .map(|n| from.saturating_add(n))
        };
        let Some(p1) = find(i, b':') else {
            return Err(Failure(
                "fails with \"Malformed trace status\" and refuses the file".into(),
            ));
        };
        let p3 = find(i, b';').unwrap_or(s.len());
        let key = s.get(i..p1).unwrap_or(&[]);
        let value = |st: &mut Status, name: &'static str| {
            let (v, j) = varlen_hex(s, p1.saturating_add(1));
            st.fields.push((name, v));
            j
        };
        if key_matches(key, "tfull") {
            st.reason = Some("tfull");
            i = varlen_hex(s, p1.saturating_add(1)).1;
        } else if key_matches(key, "tnotrun") {
            st.reason = Some("tnotrun");
            i = varlen_hex(s, p1.saturating_add(1)).1;
        } else if key_matches(key, "tpasscount") {
            st.reason = Some("tpasscount");
            i = value(&mut st, "stopping tracepoint");
        } else if key_matches(key, "tstop") {
            st.reason = Some("tstop");
            let q1 = p1.saturating_add(1);
            let p2 = match find(q1, b':') {
                Some(p2) if p2 <= p3 => {
                    if p2 != q1 {
                        hex2bin(s, q1, p2.saturating_sub(q1) / 2)?;
                    }
                    p2
                }
                _ => q1,
            };
            let j = skip(s, p2)?;
            i = varlen_hex(s, j).1;
        } else if key_matches(key, "tdisconnected") {
            st.reason = Some("tdisconnected");
            i = varlen_hex(s, p1.saturating_add(1)).1;
        } else if key_matches(key, "terror") {
            st.reason = Some("terror");
            let q1 = p1.saturating_add(1);
            let Some(p2) = find(q1, b':') else {
                return Err(Failure(
                    "crashes: the terror stop reason has no `:` before its tracepoint".into(),
                ));
            };
            if p2 != q1 {
                hex2bin(s, q1, p2.saturating_sub(q1) / 2)?;
            }
            let j = skip(s, p2)?;
            let (v, j) = varlen_hex(s, j);
            st.fields.push(("stopping tracepoint", v));
            i = j;
        } else if let Some(name) = [
            "tframes",
            "tcreated",
            "tfree",
            "tsize",
            "disconn",
            "circular",
            "starttime",
            "stoptime",
        ]
        .into_iter()
        .find(|n| key_matches(key, n))
        {
            i = value(&mut st, name);
        } else if key_matches(key, "username") || key_matches(key, "notes") {
            let q1 = p1.saturating_add(1);
            hex2bin(s, q1, p3.saturating_sub(q1) / 2)?;
            i = p3;
        } else {
            // "Silently skip unknown optional info."
            match find(p1.saturating_add(1), b';') {
                Some(j) => i = j,
                None => break,
            }
        }
    }
    Ok(st)
}

#[cfg(test)]
#[path = "gdb13_tests.rs"]
mod tests;
