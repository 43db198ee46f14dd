//! Reuse of analysis results across runs: per call-graph SCC, and for a whole run.
//!
//! Input: the frozen `Program`, the write-once `Summaries` as the driver fills them bottom-up,
//! the call graph's SCCs, and an environment digest (`env_digest`: check configuration,
//! working directory, the memory API declared in `.drip.toml`; `run_env` adds the reporting
//! policy for a whole run). Output: for an SCC whose key matches the previous run's,
//! its members' outcomes (summaries, diagnostics, site counts) without checking them; at the
//! end, the table of this run's SCCs for the next run. For a whole run, the previous run's
//! rendered result (`RunRecord`) when nothing changed.
//! Invariants:
//! - An SCC's key covers everything its members' outcomes are computed from: their IR (with file
//!   *paths*, never program-wide `FileId`s, which shift when TUs change), which callees are
//!   members (recursion), and for every other callee its USR, name and *summary* (plus the
//!   allocation origins the diagnostics follow down wrapper chains), direct or through the
//!   indirect-call targets the program-level facts give; whether another SCC calls each member
//!   (which decides whether its summary has heap effects), and which of its parameters every
//!   caller passes non-NULL (`nonnull`); the program-wide facts about globals
//!   (which are fixed, which are address-taken); and `env_digest`. Keying on callee
//!   summaries, not on callee keys, cuts off early: an edit that leaves a summary unchanged
//!   re-checks only the edited function's SCC.
//! - Diagnostics are stored as rendered (paths as displayed for the working directory, which is
//!   in `env_digest`), so a reused SCC gives byte-identical output; summaries are stored with
//!   paths and mapped back to this run's `FileId`s, and an entry that cannot be mapped is a miss.
//! - SCCs with an internal error are never stored (they are checked again next time).
//! - The table is one cache entry per (compile database, environment), rewritten after each run
//!   with exactly the SCCs of that run, so it never grows beyond one program's SCCs.

use crate::cache::{encode, Cache, Digest, Feed, Hasher, Kind};
use crate::callgraph::Scc;
use crate::checkers::Policy;
use crate::declare::Declarations;
use crate::diag::{Category, Diagnostic};
use crate::fastcheck::{Config, EscapeKind, SiteVerdict};
use crate::ir::{Block, Callee, FileId, Function, Loc, LocalDecl, Program, Stmt};
use crate::summary::{AllocOrigin, Direct, Summaries, Summary};
use hashbrown::HashMap;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::hash::{Hash, Hasher as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::{Mutex, OnceLock};

/// The digest of what every SCC's result depends on besides the program: the check
/// configuration and the working directory (diagnostics show paths relative to it). Not the
/// reporting policy: an SCC's outcome holds the diagnostics of every category
/// (`Policy::EVERY`), so a run with `--all-categories` reuses those of a run without.
pub fn env_digest(config: &Config, declared: &Declarations, cwd: &Path) -> Option<Digest> {
    // Every field, by construction: `Debug` prints all of `Config`. The declarations of
    // `.drip.toml` decide what calls to the functions they name do.
    let mut h = Hasher::new("drip analysis env");
    let config = Config { run_deadline: None, ..config.clone() };
    h.str(&format!("{config:?}")).path(cwd).str(&declared.key_text());
    h.finish()
}

/// `env` with the reporting policy: what a whole run's rendered result depends on besides its
/// TUs (its findings and counts are those the policy reports).
pub fn run_env(env: Digest, policy: &Policy) -> Option<Digest> {
    // The pattern stops compiling when `Policy` gains a field that is not hashed here.
    let Policy { all_categories } = policy;
    let mut h = Hasher::new("drip run env");
    h.digest(env).u64(u64::from(*all_categories));
    h.finish()
}

/// Allocation-site counts of one function, for the statistics (what the driver keeps of its
/// `SiteVerdict`s).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SiteCounts {
    pub sources: usize,
    /// Per category, in `Category::ALL` order.
    pub categories: [usize; Category::ALL.len()],
    pub over_budget: usize,
    pub sat_queries: u64,
    /// Sites whose cell reaches a callee that is neither modelled nor analysed.
    pub unknown_callee: usize,
}

impl SiteCounts {
    pub fn of(verdicts: &[SiteVerdict]) -> SiteCounts {
        let mut c = SiteCounts::default();
        for v in verdicts {
            c.sources += 1;
            if let Some(i) = Category::ALL.iter().position(|k| *k == v.category) {
                c.categories[i] += 1;
            }
            c.over_budget += usize::from(v.category == Category::OverBudget);
            c.sat_queries += u64::from(v.sat_queries);
            c.unknown_callee += usize::from(v.escapes.iter().any(|e| matches!(e, EscapeKind::UnknownCallee(_))));
        }
        c
    }
}

/// What the rest of a run uses of one function's check.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub summary: Summary,
    pub diagnostics: Vec<Diagnostic>,
    /// `leak-global` candidates, by the global's path (`checkers::global_candidates`): whether
    /// one is a finding depends on the whole program, decided after every function
    /// (`global_leaks::never_freed`).
    pub kept_in_globals: Vec<(String, Diagnostic)>,
    pub counts: SiteCounts,
    pub irreducible: bool,
    /// The check ran out of its time budget: what it concluded depends on the machine's speed,
    /// so it is never stored for reuse.
    pub timed_out: bool,
    /// The check ran out of its memory budget: not stored either, so every run names it again.
    pub over_size: bool,
}

/// A summary with its one location's file as a path. The `FileId` of that location is the one
/// of the run that stored it, and means nothing to another: `restore` replaces it.
///
/// The records borrow what a checked SCC's outcomes hold when they are stored (they are encoded
/// right away) and own what they read back: `Cow` encodes as what it holds, so both are one
/// encoding.
#[derive(Serialize, Deserialize)]
struct PortableSummary<'a> {
    summary: Cow<'a, Summary>,
    origin_file: Option<Cow<'a, Path>>,
}

#[derive(Serialize, Deserialize)]
struct MemberRecord<'a> {
    usr: Cow<'a, str>,
    summary: PortableSummary<'a>,
    diagnostics: Cow<'a, [Diagnostic]>,
    kept_in_globals: Cow<'a, [(String, Diagnostic)]>,
    counts: Cow<'a, SiteCounts>,
    irreducible: bool,
}

#[derive(Serialize, Deserialize)]
struct SccRecord<'a> {
    members: Vec<MemberRecord<'a>>,
    budget_hit: bool,
}

/// One run's view of the SCC table: the previous run's records, and this run's.
pub struct SccReuse<'a> {
    cache: &'a Cache,
    name: Digest,
    env: Digest,
    program: &'a Program,
    old: Mutex<HashMap<Digest, SccRecord<'static>>>,
    /// This run's records, encoded (`SccRecord`).
    new: Mutex<Vec<(Digest, Vec<u8>)>>,
    /// Whether this run's table differs from the previous one (else it is not rewritten).
    changed: std::sync::atomic::AtomicBool,
    file_ids: HashMap<&'a Path, FileId>,
    fn_digests: Vec<OnceLock<Option<Digest>>>,
    summary_digests: Vec<OnceLock<Option<Digest>>>,
    direct_callee_digests: Vec<OnceLock<Option<Digest>>>,
    indirect_callee_digests: Vec<OnceLock<Option<Digest>>>,
    globals_digest: OnceLock<Option<Digest>>,
}

impl<'a> SccReuse<'a> {
    /// Load the table stored under `slot` (one per compile database and environment).
    pub fn load(cache: &'a Cache, slot: Digest, env: Digest, program: &'a Program) -> SccReuse<'a> {
        let old: HashMap<Digest, SccRecord<'static>> = cache
            .open_entry(Kind::Scc, slot)
            .and_then(|e| e.body::<Vec<(Digest, SccRecord<'static>)>>(cache))
            .map(|v| v.into_iter().collect())
            .unwrap_or_default();
        let n = program.functions.len();
        SccReuse {
            cache,
            name: slot,
            env,
            program,
            changed: std::sync::atomic::AtomicBool::new(old.is_empty()),
            old: Mutex::new(old),
            new: Mutex::new(Vec::new()),
            file_ids: program.files.iter().enumerate().map(|(i, p)| (p.as_path(), FileId::from_usize(i))).collect(),
            fn_digests: (0..n).map(|_| OnceLock::new()).collect(),
            summary_digests: (0..n).map(|_| OnceLock::new()).collect(),
            direct_callee_digests: (0..n).map(|_| OnceLock::new()).collect(),
            indirect_callee_digests: (0..n).map(|_| OnceLock::new()).collect(),
            globals_digest: OnceLock::new(),
        }
    }

    /// The key of an SCC, once the summaries of all its callees are final. `None` if something
    /// in it cannot be digested (then it is checked and not stored).
    /// `called_from_outside`: `CallGraph::called_from_outside`, which decides whether a member's
    /// summary has heap effects.
    pub fn key(&self, scc: &Scc, summaries: &Summaries, called_from_outside: &[bool]) -> Option<Digest> {
        let mut h = Hasher::new("drip scc key");
        h.digest(self.env).digest(self.globals_digest(summaries)?).u64(scc.members.len() as u64);
        for &m in &scc.members {
            h.digest(self.fn_digest(m)?).u64(u64::from(called_from_outside[m]));
            // Which parameters every caller passes non-NULL: the callers decide (`nonnull`).
            h.u64(summaries.nonnull.params(m));
            for (si, s) in self.program.functions[m].stmts.iter().enumerate() {
                match s {
                    Stmt::Call { callee: Callee::Direct { name, usr, .. }, .. } => {
                        match summaries.direct_callee(m, si, name, usr) {
                            Direct::Defined(j) => self.callee(&mut h, scc, summaries, j, true)?,
                            // The library model's row (not always the name in the IR: a
                            // program's own `malloc` hands its row to the internal function it
                            // calls, `summary::delegate`) or the unknown-callee default.
                            Direct::Library(lib) => {
                                h.u64(1).str(lib.name);
                            }
                            Direct::Undefined => {
                                h.u64(0);
                            }
                            Direct::Opaque(j) => {
                                h.u64(3);
                                self.callee(&mut h, scc, summaries, j, true)?;
                            }
                        }
                    }
                    Stmt::Call { callee: Callee::Indirect { sig, field, .. }, .. } => {
                        let targets = summaries.targets(sig, field.as_deref());
                        // The library rows it may reach come from the whole program's values.
                        for lib in summaries.library_targets(sig, field.as_deref()) {
                            h.str(lib.name);
                        }
                        h.u64(targets.len() as u64);
                        for &j in targets {
                            self.callee(&mut h, scc, summaries, j, false)?;
                        }
                    }
                    Stmt::Assign { .. } => {}
                }
            }
        }
        h.finish()
    }

    /// What a call to defined function `j` contributes to the key.
    fn callee(&self, h: &mut Hasher, scc: &Scc, summaries: &Summaries, j: usize, direct: bool) -> Option<()> {
        if let Ok(pos) = scc.members.binary_search(&j) {
            h.u64(1).u64(pos as u64);
        } else {
            h.u64(2).digest(self.callee_digest(summaries, j, direct)?);
        }
        Some(())
    }

    /// What a call to `j`, a function of an SCC finished before, contributes to its callers'
    /// keys, computed once per function and kind of call (`j` is called from many places).
    fn callee_digest(&self, summaries: &Summaries, j: usize, direct: bool) -> Option<Digest> {
        let memo = if direct { &self.direct_callee_digests } else { &self.indirect_callee_digests };
        *memo[j].get_or_init(|| {
            let f = &self.program.functions[j];
            let mut h = Hasher::new("drip callee");
            h.str(&f.usr).str(&f.name);
            match self.summary_digest(summaries, j) {
                Some(d) => h.u64(1).digest(d),
                None => h.u64(0),
            };
            if direct {
                // The wrapper chain the checker prints below an allocation through `j`
                // (`checkers::wrapper_chain`): origins of summaries further down, by USR.
                let mut summary = summaries.wrapper_by_usr(&f.usr);
                for _ in 0..8 {
                    match summary.and_then(|s| s.origin.as_ref()) {
                        Some(o) => {
                            h.str(&o.allocator).str(&o.usr).u64(u64::from(o.loc.line)).u64(u64::from(o.loc.col));
                            match self.program.file(o.loc.file) {
                                Some(p) => h.path(p),
                                None => h.u64(0),
                            };
                            summary = summaries.wrapper_by_usr(&o.usr);
                        }
                        None => {
                            h.u64(0);
                            break;
                        }
                    }
                }
            }
            h.finish()
        })
    }

    /// The program-wide facts about globals every check reads: which globals are fixed, with
    /// their values (`globals`), which are address-taken (`global_writes`), so a call may
    /// write them whatever its callee's summary says, and which scalars no pointer reaches
    /// (`globals::unaliased`), whose stores kill no fact. An edit elsewhere can change any.
    fn globals_digest(&self, summaries: &Summaries) -> Option<Digest> {
        *self.globals_digest.get_or_init(|| {
            let mut fixed: Vec<(&String, &i64)> = summaries.fixed_globals.iter().collect();
            fixed.sort_unstable();
            let mut w = Feed(Vec::with_capacity(1024));
            let mut unaliased: Vec<&String> = summaries.unaliased_globals.iter().collect();
            unaliased.sort_unstable();
            (fixed, &summaries.address_taken_globals, unaliased).hash(&mut w);
            let mut h = Hasher::new("drip program globals");
            h.bytes(&w.0);
            h.finish()
        })
    }

    fn fn_digest(&self, i: usize) -> Option<Digest> {
        *self.fn_digests[i].get_or_init(|| function_digest(&self.program.functions[i], &self.program.files))
    }

    /// The digest of a final summary (`None` when the function has none: its check failed), with
    /// its origin's file as a path. Fed through `Hash`, as `function_digest` is, rather than
    /// encoded: it is computed for every function some other SCC calls.
    fn summary_digest(&self, summaries: &Summaries, j: usize) -> Option<Digest> {
        let s = summaries.get(j)?;
        *self.summary_digests[j].get_or_init(|| {
            // Field by field, without `..`: a field added to `Summary` does not compile until it
            // is hashed here.
            let Summary {
                allocator,
                origin,
                always_fresh,
                params,
                returns_param,
                returns_param_itself,
                noreturn,
                ret_success,
                alloc_if,
                out_fresh,
                out_fresh_if,
                ret_fresh,
                ret_fresh_if,
                heap,
                heap_pure,
                heap_families,
                ret_values,
                out_values,
                exit_values,
                writes,
                ret_const,
                never_null,
                never_null_when,
                ret_const_when,
                ret_const_checked,
                null_when,
                noreturn_when,
                globals_written,
                fields_written,
                param_fields_written,
                globals_read,
                globals_kept,
                global_overwrites,
                global_fresh,
                ret_addr,
                pure_value,
                reads_only,
                alloc_family,
                free_family,
                param_globals,
                va_reads,
                varargs_read,
            } = s;
            let mut w = Feed(Vec::with_capacity(256));
            (allocator, always_fresh, params, returns_param, returns_param_itself, noreturn, ret_success, alloc_if)
                .hash(&mut w);
            (out_fresh, out_fresh_if, ret_fresh, heap, heap_pure, ret_values, writes, ret_const, never_null)
                .hash(&mut w);
            (globals_written, out_values, ret_addr, never_null_when, ret_const_when, pure_value, reads_only)
                .hash(&mut w);
            (alloc_family, free_family, fields_written, null_when, heap_families, noreturn_when).hash(&mut w);
            (exit_values, param_globals, va_reads, varargs_read, ret_fresh_if, ret_const_checked).hash(&mut w);
            (globals_read, globals_kept, global_overwrites, global_fresh, param_fields_written).hash(&mut w);
            let mut h = Hasher::new("drip summary");
            match origin {
                Some(AllocOrigin { loc: Loc { file, line, col }, allocator, usr }) => {
                    (line, col, allocator, usr).hash(&mut w);
                    match self.program.file(*file) {
                        Some(p) => h.u64(1).path(p),
                        None => h.u64(2),
                    }
                }
                None => h.u64(0),
            };
            h.bytes(&w.0);
            h.finish()
        })
    }

    /// The outcomes stored under `key`, mapped to this run's ids, and whether the SCC's
    /// fixpoint hit its budget. Counted as reused.
    pub fn lookup(&self, key: Digest, scc: &Scc) -> Option<(Vec<(usize, Outcome)>, bool)> {
        let rec = self.old.lock().unwrap_or_else(|e| e.into_inner()).remove(&key)?;
        let restored = self.restore(&rec, scc);
        if restored.is_some() {
            self.cache.sccs_reused.fetch_add(1, Ordering::Relaxed);
            if let Some(bytes) = encode(&rec) {
                self.new.lock().unwrap_or_else(|e| e.into_inner()).push((key, bytes));
            }
        }
        restored
    }

    fn restore(&self, rec: &SccRecord<'_>, scc: &Scc) -> Option<(Vec<(usize, Outcome)>, bool)> {
        if rec.members.len() != scc.members.len() {
            return None;
        }
        let mut out = Vec::with_capacity(rec.members.len());
        for (m, &i) in rec.members.iter().zip(&scc.members) {
            if m.usr != self.program.functions[i].usr {
                return None;
            }
            let mut summary = Summary::clone(&m.summary.summary);
            if let Some(o) = summary.origin.as_mut() {
                let p = m.summary.origin_file.as_deref()?;
                o.loc.file = *self.file_ids.get(p)?;
            }
            out.push((
                i,
                Outcome {
                    summary,
                    diagnostics: m.diagnostics.to_vec(),
                    kept_in_globals: m.kept_in_globals.to_vec(),
                    counts: SiteCounts::clone(&m.counts),
                    irreducible: m.irreducible,
                    timed_out: false,
                    over_size: false,
                },
            ));
        }
        Some((out, rec.budget_hit))
    }

    /// Record a checked SCC's outcomes under `key` for the next run. Counted as checked.
    pub fn store(&self, key: Option<Digest>, scc: &Scc, outcomes: &[(usize, Option<&Outcome>)], budget_hit: bool) {
        self.cache.sccs_checked.fetch_add(1, Ordering::Relaxed);
        self.changed.store(true, Ordering::Relaxed);
        let Some(key) = key else { return };
        let mut members = Vec::with_capacity(outcomes.len());
        for (&i, (j, o)) in scc.members.iter().zip(outcomes) {
            // An internal error or a budget hit: nothing to store, and the SCC is checked
            // again next time.
            let (true, Some(o)) = (i == *j, o) else { return };
            if o.timed_out || o.over_size {
                return;
            }
            let origin_file = o.summary.origin.as_ref().and_then(|g| self.program.file(g.loc.file));
            members.push(MemberRecord {
                usr: Cow::Borrowed(&self.program.functions[i].usr),
                summary: PortableSummary {
                    summary: Cow::Borrowed(&o.summary),
                    origin_file: origin_file.map(Cow::Borrowed),
                },
                diagnostics: Cow::Borrowed(&o.diagnostics),
                kept_in_globals: Cow::Borrowed(&o.kept_in_globals),
                counts: Cow::Borrowed(&o.counts),
                irreducible: o.irreducible,
            });
        }
        if let Some(bytes) = encode(&SccRecord { members, budget_hit }) {
            self.new.lock().unwrap_or_else(|e| e.into_inner()).push((key, bytes));
        }
    }

    /// Write this run's table, if it differs from the one loaded.
    pub fn finish(self) {
        let old = self.old.into_inner().unwrap_or_else(|e| e.into_inner());
        let changed = self.changed.load(Ordering::Relaxed) || !old.is_empty();
        if !changed {
            return;
        }
        let mut new = self.new.into_inner().unwrap_or_else(|e| e.into_inner());
        // Sorted, so the entry does not depend on the order SCCs finished in.
        new.sort_by_key(|e| e.0);
        if let Some(body) = table_body(&new) {
            self.cache.store_encoded(Kind::Scc, self.name, &(), &body);
        }
    }
}

/// The encoding of a `Vec<(Digest, SccRecord)>` from records already encoded: postcard writes a
/// sequence as its length, then its items one after another.
fn table_body(records: &[(Digest, Vec<u8>)]) -> Option<Vec<u8>> {
    let mut body = encode(&records.len())?;
    body.reserve(records.iter().map(|r| r.1.len() + 17).sum());
    for (key, rec) in records {
        body.extend_from_slice(&encode(key)?);
        body.extend_from_slice(rec);
    }
    Some(body)
}

/// The digest of a function's IR, with every location's file as a path: the files it names are
/// numbered in order of first appearance, and their paths hashed in that order. Computed for
/// every function of a run that uses the cache, so it feeds `Hash` (see `cache::Feed`) instead
/// of encoding the IR, and renumbers locations as it goes instead of on a copy.
pub fn function_digest(f: &Function, files: &[PathBuf]) -> Option<Digest> {
    // Field by field, without `..`: a field added to the IR does not compile until it is hashed
    // here, since a change the digest missed would let a stale result be reused.
    let Function {
        name,
        usr,
        is_static,
        loc,
        sig,
        n_params,
        locals,
        returns_pointer,
        blocks,
        entry,
        stmts,
        stmt_locs,
        lowering_notes,
        bits,
        steps,
        nonneg,
        grows,
        offsets,
        case_labels,
        tested_elems,
        throws,
        unwinds,
        owner_cycles,
    } = f;
    let mut files = FileNumbering { files, seen: Vec::new() };
    let mut w = Feed(Vec::with_capacity(4096));
    (name, usr, is_static, sig, n_params, returns_pointer, entry, stmts, lowering_notes, bits, steps, case_labels)
        .hash(&mut w);
    (nonneg, grows, offsets).hash(&mut w);
    tested_elems.hash(&mut w);
    (throws, unwinds).hash(&mut w);
    files.loc(*loc).hash(&mut w);
    w.write_usize(locals.len());
    for d in locals {
        let LocalDecl { name, kind, is_pointer, is_aggregate, may_run_code, is_static, pointee_pointer, loc } = d;
        (name, kind, is_pointer, is_aggregate, may_run_code, is_static, pointee_pointer, files.loc(*loc)).hash(&mut w);
    }
    w.write_usize(blocks.len());
    for b in blocks {
        let Block { stmts, term, term_loc } = b;
        (stmts, term, files.loc(*term_loc)).hash(&mut w);
    }
    w.write_usize(stmt_locs.len());
    for l in stmt_locs {
        files.loc(*l).hash(&mut w);
    }
    w.write_usize(owner_cycles.len());
    for c in owner_cycles {
        let crate::ir::OwnerCycle { at, allocator, links, others, lost } = c;
        (files.loc(*at), allocator, links, files.loc(*lost)).hash(&mut w);
        w.write_usize(others.len());
        for l in others {
            files.loc(*l).hash(&mut w);
        }
    }
    let mut h = Hasher::new("drip function");
    h.u64(files.seen.len() as u64);
    for (_, p) in &files.seen {
        h.path(p);
    }
    h.bytes(&w.0);
    h.finish()
}

/// Renumbers a function's files in order of first appearance (a function names one or a few).
struct FileNumbering<'a> {
    files: &'a [PathBuf],
    seen: Vec<(FileId, &'a Path)>,
}

impl FileNumbering<'_> {
    fn loc(&mut self, l: Loc) -> Loc {
        let Some(p) = self.files.get(l.file.index()) else { return l };
        let n = match self.seen.iter().position(|&(id, _)| id == l.file) {
            Some(n) => n,
            None => {
                self.seen.push((l.file, p));
                self.seen.len() - 1
            }
        };
        Loc { file: FileId::from_usize(n), ..l }
    }
}

/// Everything a run's output and statistics are made of, when it can be replayed.
#[derive(Serialize, Deserialize)]
pub struct RunRecord {
    pub stats: crate::driver::Stats,
    pub diagnostics: Vec<Diagnostic>,
    /// The front end's messages (shown with `-v`).
    pub messages: Vec<String>,
    /// The first error of each TU parsed with errors (shown without `-v`).
    pub first_errors: Vec<String>,
    pub undefined_functions: Vec<String>,
    pub opaque_cpp: Vec<String>,
    /// The program's source files as findings name them, for the stale suppressions `-v` lists.
    pub files: Vec<String>,
}

/// The key of a whole run: every TU's content digest, in compile-command order, and the
/// environment. `None` when a TU has no valid cache entry.
pub fn run_key(env: Digest, tu_digests: &[Option<Digest>]) -> Option<Digest> {
    let mut h = Hasher::new("drip run key");
    h.digest(env).u64(tu_digests.len() as u64);
    for d in tu_digests {
        h.digest((*d)?);
    }
    h.finish()
}

/// The previous run's record under `slot`, if its key is `key`.
pub fn load_run(cache: &Cache, slot: Digest, key: Digest) -> Option<RunRecord> {
    let entry = cache.open_entry(Kind::Run, slot)?;
    if entry.meta::<Digest>(cache)? != key {
        return None;
    }
    entry.body(cache)
}

pub fn store_run(cache: &Cache, slot: Digest, key: Digest, rec: &RunRecord) {
    cache.store(Kind::Run, slot, &key, rec);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Block, BlockId, LocalDecl, LocalKind, Operand, StmtId, Terminator};

    /// `void *f(void) { return malloc(8); }` with its locations in files `a` (the body) and `b`
    /// (a macro's expansion in a header).
    fn func(a: FileId, b: FileId, line: u32) -> Function {
        let loc = |file, line| Loc { file, line, col: 3 };
        Function {
            name: "f".into(),
            usr: "c:@F@f".into(),
            is_static: false,
            loc: loc(a, line),
            sig: "void *(void)".into(),
            n_params: 0,
            locals: vec![LocalDecl {
                name: "t".into(),
                kind: LocalKind::Temp,
                is_pointer: true,
                is_aggregate: false,
                may_run_code: false,
                is_static: false,
                pointee_pointer: None,
                loc: loc(a, line),
            }],
            returns_pointer: true,
            blocks: vec![Block {
                stmts: vec![StmtId(0)],
                term: Terminator::Return(Some(Operand::Place(crate::ir::Place::Local(crate::ir::LocalId(0))))),
                term_loc: loc(b, 7),
            }],
            entry: BlockId(0),
            stmts: vec![Stmt::Call {
                dst: Some(crate::ir::Place::Local(crate::ir::LocalId(0))),
                callee: Callee::Direct { name: "malloc".into(), usr: "c:@F@malloc".into(), const_args: 0 },
                args: vec![Operand::Const(8)],
            }],
            stmt_locs: vec![loc(a, line + 1)],
            lowering_notes: Vec::new(),
            bits: Vec::new(),
            steps: Vec::new(),
            nonneg: Vec::new(),
            grows: Vec::new(),
            offsets: Vec::new(),
            case_labels: Vec::new(),
            tested_elems: Vec::new(),
            throws: Vec::new(),
            unwinds: Vec::new(),
            owner_cycles: Vec::new(),
        }
    }

    fn paths(v: &[&str]) -> Vec<PathBuf> {
        v.iter().map(PathBuf::from).collect()
    }

    #[test]
    fn function_digests_name_files_by_path_not_by_id() {
        let files = paths(&["/p/a.c", "/p/b.h"]);
        let base = function_digest(&func(FileId(0), FileId(1), 10), &files);
        assert!(base.is_some());
        // Another program (more TUs, another merge order): other ids, same paths.
        let shifted = paths(&["/p/z.c", "/p/b.h", "/p/y.c", "/p/a.c"]);
        assert_eq!(base, function_digest(&func(FileId(3), FileId(1), 10), &shifted));
        // Same ids, another file behind one of them.
        let moved = paths(&["/p/a.c", "/p/c.h"]);
        assert_ne!(base, function_digest(&func(FileId(0), FileId(1), 10), &moved));
        // Body and header swapped: same set of paths, other roles.
        assert_ne!(base, function_digest(&func(FileId(1), FileId(0), 10), &files));
        // Moved down by a line: its locations (and so its diagnostics) change.
        assert_ne!(base, function_digest(&func(FileId(0), FileId(1), 11), &files));
        let mut g = func(FileId(0), FileId(1), 10);
        g.stmts[0] = Stmt::Call {
            dst: Some(crate::ir::Place::Local(crate::ir::LocalId(0))),
            callee: Callee::Direct { name: "malloc".into(), usr: "c:@F@malloc".into(), const_args: 0 },
            args: vec![Operand::Const(16)],
        };
        assert_ne!(base, function_digest(&g, &files), "a constant in the body");
    }

    #[test]
    fn every_part_of_a_function_is_in_its_digest() {
        let files = paths(&["/p/a.c", "/p/b.h"]);
        let f = || func(FileId(0), FileId(1), 10);
        let base = function_digest(&f(), &files);
        let edits: Vec<(&str, fn(&mut Function))> = vec![
            ("name", |g| g.name = "g".into()),
            ("usr", |g| g.usr = "c:@F@g".into()),
            ("is_static", |g| g.is_static = true),
            ("sig", |g| g.sig = "void *(int)".into()),
            ("n_params", |g| g.n_params = 1),
            ("returns_pointer", |g| g.returns_pointer = false),
            ("entry", |g| g.entry = BlockId(1)),
            ("a lowering note", |g| g.lowering_notes.push("asm goto".into())),
            ("a statement's bits", |g| g.bits.push((crate::ir::StmtId(0), crate::ir::Bits::constant(1)))),
            ("a statement's step", |g| g.steps.push((crate::ir::StmtId(0), 1, false))),
            ("a statement's sign", |g| g.nonneg.push((crate::ir::StmtId(0), 0))),
            ("a statement's floor", |g| g.nonneg.push((crate::ir::StmtId(0), 1))),
            ("a statement that grows", |g| g.grows.push(crate::ir::StmtId(0))),
            ("a statement's offset", |g| g.offsets.push((crate::ir::StmtId(0), 2))),
            ("a throw", |g| g.throws.push(BlockId(0))),
            ("a call that may throw", |g| {
                g.unwinds.push(crate::ir::Unwind { call: crate::ir::StmtId(0), cleanups: Vec::new(), handler: None })
            }),
            ("a local's name", |g| g.locals[0].name = "u".into()),
            ("a local's kind", |g| g.locals[0].kind = LocalKind::Var),
            ("a local's pointer flag", |g| g.locals[0].is_pointer = false),
            ("a local's aggregate flag", |g| g.locals[0].is_aggregate = true),
            ("a local's static flag", |g| g.locals[0].is_static = true),
            ("a local's column", |g| g.locals[0].loc.col = 4),
            ("a second local", |g| g.locals.push(g.locals[0].clone())),
            ("a block's statements", |g| g.blocks[0].stmts.clear()),
            ("a terminator", |g| g.blocks[0].term = Terminator::Return(None)),
            ("a terminator's column", |g| g.blocks[0].term_loc.col = 4),
            ("a statement's column", |g| g.stmt_locs[0].col = 4),
            ("the function's column", |g| g.loc.col = 4),
            ("a cycle of owners", |g| {
                let at = g.loc;
                g.owner_cycles.push(crate::ir::OwnerCycle {
                    at,
                    allocator: "new".into(),
                    links: Vec::new(),
                    others: Vec::new(),
                    lost: at,
                })
            }),
        ];
        for (what, edit) in edits {
            let mut g = f();
            edit(&mut g);
            assert_ne!(base, function_digest(&g, &files), "{what}");
        }
    }

    #[test]
    fn the_environment_covers_options_and_working_directory() {
        let c = Config::standard();
        let (quiet, all) = (Policy { all_categories: false }, Policy { all_categories: true });
        let none = Declarations::default();
        let base = env_digest(&c, &none, Path::new("/w"));
        assert_eq!(base, env_digest(&c, &none, Path::new("/w")));
        assert_ne!(base, env_digest(&c, &none, Path::new("/v")), "paths are shown relative to it");
        let mut tighter = Config::standard();
        tighter.sat_conflicts /= 2;
        assert_ne!(base, env_digest(&tighter, &none, Path::new("/w")), "budgets");
        // A result finished before the run's deadline does not depend on it.
        let deadline = Config { run_deadline: Some(std::time::Instant::now()), ..Config::standard() };
        assert_eq!(base, env_digest(&deadline, &none, Path::new("/w")), "run-time-ms");
        let mut declared = Declarations::default();
        let table: toml::Table = "xfree = 0".parse().expect("toml");
        declared.add_table("deallocators", &table, "t.toml").expect("valid");
        assert_ne!(base, env_digest(&c, &declared, Path::new("/w")), "declarations");
        // SCC results hold every category's diagnostics; a whole run's result is the policy's.
        let base = base.expect("a digest");
        assert_ne!(run_env(base, &quiet), run_env(base, &all), "--all-categories");
        assert_ne!(run_env(base, &quiet), Some(base));
    }

    #[test]
    fn run_keys_need_every_tu_and_follow_their_order() {
        let env = Digest(1);
        let (a, b) = (Digest(2), Digest(3));
        assert!(run_key(env, &[Some(a), None]).is_none(), "a TU without a valid entry");
        assert_ne!(run_key(env, &[Some(a), Some(b)]), run_key(env, &[Some(b), Some(a)]));
        assert_ne!(run_key(env, &[Some(a)]), run_key(Digest(9), &[Some(a)]));
    }

    #[test]
    fn stored_records_read_back_with_the_origin_file_as_a_path() {
        let mut s = Summary::plain(1, false);
        s.allocator = true;
        s.origin = Some(crate::summary::AllocOrigin {
            loc: Loc { file: FileId(1), line: 4, col: 2 },
            allocator: "malloc".into(),
            usr: "c:@F@malloc".into(),
        });
        let counts = SiteCounts::default();
        let member = |origin_file: Option<&'static Path>| MemberRecord {
            usr: Cow::Borrowed("c:@F@f"),
            summary: PortableSummary { summary: Cow::Borrowed(&s), origin_file: origin_file.map(Cow::Borrowed) },
            diagnostics: Cow::Borrowed(&[]),
            kept_in_globals: Cow::Borrowed(&[]),
            counts: Cow::Borrowed(&counts),
            irreducible: false,
        };
        let records: Vec<(Digest, Vec<u8>)> = [(Digest(7), Some(Path::new("/p/x.c"))), (Digest(1 << 100), None)]
            .into_iter()
            .map(|(key, file)| {
                (key, encode(&SccRecord { members: vec![member(file)], budget_hit: true }).expect("encodes"))
            })
            .collect();
        let back: Vec<(Digest, SccRecord<'static>)> =
            postcard::from_bytes(&table_body(&records).expect("encodes")).expect("an SCC table");
        assert_eq!(back.len(), 2);
        assert_eq!((back[0].0, back[1].0), (Digest(7), Digest(1 << 100)));
        let m = &back[0].1.members[0];
        assert_eq!((&*m.usr, back[0].1.budget_hit), ("c:@F@f", true));
        assert_eq!(m.summary.origin_file.as_deref(), Some(Path::new("/p/x.c")));
        assert_eq!(*m.summary.summary, s, "the summary, with this run's FileId that `restore` replaces");
        assert_eq!(back[1].1.members[0].summary.origin_file, None);
    }
}
