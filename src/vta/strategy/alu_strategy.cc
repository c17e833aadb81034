// VTA's element-wise strategy (alu_strategy.h): the fused function is read from its result back to
// its operands; anything the ALU has no form for makes it the CPU's (nullopt), not an error, since
// nothing in it needs VTA.
#include "vta/strategy/alu_strategy.h"

#include "relay/op/tensor.h"
#include "tir/schedule/schedule.h"
#include "tir/transform/lower.h"
#include "vta/tir/passes.h"

namespace tessera::vta {

namespace {

using namespace relay;
using K = EpilogueOp::Kind;

const TensorTypeNode* typeOf(const Expr& e) {
  return e->checkedType ? e->checkedType->as<TensorTypeNode>() : nullptr;
}

std::optional<std::vector<int64_t>> packedShape(const Expr& e, const Config& c) {
  const TensorTypeNode* t = typeOf(e);
  if (!t || t->ndim() != 6) return std::nullopt;
  std::optional<std::vector<int64_t>> dims = staticShape(t->shape);
  if (!dims || (*dims)[4] != c.batch() || (*dims)[5] != c.blockOut()) return std::nullopt;
  return dims;
}

const std::string& opName(const CallNode& call) {
  static const std::string kNone;
  const auto* op = call.op->as<OpNode>();
  return op ? op->name : kNone;
}

std::optional<int64_t> scalarOf(const Expr& e) {
  const auto* c = e->as<ConstantNode>();
  if (!c || !c->hasData() || c->data.numel() != 1 || !c->data.dtype().isInt()) return std::nullopt;
  return c->data.getInt(0);
}

int paramIndex(const Function& fn, const Expr& e) {
  for (size_t i = 0; i < fn->params.size(); ++i)
    if (fn->params[i].get() == e.get()) return static_cast<int>(i);
  return -1;
}

// An operand: a packed int8/int32 parameter, possibly cast to int32.
bool readOperand(const Function& fn, Expr e, VtaAluKernel& k) {
  if (const auto* call = e->as<CallNode>(); call && opName(*call) == "cast") {
    const TensorTypeNode* t = typeOf(e);
    if (!t || t->dtype != DataType::int32()) return false;
    e = call->args.at(0);
  }
  const int p = paramIndex(fn, e);
  const TensorTypeNode* t = typeOf(e);
  if (p < 0 || !t || (t->dtype != DataType::int8() && t->dtype != DataType::int32())) return false;
  k.operandParams.push_back(p);
  k.shape.operands.push_back(t->dtype);
  return true;
}

}  // namespace

std::optional<VtaAluKernel> readAluKernel(const Function& fn, const Config& c) {
  const TensorTypeNode* result = typeOf(fn->body);
  std::optional<std::vector<int64_t>> shape = packedShape(fn->body, c);
  if (!result || result->dtype != DataType::int8() || !shape) return std::nullopt;
  VtaAluKernel k;
  k.shape.shape = *shape;
  std::vector<EpilogueOp> reversed;
  Expr e = fn->body;
  // The int8 result: the store's truncation of the int32 chain.
  const auto* top = e->as<CallNode>();
  while (top && opName(*top) == "annotation.stop_fusion") {
    e = top->args.at(0);
    top = e->as<CallNode>();
  }
  if (!top || opName(*top) != "cast" || !typeOf(top->args.at(0)) ||
      typeOf(top->args.at(0))->dtype != DataType::int32())
    return std::nullopt;
  e = top->args.at(0);
  while (true) {
    if (packedShape(e, c) != shape) return std::nullopt;
    const auto* call = e->as<CallNode>();
    if (!call) break;
    const std::string& name = opName(*call);
    if (name == "nn.relu") {
      reversed.push_back({K::kMax, 0});
    } else if (name == "clip") {
      const auto* a = attrsAs<ClipAttrs>(call->attrs.get());
      reversed.push_back({K::kMax, int64_t(a->aMin)});
      reversed.push_back({K::kMin, int64_t(a->aMax)});
    } else if (name == "right_shift" || name == "left_shift" || name == "add" ||
               name == "maximum" || name == "minimum") {
      const std::optional<int64_t> imm = scalarOf(call->args.at(1));
      if (!imm) break;  // two tensors: the operands (an add) or not VTA's
      reversed.push_back({name == "right_shift"  ? K::kShiftRight
                          : name == "left_shift" ? K::kShiftLeft
                          : name == "add"        ? K::kAdd
                          : name == "maximum"    ? K::kMax
                                                 : K::kMin,
                          *imm});
    } else {
      break;
    }
    e = call->args.at(0);
  }
  const auto* root = e->as<CallNode>();
  if (root && opName(*root) == "add" && !scalarOf(root->args.at(1))) {
    if (!readOperand(fn, root->args.at(0), k) || !readOperand(fn, root->args.at(1), k))
      return std::nullopt;
  } else if (!readOperand(fn, e, k)) {
    return std::nullopt;
  }
  k.shape.ops = std::vector<EpilogueOp>(reversed.rbegin(), reversed.rend());
  return k;
}

tir::PrimFunc compileAluKernel(const VtaAluKernel& kernel, const Config& config) {
  tir::Schedule sch(aluPackedFunc(config, kernel.shape));
  scheduleAluPacked(sch, config, kernel.shape);
  tir::transform::PassContext ctx;
  addVtaLowerPasses(ctx, config);
  return tir::transform::lower(sch.func(), ctx);
}

}  // namespace tessera::vta
