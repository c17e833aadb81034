// softmax / log_softmax (max-subtract-exp-sum as separate stages, as TVM's TOPI builds them),
// layer_norm, batch_norm in inference form, bias_add and prelu.
#include "support/diagnostic.h"
#include "topi/elemwise.h"
#include "topi/nn.h"

namespace tessera::topi {
namespace {

std::vector<PrimExpr> asExprs(const std::vector<Var>& v) {
  return {v.begin(), v.end()};
}

// The shape without `axis`, and index helpers between the full and the reduced shape.
std::vector<PrimExpr> dropAxis(const std::vector<PrimExpr>& shape, int axis) {
  std::vector<PrimExpr> out = shape;
  out.erase(out.begin() + axis);
  return out;
}
std::vector<PrimExpr> withAxis(const std::vector<Var>& reduced, int axis, PrimExpr at) {
  std::vector<PrimExpr> idx = asExprs(reduced);
  idx.insert(idx.begin() + axis, std::move(at));
  return idx;
}
std::vector<PrimExpr> withoutAxis(const std::vector<Var>& full, int axis) {
  std::vector<PrimExpr> idx = asExprs(full);
  idx.erase(idx.begin() + axis);
  return idx;
}

PrimExpr expOf(const PrimExpr& x) {
  return tir::call(x->dtype, "tir.exp", {x});
}

// A reduction of x along `axis` (max or sum of f(x)).
Tensor reduceAlong(const Tensor& x, int axis, bool isMax,
                   const std::function<PrimExpr(const std::vector<PrimExpr>&)>& f,
                   const std::string& name) {
  IterVar k = te::reduceAxis(tir::Range{tir::intImm(0), x.shape()[static_cast<size_t>(axis)]}, "k");
  return te::compute(
      dropAxis(x.shape(), axis),
      [&](const std::vector<Var>& i) {
        PrimExpr v = f(withAxis(i, axis, k.var));
        return isMax ? te::max(v, {k}) : te::sum(v, {k});
      },
      te::ComputeOptions{.name = name, .tag = "comm_reduce"});
}

// The channel index of `x`'s element along `axis`.
te::ComputeOptions elemwise(const std::string& name) {
  return te::ComputeOptions{.name = name, .tag = "elemwise"};
}

}  // namespace

Tensor softmax(const Tensor& x, int64_t axisAttr) {
  const int axis = normalizeAxis(axisAttr, x.ndim(), "softmax");
  Tensor maxElem = reduceAlong(
      x, axis, true, [&](const std::vector<PrimExpr>& i) { return x(i); }, "T_softmax_maxelem");
  Tensor e = te::compute(
      x.shape(),
      [&](const std::vector<Var>& i) {
        return expOf(tir::sub(x(asExprs(i)), maxElem(withoutAxis(i, axis))));
      },
      elemwise("T_softmax_exp"));
  Tensor sum = reduceAlong(
      e, axis, false, [&](const std::vector<PrimExpr>& i) { return e(i); }, "T_softmax_expsum");
  return te::compute(
      x.shape(),
      [&](const std::vector<Var>& i) {
        return tir::truncdiv(e(asExprs(i)), sum(withoutAxis(i, axis)));
      },
      te::ComputeOptions{.name = "T_softmax_norm", .tag = "softmax_output"});
}

Tensor logSoftmax(const Tensor& x, int64_t axisAttr) {
  const int axis = normalizeAxis(axisAttr, x.ndim(), "log_softmax");
  Tensor maxElem = reduceAlong(
      x, axis, true, [&](const std::vector<PrimExpr>& i) { return x(i); }, "T_logsoftmax_maxelem");
  Tensor sum = reduceAlong(
      x, axis, false,
      [&](const std::vector<PrimExpr>& i) {
        std::vector<PrimExpr> r = i;
        r.erase(r.begin() + axis);
        return expOf(tir::sub(x(i), maxElem(r)));
      },
      "T_logsoftmax_expsum");
  return te::compute(
      x.shape(),
      [&](const std::vector<Var>& i) {
        std::vector<PrimExpr> r = withoutAxis(i, axis);
        return tir::sub(tir::sub(x(asExprs(i)), maxElem(r)),
                        tir::call(x.dtype(), "tir.log", {sum(r)}));
      },
      te::ComputeOptions{.name = "T_logsoftmax_norm", .tag = "log_softmax_output"});
}

Tensor layerNorm(const Tensor& x, const Tensor& gamma, const Tensor& beta, int64_t axisAttr,
                 double epsilon, bool center, bool scale) {
  const int axis = normalizeAxis(axisAttr, x.ndim(), "layer_norm");
  const DataType t = x.dtype();
  const int64_t n = constDim(x.shape()[static_cast<size_t>(axis)], "layer_norm");
  Tensor sum = reduceAlong(
      x, axis, false, [&](const std::vector<PrimExpr>& i) { return x(i); }, "T_layer_norm_sum");
  Tensor mean = te::compute(
      sum.shape(),
      [&](const std::vector<Var>& i) {
        return tir::truncdiv(sum(asExprs(i)), constOf(t, static_cast<double>(n)));
      },
      elemwise("T_layer_norm_mean"));
  Tensor sq = reduceAlong(
      x, axis, false,
      [&](const std::vector<PrimExpr>& i) {
        std::vector<PrimExpr> r = i;
        r.erase(r.begin() + axis);
        PrimExpr d = tir::sub(x(i), mean(r));
        return tir::mul(d, d);
      },
      "T_layer_norm_sqsum");
  return te::compute(
      x.shape(),
      [&](const std::vector<Var>& i) {
        std::vector<PrimExpr> r = withoutAxis(i, axis);
        PrimExpr var = tir::truncdiv(sq(r), constOf(t, static_cast<double>(n)));
        PrimExpr v = tir::truncdiv(tir::sub(x(asExprs(i)), mean(r)),
                                   tir::call(t, "tir.sqrt", {tir::add(var, constOf(t, epsilon))}));
        if (scale) v = tir::mul(v, gamma(i[static_cast<size_t>(axis)]));
        if (center) v = tir::add(v, beta(i[static_cast<size_t>(axis)]));
        return v;
      },
      elemwise("T_layer_norm"));
}

Tensor batchNormInference(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                          const Tensor& mean, const Tensor& var, int64_t axisAttr, double epsilon,
                          bool center, bool scale) {
  const int axis = normalizeAxis(axisAttr, x.ndim(), "batch_norm");
  const DataType t = x.dtype();
  return te::compute(
      x.shape(),
      [&](const std::vector<Var>& i) {
        const Var& c = i[static_cast<size_t>(axis)];
        PrimExpr v =
            tir::truncdiv(tir::sub(x(asExprs(i)), mean(c)),
                          tir::call(t, "tir.sqrt", {tir::add(var(c), constOf(t, epsilon))}));
        if (scale) v = tir::mul(v, gamma(c));
        if (center) v = tir::add(v, beta(c));
        return v;
      },
      elemwise("T_batch_norm"));
}

Tensor biasAdd(const Tensor& x, const Tensor& bias, int64_t axisAttr) {
  const int axis = normalizeAxis(axisAttr, x.ndim(), "bias_add");
  return te::compute(
      x.shape(),
      [&](const std::vector<Var>& i) {
        return tir::add(x(asExprs(i)), bias(i[static_cast<size_t>(axis)]));
      },
      te::ComputeOptions{
          .name = "T_add", .tag = "broadcast", .indexNames = axisNames(x.shape().size())});
}

Tensor prelu(const Tensor& x, const Tensor& alpha, int64_t axisAttr) {
  const int axis = normalizeAxis(axisAttr, x.ndim(), "prelu");
  return te::compute(
      x.shape(),
      [&](const std::vector<Var>& i) {
        PrimExpr v = x(asExprs(i));
        return tir::select(tir::gt(v, constOf(v->dtype, 0)), v,
                           tir::mul(v, alpha(i[static_cast<size_t>(axis)])));
      },
      elemwise("T_prelu"));
}

}  // namespace tessera::topi
