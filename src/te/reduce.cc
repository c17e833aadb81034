// Reducers and reduction expressions (spec tir_relax.md §1.4).
#include "te/reduce.h"

#include "support/check.h"
#include "support/diagnostic.h"
#include "tir/functor.h"

namespace tessera::te {
namespace {

// Makes `b` an immediate of `a`'s dtype when it is a bare integer immediate of another type, so
// `max(A(i), 0)` is a float max.
PrimExpr matchDtype(const PrimExpr& a, PrimExpr b) {
  if (a->dtype == b->dtype) return b;
  if (const int64_t* v = tir::asConstInt(b))
    return tir::makeConst(a->dtype, static_cast<double>(*v));
  if (const auto* f = b->as<tir::FloatImmNode>()) return tir::makeConst(a->dtype, f->value);
  return tir::cast(a->dtype, b);
}

using Combine = std::function<PrimExpr(PrimExpr, PrimExpr)>;

// A single-valued built-in reducer over dtype `t`.
tir::CommReducerRef builtinReducer(const std::string& name, DataType t, const Combine& combine,
                                   PrimExpr identity) {
  auto r = std::make_shared<tir::CommReducer>();
  Var x = tir::makeVar("x", t), y = tir::makeVar("y", t);
  r->lhs = {x};
  r->rhs = {y};
  r->result = {combine(x, y)};
  r->identity = {std::move(identity)};
  r->name = name;
  return r;
}

PrimExpr makeReduce(tir::CommReducerRef reducer, std::vector<PrimExpr> sources,
                    std::vector<IterVar> axes, const ReduceOptions& options, int valueIndex,
                    std::vector<PrimExpr> init) {
  for (const IterVar& a : axes)
    if (a.type != tir::IterVarType::kCommReduce)
      throwDiagnostic("te_reduce", "reduction " + reducer->name + ": axis " + a.var->name +
                                       " is not a reduce axis (make it with reduceAxis)");
  PrimExpr cond = options.where ? options.where : tir::boolImm(true);
  const DataType t = sources[static_cast<size_t>(valueIndex)]->dtype;
  return std::make_shared<tir::ReduceNode>(t, std::move(reducer), std::move(sources),
                                           std::move(axes), std::move(cond), valueIndex,
                                           std::move(init));
}

PrimExpr builtin(const std::string& name, PrimExpr source, std::vector<IterVar> axes,
                 const ReduceOptions& options, const Combine& combine, PrimExpr identity) {
  const DataType t = source->dtype;
  auto reducer = builtinReducer(name, t, combine, std::move(identity));
  std::vector<PrimExpr> init;
  if (options.init) init.push_back(matchDtype(source, options.init));
  return makeReduce(std::move(reducer), {std::move(source)}, std::move(axes), options, 0,
                    std::move(init));
}

}  // namespace

IterVar reduceAxis(Range dom, std::string name) {
  Var v = tir::makeVar(std::move(name), dom.extent->dtype);
  return IterVar{std::move(dom), std::move(v), tir::IterVarType::kCommReduce};
}
IterVar reduceAxis(int64_t begin, int64_t end, std::string name) {
  return reduceAxis(Range{tir::intImm(begin), tir::intImm(end - begin)}, std::move(name));
}

PrimExpr sum(PrimExpr source, std::vector<IterVar> axes, ReduceOptions options) {
  const DataType t = source->dtype;
  return builtin("sum", std::move(source), std::move(axes), options, tir::add,
                 tir::makeConst(t, 0));
}
PrimExpr max(PrimExpr source, std::vector<IterVar> axes, ReduceOptions options) {
  const DataType t = source->dtype;
  return builtin("max", std::move(source), std::move(axes), options,
                 static_cast<PrimExpr (*)(PrimExpr, PrimExpr)>(tir::max), tir::minValue(t));
}
PrimExpr min(PrimExpr source, std::vector<IterVar> axes, ReduceOptions options) {
  const DataType t = source->dtype;
  return builtin("min", std::move(source), std::move(axes), options,
                 static_cast<PrimExpr (*)(PrimExpr, PrimExpr)>(tir::min), tir::maxValue(t));
}
PrimExpr prod(PrimExpr source, std::vector<IterVar> axes, ReduceOptions options) {
  const DataType t = source->dtype;
  return builtin("prod", std::move(source), std::move(axes), options, tir::mul,
                 tir::makeConst(t, 1));
}

PrimExpr sum(PrimExpr a, PrimExpr b) {
  b = matchDtype(a, std::move(b));
  return tir::add(std::move(a), std::move(b));
}
PrimExpr max(PrimExpr a, PrimExpr b) {
  b = matchDtype(a, std::move(b));
  return tir::max(std::move(a), std::move(b));
}
PrimExpr min(PrimExpr a, PrimExpr b) {
  b = matchDtype(a, std::move(b));
  return tir::min(std::move(a), std::move(b));
}

std::vector<PrimExpr> CommReducerFn::operator()(const std::vector<PrimExpr>& sources,
                                                std::vector<IterVar> axes, ReduceOptions options,
                                                std::vector<PrimExpr> init) const {
  if (sources.empty()) throwDiagnostic("te_reduce", "reducer " + name_ + ": no source values");
  auto r = std::make_shared<tir::CommReducer>();
  std::vector<DataType> dtypes;
  for (size_t k = 0; k < sources.size(); ++k) {
    dtypes.push_back(sources[k]->dtype);
    r->lhs.push_back(tir::makeVar("x" + std::to_string(k), sources[k]->dtype));
    r->rhs.push_back(tir::makeVar("y" + std::to_string(k), sources[k]->dtype));
  }
  r->result = combine_(r->lhs, r->rhs);
  r->identity = identity_(dtypes);
  r->name = name_;
  if (r->result.size() != sources.size() || r->identity.size() != sources.size())
    throwDiagnostic("te_reduce", "reducer " + name_ + ": combine and identity must give " +
                                     std::to_string(sources.size()) + " values");
  if (options.init && sources.size() == 1 && init.empty()) init.push_back(options.init);
  if (!init.empty() && init.size() != sources.size())
    throwDiagnostic("te_reduce", "reducer " + name_ + ": init must give one value per field");
  for (size_t k = 0; k < init.size(); ++k) init[k] = matchDtype(sources[k], init[k]);
  tir::CommReducerRef shared = r;
  std::vector<PrimExpr> out;
  for (size_t k = 0; k < sources.size(); ++k)
    out.push_back(makeReduce(shared, sources, axes, options, static_cast<int>(k), init));
  return out;
}

PrimExpr CommReducerFn::operator()(PrimExpr source, std::vector<IterVar> axes,
                                   ReduceOptions options) const {
  return (*this)(std::vector<PrimExpr>{std::move(source)}, std::move(axes), options)[0];
}

PrimExpr CommReducerFn::operator()(PrimExpr a, PrimExpr b) const {
  b = matchDtype(a, std::move(b));
  Var x = tir::makeVar("x", a->dtype), y = tir::makeVar("y", a->dtype);
  std::vector<PrimExpr> r = combine_({x}, {y});
  if (r.size() != 1)
    throwDiagnostic("te_reduce", "reducer " + name_ + " is tuple-valued; fold needs one value");
  tir::VarMap map{{x.get(), a}, {y.get(), b}};
  return tir::substitute(r[0], map);
}

CommReducerFn commReducer(CommReducerFn::FCombine combine, CommReducerFn::FIdentity identity,
                          std::string name) {
  return CommReducerFn(std::move(combine), std::move(identity), std::move(name));
}

PrimExpr ifThenElse(PrimExpr cond, PrimExpr t, PrimExpr f) {
  f = matchDtype(t, std::move(f));
  return tir::ifThenElse(std::move(cond), std::move(t), std::move(f));
}
PrimExpr select(PrimExpr cond, PrimExpr t, PrimExpr f) {
  f = matchDtype(t, std::move(f));
  return tir::select(std::move(cond), std::move(t), std::move(f));
}

}  // namespace tessera::te
