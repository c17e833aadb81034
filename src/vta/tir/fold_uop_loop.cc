// FoldUopLoop (spec vta.md §6.9, TVM's vta/transform.py): a GEMM kernel's micro-ops are pushed by
// host loops; VTA has two hardware loops that step the three addresses by fixed factors. The
// outermost loop of a `coproc_uop_scope = "VTAPushGEMMOp"` body folds into one when every
// `vta.uop_push` in it has dst, src and wgt affine in the loop variable with the same factors
// across pushes (a factor may be 0) and the variable is used nowhere else; this is tried twice.
// A loop that does not fold stays a host loop (correct, with a bigger kernel).
#include "tir/arith/analyzer.h"
#include "tir/functor.h"
#include "tir/printer/printer.h"
#include "tir/transform/pass_util.h"
#include "vta/tir/passes.h"

namespace tessera::vta {

namespace {

using namespace tir;

constexpr size_t kAddressArg = 2;  // uop_push(mode, reset, dst, src, wgt, opcode, use_imm, imm)

// `e` as base + factor * v, or nothing when it is not affine in v.
std::optional<std::pair<PrimExpr, PrimExpr>> affine(const PrimExpr& e, const Var& v,
                                                    arith::Analyzer& analyzer) {
  const PrimExpr base = analyzer.simplify(substitute(e, {{v.get(), intImm(0, v->dtype)}}));
  const PrimExpr factor = analyzer.simplify(substitute(e, {{v.get(), intImm(1, v->dtype)}}) - base);
  if (usesVar(factor, v.get()) || !asConstInt(factor)) return std::nullopt;
  if (!analyzer.canProveEqual(e, base + factor * v)) return std::nullopt;
  return std::pair{base, factor};
}

struct Folded {
  Stmt begin, body, end;
};

// The outermost loop of `body` as a hardware loop, or nothing.
std::optional<Folded> foldOutermost(const Stmt& body) {
  const auto* loop = body->as<ForNode>();
  if (!loop || !asConstInt(loop->extent) || !isZero(loop->min)) return std::nullopt;
  arith::Analyzer analyzer;
  std::vector<std::optional<PrimExpr>> factors(3);
  bool ok = true;
  class PushRewriter : public IRMutator {
   public:
    std::function<PrimExpr(const CallNode*)> rewrite;

   protected:
    PrimExpr visitCall(const CallNode* op, const PrimExpr& self) override {
      PrimExpr e = IRMutator::visitCall(op, self);
      const auto* c = e->as<CallNode>();
      return c->op == "vta.uop_push" ? rewrite(c) : e;
    }
  } rewriter;
  rewriter.rewrite = [&](const CallNode* c) -> PrimExpr {
    std::vector<PrimExpr> args = c->args;
    for (size_t i = 0; i < 3 && ok; ++i) {
      auto split = affine(args[kAddressArg + i], loop->loopVar, analyzer);
      if (!split || (factors[i] && !analyzer.canProveEqual(*factors[i], split->second))) {
        ok = false;
        break;
      }
      factors[i] = split->second;
      args[kAddressArg + i] = split->first;
    }
    return call(c->dtype, c->op, args);
  };
  Stmt inner = rewriter.visitStmt(loop->body);
  if (!ok || !factors[0]) return std::nullopt;
  bool stillUsed = false;
  postOrderVisitExprs(inner, [&](const PrimExpr& e) {
    if (e.get() == loop->loopVar.get()) stillUsed = true;
  });
  if (stillUsed) return std::nullopt;
  const DataType i32 = DataType::int32();
  return Folded{evaluate(call(i32, "tir.call_extern",
                              {stringImm("VTAUopLoopBegin"), loop->extent, *factors[0], *factors[1],
                               *factors[2]})),
                inner, evaluate(call(i32, "tir.call_extern", {stringImm("VTAUopLoopEnd")}))};
}

class UopLoopFolder : public IRMutator {
 protected:
  Stmt visitOtherStmt(const Stmt& self) override {
    const auto* attr = self->as<AttrStmtNode>();
    const auto* value = attr ? attr->value->as<StringImmNode>() : nullptr;
    if (!attr || attr->key != "coproc_uop_scope" || !value || value->value != "VTAPushGEMMOp")
      return IRMutator::visitOtherStmt(self);
    std::vector<Stmt> begins, ends;
    Stmt body = attr->body;
    for (int i = 0; i < 2; ++i) {
      std::optional<Folded> f = foldOutermost(body);
      if (!f) break;
      begins.push_back(f->begin);
      ends.insert(ends.begin(), f->end);
      body = f->body;
    }
    if (begins.empty()) return self;
    std::vector<Stmt> stmts = begins;
    stmts.push_back(body);
    stmts.insert(stmts.end(), ends.begin(), ends.end());
    return attrStmt(attr->node, attr->key, attr->value, seq(std::move(stmts)));
  }
};

}  // namespace

PrimFunc foldUopLoop(const PrimFunc& func) {
  UopLoopFolder folder;
  return tir::transform::withBody(func, folder.visitStmt(func->body));
}

}  // namespace tessera::vta
