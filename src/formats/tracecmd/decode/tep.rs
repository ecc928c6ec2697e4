//! What libtraceevent makes of the head of an event format (`name:`, `ID:`, `format:`), read
//! token by token the way its tokenizer reads it (`event-parse.c`: `__read_token`,
//! `event_read_name`, `event_read_id`, `event_read_format`; the same code in libtraceevent
//! 1.7.1 and 1.8.4 and in the copies trace-cmd 2.4 and 2.9.5 bundle).
//!
//! The head decides whether a broken format is registered at all: libtraceevent drops a format
//! whose name or id it cannot read, but keeps one that breaks after its id (flagged as failed,
//! with the fields read so far) — and takes the offset of every record's id from the format of
//! the lowest registered id. A line-based reading gets both wrong: `ID: 374` before `name:`
//! is dropped, and `ID: 1` run into the next line is registered under id 1.

use std::ops::Range;

/// libtraceevent's token classes (`get_type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    /// End of input, or a byte that is neither printable nor blank.
    None,
    Space,
    Newline,
    Item,
    Quote,
    Delim,
    Op,
}

fn class(c: u8) -> Class {
    match c {
        b'\n' => Class::Newline,
        b' ' | b'\t' | 0x0b | 0x0c | b'\r' => Class::Space,
        c if c.is_ascii_alphanumeric() || c == b'_' => Class::Item,
        b'\'' | b'"' => Class::Quote,
        c if !(0x20..0x7f).contains(&c) => Class::None,
        b'(' | b')' | b',' => Class::Delim,
        _ => Class::Op,
    }
}

struct Tokens<'a> {
    text: &'a [u8],
    at: usize,
}

impl<'a> Tokens<'a> {
    /// One raw token (`__read_token`): a run of item or blank bytes, or one byte otherwise
    /// (operators of two bytes never match what the head expects, so one is enough to fail).
    fn raw(&mut self) -> (Class, Range<usize>) {
        let start = self.at;
        let Some(&c) = self.text.get(start) else {
            return (Class::None, start..start);
        };
        let cls = class(c);
        self.at = start.saturating_add(1);
        if matches!(cls, Class::Space | Class::Item) {
            while self.text.get(self.at).map(|&b| class(b)) == Some(cls) {
                self.at = self.at.saturating_add(1);
            }
        }
        (cls, start..self.at)
    }

    /// `read_token`: skips blanks but not newlines.
    fn token(&mut self) -> (Class, Range<usize>) {
        loop {
            let t = self.raw();
            if t.0 != Class::Space {
                return t;
            }
        }
    }

    /// `read_token_item`: skips blanks and newlines.
    fn token_item(&mut self) -> (Class, Range<usize>) {
        loop {
            let t = self.raw();
            if !matches!(t.0, Class::Space | Class::Newline) {
                return t;
            }
        }
    }

    fn text_of(&self, r: &Range<usize>) -> &'a [u8] {
        self.text.get(r.clone()).unwrap_or_default()
    }
}

/// The head of a format as libtraceevent reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Head {
    /// The name or the id cannot be read, or the id is negative as an `int`: the format is
    /// dropped (`event_alloc_failed`). The range is where reading stopped, in the text.
    Dropped(String, Range<usize>),
    /// Name and id read, `format:` not: the format is registered under `id`, failed, with no
    /// fields.
    NoFormat(u32, String, Range<usize>),
    /// Name, id and `format:` read; libtraceevent goes on with the fields.
    Read(u32),
}

fn shown(b: &[u8]) -> String {
    if b.is_empty() {
        return "the end of the text".to_string();
    }
    let s: String = String::from_utf8_lossy(b).chars().take(24).collect();
    format!("`{}`", s.escape_debug())
}

/// `strtoul(token, NULL, 0)` stored in an `int`: decimal, `0x` hex or `0` octal, the longest
/// prefix that parses, wrapped to 32 bits; `None` when the `int` is negative.
fn strtoul_int(tok: &[u8]) -> Option<u32> {
    let (digits, radix) = match tok {
        [b'0', b'x' | b'X', rest @ ..] if rest.first().is_some_and(u8::is_ascii_hexdigit) => {
            (rest, 16)
        }
        [b'0', rest @ ..] => (rest, 8),
        _ => (tok, 10),
    };
    let mut v: u64 = 0;
    for &b in digits {
        let Some(d) = char::from(b).to_digit(radix) else {
            break;
        };
        // strtoul saturates at ULONG_MAX (then -1 as an int).
        v = v
            .checked_mul(u64::from(radix))
            .and_then(|v| v.checked_add(u64::from(d)))
            .unwrap_or(u64::MAX);
    }
    let low = u32::try_from(v & 0xffff_ffff).ok()?;
    (low <= 0x7fff_ffff).then_some(low)
}

/// Reads the head of `text` (one format's bytes) as libtraceevent does.
pub fn head(text: &[u8]) -> Head {
    let mut t = Tokens { text, at: 0 };
    let expect = |t: &mut Tokens<'_>, item_skip: bool, cls: Class, want: &str| {
        let (c, r) = if item_skip { t.token_item() } else { t.token() };
        if c == cls && t.text_of(&r) == want.as_bytes() {
            Ok(())
        } else {
            Err((
                format!("`{want}` expected, {} read", shown(t.text_of(&r))),
                r,
            ))
        }
    };
    let item = |t: &mut Tokens<'_>, what: &str| {
        let (c, r) = t.token();
        if c == Class::Item {
            Ok(r)
        } else {
            Err((format!("{what} expected, {} read", shown(t.text_of(&r))), r))
        }
    };
    let id = (|| {
        expect(&mut t, false, Class::Item, "name")?;
        expect(&mut t, false, Class::Op, ":")?;
        item(&mut t, "an event name")?;
        expect(&mut t, true, Class::Item, "ID")?;
        expect(&mut t, false, Class::Op, ":")?;
        let r = item(&mut t, "a number")?;
        strtoul_int(t.text_of(&r)).ok_or_else(|| {
            (
                format!("id {} is negative as an `int`", shown(t.text_of(&r))),
                r,
            )
        })
    })();
    let id = match id {
        Ok(id) => id,
        Err((why, r)) => return Head::Dropped(why, r),
    };
    let format = (|| {
        expect(&mut t, true, Class::Item, "format")?;
        expect(&mut t, false, Class::Op, ":")?;
        let (c, r) = t.token();
        if c == Class::Newline {
            Ok(())
        } else {
            Err((
                format!(
                    "a line end after `format:` expected, {} read",
                    shown(t.text_of(&r))
                ),
                r,
            ))
        }
    })();
    match format {
        Ok(()) => Head::Read(id),
        Err((why, r)) => Head::NoFormat(id, why, r),
    }
}

/// The id and name under which libtraceevent registers a format text: when [`head`] reads
/// them ([`Head::Read`] or [`Head::NoFormat`]). A format registered but not parsed further is
/// flagged failed, and its records are printed as `[FAILED TO PARSE]`.
pub fn registered(text: &[u8]) -> Option<(u32, String)> {
    let (Head::Read(id) | Head::NoFormat(id, ..)) = head(text) else {
        return None;
    };
    // `name`, `:`, then the name's token, as `head` read them.
    let mut t = Tokens { text, at: 0 };
    t.token();
    t.token();
    let (_, r) = t.token();
    Some((id, String::from_utf8_lossy(t.text_of(&r)).into_owned()))
}

/// What trace-cmd 2.4 and 2.9.5 do with a whole format text, read with the parser they bundle
/// (`event-parse.c` of trace-cmd 2.4 and `lib/traceevent` of 2.9.5: `__read_token`,
/// `event_read_fields`, `event_read_print`), where two defects make a broken format worse than
/// a skipped one:
/// - `event_read_fields` keeps the last field it linked in `field` and frees `field` when a
///   line breaks before the next field is allocated (at its `field` keyword, its `:` or the
///   first word of its type): the field before stays in the list, freed, and trace-cmd 2.4 and
///   2.9.5 crash (SIGSEGV) when they free the format at exit. libtraceevent 1.7–1.8 (trace-cmd
///   3.x) clear `field` once it is linked.
/// - `__read_token` reads a quoted token until its closing quote and never stops at the end of
///   the text: a quote no other closes loops for ever. libtraceevent 1.7–1.8 stop at a byte
///   that is not printable (the end of the text reads as -1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum V2 {
    /// The format parses, or breaks where 2.x skip it like 3.x do.
    Read,
    /// 2.4 and 2.9.5 crash: why, and where in the text.
    Crash(String, Range<usize>),
    /// 2.4 and 2.9.5 hang: why, and where in the text.
    Hang(String, Range<usize>),
}

/// A token of the 2.x tokenizer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum K2 {
    /// End of text, or a byte that is not printable (bytes from 0x80 are negative `char`s).
    None,
    Space,
    Newline,
    Item,
    DQuote,
    SQuote,
    Delim,
    Op,
}

/// `get_type` of a byte, in the C locale, with `char` signed.
fn class2(c: u8) -> K2 {
    match c {
        b'\n' => K2::Newline,
        b' ' | b'\t' | 0x0b | 0x0c | b'\r' => K2::Space,
        c if c.is_ascii_alphanumeric() || c == b'_' => K2::Item,
        b'\'' => K2::SQuote,
        b'"' => K2::DQuote,
        c if !(0x20..0x7f).contains(&c) => K2::None,
        b'(' | b')' | b',' => K2::Delim,
        _ => K2::Op,
    }
}

/// A quoted token that runs to the end of the text: 2.x read -1 for ever.
struct Endless(Range<usize>);

struct Tok2<'a> {
    text: &'a [u8],
    at: usize,
}

impl<'a> Tok2<'a> {
    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    fn bump(&mut self) {
        self.at = self.at.saturating_add(1);
    }

    /// `__read_token`.
    fn raw(&mut self) -> Result<(K2, Range<usize>), Endless> {
        let start = self.at;
        let Some(c) = self.peek() else {
            return Ok((K2::None, start..start));
        };
        self.bump();
        if c >= 0x80 {
            return Ok((K2::None, start..self.at));
        }
        let k = class2(c);
        match k {
            K2::None | K2::Newline | K2::Delim => {}
            K2::Op => {
                let same = |t: &Self, b: u8| t.peek() == Some(b);
                match c {
                    b'-' if same(self, b'>') => self.bump(),
                    b'-' | b'+' | b'|' | b'&' | b'>' | b'<' => {
                        if same(self, c) {
                            self.bump();
                            if matches!(c, b'>' | b'<') && same(self, b'=') {
                                self.bump();
                            }
                        } else if same(self, b'=') {
                            self.bump();
                        }
                    }
                    b'!' | b'=' if same(self, b'=') => self.bump(),
                    _ => {}
                }
            }
            K2::DQuote | K2::SQuote => loop {
                // do { last = ch; ch = read(); if (ch == '\\' && last == '\\') last = 0; }
                // while (ch != quote || last == '\\');
                let mut last: u8;
                let mut ch = c;
                loop {
                    last = ch;
                    let Some(n) = self.peek() else {
                        return Err(Endless(start..self.at));
                    };
                    self.bump();
                    ch = n;
                    if ch == b'\\' && last == b'\\' {
                        last = 0;
                    }
                    if ch == c && last != b'\\' {
                        break;
                    }
                }
                if k == K2::SQuote {
                    break;
                }
                // A string followed (after blanks and newlines) by another is one token.
                let save = self.at;
                while self
                    .peek()
                    .is_some_and(|b| class2(b) == K2::Space || b == b'\n')
                {
                    self.bump();
                }
                if self.peek() == Some(b'"') {
                    self.bump();
                    continue;
                }
                self.at = save;
                break;
            },
            K2::Item | K2::Space => {
                while self.peek().is_some_and(|b| b < 0x80 && class2(b) == k) {
                    self.bump();
                }
            }
        }
        Ok((k, start..self.at))
    }

    /// `read_token`: skips blanks.
    fn token(&mut self) -> Result<(K2, Range<usize>), Endless> {
        loop {
            let t = self.raw()?;
            if t.0 != K2::Space {
                return Ok(t);
            }
        }
    }

    /// `read_token_item`: skips blanks and newlines.
    fn token_item(&mut self) -> Result<(K2, Range<usize>), Endless> {
        loop {
            let t = self.raw()?;
            if !matches!(t.0, K2::Space | K2::Newline) {
                return Ok(t);
            }
        }
    }

    /// Reads one token per `(class, text)` of `seq` (an empty text: any token of the class);
    /// the span of the first that differs, `None` when all match.
    fn take_seq(&mut self, seq: &[(K2, &str)]) -> Result<Option<Range<usize>>, Endless> {
        for &(k, want) in seq {
            let tok = self.token()?;
            let ok = if want.is_empty() {
                tok.0 == k
            } else {
                self.is(&tok, k, want)
            };
            if !ok {
                return Ok(Some(tok.1));
            }
        }
        Ok(None)
    }

    fn is(&self, t: &(K2, Range<usize>), k: K2, s: &str) -> bool {
        t.0 == k && self.text.get(t.1.clone()) == Some(s.as_bytes())
    }
}

/// How one `event_read_fields` call ends.
enum Fields {
    /// The list ended with its blank line.
    Done,
    /// A line broke: where, and why 2.x crash on it (`None`: they skip the format).
    Broke(Range<usize>, Option<&'static str>),
}

/// Reads `text`, one format, the way trace-cmd 2.4 and 2.9.5 do (`ftrace`: a format of the
/// `ftrace` system, whose fields may say `special` and hold `.` in their types).
pub fn v2(text: &[u8], ftrace: bool) -> V2 {
    let mut t = Tok2 { text, at: 0 };
    match v2_read(&mut t, ftrace) {
        Ok(Some((why, r))) => V2::Crash(why, r),
        Ok(None) => V2::Read,
        Err(Endless(r)) => V2::Hang(
            format!(
                "the quote at byte {} of the format opens a token no quote closes",
                r.start
            ),
            r,
        ),
    }
}

type Step = Result<Option<(String, Range<usize>)>, Endless>;

fn v2_read(t: &mut Tok2<'_>, ftrace: bool) -> Step {
    // event_read_name, event_read_id, event_read_format.
    let head = [
        (true, K2::Item, "name"),
        (false, K2::Op, ":"),
        (false, K2::Item, ""),
        (true, K2::Item, "ID"),
        (false, K2::Op, ":"),
        (false, K2::Item, ""),
        (true, K2::Item, "format"),
        (false, K2::Op, ":"),
        (false, K2::Newline, ""),
    ];
    for (i, (item_skip, k, want)) in head.into_iter().enumerate() {
        let tok = if item_skip {
            t.token_item()?
        } else {
            t.token()?
        };
        let ok = if want.is_empty() {
            tok.0 == k
        } else {
            t.is(&tok, k, want)
        };
        // A negative id drops the format before its fields are read.
        let dropped =
            i == 5 && strtoul_int(t.text.get(tok.1.clone()).unwrap_or_default()).is_none();
        if !ok || dropped {
            return Ok(None);
        }
    }
    for _ in 0..2 {
        match v2_fields(t, ftrace)? {
            Fields::Done => {}
            Fields::Broke(r, Some(why)) => return Ok(Some((why.to_string(), r))),
            Fields::Broke(_, None) => return Ok(None),
        }
    }
    // event_read_print: `print fmt: "…"`, then `,` and the arguments, read to the end (the
    // argument parser stops at a byte that is no token, or at the end).
    let tok = t.token_item()?;
    if !t.is(&tok, K2::Item, "print") {
        return Ok(None);
    }
    let tok = t.token()?;
    if !t.is(&tok, K2::Item, "fmt") {
        return Ok(None);
    }
    let tok = t.token()?;
    if !t.is(&tok, K2::Op, ":") {
        return Ok(None);
    }
    if t.token()?.0 != K2::DQuote {
        return Ok(None);
    }
    let tok = t.token_item()?;
    if tok.0 == K2::None || !t.is(&tok, K2::Delim, ",") {
        return Ok(None);
    }
    // The argument parser (`event_read_print_args`) reads token after token; a string followed
    // by a word is no expression, and it stops there (campaign: a quote added before a
    // `__print_symbolic` string pairs the quotes after it anew without a hang).
    let mut after_string = false;
    loop {
        let (k, _) = t.raw()?;
        match k {
            K2::None => return Ok(None),
            K2::Item if after_string => return Ok(None),
            K2::DQuote | K2::SQuote => after_string = true,
            K2::Space | K2::Newline => {}
            _ => after_string = false,
        }
    }
}

/// One `event_read_fields` call.
fn v2_fields(t: &mut Tok2<'_>, ftrace: bool) -> Result<Fields, Endless> {
    const FREED: &str = "the field line breaks before its type is read, after another field of the list: `event_read_fields` frees that field and leaves it listed";
    let mut linked = false;
    loop {
        let tok = t.token()?;
        if tok.0 == K2::Newline {
            return Ok(Fields::Done);
        }
        // Before the field is allocated, a break frees the previous one.
        let pre = |r: Range<usize>| Ok(Fields::Broke(r, linked.then_some(FREED)));
        if !t.is(&tok, K2::Item, "field") {
            return pre(tok.1);
        }
        let mut tok = t.token()?;
        if ftrace && t.is(&tok, K2::Item, "special") {
            tok = t.token()?;
        }
        if !t.is(&tok, K2::Op, ":") {
            return pre(tok.1);
        }
        let first = t.token()?;
        if first.0 != K2::Item {
            return pre(first.1);
        }
        // The rest of the type, then the name (the last word).
        let mut words = 1u32;
        let mut last = first.1;
        let mut tok = loop {
            let tok = t.token()?;
            if tok.0 == K2::Item || t.is(&tok, K2::Op, "*") || (ftrace && t.is(&tok, K2::Op, ".")) {
                words = words.saturating_add(1);
                last = tok.1;
                continue;
            }
            // 2.9.5 reads `__attribute__((…))` into the type, to the closing parenthesis.
            if t.is(&tok, K2::Delim, "(") && t.text.get(last.clone()) == Some(b"__attribute__") {
                let mut depth = 1u32;
                loop {
                    let inner = t.token()?;
                    if inner.0 == K2::None {
                        break;
                    }
                    if t.is(&inner, K2::Delim, "(") {
                        depth = depth.saturating_add(1);
                    } else if t.is(&inner, K2::Delim, ")") {
                        depth = depth.saturating_sub(1);
                        if depth == 0 {
                            break;
                        }
                    }
                    last = inner.1;
                }
                continue;
            }
            break tok;
        };
        let post = |r: Range<usize>| Ok(Fields::Broke(r, None));
        if words < 2 || tok.0 != K2::Op {
            return post(tok.1);
        }
        if t.is(&tok, K2::Op, "[") {
            let mut inner = t.token()?;
            if inner.0 == K2::None {
                return Ok(Fields::Broke(
                    inner.1,
                    Some("the array length after `[` is no token: `event_read_fields` compares the NULL token with `]`"),
                ));
            }
            while !t.is(&inner, K2::Op, "]") {
                inner = t.token()?;
                if inner.0 == K2::None {
                    return post(inner.1);
                }
            }
            tok = t.token()?;
            if tok.0 == K2::Item {
                tok = t.token()?;
            }
        }
        if !t.is(&tok, K2::Op, ";") {
            return post(tok.1);
        }
        if let Some(at) = t.take_seq(&[
            (K2::Item, "offset"),
            (K2::Op, ":"),
            (K2::Item, ""),
            (K2::Op, ";"),
            (K2::Item, "size"),
            (K2::Op, ":"),
            (K2::Item, ""),
            (K2::Op, ";"),
        ])? {
            return post(at);
        }
        let tok = t.token()?;
        if tok.0 != K2::Newline {
            if !t.is(&tok, K2::Item, "signed") {
                return post(tok.1);
            }
            if let Some(at) = t.take_seq(&[
                (K2::Op, ":"),
                (K2::Item, ""),
                (K2::Op, ";"),
                (K2::Newline, ""),
            ])? {
                return post(at);
            }
        }
        linked = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heads() {
        let good = b"name: sched_wakeup\nID: 374\nformat:\n\tfield:x";
        assert_eq!(head(good), Head::Read(374));
        assert!(matches!(
            head(b"ID: 374\nname: sched_wakeup\nformat:\n"),
            Head::Dropped(..)
        ));
        // A newline run over: the id token is `1Vformat`, 1 to strtoul, and `format` is gone.
        assert!(matches!(
            head(b"name: function\nID: 1Vformat:\n\tfield:"),
            Head::NoFormat(1, ..)
        ));
        assert_eq!(head(b"name: a\nID: 0x10\nformat:\n"), Head::Read(16));
        assert_eq!(head(b"name: a\nID: 010\nformat:\n"), Head::Read(8));
        assert_eq!(head(b"name: a\nID: abc\nformat:\n"), Head::Read(0));
        assert!(matches!(
            head(b"name: a\nID: 4294967295\nformat:\n"),
            Head::Dropped(..)
        ));
        assert!(matches!(
            head(b"name: a\nID: -5\nformat:\n"),
            Head::Dropped(..)
        ));
        assert!(matches!(
            head(b"name: a b\nID: 5\nformat:\n"),
            Head::Dropped(..)
        ));
        assert!(matches!(
            head(b"name: a\nID: 5 x\nformat:\n"),
            Head::NoFormat(5, ..)
        ));
        assert!(matches!(
            head(b"name: a\nID: 5\nformat: x\n"),
            Head::NoFormat(5, ..)
        ));
        assert!(matches!(
            head(b"\nname: a\nID: 5\nformat:\n"),
            Head::Dropped(..)
        ));
    }

    const HEAD: &str = "name: e\nID: 5\nformat:\n";
    const COMMON: &str = "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n";
    const OWN: &str = "\tfield:int a;\toffset:8;\tsize:4;\tsigned:1;\n\tfield:char b[16];\toffset:12;\tsize:16;\tsigned:0;\n\n";
    const PRINT: &str =
        "print fmt: \"a=%d b=%s\", REC->a, __print_symbolic(REC->a, { 0, \"X\" })\n";

    fn fmt(common: &str, own: &str, print: &str) -> Vec<u8> {
        format!("{HEAD}{common}{own}{print}").into_bytes()
    }

    #[test]
    fn v2_reads_a_healthy_format() {
        assert_eq!(v2(&fmt(COMMON, OWN, PRINT), false), V2::Read);
        let ftrace = "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\n\tfield:struct ftrace_graph_ent graph_ent;\toffset:8;\tsize:16;\tsigned:0;\n\tfield special:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n\n";
        assert_eq!(
            v2(&fmt(ftrace, "", "print fmt: \"%lx\", REC->ip\n"), true),
            V2::Read
        );
        let attr = "\tfield:const char __attribute__((user)) * filename;\toffset:16;\tsize:8;\tsigned:0;\n\n";
        assert_eq!(v2(&fmt(COMMON, attr, PRINT), false), V2::Read);
    }

    #[test]
    fn v2_crashes_on_a_broken_keyword_after_a_field() {
        // The second field of a list: the first is freed while listed.
        let c = COMMON.replacen("field:int common_pid", "fi)ld:int common_pid", 1);
        assert!(matches!(v2(&fmt(&c, OWN, PRINT), false), V2::Crash(..)));
        let o = OWN.replacen("field:char b", "field\u{7f}char b", 1);
        assert!(matches!(v2(&fmt(COMMON, &o, PRINT), false), V2::Crash(..)));
        let o = OWN.replacen("field:char b", "field:(har b", 1);
        assert!(matches!(v2(&fmt(COMMON, &o, PRINT), false), V2::Crash(..)));
        // The first field of a list breaks with nothing to free: skipped.
        let o = OWN.replacen("field:int a", "fi)ld:int a", 1);
        assert_eq!(v2(&fmt(COMMON, &o, PRINT), false), V2::Read);
        // A break after the field is allocated frees only that one.
        let o = OWN.replacen("offset:12", "offsex:12", 1);
        assert_eq!(v2(&fmt(COMMON, &o, PRINT), false), V2::Read);
        // A damaged `print fmt` keyword: skipped.
        let p = PRINT.replacen("print", "pr)nt", 1);
        assert_eq!(v2(&fmt(COMMON, OWN, &p), false), V2::Read);
    }

    #[test]
    fn v2_hangs_on_a_quote_nothing_closes() {
        let o = OWN.replacen("signed:1", "signed:'", 1);
        assert!(matches!(v2(&fmt(COMMON, &o, PRINT), false), V2::Hang(..)));
        // The closing quote of the print format.
        let p = "print fmt: \"a=%dh, REC->a\n";
        assert!(matches!(v2(&fmt(COMMON, OWN, p), false), V2::Hang(..)));
        // ... unless a later quote closes it: then a word follows the string, and 2.x stop.
        let p = PRINT.replacen("%s\",", "%sh,", 1);
        assert_eq!(v2(&fmt(COMMON, OWN, &p), false), V2::Read);
        // Closed by a later quote: read as a (wrong) token, no hang.
        let o = OWN.replacen("signed:1", "signed:'", 1);
        let p = PRINT.replacen("%d", "%d'", 1);
        assert_eq!(v2(&fmt(COMMON, &o, &p), false), V2::Read);
        // A string followed by a word ends the argument parser before the open quote.
        let p = PRINT.replacen("{ 0, \"X\" }", "{ 0, \"\"X\" }", 1);
        assert_eq!(v2(&fmt(COMMON, OWN, &p), false), V2::Read);
        // A byte that is no token ends the arguments.
        let p = PRINT.replacen("REC->a,", "REC->a\u{1}, \"", 1);
        assert_eq!(v2(&fmt(COMMON, OWN, &p), false), V2::Read);
    }
}
