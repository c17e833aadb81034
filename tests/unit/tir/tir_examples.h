// Hand-built PrimFuncs of the spec's printed examples (specs/tir_relax.md §1.6, §1.8, §3.6, §4.2),
// shared by the printer's golden tests and the evaluator's differential tests.
#pragma once

#include <vector>

#include "tir/function.h"

namespace tessera::tir::examples {

/// The point region buffer[v0, v1, ...].
BufferRegion pointRegion(const Buffer& buffer, const std::vector<Var>& vars);
/// The root block realize holding `allocs` around `body`.
Stmt rootBlock(std::vector<Buffer> allocs, Stmt body);

/// §1.6: create_prim_func([A, B, relu]) for matmul (n x n x n, reduce axis k) + relu.
PrimFunc matmulRelu(int64_t n = 128);
/// §3.6: C = A @ B (n³) with j split by [n/8, 8], loops i, j_0, k, j_1, decomposed at k.
PrimFunc decomposedMatmul(int64_t n = 128);
/// §4.2: the lowered 64x64 matmul+relu (parallel i, C computed at j_0, vector store of 8 lanes).
PrimFunc loweredMatmulRelu();
/// §1.8: X_red[i] = max over r in [0, 4) of X[i, r], with X of shape (n, 4), n a symbolic int64.
PrimFunc symbolicRowMax();

}  // namespace tessera::tir::examples
