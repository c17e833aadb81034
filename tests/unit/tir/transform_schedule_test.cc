// Lowering functions scheduled with tir::Schedule (not built by hand): the §4.2 schedule of
// matmul+relu and a split whose factor does not divide the extent.
#include <gtest/gtest.h>

#include "tir/schedule/schedule.h"
#include "tir/transform/lower.h"
#include "transform_test_util.h"

namespace tessera::test {
namespace {

using namespace tir;
namespace tf = tir::transform;

// parallel i, j split by 8 with the inner loop vectorized, matmul computed at j_0, reduction
// decomposed (specs/tir_relax.md §4.2).
PrimFunc anchorSchedule(int64_t n) {
  Schedule sch(plainMatmulRelu(n));
  BlockRV relu = sch.getBlock("relu");
  std::vector<LoopRV> loops = sch.getLoops(relu);
  std::vector<LoopRV> j = sch.split(loops[1], {std::monostate{}, int64_t{8}});
  sch.parallel(loops[0]);
  sch.vectorize(j[1]);
  BlockRV matmul = sch.getBlock("matmul");
  sch.computeAt(matmul, j[0]);
  sch.decomposeReduction(matmul, sch.getLoops(matmul)[2]);
  return sch.func();
}

TEST(LowerScheduled, AnchorMatmulRelu) {
  PrimFunc f = anchorSchedule(64);
  PrimFunc g = tf::lower(f);
  std::string s = script(g);
  // The spec's lowered body (loop names come from the schedule).
  EXPECT_NE(s.find("for i in T.parallel(64):\n        matmul = T.allocate([8], \"float32\", "
                   "\"global\")\n        for j_0 in range(8):"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("T.max(matmul_1[0:8], T.Broadcast(T.float32(0.0), 8))"), std::string::npos) << s;
  EXPECT_TRUE(sameResults(f, g));
}

TEST(LowerScheduled, OddSizeSplitWithPredicate) {
  Schedule sch(plainMatmulRelu(13));
  BlockRV relu = sch.getBlock("relu");
  std::vector<LoopRV> loops = sch.getLoops(relu);
  std::vector<LoopRV> j = sch.split(loops[1], {std::monostate{}, int64_t{4}});
  sch.vectorize(j[1]);
  PrimFunc f = sch.func();
  PrimFunc g = tf::lower(f);
  std::string s = script(g);
  // j_0 in [0, 3) runs without the predicate, vectorized; the last iteration keeps it, as the
  // mask of a masked store.
  EXPECT_NE(s.find("for j_0 in range(3):"), std::string::npos) << s;
  EXPECT_NE(s.find("T.Broadcast(T.float32(0.0), 4)"), std::string::npos) << s;
  EXPECT_NE(s.find("T.if_then_else(T.Ramp(0, 1, 4) < T.Broadcast(1, 4)"), std::string::npos) << s;
  EXPECT_TRUE(sameResults(f, g));
}

}  // namespace
}  // namespace tessera::test
