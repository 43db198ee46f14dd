//! Link units: which translation units make which program, and where a call to a function that
//! the compile database defines more than once goes.
//!
//! Input: `drip_links.json` beside `compile_commands.json` (`LinkRecord`s, written by `drip
//! capture`: one per executable, shared library or archive the build linked), the compile
//! commands; for `resolve`, the merged `ir::Program` and, per function, the compile commands
//! (indices) that defined it.
//! Output: `Links` (per program, its TUs in link order); `resolve` gives every duplicate
//! external definition a USR of its own, points each call and function reference at the
//! definition its program links (or, without link information, at the nearest one), clones a
//! function once per group of programs in which its callees differ, and returns the messages
//! that say so.
//! Invariants:
//! - a program without duplicate definitions is left exactly as it is (no clone, no rename);
//! - every definition of a duplicated name stays in the program and is analysed;
//! - deterministic: units are sorted by output path, definitions are in compile-command order,
//!   and no hash order reaches the program or the messages.

use crate::compdb::{self, CompileCommand};
use crate::ir::{Callee, Function, Operand, Program, Rvalue, Stmt, Terminator};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

/// The file beside `compile_commands.json`.
pub const FILE_NAME: &str = "drip_links.json";

/// The words every message about a duplicated name carries: the CLI's notifications and its
/// summary line find them by it.
pub const DUPLICATE: &str = "is defined more than once";

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LinkKind {
    Executable,
    SharedLibrary,
    Archive,
}

/// One link step of the build: `cc -o prog a.o libx.a -lm`, `cc -shared -o libx.so ..`,
/// `ar rcs libx.a a.o b.o`. Paths are absolute.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct LinkRecord {
    /// The file written.
    pub output: String,
    pub kind: LinkKind,
    /// Where the command ran.
    pub directory: String,
    /// Objects, archives, shared libraries and sources (compiled and linked in one command), in
    /// command-line order; for an archive, its members.
    pub inputs: Vec<String>,
    /// `-lNAME` libraries (the NAMEs), in order.
    #[serde(default)]
    pub libraries: Vec<String>,
    /// `-L` directories.
    #[serde(default)]
    pub search: Vec<String>,
}

/// One program (an executable or a shared library; an archive that nothing links is one too):
/// its output and its translation units (compile-command indices) in link order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unit {
    pub output: PathBuf,
    pub tus: Vec<u32>,
}

#[derive(Debug, Clone, Default)]
pub struct Links {
    pub units: Vec<Unit>,
    /// Per compile command: the units it is linked into (sorted).
    pub units_of_tu: Vec<Vec<u32>>,
}

impl Links {
    /// What the analysis depends on: the units' members. Part of the run's key.
    pub fn digest(&self) -> Option<crate::cache::Digest> {
        let mut h = crate::cache::Hasher::new("drip link units");
        for u in &self.units {
            h.path(&u.output).u64(u.tus.len() as u64);
            for t in &u.tus {
                h.u64(u64::from(*t));
            }
        }
        h.finish()
    }
}

/// The link file beside the compile database `db_dir/compile_commands.json`: `Ok(None)` when
/// there is none, `Err` (a warning to show; the check goes on without it) when it is unreadable.
pub fn load(db_dir: &Path, cmds: &[CompileCommand]) -> Result<Option<Links>, String> {
    let path = db_dir.join(FILE_NAME);
    let text = match crate::files::read(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(format!("cannot read {}: {e}; duplicate definitions are resolved without it", path.display()))
        }
    };
    let records: Vec<LinkRecord> = serde_json::from_slice(&text).map_err(|e| {
        format!("{} is not a list of link records ({e}); duplicate definitions are resolved without it", path.display())
    })?;
    Ok(Some(units(&records, cmds)))
}

/// The `-o` value of a compiler argv (argv[0] the compiler), if it names one.
pub fn explicit_output(args: &[String]) -> Option<String> {
    let mut it = args.iter().skip(1);
    let mut out = None;
    while let Some(a) = it.next() {
        if a == "-o" || a == "--output" {
            out = it.next().cloned();
        } else if let Some(o) = a.strip_prefix("--output=") {
            out = Some(o.to_string());
        } else if let Some(o) = a.strip_prefix("-o").filter(|o| !o.is_empty() && !a.starts_with("-objc")) {
            out = Some(o.to_string());
        }
    }
    out
}

/// The object a compile command writes: its `-o`, else the source's stem with `.o` in the
/// directory it ran in (what `cc -c dir/a.c` writes).
fn object_of(c: &CompileCommand) -> PathBuf {
    match explicit_output(&c.arguments) {
        Some(o) => compdb::absolute(Path::new(&o), &c.directory),
        None => {
            let stem = c.file.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            compdb::normalize(&c.directory.join(format!("{stem}.o")))
        }
    }
}

/// The programs of `records`, each with the compile commands its inputs come from.
pub fn units(records: &[LinkRecord], cmds: &[CompileCommand]) -> Links {
    // An object or a source named on a link line → the compile commands that made it.
    let mut tus_of: HashMap<PathBuf, Vec<u32>> = HashMap::new();
    for (i, c) in cmds.iter().enumerate() {
        let i = u32::try_from(i).unwrap_or(u32::MAX);
        tus_of.entry(object_of(c)).or_default().push(i);
        tus_of.entry(compdb::normalize(&c.file)).or_default().push(i);
    }
    let mut by_output: BTreeMap<PathBuf, &LinkRecord> = BTreeMap::new();
    for r in records {
        by_output.insert(compdb::normalize(Path::new(&r.output)), r);
    }
    // A shared library named without its version (`libx.so`, the link-time symlink libtool and
    // most builds make) is the versioned file the build wrote (`libx.so.0.0.1`).
    let output_of = |p: &Path| -> Option<PathBuf> {
        if by_output.contains_key(p) {
            return Some(p.to_path_buf());
        }
        let name = p.file_name()?.to_str()?;
        if !name.ends_with(".so") {
            return None;
        }
        let versioned = |q: &PathBuf| {
            q.parent() == p.parent()
                && q.file_name().and_then(|n| n.to_str()).and_then(|n| n.strip_prefix(name)).is_some_and(|v| {
                    v.strip_prefix('.').is_some_and(|v| !v.is_empty() && v.split('.').all(|d| d.parse::<u32>().is_ok()))
                })
                && by_output[q].kind == LinkKind::SharedLibrary
        };
        by_output.keys().find(|q| versioned(q)).cloned()
    };
    let by_name = |name: &str| -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> =
            by_output.keys().filter(|p| p.file_name().is_some_and(|n| n == name)).cloned().collect();
        if v.is_empty() && name.ends_with(".so") {
            let dirs: BTreeSet<&Path> = by_output.keys().filter_map(|p| p.parent()).collect();
            v = dirs.into_iter().filter_map(|d| output_of(&d.join(name))).collect();
        }
        v
    };
    // `-lNAME` → the library the build made: in a `-L` directory first, else by file name.
    let library = |r: &LinkRecord, name: &str| -> Option<PathBuf> {
        for file in [format!("lib{name}.so"), format!("lib{name}.a")] {
            for d in &r.search {
                if let Some(p) = output_of(&compdb::normalize(&Path::new(d).join(&file))) {
                    return Some(p);
                }
            }
            if let Some(p) = by_name(&file).into_iter().next() {
                return Some(p);
            }
        }
        None
    };
    let mut used_archives: BTreeSet<PathBuf> = BTreeSet::new();
    let expand = |root: &LinkRecord, used_archives: &mut BTreeSet<PathBuf>| -> Vec<u32> {
        let mut tus: Vec<u32> = Vec::new();
        let mut seen_tu: BTreeSet<u32> = BTreeSet::new();
        let mut seen: BTreeSet<PathBuf> = BTreeSet::new();
        let mut stack: Vec<PathBuf> = Vec::new();
        let push_inputs = |r: &LinkRecord, stack: &mut Vec<PathBuf>| {
            let mut next: Vec<PathBuf> =
                r.inputs.iter().map(|i| compdb::absolute(Path::new(i), Path::new(&r.directory))).collect();
            next.extend(r.libraries.iter().filter_map(|l| library(r, l)));
            // Depth first, in command-line order.
            stack.extend(next.into_iter().rev());
        };
        push_inputs(root, &mut stack);
        while let Some(p) = stack.pop() {
            let p = if tus_of.contains_key(&p) { p } else { output_of(&p).unwrap_or(p) };
            if !seen.insert(p.clone()) {
                continue;
            }
            if let Some(v) = tus_of.get(&p) {
                for &t in v {
                    if seen_tu.insert(t) {
                        tus.push(t);
                    }
                }
            } else if let Some(r) = by_output.get(&p) {
                if r.kind == LinkKind::Archive {
                    used_archives.insert(p.clone());
                }
                push_inputs(r, &mut stack);
            }
        }
        tus
    };
    let mut units = Vec::new();
    for (out, r) in &by_output {
        if r.kind != LinkKind::Archive {
            units.push(Unit { output: out.clone(), tus: expand(r, &mut used_archives) });
        }
    }
    // An archive no recorded program links (a library project) is a program of its own.
    for (out, r) in &by_output {
        if r.kind == LinkKind::Archive && !used_archives.contains(out) {
            let tus = expand(r, &mut BTreeSet::new());
            units.push(Unit { output: out.clone(), tus });
        }
    }
    units.retain(|u| !u.tus.is_empty());
    units.sort_by(|a, b| a.output.cmp(&b.output));
    let mut units_of_tu = vec![Vec::new(); cmds.len()];
    for (k, u) in units.iter().enumerate() {
        for &t in &u.tus {
            if let Some(v) = units_of_tu.get_mut(t as usize) {
                v.push(k as u32);
            }
        }
    }
    Links { units, units_of_tu }
}

/// Every function USR a function's body names: direct callees and functions used as values.
fn for_each_ref(f: &mut Function, visit: &mut dyn FnMut(&mut String)) {
    fn op(o: &mut Operand, visit: &mut dyn FnMut(&mut String)) {
        if let Operand::Func { usr, .. } = o {
            visit(usr);
        }
    }
    for s in f.stmts.iter_mut() {
        match s {
            Stmt::Assign { src: Rvalue::Use(o), .. } => op(o, visit),
            Stmt::Assign { src: Rvalue::Opaque(ops), .. } => ops.iter_mut().for_each(|o| op(o, visit)),
            Stmt::Assign { .. } => {}
            Stmt::Call { callee, args, .. } => {
                match callee {
                    Callee::Direct { usr, .. } => visit(usr),
                    Callee::Indirect { target, .. } => op(target, visit),
                }
                args.iter_mut().for_each(|o| op(o, visit));
            }
        }
    }
    for b in f.blocks.iter_mut() {
        if let Terminator::Return(Some(o)) = &mut b.term {
            op(o, visit);
        }
    }
}

/// A duplicated external name and its definitions (function indices, compile-command order).
struct Dup {
    usr: String,
    defs: Vec<usize>,
}

/// Without link information: the definition nearest the caller's directory — most leading
/// directories in common, then one whose directory holds the caller's (`xmalloc.c` beside
/// `shell.c` rather than `lib/readline/xmalloc.c`) — and among equals the first.
fn nearest(prog: &Program, from: &Path, defs: &[usize], caller: usize) -> usize {
    let mut best = (0usize, (0usize, false));
    for (k, &d) in defs.iter().enumerate() {
        // The caller's own slot is taken out while its body is rewritten.
        let to = if d == caller { from.to_path_buf() } else { dir_of(prog, &prog.functions[d]) };
        let common = from.components().zip(to.components()).take_while(|(a, b)| a == b).count();
        let score = (common, to.components().count() == common);
        if k == 0 || score > best.1 {
            best = (k, score);
        }
    }
    best.0
}

fn dir_of(prog: &Program, f: &Function) -> PathBuf {
    prog.file(f.loc.file).and_then(Path::parent).map(Path::to_path_buf).unwrap_or_default()
}

fn shown(prog: &Program, f: &Function) -> String {
    prog.file(f.loc.file).map_or_else(|| "?".to_string(), crate::frontend::shown_path)
}

/// Resolve the program's duplicate definitions (see the module doc). `origins[i]`: the compile
/// commands that defined function `i` (sorted); clones get their original's. Returns the
/// messages: a warning per name resolved without link information (`DUPLICATE`), notes for
/// those the link units resolved and for functions analysed once per group of programs.
pub fn resolve(prog: &mut Program, origins: &mut Vec<Vec<u32>>, links: Option<&Links>) -> Vec<String> {
    let mut groups: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, f) in prog.functions.iter().enumerate() {
        if !f.is_static && !f.usr.is_empty() {
            groups.entry(f.usr.as_str()).or_default().push(i);
        }
    }
    let dups: Vec<Dup> =
        groups.into_iter().filter(|(_, v)| v.len() > 1).map(|(usr, defs)| Dup { usr: usr.to_string(), defs }).collect();
    if dups.is_empty() {
        return Vec::new();
    }
    let dup_of: HashMap<String, usize> = dups.iter().enumerate().map(|(a, d)| (d.usr.clone(), a)).collect();
    // Each definition gets a USR of its own: the name's, and where it is defined.
    for d in &dups {
        for &i in &d.defs {
            let path = prog.file(prog.functions[i].loc.file).map(|p| p.display().to_string()).unwrap_or_default();
            prog.functions[i].usr = format!("{}@{path}", d.usr);
        }
    }
    let n = prog.functions.len();
    let index: HashMap<String, usize> = prog.functions.iter().enumerate().map(|(i, f)| (f.usr.clone(), i)).collect();
    // Per function: the functions it names (every definition of a duplicated name) and the
    // duplicated names it names itself.
    let mut edges: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut direct_dups: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); n];
    for i in 0..n {
        let mut f = std::mem::replace(&mut prog.functions[i], placeholder());
        for_each_ref(&mut f, &mut |usr| {
            if let Some(&a) = dup_of.get(usr.as_str()) {
                direct_dups[i].insert(a);
                edges[i].extend_from_slice(&dups[a].defs);
            } else if let Some(&j) = index.get(usr.as_str()) {
                edges[i].push(j);
            }
        });
        prog.functions[i] = f;
    }
    let units_of = |i: usize| -> Vec<u32> {
        let Some(l) = links else { return Vec::new() };
        let mut v: Vec<u32> =
            origins[i].iter().flat_map(|&t| l.units_of_tu.get(t as usize).cloned().unwrap_or_default()).collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    let fn_units: Vec<Vec<u32>> = (0..n).map(units_of).collect();
    // The definition of duplicated name `a` in unit `u`: the one linked first. A table, since
    // every function asks it for each unit and name it reaches.
    let table: Vec<Vec<Option<usize>>> = links.map_or_else(Vec::new, |l| {
        l.units
            .iter()
            .map(|unit| {
                let pos: HashMap<u32, usize> = unit.tus.iter().enumerate().map(|(p, &t)| (t, p)).collect();
                dups.iter()
                    .map(|d| {
                        let first = |k: usize| origins[d.defs[k]].iter().filter_map(|t| pos.get(t).copied()).min();
                        (0..d.defs.len()).filter_map(|k| first(k).map(|p| (p, k))).min().map(|(_, k)| k)
                    })
                    .collect()
            })
            .collect()
    });
    let choice = |u: u32, a: usize| -> Option<usize> { table.get(u as usize).and_then(|row| row[a]) };
    // The duplicated names each function reaches through its callees: its variants differ only
    // in those.
    let mut reach: Vec<BTreeSet<usize>> = direct_dups.clone();
    if links.is_some() {
        let mut changed = true;
        while changed {
            changed = false;
            for i in 0..n {
                let mut add: Vec<usize> = Vec::new();
                for &j in &edges[i] {
                    add.extend(reach[j].iter().filter(|a| !reach[i].contains(a)));
                }
                if !add.is_empty() {
                    reach[i].extend(add);
                    changed = true;
                }
            }
        }
    }
    // Variants: the units of a function grouped by the definitions they link for what it
    // reaches. A function with one group is analysed once.
    let mut variants: Vec<Vec<Vec<u32>>> = Vec::with_capacity(n);
    for i in 0..n {
        let mut groups: Vec<(Vec<Option<usize>>, Vec<u32>)> = Vec::new();
        if !reach[i].is_empty() {
            for &u in &fn_units[i] {
                let key: Vec<Option<usize>> = reach[i].iter().map(|&a| choice(u, a)).collect();
                match groups.iter_mut().find(|g| g.0 == key) {
                    Some(g) => g.1.push(u),
                    None => groups.push((key, vec![u])),
                }
            }
        }
        variants.push(if groups.is_empty() {
            vec![fn_units[i].clone()]
        } else {
            groups.into_iter().map(|g| g.1).collect()
        });
    }
    // instances[i]: (units, function index) per variant of `i`; the first is `i` itself.
    let mut instances: Vec<Vec<(Vec<u32>, usize)>> = Vec::with_capacity(n);
    let mut notes = Vec::new();
    for i in 0..n {
        let mut inst = Vec::new();
        for (v, units) in variants[i].iter().enumerate() {
            if v == 0 {
                inst.push((units.clone(), i));
                continue;
            }
            let mut clone = prog.functions[i].clone();
            let first = links.map(|l| l.units[units[0] as usize].output.display().to_string()).unwrap_or_default();
            clone.usr = format!("{}#{first}", clone.usr);
            inst.push((units.clone(), prog.functions.len()));
            prog.functions.push(clone);
            origins.push(origins[i].clone());
        }
        if inst.len() > 1 {
            let f = &prog.functions[i];
            notes.push(format!(
                "{}: note: function `{}` is analysed {} times, once per group of programs that link different definitions of what it calls",
                shown(prog, f),
                f.name,
                inst.len()
            ));
        }
        instances.push(inst);
    }
    let pick = |i: usize, units: &[u32]| -> usize {
        let inst = &instances[i];
        units.first().and_then(|u| inst.iter().find(|x| x.0.contains(u))).map_or(inst[0].1, |x| x.1)
    };
    let usrs: Vec<String> = prog.functions.iter().map(|f| f.usr.clone()).collect();
    // Calls resolved per duplicated name: by the caller's program, by the nearest rule, or to
    // nothing (no definition linked with the caller).
    let mut by_unit = vec![0usize; dups.len()];
    let mut by_rule = vec![vec![0usize; 0]; dups.len()];
    for (a, d) in dups.iter().enumerate() {
        by_rule[a] = vec![0; d.defs.len()];
    }
    let mut unlinked = vec![0usize; dups.len()];
    for i in 0..n {
        for (units, fi) in instances[i].clone() {
            let from = dir_of(prog, &prog.functions[fi]);
            let mut f = std::mem::replace(&mut prog.functions[fi], placeholder());
            for_each_ref(&mut f, &mut |usr| {
                if let Some(&a) = dup_of.get(usr.as_str()) {
                    let k = match units.first() {
                        Some(&u) => match choice(u, a) {
                            Some(k) => {
                                by_unit[a] += 1;
                                k
                            }
                            None => {
                                // No definition is linked with the caller: the name stays
                                // unresolved (a library function, or an unknown callee).
                                unlinked[a] += 1;
                                return;
                            }
                        },
                        None => {
                            let k = nearest(prog, &from, &dups[a].defs, fi);
                            by_rule[a][k] += 1;
                            k
                        }
                    };
                    *usr = usrs[pick(dups[a].defs[k], &units)].clone();
                } else if let Some(&j) = index.get(usr.as_str()) {
                    if instances[j].len() > 1 {
                        *usr = usrs[pick(j, &units)].clone();
                    }
                }
            });
            prog.functions[fi] = f;
        }
    }
    // The program-wide tables name a duplicated or cloned function by one USR: they now name
    // every definition and variant (an indirect call may reach any of them).
    let mut expand: HashMap<String, Vec<String>> = HashMap::new();
    for d in &dups {
        let all = d.defs.iter().flat_map(|&i| instances[i].iter().map(|x| usrs[x.1].clone())).collect();
        expand.insert(d.usr.clone(), all);
    }
    for (i, inst) in instances.iter().enumerate() {
        if inst.len() > 1 {
            expand.insert(usrs[i].clone(), inst.iter().map(|x| usrs[x.1].clone()).collect());
        }
    }
    let each = |u: &String| expand.get(u).cloned().unwrap_or_else(|| vec![u.clone()]);
    prog.address_taken = prog.address_taken.iter().flat_map(each).collect();
    prog.address_taken.sort();
    prog.address_taken.dedup();
    prog.cast_targets =
        prog.cast_targets.iter().flat_map(|(u, s)| each(u).into_iter().map(|u| (u, s.clone()))).collect();
    prog.cast_targets.sort();
    prog.cast_targets.dedup();
    prog.field_targets =
        prog.field_targets.iter().flat_map(|(k, u)| each(u).into_iter().map(|u| (k.clone(), u))).collect();
    prog.field_targets.sort();
    prog.field_targets.dedup();
    for g in &mut prog.field_groups {
        *g = g.iter().flat_map(|(k, u)| each(u).into_iter().map(|u| (k.clone(), u))).collect();
        g.sort();
        g.dedup();
    }
    prog.field_groups.sort();
    prog.field_groups.dedup();
    prog.param_stores =
        prog.param_stores.iter().flat_map(|(k, u, i)| each(u).into_iter().map(|u| (k.clone(), u, *i))).collect();
    prog.param_stores.sort();
    prog.param_stores.dedup();
    prog.library_taken = prog
        .library_taken
        .iter()
        .flat_map(|(u, nm, s)| each(u).into_iter().map(|u| (u, nm.clone(), s.clone())))
        .collect();
    prog.library_taken.sort();
    prog.library_taken.dedup();
    for (a, d) in dups.iter().enumerate() {
        let first = &prog.functions[d.defs[0]];
        let places: Vec<String> = d.defs.iter().map(|&i| shown(prog, &prog.functions[i])).collect();
        let rule: usize = by_rule[a].iter().sum();
        if links.is_none() || rule > 0 {
            let counts: Vec<String> = by_rule[a].iter().zip(&places).map(|(c, p)| format!("{c} to {p}")).collect();
            let why = if links.is_none() {
                format!("no link information ({FILE_NAME}, written by `drip capture`) says which program each caller belongs to")
            } else {
                format!("{rule} of its callers are in files no program of {FILE_NAME} links")
            };
            notes.push(format!(
                "{}: warning: function `{}` {DUPLICATE} ({}) and {why}: calls go to the definition nearest the caller's directory, else the first ({}); every definition is analysed",
                places[0],
                first.name,
                places.join(", "),
                counts.join(", ")
            ));
        } else {
            notes.push(format!(
                "{}: note: function `{}` is defined in {} places ({}): {} calls resolved within the caller's program, {} to no definition linked with the caller",
                places[0],
                first.name,
                places.len(),
                places.join(", "),
                by_unit[a],
                unlinked[a]
            ));
        }
    }
    notes
}

/// What a function slot holds while its body is rewritten in place.
fn placeholder() -> Function {
    Function {
        name: String::new(),
        usr: String::new(),
        is_static: true,
        loc: crate::ir::Loc::NONE,
        sig: String::new(),
        n_params: 0,
        locals: Vec::new(),
        returns_pointer: false,
        blocks: Vec::new(),
        entry: crate::ir::BlockId(0),
        stmts: Vec::new(),
        stmt_locs: Vec::new(),
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

/// The stderr line a run prints (also without `-v`) when names were resolved without link
/// information.
pub fn summary_line(messages: &[String]) -> Option<String> {
    let n = messages.iter().filter(|m| m.contains(DUPLICATE)).count();
    (n > 0).then(|| {
        format!(
            "drip: warning: {n} function name{} defined more than once with no link information to choose between the definitions; each call went to the nearest one (-v lists them)",
            if n == 1 { " is" } else { "s are" }
        )
    })
}

/// The link units of a compile database (`from_database`: not files given on the command line)
/// whose default cache directory is `cache_dir` (`.drip/` beside it). A link file that cannot be
/// used is named on stderr, and the run goes on without it.
pub fn load_for(from_database: bool, cache_dir: &Path, cmds: &[CompileCommand]) -> Option<std::sync::Arc<Links>> {
    let dir = cache_dir.parent().filter(|_| from_database)?;
    match load(dir, cmds) {
        Ok(l) => l.map(std::sync::Arc::new),
        Err(e) => {
            eprintln!("drip: warning: {e}");
            None
        }
    }
}

/// The analysis environment `env` with the link units in it: they decide where calls go.
pub fn mix(env: crate::cache::Digest, links: &Option<std::sync::Arc<Links>>) -> Option<crate::cache::Digest> {
    match links {
        None => Some(env),
        Some(l) => {
            let mut h = crate::cache::Hasher::new("drip env with link units");
            h.digest(env).digest(l.digest()?);
            h.finish()
        }
    }
}
