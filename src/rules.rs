//! Which rules a run reports: every rule is on unless the `[rules]` section of `.drip.toml` or
//! the command line (`--enable RULE`, `--disable RULE`) switches it off.
//!
//! Input: the `[rules]` table (`leak-on-realloc-failure = false`: a rule id and a boolean), then
//! the command line's switches in the order given (each a comma-separated list of rule ids), so
//! the last word on a rule wins and the command line wins over the file. Output: `Switches`,
//! which the CLI applies at report time (`cli::Ending`): a finding of a rule that is off is left
//! out of every report format, the baseline written, the counts and the exit code, and only
//! `--stats` (and the JSON report's `stats.disabled`) count it.
//! Invariants: an unknown rule id or a value that is not a boolean is a usage error (exit 2)
//! that names the known rules and, for a typo, the nearest one. Switching a rule changes no
//! analysis: it is not part of the cache's keys, so a run that only switches rules replays the
//! previous result and filters it.

use crate::diag::Rule;

/// Rules switched off for this run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Switches {
    off: Vec<Rule>,
}

impl Switches {
    pub fn enabled(&self, rule: Rule) -> bool {
        !self.off.contains(&rule)
    }

    /// The rules switched off, in `Rule::ALL`'s order.
    pub fn disabled(&self) -> Vec<Rule> {
        Rule::ALL.into_iter().filter(|r| self.off.contains(r)).collect()
    }

    fn set(&mut self, rule: Rule, on: bool) {
        self.off.retain(|r| *r != rule);
        if !on {
            self.off.push(rule);
        }
    }

    /// `--enable LIST` (`on`) or `--disable LIST`: comma-separated rule ids.
    pub fn switch(&mut self, list: &str, on: bool) -> Result<(), String> {
        let option = if on { "--enable" } else { "--disable" };
        let ids: Vec<&str> = list.split(',').map(str::trim).collect();
        if ids.iter().any(|id| id.is_empty()) {
            return Err(format!("{option} expects rule ids separated by commas, got '{}'", escape(list)));
        }
        for id in ids {
            let rule = Rule::parse(id).map_err(|e| format!("{option}: {e}"))?;
            self.set(rule, on);
        }
        Ok(())
    }

    /// The `[rules]` section of the configuration file `origin`.
    pub fn add_table(&mut self, table: &toml::Table, origin: &str) -> Result<(), String> {
        for (id, value) in table {
            let rule = Rule::parse(id).map_err(|e| format!("{origin}: [rules]: {e}"))?;
            let toml::Value::Boolean(on) = value else {
                return Err(format!(
                    "{origin}: [rules]: '{id}' must be true or false (on or off), got a {}",
                    value.type_str()
                ));
            };
            self.set(rule, *on);
        }
        Ok(())
    }
}

fn escape(s: &str) -> std::borrow::Cow<'_, str> {
    crate::terminal::escape(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(text: &str) -> toml::Table {
        let t: toml::Table = text.parse().expect("toml");
        t["rules"].as_table().expect("a table").clone()
    }

    #[test]
    fn the_last_switch_wins_and_lists_are_split() {
        let mut s = Switches::default();
        assert!(Rule::ALL.iter().all(|r| s.enabled(*r)), "every rule is on by default");
        s.add_table(&table("[rules]\nleak-on-realloc-failure = false\ndouble-free = true\n"), "t.toml").unwrap();
        assert_eq!(s.disabled(), [Rule::LeakOnReallocFailure]);
        s.switch("leak-on-realloc-failure, double-free", false).unwrap();
        assert_eq!(s.disabled(), [Rule::DoubleFree, Rule::LeakOnReallocFailure]);
        s.switch("double-free", true).unwrap();
        assert_eq!(s.disabled(), [Rule::LeakOnReallocFailure]);
        assert!(s.enabled(Rule::Leak) && s.enabled(Rule::DoubleFree));
    }

    #[test]
    fn unknown_rules_are_errors_with_a_guess() {
        let mut s = Switches::default();
        let e = s.switch("leaks", false).unwrap_err();
        assert!(e.starts_with("--disable: unknown rule 'leaks'") && e.contains("did you mean 'leak'?"), "{e}");
        let e = s.switch("double_free", true).unwrap_err();
        assert!(e.contains("did you mean 'double-free'?"), "{e}");
        let e = s.switch("leak-on-realloc-fail", false).unwrap_err();
        assert!(e.contains("did you mean 'leak-on-realloc-failure'?"), "{e}");
        let e = s.switch("realloc", false).unwrap_err();
        assert!(e.contains("did you mean 'leak-on-realloc-failure'?"), "{e}");
        let e = s.switch("use-after-free", false).unwrap_err();
        assert!(e.contains("known: leak, double-free, leak-on-realloc-failure") && !e.contains("did you mean"), "{e}");
        assert!(s.switch("leak,,double-free", false).unwrap_err().contains("separated by commas"));
        assert!(s.switch("", false).is_err());
        let e = s.add_table(&table("[rules]\nlaek = false\n"), "t.toml").unwrap_err();
        assert!(e.starts_with("t.toml: [rules]: unknown rule 'laek'") && e.contains("did you mean 'leak'?"), "{e}");
        let e = s.add_table(&table("[rules]\nleak = \"off\"\n"), "t.toml").unwrap_err();
        assert!(e.contains("'leak' must be true or false"), "{e}");
        assert_eq!(s, Switches::default(), "a refused switch changes nothing it had not set before");
    }
}
