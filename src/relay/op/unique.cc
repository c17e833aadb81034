// unique (kOpaque, data-dependent shape): the distinct elements of the flattened data, or the
// distinct slices along `axis`, sorted or in order of first occurrence. The result is a tuple
// (values, indices, inverse_indices, counts), ONNX Unique's outputs; TVM's unique also returns
// num_unique because its outputs are padded to the input's length, which `?` dims make needless.
#include <algorithm>
#include <cstring>
#include <numeric>
#include <string>

#include "relay/op/dynamic.h"
#include "relay/op/op_common.h"
#include "relay/op/op_families.h"
#include "support/check.h"

namespace tessera::relay {
namespace {

std::optional<Type> uniqueRel(const TypeReporter& r) {
  const TensorTypeNode* t = r.tensorArg(0);
  if (!t) return std::nullopt;
  if (!t->dtype.isFloat() && !t->dtype.isInteger() && !t->dtype.isBool())
    r.fail("unique_c1", "data of type " + typeToString(r.arg(0)) + " has no ordered dtype");
  const auto& a = r.attrs<UniqueAttrs>();
  const DataType i64 = DataType::int64();
  Shape values{Dim::any()};
  Dim extent = Dim(1);
  if (a.axis) {
    const int axis = normalizeAxis(*a.axis, t->ndim(), r, "unique_c2");
    values = t->shape;
    values[axis] = Dim::any();
    extent = t->shape[axis];
  } else {
    for (const Dim& d : t->shape)
      extent = extent.isConst() && d.isConst() ? Dim(extent.value() * d.value()) : Dim::any();
  }
  return tupleType({tensorType(std::move(values), t->dtype), tensorType(Shape{Dim::any()}, i64),
                    tensorType(Shape{extent}, i64), tensorType(Shape{Dim::any()}, i64)});
}

// The data as `count` slices of `outer` x `inner` elements: slice s holds the elements at
// (o * count + s) * inner + k.
struct Slices {
  int64_t outer = 1, count = 1, inner = 1;
  int64_t at(int64_t slice, int64_t o, int64_t k) const { return (o * count + slice) * inner + k; }
};

Slices slicesOf(const NDArray& x, const std::optional<int64_t>& axisAttr) {
  if (!axisAttr) return {.outer = 1, .count = x.numel(), .inner = 1};
  const int64_t axis = *axisAttr < 0 ? *axisAttr + x.ndim() : *axisAttr;
  Slices s;
  for (int64_t k = 0; k < x.ndim(); ++k) {
    if (k < axis) s.outer *= x.shape()[k];
    if (k > axis) s.inner *= x.shape()[k];
  }
  s.count = x.shape()[axis];
  return s;
}

// Lexicographic comparison of two slices, element by element in row-major order.
int compareSlices(const NDArray& x, const Slices& s, int64_t a, int64_t b) {
  for (int64_t o = 0; o < s.outer; ++o)
    for (int64_t k = 0; k < s.inner; ++k)
      if (int c = compareElements(x, s.at(a, o, k), s.at(b, o, k)); c != 0) return c;
  return 0;
}

Value uniqueKernel(const std::vector<Value>& args, const AttrsNode* attrs, const Type&) {
  const NDArray& x = tensorAt(args, 0);
  const auto& a = attrsOrDefault<UniqueAttrs>(attrs);
  const Slices s = slicesOf(x, a.axis);
  // A stable sort keeps equal slices in input order, so each run starts at its first occurrence.
  std::vector<int64_t> order(static_cast<size_t>(s.count));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t p, int64_t q) { return compareSlices(x, s, p, q) < 0; });
  std::vector<int64_t> first, counts, groupOf(order.size());
  for (size_t k = 0; k < order.size(); ++k) {
    if (k == 0 || compareSlices(x, s, order[k - 1], order[k]) != 0) {
      first.push_back(order[k]);
      counts.push_back(0);
    }
    groupOf[order[k]] = static_cast<int64_t>(first.size()) - 1;
    ++counts.back();
  }
  // Output position of each group: sorted order, or order of first occurrence.
  const auto groups = static_cast<int64_t>(first.size());
  std::vector<int64_t> rank(first.size());
  std::iota(rank.begin(), rank.end(), 0);
  if (!a.sorted) {
    std::vector<int64_t> byFirst(rank);
    std::sort(byFirst.begin(), byFirst.end(),
              [&](int64_t p, int64_t q) { return first[p] < first[q]; });
    for (int64_t k = 0; k < groups; ++k) rank[byFirst[k]] = k;
  }

  std::vector<int64_t> shape = {groups};
  if (a.axis) {
    shape = x.shape();
    shape[*a.axis < 0 ? *a.axis + x.ndim() : *a.axis] = groups;
  }
  NDArray values = NDArray::empty(shape, x.dtype());
  NDArray indices = NDArray::empty({groups}, DataType::int64());
  NDArray inverse = NDArray::empty({s.count}, DataType::int64());
  NDArray countsOut = NDArray::empty({groups}, DataType::int64());
  const int64_t size = x.dtype().bytes();
  const Slices outSlices{.outer = s.outer, .count = groups, .inner = s.inner};
  for (int64_t g = 0; g < groups; ++g) {
    const int64_t at = rank[g];
    indices.setInt(at, first[g]);
    countsOut.setInt(at, counts[g]);
    for (int64_t o = 0; o < s.outer; ++o)
      std::memcpy(static_cast<char*>(values.data()) + outSlices.at(at, o, 0) * size,
                  static_cast<const char*>(x.data()) + s.at(first[g], o, 0) * size,
                  static_cast<size_t>(s.inner * size));
  }
  for (int64_t k = 0; k < s.count; ++k) inverse.setInt(k, rank[groupOf[k]]);
  return Value::tuple({values, indices, inverse, countsOut});
}

}  // namespace

void registerUniqueOps(OpRegistry& r) {
  r.add(OpDef{.name = "unique",
              .args = {"data"},
              .summary = "distinct elements or slices: (values, indices, inverse_indices, counts)",
              .attrs = attrsType<UniqueAttrs>(),
              .typeRelation = uniqueRel,
              .pattern = OpPattern::kOpaque,
              .kernel = uniqueKernel,
              .dataDependentShape = true});
}

Expr unique(Expr data, bool sorted, std::optional<int64_t> axis) {
  return makeCall(opByName("unique"), {std::move(data)},
                  makeAttrs(UniqueAttrs{.sorted = sorted, .axis = axis}));
}

}  // namespace tessera::relay
