//! Findings as the checkers produce them, before rendering.
//!
//! Input: built by `checkers` from site verdicts. Output: consumed by `report` (text, SARIF, JSON).
//! Invariants: locations are resolved to file paths already (no ids), so renderers need nothing
//! but a `Diagnostic`; a list of diagnostics is sorted with `sort_key` before rendering, so output
//! never depends on thread count.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rule {
    Leak,
    DoubleFree,
    /// `p = realloc(p, n)`: when the call fails it returns NULL into the only pointer to the old
    /// block, which is still allocated (cppcheck's `memleakOnRealloc`). A leak, kept apart so
    /// that it can be switched and silenced on its own.
    LeakOnReallocFailure,
    /// Memory released by a deallocator of another family than the allocator's: `new[]` then
    /// `delete`, `new` then `free`, `malloc` then `delete` (CWE-762).
    MismatchedDeallocation,
    /// Memory stored into a global (a pointer global, a function's `static`, a field of a global
    /// struct) that no function of the program ever frees or hands on (`global_leaks`): kept
    /// until the process exits, what valgrind calls "still reachable". Apart from `leak`, so that
    /// a program that keeps its startup allocations on purpose can switch it off (CWE-401).
    LeakGlobal,
}

impl Rule {
    /// Every rule, in the order SARIF lists them (`ruleIndex`): new rules go at the end, so an
    /// index means the same in every log.
    pub const ALL: [Rule; 5] =
        [Rule::Leak, Rule::DoubleFree, Rule::LeakOnReallocFailure, Rule::MismatchedDeallocation, Rule::LeakGlobal];

    pub fn id(self) -> &'static str {
        match self {
            Rule::Leak => "leak",
            Rule::DoubleFree => "double-free",
            Rule::LeakOnReallocFailure => "leak-on-realloc-failure",
            Rule::MismatchedDeallocation => "mismatched-deallocation",
            Rule::LeakGlobal => "leak-global",
        }
    }

    /// A leak of either kind (the summary line counts them together as leaks).
    pub fn is_leak(self) -> bool {
        matches!(self, Rule::Leak | Rule::LeakOnReallocFailure)
    }

    /// The rule named `id`, or an error naming the known rules and the nearest one to a typo.
    pub fn parse(id: &str) -> Result<Rule, String> {
        if let Some(r) = Rule::ALL.into_iter().find(|r| r.id() == id) {
            return Ok(r);
        }
        let known: Vec<&str> = Rule::ALL.iter().map(|r| r.id()).collect();
        // A typo is a few edits away from the rule meant; anything further is no guess.
        let nearest = Rule::ALL
            .iter()
            .map(|r| (strsim::levenshtein(id, r.id()), r.id()))
            .filter(|(d, name)| *d <= 3.max(name.len() / 4))
            .min()
            // Part of one rule's id (`realloc`).
            .or_else(|| Rule::ALL.iter().find(|r| id.len() >= 4 && r.id().contains(id)).map(|r| (0, r.id())));
        let hint = nearest.map_or_else(String::new, |(_, name)| format!("; did you mean '{name}'?"));
        Err(format!("unknown rule '{}' (known: {}){hint}", crate::terminal::escape(id), known.join(", ")))
    }
}

/// FastCheck's categories (section 6.2), refined. Every allocation site gets exactly one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Category {
    /// Never freed, handled only through locals, in a function other than `main`. Reported.
    NeverFreedLocal,
    /// Never freed, handled only through locals, in `main` (usually lives until exit).
    NeverFreedMain,
    /// Never freed, but stored into a global, the heap, an array or passed to unknown code.
    NeverFreedNotLocal,
    /// Freed (or returned, or exited) on every path.
    FreedAlways,
    /// Freed on some paths and lost on others. Reported.
    FreedConditional,
    /// Returned to the caller on every path: the caller owns it.
    Returned,
    /// Escapes into a global, heap field, array, address-taken local or unknown callee on some
    /// path; its fate is decided elsewhere.
    Unknown,
    /// The guard formulas exceeded the configured budget; nothing was concluded.
    OverBudget,
}

impl Category {
    pub fn id(self) -> &'static str {
        match self {
            Category::NeverFreedLocal => "never-freed-local",
            Category::NeverFreedMain => "never-freed-main",
            Category::NeverFreedNotLocal => "never-freed-not-local",
            Category::FreedAlways => "freed-always",
            Category::FreedConditional => "freed-conditional",
            Category::Returned => "returned",
            Category::Unknown => "unknown",
            Category::OverBudget => "over-budget",
        }
    }
    pub const ALL: [Category; 8] = [
        Category::NeverFreedLocal,
        Category::NeverFreedMain,
        Category::NeverFreedNotLocal,
        Category::FreedAlways,
        Category::FreedConditional,
        Category::Returned,
        Category::Unknown,
        Category::OverBudget,
    ];
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct SrcLoc {
    /// Path as the user should see it: relative to the current directory when below it.
    pub file: String,
    pub line: u32,
    pub col: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NoteKind {
    /// Where the cell is allocated.
    Alloc,
    /// A branch on the error path and the way it goes.
    Branch,
    /// A free of the cell.
    Free,
    /// The point where the last reference to the cell is lost (overwritten or out of scope).
    Lost,
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Note {
    pub kind: NoteKind,
    pub loc: SrcLoc,
    pub message: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnostic {
    pub rule: Rule,
    pub category: Category,
    /// The allocation site: the primary location for the leak rules and a double free of a
    /// site; the second free for a parameter's double free, the deallocation for a mismatch.
    pub loc: SrcLoc,
    pub function: String,
    /// Name of the allocating call (`malloc`, `strdup`, …).
    pub allocator: String,
    /// One line, compiler style, without the `[rule]` suffix.
    pub message: String,
    /// The error path in execution order: allocation, branches taken, frees, loss point.
    pub path: Vec<Note>,
    /// Line of the allocation relative to the start of its function: stable across edits above the
    /// function, used for SARIF `partialFingerprints`.
    pub line_in_function: u32,
    /// Silenced by a `drip: ignore` comment at the allocation or a `[[suppress]]` entry
    /// (`report::suppress`): left out of the text report and the exit code, kept in JSON (`null`
    /// when not silenced: the cache's encoding has no optional fields) and SARIF with its kind
    /// and justification.
    pub suppression: Option<Suppression>,
}

/// Why a finding is silenced: by an inline comment or a `[[suppress]]` entry of `.drip.toml`,
/// with the reason written after `--` or in the entry's `reason`, if any.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Suppression {
    pub kind: SuppressionKind,
    pub justification: Option<String>,
}

/// Where a suppression is written, as SARIF names it (`inSource`, `external`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SuppressionKind {
    /// A `drip: ignore` comment in the source.
    InSource,
    /// A `[[suppress]]` entry of `.drip.toml`.
    External,
}

impl Diagnostic {
    pub fn sort_key(&self) -> (&str, u32, u32, Rule, &str) {
        (&self.loc.file, self.loc.line, self.loc.col, self.rule, &self.message)
    }
}

pub fn sort(diags: &mut [Diagnostic]) {
    diags.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()).then_with(|| a.path.cmp(&b.path)));
}

/// Drop repeated findings from a sorted list: equal ones have equal sort keys, so each is
/// compared with the run of its key only.
pub fn dedup(diags: &mut Vec<Diagnostic>) {
    let mut kept: Vec<Diagnostic> = Vec::with_capacity(diags.len());
    for d in diags.drain(..) {
        let seen = kept.iter().rev().take_while(|k| k.sort_key() == d.sort_key()).any(|k| *k == d);
        if !seen {
            kept.push(d);
        }
    }
    *diags = kept;
}
