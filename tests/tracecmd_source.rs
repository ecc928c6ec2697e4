//! The CLI reads trace.dat ring data with positioned reads (flat memory); the in-memory path
//! slices it. Both must give the same findings and the same structure.

mod common;

use tracelint::check::{check_bytes, check_path, CheckOptions};
use tracelint::config::Config;
use tracelint::Sink;

#[test]
fn file_reads_and_slices_agree_on_every_corpus_file() {
    let dir = common::corpus("tracecmd");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_none_or(|x| x != "dat") {
            continue;
        }
        let opts = CheckOptions::default();
        let via_file = check_path(&p, &opts, &Config::default());
        let data = std::fs::read(&p).unwrap();
        let mut sink = Sink::with_limits(&opts.limits);
        let (_, map) = check_bytes(&data, &opts, &mut sink);
        let (mut findings, _) = sink.into_parts();
        // The report lists findings by offset; the sink in the order found.
        tracelint::check::sort_findings(&mut findings);
        let key = |f: &tracelint::Finding| (f.rule.code, f.offset, f.length, f.message.clone());
        assert_eq!(
            via_file.findings.iter().map(key).collect::<Vec<_>>(),
            findings.iter().map(key).collect::<Vec<_>>(),
            "{}",
            p.display()
        );
        // check_path attaches findings to its map; compare the structure only.
        let mut a = serde_json::to_value(via_file.map.unwrap()).unwrap();
        let mut b = serde_json::to_value(map).unwrap();
        clear(&mut a);
        clear(&mut b);
        assert_eq!(a, b, "{}", p.display());
        n += 1;
    }
    assert!(n >= 5, "expected the trace-cmd corpus, found {n} files");
}

/// Removes the finding indexes from a serialised map, leaving its structure.
fn clear(v: &mut serde_json::Value) {
    if let Some(o) = v.as_object_mut() {
        o.remove("findings");
        if let Some(c) = o.get_mut("children").and_then(|c| c.as_array_mut()) {
            c.iter_mut().for_each(clear);
        }
    }
}
