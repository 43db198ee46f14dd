//! The user's settings: the configuration file and the budgets of the command line.
//!
//! Input: a TOML file (`--config FILE`, else the nearest `.drip.toml` from the directory holding
//! the compile database upward to the repository's root — or from the current directory when
//! files are given on the command line; no file is fine), `--budget NAME=VALUE` options,
//! which win over the file, and `--enable`/`--disable RULES`, which win over its `[rules]`. Output: `Settings`: the `Budgets`, which become the check's
//! `fastcheck::Config` and are shown by `--stats` and in the JSON report; the declared memory API
//! (`[allocators]`, `[deallocators]`, `[noreturn]`: `declare`); the `[[suppress]]` entries
//! (`report::suppress`); the rules switched off (`[rules]`: `rules`); `[check]`'s options of
//! `drip check` (`fail-on`), which the command line's own option overrides.
//! Invariants: every budget is listed once, in `BUDGETS`, with its name, default and meaning;
//! an unknown section, key or name, a malformed value or an unreadable file is a usage error
//! (exit 2) naming it, never silently ignored, because a typo would otherwise change nothing
//! without a word.

use crate::declare::Declarations;
use crate::fastcheck::Config;
use crate::report::suppress::FileRules;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The budgets of one run. Every budget that is hit is counted and reported: a site over
/// budget is in the `over-budget` category, never "no bug".
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Budgets {
    /// Wall-clock milliseconds one function's check may take (0: no limit).
    pub function_time_ms: u64,
    /// MiB one function's growing tables may take (0: no limit).
    pub function_memory_mb: u64,
    /// Guard formula nodes one allocation site may build.
    pub guard_nodes_per_site: u64,
    /// Guard formula nodes for one function's entry path conditions.
    pub guard_nodes_per_function: u64,
    /// MiniSat conflicts per query.
    pub sat_conflicts: u64,
    /// Checks per member of a recursive call cycle before its fixpoint gives up.
    pub scc_rounds: u64,
    /// Wall-clock milliseconds the fixpoint of one recursive call cycle may take (0: no limit).
    #[serde(default)]
    pub scc_time_ms: u64,
    /// Wall-clock milliseconds the whole run may take, from its start (0: no limit). Not part
    /// of the cache's keys: a run that hits it stores nothing it did not finish.
    #[serde(default)]
    pub run_time_ms: u64,
    /// Wall-clock milliseconds parsing and lowering one TU may take (0: no limit). Not part of
    /// the check's `Config`: the front end enforces it by killing the TU's parse worker.
    pub tu_time_ms: u64,
}

/// `tu-time-ms` by default: a minute, about twenty times what SQLite's 270,000-line amalgamation takes.
pub const DEFAULT_TU_TIME_MS: u64 = 60_000;

/// Name in files and on the command line, meaning, and the field it sets.
type Field = fn(&mut Budgets) -> &mut u64;
pub const BUDGETS: &[(&str, &str, Field)] = &[
    ("function-time-ms", "wall-clock time one function's check may take, in ms (0: no limit)", |b| {
        &mut b.function_time_ms
    }),
    ("function-memory-mb", "memory one function's check may keep in its growing tables, in MiB (0: no limit)", |b| {
        &mut b.function_memory_mb
    }),
    ("guard-nodes-per-site", "formula nodes one allocation site may build", |b| &mut b.guard_nodes_per_site),
    ("guard-nodes-per-function", "formula nodes for a function's entry path conditions", |b| {
        &mut b.guard_nodes_per_function
    }),
    ("sat-conflicts", "SAT solver conflicts per query", |b| &mut b.sat_conflicts),
    ("scc-rounds", "checks per member of a recursive call cycle", |b| &mut b.scc_rounds),
    ("scc-time-ms", "wall-clock time the fixpoint of one recursive call cycle may take, in ms (0: no limit)", |b| {
        &mut b.scc_time_ms
    }),
    ("run-time-ms", "wall-clock time of the whole run, in ms (0: no limit)", |b| &mut b.run_time_ms),
    ("tu-time-ms", "wall-clock time parsing and lowering one TU may take, in ms (0: no limit)", |b| &mut b.tu_time_ms),
];

impl Default for Budgets {
    fn default() -> Budgets {
        Budgets::of(&Config::standard())
    }
}

impl Budgets {
    fn of(c: &Config) -> Budgets {
        Budgets {
            function_time_ms: c.max_function_time.map_or(0, |d| d.as_millis() as u64),
            function_memory_mb: c.max_function_bytes.map_or(0, |b| b >> 20),
            guard_nodes_per_site: c.max_guard_nodes_per_site as u64,
            guard_nodes_per_function: c.max_guard_nodes_entry as u64,
            sat_conflicts: u64::from(c.sat_conflicts),
            scc_rounds: c.max_scc_rounds as u64,
            scc_time_ms: c.max_scc_time.map_or(0, |d| d.as_millis() as u64),
            run_time_ms: 0,
            tu_time_ms: DEFAULT_TU_TIME_MS,
        }
    }

    /// The `tu-time-ms` budget as the front end takes it.
    pub fn tu_time(&self) -> Option<Duration> {
        (self.tu_time_ms > 0).then(|| Duration::from_millis(self.tu_time_ms))
    }

    /// The `run-time-ms` budget: how long the run may take from its start.
    pub fn run_time(&self) -> Option<Duration> {
        (self.run_time_ms > 0).then(|| Duration::from_millis(self.run_time_ms))
    }

    /// The check configuration these budgets give (without the run's deadline, which the run
    /// sets from its start: `Config::run_deadline`).
    pub fn config(&self) -> Config {
        Config {
            max_guard_nodes_per_site: self.guard_nodes_per_site as usize,
            max_guard_nodes_entry: self.guard_nodes_per_function as usize,
            sat_conflicts: u32::try_from(self.sat_conflicts).unwrap_or(u32::MAX),
            max_scc_rounds: self.scc_rounds as usize,
            max_function_time: (self.function_time_ms > 0).then(|| Duration::from_millis(self.function_time_ms)),
            max_function_bytes: (self.function_memory_mb > 0).then(|| self.function_memory_mb.saturating_mul(1 << 20)),
            max_scc_time: (self.scc_time_ms > 0).then(|| Duration::from_millis(self.scc_time_ms)),
            run_deadline: None,
            exceptions: false,
        }
    }

    /// Set one budget by name; `origin` names where the setting came from, for messages.
    fn set(&mut self, name: &str, value: u64, origin: &str) -> Result<(), String> {
        let Some((_, _, field)) = BUDGETS.iter().find(|b| b.0 == name) else {
            let known: Vec<&str> = BUDGETS.iter().map(|b| b.0).collect();
            return Err(format!("{origin}: unknown budget '{name}' (known: {})", known.join(", ")));
        };
        if value == 0
            && !matches!(name, "function-time-ms" | "function-memory-mb" | "tu-time-ms" | "scc-time-ms" | "run-time-ms")
        {
            return Err(format!("{origin}: budget '{name}' must be at least 1"));
        }
        *field(self) = value;
        Ok(())
    }
}

/// Everything `.drip.toml` says, with the command line's `--budget` options applied.
#[derive(Debug, Default)]
pub struct Settings {
    pub budgets: Budgets,
    /// `[allocators]`, `[deallocators]`, `[noreturn]`.
    pub declared: Declarations,
    /// `[[suppress]]` entries.
    pub suppress: FileRules,
    /// `[rules]`, with `--enable`/`--disable` applied.
    pub rules: crate::rules::Switches,
    /// `[check] fail-on` (`--fail-on` wins over it, in `cli`).
    pub fail_on: Option<crate::args::FailOn>,
    /// `[check] exceptions` (`--exceptions` turns it on too, in `cli`).
    pub exceptions: bool,
    /// The file they came from, if any.
    pub file: Option<PathBuf>,
    /// Where the search for `.drip.toml` started (none with `--config`).
    pub searched_from: Option<PathBuf>,
}

/// The file name drip looks for.
pub const FILE_NAME: &str = ".drip.toml";

/// The nearest `.drip.toml` in `start` or above it. The search stops at the filesystem root and
/// at a repository's root (a directory holding `.git`, a directory or, in worktrees and
/// submodules, a file): CMake puts the compile database in `build/`, while the configuration
/// belongs in the source tree, but a file above the project is someone else's.
pub fn find(start: &Path) -> Option<PathBuf> {
    let mut dir = Some(start);
    while let Some(d) = dir {
        let f = d.join(FILE_NAME);
        if f.is_file() {
            return Some(f);
        }
        if d.join(".git").exists() {
            return None;
        }
        dir = d.parent();
    }
    None
}

/// A command-line rule switch: `--enable LIST` (`true`) or `--disable LIST`.
pub type RuleSwitch = (bool, String);

/// The settings for this run: defaults, then the configuration file, then `--budget` options
/// and rule switches (in their order).
/// `config_file`: `--config`, which must exist; otherwise the nearest `.drip.toml` from
/// `search_from` (the directory holding the compile database) upward (`find`), when there is
/// one.
pub fn load(
    config_file: Option<&Path>,
    search_from: &Path,
    overrides: &[String],
    switches: &[RuleSwitch],
) -> Result<Settings, String> {
    let mut s = Settings::default();
    // An absolute start, so that the search can walk up from `.` or from a relative `-p build`.
    let start = std::path::absolute(search_from).unwrap_or_else(|_| search_from.to_path_buf());
    let file = match config_file {
        Some(f) => Some(f.to_path_buf()),
        None => {
            s.searched_from = Some(start.clone());
            find(&start)
        }
    };
    if let Some(f) = &file {
        let text = crate::files::read_to_string(f).map_err(|e| format!("cannot read {}: {e}", f.display()))?;
        apply_file(&mut s, &text, &f.display().to_string())?;
        // `[[suppress]]` file globs are relative to the directory holding the file.
        let dir = f.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        s.suppress.base = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
        s.suppress.origin = f.display().to_string();
    }
    for o in overrides {
        let (name, value) = o.split_once('=').ok_or_else(|| format!("--budget expects NAME=VALUE, got '{o}'"))?;
        let value: u64 =
            value.trim().parse().map_err(|_| format!("--budget {name}: '{value}' is not a whole number"))?;
        s.budgets.set(name.trim(), value, "--budget")?;
    }
    for (on, list) in switches {
        s.rules.switch(list, *on)?;
    }
    s.file = file;
    Ok(s)
}

const SECTIONS: &str = "budgets, allocators, deallocators, noreturn, rules, suppress, check";

/// The settings of a configuration file whose text is `text` alone (`origin` names it in
/// messages), over the defaults: for the fuzz target (`lib.rs`, `fuzz`).
pub fn parse(text: &str, origin: &str) -> Result<Settings, String> {
    let mut s = Settings::default();
    apply_file(&mut s, text, origin).map(|()| s)
}

fn apply_file(s: &mut Settings, text: &str, origin: &str) -> Result<(), String> {
    let table: toml::Table = text.parse().map_err(|e: toml::de::Error| format!("{origin}: {}", e.message()))?;
    for (section, value) in &table {
        match (section.as_str(), value) {
            ("suppress", toml::Value::Array(entries)) => s.suppress.add_entries(entries, origin)?,
            ("suppress", _) => {
                return Err(format!("{origin}: write suppressions as [[suppress]] entries (an array of tables)"))
            }
            ("budgets" | "allocators" | "deallocators" | "noreturn" | "rules" | "check", toml::Value::Table(t)) => {
                if section == "check" {
                    apply_check(s, t, origin)?;
                } else if section == "budgets" {
                    apply_budgets(&mut s.budgets, t, origin)?;
                } else if section == "rules" {
                    s.rules.add_table(t, origin)?;
                } else {
                    s.declared.add_table(section, t, origin)?;
                }
            }
            ("budgets" | "allocators" | "deallocators" | "noreturn" | "rules" | "check", _) => {
                return Err(format!("{origin}: '{section}' must be a table ([{section}])"))
            }
            _ => return Err(format!("{origin}: unknown section '{section}' (known: {SECTIONS})")),
        }
    }
    Ok(())
}

/// `[check]`: options of `drip check` a project sets for every run (the command line wins).
fn apply_check(s: &mut Settings, check: &toml::Table, origin: &str) -> Result<(), String> {
    use clap::ValueEnum;
    for (key, v) in check {
        match (key.as_str(), v) {
            ("fail-on", toml::Value::String(w)) => {
                let known = || crate::args::FailOn::value_variants().iter().filter_map(|f| f.to_possible_value());
                let Some(f) = crate::args::FailOn::from_str(w, false).ok() else {
                    let names: Vec<String> = known().map(|p| p.get_name().to_string()).collect();
                    return Err(format!(
                        "{origin}: [check] fail-on: unknown value '{w}' (known: {})",
                        names.join(", ")
                    ));
                };
                s.fail_on = Some(f);
            }
            ("fail-on", _) => {
                return Err(format!("{origin}: [check] fail-on must be a string, got a {}", v.type_str()));
            }
            ("exceptions", toml::Value::Boolean(b)) => s.exceptions = *b,
            ("exceptions", _) => {
                return Err(format!("{origin}: [check] exceptions must be true or false, got a {}", v.type_str()));
            }
            _ => return Err(format!("{origin}: unknown key '{key}' in [check] (known: fail-on, exceptions)")),
        }
    }
    Ok(())
}

fn apply_budgets(b: &mut Budgets, budgets: &toml::Table, origin: &str) -> Result<(), String> {
    for (name, v) in budgets {
        let value = match v {
            toml::Value::Integer(n) if *n >= 0 => *n as u64,
            toml::Value::Integer(n) => return Err(format!("{origin}: budget '{name}' must not be negative, got {n}")),
            _ => return Err(format!("{origin}: budget '{name}' must be a whole number, got a {}", v.type_str())),
        };
        b.set(name, value, origin)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Settings, String> {
        super::parse(text, "t.toml")
    }

    #[test]
    fn the_defaults_are_the_standard_configuration() {
        let c = Budgets::default().config();
        let s = Config::standard();
        assert_eq!(format!("{c:?}"), format!("{s:?}"));
    }

    #[test]
    fn a_file_sets_budgets_and_the_command_line_wins() {
        let b = parse("[budgets]\nfunction-time-ms = 5000\nscc-rounds = 9\n").expect("valid").budgets;
        assert_eq!((b.function_time_ms, b.scc_rounds), (5000, 9));
        let dir = tempfile::tempdir().expect("dir");
        let f = dir.path().join(".drip.toml");
        std::fs::write(&f, "[budgets]\nsat-conflicts = 7\nscc-rounds = 2\n").expect("write");
        let s = load(None, dir.path(), &["scc-rounds=3".to_string()], &[]).expect("loads");
        assert_eq!(s.file.as_deref(), Some(f.as_path()));
        assert_eq!((s.budgets.sat_conflicts, s.budgets.scc_rounds), (7, 3));
        assert_eq!(s.budgets.config().max_scc_rounds, 3);
        assert_eq!(Budgets { function_time_ms: 0, ..Budgets::default() }.config().max_function_time, None);
        assert_eq!(Budgets { function_memory_mb: 0, ..Budgets::default() }.config().max_function_bytes, None);
        let huge = Budgets { function_memory_mb: u64::MAX, ..Budgets::default() }.config();
        assert_eq!(huge.max_function_bytes, Some(u64::MAX), "saturates: the largest means no limit");
    }

    #[test]
    fn check_options_come_from_the_file() {
        use crate::args::FailOn;
        assert_eq!(parse("[check]\nfail-on = \"parse-error\"\n").expect("valid").fail_on, Some(FailOn::ParseError));
        assert_eq!(parse("[check]\nfail-on = \"never\"\n").expect("valid").fail_on, Some(FailOn::Never));
        assert_eq!(parse("").expect("valid").fail_on, None);
        assert!(parse("[check]\nexceptions = true\n").expect("valid").exceptions);
        assert!(!parse("").expect("valid").exceptions);
    }

    #[test]
    fn the_file_is_found_upward_up_to_the_repository_root() {
        let dir = tempfile::tempdir().expect("dir");
        let root = dir.path().join("project");
        let build = root.join("build/debug");
        std::fs::create_dir_all(&build).expect("dirs");
        // Above the repository: not the project's.
        std::fs::write(dir.path().join(FILE_NAME), "").expect("write");
        std::fs::create_dir(root.join(".git")).expect("git");
        assert_eq!(find(&build), None, "the search stops at the repository's root");
        std::fs::write(root.join(FILE_NAME), "").expect("write");
        assert_eq!(find(&build), Some(root.join(FILE_NAME)));
        std::fs::write(build.join(FILE_NAME), "").expect("write");
        assert_eq!(find(&build), Some(build.join(FILE_NAME)), "the nearest wins");
        // Without a repository, up to the root (here: the temporary directory's file).
        let loose = dir.path().join("loose/build");
        std::fs::create_dir_all(&loose).expect("dirs");
        assert_eq!(find(&loose), Some(dir.path().join(FILE_NAME)));
        std::fs::remove_file(root.join(FILE_NAME)).expect("remove");
        let none = load(None, &root.join("absent"), &[], &[]).expect("no file is fine");
        assert_eq!((none.budgets, none.file), (Budgets::default(), None));
    }

    #[test]
    fn mistakes_are_errors_not_ignored() {
        for (bad, says) in [
            ("[budgets]\nfunction-time = 5\n", "unknown budget 'function-time'"),
            ("[budget]\nscc-rounds = 5\n", "unknown section 'budget'"),
            ("[allocator]\nxmalloc = \"malloc\"\n", "unknown section 'allocator'"),
            ("[budgets]\nscc-rounds = \"five\"\n", "must be a whole number"),
            ("[budgets]\nscc-rounds = -1\n", "must not be negative"),
            ("[budgets]\nscc-rounds = 0\n", "at least 1"),
            ("[budgets\n", "t.toml"),
            ("budgets = 3\n", "must be a table"),
            ("[suppress]\nrule = \"leak\"\n", "[[suppress]]"),
            ("rules = [\"leak\"]\n", "'rules' must be a table"),
            ("[rules]\nleek = false\n", "did you mean 'leak'?"),
            (
                "[check]\nfail-on = \"parse-errors\"\n",
                "unknown value 'parse-errors' (known: never, finding, parse-error)",
            ),
            ("[check]\nfail-on = 1\n", "must be a string"),
            ("[check]\nexceptions = \"yes\"\n", "must be true or false"),
            ("[check]\nfailon = \"never\"\n", "unknown key 'failon' in [check]"),
            ("check = 1\n", "'check' must be a table"),
        ] {
            let e = parse(bad).err().unwrap_or_else(|| panic!("{bad:?} must be refused"));
            assert!(e.contains(says), "{bad:?}: {e}");
        }
        assert!(
            load(Some(Path::new("/nonexistent/drip.toml")), Path::new("/x"), &[], &[]).is_err(),
            "--config must exist"
        );
        for bad in ["scc-rounds", "scc-rounds=x", "rounds=3"] {
            assert!(load(None, Path::new("/nonexistent"), &[bad.to_string()], &[]).is_err(), "{bad}");
        }
    }
}
