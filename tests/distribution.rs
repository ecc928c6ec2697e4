//! What the project ships for others to run it: the GitHub Action (against the action metadata
//! rules), the pre-commit hooks, the systemd unit, the Debian package metadata and profile.
//! `scripts/pre-commit-check.sh` and `scripts/deb.sh` (run by CI) run the hooks and install
//! the package.

use std::path::Path;

fn file(rel: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(rel))
        .unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn yaml(rel: &str) -> serde_json::Value {
    serde_yaml_ng::from_str(&file(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// GitHub's action metadata syntax for a composite action, as a JSON schema: `name` and
/// `description` required; every input and output described; outputs of a composite action
/// have a `value`; `runs.using` is `composite` with `steps`, where a `run` step names its
/// `shell` and every step either runs or uses; branding from the allowed colours.
fn action_schema() -> serde_json::Value {
    serde_json::json!({
        "type": "object",
        "required": ["name", "description", "runs"],
        "additionalProperties": false,
        "properties": {
            "name": {"type": "string", "minLength": 1},
            "description": {"type": "string", "minLength": 1},
            "author": {"type": "string"},
            "branding": {
                "type": "object",
                "additionalProperties": false,
                "properties": {
                    "icon": {"type": "string"},
                    "color": {"enum": ["white", "black", "yellow", "blue", "green", "orange", "red", "purple", "gray-dark"]}
                }
            },
            "inputs": {
                "type": "object",
                "propertyNames": {"pattern": "^[_a-zA-Z][a-zA-Z0-9_-]*$"},
                "additionalProperties": {
                    "type": "object",
                    "required": ["description"],
                    "additionalProperties": false,
                    "properties": {
                        "description": {"type": "string", "minLength": 1},
                        "required": {"type": "boolean"},
                        "default": {"type": "string"},
                        "deprecationMessage": {"type": "string"}
                    }
                }
            },
            "outputs": {
                "type": "object",
                "additionalProperties": {
                    "type": "object",
                    "required": ["description", "value"],
                    "additionalProperties": false,
                    "properties": {
                        "description": {"type": "string", "minLength": 1},
                        "value": {"type": "string", "minLength": 1}
                    }
                }
            },
            "runs": {
                "type": "object",
                "required": ["using", "steps"],
                "additionalProperties": false,
                "properties": {
                    "using": {"const": "composite"},
                    "steps": {
                        "type": "array",
                        "minItems": 1,
                        "items": {
                            "type": "object",
                            "oneOf": [
                                {"required": ["run", "shell"], "not": {"required": ["uses"]}},
                                {"required": ["uses"], "not": {"required": ["run"]}}
                            ],
                            "additionalProperties": false,
                            "properties": {
                                "id": {"type": "string", "pattern": "^[_a-zA-Z][a-zA-Z0-9_-]*$"},
                                "name": {"type": "string"},
                                "if": {"type": "string"},
                                "run": {"type": "string"},
                                "shell": {"enum": ["bash", "pwsh", "python", "sh", "cmd", "powershell"]},
                                "uses": {"type": "string", "pattern": "^[^/]+/[^@]+@.+$"},
                                "with": {"type": "object"},
                                "env": {"type": "object", "additionalProperties": {"type": "string"}},
                                "working-directory": {"type": "string"},
                                "continue-on-error": {"type": ["boolean", "string"]}
                            }
                        }
                    }
                }
            }
        }
    })
}

#[test]
fn the_github_action_follows_the_metadata_syntax() {
    let action = yaml("action.yml");
    let v = jsonschema::validator_for(&action_schema()).unwrap();
    let errors: Vec<String> = v
        .iter_errors(&action)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "action.yml: {errors:#?}");
    let steps = action["runs"]["steps"].as_array().unwrap();
    // Caches the build, installs, checks, uploads SARIF with the code scanning action (v4),
    // only when asked and without failing the job.
    assert!(steps[0]["uses"]
        .as_str()
        .unwrap()
        .starts_with("actions/cache@"));
    assert!(steps[1]["run"]
        .as_str()
        .unwrap()
        .contains("cargo install --locked"));
    assert_eq!(action["inputs"]["upload-sarif"]["default"], "false");
    let check = steps.iter().find(|s| s["id"] == "check").unwrap();
    let run = check["run"].as_str().unwrap();
    assert!(run.contains("--output sarif --output-file"), "{run}");
    let upload = steps
        .iter()
        .find(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("github/codeql-action/upload-sarif@"))
        })
        .expect("an upload-sarif step");
    assert!(upload["with"]["sarif_file"].is_string());
    assert!(upload["uses"]
        .as_str()
        .unwrap()
        .starts_with("github/codeql-action/upload-sarif@v4"));
    assert_eq!(upload["continue-on-error"], true);
    // Every expression names a defined input or step; no run script interpolates an
    // expression (inputs reach scripts through env, never as shell text).
    let inputs = action["inputs"].as_object().unwrap();
    let ids: Vec<&str> = steps.iter().filter_map(|s| s["id"].as_str()).collect();
    let text = file("action.yml");
    let expr = regex::Regex::new(r"\$\{\{\s*([^}]*?)\s*\}\}").unwrap();
    let names = regex::Regex::new(r"(inputs|steps)\.([A-Za-z0-9_-]+)").unwrap();
    for c in expr.captures_iter(&text) {
        for n in names.captures_iter(&c[1]) {
            match &n[1] {
                "inputs" => assert!(inputs.contains_key(&n[2]), "unknown input {}", &n[2]),
                _ => assert!(ids.contains(&&n[2]), "unknown step {}", &n[2]),
            }
        }
    }
    for s in steps {
        if let Some(run) = s["run"].as_str() {
            assert!(!run.contains("${{"), "an expression in a run script: {run}");
        }
    }
}

#[test]
fn the_pre_commit_hooks_are_well_formed() {
    let hooks = yaml(".pre-commit-hooks.yaml");
    let hooks = hooks.as_array().unwrap();
    let ids: Vec<&str> = hooks.iter().map(|h| h["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["tracelint", "tracelint-system"]);
    for h in hooks {
        for key in ["id", "name", "entry", "language"] {
            assert!(h[key].is_string(), "{key} missing in {h}");
        }
        assert!(["rust", "system"].contains(&h["language"].as_str().unwrap()));
        assert!(h["entry"].as_str().unwrap().starts_with("tracelint check"));
        // pre-commit matches `files` with Python's re.search on repository-relative paths.
        let files = regex::Regex::new(h["files"].as_str().unwrap()).unwrap();
        for p in [
            "trace.dat",
            "x/y.tf",
            "a.ktrace",
            "u/uftrace.data/info",
            "t.dat.zst",
            "ship.tar.gz",
        ] {
            assert!(files.is_match(p), "{p}");
        }
        for p in ["README.md", "src/main.rs", "Cargo.toml", "information.txt"] {
            assert!(!files.is_match(p), "{p}");
        }
    }
    // The hooks really run: scripts/pre-commit-check.sh, which CI runs.
    assert!(file(".ci/run").contains("scripts/pre-commit-check.sh"));
}

#[test]
fn the_systemd_unit_makes_its_folders_and_bounds_memory_for_its_jobs() {
    let unit = file("contrib/systemd/tracelint-watch.service");
    // The metrics file's folder is made by systemd, writable by the service's user under
    // ProtectSystem=strict: the unit runs as shipped on a host with node-exporter or without.
    let key = |k: &str| {
        unit.lines()
            .find_map(|l| l.strip_prefix(k).map(str::to_string))
            .unwrap_or_default()
    };
    let metrics = unit
        .split("--metrics-file ")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .expect("the unit writes a metrics file");
    let folder = Path::new(metrics).parent().unwrap();
    let state: Vec<String> = key("StateDirectory=")
        .split_whitespace()
        .map(|d| format!("/var/lib/{d}"))
        .collect();
    assert!(
        state.iter().any(|d| Path::new(d) == folder),
        "{metrics}: its folder is not a StateDirectory= ({state:?})"
    );
    let logs = key("LogsDirectory=");
    assert!(unit.contains("--log /var/log/tracelint/") && logs == "tracelint");
    let jobs: u64 = unit
        .split("--jobs ")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .and_then(|s| s.parse().ok())
        .expect("the unit sets --jobs");
    let mem = unit
        .lines()
        .find_map(|l| l.strip_prefix("MemoryMax="))
        .unwrap();
    let mem: u64 = mem.strip_suffix('G').unwrap().parse::<u64>().unwrap() << 30;
    let conf = tracelint::config::Config::parse(
        &file("contrib/tracelint.toml"),
        Path::new("contrib/tracelint.toml"),
    )
    .unwrap();
    let per_job = conf.limits.max_read_bytes + conf.limits.unpack_memory_bytes;
    assert!(
        jobs * per_job + (1 << 30) <= mem,
        "MemoryMax={mem} < {jobs} jobs x {per_job} + 1 GiB"
    );
}

#[test]
fn the_debian_package_ships_a_stripped_binary_and_every_asset() {
    let cargo: toml::Table = toml::from_str(&file("Cargo.toml")).unwrap();
    let dist = &cargo["profile"]["dist"];
    assert_eq!(dist["inherits"].as_str(), Some("release"));
    assert_eq!(dist["strip"].as_bool(), Some(true));
    let deb = &cargo["package"]["metadata"]["deb"];
    let assets = deb["assets"].as_array().unwrap();
    let dests: Vec<&str> = assets
        .iter()
        .map(|a| a.as_array().unwrap()[1].as_str().unwrap())
        .collect();
    for want in [
        "usr/bin/",
        "etc/tracelint/tracelint.toml",
        "usr/share/man/man1/",
        "usr/share/bash-completion/completions/tracelint",
        "usr/share/zsh/vendor-completions/_tracelint",
        "usr/share/fish/vendor_completions.d/tracelint.fish",
    ] {
        assert!(dests.contains(&want), "{want} not in {dests:?}");
    }
    // Sources that are not generated exist.
    for a in assets {
        let src = a.as_array().unwrap()[0].as_str().unwrap();
        if !src.starts_with("target/") {
            assert!(
                Path::new(env!("CARGO_MANIFEST_DIR")).join(src).is_file(),
                "{src}"
            );
        }
    }
    assert_eq!(
        deb["systemd-units"]["unit-name"].as_str(),
        Some("tracelint-watch")
    );
    assert!(file(".ci/run").contains("scripts/deb.sh"));
}

/// The README's snippets name what exists: every rule code in it is a rule (and the name after
/// it, where one follows, is that rule's), every flag on a `tracelint` command line in its code
/// blocks is one the command takes (its `--help` lists it), and the version the Action and
/// pre-commit snippets pin is the package's (`v` + the version in Cargo.toml, the tag a release
/// gets).
#[test]
fn readme_snippets_name_real_rules_flags_and_version() {
    let readme = file("README.md");
    let code =
        regex::Regex::new(r"\b([A-Z]{2}[0-9]{3})\b(?: ([a-z0-9]+(?:-[a-z0-9]+)+))?").unwrap();
    let mut codes = 0;
    for c in code.captures_iter(&readme) {
        let rule = tracelint::registry::lookup(&c[1])
            .unwrap_or_else(|| panic!("README names {}, which is no rule", &c[1]));
        if let Some(name) = c.get(2) {
            assert_eq!(name.as_str(), rule.name, "README: {}", &c[0]);
        }
        codes += 1;
    }
    assert!(codes > 10, "{codes}");

    // Command lines in code blocks.
    let mut in_block = false;
    let mut lines = Vec::new();
    for l in readme.lines() {
        if l.trim_start().starts_with("```") {
            in_block = !in_block;
        } else if in_block {
            lines.push(l);
        }
    }
    let subcommands = ["check", "map", "rules", "explain", "watch", "demo", "man"];
    let mut checked = 0;
    let mut helps = std::collections::HashMap::new();
    for l in lines {
        let l = l.split(" # ").next().unwrap();
        let Some(at) = l.find("tracelint ") else {
            continue;
        };
        let before = &l[..at];
        // The program, not a path or URL that holds the word.
        if !(before.is_empty()
            || before.ends_with("| ")
            || before.trim_end().ends_with("run:")
            || before.trim() == "-"
            || before.trim().is_empty())
        {
            continue;
        }
        let words: Vec<&str> = l[at..].split_whitespace().skip(1).collect();
        let sub = match words.first() {
            Some(w) if subcommands.contains(w) => *w,
            _ => "check",
        };
        let help = helps.entry(sub).or_insert_with(|| {
            let o = std::process::Command::new(env!("CARGO_BIN_EXE_tracelint"))
                .args([sub, "--help"])
                .output()
                .unwrap();
            assert!(o.status.success(), "tracelint {sub} --help");
            String::from_utf8(o.stdout).unwrap()
        });
        for w in words.iter().take_while(|w| **w != "|") {
            let flag = w.split('=').next().unwrap();
            if !flag.starts_with('-') || flag == "-" {
                continue;
            }
            let listed =
                regex::Regex::new(&format!(r"(^|[\s,\[]){}([\s,=<\]]|$)", regex::escape(flag)))
                    .unwrap()
                    .is_match(help);
            assert!(
                listed,
                "README: `{}`: tracelint {sub} takes no {flag}",
                l.trim()
            );
            checked += 1;
        }
    }
    assert!(checked > 10, "{checked} flags");

    // The pinned version, in the README and in the hooks file's example.
    let tag = format!("v{}", env!("CARGO_PKG_VERSION"));
    let pins = regex::Regex::new(r"(?:tracelint/tracelint@|rev: )(v[0-9][^\s`]*)").unwrap();
    for (name, text) in [
        ("README.md", readme.clone()),
        (".pre-commit-hooks.yaml", file(".pre-commit-hooks.yaml")),
    ] {
        let found: Vec<String> = pins
            .captures_iter(&text)
            .map(|c| c[1].to_string())
            .collect();
        assert!(!found.is_empty(), "{name} pins no version");
        for v in found {
            assert_eq!(v, tag, "{name} pins {v}; the package is {tag}");
        }
    }
}

/// The Action's check step splits `paths` and `args` as a shell splits words: quotes group
/// (a path with a space, an argument with one), nothing is expanded or run. The step's own
/// script runs under bash with a `tracelint` that records its arguments.
#[test]
fn the_github_action_splits_quoted_arguments_as_a_shell_does() {
    let action = yaml("action.yml");
    let steps = action["runs"]["steps"].as_array().unwrap();
    let check = steps.iter().find(|s| s["id"] == "check").unwrap();
    let script = check["run"].as_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let fake = bin.join("tracelint");
    std::fs::write(
        &fake,
        "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\0' \"$a\"; done >> \"$ARGS_LOG\"\nprintf '\\n' >> \"$ARGS_LOG\"\nexit 1\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let log = dir.path().join("args");
    let out = dir.path().join("github-output");
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let o = std::process::Command::new("bash")
        .args(["-e", "-c", script])
        .current_dir(dir.path())
        .env("PATH", path)
        .env("ARGS_LOG", &log)
        .env("GITHUB_OUTPUT", &out)
        .env(
            "TRACELINT_PATHS",
            "traces/\n\"my traces/a b.dat\" 'it''s.tf' $HOME",
        )
        .env(
            "TRACELINT_ARGS",
            "--select TD,UF --config \"conf dir/tracelint.toml\" --deny warnings",
        )
        .env("SARIF_FILE", "out.sarif")
        .env("ANNOTATIONS", "true")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let calls = std::fs::read_to_string(&log).unwrap();
    let calls: Vec<Vec<&str>> = calls
        .lines()
        .map(|l| l.split('\0').filter(|w| !w.is_empty()).collect())
        .collect();
    let tail = [
        "--select",
        "TD,UF",
        "--config",
        "conf dir/tracelint.toml",
        "--deny",
        "warnings",
        "--",
        "traces/",
        "my traces/a b.dat",
        "its.tf",
        "$HOME",
    ];
    assert_eq!(calls.len(), 2, "{calls:?}");
    assert_eq!(
        calls[0][..5],
        ["check", "--output", "sarif", "--output-file", "out.sarif"]
    );
    assert_eq!(calls[0][5..], tail);
    assert_eq!(
        calls[1][..4],
        ["check", "--output", "github", "--exit-zero"]
    );
    assert_eq!(calls[1][4..], tail);
    // The exit code reaches the step's output, for the verdict step.
    assert!(std::fs::read_to_string(&out)
        .unwrap()
        .contains("exit-code=1"));
}
