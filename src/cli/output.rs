//! Exit codes and writing to standard output.

use std::io::Write;
use std::process::ExitCode;

/// Exit code: no error findings.
pub const EXIT_OK: u8 = 0;
/// Exit code: error findings (or warnings with `--deny warnings`).
pub const EXIT_FINDINGS: u8 = 1;
/// Exit code: usage or configuration error.
pub const EXIT_USAGE: u8 = 2;
/// Exit code: an input could not be read.
pub const EXIT_IO: u8 = 3;

/// Writes to stdout.
pub fn emit(s: &str) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(s.as_bytes()).and_then(|()| out.flush())
}

/// The exit code after stdout could not be written: a reader that closed the pipe
/// (`tracelint ... | head`) stopped listening, so the run ends quietly with the exit code it
/// had (`code`), as Unix filters do; any other failure (a full disk, `> /dev/full`) is said on
/// stderr and exits 3.
pub fn write_failed(e: &std::io::Error, code: u8) -> ExitCode {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        return ExitCode::from(code);
    }
    eprintln!("error: cannot write the output: {e}");
    ExitCode::from(EXIT_IO)
}

/// [`emit`], then `code` (or what [`write_failed`] says).
pub fn emit_then(s: &str, code: u8) -> ExitCode {
    match emit(s) {
        Ok(()) => ExitCode::from(code),
        Err(e) => write_failed(&e, code),
    }
}
