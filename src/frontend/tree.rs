//! The cursors below one top-level declaration, walked from libclang once.
//!
//! Input: a top-level cursor (a function definition or a global variable declaration).
//! Output: `Tree`, answering "the children of this cursor" and "every descendant, parents first"
//! without calling back into libclang.
//! Invariants:
//! - `children(c)` returns what `Cursor::children` would: the tree is filled by one recursive
//!   `clang_visitChildren`, which visits a node's children in the order, and with the same
//!   cursor values, as a visit of that node alone, with two differences the build or the key
//!   absorbs: statement and expression cursors carry their enclosing declaration (see
//!   `CursorKey`), and a `case` constant shows once more as its own child (left out).
//!   The walk does not descend below the kinds that have no children in C (`is_childless`).
//! - `rebuild` replaces everything of the previous root (only buffer capacity carries over).
//! - Every cursor the tree hands out carries its slot (`Cursor`'s second field), so asking about
//!   it again needs no lookup. Other cursors are looked up by `CursorKey` in an index built on
//!   the first such question; a cursor that is not in the tree (a declaration elsewhere) falls
//!   back to libclang, so an answer never depends on whether the tree has it.
//!
//! Why: lowering asks for the children of most nodes, several times for some (`strip_plain`,
//! conditions, the field-store scan). Each `clang_visitChildren` builds a visitor and a heap
//! work list; one recursive walk per function costs a fraction of the calls it replaces. Slots
//! spare hashing the key of every node (to build the index) and of every question.

use std::cell::{Cell, RefCell};

use clang_sys::*;
use hashbrown::HashMap;
use smallvec::SmallVec;

use super::clang::Cursor;

/// A cursor's identity: what `clang_equalCursors` compares, minus the translation unit (one
/// tree never spans two) and, for statements and expressions, minus the enclosing declaration
/// libclang notes in `data[0]`: the recursive walk fills it in, a visit of the statement alone
/// leaves it null, and nothing drip asks of a statement reads it. The statement itself
/// (`data[1]`) identifies it. That pointer comes first: `==` compares in field order, and two
/// different nodes differ there (the walk compares keys twice per node).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct CursorKey(usize, CXCursorKind, i32, usize);

/// libclang numbers expression kinds from 100 and statement kinds from 200, below the
/// attributes at 400 (`Index.h`); the test `tree_children_are_libclangs` holds us to it.
fn is_statement_or_expression(kind: CXCursorKind) -> bool {
    (100..400).contains(&kind)
}

/// Kinds libclang never gives children in C: asking it to walk below them is work for nothing
/// (they are a third of the nodes). A name's qualifier and template arguments, a
/// `DeclRefExpr`'s only possible children, are C++; literals have no operands; libclang gives
/// references (`CXCursor_FirstRef..=CXCursor_LastRef` in `Index.h`: a `TypeRef`, a `LabelRef`, …)
/// no children, C++ base specifiers aside.
fn is_childless(kind: CXCursorKind) -> bool {
    matches!(
        kind,
        CXCursor_DeclRefExpr
            | CXCursor_IntegerLiteral
            | CXCursor_FloatingLiteral
            | CXCursor_CharacterLiteral
            | CXCursor_StringLiteral
    ) || (CXCursor_ObjCSuperClassRef..=CXCursor_VariableRef).contains(&kind) && kind != CXCursor_CXXBaseSpecifier
}

fn key(c: Cursor) -> CursorKey {
    let decl = if is_statement_or_expression(c.0.kind) { 0 } else { c.0.data[0] as usize };
    CursorKey(c.0.data[1] as usize, c.0.kind, c.0.xdata, decl)
}

/// Do `a` and `b` name the same cursor (see `CursorKey`)?
#[cfg(test)]
pub fn same_cursor(a: Cursor, b: Cursor) -> bool {
    key(a) == key(b) && a.0.data[2] == b.0.data[2]
}

/// `Cursor`'s second field for a cursor the tree did not hand out.
pub(super) const NO_NODE: u32 = u32::MAX;

/// What fills `Tree::kids` before the children are put in place.
const NULL_CURSOR: CXCursor = CXCursor { kind: 0, xdata: 0, data: [std::ptr::null(); 3] };

#[derive(Default)]
pub(super) struct Tree {
    /// Every cursor below the root, in visiting order (parents before children); the root is
    /// not in it. `nodes[i]` carries its slot, `i + 1`, as `Cursor`'s node field.
    nodes: Vec<Cursor>,
    /// Children of `nodes[i]`: `kids[first[i + 1] .. first[i + 2]]`; those of the root:
    /// `kids[first[0] .. first[1]]`. Copies of the nodes rather than their indices: handing out
    /// a node's children is then copying a slice.
    first: Vec<u32>,
    kids: Vec<Cursor>,
    /// The root's key, `None` when the walk was lost (then the tree answers nothing).
    root: Option<CursorKey>,
    /// Cursor → slot (`i + 1` for `nodes[i]`), for cursors that do not carry their slot (those
    /// libclang returned from other questions: a call's arguments, an initializer). Built on
    /// the first such question about a root: most cursors asked about come from the tree and
    /// carry their slot, and indexing every node cost more than the walk's own bookkeeping.
    index: RefCell<HashMap<CursorKey, u32>>,
    indexed: Cell<bool>,
    /// Scratch of `rebuild`, kept for its capacity: the path from the root to the last node
    /// visited that may have children, the fill positions of `kids`.
    path: Vec<(CursorKey, u32)>,
    fill: Vec<u32>,
}

impl Tree {
    /// Walk everything below `root`, replacing what the tree held. The buffers are kept from
    /// one root to the next: a TU's declarations are walked one after another, and growing
    /// fresh vectors for each cost more than the walk's own bookkeeping.
    pub fn rebuild(&mut self, root: Cursor) {
        let Tree { nodes, first, kids, root: root_key, index: _, indexed, path, fill } = self;
        nodes.clear();
        path.clear();
        indexed.set(false);
        *root_key = None;
        // The walk reports each cursor with its parent. It is depth-first, so the parent is on
        // the path from the root to the previous cursor (less the nodes that cannot have
        // children): pop the path until it is on top.
        path.push((key(root), 0));
        let mut lost = false;
        root.visit_descendants_with_parent(&mut |c, parent| {
            let (ck, pk) = (key(c), key(parent));
            // The recursive walk shows a constant expression (a `case` bound) once more as its
            // own child, with the expression's children below the copy; a visit of the
            // expression alone shows the children directly. Leaving the copy out gives them to
            // the expression, whose key they name as their parent.
            if ck == pk {
                return true;
            }
            while path.last().is_some_and(|p| p.0 != pk) {
                path.pop();
            }
            let Some(&(_, slot)) = path.last() else {
                lost = true;
                return false;
            };
            // The node carries its parent's slot until the children lists are made.
            nodes.push(Cursor(c.0, slot));
            // A node without children is no one's parent: it need not go on the path.
            let recurse = !is_childless(c.0.kind);
            if recurse {
                path.push((ck, nodes.len() as u32));
            }
            recurse
        });
        if lost {
            // Cannot happen for a depth-first walk. The tree is then left empty, root included,
            // so every question about this declaration goes to libclang.
            nodes.clear();
            first.clear();
            kids.clear();
            return;
        }
        // Children lists by counting: a node's children are listed in visiting order.
        let n_slots = nodes.len() + 1;
        first.clear();
        first.resize(n_slots + 1, 0);
        for n in nodes.iter() {
            first[n.1 as usize + 1] += 1;
        }
        for i in 0..n_slots {
            first[i + 1] += first[i];
        }
        fill.clear();
        fill.extend_from_slice(first);
        kids.clear();
        kids.resize(nodes.len(), Cursor::new(NULL_CURSOR));
        for (i, n) in nodes.iter_mut().enumerate() {
            let p = n.1 as usize;
            n.1 = i as u32 + 1;
            kids[fill[p] as usize] = *n;
            fill[p] += 1;
        }
        *root_key = Some(key(root));
    }

    /// The slot `c` carries, if it is this tree's node there. A cursor from the tree is a copy
    /// of the node, so comparing the raw fields is exact; it keeps a cursor from an earlier root
    /// from being taken for whatever now sits at its slot.
    #[inline]
    fn own_slot(&self, c: Cursor) -> Option<u32> {
        let n = self.nodes.get((c.1 as usize).wrapping_sub(1))?;
        let same = n.0.kind == c.0.kind && n.0.xdata == c.0.xdata && n.0.data[..2] == c.0.data[..2];
        same.then_some(c.1)
    }

    /// The slot of `c` (0 for the root), if the tree holds it.
    #[inline]
    fn slot(&self, c: Cursor) -> Option<u32> {
        match self.own_slot(c) {
            Some(s) => Some(s),
            None => self.slot_by_key(c),
        }
    }

    #[inline(never)]
    fn slot_by_key(&self, c: Cursor) -> Option<u32> {
        let root = self.root?;
        let k = key(c);
        if k == root {
            return Some(0);
        }
        if !self.indexed.get() {
            self.build_index();
        }
        self.index.borrow().get(&k).copied()
    }

    fn build_index(&self) {
        let mut index = self.index.borrow_mut();
        let n_slots = self.nodes.len() + 1;
        // Clearing a table writes all of its buckets: one sized for a TU's largest function
        // would cost that much again for each small one after it.
        if index.capacity() > 4 * n_slots.max(256) {
            *index = HashMap::with_capacity(n_slots);
        } else {
            index.clear();
        }
        index.reserve(n_slots);
        for c in &self.nodes {
            // A cursor value seen twice has the same children both times; keep the first.
            index.entry(key(*c)).or_insert(c.1);
        }
        self.indexed.set(true);
    }

    /// The children of `c`, as `Cursor::children` gives them.
    pub fn children(&self, c: Cursor) -> KidList {
        match self.kid_slice(c) {
            Some(kids) => KidList::from_slice(kids),
            None => c.children().into_iter().collect(),
        }
    }

    #[inline]
    fn kid_slice(&self, c: Cursor) -> Option<&[Cursor]> {
        let slot = self.slot(c)? as usize;
        Some(&self.kids[self.first[slot] as usize..self.first[slot + 1] as usize])
    }

    /// The children of `c`, without collecting them.
    pub fn kids(&self, c: Cursor) -> Kids<'_> {
        match self.kid_slice(c) {
            Some(kids) => Kids::Tree(kids.iter()),
            None => Kids::Owned(c.children().into_iter()),
        }
    }

    /// `c` as the tree holds it (carrying its slot) if it is one of `parent`'s children: for
    /// cursors libclang returned from another question about `parent` (a call's argument, a
    /// variable's initializer), so that asking about them needs no index.
    pub fn among_kids(&self, parent: Cursor, c: Cursor) -> Cursor {
        // Only the tree's own children: libclang's would not carry slots either.
        let Some(kids) = self.kid_slice(parent) else {
            return c;
        };
        let k = key(c);
        kids.iter().copied().find(|n| key(*n) == k).unwrap_or(c)
    }

    /// Does the tree hold `c` (so `children` answers without libclang)?
    #[cfg(test)]
    pub fn has(&self, c: Cursor) -> bool {
        self.slot(c).is_some()
    }

    /// Is `root` the cursor this tree was built from?
    pub fn is_root(&self, root: Cursor) -> bool {
        self.root == Some(key(root))
    }

    /// Every cursor below the root, parents first (the order of `Cursor::visit_descendants`).
    pub fn descendants(&self) -> &[Cursor] {
        &self.nodes
    }
}

/// The children of a cursor, collected. Most nodes have at most four (an operator's operands,
/// an `if`'s parts): those are kept without a heap allocation.
pub(super) type KidList = SmallVec<[Cursor; 4]>;

/// An iterator over the children of a cursor: from the tree, or from libclang when the cursor is
/// not in it.
pub(super) enum Kids<'t> {
    Tree(std::slice::Iter<'t, Cursor>),
    Owned(std::vec::IntoIter<Cursor>),
}

impl Iterator for Kids<'_> {
    type Item = Cursor;

    fn next(&mut self) -> Option<Cursor> {
        match self {
            Kids::Tree(it) => it.next().copied(),
            Kids::Owned(it) => it.next(),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match self {
            Kids::Tree(it) => it.size_hint(),
            Kids::Owned(it) => it.size_hint(),
        }
    }
}

impl DoubleEndedIterator for Kids<'_> {
    fn next_back(&mut self) -> Option<Cursor> {
        match self {
            Kids::Tree(it) => it.next_back().copied(),
            Kids::Owned(it) => it.next_back(),
        }
    }
}

impl ExactSizeIterator for Kids<'_> {}
