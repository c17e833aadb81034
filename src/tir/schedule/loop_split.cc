// split(loop, factors): one loop becomes a nest of loops whose extents are the factors (one may be
// None and is inferred as ceil(extent / product of the others)); blocks below get a predicate when
// the product may exceed the extent.
#include "support/check.h"
#include "tir/functor.h"
#include "tir/schedule/instruction_kind_util.h"
#include "tir/schedule/loop_rewrite.h"
#include "tir/schedule/schedule_state.h"

namespace tessera::tir {

// The names of the instructions this file records and replays, written once.
namespace {
constexpr char kSplitInst[] = "Split";
}  // namespace

namespace {

constexpr const char* kSplit = "split";

// The factors as expressions, with the one None inferred. Throws on invalid factors.
std::vector<PrimExpr> resolveFactors(const Schedule::Impl& s, const ForNode* loop,
                                     const std::vector<SplitFactor>& factors) {
  if (factors.size() < 2) {
    throwScheduleError(kSplit,
                       "at least two factors are required, got " + std::to_string(factors.size()));
  }
  DataType dtype = loop->loopVar->dtype;
  std::vector<PrimExpr> out(factors.size());
  int noneIndex = -1;
  int64_t product = 1;
  for (size_t i = 0; i < factors.size(); ++i) {
    int64_t value = 0;
    if (std::holds_alternative<std::monostate>(factors[i])) {
      if (noneIndex >= 0) throwScheduleError(kSplit, "at most one factor may be None");
      noneIndex = static_cast<int>(i);
      continue;
    }
    if (const auto* c = std::get_if<int64_t>(&factors[i])) value = *c;
    if (const auto* rv = std::get_if<ExprRV>(&factors[i])) value = s.exprValue(kSplit, *rv);
    if (value <= 0) {
      throwScheduleError(kSplit, "factor " + std::to_string(i) + " must be positive, got " +
                                     std::to_string(value));
    }
    out[i] = intImm(value, dtype);
    product *= value;
  }
  const int64_t* extent = asConstInt(loop->extent);
  if (noneIndex >= 0) {
    out[noneIndex] =
        extent ? intImm((*extent + product - 1) / product, dtype)
               : arith::simplify(floordiv(loop->extent + (product - 1), intImm(product, dtype)));
    return out;
  }
  if (!extent || product < *extent) {
    throwScheduleError(kSplit, "the product of the factors (" + std::to_string(product) +
                                   ") must be at least the loop extent");
  }
  return out;
}

}  // namespace

std::vector<LoopRV> Schedule::split(const LoopRV& loopRV, const std::vector<SplitFactor>& factors,
                                    bool preserveUnitIters, bool disablePredication) {
  Impl& s = *impl_;
  StmtPath path = s.loopPath(kSplit, loopRV);
  const auto* loop = path.stmt()->as<ForNode>();
  if (!loop->annotations.empty()) {
    throwScheduleError(kSplit,
                       "loop '" + loop->loopVar->name +
                           "' has annotations; only loops without annotations can be split");
  }
  if (loop->forKind == ForKind::kThreadBinding) {
    throwScheduleError(kSplit, "loop '" + loop->loopVar->name + "' is bound to a thread axis");
  }
  if (!isZero(loop->min)) {
    throwScheduleError(kSplit, "loop '" + loop->loopVar->name + "' does not start at 0");
  }
  std::vector<PrimExpr> extents = resolveFactors(s, loop, factors);

  // New variables outer to inner; the old variable becomes ((v0 * f1 + v1) * f2 + v2) ...
  DataType dtype = loop->loopVar->dtype;
  std::vector<Var> vars;
  PrimExpr fused;
  for (size_t i = 0; i < extents.size(); ++i) {
    vars.push_back(makeVar(loop->loopVar->name + "_" + std::to_string(i), dtype));
    fused = fused ? fused * extents[i] + vars.back() : PrimExpr(vars.back());
  }
  Stmt body = substitute(loop->body, VarMap{{loop->loopVar.get(), fused}});

  // A predicate is needed unless the product provably equals the extent.
  arith::Analyzer analyzer;
  std::vector<For> outer = path.loops();
  bindLoopDomains(analyzer, outer, preserveUnitIters);
  std::vector<For> newLoops;
  for (size_t i = 0; i < vars.size(); ++i) {
    if (!preserveUnitIters || !isOne(extents[i]))
      analyzer.bind(vars[i], Range{intImm(0, dtype), extents[i]});
  }
  PrimExpr product = extents[0];
  for (size_t i = 1; i < extents.size(); ++i) product = product * extents[i];
  PrimExpr predicate;
  if (!disablePredication && !analyzer.canProveEqual(product, loop->extent)) {
    predicate = lt(fused, loop->extent);
  }
  body = simplifyBindings(body, analyzer, preserveUnitIters, predicate);

  Stmt nest = body;
  for (size_t i = vars.size(); i-- > 0;) {
    nest = forLoop(vars[i], intImm(0, dtype), extents[i], ForKind::kSerial, nest);
  }
  s.commit(Impl::replaceInBody(path, nest));

  std::vector<LoopRV> out;
  std::vector<InstOutput> outs;
  for (const Var& v : vars) {
    out.push_back(s.newLoopRV(v));
    outs.push_back(out.back());
  }
  Instruction inst{.kind = kSplitInst, .inputs = {loopRV}};
  for (const SplitFactor& f : factors) {
    if (const auto* c = std::get_if<int64_t>(&f))
      inst.inputs.push_back(AttrValue::integer(*c));
    else if (const auto* rv = std::get_if<ExprRV>(&f))
      inst.inputs.push_back(*rv);
    else
      inst.inputs.push_back(std::monostate{});
  }
  inst.attrs = {traceBool(preserveUnitIters), traceBool(disablePredication)};
  inst.outputs = std::move(outs);
  s.record(std::move(inst));
  return out;
}

// --- how its instructions replay and print (listed in instruction_kinds.cc) -------------------

std::vector<InstructionKind> splitKinds() {
  using namespace kinds;
  return {
      {.name = kSplitInst,
       .pythonName = "split",
       .inputs = {2, Arity::kVariadic},
       .attrs = {1, 2},
       .listOutput = true,
       .apply =
           [](Schedule& s, const Instruction& i) {
             std::vector<SplitFactor> factors;
             for (size_t f = 1; f < i.inputs.size(); ++f) {
               const InstInput& in = i.inputs[f];
               if (const auto* rv = std::get_if<ExprRV>(&in))
                 factors.push_back(*rv);
               else if (const auto* c = std::get_if<AttrValue>(&in))
                 factors.push_back(c->asInt());
               else
                 factors.push_back(std::monostate{});
             }
             bool disable = i.attrs.size() > 1 && boolAttr(i, 1);
             return outs(s.split(rvAt<LoopRV>(i, 0), factors, boolAttr(i, 0), disable));
           },
       .print =
           [](const Instruction& i, const Inputs& in) {
             std::string out = "loop=" + in[0] + ", factors=[" + joined(in, 1) +
                               "], preserve_unit_iters=" + pyBool(i, 0);
             if (i.attrs.size() > 1) out += ", disable_predication=" + pyBool(i, 1);
             return out;
           }},
  };
}

}  // namespace tessera::tir
