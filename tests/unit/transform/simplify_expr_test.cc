// SimplifyExpr: golden before/after texts per rule and differential checks (exact: the rules only
// move data, so float results are bit-identical).
#include <sstream>

#include <gtest/gtest.h>

#include "pass_test_util.h"
#include "relay/transform/passes.h"
#include "test_util.h"

namespace tessera::relay {
namespace {

using test::printBare;
using test::runPass;

TEST(SimplifyExpr, ReshapeChainBecomesOneReshape) {
  IRModule before = parseModule(R"(def @main(%x: Tensor[(2, 3, 4), float32]) {
  %0 = reshape(%x, newshape=[6, 4]);
  %1 = expand_dims(%0, axis=0);
  reshape(%1, newshape=[-1])
})");
  IRModule after = runPass(simplifyExprPass(), before);
  EXPECT_EQ(printBare(after),
            R"(def @main(%x: Tensor[(2, 3, 4), float32]) -> Tensor[(24), float32] {
  reshape(%x, newshape=[24])
}
)");
  EXPECT_TRUE(test::sameBehaviour(before, after, 3, 0, 0));
}

TEST(SimplifyExpr, TransposeChainsComposeAndCancel) {
  IRModule before = parseModule(R"(def @main(%x: Tensor[(2, 3, 4), float32]) {
  %0 = transpose(%x, axes=[1, 2, 0]);
  %1 = transpose(%0, axes=[2, 0, 1]);
  %2 = transpose(%x, axes=[1, 0, 2]);
  %3 = transpose(%2, axes=[0, 2, 1]);
  (%1, %3)
})");
  IRModule after = runPass(simplifyExprPass(), before);
  EXPECT_EQ(
      printBare(after),
      R"(def @main(%x: Tensor[(2, 3, 4), float32]) -> (Tensor[(2, 3, 4), float32], Tensor[(3, 4, 2), float32]) {
  %0 = transpose(%x, axes=[1, 2, 0]);
  (%x, %0)
}
)");
  EXPECT_TRUE(test::sameBehaviour(before, after, 3, 0, 0));
}

TEST(SimplifyExpr, NoOpCastPadTransposeAndReshapeAreDropped) {
  IRModule before = parseModule(R"(def @main(%x: Tensor[(2, 3), int32]) {
  %0 = cast(%x, dtype="int32");
  %1 = nn.pad(%0, 0, pad_width=[[0, 0], [0, 0]]);
  %2 = transpose(%1, axes=[0, 1]);
  %3 = reshape(%2, newshape=[2, 3]);
  negative(%3)
})");
  std::ostringstream trace;
  PassContext ctx;
  ctx.config["relay.SimplifyExpr.trace"] = AttrValue::boolean(true);
  ctx.printStream = &trace;
  IRModule after = (*simplifyExprPass())(before, ctx);
  EXPECT_EQ(printBare(after), R"(def @main(%x: Tensor[(2, 3), int32]) -> Tensor[(2, 3), int32] {
  negative(%x)
}
)");
  EXPECT_EQ(trace.str(), R"(SimplifyExpr: noop_cast fired on call to cast
SimplifyExpr: noop_pad fired on call to nn.pad
SimplifyExpr: noop_transpose fired on call to transpose
SimplifyExpr: noop_reshape fired on call to reshape
)");
  EXPECT_TRUE(test::sameBehaviour(before, after, 3, 0, 0));
}

TEST(SimplifyExpr, RealCastsAndPadsStay) {
  IRModule before = parseModule(R"(def @main(%x: Tensor[(2, 3), int32]) {
  %0 = cast(%x, dtype="float32");
  nn.pad(%0, 0f, pad_width=[[0, 1], [0, 0]])
})");
  IRModule after = runPass(simplifyExprPass(), before);
  EXPECT_EQ(printBare(after), printBare(before));
}

}  // namespace
}  // namespace tessera::relay
