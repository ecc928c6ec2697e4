//! Rules of the ftrace ring-buffer page walker (shared by trace.dat and uftrace kernel data).

crate::declare_rules! {
    family: crate::formats::tracecmd::rules::FAMILY;
    /// ## What it checks
    /// Per-CPU ring-buffer data is a whole number of pages, and every page is at least as long
    /// as its header (timestamp and commit word).
    ///
    /// ## Why it matters
    /// The data is a copy of `page_size` sub-buffers read from `trace_pipe_raw`; a partial page
    /// means the file was truncated or the size or page size is wrong. Readers walk a partial
    /// page past the end of the data.
    ///
    /// ## What readers do
    /// trace-cmd and libtraceevent's kbuffer walk a partial page past the end of the data: out-of-
    /// bounds reads or garbage events at the end of the CPU.
    ///
    /// ## Spec
    /// trace-cmd.dat(5) "flyrecord" / kernel `ring_buffer_read_page`.
    pub RING_PAGE_TRUNCATED = ("TD100", "ring-page-truncated", Error, "the CPU data ends inside a page");
    /// ## What it checks
    /// The data size in a page's commit word (`commit & 0x7ffffff`) fits in the page after the
    /// header: `size <= page_size - (8 + long_size)`.
    ///
    /// ## Why it matters
    /// libtracecmd only checks `size <= page_size`, so a larger commit makes it decode the bytes
    /// after the page as events (garbage records).
    ///
    /// ## What readers do
    /// libtracecmd only checks `size <= page_size`: a larger commit makes it decode the bytes after
    /// the page as events (garbage records, rc 0).
    ///
    /// ## Spec
    /// kernel `struct buffer_data_page`; libtraceevent `kbuffer-parse.c` `kbuffer_load_subbuffer`.
    pub RING_COMMIT_TOO_LARGE = ("TD101", "ring-commit-too-large", Error, "the page's commit size is larger than the page's data area");
    /// ## What it checks
    /// The commit word's flag bits are consistent: bits 27–29 are clear, `RB_MISSED_STORED`
    /// (bit 30) only appears with `RB_MISSED_EVENTS` (bit 31), and with an 8-byte commit word
    /// the upper 32 bits are either zero or, when bit 31 is set, all ones (the kernel adds the
    /// `int` constant `1 << 31` to a `long`, which sign-extends on 64-bit kernels).
    ///
    /// ## Why it matters
    /// Other bit patterns are not written by any kernel: the page header is corrupt, and the
    /// data size and lost-events information derived from it cannot be trusted.
    ///
    /// ## What readers do
    /// kbuffer derives the data size and the lost-events flags from the commit word: impossible
    /// bits give a wrong size (misframed events) or lost-event counts read from data. The level
    /// follows the case:
    /// - **warning**: `RB_MISSED_STORED` alone (no reserved bits, upper half zero): kbuffer
    ///   (trace-cmd 2.4's and 2.9.5's own, libtraceevent 1.7–1.8) reads bit 30 only under bit 31,
    ///   and trace-cmd 2.4–3.3.4 print the same report (campaign: 8 of 8 such pages with the
    ///   size kept or 4 bytes short);
    /// - **error** otherwise.
    ///
    /// ## Spec
    /// kernel `ring_buffer_read_page` (`RB_MISSED_EVENTS`, `RB_MISSED_STORED`).
    pub RING_COMMIT_FLAGS_INVALID = ("TD102", "ring-commit-flags-invalid", Error, "the page's commit word has impossible flag bits");
    /// ## What it checks
    /// When `RB_MISSED_STORED` is set, the lost-events count (one kernel long) stored right
    /// after the data still fits inside the page.
    ///
    /// ## Why it matters
    /// The kernel only sets the flag when the count fits; a reader following the flag reads the
    /// count from outside the page.
    ///
    /// ## What readers do
    /// kbuffer reads the lost-events count after the data when the flag is set: from outside the
    /// page, i.e. from the next page or past the buffer.
    ///
    /// ## Spec
    /// kernel `ring_buffer_read_page`; libtraceevent `kbuffer_load_subbuffer`.
    pub RING_MISSED_COUNT_OUTSIDE_PAGE = ("TD103", "ring-missed-count-outside-page", Error, "the stored lost-events count does not fit in the page");
    /// ## What it checks
    /// Every byte of a page after the data (and after the stored lost-events count) is zero.
    ///
    /// ## Why it matters
    /// The kernel zero-fills the rest of each page it hands to user space. Non-zero bytes there
    /// mean the commit size is too small (events were cut off) or the page was modified.
    ///
    /// ## What readers do
    /// Readers stop at the commit size and never read the tail (kbuffer reads `commit` bytes). The
    /// level follows the case:
    /// - **error**: the tail starts with whole events of defined types: the commit size cut them off
    ///   and trace-cmd 2.4–3.3.4 never read them (campaign: "empty" CPUs, lost events, a commit
    ///   set to 0 over a page whose first record is a length-word record at time delta 0, header
    ///   word 0, told from zero fill by its length word);
    /// - **warning**: the tail holds no event: every reader reads the same.
    ///
    /// ## Spec
    /// kernel `ring_buffer_read_page` (`memset(&bpage->data[commit], 0, ...)`).
    pub RING_PAGE_TAIL_NOT_ZERO = ("TD104", "ring-page-tail-not-zero", Warning, "bytes after the page's data are not zero");
    /// ## What it checks
    /// Every event of a page (header, `array[0]` length word and body) ends at or before the
    /// commit size, so the walk of the page ends exactly at the commit size.
    ///
    /// ## Why it matters
    /// kbuffer bounds the walk only by the *start* of each event, so an event crossing the
    /// commit is decoded from the zero fill or from the next page, and a huge `array[0]`
    /// silently swallows the rest of the page.
    ///
    /// ## What readers do
    /// kbuffer bounds the walk only by each event's start: an event crossing the commit is decoded
    /// from the zero fill or the next page (garbage field values). The level follows the case:
    /// - **warning**: the commit is at most 4 bytes short of the page's last record, which is
    ///   whole in the page with only zeros after it: kbuffer reads it whole and stops after it,
    ///   and trace-cmd 2.4–3.3.4 print the same report (campaign: 7 of 7 such pages, commits 1
    ///   or 4 bytes short and a last record's header made 4 bytes longer; the damaged headers
    ///   that misframe the records after them overrun by 20 bytes and more). The record must be
    ///   of an event a format defines: the tail of a record a damaged header before it misframes
    ///   (a last data record made an absolute time stamp) is read as an unknown event
    ///   (trace-cmd 3.3.4 prints `[UNKNOWN EVENT]`, 2.9.5 crashes);
    /// - **error** otherwise.
    ///
    /// ## Spec
    /// kernel ring buffer event encoding (`header_event`).
    pub RING_EVENT_OVERRUNS_COMMIT = ("TD105", "ring-event-overruns-commit", Error, "an event extends past the end of the page's data");
    /// ## What it checks
    /// A data event with `type_len 0` has `array[0] >= 4` (the length word counts itself).
    ///
    /// ## Why it matters
    /// A smaller length makes the event end before its own payload starts: readers compute a
    /// negative payload length.
    ///
    /// ## What readers do
    /// kbuffer computes a negative payload length: the record is decoded with a huge length or the
    /// walk stops; the following events of the page are misframed.
    ///
    /// ## Spec
    /// kernel `rb_update_event` (`event->array[0] = length`).
    pub RING_DATA_LENGTH_INVALID = ("TD106", "ring-data-length-invalid", Error, "a type_len 0 event has a length smaller than its length word");
    /// ## What it checks
    /// Event lengths keep events 4-byte aligned: `array[0]` of a `type_len 0` event is a
    /// multiple of 4.
    ///
    /// ## Why it matters
    /// The kernel aligns every event to 4 bytes. kbuffer rounds the length up, so the file is
    /// readable, but no kernel writes such a length.
    ///
    /// ## What readers do
    /// kbuffer rounds the length up to 4, so every reader reads the same events; no kernel writes
    /// such a length.
    ///
    /// ## Spec
    /// kernel `rb_calculate_event_length` (`ALIGN(length, RB_ARCH_ALIGNMENT)`).
    pub RING_DATA_LENGTH_UNALIGNED = ("TD107", "ring-data-length-unaligned", Warning, "a type_len 0 event's length is not a multiple of 4");
    /// ## What it checks
    /// A padding (or discarded) event (`type_len 29`) with a non-zero delta has `array[0] >= 4`
    /// and a multiple of 4; its total length is `4 + array[0]`.
    ///
    /// ## Why it matters
    /// Padding lengths are written by the kernel as the remaining page space or the discarded
    /// event's length. `array[0] = 0xfffffffc` makes trace-cmd 3.1.6 loop forever; smaller or
    /// unaligned values misplace every following event of the page.
    ///
    /// ## What readers do
    /// trace-cmd 3.1.6 loops forever on `array[0] = 0xfffffffc` (verified); smaller or unaligned
    /// values misplace every following event of the page.
    ///
    /// ## Spec
    /// kernel `rb_reset_tail`, `rb_event_discard`; libtraceevent kbuffer.
    pub RING_PADDING_LENGTH_INVALID = ("TD108", "ring-padding-length-invalid", Error, "a padding event has an impossible length");
    /// ## What it checks
    /// No "null" padding (`type_len 29` with delta 0) appears inside the page's data.
    ///
    /// ## Why it matters
    /// The kernel writes null padding only past the commit (its length is undefined, and the
    /// kernel zero-fills it before user space sees the page). Inside the data it means the commit
    /// size is wrong or the data is corrupt; the rest of the page cannot be walked.
    ///
    /// ## What readers do
    /// kbuffer treats null padding as the end of the page's data: the rest of the page's events are
    /// not read.
    ///
    /// ## Spec
    /// kernel `include/linux/ring_buffer.h` (`RINGBUF_TYPE_PADDING`), `rb_reset_tail`.
    pub RING_NULL_PADDING_IN_DATA = ("TD109", "ring-null-padding-in-data", Error, "null padding appears inside the page's data");
    /// ## What it checks
    /// Every data record's payload holds its `common_type` (2 bytes) and is at least as long as
    /// the static fields of its event format (the end of the last field, common fields
    /// included).
    ///
    /// ## Why it matters
    /// Readers decode fields at the offsets the format gives; a short payload makes them read
    /// the next event's bytes as field values.
    ///
    /// ## What readers do
    /// libtraceevent decodes fields at their format offsets: a short payload makes it read the next
    /// event's bytes as field values.
    ///
    /// ## Spec
    /// tracefs `events/<system>/<event>/format`.
    pub RING_PAYLOAD_TOO_SHORT = ("TD110", "ring-payload-too-short", Error, "a record's payload is shorter than its event format");
    /// ## What it checks
    /// The event id of every record (`common_type`, the first `u16` of the payload) is the id of
    /// an event whose format the file contains.
    ///
    /// ## Why it matters
    /// Without a format the record cannot be decoded; trace-cmd prints `[UNKNOWN EVENT]` and
    /// still exits successfully.
    ///
    /// ## What readers do
    /// trace-cmd 3.1.6 prints `[UNKNOWN EVENT]` for the record and exits 0: the record's data is
    /// not decoded. When the file has the event's format but it does not parse after its name
    /// and id (`TD053`: libtraceevent reads its name and id and keeps it, flagged failed),
    /// trace-cmd 2.4–3.3.4 print the record
    /// by name as `[FAILED TO PARSE]`, with only the fields before the one that fails
    /// (verified: `sched_switch` with a byte of `next_pid`'s type made 0xf8 lost `next_pid` and
    /// `next_prio` in every record); the message names the event then.
    ///
    /// ## Spec
    /// libtraceevent `tep_data_type` / `tep_find_event`.
    pub RING_UNKNOWN_EVENT_ID = ("TD111", "ring-unknown-event-id", Error, "a record's event id has no event format");
    /// ## What it checks
    /// Timestamps of one CPU never go backwards: within a page, across consecutive pages (a
    /// page's timestamp is not older than the previous page's last record), and after an
    /// absolute time stamp.
    ///
    /// ## Why it matters
    /// Deltas are unsigned, so backwards time comes only from the page timestamps or absolute
    /// stamps: a clock change, a buggy clock, or pages out of order. Tools that merge CPUs by
    /// time will misorder records.
    ///
    /// ## What readers do
    /// Readers read the same records; `trace-cmd report` merges CPUs by timestamp, so records after
    /// the jump are printed out of order (`--ts-check` reports it).
    ///
    /// ## Spec
    /// kernel ring buffer time stamps; `trace-cmd report --ts-check`.
    pub RING_TIMESTAMP_BACKWARDS = ("TD112", "ring-timestamp-backwards", Warning, "a CPU's timestamps go backwards");
    /// ## What it checks
    /// No page of a CPU carries `RB_MISSED_EVENTS` (events were overwritten or dropped before the
    /// page was read). One finding per CPU sums the lost counts stored on its pages.
    ///
    /// ## Why it matters
    /// The trace is incomplete: the ring buffer was too small or was read too slowly. Analyses
    /// of durations or counts over the lost interval are wrong.
    ///
    /// ## What readers do
    /// trace-cmd 3.1.6 prints `CPU:N [M EVENTS DROPPED]` (or `[EVENTS DROPPED]` without a stored
    /// count) where the page says events were lost (verified on a recording that lost events):
    /// readers report the loss, the file is as the kernel wrote it.
    ///
    /// ## Spec
    /// kernel `ring_buffer_read_page`; trace-cmd report prints `CPU:N [M EVENTS DROPPED]`.
    pub RING_EVENTS_LOST = ("TD113", "ring-events-lost", Info, "events were lost on a CPU (the trace is incomplete)");
    /// ## What it checks
    /// No record's timestamp (page timestamp plus deltas) is 0xffffffffffffffff.
    ///
    /// ## Why it matters
    /// The kernel never reaches that time; a page timestamp damaged to all ones gives it to the
    /// page's first record.
    ///
    /// ## What readers do
    /// trace-cmd 3.3.4 merges CPUs in `tracecmd_iterate_events` with -1 as the "no more
    /// records" mark, so it drops that record and every later record of the CPU (campaign: the
    /// CPU's events are gone); trace-cmd 2.4–3.1.6 print the records with a wrapped time.
    ///
    /// ## Spec
    /// trace-cmd 3.3.4 `lib/trace-cmd/trace-input.c` (`timestamps[cpu] = record ? record->ts : -1ULL`).
    pub RING_TIMESTAMP_ALL_ONES = ("TD114", "ring-timestamp-all-ones", Error, "a record's timestamp is the all-ones value readers use as an end mark");
    /// ## What it checks
    /// A record of an event whose format has no data of its own length (no `__data_loc` field,
    /// no trailing array) is no longer than the entry the kernel reserves: the static fields'
    /// end rounded up to 8. A `print` record holds its text, then at most 16 bytes (newline,
    /// the kernel's 10-byte minimum, alignment) after the NUL.
    ///
    /// ## Why it matters
    /// The ring buffer does not store an event's size apart from the record length in its header.
    /// A damaged length that makes a record longer than its event swallows the records after it:
    /// the page still walks to its end, each record well formed, but those records are gone.
    ///
    /// ## What readers do
    /// trace-cmd 2.4–3.3.4 take the length from the header, print the event's fields (a
    /// `print`'s text up to its NUL) and go on after the swallowed bytes: the records there are
    /// never shown (campaign: a `print` record's header changed from 40 to 84 bytes loses the
    /// record after it). An excess of 12 bytes or more (room for a record) is an error; 8 to 11
    /// bytes (room only for a time or padding record) a warning.
    ///
    /// ## Spec
    /// kernel `trace_event_buffer_reserve` (`sizeof(*entry)` plus dynamic data),
    /// `tracing_mark_write` (`cnt + 2`, at least `FAULTED_SIZE`); tracefs `format` files.
    pub RING_RECORD_LONGER_THAN_EVENT = ("TD115", "ring-record-longer-than-event", Error, "a record is longer than its event: it swallows the records after it");
}
