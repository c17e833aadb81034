// argwhere (kOpaque, data-dependent shape): the coordinates of the non-zero elements, one int64
// row each in row-major order, so the row count is known only once the data is. TVM returns int32;
// int64 is what the ONNX NonZero and Compress lowerings need, and no index overflows it.
#include <string>

#include "relay/op/dynamic.h"
#include "relay/op/op_common.h"
#include "relay/op/op_families.h"
#include "support/check.h"

namespace tessera::relay {
namespace {

std::optional<Type> argwhereRel(const TypeReporter& r) {
  const TensorTypeNode* t = r.tensorArg(0);
  if (!t) return std::nullopt;
  if (t->dtype.isVoid() || t->dtype.isHandle())
    r.fail("argwhere_c1", "data of type " + typeToString(r.arg(0)) + " has no numeric dtype");
  return tensorType(Shape{Dim::any(), Dim(static_cast<int64_t>(t->ndim()))}, DataType::int64());
}

// Floats compare by value, so -0.0 is zero and NaN is not (numpy's nonzero).
bool isNonZero(const NDArray& x, int64_t i) {
  const DataType dtype = x.dtype();
  if (dtype.isFloat()) return x.getFloat(i) != 0.0;
  if (dtype.isInt()) return x.getInt(i) != 0;
  return x.getUInt(i) != 0;
}

Value argwhereKernel(const std::vector<Value>& args, const AttrsNode*, const Type&) {
  const NDArray& x = tensorAt(args, 0);
  const int64_t rank = x.ndim();
  int64_t count = 0;
  for (int64_t i = 0; i < x.numel(); ++i) count += isNonZero(x, i) ? 1 : 0;
  NDArray out = NDArray::empty({count, rank}, DataType::int64());
  int64_t row = 0;
  for (int64_t i = 0; i < x.numel(); ++i) {
    if (!isNonZero(x, i)) continue;
    const std::vector<int64_t> coords = unravelIndex(i, x.shape());
    for (int64_t k = 0; k < rank; ++k) out.setInt(row * rank + k, coords[k]);
    ++row;
  }
  TS_CHECK(row == count);
  return out;
}

}  // namespace

void registerArgwhereOps(OpRegistry& r) {
  r.add(OpDef{.name = "argwhere",
              .args = {"condition"},
              .summary = "int64 coordinates of the non-zero elements, shape (?, rank)",
              .typeRelation = argwhereRel,
              .pattern = OpPattern::kOpaque,
              .kernel = argwhereKernel,
              .dataDependentShape = true});
}

Expr argwhere(Expr data) {
  return makeCall(opByName("argwhere"), {std::move(data)});
}

}  // namespace tessera::relay
