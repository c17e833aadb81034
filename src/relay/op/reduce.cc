// Reductions (kCommReduce): sum, mean, max, min, prod and the index reductions argmax/argmin.
// Axes follow spec §3.5: None or [] reduces every axis, negative axes count from the end
// (reduce_c1), an axis may be listed once (reduce_c2), and exclude=True reduces the complement.
// The kernels accumulate floats in double and integers exactly with wraparound in the data's width.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "relay/op/op_common.h"
#include "relay/op/op_families.h"
#include "relay/op/tensor.h"
#include "support/diagnostic.h"

namespace tessera::relay {
namespace {

enum class ReduceKind : uint8_t { kSum, kMean, kMax, kMin, kProd };

// Which axes of a rank-`rank` tensor are reduced. `shape` names the data in error messages.
std::vector<bool> reducedMask(const std::optional<std::vector<int64_t>>& axis, bool exclude,
                              const Shape& shape, const TypeReporter* r) {
  const int rank = static_cast<int>(shape.size());
  if (!axis || axis->empty()) return std::vector<bool>(rank, true);
  std::vector<bool> listed(rank, false);
  for (int64_t a : *axis) {
    const int64_t k = a < 0 ? a + rank : a;
    if (k < 0 || k >= rank) {
      const std::string msg = "axis " + std::to_string(a) + " is out of range for data of shape " +
                              shapeToString(shape);
      if (r) r->fail("reduce_c1", msg);
      throwDiagnostic("reduce_c1", msg);
    }
    if (listed[k]) {
      const std::string msg = "axis " + std::to_string(a) + " is listed twice for data of shape " +
                              shapeToString(shape);
      if (r) r->fail("reduce_c2", msg);
      throwDiagnostic("reduce_c2", msg);
    }
    listed[k] = true;
  }
  if (exclude) listed.flip();
  return listed;
}

// Shared by both attrs structs (ReduceAttrs, ArgReduceAttrs have the same axis fields); index
// reductions return int32 as TVM's ArgReduceRel does.
template <typename A>
std::optional<Type> reduceRel(const TypeReporter& r, bool indexResult) {
  const TensorTypeNode* t = r.tensorArg(0);
  if (!t) return std::nullopt;
  const A& a = r.attrs<A>();
  const std::vector<bool> mask = reducedMask(a.axis, a.exclude, t->shape, &r);
  Shape out;
  for (size_t k = 0; k < t->shape.size(); ++k) {
    if (!mask[k])
      out.push_back(t->shape[k]);
    else if (a.keepdims)
      out.emplace_back(1);
  }
  return tensorType(std::move(out), indexResult ? DataType::int32() : t->dtype);
}

// Maps a flat input index to its output element and to its position among the reduced elements
// (row-major over the reduced axes, which is the index argmax reports).
class ReducePlan {
 public:
  ReducePlan(const std::vector<int64_t>& shape, std::vector<bool> reduced)
      : shape_(shape),
        reduced_(std::move(reduced)),
        outStride_(shape.size()),
        redStride_(shape.size()) {
    for (size_t k = shape.size(); k-- > 0;) {
      if (reduced_[k]) {
        redStride_[k] = reduceCount;
        reduceCount *= shape[k];
      } else {
        outStride_[k] = outCount;
        outCount *= shape[k];
      }
    }
  }
  void locate(int64_t index, int64_t& out, int64_t& red) const {
    out = 0;
    red = 0;
    for (size_t k = shape_.size(); k-- > 0;) {
      const int64_t coord = index % shape_[k];
      index /= shape_[k];
      (reduced_[k] ? red : out) += coord * (reduced_[k] ? redStride_[k] : outStride_[k]);
    }
  }
  int64_t outCount = 1;
  int64_t reduceCount = 1;

 private:
  std::vector<int64_t> shape_;
  std::vector<bool> reduced_;
  std::vector<int64_t> outStride_;
  std::vector<int64_t> redStride_;
};

// Typed element access so one templated loop serves floats (double), signed and unsigned ints.
template <typename T>
T readAs(const NDArray& a, int64_t i);
template <>
double readAs<double>(const NDArray& a, int64_t i) {
  return a.getFloat(i);
}
template <>
int64_t readAs<int64_t>(const NDArray& a, int64_t i) {
  return a.getInt(i);
}
template <>
uint64_t readAs<uint64_t>(const NDArray& a, int64_t i) {
  return a.getUInt(i);
}
void writeAs(const NDArray& a, int64_t i, double v) {
  a.setFloat(i, v);
}
void writeAs(const NDArray& a, int64_t i, int64_t v) {
  a.setInt(i, v);
}
void writeAs(const NDArray& a, int64_t i, uint64_t v) {
  a.setUInt(i, v);
}

// The identity of max/min: the dtype's lowest/highest value (what an empty reduction returns).
template <typename T>
T extreme(DataType t, bool highest) {
  if constexpr (std::is_same_v<T, double>) {
    return highest ? std::numeric_limits<double>::infinity()
                   : -std::numeric_limits<double>::infinity();
  } else if constexpr (std::is_same_v<T, int64_t>) {
    const int64_t top =
        t.bits() == 64 ? std::numeric_limits<int64_t>::max() : (int64_t{1} << (t.bits() - 1)) - 1;
    return highest ? top : -top - 1;
  } else {
    const uint64_t top = t.bits() == 64 ? ~uint64_t{0} : (uint64_t{1} << t.bits()) - 1;
    return highest ? top : 0;
  }
}

template <typename T>
bool isNan(T v) {
  if constexpr (std::is_same_v<T, double>) return std::isnan(v);
  return false;
}

// Integer sums and products wrap; computing them on uint64 keeps that well defined.
template <typename T>
T combine(ReduceKind kind, T acc, T v) {
  switch (kind) {
    case ReduceKind::kSum:
    case ReduceKind::kMean:
      if constexpr (std::is_same_v<T, int64_t>)
        return static_cast<int64_t>(static_cast<uint64_t>(acc) + static_cast<uint64_t>(v));
      return acc + v;
    case ReduceKind::kProd:
      if constexpr (std::is_same_v<T, int64_t>)
        return static_cast<int64_t>(static_cast<uint64_t>(acc) * static_cast<uint64_t>(v));
      return acc * v;
    case ReduceKind::kMax:
      if (isNan(acc) || isNan(v)) return isNan(acc) ? acc : v;  // NaN propagates, as in numpy
      return v > acc ? v : acc;
    case ReduceKind::kMin:
      if (isNan(acc) || isNan(v)) return isNan(acc) ? acc : v;
      return v < acc ? v : acc;
  }
  return acc;
}

// Reads an integer back at the data's width: an int8 sum of 200 is -56 before mean divides it.
template <typename T>
T wrapToWidth(T v, DataType t) {
  if (t.bits() >= 64) return v;
  const int drop = 64 - t.bits();
  if constexpr (std::is_same_v<T, int64_t>)
    return static_cast<int64_t>(static_cast<uint64_t>(v) << drop) >> drop;
  else
    return (v << drop) >> drop;
}

template <typename T>
void reduceTyped(ReduceKind kind, const NDArray& x, const NDArray& out, const ReducePlan& plan) {
  const DataType t = x.dtype();
  T init{};
  if (kind == ReduceKind::kProd) init = T{1};
  if (kind == ReduceKind::kMax) init = extreme<T>(t, false);
  if (kind == ReduceKind::kMin) init = extreme<T>(t, true);
  // One accumulator per output element, filled in input order so ties and NaNs resolve as in a
  // sequential loop.
  std::vector<T> acc(static_cast<size_t>(plan.outCount), init);
  for (int64_t i = 0; i < x.numel(); ++i) {
    int64_t o = 0, red = 0;
    plan.locate(i, o, red);
    acc[o] = combine(kind, acc[o], readAs<T>(x, i));
  }
  for (int64_t o = 0; o < plan.outCount; ++o) {
    T v = acc[o];
    if (kind == ReduceKind::kMean) {
      const int64_t n = plan.reduceCount;
      // A float mean of nothing is 0/0 = NaN; an integer one is defined as 0 rather than a trap.
      if constexpr (std::is_same_v<T, double>)
        v = v / static_cast<double>(n);
      else
        v = n == 0 ? T{0} : static_cast<T>(wrapToWidth(v, t) / static_cast<T>(n));
    }
    writeAs(out, o, v);
  }
}

// Attrs may be absent on a call evaluated outside type inference; the defaults reduce all axes.
Value reduceKernel(ReduceKind kind, const std::vector<Value>& args, const AttrsNode* attrs,
                   const Type& outType) {
  const NDArray& x = tensorAt(args, 0);
  const ReduceAttrs* a = attrsAs<ReduceAttrs>(attrs);
  const ReduceAttrs defaults;
  if (!a) a = &defaults;
  const ReducePlan plan(x.shape(), reducedMask(a->axis, a->exclude, makeShape(x.shape()), nullptr));
  NDArray out = allocTensor(outType);
  if (x.dtype().isFloat())
    reduceTyped<double>(kind, x, out, plan);
  else if (x.dtype().isInt())
    reduceTyped<int64_t>(kind, x, out, plan);
  else
    reduceTyped<uint64_t>(kind, x, out, plan);
  return out;
}

// argmax/argmin: NaN wins over every number (numpy); ties go to the first index unless
// select_last_index.
template <typename T>
void argReduceTyped(bool isMax, bool last, const NDArray& x, const NDArray& out,
                    const ReducePlan& plan) {
  std::vector<T> best(static_cast<size_t>(plan.outCount));
  std::vector<int64_t> index(static_cast<size_t>(plan.outCount), -1);
  for (int64_t i = 0; i < x.numel(); ++i) {
    int64_t o = 0, red = 0;
    plan.locate(i, o, red);
    const T v = readAs<T>(x, i);
    bool take = false;
    if (index[o] < 0)
      take = true;
    else if (isNan(best[o]))
      take = last && isNan(v);
    else if (isNan(v))
      take = true;
    else
      take = (isMax ? v > best[o] : v < best[o]) || (last && v == best[o]);
    if (take) {
      best[o] = v;
      index[o] = red;
    }
  }
  for (int64_t o = 0; o < plan.outCount; ++o) out.setInt(o, index[o] < 0 ? 0 : index[o]);
}

Value argReduceKernel(bool isMax, const std::vector<Value>& args, const AttrsNode* attrs,
                      const Type& outType) {
  const NDArray& x = tensorAt(args, 0);
  const ArgReduceAttrs* a = attrsAs<ArgReduceAttrs>(attrs);
  const ArgReduceAttrs defaults;
  if (!a) a = &defaults;
  const ReducePlan plan(x.shape(), reducedMask(a->axis, a->exclude, makeShape(x.shape()), nullptr));
  NDArray out = allocTensor(outType);
  if (x.dtype().isFloat())
    argReduceTyped<double>(isMax, a->selectLastIndex, x, out, plan);
  else if (x.dtype().isInt())
    argReduceTyped<int64_t>(isMax, a->selectLastIndex, x, out, plan);
  else
    argReduceTyped<uint64_t>(isMax, a->selectLastIndex, x, out, plan);
  return out;
}

struct ReduceRow {
  const char* name;
  const char* summary;
  ReduceKind kind;
};
constexpr ReduceRow kReduceOps[] = {
    {"sum", "sum over the reduced axes", ReduceKind::kSum},
    {"mean", "mean over the reduced axes (integers divide with truncation)", ReduceKind::kMean},
    {"max", "maximum over the reduced axes", ReduceKind::kMax},
    {"min", "minimum over the reduced axes", ReduceKind::kMin},
    {"prod", "product over the reduced axes", ReduceKind::kProd},
};

}  // namespace

// The reductions differ only in ReduceKind, so one row each; argmax/argmin share a kernel too.
void registerReduceOps(OpRegistry& r) {
  for (const ReduceRow& row : kReduceOps) {
    const ReduceKind kind = row.kind;
    r.add(OpDef{
        .name = row.name,
        .args = {"data"},
        .summary = row.summary,
        .attrs = attrsType<ReduceAttrs>(),
        .typeRelation = [](const TypeReporter& rep) { return reduceRel<ReduceAttrs>(rep, false); },
        .pattern = OpPattern::kCommReduce,
        .kernel = [kind](const std::vector<Value>& args, const AttrsNode* attrs,
                         const Type& outType) { return reduceKernel(kind, args, attrs, outType); },
    });
  }
  for (bool isMax : {true, false}) {
    r.add(OpDef{
        .name = isMax ? "argmax" : "argmin",
        .args = {"data"},
        .summary = isMax ? "int32 index of the maximum within the reduced axes"
                         : "int32 index of the minimum within the reduced axes",
        .attrs = attrsType<ArgReduceAttrs>(),
        .typeRelation =
            [](const TypeReporter& rep) { return reduceRel<ArgReduceAttrs>(rep, true); },
        .pattern = OpPattern::kCommReduce,
        .kernel = [isMax](
                      const std::vector<Value>& args, const AttrsNode* attrs,
                      const Type& outType) { return argReduceKernel(isMax, args, attrs, outType); },
    });
  }
}

// --- builders ------------------------------------------------------------------------------------

Expr sum(Expr data, ReduceAttrs attrs) {
  return makeCall(opByName("sum"), {std::move(data)}, makeAttrs(std::move(attrs)));
}
Expr mean(Expr data, ReduceAttrs attrs) {
  return makeCall(opByName("mean"), {std::move(data)}, makeAttrs(std::move(attrs)));
}
Expr max(Expr data, ReduceAttrs attrs) {
  return makeCall(opByName("max"), {std::move(data)}, makeAttrs(std::move(attrs)));
}
Expr min(Expr data, ReduceAttrs attrs) {
  return makeCall(opByName("min"), {std::move(data)}, makeAttrs(std::move(attrs)));
}
Expr prod(Expr data, ReduceAttrs attrs) {
  return makeCall(opByName("prod"), {std::move(data)}, makeAttrs(std::move(attrs)));
}
Expr argmax(Expr data, ArgReduceAttrs attrs) {
  return makeCall(opByName("argmax"), {std::move(data)}, makeAttrs(std::move(attrs)));
}
Expr argmin(Expr data, ArgReduceAttrs attrs) {
  return makeCall(opByName("argmin"), {std::move(data)}, makeAttrs(std::move(attrs)));
}

}  // namespace tessera::relay
