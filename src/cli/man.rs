//! `tracelint man`: the pages clap_mangen renders from the command line's definition, with the
//! sections a man page is read for and clap does not know: EXIT STATUS, FILES, ENVIRONMENT,
//! EXAMPLES, and for `watch` the spool, its delivery protocol and its signals.

use std::io::Write;
use std::path::Path;

/// The page of `cmd` (named `tracelint` or `tracelint-<command>`), with its extra sections.
pub fn render(cmd: clap::Command) -> std::io::Result<Vec<u8>> {
    let name = cmd.get_name().to_string();
    let mut out = Vec::new();
    clap_mangen::Man::new(cmd).render(&mut out)?;
    for (title, body) in sections(&name) {
        writeln!(out, ".SH \"{title}\"")?;
        for line in body {
            writeln!(out, "{}", roff_line(line))?;
        }
    }
    Ok(out)
}

/// `tracelint.1` and `tracelint-<command>.1` for every command (hidden ones aside) into `dir`.
pub fn generate_to(cmd: clap::Command, dir: &Path) -> std::io::Result<()> {
    let mut cmd = cmd.disable_help_subcommand(true);
    cmd.build();
    write_pages(cmd, dir)
}

fn write_pages(cmd: clap::Command, dir: &Path) -> std::io::Result<()> {
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()).cloned() {
        write_pages(sub, dir)?;
    }
    let file = dir.join(clap_mangen::Man::new(cmd.clone()).get_filename());
    std::fs::write(file, render(cmd)?)
}

/// A line of text as roff: a leading `.` or `'` is escaped, `-` and `\` are escaped; a line
/// starting with `.` in the tables below is a request and stays as it is.
fn roff_line(line: &str) -> String {
    if let Some(req) = line.strip_prefix('@') {
        return format!(".{req}");
    }
    let mut s = line.replace('\\', "\\e").replace('-', "\\-");
    if s.starts_with('.') || s.starts_with('\'') {
        s.insert_str(0, "\\&");
    }
    s
}

type Section = (&'static str, Vec<&'static str>);

/// The extra sections of the page of `name` (`tracelint` or a command's name). Lines starting
/// with `@` are roff requests (`@TP` is `.TP`).
fn sections(name: &str) -> Vec<Section> {
    let exit_check: Vec<&str> = vec![
        "@TP", "0", "Every input passed (no error finding; no warning either with --deny warnings).",
        "@TP", "1", "Some input has an error finding (or a warning, with --deny warnings).",
        "@TP", "2", "Usage or configuration error: unknown option or rule, a tracelint.toml that does not load.",
        "@TP", "3", "An input could not be read (I/O error, TL001); findings of the others are reported.",
        "@PP", "--exit-zero turns 1 into 0; 2 and 3 still report usage and I/O errors.",
    ];
    let files_config: Vec<&str> = vec![
        "@TP", "tracelint.toml, .tracelint.toml",
        "The configuration: the file --config or TRACELINT_CONFIG names, else the nearest tracelint.toml (then .tracelint.toml) from the current folder upwards, else from the first input's folder upwards; the walk stops after a folder holding .git. [check] exclude, [rules] levels, [limits].",
    ];
    let env_common: Vec<&str> = vec![
        "@TP", "TRACELINT_CONFIG", "The configuration file, as --config.",
        "@TP", "NO_COLOR", "Set: no colours (--color auto).",
        "@TP", "FORCE_COLOR, CLICOLOR_FORCE", "Set to anything but empty or 0: colours even when the output is not a terminal (--color auto).",
    ];
    match name {
        // The top page's SEE ALSO (the commands' pages) is clap_mangen's.
        "tracelint" => sections("check")
            .into_iter()
            .filter(|(t, _)| *t != "SEE ALSO")
            .collect(),
        "check" => vec![
            ("EXIT STATUS", exit_check),
            ("FILES", files_config),
            ("ENVIRONMENT", env_common),
            ("EXAMPLES", vec![
                "@TP", "tracelint check trace.dat uftrace.data/", "Check a trace.dat file and a uftrace data directory.",
                "@TP", "tracelint check traces/ -o concise", "One line per finding, for logs and grep.",
                "@TP", "tracelint check traces/ --select TD,UF -A TD031", "Only the trace.dat and uftrace rules, without TD031.",
                "@TP", "tracelint check traces/ -o sarif --output-file tracelint.sarif", "A SARIF report for code scanning; the summary on stdout.",
                "@TP", "tracelint check traces/ --statistics", "How many findings of each rule, instead of the findings.",
                "@TP", "cat trace.dat.xz | tracelint -", "One input from standard input.",
            ]),
            ("SEE ALSO", vec!["tracelint-watch(1), tracelint-explain(1), /usr/share/doc/tracelint/README.md"]),
        ],
        "watch" => vec![
            ("THE SPOOL", vec![
                "SPOOL holds tmp/ (producers write here), new/ (finished inputs: the only folder the daemon reads), work/ (inputs being judged), accepted/, rejected/ and quarantine/ (the verdicts, each input next to its report x.tracelint.json). All on one file system and one mount.",
                "@PP",
                "Deliver by writing under tmp/ and renaming into new/ (mv within the spool). A uftrace recording is delivered as a whole directory. Names starting with . are ignored. With --settle, files may also be written in place in new/.",
                "@PP",
                "Producers running as another user: put them in the spool's group (tmp/ and new/ are setgid and group-writable); files need only be readable by the group, directories must be group-writable (umask 002). What the daemon cannot read is quarantined as an I/O error.",
            ]),
            ("SIGNALS", vec![
                "@TP", "SIGTERM, SIGINT", "Stop claiming, let running checks finish (up to --shutdown-timeout), exit 0; a second one exits at once. Unfinished inputs stay in work/ and are taken over at the next start.",
                "@TP", "SIGHUP", "Reload tracelint.toml (the old one is kept when the new one does not load) and reopen --log.",
            ]),
            ("EXIT STATUS", vec![
                "@TP", "0", "A clean stop, or the end of --once (also when inputs were rejected or quarantined: the verdicts are in the folders and the log).",
                "@TP", "2", "The daemon cannot start: bad arguments or configuration, spool folders on different file systems or mounts, a log file that cannot be written, a metrics address that cannot be bound, a TRACELINT_LOG that is no filter.",
            ]),
            ("FILES", vec![
                "@TP", "/etc/tracelint/tracelint.toml", "The configuration of the packaged service.",
                "@TP", "/var/spool/tracelint", "The packaged spool.",
                "@TP", "/var/log/tracelint/events.jsonl", "The packaged event log (--log): one JSON line per verdict.",
                "@TP", "/var/lib/tracelint/metrics/tracelint.prom", "The packaged metrics file (--metrics-file), for node_exporter's textfile collector.",
            ]),
            ("ENVIRONMENT", vec![
                "@TP", "TRACELINT_LOG", "The log filter: trace, debug, info (default), warn, error, off, alone or as target=level.",
                "@TP", "JOURNAL_STREAM", "Set by systemd when stderr is the journal: log lines carry their priority (<3> error, <4> warning, <6> info) and no timestamp.",
                "@TP", "TRACELINT_CONFIG", "The configuration file, as --config.",
            ]),
            ("EXAMPLES", vec![
                "@TP", "tracelint watch /var/spool/tracelint", "Serve the spool until stopped.",
                "@TP", "tracelint watch /var/spool/tracelint --once", "Judge what is there, then exit (cron, a systemd timer).",
                "@TP", "tracelint watch /srv/spool --poll 5s", "A spool on NFS or CIFS.",
                "@TP", "mv /var/spool/tracelint/tmp/a.dat.part /var/spool/tracelint/new/a.dat", "Deliver a file written under tmp/.",
            ]),
            ("SEE ALSO", vec!["tracelint-check(1), systemd.service(5), /usr/share/doc/tracelint/watch.md"]),
        ],
        "map" => vec![
            ("EXIT STATUS", exit_check),
            ("FILES", files_config),
            ("EXAMPLES", vec![
                "@TP", "tracelint map trace.dat", "Where every section, option and page is, with findings on the nodes.",
                "@TP", "tracelint map trace.dat -o json", "The same as JSON.",
            ]),
        ],
        "rules" | "explain" => vec![
            ("EXIT STATUS", vec![
                "@TP", "0", "Printed.",
                "@TP", "2", "Unknown rule or option.",
            ]),
            ("EXAMPLES", vec![
                "@TP", "tracelint rules", "Every rule: code, name, level, format.",
                "@TP", "tracelint explain TD014", "What a rule checks, why it matters, what readers do.",
            ]),
        ],
        "demo" => vec![
            ("EXIT STATUS", vec![
                "@TP", "0", "Every good file passed, every defect was caught, every fuzzer-found input was checked.",
                "@TP", "1", "Otherwise.",
            ]),
            ("EXAMPLES", vec!["@TP", "tracelint demo corpus/", "The shipped corpus as a health report."]),
        ],
        "completions" | "man" => vec![
            ("EXIT STATUS", vec!["@TP", "0", "Written.", "@TP", "3", "The folder or output could not be written."]),
            ("EXAMPLES", vec![
                "@TP", "tracelint completions bash > /etc/bash_completion.d/tracelint", "Completions for bash.",
                "@TP", "tracelint man --dir /usr/share/man/man1", "A page for every command.",
            ]),
        ],
        _ => Vec::new(),
    }
}
