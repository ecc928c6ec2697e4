//! Writes the bytes a structure-aware target hands to its `run_<fmt>` function, so a failing
//! structured input can be kept as a plain regression file:
//!
//!     cargo run --release --example render -- TARGET INPUT OUTPUT
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [target, input, output] = args.as_slice() else {
        eprintln!("usage: render TARGET INPUT OUTPUT");
        return ExitCode::from(2);
    };
    let Some(render) = tracelint::fuzzing::structured::renderer_for(target) else {
        eprintln!("{target} is not a structure-aware target");
        return ExitCode::from(2);
    };
    let data = match std::fs::read(input) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("{input}: {e}");
            return ExitCode::from(1);
        }
    };
    let Some(bytes) = render(&data) else {
        eprintln!("the input does not make a model (too short)");
        return ExitCode::from(1);
    };
    if let Err(e) = std::fs::write(output, &bytes) {
        eprintln!("{output}: {e}");
        return ExitCode::from(1);
    }
    eprintln!("wrote {} bytes to {output}", bytes.len());
    ExitCode::SUCCESS
}
