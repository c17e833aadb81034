// Seed 000's WithVTAFunctionTransform, written as a user would against the public API: a function
// pass that copies the convolution's attributes onto each `vta_conv2d` composite as `ConvAttrs`.
// Run with no argument it prints the seed's module; with a path it compares with that file
// (leading `//` lines and spans ignored) and exits 1 on a difference.
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>

#include "relay/text/parser.h"
#include "relay/text/printer.h"
#include "relay/transform/merge_composite.h"
#include "relay/visit.h"

using namespace tessera;
using namespace tessera::relay;

namespace {

// The four patterns of the seed's vta_utils, in table order.
PatternTable vtaPatternTable() {
  const Pattern preprocessing =
      isOp("cast")({isOp("clip")({isOp("round")({isOp("multiply")({wildcard(), isConstant()})})})});
  const Pattern reshapeTranspose =
      isOp("transpose")({isOp("reshape")({isOp("nn.pad")({wildcard(), wildcard()})})});
  Pattern conv = isOp("nn.conv2d")({wildcard(), wildcard()});
  conv = isOp("add")({conv, wildcard()});
  for (const char* op : {"fixed_point_multiply", "cast"}) conv = isOp(op)({conv});
  conv = isOp("add")({conv, wildcard()});
  for (const char* op : {"nn.relu", "cast", "fixed_point_multiply", "clip", "cast", "cast",
                         "annotation.stop_fusion"}) {
    conv = isOp(op)({conv});
  }
  const Pattern output = isOp("multiply")({isOp("cast")({wildcard()}), isConstant()});
  return {{"vta_preprocessing", preprocessing},
          {"vta_reshape_transpose", reshapeTranspose},
          {"vta_conv2d", conv},
          {"vta_output", output}};
}

// The convolution's attributes inside a composite body (null when there is none).
Attrs convAttrsOf(const Function& fn) {
  Attrs found;
  postOrderVisit(fn->body, [&](const Expr& e) {
    const auto* call = e->as<CallNode>();
    const auto* op = call ? call->op->as<OpNode>() : nullptr;
    if (op && op->name == "nn.conv2d") found = call->attrs;
  });
  return found;
}

// Rebuilds each vta_conv2d composite called from `fn` with the extra attribute.
Function withVtaFunctionTransform(const Function& fn, const IRModule&, PassContext&) {
  Expr body = rewriteBottomUp(fn->body, [](const Expr& node, const std::vector<Expr>& kids) {
    const Expr e = withChildren(node, kids);
    const auto composite = exprAs<FunctionNode>(e);
    const AttrValue* name = composite ? composite->attrs.find("Composite") : nullptr;
    if (!name || name->asString() != "vta_conv2d") return e;
    DictAttrs attrs = composite->attrs;
    attrs.set("ConvAttrs", AttrValue::attrs(convAttrsOf(composite)));
    return Expr(makeFunction(composite->params, composite->body, composite->retType, attrs,
                             composite->span));
  });
  return makeFunction(fn->params, body, fn->retType, fn->attrs, fn->span);
}

// Seed 000's graph-packed main once FoldConstant has folded the weight packing.
const char* kFoldedMain = R"(def @main(%data: Tensor[(1, 3, 4, 4), float32]) {
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

std::string expectedText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  std::string text = buffer.str();
  while (text.rfind("//", 0) == 0) text = text.substr(text.find('\n') + 1);
  return std::regex_replace(text, std::regex(" span=[^ ]+"), "");
}

}  // namespace

int main(int argc, char** argv) {
  const Pass transform =
      makeFunctionPass({"WithVTAFunctionTransform", 0, {}}, withVtaFunctionTransform);
  IRModule module = parseModule(kFoldedMain, "seed000");
  module = (*mergeCompositePass(vtaPatternTable()))(module);
  module = (*transform)(module);
  const std::string printed = printModule(liftCompositeFunctions(module));
  std::cout << printed;
  if (argc < 2) return 0;
  std::string expected = expectedText(argv[1]);
  if (!expected.empty() && expected.back() != '\n') expected += '\n';
  if (printed + (printed.ends_with('\n') ? "" : "\n") == expected) return 0;
  std::cerr << "differs from " << argv[1] << "\n";
  return 1;
}
