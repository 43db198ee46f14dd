//! The targets of C++ virtual calls, over the whole program's class hierarchy.
//!
//! Input: the classes each TU defines (`TuCtx::record_class`, merged here by USR into
//! `ir::Program::classes`) and the virtual calls of the lowered functions (`Callee::Indirect`
//! whose field key starts with `ir::VIRTUAL_KEY`: the class the call dispatches on and the
//! method, `~` for the destructor `delete` runs).
//! Output: for every virtual call drip can resolve, (key, USR) rows in
//! `ir::Program::field_targets`, where the calls through a function-pointer field find their
//! targets; `summary` then combines their summaries as it does a field's (`meet`: all free, the
//! call frees; they disagree, nothing is known), and the call graph, `--stats` and the reuse keys
//! see them as it sees a field's.
//! Invariants:
//! - The targets of a call through class `S` are, for every class `D` that is `S` or derives from
//!   it (transitively, over the program's definitions) and is not abstract, the final overrider
//!   of the method in `D`: the method of `D` that overrides it (directly or through overrides
//!   in between), else that of `D`'s bases, searched upwards. For `~`, the function that
//!   destroys an object of exactly `D`.
//! - A call with a class in that set that drip does not see whole (a class template, whose
//!   instantiations are invisible, or a class whose death drip does not know), a base along the
//!   way the program does not define (a system header's class), no concrete class, or a target
//!   with no body in the program (a pure virtual method, a method defined outside the
//!   database) gets no rows: it stays an unknown callee, and `--stats` counts it as opaque. So
//!   a missing override never makes a report.
//! - The program is the whole world: a subclass defined in no TU of the database (a plugin, a
//!   local class inside a function body) is not seen. When a TU of the database failed or was
//!   cut, `cli.rs` drops every virtual call's targets (the hierarchy is not whole).

use std::collections::{HashMap, HashSet};

use crate::ir::{Callee, CppClass, Program, Stmt, OPAQUE_VIRTUAL_KEY, VIRTUAL_KEY};

/// Adds `c`, one TU's view of a class, to `classes`. A class is defined alike in every TU that
/// includes its header; where views differ (`#ifdef`s), the merge keeps what all of them allow.
pub(super) fn merge_class(classes: &mut HashMap<String, CppClass>, c: CppClass) {
    match classes.get_mut(&c.usr) {
        None => {
            classes.insert(c.usr.clone(), c);
        }
        Some(old) if *old == c => {}
        Some(old) => {
            old.known &= c.known;
            old.visible &= c.visible;
            old.is_abstract &= c.is_abstract;
            if old.destructor != c.destructor {
                old.destructor = None;
            }
            for b in c.bases {
                if !old.bases.contains(&b) {
                    old.bases.push(b);
                }
            }
            for v in c.virtuals {
                if !old.virtuals.contains(&v) {
                    old.virtuals.push(v);
                }
            }
            old.bases.sort();
            old.virtuals.sort();
        }
    }
}

/// Adds the targets of the program's virtual calls to `prog.field_targets` (which stays sorted).
pub(super) fn resolve(prog: &mut Program) {
    let mut keys: Vec<&str> = prog
        .functions
        .iter()
        .flat_map(|f| f.stmts.iter())
        .filter_map(|s| match s {
            Stmt::Call { callee: Callee::Indirect { field: Some(k), .. }, .. } if k.starts_with(VIRTUAL_KEY) => {
                Some(k.as_str())
            }
            _ => None,
        })
        .collect();
    if keys.is_empty() {
        return;
    }
    keys.sort_unstable();
    keys.dedup();
    let h = Hierarchy::new(&prog.classes);
    let defined: HashSet<&str> = prog.functions.iter().map(|f| f.usr.as_str()).collect();
    let mut rows = Vec::new();
    for key in keys {
        // An opaque call needs only the overriders' code, not their classes' deaths.
        let (rest, opaque) = match key.strip_prefix(OPAQUE_VIRTUAL_KEY) {
            Some(rest) => (rest, true),
            None => (&key[VIRTUAL_KEY.len()..], false),
        };
        let Some((class, method)) = rest.split_once(' ') else { continue };
        if let Some(targets) = h.targets(class, method, opaque) {
            if targets.iter().all(|t| defined.contains(t.as_str())) {
                rows.extend(targets.into_iter().map(|t| (key.to_string(), t)));
            }
        }
    }
    prog.field_targets.extend(rows);
    prog.field_targets.sort();
    prog.field_targets.dedup();
}

struct Hierarchy<'p> {
    by_usr: HashMap<&'p str, &'p CppClass>,
    /// Base → the classes deriving from it directly.
    derived: HashMap<&'p str, Vec<&'p str>>,
    /// Virtual method → the methods it overrides directly.
    overrides: HashMap<&'p str, &'p [String]>,
}

impl<'p> Hierarchy<'p> {
    fn new(classes: &'p [CppClass]) -> Hierarchy<'p> {
        let mut h = Hierarchy { by_usr: HashMap::new(), derived: HashMap::new(), overrides: HashMap::new() };
        for c in classes {
            h.by_usr.insert(&c.usr, c);
            for b in &c.bases {
                h.derived.entry(b.as_str()).or_default().push(&c.usr);
            }
            for (m, over) in &c.virtuals {
                h.overrides.insert(m, over);
            }
        }
        h
    }

    /// The possible targets of a call of `method` through class `class`, sorted; `None` when
    /// drip does not see every class the object may be of (`opaque`: their code, whatever
    /// their death; a destructor is then no target, as no function destroys such an object).
    fn targets(&self, class: &str, method: &str, opaque: bool) -> Option<Vec<String>> {
        if opaque && method == "~" {
            return None;
        }
        let mut seen: HashSet<&str> = HashSet::new();
        let mut todo = vec![class];
        let mut out = Vec::new();
        while let Some(d) = todo.pop() {
            if !seen.insert(d) {
                continue;
            }
            let c = self.by_usr.get(d).filter(|c| if opaque { c.visible } else { c.known })?;
            todo.extend(self.derived.get(d).into_iter().flatten().copied());
            if c.is_abstract {
                continue;
            }
            if method == "~" {
                out.push(c.destructor.clone()?);
            } else {
                let finals = self.final_overriders(c, method, 0)?;
                if finals.is_empty() {
                    return None;
                }
                out.extend(finals);
            }
        }
        if out.is_empty() {
            return None;
        }
        out.sort();
        out.dedup();
        Some(out)
    }

    /// The methods that run for a call of `method` on an object of exactly class `c`: its own
    /// override, else those its bases reach. `None` when a base is not among the program's
    /// classes (it may override the method).
    fn final_overriders(&self, c: &CppClass, method: &str, depth: usize) -> Option<Vec<String>> {
        // A class cannot derive from itself; the bound stops a cycle through a broken table.
        if depth > 64 {
            return None;
        }
        if let Some((m, _)) = c.virtuals.iter().find(|(m, _)| self.overrides_method(m, method, 0)) {
            return Some(vec![m.clone()]);
        }
        let mut out = Vec::new();
        for b in &c.bases {
            let base = self.by_usr.get(b.as_str())?;
            out.extend(self.final_overriders(base, method, depth + 1)?);
        }
        Some(out)
    }

    /// Whether virtual method `m` is `method` or overrides it, directly or through others.
    fn overrides_method(&self, m: &str, method: &str, depth: usize) -> bool {
        m == method
            || (depth < 64
                && self
                    .overrides
                    .get(m)
                    .is_some_and(|over| over.iter().any(|o| self.overrides_method(o, method, depth + 1))))
    }
}

#[cfg(test)]
mod tests {
    use super::Hierarchy;
    use crate::ir::CppClass;

    fn class(usr: &str, bases: &[&str], virtuals: &[(&str, &[&str])], is_abstract: bool) -> CppClass {
        CppClass {
            usr: usr.to_string(),
            bases: bases.iter().map(|b| b.to_string()).collect(),
            known: true,
            visible: true,
            is_abstract,
            destructor: Some(format!("~{usr}")),
            virtuals: virtuals
                .iter()
                .map(|(m, o)| (m.to_string(), o.iter().map(|s| s.to_string()).collect()))
                .collect(),
        }
    }

    #[test]
    fn targets_are_the_final_overriders_below_the_static_class() {
        let classes = vec![
            class("A", &[], &[("A::f", &[]), ("A::g", &[])], true),
            class("B", &["A"], &[("B::f", &["A::f"])], false),
            class("C", &["B"], &[("C::f", &["B::f"])], false),
            class("D", &["A"], &[("D::f", &["A::f"]), ("D::g", &["A::g"])], false),
        ];
        let h = Hierarchy::new(&classes);
        assert_eq!(h.targets("A", "A::f", false), Some(vec!["B::f".into(), "C::f".into(), "D::f".into()]));
        // Through B, D is not a possible class; C inherits nothing of B's `g`.
        assert_eq!(h.targets("B", "A::f", false), Some(vec!["B::f".into(), "C::f".into()]));
        assert_eq!(h.targets("B", "A::g", false), Some(vec!["A::g".into()]));
        assert_eq!(h.targets("A", "~", false), Some(vec!["~B".into(), "~C".into(), "~D".into()]));
        // An unknown subclass, or a base the program does not define, leaves the call opaque.
        let mut with_template = classes.clone();
        with_template.push(CppClass { known: false, visible: false, ..class("T", &["B"], &[], false) });
        let h = Hierarchy::new(&with_template);
        assert_eq!(h.targets("A", "A::f", false), None);
        assert_eq!(h.targets("D", "A::f", false), Some(vec!["D::f".into()]));
        // An opaque call needs the code of every class, not their deaths; never a destructor.
        assert_eq!(h.targets("A", "A::f", true), None);
        let mut with_opaque_death = classes.clone();
        with_opaque_death.push(CppClass { known: false, ..class("O", &["B"], &[("O::f", &["B::f"])], false) });
        let h = Hierarchy::new(&with_opaque_death);
        assert_eq!(h.targets("A", "A::f", false), None);
        assert_eq!(
            h.targets("A", "A::f", true),
            Some(vec!["B::f".into(), "C::f".into(), "D::f".into(), "O::f".into()])
        );
        assert_eq!(h.targets("A", "~", true), None);
        let classes = vec![class("E", &["std::base"], &[], false)];
        assert_eq!(Hierarchy::new(&classes).targets("E", "std::base::f", false), None);
        // An abstract class with no subclass has no object to call through.
        let classes = vec![class("P", &[], &[("P::f", &[])], true)];
        assert_eq!(Hierarchy::new(&classes).targets("P", "P::f", false), None);
    }
}
