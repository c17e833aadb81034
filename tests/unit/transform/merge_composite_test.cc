// MergeComposite: seed 000's four VTA patterns on the graph-packed module (its packed weights
// already folded to constants) print exactly the seed's composite functions and @main.
#include <gtest/gtest.h>

#include <regex>

#include "../../test_util.h"
#include "relay/text/parser.h"
#include "relay/text/printer.h"
#include "relay/transform/merge_composite.h"
#include "relay/transform/pass_table.h"

namespace tessera::relay {
namespace {

// The patterns as the seed's vta_utils writes them.
PatternTable vtaPatternTable() {
  const Pattern preprocessing =
      isOp("cast")({isOp("clip")({isOp("round")({isOp("multiply")({wildcard(), isConstant()})})})});
  const Pattern reshapeTranspose =
      isOp("transpose")({isOp("reshape")({isOp("nn.pad")({wildcard(), wildcard()})})});
  Pattern conv = isOp("nn.conv2d")({wildcard(), wildcard()});
  conv = isOp("add")({conv, wildcard()});
  conv = isOp("fixed_point_multiply")({conv});
  conv = isOp("cast")({conv});
  conv = isOp("add")({conv, wildcard()});
  conv = isOp("nn.relu")({conv});
  conv = isOp("cast")({conv});
  conv = isOp("fixed_point_multiply")({conv});
  conv = isOp("clip")({conv});
  conv = isOp("cast")({conv});
  conv = isOp("cast")({conv});
  conv = isOp("annotation.stop_fusion")({conv});
  const Pattern output = isOp("multiply")({isOp("cast")({wildcard()}), isConstant()});
  return {{"vta_preprocessing", preprocessing},
          {"vta_reshape_transpose", reshapeTranspose},
          {"vta_conv2d", conv},
          {"vta_output", output}};
}

// Seed 000's graph-packed main after FoldConstant: the weight and bias packing chains
// (nn.pad/reshape/transpose/broadcast_to of constants) are the three packed constants.
const char* kFoldedMain =
    R"(def @main(%data: Tensor[(1, 3, 4, 4), float32]) -> Tensor[(1, 3, 4, 4, 1, 16), float32] {
  %0 = multiply(%data, 16f);
  %1 = round(%0);
  %2 = clip(%1, a_min=-127f, a_max=127f);
  %3 = cast(%2, dtype="int8");
  %4 = nn.pad(%3, 0, pad_width=[[0, 0], [0, 13], [0, 0], [0, 0]]);
  %5 = reshape(%4, newshape=[1, 1, 1, 16, 4, 4]);
  %6 = transpose(%5, axes=[0, 2, 4, 5, 1, 3]);
  %7 = nn.conv2d(%6, meta[relay.Constant][0] /* ty=Tensor[(3, 1, 3, 3, 16, 16), int8] */, padding=[1, 1, 1, 1], channels=48, kernel_size=[3, 3], data_layout="NCHW1n16c", kernel_layout="OIHW16o16i", out_dtype="int32");
  %8 = add(%7, meta[relay.Constant][1] /* ty=Tensor[(3, 1, 1, 1, 16), int32] */);
  %9 = fixed_point_multiply(%8, multiplier=0, shift=0);
  %10 = cast(%9, dtype="int32");
  %11 = add(%10, meta[relay.Constant][2] /* ty=Tensor[(3, 1, 1, 1, 16), int32] */);
  %12 = nn.relu(%11);
  %13 = cast(%12, dtype="int64");
  %14 = fixed_point_multiply(%13, multiplier=0, shift=0);
  %15 = clip(%14, a_min=-127f, a_max=127f);
  %16 = cast(%15, dtype="int32");
  %17 = cast(%16, dtype="int8");
  %18 = annotation.stop_fusion(%17);
  %19 = cast(%18, dtype="float32");
  multiply(%19, 0.0625f)
}
)";

std::string expectedSeedText() {
  std::string text =
      test::readFile(test::sourcePath("tests/golden/text/seed000_merge_composite.relay"));
  while (text.rfind("//", 0) == 0) text = text.substr(text.find('\n') + 1);
  static const std::regex kSpan(" span=[^ ]+");
  // The seed prints the module after its WithVTAFunctionTransform too, which adds ConvAttrs (see
  // src/vta/graph/vta_composite.h, whose test in tests/unit/vta compares the whole file).
  static const std::regex kConvAttrs(", ConvAttrs=\\{[^}]*\\}");
  return std::regex_replace(std::regex_replace(text, kSpan, ""), kConvAttrs, "");
}

std::string withTrailingNewline(std::string s) {
  if (s.empty() || s.back() != '\n') s += '\n';
  return s;
}

TEST(MergeComposite, Seed000FourVtaPatternsPrintAsTheSeed) {
  const IRModule folded = parseModule(kFoldedMain, "folded");
  const IRModule merged = (*mergeCompositePass(vtaPatternTable()))(folded);
  const IRModule lifted = liftCompositeFunctions(merged);
  EXPECT_EQ(withTrailingNewline(printModule(lifted)), withTrailingNewline(expectedSeedText()));
}

TEST(MergeComposite, CompositesStayInlineBeforeLifting) {
  const IRModule merged = (*mergeCompositePass(vtaPatternTable()))(parseModule(kFoldedMain));
  ASSERT_EQ(merged.functions().size(), 1u);
  const std::string text = printModule(merged);
  EXPECT_NE(text.find("Composite=\"vta_conv2d\""), std::string::npos);
  EXPECT_NE(text.find("PartitionedFromPattern=\"cast_multiply_\""), std::string::npos);
}

TEST(MergeComposite, TableRowWithoutPatternsChangesNothing) {
  const IRModule folded = parseModule(kFoldedMain);
  const IRModule out = (*passByName("MergeComposite"))(folded);
  EXPECT_EQ(printModule(out), printModule(folded));
}

TEST(MergeComposite, PreservesBehaviour) {
  // An integer-free variant with data so the interpreter can run it.
  const IRModule m = parseModule(R"(def @main(%x: Tensor[(2, 3), float32]) {
  %0 = multiply(%x, 16f);
  %1 = round(%0);
  %2 = clip(%1, a_min=-127f, a_max=127f);
  %3 = cast(%2, dtype="int8");
  %4 = cast(%3, dtype="float32");
  multiply(%4, 0.0625f)
})");
  const IRModule merged = (*mergeCompositePass(vtaPatternTable()))(m);
  EXPECT_NE(printModule(merged).find("vta_preprocessing"), std::string::npos);
  EXPECT_TRUE(test::sameBehaviour(m, merged));
}

}  // namespace
}  // namespace tessera::relay
