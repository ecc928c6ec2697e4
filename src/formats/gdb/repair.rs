//! Repair of a tfile cut short or missing its end marker (`tracelint fix`).
//!
//! GDB reads frames lazily: a file without the end marker (tracepoint number 0) or ending
//! inside a frame opens, and `tfind` fails only when it walks past the last whole frame
//! ("Premature end of file while reading trace file"). GDB's `tsave` writes the frames as
//! gdbserver sent them and then the marker; so the whole frames before the cut are what it
//! wrote, and the repair keeps them, drops the partial frame and writes the marker as the
//! writer does (tracepoint number 0 and two more zero bytes). The definition section, with
//! its `tframes` status, is left as recorded; the ledger gives the frames kept.

use super::decode::frames::{Step, Walker};
use super::model::{Frame, FramesEnd};
use super::rules;
use crate::finding::Sink;
use crate::input::Windowed;
use crate::ledger::{Cut, Edit, FilePlan, Loss, Plan, Unit, Verdict};
use crate::reader::Endian;

/// The end marker as GDB writes it.
pub const END_MARKER: [u8; 4] = [0; 4];

/// The repair of the frames of `data` starting at `start`, walked in `endian` with register
/// blocks of `register_size` (fast tracepoints: `fast`).
pub fn frames(
    data: &[u8],
    start: u64,
    endian: Endian,
    register_size: Option<u64>,
    fast: Vec<i16>,
    max_findings: usize,
) -> Verdict {
    let len = data.len() as u64;
    let mut sink = Sink::new(max_findings);
    let mut src = Windowed::slice(data);
    let mut walker = Walker::new(&mut src, start, endian, register_size, fast);
    let mut frame = Frame::default();
    let mut whole = 0u64;
    let mut end_of_whole = start;
    let stopped = loop {
        match walker.next(&mut frame, &mut sink) {
            Some(Step::Frame) => {
                whole = whole.saturating_add(1);
                end_of_whole = frame.span.end;
            }
            Some(Step::End(FramesEnd::Marker { .. })) => return Verdict::Healthy,
            Some(Step::End(FramesEnd::Stopped { offset })) => break offset,
            None => break len,
        }
    };
    // Only an end of file inside a frame, or no marker at all, is this repair's: a frame the
    // walk stopped at for another reason (a negative tracepoint number, a size that does not
    // fit) with bytes after it is other damage.
    let cut_at = stopped.max(end_of_whole);
    let rest = len.saturating_sub(cut_at);
    let at = usize::try_from(cut_at).unwrap_or(usize::MAX);
    let tail = data.get(at..).unwrap_or_default();
    let truncated = match (
        crate::reader::u16_at(tail, 0, endian),
        crate::reader::u32_at(tail, 2, endian),
    ) {
        (_, None) => true,
        (Some(tp), Some(size)) => {
            crate::reader::signed16(tp) > 0 && 6u64.saturating_add(u64::from(size)) > rest
        }
        (None, Some(_)) => true,
    };
    if !truncated {
        return Verdict::Refuse(crate::ledger::Refusal {
            damage: format!("the frames stop at 0x{cut_at:x}, before the end of the file"),
            reason: "the bytes there are no frame cut by the end of the file; this version repairs only a cut".into(),
            option: None,
        });
    }
    let mut plan = Plan::new(if rest == 0 {
        "tfile without its end marker".to_string()
    } else {
        format!("tfile cut inside a frame at 0x{cut_at:x}")
    });
    for r in [
        &rules::MISSING_END_MARKER,
        &rules::FRAME_OVERRUNS_FILE,
        &rules::TRUNCATED_FRAME_HEADER,
    ] {
        plan.mend(r.code);
    }
    let mut file = FilePlan::new(None, cut_at);
    if rest > 0 {
        let zeros = tail.iter().all(|&b| b == 0);
        file.cut = Some(Cut {
            rule: rules::FRAME_OVERRUNS_FILE.code,
            at: cut_at,
            bytes: rest,
            what: if zeros {
                "part of an end marker".into()
            } else {
                "a frame cut short".into()
            },
        });
        if !zeros {
            let tp = crate::reader::u16_at(tail, 0, endian).map(crate::reader::signed16);
            plan.losses.push(Loss {
                file: None,
                buffer: None,
                cpu: None,
                task: None,
                count: 1,
                unit: Unit::Frames,
                bytes: rest,
                time: None,
                what: format!(
                    "frame {whole} (tracepoint {}) at 0x{cut_at:x}: {rest} of its bytes on disk",
                    tp.map_or_else(|| "unknown".to_string(), |t| t.to_string())
                ),
            });
        }
    }
    file.edits.push(Edit {
        rule: rules::MISSING_END_MARKER.code,
        offset: cut_at,
        old: Vec::new(),
        new: END_MARKER.to_vec(),
        what: format!("end marker after {whole} whole frame(s)"),
    });
    plan.files.push(file);
    Verdict::Repair(plan)
}
