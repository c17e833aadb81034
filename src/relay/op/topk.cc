// dyn.topk (kOpaque, data-dependent shape): the k largest or smallest elements along an axis and
// their indices, k a scalar read when the program runs. PyTorch's detectors export
// `scores.topk(min(n, 300))` over a count of boxes that passed a threshold, so both the extent and
// k are known only at run time. Ties keep the lower index first, as ONNX TopK specifies. k = 0
// gives an empty result (ONNX's reading); TVM's topk returns everything for k < 1.
#include <algorithm>
#include <cstring>
#include <numeric>
#include <string>

#include "relay/op/dynamic.h"
#include "relay/op/op_common.h"
#include "relay/op/op_families.h"
#include "support/diagnostic.h"

namespace tessera::relay {
namespace {

std::optional<Type> topKRel(const TypeReporter& r) {
  const TensorTypeNode* t = r.tensorArg(0);
  const TensorTypeNode* k = r.tensorArg(1);
  if (!t || !k) return std::nullopt;
  const auto& a = r.attrs<TopKAttrs>();
  if (t->ndim() == 0) r.fail("topk_c1", "data must have rank 1 or more");
  if (!t->dtype.isFloat() && !t->dtype.isInteger())
    r.fail("topk_c1", "data of type " + typeToString(r.arg(0)) + " has no ordered dtype");
  const bool oneValue =
      k->ndim() == 0 || (k->ndim() == 1 && k->shape[0].isConst() && k->shape[0].value() == 1);
  if (!k->dtype.isInteger() || !oneValue)
    r.fail("topk_c2",
           "k must be an integer scalar or 1-element tensor, got " + typeToString(r.arg(1)));
  if (a.retType != "both" && a.retType != "values" && a.retType != "indices")
    r.fail("topk_c3", "ret_type must be both, values or indices, got '" + a.retType + "'");
  if (!a.dtype.isInt()) r.fail("topk_c3", "dtype must be a signed integer, got " + a.dtype.name());
  const int axis = normalizeAxis(a.axis, t->ndim(), r, "topk_c1");
  Shape shape = t->shape;
  shape[axis] = Dim::any();
  const Type values = tensorType(shape, t->dtype), indices = tensorType(shape, a.dtype);
  if (a.retType == "values") return values;
  if (a.retType == "indices") return indices;
  return tupleType({values, indices});
}

Value topKKernel(const std::vector<Value>& args, const AttrsNode* attrs, const Type&) {
  const NDArray& x = tensorAt(args, 0);
  const auto& a = attrsOrDefault<TopKAttrs>(attrs);
  const auto rank = static_cast<int64_t>(x.ndim());
  const int64_t axis = a.axis < 0 ? a.axis + rank : a.axis;
  const std::vector<int64_t>& shape = x.shape();
  const int64_t extent = shape[axis];
  const int64_t k = tensorAt(args, 1).getInt(0);
  if (k < 0 || k > extent)
    throwDiagnostic("topk_k", "dyn.topk: k = " + std::to_string(k) + " is outside [0, " +
                                  std::to_string(extent) + "] for axis " + std::to_string(axis));
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= shape[d];
  for (int64_t d = axis + 1; d < rank; ++d) inner *= shape[d];
  std::vector<int64_t> outShape = shape;
  outShape[axis] = k;
  NDArray values = NDArray::empty(outShape, x.dtype());
  NDArray indices = NDArray::empty(outShape, a.dtype);
  const int64_t bytes = x.dtype().bytes();
  std::vector<int64_t> order(static_cast<size_t>(extent));
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t in = 0; in < inner; ++in) {
      auto at = [&](int64_t e) { return (o * extent + e) * inner + in; };
      std::iota(order.begin(), order.end(), int64_t{0});
      std::stable_sort(order.begin(), order.end(), [&](int64_t p, int64_t q) {
        const int c = compareElements(x, at(p), at(q));
        return a.isAscend ? c < 0 : c > 0;
      });
      for (int64_t e = 0; e < k; ++e) {
        const int64_t dst = (o * k + e) * inner + in;
        std::memcpy(static_cast<char*>(values.data()) + dst * bytes,
                    static_cast<const char*>(x.data()) + at(order[e]) * bytes,
                    static_cast<size_t>(bytes));
        indices.setInt(dst, order[e]);
      }
    }
  }
  if (a.retType == "values") return values;
  if (a.retType == "indices") return indices;
  return Value::tuple({values, indices});
}

}  // namespace

void registerTopKOps(OpRegistry& r) {
  r.add(OpDef{.name = "dyn.topk",
              .args = {"data", "k"},
              .summary = "the k largest (or smallest) elements along axis and their indices",
              .attrs = attrsType<TopKAttrs>(),
              .typeRelation = topKRel,
              .pattern = OpPattern::kOpaque,
              .kernel = topKKernel,
              .dataDependentShape = true});
}

Expr dynTopK(Expr data, Expr k, TopKAttrs attrs) {
  return makeCall(opByName("dyn.topk"), {std::move(data), std::move(k)},
                  makeAttrs(std::move(attrs)));
}

}  // namespace tessera::relay
