//! The rules, `leak`, `leak-on-realloc-failure`, `double-free` and `mismatched-deallocation`:
//! which site verdicts become diagnostics, and how they read.
//!
//! Input: `SiteVerdict`s of one function, the `Program` (for names and locations) and the
//! reporting policy. Output: `Diagnostic`s (unsorted; the driver sorts).
//! Invariants: the policy is FastCheck's (section 6.2): by default only never-freed locals outside
//! `main`, conditional leaks, double frees and mismatched deallocations are reported; `--all-categories` adds never-freed in
//! `main`, never-freed not-local, unknown and over-budget sites. Freed-always and returned sites
//! are never findings. The driver makes the diagnostics of every category (`Policy::EVERY`), so
//! that what it caches does not depend on the policy, and keeps those `Policy::shows`.
//! Messages name the allocator and the decisive branches of the SAT model.
//! A leak whose path ends where a failed `realloc`'s NULL overwrites the last pointer to the
//! old block (`p = realloc(p, n)`) is `leak-on-realloc-failure`; every other leak is `leak`.
//! A mismatched deallocation is reported at the releasing call, once per (site, release), in
//! whatever category the site is (a mismatched release is still a release).
//! A cycle of `std::shared_ptr` owners the front end found (`Function::owner_cycles`) is a
//! `leak` at the cycle's first block, never-freed-local (never-freed-main in `main`), whose
//! message names the members that form the cycle (`owner_cycles`).
//! Which rules are reported at all is decided later, at report time (`rules`).

use crate::cfg::FnCx;
use crate::diag::{Category, Diagnostic, Note, NoteKind, Rule, SrcLoc};
use crate::fastcheck::{EscapeKind, Lost, SiteVerdict, Step};
use crate::ir::{Function, Loc, Program, Terminator};
use crate::summary::Summaries;

pub struct Policy {
    pub all_categories: bool,
}

impl Policy {
    /// Every category's leaks: what the driver computes and the cache keeps, so that a run with
    /// and one without `--all-categories` share their results (`shows` picks the reported ones).
    pub const EVERY: Policy = Policy { all_categories: true };

    /// Whether `d`, made under `EVERY`, is reported under this policy: only leaks depend on it.
    pub fn shows(&self, d: &Diagnostic) -> bool {
        !d.rule.is_leak() || self.reports(d.category)
    }

    pub fn reports(&self, c: Category) -> bool {
        match c {
            Category::NeverFreedLocal | Category::FreedConditional => true,
            Category::NeverFreedMain | Category::NeverFreedNotLocal | Category::Unknown | Category::OverBudget => {
                self.all_categories
            }
            Category::FreedAlways | Category::Returned => false,
        }
    }
}

/// Resolves locations to user-facing paths.
pub struct Locator {
    /// `Program::files` as displayed (relative to the working directory when below it).
    pub display: Vec<String>,
}

impl Locator {
    pub fn new(program: &Program, cwd: &std::path::Path) -> Locator {
        let display = program
            .files
            .iter()
            .map(|f| match f.strip_prefix(cwd) {
                Ok(rel) if !rel.as_os_str().is_empty() => rel.display().to_string(),
                _ => f.display().to_string(),
            })
            .collect();
        Locator { display }
    }

    pub fn src(&self, loc: Loc) -> SrcLoc {
        let file = self.display.get(loc.file.index()).cloned().unwrap_or_else(|| "<unknown>".to_string());
        SrcLoc { file, line: loc.line, col: loc.col }
    }

    /// `a.c:8`, or just `8` when in `same_file`.
    fn short(&self, loc: Loc) -> String {
        let s = self.src(loc);
        let name =
            std::path::Path::new(&s.file).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or(s.file);
        format!("{name}:{}", s.line)
    }
}

pub fn diagnostics(
    cx: &FnCx,
    verdicts: &[SiteVerdict],
    policy: &Policy,
    at: &Locator,
    summaries: &Summaries,
) -> Vec<Diagnostic> {
    let func = cx.func;
    let mut out = Vec::new();
    // A C++ container of raw pointers that dies holding blocks is reported once, at the first
    // of them (by source order) that leaks, as a lost C container is reported once.
    let held: Vec<Option<(String, crate::ir::StmtId)>> = verdicts.iter().map(|v| container_of(func, v.stmt)).collect();
    let mut first_of: Vec<(&str, Loc)> = Vec::new();
    for (v, c) in verdicts.iter().zip(&held) {
        let Some((c, _)) = c.as_ref().filter(|_| v.leak.is_some() && policy.reports(v.category)) else { continue };
        let loc = func.stmt_loc(v.stmt);
        match first_of.iter_mut().find(|(n, _)| *n == c) {
            Some(e) if (loc.file, loc.line, loc.col) < (e.1.file, e.1.line, e.1.col) => e.1 = loc,
            Some(_) => {}
            None => first_of.push((c, loc)),
        }
    }
    for (v, container) in verdicts.iter().zip(&held) {
        let alloc_loc = func.stmt_loc(v.stmt);
        let base = |rule: Rule, message: String, path: Vec<Note>| site_diagnostic(func, v, at, rule, message, path);
        let mut alloc_notes = vec![Note {
            kind: NoteKind::Alloc,
            loc: at.src(alloc_loc),
            message: format!("memory is allocated here by '{}'", v.allocator),
        }];
        alloc_notes.extend(wrapper_chain(func, v, at, summaries));
        let reported_elsewhere = container
            .as_ref()
            .is_some_and(|(c, _)| v.leak.is_some() && first_of.iter().any(|(n, l)| *n == c && *l != alloc_loc));
        if policy.reports(v.category) && !reported_elsewhere {
            let steps = v.leak.as_deref().unwrap_or(&[]);
            let realloc = realloc_overwrite(steps);
            let mut message = match realloc {
                Some((call, what)) => format!(
                    "memory allocated by '{}' leaks when '{}' at {} fails: the NULL it returns overwrites '{what}', the last pointer to the old block",
                    v.allocator,
                    callee(func, call.0),
                    at.short(call.1)
                ),
                None => leak_message(func, v, steps, at),
            };
            if !v.cycle_with.is_empty() && v.leak.is_some() {
                let others: Vec<String> = v.cycle_with.iter().map(|s| at.short(func.stmt_loc(*s))).collect();
                message.push_str(&format!(
                    "; it is left in a cycle with the memory allocated at {}, and nothing else points to that cycle",
                    others.join(", ")
                ));
            }
            let mut path = alloc_notes.clone();
            if let (Some((c, store)), Some(_)) = (container, &v.leak) {
                message.push_str(&format!(
                    "; it is held by the container '{c}', which does not delete its elements when it dies or is cleared"
                ));
                path.push(Note {
                    kind: NoteKind::Alloc,
                    loc: at.src(func.stmt_loc(*store)),
                    message: format!("the memory is stored into '{c}' here"),
                });
            }
            path.extend(notes(func, steps, at, &v.allocator));
            out.push(base(if realloc.is_some() { Rule::LeakOnReallocFailure } else { Rule::Leak }, message, path));
        }
        if let Some(steps) = &v.double_free {
            let message = match free_locs(steps).as_slice() {
                [a, b, ..] => format!(
                    "memory allocated by '{}' is freed twice, at {} and {}{}",
                    v.allocator,
                    at.short(*a),
                    at.short(*b),
                    conditions(func, steps, at).map(|c| format!(" when {c}")).unwrap_or_default()
                ),
                _ => format!("memory allocated by '{}' is freed twice", v.allocator),
            };
            let mut path = alloc_notes.clone();
            path.extend(notes(func, steps, at, &v.allocator));
            out.push(base(Rule::DoubleFree, message, path));
        }
        if let Some(family) = v.family {
            for m in &v.mismatches {
                out.push(mismatch(func, v, family, m, &alloc_notes, at));
            }
        }
    }
    out
}

/// The container of raw pointers (`ir::CONTAINER_ELEMENTS`) the block the allocation `site`
/// returns is stored into, directly or through plain copies of locals, as its source text
/// (`items`, `this->by_key`), and the store; `None` when it is stored into none.
fn container_of(func: &Function, site: crate::ir::StmtId) -> Option<(String, crate::ir::StmtId)> {
    use crate::ir::{Operand, Place, Rvalue, Stmt};
    let Stmt::Call { dst: Some(Place::Local(first)), .. } = func.stmt(site) else { return None };
    let mut copies = vec![*first];
    // The locals the block is copied into (`Item *p = new Item; v.push_back(p);`).
    loop {
        let before = copies.len();
        for s in &func.stmts {
            if let Stmt::Assign { dst: Place::Local(d), src: Rvalue::Use(Operand::Place(Place::Local(x))) } = s {
                if copies.contains(x) && !copies.contains(d) {
                    copies.push(*d);
                }
            }
        }
        if copies.len() == before || copies.len() > 16 {
            break;
        }
    }
    func.stmts.iter().enumerate().find_map(|(i, s)| match s {
        Stmt::Assign { dst, src: Rvalue::Use(Operand::Place(Place::Local(x))) } if copies.contains(x) => {
            container_place(dst).map(|c| (place_text(func, c), crate::ir::StmtId::from_usize(i)))
        }
        _ => None,
    })
}

/// The container object whose cell `p` is (`v` in `v.(elements)[]` or `v.(elements)[].second`).
fn container_place(p: &crate::ir::Place) -> Option<&crate::ir::Place> {
    use crate::ir::Place;
    match p {
        Place::Field(inner, f) if f == "second" => container_place(inner),
        Place::Index(inner) => match &**inner {
            Place::Field(obj, f) if f == crate::ir::CONTAINER_ELEMENTS => Some(obj),
            _ => None,
        },
        _ => None,
    }
}

/// A place as the source would name it (`items`, `this->items`, `s.items`).
fn place_text(func: &Function, p: &crate::ir::Place) -> String {
    use crate::ir::Place;
    match p {
        Place::Local(l) => func.local(*l).name.clone(),
        Place::Global(g) => g.rsplit("::").next().unwrap_or(g).to_string(),
        Place::Field(inner, f) => match &**inner {
            Place::Deref(q) => format!("{}->{f}", place_text(func, q)),
            q => format!("{}.{f}", place_text(func, q)),
        },
        Place::Deref(q) => format!("*{}", place_text(func, q)),
        Place::Index(q) => format!("{}[]", place_text(func, q)),
    }
}

/// A release by a deallocator of another family (`fastcheck::Mismatch`): reported at the
/// deallocating call, with the allocation and the path to the release as notes.
fn mismatch(
    func: &Function,
    v: &SiteVerdict,
    family: crate::libmodel::Family,
    m: &crate::fastcheck::Mismatch,
    alloc_notes: &[Note],
    at: &Locator,
) -> Diagnostic {
    let loc = func.stmt_loc(m.at);
    let releaser = callee(func, m.at);
    let message = format!(
        "memory allocated by '{}' at {} is released by '{releaser}', a deallocator of {} memory; memory from {} must be released by {}",
        v.allocator,
        at.short(func.stmt_loc(v.stmt)),
        m.family.allocation(),
        family.allocation(),
        family.release(),
    );
    let mut path = alloc_notes.to_vec();
    path.extend(notes(func, &m.steps, at, &v.allocator));
    // The release the finding is about is the path's last free.
    if let Some(n) = path.iter_mut().rev().find(|n| n.kind == NoteKind::Free) {
        n.message = format!(
            "released here by '{releaser}', a deallocator of {} memory, not by {}",
            m.family.allocation(),
            family.release()
        );
    }
    Diagnostic {
        suppression: None,
        rule: Rule::MismatchedDeallocation,
        category: v.category,
        loc: at.src(loc),
        function: func.name.clone(),
        allocator: v.allocator.clone(),
        message,
        path,
        line_in_function: loc.line.saturating_sub(func.loc.line),
    }
}

/// The sites of one function whose cell goes nowhere but into one named global
/// (`EscapeKind::Global`, on every path where it is not freed or returned), each as a `leak-global`
/// finding keyed by that global's path: `global_leaks::never_freed` keeps those whose global
/// the whole program never frees or hands on, once per global.
pub fn global_candidates(cx: &FnCx, verdicts: &[SiteVerdict], at: &Locator) -> Vec<(String, Diagnostic)> {
    let func = cx.func;
    let mut out = Vec::new();
    for v in verdicts {
        if !matches!(v.category, Category::NeverFreedNotLocal | Category::Unknown) {
            continue;
        }
        // Also handed to the caller (returned, or left below a parameter: vim's
        // `cts->cts_text_props`, lent to a global only for a `qsort`): the caller owns it.
        if v.returned || v.stored_out || v.handed.is_some() || v.global_borrowed {
            continue;
        }
        let mut named = v.escapes.iter().map(|e| match e {
            EscapeKind::Global(g) => Some(g),
            _ => None,
        });
        let Some(Some(g)) = named.next() else { continue };
        if !named.all(|n| n == Some(g)) {
            continue;
        }
        // A callee's cell left in the global (`Summary::global_fresh`): the callee's own site is
        // the candidate, where the store is.
        if cx.model(v.stmt).is_some_and(|m| !m.lib && m.global_fresh.iter().any(|f| **f == **g)) {
            continue;
        }
        let alloc_loc = func.stmt_loc(v.stmt);
        let mut path = vec![Note {
            kind: NoteKind::Alloc,
            loc: at.src(alloc_loc),
            message: format!("memory is allocated here by '{}'", v.allocator),
        }];
        // The first store into the global from the allocation on, in statement order: the
        // allocating call's own (`g = strdup (s)`), an assignment, or a call of a function that
        // keeps its argument there (`Summary::param_globals`).
        let in_global = |p: &crate::ir::Place| crate::global_leaks::global_store_path(p).as_deref() == Some(&**g);
        let store = func.stmts.iter().enumerate().skip(v.stmt.index()).find_map(|(i, s)| {
            let sid = crate::ir::StmtId::from_usize(i);
            match s {
                crate::ir::Stmt::Assign { dst, .. } | crate::ir::Stmt::Call { dst: Some(dst), .. }
                    if in_global(dst) =>
                {
                    Some((func.stmt_loc(sid), format!("stored into global '{g}' here")))
                }
                crate::ir::Stmt::Call { args, .. } => {
                    let m = cx.model(sid)?;
                    (0..args.len()).any(|a| m.param_global(a).is_some_and(|k| k == g)).then(|| {
                        (func.stmt_loc(sid), format!("passed to '{}' here, which stores it into global '{g}'", m.name))
                    })
                }
                _ => None,
            }
        });
        if let Some((loc, what)) = store {
            path.push(Note {
                kind: NoteKind::Lost,
                loc: at.src(loc),
                message: format!("{what}; no function of the program frees it"),
            });
        }
        let message = format!(
            "memory allocated by '{}' is stored into global '{g}' and never freed: no function of the program frees it or hands it on",
            v.allocator
        );
        out.push((g.to_string(), site_diagnostic(func, v, at, Rule::LeakGlobal, message, path)));
    }
    out
}

/// A finding of `rule` at allocation site `v`: located at the allocation, in its function.
fn site_diagnostic(
    func: &Function,
    v: &SiteVerdict,
    at: &Locator,
    rule: Rule,
    message: String,
    path: Vec<Note>,
) -> Diagnostic {
    let alloc_loc = func.stmt_loc(v.stmt);
    Diagnostic {
        suppression: None,
        rule,
        category: v.category,
        loc: at.src(alloc_loc),
        function: func.name.clone(),
        allocator: v.allocator.clone(),
        message,
        path,
        line_in_function: alloc_loc.line.saturating_sub(func.loc.line),
    }
}

/// The cycles of `std::shared_ptr` owners the front end found in `func`
/// (`Function::owner_cycles`), each a `leak` at the allocation of the cycle's first block, in
/// the category of a block only locals held (`main`'s own, as for every site of `main`).
pub fn owner_cycles(func: &Function, at: &Locator) -> Vec<Diagnostic> {
    let category = if func.name == "main" { Category::NeverFreedMain } else { Category::NeverFreedLocal };
    func.owner_cycles
        .iter()
        .map(|c| {
            let links: Vec<String> = c.links.iter().map(|(holder, m, held)| format!("{holder}->{m} holds {held}")).collect();
            let message = format!(
                "memory allocated by '{}' is kept alive only by a cycle of std::shared_ptr owners: {}; no owner outside the cycle is left, so it is never freed",
                c.allocator,
                links.join(", ")
            );
            let mut path = vec![Note {
                kind: NoteKind::Alloc,
                loc: at.src(c.at),
                message: format!("memory is allocated here by '{}'", c.allocator),
            }];
            for (l, (_, _, held)) in c.others.iter().zip(&c.links) {
                path.push(Note {
                    kind: NoteKind::Alloc,
                    loc: at.src(*l),
                    message: format!("'{held}', of the same cycle, is allocated here"),
                });
            }
            path.push(Note {
                kind: NoteKind::Lost,
                loc: at.src(c.lost),
                message: "the last owner outside the cycle is gone here".to_string(),
            });
            Diagnostic {
                suppression: None,
                rule: Rule::Leak,
                category,
                loc: at.src(c.at),
                function: func.name.clone(),
                allocator: c.allocator.clone(),
                message,
                path,
                line_in_function: c.at.line.saturating_sub(func.loc.line),
            }
        })
        .collect()
}

/// Where a double free's path frees the block, in order.
fn free_locs(steps: &[Step]) -> Vec<Loc> {
    steps
        .iter()
        .filter_map(|s| match s {
            Step::Free { loc, .. } => Some(*loc),
            _ => None,
        })
        .collect()
}

/// Double frees of the block a parameter points to on entry (`fastcheck::ParamDoubleFree`):
/// reported at the second free, since the allocation is the caller's. `allocator` names the
/// parameter (`parameter 'p'`), which fingerprints the finding with the function.
pub fn param_diagnostics(cx: &FnCx, found: &[crate::fastcheck::ParamDoubleFree], at: &Locator) -> Vec<Diagnostic> {
    let func = cx.func;
    let mut out = Vec::new();
    for d in found {
        let [a, b, ..] = free_locs(&d.steps)[..] else { continue };
        let name = &func.local(d.param).name;
        let allocator = format!("parameter '{name}'");
        let message = format!(
            "the memory '{name}' points to when '{}' is called is freed twice, at {} and {}{}",
            func.name,
            at.short(a),
            at.short(b),
            conditions(func, &d.steps, at).map(|c| format!(" when {c}")).unwrap_or_default()
        );
        let mut path = vec![Note {
            kind: NoteKind::Alloc,
            loc: at.src(func.local(d.param).loc),
            message: format!("'{name}' points to memory the caller passes in"),
        }];
        path.extend(notes(func, &d.steps, at, &allocator));
        out.push(Diagnostic {
            suppression: None,
            rule: Rule::DoubleFree,
            category: Category::FreedAlways,
            loc: at.src(b),
            function: func.name.clone(),
            allocator,
            message,
            path,
            line_in_function: b.line.saturating_sub(func.loc.line),
        });
    }
    out
}

/// The failing call (statement and location) and the slot it overwrites, when a leak's path
/// ends with the last reference overwritten right after a `realloc`-like call failed with the
/// cell as its old block, with no branch or free in between: `p = realloc(p, n)`, also
/// `s->buf = realloc(s->buf, n)` and `q = realloc(p, n); p = q;`. A path that tests the result
/// first and then returns (`q = realloc(p, n); if (!q) return -1;`) kept the old pointer and
/// lost it later: that is an ordinary `leak`.
fn realloc_overwrite(steps: &[Step]) -> Option<((crate::ir::StmtId, Loc), &str)> {
    let Some((Step::Lost { how: Lost::Overwritten(what), .. }, before)) = steps.split_last() else { return None };
    match before.last() {
        Some(Step::CallFails { stmt, loc }) => Some(((*stmt, *loc), what.as_str())),
        _ => None,
    }
}

/// For an allocation through wrappers: where each wrapper gets the memory from, down to the
/// library allocator (`'xstrdup' gets it from 'xmalloc' at util.c:12`, …).
fn wrapper_chain(func: &Function, v: &SiteVerdict, at: &Locator, summaries: &Summaries) -> Vec<Note> {
    let mut out = Vec::new();
    let crate::ir::Stmt::Call { callee: crate::ir::Callee::Direct { usr, .. }, .. } = func.stmt(v.stmt) else {
        return out;
    };
    let mut wrapper = v.allocator.clone();
    let mut usr = usr.clone();
    // Recursive allocators cannot form a cycle of summaries (SCCs see each other as unknown), but
    // a bound keeps the chain short in any case.
    for _ in 0..8 {
        let Some(origin) = summaries.wrapper_by_usr(&usr).and_then(|s| s.origin.as_ref()) else { break };
        out.push(Note {
            kind: NoteKind::Alloc,
            loc: at.src(origin.loc),
            message: format!("'{wrapper}' gets the memory from '{}' here", origin.allocator),
        });
        wrapper = origin.allocator.clone();
        usr = origin.usr.clone();
    }
    out
}

fn leak_message(func: &Function, v: &SiteVerdict, steps: &[Step], at: &Locator) -> String {
    let a = &v.allocator;
    match v.category {
        Category::NeverFreedLocal | Category::NeverFreedMain => {
            if let Some(Step::Lost { how: Lost::AliasedInCallee { callee, slot, .. }, .. }) = steps.last() {
                format!("memory allocated by '{a}' is lost inside '{callee}': two of its arguments lead to '{slot}', and a later store there overwrites it")
            } else if steps.iter().any(|s| matches!(s, Step::Lost { how: Lost::Discarded | Lost::DiscardedIn(_), .. }))
            {
                format!("memory allocated by '{a}' is never freed: the result is discarded")
            } else {
                format!("memory allocated by '{a}' is never freed")
            }
        }
        Category::FreedConditional => match conditions(func, steps, at) {
            Some(c) => format!("memory allocated by '{a}' leaks when {c}"),
            None => format!("memory allocated by '{a}' leaks on some paths"),
        },
        Category::NeverFreedNotLocal => {
            format!("memory allocated by '{a}' is never freed here: it is {}", escapes(&v.escapes))
        }
        Category::Unknown => {
            format!("memory allocated by '{a}' is {}; whether it is freed is decided elsewhere", escapes(&v.escapes))
        }
        Category::OverBudget => {
            format!("memory allocated by '{a}' was not checked: its path conditions exceed the analysis budget")
        }
        Category::FreedAlways | Category::Returned => format!("memory allocated by '{a}' is freed"),
    }
}

fn escapes(kinds: &[EscapeKind]) -> String {
    let parts: Vec<String> = kinds
        .iter()
        .map(|k| match k {
            EscapeKind::Global(_) => "stored into a global".to_string(),
            EscapeKind::Heap => "stored into memory reached through a pointer".to_string(),
            EscapeKind::Array => "stored into an array".to_string(),
            EscapeKind::LocalStorage => "stored into a local aggregate or address-taken variable".to_string(),
            EscapeKind::UnknownCallee(f) => format!("passed to '{f}'"),
            EscapeKind::Retained(f) => format!("kept by '{f}'"),
            EscapeKind::Longjmp(f) => format!("held when '{f}' returns again after a longjmp"),
            EscapeKind::Discarded => "discarded, but its allocator does not always return fresh memory".to_string(),
            EscapeKind::Undecided => "returned only when a flag argument says so, which is not known here".to_string(),
        })
        .collect();
    if parts.is_empty() {
        "stored outside the function's locals".to_string()
    } else {
        parts.join(", ")
    }
}

/// The decisive conditions of an error path, for the one-line message: a failing `realloc` when
/// there is one (that is the bug), else the last two distinct branch conditions before the loss
/// (the early return, the error test). The notes list every step.
fn conditions(func: &Function, steps: &[Step], at: &Locator) -> Option<String> {
    let fails: Vec<String> = steps
        .iter()
        .filter_map(|s| match s {
            Step::CallFails { stmt, loc } => Some(format!("'{}' at {} fails", callee(func, *stmt), at.short(*loc))),
            _ => None,
        })
        .collect();
    if !fails.is_empty() {
        return Some(fails.join(" and "));
    }
    let mut seen = Vec::new();
    let mut parts = Vec::new();
    for s in steps {
        let (atom, text) = match s {
            Step::Branch { block, taken, loc, atom } => {
                let (text, holds) = branch_text(func, *block, *taken);
                (*atom, format!("'{text}' is {} at {}", if holds { "true" } else { "false" }, at.short(*loc)))
            }
            Step::Case { block, target, loc, atom } => {
                (*atom, format!("{} at {} is taken", case_text(func, *block, *target), at.short(*loc)))
            }
            _ => continue,
        };
        // Two tests of one unchanged condition are one fact.
        if !seen.contains(&atom) {
            seen.push(atom);
            parts.push(text);
        }
    }
    if parts.is_empty() {
        return None;
    }
    let keep = parts.len().saturating_sub(2);
    Some(parts.split_off(keep).join(" and "))
}

fn branch_text(func: &Function, block: crate::ir::BlockId, taken: bool) -> (String, bool) {
    match &func.block(block).term {
        Terminator::Branch { cond, .. } => (cond.text.clone(), taken != cond.text_on_else),
        _ => ("condition".to_string(), taken),
    }
}

fn case_text(func: &Function, block: crate::ir::BlockId, target: crate::ir::BlockId) -> String {
    match &func.block(block).term {
        Terminator::Switch { cases, .. } => {
            let values: Vec<String> = cases
                .iter()
                .filter(|c| c.1 == target)
                .map(|c| func.case_label(block, c.0).map_or_else(|| c.0.to_string(), str::to_string))
                .collect();
            if values.is_empty() {
                "the switch's default".to_string()
            } else {
                format!("case {} of the switch", values.join(", "))
            }
        }
        _ => "a switch case".to_string(),
    }
}

fn callee(func: &Function, stmt: crate::ir::StmtId) -> String {
    match func.stmt(stmt) {
        crate::ir::Stmt::Call { callee: crate::ir::Callee::Direct { name, .. }, .. } => name.clone(),
        _ => "the call".to_string(),
    }
}

fn notes(func: &Function, steps: &[Step], at: &Locator, allocator: &str) -> Vec<Note> {
    let mut out = Vec::new();
    let mut frees = 0;
    for s in steps {
        let note = match s {
            Step::Branch { block, taken, loc, .. } => {
                let (text, holds) = branch_text(func, *block, *taken);
                Note {
                    kind: NoteKind::Branch,
                    loc: at.src(*loc),
                    message: format!("'{text}' is {}", if holds { "true" } else { "false" }),
                }
            }
            Step::Case { block, target, loc, .. } => Note {
                kind: NoteKind::Branch,
                loc: at.src(*loc),
                message: format!("{} is taken", case_text(func, *block, *target)),
            },
            Step::CallFails { stmt, loc } => Note {
                kind: NoteKind::Branch,
                loc: at.src(*loc),
                message: format!("'{}' fails and returns NULL; the old block is still allocated", callee(func, *stmt)),
            },
            Step::Free { loc, again } => {
                frees += 1;
                let message = match (frees, again) {
                    (_, true) => "the loop runs again and frees it again here".to_string(),
                    (1, false) => "freed here".to_string(),
                    _ => "freed again here".to_string(),
                };
                Note { kind: NoteKind::Free, loc: at.src(*loc), message }
            }
            Step::Lost { loc, how } => {
                let message = match how {
                    Lost::Overwritten(what) => {
                        format!("'{what}' is overwritten here, losing the last reference to the memory")
                    }
                    Lost::OverwrittenInCallee { global, callee } => format!(
                        "'{callee}' overwrites global '{global}' here, losing the last reference to the memory"
                    ),
                    Lost::ContainerFreed(what) => {
                        format!("'{what}' is freed here while it holds the last reference to the memory")
                    }
                    Lost::InCallee(callee) => format!(
                        "'{callee}' frees the object holding the last reference to the memory, or overwrites it, here"
                    ),
                    Lost::NextIteration(what) => format!(
                        "the loop runs again and '{what}' is assigned here, losing the last reference to the memory"
                    ),
                    Lost::Return => "the function returns here without freeing the memory".to_string(),
                    Lost::Throw => "an exception leaves the function here without freeing the memory".to_string(),
                    Lost::Discarded => format!("the pointer returned by '{allocator}' is discarded here"),
                    Lost::DiscardedIn(path) => format!(
                        "the object returned by '{allocator}' is discarded here, with the memory in its field '{}'",
                        path.trim_start_matches('.')
                    ),
                    Lost::AliasedInCallee { callee, args, slot } => format!(
                        "arguments {} and {} of '{callee}' both lead to '{slot}': the callee stores the memory there, then overwrites it",
                        args.0 + 1,
                        args.1 + 1
                    ),
                };
                Note { kind: NoteKind::Lost, loc: at.src(*loc), message }
            }
        };
        out.push(note);
    }
    out
}
