// InjectVirtualThread: loops bound to `vthread` or VTA's `cthread` run as interleaved copies in one
// program (specs/vta.md §6.7). Each case is lowered through the whole pipeline and compared with
// the unscheduled function on the reference evaluator.
#include <gtest/gtest.h>

#include "tir/schedule/schedule.h"
#include "tir/transform/lower.h"
#include "tir/transform/transform.h"
#include "transform_test_util.h"

namespace tessera::test {
namespace {

using namespace tir;
namespace tf = tir::transform;

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + 1)) ++n;
  return n;
}

// relu(A @ B) with the rows split in `threads` parts bound to `axis`, the matmul row computed
// under the row loop (so its row buffer lives inside the thread scope).
PrimFunc rowsOnVirtualThreads(int64_t n, int64_t threads, const std::string& axis,
                              bool matmulUnderThread = true) {
  Schedule sch(plainMatmulRelu(n));
  BlockRV relu = sch.getBlock("relu");
  std::vector<LoopRV> loops = sch.getLoops(relu);
  std::vector<LoopRV> rows = sch.split(loops[0], {int64_t{threads}, std::monostate{}});
  sch.bind(rows[0], axis);
  if (matmulUnderThread) sch.computeAt(sch.getBlock("matmul"), rows[1]);
  return sch.func();
}

TEST(InjectVirtualThread, CthreadReplicatesBuffersAndWork) {
  const PrimFunc f = rowsOnVirtualThreads(16, 2, "cthread");
  const std::string s = script(tf::lower(f));
  EXPECT_EQ(s.find("virtual_thread"), std::string::npos) << s;
  EXPECT_EQ(s.find("cthread"), std::string::npos) << s;  // unrolled: t = 0 and t = 1
  // The per-row matmul buffer holds one copy per thread: 2 x 16 elements.
  EXPECT_NE(s.find("T.allocate([32], \"float32\""), std::string::npos) << s;
  EXPECT_TRUE(sameResults(f, tf::lower(f)));
}

TEST(InjectVirtualThread, VthreadCopiesInterleaveAtTheInnermostStatement) {
  const PrimFunc f = rowsOnVirtualThreads(16, 4, "vthread", /*matmulUnderThread=*/false);
  const std::string s = script(tf::lower(f));
  EXPECT_EQ(s.find("virtual_thread"), std::string::npos) << s;
  // relu's rows of the 4 threads are written side by side in the one remaining row loop.
  EXPECT_EQ(count(s, "T.max("), 4u) << s;
  EXPECT_TRUE(sameResults(f, tf::lower(f)));
}

TEST(InjectVirtualThread, SixteenThreadsOrMoreBecomeALoop) {
  const PrimFunc f = rowsOnVirtualThreads(32, 16, "vthread");
  const std::string s = script(tf::lower(f));
  EXPECT_NE(s.find("for vthread_s in range(16):"), std::string::npos) << s;
  EXPECT_TRUE(sameResults(f, tf::lower(f)));
}

// VTA's queue scopes under cthread are replicated whole (spec §6.7): a scope holding a loop runs
// in `for cthread.s`, one without loops is unrolled.
TEST(InjectVirtualThread, CthreadReplicatesCoprocScopesWhole) {
  const Buffer b = constBuffer("B", {8});
  const Buffer c = constBuffer("C", {2});
  const Var t = makeVar("cthread"), i = makeVar("i"), vta = makeVar("vta");
  const Stmt fill =
      attrStmt(vta, "coproc_scope", intImm(2),
               loop(i, 4,
                    bufferStore(b, cast(DataType::float32(), add(mul(t, intImm(4)), i)),
                                {add(mul(t, intImm(4)), i)})));
  const Stmt mark =
      attrStmt(vta, "coproc_scope", intImm(1), bufferStore(c, cast(DataType::float32(), t), {t}));
  const PrimFunc f =
      makePrimFunc("main", {b, c}, attrStmt(t, "virtual_thread", intImm(2), seq({fill, mark})));
  const std::string s = script(tf::injectVirtualThread(f));
  EXPECT_NE(s.find("for cthread_s in range(2):"), std::string::npos) << s;
  EXPECT_EQ(count(s, "coproc_scope\", 2"), 1u) << s;  // the loop scope: once, inside the loop
  EXPECT_EQ(count(s, "coproc_scope\", 1"), 2u) << s;  // the loop-free scope: unrolled
  EXPECT_EQ(s.find("virtual_thread"), std::string::npos) << s;
}

TEST(InjectVirtualThread, BindRejectsUnknownAxesNamingCthread) {
  Schedule sch(plainMatmulRelu(8));
  std::vector<LoopRV> loops = sch.getLoops(sch.getBlock("relu"));
  try {
    sch.bind(loops[0], "vthread.w");
    FAIL() << "expected an error";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("cthread"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tessera::test
