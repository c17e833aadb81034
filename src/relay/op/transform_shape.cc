// Shape transforms: reshape (with the special values of spec §3.4), reshape_like, transpose,
// broadcast_to, expand_dims, squeeze and layout_transform. The reshape-like ops only change the
// shape, so their kernels copy the buffer; the others move elements with plain index arithmetic.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>

#include "ir/layout.h"
#include "relay/op/op_common.h"
#include "relay/op/op_families.h"
#include "relay/op/shape_func_ops.h"
#include "relay/op/tensor.h"
#include "support/check.h"
#include "support/element_type.h"

namespace tessera::relay {
namespace {

// Copies one element bit for bit; source and destination share the dtype.
void copyElement(const NDArray& from, int64_t i, const NDArray& to, int64_t j) {
  const int64_t size = from.dtype().bytes();
  std::memcpy(static_cast<char*>(to.data()) + j * size,
              static_cast<const char*>(from.data()) + i * size, static_cast<size_t>(size));
}

// The input offsets of the n elements of the output row at `coords` (its last coordinate is 0).
using RowOffsets = std::function<void(const std::vector<int64_t>&, int64_t*, int64_t)>;

template <typename T>
void gatherRowsTyped(const T* in, T* out, const std::vector<int64_t>& shape,
                     const RowOffsets& rowOffsets) {
  const int64_t rowLength = shape.empty() ? 1 : shape.back();
  if (rowLength == 0) return;
  int64_t rows = 1;
  for (size_t k = 0; k + 1 < shape.size(); ++k) rows *= shape[k];
  std::vector<int64_t> coords(shape.size(), 0);
  std::vector<int64_t> offsets(static_cast<size_t>(rowLength));
  for (int64_t r = 0; r < rows; ++r) {
    rowOffsets(coords, offsets.data(), rowLength);
    for (int64_t i = 0; i < rowLength; ++i) out[r * rowLength + i] = in[offsets[i]];
    for (size_t k = shape.empty() ? 0 : shape.size() - 1; k-- > 0;) {  // on to the next row
      if (++coords[k] < shape[k]) break;
      coords[k] = 0;
    }
  }
}

// out[o] = x[offset(o)], the offsets computed a row at a time rather than unravelled per element:
// constant folding moves every weight of a model through transpose and layout_transform.
void gatherRows(const NDArray& x, NDArray& out, const RowOffsets& rowOffsets) {
  withElementType(x.dtype().bytes(), [&](auto element) {
    using T = decltype(element);
    gatherRowsTyped(x.as<T>(), out.as<T>(), out.shape(), rowOffsets);
  });
}

// Kernel of the ops that keep the row-major element order and only relabel the shape.
Value copyKernel(const std::vector<Value>& args, const AttrsNode*, const Type& outType) {
  const NDArray& x = tensorAt(args, 0);
  NDArray out = allocTensor(outType);
  std::memcpy(out.data(), x.data(), x.nbytes());
  return out;
}

// Product of two dims; symbolic or unknown factors make it unknown.
Dim mulDims(const Dim& a, const Dim& b) {
  if (a.isConst() && b.isConst()) return Dim(a.value() * b.value());
  return Dim::any();
}

// --- reshape -------------------------------------------------------------------------------------

// InferNewShape of spec §3.4. Emitted dims that copy input dims (0, -2, -3, -4) are excluded from
// the -1 inference on both sides, as in TVM; the placeholder is resolved by output position.
Shape inferNewShape(const Shape& in, const std::vector<int64_t>& newshape, bool allowzero,
                    const TypeReporter& r) {
  const std::string where =
      "newshape " + listToString(newshape) + " for data of shape " + shapeToString(in);
  auto malformed = [&](const std::string& why) { r.fail("reshape_c2", where + ": " + why); };
  Shape out;
  std::vector<bool> copied;  // per output dim: derived from input dims
  std::vector<bool> inUsed(in.size(), false);
  std::optional<size_t> inferAt;
  size_t s = 0;
  auto emit = [&](Dim d, bool isCopy) {
    out.push_back(std::move(d));
    copied.push_back(isCopy);
  };
  for (size_t i = 0; i < newshape.size(); ++i) {
    const int64_t v = newshape[i];
    if (v > 0 || (v == 0 && allowzero)) {
      emit(Dim(v), false);
      ++s;
    } else if (v == 0) {
      if (s >= in.size()) malformed("0 at position " + std::to_string(i) + " has no input axis");
      inUsed[s] = true;
      emit(in[s++], true);
    } else if (v == -1) {
      if (inferAt) malformed("more than one -1");
      inferAt = out.size();
      emit(Dim(1), false);
      ++s;
    } else if (v == -2) {
      for (; s < in.size(); ++s) {
        inUsed[s] = true;
        emit(in[s], true);
      }
    } else if (v == -3) {
      if (s + 1 >= in.size())
        malformed("-3 at position " + std::to_string(i) + " needs two input axes");
      inUsed[s] = inUsed[s + 1] = true;
      emit(mulDims(in[s], in[s + 1]), true);
      s += 2;
    } else if (v == -4) {
      if (i + 2 >= newshape.size()) malformed("-4 must be followed by two values");
      if (s >= in.size()) malformed("-4 at position " + std::to_string(i) + " has no input axis");
      const Dim d0 = in[s];
      inUsed[s++] = true;
      const int64_t a = newshape[++i];
      const int64_t b = newshape[++i];
      if ((a < 1 && a != -1) || (b < 1 && b != -1) || (a == -1 && b == -1))
        malformed("-4 needs two positive factors, at most one of them -1");
      if (!d0.isConst()) {
        emit(a == -1 ? Dim::any() : Dim(a), true);
        emit(b == -1 ? Dim::any() : Dim(b), true);
        continue;
      }
      const int64_t known = a == -1 ? b : a;
      const int64_t fa = a == -1 ? d0.value() / known : a;
      const int64_t fb = b == -1 ? d0.value() / known : b;
      if (fa * fb != d0.value()) {
        r.fail("reshape_c3", where + ": -4 cannot split an axis of extent " + d0.str() + " into (" +
                                 std::to_string(a) + ", " + std::to_string(b) + ")");
      }
      emit(Dim(fa), true);
      emit(Dim(fb), true);
    } else {
      malformed("unsupported special value " + std::to_string(v));
    }
  }
  if (inferAt) {
    // -1 = (input dims not copied) / (emitted dims not copied); any unknown factor gives `?`.
    Dim numer(1), denom(1);
    for (size_t k = 0; k < in.size(); ++k)
      if (!inUsed[k]) numer = mulDims(numer, in[k]);
    for (size_t k = 0; k < out.size(); ++k)
      if (!copied[k] && k != *inferAt) denom = mulDims(denom, out[k]);
    if (!numer.isConst() || !denom.isConst()) {
      out[*inferAt] = Dim::any();
    } else if (denom.value() == 0 || numer.value() % denom.value() != 0) {
      r.fail("reshape_c1", where + ": cannot infer -1 (" + std::to_string(numer.value()) +
                               " elements do not divide into " + std::to_string(denom.value()) +
                               ")");
    } else {
      out[*inferAt] = Dim(numer.value() / denom.value());
    }
  }
  const auto inStatic = staticShape(in);
  const auto outStatic = staticShape(out);
  if (inStatic && outStatic && shapeNumel(*inStatic) != shapeNumel(*outStatic)) {
    r.fail("reshape_c1", "cannot reshape data of shape " + shapeToString(in) + " (" +
                             std::to_string(shapeNumel(*inStatic)) + " elements) into " +
                             shapeToString(out) + " (" + std::to_string(shapeNumel(*outStatic)) +
                             " elements) from newshape " + listToString(newshape));
  }
  return out;
}

std::optional<Type> reshapeRel(const TypeReporter& r) {
  const TensorTypeNode* t = r.tensorArg(0);
  if (!t) return std::nullopt;
  const auto& a = r.attrs<ReshapeAttrs>();
  return tensorType(inferNewShape(t->shape, a.newshape, a.allowzero, r), t->dtype);
}

// Normalises a [begin, end) axis range of a rank-`rank` shape; reports reshape_like_c1.
std::pair<int64_t, int64_t> axisRange(int64_t begin, std::optional<int64_t> end, int64_t rank,
                                      const char* side, const Shape& shape, const TypeReporter& r) {
  int64_t b = begin < 0 ? begin + rank : begin;
  int64_t e = end ? (*end < 0 ? *end + rank : *end) : rank;
  if (b < 0 || b > rank || e < b || e > rank) {
    r.fail("reshape_like_c1", std::string(side) + " range [" + std::to_string(begin) + ", " +
                                  (end ? std::to_string(*end) : "None") +
                                  ") is invalid for shape " + shapeToString(shape));
  }
  return {b, e};
}

std::optional<Type> reshapeLikeRel(const TypeReporter& r) {
  const TensorTypeNode* data = r.tensorArg(0);
  const TensorTypeNode* like = r.tensorArg(1);
  if (!data || !like) return std::nullopt;
  const auto& a = r.attrs<ReshapeLikeAttrs>();
  const auto [lb, le] = axisRange(a.lhsBegin, a.lhsEnd, data->ndim(), "lhs", data->shape, r);
  const auto [rb, re] = axisRange(a.rhsBegin, a.rhsEnd, like->ndim(), "rhs", like->shape, r);
  Shape out(data->shape.begin(), data->shape.begin() + lb);
  out.insert(out.end(), like->shape.begin() + rb, like->shape.begin() + re);
  out.insert(out.end(), data->shape.begin() + le, data->shape.end());
  const auto inStatic = staticShape(data->shape);
  const auto outStatic = staticShape(out);
  if (inStatic && outStatic && shapeNumel(*inStatic) != shapeNumel(*outStatic)) {
    r.fail("reshape_like_c2", "cannot reshape data of shape " + shapeToString(data->shape) +
                                  " into " + shapeToString(out) + " taken from shape_like " +
                                  shapeToString(like->shape));
  }
  return tensorType(std::move(out), data->dtype);
}

// --- transpose -----------------------------------------------------------------------------------

// The permutation of a transpose call: attrs axes normalised, or the reversed axes.
std::vector<int64_t> permutation(const TransposeAttrs& a, const Shape& shape,
                                 const TypeReporter* r) {
  const int64_t rank = static_cast<int64_t>(shape.size());
  std::vector<int64_t> perm;
  if (!a.axes) {
    for (int64_t k = rank; k-- > 0;) perm.push_back(k);
    return perm;
  }
  // The kernel passes no reporter: it only runs on calls whose relation already succeeded.
  if (static_cast<int64_t>(a.axes->size()) != rank) {
    TS_CHECK(r) << "transpose kernel on an unchecked call";
    r->fail("transpose_c1", "axes " + listToString(*a.axes) + " must list all " +
                                std::to_string(rank) + " axes of data of shape " +
                                shapeToString(shape));
  }
  std::vector<bool> seen(rank, false);
  for (int64_t axis : *a.axes) {
    const int64_t k = axis < 0 ? axis + rank : axis;
    if (k < 0 || k >= rank || seen[k]) {
      TS_CHECK(r) << "transpose kernel on an unchecked call";
      r->fail("transpose_c2", "axes " + listToString(*a.axes) +
                                  " is not a permutation of the axes of data of shape " +
                                  shapeToString(shape));
    }
    seen[k] = true;
    perm.push_back(k);
  }
  return perm;
}

// out[i] = in[perm[i]]: the output's axis i is the input's axis perm[i].
std::optional<Type> transposeRel(const TypeReporter& r) {
  const TensorTypeNode* t = r.tensorArg(0);
  if (!t) return std::nullopt;
  Shape out;
  for (int64_t k : permutation(r.attrs<TransposeAttrs>(), t->shape, &r)) out.push_back(t->shape[k]);
  return tensorType(std::move(out), t->dtype);
}

// Walks the output in row-major order and gathers: every output element is written once.
// (batch, rows, cols) -> (batch, cols, rows) in 32 x 32 tiles, so that both sides stay in cache:
// a MatMul weight transposed at import reads a whole cache line per element otherwise.
template <typename T>
void transposeLastTwo(const T* in, T* out, int64_t batch, int64_t rows, int64_t cols) {
  constexpr int64_t kTile = 32;
  for (int64_t b = 0; b < batch; ++b, in += rows * cols, out += rows * cols)
    for (int64_t r0 = 0; r0 < rows; r0 += kTile)
      for (int64_t c0 = 0; c0 < cols; c0 += kTile)
        for (int64_t c = c0; c < std::min(c0 + kTile, cols); ++c)
          for (int64_t r = r0; r < std::min(r0 + kTile, rows); ++r)
            out[c * rows + r] = in[r * cols + c];
}

bool transposeLastTwo(const NDArray& x, NDArray& out, const std::vector<int64_t>& perm) {
  const size_t n = perm.size();
  if (n < 2 || perm[n - 1] != static_cast<int64_t>(n - 2) ||
      perm[n - 2] != static_cast<int64_t>(n - 1))
    return false;
  for (size_t k = 0; k + 2 < n; ++k)
    if (perm[k] != static_cast<int64_t>(k)) return false;
  const int64_t rows = x.shape()[n - 2], cols = x.shape()[n - 1];
  const int64_t batch = rows * cols == 0 ? 0 : x.numel() / (rows * cols);
  withElementType(x.dtype().bytes(), [&](auto element) {
    using T = decltype(element);
    transposeLastTwo(x.as<T>(), out.as<T>(), batch, rows, cols);
  });
  return true;
}

Value transposeKernel(const std::vector<Value>& args, const AttrsNode* attrs, const Type& outType) {
  const NDArray& x = tensorAt(args, 0);
  NDArray out = allocTensor(outType);
  const std::vector<int64_t> perm =
      permutation(attrsOrDefault<TransposeAttrs>(attrs), makeShape(x.shape()), nullptr);
  if (transposeLastTwo(x, out, perm)) return out;
  const std::vector<int64_t> inStrides = rowMajorStrides(x.shape());
  // Output axis k walks input axis perm[k]: the input offset is linear in the output coordinates.
  std::vector<int64_t> step(perm.size());
  for (size_t k = 0; k < perm.size(); ++k) step[k] = inStrides[perm[k]];
  gatherRows(x, out, [&](const std::vector<int64_t>& coords, int64_t* offsets, int64_t n) {
    int64_t base = 0;
    for (size_t k = 0; k + 1 < coords.size(); ++k) base += coords[k] * step[k];
    const int64_t inner = step.empty() ? 0 : step.back();
    for (int64_t i = 0; i < n; ++i) offsets[i] = base + i * inner;
  });
  return out;
}

// --- broadcast_to, expand_dims, squeeze ----------------------------------------------------------

// TVM assigns `shape` without checking it; we check numpy compatibility so the kernel's
// BroadcastIndexer never sees an impossible shape.
std::optional<Type> broadcastToRel(const TypeReporter& r) {
  const TensorTypeNode* t = r.tensorArg(0);
  if (!t) return std::nullopt;
  const std::vector<int64_t>& target = r.attrs<InitOpAttrs>().shape;
  const size_t rank = target.size();
  bool ok = t->shape.size() <= rank;
  for (size_t k = 0; ok && k < t->shape.size(); ++k) {
    const Dim& d = t->shape[t->shape.size() - 1 - k];
    const int64_t want = target[rank - 1 - k];
    if (!d.isConst() && !d.isAny()) {
      // A symbolic extent (a shape function running): assumed equal to the target's, checked
      // when the program runs (an extent of 1 there is refused, not broadcast, as for the
      // binary ops); the kernel reads it at the target's indices.
      r.assumeEqual(d, Dim(want),
                    "dimension " + std::to_string(t->shape.size() - 1 - k) +
                        " of the data and the target shape");
      continue;
    }
    ok = want >= 0 && (d.isAny() || (d.isConst() && (d.value() == 1 || d.value() == want)));
  }
  for (int64_t want : target) ok = ok && want >= 0;
  if (!ok) {
    r.fail("broadcast_to_c1", "data of shape " + shapeToString(t->shape) +
                                  " cannot be broadcast to shape " + listToString(target));
  }
  return tensorType(target, t->dtype);
}

Value broadcastToKernel(const std::vector<Value>& args, const AttrsNode*, const Type& outType) {
  const NDArray& x = tensorAt(args, 0);
  NDArray out = allocTensor(outType);
  const BroadcastIndexer index(x.shape(), out.shape());
  for (int64_t o = 0; o < out.numel(); ++o) copyElement(x, index.map(o), out, o);
  return out;
}

// A negative axis counts from rank + 1 (TVM): -1 appends after the last axis.
std::optional<Type> expandDimsRel(const TypeReporter& r) {
  const TensorTypeNode* t = r.tensorArg(0);
  if (!t) return std::nullopt;
  const auto& a = r.attrs<ExpandDimsAttrs>();
  const int rank = t->ndim();
  if (a.axis < -rank - 1 || a.axis > rank) {
    r.fail("expand_dims_c1", "axis " + std::to_string(a.axis) + " is outside [" +
                                 std::to_string(-rank - 1) + ", " + std::to_string(rank) +
                                 "] for data of shape " + shapeToString(t->shape));
  }
  if (a.numNewaxis < 0) {
    r.fail("expand_dims_c2", "num_newaxis " + std::to_string(a.numNewaxis) +
                                 " is negative for data of shape " + shapeToString(t->shape));
  }
  const int axis = a.axis < 0 ? a.axis + rank + 1 : a.axis;
  Shape out(t->shape.begin(), t->shape.begin() + axis);
  out.insert(out.end(), static_cast<size_t>(a.numNewaxis), Dim(1));
  out.insert(out.end(), t->shape.begin() + axis, t->shape.end());
  return tensorType(std::move(out), t->dtype);
}

std::optional<Type> squeezeRel(const TypeReporter& r) {
  const TensorTypeNode* t = r.tensorArg(0);
  if (!t) return std::nullopt;
  const auto& a = r.attrs<SqueezeAttrs>();
  const int rank = t->ndim();
  std::vector<bool> drop(rank, false);
  if (!a.axis) {
    // Only axes known to be 1 are dropped; `?` axes stay.
    for (int k = 0; k < rank; ++k) drop[k] = t->shape[k].isConst() && t->shape[k].value() == 1;
  } else {
    for (int64_t axis : *a.axis) {
      const int k = normalizeAxis(axis, rank, r, "squeeze_c1");
      const Dim& d = t->shape[k];
      if (d.isConst() && d.value() != 1) {
        r.fail("squeeze_c2", "axis " + std::to_string(axis) + " of data of shape " +
                                 shapeToString(t->shape) + " has extent " + d.str() + ", not 1");
      }
      drop[k] = true;
    }
  }
  Shape out;
  for (int k = 0; k < rank; ++k)
    if (!drop[k]) out.push_back(t->shape[k]);
  return tensorType(std::move(out), t->dtype);
}

// --- layout_transform ----------------------------------------------------------------------------

Layout parseLayoutOrFail(const std::string& text, const char* field, const TypeReporter& r) {
  std::string error;
  std::optional<Layout> layout = Layout::parse(text, &error);
  if (!layout) r.fail("layout_transform_c1", std::string(field) + " \"" + text + "\": " + error);
  return *layout;
}

// convertShape does not look at sub-axis extents, so the relation checks them against the source
// layout's factors (layout_transform_c2) before converting (layout_transform_c3).
std::optional<Type> layoutTransformRel(const TypeReporter& r) {
  const TensorTypeNode* t = r.tensorArg(0);
  if (!t) return std::nullopt;
  const auto& a = r.attrs<LayoutTransformAttrs>();
  const Layout src = parseLayoutOrFail(a.srcLayout, "src_layout", r);
  const Layout dst = parseLayoutOrFail(a.dstLayout, "dst_layout", r);
  bool fits = t->ndim() == src.ndim();
  for (int k = 0; fits && k < src.ndim(); ++k) {
    const LayoutAxis& axis = src.axes()[k];
    const Dim& d = t->shape[k];
    fits = axis.isPrimal() || !d.isConst() || d.value() == axis.factor;
  }
  if (!fits) {
    r.fail("layout_transform_c2",
           "data of shape " + shapeToString(t->shape) + " does not match src_layout " + src.name());
  }
  std::string error;
  std::optional<Shape> out = convertShape(t->shape, src, dst, &error);
  if (!out) {
    r.fail("layout_transform_c3", "data of shape " + shapeToString(t->shape) + " in " + src.name() +
                                      " cannot be converted to " + dst.name() + ": " + error);
  }
  return tensorType(std::move(*out), t->dtype);
}

// Each output element's primal coordinates (outer * factor + inner per letter) are re-split by the
// source layout's factors to find the input element. Along an output row only the innermost
// axis's letter changes, so only the source axes of that letter are recomputed per element.
Value layoutTransformKernel(const std::vector<Value>& args, const AttrsNode* attrs,
                            const Type& outType) {
  const NDArray& x = tensorAt(args, 0);
  const auto* a = attrsAs<LayoutTransformAttrs>(attrs);
  TS_CHECK(a) << "layout_transform without LayoutTransformAttrs";
  const Layout src = *Layout::parse(a->srcLayout);
  const Layout dst = *Layout::parse(a->dstLayout);
  NDArray out = allocTensor(outType);
  struct Part {
    int letter;      ///< 0..25
    bool primal;     ///< the outer part (p / factor) or a sub-axis (p % factor)
    int64_t factor;  ///< 1 for a primal axis that is not split
    int64_t stride;  ///< of the source axis, in elements (0 for output axes)
  };
  auto partsOf = [](const Layout& layout, const std::vector<int64_t>& strides) {
    std::vector<Part> parts;
    for (size_t k = 0; k < layout.axes().size(); ++k) {
      const LayoutAxis& axis = layout.axes()[k];
      const int64_t sub = axis.isPrimal() ? layout.subFactor(axis.letter) : axis.factor;
      parts.push_back({axis.isPrimal() ? axis.letter - 'A' : axis.letter - 'a', axis.isPrimal(),
                       sub > 0 ? sub : 1, strides.empty() ? 0 : strides[k]});
    }
    return parts;
  };
  const std::vector<Part> from = partsOf(src, rowMajorStrides(x.shape()));
  const std::vector<Part> to = partsOf(dst, {});
  auto sourceTerm = [](const Part& p, int64_t primal) {
    return (p.primal ? primal / p.factor : primal % p.factor) * p.stride;
  };
  gatherRows(x, out, [&](const std::vector<int64_t>& coords, int64_t* offsets, int64_t n) {
    if (to.empty()) {
      offsets[0] = 0;
      return;
    }
    int64_t primal[26] = {};
    for (size_t k = 0; k < coords.size(); ++k)
      primal[to[k].letter] += coords[k] * (to[k].primal ? to[k].factor : 1);
    const Part& inner = to.back();
    const int64_t innerStep = inner.primal ? inner.factor : 1;
    int64_t base = 0;
    for (const Part& p : from)
      if (p.letter != inner.letter) base += sourceTerm(p, primal[p.letter]);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t value = primal[inner.letter] + i * innerStep;
      int64_t offset = base;
      for (const Part& p : from)
        if (p.letter == inner.letter) offset += sourceTerm(p, value);
      offsets[i] = offset;
    }
  });
  return out;
}

}  // namespace

// reshape-like ops (TReshapeOp) keep the element order, which FuseOps relies on for
// relay.reshape_only; transpose and layout_transform move elements and are not reshape-only.
void registerShapeOps(OpRegistry& r) {
  r.add(OpDef{.name = "reshape",
              .args = {"data"},
              .summary = "reshape with the special values 0, -1, -2, -3, -4",
              .attrs = attrsType<ReshapeAttrs>(),
              .typeRelation = reshapeRel,
              .shapeFunc = reshapeShapeFunc,
              .pattern = OpPattern::kInjective,
              .kernel = copyKernel,
              .reshapeOnly = true});
  r.add(OpDef{.name = "reshape_like",
              .args = {"data", "shape_like"},
              .summary = "reshape data to (part of) the shape of shape_like",
              .attrs = attrsType<ReshapeLikeAttrs>(),
              .typeRelation = reshapeLikeRel,
              .pattern = OpPattern::kInjective,
              .kernel = copyKernel,
              .reshapeOnly = true});
  r.add(OpDef{.name = "transpose",
              .args = {"data"},
              .summary = "permute axes (None: reverse them)",
              .attrs = attrsType<TransposeAttrs>(),
              .typeRelation = transposeRel,
              .pattern = OpPattern::kInjective,
              .kernel = transposeKernel});
  r.add(OpDef{.name = "broadcast_to",
              .args = {"data"},
              .summary = "broadcast data to a shape (numpy rules)",
              .attrs = attrsType<InitOpAttrs>(),
              .typeRelation = broadcastToRel,
              .pattern = OpPattern::kBroadcast,
              .kernel = broadcastToKernel});
  r.add(OpDef{.name = "expand_dims",
              .args = {"data"},
              .summary = "insert num_newaxis unit axes at axis",
              .attrs = attrsType<ExpandDimsAttrs>(),
              .typeRelation = expandDimsRel,
              .pattern = OpPattern::kBroadcast,
              .kernel = copyKernel,
              .reshapeOnly = true});
  r.add(OpDef{.name = "squeeze",
              .args = {"data"},
              .summary = "drop unit axes",
              .attrs = attrsType<SqueezeAttrs>(),
              .typeRelation = squeezeRel,
              .pattern = OpPattern::kInjective,
              .kernel = copyKernel,
              .reshapeOnly = true});
  r.add(OpDef{.name = "layout_transform",
              .args = {"data"},
              .summary = "re-block data from src_layout to dst_layout",
              .attrs = attrsType<LayoutTransformAttrs>(),
              .typeRelation = layoutTransformRel,
              .pattern = OpPattern::kInjective,
              .kernel = layoutTransformKernel});
}

// --- builders ------------------------------------------------------------------------------------

Expr reshape(Expr data, std::vector<int64_t> newshape, bool allowzero) {
  return makeCall(opByName("reshape"), {std::move(data)},
                  makeAttrs(ReshapeAttrs{.newshape = std::move(newshape), .allowzero = allowzero}));
}
Expr reshapeLike(Expr data, Expr shapeLike, ReshapeLikeAttrs attrs) {
  return makeCall(opByName("reshape_like"), {std::move(data), std::move(shapeLike)},
                  makeAttrs(std::move(attrs)));
}
Expr transpose(Expr data, std::optional<std::vector<int64_t>> axes) {
  return makeCall(opByName("transpose"), {std::move(data)},
                  makeAttrs(TransposeAttrs{.axes = std::move(axes)}));
}
Expr broadcastTo(Expr data, std::vector<int64_t> shape) {
  return makeCall(opByName("broadcast_to"), {std::move(data)},
                  makeAttrs(InitOpAttrs{.shape = std::move(shape), .dtype = {}}));
}
Expr expandDims(Expr data, int axis, int numNewaxis) {
  return makeCall(opByName("expand_dims"), {std::move(data)},
                  makeAttrs(ExpandDimsAttrs{.axis = axis, .numNewaxis = numNewaxis}));
}
Expr squeeze(Expr data, std::optional<std::vector<int64_t>> axis) {
  return makeCall(opByName("squeeze"), {std::move(data)},
                  makeAttrs(SqueezeAttrs{.axis = std::move(axis)}));
}
Expr layoutTransform(Expr data, std::string srcLayout, std::string dstLayout) {
  return makeCall(opByName("layout_transform"), {std::move(data)},
                  makeAttrs(LayoutTransformAttrs{.srcLayout = std::move(srcLayout),
                                                 .dstLayout = std::move(dstLayout)}));
}

}  // namespace tessera::relay
