// Helpers for the lowering pass tests: building small TensorIR functions by hand (blocks with
// their read/write regions derived from the body, as the TVMScript parser would), the scheduled
// matmul+relu of specs/tir_relax.md §4.2, and the differential check of a pass (tir::evaluate on
// seeded random inputs before and after).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tir/function.h"

namespace tessera::test {

/// A float32 (or `dtype`) buffer with a constant shape.
tir::Buffer constBuffer(const std::string& name, const std::vector<int64_t>& shape,
                        DataType dtype = DataType::float32());

/// One iter var of a block: its kind, domain extent and binding.
struct IterSpec {
  std::string name;
  tir::IterVarType type;
  tir::PrimExpr extent;
  tir::PrimExpr binding;
};

/// `with T.block(name)` over the iter vars; `makeBody`/`makeInit` receive the iter vars. Reads and
/// writes are the single-element regions the body (and init) accesses.
tir::Stmt makeBlock(const std::string& name, const std::vector<IterSpec>& iters,
                    const std::function<tir::Stmt(const std::vector<tir::Var>&)>& makeBody,
                    const std::function<tir::Stmt(const std::vector<tir::Var>&)>& makeInit = {},
                    tir::PrimExpr predicate = nullptr);

/// The root block realize holding `allocs` around `body`.
tir::Stmt rootBlock(tir::Stmt body, std::vector<tir::Buffer> allocs = {});

/// A loop with min 0.
tir::Stmt loop(const tir::Var& v, int64_t extent, tir::Stmt body,
               tir::ForKind kind = tir::ForKind::kSerial);

/// The §4.2 anchor: D = relu(A @ B) for n x n (n a multiple of 8) with `i` parallel, `j` split by
/// 8 with the inner loop vectorized, C computed at `j_0` and the reduction decomposed.
tir::PrimFunc scheduledMatmulRelu(int64_t n = 64);
/// The same computation straight from create_prim_func (init inside the reduction block).
tir::PrimFunc plainMatmulRelu(int64_t n);

/// Runs `before` and `after` on `trials` sets of seeded random inputs (shapes from the buffers,
/// or `shapes` when given, for symbolic ones) and compares every buffer afterwards.
::testing::AssertionResult sameResults(const tir::PrimFunc& before, const tir::PrimFunc& after,
                                       int trials = 2,
                                       const std::vector<std::vector<int64_t>>& shapes = {});

/// The function printed as TVMScript, from the `def` line on (the decorator dropped).
std::string script(const tir::PrimFunc& func);

}  // namespace tessera::test
