// The epilogue chain of a VTA GEMM function (epilogue_reader.h).
#include "vta/strategy/epilogue_reader.h"

#include "relay/op/tensor.h"
#include "support/diagnostic.h"

namespace tessera::vta {

using namespace relay;
using K = EpilogueOp::Kind;

namespace {

// A scalar constant operand as an integer, or nothing.
std::optional<int64_t> scalarOf(const Expr& e) {
  const auto* c = e->as<ConstantNode>();
  if (!c || c->data.numel() != 1) return std::nullopt;
  return c->data.getInt(0);
}

}  // namespace

void failAt(const CallNode& call, const std::string& message) {
  throwDiagnostic("vta_strategy", message, call.span, opNameOf(call));
}

const std::string& opNameOf(const CallNode& call) {
  static const std::string kNone;
  const auto* op = call.op->as<OpNode>();
  return op ? op->name : kNone;
}

const TensorTypeNode* tensorTypeOfExpr(const Expr& e) {
  return e->checkedType ? e->checkedType->as<TensorTypeNode>() : nullptr;
}

std::vector<int64_t> staticDimsAt(const Expr& e, const CallNode& at) {
  const TensorTypeNode* t = tensorTypeOfExpr(e);
  if (!t) failAt(at, "an operand is not a typed tensor");
  std::vector<int64_t> out;
  for (const Dim& d : t->shape) {
    if (!d.isConst()) failAt(at, "VTA needs static shapes");
    out.push_back(d.value());
  }
  return out;
}

int paramIndexOf(const Function& fn, const Expr& e) {
  for (size_t i = 0; i < fn->params.size(); ++i)
    if (fn->params[i].get() == e.get()) return int(i);
  return -1;
}

GemmOperands gemmOperands(const Function& fn, const EpilogueChain& chain,
                          const std::string& layer) {
  const auto* gemm = chain.anchor->as<CallNode>();
  GemmOperands out;
  out.dataParam = paramIndexOf(fn, gemm->args[0]);
  if (out.dataParam < 0)
    failAt(*gemm, "the " + layer + "'s data must be a parameter of the kernel");
  out.weightParam = paramIndexOf(fn, gemm->args[1]);
  if (out.weightParam < 0) {
    const auto* constant = gemm->args[1]->as<ConstantNode>();
    if (!constant) failAt(*gemm, "the weights must be a parameter or a constant");
    out.weight = constant->data;
  }
  out.operandParams = chain.operandParams;
  out.constants = chain.constants;
  return out;
}

EpilogueChain readEpilogueChain(const Function& fn, const std::string& anchorOp,
                                const ChannelOperandShape& operandShape,
                                const std::string& operandForm) {
  EpilogueChain chain;
  std::vector<EpilogueOp> reversed;  // outermost first while reading
  std::vector<std::pair<int, NDArray>> operandsReversed;
  Expr e = fn->body;
  bool sawNarrowCast = false;
  while (true) {
    const auto* call = e->as<CallNode>();
    if (!call) throwDiagnostic("vta_strategy", "a VTA kernel must end in " + anchorOp + "'s chain");
    const std::string& name = opNameOf(*call);
    if (name == anchorOp) break;
    const Expr& x = call->args.at(0);
    if (name == "annotation.stop_fusion") {
    } else if (name == "cast") {
      const TensorTypeNode* t = tensorTypeOfExpr(e);
      if (t && t->dtype == DataType::int8() && !sawNarrowCast && reversed.empty())
        sawNarrowCast = true;  // the store keeps the low byte
      else if (!t || t->dtype != DataType::int32())
        failAt(*call, "VTA's accumulator is int32; a cast to " +
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
        if (staticDimsAt(y, *call) != operandShape(staticDimsAt(e, *call)))
          failAt(*call, "VTA adds per-channel operands of shape " + operandForm + " only");
        reversed.push_back({K::kAddChannel, 0});
        const auto* constant = y->as<ConstantNode>();
        if (!constant && paramIndexOf(fn, y) < 0)
          failAt(*call, "a per-channel operand must be a parameter or a constant");
        operandsReversed.push_back(
            {constant ? -1 : paramIndexOf(fn, y), constant ? constant->data : NDArray()});
      } else {
        failAt(*call, "'" + name + "' with a tensor operand cannot run on VTA's ALU");
      }
    } else {
      failAt(*call, "'" + name + "' cannot run on VTA");
    }
    e = x;
  }
  chain.anchor = e;
  chain.ops = std::vector<EpilogueOp>(reversed.rbegin(), reversed.rend());
  for (auto it = operandsReversed.rbegin(); it != operandsReversed.rend(); ++it) {
    chain.operandParams.push_back(it->first);
    chain.constants.push_back(it->second);
  }
  return chain;
}

}  // namespace tessera::vta
