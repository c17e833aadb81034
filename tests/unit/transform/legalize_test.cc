// Legalize: a test-registered FTVMLegalize hook (pad a conv2d's odd input channels to even) is
// applied, checked against the golden text and differentially (float32, rtol = atol = 1e-5; the
// padded channels are zeros, so only summation order changes). Hooks are reset after each test.
#include <gtest/gtest.h>

#include "pass_test_util.h"
#include "relay/builder.h"
#include "relay/op/nn.h"
#include "relay/op_registry.h"
#include "relay/transform/passes.h"
#include "test_util.h"

namespace tessera::relay {
namespace {

using test::printBare;
using test::runPass;

/// Registers `hook` for nn.conv2d for the test's lifetime.
class ScopedConvLegalize {
 public:
  explicit ScopedConvLegalize(LegalizeFn hook) {
    OpRegistry::global().setAttr("nn.conv2d", kLegalizeAttr, std::move(hook), 20);
  }
  ~ScopedConvLegalize() { OpRegistry::global().resetAttr("nn.conv2d", kLegalizeAttr); }
};

/// Pads the input channels of an NCHW/OIHW conv2d to an even count with zeros.
Expr padOddChannels(const CallNode& call, const std::vector<Expr>& args,
                    const std::vector<Type>& argTypes) {
  const auto* data = argTypes[0]->as<TensorTypeNode>();
  const auto* attrs = attrsAs<nn::Conv2DAttrs>(call.attrs.get());
  if (!data || attrs->dataLayout != "NCHW" || attrs->kernelLayout != "OIHW") return nullptr;
  if (attrs->groups != 1 || data->ndim() != 4) return nullptr;
  const auto shape = staticShape(data->shape);
  if (!shape || (*shape)[1] % 2 == 0) return nullptr;
  nn::PadAttrs padData;
  padData.padWidth = {{0, 0}, {0, 1}, {0, 0}, {0, 0}};
  nn::PadAttrs padWeight;
  padWeight.padWidth = {{0, 0}, {0, 1}, {0, 0}, {0, 0}};
  Expr zero = scalar(0.0);
  return makeCall(call.op, {pad(args[0], zero, padData), pad(args[1], zero, padWeight)}, call.attrs,
                  call.span);
}

const char* kOddConv =
    R"(def @main(%x: Tensor[(1, 3, 4, 4), float32], %w: Tensor[(2, 3, 3, 3), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1]);
  nn.relu(%0)
})";

TEST(Legalize, HookPadsOddChannels) {
  ScopedConvLegalize scope(padOddChannels);
  IRModule before = parseModule(kOddConv);
  IRModule after = runPass(legalizePass(), before);
  EXPECT_EQ(
      printBare(after),
      R"(def @main(%x: Tensor[(1, 3, 4, 4), float32], %w: Tensor[(2, 3, 3, 3), float32]) -> Tensor[(1, 2, 4, 4), float32] {
  %0 = nn.pad(%x, 0f, pad_width=[[0, 0], [0, 1], [0, 0], [0, 0]]);
  %1 = nn.pad(%w, 0f, pad_width=[[0, 0], [0, 1], [0, 0], [0, 0]]);
  %2 = nn.conv2d(%0, %1, padding=[1, 1, 1, 1]);
  nn.relu(%2)
}
)");
  EXPECT_TRUE(test::sameBehaviour(before, after, 3, 1e-5, 1e-5));
}

TEST(Legalize, HookReturningNullKeepsCall) {
  ScopedConvLegalize scope(padOddChannels);
  const char* even =
      R"(def @main(%x: Tensor[(1, 2, 4, 4), float32], %w: Tensor[(2, 2, 3, 3), float32]) {
  nn.conv2d(%x, %w)
})";
  IRModule before = parseModule(even);
  EXPECT_EQ(printBare(runPass(legalizePass(), before)),
            printBare(runPass(inferTypePass(), before)));
}

TEST(Legalize, IdentityWithoutHook) {
  IRModule before = parseModule(kOddConv);
  EXPECT_EQ(getOpAttr<LegalizeFn>("nn.conv2d", kLegalizeAttr), nullptr);
  EXPECT_EQ(printBare(runPass(legalizePass(), before)),
            printBare(runPass(inferTypePass(), before)));
}

TEST(Legalize, HookSeesArgumentTypes) {
  std::vector<Type> seen;
  ScopedConvLegalize scope([&seen](const CallNode&, const std::vector<Expr>&,
                                   const std::vector<Type>& argTypes) -> Expr {
    seen = argTypes;
    return nullptr;
  });
  runPass(legalizePass(), parseModule(kOddConv));
  ASSERT_EQ(seen.size(), 2u);
  ASSERT_TRUE(seen[0] && seen[1]);
  EXPECT_EQ(seen[0]->as<TensorTypeNode>()->ndim(), 4);
}

}  // namespace
}  // namespace tessera::relay
