// Phase-1 passes that work on blocks: LowerInitBlock, PlanAndUpdateBufferAllocationLocation,
// ConvertBlocksToOpaque, CompactBufferAllocation, LowerMatchBuffer, LowerOpaqueBlock. Each has a
// golden before/after print and a differential check with tir::evaluate.
#include <gtest/gtest.h>

#include "test_util.h"
#include "tir/transform/transform.h"
#include "transform_test_util.h"

namespace tessera::test {
namespace {

using namespace tir;
namespace tf = tir::transform;

TEST(LowerInitBlock, InitBecomesConditionOnReduceVars) {
  PrimFunc f = plainMatmulRelu(4);
  PrimFunc g = tf::lowerInitBlock(f);
  EXPECT_EQ(
      script(g),
      R"(def main(A: T.Buffer((4, 4), "float32"), B: T.Buffer((4, 4), "float32"), relu: T.Buffer((4, 4), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    # with T.block("root"):
    matmul = T.alloc_buffer((4, 4))
    for i, j, k in T.grid(4, 4, 4):
        with T.block("matmul"):
            v_i, v_j, v_k = T.axis.remap("SSR", [i, j, k])
            T.reads(matmul[v_i, v_j], A[v_i, v_k], B[v_k, v_j])
            T.writes(matmul[v_i, v_j])
            if v_k == 0:
                matmul[v_i, v_j] = T.float32(0.0)
            matmul[v_i, v_j] = matmul[v_i, v_j] + A[v_i, v_k] * B[v_k, v_j]
    for i, j in T.grid(4, 4):
        with T.block("relu"):
            v_i, v_j = T.axis.remap("SS", [i, j])
            T.reads(matmul[v_i, v_j])
            T.writes(relu[v_i, v_j])
            relu[v_i, v_j] = T.max(matmul[v_i, v_j], T.float32(0.0))
)");
  EXPECT_TRUE(sameResults(f, g));
}

TEST(PlanAndUpdateBufferAllocationLocation, MovesAllocationUnderComputeAtLoop) {
  PrimFunc f = tf::lowerInitBlock(scheduledMatmulRelu(16));
  PrimFunc g = tf::planAndUpdateBufferAllocationLocation(f);
  std::string s = script(g);
  EXPECT_NE(s.find(R"(        for j_0 in range(2):
            with T.block(""):
                T.reads(A[i, 0:16], B[0:16, j_0 * 8:j_0 * 8 + 8])
                T.writes(D[i, j_0 * 8:j_0 * 8 + 8])
                C = T.alloc_buffer((16, 16))
                for ax0_init in range(8):)"),
            std::string::npos)
      << s;
  EXPECT_EQ(s.find("    C = T.alloc_buffer((16, 16))\n    for i"), std::string::npos) << s;
  EXPECT_TRUE(sameResults(f, g));
}

TEST(PlanAndUpdateBufferAllocationLocation, KeepsBufferSharedByTwoNestsAtRoot) {
  PrimFunc f = tf::lowerInitBlock(plainMatmulRelu(4));
  PrimFunc g = tf::planAndUpdateBufferAllocationLocation(f);
  EXPECT_EQ(script(g), script(f));
}

TEST(ConvertBlocksToOpaque, SubstitutesBindings) {
  PrimFunc f = tf::lowerInitBlock(plainMatmulRelu(4));
  PrimFunc g = tf::convertBlocksToOpaque(f);
  EXPECT_EQ(
      script(g),
      R"(def main(A: T.Buffer((4, 4), "float32"), B: T.Buffer((4, 4), "float32"), relu: T.Buffer((4, 4), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    # with T.block("root"):
    matmul = T.alloc_buffer((4, 4))
    for i, j, k in T.grid(4, 4, 4):
        with T.block("matmul"):
            T.reads(matmul[i, j], A[i, k], B[k, j])
            T.writes(matmul[i, j])
            if k == 0:
                matmul[i, j] = T.float32(0.0)
            matmul[i, j] = matmul[i, j] + A[i, k] * B[k, j]
    for i, j in T.grid(4, 4):
        with T.block("relu"):
            T.reads(matmul[i, j])
            T.writes(relu[i, j])
            relu[i, j] = T.max(matmul[i, j], T.float32(0.0))
)");
  EXPECT_TRUE(sameResults(f, g));
}

PrimFunc anchorUpTo(int passes) {
  PrimFunc f = scheduledMatmulRelu(16);
  PrimFunc (*steps[])(const PrimFunc&) = {tf::lowerInitBlock,
                                          tf::planAndUpdateBufferAllocationLocation,
                                          tf::convertBlocksToOpaque, tf::compactBufferAllocation};
  for (int k = 0; k < passes; ++k) f = steps[k](f);
  return f;
}

TEST(CompactBufferAllocation, ShrinksToOneIterationBox) {
  PrimFunc f = anchorUpTo(3);
  PrimFunc g = tf::compactBufferAllocation(f);
  std::string s = script(g);
  EXPECT_NE(s.find("C = T.alloc_buffer((1, 8))"), std::string::npos) << s;
  EXPECT_NE(s.find("C[i - i, j_0 * 8 + ax0 - j_0 * 8] = C[i - i, j_0 * 8 + ax0 - j_0 * 8] + "
                   "A[i, ax1] * B[ax1, j_0 * 8 + ax0]"),
            std::string::npos)
      << s;
  EXPECT_TRUE(sameResults(f, g));
}

// B = A + 1 through an intermediate Tmp (16 x 16) whose writer asks for stride[0] % 16 == 4.
PrimFunc alignedCopy() {
  Buffer a = constBuffer("A", {16, 16}), b = constBuffer("B", {16, 16});
  Buffer t = constBuffer("Tmp", {16, 16});
  Var i = makeVar("i"), j = makeVar("j"), i2 = makeVar("i"), j2 = makeVar("j");
  using K = IterVarType;
  Stmt write =
      makeBlock("Tmp", {{"v_i", K::kDataPar, intImm(16), i}, {"v_j", K::kDataPar, intImm(16), j}},
                [&](const std::vector<Var>& v) {
                  return bufferStore(t, bufferLoad(a, {v[0], v[1]}) + floatImm(1), {v[0], v[1]});
                });
  auto block = std::make_shared<BlockNode>(*write->as<BlockRealizeNode>()->block);
  block->annotations.set(
      "buffer_dim_align",
      AttrValue::array({AttrValue::array({AttrValue::integer(0), AttrValue::integer(0),
                                          AttrValue::integer(16), AttrValue::integer(4)})}));
  write = blockRealize(write->as<BlockRealizeNode>()->iterValues, boolImm(true), block);
  Stmt read =
      makeBlock("B", {{"v_i", K::kDataPar, intImm(16), i2}, {"v_j", K::kDataPar, intImm(16), j2}},
                [&](const std::vector<Var>& v) {
                  return bufferStore(b, bufferLoad(t, {v[0], v[1]}), {v[0], v[1]});
                });
  Stmt body = seq({loop(i, 16, loop(j, 16, write)), loop(i2, 16, loop(j2, 16, read))});
  return makePrimFunc("main", {a, b}, rootBlock(body, {t}));
}

TEST(CompactBufferAllocation, HonoursBufferDimAlign) {
  PrimFunc f = tf::convertBlocksToOpaque(alignedCopy());
  PrimFunc g = tf::compactBufferAllocation(f);
  std::string s = script(g);
  EXPECT_NE(s.find("Tmp = T.alloc_buffer((16, 16), strides=(20, 1))"), std::string::npos) << s;
  // tir::evaluate sizes a block's alloc_buffer by its shape, not its strides, so the strided
  // buffer is checked once its allocation is explicit (after FlattenBuffer).
  // The padded strides reach the flat allocation: 16 rows of 20 elements.
  PrimFunc flat = tf::flattenBuffer(tf::lowerOpaqueBlock(g));
  s = script(flat);
  EXPECT_NE(s.find("T.decl_buffer((320,))"), std::string::npos) << s;
  EXPECT_NE(s.find("Tmp[i * 20 + j] = A_1[i * 16 + j] + T.float32(1.0)"), std::string::npos) << s;
  EXPECT_TRUE(sameResults(f, flat));
}

// for i in range(4): block "copy" matches Sub = A[vi, 2:6] and writes B[vi, j] = Sub[j] * 2.
PrimFunc matchBufferCopy(int viewDims = 1, DataType viewType = DataType::float32()) {
  Buffer a = constBuffer("A", {4, 8}), b = constBuffer("B", {4, 4});
  Var i = makeVar("i"), j = makeVar("j"), vi = makeVar("vi");
  std::vector<PrimExpr> viewShape(viewDims, intImm(1));
  viewShape.back() = intImm(4);
  Buffer sub = makeBuffer("Sub", viewShape, viewType);
  std::vector<PrimExpr> subIndex(viewDims, intImm(0));
  subIndex.back() = j;
  auto block = std::make_shared<BlockNode>();
  block->name = "copy";
  block->iterVars.push_back(IterVar{Range{intImm(0), intImm(4)}, vi, IterVarType::kDataPar, ""});
  block->matchBuffers.push_back(
      {sub, BufferRegion{a, {Range{vi, intImm(1)}, Range{intImm(2), intImm(4)}}}});
  block->reads.push_back(BufferRegion{a, {Range{vi, intImm(1)}, Range{intImm(2), intImm(4)}}});
  block->writes.push_back(BufferRegion{b, {Range{vi, intImm(1)}, Range{intImm(0), intImm(4)}}});
  block->body = loop(j, 4, bufferStore(b, bufferLoad(sub, subIndex) * floatImm(2), {vi, j}));
  Stmt body = loop(i, 4, blockRealize({i}, boolImm(true), block));
  return makePrimFunc("main", {a, b}, rootBlock(body));
}

TEST(LowerMatchBuffer, ViewAccessesBecomeSourceAccesses) {
  PrimFunc f = matchBufferCopy();
  PrimFunc g = tf::lowerMatchBuffer(f);
  EXPECT_EQ(script(g), R"(def main(A: T.Buffer((4, 8), "float32"), B: T.Buffer((4, 4), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i in range(4):
        with T.block("copy"):
            vi = T.axis.spatial(4, i)
            T.reads(A[vi, 2:6])
            T.writes(B[vi, 0:4])
            for j in range(4):
                B[vi, j] = A[vi, 2 + j] * T.float32(2.0)
)");
  EXPECT_TRUE(sameResults(f, g));
}

TEST(LowerMatchBuffer, ErrorsNameTheView) {
  Diagnostic d = diagnosticOf([] { tf::lowerMatchBuffer(matchBufferCopy(3)); });
  EXPECT_EQ(d.code, "match_buffer");
  EXPECT_EQ(d.message,
            "block 'copy': match_buffer 'Sub' has 3 dimensions but its source region 'A' has 2");
  d = diagnosticOf([] { tf::lowerMatchBuffer(matchBufferCopy(1, DataType::int32())); });
  EXPECT_EQ(d.message,
            "block 'copy': match_buffer 'Sub' has dtype int32 but its source 'A' has float32");
}

// B[v] = A[v] + 1 for v = i_0 * 4 + i_1 < 10, with an extent-1 loop and loop annotations.
PrimFunc predicatedAdd() {
  Buffer a = constBuffer("A", {10}), b = constBuffer("B", {10});
  Var i0 = makeVar("i_0"), i1 = makeVar("i_1"), k = makeVar("k");
  PrimExpr v = i0 * 4 + i1;
  Stmt block = makeBlock(
      "B", {{"v", IterVarType::kDataPar, intImm(10), v}},
      [&](const std::vector<Var>& x) {
        return bufferStore(b, bufferLoad(a, {x[0]}) + floatImm(1), {x[0]});
      },
      {}, lt(v, intImm(10)));
  auto outer = std::make_shared<ForNode>(i0, intImm(0), intImm(3), ForKind::kSerial,
                                         loop(i1, 4, loop(k, 1, block)));
  outer->annotations.set("pragma_auto_unroll_max_step", AttrValue::integer(16));
  outer->annotations.set("hint", AttrValue::string("keep"));
  return makePrimFunc("main", {a, b}, rootBlock(outer));
}

TEST(LowerOpaqueBlock, PredicatePragmaAndUnitLoop) {
  PrimFunc f = tf::convertBlocksToOpaque(predicatedAdd());
  PrimFunc g = tf::lowerOpaqueBlock(f);
  EXPECT_EQ(script(g), R"(def main(A: T.Buffer((10,), "float32"), B: T.Buffer((10,), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    for i_0 in T.serial(3, annotations={"hint": "keep"}):
        with T.attr(i_0, "pragma_auto_unroll_max_step", 16):
            for i_1 in range(4):
                if i_0 * 4 + i_1 < 10:
                    B[i_0 * 4 + i_1] = A[i_0 * 4 + i_1] + T.float32(1.0)
)");
  EXPECT_TRUE(sameResults(f, g));
}

TEST(LowerOpaqueBlock, AllocationsBecomeAllocateAndDeclBuffer) {
  PrimFunc f = tf::convertBlocksToOpaque(tf::lowerInitBlock(plainMatmulRelu(4)));
  PrimFunc g = tf::lowerOpaqueBlock(f);
  std::string s = script(g);
  EXPECT_NE(s.find("    matmul = T.decl_buffer((4, 4))\n    for i, j, k in T.grid(4, 4, 4):\n"
                   "        if k == 0:"),
            std::string::npos)
      << s;
  EXPECT_TRUE(sameResults(f, g));
}

TEST(LowerOpaqueBlock, ThreadBindingBecomesThreadExtent) {
  Buffer a = constBuffer("A", {4});
  Var tx = makeVar("tx");
  auto f = std::make_shared<ForNode>(tx, intImm(0), intImm(4), ForKind::kThreadBinding,
                                     bufferStore(a, floatImm(1), {tx}));
  f->threadTag = "threadIdx.x";
  PrimFunc g = tf::lowerOpaqueBlock(makePrimFunc("main", {a}, rootBlock(f)));
  EXPECT_EQ(script(g), R"(def main(A: T.Buffer((4,), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    threadIdx_x = T.int32()
    with T.attr(threadIdx_x, "thread_extent", 4):
        A[threadIdx_x] = T.float32(1.0)
)");
}

}  // namespace
}  // namespace tessera::test
