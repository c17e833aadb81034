// Small helpers the lowering passes share: rebuilding a PrimFunc with a new body, converting
// annotation values to expressions, and computing the region a statement touches in a buffer.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/attr_value.h"
#include "tir/arith/analyzer.h"
#include "tir/function.h"

namespace tessera::tir::transform {

/// A copy of `func` with `body` (same parameters, buffers and attributes).
PrimFunc withBody(const PrimFunc& func, Stmt body);

/// An annotation value as an immediate (int, bool, float or string); null for other kinds.
PrimExpr attrToExpr(const AttrValue& value);

/// Whether `e` is the constant `true` (or any non-zero integer immediate).
bool isConstTrue(const PrimExpr& e);
/// `e` without a `tir.likely` around it.
PrimExpr unwrapLikely(const PrimExpr& e);
/// Appends the conjuncts of `a and b and ...` to `out`, in source order (`cond` itself when it is
/// not a conjunction).
void conjunctsOf(const PrimExpr& cond, std::vector<PrimExpr>& out);
/// Whether `e` is the constant `false`.
bool isConstFalse(const PrimExpr& e);

/// The Simplify pass on one statement (variables bound outside it are unknown).
Stmt simplifyStmt(const Stmt& s);

/// Which accesses accessedRegions collects.
enum class AccessKind : uint8_t { kRead, kWrite, kAny };

/// For each buffer accessed (loaded or stored, as `kind` says) in `body`: the bounding box of the
/// accessed indices when every loop and block iter var inside `body` ranges over its domain (block
/// iter vars are replaced by their bindings first). Variables bound outside `body` stay symbolic;
/// `analyzer` should know their ranges. Buffers appear in first-access order.
std::vector<BufferRegion> accessedRegions(const Stmt& body, arith::Analyzer& analyzer,
                                          AccessKind kind = AccessKind::kAny);

}  // namespace tessera::tir::transform
