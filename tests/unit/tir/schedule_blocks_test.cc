// Block primitives through the Schedule API: compute_at, reverse_compute_at, compute_inline,
// reverse_compute_inline, cache_read/cache_write, set_scope, storage_align, rfactor,
// sample_compute_location. Each positive case checks the scheduled function against the
// original on random inputs with the reference evaluator; each negative case checks the error.
#include <gtest/gtest.h>

#include "schedule_blocks_test_util.h"
#include "tir/functor.h"
#include "tir/schedule/block_analysis.h"
#include "tir/schedule/primitive/block_primitives.h"
#include "tir/schedule/trace.h"

namespace tessera::tir::testing {
namespace {

std::string script(const Schedule& sch) {
  return toScript(sch.func());
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(ComputeAt, MovesProducerUnderSplitConsumerLoop) {
  PrimFunc f = twoStage(64, 16);
  Schedule sch(f, 1);
  BlockRV b = sch.getBlock("B"), c = sch.getBlock("C");
  std::vector<LoopRV> loops = sch.getLoops(c);
  std::vector<LoopRV> parts = sch.split(loops[0], {std::monostate{}, int64_t{8}});
  sch.computeAt(b, parts[0]);
  std::string s = script(sch);
  EXPECT_TRUE(contains(s, "for ax0, ax1 in T.grid(8, 16):")) << s;
  EXPECT_TRUE(contains(s, "T.axis.spatial(64, i_0 * 8 + ax0)")) << s;
  EXPECT_EQ(sch.getLoops(b).size(), 3u);
  expectSameResults(f, sch.func());
  EXPECT_TRUE(contains(sch.trace().str(), "sch.compute_at(block=b0, loop=")) << sch.trace().str();
}

TEST(ComputeAt, SpecExampleMatmulUnderSplitRelu) {
  // specs/tir_relax.md §3.4: split D's i by 32 and compute C at i_0.
  PrimFunc f = matmulRelu(128);
  Schedule sch(f, 1);
  BlockRV c = sch.getBlock("C"), d = sch.getBlock("D");
  std::vector<LoopRV> parts = sch.split(sch.getLoops(d)[0], {std::monostate{}, int64_t{32}});
  sch.computeAt(c, parts[0]);
  std::string s = script(sch);
  EXPECT_TRUE(contains(s,
                       "    for i_0 in range(4):\n"
                       "        for ax0, ax1, ax2 in T.grid(32, 128, 128):\n"
                       "            with T.block(\"C\"):\n"
                       "                vi = T.axis.spatial(128, i_0 * 32 + ax0)\n"
                       "                vj, vk = T.axis.remap(\"SR\", [ax1, ax2])\n"))
      << s;
}

TEST(ComputeAt, GoldenTwoStage) {
  PrimFunc f = twoStage(16, 4);
  Schedule sch(f, 1);
  BlockRV b = sch.getBlock("B"), c = sch.getBlock("C");
  std::vector<LoopRV> parts = sch.split(sch.getLoops(c)[0], {std::monostate{}, int64_t{8}});
  sch.computeAt(b, parts[0]);
  EXPECT_EQ(script(sch), R"(@T.prim_func
def main(A: T.Buffer((16, 4), "float32"), C: T.Buffer((16, 4), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    # with T.block("root"):
    B = T.alloc_buffer((16, 4))
    for i_0 in range(2):
        for ax0, ax1 in T.grid(8, 4):
            with T.block("B"):
                vi = T.axis.spatial(16, i_0 * 8 + ax0)
                vj = T.axis.spatial(4, ax1)
                T.reads(A[vi, vj])
                T.writes(B[vi, vj])
                B[vi, vj] = A[vi, vj] * T.float32(2.0)
        for i_1, j in T.grid(8, 4):
            with T.block("C"):
                vi = T.axis.spatial(16, i_0 * 8 + i_1)
                vj = T.axis.spatial(4, j)
                T.reads(B[vi, vj])
                T.writes(C[vi, vj])
                C[vi, vj] = B[vi, vj] + T.float32(1.0)
)");
  expectSameResults(f, sch.func());
}

TEST(ComputeAt, PredicateBoundsRegionOfImperfectSplit) {
  PrimFunc f = twoStage(10, 4);
  Schedule sch(f, 1);
  std::vector<LoopRV> parts =
      sch.split(sch.getLoops(sch.getBlock("C"))[0], {std::monostate{}, int64_t{4}});
  sch.computeAt(sch.getBlock("B"), parts[0]);
  EXPECT_TRUE(contains(script(sch),
                       "        for ax0, ax1 in T.grid(4, 4):\n"
                       "            with T.block(\"B\"):\n"
                       "                vi = T.axis.spatial(10, i_0 * 4 + ax0)\n"
                       "                vj = T.axis.spatial(4, ax1)\n"
                       "                T.where(i_0 * 4 + ax0 < 10)\n"))
      << script(sch);
  expectSameResults(f, sch.func());
}

TEST(ComputeAt, StencilConsumerNeedsOverlappingRegion) {
  // C[i] = B[i] + B[i + 1]: each tile of 4 outputs needs 5 elements of B.
  Buffer a = makeBuffer("A", {intImm(13)}), b = makeBuffer("B", {intImm(13)});
  Buffer c = makeBuffer("C", {intImm(12)});
  Stmt sb = spatialStage("B", b, {13}, {"i"},
                         [&](const auto& v) { return bufferLoad(a, v) * floatImm(2); });
  Stmt sc = spatialStage("C", c, {12}, {"i"}, [&](const auto& v) {
    return bufferLoad(b, v) + bufferLoad(b, {v[0] + 1});
  });
  PrimFunc f = withRootAlloc({a, c}, {b}, seq({sb, sc}));
  Schedule sch(f, 1);
  std::vector<LoopRV> parts =
      sch.split(sch.getLoops(sch.getBlock("C"))[0], {std::monostate{}, int64_t{4}});
  sch.computeAt(sch.getBlock("B"), parts[0]);
  std::string s = script(sch);
  EXPECT_TRUE(contains(s, "for ax0 in range(5):")) << s;
  EXPECT_TRUE(contains(s, "vi = T.axis.spatial(13, i_0 * 4 + ax0)")) << s;
  expectSameResults(f, sch.func());
}

TEST(ComputeAt, ProducerIntoConsumerReductionLoop) {
  // A2 = A * 2 feeds a matmul; computed at the matmul's k loop it produces one element per step.
  PrimFunc mm = matmul(8, 8, 8);
  std::vector<Buffer> p = mm->paramBuffers();
  Buffer a0 = makeBuffer("A0", {intImm(8), intImm(8)});
  Stmt pre = spatialStage("A", p[0], {8, 8}, {"i", "k"},
                          [&](const auto& v) { return bufferLoad(a0, v) * floatImm(2); });
  const auto* root = mm->body->as<BlockRealizeNode>()->block.get();
  PrimFunc f = withRootAlloc({a0, p[1], p[2]}, {p[0]}, seq({pre, root->body}));
  Schedule sch(f, 1);
  std::vector<LoopRV> loops = sch.getLoops(sch.getBlock("C"));
  sch.computeAt(sch.getBlock("A"), loops[2], false, -2);
  std::string s = script(sch);
  EXPECT_TRUE(contains(s,
                       "        with T.block(\"A\"):\n"
                       "            vi, vk = T.axis.remap(\"SS\", [i, k])\n"))
      << s;
  expectSameResults(f, sch.func());
}

TEST(ComputeAt, AllConsumersMustBeUnderTheLoop) {
  Buffer a = makeBuffer("A", {intImm(8)}), b = makeBuffer("B", {intImm(8)});
  Buffer c = makeBuffer("C", {intImm(8)}), e = makeBuffer("E", {intImm(8)});
  Stmt sb = spatialStage("B", b, {8}, {"i"},
                         [&](const auto& v) { return bufferLoad(a, v) * floatImm(2); });
  Stmt sc = spatialStage("C", c, {8}, {"i"},
                         [&](const auto& v) { return bufferLoad(b, v) + floatImm(1); });
  Stmt se = spatialStage("E", e, {8}, {"i"},
                         [&](const auto& v) { return bufferLoad(b, v) * floatImm(3); });
  PrimFunc f = withRootAlloc({a, c, e}, {b}, seq({sb, sc, se}));
  Schedule sch(f, 1);
  std::string msg =
      scheduleError([&] { sch.computeAt(sch.getBlock("B"), sch.getLoops(sch.getBlock("C"))[0]); });
  EXPECT_EQ(msg,
            "An error occurred in the schedule primitive 'compute-at': The primitive requires all "
            "the consumer(s) of the given block to be present under the target loop. However, "
            "there are 1 consumer(s) not satisfying the constraint. List of the consumer(s): E");
  // Both consumers of B read it elementwise; inlining B serves both.
  sch.computeInline(sch.getBlock("B"));
  expectSameResults(f, sch.func());
}

TEST(ComputeAt, InnermostLoopDropsUnitLoopsUnlessPreserved) {
  PrimFunc f = twoStage(8, 8);
  Schedule sch(f, 1);
  BlockRV b = sch.getBlock("B"), c = sch.getBlock("C");
  std::vector<LoopRV> loops = sch.getLoops(c);
  Schedule keep = sch.copy();
  sch.computeAt(b, loops[1]);
  EXPECT_EQ(sch.getLoops(b).size(), 2u);  // only i and j: both ax loops had extent 1
  expectSameResults(f, sch.func());
  keep.computeAt(b, loops[1], /*preserveUnitLoops=*/true);
  EXPECT_EQ(keep.getLoops(b).size(), 4u);
  expectSameResults(f, keep.func());
}

TEST(ComputeAt, ReductionProducerKeepsFullReductionDomain) {
  PrimFunc f = matmulRelu(16);
  Schedule sch(f, 1);
  BlockRV c = sch.getBlock("C"), d = sch.getBlock("D");
  std::vector<LoopRV> loops = sch.getLoops(d);
  sch.computeAt(c, loops[0]);
  EXPECT_TRUE(contains(script(sch), "for ax0, ax1 in T.grid(16, 16):")) << script(sch);
  expectSameResults(f, sch.func());
}

TEST(ComputeAt, Errors) {
  PrimFunc f = twoStage(8, 8);
  Schedule sch(f, 1);
  BlockRV b = sch.getBlock("B"), c = sch.getBlock("C");
  std::vector<LoopRV> bl = sch.getLoops(b);
  // The output block C has no consumer and is an output.
  EXPECT_TRUE(contains(scheduleError([&] { sch.computeAt(c, bl[0]); }),
                       "An error occurred in the schedule primitive 'compute-at': the block 'C' "
                       "is an output block"));
  // A loop above the block itself.
  EXPECT_TRUE(contains(scheduleError([&] { sch.computeAt(b, bl[1]); }), "is an ancestor of block"));
  // A consumer may not move into its producer's reduction loop.
  PrimFunc g = matmulRelu(8);
  Schedule s2(g, 1);
  BlockRV mm = s2.getBlock("C");
  std::vector<LoopRV> ml = s2.getLoops(mm);
  std::string msg = scheduleError([&] { s2.reverseComputeAt(s2.getBlock("D"), ml[2]); });
  EXPECT_TRUE(contains(msg,
                       "'reverse-compute-at': the loop 'k' is a reduction loop of "
                       "producer 'C'"))
      << msg;
  EXPECT_EQ(toScript(sch.func()), toScript(f)) << "a failed primitive leaves the function";
}

TEST(ReverseComputeAt, MovesConsumerUnderProducerLoop) {
  PrimFunc f = twoStage(16, 8);
  Schedule sch(f, 1);
  BlockRV b = sch.getBlock("B"), c = sch.getBlock("C");
  std::vector<LoopRV> loops = sch.getLoops(b);
  sch.reverseComputeAt(c, loops[0]);
  EXPECT_TRUE(contains(script(sch), "for ax0 in range(8):")) << script(sch);
  EXPECT_EQ(sch.getLoops(c).size(), 2u);
  expectSameResults(f, sch.func());
}

TEST(ReverseComputeAt, ConsumerMustFollowAllProducers) {
  PrimFunc f = matmulRelu(8);
  Schedule sch(f, 1);
  BlockRV c = sch.getBlock("C"), d = sch.getBlock("D");
  // Under C's j loop, D goes after the k loop, where C[i, j] is complete.
  std::vector<LoopRV> loops = sch.getLoops(c);
  sch.reverseComputeAt(d, loops[1]);
  EXPECT_TRUE(contains(script(sch),
                       "                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]\n"
                       "        with T.block(\"D\"):\n"
                       "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"))
      << script(sch);
  expectSameResults(f, sch.func());
  // Explicit positions: 0 is before the producer's k loop, which is not valid.
  Schedule bad(f, 1);
  std::vector<LoopRV> bl = bad.getLoops(bad.getBlock("C"));
  EXPECT_TRUE(
      contains(scheduleError([&] { bad.reverseComputeAt(bad.getBlock("D"), bl[1], false, 0); }),
               "the insertion index 0 is outside the valid range [1, 1]"));
}

TEST(ComputeInline, InlinesProducerIntoConsumer) {
  PrimFunc f = twoStage(8, 4);
  Schedule sch(f, 1);
  sch.computeInline(sch.getBlock("B"));
  std::string s = script(sch);
  EXPECT_TRUE(contains(s, "C[vi, vj] = A[vi, vj] * T.float32(2.0) + T.float32(1.0)")) << s;
  EXPECT_TRUE(contains(s, "T.reads(A[vi, vj])")) << s;
  EXPECT_FALSE(contains(s, "alloc_buffer")) << s;
  expectSameResults(f, sch.func());
}

TEST(ComputeInline, InlinedValueSizeCountsTheTreeInliningLeaves) {
  // B = A[i, j] * A[i, j] uses each index var twice; C reads B at (floormod(i + j, 8), j), so
  // inlining copies the 5-node first index into both uses of i: 7 + 2 * (5 - 1) nodes for the
  // load, 17 for C's value.
  Buffer a = makeBuffer("A", {intImm(8), intImm(8)});
  Buffer b = makeBuffer("B", {intImm(8), intImm(8)});
  Buffer c = makeBuffer("C", {intImm(8), intImm(8)});
  Stmt sb = spatialStage("B", b, {8, 8}, {"i", "j"},
                         [&](const auto& v) { return bufferLoad(a, v) * bufferLoad(a, v); });
  Stmt sc = spatialStage("C", c, {8, 8}, {"i", "j"}, [&](const auto& v) {
    return bufferLoad(b, {floormod(v[0] + v[1], intImm(8)), v[1]}) + floatImm(1);
  });
  const PrimFunc f = withRootAlloc({a, c}, {b}, seq({sb, sc}));
  Schedule sch(f, 1);
  const BlockRV bb = sch.getBlock("B"), cc = sch.getBlock("C");
  EXPECT_EQ(inlinedValueSize(sch.get(bb), sch.get(cc)), 17);
  sch.computeInline(bb);
  int64_t nodes = 0;
  postOrderVisitExpr(sch.get(cc)->body->as<BufferStoreNode>()->value,
                     [&](const PrimExpr&) { ++nodes; });
  EXPECT_EQ(nodes, 17);
  expectSameResults(f, sch.func());
}

TEST(ComputeInline, Errors) {
  Schedule sch(matmulRelu(8), 1);
  EXPECT_TRUE(contains(scheduleError([&] { sch.computeInline(sch.getBlock("C")); }),
                       "An error occurred in the schedule primitive 'compute-inline': the block "
                       "'C' is not a complete block"));
  EXPECT_TRUE(
      contains(scheduleError([&] { sch.computeInline(sch.getBlock("D")); }), "is an output block"));
  Schedule one(scale2d(4, 4), 1);
  EXPECT_TRUE(contains(scheduleError([&] { one.computeInline(one.getBlock("B")); }),
                       "is the only leaf in its scope"));
}

TEST(ReverseComputeInline, FoldsConsumerIntoProducer) {
  PrimFunc f = twoStage(8, 4);
  Schedule sch(f, 1);
  sch.reverseComputeInline(sch.getBlock("C"));
  std::string s = script(sch);
  EXPECT_TRUE(contains(s, "with T.block(\"B\")")) << s;
  EXPECT_FALSE(contains(s, "with T.block(\"C\")")) << s;
  EXPECT_TRUE(contains(s, "C[vi, vj] = A[vi, vj] * T.float32(2.0) + T.float32(1.0)")) << s;
  expectSameResults(f, sch.func());
}

TEST(ReverseComputeInline, RejectsReductionProducer) {
  Schedule sch(matmulRelu(8), 1);
  std::string msg = scheduleError([&] { sch.reverseComputeInline(sch.getBlock("D")); });
  EXPECT_EQ(msg,
            "An error occurred in the schedule primitive 'reverse-compute-inline': The consumer "
            "block D to be inlined is required to have only a single producer block, and the "
            "producer block should be a complete block who has only a single consumer");
}

TEST(CacheRead, StagesInputThroughSharedCopy) {
  PrimFunc f = matmul(16, 16, 16);
  Schedule sch(f, 1);
  BlockRV c = sch.getBlock("C");
  BlockRV copy = sch.cacheRead(c, 0, "shared");
  EXPECT_EQ(sch.get(copy)->name, "A_shared");
  std::string s = script(sch);
  EXPECT_TRUE(contains(s, "A_shared = T.alloc_buffer((16, 16), scope=\"shared\")")) << s;
  EXPECT_TRUE(contains(s, "v0, v1 = T.axis.remap(\"SS\", [ax0, ax1])")) << s;
  EXPECT_TRUE(contains(s, "A_shared[v0, v1] = A[v0, v1]")) << s;
  EXPECT_TRUE(contains(s, "A_shared[vi, vk] * B[vk, vj]")) << s;
  expectSameResults(f, sch.func());
  EXPECT_TRUE(contains(sch.trace().str(),
                       "sch.cache_read(block=b0, read_buffer_index=0, storage_scope=\"shared\")"))
      << sch.trace().str();
}

TEST(CacheRead, CopyOfIntermediateFollowsItsWriter) {
  PrimFunc f = twoStage(8, 8);
  Schedule sch(f, 1);
  sch.cacheRead(sch.getBlock("C"), 0, "local");
  expectSameResults(f, sch.func());
  std::vector<BlockRV> blocks = sch.getChildBlocks(sch.getBlock("root"));
  ASSERT_EQ(blocks.size(), 3u);
  EXPECT_EQ(sch.get(blocks[1])->name, "B_local");
}

TEST(CacheRead, OnlyListedConsumersReadTheCopy) {
  Buffer a = makeBuffer("A", {intImm(8)}), c = makeBuffer("C", {intImm(8)});
  Buffer e = makeBuffer("E", {intImm(8)});
  Stmt sc = spatialStage("C", c, {8}, {"i"},
                         [&](const auto& v) { return bufferLoad(a, v) + floatImm(1); });
  Stmt se = spatialStage("E", e, {8}, {"i"},
                         [&](const auto& v) { return bufferLoad(a, v) * floatImm(3); });
  PrimFunc f = withRootAlloc({a, c, e}, {}, seq({sc, se}));
  Schedule sch(f, 1);
  BlockRV bc = sch.getBlock("C"), be = sch.getBlock("E");
  sch.cacheRead(be, 0, "local", {be});
  EXPECT_EQ(sch.get(bc)->reads[0].buffer->name, "A");
  EXPECT_EQ(sch.get(be)->reads[0].buffer->name, "A_local");
  expectSameResults(f, sch.func());
  EXPECT_TRUE(contains(scheduleError([&] { sch.cacheRead(bc, 0, "shared", {be}); }),
                       "a requested consumer block does not read 'A'"));
}

TEST(CacheWrite, WritesLocalThenCopiesBack) {
  PrimFunc f = matmul(16, 16, 16);
  Schedule sch(f, 1);
  BlockRV copy = sch.cacheWrite(sch.getBlock("C"), 0, "local");
  EXPECT_EQ(sch.get(copy)->name, "C_local");
  std::string s = script(sch);
  EXPECT_TRUE(contains(s, "C_local[vi, vj] = C_local[vi, vj] + A[vi, vk] * B[vk, vj]")) << s;
  EXPECT_TRUE(contains(s, "C[v0, v1] = C_local[v0, v1]")) << s;
  expectSameResults(f, sch.func());
}

TEST(CacheReadWrite, Errors) {
  Schedule sch(matmul(8, 8, 8), 1);
  BlockRV c = sch.getBlock("C");
  EXPECT_TRUE(contains(scheduleError([&] { sch.cacheRead(c, 5, "shared"); }),
                       "'cache-read': read_buffer_index 5 is out of range"));
  EXPECT_TRUE(contains(scheduleError([&] { sch.cacheWrite(c, 1, "local"); }),
                       "'cache-write': write_buffer_index 1 is out of range"));
}

TEST(SetScope, ChangesAllocatedBufferScope) {
  PrimFunc f = twoStage(4, 4);
  Schedule sch(f, 1);
  sch.setScope(sch.getBlock("B"), 0, "shared");
  EXPECT_TRUE(contains(script(sch), "scope=\"shared\"")) << script(sch);
  expectSameResults(f, sch.func());
  EXPECT_TRUE(contains(scheduleError([&] { sch.setScope(sch.getBlock("C"), 0, "shared"); }),
                       "'set-scope': buffer 'C' is a function parameter"));
}

TEST(StorageAlign, RecordsAnnotation) {
  Schedule sch(twoStage(4, 4), 1);
  BlockRV b = sch.getBlock("B");
  sch.storageAlign(b, 0, -2, 16, 1);
  const AttrValue* a = sch.get(b)->annotations.find("buffer_dim_align");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->str(), "[[0, 0, 16, 1]]");
  EXPECT_TRUE(contains(scheduleError([&] { sch.storageAlign(b, 0, 2, 16, 1); }),
                       "'storage-align': axis 2 is out of range"));
  EXPECT_TRUE(
      contains(scheduleError([&] { sch.storageAlign(b, 0, 0, 8, 9); }), "offset in [0, factor)"));
}

TEST(RFactor, FactorsSplitReduction) {
  PrimFunc f = matmul(8, 8, 16);
  Schedule sch(f, 1);
  BlockRV c = sch.getBlock("C");
  std::vector<LoopRV> loops = sch.getLoops(c);
  std::vector<LoopRV> k = sch.split(loops[2], {std::monostate{}, int64_t{4}});
  BlockRV rf = sch.rfactor(k[1], 0);
  EXPECT_EQ(sch.get(rf)->name, "C_rf");
  std::string s = script(sch);
  EXPECT_TRUE(contains(s, "C_rf = T.alloc_buffer((4, 8, 8))")) << s;
  EXPECT_TRUE(contains(s, "T.axis.remap(\"SSSR\", [k_1, i, j, k_0])")) << s;
  EXPECT_TRUE(contains(s, "C_rf[vk_1, vi, vj] = C_rf[vk_1, vi, vj] + A[vi, vk_0 * 4 + vk_1]")) << s;
  EXPECT_TRUE(contains(s, "T.axis.remap(\"RSS\"")) << s;
  expectSameResults(f, sch.func());
}

TEST(RFactor, NegativeFactorAxisAndRowSum) {
  PrimFunc f = rowSum(6, 12);
  Schedule sch(f, 1);
  std::vector<LoopRV> loops = sch.getLoops(sch.getBlock("B"));
  sch.rfactor(loops[1], -1);
  EXPECT_TRUE(contains(script(sch), "B_rf = T.alloc_buffer((6, 12))")) << script(sch);
  expectSameResults(f, sch.func());
}

TEST(RFactor, Errors) {
  Schedule sch(matmul(8, 8, 8), 1);
  std::vector<LoopRV> loops = sch.getLoops(sch.getBlock("C"));
  EXPECT_TRUE(contains(scheduleError([&] { sch.rfactor(loops[0], 0); }),
                       "An error occurred in the schedule primitive 'rfactor': the loop 'i' must "
                       "be bound to reduction iter vars only"));
  EXPECT_TRUE(contains(scheduleError([&] { sch.rfactor(loops[2], 3); }),
                       "factor_axis 3 is out of range [-3, 2]"));
  Schedule ew(twoStage(4, 4), 1);
  EXPECT_TRUE(contains(scheduleError([&] { ew.rfactor(ew.getLoops(ew.getBlock("B"))[0], 0); }),
                       "is not a reduction block"));
}

TEST(SampleComputeLocation, ReductionProducerCandidates) {
  // C (a reduction) cannot be inlined; it may stay at the root or go under D's i or j.
  PrimFunc f = matmulRelu(8);
  Schedule sch(f, 1);
  ComputeLocations locs = collectComputeLocations(f, sch.get(sch.getBlock("C"))->id);
  EXPECT_EQ(locs.candidates, (std::vector<int64_t>{-1, 0, 1}));
  ASSERT_EQ(locs.loops.size(), 2u);
  EXPECT_EQ(locs.loops[1]->name, "j");
  EXPECT_TRUE(contains(scheduleError([&] { collectComputeLocations(f, 0); }),
                       "'sample-compute-location': the block does not exist"));
}

TEST(SampleComputeLocation, CandidatesAndReplay) {
  PrimFunc f = twoStage(8, 8);
  for (int64_t seed = 0; seed < 6; ++seed) {
    Schedule sch(f, seed);
    BlockRV b = sch.getBlock("B");
    LoopRV at = sch.sampleComputeLocation(b);
    sch.computeAt(b, at);
    expectSameResults(f, sch.func());
  }
  // Decision 1 = C's loop j; replaying 5 falls back to the largest candidate below it.
  Schedule sch(f, 1);
  BlockRV b = sch.getBlock("B");
  LoopRV at = sch.sampleComputeLocation(b, 5);
  EXPECT_EQ(sch.get(at)->loopVar->name, "j");
  sch.computeAt(b, at);
  expectSameResults(f, sch.func());
  EXPECT_TRUE(contains(sch.trace().str(), "sample_compute_location(block=b0, decision=1)"))
      << sch.trace().str();
  // -2: inline; computing at the inline mark inlines the block.
  Schedule inl(f, 1);
  BlockRV b2 = inl.getBlock("B");
  inl.computeAt(b2, inl.sampleComputeLocation(b2, -2));
  EXPECT_FALSE(contains(script(inl), "T.block(\"B\")")) << script(inl);
  expectSameResults(f, inl.func());
}

TEST(BlockPrimitiveTrace, JsonRoundTripReplaysEveryPrimitive) {
  PrimFunc f = matmulRelu(16);
  Schedule sch(f, 3);
  BlockRV c = sch.getBlock("C"), d = sch.getBlock("D");
  std::vector<LoopRV> dl = sch.getLoops(d);
  std::vector<LoopRV> parts = sch.split(dl[0], {std::monostate{}, int64_t{4}});
  sch.computeAt(c, parts[0], false, -1);
  sch.cacheRead(c, 0, "shared", {c});
  sch.cacheWrite(d, 0, "local");
  sch.setScope(c, 0, "global");
  sch.storageAlign(c, 0, 0, 8, 1);
  std::vector<LoopRV> cl = sch.getLoops(c);
  sch.rfactor(cl.back(), 0);
  std::string json = sch.trace().toJson();
  Schedule replay(f, 3);
  applyTrace(replay, Trace::fromJson(json));
  EXPECT_EQ(toScript(replay.func()), script(sch));
  EXPECT_EQ(replay.trace().str(), sch.trace().str());
  expectSameResults(f, sch.func());
  std::string py = sch.trace().str();
  EXPECT_TRUE(
      contains(py, "sch.compute_at(block=b0, loop=l4, preserve_unit_loops=False, index=-1)"))
      << py;
  EXPECT_TRUE(contains(py, "consumer_blocks=[b0]")) << py;
  EXPECT_TRUE(
      contains(py, "sch.storage_align(block=b0, buffer_index=0, axis=0, factor=8, offset=1)"))
      << py;
  EXPECT_TRUE(contains(py, "sch.rfactor(loop=")) << py;
}

}  // namespace
}  // namespace tessera::tir::testing
