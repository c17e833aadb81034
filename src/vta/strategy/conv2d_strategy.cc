// VTA's conv2d strategy (conv2d_strategy.h): the fused function is read from its result back to
// the convolution, each element-wise op mapped to ALU stages (clip as min then max, as TVM's VTA
// schedule does; relu as max 0; int32 casts vanish; the int8 cast is the store's truncation).
#include "vta/strategy/conv2d_strategy.h"

#include "relay/op/nn.h"
#include "relay/op/tensor.h"
#include "relay/visit.h"
#include "support/diagnostic.h"
#include "tir/transform/lower.h"
#include "vta/tir/passes.h"

namespace tessera::vta {

namespace {

using namespace relay;
using K = EpilogueOp::Kind;

[[noreturn]] void fail(const CallNode& call, const std::string& message) {
  const auto* op = call.op->as<OpNode>();
  throwDiagnostic("vta_strategy", message, call.span, op ? op->name : "");
}

const std::string& opName(const CallNode& call) {
  static const std::string kNone;
  const auto* op = call.op->as<OpNode>();
  return op ? op->name : kNone;
}

const TensorTypeNode* typeOf(const Expr& e) {
  return e->checkedType ? e->checkedType->as<TensorTypeNode>() : nullptr;
}

std::vector<int64_t> dims(const Expr& e, const CallNode& at) {
  const TensorTypeNode* t = typeOf(e);
  if (!t) fail(at, "an operand is not a typed tensor");
  std::vector<int64_t> out;
  for (const Dim& d : t->shape) {
    if (!d.isConst()) fail(at, "VTA needs static shapes");
    out.push_back(d.value());
  }
  return out;
}

// A scalar constant operand as an integer, or nothing.
std::optional<int64_t> scalarOf(const Expr& e) {
  const auto* c = e->as<ConstantNode>();
  if (!c || c->data.numel() != 1) return std::nullopt;
  return c->data.getInt(0);
}

int paramIndex(const Function& fn, const Expr& e) {
  for (size_t i = 0; i < fn->params.size(); ++i)
    if (fn->params[i].get() == e.get()) return int(i);
  return -1;
}

}  // namespace

VtaConv2dKernel readConv2dKernel(const Function& fn, const Config& c) {
  VtaConv2dKernel k;
  std::vector<EpilogueOp> reversed;  // outermost first while reading
  std::vector<std::pair<int, NDArray>> operandsReversed;
  Expr e = fn->body;
  bool sawNarrowCast = false;
  while (true) {
    const auto* call = e->as<CallNode>();
    if (!call) throwDiagnostic("vta_strategy", "a VTA kernel must end in nn.conv2d's chain");
    const std::string& name = opName(*call);
    if (name == "nn.conv2d") break;
    const Expr& x = call->args.at(0);
    if (name == "annotation.stop_fusion") {
    } else if (name == "cast") {
      const TensorTypeNode* t = typeOf(e);
      if (t && t->dtype == DataType::int8() && !sawNarrowCast && reversed.empty())
        sawNarrowCast = true;  // the store keeps the low byte
      else if (!t || t->dtype != DataType::int32())
        fail(*call, "VTA's accumulator is int32; a cast to " +
                        (t ? t->dtype.name() : std::string("?")) + " cannot run there");
    } else if (name == "nn.relu") {
      reversed.push_back({K::kMax, 0});
    } else if (name == "clip") {
      const auto* a = attrsAs<ClipAttrs>(call->attrs.get());
      reversed.push_back({K::kMax, int64_t(a->aMin)});  // read outermost first: min, then max
      reversed.push_back({K::kMin, int64_t(a->aMax)});
    } else if (name == "right_shift" || name == "left_shift" || name == "add" ||
               name == "maximum" || name == "minimum") {
      const Expr& y = call->args.at(1);
      if (std::optional<int64_t> imm = scalarOf(y)) {
        const K kind = name == "right_shift"  ? K::kShiftRight
                       : name == "left_shift" ? K::kShiftLeft
                       : name == "add"        ? K::kAdd
                       : name == "maximum"    ? K::kMax
                                              : K::kMin;
        reversed.push_back({kind, *imm});
      } else if (name == "add") {
        const std::vector<int64_t> shape = dims(y, *call);
        const std::vector<int64_t> out = dims(e, *call);
        if (shape.size() != 5 || shape[1] != 1 || shape[2] != 1 || out.size() != 6 ||
            shape[0] != out[1] || shape[3] != out[4] || shape[4] != out[5])
          fail(*call, "VTA adds per-channel operands of shape (O/co, 1, 1, b, co) only");
        reversed.push_back({K::kAddChannel, 0});
        const auto* constant = y->as<ConstantNode>();
        operandsReversed.push_back(
            {constant ? -1 : paramIndex(fn, y), constant ? constant->data : NDArray()});
        if (!constant && paramIndex(fn, y) < 0)
          fail(*call, "a per-channel operand must be a parameter or a constant");
      } else {
        fail(*call, "'" + name + "' with a tensor operand cannot run on VTA's ALU");
      }
    } else {
      fail(*call, "'" + name + "' cannot run on VTA");
    }
    e = x;
  }
  const auto* conv = e->as<CallNode>();
  const auto* attrs = attrsAs<nn::Conv2DAttrs>(conv->attrs.get());
  const std::string dataLayout =
      "NCHW" + std::to_string(c.batch()) + "n" + std::to_string(c.blockIn()) + "c";
  const std::string kernelLayout =
      "OIHW" + std::to_string(c.blockOut()) + "o" + std::to_string(c.blockIn()) + "i";
  if (!attrs || attrs->dataLayout != dataLayout || attrs->kernelLayout != kernelLayout)
    fail(*conv, "a VTA convolution needs data_layout=\"" + dataLayout + "\" and kernel_layout=\"" +
                    kernelLayout + "\" (run graph packing first)");
  for (int64_t d : attrs->dilation)
    if (d != 1) fail(*conv, "VTA convolutions need dilation 1, found " + std::to_string(d));
  if (attrs->groups != 1) fail(*conv, "VTA has no grouped convolution");
  const std::vector<int64_t>& p = attrs->padding;
  if (p.size() != 4 || p[0] != p[1] || p[0] != p[2] || p[0] != p[3] ||
      attrs->strides[0] != attrs->strides[1])
    fail(*conv, "VTA convolutions need equal padding on all sides and equal strides");
  const std::vector<int64_t> data = dims(conv->args[0], *conv);
  const std::vector<int64_t> weight = dims(conv->args[1], *conv);
  const TensorTypeNode* dt = typeOf(conv->args[0]);
  const TensorTypeNode* wt = typeOf(conv->args[1]);
  if (dt->dtype != DataType::int8() || wt->dtype != DataType::int8() ||
      typeOf(e)->dtype != DataType::int32())
    fail(*conv, "VTA convolutions are int8 x int8 -> int32");
  k.dataParam = paramIndex(fn, conv->args[0]);
  if (k.dataParam < 0) fail(*conv, "the convolution's data must be a parameter of the kernel");
  k.weightParam = paramIndex(fn, conv->args[1]);
  if (k.weightParam < 0) {
    const auto* constant = conv->args[1]->as<ConstantNode>();
    if (!constant) fail(*conv, "the weights must be a parameter or a constant");
    k.weight = constant->data;
  }
  k.shape.batch = data[0] * data[4];
  k.shape.inChannels = data[1] * data[5];
  k.shape.height = data[2];
  k.shape.width = data[3];
  k.shape.outChannels = weight[0] * weight[4];
  k.shape.kernel = weight[2];
  if (weight[2] != weight[3]) fail(*conv, "VTA convolutions need square kernels");
  k.shape.pad = p[0];
  k.shape.stride = attrs->strides[0];
  k.shape.epilogue = std::vector<EpilogueOp>(reversed.rbegin(), reversed.rend());
  for (auto it = operandsReversed.rbegin(); it != operandsReversed.rend(); ++it) {
    k.operandParams.push_back(it->first);
    k.constants.push_back(it->second);
  }
  return k;
}

tir::PrimFunc compileConv2dKernel(const VtaConv2dKernel& kernel, const Config& config) {
  tir::Schedule sch(conv2dPackedFunc(config, kernel.shape));
  scheduleConv2dPacked(sch, config, kernel.shape, defaultConv2dPackedKnobs(config, kernel.shape));
  tir::transform::PassContext ctx;
  addVtaLowerPasses(ctx, config);
  return tir::transform::lower(sch.func(), ctx);
}

bool isVtaConvFunction(const Function& fn, const Config& c) {
  const std::string dataLayout =
      "NCHW" + std::to_string(c.batch()) + "n" + std::to_string(c.blockIn()) + "c";
  bool found = false;
  postOrderVisit(fn->body, [&](const Expr& e) {
    const auto* call = e->as<CallNode>();
    if (!call || opName(*call) != "nn.conv2d") return;
    const auto* attrs = attrsAs<nn::Conv2DAttrs>(call->attrs.get());
    if (attrs && attrs->dataLayout == dataLayout) found = true;
  });
  return found;
}

}  // namespace tessera::vta
