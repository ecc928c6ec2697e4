//! Argument specs: parsing `FUNC@arg1/s,fparg2/32,retval/f64` and the byte layout of the
//! payloads they describe, and matching function names by regex/glob/simple patterns.

use super::info::PatternType;

/// What a spec item is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ItemKind {
    /// `argN`.
    Arg,
    /// `fpargN`.
    FpArg,
    /// `retval`.
    Ret,
}

/// One item of a spec.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Item {
    /// Kind.
    pub kind: ItemKind,
    /// Index (0 for retval).
    pub idx: u32,
    /// True for `s` / `S` (u16 length + bytes).
    pub string: bool,
    /// Stored size for fixed items (before 4-byte alignment).
    pub size: u32,
    /// Whether the spec naming it matched exactly.
    pub exact: bool,
}

/// One `FUNC@items` spec.
#[derive(Clone, Debug)]
pub struct FuncSpec {
    /// The function pattern.
    pub pattern: String,
    /// Items (argument and retval mixed, as written).
    pub items: Vec<Item>,
}

/// Parses one item (`arg1/s`, `fparg2/80`, `retval/f64`, `arg3/t16:name%RDI`). `None` for
/// items that are not arguments (trigger actions) or that do not parse.
pub fn parse_item(s: &str, long: u32) -> Option<Result<Item, String>> {
    let (kind, idx, suffix, mut size, mut float) = if let Some(r) = s.strip_prefix("fparg") {
        let d = r.bytes().take_while(u8::is_ascii_digit).count();
        if d == 0 {
            return None;
        }
        let idx = r.get(..d)?.parse::<u32>().ok()?;
        (ItemKind::FpArg, idx, r.get(d..)?, 8u32, true)
    } else if let Some(r) = s.strip_prefix("arg") {
        let d = r.bytes().take_while(u8::is_ascii_digit).count();
        if d == 0 {
            return None;
        }
        let idx = r.get(..d)?.parse::<u32>().ok()?;
        (ItemKind::Arg, idx, r.get(d..)?, long, false)
    } else if let Some(r) = s.strip_prefix("retval") {
        (ItemKind::Ret, 0, r, long, false)
    } else {
        return None;
    };
    let mut string = false;
    let err = |m: &str| Some(Err(format!("`{s}`: {m}")));
    // Strip a `%reg` / `%stackN` location.
    let (body, _loc) = match suffix.find('%') {
        Some(p) => (suffix.get(..p)?, suffix.get(p..)),
        None => (suffix, None),
    };
    if body.is_empty() {
        return Some(Ok(Item {
            kind,
            idx,
            string,
            size,
            exact: false,
        }));
    }
    let Some(f) = body.strip_prefix('/') else {
        return err("expected `/format` after the argument name");
    };
    let mut chars = f.chars();
    let c = chars.next();
    let mut rest = chars.as_str();
    match c {
        Some('d' | 'i' | 'u' | 'x' | 'o' | 'p') => {}
        Some('s' | 'S') => string = true,
        Some('c') => size = 1,
        Some('f') => {
            float = true;
            size = 8;
        }
        Some('e') => {
            if !rest.starts_with(':') || rest.len() < 2 {
                return err("enum format needs `e:NAME`");
            }
            rest = "";
        }
        Some('t') => {
            let d = rest.bytes().take_while(u8::is_ascii_digit).count();
            // strtol: no digits read as 0.
            let n = if d == 0 {
                Some(0)
            } else {
                rest.get(..d).and_then(|x| x.parse::<u32>().ok())
            };
            match n {
                // `t0`: an empty struct (DWARF size 0), recorded as no bytes.
                Some(n) if n <= 1024 => size = n,
                _ => return err("struct size above 1024 bytes"),
            }
            return Some(Ok(Item {
                kind,
                idx,
                string,
                size,
                exact: false,
            }));
        }
        Some(d) if d.is_ascii_digit() && float => {
            rest = f;
        }
        _ => return err("unknown format letter"),
    }
    if !rest.is_empty() {
        // uftrace takes a size after any letter (`s32` is still a string).
        match rest.parse::<u32>() {
            Ok(b @ (8 | 16 | 32 | 64)) if !string => size = b / 8,
            Ok(8 | 16 | 32 | 64) => {}
            Ok(80) if float => size = 10,
            _ => return err("size must be 8, 16, 32 or 64 bits (80 for floats)"),
        }
    }
    Some(Ok(Item {
        kind,
        idx,
        string,
        size,
        exact: false,
    }))
}

/// Parses `FUNC@item,item;FUNC@...` into specs; unparsable items are returned as errors.
pub fn parse_specs(text: &str, long: u32, out: &mut Vec<FuncSpec>, errors: &mut Vec<String>) {
    for part in text.split(';') {
        if part.is_empty() {
            continue;
        }
        let Some((func, items)) = part.split_once('@') else {
            errors.push(format!("`{part}` has no `@`"));
            continue;
        };
        let mut v = Vec::new();
        for it in items.split(',') {
            match parse_item(it, long) {
                Some(Ok(i)) => v.push(i),
                Some(Err(e)) => errors.push(e),
                None => {}
            }
        }
        if !v.is_empty() {
            out.push(FuncSpec {
                pattern: func.to_string(),
                items: v,
            });
        }
    }
}

/// Adds `item` into `list` the way uftrace merges specs: an item of the same kind and index is
/// replaced (unless an exact one would be overwritten by a pattern match); a new item goes to
/// the end (uftrace 0.9 and later, "trigger: Do not change order of arguments"), or with
/// `sorted` (uftrace before 0.9) before the first item of its kind with a larger index.
pub fn add_item(list: &mut Vec<Item>, item: Item, sorted: bool) {
    let same = |o: &Item| {
        (o.kind == ItemKind::FpArg) == (item.kind == ItemKind::FpArg)
            && (o.kind == ItemKind::Ret) == (item.kind == ItemKind::Ret)
            && o.idx == item.idx
    };
    if let Some(o) = list.iter_mut().find(|o| same(o)) {
        if item.exact || !o.exact {
            *o = item;
        }
        return;
    }
    let pos = if sorted {
        list.iter()
            .position(|o| o.kind == item.kind && o.idx > item.idx)
            .unwrap_or(list.len())
    } else {
        list.len()
    };
    list.insert(pos, item);
}

/// Payload bytes the items occupy, before the final 8-byte padding, when every string is
/// empty; strings are framed while reading.
pub fn fixed_len(item: &Item) -> u32 {
    align4(item.size)
}

/// Rounds up to 4.
pub fn align4(v: u32) -> u32 {
    v.saturating_add(3) & !3
}

/// Rounds up to 8.
pub fn align8(v: u64) -> u64 {
    v.saturating_add(7) & !7
}

/// The characters that make a pattern a regex or glob for uftrace (`REGEX_CHARS` of
/// utils/filter.h); a pattern without any is an exact name.
pub const PATTERN_CHARS: &[char] = &[
    '.', '?', '*', '+', '-', '^', '$', '|', '(', ')', '[', ']', '{', '}',
];

/// The name uftrace's default ("simple") demangler gives `name`, for the names where that can
/// matter to argument specs: `operator new`/`new[]`/`delete`/`delete[]` for every overload
/// (`_Znwm`, `_ZnwmRKSt9nothrow_t`, `_ZdlPvm`...), and the bare identifier of an unscoped
/// function (`_Z6strlenPKc`, `_ZL3fooi`). Other names come back unchanged.
pub fn simple_name(name: &str) -> std::borrow::Cow<'_, str> {
    use std::borrow::Cow;
    let Some(m) = name.strip_prefix("_Z") else {
        return Cow::Borrowed(name);
    };
    for (code, op) in [
        ("nw", "operator new"),
        ("na", "operator new[]"),
        ("dl", "operator delete"),
        ("da", "operator delete[]"),
    ] {
        if m.starts_with(code) {
            return Cow::Borrowed(op);
        }
    }
    let m = m.strip_prefix('L').unwrap_or(m);
    let d = m.bytes().take_while(u8::is_ascii_digit).count();
    let ident = m
        .get(..d)
        .and_then(|n| n.parse::<usize>().ok())
        .and_then(|n| m.get(d..d.checked_add(n)?));
    match ident {
        Some(id) if !id.is_empty() => Cow::Borrowed(id),
        _ => Cow::Borrowed(name),
    }
}

/// Result of matching a name against a pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Match {
    /// Exact (no pattern metacharacters).
    Exact,
    /// Matched as a pattern.
    Pattern,
    /// No match.
    No,
    /// The pattern uses regex syntax this checker does not evaluate.
    Unsupported,
}

/// Matches `name` against `pat` under `pt`.
pub fn matches(pat: &str, name: &str, pt: PatternType) -> Match {
    match pt {
        PatternType::Simple => {
            if pat == name {
                Match::Exact
            } else {
                Match::No
            }
        }
        PatternType::Glob => {
            if !pat.contains(PATTERN_CHARS) {
                return if pat == name { Match::Exact } else { Match::No };
            }
            if glob(pat.as_bytes(), name.as_bytes()) {
                Match::Pattern
            } else {
                Match::No
            }
        }
        PatternType::Regex => {
            if !pat.contains(PATTERN_CHARS) && !pat.contains('\\') {
                return if pat == name { Match::Exact } else { Match::No };
            }
            if pat.contains(['[', ']', '(', ')', '{', '}', '|']) {
                return Match::Unsupported;
            }
            let toks = match regex_tokens(pat) {
                Some(t) => t,
                None => return Match::Unsupported,
            };
            if regex_search(&toks, name.as_bytes()) {
                Match::Pattern
            } else {
                Match::No
            }
        }
    }
}

/// Matches one glob element (not `*`) at the start of `p` against byte `c`; returns the
/// element's length in `p`, or `None` when it does not match.
fn glob_one(p: &[u8], c: u8) -> Option<usize> {
    match p.split_first()? {
        (b'?', _) => Some(1),
        (b'[', rest) => {
            let close = rest
                .iter()
                .skip(1)
                .position(|&x| x == b']')?
                .saturating_add(1);
            let class = rest.get(..close)?;
            let (neg, class) = match class.split_first() {
                Some((b'!' | b'^', c2)) => (true, c2),
                _ => (false, class),
            };
            let mut hit = false;
            let mut i = 0usize;
            while let Some(&a) = class.get(i) {
                if class.get(i.saturating_add(1)) == Some(&b'-') {
                    if let Some(&b) = class.get(i.saturating_add(2)) {
                        hit |= a <= c && c <= b;
                        i = i.saturating_add(3);
                        continue;
                    }
                }
                hit |= a == c;
                i = i.saturating_add(1);
            }
            (hit != neg).then_some(close.saturating_add(2))
        }
        (&x, _) => (x == c).then_some(1),
    }
}

/// Shell glob match with the classic single-backtrack-point algorithm (no exponential cases).
fn glob(p: &[u8], s: &[u8]) -> bool {
    let (mut pi, mut si) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    loop {
        if si >= s.len() {
            while p.get(pi) == Some(&b'*') {
                pi = pi.saturating_add(1);
            }
            return pi >= p.len();
        }
        let c = s.get(si).copied().unwrap_or(0);
        if p.get(pi) == Some(&b'*') {
            pi = pi.saturating_add(1);
            star = Some((pi, si));
            continue;
        }
        if let Some(n) = p.get(pi..).and_then(|rest| glob_one(rest, c)) {
            pi = pi.saturating_add(n);
            si = si.saturating_add(1);
            continue;
        }
        match star {
            Some((sp, ss)) => {
                pi = sp;
                si = ss.saturating_add(1);
                star = Some((sp, si));
            }
            None => return false,
        }
    }
}

#[derive(Clone, Copy, Debug)]
enum Tok {
    Start,
    End,
    Char(u8, Rep),
    Any(Rep),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rep {
    One,
    Star,
    Plus,
    Opt,
}

fn regex_tokens(p: &str) -> Option<Vec<Tok>> {
    let b = p.as_bytes();
    let mut v = Vec::new();
    let mut i = 0usize;
    while let Some(&c) = b.get(i) {
        i = i.saturating_add(1);
        let atom = match c {
            b'^' if v.is_empty() => {
                v.push(Tok::Start);
                continue;
            }
            b'$' if i == b.len() => {
                v.push(Tok::End);
                continue;
            }
            b'.' => None,
            b'\\' => {
                let e = *b.get(i)?;
                i = i.saturating_add(1);
                Some(e)
            }
            b'*' | b'+' | b'?' | b'^' | b'$' => return None,
            c => Some(c),
        };
        let rep = match b.get(i) {
            Some(b'*') => Rep::Star,
            Some(b'+') => Rep::Plus,
            Some(b'?') => Rep::Opt,
            _ => Rep::One,
        };
        if rep != Rep::One {
            i = i.saturating_add(1);
        }
        v.push(match atom {
            Some(c) => Tok::Char(c, rep),
            None => Tok::Any(rep),
        });
    }
    Some(v)
}

/// Backtracking steps allowed for one match (keeps hostile patterns from taking long).
const REGEX_BUDGET: u32 = 100_000;

fn regex_search(t: &[Tok], s: &[u8]) -> bool {
    let mut budget = REGEX_BUDGET;
    if let Some((Tok::Start, rest)) = t.split_first() {
        return regex_here(rest, s, 0, &mut budget);
    }
    (0..=s.len()).any(|i| regex_here(t, s.get(i..).unwrap_or(&[]), 0, &mut budget))
}

fn regex_here(t: &[Tok], s: &[u8], depth: u32, budget: &mut u32) -> bool {
    if depth > 256 || *budget == 0 {
        return false;
    }
    *budget = budget.saturating_sub(1);
    let Some((tok, rest)) = t.split_first() else {
        return true;
    };
    let (m, rep): (Box<dyn Fn(u8) -> bool>, Rep) = match *tok {
        Tok::End => return s.is_empty(),
        Tok::Start => return false,
        Tok::Char(c, r) => (Box::new(move |x| x == c), r),
        Tok::Any(r) => (Box::new(|_| true), r),
    };
    let d = depth.saturating_add(1);
    match rep {
        Rep::One => match s.split_first() {
            Some((&c, srest)) if m(c) => regex_here(rest, srest, d, budget),
            _ => false,
        },
        Rep::Opt => {
            matches!(s.split_first(), Some((&c, srest)) if m(c) && regex_here(rest, srest, d, budget))
                || regex_here(rest, s, d, budget)
        }
        Rep::Star | Rep::Plus => {
            let n = s.iter().take_while(|&&c| m(c)).count();
            let min = usize::from(rep == Rep::Plus);
            (min..=n)
                .rev()
                .any(|k| regex_here(rest, s.get(k..).unwrap_or(&[]), d, budget))
        }
    }
}

#[cfg(test)]
#[path = "argspec_tests.rs"]
mod tests;
