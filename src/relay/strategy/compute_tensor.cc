// Computes of the tensor-level ops: unary and binary elementwise ops (by name, through TOPI's
// tables), reductions, casts, shape manipulation, selection and creation.
#include <algorithm>
#include <any>
#include <climits>

#include "relay/op/quantize.h"
#include "relay/op/shape_func_ops.h"
#include "relay/op/tensor.h"
#include "relay/strategy/strategy_util.h"
#include "support/check.h"
#include "support/diagnostic.h"
#include "topi/broadcast.h"
#include "topi/elemwise.h"
#include "topi/reduction.h"
#include "topi/transform.h"

namespace tessera::relay::strategy {
namespace {

using te::Tensor;
using Tensors = std::vector<Tensor>;

// A compute of one input and one output.
void setUnary(const std::string& op,
              std::function<Tensor(const Attrs&, const Tensor&, const Type&)> f) {
  setCompute(op, [f](const Attrs& attrs, const Tensors& in, const Type& outType) {
    return Tensors{f(attrs, in.at(0), outType)};
  });
}

// The first index of a forward slice over a `?` extent n, as the shape function clamps it
// (stridedSliceShapeFunc): begin when non-negative (past n the slice is empty), else
// max(begin + n, 0).
tir::PrimExpr dynamicSliceStart(std::optional<int64_t> begin, const tir::PrimExpr& extent) {
  const tir::PrimExpr n = tir::cast(DataType::int32(), extent);
  // Beyond int32 the slice is empty or starts at 0 anyway; the clamp keeps the index int32.
  const int64_t b = std::clamp<int64_t>(begin.value_or(0), -INT32_MAX, INT32_MAX);
  if (b >= 0) return tir::intImm(b);
  return tir::max(n + tir::intImm(b), tir::intImm(0));
}

// The length of a forward slice from `start` over a `?` extent n, as the shape function has it:
// the end clamped to [0, n] (negative: from the back; none or past int32: n), then
// ceil((end - start) / stride), at least 0.
tir::PrimExpr dynamicSliceLength(const tir::PrimExpr& start, std::optional<int64_t> end,
                                 int64_t stride, const tir::PrimExpr& extent) {
  const tir::PrimExpr n = tir::cast(DataType::int32(), extent);
  tir::PrimExpr last = n;
  if (end && *end < 0)
    last = tir::max(n + tir::intImm(std::max<int64_t>(*end, -INT32_MAX)), tir::intImm(0));
  else if (end && *end < INT32_MAX)
    last = tir::min(tir::intImm(*end), n);
  const tir::PrimExpr length = tir::max(last - start, tir::intImm(0));
  const tir::PrimExpr count =
      stride == 1 ? length : tir::floordiv(length + tir::intImm(stride - 1), tir::intImm(stride));
  return tir::cast(extent->dtype, count);
}

Tensor stridedSliceCompute(const Attrs& attrs, const Tensor& x, const Type& outType) {
  const auto& a = attrsOf<StridedSliceAttrs>(attrs);
  const int rank = x.ndim();
  std::vector<tir::PrimExpr> first(static_cast<size_t>(rank), tir::intImm(0));
  std::vector<int64_t> step(static_cast<size_t>(rank), 1);
  const std::vector<int64_t> begin = a.begin.value_or(std::vector<int64_t>{});
  const std::vector<int64_t> end = a.end.value_or(std::vector<int64_t>{});
  const std::vector<int64_t> strides = a.strides.value_or(std::vector<int64_t>{});
  std::vector<int> axes;
  if (a.axes) {
    for (int64_t ax : *a.axes) axes.push_back(topi::normalizeAxis(ax, rank, "strided_slice"));
  } else {
    for (size_t k = 0; k < std::max(begin.size(), end.size()); ++k)
      axes.push_back(static_cast<int>(k));
  }
  // Each `?` extent of the result in terms of x's, so that a fused consumer reads a bound extent:
  // an axis not sliced keeps x's; a sliced one has the shape function's length.
  const std::vector<tir::PrimExpr> typed = staticShapeOf(outType, "strided_slice");
  std::vector<tir::PrimExpr> out = typed;
  for (size_t ax = 0; ax < out.size() && ax < static_cast<size_t>(rank); ++ax)
    if (!tir::asConstInt(out[ax])) out[ax] = x.shape()[ax];
  for (size_t j = 0; j < axes.size(); ++j) {
    const size_t ax = static_cast<size_t>(axes[j]);
    const int64_t stride = j < strides.size() ? strides[j] : 1;
    const std::optional<int64_t> b = j < begin.size() ? std::optional(begin[j]) : std::nullopt;
    const int64_t* extent = tir::asConstInt(x.shape()[ax]);
    if (!extent) {
      if (stride < 0 || a.sliceMode != "end")
        throwDiagnostic("topi_dynamic",
                        "strided_slice: a backward or size-mode slice of a `?` extent");
      first[ax] = dynamicSliceStart(b, x.shape()[ax]);
      step[ax] = stride;
      if (!tir::asConstInt(out[ax])) {
        const std::optional<int64_t> e = j < end.size() ? std::optional(end[j]) : std::nullopt;
        out[ax] = dynamicSliceLength(first[ax], e, stride, x.shape()[ax]);
      }
      continue;
    }
    const std::optional<int64_t> e = j < end.size() ? std::optional(end[j]) : std::nullopt;
    const ResolvedSlice r = resolveSliceAxis(b, e, stride, *extent, a.sliceMode == "size");
    first[ax] = tir::intImm(r.first);
    step[ax] = r.step;
    // The type left the axis `?` while this kernel's input extent is known (its function was
    // specialised, e.g. a `?` taken as equal to a constant upstream): the slice's own length,
    // not the input's extent copied above.
    if (!tir::asConstInt(typed[ax])) out[ax] = tir::intImm(r.length, out[ax]->dtype);
  }
  return topi::stridedSlice(x, first, step, out);
}

Tensors splitCompute(const Attrs& attrs, const Tensors& in, const Type& outType) {
  const auto& a = attrsOf<SplitAttrs>(attrs);
  const auto* tuple = outType->as<TupleTypeNode>();
  TS_CHECK(tuple) << "split's type is a tuple";
  const int axis = topi::normalizeAxis(a.axis, in.at(0).ndim(), "split");
  std::vector<int64_t> extents;
  for (const Type& field : tuple->fields)
    extents.push_back(
        topi::constDim(staticShapeOf(field, "split")[static_cast<size_t>(axis)], "split"));
  return topi::split(in.at(0), extents, axis);
}

Tensors takeCompute(const Attrs& attrs, const Tensors& in, const Type&) {
  const auto& a = attrsOf<TakeAttrs>(attrs);
  return {topi::take(in.at(0), in.at(1), a.axis, a.batchDims, a.mode)};
}

void registerReductions() {
  const std::pair<const char*, topi::ReduceKind> rows[] = {
      {"sum", topi::ReduceKind::kSum},   {"mean", topi::ReduceKind::kMean},
      {"max", topi::ReduceKind::kMax},   {"min", topi::ReduceKind::kMin},
      {"prod", topi::ReduceKind::kProd},
  };
  for (const auto& [name, kind] : rows) {
    const topi::ReduceKind k = kind;
    setUnary(name, [k](const Attrs& attrs, const Tensor& x, const Type&) {
      const auto& a = attrsOf<ReduceAttrs>(attrs);
      return topi::reduce(k, x, {.axis = a.axis, .keepdims = a.keepdims, .exclude = a.exclude});
    });
  }
  for (bool isMax : {true, false}) {
    setUnary(isMax ? "argmax" : "argmin",
             [isMax](const Attrs& attrs, const Tensor& x, const Type&) {
               const auto& a = attrsOf<ArgReduceAttrs>(attrs);
               return topi::reduce(isMax ? topi::ReduceKind::kArgMax : topi::ReduceKind::kArgMin, x,
                                   {.axis = a.axis,
                                    .keepdims = a.keepdims,
                                    .exclude = a.exclude,
                                    .selectLastIndex = a.selectLastIndex});
             });
  }
}

// The output shape of a reshape in terms of `x`'s extents, so that inside a fused function every
// `?` stays bound to a parameter's buffer: constants from the type; each `?` the input's extent
// when the op carries them over unchanged and in order (expand_dims, squeeze); a single `?`
// otherwise the element count over the known extents (batch_flatten). Else the type's shape, each
// `?` a fresh size variable, which only an output buffer can bind (a fused consumer of it would
// read an unbound extent).
std::vector<tir::PrimExpr> carriedShape(const Tensor& x, const Type& outType, const char* op,
                                        bool carries) {
  std::vector<tir::PrimExpr> in;
  for (const tir::PrimExpr& d : x.shape())
    if (!tir::asConstInt(d)) in.push_back(d);
  std::vector<tir::PrimExpr> out = staticShapeOf(outType, op);
  size_t unknown = 0;
  int64_t known = 1;
  for (const tir::PrimExpr& d : out) {
    const int64_t* c = tir::asConstInt(d);
    unknown += c ? 0 : 1;
    known *= c ? *c : 1;
  }
  if (carries && unknown == in.size()) {
    size_t next = 0;
    for (tir::PrimExpr& d : out)
      if (!tir::asConstInt(d)) d = in[next++];
    return out;
  }
  if (unknown == 1 && !in.empty() && known > 0) {
    int64_t constant = 1;  // the product of x's constant extents
    for (const tir::PrimExpr& d : x.shape())
      if (const int64_t* c = tir::asConstInt(d)) constant *= *c;
    tir::PrimExpr count = in[0];
    for (size_t i = 1; i < in.size(); ++i) count = tir::mul(count, in[i]);
    if (constant % known == 0) {
      if (constant != known) count = tir::mul(count, tir::intImm(constant / known, count->dtype));
    } else {
      count = tir::floordiv(tir::mul(count, tir::intImm(constant, count->dtype)),
                            tir::intImm(known, count->dtype));
    }
    for (tir::PrimExpr& d : out)
      if (!tir::asConstInt(d)) d = count;
  }
  return out;
}

// reshape's extents in terms of x's (the shape function's expressions), so that a `?` extent
// inside a fused function is computed from a parameter's buffer rather than a fresh variable
// nothing binds: a constant of the type stays a constant.
std::vector<tir::PrimExpr> reshapeExtentsOf(const Tensor& x, const ReshapeAttrs& a,
                                            const Type& outType) {
  std::vector<tir::PrimExpr> out = staticShapeOf(outType, "reshape");
  const DataType dtype = x.shape().empty() ? DataType::int32() : x.shape()[0]->dtype;
  const std::optional<std::vector<tir::PrimExpr>> computed =
      reshapeExtents(x.shape(), a.newshape, a.allowzero, dtype);
  TS_CHECK(computed && computed->size() == out.size())
      << "reshape: the newshape codes disagree with the typed rank";
  for (size_t k = 0; k < out.size(); ++k)
    if (!tir::asConstInt(out[k])) out[k] = (*computed)[k];
  return out;
}

// Ops that keep the row-major element order: the relay type already has the new shape.
void registerReshapes() {
  for (const char* op : {"reshape", "expand_dims", "squeeze", "nn.batch_flatten"}) {
    setUnary(op, [op](const Attrs& attrs, const Tensor& x, const Type& outType) {
      const std::string name = op;
      if (name == "reshape")
        return topi::reshape(x, reshapeExtentsOf(x, attrsOf<ReshapeAttrs>(attrs), outType));
      const bool carries = name == "expand_dims" || name == "squeeze";
      return topi::reshape(x, carriedShape(x, outType, op, carries));
    });
  }
  // lhs[:lhs_begin] + rhs[rhs_begin:rhs_end] + lhs[lhs_end:], from the tensors' extents so that a
  // `?` stays bound inside a fused function; the type's constants win.
  setCompute("reshape_like", [](const Attrs& attrs, const Tensors& in, const Type& outType) {
    const auto& a = attrsOf<ReshapeLikeAttrs>(attrs);
    const std::vector<tir::PrimExpr>& lhs = in.at(0).shape();
    const std::vector<tir::PrimExpr>& rhs = in.at(1).shape();
    const auto at = [](std::optional<int64_t> v, size_t rank, size_t whenAbsent) {
      if (!v) return whenAbsent;
      const int64_t r = static_cast<int64_t>(rank);
      return static_cast<size_t>(std::clamp<int64_t>(*v < 0 ? *v + r : *v, 0, r));
    };
    const size_t lb = at(a.lhsBegin, lhs.size(), 0), le = at(a.lhsEnd, lhs.size(), lhs.size());
    const size_t rb = at(a.rhsBegin, rhs.size(), 0), re = at(a.rhsEnd, rhs.size(), rhs.size());
    std::vector<tir::PrimExpr> dims(lhs.begin(), lhs.begin() + static_cast<long>(lb));
    dims.insert(dims.end(), rhs.begin() + static_cast<long>(rb),
                rhs.begin() + static_cast<long>(std::max(rb, re)));
    dims.insert(dims.end(), lhs.begin() + static_cast<long>(std::max(lb, le)), lhs.end());
    std::vector<tir::PrimExpr> out = staticShapeOf(outType, "reshape_like");
    TS_CHECK(dims.size() == out.size()) << "reshape_like: extents disagree with the typed rank";
    for (size_t k = 0; k < out.size(); ++k)
      if (!tir::asConstInt(out[k])) out[k] = dims[k];
    return Tensors{topi::reshape(in.at(0), out)};
  });
}

void registerCreation() {
  for (const auto& [op, value] : {std::pair{"zeros", 0.0}, std::pair{"ones", 1.0}}) {
    const double v = value;
    const std::string name = op;
    setCompute(op, [v, name](const Attrs&, const Tensors&, const Type& outType) {
      return Tensors{topi::fullConst(staticShapeOf(outType, name), tensorTypeOf(outType).dtype, v,
                                     "T_" + name)};
    });
    // The *_like ops take their extents from the input, so a `?` extent stays the input's
    // (bound from its buffer) inside a fused function rather than a fresh unbound variable.
    setUnary(name + "_like", [v, name](const Attrs&, const Tensor& x, const Type& outType) {
      return topi::fullConst(x.shape(), tensorTypeOf(outType).dtype, v, "T_" + name + "_like");
    });
  }
  setCompute("full", [](const Attrs&, const Tensors& in, const Type& outType) {
    return Tensors{
        topi::full(staticShapeOf(outType, "full"), tensorTypeOf(outType).dtype, in.at(0))};
  });
  setCompute("full_like", [](const Attrs&, const Tensors& in, const Type& outType) {
    return Tensors{topi::full(in.at(0).shape(), tensorTypeOf(outType).dtype, in.at(1))};
  });
}

}  // namespace

void registerTensorComputes() {
  for (const std::string& op : OpRegistry::global().names()) {
    if (topi::isUnaryOp(op))
      setUnary(op,
               [op](const Attrs&, const Tensor& x, const Type&) { return topi::unaryOp(op, x); });
    if (topi::isBinaryOp(op))
      setCompute(op, [op](const Attrs&, const Tensors& in, const Type&) {
        return Tensors{topi::binaryOp(op, in.at(0), in.at(1))};
      });
  }
  registerReductions();
  registerReshapes();
  registerCreation();
  setUnary("cast", [](const Attrs& attrs, const Tensor& x, const Type&) {
    return topi::cast(x, attrsOf<CastAttrs>(attrs).dtype);
  });
  setUnary("clip", [](const Attrs& attrs, const Tensor& x, const Type&) {
    const auto& a = attrsOf<ClipAttrs>(attrs);
    return topi::clip(x, a.aMin, a.aMax);
  });
  setUnary("fixed_point_multiply", [](const Attrs& attrs, const Tensor& x, const Type&) {
    const auto& a = attrsOf<FixedPointMultiplyAttrs>(attrs);
    return topi::fixedPointMultiply(x, a.multiplier, a.shift);
  });
  // Annotations compute nothing; the value passes through (a copy keeps one block per op).
  for (const char* op : {"annotation.stop_fusion", "annotation.cast_hint"})
    setUnary(op,
             [](const Attrs&, const Tensor& x, const Type&) { return topi::unaryOp("copy", x); });
  setUnary("transpose", [](const Attrs& attrs, const Tensor& x, const Type&) {
    return topi::transpose(x, attrsOf<TransposeAttrs>(attrs).axes.value_or(std::vector<int64_t>{}));
  });
  setUnary("broadcast_to", [](const Attrs&, const Tensor& x, const Type& outType) {
    return topi::broadcastTo(x, staticShapeOf(outType, "broadcast_to"));
  });
  setUnary("layout_transform", [](const Attrs& attrs, const Tensor& x, const Type& outType) {
    const auto& a = attrsOf<LayoutTransformAttrs>(attrs);
    return topi::layoutTransform(x, a.srcLayout, a.dstLayout,
                                 staticShapeOf(outType, "layout_transform"));
  });
  setCompute("concatenate", [](const Attrs& attrs, const Tensors& in, const Type&) {
    return Tensors{topi::concatenate(in, attrsOf<ConcatenateAttrs>(attrs).axis)};
  });
  setCompute("stack", [](const Attrs& attrs, const Tensors& in, const Type&) {
    return Tensors{topi::stack(in, attrsOf<StackAttrs>(attrs).axis)};
  });
  setCompute("split", splitCompute);
  setUnary("strided_slice", stridedSliceCompute);
  setCompute("take", takeCompute);
  setCompute("where", [](const Attrs&, const Tensors& in, const Type&) {
    return Tensors{topi::where(in.at(0), in.at(1), in.at(2))};
  });
  // round(clip(x / scale, clip_min, clip_max)) * scale, with the scalars as 0-d tensors (TVM's
  // simulated_quantize_compute); kind IDENTITY passes the value through.
  setCompute("relay.op.annotation.simulated_quantize",
             [](const Attrs& attrs, const Tensors& in, const Type&) {
               const auto& a = attrsOf<SimulatedQuantizeAttrs>(attrs);
               if (a.kind == static_cast<int>(QAnnotateKind::kIdentity))
                 return Tensors{topi::unaryOp("copy", in.at(0))};
               Tensor scaled = topi::binaryOp("divide", in.at(0), in.at(1));
               Tensor clipped =
                   topi::binaryOp("maximum", topi::binaryOp("minimum", scaled, in.at(3)), in.at(2));
               return Tensors{topi::multiply(topi::unaryOp("round", clipped), in.at(1))};
             });
}

}  // namespace tessera::relay::strategy
