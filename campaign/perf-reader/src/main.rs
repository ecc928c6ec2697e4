//! The campaign's second perf.data reader: opens FILE with `linux-perf-data` (the parser
//! samply uses), walks every record in the order the crate yields them and prints one line per
//! sample (`SAMPLE <event> <comm> <pid> <tid> <time> <cpu>`), then `SAMPLES <n>` and
//! `RECORDS <n>`. Any error of the crate (opening, reading a record, parsing a record) is
//! printed as `ERROR <what>` and the exit status is 1; 2 is a usage or I/O error.

use linux_perf_data::linux_perf_event_reader::EventRecord;
use linux_perf_data::{PerfFileReader, PerfFileRecord};
use std::collections::HashMap;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::process::ExitCode;

fn main() -> ExitCode {
    let Some(path) = std::env::args_os().nth(1) else {
        eprintln!("usage: tracelint-perf-reader FILE");
        return ExitCode::from(2);
    };
    let mut file = match std::fs::File::open(&path) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("cannot open: {e}");
            return ExitCode::from(2);
        }
    };
    // A header size of 16 is a pipe-mode stream (`perf record -o -`).
    let mut head = [0u8; 16];
    let pipe = file.read_exact(&mut head).is_ok()
        && (u64::from_le_bytes(head[8..16].try_into().unwrap_or([0; 8])) == 16
            || u64::from_be_bytes(head[8..16].try_into().unwrap_or([0; 8])) == 16);
    if file.seek(SeekFrom::Start(0)).is_err() {
        return ExitCode::from(2);
    }
    let reader = BufReader::new(file);
    match walk(reader, pipe) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            println!("ERROR {e}");
            ExitCode::from(1)
        }
    }
}

fn walk<R: Read + Seek>(reader: R, pipe: bool) -> Result<(), String> {
    let parsed = if pipe {
        PerfFileReader::parse_pipe(reader)
    } else {
        PerfFileReader::parse_file(reader)
    };
    let PerfFileReader {
        mut perf_file,
        mut record_iter,
    } = parsed.map_err(|e| format!("open: {e}"))?;
    let names: Vec<String> = perf_file
        .event_attributes()
        .iter()
        .enumerate()
        .map(|(i, a)| a.name().map(str::to_owned).unwrap_or_else(|| format!("attr{i}")))
        .collect();
    println!("EVENTS {}", names.join(","));
    let mut comms: HashMap<i32, String> = HashMap::new();
    let (mut samples, mut records) = (0u64, 0u64);
    let mut result = Ok(());
    loop {
        let rec = match record_iter.next_record(&mut perf_file) {
            Ok(Some(r)) => r,
            Ok(None) => break,
            Err(e) => {
                result = Err(format!("record {records}: {e}"));
                break;
            }
        };
        records += 1;
        match rec {
            PerfFileRecord::EventRecord { attr_index, record } => {
                let parsed = match record.parse() {
                    Ok(p) => p,
                    Err(e) => {
                        result = Err(format!("record {records} ({:?}): {e}", record.record_type));
                        break;
                    }
                };
                match parsed {
                    EventRecord::Comm(c) => {
                        comms.insert(c.tid, String::from_utf8_lossy(&c.name.as_slice()).into_owned());
                    }
                    EventRecord::Sample(s) => {
                        samples += 1;
                        let tid = s.tid.unwrap_or(-1);
                        let name = names.get(attr_index).map(String::as_str).unwrap_or("?");
                        println!(
                            "SAMPLE {} {} {} {} {} {}",
                            name,
                            comms.get(&tid).map(String::as_str).unwrap_or("?"),
                            s.pid.unwrap_or(-1),
                            tid,
                            s.timestamp.map(|t| t.to_string()).unwrap_or_else(|| "-".into()),
                            s.cpu.map(|c| c.to_string()).unwrap_or_else(|| "-".into()),
                        );
                    }
                    _ => {}
                }
            }
            PerfFileRecord::UserRecord(u) => {
                if let Err(e) = u.parse() {
                    result = Err(format!("record {records} ({:?}): {e}", u.record_type));
                    break;
                }
            }
        }
    }
    println!("SAMPLES {samples}");
    println!("RECORDS {records}");
    result
}
