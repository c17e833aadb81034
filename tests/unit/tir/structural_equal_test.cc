// TIR structural equality and hashing: alpha-renamed functions are equal and hash alike; a changed
// loop extent, dtype, buffer shape, operand order, block name or iter var kind makes them differ;
// free variables compare by identity; the hash is a stable workload key.
#include "tir/structural_equal.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "te/create_prim_func.h"
#include "te/reduce.h"
#include "tir_examples.h"

namespace tessera::tir {
namespace {

using examples::pointRegion;
using examples::rootBlock;

/// What the function built by `scale` varies, one field per test below.
struct ScaleSpec {
  std::string prefix;  ///< prepended to every variable and buffer name
  int64_t extent = 16;
  int64_t shape = 16;
  DataType dtype = DataType::float32();
  bool swapOperands = false;
  std::string blockName = "B";
  IterVarType iterType = IterVarType::kDataPar;
};

// B[vi] = A[vi] * 2 over `for i in [0, extent)`, with fresh variables and buffers on every call.
PrimFunc scale(const ScaleSpec& s) {
  Buffer a = makeBuffer(s.prefix + "A", {intImm(s.shape)}, s.dtype);
  Buffer b = makeBuffer(s.prefix + "B", {intImm(s.shape)}, s.dtype);
  Var i = makeVar(s.prefix + "i"), vi = makeVar(s.prefix + "vi");
  auto block = std::make_shared<BlockNode>();
  block->name = s.blockName;
  block->iterVars = {IterVar{Range{intImm(0), intImm(s.extent)}, vi, s.iterType, ""}};
  block->reads = {pointRegion(a, {vi})};
  block->writes = {pointRegion(b, {vi})};
  PrimExpr load = bufferLoad(a, {vi}), two = makeConst(s.dtype, 2);
  block->body = bufferStore(b, s.swapOperands ? two * load : load * two, {vi});
  Stmt loop = forLoop(i, intImm(0), intImm(s.extent), ForKind::kSerial,
                      blockRealize({i}, boolImm(true), block));
  return makePrimFunc("main", {a, b}, rootBlock({}, loop));
}

void expectDiffer(const PrimFunc& a, const PrimFunc& b, const std::string& inExplanation) {
  EXPECT_FALSE(structuralEqual(a, b));
  EXPECT_NE(structuralHash(a), structuralHash(b));
  std::string why = explainDifference(a, b);
  EXPECT_NE(why.find(inExplanation), std::string::npos) << why;
}

TEST(TirStructuralHash, EqualForAlphaRenamedFunctions) {
  PrimFunc f = scale({});
  PrimFunc g = scale({.prefix = "renamed_"});
  EXPECT_TRUE(structuralEqual(f, g)) << explainDifference(f, g);
  EXPECT_EQ(structuralHash(f), structuralHash(g));
  EXPECT_EQ(explainDifference(f, g), "");
}

TEST(TirStructuralHash, DifferentForAChangedLoopExtent) {
  expectDiffer(scale({}), scale({.extent = 8}), "16 vs 8");
}

TEST(TirStructuralHash, DifferentForAChangedDtype) {
  expectDiffer(scale({}), scale({.dtype = DataType::float16()}), "float32 vs float16");
}

TEST(TirStructuralHash, DifferentForAChangedBufferShape) {
  expectDiffer(scale({}), scale({.shape = 32}), "16 vs 32");
}

TEST(TirStructuralHash, DifferentForSwappedOperands) {
  expectDiffer(scale({}), scale({.swapOperands = true}), "BufferLoad vs FloatImm");
}

TEST(TirStructuralHash, BlockNamesAndIterVarKindsMatter) {
  expectDiffer(scale({}), scale({.blockName = "C"}), "block name differs: \"B\" vs \"C\"");
  expectDiffer(scale({}), scale({.iterType = IterVarType::kCommReduce}), "iter var type");
}

TEST(TirStructuralHash, FunctionNameIsIgnoredButGlobalSymbolIsNot) {
  PrimFunc f = scale({});
  auto renamed = std::make_shared<PrimFuncNode>(*f);
  renamed->name = "other";
  EXPECT_TRUE(structuralEqual(f, PrimFunc(renamed)));
  renamed->attrs.set("global_symbol", AttrValue::string("other"));
  expectDiffer(f, renamed, "global_symbol");
}

// A hash that changed between runs or builds would orphan every record of a tuning database.
TEST(TirStructuralHash, IsDeterministicAndIndependentOfNames) {
  uint64_t h = structuralHash(scale({}));
  for (const char* prefix : {"", "x_", "a_much_longer_prefix_"})
    EXPECT_EQ(structuralHash(scale({.prefix = prefix})), h);
  // The value itself is pinned: it is computed from sizes, enums and strings only. If a change to
  // the IR or to the stream moves it, bump kStructuralHashVersion and update it here.
  EXPECT_EQ(kStructuralHashVersion, 1);
  EXPECT_EQ(h, 0x1e1a955534c92235ull) << std::hex << h;
}

TEST(TirStructuralEqual, FreeVariablesCompareByIdentity) {
  Var x = makeVar("x"), y = makeVar("y"), x2 = makeVar("x");
  EXPECT_TRUE(structuralEqual(x + 1, x + 1));
  EXPECT_FALSE(structuralEqual(x + 1, y + 1));
  EXPECT_FALSE(structuralEqual(x + 1, x2 + 1));  // same name, another object
  EXPECT_TRUE(structuralEqual(x + 1, y + 1, /*mapFreeVars=*/true));
  // Mapping is one to one: x + y cannot match x + x.
  EXPECT_FALSE(structuralEqual(add(x, y), add(x, x), true));
  EXPECT_FALSE(structuralEqual(add(x, x), add(x, y), true));
  // The hash agrees with the mapped comparison, so it cannot tell x + 1 from y + 1.
  EXPECT_EQ(structuralHash(x + 1), structuralHash(y + 1));
  EXPECT_NE(structuralHash(x + 1), structuralHash(makeVar("x", DataType::int64()) + 1));

  Buffer buf = makeBuffer("A", {intImm(4)});
  Stmt s = bufferStore(buf, floatImm(1), {x});
  EXPECT_TRUE(structuralEqual(s, bufferStore(buf, floatImm(1), {x})));
  Buffer other = makeBuffer("A", {intImm(4)});  // a new data variable: another buffer
  EXPECT_FALSE(structuralEqual(s, bufferStore(other, floatImm(1), {x})));
  EXPECT_TRUE(structuralEqual(s, bufferStore(other, floatImm(1), {x}), true));
  EXPECT_NE(explainDifference(s, bufferStore(buf, floatImm(1), {y})).find("'x' and 'y'"),
            std::string::npos);
}

TEST(TirStructuralEqual, BoundVariablesAreMatchedWhereDefined) {
  Var v = makeVar("v"), w = makeVar("w");
  EXPECT_TRUE(structuralEqual(let(v, intImm(1), v + 1), let(w, intImm(1), w + 1)));
  Var a = makeVar("a"), b = makeVar("b"), c = makeVar("c"), d = makeVar("d");
  Buffer out = makeBuffer("out", {intImm(4), intImm(4)});
  auto nest = [&](const Var& i, const Var& j, bool swapIndices) {
    std::vector<PrimExpr> idx =
        swapIndices ? std::vector<PrimExpr>{j, i} : std::vector<PrimExpr>{i, j};
    return loopNest({i, j}, {intImm(4), intImm(4)}, bufferStore(out, floatImm(0), idx));
  };
  EXPECT_TRUE(structuralEqual(nest(a, b, false), nest(c, d, false)));
  EXPECT_EQ(structuralHash(nest(a, b, false)), structuralHash(nest(c, d, false)));
  EXPECT_FALSE(structuralEqual(nest(a, b, false), nest(c, d, true)));
  EXPECT_NE(structuralHash(nest(a, b, false)), structuralHash(nest(c, d, true)));
}

TEST(TirStructuralEqual, BlockIterVarsBindByPosition) {
  auto block = [](bool swapped) {
    Buffer a = makeBuffer("A", {intImm(4), intImm(8)});
    Var vi = makeVar("vi"), vj = makeVar("vj");
    auto b = std::make_shared<BlockNode>();
    b->name = "blk";
    b->iterVars = {IterVar{Range{intImm(0), intImm(4)}, vi, IterVarType::kDataPar, ""},
                   IterVar{Range{intImm(0), intImm(8)}, vj, IterVarType::kDataPar, ""}};
    b->writes = {pointRegion(a, {vi, vj})};
    b->body = bufferStore(a, floatImm(0),
                          swapped ? std::vector<PrimExpr>{vj, vi} : std::vector<PrimExpr>{vi, vj});
    return makePrimFunc("main", {a},
                        rootBlock({}, blockRealize({intImm(0), intImm(0)}, boolImm(true), b)));
  };
  EXPECT_TRUE(structuralEqual(block(false), block(false)));
  EXPECT_FALSE(structuralEqual(block(false), block(true)));
}

TEST(TirStructuralEqual, AnnotationsAreUnordered) {
  auto loop = [](std::vector<std::pair<std::string, int64_t>> notes) {
    Var i = makeVar("i");
    auto f =
        std::make_shared<ForNode>(i, intImm(0), intImm(4), ForKind::kSerial, evaluate(intImm(0)));
    for (const auto& [k, v] : notes) f->annotations.set(k, AttrValue::integer(v));
    return Stmt(f);
  };
  Stmt ab = loop({{"a", 1}, {"b", 2}}), ba = loop({{"b", 2}, {"a", 1}});
  EXPECT_TRUE(structuralEqual(ab, ba));
  EXPECT_EQ(structuralHash(ab), structuralHash(ba));
  EXPECT_FALSE(structuralEqual(ab, loop({{"a", 1}, {"b", 3}})));
  EXPECT_FALSE(structuralEqual(ab, loop({{"a", 1}})));
}

TEST(TirStructuralEqual, BuffersCompareAsDeclarations) {
  Buffer a = makeBuffer("A", {intImm(16)});
  EXPECT_TRUE(structuralEqual(a, makeBuffer("X", {intImm(16)})));
  EXPECT_EQ(structuralHash(a), structuralHash(makeBuffer("X", {intImm(16)})));
  EXPECT_FALSE(structuralEqual(a, makeBuffer("A", {intImm(8)})));
  EXPECT_FALSE(structuralEqual(a, makeBuffer("A", {intImm(16)}, DataType::int8())));
  EXPECT_FALSE(structuralEqual(a, makeBuffer("A", {intImm(16)}, DataType::float32(), "local")));
}

TEST(TirStructuralEqual, ExampleFunctionsBuiltTwiceAreEqual) {
  using Builder = PrimFunc (*)();
  const std::vector<std::pair<const char*, Builder>> builders = {
      {"matmulRelu", [] { return examples::matmulRelu(); }},
      {"decomposedMatmul", [] { return examples::decomposedMatmul(); }},
      {"loweredMatmulRelu", examples::loweredMatmulRelu},
      {"symbolicRowMax", examples::symbolicRowMax},
  };
  for (const auto& [name, build] : builders) {
    PrimFunc f = build(), g = build();
    EXPECT_TRUE(structuralEqual(f, g)) << name << ": " << explainDifference(f, g);
    EXPECT_EQ(structuralHash(f), structuralHash(g)) << name;
    EXPECT_TRUE(structuralEqual(f, f)) << name;
  }
  EXPECT_FALSE(structuralEqual(examples::matmulRelu(128), examples::matmulRelu(64)));
  EXPECT_NE(structuralHash(examples::matmulRelu(128)), structuralHash(examples::matmulRelu(64)));
  EXPECT_NE(structuralHash(examples::matmulRelu()), structuralHash(examples::decomposedMatmul()));
}

// A TE dense + bias + relu, every call with new tensors, variables and reducers.
PrimFunc teDenseRelu(int64_t n, DataType dtype) {
  te::Tensor x = te::placeholder({n, 32}, dtype, "X");
  te::Tensor w = te::placeholder({32, 16}, dtype, "W");
  IterVar k = te::reduceAxis(0, 32, "k");
  te::Tensor mm = te::compute(
      {n, 16}, [&](Var i, Var j) { return te::sum(x(i, k.var) * w(k.var, j), {k}); },
      te::ComputeOptions{.name = "dense"});
  te::Tensor relu = te::compute(
      {n, 16}, [&](Var i, Var j) { return max(mm(i, j), makeConst(dtype, 0)); },
      te::ComputeOptions{.name = "relu"});
  return te::createPrimFunc({x, w, relu});
}

TEST(TirStructuralEqual, TeFunctionsBuiltTwiceAreEqual) {
  PrimFunc f = teDenseRelu(8, DataType::float32()), g = teDenseRelu(8, DataType::float32());
  EXPECT_TRUE(structuralEqual(f, g)) << explainDifference(f, g);
  EXPECT_EQ(structuralHash(f), structuralHash(g));
  EXPECT_NE(structuralHash(f), structuralHash(teDenseRelu(4, DataType::float32())));
  EXPECT_NE(structuralHash(f), structuralHash(teDenseRelu(8, DataType::float16())));

  Var n1 = te::var("n"), n2 = te::var("m");
  auto symbolic = [](const Var& n) {
    std::vector<PrimExpr> shape{n};
    te::Tensor a = te::placeholder(shape, DataType::float32(), "A");
    te::Tensor b = te::compute(shape, [&](Var i) { return a(i) * 2; }, "B");
    return te::createPrimFunc({a, b});
  };
  // A symbolic shape variable is defined by the buffer that first mentions it.
  EXPECT_TRUE(structuralEqual(symbolic(n1), symbolic(n2)))
      << explainDifference(symbolic(n1), symbolic(n2));
  EXPECT_EQ(structuralHash(symbolic(n1)), structuralHash(symbolic(n2)));
}

// Deep IR must not overflow the stack: the comparison keeps its own worklist.
TEST(TirStructuralEqual, HandlesAHundredThousandDeepExpression) {
  constexpr int kDepth = 100000;
  Var x = makeVar("x");
  auto chain = [&] {
    std::vector<PrimExpr> levels{x};
    for (int i = 0; i < kDepth; ++i)
      levels.push_back(binary(BinaryOp::kAdd, levels.back(), intImm(i)));
    return levels;
  };
  std::vector<PrimExpr> a = chain(), b = chain();
  EXPECT_TRUE(structuralEqual(a.back(), b.back()));
  EXPECT_EQ(structuralHash(a.back()), structuralHash(b.back()));
  // Node destructors recurse, so release the chains from the top, one level at a time.
  while (!a.empty()) a.pop_back();
  while (!b.empty()) b.pop_back();
}

}  // namespace
}  // namespace tessera::tir
