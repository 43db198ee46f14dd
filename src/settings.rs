//! The user's settings: the analysis budgets, from a configuration file and the command line.
//!
//! Input: a TOML file (`--config FILE`, else `.drip.toml` next to the compile database, or in
//! the current directory when files are given on the command line; no file is fine) and
//! `--budget NAME=VALUE` options, which win over the file. Output: `Budgets`, which become the
//! check's `fastcheck::Config` and are shown by `--stats` and in the JSON report.
//! Invariants: every budget is listed once, in `BUDGETS`, with its name, default and meaning;
//! an unknown name, a malformed value or an unreadable file is a usage error (exit 2), never
//! silently ignored, because a typo in a budget would otherwise change nothing without a word.

use crate::fastcheck::Config;
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
}

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
        }
    }

    /// The check configuration these budgets give.
    pub fn config(&self) -> Config {
        Config {
            max_guard_nodes_per_site: self.guard_nodes_per_site as usize,
            max_guard_nodes_entry: self.guard_nodes_per_function as usize,
            sat_conflicts: u32::try_from(self.sat_conflicts).unwrap_or(u32::MAX),
            max_scc_rounds: self.scc_rounds as usize,
            max_function_time: (self.function_time_ms > 0).then(|| Duration::from_millis(self.function_time_ms)),
            max_function_bytes: (self.function_memory_mb > 0).then(|| self.function_memory_mb.saturating_mul(1 << 20)),
        }
    }

    /// Set one budget by name; `origin` names where the setting came from, for messages.
    fn set(&mut self, name: &str, value: u64, origin: &str) -> Result<(), String> {
        let Some((_, _, field)) = BUDGETS.iter().find(|b| b.0 == name) else {
            let known: Vec<&str> = BUDGETS.iter().map(|b| b.0).collect();
            return Err(format!("{origin}: unknown budget '{name}' (known: {})", known.join(", ")));
        };
        if value == 0 && !matches!(name, "function-time-ms" | "function-memory-mb") {
            return Err(format!("{origin}: budget '{name}' must be at least 1"));
        }
        *field(self) = value;
        Ok(())
    }
}

/// The budgets for this run: defaults, then the configuration file, then `--budget` options.
/// `config_file`: `--config`, which must exist; `default_file`: `.drip.toml` where drip looks
/// for it, used when it exists. Returns the budgets and the file they came from, if any.
pub fn load(
    config_file: Option<&Path>,
    default_file: &Path,
    overrides: &[String],
) -> Result<(Budgets, Option<PathBuf>), String> {
    let mut b = Budgets::default();
    let file = match config_file {
        Some(f) => Some(f.to_path_buf()),
        None => default_file.is_file().then(|| default_file.to_path_buf()),
    };
    if let Some(f) = &file {
        let text = crate::files::read_to_string(f).map_err(|e| format!("cannot read {}: {e}", f.display()))?;
        apply_file(&mut b, &text, &f.display().to_string())?;
    }
    for o in overrides {
        let (name, value) = o.split_once('=').ok_or_else(|| format!("--budget expects NAME=VALUE, got '{o}'"))?;
        let value: u64 =
            value.trim().parse().map_err(|_| format!("--budget {name}: '{value}' is not a whole number"))?;
        b.set(name.trim(), value, "--budget")?;
    }
    Ok((b, file))
}

fn apply_file(b: &mut Budgets, text: &str, origin: &str) -> Result<(), String> {
    let table: toml::Table = text.parse().map_err(|e: toml::de::Error| format!("{origin}: {}", e.message()))?;
    for (section, value) in &table {
        if section != "budgets" {
            return Err(format!("{origin}: unknown section '{section}' (known: budgets)"));
        }
        let toml::Value::Table(budgets) = value else {
            return Err(format!("{origin}: 'budgets' must be a table ([budgets])"));
        };
        for (name, v) in budgets {
            let value = match v {
                toml::Value::Integer(n) if *n >= 0 => *n as u64,
                toml::Value::Integer(n) => {
                    return Err(format!("{origin}: budget '{name}' must not be negative, got {n}"))
                }
                _ => return Err(format!("{origin}: budget '{name}' must be a whole number, got a {}", v.type_str())),
            };
            b.set(name, value, origin)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_are_the_standard_configuration() {
        let c = Budgets::default().config();
        let s = Config::standard();
        assert_eq!(format!("{c:?}"), format!("{s:?}"));
    }

    #[test]
    fn a_file_sets_budgets_and_the_command_line_wins() {
        let mut b = Budgets::default();
        apply_file(&mut b, "[budgets]\nfunction-time-ms = 5000\nscc-rounds = 9\n", "t.toml").expect("valid");
        assert_eq!((b.function_time_ms, b.scc_rounds), (5000, 9));
        let dir = std::env::temp_dir().join(format!("drip-settings-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let f = dir.join(".drip.toml");
        std::fs::write(&f, "[budgets]\nsat-conflicts = 7\nscc-rounds = 2\n").expect("write");
        let (b, from) = load(None, &f, &["scc-rounds=3".to_string()]).expect("loads");
        assert_eq!(from.as_deref(), Some(f.as_path()));
        assert_eq!((b.sat_conflicts, b.scc_rounds), (7, 3));
        assert_eq!(b.config().max_scc_rounds, 3);
        let (none, from) = load(None, &dir.join("absent.toml"), &[]).expect("no file is fine");
        assert_eq!((none, from), (Budgets::default(), None));
        assert_eq!(Budgets { function_time_ms: 0, ..Budgets::default() }.config().max_function_time, None);
        assert_eq!(Budgets { function_memory_mb: 0, ..Budgets::default() }.config().max_function_bytes, None);
        let huge = Budgets { function_memory_mb: u64::MAX, ..Budgets::default() }.config();
        assert_eq!(huge.max_function_bytes, Some(u64::MAX), "saturates: the largest means no limit");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn mistakes_are_errors_not_ignored() {
        let mut b = Budgets::default();
        for bad in [
            "[budgets]\nfunction-time = 5\n",
            "[budget]\nscc-rounds = 5\n",
            "[budgets]\nscc-rounds = \"five\"\n",
            "[budgets]\nscc-rounds = -1\n",
            "[budgets]\nscc-rounds = 0\n",
            "[budgets\n",
            "budgets = 3\n",
        ] {
            assert!(apply_file(&mut b, bad, "t.toml").is_err(), "{bad:?} must be refused");
        }
        assert!(load(Some(Path::new("/nonexistent/drip.toml")), Path::new("/x"), &[]).is_err(), "--config must exist");
        for bad in ["scc-rounds", "scc-rounds=x", "rounds=3"] {
            assert!(load(None, Path::new("/nonexistent"), &[bad.to_string()]).is_err(), "{bad}");
        }
    }
}
