//! One table over every rule of every family:
//!
//! * each rule constant is named after the rule's kebab name (`dat-bad-magic` is
//!   `DAT_BAD_MAGIC`), read from the `declare_rules!` blocks of `src/rules.rs` and
//!   `src/formats/*/rules.rs`;
//! * each rule is raised by a fixture: the checker runs over every file and uftrace directory of
//!   `corpus/`, the fuzz seeds of `fuzz/seeds/` (uftrace's as directory images) and the
//!   generated GDB tfile cases of `tests/common/gdb_cases.rs`, and the codes it actually raises
//!   are collected. A rule no fixture here raises is listed in [`NOT_RAISED_HERE`] with the
//!   reason; the test fails for a rule neither raised nor listed, and for a listed rule that is
//!   raised (so the list only shrinks).

mod common;
#[path = "common/gdb_cases.rs"]
mod gdb_cases;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use tracelint::config::Config;
use tracelint::{check_bytes, check_dir, check_path, fuzzing, registry, CheckOptions, Sink};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `dat-bad-magic` -> `DAT_BAD_MAGIC`.
fn constant_of(kebab: &str) -> String {
    kebab.to_ascii_uppercase().replace('-', "_")
}

/// (file, constant, code, kebab name) of every `pub NAME = ("CODE", "kebab", ...)` declaration.
fn declarations() -> Vec<(String, String, String, String)> {
    let mut files = vec![root().join("src/rules.rs")];
    for e in std::fs::read_dir(root().join("src/formats")).unwrap() {
        let p = e.unwrap().path().join("rules.rs");
        if p.is_file() {
            files.push(p);
        }
    }
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let rel = f.strip_prefix(root()).unwrap().display().to_string();
        for line in text.lines() {
            let Some(rest) = line.trim().strip_prefix("pub ") else {
                continue;
            };
            let Some((ident, tuple)) = rest.split_once(" = (\"") else {
                continue;
            };
            let mut parts = tuple.split('"');
            let code = parts.next().unwrap_or_default();
            let name = parts.nth(1).unwrap_or_default();
            out.push((rel.clone(), ident.to_string(), code.into(), name.into()));
        }
    }
    out
}

/// Constants not (yet) named after their rule, with the reason.
const NAMED_OTHERWISE: &[(&str, &str)] = &[];

#[test]
fn every_rule_constant_is_named_after_its_rule() {
    let decls = declarations();
    let declared: BTreeSet<&str> = decls.iter().map(|d| d.2.as_str()).collect();
    let registered: BTreeSet<&str> = registry::all().map(|r| r.code).collect();
    assert_eq!(
        declared, registered,
        "the declare_rules! blocks read here are not the registry's rules"
    );
    let wrong: Vec<String> = decls
        .iter()
        .filter(|(_, ident, code, name)| {
            *ident != constant_of(name) && !NAMED_OTHERWISE.iter().any(|(c, _)| c == code)
        })
        .map(|(file, ident, code, name)| {
            format!("{file}: {code} {ident} should be {}", constant_of(name))
        })
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    for (code, _) in NAMED_OTHERWISE {
        let d = decls.iter().find(|d| d.2 == *code);
        assert!(
            d.is_some_and(|(_, ident, _, name)| *ident != constant_of(name)),
            "{code} is named after its rule now: take it off NAMED_OTHERWISE"
        );
    }
}

/// Rules no fixture of this test raises, with the reason. The mutants most of them are checked
/// on are built inside one test function of the named file; moving a generator into
/// `tests/common/` (as `gdb_cases.rs` was) and running it here takes its rules off this list.
const NOT_RAISED_HERE: &[(&str, &str)] = &[
    ("GT062", "fast-tracepoint-too-short: needs the program (`--program`); tests/gdb.rs a_normal_tracepoint_made_fast_at_a_short_instruction_is_an_error_with_the_program builds it and checks corpus mutants with it"),
    ("GT063", "tracepoint-outside-program: needs the program; tests/gdb.rs a_static_flag_and_an_address_outside_the_program_are_notes, every_corpus_file_with_its_program_has_no_errors (twoloc.tf)"),
    ("GT064", "tracepoint-function-unknown: needs the program; tests/gdb.rs an_at_location_the_program_lacks_is_an_error_with_the_program, tests/cli.rs a_program_is_taken_from_the_command_line_or_the_configuration"),
    ("TD100", "ring-page-truncated: a mutant built in tests/ftrace_ring.rs (td100_partial_page); a CPU size short of its page in a file is TD035 now"),
    ("KT002", "v0-by-hint: a mutant built in tests/ktrace.rs (v0_only_by_hint)"),
    ("KT012", "missing-chunk-padding: a mutant built in tests/ktrace_rules.rs (kt012_missing_chunk_padding)"),
    ("KT015", "cpumap-ext: a mutant built in tests/ktrace_rules.rs (kt015_cpumap_ext)"),
    ("KT023", "compressed-events: a mutant built in tests/ktrace_rules.rs (kt023_compressed_events)"),
    ("KT025", "config-chunk: a mutant built in tests/ktrace_rules.rs (kt025_config_chunk)"),
    ("KT028", "v2-tick-frequency: a mutant built in tests/ktrace_rules.rs (kt028_v2_tick_frequency)"),
    ("TD001", "dat-bad-magic: a mutant built in tests/cli_inputs.rs (trace_cmd_is_the_format_name_everywhere)"),
    ("TD002", "dat-unsupported-version: a mutant built in tests/campaign.rs (a_version_string_strtol_reads_as_six_is_a_warning)"),
    ("TD003", "bad-endian: a mutant built in tests/tracecmd.rs (td003_bad_endian)"),
    ("TD004", "bad-long-size: a mutant built in tests/campaign.rs (a_long_size_above_eight_is_an_error)"),
    ("TD006", "bad-compression: a mutant built in tests/tracecmd.rs (td006_bad_compression)"),
    ("TD011", "unknown-section: a mutant built in tests/tracecmd.rs (td011_unknown_section_and_td014_unreferenced)"),
    ("TD012", "section-flags: a mutant built in tests/tracecmd.rs (td012_section_flags)"),
    ("TD015", "section-mismatch: a mutant built in tests/tracecmd.rs (td015_section_mismatch)"),
    ("TD018", "decompressed-size: a mutant built in tests/campaign.rs (a_section_usize_is_an_error_only_when_the_block_does_not_fit)"),
    ("TD020", "section-overlap: no check raises it yet (tests/rule_docs.rs, RESERVED, says why)"),
    ("TD021", "option-layout: a mutant built in tests/tracecmd.rs (td021_option_layout_huge_size)"),
    ("TD022", "options-chain: a mutant built in tests/tracecmd.rs (td022_options_chain_loop_is_reported_not_a_crash)"),
    ("TD023", "option-size: a mutant built in tests/tracecmd.rs (td023_option_size)"),
    ("TD024", "option-string: a mutant built in tests/tracecmd.rs (td024_option_string_cpustat_size_zero_is_reported_not_a_crash)"),
    ("TD025", "unknown-option: a mutant built in tests/tracecmd.rs (td025_unknown_option)"),
    ("TD026", "option-payload: a mutant built in tests/tracecmd.rs (td026_option_payload)"),
    ("TD027", "duplicate-option: a mutant built in tests/tracecmd.rs (td027_duplicate_option)"),
    ("TD028", "cpu-count: a mutant built in tests/campaign.rs (a_v7_cpucount_below_the_buffer_table_is_a_warning)"),
    ("TD030", "missing-metadata: a mutant built in tests/campaign.rs (a_counter_clock_without_traceclock_is_an_error)"),
    ("TD031", "buffer-option: a mutant built in tests/campaign.rs (an_empty_instance_page_size_is_a_warning)"),
    ("TD037", "chunk-stream: a mutant built in tests/tracecmd.rs (td037_chunk_stream)"),
    ("TD052", "header-event: a mutant built in tests/tracecmd.rs (td052_header_event)"),
    ("TD054", "event-fields: a mutant built in tests/tracecmd.rs (td054_event_fields)"),
    ("TD055", "duplicate-event-id: a mutant built in tests/tracecmd.rs (td055_duplicate_event_id)"),
    ("TD057", "kallsyms-line: a mutant built in tests/tracecmd.rs (td057_td058_td059_text_lines)"),
    ("TD058", "printk-line: a mutant built in tests/tracecmd.rs (td057_td058_td059_text_lines)"),
    ("TD059", "cmdline-line: a mutant built in tests/tracecmd.rs (td057_td058_td059_text_lines)"),
    ("TD065", "latency-text: a mutant built in tests/tracecmd.rs (td065_latency_text)"),
    ("TD066", "bad-cpu-count: a mutant built in tests/tracecmd.rs (td066_bad_cpu_count)"),
    ("TD067", "traceclock-flag: a mutant built in tests/wild_tracecmd.rs (trace_cmd_2x_layout_is_info_only)"),
    ("TD068", "clock-record-list: a mutant built in tests/wild_tracecmd.rs (trace_cmd_2x_layout_is_info_only)"),
    ("TD070", "clock-name: a mutant built in tests/wild_tracecmd.rs (clock_name_cut_by_nul_is_an_error)"),
    ("TD072", "tag-tail: a mutant built in tests/tracecmd.rs (td041_bad_tag)"),
    ("TD103", "ring-missed-count-outside-page: a mutant built in tests/ftrace_ring.rs (td103_missed_count_outside_page)"),
    ("TD106", "ring-data-length-invalid: a mutant built in tests/ftrace_ring.rs (td106_data_length_invalid)"),
    ("TD108", "ring-padding-length-invalid: a mutant built in tests/ftrace_ring.rs (td108_padding_length_invalid)"),
    ("TD109", "ring-null-padding-in-data: a mutant built in tests/ftrace_ring.rs (td109_null_padding_in_data)"),
    ("TD110", "ring-payload-too-short: a mutant built in tests/ftrace_ring.rs (td110_payload_too_short)"),
    ("TD111", "ring-unknown-event-id: a mutant built in tests/ftrace_ring.rs (td111_unknown_event_id)"),
    ("TD114", "ring-timestamp-all-ones: a mutant built in tests/campaign.rs (a_record_at_the_all_ones_time_is_an_error)"),
    ("TL001", "io-error: needs an unreadable path; tests/cli.rs (unreadable_path_exits_3)"),
    ("TL003", "limit-exceeded: needs a resource limit set low; tests/archive.rs (hostile_archives_get_findings_and_never_harm)"),
    ("TL004", "internal-error: needs a panic inside the checker; tests/watch.rs (expected_verdict) has one"),
    ("TL005", "empty-input: a mutant built in tests/cli.rs (unknown_content_is_an_error_with_a_hex_window)"),
    ("TL006", "findings-truncated: needs more findings than max_findings; tests/cli.rs (allowed_findings_do_not_use_up_max_findings)"),
    ("TL007", "not-a-regular-file: a mutant built in tests/watch.rs (expected_verdict)"),
    ("TL008", "no-traces-found: a mutant built in tests/cli_config.rs (discovery_walks_up_to_the_repository_root_and_no_further)"),
    ("TL009", "archive-member-not-a-trace: a mutant built in tests/archive.rs (an_artifact_zip_checks_every_trace_and_lists_the_rest)"),
    ("TL010", "archive-member-path-unsafe: a mutant built in tests/archive.rs (hostile_archives_get_findings_and_never_harm)"),
    ("TL011", "archive-member-link: a mutant built in tests/archive.rs (hostile_archives_get_findings_and_never_harm)"),
    ("TL012", "archive-member-duplicate: a mutant built in tests/archive.rs (hostile_archives_get_findings_and_never_harm)"),
    ("TL013", "archive-corrupt: a mutant built in tests/archive.rs (hostile_archives_get_findings_and_never_harm)"),
    ("TL014", "not-followed: a mutant built in tests/cli_inputs.rs (directory_scans_never_hide_a_broken_trace)"),
    ("TL015", "archive-members-overlap: a hostile zip built in tests/cli_hostile.rs"),
    ("UF002", "unreadable-file: a mutant built in tests/uftrace.rs (uf002_unreadable_file)"),
    ("UF004", "no-task-data: a mutant built in tests/uftrace.rs (uf004_no_task_data)"),
    ("UF020", "taskinfo-count: a mutant built in tests/uftrace.rs (uf020_more_tids_than_nr_tid_crash_ti)"),
    ("UF021", "taskinfo-tasks-differ: a mutant built in tests/uftrace.rs (uf021_taskinfo_differs_from_task_txt)"),
    ("UF023", "info-line-too-long: a mutant built in tests/uftrace.rs (uf023_long_cmdline)"),
    ("UF026", "task-legacy-field: a mutant built in tests/uftrace.rs (uf026_sess_with_tid_of_uftrace_0_6)"),
    ("UF027", "task-newer-line: a mutant built in tests/uftrace.rs (uf027_newer_task_line)"),
    ("UF030", "task-line-malformed: a mutant built in tests/campaign.rs (a_third_party_writers_recording_is_read_the_same)"),
    ("UF031", "task-unknown-line: a mutant built in tests/uftrace.rs (uf031_unknown_task_line)"),
    ("UF032", "no-session: a mutant built in tests/uftrace.rs (uf032_no_session)"),
    ("UF033", "session-map-missing: a mutant built in tests/uftrace.rs (uf033_session_map_missing)"),
    ("UF034", "dlop-unknown-session: a mutant built in tests/uftrace.rs (uf034_dlop_unknown_session_crash_ds)"),
    ("UF035", "bad-sid: a mutant built in tests/campaign.rs (a_third_party_writers_recording_is_read_the_same)"),
    ("UF036", "task-time-order: a mutant built in tests/uftrace.rs (uf030_task_timestamp_without_9_digits)"),
    ("UF039", "task-relation: a mutant built in tests/uftrace.rs (uf039_fork_of_unknown_parent)"),
    ("UF043", "map-missing-exe: a mutant built in tests/uftrace.rs (uf043_exe_not_in_map)"),
    ("UF054", "sym-module-mismatch: a mutant built in tests/campaign.rs (a_sym_header_of_another_build_is_an_error_only_where_the_trace_goes)"),
    ("UF055", "dbg-line-malformed: a mutant built in tests/uftrace.rs (uf055_dbg_bad_code)"),
    ("UF056", "dbg-unknown-function: a mutant built in tests/uftrace.rs (uf056_dbg_unknown_function)"),
    ("UF058", "sym-empty-name: a mutant built in tests/uftrace.rs (uf058_sym_empty_name_of_uftrace_before_0_9)"),
    ("UF060", "dat-truncated: a mutant built in tests/uftrace.rs (uf060_truncated_record_tr)"),
    ("UF062", "lost-records: a mutant built in tests/campaign.rs (a_lost_record_libmcount_never_writes_is_an_error)"),
    ("UF066", "depth-exceeds-max-stack: a mutant built in tests/uftrace.rs (uf066_depth_reaches_max_stack_ms)"),
    ("UF068", "payload-without-spec: a mutant built in tests/campaign.rs (a_repeated_dbg_spec_is_dropped_as_uftrace_drops_it)"),
    ("UF069", "payload-size: a mutant built in tests/uftrace.rs (uf069_string_longer_than_arg_buffer)"),
    ("UF070", "unexpected-payload-flag: a mutant built in tests/uftrace.rs (uf070_more_on_lost)"),
    ("UF071", "event-payload: a mutant built in tests/uftrace.rs (uf071_event_length_el)"),
    ("UF082", "perf-time-order: a mutant built in tests/uftrace.rs (uf082_perf_time_goes_back)"),
    ("UF090", "kernel-header: a mutant built in tests/uftrace.rs (uf090_kernel_header_block_too_large_kh)"),
    ("UF091", "kernel-data: a mutant built in tests/uftrace.rs (uf091_kernel_cpu_partial_page)"),
    ("UF083", "perf-record-type: a mutant built in tests/campaign.rs (a_perf_record_of_another_type_is_an_error)"),
    ("UF086", "perf-task-exit: a mutant built in tests/campaign.rs (a_perf_file_cut_at_a_record_boundary_is_an_error)"),
    ("UF096", "default-opts: a mutant built in tests/uftrace.rs (uf096_default_opts_foreign_option)"),
    ("PF001", "perf-truncated-header: a mutant built in tests/perf.rs (header_damage)"),
    ("PF002", "legacy-magic: a mutant built in tests/perf.rs (header_damage)"),
    ("PF003", "perf-bad-magic: a mutant built in tests/perf.rs (header_damage)"),
    ("PF004", "perf-header-size: a mutant built in tests/perf.rs (header_damage)"),
    ("PF008", "attr-version: a mutant built in tests/perf.rs (each_defect_gets_its_verdict)"),
    ("PF009", "attr-reserved-bits: a mutant built in tests/perf.rs (attr_and_id_damage)"),
    ("PF010", "sample-type: a mutant built in tests/perf.rs (attr_and_id_damage)"),
    ("PF011", "ids: a mutant built in tests/perf.rs (attr_and_id_damage)"),
    ("PF013", "data-end: a mutant built in tests/perf.rs (record_damage)"),
    ("PF017", "unknown-id: a mutant built in tests/perf.rs (unknown_ids_and_lost_events)"),
    ("PF018", "lost-events: a mutant built in tests/perf.rs (unknown_ids_and_lost_events)"),
    ("PF022", "unknown-feature: a mutant built in tests/perf.rs (feature_damage)"),
    ("PF024", "compressed-data: a mutant built in tests/perf.rs (zstd_damage)"),
    ("PF025", "pipe-records: a mutant built in tests/perf.rs (pipe_mode)"),
    ("PF026", "truncated-stream: a mutant built in tests/perf.rs (pipe_mode)"),
    ("PF030", "id-index: a mutant built in tests/perf.rs (attr_and_id_damage)"),
    ("PF031", "tracepoint-id: a mutant built in tests/perf.rs (tracepoint_ids_against_tracing_data)"),
    ("PF029", "dir-files: a mutant built in tests/perf.rs (a_cut_stream_of_a_threads_directory_is_an_error_in_that_file)"),
    ("PF032", "round-order: a mutant built in tests/perf.rs (a_sample_older_than_an_earlier_round_is_a_warning)"),
];

/// The codes the checker raises on the fixtures (including findings dropped by the cap).
fn raised() -> BTreeSet<&'static str> {
    let mut codes = BTreeSet::new();
    let opts = CheckOptions::default();
    let config = Config::default();
    let mut files = Vec::new();
    common::inputs(&root().join("corpus"), &mut files);
    for target in [
        "archive",
        "detect_and_check",
        "gdb_tfile",
        "ktrace",
        "tracecmd",
    ] {
        common::inputs(&root().join("fuzz/seeds").join(target), &mut files);
    }
    for p in &files {
        let r = check_path(p, &opts, &config);
        codes.extend(r.findings.iter().map(|f| f.rule.code));
        codes.extend(r.dropped_by_code.iter().map(|(c, _)| *c));
    }
    // uftrace seeds are directory images (the fuzz target's input).
    let mut images = Vec::new();
    common::inputs(&root().join("fuzz/seeds/uftrace"), &mut images);
    for p in images {
        let dir = fuzzing::decode_dir_image(&std::fs::read(&p).unwrap());
        let mut sink = Sink::new(10_000);
        check_dir(&dir, &opts, &mut sink);
        codes.extend(sink.findings().iter().map(|f| f.rule.code));
    }
    let gdb = CheckOptions {
        format_hint: Some(tracelint::formats::gdb::FORMAT),
        ..CheckOptions::default()
    };
    for (_, bytes, _) in gdb_cases::fixtures() {
        let mut sink = Sink::new(10_000);
        check_bytes(&bytes, &gdb, &mut sink);
        codes.extend(sink.findings().iter().map(|f| f.rule.code));
    }
    codes
}

#[test]
fn every_rule_is_raised_by_a_fixture_or_listed() {
    let raised = raised();
    let listed: BTreeMap<&str, &str> = NOT_RAISED_HERE.iter().copied().collect();
    assert_eq!(
        listed.len(),
        NOT_RAISED_HERE.len(),
        "a code is listed twice"
    );
    let mut problems = Vec::new();
    for r in registry::all() {
        match (raised.contains(r.code), listed.contains_key(r.code)) {
            (true, true) => problems.push(format!(
                "{} {} is raised by a fixture now: take it off NOT_RAISED_HERE",
                r.code, r.name
            )),
            (false, false) => problems.push(format!(
                "{} {} is raised by no fixture (corpus/, fuzz/seeds/, tests/common/gdb_cases.rs)",
                r.code, r.name
            )),
            _ => {}
        }
    }
    for (code, why) in &listed {
        if registry::all().all(|r| r.code != *code) {
            problems.push(format!("{code} on NOT_RAISED_HERE is no rule"));
        }
        if let Some(p) = mutant_test_missing(code, why) {
            problems.push(p);
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// For a reason "a mutant built in tests/FILE.rs (TEST)": a problem when FILE has no test
/// function TEST that names the rule (by code or by its constant).
fn mutant_test_missing(code: &str, why: &str) -> Option<String> {
    let rest = why.split_once("a mutant built in ")?.1;
    let (file, test) = rest.split_once(" (")?;
    let test = test.split(')').next().unwrap_or_default();
    let text = std::fs::read_to_string(root().join(file))
        .unwrap_or_else(|e| panic!("{code}: {file}: {e}"));
    let Some(at) = text.find(&format!("fn {test}(")) else {
        return Some(format!("{code}: {file} has no test `{test}`"));
    };
    let rule = registry::lookup(code)?;
    let constant = constant_of(rule.name);
    // The test's body: up to the next `#[test]`.
    let body = &text[at..];
    let body = &body[..body.find("#[test]").unwrap_or(body.len())];
    (!body.contains(code) && !body.contains(&constant) && !body.contains(rule.name))
        .then(|| format!("{code}: the test `{test}` of {file} names neither {code} nor {constant}"))
}
