// blockize, the tensor-intrinsic registry and tensorize: a 16x16x16 matmul tiled by 4 is
// tensorized with a registered 4x4x4 intrinsic whose implementation is a different loop nest,
// and the result is checked against the original with the reference evaluator.
#include <gtest/gtest.h>

#include "schedule_blocks_test_util.h"
#include "tir/schedule/primitive/tensor_intrin.h"

namespace tessera::tir::testing {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The implementation: for k, i, j: C[i, j] += A[i, k] * B[k, j], with no inner block.
PrimFunc mmaImpl() {
  Buffer a = makeBuffer("A", {intImm(4), intImm(4)});
  Buffer b = makeBuffer("B", {intImm(4), intImm(4)});
  Buffer c = makeBuffer("C", {intImm(4), intImm(4)});
  Var i = makeVar("i"), j = makeVar("j"), k = makeVar("k");
  Stmt store =
      bufferStore(c, bufferLoad(c, {i, j}) + bufferLoad(a, {i, k}) * bufferLoad(b, {k, j}), {i, j});
  return withRoot({a, b, c}, loopNest({k, i, j}, {intImm(4), intImm(4), intImm(4)}, store));
}

void registerOnce() {
  static bool done = false;
  if (done) return;
  registerTensorIntrin("test.mma4x4", mma4x4("update"), mmaImpl());
  registerTensorIntrin("test.mma8x8", mma4x4("update", 8), mma4x4("update", 8));
  done = true;
}

// matmul 16^3 with i, j, k split by 4 and ordered i_0, j_0, k_0, i_1, j_1, k_1.
Schedule tiledMatmul(const PrimFunc& f, std::vector<LoopRV>* inner) {
  Schedule sch(f, 1);
  std::vector<LoopRV> l = sch.getLoops(sch.getBlock("C"));
  std::vector<LoopRV> i = sch.split(l[0], {std::monostate{}, int64_t{4}});
  std::vector<LoopRV> j = sch.split(l[1], {std::monostate{}, int64_t{4}});
  std::vector<LoopRV> k = sch.split(l[2], {std::monostate{}, int64_t{4}});
  sch.reorder({i[0], j[0], k[0], i[1], j[1], k[1]});
  *inner = {i[0], j[0], k[0], i[1], j[1], k[1]};
  return sch;
}

TEST(Blockize, WrapsTileWithOuterBlockAndInitNest) {
  PrimFunc f = matmul(16, 16, 16);
  std::vector<LoopRV> loops;
  Schedule sch = tiledMatmul(f, &loops);
  BlockRV outer = sch.blockize(loops[3]);
  EXPECT_EQ(sch.get(outer)->name, "C_o");
  std::string s = toScript(sch.func());
  EXPECT_TRUE(contains(s, "vi_o, vj_o, vk_o = T.axis.remap(\"SSR\", [i_0, j_0, k_0])")) << s;
  EXPECT_TRUE(contains(s, "vi_i_init, vj_i_init = T.axis.remap(\"SS\", [i_1_init, j_1_init])"))
      << s;
  EXPECT_TRUE(contains(s, "A[vi_o * 4:vi_o * 4 + 4, vk_o * 4:vk_o * 4 + 4]")) << s;
  EXPECT_TRUE(contains(s, "with T.block(\"C_init\"):")) << s;
  EXPECT_TRUE(contains(s, "C[vi_o * 4 + vi_i, vj_o * 4 + vj_i]")) << s;
  expectSameResults(f, sch.func());
  EXPECT_TRUE(contains(sch.trace().str(), "sch.blockize(target=l")) << sch.trace().str();
}

TEST(Blockize, Errors) {
  Schedule sch(matmul(6, 6, 6), 1);
  std::vector<LoopRV> l = sch.getLoops(sch.getBlock("C"));
  std::vector<LoopRV> i = sch.split(l[0], {std::monostate{}, int64_t{4}});
  // i_1 has extent 4 but the domain 6 is not a multiple of it.
  EXPECT_TRUE(contains(scheduleError([&] { sch.blockize(i[1]); }),
                       "An error occurred in the schedule primitive 'blockize': the binding of "
                       "iter var 'vi' cannot be divided"));
}

TEST(Tensorize, ReplacesTileWithIntrinsicImplementation) {
  registerOnce();
  PrimFunc f = matmul(16, 16, 16);
  std::vector<LoopRV> loops;
  Schedule sch = tiledMatmul(f, &loops);
  sch.decomposeReduction(sch.getBlock("C"), loops[2]);
  sch.tensorize(loops[3], "test.mma4x4");
  std::string s = toScript(sch.func());
  EXPECT_TRUE(contains(s, "with T.block(\"C_update_o\"):")) << s;
  EXPECT_TRUE(contains(s, "T.match_buffer(A[vi_o * 4:vi_o * 4 + 4, vk_o * 4:vk_o * 4 + 4], (4, 4)"))
      << s;
  EXPECT_FALSE(contains(s, "with T.block(\"C_update\"):")) << s;
  expectSameResults(f, sch.func());
  EXPECT_TRUE(contains(sch.trace().str(), "tensor_intrin=\"test.mma4x4\"")) << sch.trace().str();
}

TEST(Tensorize, GoldenTensorizedTile) {
  registerOnce();
  PrimFunc f = matmul(8, 8, 8);
  std::vector<LoopRV> loops;
  Schedule sch(f, 1);
  std::vector<LoopRV> l = sch.getLoops(sch.getBlock("C"));
  std::vector<LoopRV> i = sch.split(l[0], {std::monostate{}, int64_t{4}});
  std::vector<LoopRV> j = sch.split(l[1], {std::monostate{}, int64_t{4}});
  std::vector<LoopRV> k = sch.split(l[2], {std::monostate{}, int64_t{4}});
  sch.reorder({i[0], j[0], k[0], i[1], j[1], k[1]});
  sch.decomposeReduction(sch.getBlock("C"), k[0]);
  sch.tensorize(i[1], "test.mma4x4");
  EXPECT_EQ(toScript(sch.func()), R"(@T.prim_func
def main(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8, 8), "float32"), C: T.Buffer((8, 8), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i_0, j_0 in T.grid(2, 2):
        for i_1_init, j_1_init in T.grid(4, 4):
            with T.block("C_init"):
                vi = T.axis.spatial(8, i_0 * 4 + i_1_init)
                vj = T.axis.spatial(8, j_0 * 4 + j_1_init)
                T.reads()
                T.writes(C[vi, vj])
                C[vi, vj] = T.float32(0.0)
        for k_0 in range(2):
            with T.block("C_update_o"):
                vi_o, vj_o, vk_o = T.axis.remap("SSR", [i_0, j_0, k_0])
                T.reads(C[vi_o * 4:vi_o * 4 + 4, vj_o * 4:vj_o * 4 + 4], A[vi_o * 4:vi_o * 4 + 4, vk_o * 4:vk_o * 4 + 4], B[vk_o * 4:vk_o * 4 + 4, vj_o * 4:vj_o * 4 + 4])
                T.writes(C[vi_o * 4:vi_o * 4 + 4, vj_o * 4:vj_o * 4 + 4])
                A_1 = T.match_buffer(A[vi_o * 4:vi_o * 4 + 4, vk_o * 4:vk_o * 4 + 4], (4, 4))
                B_1 = T.match_buffer(B[vk_o * 4:vk_o * 4 + 4, vj_o * 4:vj_o * 4 + 4], (4, 4))
                C_1 = T.match_buffer(C[vi_o * 4:vi_o * 4 + 4, vj_o * 4:vj_o * 4 + 4], (4, 4))
                for k, i, j in T.grid(4, 4, 4):
                    C_1[i, j] = C_1[i, j] + A_1[i, k] * B_1[k, j]
)");
  expectSameResults(f, sch.func());
}

TEST(Tensorize, BlockTargetAfterBlockize) {
  registerOnce();
  PrimFunc f = matmul(8, 8, 8);
  std::vector<LoopRV> loops;
  Schedule sch(f, 1);
  std::vector<LoopRV> l = sch.getLoops(sch.getBlock("C"));
  std::vector<LoopRV> i = sch.split(l[0], {std::monostate{}, int64_t{4}});
  std::vector<LoopRV> j = sch.split(l[1], {std::monostate{}, int64_t{4}});
  std::vector<LoopRV> k = sch.split(l[2], {std::monostate{}, int64_t{4}});
  sch.reorder({i[0], j[0], k[0], i[1], j[1], k[1]});
  sch.decomposeReduction(sch.getBlock("C"), k[0]);
  BlockRV outer = sch.blockize(i[1]);
  sch.tensorize(outer, "test.mma4x4");
  expectSameResults(f, sch.func());
}

TEST(Tensorize, Errors) {
  registerOnce();
  PrimFunc f = matmul(16, 16, 16);
  std::vector<LoopRV> loops;
  Schedule sch = tiledMatmul(f, &loops);
  // The reduction still has its init.
  EXPECT_TRUE(contains(scheduleError([&] { sch.tensorize(loops[3], "test.mma4x4"); }),
                       "has an init; decompose the reduction first"));
  sch.decomposeReduction(sch.getBlock("C"), loops[2]);
  EXPECT_TRUE(contains(scheduleError([&] { sch.tensorize(loops[3], "test.mma8x8"); }),
                       "does not match the description of intrinsic 'test.mma8x8': loop 'i_1' "
                       "has extent 4, the description has 8"));
  EXPECT_TRUE(contains(scheduleError([&] { sch.tensorize(loops[3], "no.such"); }),
                       "no tensor intrinsic named 'no.such'"));
  // Failed tensorize leaves the schedule as it was: the tile can still be tensorized.
  sch.tensorize(loops[3], "test.mma4x4");
  expectSameResults(f, sch.func());
}

TEST(TensorIntrinRegistry, DuplicatesAndMismatchedParameters) {
  registerOnce();
  try {
    registerTensorIntrin("test.mma4x4", mma4x4("update"), mmaImpl());
    ADD_FAILURE() << "duplicate registration must fail";
  } catch (const DiagnosticError& e) {
    EXPECT_EQ(e.diagnostic().code, "tensor_intrin");
    EXPECT_TRUE(contains(e.what(), "already registered")) << e.what();
  }
  registerTensorIntrin("test.mma4x4", mma4x4("update"), mmaImpl(), /*override=*/true);
  try {
    registerTensorIntrin("test.bad", mma4x4("update"), matmul(8, 8, 8));
    ADD_FAILURE() << "mismatched parameters must fail";
  } catch (const DiagnosticError& e) {
    EXPECT_TRUE(contains(e.what(), "buffer parameter 0 is (4, 4) in the description but"))
        << e.what();
  }
  EXPECT_TRUE(contains(getTensorIntrin("test.mma4x4").desc->name, "main"));
}

}  // namespace
}  // namespace tessera::tir::testing
