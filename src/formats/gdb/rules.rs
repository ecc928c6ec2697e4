//! Rules of the GDB tracepoint file (tfile) validator.
//!
//! `## Spec` sections cite GDB's source (`gdb/tracefile-tfile.c`, `tracepoint.c`, ...); the
//! layout and writer history are in `docs/gdb-tfile.md`.

/// The family of this format's rules.
pub const FAMILY: crate::rule::Family = crate::rule::Family {
    name: "gdb-tfile",
    prefix: "GT",
    slug: "gdb-tfile",
    title: "GDB tracepoint file (tfile)",
    aliases: &["gdb"],
};

crate::declare_rules! {
    family: FAMILY;
    /// ## What it checks
    /// The file starts with the 8 bytes `7f 54 52 41 43 45 30 0a` (`\x7fTRACE0\n`).
    ///
    /// ## Why it matters
    /// GDB refuses anything else ("File is not a valid trace file." or "Premature end of file").
    /// `0` is the only format version that exists.
    ///
    /// ## What readers do
    /// Verified with GDB 13.1: `target tfile` fails with "File is not a valid trace file." (a file
    /// shorter than 8 bytes: "Premature end of file"). tracefile-tfile.c `tfile_open`, the same
    /// check since GDB 7.2.
    ///
    /// ## Spec
    /// GDB tracefile-tfile.c:494-499.
    pub BAD_MAGIC = ("GT001", "bad-magic", Error, "the file does not start with the tfile magic \\x7fTRACE0\\n");
    /// ## What it checks
    /// An empty line (exactly `\n`) ends the definition section before the end of the file.
    ///
    /// ## Why it matters
    /// Without it GDB stops with "Premature end of file". A blank line written as `\r\n` does not
    /// end the section for GDB: it goes on reading the binary frames as text.
    ///
    /// ## What readers do
    /// Verified with GDB 13.1: `target tfile` fails with "Premature end of file while reading trace
    /// file"; a `\r\n` blank line does not end the section and the frames are parsed as text lines.
    pub MISSING_SECTION_END = ("GT002", "missing-section-end", Error, "no empty line ends the definition section");
    /// ## What it checks
    /// Every definition line is at most 999 bytes long (without its `\n`).
    ///
    /// ## Why it matters
    /// GDB reads lines into a 1000-byte buffer and fails with "Excessively long lines in trace
    /// file". GDB itself writes longer `tp Z…cmd` lines for long collect actions and then
    /// cannot reopen its own file.
    ///
    /// ## What readers do
    /// Verified with GDB 13.1: `target tfile` fails with "Excessively long lines in trace file"
    /// (tracefile-tfile.c `tfile_open`, 1000-byte line buffer, unchanged since GDB 7.2), also on
    /// files GDB wrote itself.
    ///
    /// ## Spec
    /// tracefile-tfile.c:536-537.
    pub LINE_TOO_LONG = ("GT003", "line-too-long", Error, "a definition line is longer than the 999 bytes GDB accepts");
    /// ## What it checks
    /// Definition lines hold printable ASCII only: no NUL, no `\r`, no other control byte;
    /// bytes above 0x7f only inside `tdesc` lines.
    ///
    /// ## Why it matters
    /// GDB keeps lines as C strings: a NUL silently cuts the line; `\r` stays part of the value
    /// and corrupts numbers and names.
    ///
    /// ## What readers do
    /// From source (tracefile-tfile.c `tfile_interp_line`): lines are C strings, so GDB 7.2–15 read
    /// a line only up to a NUL and keep a `\r` as part of the last field, misreading the value (for
    /// example an `R` size or a hex string).
    ///
    /// The level follows the case:
    /// - **warning**: a bad byte in a target description line (or a line that was one): GDB 13
    ///   cannot parse the XML, warns, falls back to its default description of the architecture
    ///   and reads the frames the same (campaign); in a `status`, `tp` or `tsv` line GDB 13
    ///   parses without error (see below; the message says what it reads); in a line GDB
    ///   ignores ("Ignoring trace file definition"; what it defined is checked as missing);
    /// - **error** otherwise (GDB fails on the line, or an `R` line).
    ///
    /// GDB 13 parses `status`, `tp` and `tsv` lines by position, not by field
    /// (tracepoint.c `parse_trace_status`, `parse_tracepoint_definition`,
    /// `parse_tsv_definition`): a byte where a `:` or `;` belongs is skipped whatever it is, a
    /// number is the run of hex digits there (none reads as 0), a status key is matched as a
    /// prefix of a known name and an unknown one is skipped. tracelint parses each such line the
    /// same way (`decode::gdb13`) and judges the frames against what GDB reads.
    pub LINE_BAD_BYTE = ("GT004", "line-bad-byte", Error, "a definition line contains a control or non-ASCII byte");
    /// ## What it checks
    /// Each definition line starts with `R `, `status `, `tp `, `tsv ` or `tdesc ` (one space,
    /// case-sensitive).
    ///
    /// ## Why it matters
    /// GDB ignores other lines with "Ignoring trace file definition"; a typo such as a leading
    /// space silently drops a definition.
    ///
    /// ## What readers do
    /// Verified with GDB 13.1: it warns `Ignoring trace file definition "…"` and opens the file;
    /// every frame reads the same. A line a newer writer adds is read the same way, so this is
    /// informational.
    ///
    /// ## Spec
    /// tracefile-tfile.c:611-612.
    pub UNKNOWN_DEFINITION_LINE = ("GT005", "unknown-definition-line", Info, "a definition line has no known prefix and is ignored by GDB");
    /// ## What it checks
    /// The definition section has an `R` line with a non-zero register block size.
    ///
    /// ## Why it matters
    /// GDB refuses the file: "No register block size recorded in trace file". Without it the
    /// `R` blocks of the frames cannot be walked.
    ///
    /// ## What readers do
    /// Verified with GDB 13.1: `target tfile` fails with "No register block size recorded in trace
    /// file".
    ///
    /// ## Spec
    /// tracefile-tfile.c:548-549.
    pub REGISTER_SIZE_MISSING = ("GT006", "register-size-missing", Error, "no R line, or R is zero");
    /// ## What it checks
    /// The `R` value is canonical hex (no sign, `0x`, spaces or trailing junk) and small enough
    /// to be a register block (at most 1 MiB).
    ///
    /// ## Why it matters
    /// GDB parses it with `strtol`: junk is ignored silently, and negative or huge values crash
    /// GDB at the first register read. Note the manual wrongly calls the value decimal.
    ///
    /// ## What readers do
    /// From source (`strtol(p, &p, 16)` in `tfile_interp_line`): junk after the digits is ignored
    /// silently; verified with GDB 13.1 that `R -974` and `R 7fffffff` crash it at the first
    /// register read.
    pub REGISTER_SIZE_INVALID = ("GT007", "register-size-invalid", Error, "the R line's value is not canonical hex or is absurdly large");
    /// ## What it checks
    /// There is exactly one `R` line.
    ///
    /// ## Why it matters
    /// GDB silently uses the last one; two different sizes make the frames ambiguous.
    ///
    /// ## What readers do
    /// From source: GDB 7.2–15 keep the last `R` value and walk every frame's `R` blocks with it,
    /// so with two different values the frames are misread.
    pub DUPLICATE_REGISTER_SIZE = ("GT008", "duplicate-register-size", Error, "more than one R line");
    /// ## What it checks
    /// The register block size is plausible: at most 64 KiB.
    ///
    /// ## Why it matters
    /// No architecture GDB supports has a register file that large; such a value is most likely
    /// a misparsed or corrupted line.
    ///
    /// ## What readers do
    /// GDB 13.1 reads such a file the same way as any other (the size is only used to step over `R`
    /// blocks); the value is flagged because no architecture has such a register file.
    pub REGISTER_SIZE_IMPLAUSIBLE = ("GT009", "register-size-implausible", Warning, "the register block size is implausibly large");
    /// ## What it checks
    /// There is at most one `status` line.
    ///
    /// ## Why it matters
    /// GDB silently keeps the last one, so the earlier line's values are lost.
    ///
    /// ## What readers do
    /// Verified with GDB 13.1: the file opens, `tstatus` shows the last status line's counts, and
    /// every frame reads the same; the earlier line is ignored.
    pub DUPLICATE_STATUS = ("GT010", "duplicate-status", Warning, "more than one status line");
    /// ## What it checks
    /// The `status` line has a non-empty payload.
    ///
    /// ## Why it matters
    /// GDB then parses stale buffer bytes and fails with "Malformed trace status".
    ///
    /// ## What readers do
    /// Verified with GDB 13.1: it prints "Malformed trace status" and the frames are not found
    /// (`tfind` reports "No trace frame found").
    pub STATUS_EMPTY = ("GT011", "status-empty", Error, "the status line has no payload");
    /// ## What it checks
    /// The status payload follows the grammar `running ";" reason *(";" key ":" value)`:
    /// `running` is `0` or `1`, the first item is exactly one known stop reason, every field has
    /// a `:`, numbers are non-empty hex of at most 16 digits, keys are exact names (GDB matches
    /// any prefix, so `t:3` is read as `tfull`).
    ///
    /// ## Why it matters
    /// GDB errors out on a field without `:` or a bad hex digit ("Malformed trace status") and
    /// silently misreads prefixes and non-hex numbers.
    ///
    /// ## What readers do
    /// From source (tracepoint.c `parse_trace_status`) and verified with GDB 13.1: a field without
    /// `:` or a bad hex digit fails with "Malformed trace status" and the file's frames cannot be
    /// found; a prefix key (`t:3`) or non-hex number is misread silently.
    ///
    /// The level follows the case: **error** when GDB 13 fails on the line (a field with no `:`
    /// after it: "Malformed trace status", and no frame is found; a bad digit in a hex text:
    /// "Invalid hex digit"); **warning** when it parses it, misread or not: the status is only
    /// shown by `tstatus` (a `tframes` it cannot read gives "No traceframes present in this
    /// file." and every frame is still found). Verified with GDB 13.1 on full.tf with
    /// `tframes:zz`, `tframes;`, `t:3` (read as `tfull`) and a `;` changed to another byte: all
    /// 12 frames found and shown the same; a trailing `;junk`: "Malformed trace status, at junk",
    /// no frame found.
    ///
    /// GDB 13 parses `status`, `tp` and `tsv` lines by position, not by field
    /// (tracepoint.c `parse_trace_status`, `parse_tracepoint_definition`,
    /// `parse_tsv_definition`): a byte where a `:` or `;` belongs is skipped whatever it is, a
    /// number is the run of hex digits there (none reads as 0), a status key is matched as a
    /// prefix of a known name and an unknown one is skipped. tracelint parses each such line the
    /// same way (`decode::gdb13`) and judges the frames against what GDB reads.
    ///
    /// ## Spec
    /// tracepoint.c:3247-3404.
    pub STATUS_MALFORMED = ("GT012", "status-malformed", Error, "the status line does not follow the status grammar");
    /// ## What it checks
    /// Every status field key is one GDB knows (`tframes`, `tcreated`, `tfree`, `tsize`,
    /// `circular`, `disconn`, `starttime`, `stoptime`, `notes`, `username`).
    ///
    /// ## Why it matters
    /// GDB skips unknown keys: their information is lost, and a typo of a known key goes unseen.
    ///
    /// ## What readers do
    /// From source (`parse_trace_status`): GDB 7.2–15 skip unknown keys without a message; the
    /// frames read the same. Fields a newer writer adds are read the same way, so this is
    /// informational.
    pub STATUS_UNKNOWN_FIELD = ("GT013", "status-unknown-field", Info, "a status field key is not one GDB knows");
    /// ## What it checks
    /// No status field occurs twice.
    ///
    /// ## Why it matters
    /// GDB keeps the last value silently; two values for `tframes` cannot both be right.
    ///
    /// ## What readers do
    /// Verified with GDB 13.1: the last value wins (`tframes` given twice: `tstatus` shows the
    /// later count); every frame reads the same.
    pub STATUS_DUPLICATE_FIELD = ("GT014", "status-duplicate-field", Warning, "a status field occurs more than once");
    /// ## What it checks
    /// A `terror` stop reason has both parts: `terror:<hex text>:<tracepoint>`.
    ///
    /// ## Why it matters
    /// GDB 13.1 aborts with an internal error ("virtual memory exhausted") on `terror:` without
    /// the second colon.
    ///
    /// ## What readers do
    /// Verified with GDB 13.1: `target tfile` aborts with an internal error ("virtual memory
    /// exhausted") in `parse_trace_status`.
    pub STATUS_TERROR_MALFORMED = ("GT015", "status-terror-malformed", Error, "the terror stop reason lacks its tracepoint part (crashes GDB)");
    /// ## What it checks
    /// The tracepoint number after the stop reason names a defined tracepoint for `tpasscount`
    /// and `terror`, and is 0 for the other reasons.
    ///
    /// ## Why it matters
    /// A pass count or error stop blames a tracepoint; a number no `tp` line defines points
    /// nowhere.
    ///
    /// ## What readers do
    /// GDB 13.1 prints the stop reason with the number as written ("Trace stopped by tracepoint
    /// N"); the frames read the same.
    pub STATUS_STOP_TRACEPOINT = ("GT016", "status-stop-tracepoint", Warning, "the stop reason's tracepoint number is inconsistent");
    /// ## What it checks
    /// The status field `tframes` is present and equals the number of frames in the binary
    /// section.
    ///
    /// ## Why it matters
    /// GDB echoes `tframes` ("Collected N trace frames") and warns "No traceframes present"
    /// when it is 0 or absent even if frames exist. A mismatch means frames were lost or the
    /// status is stale.
    ///
    /// ## What readers do
    /// Verified with GDB 13.1: `tstatus` echoes the status count ("Buffer contains 4 trace frames
    /// (of 16 created total)"; without `tframes`: "No traceframes present in this file" and -1
    /// frames) while `tfind` walks every frame present, so only the status is wrong.
    pub TFRAMES_MISMATCH = ("GT017", "tframes-mismatch", Warning, "the status tframes does not match the frames present");
    /// ## What it checks
    /// `tcreated >= tframes`, and `tcreated > tframes` only with `circular:1`.
    ///
    /// ## Why it matters
    /// Frames can only be discarded by a circular buffer; otherwise the counts contradict each
    /// other.
    ///
    /// ## What readers do
    /// GDB 13.1 echoes both counts in `tstatus` and walks the frames present; nothing else depends
    /// on them.
    pub TCREATED_INCONSISTENT = ("GT018", "tcreated-inconsistent", Warning, "tcreated is inconsistent with tframes and the circular flag");
    /// ## What it checks
    /// `tfree <= tsize`, and the used part of the buffer (`tsize - tfree`) equals the bytes of
    /// all frames including their 6-byte headers.
    ///
    /// ## Why it matters
    /// gdbserver's buffer accounting matches the saved image exactly for every sound file; a
    /// difference means bytes were lost, added or the image is inconsistent.
    ///
    /// ## What readers do
    /// GDB 13.1 only echoes `tfree`/`tsize` in `tstatus` ("Trace buffer has N bytes of M bytes
    /// free"); frames are walked by their own sizes and read the same.
    pub BUFFER_USAGE_INCONSISTENT = ("GT019", "buffer-usage-inconsistent", Warning, "tsize - tfree does not match the bytes of the frames");
    /// ## What it checks
    /// A running trace (`status 1`) has no `stoptime`; when both times are present,
    /// `stoptime >= starttime`.
    ///
    /// ## Why it matters
    /// Contradictory times mean the status line was edited or corrupted.
    ///
    /// ## What readers do
    /// GDB 13.1 prints the times in `tstatus` ("Trace started at …, stopped … later"), computing a
    /// negative duration when they contradict; nothing else uses them.
    pub STATUS_TIMES_INCONSISTENT = ("GT020", "status-times-inconsistent", Warning, "the status start/stop times are inconsistent");
    /// ## What it checks
    /// A `tsv` line has exactly 4 fields `num:initial:builtin:name`: hex numbers, an initial
    /// value of at most 16 digits, builtin 0 or 1.
    ///
    /// ## Why it matters
    /// GDB reads stale bytes for a missing field and errors on bad hex digits.
    ///
    /// ## What readers do
    /// From source (tracepoint.c `parse_tsv_definition`): a missing field makes GDB 7.2–15 read
    /// past the line's end (stale buffer bytes), a bad hex digit in the name fails with "Invalid
    /// hex digit".
    ///
    /// The level follows the case: **error** when GDB 13 fails on the line or reads past it;
    /// **warning** when it parses it (the message says as which variable): a `:` changed to
    /// another byte is skipped, and the campaign's GDB 13 runs read such files the same.
    ///
    /// GDB 13 parses `status`, `tp` and `tsv` lines by position, not by field
    /// (tracepoint.c `parse_trace_status`, `parse_tracepoint_definition`,
    /// `parse_tsv_definition`): a byte where a `:` or `;` belongs is skipped whatever it is, a
    /// number is the run of hex digits there (none reads as 0), a status key is matched as a
    /// prefix of a known name and an unknown one is skipped. tracelint parses each such line the
    /// same way (`decode::gdb13`) and judges the frames against what GDB reads.
    pub TSV_MALFORMED = ("GT021", "tsv-malformed", Error, "a tsv line does not follow num:initial:builtin:name");
    /// ## What it checks
    /// Trace state variable numbers and names are unique.
    ///
    /// ## Why it matters
    /// A later definition silently overwrites the earlier one, which can break actions that
    /// refer to it.
    ///
    /// ## What readers do
    /// Verified with GDB 13.1 on tsv.tf with a second `tsv 2:…` line naming `other`: GDB keeps one
    /// variable per number (tracepoint.c `get_uploaded_tsv`), so the later name wins: `$hits` no
    /// longer exists, its `V` block values show as `$other`, and the tracepoint whose `teval`
    /// assigns `$hits` is rejected on open ("$hits is not a trace state variable"), so `tdump`
    /// fails on its frames.
    ///
    /// The level follows the case: the same definition repeated (number, initial value,
    /// builtin flag and name) is a **warning**: GDB keeps one variable per number, the same
    /// one (campaign: a `tsv` line duplicated, every frame read the same); an **error**
    /// otherwise.
    pub DUPLICATE_TSV = ("GT022", "duplicate-tsv", Error, "a trace state variable number or name is defined twice");
    /// ## What it checks
    /// A trace state variable name is non-empty, not all digits, and uses only `[A-Za-z0-9_]`.
    ///
    /// ## Why it matters
    /// GDB refuses such names when they are typed, but accepts them from a file, creating
    /// variables (such as `$`) that cannot be used.
    ///
    /// ## What readers do
    /// GDB 13.1 creates the variable as written (it only checks names typed by the user), so it
    /// exists but cannot be referred to in expressions; frames read the same.
    ///
    /// ## Spec
    /// tracepoint.c:303-321.
    pub TSV_INVALID_NAME = ("GT023", "tsv-invalid-name", Warning, "a trace state variable name is not a valid name");
    /// ## What it checks
    /// A `tp` line has all its fields, well-formed: `T num:addr:E|D:step:pass[:options]`,
    /// `A`/`S num:addr:action`, `Z num:addr:type:start:len:hex`, `V num:addr:hits:usage`, with
    /// hex numbers.
    ///
    /// ## Why it matters
    /// GDB misreads or crashes on incomplete lines (`tp Z2:401145:at` crashes GDB 13.1 with
    /// SIGSEGV).
    ///
    /// ## What readers do
    /// Verified with GDB 13.1: `tp Z2:401145:at` (no further fields) crashes it with SIGSEGV in
    /// `parse_tracepoint_definition`; other short lines make it read stale bytes as numbers.
    ///
    /// The level follows the case: **error** when GDB 13 fails on the line, crashes or reads
    /// past its end; **warning** when it parses it (the message says as which tracepoint, with
    /// its enable flag, step and pass counts and options): a byte where a `:` belongs is
    /// skipped, an empty number reads as 0 (`F` as `F0`, which gdbserver writes itself). The
    /// frames are then checked against the tracepoint numbers GDB reads (`GT043`). Campaign
    /// (GDB 13 with the traced program loaded, `tdump` of every frame): `tp T`/`tp A` lines with
    /// a `:` changed, `E` changed (read as disabled), a step or pass digit changed, a `tp V`
    /// count written in decimal: every frame read the same.
    ///
    /// GDB 13 parses `status`, `tp` and `tsv` lines by position, not by field
    /// (tracepoint.c `parse_trace_status`, `parse_tracepoint_definition`,
    /// `parse_tsv_definition`): a byte where a `:` or `;` belongs is skipped whatever it is, a
    /// number is the run of hex digits there (none reads as 0), a status key is matched as a
    /// prefix of a known name and an unknown one is skipped. tracelint parses each such line the
    /// same way (`decode::gdb13`) and judges the frames against what GDB reads.
    pub TP_MALFORMED = ("GT024", "tp-malformed", Error, "a tp line does not follow its grammar");
    /// ## What it checks
    /// `tp` pieces are one of `T A S Z V`, and tracepoint options one of `F S X`, each at most
    /// once.
    ///
    /// ## Why it matters
    /// GDB warns "Unrecognized tracepoint piece" / "Unrecognized char … in tracepoint
    /// definition, skipping rest" and drops the information.
    ///
    /// ## What readers do
    /// Verified with GDB 13.1: it warns "Unrecognized tracepoint piece 'Y', ignoring" or
    /// "Unrecognized char 'Q' in tracepoint definition, skipping rest" and opens the file; every
    /// frame reads the same. Pieces and options a newer writer adds are read the same way, so this
    /// is informational.
    pub TP_UNKNOWN_PIECE = ("GT025", "tp-unknown-piece", Info, "an unknown tp piece or tracepoint option");
    /// ## What it checks
    /// The condition option `X<len>,<hex>` of a `T` line has exactly `2*len` hex digits.
    ///
    /// ## Why it matters
    /// GDB copies `2*len` characters: a short string makes it read past the line, a huge
    /// length aborts GDB ("virtual memory exhausted").
    ///
    /// ## What readers do
    /// Verified with GDB 13.1: a short bytecode makes `parse_tracepoint_definition` copy past the
    /// line, a huge length aborts it ("virtual memory exhausted").
    ///
    /// The level follows the case: **error** when `2*len` runs past the line's end (GDB copies
    /// and steps past the line) or aborts GDB; **warning** when it ends inside the line: GDB
    /// keeps the bytecode as text and never decodes it when it opens a file (it recreates the
    /// condition from the `tp Z…cond` line), so it reads the file the same (campaign: a digit
    /// of the bytecode changed to `:`).
    pub TP_CONDITION_LENGTH = ("GT026", "tp-condition-length", Error, "a tracepoint condition's length does not match its bytecode");
    /// ## What it checks
    /// No two `T` lines share a tracepoint number.
    ///
    /// ## Why it matters
    /// Frames carry only the number: two tracepoints with the same number cannot be told apart.
    ///
    /// ## What readers do
    /// From source (tracepoint.c `get_uploaded_tp`): GDB 7.2–15 merge lines of the same number
    /// and address into one uploaded tracepoint, and make one per address otherwise. The level
    /// follows the case:
    /// - **warning**: the same number at the same address: GDB 13 merges the lines and reads
    ///   every frame the same (campaign: repeated definition lines);
    /// - **info**: the same number at other addresses: GDB's own `tsave` writes one `tp T` line
    ///   per location of a tracepoint set on a name that matches several places (`trace step`
    ///   matching the program's `step` and a library's); GDB 13 creates one tracepoint per
    ///   location and walks every frame (verified with GDB 13.1 on `corpus/gdb/twoloc.tf`, `trace
    ///   step` matching three places: 6 frames, `tdump` works on each);
    /// - **error**: the locations of one number disagree in type (normal, fast `F`, static
    ///   `S`): `tsave` writes every location of a tracepoint with its one type, and GDB 13.1
    ///   creates a tracepoint per type (`twoloc.tf` with `:S` on its `0x40112d` line: "Static
    ///   tracepoint 1", then tracepoints 2 and 3 for the recording's two), so `info
    ///   tracepoints` is not the recording's.
    pub DUPLICATE_TRACEPOINT = ("GT027", "duplicate-tracepoint", Warning, "a tracepoint number is defined twice");
    /// ## What it checks
    /// Tracepoint numbers are between 1 and 32767.
    ///
    /// ## Why it matters
    /// Frames store the number as a signed 16-bit value, and 0 marks the end of the frames.
    ///
    /// ## What readers do
    /// Frames store the number as a signed 16-bit value (tracefile-tfile.c `tfile_trace_find`); 0
    /// ends the frames in every GDB version, a larger number is read back negative or truncated.
    pub TRACEPOINT_NUMBER_RANGE = ("GT028", "tracepoint-number-range", Error, "a tracepoint number cannot be stored in a frame");
    /// ## What it checks
    /// Every `tp A`, `S`, `Z` and `V` line has a `T` line with the same number and address.
    ///
    /// ## Why it matters
    /// GDB 13.1 aborts with internal error "new_breakpoint_from_type: invalid type".
    ///
    /// ## What readers do
    /// Verified with GDB 13.1: `target tfile` aborts with internal error "new_breakpoint_from_type:
    /// invalid type". The `T` line may come after the piece: GDB makes the tracepoint on the
    /// first line of its number and address and a later `T` line completes it (tracepoint.c
    /// `get_uploaded_tp`; campaign: a `T` line swapped with the line after it, every frame
    /// read the same).
    ///
    /// ## Spec
    /// tracepoint.c:2965-2980.
    pub ORPHAN_TP_PIECE = ("GT029", "orphan-tp-piece", Error, "a tp piece has no T line of its number and address (crashes GDB)");
    /// ## What it checks
    /// `tp A`/`S` action strings follow the action grammar: `R<mask hex>`,
    /// `M<basereg|-1>,<offset>,<len>`, `X<8 hex digits>,<bytecode hex of that length>`.
    ///
    /// ## Why it matters
    /// GDB stores them verbatim and never parses them on load, so damage goes unnoticed.
    ///
    /// ## What readers do
    /// Verified with GDB 13.1: `A`/`S` strings are never parsed when a file is opened (a garbled
    /// one changes nothing; without `Z…cmd` lines GDB warns "Uploaded tracepoint N actions have no
    /// source form, ignoring them"); the frames read the same.
    pub TP_ACTION_SYNTAX = ("GT030", "tp-action-syntax", Warning, "a tracepoint action string is malformed");
    /// ## What it checks
    /// `tp Z` source lines: type `at`, `cond` or `cmd`; start 0; the length field equals the
    /// decoded length; at most one `at` and one `cond` per tracepoint.
    ///
    /// ## Why it matters
    /// GDB drops unknown types silently and ignores the length; contradictions mean damage.
    ///
    /// ## What readers do
    /// From source (`parse_tracepoint_definition`): GDB 7.2–15 ignore the start and length fields
    /// and drop unknown source types silently; the frames read the same.
    ///
    /// The level follows the case: a tracepoint with no `at` source line is an **error**: GDB 13
    /// (`create_tracepoint_from_upload`) falls back to `*ADDR`; without the program's symbols
    /// loaded `target tfile` then fails with "No symbol table is loaded" (the file stays open
    /// and its frames are found; on the file with its `at` line GDB only warns that it cannot
    /// create the tracepoint); with the program loaded it warns "Uploaded tracepoint N has no
    /// source location, using raw address" and reads every frame the same (verified with GDB
    /// 13.1 on circular-wrapped.tf without its `at` line). An `at` location holding a control
    /// byte (below 0x20, or 0x7f) is an **error**: no location a user types or GDB writes holds
    /// one, and with the program loaded GDB 13 fails to resolve it ("Function … not defined",
    /// "Failed to create tracepoint for target's tracepoint N"): no tracepoint is created and
    /// `tdump` fails (campaign: `tl_scale` made `tl\x01scale` in memory.tf). A location renamed to
    /// another printable name is told only by the program (a known gap of the campaign).
    /// Repeated source lines stay warnings.
    pub TP_SOURCE_INCONSISTENT = ("GT031", "tp-source-inconsistent", Warning, "a tracepoint source line is inconsistent");
    /// ## What it checks
    /// `tp Z…cmd` lines form an action list GDB accepts: known actions (`collect`, `teval`,
    /// `while-stepping`, `end`), `$names` in `teval` that are trace state variables or
    /// registers of the target description, no nested `while-stepping`, no `collect/s`.
    ///
    /// ## Why it matters
    /// GDB re-creates every tracepoint from its `Z` lines when it opens the file and validates
    /// each command line as if typed. The first rejected line stops the creation of the
    /// remaining tracepoints.
    ///
    /// ## What readers do
    /// Verified with GDB 13.1: `target tfile` succeeds but prints the error (`` `bogus' is not a
    /// tracepoint action, or is ambiguous.``, "The 'while-stepping' command cannot be nested",
    /// `Target does not support "/s" option for string tracing.`, "$x is not a trace state
    /// variable, may not assign to it"); the tracepoint is created without actions and neither it
    /// nor the tracepoints created after it (those defined earlier in the file) are linked to
    /// their frames: `tdump` fails with "No known tracepoint matches 'current' tracepoint #N".
    /// From source: breakpoint.c `create_tracepoint_from_upload` (`validate_actionline`),
    /// tracepoint.c `merge_uploaded_tracepoints`, unchanged since GDB 7.2.
    ///
    /// ## Spec
    /// breakpoint.c:13808-13891.
    pub TP_COMMAND_INVALID = ("GT032", "tp-command-invalid", Error, "a tracepoint command line GDB rejects, so its frames cannot be dumped");
    /// ## What it checks
    /// At most one `tp V` line per tracepoint.
    ///
    /// ## Why it matters
    /// The later one silently replaces the earlier hit and usage counts.
    ///
    /// ## What readers do
    /// From source (`parse_tracepoint_definition`): GDB 7.2–15 keep the last hit and usage counts,
    /// shown by `info tracepoints`; the frames read the same.
    pub DUPLICATE_TP_STATUS = ("GT033", "duplicate-tp-status", Warning, "a tracepoint has more than one V line");
    /// ## What it checks
    /// Whether the hit and usage counts of a `tp V` line are decimal digits in a hex field:
    /// the usage read as decimal equals the bytes of that tracepoint's frames while read as hex
    /// it does not.
    ///
    /// ## Why it matters
    /// gdbserver answers `qTP` in decimal and GDB stores the digits unchanged in a hex field, so
    /// GDB shows wrong counts (`12` hits shown as 18). A known writer quirk, not damage.
    ///
    /// ## What readers do
    /// Verified with GDB 13.1: `info tracepoints` shows the digits read as hex (`tracepoint already
    /// hit 18 times` for 12 hits); the frames read the same. Written by gdbserver (13.1 verified;
    /// gdbserver/tracepoint.cc `cmd_qtp` answers in decimal) and stored unchanged by GDB's `tsave`.
    ///
    /// ## Spec
    /// gdbserver/tracepoint.cc:3716.
    pub DECIMAL_TP_STATUS_COUNTS = ("GT034", "decimal-tp-status-counts", Info, "tp V counts are decimal digits in a hex field (gdbserver quirk)");
    /// ## What it checks
    /// The usage of a `tp V` line equals the bytes of that tracepoint's frames (read as hex or
    /// decimal), and, for tracepoints without while-stepping, the hit count is at least the
    /// number of its frames.
    ///
    /// ## Why it matters
    /// The counts and the frames disagree: frames were lost or the counts are stale. Skipped for
    /// wrapped circular buffers and fast tracepoints (whose hits gdbserver reports as 0).
    ///
    /// ## What readers do
    /// GDB 13.1 shows the counts as written in `info tracepoints`; frames are walked by their own
    /// sizes and read the same.
    pub TP_STATUS_MISMATCH = ("GT035", "tp-status-mismatch", Warning, "a tracepoint's hit/usage counts do not match its frames");
    /// ## What it checks
    /// The `tdesc` lines joined (`payload + "\n"` each) are a well-formed XML target
    /// description: root `<target>`, no `xi:include`, no XML declaration after leading text.
    ///
    /// ## Why it matters
    /// GDB warns "Could not load XML target description; ignoring" and falls back to the exec
    /// file's or the default architecture, which may decode registers wrongly.
    ///
    /// ## What readers do
    /// From source (tracefile-tfile.c `tfile_open` → `target_find_description`): GDB 13.1 warns
    /// "Could not load XML target description; ignoring" and uses the executable's or the default
    /// architecture, which decodes the `R` blocks the same only when it matches the recording
    /// target.
    ///
    /// The level follows the case: a `<flags>` type of size 0 is an **error** (GDB 13 aborts
    /// opening the file, "Recursive internal problem", campaign); other malformed descriptions
    /// stay warnings (GDB warns and falls back to its default description).
    pub TDESC_INVALID = ("GT036", "tdesc-invalid", Warning, "the target description is not a well-formed XML target description");
    /// ## What it checks
    /// The `<architecture>` of the target description is one GDB knows.
    ///
    /// ## Why it matters
    /// GDB ignores a target description with an unknown architecture.
    ///
    /// ## What readers do
    /// From source (target-descriptions.c): GDB 13.1 ignores a description whose architecture it
    /// does not know ("…is not compatible with the current architecture") and falls back as for
    /// GT036.
    pub TDESC_UNKNOWN_ARCHITECTURE = ("GT037", "tdesc-unknown-architecture", Warning, "the target description names an unknown architecture");
    /// ## What it checks
    /// Reports the byte order used for the binary frames and how it was chosen: given by the
    /// caller, implied by the tdesc `<architecture>`, or inferred by walking the frames in both
    /// orders.
    ///
    /// ## Why it matters
    /// The file does not record its byte order; GDB uses the executable's. The wrong order
    /// misreads everything.
    ///
    /// ## What readers do
    /// GDB reads the frames in the byte order of the current architecture (the executable's or the
    /// description's); the file itself does not record it.
    pub BYTE_ORDER = ("GT038", "byte-order", Info, "which byte order the frames were read in, and why");
    /// ## What it checks
    /// The definition section has a `status` line.
    ///
    /// ## Why it matters
    /// Without it GDB warns "No traceframes present in this file", `tstatus` says the status
    /// is unknown, and MI `-trace-status` aborts GDB 13.1.
    ///
    /// ## What readers do
    /// Verified with GDB 13.1: `target tfile` opens the file with "No traceframes present in this
    /// file.", `tstatus` says "Run/stop status is unknown.", and MI `-trace-status` aborts GDB with
    /// internal error "trace_status_mi: Assertion `ts->running_known' failed".
    pub STATUS_MISSING = ("GT039", "status-missing", Error, "no status line");
    /// ## What it checks
    /// The byte order given (or implied by the architecture) walks the frames cleanly when the
    /// other order would.
    ///
    /// ## Why it matters
    /// Frames written on a big-endian target read as garbage in little-endian order, and
    /// vice versa.
    ///
    /// ## What readers do
    /// GDB reads the frames in the executable's byte order: with the other order every header and
    /// block is misread, typically ending in "Premature end of file" or "Unknown block type".
    pub BYTE_ORDER_CONFLICT = ("GT040", "byte-order-conflict", Warning, "the frames fit the other byte order better");
    /// ## What it checks
    /// Each frame header is complete: a 16-bit tracepoint number and a 32-bit size.
    ///
    /// ## Why it matters
    /// GDB fails with "Premature end of file" when `tfind` reaches the frame.
    ///
    /// ## What readers do
    /// Verified with GDB 13.1: `tfind` reaching the cut header fails with "Premature end
    /// of file while reading trace file".
    pub TRUNCATED_FRAME_HEADER = ("GT041", "truncated-frame-header", Error, "the file ends inside a frame header");
    /// ## What it checks
    /// A frame's tracepoint number is positive.
    ///
    /// ## Why it matters
    /// No tracepoint has a negative number; GDB shows "tracepoint -1".
    ///
    /// ## What readers do
    /// Verified with GDB 13.1: with -1 `tfind` reports "Found trace frame 0, tracepoint -1" and
    /// then treats the frame as not found (`tdump`: "No current trace frame."), -1 being its
    /// not-found value; with another negative number `tdump` fails with "No known tracepoint
    /// matches 'current' tracepoint #-2.".
    pub FRAME_TRACEPOINT_INVALID = ("GT042", "frame-tracepoint-invalid", Error, "a frame's tracepoint number is negative");
    /// ## What it checks
    /// Every frame's tracepoint number is defined by a `tp T` line.
    ///
    /// ## Why it matters
    /// The frame cannot be related to a location; without an `R` block GDB cannot even guess
    /// its PC.
    ///
    /// ## What readers do
    /// Verified with GDB 13.1: `target tfile` and `tstatus` succeed and `tfind` finds the frame
    /// ("Found trace frame N, tracepoint T"), but `tdump` fails with "No known tracepoint
    /// matches 'current' tracepoint #T". GDB numbers the tracepoints it creates from the file
    /// from 1 (with the program loaded, "Created tracepoint 1 for target's tracepoint 2"):
    /// where that gives T to another tracepoint, `tdump` shows the frame as that tracepoint's
    /// (collected at another location). Without an `R` block `tfile_fetch_registers` has no
    /// tracepoint location to supply the PC. From source: tracepoint.c `tdump_command`. The
    /// level follows the case:
    /// - **warning**: a number N no more than the tracepoints GDB creates: GDB shows a frame
    ///   whose number no tracepoint has on the target as its own tracepoint N (`tfind_1`:
    ///   `set_tracepoint_num (tp ? tp->number : target_tracept)`), and creates its tracepoints
    ///   in the reverse order of the file's lines (`get_uploaded_tp` puts each new one first;
    ///   locations of one number are one tracepoint), so the frame is shown and dumped as the
    ///   file's tracepoint that became GDB's N (campaign: frame numbers 2 -> 1 in files of one,
    ///   two and four tracepoints and 3 -> 1 in a file of two, GDB's output and `tdump`
    ///   identical);
    /// - **error** otherwise: `tdump` fails.
    pub FRAME_TRACEPOINT_UNDEFINED = ("GT043", "frame-tracepoint-undefined", Error, "a frame's tracepoint is defined by no tp line");
    /// ## What it checks
    /// Each frame lies inside the file.
    ///
    /// ## Why it matters
    /// The frame was cut off or its size is corrupt; no later frame can be found.
    ///
    /// ## What readers do
    /// Verified with GDB 13.1: walking to or past the frame fails with "Premature end of
    /// file while reading trace file"; frames after it cannot be found.
    pub FRAME_OVERRUNS_FILE = ("GT044", "frame-overruns-file", Error, "a frame extends past the end of the file");
    /// ## What it checks
    /// A frame's size is below 2^31.
    ///
    /// ## Why it matters
    /// GDB keeps the size in an `int`: a larger one turns negative and the frame is treated as
    /// having no blocks.
    ///
    /// ## What readers do
    /// From source (tracefile-tfile.c `tfile_trace_find`, `int data_size`): GDB 7.2–15 turn the
    /// size negative, find no block in the frame and misplace the next frame.
    pub FRAME_SIZE_TOO_LARGE = ("GT045", "frame-size-too-large", Error, "a frame size does not fit GDB's signed 32-bit int");
    /// ## What it checks
    /// The blocks of a frame tile it exactly: no block runs past the frame end, no bytes are
    /// left over.
    ///
    /// ## Why it matters
    /// GDB reads a straddling block from the next frame's bytes and reports "Unknown block
    /// type" on slack bytes.
    ///
    /// ## What readers do
    /// From source (`traceframe_walk_blocks`): GDB 7.2–15 read a straddling block into the next
    /// frame's bytes and fail with "Unknown block type" on slack bytes.
    ///
    /// The level follows the case: the last block of the last frame running past the frame's
    /// declared end, where the frame's end holds an end marker and the block ends on the 2 zero
    /// bytes of another, is a **warning**: the frame size is short; GDB 13 reads the block whole
    /// by its own length and stops at the declared end (campaign: the last frame's size cut by
    /// 1 and by half, every frame and block read the same); an **error** otherwise.
    pub FRAME_BLOCKS_MISMATCH = ("GT046", "frame-blocks-mismatch", Error, "a frame's blocks do not add up to its size");
    /// ## What it checks
    /// Every block type is `R`, `M` or `V`.
    ///
    /// ## Why it matters
    /// GDB fails with "Unknown block type" when the frame's registers or memory are read. `S`
    /// blocks (gdbserver UST static tracepoint data) are also rejected by GDB's reader.
    ///
    /// ## What readers do
    /// From source (`traceframe_walk_blocks`, tracefile-tfile.c) and verified with GDB 13.1:
    /// reading the frame's registers or memory fails with "Unknown block type"; `S` blocks are
    /// rejected the same way (GDB 7.x–15 never learned them).
    ///
    /// ## Spec
    /// tracefile-tfile.c:805-853.
    pub UNKNOWN_BLOCK_TYPE = ("GT047", "unknown-block-type", Error, "a frame holds a block of unknown type");
    /// ## What it checks
    /// A frame has at most one `R` block.
    ///
    /// ## Why it matters
    /// GDB uses the first and silently ignores the others.
    ///
    /// ## What readers do
    /// From source (`tfile_fetch_registers`): GDB 7.2–15 use the first `R` block and ignore the
    /// others silently; the same registers are shown every time.
    pub DUPLICATE_REGISTER_BLOCK = ("GT048", "duplicate-register-block", Warning, "a frame holds more than one R block");
    /// ## What it checks
    /// Whether the frames of a fast tracepoint (`T…:F`) hold register blocks larger than the
    /// `R` line says, the frame tiling exactly with the larger size.
    ///
    /// ## Why it matters
    /// gdbserver's in-process agent stores its own register layout (2500 bytes on x86-64)
    /// while GDB writes `R 974` (2420): GDB cannot walk any such frame ("Unknown block type").
    /// tracelint walks them with the inferred size.
    ///
    /// ## What readers do
    /// Verified with GDB 13.1 on a real fast-tracepoint file: the frames are found and the
    /// registers are shown from the first 2420 bytes, but reading collected memory (`tdump`,
    /// `print`) fails with "Unknown block type". Written by gdbserver's in-process agent
    /// (libinproctrace.so, 13.1 verified), whose register buffer layout differs from GDB's `R`.
    pub FAST_TRACEPOINT_REGISTER_BLOCK = ("GT049", "fast-tracepoint-register-block", Error, "fast tracepoint frames hold register blocks bigger than R (in-process agent quirk)");
    /// ## What it checks
    /// `M` blocks have a non-zero length.
    ///
    /// ## Why it matters
    /// An empty memory block collects nothing; GDB accepts it silently.
    ///
    /// ## What readers do
    /// GDB 13.1 accepts the block and never uses it; the frames read the same.
    pub EMPTY_MEMORY_BLOCK = ("GT050", "empty-memory-block", Warning, "an M block has length 0");
    /// ## What it checks
    /// `address + length` of an `M` block does not pass 2^64.
    ///
    /// ## Why it matters
    /// Such a range wraps around the address space and cannot have been collected.
    ///
    /// ## What readers do
    /// From source (`tfile_xfer_partial`): the end of the range wraps, so GDB 7.2–15 never find the
    /// block's bytes ("Cannot access memory"), though they are in the file.
    pub MEMORY_BLOCK_ADDRESS_OVERFLOW = ("GT051", "memory-block-address-overflow", Error, "an M block's address range wraps past 2^64");
    /// ## What it checks
    /// Whether `M` blocks of one frame overlap.
    ///
    /// ## Why it matters
    /// GDB uses the first block covering an address; the later bytes are never shown.
    /// gdbserver writes overlapping blocks when an action list collects the same memory twice
    /// (for example a variable and an array element holding it), so this is informational.
    ///
    /// ## What readers do
    /// From source (`tfile_xfer_partial`): GDB 7.2–15 answer from the first block covering an
    /// address; the overlapping bytes are equal in files gdbserver writes, so the data reads the
    /// same.
    pub OVERLAPPING_MEMORY_BLOCKS = ("GT052", "overlapping-memory-blocks", Info, "two M blocks of one frame overlap");
    /// ## What it checks
    /// A `V` block's number is a trace state variable defined by a `tsv` line.
    ///
    /// ## Why it matters
    /// The value belongs to no variable and cannot be shown.
    ///
    /// ## What readers do
    /// From source (`tfile_get_trace_state_variable_value`): GDB 7.2–15 look `V` blocks up by the
    /// number of a known variable; a block of an unknown number is never shown.
    pub UNDEFINED_TSV_BLOCK = ("GT053", "undefined-tsv-block", Error, "a V block names a trace state variable no tsv line defines");
    /// ## What it checks
    /// A 2-byte tracepoint number 0 follows the last frame.
    ///
    /// ## Why it matters
    /// GDB fails with "Premature end of file" once `tfind` walks past the last frame: the file
    /// was cut off.
    ///
    /// ## What readers do
    /// Verified with GDB 13.1: `tfind` walking past the last frame fails with "Premature
    /// end of file while reading trace file".
    pub MISSING_END_MARKER = ("GT054", "missing-end-marker", Error, "the frames are not terminated by tracepoint number 0");
    /// ## What it checks
    /// Only zero bytes follow the end marker.
    ///
    /// ## Why it matters
    /// Data after the marker is never read: a tracepoint number 0 in the middle of the frames
    /// silently truncates the trace (as in wrapped circular buffers saved by gdbserver 13.1).
    ///
    /// ## What readers do
    /// From source (`tfile_trace_find`): GDB 7.2–15 stop at the first tracepoint number 0. The level
    /// follows the case:
    /// - **error**: the bytes after the marker start with a whole frame (or with the size and data of
    ///   a frame whose number was zeroed, followed by a whole frame of a defined tracepoint when
    ///   that size is 0): GDB 13 never shows those frames (campaign: the number of a frame of
    ///   no data zeroed, GDB shows none of the frames after it); also zero bytes after the
    ///   marker that are exactly the headers of the frames the status counts beyond those walked
    ///   (k frames of no data, 6 bytes each) and GDB's padding: the last k frames' numbers were
    ///   zeroed (campaign: the last frame of teval.tf zeroed, GDB shows 11 of its 12 frames);
    /// - **warning**: they hold no frame; GDB never reads them.
    pub DATA_AFTER_END_MARKER = ("GT055", "data-after-end-marker", Error, "non-zero data follows the end marker");
    /// ## What it checks
    /// The zero padding after the end marker is 0, 2 or 4 bytes (GDB writes 2, its testsuite 4).
    ///
    /// ## Why it matters
    /// Other lengths do not come from a known writer.
    ///
    /// ## What readers do
    /// GDB never reads past the end marker; the padding changes nothing. GDB's `tsave` writes 2
    /// zero bytes, its testsuite's generator 4.
    pub END_MARKER_PADDING = ("GT056", "end-marker-padding", Info, "unusual zero padding after the end marker");
    /// ## What it checks
    /// Whether a circular trace buffer wrapped (`circular:1`, `tcreated > tframes`).
    ///
    /// ## Why it matters
    /// The oldest frames were discarded; the trace holds only the last part of the run.
    ///
    /// ## What readers do
    /// GDB 13.1 reads the kept frames normally and shows "Buffer contains N trace frames (of M
    /// created total)" in `tstatus`.
    pub CIRCULAR_BUFFER_WRAPPED = ("GT057", "circular-buffer-wrapped", Info, "a circular trace buffer wrapped; older frames were discarded");
    /// ## What it checks
    /// Whether a wrapped circular buffer's saved image is inconsistent: the frames do not walk
    /// cleanly or do not add up to `tsize - tfree`.
    ///
    /// ## Why it matters
    /// gdbserver 13.1 adds the wrap offset only at the start of each `qTBuffer` request and
    /// counts the gap before the wrap point as used, so the saved image of a wrapped buffer is
    /// garbage. The structural findings next to this one are consequences of that bug.
    ///
    /// ## What readers do
    /// Verified with GDB 13.1 on a real wrapped buffer saved by gdbserver 13.1: GDB walks the first
    /// frames and then fails with "Unknown block type" on the misplaced bytes (or stops at a stray
    /// zero); the rest of the frames are lost.
    ///
    /// The level follows the case: **error** when frames are lost (a frame or block cannot be
    /// walked, or the status counts other frames than GDB walks); **warning** when only the
    /// buffer usage or the bytes after the end marker disagree and GDB 13 walks every frame the
    /// status counts, each whole (campaign: the bytes after the end marker changed, a last
    /// frame's size cut by one: every frame read the same).
    ///
    /// ## Spec
    /// gdbserver/tracepoint.cc:1775-1782, 3997-4017.
    pub CORRUPT_CIRCULAR_IMAGE = ("GT058", "corrupt-circular-image", Error, "a wrapped circular buffer was saved inconsistently (gdbserver quirk)");
    /// ## What it checks
    /// The register block size equals the `g`-packet size implied by the target description
    /// (the sum of its registers' bit sizes, in bytes).
    ///
    /// ## Why it matters
    /// A smaller `R` shows registers as unavailable; a larger one hides misalignment.
    ///
    /// ## What readers do
    /// From source (`tfile_fetch_registers`): GDB 7.2–15 supply registers from the `R` block by the
    /// architecture's offsets; registers past a short block are shown as unavailable, extra bytes
    /// are ignored.
    pub REGISTER_SIZE_TDESC_MISMATCH = ("GT059", "register-size-tdesc-mismatch", Warning, "the R size differs from the target description's register size");
    /// ## What it checks
    /// Hex-encoded strings (status notes, user name and stop texts, tsv names, tp source text)
    /// have an even number of valid hex digits.
    ///
    /// ## Why it matters
    /// GDB fails with "Invalid hex digit" on a bad digit and drops an odd last digit.
    ///
    /// ## What readers do
    /// From source (common-utils.cc `hex2bin`): GDB 13.1 fails with "Invalid hex digit" on a bad
    /// digit and silently drops an odd last digit.
    ///
    /// The level follows the case: in the condition bytecode of a `tp T` line (`X<len>,<hex>`)
    /// it is a **warning**: GDB 13 keeps that text and never decodes it when it opens a file
    /// (campaign: bytecode digits changed to other bytes, every frame read the same); elsewhere
    /// an **error**.
    ///
    /// ## Spec
    /// common-utils.cc:403-434.
    pub BAD_HEX_STRING = ("GT060", "bad-hex-string", Error, "a hex-encoded string has a bad digit or odd length");
    /// ## What it checks
    /// The `tp Z…cmd` lines of a tracepoint are balanced: every `while-stepping` is closed by an
    /// `end`, and no `end` appears outside a `while-stepping`.
    ///
    /// ## Why it matters
    /// GDB writes the action list of a tracepoint without the final `end`, and the
    /// `while-stepping` block with its `end`; anything else was edited or cut.
    ///
    /// ## What readers do
    /// Verified with GDB 13.1: a top-level `end` ends the action list, so the command lines after
    /// it are dropped and `tdump` does not show what they collected (the frame data is still
    /// there for `print`); an unclosed `while-stepping` is closed silently at the end of the list.
    /// The file opens and every frame is found.
    ///
    /// ## Spec
    /// cli-script.c `read_command_lines_1`.
    pub TP_COMMAND_LIST_UNBALANCED = ("GT061", "tp-command-list-unbalanced", Warning, "a tracepoint's while-stepping/end command lines are unbalanced");
    /// ## What it checks
    /// With the program the file was recorded from (`check --program`, `[check] program`): the
    /// instruction at a fast tracepoint's address (`tp T…:F<size>`, however GDB reads the size)
    /// is at least 5 bytes long and can be read from the program's read-only sections. The
    /// addresses are those GDB re-creates the tracepoint at: the `T` line's address when the
    /// tracepoint has no `at` line, ADDR for an `at` location `*ADDR`, the `T` line's address
    /// for a source line (`file.c:LINE`, where it resolved when the program was traced), and
    /// for a function name the addresses of the tracepoint's `T` lines (one per location) that
    /// lie in a function of that name: GDB checks every place the name resolves to and stops at
    /// the first that fails (`corpus/gdb/twoloc.tf`: `step`, two static functions of
    /// `tpmulti`, 3-byte instructions at 0x40112d and 0x40119f; `:F` added to its C library
    /// location gives "May not have a fast tracepoint at 0x40112d; instruction is only 3 bytes
    /// long"). A function name whose functions hold none of them is not judged (`GT066`). x86-64 and
    /// i386 programs only: GDB 13 checks no other architecture (`default_fast_tracepoint_valid_at`
    /// accepts every address).
    ///
    /// ## Why it matters
    /// A fast tracepoint replaces the instruction with a jump. When GDB opens a tfile it
    /// re-creates every tracepoint (breakpoint.c `create_tracepoint_from_upload`), and for a fast
    /// one it checks the instruction at the location in the program loaded with the file
    /// (`check_fast_tracepoint_sals`, i386-tdep.c `i386_fast_tracepoint_valid_at`). A trace file
    /// target gives no minimum length (`get_min_fast_tracepoint_insn_len` is the dummy target's,
    /// -1), so GDB asks for 5 bytes, a jump with a 4-byte offset, on x86-64 and i386 alike. It
    /// reads the instruction from the program's read-only sections (tracefile-tfile.c
    /// `xfer_partial` with no frame selected, exec.c `section_table_available_memory`).
    ///
    /// ## What readers do
    /// Verified with GDB 13.1 (Debian 13.1-3), `file PROGRAM` then `target tfile`, on
    /// `corpus/gdb/regs.tf` (tracepoint 2 at `tl_step`, address 0x401145: `mov -0x20(%rbp),%rax`,
    /// 4 bytes) with `:F5`, `:F0`, `:F`, `:Fzz` or `:F9` added to its `tp T` line: `target tfile`
    /// fails with "May not have a fast tracepoint at 0x401145; instruction is only 4 bytes long,
    /// need at least 5 bytes for the jump", `info tracepoints` says "No tracepoints.", and
    /// `tfind 0` then `tdump` fails with "No known tracepoint matches 'current' tracepoint #2":
    /// every frame loses its tracepoint. The error ends `merge_uploaded_tracepoints`, so the
    /// tracepoints GDB had not created yet (those defined earlier in the file) are lost too. The
    /// same file with the raw address 0x500000 (no `at` line, in no section of the program):
    /// "Cannot access memory at address 0x500000", no tracepoint. The healthy fast-tracepoint
    /// recording `corpus/gdb/fast.tf` (`tp T2:4011c2:E:0:0:F0`, `tl_tick`: `mov
    /// 0x2ed8(%rip),%eax`, 6 bytes) opens with its frames read, and no corpus file recorded by
    /// gdbserver (scripts/corpus/gdb.sh, with its programs) raises this rule.
    ///
    /// The level follows the case: **error** for an instruction shorter than 5 bytes or an
    /// address in no read-only section of the program; **warning** for bytes that do not decode
    /// as an instruction (iced-x86): GDB measures them with its own disassembler, which this
    /// check does not reproduce.
    ///
    /// ## Spec
    /// GDB 13.1 i386-tdep.c:8171-8215, breakpoint.c:8713-8731 and 13808-13850, tracepoint.c
    /// `merge_uploaded_tracepoints`, target-delegates.c `dummy_target::get_min_fast_tracepoint_insn_len`.
    pub FAST_TRACEPOINT_TOO_SHORT = ("GT062", "fast-tracepoint-too-short", Error, "a fast tracepoint's instruction in the program is shorter than GDB's 5-byte jump, or cannot be read");
    /// ## What it checks
    /// With the program (`check --program`): a tracepoint's address lies in an executable
    /// section of the program.
    ///
    /// ## Why it matters
    /// A tracepoint outside the program was set in a shared library (or the file and the program
    /// do not belong together). GDB re-creates a normal tracepoint from its `at` location, or at
    /// the raw address when it has none, without reading the program there, so this is a note.
    /// (A fast tracepoint there is `GT062`: GDB cannot read its instruction.)
    ///
    /// ## What readers do
    /// Verified with GDB 13.1 (Debian 13.1-3), program loaded: `corpus/gdb/regs.tf` with the
    /// address of tracepoint 2 changed to 0x500000 (in no section) is re-created at its `at`
    /// location `tl_step` (0x401145) and every frame reads the same; without its `at` line it
    /// warns "Uploaded tracepoint 2 has no source location, using raw address", creates the
    /// tracepoint at 0x500000 and reads every frame the same. The healthy
    /// `corpus/gdb/twoloc.tf` has a location in the C library (0x7ffff7f26ee0, glibc's `step`).
    pub TRACEPOINT_OUTSIDE_PROGRAM = ("GT063", "tracepoint-outside-program", Info, "a tracepoint's address lies in no executable section of the program");
    /// ## What it checks
    /// With the program (`check --program`): a tracepoint's `at` location that is a plain
    /// function name (`tl_step`) names a function the program knows: a symbol of `.symtab` or
    /// `.dynsym` of that name (or `name@version`, `name.suffix`), a C++ symbol whose mangled name
    /// holds it, or a string of its debug information (a function inlined everywhere has no
    /// symbol). Not judged when the program names a separate debug file (`.gnu_debuglink`), is
    /// stripped with a build ID, has compressed debug sections or more symbols than
    /// `limits.max_entries`: GDB may know names tracelint does not see. The inline strings of
    /// `.debug_info` are scanned for the first 64 distinct names of a file that neither the
    /// symbols nor `.debug_str` hold (a scan of the section each); a later such name is not
    /// judged.
    ///
    /// ## Why it matters
    /// GDB re-creates each tracepoint from its `at` location, looked up in the program loaded with
    /// the file. A name the program lacks creates no tracepoint, and the frames of that
    /// tracepoint cannot be read as its frames.
    ///
    /// ## What readers do
    /// Verified with GDB 13.1 (Debian 13.1-3), program loaded: `corpus/gdb/regs.tf` with the
    /// `at` location `tl_step` renamed `tl_stex` prints `Function "tl_stex" not defined.` and
    /// "Failed to create tracepoint for target's tracepoint 2 at 0x401145, skipping it."; `info
    /// tracepoints` says "No tracepoints." and `tdump` fails with "No known tracepoint matches
    /// 'current' tracepoint #2". In `corpus/gdb/multi.tf` (`tl_scale` renamed `tl_scalx`) only
    /// that tracepoint is skipped; the others are created and read. A `FILE:LINE` location is
    /// judged by its file: the program's debug strings (`.debug_str`, `.debug_line_str`) must
    /// hold the name or a path ending in `/FILE`; `multi.tf`'s `tpdemo.c:49` made
    /// `tpdemn.c:49` prints "No source file named tpdemn.c." and the tracepoint is lost (a
    /// program without debug strings is not judged). No corpus file (with its program) raises
    /// this rule.
    pub TRACEPOINT_FUNCTION_UNKNOWN = ("GT064", "tracepoint-function-unknown", Error, "a tracepoint's `at` location names a function the program lacks");
    /// ## What it checks
    /// A `tp T` line with the static tracepoint option `S`.
    ///
    /// ## Why it matters
    /// Static tracepoints probe markers compiled into the program (UST); gdbserver 13 and its
    /// in-process agent are built without them. A trace file target has no markers either, so
    /// GDB re-creates the tracepoint as a static tracepoint at its location with a warning.
    ///
    /// ## What readers do
    /// Verified with GDB 13.1 (Debian 13.1-3), program loaded: `corpus/gdb/regs.tf` with `:S`
    /// added to its `tp T` line warns "Couldn't determine the static tracepoint marker to probe",
    /// creates "Static tracepoint 1 at 0x401145" and reads every frame the same (`tdump` shows
    /// the same registers). `info tracepoints` lists it as a static tracepoint. No recording
    /// in the corpus has one. **Error** for a static tracepoint with while-stepping (a step
    /// count or `tp S` actions): `corpus/gdb/multi.tf` with `:S` added to T3 (step 2) makes GDB
    /// 13.1 print "The 'while-stepping' command cannot be used for static tracepoint" and lose
    /// the tracepoint's frames; GDB refuses to create such a tracepoint, so no healthy file
    /// has one.
    pub STATIC_TRACEPOINT = ("GT065", "static-tracepoint", Info, "a static tracepoint: GDB re-creates it with a warning and reads its frames");
    /// ## What it checks
    /// A fast tracepoint (`tp T…:F<size>`) in a file checked without the program it was
    /// recorded from (or whose location cannot be placed in it).
    ///
    /// ## Why it matters
    /// Whether GDB can re-create a fast tracepoint depends on the program, not on the file:
    /// GDB 13 checks that the instruction at its address is at least 5 bytes long on x86-64 and
    /// i386 (`GT062`), and when it is not, `target tfile` fails and the frames of the
    /// tracepoint lose it. `check --program PROGRAM` lets tracelint check it.
    ///
    /// ## What readers do
    /// GDB 13.1 (Debian 13.1-3) reads `corpus/gdb/fast.tf` with its program (the instruction at
    /// 0x4011c2 is 6 bytes long) and fails on `corpus/gdb/regs.tf` with `:F0` added (4 bytes at
    /// 0x401145): see `GT062`.
    pub FAST_TRACEPOINT_UNCHECKED = ("GT066", "fast-tracepoint-unchecked", Info, "a fast tracepoint whose instruction length could not be checked against the program");
}
