// Hand-built functions for the block-primitive tests: a two-stage pipeline through an
// intermediate buffer, matmul followed by relu, a row sum, and a 4x4x4 matmul tensor intrinsic
// whose implementation is another loop nest (so the evaluator can check tensorized code).
#pragma once

#include <functional>
#include <string>

#include "schedule_test_util.h"
#include "tir/schedule/primitive/block_scope.h"

namespace tessera::tir::testing {

/// A block `name` over spatial iter vars of `extents` storing fn(vars) into out[vars], under a
/// loop nest `loopNames`; reads are recomputed from the body.
inline Stmt spatialStage(const std::string& name, const Buffer& out,
                         const std::vector<int64_t>& extents,
                         const std::vector<std::string>& loopNames,
                         const std::function<PrimExpr(const std::vector<PrimExpr>&)>& fn) {
  auto blk = std::make_shared<BlockNode>();
  blk->name = name;
  std::vector<Var> loops;
  std::vector<PrimExpr> vars, ext, bindings;
  for (size_t d = 0; d < extents.size(); ++d) {
    Var v = makeVar("v" + loopNames[d]);
    Var l = makeVar(loopNames[d]);
    blk->iterVars.push_back({{intImm(0), intImm(extents[d])}, v, IterVarType::kDataPar, ""});
    vars.push_back(v);
    loops.push_back(l);
    ext.push_back(intImm(extents[d]));
    bindings.push_back(l);
  }
  blk->writes = {point(out, vars)};
  blk->body = bufferStore(out, fn(vars), vars);
  blk->reads = recomputeReads(blk.get());
  return loopNest(loops, ext, blockRealize(bindings, boolImm(true), blk));
}

/// A function whose root block allocates `allocs`.
inline PrimFunc withRootAlloc(const std::vector<Buffer>& params, const std::vector<Buffer>& allocs,
                              Stmt body) {
  auto root = std::make_shared<BlockNode>();
  root->name = "root";
  root->allocBuffers = allocs;
  root->body = std::move(body);
  return makePrimFunc("main", params, blockRealize({}, boolImm(true), root));
}

/// B = A * 2 (intermediate), C = B + 1 (output), both n x m.
inline PrimFunc twoStage(int64_t n, int64_t m) {
  Buffer a = makeBuffer("A", {intImm(n), intImm(m)});
  Buffer b = makeBuffer("B", {intImm(n), intImm(m)});
  Buffer c = makeBuffer("C", {intImm(n), intImm(m)});
  Stmt sb = spatialStage("B", b, {n, m}, {"i", "j"},
                         [&](const auto& v) { return bufferLoad(a, v) * floatImm(2); });
  Stmt sc = spatialStage("C", c, {n, m}, {"i", "j"},
                         [&](const auto& v) { return bufferLoad(b, v) + floatImm(1); });
  return withRootAlloc({a, c}, {b}, seq({sb, sc}));
}

/// C = A x B (reduction block "C", intermediate), D = max(C, 0) (block "D").
inline PrimFunc matmulRelu(int64_t n) {
  PrimFunc mm = matmul(n, n, n);
  std::vector<Buffer> p = mm->paramBuffers();
  Buffer d = makeBuffer("D", {intImm(n), intImm(n)});
  const auto* root = mm->body->as<BlockRealizeNode>()->block.get();
  Stmt sd = spatialStage("D", d, {n, n}, {"i", "j"},
                         [&](const auto& v) { return max(bufferLoad(p[2], v), floatImm(0)); });
  return withRootAlloc({p[0], p[1], d}, {p[2]}, seq({root->body, sd}));
}

/// A reduction block "B" with B[i] = sum_k A[i, k], loops i, k.
inline PrimFunc rowSum(int64_t n, int64_t k) {
  Buffer a = makeBuffer("A", {intImm(n), intImm(k)});
  Buffer b = makeBuffer("B", {intImm(n)});
  Var i = makeVar("i"), kk = makeVar("k"), vi = makeVar("vi"), vk = makeVar("vk");
  auto blk = std::make_shared<BlockNode>();
  blk->name = "B";
  blk->iterVars = {{{intImm(0), intImm(n)}, vi, IterVarType::kDataPar, ""},
                   {{intImm(0), intImm(k)}, vk, IterVarType::kCommReduce, ""}};
  blk->reads = {point(a, {vi, vk})};
  blk->writes = {point(b, {vi})};
  blk->init = bufferStore(b, floatImm(0), {vi});
  blk->body = bufferStore(b, bufferLoad(b, {vi}) + bufferLoad(a, {vi, vk}), {vi});
  return withRoot(
      {a, b}, loopNest({i, kk}, {intImm(n), intImm(k)}, blockRealize({i, kk}, boolImm(true), blk)));
}

/// A 4x4x4 multiply-accumulate C[i, j] += A[i, k] * B[k, j] over (4, 4) buffers, as a block
/// "update" named `blockName` (the description) under loops i, j, k. `extent` changes the loop
/// extents (for mismatch tests).
inline PrimFunc mma4x4(const std::string& blockName, int64_t extent = 4) {
  Buffer a = makeBuffer("A", {intImm(4), intImm(4)});
  Buffer b = makeBuffer("B", {intImm(4), intImm(4)});
  Buffer c = makeBuffer("C", {intImm(4), intImm(4)});
  Var i = makeVar("i"), j = makeVar("j"), k = makeVar("k");
  Var vi = makeVar("vi"), vj = makeVar("vj"), vk = makeVar("vk");
  auto blk = std::make_shared<BlockNode>();
  blk->name = blockName;
  blk->iterVars = {{{intImm(0), intImm(extent)}, vi, IterVarType::kDataPar, ""},
                   {{intImm(0), intImm(extent)}, vj, IterVarType::kDataPar, ""},
                   {{intImm(0), intImm(extent)}, vk, IterVarType::kCommReduce, ""}};
  blk->reads = {point(c, {vi, vj}), point(a, {vi, vk}), point(b, {vk, vj})};
  blk->writes = {point(c, {vi, vj})};
  blk->body = bufferStore(
      c, bufferLoad(c, {vi, vj}) + bufferLoad(a, {vi, vk}) * bufferLoad(b, {vk, vj}), {vi, vj});
  Stmt body = loopNest({i, j, k}, {intImm(extent), intImm(extent), intImm(extent)},
                       blockRealize({i, j, k}, boolImm(true), blk));
  return withRoot({a, b, c}, body);
}

}  // namespace tessera::tir::testing
