//! The project's own memory API, declared in `.drip.toml` or by ownership attributes in its
//! headers: allocators, deallocators and functions that never return, as rows of the library
//! model.
//!
//! Input: the `[allocators]`, `[deallocators]` and `[noreturn]` tables of the configuration file
//! (`settings` reads the file and hands each table here), then the program's attributes
//! (`ir::Program::attributes`, `with_attributes`). Output: `Declarations`, whose rows are
//! `libmodel::LibFn`s like the built-in table's, so a declared function reaches the analysis as
//! exactly what a library row is (`summary::Summaries` resolves calls to it to `Direct::Library`,
//! `Summary::of_library` turns it into a summary for indirect calls).
//! Invariants: a declaration of the configuration file wins over everything else of that name:
//! over the built-in library row, over attributes (a disagreement is a message), and over a
//! definition in the program (whose body is still checked as a function of its own; `-v` names
//! it). An attribute's declaration wins over a definition, not over a library row. Rows are made once per run and live until the process exits. Every
//! mistake (an unknown kind or key, an argument index that is not a small whole number, a
//! function declared both to return and never to return) is a usage error naming the key.

use crate::ir::{AttrKind, OwnershipAttr};
use crate::libmodel::{ArgEffect, LibFn, RetEffect, Success, FREES_ON_SUCCESS};
use std::collections::BTreeMap;

/// Argument indices above this are surely a mistake (no C function has that many parameters
/// that are memory blocks).
const MAX_ARG: i64 = 63;

/// What `.drip.toml` says about one function.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Decl {
    pub alloc: Option<Alloc>,
    /// Arguments it frees on every call, sorted.
    pub frees: Vec<usize>,
    /// Arguments it keeps beyond the call (`ownership_holds`), sorted; none of them in `frees`.
    pub keeps: Vec<usize>,
    pub noreturn: bool,
    /// Made of the program's ownership attributes, not of the configuration file.
    pub attribute: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Alloc {
    /// Returns a fresh block, or NULL when it fails (`malloc`, `calloc`, `strdup`).
    Malloc,
    /// Returns a fresh block and frees the old one, argument `arg`, when it succeeds; leaves the
    /// old block alone and returns NULL when it fails (`realloc`).
    Realloc { arg: usize },
}

/// Every declaration of one run, with its library-model row.
#[derive(Default)]
pub struct Declarations {
    decls: BTreeMap<String, Decl>,
    /// Sorted by name, as `decls`.
    rows: Vec<&'static LibFn>,
}

impl std::fmt::Debug for Declarations {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.decls.fmt(f)
    }
}

impl Declarations {
    fn new(decls: BTreeMap<String, Decl>) -> Declarations {
        let rows = decls.iter().map(|(name, d)| row(name, d)).collect();
        Declarations { decls, rows }
    }

    /// The row of a declared function.
    pub fn lookup(&self, name: &str) -> Option<&'static LibFn> {
        self.rows.binary_search_by(|r| r.name.cmp(name)).ok().map(|i| self.rows[i])
    }

    /// The declared names, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.decls.keys().map(String::as_str)
    }

    /// The names of the allocators declared in the configuration file (`attribute` false) or by
    /// attributes (true), sorted.
    pub fn allocators(&self, attribute: bool) -> Vec<String> {
        self.names_where(|d| d.attribute == attribute && d.alloc.is_some())
    }

    /// The names of the deallocators (functions that free an argument on every call) declared
    /// in the configuration file or by attributes, sorted.
    pub fn deallocators(&self, attribute: bool) -> Vec<String> {
        self.names_where(|d| d.attribute == attribute && !d.frees.is_empty())
    }

    /// Whether `name` is declared by the configuration file (not by an attribute).
    pub fn in_config(&self, name: &str) -> bool {
        self.decls.get(name).is_some_and(|d| !d.attribute)
    }

    fn names_where(&self, keep: impl Fn(&Decl) -> bool) -> Vec<String> {
        self.decls.iter().filter(|(_, d)| keep(d)).map(|(n, _)| n.clone()).collect()
    }

    /// This run's declarations: the configuration file's, and what the program's ownership
    /// attributes (`ir::Program::attributes`) say of the other names. Precedence, per name:
    /// the configuration file, then the built-in library row (the C library's contract; an
    /// attribute on a program's own prototype of `malloc` adds nothing), then the attributes.
    /// Also returns one message per name the configuration file declares otherwise than its
    /// attributes do (`config` names the file), sorted by name.
    pub fn with_attributes(&self, attrs: &[OwnershipAttr], config: &str) -> (Declarations, Vec<String>) {
        // Per name: what its attributes say, and where the first of them is written.
        let mut by_name: BTreeMap<String, (Decl, String)> = BTreeMap::new();
        fn entry<'m>(m: &'m mut BTreeMap<String, (Decl, String)>, name: &str, a: &OwnershipAttr) -> &'m mut Decl {
            &mut m
                .entry(name.to_string())
                .or_insert_with(|| {
                    let at = format!("{}:{}", crate::frontend::shown_path(&a.file), a.line);
                    (Decl { attribute: true, ..Decl::default() }, at)
                })
                .0
        }
        let arg = |i: u32| usize::try_from(i).ok().filter(|&i| i as i64 <= MAX_ARG);
        for a in attrs {
            let m = &mut by_name;
            match &a.kind {
                AttrKind::Returns => entry(m, &a.function, a).alloc = Some(Alloc::Malloc),
                AttrKind::ReleasedBy { dealloc, arg: i } => {
                    entry(m, &a.function, a).alloc = Some(Alloc::Malloc);
                    if let Some(i) = arg(*i).filter(|_| is_identifier(dealloc)) {
                        entry(m, dealloc, a).frees.push(i);
                    }
                }
                AttrKind::Takes { arg: i } => entry(m, &a.function, a).frees.extend(arg(*i)),
                AttrKind::Holds { arg: i } => entry(m, &a.function, a).keeps.extend(arg(*i)),
            }
        }
        let mut decls = self.decls.clone();
        let mut conflicts = Vec::new();
        for (name, (mut d, at)) in by_name {
            d.frees.sort_unstable();
            d.frees.dedup();
            d.keeps.sort_unstable();
            d.keeps.dedup();
            // Freeing an argument it is also said to keep: it frees it.
            d.keeps.retain(|i| !d.frees.contains(i));
            match decls.get(&name) {
                Some(c) if (c.alloc, &c.frees, &c.keeps) != (d.alloc, &d.frees, &d.keeps) => {
                    conflicts.push(format!(
                        "{config} declares '{name}' {}, but the attributes at {at} say it {}: the configuration wins",
                        describe(c),
                        describe(&d)
                    ));
                }
                Some(_) => {}
                None if crate::libmodel::lookup(&name).is_some() => {}
                None if d.alloc.is_some() || !d.frees.is_empty() || !d.keeps.is_empty() => {
                    decls.insert(name, d);
                }
                None => {}
            }
        }
        (Declarations::new(decls), conflicts)
    }

    /// The declarations as text, for the cache keys: results depend on them.
    pub fn key_text(&self) -> String {
        format!("{:?}", self.decls)
    }

    /// Add one of the three tables of the configuration file. `origin` names the file for
    /// messages.
    pub fn add_table(&mut self, section: &str, table: &toml::Table, origin: &str) -> Result<(), String> {
        let mut decls = std::mem::take(&mut self.decls);
        for (name, v) in table {
            let at = format!("{origin}: [{section}] {name}");
            if !is_identifier(name) {
                return Err(format!("{at}: '{name}' is not a C function name"));
            }
            let d = decls.entry(name.clone()).or_default();
            match section {
                "allocators" => d.alloc = Some(alloc_kind(v, &at)?),
                "deallocators" => {
                    d.frees = arg_list(v, &at)?;
                }
                "noreturn" => match v {
                    toml::Value::Boolean(true) => d.noreturn = true,
                    _ => return Err(format!("{at}: write '{name} = true' (a function that never returns)")),
                },
                _ => unreachable!("settings hands only the three tables here"),
            }
            if d.noreturn && (d.alloc.is_some() || !d.frees.is_empty()) {
                return Err(format!("{at}: a function that never returns cannot also allocate or free"));
            }
            if let Some(Alloc::Realloc { arg }) = d.alloc {
                if d.frees.contains(&arg) {
                    return Err(format!(
                        "{at}: argument {arg} is the old block of a realloc-like function; declare it in [allocators] only"
                    ));
                }
            }
        }
        *self = Declarations::new(decls);
        Ok(())
    }
}

/// What a declaration says a function does, for messages (argument positions counted from 1,
/// as C programmers and attributes count them).
fn describe(d: &Decl) -> String {
    let ordinal = |i: &usize| match i + 1 {
        1 => "first".to_string(),
        2 => "second".to_string(),
        3 => "third".to_string(),
        n => format!("argument {n}'s"),
    };
    let args = |v: &[usize]| v.iter().map(ordinal).collect::<Vec<_>>().join(" and ");
    let mut parts = Vec::new();
    match d.alloc {
        Some(Alloc::Malloc) => parts.push("returns a fresh block (malloc-like)".to_string()),
        Some(Alloc::Realloc { arg }) => {
            parts.push(format!("reallocates its {} argument (realloc-like)", ordinal(&arg)))
        }
        None => {}
    }
    if !d.frees.is_empty() {
        parts.push(format!("frees its {} argument", args(&d.frees)));
    }
    if !d.keeps.is_empty() {
        parts.push(format!("keeps its {} argument", args(&d.keeps)));
    }
    if d.noreturn {
        parts.push("never returns".to_string());
    }
    if parts.is_empty() {
        "neither allocates nor frees".to_string()
    } else {
        parts.join(" and ")
    }
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `"malloc"`, `"realloc"` (old block in argument 0), or `{ kind = "realloc", arg = N }`.
fn alloc_kind(v: &toml::Value, at: &str) -> Result<Alloc, String> {
    let kind_of = |k: &str, arg: Option<usize>| match (k, arg) {
        ("malloc", None) => Ok(Alloc::Malloc),
        ("malloc", Some(_)) => Err(format!("{at}: a malloc-like allocator takes no 'arg'")),
        ("realloc", arg) => Ok(Alloc::Realloc { arg: arg.unwrap_or(0) }),
        (other, _) => Err(format!("{at}: unknown allocator kind '{other}' (known: malloc, realloc)")),
    };
    match v {
        toml::Value::String(k) => kind_of(k, None),
        toml::Value::Table(t) => {
            let mut kind = None;
            let mut arg = None;
            for (key, value) in t {
                match (key.as_str(), value) {
                    ("kind", toml::Value::String(k)) => kind = Some(k.as_str()),
                    ("kind", _) => return Err(format!("{at}: 'kind' must be a string (malloc or realloc)")),
                    ("arg", value) => arg = Some(index(value, at)?),
                    (other, _) => return Err(format!("{at}: unknown key '{other}' (known: kind, arg)")),
                }
            }
            kind_of(kind.ok_or_else(|| format!("{at}: missing 'kind' (malloc or realloc)"))?, arg)
        }
        _ => Err(format!("{at}: expected \"malloc\", \"realloc\" or {{ kind = \"realloc\", arg = N }}")),
    }
}

/// An argument index, or a list of them.
fn arg_list(v: &toml::Value, at: &str) -> Result<Vec<usize>, String> {
    let mut args = match v {
        toml::Value::Array(a) if !a.is_empty() => a.iter().map(|x| index(x, at)).collect::<Result<Vec<_>, _>>()?,
        toml::Value::Integer(_) => vec![index(v, at)?],
        _ => return Err(format!("{at}: expected the index of the freed argument (0 is the first) or a list of them")),
    };
    args.sort_unstable();
    args.dedup();
    Ok(args)
}

fn index(v: &toml::Value, at: &str) -> Result<usize, String> {
    match v {
        toml::Value::Integer(n) if (0..=MAX_ARG).contains(n) => Ok(*n as usize),
        toml::Value::Integer(n) => Err(format!("{at}: argument index {n} is out of range (0 is the first argument)")),
        _ => Err(format!("{at}: an argument index must be a whole number, got a {}", v.type_str())),
    }
}

/// The library row a declaration amounts to. Rows live until the process exits: a run makes a
/// handful of them once, and the analysis holds library rows as `&'static`.
fn row(name: &str, d: &Decl) -> &'static LibFn {
    let mut args: Vec<(usize, ArgEffect)> = d.frees.iter().map(|&i| (i, ArgEffect::Frees)).collect();
    args.extend(d.keeps.iter().map(|&i| (i, ArgEffect::Keeps)));
    let ret = match d.alloc {
        None => RetEffect::Plain,
        Some(Alloc::Malloc) => RetEffect::Fresh(Success::NonNull),
        Some(Alloc::Realloc { arg }) => {
            args.push((arg, FREES_ON_SUCCESS));
            RetEffect::Fresh(Success::NonNull)
        }
    };
    args.sort_by_key(|a| a.0);
    Box::leak(Box::new(LibFn {
        name: Box::leak(name.to_string().into_boxed_str()),
        ret,
        args: Box::leak(args.into_boxed_slice()),
        noreturn: d.noreturn,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Declarations, String> {
        let table: toml::Table = text.parse().map_err(|e: toml::de::Error| e.to_string())?;
        let mut d = Declarations::default();
        for (section, v) in &table {
            d.add_table(section, v.as_table().expect("tables only"), "t.toml")?;
        }
        Ok(d)
    }

    #[test]
    fn declarations_become_library_rows() {
        let d = parse(
            "[allocators]\nxmalloc = \"malloc\"\nxrealloc = \"realloc\"\npool_realloc = { kind = \"realloc\", arg = 1 }\n\
             [deallocators]\nxfree = 0\npair_free = [1, 0]\n[noreturn]\nfatal = true\n",
        )
        .expect("valid");
        let x = d.lookup("xmalloc").expect("declared");
        assert_eq!((x.ret, x.args.len(), x.noreturn), (RetEffect::Fresh(Success::NonNull), 0, false));
        assert_eq!(d.lookup("xrealloc").expect("declared").arg_effect(0), Some(FREES_ON_SUCCESS));
        let p = d.lookup("pool_realloc").expect("declared");
        assert_eq!((p.arg_effect(0), p.arg_effect(1)), (None, Some(FREES_ON_SUCCESS)));
        assert_eq!(d.lookup("xfree").expect("declared").arg_effect(0), Some(ArgEffect::Frees));
        let pair = d.lookup("pair_free").expect("declared");
        assert_eq!(pair.args.iter().map(|a| a.0).collect::<Vec<_>>(), [0, 1]);
        assert!(d.lookup("fatal").expect("declared").noreturn);
        assert!(d.lookup("malloc").is_none(), "only what is declared");
        assert_eq!(d.allocators(false), ["pool_realloc", "xmalloc", "xrealloc"]);
        // A summary says what the row says, for indirect calls.
        let s = crate::summary::Summary::of_library(x, 1).expect("a summary");
        assert!(s.allocator && s.always_fresh);
    }

    #[test]
    fn attributes_declare_what_the_configuration_and_the_library_do_not() {
        let attr = |function: &str, kind: AttrKind| OwnershipAttr {
            function: function.to_string(),
            kind,
            file: "/src/api.h".into(),
            line: 3,
        };
        let attrs = [
            attr("vec_new", AttrKind::ReleasedBy { dealloc: "vec_free".into(), arg: 0 }),
            attr("tok_get", AttrKind::Returns),
            attr("tok_put", AttrKind::Takes { arg: 1 }),
            attr("tok_put", AttrKind::Holds { arg: 1 }),
            attr("reg_add", AttrKind::Holds { arg: 0 }),
            // A program's own prototype of a library function: the library row stays.
            attr("strdup", AttrKind::Returns),
            attr("fopen", AttrKind::ReleasedBy { dealloc: "fclose".into(), arg: 0 }),
        ];
        let config = parse("[deallocators]\nvec_free = 1\n[allocators]\ntok_get = \"malloc\"\n").expect("valid");
        let (d, conflicts) = config.with_attributes(&attrs, "x.toml");
        assert_eq!(d.allocators(false), ["tok_get"], "agreeing: the configuration's");
        assert_eq!(d.allocators(true), ["vec_new"]);
        assert_eq!(d.deallocators(false), ["vec_free"]);
        assert_eq!(d.deallocators(true), ["tok_put"]);
        let put = d.lookup("tok_put").expect("declared");
        assert_eq!((put.arg_effect(0), put.arg_effect(1)), (None, Some(ArgEffect::Frees)), "frees wins over keeps");
        assert_eq!(d.lookup("reg_add").expect("declared").arg_effect(0), Some(ArgEffect::Keeps));
        assert_eq!(
            d.lookup("vec_free").expect("declared").arg_effect(1),
            Some(ArgEffect::Frees),
            "the configuration wins"
        );
        assert!(d.lookup("strdup").is_none() && d.lookup("fopen").is_none() && d.lookup("fclose").is_none());
        assert_eq!(conflicts.len(), 1, "{conflicts:?}");
        assert!(
            conflicts[0].starts_with("x.toml declares 'vec_free' frees its second argument, but the attributes at ")
        );
        assert!(
            conflicts[0].ends_with("api.h:3 say it frees its first argument: the configuration wins"),
            "{conflicts:?}"
        );
        assert_ne!(d.key_text(), config.key_text(), "the cache keys see the attributes");
    }

    #[test]
    fn mistakes_name_the_key() {
        for (bad, says) in [
            ("[allocators]\nxmalloc = \"mallocc\"\n", "unknown allocator kind 'mallocc'"),
            ("[allocators]\nxmalloc = { kind = \"malloc\", arg = 1 }\n", "takes no 'arg'"),
            ("[allocators]\nxr = { kind = \"realloc\", old = 1 }\n", "unknown key 'old'"),
            ("[allocators]\nxr = { arg = 1 }\n", "missing 'kind'"),
            ("[allocators]\nxmalloc = 3\n", "[allocators] xmalloc"),
            ("[deallocators]\nxfree = -1\n", "out of range"),
            ("[deallocators]\nxfree = \"0\"\n", "[deallocators] xfree"),
            ("[deallocators]\nxfree = []\n", "[deallocators] xfree"),
            ("[noreturn]\ndie = false\n", "die = true"),
            ("[noreturn]\n\"a b\" = true\n", "not a C function name"),
            ("[allocators]\nx = \"malloc\"\n[noreturn]\nx = true\n", "never returns"),
            ("[allocators]\nx = \"realloc\"\n[deallocators]\nx = 0\n", "old block"),
        ] {
            let e = parse(bad).err().unwrap_or_else(|| panic!("{bad:?} must be refused"));
            assert!(e.contains(says), "{bad:?}: {e}");
        }
    }
}
