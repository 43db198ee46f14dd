//! Lowering of one function definition: the CFG builder and statements.
//!
//! Input: a `FunctionDecl` cursor with a body, inside a live translation unit (`TuCtx`).
//! Output: an `ir::Function` whose `FileId`s index the TU-local file table (`TuCtx::files`); the
//! merge in `frontend/mod.rs` renumbers them.
//! Invariants:
//! - Blocks are built on the fly: `cur` is the block receiving statements, `None` right after a
//!   terminator (code there is unreachable; a fresh block is created only if something is emitted).
//! - Every block has a terminator at the end: a block still open when the body ends gets the
//!   implicit `return`; label blocks that are never defined get `NoReturn` and a lowering note.
//! - Local variables are keyed by their declaration (`Cursor::decl_key`), so shadowed names get
//!   separate `LocalId`s without any scope bookkeeping.
//! - Function-`static` variables are not locals: they are `Place::Global("func::name")`, which is
//!   how the IR names them, and their initialisers (constant, run once) are not lowered.
//!
//! Expressions and conditions are in `expr.rs`, initialisers in `init.rs`; what is stored into
//! function-pointer fields is collected by a separate scan (`fields.rs`). The children of a
//! cursor come from the declaration's `Tree` (`TuCtx::kids`, `TuCtx::strip`), set by
//! `TuCtx::set_root` before the declaration is lowered.

#![allow(non_upper_case_globals)]

use hashbrown::{HashMap, HashSet};
use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use clang_sys::*;

use super::clang::{self, classify, Cursor, Tu, TypeClass};
use super::expr::strip_plain;
use super::tree::{KidList, Tree};
use crate::ir::*;
use crate::lines::line_starts;

/// Builtins with special lowering.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Builtin {
    None,
    /// `__builtin_expect(e, c)`: the value of `e`.
    Expect,
    /// `__builtin_unreachable()`, `__builtin_trap()`: the path ends here, no call is emitted.
    Unreachable,
}

/// Facts about a called function, computed once per declaration.
pub(super) struct CalleeInfo {
    pub name: String,
    pub usr: String,
    pub noreturn: bool,
    pub builtin: Builtin,
}

/// Per-translation-unit state shared by all functions lowered from it.
pub(super) struct TuCtx<'t, 'i> {
    pub tu: &'t Tu<'i>,
    /// The compilation's working directory, to make relative file names absolute.
    dir: PathBuf,
    /// TU-local file table: `FileId(i)` is `files[i]`.
    pub files: Vec<PathBuf>,
    file_ids: HashMap<usize, FileId>,
    last_file: (usize, FileId),
    callees: HashMap<usize, Rc<CalleeInfo>>,
    /// The TU's top-level function declarations by name, made on first use: an attribute names
    /// a function by its spelling only (`cleanup(freep)`).
    functions_by_name: Option<HashMap<String, Cursor>>,
    /// USRs of functions referenced from the initializers of globals and `static` locals (which
    /// are not lowered): dispatch tables, callbacks registered at startup. Globals whose type
    /// holds no pointer are not looked at (`frontend/mod.rs`).
    pub address_taken: Vec<String>,
    /// (USR, function type) for each function cast to a pointer to another function type: an
    /// indirect call through that type may reach it.
    pub cast_targets: Vec<(String, String)>,
    /// (USR, name, function type) of each library function (a `libmodel` row) used as a value.
    pub library_taken: Vec<(String, String, String)>,
    /// (field key, USR) for each function stored into a function-pointer field (`fields.rs`).
    pub field_targets: Vec<(String, String)>,
    /// Function-pointer fields that may hold a value no store names (`fields.rs`).
    pub open_fields: Vec<String>,
    /// The groups of stores made together (`ir::Program::field_groups`), and the one being
    /// collected.
    pub field_groups: Vec<Vec<(String, String)>>,
    pub field_group: Vec<(String, String)>,
    /// (field or variable key, function USR, parameter index) for each function that stores its
    /// parameter into a function-pointer field or variable (`ir::Program::param_stores`).
    pub param_stores: Vec<(String, String, u32)>,
    /// The keys of the function-pointer variables defined here (`fields.rs`): locals, and
    /// globals not declared `extern`.
    pub defined_vars: Vec<String>,
    /// The function whose body `collect_field_stores` walks (`None` for a global's
    /// initializer): the one a stored parameter belongs to.
    pub(super) store_root: Option<Cursor>,
    /// Scalar globals (integers, enums, pointers) defined here: name, initial value (C's zero
    /// without an initializer; `None` when it is no integer constant), internal linkage.
    pub scalar_globals: Vec<(String, Option<i64>, bool)>,
    /// Globals whose address some code here takes (`&g` in a body or an initializer, or any
    /// mention in a global's initializer): stores through pointers may change them.
    pub global_addrs: Vec<String>,
    /// The ownership attributes on the function declarations of the TU's own files
    /// (`note_ownership_attrs`, `note_malloc_with_args`).
    pub attributes: Vec<OwnershipAttr>,
    /// The C++ class definitions of the TU's own files (`cpp.rs`, `record_class`).
    pub classes: Vec<crate::ir::CppClass>,
    /// Field declaration (`Cursor::decl_key`) → its key, or `None` for fields without one.
    pub(super) field_keys: HashMap<usize, Option<String>>,
    /// First declaration of a function (`Cursor::decl_key`) → its USR (`function_usr`).
    usrs: HashMap<usize, String>,
    /// Type (its opaque pointer) → its spelling (`type_spelling`).
    type_spellings: HashMap<usize, String>,
    /// (Canonical record type (its opaque pointer), question) → `type_holds`'s answer.
    record_holds: HashMap<(usize, Holds), bool>,
    /// Field declaration (`Cursor::decl_key`) → its name, for `member_name`.
    member_names: HashMap<usize, String>,
    /// The cursors below the top-level declaration being lowered (`set_root`).
    pub(super) tree: Tree,
    /// Per file (`FileId`), what `function_usr` appends to an internal function's USR.
    usr_suffixes: Vec<Option<String>>,
    /// Per file (`FileId`), the offsets where its lines start, built when first needed.
    line_starts: Vec<Option<(Vec<u32>, &'t [u8])>>,
    /// Per file (`FileId`), its `#line` directives, resolved (`lines::line_marks`): from
    /// physical line `.0` on, line `.0 + k` is line `.1 + k` of file `.2`. Built with the line
    /// starts.
    line_marks: Vec<Vec<(u32, u32, FileId)>>,
    /// The file (index) and line of the last `line_col` answer.
    last_line: (usize, usize),
    /// The last file `file_text` answered about, with its contents.
    last_text: Cell<Option<(CXFile, &'t [u8])>>,
    /// The file locations of the file libclang last placed a file location in (`offsets`).
    last_range: Cell<Option<FileRange>>,
    /// The TU is C++ (`compdb::language`): functions are named by their qualified names, calls
    /// go through `expr.rs`'s C++ rules, and the C++ constructs are lowered (see `cpp.rs`).
    pub cpp: bool,
    /// Canonical record type (its opaque pointer) → `owns_resources`'s answer.
    owning: HashMap<usize, bool>,
    /// Canonical record type (its opaque pointer) → how an object of it dies (`cpp.rs`,
    /// `destruction`).
    pub(super) deaths: HashMap<usize, super::cpp::Death>,
    /// Classes (their definitions) whose implicit destructor a call names, not yet lowered: the
    /// TU defines them after its functions (`cpp.rs`, `implicit_destructor`).
    pub(super) pending_dtors: Vec<(Cursor, Rc<CalleeInfo>)>,
    /// Lambdas stored into `std::function` fields and variables, with their USRs, not yet
    /// lowered (`fields.rs`, `lambda_function`): `lower_lambda` writes each while the tree is
    /// still rooted at the declaration holding it.
    pub(super) pending_lambdas: Vec<(Cursor, String)>,
    /// What the calls of this TU's functions do to the `shared_ptr` owners they are given
    /// (`owner_cycles`, `Summaries`), computed when a walk first meets a call.
    pub(super) owner_summaries: super::owner_cycles::Summaries,
}

/// The raw encodings of the locations in one file: `start + offset` for each byte offset up to
/// and including the end of the file.
#[derive(Clone, Copy)]
struct FileRange {
    file: CXFile,
    start: u32,
    len: u32,
}

/// What `TuCtx::type_holds` looks for in the parts of a type.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Holds {
    /// A pointer: whether a global's initializer can name a function or an address.
    Pointer,
    /// A record member of function-pointer type: whether an initializer list can store into a
    /// function-pointer field (`fields.rs`). The elements of an array of function pointers are
    /// no field, so such an array counts only as a member of a record.
    FunctionPointerMember,
}

impl Holds {
    /// The answer for a part of canonical type `c` that is neither an array nor a record;
    /// `is_member` says whether it is a record member.
    fn leaf(self, c: CXType, is_member: bool) -> bool {
        match self {
            Holds::Pointer => !matches!(c.kind, CXType_Void..=CXType_Ibm128 | CXType_Enum | CXType_Complex),
            Holds::FunctionPointerMember => is_member && clang::is_function_pointer(c),
        }
    }
}

/// The raw encoding of `loc` (clang's `SourceLocation`, which `int_data` holds) if it is a valid
/// location outside any macro: those produced by a macro expansion have the top bit
/// (`SourceLocation::MacroIDBit`) set, and 0 is the invalid location.
fn file_loc_raw(loc: CXSourceLocation) -> Option<u32> {
    const MACRO_ID_BIT: u32 = 1 << 31;
    let raw = loc.int_data;
    (raw != 0 && raw & MACRO_ID_BIT == 0).then_some(raw)
}

impl<'t, 'i> TuCtx<'t, 'i> {
    pub fn new(tu: &'t Tu<'i>, dir: &Path) -> Self {
        TuCtx {
            tu,
            dir: dir.to_path_buf(),
            files: Vec::new(),
            file_ids: HashMap::new(),
            last_file: (0, FileId(u32::MAX)),
            callees: HashMap::new(),
            functions_by_name: None,
            address_taken: Vec::new(),
            cast_targets: Vec::new(),
            library_taken: Vec::new(),
            field_targets: Vec::new(),
            open_fields: Vec::new(),
            field_groups: Vec::new(),
            field_group: Vec::new(),
            param_stores: Vec::new(),
            defined_vars: Vec::new(),
            classes: Vec::new(),
            store_root: None,
            scalar_globals: Vec::new(),
            global_addrs: Vec::new(),
            attributes: Vec::new(),
            field_keys: HashMap::new(),
            record_holds: HashMap::new(),
            type_spellings: HashMap::new(),
            usrs: HashMap::new(),
            member_names: HashMap::new(),
            tree: Tree::default(),
            usr_suffixes: Vec::new(),
            line_starts: Vec::new(),
            line_marks: Vec::new(),
            last_line: (usize::MAX, 0),
            last_text: Cell::new(None),
            last_range: Cell::new(None),
            cpp: false,
            owning: HashMap::new(),
            deaths: HashMap::new(),
            pending_dtors: Vec::new(),
            pending_lambdas: Vec::new(),
            owner_summaries: Default::default(),
        }
    }

    /// The name the IR gives function `decl`: its spelling in C; in C++ with the namespaces and
    /// classes around it (`ns::Buf::grow`), so that a method named `free` or `close` is no
    /// library row. A function of the global namespace or of an `extern "C"` block keeps its
    /// plain name, which is what the library model knows.
    pub fn qualified_name(&self, decl: Cursor) -> String {
        let name = decl.spelling();
        if !self.cpp {
            return name;
        }
        if decl.kind() == CXCursor_FunctionDecl && c_linkage(&decl.usr()) {
            return name;
        }
        let mut parts = Vec::new();
        let mut p = decl.semantic_parent();
        while let Some(c) = p {
            match c.kind() {
                CXCursor_Namespace
                | CXCursor_ClassDecl
                | CXCursor_StructDecl
                | CXCursor_UnionDecl
                | CXCursor_ClassTemplate
                | CXCursor_ClassTemplatePartialSpecialization => {
                    let s = c.spelling();
                    parts.push(if s.is_empty() { "(anonymous)".to_string() } else { s });
                }
                CXCursor_TranslationUnit => break,
                _ => {}
            }
            p = c.semantic_parent();
        }
        if parts.is_empty() {
            return name;
        }
        parts.reverse();
        parts.push(name);
        parts.join("::")
    }

    /// Whether an object of type `ty` (a C++ class, or an array of them) has a destructor that
    /// does something: one of its own, or one of a member or base. `cpp::destruction` says
    /// whether drip runs it; where it does not, what such an object is given must escape
    /// (`expr.rs`, `cpp.rs`). A class the program cannot show (a template instantiation, a
    /// system header's, an incomplete type) is taken to have one.
    pub fn owns_resources(&mut self, ty: CXType) -> bool {
        let c = clang::canonical(ty);
        match c.kind {
            CXType_ConstantArray | CXType_IncompleteArray | CXType_VariableArray | CXType_DependentSizedArray => {
                self.owns_resources(clang::array_element(c))
            }
            CXType_Record => {
                let key = c.data[0] as usize;
                if let Some(&o) = self.owning.get(&key) {
                    return o;
                }
                // A class cannot hold itself; the entry stops a cycle through a broken AST.
                self.owning.insert(key, false);
                let def = clang::type_declaration(c).and_then(|d| d.definition());
                let owning = match def {
                    None => true,
                    Some(d) if d.specialized_template().is_some() || d.is_in_system_header() => true,
                    Some(d) => d.children().into_iter().any(|k| match k.kind() {
                        CXCursor_Destructor => true,
                        CXCursor_FieldDecl | CXCursor_CXXBaseSpecifier => self.owns_resources(k.ty()),
                        _ => false,
                    }),
                };
                self.owning.insert(key, owning);
                owning
            }
            _ => false,
        }
    }

    /// Walk the top-level declaration `root` once; `kids` and `strip` then answer from it.
    pub fn set_root(&mut self, root: Cursor) {
        self.tree.rebuild(root);
    }

    /// Record the global `v` (a top-level variable declaration) when it is a scalar defined
    /// here, with its initial value.
    pub fn note_scalar_global(&mut self, v: Cursor) {
        // `static int n;` and `int n;` at file scope are tentative definitions, which libclang
        // does not call definitions: a declaration is one unless it says `extern`.
        let tentative = v.var_initializer().is_none() && v.storage_class() != CX_SC_Extern;
        if !v.has_global_storage() || !(v.is_definition() || tentative) {
            return;
        }
        if !matches!(v.type_class(), TypeClass::Pointer | TypeClass::Other) {
            return;
        }
        let init = match v.var_initializer() {
            None => Some(0),
            Some(e) => e.eval_int(),
        };
        self.scalar_globals.push((v.spelling(), init, v.linkage() == CXLinkage_Internal));
    }

    /// Record the globals whose address the declaration the tree holds takes: `&g` anywhere in
    /// it, and, in a global's initializer (`in_initializer`), every global it names, since a
    /// constant initializer can use another global only by its address.
    pub fn collect_global_addrs(&mut self, in_initializer: bool) {
        let mut found = Vec::new();
        for d in self.tree.descendants().iter().copied() {
            let named = match d.kind() {
                CXCursor_DeclRefExpr if in_initializer => Some(d),
                CXCursor_UnaryOperator if d.unop() == CXUnaryOperator_AddrOf => {
                    self.kids(d).first().map(|k| self.strip(*k)).filter(|k| k.kind() == CXCursor_DeclRefExpr)
                }
                _ => None,
            };
            let var = named.and_then(|n| n.referenced());
            if let Some(v) = var.filter(|v| v.kind() == CXCursor_VarDecl && v.has_global_storage()) {
                found.push(v.spelling());
            }
        }
        self.global_addrs.extend(found);
    }

    /// The children of `c` (`Cursor::children`, answered from the tree when it has `c`).
    pub fn kids(&self, c: Cursor) -> KidList {
        self.tree.children(c)
    }

    /// `expr::strip_plain` through the tree.
    pub fn strip(&self, c: Cursor) -> Cursor {
        super::expr::strip_plain(&self.tree, c)
    }

    /// The name of the member a `MemberRefExpr` accesses: the spelling of the expression, which
    /// is its member's. libclang prints the name anew on every question, which costs twice as
    /// much as finding the member; a TU accesses the same few hundred fields over and over.
    pub fn member_name(&mut self, e: Cursor) -> String {
        let Some(field) = e.referenced() else { return e.spelling() };
        self.member_names.entry(field.decl_key()).or_insert_with(|| field.spelling()).clone()
    }

    /// Record every function named inside `c` (a global, or a `static` local) as address-taken.
    pub fn collect_function_refs(&mut self, c: Cursor) {
        if self.tree.is_root(c) {
            // A global: the tree holds everything below it, so one pass over its nodes, without
            // collecting each node's children.
            let named: Vec<Cursor> = self
                .tree
                .descendants()
                .iter()
                .copied()
                .filter(|d| matches!(d.kind(), CXCursor_CStyleCastExpr | CXCursor_DeclRefExpr))
                .collect();
            for d in named {
                self.note_function_ref(d);
            }
            return;
        }
        let mut stack = vec![c];
        while let Some(c) = stack.pop() {
            self.note_function_ref(c);
            stack.extend(self.kids(c));
        }
    }

    /// Can an object of type `ty` hold a pointer (itself, or one of its members or elements)?
    pub fn may_hold_pointer(&mut self, ty: CXType) -> bool {
        self.type_holds(ty, Holds::Pointer, false)
    }

    /// Does an object of type `ty` hold a part that answers `q` (`Holds::leaf`): itself, or a
    /// part inside its record members and array elements? `is_member` says whether `ty` is the
    /// type of a record member. Cached per canonical record type and question.
    pub(super) fn type_holds(&mut self, ty: CXType, q: Holds, is_member: bool) -> bool {
        let c = clang::canonical(ty);
        match c.kind {
            CXType_ConstantArray | CXType_IncompleteArray | CXType_VariableArray | CXType_DependentSizedArray => {
                self.type_holds(clang::array_element(c), q, false)
            }
            CXType_Record => {
                let key = (c.data[0] as usize, q);
                if let Some(&holds) = self.record_holds.get(&key) {
                    return holds;
                }
                let holds = clang::record_field_decls(c).into_iter().any(|f| self.type_holds(f.ty(), q, true));
                self.record_holds.insert(key, holds);
                holds
            }
            _ => q.leaf(c, is_member),
        }
    }

    /// `collect_function_refs` for one cursor.
    fn note_function_ref(&mut self, c: Cursor) {
        match c.kind() {
            CXCursor_CStyleCastExpr => {
                let inner = self.strip(c);
                let func = (inner.kind() == CXCursor_DeclRefExpr)
                    .then(|| inner.referenced())
                    .flatten()
                    .filter(|d| d.kind() == CXCursor_FunctionDecl);
                if let (Some(d), Some(f)) = (func, clang::pointee_function(c.ty())) {
                    let usr = self.function_usr(d);
                    let sig = self.type_spelling(f).to_string();
                    self.cast_targets.push((usr, sig));
                }
            }
            CXCursor_DeclRefExpr => {
                if let Some(d) = c.referenced().filter(|d| d.kind() == CXCursor_FunctionDecl) {
                    let usr = self.function_usr(d);
                    self.note_library_value(d, &usr);
                    self.address_taken.push(usr);
                }
            }
            _ => {}
        }
    }

    pub fn file_id(&mut self, f: CXFile) -> FileId {
        let key = f as usize;
        if self.last_file.0 == key {
            return self.last_file.1;
        }
        let id = match self.file_ids.get(&key) {
            Some(id) => *id,
            None => {
                let id = FileId::from_usize(self.files.len());
                self.files.push(clang::absolute_path(&self.dir, &clang::file_name(f)));
                self.file_ids.insert(key, id);
                id
            }
        };
        self.last_file = (key, id);
        id
    }

    /// Expansion location of `loc` (macro uses point at the use).
    pub fn loc(&mut self, loc: CXSourceLocation) -> Loc {
        // libclang's line and column lookups decompose the location twice more; the file offset
        // and our own table of line starts give the same numbers.
        match self.expansion_offset(loc) {
            Some((f, off)) => {
                let file = self.file_id(f);
                match self.line_col(f, file, off) {
                    Some((line, col)) => {
                        // Where a `#line` directive says the line comes from (as compilers
                        // report generated code: `cmd-parse.y`, not `cmd-parse.c`).
                        let marks = &self.line_marks[file.index()];
                        match marks.partition_point(|m| m.0 <= line).checked_sub(1) {
                            Some(k) => Loc { file: marks[k].2, line: marks[k].1 + (line - marks[k].0), col },
                            None => Loc { file, line, col },
                        }
                    }
                    None => match clang::expansion(loc) {
                        Some((_, line, col)) => Loc { file, line, col },
                        None => Loc::NONE,
                    },
                }
            }
            None => Loc::NONE,
        }
    }

    /// Line and column (1-based, columns in bytes) of byte `off` of file `f`, counted as clang
    /// counts them: `\n`, `\r\n` and a lone `\r` each end a line.
    fn line_col(&mut self, f: CXFile, file: FileId, off: u32) -> Option<(u32, u32)> {
        let i = file.index();
        if self.line_starts.len() <= i {
            self.line_starts.resize_with(i + 1, || None);
        }
        if self.line_starts[i].is_none() {
            let text = self.tu.file_text(f)?;
            let starts = line_starts(text);
            let marks = crate::lines::line_marks(text, &starts);
            self.line_starts[i] = Some((starts, text));
            let resolved = self.resolve_marks(file, marks);
            if self.line_marks.len() <= i {
                self.line_marks.resize_with(i + 1, Vec::new);
            }
            self.line_marks[i] = resolved;
        }
        let (starts, text) = self.line_starts[i].as_ref()?;
        // The number of line starts at or before `off`. Lowering asks in nearly source order,
        // so the last answer's line or the next one usually holds `off`.
        let holds =
            |l: usize| l >= 1 && l <= starts.len() && starts[l - 1] <= off && starts.get(l).is_none_or(|&s| off < s);
        let hint = self.last_line;
        let line = if hint.0 == i && holds(hint.1) {
            hint.1
        } else if hint.0 == i && holds(hint.1 + 1) {
            hint.1 + 1
        } else {
            starts.partition_point(|&s| s <= off)
        };
        self.last_line = (i, line);
        let start = *starts.get(line.checked_sub(1)?)?;
        let mut col = off - start + 1;
        // clang puts the `\n` of a `\r\n` in the column of the `\r`.
        if off > start && text.get(off as usize) == Some(&b'\n') && text.get(off as usize - 1) == Some(&b'\r') {
            col -= 1;
        }
        Some((line as u32, col))
    }

    /// The directives of file `file` with their files as `FileId`s: a name is relative to the
    /// compile's folder, as clang reads it, and a directive without one keeps the file of the
    /// one before. A directive naming a file that is not there (bash's `y.tab.c` names the
    /// maintainer's `/usr/local/src/chet/.../parse.y`) leaves the lines where they are: a report
    /// in a file nobody has could be neither read nor suppressed.
    fn resolve_marks(&mut self, file: FileId, marks: Vec<crate::lines::LineMark>) -> Vec<(u32, u32, FileId)> {
        let mut cur = file;
        let mut out = Vec::with_capacity(marks.len());
        for m in marks {
            if let Some(name) = &m.file {
                let path = clang::absolute_path(&self.dir, &String::from_utf8_lossy(name));
                if !path.is_file() {
                    cur = file;
                    out.push((m.next, m.next, file));
                    continue;
                }
                cur = match self.files.iter().position(|p| *p == path) {
                    Some(k) => FileId::from_usize(k),
                    None => {
                        self.files.push(path);
                        FileId::from_usize(self.files.len() - 1)
                    }
                };
            }
            out.push((m.next, m.line, cur));
        }
        out
    }

    pub fn path_of(&mut self, c: Cursor) -> Option<PathBuf> {
        let (f, _) = clang::expansion_offset(c.location())?;
        let id = self.file_id(f);
        self.files.get(id.index()).cloned()
    }

    /// The USR used in the IR. libclang's USR for an internal-linkage function only contains the
    /// base name of its file, so `static` helpers in `a/util.c` and `b/util.c` would collide; we
    /// append the absolute path of the file defining it (or declaring it, when the definition is
    /// not in this TU). `static inline` functions in a shared header keep one USR across TUs.
    ///
    /// Asked once per function: the USR is made from the first declaration, the suffix from the
    /// definition, so every declaration of a function has the same one; and libclang prints a
    /// USR anew for each question, at more than a thousand instructions.
    /// The function template of the program's own (not of a system header) that `decl` is an
    /// implicit instantiation of. libclang shows no instantiation's body, only the template's,
    /// so calls of every instantiation go to that one body, lowered with its dependent types.
    /// Not an explicit specialization (`template<> void f<int>(..)`): its body is its own,
    /// written elsewhere than the template's (an instantiation's location is the template's).
    pub fn program_template(&self, decl: Cursor) -> Option<Cursor> {
        if !self.cpp || decl.kind() == CXCursor_FunctionTemplate {
            return None;
        }
        let t = decl.specialized_template()?;
        if t.kind() != CXCursor_FunctionTemplate || t.is_in_system_header() {
            return None;
        }
        let def = t.definition()?;
        let own = decl.definition().unwrap_or(decl);
        let (Some((f1, o1)), Some((f2, o2))) =
            (clang::expansion_offset(own.location()), clang::expansion_offset(def.location()))
        else {
            return None;
        };
        (clang::same_file(f1, f2) && o1 == o2).then_some(def)
    }

    /// The member of a class template of the program (`frontend::is_class_template_member`)
    /// whose lowered pattern body stands for `decl`: `decl` itself, or the member `decl` is
    /// an implicit instantiation of (`clang_getSpecializedCursorTemplate` of a method of `W<int>`
    /// is `W<T>`'s). Not an explicit specialization of a member (`template<> int W<int>::f()`),
    /// whose body is its own, written elsewhere than the pattern's (an instantiation's location
    /// is the pattern's), nor a member of an explicitly specialized class (`template<> struct
    /// W<int>`), which was instantiated from no member.
    pub fn template_member(&self, decl: Cursor) -> Option<Cursor> {
        if !self.cpp {
            return None;
        }
        if super::is_class_template_member(decl) {
            return Some(decl);
        }
        if !matches!(
            decl.kind(),
            CXCursor_CXXMethod | CXCursor_Constructor | CXCursor_Destructor | CXCursor_ConversionFunction
        ) {
            return None;
        }
        let t = decl.specialized_template()?;
        if t.kind() != decl.kind() || !super::is_class_template_member(t) {
            return None;
        }
        let own = decl.definition().unwrap_or(decl);
        let (f1, o1) = clang::expansion_offset(own.location())?;
        let at_pattern = [Some(t), t.definition()].into_iter().flatten().any(|p| {
            clang::expansion_offset(p.location()).is_some_and(|(f2, o2)| clang::same_file(f1, f2) && o1 == o2)
        });
        at_pattern.then_some(t)
    }

    pub fn function_usr(&mut self, decl: Cursor) -> String {
        let key = decl.canonical().decl_key();
        if let Some(usr) = self.usrs.get(&key) {
            return usr.clone();
        }
        let usr = self.make_function_usr(decl);
        self.usrs.insert(key, usr.clone());
        usr
    }

    fn make_function_usr(&mut self, decl: Cursor) -> String {
        // An instantiation of a function template the program defines is a call of the
        // template's body, which is what is lowered (`program_template`).
        if let Some(t) = self.program_template(decl) {
            return self.function_usr(t);
        }
        // So is a method of an implicit instantiation of a class template of the program.
        if let Some(t) = self.template_member(decl).filter(|_| !super::is_class_template_member(decl)) {
            return self.function_usr(t);
        }
        let mut usr = decl.usr();
        if self.cpp && decl.kind() == CXCursor_FunctionDecl && c_linkage(&usr) {
            // `extern "C"` inside a namespace is the C function of that name (clang's USR
            // names the namespace): the C TUs' USR, so that the calls link.
            usr = format!("c:@F@{}", decl.spelling());
        }
        if decl.linkage() != CXLinkage_Internal {
            return usr;
        }
        let def = decl.definition().unwrap_or_else(|| decl.canonical());
        let Some((f, _)) = clang::expansion_offset(def.location()) else { return usr };
        // Formatting the path is most of the cost, and a TU's static functions come from a
        // handful of files.
        let id = self.file_id(f).index();
        if self.usr_suffixes.len() <= id {
            self.usr_suffixes.resize(id + 1, None);
        }
        let files = &self.files;
        let suffix = self.usr_suffixes[id].get_or_insert_with(|| format!("@{}", files[id].display()));
        usr + suffix
    }

    /// `clang::type_spelling(t)`, asked of libclang once per type: printing a function type
    /// costs thousands of instructions, and a TU's functions share a few signatures.
    pub fn type_spelling(&mut self, t: CXType) -> &str {
        // The opaque pointer names the type, sugar and qualifiers included, so it determines
        // the spelling.
        self.type_spellings.entry(t.data[0] as usize).or_insert_with(|| clang::type_spelling(t))
    }

    /// Records `decl`, a function used as a value, when the library model has a row for it:
    /// calls through a pointer that may hold it then see the row (`Program::library_taken`).
    pub fn note_library_value(&mut self, decl: Cursor, usr: &str) {
        let name = self.qualified_name(decl);
        if crate::libmodel::lookup(&name).is_some() {
            let sig = self.type_spelling(clang::function_type(decl.ty())).to_string();
            self.library_taken.push((usr.to_string(), name, sig));
        }
    }

    pub fn callee_info(&mut self, decl: Cursor) -> Rc<CalleeInfo> {
        if let Some(i) = self.callees.get(&decl.decl_key()) {
            return Rc::clone(i);
        }
        let name = self.qualified_name(decl);
        let usr = self.function_usr(decl);
        let builtin = match name.as_str() {
            "__builtin_expect" | "__builtin_expect_with_probability" => Builtin::Expect,
            "__builtin_unreachable" | "__builtin_trap" => Builtin::Unreachable,
            _ => Builtin::None,
        };
        // The library model lists the functions that never return even when their declaration
        // does not say so (`execv*` are absent: they return on failure).
        let noreturn = crate::libmodel::lookup(&name).is_some_and(|f| f.noreturn)
            // GNU `__attribute__((noreturn))` is part of the function type.
            || self.type_spelling(decl.ty()).contains("noreturn")
            || self.has_noreturn_attr(decl);
        let info = Rc::new(CalleeInfo { name, usr, noreturn, builtin });
        self.callees.insert(decl.decl_key(), Rc::clone(&info));
        info
    }

    /// The function a local's `__attribute__((cleanup(fn)))` names (systemd's `_cleanup_free_`,
    /// GLib's `g_autofree`): `Ok` with its callee, `Err` with the name when no declaration of
    /// that name is at the TU's top level, `None` without the attribute. libclang gives no
    /// attribute arguments, so the name is read from the text after `cleanup` where it is spelled.
    pub fn cleanup_callee(&mut self, var: Cursor) -> Option<Result<Rc<CalleeInfo>, String>> {
        if !var.has_attrs() {
            return None;
        }
        let attr = var.children().into_iter().find(|c| {
            c.kind() == CXCursor_UnexposedAttr
                && matches!(self.spelled_ident(*c).as_deref(), Some("cleanup" | "__cleanup__"))
        })?;
        let (file, off) = attr.spelling_offset()?;
        let rest = self.file_text(file)?.get(off as usize..)?;
        let mut i = rest.iter().position(|b| !(b.is_ascii_alphanumeric() || *b == b'_'))?;
        while rest.get(i).is_some_and(|b| b.is_ascii_whitespace() || *b == b'(') {
            i += 1;
        }
        let ident: Vec<u8> =
            rest[i..].iter().copied().take_while(|b| b.is_ascii_alphanumeric() || *b == b'_').take(128).collect();
        let name = String::from_utf8_lossy(&ident).into_owned();
        if name.is_empty() {
            return Some(Err("?".to_string()));
        }
        let tu = self.tu;
        let by_name = self.functions_by_name.get_or_insert_with(|| {
            let mut m = HashMap::new();
            for c in tu.cursor().children() {
                if c.kind() == CXCursor_FunctionDecl {
                    m.entry(c.spelling()).or_insert(c);
                }
            }
            m
        });
        match by_name.get(&name).copied() {
            Some(decl) => Some(Ok(self.callee_info(decl))),
            None => Some(Err(name)),
        }
    }

    /// Record the ownership attributes libclang keeps on the function declaration `decl`:
    /// `malloc` (it has no cursor kind of its own: an unexposed attribute, its arguments not
    /// exposed at all), `ownership_returns`, `ownership_takes`, `ownership_holds`. Each is read
    /// where it is spelled (inside a macro definition if it came from one), its arguments from
    /// the text after its name. An attribute drip cannot read is left out.
    pub fn note_ownership_attrs(&mut self, decl: Cursor) {
        for c in decl.children() {
            if c.kind() != CXCursor_UnexposedAttr {
                continue;
            }
            let Some((name, args)) = self.attr_with_args(c) else { continue };
            let index = |i: usize| -> Option<u32> {
                let n = int_literal_value(args.get(i)?.as_bytes())?;
                // Attributes count arguments from 1.
                u32::try_from(n).ok()?.checked_sub(1)
            };
            let kind = match name.trim_matches('_') {
                // GCC's `malloc` promises a result no other pointer aliases; a function that also
                // hands a block back through a `void **` parameter breaks that promise, and the
                // block to free is that one (OpenSSL's `CRYPTO_aligned_alloc (n, align,
                // &freeptr, ..)` returns an aligned pointer into the block it stores in
                // `*freeptr`). Not a declaration then: its definition's summary decides.
                "malloc" if args.is_empty() && hands_back_raw_block(decl) => continue,
                "malloc" if args.is_empty() => AttrKind::Returns,
                "ownership_returns" => AttrKind::Returns,
                "ownership_takes" => AttrKind::Takes { arg: index(1).unwrap_or(u32::MAX) },
                "ownership_holds" => AttrKind::Holds { arg: index(1).unwrap_or(u32::MAX) },
                _ => continue,
            };
            if matches!(kind, AttrKind::Takes { arg: u32::MAX } | AttrKind::Holds { arg: u32::MAX }) {
                continue;
            }
            self.push_attribute(decl, kind);
        }
    }

    /// Record GCC's `malloc(dealloc[, idx])` on `decl`, spelled at `spelled` and expanded at
    /// `expanded`. clang accepts only the form without arguments and drops this one with a
    /// diagnostic (an error up to clang 20), so the diagnostic is how it is found
    /// (`frontend::parse_tu`).
    pub fn note_malloc_with_args(&mut self, decl: Cursor, spelled: (CXFile, u32), expanded: (CXFile, u32)) {
        let Some((name, args)) = self.args_at(spelled, expanded) else { return };
        if name.trim_matches('_') != "malloc" || args.is_empty() || args.len() > 2 {
            return;
        }
        let dealloc = args[0].clone();
        let arg = match args.get(1) {
            None => 0,
            Some(a) => match int_literal_value(a.as_bytes()).and_then(|n| u32::try_from(n).ok()?.checked_sub(1)) {
                Some(i) => i,
                None => return,
            },
        };
        if !dealloc.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') || dealloc.is_empty() {
            return;
        }
        self.push_attribute(decl, AttrKind::ReleasedBy { dealloc, arg });
    }

    /// The parameters of the function-like macro whose definition holds `(file, off)`.
    fn macro_params(&self, (file, off): (CXFile, u32)) -> Option<Vec<String>> {
        let text = self.file_text(file)?;
        let before = text.get(off.saturating_sub(2048) as usize..off as usize)?;
        let at = before.windows(6).rposition(|w| w == b"define")?;
        let rest = &before[at + 6..];
        let is_ident = |b: &u8| b.is_ascii_alphanumeric() || *b == b'_';
        let name_start = rest.iter().position(|b| !b.is_ascii_whitespace())?;
        let name_len = rest[name_start..].iter().take_while(|b| is_ident(b)).count();
        let open = name_start + name_len;
        // Function-like: the parenthesis follows the name at once.
        if name_len == 0 || rest.get(open) != Some(&b'(') {
            return None;
        }
        let close = open + rest[open..].iter().position(|&b| b == b')')?;
        let params = String::from_utf8_lossy(&rest[open + 1..close]);
        Some(params.split(',').map(|p| p.trim().to_string()).collect())
    }

    /// The arguments of the macro use at `(file, off)`: `NAME(a, b)`, split at the commas
    /// outside parentheses.
    fn macro_args(&self, (file, off): (CXFile, u32)) -> Option<Vec<String>> {
        let rest = self.file_text(file)?.get(off as usize..)?;
        let mut i = rest.iter().take_while(|b| b.is_ascii_alphanumeric() || **b == b'_').count();
        while rest.get(i).is_some_and(u8::is_ascii_whitespace) {
            i += 1;
        }
        if rest.get(i) != Some(&b'(') {
            return None;
        }
        let (mut depth, mut args, mut cur) = (0usize, Vec::new(), Vec::new());
        for &b in rest.get(i + 1..)?.iter().take(1024) {
            match b {
                b'(' => depth += 1,
                b')' if depth == 0 => {
                    args.push(String::from_utf8_lossy(&cur).trim().to_string());
                    return Some(args);
                }
                b')' => depth -= 1,
                b',' if depth == 0 => {
                    args.push(String::from_utf8_lossy(&cur).trim().to_string());
                    cur.clear();
                    continue;
                }
                _ => {}
            }
            cur.push(b);
        }
        None
    }

    fn push_attribute(&mut self, decl: Cursor, kind: AttrKind) {
        let at = self.loc(decl.location());
        let Some(file) = self.files.get(at.file.index()).cloned() else { return };
        self.attributes.push(OwnershipAttr { function: decl.spelling(), kind, file, line: at.line });
    }

    /// An attribute's name and its arguments as written (each trimmed; none without
    /// parentheses).
    fn attr_with_args(&self, attr: Cursor) -> Option<(String, Vec<String>)> {
        let expanded = clang::expansion_offset(attr.extent_start())?;
        self.args_at(attr.spelling_offset()?, expanded)
    }

    /// The name and arguments of the attribute spelled at `spelled` and expanded at
    /// `expanded`: inside a function-like macro (`#define ATTR_DEALLOC(f, i)
    /// __attribute__((malloc(f, i)))`, as glibc's `__attr_dealloc`), the macro's parameters are
    /// replaced by the arguments of its use.
    fn args_at(&self, spelled: (CXFile, u32), expanded: (CXFile, u32)) -> Option<(String, Vec<String>)> {
        let (name, mut args) = self.written_args(spelled)?;
        let in_macro = !(clang::same_file(spelled.0, expanded.0) && spelled.1 == expanded.1);
        if in_macro && !args.is_empty() {
            if let Some((params, values)) = self.macro_params(spelled).zip(self.macro_args(expanded)) {
                for a in args.iter_mut() {
                    if let Some(v) = params.iter().position(|p| p == a).and_then(|k| values.get(k)) {
                        *a = v.clone();
                    }
                }
            }
        }
        Some((name, args))
    }

    fn written_args(&self, (file, off): (CXFile, u32)) -> Option<(String, Vec<String>)> {
        let mut rest = self.file_text(file)?.get(off as usize..)?;
        let is_ident = |b: &u8| b.is_ascii_alphanumeric() || *b == b'_';
        let mut n = rest.iter().take(64).take_while(|b| is_ident(b)).count();
        // A scoped attribute (`[[gnu::malloc]]`) starts at its scope.
        if rest.get(n..n + 2) == Some(b"::".as_slice()) {
            rest = &rest[n + 2..];
            n = rest.iter().take(64).take_while(|b| is_ident(b)).count();
        }
        if n == 0 {
            return None;
        }
        let name = String::from_utf8_lossy(&rest[..n]).into_owned();
        let mut i = n;
        while rest.get(i).is_some_and(u8::is_ascii_whitespace) {
            i += 1;
        }
        if rest.get(i) != Some(&b'(') {
            return Some((name, Vec::new()));
        }
        // Plain names and numbers, no nested parentheses: what these attributes take.
        let len = rest[i + 1..].iter().take(256).position(|&b| b == b')')?;
        let inside = String::from_utf8_lossy(&rest[i + 1..i + 1 + len]).into_owned();
        let args: Vec<String> = inside.split(',').map(|a| a.trim().to_string()).collect();
        if args.iter().any(|a| a.is_empty() || a.contains('(')) {
            return None;
        }
        Some((name, args))
    }

    /// `_Noreturn`, `noreturn` (stdnoreturn.h) and `[[noreturn]]` are declaration attributes that
    /// do not show in the type; libclang exposes them as unexposed attribute children. We read the
    /// identifier where the attribute is spelled (inside a macro definition if it came from one).
    fn has_noreturn_attr(&self, decl: Cursor) -> bool {
        // Most declarations have no attribute at all: libclang says so without a visit.
        if !decl.has_attrs() {
            return false;
        }
        // Straight from libclang: a callee's declaration is seldom below the root, and asking the
        // tree about a cursor it did not hand out builds its index.
        decl.children().into_iter().any(|c| {
            c.kind() == CXCursor_UnexposedAttr
                && matches!(
                    self.spelled_ident(c).as_deref(),
                    Some("_Noreturn" | "noreturn" | "__noreturn__" | "analyzer_noreturn" | "__analyzer_noreturn__")
                )
        })
    }

    /// The init, condition and increment of the `for` `s` among `parts` (its children but the
    /// body; libclang omits absent parts), placed by the offsets of the header's two `;`. `None`
    /// when the header comes from a macro or does not read as one.
    pub(super) fn for_header(
        &self,
        s: Cursor,
        parts: &[Cursor],
        body: Cursor,
    ) -> Option<(Option<Cursor>, Option<Cursor>, Option<Cursor>)> {
        if s.in_macro() {
            return None;
        }
        let (file, start, _) = s.file_span()?;
        let (bfile, bstart, _) = body.file_span()?;
        if !clang::same_file(file, bfile) || bstart <= start {
            return None;
        }
        // The header is not in a macro, so where its extent starts is where it is written; so is
        // the body's start unless that comes from a macro. Making locations from file offsets
        // costs libclang a search through every macro expansion of the TU.
        let (a, b) = if body.in_macro() {
            let tu = self.tu;
            (tu.location_for_offset(file, start), tu.location_for_offset(file, bstart))
        } else {
            (s.extent_start(), body.extent_start())
        };
        let toks = self.tu.punct_tokens(a, b);
        let mut depth = 0i32;
        let mut semis = Vec::new();
        for (c, off) in toks {
            match c {
                b'(' => depth += 1,
                b')' => depth -= 1,
                b';' if depth == 1 => semis.push(off),
                _ => {}
            }
        }
        let [s1, s2] = semis[..] else { return None };
        let mut slots: [Option<Cursor>; 3] = [None, None, None];
        for p in parts {
            let (pf, off, _) = p.file_span()?;
            if !clang::same_file(pf, file) || off < start || off > bstart {
                return None;
            }
            let slot = if off < s1 {
                0
            } else if off < s2 {
                1
            } else {
                2
            };
            if slots[slot].is_some() {
                return None;
            }
            slots[slot] = Some(*p);
        }
        Some((slots[0], slots[1], slots[2]))
    }

    /// Source text of a cursor's extent (file locations, so a macro argument gives the text the
    /// user wrote: `!p` inside `unlikely(!p)`), whitespace collapsed, shortened for messages.
    pub fn text_of(&self, c: Cursor) -> Option<String> {
        let raw = self.raw_text(c)?;
        let mut out = collapse_whitespace(&clang::lossy_utf8(raw));
        if out.is_empty() {
            return None;
        }
        const MAX: usize = 80;
        // A character takes at least one byte: a text of at most `MAX` bytes needs no count.
        if out.len() > MAX && out.chars().count() > MAX {
            out = out.chars().take(MAX - 1).collect::<String>() + "…";
        }
        Some(out)
    }

    /// When one end of the extent is a macro argument and the other is not (`i < (n)` inside
    /// `EACH(i, n)`), the file range is meaningless; we show the whole macro invocation.
    fn raw_text(&self, c: Cursor) -> Option<&'t [u8]> {
        let r = c.extent();
        // SAFETY: plain FFI on a range value.
        let (a, b) = unsafe { (clang_getRangeStart(r), clang_getRangeEnd(r)) };
        let (file_a, exp_a) = self.offsets(a);
        let (file_b, exp_b) = self.offsets(b);
        let same_kind = clang::is_macro_arg(file_a, exp_a) == clang::is_macro_arg(file_b, exp_b);
        let ((fa, oa), (fb, ob)) = if same_kind { (file_a?, file_b?) } else { (exp_a?, exp_b?) };
        if !clang::same_file(fa, fb) || ob < oa {
            return None;
        }
        let text = self.file_text(fa)?;
        let ob = complete_last_token(text, oa as usize, ob as usize);
        text.get(oa as usize..ob)
    }

    /// The value of an integer or character literal (`Cursor::eval_int`). An integer literal
    /// written outside any macro is read from the source when it is plainly written (see
    /// `int_literal_value`): libclang sets up an evaluation and a result object for each
    /// question, which costs ten times as much as reading the digits. Macro constants and
    /// everything else are evaluated.
    pub fn literal_value(&self, c: Cursor) -> Option<i64> {
        if c.kind() == CXCursor_IntegerLiteral {
            let written = self
                .file_loc_offset(c.location())
                .and_then(|(f, off)| int_literal_value(self.file_text(f)?.get(off as usize..)?));
            if written.is_some() {
                return written;
            }
        }
        c.eval_int()
    }

    /// `clang::expansion_offset(loc)`.
    fn expansion_offset(&self, loc: CXSourceLocation) -> Option<(CXFile, u32)> {
        self.file_loc_offset(loc).or_else(|| self.placed_by_libclang(loc))
    }

    /// `clang::file_offset(loc)` and `clang::expansion_offset(loc)`.
    pub(super) fn offsets(&self, loc: CXSourceLocation) -> (Option<(CXFile, u32)>, Option<(CXFile, u32)>) {
        match self.file_loc_offset(loc) {
            Some(at) => (Some(at), Some(at)),
            None => (clang::file_offset(loc), self.placed_by_libclang(loc)),
        }
    }

    /// Where `loc` is, if it is a location outside any macro in the file libclang last placed
    /// such a location in.
    ///
    /// libclang finds a location's file by a search through everything the preprocessor made
    /// (each macro expansion an entry). A location outside any macro is its own file and
    /// expansion location, and clang encodes it as a number in a range of its own for each
    /// file entered (the range's start plus the byte offset; ranges do not overlap): once
    /// libclang has placed one location of a file, the others in that range need no search.
    /// This leans on clang's encoding of `SourceLocation` (32 bits, macro bit on top), which a
    /// `CXSourceLocation` carries in `int_data`; the test `file_loc_shortcut_is_libclangs`
    /// holds us to it.
    fn file_loc_offset(&self, loc: CXSourceLocation) -> Option<(CXFile, u32)> {
        let raw = file_loc_raw(loc)?;
        let r = self.last_range.get()?;
        let off = raw.checked_sub(r.start).filter(|&off| off <= r.len)?;
        Some((r.file, off))
    }

    /// `clang::expansion_offset(loc)`, asked of libclang; for a location outside any macro, the
    /// range of its file is noted for `file_loc_offset`.
    fn placed_by_libclang(&self, loc: CXSourceLocation) -> Option<(CXFile, u32)> {
        let exp = clang::expansion_offset(loc);
        if let (Some(raw), Some((file, off))) = (file_loc_raw(loc), exp) {
            if let (Some(text), Some(start)) = (self.file_text(file), raw.checked_sub(off)) {
                self.last_range.set(Some(FileRange { file, start, len: text.len() as u32 }));
            }
        }
        exp
    }

    /// The contents of `f` as parsed. libclang finds the file's buffer by a search through the
    /// TU's source entries each time; conditions and messages come from one file in a row.
    pub(super) fn file_text(&self, f: CXFile) -> Option<&'t [u8]> {
        if let Some((last, text)) = self.last_text.get() {
            if last == f {
                return Some(text);
            }
        }
        let text = self.tu.file_text(f)?;
        self.last_text.set(Some((f, text)));
        Some(text)
    }

    /// The identifier where `c` is spelled (a builtin's name inside a macro definition, …).
    pub fn spelled_ident(&self, c: Cursor) -> Option<String> {
        let (file, off) = c.spelling_offset()?;
        let rest = self.file_text(file)?.get(off as usize..)?;
        let ident: Vec<u8> =
            rest.iter().copied().take_while(|b| b.is_ascii_alphanumeric() || *b == b'_').take(64).collect();
        (!ident.is_empty()).then(|| String::from_utf8_lossy(&ident).into_owned())
    }
}

/// Whether a C++ function's USR is one of C language linkage: clang writes a C++ function's
/// parameter types after a `#`, and none for `extern "C"` (whatever namespace it is in).
fn c_linkage(usr: &str) -> bool {
    usr.rsplit_once("@F@").is_some_and(|(_, f)| !f.contains('#'))
}

/// The value of the integer literal `text` starts with, as clang gives it (the literal's bits
/// as a 64-bit number), if it is plainly written: decimal, octal, hex or binary digits, and an
/// optional `u`/`l`/`ll` suffix, followed by something that cannot continue the token. `None`
/// for anything else (digit separators, other suffixes, a line continuation or a trigraph inside
/// the token, values beyond 64 bits), which libclang is left to answer.
pub(super) fn int_literal_value(text: &[u8]) -> Option<i64> {
    let (radix, start) = match text {
        [b'0', b'x' | b'X', ..] => (16, 2),
        [b'0', b'b' | b'B', ..] => (2, 2),
        // `0` itself is an octal literal.
        [b'0', ..] => (8, 1),
        _ => (10, 0),
    };
    let mut v: u64 = 0;
    let mut i = start;
    while let Some(d) = text.get(i).and_then(|&b| char::from(b).to_digit(radix)) {
        v = v.checked_mul(u64::from(radix))?.checked_add(u64::from(d))?;
        i += 1;
    }
    if i == start && radix != 8 {
        return None;
    }
    let digits_end = i;
    while text.get(i).is_some_and(|b| matches!(b, b'u' | b'U' | b'l' | b'L')) {
        i += 1;
    }
    let suffix_ok = matches!(
        &text[digits_end..i],
        b"" | b"u"
            | b"U"
            | b"l"
            | b"L"
            | b"ul"
            | b"uL"
            | b"Ul"
            | b"UL"
            | b"lu"
            | b"lU"
            | b"Lu"
            | b"LU"
            | b"ll"
            | b"LL"
            | b"ull"
            | b"uLL"
            | b"Ull"
            | b"ULL"
            | b"llu"
            | b"llU"
            | b"LLu"
            | b"LLU"
    );
    // A preprocessing number goes on through letters (`$` and UTF-8 ones too), digits, `.`, `'`
    // and an exponent's sign; `\` and `?` may start a line continuation (`??/` a trigraph's).
    let continues =
        |b: u8| b.is_ascii_alphanumeric() || b >= 0x80 || matches!(b, b'_' | b'$' | b'.' | b'\'' | b'\\' | b'?');
    let signed_exponent = matches!(text.get(i.wrapping_sub(1)), Some(b'e' | b'E' | b'p' | b'P'))
        && matches!(text.get(i), Some(b'+' | b'-'));
    if !suffix_ok || signed_exponent || text.get(i).is_some_and(|&b| continues(b)) {
        return None;
    }
    // The literal's type is the first of its candidates that holds the value, so its bits are
    // the value, read as libclang's `eval_int` reads them.
    Some(v as i64)
}

/// The words of `text` (`str::split_whitespace`) joined by single spaces. ASCII text (nearly
/// all source) is split byte by byte, without decoding characters: the ASCII characters with
/// Unicode's White_Space property are the space and `\t` to `\r`.
pub(super) fn collapse_whitespace(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    if !text.is_ascii() {
        for w in text.split_whitespace() {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(w);
        }
        return out;
    }
    let is_space = |b: u8| b == b' ' || (b'\t'..=b'\r').contains(&b);
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        while i < bytes.len() && is_space(bytes[i]) {
            i += 1;
        }
        let start = i;
        while i < bytes.len() && !is_space(bytes[i]) {
            i += 1;
        }
        if start < i {
            if !out.is_empty() {
                out.push(' ');
            }
            // Slicing ASCII text at any byte keeps it a `str`.
            out.push_str(&text[start..i]);
        }
    }
    out
}

/// libclang's extent of `temp == NULL` inside a macro argument stops before `NULL` (its end is a
/// macro location whose file location is where the `NULL` token starts). If the text ends on an
/// operator, take in the next token (an identifier or number, plus a parenthesised argument
/// list right after it).
fn complete_last_token(text: &[u8], start: usize, end: usize) -> usize {
    let Some(slice) = text.get(start..end) else { return end };
    let last = slice.iter().rev().find(|b| !b.is_ascii_whitespace());
    if !last.is_some_and(|b| b"=<>!&|+-*/%^,?:~".contains(b)) {
        return end;
    }
    let is_word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut i = end;
    while text.get(i).is_some_and(|b| *b == b' ' || *b == b'\t') {
        i += 1;
    }
    let word_start = i;
    while text.get(i).is_some_and(|b| is_word(*b)) {
        i += 1;
    }
    if i == word_start {
        return end;
    }
    if text.get(i) == Some(&b'(') {
        let mut depth = 0usize;
        let mut j = i;
        while let Some(&b) = text.get(j) {
            match b {
                b'(' => depth += 1,
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        return j + 1;
                    }
                }
                b'\n' | b';' | b'{' => return i,
                _ => {}
            }
            j += 1;
        }
    }
    i
}

/// A variable reference resolved to its IR place.
#[derive(Clone)]
pub(super) struct VarInfo {
    pub place: Place,
    pub is_array: bool,
    /// A C++ reference: the local holds the address of the object it names, so a use of the
    /// variable is `*place`.
    pub is_ref: bool,
}

/// Targets of `break` and `continue`.
#[derive(Clone, Copy)]
pub(super) enum Jump {
    Loop { brk: BlockId, cont: BlockId, scopes: usize },
    Switch { brk: BlockId, scopes: usize },
}

/// The locals with a `cleanup` attribute declared so far in one compound statement, in order:
/// each has its function called with its address when control leaves the statement. In C++
/// also the objects with destructors (the destructor is the function), and the temporaries
/// bound to references, which live as long as the reference.
pub(super) struct CleanupScope {
    pub key: usize,
    pub vars: Vec<(LocalId, Rc<CalleeInfo>)>,
}

#[derive(Default)]
pub(super) struct SwitchCtx {
    pub cases: Vec<(i64, BlockId)>,
    /// The text of labels that are not plain numbers, by value (`Function::case_labels`).
    pub labels: Vec<(i64, String)>,
    pub default: Option<BlockId>,
    /// A block reached by a case range too large to expand: used as `default` if there is none.
    pub range_default: Option<BlockId>,
}

#[derive(Default)]
pub(super) struct BlockB {
    pub stmts: Vec<StmtId>,
    pub term: Option<(Terminator, Loc)>,
}

/// The state of one function being lowered.
pub(super) struct Lowerer<'c, 't, 'i> {
    pub cx: &'c mut TuCtx<'t, 'i>,
    pub fname: String,
    pub locals: Vec<LocalDecl>,
    pub blocks: Vec<BlockB>,
    pub stmts: Vec<Stmt>,
    pub stmt_locs: Vec<Loc>,
    pub cur: Option<BlockId>,
    pub vars: HashMap<usize, VarInfo>,
    /// Which locals are arrays (their value is their address).
    pub local_is_array: Vec<bool>,
    pub jumps: Vec<Jump>,
    pub switches: Vec<SwitchCtx>,
    /// Label statement (`Cursor::stmt_key`) → block.
    pub labels: HashMap<usize, BlockId>,
    pub label_names: HashMap<usize, String>,
    pub defined_labels: HashSet<usize>,
    /// Labels whose address is taken (`&&l`), targets of computed gotos.
    pub addr_labels: Vec<usize>,
    pub indirect_gotos: Vec<(BlockId, Loc)>,
    pub notes: Vec<String>,
    pub n_temps: u32,
    /// `Function::bits`, in statement order.
    pub bits: Vec<(StmtId, Bits)>,
    /// `Function::steps`, in statement order.
    pub steps: Vec<(StmtId, i64, bool)>,
    /// `Function::nonneg`, in statement order.
    pub nonneg: Vec<(StmtId, i64)>,
    /// `Function::grows`, in statement order.
    pub grows: Vec<StmtId>,
    /// `Function::offsets`, in statement order.
    pub offsets: Vec<(StmtId, i64)>,
    /// `Function::case_labels`, unsorted.
    pub case_labels: Vec<(BlockId, i64, String)>,
    /// `Function::tested_elems`, in block order (a block ends once).
    pub tested_elems: Vec<(BlockId, Vec<Option<i64>>)>,
    /// The compound statements (and, in C++, `for` statements) around the statement being
    /// lowered, innermost last.
    pub scopes: Vec<CleanupScope>,
    /// The function's body, to find the statements around a label a `goto` leaves for.
    pub body: Option<Cursor>,
    /// A C++ method's `this`, parameter 0.
    pub this_local: Option<LocalId>,
    /// Whether the function returns a C++ reference (a `return e` returns `&e`).
    pub returns_ref: bool,
    /// The body is a function template's (`TuCtx::program_template`) or a class template's
    /// member's (`TuCtx::template_member`), lowered from the pattern: what depends on its type
    /// parameters (a call of a dependent name, a construction of a dependent type, a loop over
    /// a dependent range) is not analysed, and the locals it names escape.
    pub in_template: bool,
    /// In a C++ destructor whose class has members or bases with destructors: the block that
    /// runs them, where every `return` goes.
    pub dtor_epilogue: Option<BlockId>,
    /// In C++, inside a full expression whose temporaries drip destroys at its end: the
    /// temporary objects with destructors built so far, in order (`cpp.rs`, `begin_full`).
    /// `None` elsewhere (conditions, C), where such a temporary escapes instead.
    pub full_expr: Option<Vec<(LocalId, Rc<CalleeInfo>)>>,
    /// `Function::throws`, unsorted.
    pub throws: Vec<BlockId>,
    /// `Function::unwinds`, in statement order.
    pub unwinds: Vec<Unwind>,
    /// The C++ `try` statements around the statement being lowered, innermost last.
    pub tries: Vec<TryCtx>,
    /// The local iterator variables over modelled containers being followed, by declaration
    /// (`iterators.rs`).
    pub iterators: HashMap<usize, super::iterators::Iter>,
    /// C++: locals holding a closure (or a `std::function`) only ever called, by declaration
    /// key (`lambdas.rs`, `held_var`): they are not declared; their calls lower the body.
    pub held: HashMap<usize, super::lambdas::Held>,
    /// C++: the lambda bodies being lowered in place of calls, innermost last (`lambdas.rs`).
    pub inlines: Vec<super::lambdas::Inline>,
}

/// A `try` statement being lowered: where an exception thrown in its body goes.
#[derive(Clone)]
pub(super) struct TryCtx {
    /// The block that picks a handler (or leaves the `try` when none may catch it).
    pub dispatch: BlockId,
    /// Each handler's first block, and the type it catches (`cpp::caught_type`; `None`:
    /// `catch (...)`).
    pub handlers: Vec<(BlockId, Option<String>)>,
    /// `scopes.len()` at the `try`: the scopes an exception from its body leaves.
    pub scopes: usize,
}

/// Lower one function definition.
pub(super) fn lower_function(cx: &mut TuCtx, f: Cursor) -> Function {
    let name = cx.qualified_name(f);
    let usr = cx.function_usr(f);
    let is_static = f.linkage() == CXLinkage_Internal;
    let loc = cx.loc(f.location());
    let returns_pointer = classify(f.result_type()) == TypeClass::Pointer;
    let mut lw = Lowerer::new(cx, name.clone());
    let entry = lw.new_block();
    lw.cur = Some(entry);
    if lw.cx.cpp {
        lw.returns_ref = clang::is_reference(f.result_type());
        lw.in_template = f.kind() == CXCursor_FunctionTemplate || super::is_class_template_member(f);
        let kind = if f.kind() == CXCursor_FunctionTemplate { f.template_kind() } else { f.kind() };
        let has_this = match kind {
            CXCursor_CXXMethod | CXCursor_ConversionFunction => !f.is_static_method(),
            CXCursor_Constructor | CXCursor_Destructor => true,
            _ => false,
        };
        if has_this {
            lw.add_this(loc);
        }
    }

    // A function template's parameters are its `ParmDecl` children (libclang counts arguments
    // of function declarations only).
    let params: Vec<Option<Cursor>> = if f.kind() == CXCursor_FunctionTemplate {
        lw.kids(f).into_iter().filter(|c| c.kind() == CXCursor_ParmDecl).map(Some).collect()
    } else {
        (0..f.num_args().max(0) as u32).map(|i| f.arg(i)).collect()
    };
    for (i, p) in params.into_iter().enumerate() {
        if let Some(p) = p {
            lw.declare_param(i, p);
        }
    }
    let n_params = lw.locals.len() as u32;

    let body = lw.kids(f).into_iter().rev().find(|c| c.kind() == CXCursor_CompoundStmt);
    lw.body = body;
    if f.kind() == CXCursor_Constructor {
        lw.member_initializers(f);
    }
    // A destructor's body is followed by its members' and bases' destructors.
    let parts = match f.semantic_parent().and_then(|c| c.definition()) {
        Some(class) if lw.cx.cpp && f.kind() == CXCursor_Destructor => lw.cx.destroyed_parts(class),
        _ => Vec::new(),
    };
    if !parts.is_empty() {
        lw.dtor_epilogue = Some(lw.new_block());
    }
    let end_loc = match body {
        Some(b) => {
            lw.stmt(b);
            let mut l = lw.cx.loc(b.extent_end());
            // The extent ends just past the closing brace; point at the brace.
            l.col = l.col.saturating_sub(1).max(1);
            l
        }
        None => loc,
    };
    if let Some(epilogue) = lw.dtor_epilogue {
        lw.enter(epilogue, end_loc);
        lw.destroy_parts(&parts, end_loc);
    }
    lw.terminate(Terminator::Return(None), end_loc);
    // A pattern's types are dependent: its owners cannot be told from other classes.
    let owner_cycles = match body {
        Some(b) if lw.cx.cpp && !lw.in_template => super::owner_cycles::find(lw.cx, b, end_loc),
        _ => Vec::new(),
    };
    let sig = lw.cx.type_spelling(clang::function_type(f.ty())).to_string();
    let mut func = lw.finish(name, usr, is_static, loc, sig, n_params, returns_pointer);
    func.owner_cycles = owner_cycles;
    func
}

/// A lambda stored into a `std::function` field or variable (`fields.rs`, `lambda_function`),
/// as a function of its own under `usr`: its parameters are the function's, its body the
/// function's body. It captures nothing, so its body names nothing of the function it is
/// written in but constants and statics.
pub(super) fn lower_lambda(cx: &mut TuCtx, l: Cursor, usr: String) -> Function {
    let loc = cx.loc(l.location());
    let file = cx.path_of(l).and_then(|p| p.file_name().map(|f| f.to_string_lossy().into_owned())).unwrap_or_default();
    let name = format!("lambda at {file}:{}", loc.line);
    let mut lw = Lowerer::new(cx, name.clone());
    let entry = lw.new_block();
    lw.cur = Some(entry);
    let kids = lw.kids(l);
    for (i, p) in kids.iter().copied().filter(|c| c.kind() == CXCursor_ParmDecl).enumerate() {
        lw.declare_param(i, p);
    }
    let n_params = lw.locals.len() as u32;
    let body = kids.iter().rev().copied().find(|c| c.kind() == CXCursor_CompoundStmt);
    lw.body = body;
    // What its `return`s give (the lambda's own type is not asked of libclang).
    let mut returns_pointer = false;
    let end_loc = match body {
        Some(b) => {
            let mut stack = vec![b];
            while let Some(c) = stack.pop() {
                if c.kind() == CXCursor_LambdaExpr {
                    continue;
                }
                if c.kind() == CXCursor_ReturnStmt {
                    returns_pointer |=
                        lw.kids(c).into_iter().any(|r| r.is_expression() && classify(r.ty()) == TypeClass::Pointer);
                }
                stack.extend(lw.kids(c));
            }
            lw.stmt(b);
            let mut l = lw.cx.loc(b.extent_end());
            l.col = l.col.saturating_sub(1).max(1);
            l
        }
        None => loc,
    };
    lw.terminate(Terminator::Return(None), end_loc);
    lw.finish(name, usr, true, loc, "lambda".to_string(), n_params, returns_pointer)
}

/// The destructor the compiler writes for `class` (a definition without a destructor of its own
/// whose members or bases have one): it destroys them (`cpp.rs`, `implicit_destructor`). For a
/// standard library owner (`stdlib::unique_ptr`), the destructor its contract describes.
pub(super) fn lower_implicit_dtor(cx: &mut TuCtx, class: Cursor, callee: &CalleeInfo) -> Function {
    let loc = cx.loc(class.location());
    let mut lw = Lowerer::new(cx, callee.name.clone());
    let entry = lw.new_block();
    lw.cur = Some(entry);
    lw.add_this(loc);
    if let Some((pointee, array)) = super::stdlib::unique_ptr(class.ty()) {
        // A standard library owner (`stdlib`): it deletes the block it owns.
        let this = Place::Deref(Box::new(Place::Local(LocalId::from_usize(0))));
        let t = lw.new_temp(TypeClass::Pointer, loc);
        lw.assign(Place::Local(t), Rvalue::Use(Operand::Place(super::stdlib::owned(this))), loc);
        lw.delete_object(Operand::Place(Place::Local(t)), pointee, array, loc);
        lw.terminate(Terminator::Return(None), loc);
        return lw.finish(callee.name.clone(), callee.usr.clone(), false, loc, "void ()".to_string(), 1, false);
    }
    let parts = lw.cx.destroyed_parts(class);
    lw.destroy_parts(&parts, loc);
    lw.terminate(Terminator::Return(None), loc);
    lw.finish(callee.name.clone(), callee.usr.clone(), false, loc, "void ()".to_string(), 1, false)
}

impl<'c, 't, 'i> Lowerer<'c, 't, 'i> {
    pub fn new(cx: &'c mut TuCtx<'t, 'i>, fname: String) -> Self {
        // About one statement and one block for every twelve cursors below a function in SQLite:
        // room for a little more spares growing the lists step by step.
        let room = cx.tree.descendants().len() / 8;
        Lowerer {
            cx,
            fname,
            locals: Vec::new(),
            blocks: Vec::with_capacity(room),
            stmts: Vec::with_capacity(room),
            stmt_locs: Vec::with_capacity(room),
            cur: None,
            vars: HashMap::new(),
            local_is_array: Vec::new(),
            jumps: Vec::new(),
            switches: Vec::new(),
            labels: HashMap::new(),
            label_names: HashMap::new(),
            defined_labels: HashSet::new(),
            addr_labels: Vec::new(),
            indirect_gotos: Vec::new(),
            notes: Vec::new(),
            n_temps: 0,
            bits: Vec::new(),
            steps: Vec::new(),
            nonneg: Vec::new(),
            grows: Vec::new(),
            offsets: Vec::new(),
            case_labels: Vec::new(),
            tested_elems: Vec::new(),
            scopes: Vec::new(),
            body: None,
            this_local: None,
            returns_ref: false,
            in_template: false,
            dtor_epilogue: None,
            full_expr: None,
            throws: Vec::new(),
            unwinds: Vec::new(),
            tries: Vec::new(),
            iterators: HashMap::new(),
            held: HashMap::new(),
            inlines: Vec::new(),
        }
    }
}

impl Lowerer<'_, '_, '_> {
    pub fn kids(&self, c: Cursor) -> KidList {
        self.cx.kids(c)
    }

    /// `this`, parameter 0 of a C++ method: a call passes the object's address first (`expr.rs`).
    fn add_this(&mut self, loc: Loc) {
        let id = LocalId::from_usize(self.locals.len());
        self.locals.push(LocalDecl {
            name: "this".to_string(),
            kind: LocalKind::Param,
            is_pointer: true,
            is_aggregate: false,
            may_run_code: false,
            is_static: false,
            pointee_pointer: None,
            loc,
        });
        self.local_is_array.push(false);
        self.this_local = Some(id);
    }

    pub fn strip(&self, c: Cursor) -> Cursor {
        self.cx.strip(c)
    }

    // ---- builder ----

    pub fn new_block(&mut self) -> BlockId {
        self.blocks.push(BlockB::default());
        BlockId::from_usize(self.blocks.len() - 1)
    }

    /// The block receiving statements, created (unreachable) if code follows a terminator.
    pub fn cur_block(&mut self) -> BlockId {
        match self.cur {
            Some(b) => b,
            None => {
                let b = self.new_block();
                self.cur = Some(b);
                b
            }
        }
    }

    pub fn emit(&mut self, s: Stmt, loc: Loc) {
        let b = self.cur_block();
        let id = StmtId::from_usize(self.stmts.len());
        self.stmts.push(s);
        self.stmt_locs.push(loc);
        self.blocks[b.index()].stmts.push(id);
    }

    pub fn assign(&mut self, dst: Place, src: Rvalue, loc: Loc) {
        self.emit(Stmt::Assign { dst, src }, loc);
    }

    /// `dst = src`, a bitwise expression with these `bits`.
    pub fn assign_bits(&mut self, dst: Place, src: Rvalue, bits: Bits, loc: Loc) {
        let id = StmtId::from_usize(self.stmts.len());
        self.assign(dst, src, loc);
        self.bits.push((id, bits));
    }

    /// `dst = dst + k` for a constant `k`, stored as `src` (`Opaque`) with the step recorded
    /// (and whether `dst` is unsigned).
    pub fn assign_step(&mut self, dst: Place, src: Rvalue, k: i64, unsigned: bool, loc: Loc) {
        let id = StmtId::from_usize(self.stmts.len());
        self.assign(dst, src, loc);
        self.steps.push((id, k, unsigned));
    }

    /// `dst = src`, an arithmetic expression of unsigned type, at least `floor`
    /// (`Function::nonneg`).
    pub fn assign_nonneg(&mut self, dst: Place, src: Rvalue, floor: i64, loc: Loc) {
        let id = StmtId::from_usize(self.stmts.len());
        self.assign(dst, src, loc);
        self.nonneg.push((id, floor));
    }

    /// `dst = src`, which never makes `dst` smaller while it is at least 0 (`Function::grows`).
    pub fn assign_grow(&mut self, dst: Place, src: Rvalue, loc: Loc) {
        let id = StmtId::from_usize(self.stmts.len());
        self.assign(dst, src, loc);
        self.grows.push(id);
    }

    /// End the current block (no-op in unreachable code with nothing emitted).
    pub fn terminate(&mut self, t: Terminator, loc: Loc) {
        if let Some(b) = self.cur.take() {
            self.blocks[b.index()].term = Some((t, loc));
        }
    }

    pub fn goto(&mut self, target: BlockId, loc: Loc) {
        self.terminate(Terminator::Goto(target), loc);
    }

    /// Continue in `b`, falling through from the current block if there is one.
    pub fn enter(&mut self, b: BlockId, loc: Loc) {
        self.goto(b, loc);
        self.cur = Some(b);
    }

    pub fn loc(&mut self, c: Cursor) -> Loc {
        self.cx.loc(c.location())
    }

    pub fn note(&mut self, loc: Loc, msg: impl std::fmt::Display) {
        self.notes.push(format!("line {}: {msg}", loc.line));
    }

    /// Parameter `i`, declared by `p` (`arg.i` when it has no name).
    fn declare_param(&mut self, i: usize, p: Cursor) {
        let mut name = p.spelling();
        if name.is_empty() {
            name = format!("arg.{i}");
        }
        let loc = self.cx.loc(p.location());
        self.declare_local(p, name, LocalKind::Param, loc);
    }

    pub(super) fn declare_local(&mut self, decl: Cursor, name: String, kind: LocalKind, loc: Loc) -> LocalId {
        let mut class = decl.type_class();
        // A `std::unique_ptr` parameter by value is the caller's object, passed by its address
        // (`cpp::cpp_call_on`): a reference to it here, which the caller destroys.
        let owner_param = self.cx.cpp && kind == LocalKind::Param && super::stdlib::owner_by_value(decl.ty());
        if owner_param {
            class = TypeClass::Pointer;
        }
        let id = LocalId::from_usize(self.locals.len());
        // A parameter declared as an array points to its element type.
        let pointee = match super::clang::classify(decl.ty()) {
            TypeClass::Array => super::clang::array_element(decl.ty()),
            _ => super::clang::pointee(decl.ty()),
        };
        let pointee_pointer = (class == TypeClass::Pointer)
            .then(|| match super::clang::classify(pointee) {
                TypeClass::Pointer => Some(true),
                TypeClass::Other | TypeClass::Float => Some(false),
                _ => None,
            })
            .flatten();
        let is_aggregate = matches!(class, TypeClass::Array | TypeClass::Record);
        self.locals.push(LocalDecl {
            name,
            kind,
            is_pointer: class == TypeClass::Pointer,
            is_aggregate,
            may_run_code: is_aggregate && super::stdlib::may_run_code(decl.ty()),
            is_static: false,
            pointee_pointer,
            loc,
        });
        self.local_is_array.push(class == TypeClass::Array);
        let is_ref = owner_param || (self.cx.cpp && class == TypeClass::Pointer && clang::is_reference(decl.ty()));
        self.vars
            .insert(decl.decl_key(), VarInfo { place: Place::Local(id), is_array: class == TypeClass::Array, is_ref });
        id
    }

    pub fn new_temp(&mut self, class: TypeClass, loc: Loc) -> LocalId {
        self.n_temps += 1;
        let id = LocalId::from_usize(self.locals.len());
        self.locals.push(LocalDecl {
            name: format!("tmp.{}", self.n_temps),
            kind: LocalKind::Temp,
            is_pointer: class == TypeClass::Pointer,
            is_aggregate: matches!(class, TypeClass::Array | TypeClass::Record),
            may_run_code: matches!(class, TypeClass::Array | TypeClass::Record),
            is_static: false,
            pointee_pointer: None,
            loc,
        });
        self.local_is_array.push(class == TypeClass::Array);
        id
    }

    /// A temporary of class `class` holding a value of type `ty`, which decides whether it
    /// may run the program's code (`LocalDecl::may_run_code`).
    pub fn new_temp_of(&mut self, class: TypeClass, ty: CXType, loc: Loc) -> LocalId {
        let t = self.new_temp(class, loc);
        if self.locals[t.index()].may_run_code {
            self.locals[t.index()].may_run_code = super::stdlib::may_run_code(ty);
        }
        t
    }

    /// The place of a variable declaration referenced from an expression.
    pub fn var(&mut self, decl: Cursor) -> VarInfo {
        if !self.iterators.is_empty() {
            self.iterator_used(decl);
        }
        if let Some(v) = self.vars.get(&decl.decl_key()) {
            return v.clone();
        }
        let is_array = decl.type_class() == TypeClass::Array;
        let info = if decl.kind() == CXCursor_VarDecl && decl.has_global_storage() {
            let is_ref = self.cx.cpp && clang::is_reference(decl.ty());
            VarInfo { place: Place::Global(decl.spelling()), is_array, is_ref }
        } else {
            // A local we have not seen declared (GNU nested functions reaching into the enclosing
            // function, or broken code): give it a local so the analysis still sees one variable.
            let loc = self.cx.loc(decl.location());
            let id = self.declare_local(decl, decl.spelling(), LocalKind::Var, loc);
            return self.vars.get(&decl.decl_key()).cloned().unwrap_or(VarInfo {
                place: Place::Local(id),
                is_array: self.local_is_array[id.index()],
                is_ref: false,
            });
        };
        self.vars.insert(decl.decl_key(), info.clone());
        info
    }

    fn label_block(&mut self, key: usize, name: impl FnOnce() -> String) -> BlockId {
        if let Some(b) = self.labels.get(&key) {
            return *b;
        }
        let b = self.new_block();
        self.labels.insert(key, b);
        self.label_names.insert(key, name());
        b
    }

    #[allow(clippy::too_many_arguments)]
    fn finish(
        mut self,
        name: String,
        usr: String,
        is_static: bool,
        loc: Loc,
        sig: String,
        n_params: u32,
        returns_pointer: bool,
    ) -> Function {
        // Computed gotos may reach any label whose address is taken; when the addresses are
        // taken where we do not lower (a `static` table's initializer), any label at all.
        let targets: Vec<BlockId> = {
            let mut seen = HashSet::new();
            let mut keys: Vec<usize> = self.addr_labels.iter().copied().filter(|k| seen.insert(*k)).collect();
            if keys.is_empty() {
                let mut all: Vec<(BlockId, usize)> =
                    self.defined_labels.iter().filter_map(|k| self.labels.get(k).map(|b| (*b, *k))).collect();
                all.sort();
                keys = all.into_iter().map(|(_, k)| k).collect();
            }
            keys.into_iter().map(|k| self.label_block(k, String::new)).collect()
        };
        if let Some((_, first)) = self.indirect_gotos.first() {
            let n = self.indirect_gotos.len();
            let what = if n == 1 { "computed `goto *p`".to_string() } else { format!("{n} computed `goto *p`") };
            self.notes.push(format!("line {}: {what} lowered as a jump to every address-taken label", first.line));
        }
        for (b, l) in std::mem::take(&mut self.indirect_gotos) {
            let term = match targets.split_last() {
                Some((last, rest)) => Terminator::Switch {
                    on: Operand::Unknown,
                    cases: rest.iter().enumerate().map(|(i, t)| (i as i64, *t)).collect(),
                    default: *last,
                },
                None => Terminator::NoReturn,
            };
            self.blocks[b.index()].term = Some((term, l));
        }
        let mut undefined: Vec<(usize, BlockId)> =
            self.labels.iter().filter(|(k, _)| !self.defined_labels.contains(*k)).map(|(k, b)| (*k, *b)).collect();
        undefined.sort_by_key(|(_, b)| *b);
        let n_undefined = undefined.len();
        for (k, _) in undefined {
            let n = self.label_names.get(&k).cloned().unwrap_or_default();
            self.notes.push(format!("label `{n}` is used but never defined; paths to it end there"));
        }
        let mut open = 0usize;
        let blocks: Vec<Block> = self
            .blocks
            .into_iter()
            .map(|b| {
                let (term, term_loc) = b.term.unwrap_or_else(|| {
                    open += 1;
                    (Terminator::NoReturn, Loc::NONE)
                });
                Block { stmts: b.stmts, term, term_loc }
            })
            .collect();
        if open > n_undefined {
            // Cannot happen if every construct ends what it opens; keep the IR well-formed anyway.
            self.notes.push(format!("internal: {} blocks had no terminator; they end the path", open - n_undefined));
        }
        Function {
            name,
            usr,
            is_static,
            loc,
            sig,
            n_params,
            locals: self.locals,
            returns_pointer,
            blocks,
            entry: BlockId(0),
            stmts: self.stmts,
            stmt_locs: self.stmt_locs,
            lowering_notes: self.notes,
            bits: self.bits,
            steps: self.steps,
            nonneg: self.nonneg,
            grows: self.grows,
            offsets: self.offsets,
            case_labels: {
                let mut v = self.case_labels;
                v.sort();
                v.dedup_by(|a, b| a.0 == b.0 && a.1 == b.1);
                v
            },
            tested_elems: {
                let mut v = self.tested_elems;
                v.sort();
                v.dedup_by_key(|e| e.0);
                v
            },
            throws: {
                let mut v = self.throws;
                v.sort();
                v.dedup();
                v
            },
            unwinds: self.unwinds,
            owner_cycles: Vec::new(),
        }
    }

    // ---- statements ----

    pub fn stmt(&mut self, s: Cursor) {
        match s.kind() {
            CXCursor_CompoundStmt => {
                self.scopes.push(CleanupScope { key: s.stmt_key(), vars: Vec::new() });
                for c in self.kids(s) {
                    self.stmt(c);
                }
                if self.scopes.last().is_some_and(|sc| !sc.vars.is_empty()) && self.cur.is_some() {
                    let loc = self.cx.loc(s.extent_end());
                    let depth = self.scopes.len() - 1;
                    self.run_cleanups(depth, loc);
                }
                self.scopes.pop();
            }
            CXCursor_DeclStmt => {
                for d in self.kids(s) {
                    self.decl(d);
                }
            }
            CXCursor_NullStmt => {}
            CXCursor_IfStmt => self.if_stmt(s),
            CXCursor_WhileStmt => self.while_stmt(s),
            CXCursor_DoStmt => self.do_stmt(s),
            CXCursor_ForStmt => self.for_stmt(s),
            CXCursor_SwitchStmt => self.switch_stmt(s),
            CXCursor_CaseStmt | CXCursor_DefaultStmt => self.case_stmt(s),
            CXCursor_BreakStmt | CXCursor_ContinueStmt => {
                let is_break = s.kind() == CXCursor_BreakStmt;
                let target = self.jumps.iter().rev().find_map(|j| match (*j, is_break) {
                    (Jump::Loop { brk, scopes, .. }, true) | (Jump::Switch { brk, scopes }, true) => {
                        Some((brk, scopes))
                    }
                    (Jump::Loop { cont, scopes, .. }, false) => Some((cont, scopes)),
                    (Jump::Switch { .. }, false) => None,
                });
                let loc = self.loc(s);
                match target {
                    Some((t, scopes)) => {
                        self.run_cleanups(scopes, loc);
                        self.goto(t, loc)
                    }
                    None => self.note(loc, "`break`/`continue` outside a loop or switch ignored"),
                }
            }
            CXCursor_ReturnStmt if !self.inlines.is_empty() => self.inline_return(s),
            CXCursor_ReturnStmt => {
                let loc = self.loc(s);
                let ret_e = self.kids(s).into_iter().find(|c| c.is_expression());
                // `return x;` of a local object is the object itself (the copy is elided), which
                // is then not destroyed here.
                let elided = ret_e.filter(|_| self.cx.cpp && !self.returns_ref).and_then(|e| self.returned_local(e));
                let full = self.begin_full();
                let mut value = match ret_e {
                    Some(_) if elided.is_some() => elided.map(|l| Operand::Place(Place::Local(l))),
                    Some(e) if self.returns_ref => {
                        let rv = self.addr_of(e);
                        Some(self.rvalue_operand(rv, loc))
                    }
                    Some(e) if e.type_class() != TypeClass::Void => Some(self.expr(e)),
                    Some(e) => {
                        self.effect(e);
                        None
                    }
                    None => None,
                };
                // A temporary that is the result is the caller's object (`return Buf(n);`).
                let result = match &value {
                    Some(Operand::Place(Place::Local(l))) => Some(*l),
                    _ => None,
                };
                self.end_full(full, result, loc);
                if self.scopes.iter().any(|sc| !sc.vars.is_empty()) {
                    // The value is taken before the cleanups run (`return p;` of a local whose
                    // cleanup frees it returns the block, freed).
                    if let Some(Operand::Place(p)) = &value {
                        let class = ret_e.map_or(TypeClass::Other, |e| e.type_class());
                        let t = self.new_temp(class, loc);
                        self.emit(
                            Stmt::Assign { dst: Place::Local(t), src: Rvalue::Use(Operand::Place(p.clone())) },
                            loc,
                        );
                        value = Some(Operand::Place(Place::Local(t)));
                    }
                    self.run_cleanups_but(0, elided, loc);
                }
                match self.dtor_epilogue {
                    Some(epilogue) => self.goto(epilogue, loc),
                    None => self.terminate(Terminator::Return(value), loc),
                }
            }
            CXCursor_GotoStmt => {
                let loc = self.loc(s);
                match s.referenced().filter(|l| l.kind() == CXCursor_LabelStmt) {
                    Some(label) => {
                        if self.scopes.iter().any(|sc| !sc.vars.is_empty()) {
                            let around = self.scopes_around(label.stmt_key());
                            let kept = self.scopes.iter().take_while(|sc| around.contains(&sc.key)).count();
                            self.run_cleanups(kept, loc);
                        }
                        let b = self.label_block(label.stmt_key(), || label.spelling());
                        self.goto(b, loc);
                    }
                    None => {
                        self.note(loc, "`goto` to an unknown label; the path ends here");
                        self.terminate(Terminator::NoReturn, loc);
                    }
                }
            }
            CXCursor_IndirectGotoStmt => {
                let loc = self.loc(s);
                for c in self.kids(s) {
                    self.effect(c);
                }
                let b = self.cur_block();
                self.indirect_gotos.push((b, loc));
                self.cur = None;
            }
            CXCursor_LabelStmt => {
                let key = s.stmt_key();
                let b = self.label_block(key, || s.spelling());
                self.defined_labels.insert(key);
                let loc = self.loc(s);
                self.enter(b, loc);
                if let Some(sub) = self.kids(s).into_iter().next_back() {
                    self.stmt(sub);
                }
            }
            CXCursor_CXXTryStmt => self.try_stmt(s),
            CXCursor_CXXForRangeStmt => self.range_for(s),
            CXCursor_AsmStmt | CXCursor_MSAsmStmt => {
                let loc = self.loc(s);
                self.note(loc, "inline assembly ignored");
            }
            k if s.is_expression() || k == CXCursor_UnexposedExpr => {
                let full = self.begin_full();
                self.effect(s);
                let loc = self.loc(s);
                self.end_full(full, None, loc);
            }
            CXCursor_UnexposedStmt => {
                // AttributedStmt (`__attribute__((fallthrough));`) and similar wrappers.
                for c in self.kids(s) {
                    if c.is_statement() || c.is_expression() {
                        self.stmt(c);
                    }
                }
            }
            _ => {
                let loc = self.loc(s);
                let kind = s.kind_name();
                self.note(loc, format!("unsupported statement ({kind}); its sub-statements are lowered in order"));
                for c in self.kids(s) {
                    if c.is_statement() || c.is_expression() {
                        self.stmt(c);
                    }
                }
            }
        }
    }

    pub(super) fn decl(&mut self, d: Cursor) {
        match d.kind() {
            CXCursor_VarDecl => self.var_decl(d),
            CXCursor_FunctionDecl if d.is_definition() => {
                let loc = self.loc(d);
                self.note(loc, format!("nested function `{}` ignored", d.spelling()));
            }
            _ => {}
        }
    }

    fn var_decl(&mut self, v: Cursor) {
        let name = v.spelling();
        let sc = v.storage_class();
        if sc == CX_SC_Static || sc == CX_SC_Extern || v.has_global_storage() {
            self.cx.collect_function_refs(v);
            let gname = if sc == CX_SC_Extern { name } else { format!("{}::{}", self.fname, name) };
            let is_array = v.type_class() == TypeClass::Array;
            let is_ref = self.cx.cpp && clang::is_reference(v.ty());
            self.vars.insert(v.decl_key(), VarInfo { place: Place::Global(gname), is_array, is_ref });
            return;
        }
        if self.cx.cpp && self.held_var(v) {
            return;
        }
        let loc = self.loc(v);
        let id = self.declare_local(v, name, LocalKind::Var, loc);
        if self.cx.cpp {
            if let Some(init) = v.var_initializer() {
                let init = self.cx.tree.among_kids(v, init);
                if self.iterator_decl(v.decl_key(), init, loc) {
                    return;
                }
            }
        }
        let full = self.begin_full();
        if let Some(init) = v.var_initializer() {
            let init = self.cx.tree.among_kids(v, init);
            if self.vars.get(&v.decl_key()).is_some_and(|i| i.is_ref) {
                // `T &r = x;`: `r` holds `&x`.
                let rv = self.addr_of(init);
                self.assign(Place::Local(id), rv, loc);
            } else {
                self.init_var(Place::Local(id), init, v.ty(), loc);
            }
        }
        if self.vars.get(&v.decl_key()).is_some_and(|i| i.is_ref) {
            // A temporary bound to a reference lives as long as the reference.
            let temps = std::mem::replace(&mut self.full_expr, full).unwrap_or_default();
            if let Some(sc) = self.scopes.last_mut() {
                sc.vars.extend(temps);
            }
        } else {
            self.end_full(full, None, loc);
        }
        if self.cx.cpp && super::stdlib::container(v.ty()).is_some() {
            // A standard container of raw pointers frees none of them when it dies: its cells
            // (`stdlib::ELEMENTS`) die with the local, losing what they still hold.
            return;
        }
        if self.cx.cpp && self.cx.owns_resources(v.ty()) {
            // Its destructor runs when the scope ends. One drip cannot follow (a class of the
            // standard library, a template's) is an escape of everything the object holds, so
            // that such an owner never looks like a leak.
            let f = match self.cx.destruction(v.ty()) {
                super::cpp::Death::Runs(f) => f,
                _ => Rc::new(self.cx.unfollowed_death(v.ty(), "destructor at scope exit")),
            };
            match self.scopes.last_mut() {
                Some(sc) => sc.vars.push((id, f)),
                None => self.note(loc, "C++: an object with a destructor outside a block"),
            }
            return;
        }
        match self.cx.cleanup_callee(v) {
            None => {}
            Some(Ok(f)) => match self.scopes.last_mut() {
                Some(sc) => sc.vars.push((id, f)),
                None => self.note(loc, "`cleanup` attribute outside a block ignored"),
            },
            Some(Err(fname)) => {
                self.note(loc, format!("`cleanup({fname})`: no declaration of `{fname}` found; the cleanup is ignored"))
            }
        }
    }

    /// Call the cleanup functions of the scopes from the innermost down to `depth` (kept), each
    /// scope's in reverse order of declaration, as the compiler does when control leaves them.
    pub(super) fn run_cleanups(&mut self, depth: usize, loc: Loc) {
        self.run_cleanups_but(depth, None, loc)
    }

    /// `run_cleanups`, except for the local `kept` (an object a `return` hands to the caller).
    fn run_cleanups_but(&mut self, depth: usize, kept: Option<LocalId>, loc: Loc) {
        let calls: Vec<(LocalId, Rc<CalleeInfo>)> = self.scopes[depth.min(self.scopes.len())..]
            .iter()
            .rev()
            .flat_map(|sc| sc.vars.iter().rev().cloned())
            .filter(|(v, _)| Some(*v) != kept)
            .collect();
        for (var, f) in calls {
            if self.cur.is_none() {
                return;
            }
            let t = self.new_temp(TypeClass::Pointer, loc);
            self.emit(Stmt::Assign { dst: Place::Local(t), src: Rvalue::AddrOf(Place::Local(var)) }, loc);
            let callee = Callee::Direct { name: f.name.clone(), usr: f.usr.clone(), const_args: 0 };
            self.emit(Stmt::Call { dst: None, callee, args: vec![Operand::Place(Place::Local(t))] }, loc);
            if f.noreturn {
                self.terminate(Terminator::NoReturn, loc);
            }
        }
    }

    /// The destructors `run_cleanups(depth, ..)` would call, in order, as `Unwind::cleanups`.
    pub(super) fn cleanups_from(&self, depth: usize) -> Vec<(LocalId, String, String)> {
        self.scopes[depth.min(self.scopes.len())..]
            .iter()
            .rev()
            .flat_map(|sc| sc.vars.iter().rev())
            .map(|(v, f)| (*v, f.name.clone(), f.usr.clone()))
            .collect()
    }

    /// The compound statements (`Cursor::stmt_key`) around the label `label`, outermost first.
    fn scopes_around(&self, label: usize) -> Vec<usize> {
        fn walk(lw: &Lowerer, c: Cursor, label: usize, path: &mut Vec<usize>) -> bool {
            if c.stmt_key() == label && c.kind() == CXCursor_LabelStmt {
                return true;
            }
            let compound = c.kind() == CXCursor_CompoundStmt || (lw.cx.cpp && c.kind() == CXCursor_ForStmt);
            if compound {
                path.push(c.stmt_key());
            }
            for k in lw.kids(c) {
                if !k.is_expression() && walk(lw, k, label, path) {
                    return true;
                }
            }
            if compound {
                path.pop();
            }
            false
        }
        let mut path = Vec::new();
        if let Some(b) = self.body {
            walk(self, b, label, &mut path);
        }
        path
    }

    fn if_stmt(&mut self, s: Cursor) {
        let kids = self.kids(s);
        let (Some(&c), Some(&then_s)) = (kids.first(), kids.get(1)) else {
            let loc = self.loc(s);
            self.note(loc, "malformed `if` skipped");
            return;
        };
        let else_s = kids.get(2).copied();
        let then_b = self.new_block();
        let join = self.new_block();
        let else_b = if else_s.is_some() { self.new_block() } else { join };
        self.cond(c, then_b, else_b);
        let loc = self.loc(s);
        self.enter(then_b, loc);
        self.stmt(then_s);
        self.goto(join, loc);
        if let Some(e) = else_s {
            self.enter(else_b, loc);
            self.stmt(e);
            self.goto(join, loc);
        }
        self.enter(join, loc);
    }

    fn while_stmt(&mut self, s: Cursor) {
        let kids = self.kids(s);
        let (Some(&c), Some(&body)) = (kids.first(), kids.last()) else { return };
        let loc = self.loc(s);
        let header = self.new_block();
        let body_b = self.new_block();
        let exit = self.new_block();
        self.enter(header, loc);
        self.cond(c, body_b, exit);
        self.jumps.push(Jump::Loop { brk: exit, cont: header, scopes: self.scopes.len() });
        self.enter(body_b, loc);
        self.stmt(body);
        self.goto(header, loc);
        self.jumps.pop();
        self.enter(exit, loc);
    }

    fn do_stmt(&mut self, s: Cursor) {
        let kids = self.kids(s);
        let (Some(&body), Some(&c)) = (kids.first(), kids.last()) else { return };
        let loc = self.loc(s);
        let body_b = self.new_block();
        let cont = self.new_block();
        let exit = self.new_block();
        self.enter(body_b, loc);
        self.jumps.push(Jump::Loop { brk: exit, cont, scopes: self.scopes.len() });
        self.stmt(body);
        self.jumps.pop();
        self.enter(cont, loc);
        self.cond(c, body_b, exit);
        self.enter(exit, loc);
    }

    fn for_stmt(&mut self, s: Cursor) {
        let kids = self.kids(s);
        let Some((&body, parts)) = kids.split_last() else { return };
        let loc = self.loc(s);
        let (init, cond, inc) = self.for_parts(s, parts, body);
        // In C++ an object the header declares dies when the loop ends.
        let scoped = self.cx.cpp;
        if scoped {
            self.scopes.push(CleanupScope { key: s.stmt_key(), vars: Vec::new() });
        }
        if let Some(i) = init {
            self.stmt(i);
        }
        let header = self.new_block();
        let body_b = self.new_block();
        let inc_b = self.new_block();
        let exit = self.new_block();
        self.enter(header, loc);
        match cond {
            Some(c) => self.cond(c, body_b, exit),
            None => self.goto(body_b, loc),
        }
        self.jumps.push(Jump::Loop { brk: exit, cont: inc_b, scopes: self.scopes.len() });
        self.enter(body_b, loc);
        self.stmt(body);
        self.jumps.pop();
        self.enter(inc_b, loc);
        if let Some(i) = inc {
            self.effect(i);
        }
        self.goto(header, loc);
        self.enter(exit, loc);
        if scoped {
            if self.scopes.last().is_some_and(|sc| !sc.vars.is_empty()) {
                let depth = self.scopes.len() - 1;
                self.run_cleanups(depth, loc);
            }
            self.scopes.pop();
        }
    }

    /// Split the children of a `for` (minus the body) into init, condition and increment.
    /// libclang omits absent parts, so `for (;c;)` and `for (c;;)` both show one child. We find
    /// the two `;` of the header with the tokenizer and place each child by its offset. When the
    /// header comes from a macro, offsets are not comparable and we fall back to the shape of the
    /// expressions (documented in a lowering note).
    fn for_parts(
        &mut self,
        s: Cursor,
        parts: &[Cursor],
        body: Cursor,
    ) -> (Option<Cursor>, Option<Cursor>, Option<Cursor>) {
        match parts {
            [] => return (None, None, None),
            [a, b, c] => return (Some(*a), Some(*b), Some(*c)),
            _ => {}
        }
        if let Some(r) = self.for_parts_by_tokens(s, parts, body) {
            return r;
        }
        let loc = self.loc(s);
        self.note(loc, "`for` header inside a macro: its parts were classified by their shape");
        for_parts_by_shape(&self.cx.tree, parts)
    }

    fn for_parts_by_tokens(
        &mut self,
        s: Cursor,
        parts: &[Cursor],
        body: Cursor,
    ) -> Option<(Option<Cursor>, Option<Cursor>, Option<Cursor>)> {
        self.cx.for_header(s, parts, body)
    }

    fn switch_stmt(&mut self, s: Cursor) {
        let kids = self.kids(s);
        let (Some(&c), Some(&body)) = (kids.first(), kids.last()) else { return };
        let loc = self.loc(c);
        let on = self.expr(c);
        let dispatch = self.cur_block();
        self.cur = None;
        let after = self.new_block();
        self.switches.push(SwitchCtx::default());
        self.jumps.push(Jump::Switch { brk: after, scopes: self.scopes.len() });
        self.stmt(body);
        self.jumps.pop();
        let ctx = self.switches.pop().unwrap_or_default();
        let sloc = self.loc(s);
        self.goto(after, sloc);
        if ctx.default.is_some() && ctx.range_default.is_some() {
            self.note(loc, "a large `case` range is only reachable by fall-through (there is a `default`)");
        }
        let default = match ctx.default.or(ctx.range_default) {
            Some(d) => d,
            // A switch on an enum whose cases name every enumerator has no way out by its
            // implicit default, as compilers (`-Wswitch`) and clang's CFG take it: that edge goes
            // where `__builtin_unreachable ()` does.
            None if self.covers_every_enumerator(c, &ctx.cases) => {
                let dead = self.new_block();
                self.blocks[dead.index()].term = Some((Terminator::NoReturn, sloc));
                dead
            }
            None => after,
        };
        self.case_labels.extend(ctx.labels.into_iter().map(|(v, t)| (dispatch, v, t)));
        self.blocks[dispatch.index()].term = Some((Terminator::Switch { on, cases: ctx.cases, default }, loc));
        self.cur = Some(after);
    }

    /// Whether the switch condition `c` has an enum type (before the promotion to `int`) and
    /// `cases` holds the value of each of its enumerators.
    fn covers_every_enumerator(&self, c: Cursor, cases: &[(i64, BlockId)]) -> bool {
        let ty = clang::canonical(self.strip(c).ty());
        if ty.kind != CXType_Enum {
            return false;
        }
        let Some(decl) = clang::type_declaration(ty) else { return false };
        let values: Vec<i64> = self
            .kids(decl)
            .into_iter()
            .filter(|k| k.kind() == CXCursor_EnumConstantDecl)
            .map(|k| k.enum_value())
            .collect();
        !values.is_empty() && values.iter().all(|v| cases.iter().any(|(k, _)| k == v))
    }

    /// `case`/`default` labels, including directly nested ones (`case 1: case 2: …`), which share
    /// one block.
    fn case_stmt(&mut self, s: Cursor) {
        let loc = self.loc(s);
        let b = self.new_block();
        self.enter(b, loc);
        let mut c = s;
        loop {
            let kids = self.kids(c);
            let Some(&sub) = kids.last() else { return };
            if c.kind() == CXCursor_DefaultStmt {
                if let Some(sw) = self.switches.last_mut() {
                    sw.default = Some(b);
                }
            } else {
                let lo = kids.first().and_then(|k| k.eval_int());
                let hi = if kids.len() == 3 { kids.get(1).and_then(|k| k.eval_int()) } else { lo };
                let cloc = self.loc(c);
                match (lo, hi) {
                    (Some(lo), Some(hi)) => {
                        // Messages name a case as it is written (`case '$'`, `case RBRACE`).
                        if lo == hi {
                            if let Some(t) = kids.first().and_then(|k| self.cx.text_of(*k)) {
                                if t != lo.to_string() {
                                    if let Some(sw) = self.switches.last_mut() {
                                        sw.labels.push((lo, t));
                                    }
                                }
                            }
                        }
                        self.add_case(lo, hi, b, cloc)
                    }
                    _ => self.note(cloc, "`case` value is not a constant; reachable only by fall-through"),
                }
            }
            if matches!(sub.kind(), CXCursor_CaseStmt | CXCursor_DefaultStmt) {
                c = sub;
                continue;
            }
            self.stmt(sub);
            return;
        }
    }

    fn add_case(&mut self, lo: i64, hi: i64, b: BlockId, loc: Loc) {
        const MAX_EXPANDED: i64 = 256;
        let Some(sw) = self.switches.last_mut() else {
            self.note(loc, "`case` outside a switch ignored");
            return;
        };
        if hi < lo {
            return;
        }
        if hi.saturating_sub(lo) < MAX_EXPANDED {
            for v in lo..=hi {
                sw.cases.push((v, b));
            }
        } else if sw.range_default.is_none() {
            sw.range_default = Some(b);
        }
    }
}

fn for_parts_by_shape(t: &Tree, parts: &[Cursor]) -> (Option<Cursor>, Option<Cursor>, Option<Cursor>) {
    let looks_cond = |c: Cursor| -> bool {
        let c = strip_plain(t, c);
        match c.kind() {
            CXCursor_BinaryOperator => {
                let op = c.binop();
                (CXBinaryOperator_LT..=CXBinaryOperator_NE).contains(&op)
                    || op == CXBinaryOperator_LAnd
                    || op == CXBinaryOperator_LOr
            }
            CXCursor_UnaryOperator => c.unop() == CXUnaryOperator_LNot,
            CXCursor_DeclRefExpr | CXCursor_MemberRefExpr | CXCursor_ArraySubscriptExpr => true,
            _ => false,
        }
    };
    let looks_step = |c: Cursor| -> bool {
        let c = strip_plain(t, c);
        match c.kind() {
            CXCursor_UnaryOperator => (CXUnaryOperator_PostInc..=CXUnaryOperator_PreDec).contains(&c.unop()),
            CXCursor_CompoundAssignOperator => true,
            _ => false,
        }
    };
    match *parts {
        [a] if a.kind() == CXCursor_DeclStmt => (Some(a), None, None),
        [a] if looks_cond(a) => (None, Some(a), None),
        [a] if looks_step(a) => (None, None, Some(a)),
        [a] => (Some(a), None, None),
        [a, b] if a.kind() == CXCursor_DeclStmt || !looks_cond(a) => {
            if looks_cond(b) {
                (Some(a), Some(b), None)
            } else {
                (Some(a), None, Some(b))
            }
        }
        [a, b] => (None, Some(a), Some(b)),
        _ => (None, None, None),
    }
}

/// A parameter of `decl` is a `void **`: a raw block handed back to the caller (`note_ownership_attrs`).
fn hands_back_raw_block(decl: Cursor) -> bool {
    decl.children().into_iter().filter(|c| c.kind() == CXCursor_ParmDecl).any(|p| {
        let t = clang::canonical(p.ty());
        if t.kind != CXType_Pointer {
            return false;
        }
        let inner = clang::canonical(clang::pointee(t));
        inner.kind == CXType_Pointer && clang::canonical(clang::pointee(inner)).kind == CXType_Void
    })
}
