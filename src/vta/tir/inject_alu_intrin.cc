// The ALU path (spec vta.md §6.4). AnnotateALUCoProcScope puts each `pragma_alu` nest in the
// compute queue's scope and an ALU micro-op scope; InjectALUIntrin (after virtual threads are
// injected) turns the nest `dst[d] = op(src[s], b)` into VTA micro-op loops and one ALU micro-op:
//
//   VTAUopLoopBegin(extent, dst_factor, src_factor, 0)   (one per remaining loop, at most 2)
//   vta.uop_push(1, 0, dst, src, 0, opcode, use_imm, imm)
//   VTAUopLoopEnd()
//
// with addresses as tile pointers (entry indices once §6.8's pass has run). `>>`, `<<` (a negative
// shift), min, max, + and * (the simulator's MUL) map to opcodes; a constant operand becomes the
// immediate, and the other operand must then be the destination buffer itself (the ALU works in
// place).
#include "support/diagnostic.h"
#include "tir/arith/analyzer.h"
#include "tir/functor.h"
#include "tir/printer/printer.h"
#include "tir/transform/pass_util.h"
#include "vta/rt/isa.h"
#include "vta/tir/passes.h"
#include "vta/tir/perfect_nest.h"

namespace tessera::vta {

namespace {

using namespace tir;

[[noreturn]] void fail(const std::string& message) {
  throwDiagnostic("vta_alu", message);
}

class AluScopeAnnotator : public IRMutator {
 protected:
  Stmt visitFor(const ForNode* op, const Stmt& self) override {
    const auto* attr = op->body->as<AttrStmtNode>();
    if (attr && attr->key == "pragma_alu" && attr->node.get() == op->loopVar.get()) {
      auto nest = std::make_shared<ForNode>(*op);
      nest->body = attr->body;
      return scope(nest);
    }
    return IRMutator::visitFor(op, self);
  }
  Stmt visitOtherStmt(const Stmt& self) override {
    if (const auto* attr = self->as<AttrStmtNode>(); attr && attr->key == "pragma_alu")
      return scope(attr->body);
    return IRMutator::visitOtherStmt(self);
  }

 private:
  static Stmt scope(Stmt nest) {
    const Var vta = makeVar("vta");
    return attrStmt(vta, "coproc_scope", intImm(2),
                    attrStmt(vta, "coproc_uop_scope", stringImm("VTAPushALUOp"), std::move(nest)));
  }
};

struct Loop {
  Var var;
  int64_t extent;
  int64_t dst = 0, src = 0;  // factors
};

class AluInjector : public IRMutator {
 public:
  explicit AluInjector(const Config& config)
      : lanes_(int64_t{config.batch()} * config.blockOut()),
        batch_(config.batch()),
        blockOut_(config.blockOut()) {}

 protected:
  Stmt visitOtherStmt(const Stmt& self) override {
    const auto* attr = self->as<AttrStmtNode>();
    const auto* value = attr ? attr->value->as<StringImmNode>() : nullptr;
    if (!attr || attr->key != "coproc_uop_scope" || !value || value->value != "VTAPushALUOp")
      return IRMutator::visitOtherStmt(self);
    return attrStmt(attr->node, attr->key, attr->value, inject(attr->body));
  }

 private:
  Stmt inject(const Stmt& body);

  const int64_t lanes_, batch_, blockOut_;
  arith::Analyzer analyzer_;
};

// index = base + Σ factor_i · v_i, factors constant.
std::pair<PrimExpr, std::vector<int64_t>> affine(const PrimExpr& e,
                                                 const std::vector<NestLoop>& loops,
                                                 arith::Analyzer& analyzer) {
  std::optional<AffineIndex> a = affineIndex(e, loops, analyzer);
  if (!a) fail("an ALU index is not affine in its loops: " + toString(e));
  return {a->base, a->coef};
}

Stmt AluInjector::inject(const Stmt& body) {
  PerfectNest nest = perfectNest(body, "vta_alu");
  std::vector<NestLoop>& loops = nest.loops;
  const VarMap& unit = nest.unit;
  const Stmt& s = nest.leaf;
  const auto* store = s->as<BufferStoreNode>();
  if (!store || store->indices.size() != 1)
    fail("an alu nest must be a perfect loop nest around one store");
  const PrimExpr value = substitute(store->value, unit);
  // The operation and its operands.
  AluOpcode opcode;
  PrimExpr lhs, rhs;
  bool negate = false;
  if (const auto* b = value->as<BinaryNode>()) {
    lhs = b->a, rhs = b->b;
    switch (b->op) {
      case BinaryOp::kAdd:
        opcode = AluOpcode::kAdd;
        break;
      case BinaryOp::kMul:
        opcode = AluOpcode::kMul;
        break;
      case BinaryOp::kMin:
        opcode = AluOpcode::kMin;
        break;
      case BinaryOp::kMax:
        opcode = AluOpcode::kMax;
        break;
      default:
        fail("'" + toString(value) + "' is unsupported on the VTA ALU");
    }
  } else if (const auto* c = value->as<CallNode>();
             c && (c->op == "tir.shift_right" || c->op == "tir.shift_left")) {
    opcode = AluOpcode::kShr;
    lhs = c->args[0], rhs = c->args[1];
    negate = c->op == "tir.shift_left";
  } else if (value->as<BufferLoadNode>()) {
    opcode = AluOpcode::kShr;  // a copy: shift by 0
    lhs = value, rhs = intImm(0);
  } else {
    fail("'" + toString(value) + "' is unsupported on the VTA ALU");
  }
  if (asConstInt(lhs) && opcode != AluOpcode::kShr) std::swap(lhs, rhs);
  const PrimExpr dstIndex = substitute(store->indices[0], unit);
  PrimExpr srcIndex;
  Var srcData = store->buffer->data;
  bool useImm = false;
  int64_t imm = 0;
  const auto* l = lhs->as<BufferLoadNode>();
  if (const int64_t* c = asConstInt(rhs)) {
    useImm = true;
    imm = negate ? -*c : *c;
    if (imm < -32768 || imm > 32767)
      fail("the ALU immediate " + std::to_string(imm) + " is outside int16");
    if (!l || l->buffer->data.get() != store->buffer->data.get())
      fail("an ALU operation with an immediate must work in place on '" + store->buffer->name +
           "'");
    srcIndex = l->indices[0];
  } else {
    const auto* r = rhs->as<BufferLoadNode>();
    // One operand is the destination itself (the ALU works in place); the other, the source, is
    // any accumulator buffer (its own address).
    const auto inPlace = [&](const BufferLoadNode* x) {
      return x && x->buffer->data.get() == store->buffer->data.get() &&
             analyzer_.canProveEqual(x->indices[0], dstIndex);
    };
    if (!l || !r || (!inPlace(l) && !inPlace(r)))
      fail("a tensor-tensor ALU operation must update its destination in place");
    const BufferLoadNode* src = inPlace(l) ? r : l;
    srcIndex = src->indices[0];
    srcData = src->buffer->data;
    if (negate) fail("a tensor-tensor left shift is unsupported on the VTA ALU");
  }
  auto [dstBase, dstF] = affine(dstIndex, loops, analyzer_);
  auto [srcBase, srcF] = affine(substitute(srcIndex, unit), loops, analyzer_);
  // Drop the lane loop(s): innermost factor 1 over BLOCK_OUT lanes (and BATCH rows above it).
  const size_t laneLoops = batch_ > 1 ? 2 : 1;
  if (loops.size() < laneLoops || loops.back().extent != blockOut_ || dstF.back() != 1 ||
      srcF.back() != 1 || (batch_ > 1 && (dstF[dstF.size() - 2] != blockOut_)))
    fail("an ALU nest must end in the " + std::to_string(lanes_) + " lanes of an entry");
  for (size_t k = 0; k < laneLoops; ++k) loops.pop_back(), dstF.pop_back(), srcF.pop_back();
  std::vector<Loop> merged;  // innermost first
  for (size_t i = loops.size(); i-- > 0;) {
    if (dstF[i] % lanes_ || srcF[i] % lanes_) fail("an ALU loop does not step whole entries");
    Loop cur{loops[i].var, loops[i].extent, dstF[i] / lanes_, srcF[i] / lanes_};
    if (!merged.empty() && cur.dst == merged.back().dst * merged.back().extent &&
        cur.src == merged.back().src * merged.back().extent) {
      merged.back().extent *= cur.extent;
      continue;
    }
    merged.push_back(cur);
  }
  if (merged.size() > 2)
    fail("an ALU nest needs " + std::to_string(merged.size()) +
         " loops after merging; VTA micro-op kernels have 2");
  const DataType i32 = DataType::int32();
  std::vector<Stmt> stmts;
  for (size_t i = merged.size(); i-- > 0;)
    stmts.push_back(evaluate(call(i32, "tir.call_extern",
                                  {stringImm("VTAUopLoopBegin"), intImm(merged[i].extent),
                                   intImm(merged[i].dst), intImm(merged[i].src), intImm(0)})));
  // Addresses as tile pointers, turned into entry indices with the other SRAM addresses (§6.8).
  auto address = [&](const Var& data, const PrimExpr& base, int mask) {
    return call(DataType::handle(), "tir.tvm_access_ptr",
                {data, base, intImm(lanes_), intImm(mask)});
  };
  stmts.push_back(evaluate(call(
      i32, "vta.uop_push",
      {intImm(1), intImm(0), address(store->buffer->data, dstBase, 2), address(srcData, srcBase, 1),
       intImm(0), intImm(static_cast<int>(opcode)), intImm(useImm ? 1 : 0), intImm(imm)})));
  for (size_t i = 0; i < merged.size(); ++i)
    stmts.push_back(evaluate(call(i32, "tir.call_extern", {stringImm("VTAUopLoopEnd")})));
  return seq(std::move(stmts));
}

}  // namespace

PrimFunc annotateAluCoProcScope(const PrimFunc& func) {
  AluScopeAnnotator annotator;
  return tir::transform::withBody(func, annotator.visitStmt(func->body));
}

PrimFunc injectAluIntrin(const PrimFunc& func, const Config& config) {
  AluInjector injector(config);
  return tir::transform::withBody(func, injector.visitStmt(func->body));
}

}  // namespace tessera::vta
