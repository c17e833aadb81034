// Structural equality and hashing of TensorIR: two programs are equal when they have the same
// nodes, dtypes, constants, enum fields, strings and annotations, with variables and buffers
// matched by where they are defined (alpha-equivalence). Iterative: safe on deeply nested IR.
//
// What is compared, and why:
// - Variables are matched at their definition: PrimFunc params, For loop vars, Let/LetStmt vars,
//   block iter vars, Allocate buffer vars, reducer and reduce-axis vars of a TE Reduce, and the
//   node of an AttrStmt the first time it is seen ("thread_extent" introduces its thread var).
//   Buffers are matched where they are declared: the buffer map, Block alloc_buffers and
//   match_buffers, DeclBuffer. A declared buffer's fields are compared (dtype, shape, strides,
//   elem_offset, scope, alignment, offset factor); variables first seen inside them (a symbolic
//   shape `n`, the data handle) are defined there, as in TVM. A buffer used without a declaration
//   (a flattened view made by lowering, the buffers of a bare statement) is declared by its first
//   use, except that its data handle is then an ordinary use: the data variable anchors it.
// - Free variables (used and defined nowhere in the compared object) must be the same object
//   unless `mapFreeVars` is set, in which case they are matched by first use.
// - Names of variables and buffers are ignored, and so is PrimFuncNode::name (the function's key
//   in its module, like TVM's GlobalVar). Function attributes are compared, so a differing
//   "global_symbol" makes functions differ: drop it first for a name-independent key.
// - Block names ARE compared (TVM ignores them): traces address blocks by name (get_block), and a
//   tuning database replays the trace recorded for one function on another with the same hash,
//   which only works when the block names agree. Block ids (BlockNode::id) are identities and are
//   ignored.
// - Annotations and attributes are dictionaries: compared and hashed as sets of key/value pairs,
//   independent of insertion order (entries are visited sorted by key).
// - Floating-point immediates are compared by bit pattern (NaN equals NaN, 0.0 differs from -0.0).
// - Shared subtrees are compared as trees: the cost is the size of the unfolded tree.
//
// structuralHash is consistent with structuralEqual (equal programs hash equal, with or without
// mapFreeVars), never depends on addresses, names or pointer-ordered containers, and is therefore
// the same in every run and process; it is meant as a workload key of a tuning database.
#pragma once

#include <cstdint>
#include <string>

#include "tir/function.h"

namespace tessera::tir {

/// Bumped whenever the hash of an unchanged program changes (a tuning database stores it beside
/// its keys and discards records made under another version).
inline constexpr int kStructuralHashVersion = 1;

/// True when `a` and `b` are structurally equal (see the file comment). Free variables must be
/// the same objects unless `mapFreeVars` is set.
bool structuralEqual(const PrimExpr& a, const PrimExpr& b, bool mapFreeVars = false);
bool structuralEqual(const Stmt& a, const Stmt& b, bool mapFreeVars = false);
bool structuralEqual(const PrimFunc& a, const PrimFunc& b, bool mapFreeVars = false);
/// Buffers are compared as declarations: fields, not identity (their names are ignored).
bool structuralEqual(const Buffer& a, const Buffer& b);

/// A hash consistent with structuralEqual, stable across runs and processes.
uint64_t structuralHash(const PrimExpr& e);
uint64_t structuralHash(const Stmt& s);
uint64_t structuralHash(const PrimFunc& f);
uint64_t structuralHash(const Buffer& b);

/// When `a` and `b` differ: a short description of the first difference found (for test
/// failures); empty when they are equal.
std::string explainDifference(const Stmt& a, const Stmt& b, bool mapFreeVars = false);
std::string explainDifference(const PrimFunc& a, const PrimFunc& b, bool mapFreeVars = false);

}  // namespace tessera::tir
