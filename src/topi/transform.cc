// Injective computes. Choices between inputs use the lazy tir.if_then_else so an evaluator never
// reads a tensor out of bounds on the branch not taken.
#include "topi/transform.h"

#include <algorithm>

#include "ir/layout.h"
#include "support/diagnostic.h"

namespace tessera::topi {
namespace {

std::vector<PrimExpr> asExprs(const std::vector<Var>& v) {
  return {v.begin(), v.end()};
}

te::ComputeOptions injective(const std::string& name, size_t rank) {
  return te::ComputeOptions{.name = name, .tag = "injective", .indexNames = axisNames(rank)};
}

// reshape over symbolic extents: the same unravelling with the extents as expressions.
Tensor reshapeSymbolic(const Tensor& x, const std::vector<PrimExpr>& newShape,
                       const std::string& name) {
  return te::compute(
      newShape,
      [&](const std::vector<Var>& i) {
        PrimExpr flat = tir::intImm(0);
        for (size_t k = 0; k < newShape.size(); ++k) flat = flat * newShape[k] + i[k];
        std::vector<PrimExpr> idx(x.shape().size());
        for (size_t k = idx.size(); k-- > 0;) {
          idx[k] = k == 0 ? flat : tir::floormod(flat, x.shape()[k]);
          flat = tir::floordiv(flat, x.shape()[k]);
        }
        return x(idx);
      },
      injective(name, newShape.size()));
}

bool allConst(const std::vector<PrimExpr>& dims) {
  return std::all_of(dims.begin(), dims.end(),
                     [](const PrimExpr& d) { return tir::asConstInt(d) != nullptr; });
}

}  // namespace

Tensor reshape(const Tensor& x, const std::vector<PrimExpr>& newShape, const std::string& name) {
  if (!allConst(x.shape()) || !allConst(newShape)) return reshapeSymbolic(x, newShape, name);
  const std::vector<int64_t> in = constShape(x, name);
  std::vector<int64_t> out;
  for (const PrimExpr& d : newShape) out.push_back(constDim(d, name));
  return te::compute(
      newShape,
      [&](const std::vector<Var>& i) {
        // The row-major flat position, unravelled over the input shape.
        PrimExpr flat = tir::intImm(0);
        for (size_t k = 0; k < out.size(); ++k) flat = addIdx(mulIdx(flat, out[k]), i[k]);
        std::vector<PrimExpr> idx(in.size());
        int64_t stride = 1;
        for (size_t k = in.size(); k-- > 0;) {
          PrimExpr q = stride == 1 ? flat : tir::floordiv(flat, tir::intImm(stride));
          idx[k] = k == 0 ? q : tir::floormod(q, tir::intImm(in[k]));
          stride *= in[k];
        }
        return x(idx);
      },
      injective(name, newShape.size()));
}

Tensor transpose(const Tensor& x, std::vector<int64_t> axes) {
  const int rank = x.ndim();
  if (axes.empty())
    for (int k = rank - 1; k >= 0; --k) axes.push_back(k);
  if (static_cast<int>(axes.size()) != rank)
    throwDiagnostic("topi_axis", "transpose: " + std::to_string(axes.size()) +
                                     " axes for a tensor of rank " + std::to_string(rank));
  std::vector<PrimExpr> shape;
  for (int64_t& a : axes) {
    a = normalizeAxis(a, rank, "transpose");
    shape.push_back(x.shape()[static_cast<size_t>(a)]);
  }
  return te::compute(
      shape,
      [&](const std::vector<Var>& i) {
        std::vector<PrimExpr> idx(static_cast<size_t>(rank));
        for (size_t k = 0; k < axes.size(); ++k) idx[static_cast<size_t>(axes[k])] = i[k];
        return x(idx);
      },
      injective("T_transpose", shape.size()));
}

Tensor broadcastTo(const Tensor& x, const std::vector<PrimExpr>& shape) {
  return te::compute(
      shape, [&](const std::vector<Var>& i) { return x(broadcastIndex(x, shape, i)); },
      te::ComputeOptions{
          .name = "T_broadcast_to", .tag = "broadcast", .indexNames = axisNames(shape.size())});
}

Tensor concatenate(const std::vector<Tensor>& xs, int64_t axisAttr) {
  if (xs.empty()) throwDiagnostic("topi_args", "concatenate: no tensors");
  const int axis = normalizeAxis(axisAttr, xs[0].ndim(), "concatenate");
  const auto a = static_cast<size_t>(axis);
  // Offsets along the axis: constants folded, symbolic extents summed as expressions.
  std::vector<PrimExpr> offsets{tir::intImm(0)};
  for (const Tensor& t : xs) {
    const int64_t* o = tir::asConstInt(offsets.back());
    const int64_t* d = tir::asConstInt(t.shape()[a]);
    offsets.push_back(o && d ? tir::intImm(*o + *d) : offsets.back() + t.shape()[a]);
  }
  std::vector<PrimExpr> shape = xs[0].shape();
  shape[a] = offsets.back();
  return te::compute(
      shape,
      [&](const std::vector<Var>& i) {
        // Built from the last input outwards: if i < off1: x0 elif i < off2: x1 ... else xn.
        auto load = [&](size_t n) {
          std::vector<PrimExpr> idx = asExprs(i);
          const int64_t* o = tir::asConstInt(offsets[n]);
          idx[a] = o ? addIdx(i[a], -*o) : PrimExpr(i[a]) - offsets[n];
          return xs[n](idx);
        };
        PrimExpr v = load(xs.size() - 1);
        for (size_t n = xs.size() - 1; n-- > 0;)
          v = tir::ifThenElse(tir::lt(i[a], offsets[n + 1]), load(n), v);
        return v;
      },
      injective("T_concat", shape.size()));
}

Tensor stack(const std::vector<Tensor>& xs, int64_t axisAttr) {
  if (xs.empty()) throwDiagnostic("topi_args", "stack: no tensors");
  const int axis = normalizeAxis(axisAttr, xs[0].ndim() + 1, "stack");
  std::vector<PrimExpr> shape = xs[0].shape();
  shape.insert(shape.begin() + axis, tir::intImm(static_cast<int64_t>(xs.size())));
  return te::compute(
      shape,
      [&](const std::vector<Var>& i) {
        std::vector<PrimExpr> idx = asExprs(i);
        idx.erase(idx.begin() + axis);
        PrimExpr v = xs.back()(idx);
        for (size_t n = xs.size() - 1; n-- > 0;)
          v = tir::ifThenElse(
              tir::eq(i[static_cast<size_t>(axis)], tir::intImm(static_cast<int64_t>(n))),
              xs[n](idx), v);
        return v;
      },
      injective("T_stack", shape.size()));
}

std::vector<Tensor> split(const Tensor& x, const std::vector<int64_t>& extents, int64_t axisAttr) {
  const int axis = normalizeAxis(axisAttr, x.ndim(), "split");
  std::vector<Tensor> out;
  int64_t begin = 0;
  for (int64_t extent : extents) {
    std::vector<PrimExpr> shape = x.shape();
    shape[static_cast<size_t>(axis)] = tir::intImm(extent);
    out.push_back(te::compute(
        shape,
        [&](const std::vector<Var>& i) {
          std::vector<PrimExpr> idx = asExprs(i);
          idx[static_cast<size_t>(axis)] = addIdx(i[static_cast<size_t>(axis)], begin);
          return x(idx);
        },
        injective("T_split", shape.size())));
    begin += extent;
  }
  return out;
}

Tensor stridedSlice(const Tensor& x, const std::vector<PrimExpr>& first,
                    const std::vector<int64_t>& step, const std::vector<PrimExpr>& outShape) {
  return te::compute(
      outShape,
      [&](const std::vector<Var>& i) {
        std::vector<PrimExpr> idx;
        for (size_t k = 0; k < i.size(); ++k)
          idx.push_back(addIdx(mulIdx(i[k], step[k]), first[k]));
        return x(idx);
      },
      injective("T_strided_slice", outShape.size()));
}

namespace {

// One gathered index resolved by the take mode over an axis of `extent` elements (a constant,
// or the size variable of a `?` extent, which the kernel reads from its buffer).
PrimExpr resolveTakeIndex(PrimExpr index, const PrimExpr& extentIn, const std::string& mode) {
  index = tir::cast(DataType::int32(), index);
  const int64_t* known = tir::asConstInt(extentIn);
  const PrimExpr extent = known ? tir::intImm(*known) : tir::cast(DataType::int32(), extentIn);
  if (mode == "wrap") return tir::floormod(index, extent);
  if (mode == "clip") {
    const PrimExpr last = known ? tir::intImm(*known - 1) : extent - tir::intImm(1);
    return tir::min(tir::max(index, tir::intImm(0)), last);
  }
  return index;
}

}  // namespace

Tensor take(const Tensor& data, const Tensor& indices, std::optional<int64_t> axisAttr,
            int64_t batchDims, const std::string& mode) {
  if (!axisAttr) {
    // Gather from the flattened data: unravel the resolved flat index over the data's shape.
    const std::vector<int64_t> dshape = constShape(data, "take");
    int64_t total = 1;
    for (int64_t d : dshape) total *= d;
    return te::compute(
        indices.shape(),
        [&](const std::vector<Var>& i) {
          PrimExpr flat = resolveTakeIndex(indices(asExprs(i)), tir::intImm(total), mode);
          std::vector<PrimExpr> idx(dshape.size());
          int64_t stride = 1;
          for (size_t k = dshape.size(); k-- > 0;) {
            PrimExpr q = stride == 1 ? flat : tir::floordiv(flat, tir::intImm(stride));
            idx[k] = k == 0 ? q : tir::floormod(q, tir::intImm(dshape[k]));
            stride *= dshape[k];
          }
          return data(idx);
        },
        injective("T_take", indices.ndim()));
  }
  const int axis = normalizeAxis(*axisAttr, data.ndim(), "take");
  const int batch = static_cast<int>(batchDims < 0 ? batchDims + indices.ndim() : batchDims);
  const int gathered = indices.ndim() - batch;
  std::vector<PrimExpr> shape(data.shape().begin(), data.shape().begin() + axis);
  shape.insert(shape.end(), indices.shape().begin() + batch, indices.shape().end());
  shape.insert(shape.end(), data.shape().begin() + axis + 1, data.shape().end());
  const PrimExpr extent = data.shape()[static_cast<size_t>(axis)];
  return te::compute(
      shape,
      [&](const std::vector<Var>& c) {
        std::vector<PrimExpr> iidx, didx;
        for (int k = 0; k < batch; ++k) iidx.push_back(c[static_cast<size_t>(k)]);
        for (int k = 0; k < gathered; ++k) iidx.push_back(c[static_cast<size_t>(axis + k)]);
        for (int k = 0; k < axis; ++k) didx.push_back(c[static_cast<size_t>(k)]);
        didx.push_back(resolveTakeIndex(indices(iidx), extent, mode));
        for (int k = axis + 1; k < data.ndim(); ++k)
          didx.push_back(c[static_cast<size_t>(k - 1 + gathered)]);
        return data(didx);
      },
      injective("T_take", shape.size()));
}

Tensor tile(const Tensor& x, const std::vector<int64_t>& repsIn) {
  const std::vector<int64_t> in = constShape(x, "tile");
  const size_t rank = std::max(in.size(), repsIn.size());
  std::vector<int64_t> reps(rank - repsIn.size(), 1), dims(rank - in.size(), 1);
  reps.insert(reps.end(), repsIn.begin(), repsIn.end());
  dims.insert(dims.end(), in.begin(), in.end());
  std::vector<int64_t> out;
  for (size_t k = 0; k < rank; ++k) out.push_back(dims[k] * reps[k]);
  return te::compute(
      shapeOf(out),
      [&](const std::vector<Var>& i) {
        // Leading output axes that the input lacks are dropped; the others wrap around.
        std::vector<PrimExpr> idx;
        for (size_t k = rank - in.size(); k < rank; ++k)
          idx.push_back(dims[k] == 1 ? PrimExpr(tir::intImm(0))
                                     : tir::floormod(i[k], tir::intImm(dims[k])));
        return x(idx);
      },
      injective("T_tile", rank));
}

Tensor repeat(const Tensor& x, int64_t repeats, int64_t axisAttr) {
  const int axis = normalizeAxis(axisAttr, x.ndim(), "repeat");
  if (repeats < 1) throwDiagnostic("topi_repeat", "repeat: repeats must be positive");
  std::vector<PrimExpr> shape = x.shape();
  shape[static_cast<size_t>(axis)] =
      tir::intImm(constDim(shape[static_cast<size_t>(axis)], "repeat") * repeats);
  return te::compute(
      shape,
      [&](const std::vector<Var>& i) {
        std::vector<PrimExpr> idx = asExprs(i);
        if (repeats > 1)
          idx[static_cast<size_t>(axis)] =
              tir::floordiv(i[static_cast<size_t>(axis)], tir::intImm(repeats));
        return x(idx);
      },
      injective("T_repeat", shape.size()));
}

Tensor layoutTransform(const Tensor& x, const std::string& srcName, const std::string& dstName,
                       const std::vector<PrimExpr>& outShape) {
  std::optional<Layout> src = Layout::parse(srcName), dst = Layout::parse(dstName);
  if (!src || !dst)
    throwDiagnostic("topi_layout", "layout_transform: cannot parse " + srcName + " or " + dstName);
  return te::compute(
      outShape,
      [&](const std::vector<Var>& o) {
        // Primal coordinate per letter = outer * factor + inner, re-split by the source layout.
        PrimExpr primal[26];
        for (size_t k = 0; k < dst->axes().size(); ++k) {
          const LayoutAxis& a = dst->axes()[k];
          const int slot = a.isPrimal() ? a.letter - 'A' : a.letter - 'a';
          const int64_t factor = a.isPrimal() ? std::max<int64_t>(dst->subFactor(a.letter), 1) : 1;
          PrimExpr term = mulIdx(o[k], factor);
          primal[slot] = primal[slot] ? addIdx(primal[slot], term) : term;
        }
        std::vector<PrimExpr> idx;
        for (const LayoutAxis& a : src->axes()) {
          if (a.isPrimal()) {
            const int64_t factor = src->subFactor(a.letter);
            PrimExpr p = primal[a.letter - 'A'];
            idx.push_back(factor > 0 ? tir::floordiv(p, tir::intImm(factor)) : p);
          } else {
            idx.push_back(tir::floormod(primal[a.letter - 'a'], tir::intImm(a.factor)));
          }
        }
        return x(idx);
      },
      injective("T_layout_trans", outShape.size()));
}

}  // namespace tessera::topi
