#include "transform_test_util.h"

#include "test_util.h"
#include "tir/eval/eval.h"
#include "tir/functor.h"
#include "tir/printer/printer.h"

namespace tessera::test {

using namespace tir;

Buffer constBuffer(const std::string& name, const std::vector<int64_t>& shape, DataType dtype) {
  std::vector<PrimExpr> dims;
  for (int64_t d : shape) dims.push_back(intImm(d));
  return makeBuffer(name, dims, dtype);
}

namespace {

// Single-element regions of the accesses in `s`, one per buffer in first-access order.
void collectRegions(const Stmt& s, std::vector<BufferRegion>* reads,
                    std::vector<BufferRegion>* writes) {
  auto add = [](std::vector<BufferRegion>* out, const Buffer& b, const std::vector<PrimExpr>& idx) {
    for (const BufferRegion& r : *out)
      if (r.buffer == b) return;
    BufferRegion r{b, {}};
    for (const PrimExpr& i : idx) r.region.push_back(Range{i, intImm(1)});
    out->push_back(r);
  };
  preOrderVisit(s, [&](const Stmt& st) {
    if (const auto* store = st->as<BufferStoreNode>()) {
      postOrderVisitExpr(store->value, [&](const PrimExpr& e) {
        if (const auto* load = e->as<BufferLoadNode>()) add(reads, load->buffer, load->indices);
      });
      add(writes, store->buffer, store->indices);
    }
    return true;
  });
}

}  // namespace

Stmt makeBlock(const std::string& name, const std::vector<IterSpec>& iters,
               const std::function<Stmt(const std::vector<Var>&)>& makeBody,
               const std::function<Stmt(const std::vector<Var>&)>& makeInit, PrimExpr predicate) {
  auto block = std::make_shared<BlockNode>();
  block->name = name;
  std::vector<Var> vars;
  std::vector<PrimExpr> bindings;
  for (const IterSpec& it : iters) {
    Var v = makeVar(it.name);
    vars.push_back(v);
    bindings.push_back(it.binding);
    block->iterVars.push_back(IterVar{Range{intImm(0), it.extent}, v, it.type, ""});
  }
  block->body = makeBody(vars);
  if (makeInit) block->init = makeInit(vars);
  // The parser lists the update's reads; the init's writes are the same buffer.
  collectRegions(block->body, &block->reads, &block->writes);
  return blockRealize(bindings, predicate ? predicate : boolImm(true), block);
}

Stmt rootBlock(Stmt body, std::vector<Buffer> allocs) {
  auto block = std::make_shared<BlockNode>();
  block->name = "root";
  block->body = std::move(body);
  block->allocBuffers = std::move(allocs);
  return blockRealize({}, boolImm(true), block);
}

Stmt loop(const Var& v, int64_t extent, Stmt body, ForKind kind) {
  return forLoop(v, intImm(0), intImm(extent), kind, std::move(body));
}

PrimFunc scheduledMatmulRelu(int64_t n) {
  Buffer a = constBuffer("A", {n, n}), b = constBuffer("B", {n, n}), d = constBuffer("D", {n, n});
  Buffer c = constBuffer("C", {n, n});
  Var i = makeVar("i"), j0 = makeVar("j_0"), ax0Init = makeVar("ax0_init"), ax0 = makeVar("ax0"),
      ax1 = makeVar("ax1"), j1 = makeVar("j_1");
  PrimExpr N = intImm(n);
  using K = IterVarType;
  Stmt init = makeBlock(
      "matmul_init", {{"v_i", K::kDataPar, N, i}, {"v_j", K::kDataPar, N, j0 * 8 + ax0Init}},
      [&](const std::vector<Var>& v) { return bufferStore(c, floatImm(0), {v[0], v[1]}); });
  Stmt update = makeBlock("matmul",
                          {{"v_i", K::kDataPar, N, i},
                           {"v_j", K::kDataPar, N, j0 * 8 + ax0},
                           {"v_k", K::kCommReduce, N, ax1}},
                          [&](const std::vector<Var>& v) {
                            PrimExpr acc = bufferLoad(c, {v[0], v[1]});
                            PrimExpr prod =
                                bufferLoad(a, {v[0], v[2]}) * bufferLoad(b, {v[2], v[1]});
                            return bufferStore(c, acc + prod, {v[0], v[1]});
                          });
  Stmt relu = makeBlock("relu", {{"v_i", K::kDataPar, N, i}, {"v_j", K::kDataPar, N, j0 * 8 + j1}},
                        [&](const std::vector<Var>& v) {
                          return bufferStore(d, max(bufferLoad(c, {v[0], v[1]}), floatImm(0)),
                                             {v[0], v[1]});
                        });
  Stmt body = loop(i, n,
                   loop(j0, n / 8,
                        seq({loop(ax0Init, 8, init), loop(ax0, 8, loop(ax1, n, update)),
                             loop(j1, 8, relu, ForKind::kVectorized)})),
                   ForKind::kParallel);
  return makePrimFunc("main", {a, b, d}, rootBlock(body, {c}));
}

PrimFunc plainMatmulRelu(int64_t n) {
  Buffer a = constBuffer("A", {n, n}), b = constBuffer("B", {n, n}),
         d = constBuffer("relu", {n, n});
  Buffer c = constBuffer("matmul", {n, n});
  Var i = makeVar("i"), j = makeVar("j"), k = makeVar("k"), i2 = makeVar("i"), j2 = makeVar("j");
  PrimExpr N = intImm(n);
  using K = IterVarType;
  Stmt mm = makeBlock(
      "matmul",
      {{"v_i", K::kDataPar, N, i}, {"v_j", K::kDataPar, N, j}, {"v_k", K::kCommReduce, N, k}},
      [&](const std::vector<Var>& v) {
        return bufferStore(
            c,
            bufferLoad(c, {v[0], v[1]}) + bufferLoad(a, {v[0], v[2]}) * bufferLoad(b, {v[2], v[1]}),
            {v[0], v[1]});
      },
      [&](const std::vector<Var>& v) { return bufferStore(c, floatImm(0), {v[0], v[1]}); });
  Stmt relu = makeBlock("relu", {{"v_i", K::kDataPar, N, i2}, {"v_j", K::kDataPar, N, j2}},
                        [&](const std::vector<Var>& v) {
                          return bufferStore(d, max(bufferLoad(c, {v[0], v[1]}), floatImm(0)),
                                             {v[0], v[1]});
                        });
  Stmt body = seq({loop(i, n, loop(j, n, loop(k, n, mm))), loop(i2, n, loop(j2, n, relu))});
  return makePrimFunc("main", {a, b, d}, rootBlock(body, {c}));
}

::testing::AssertionResult sameResults(const PrimFunc& before, const PrimFunc& after, int trials,
                                       const std::vector<std::vector<int64_t>>& shapes) {
  std::vector<Buffer> params = before->paramBuffers();
  for (int trial = 0; trial < trials; ++trial) {
    std::vector<NDArray> x, y;
    for (size_t p = 0; p < params.size(); ++p) {
      std::vector<int64_t> shape;
      if (p < shapes.size()) {
        shape = shapes[p];
      } else {
        for (const PrimExpr& dim : params[p]->shape) shape.push_back(*asConstInt(dim));
      }
      NDArray t = randomTensor(shape, params[p]->dtype, 100 * trial + p + 1, -4.0, 4.0);
      x.push_back(t.copy());
      y.push_back(t.copy());
    }
    evaluate(before, x);
    evaluate(after, y);
    for (size_t p = 0; p < params.size(); ++p) {
      ::testing::AssertionResult r = allClose(y[p], x[p], 1e-5, 1e-5);
      if (!r) return r << " (buffer " << params[p]->name << ", trial " << trial << ")";
    }
  }
  return ::testing::AssertionSuccess();
}

std::string script(const PrimFunc& func) {
  std::string s = toScript(func);
  size_t def = s.find("def ");
  return def == std::string::npos ? s : s.substr(def);
}

}  // namespace tessera::test
