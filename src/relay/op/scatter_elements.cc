// scatter_elements (kOpaque, a VM builtin): the reference kernel and type relation. The VM's own
// implementation is runtime/vm/builtin_scatter.cc, written apart so that the interpreter stays an
// independent oracle.
#include <string>

#include "relay/op/op_common.h"
#include "relay/op/op_families.h"
#include "relay/op/scatter.h"
#include "support/diagnostic.h"

namespace tessera::relay {
namespace {

bool knownReduction(const std::string& r) {
  return r == "update" || r == "add" || r == "mul" || r == "min" || r == "max";
}

std::optional<Type> scatterElementsRel(const TypeReporter& r) {
  const TensorTypeNode* data = r.tensorArg(0);
  const TensorTypeNode* indices = r.tensorArg(1);
  const TensorTypeNode* updates = r.tensorArg(2);
  if (!data || !indices || !updates) return std::nullopt;
  const auto& a = r.attrs<ScatterElementsAttrs>();
  const int rank = data->ndim();
  if (rank == 0) r.fail("scatter_elements_c1", "data must have rank 1 or more");
  const int axis = normalizeAxis(a.axis, rank, r, "scatter_elements_c1");
  if (!indices->dtype.isInt() || indices->ndim() != rank)
    r.fail("scatter_elements_c2", "indices must be a signed integer tensor of the data's rank " +
                                      std::to_string(rank) + ", got " + typeToString(r.arg(1)));
  if (updates->dtype != data->dtype || updates->ndim() != rank)
    r.fail("scatter_elements_c3", "updates must have the data's dtype and rank, got " +
                                      typeToString(r.arg(2)) + " for data " +
                                      typeToString(r.arg(0)));
  for (int k = 0; k < rank; ++k) {
    const Dim &q = indices->shape[k], &u = updates->shape[k], &d = data->shape[k];
    if (q.isConst() && u.isConst() && q.value() != u.value())
      r.fail("scatter_elements_c3", "updates " + typeToString(r.arg(2)) +
                                        " must have the shape of indices " +
                                        typeToString(r.arg(1)));
    if (k != axis && q.isConst() && d.isConst() && q.value() > d.value())
      r.fail("scatter_elements_c2", "indices extent " + std::to_string(q.value()) + " of axis " +
                                        std::to_string(k) + " exceeds the data's " +
                                        std::to_string(d.value()));
  }
  if (!knownReduction(a.reduction))
    r.fail("scatter_elements_c4",
           "reduction must be update, add, mul, min or max, got '" + a.reduction + "'");
  if (a.reduction != "update" && data->dtype.isBool())
    r.fail("scatter_elements_c4", "reduction " + a.reduction + " needs numbers, not bool");
  return r.arg(0);
}

template <typename T>
T combined(T old, T u, const std::string& reduction) {
  if (reduction == "add") return static_cast<T>(old + u);
  if (reduction == "mul") return static_cast<T>(old * u);
  if (reduction == "min") return old < u ? old : u;
  if (reduction == "max") return old > u ? old : u;
  return u;
}

// Combines update `p` into element `at` of `out` as the reduction says: floats as double,
// integers as 64-bit values wrapped to the dtype when stored (signed sums and products in
// unsigned arithmetic, where overflow wraps instead of being undefined).
void combine(const NDArray& out, int64_t at, const NDArray& updates, int64_t p,
             const std::string& reduction) {
  const DataType dtype = out.dtype();
  if (dtype.isFloat()) {
    out.setFloat(at, combined(out.getFloat(at), updates.getFloat(p), reduction));
  } else if (dtype.isUInt() || dtype.isBool()) {
    out.setUInt(at, combined(out.getUInt(at), updates.getUInt(p), reduction));
  } else if (reduction == "add" || reduction == "mul") {
    const auto old = static_cast<uint64_t>(out.getInt(at));
    out.setInt(at, static_cast<int64_t>(
                       combined(old, static_cast<uint64_t>(updates.getInt(p)), reduction)));
  } else {
    out.setInt(at, combined(out.getInt(at), updates.getInt(p), reduction));
  }
}

Value scatterElementsKernel(const std::vector<Value>& args, const AttrsNode* attrs, const Type&) {
  const NDArray& data = tensorAt(args, 0);
  const NDArray& indices = tensorAt(args, 1);
  const NDArray& updates = tensorAt(args, 2);
  const auto& a = attrsOrDefault<ScatterElementsAttrs>(attrs);
  const std::vector<int64_t>& d = data.shape();
  const auto rank = static_cast<int64_t>(d.size());
  const int64_t axis = a.axis < 0 ? a.axis + rank : a.axis;
  if (indices.shape() != updates.shape())
    throwDiagnostic(
        "scatter_elements",
        "updates " + updates.describe() + " must have the shape of indices " + indices.describe());
  for (int64_t k = 0; k < rank; ++k)
    if (k != axis && indices.shape()[k] > d[k])
      throwDiagnostic("scatter_elements", "indices " + indices.describe() + " exceed the data " +
                                              data.describe() + " on axis " + std::to_string(k));
  NDArray out = data.copy();
  for (int64_t p = 0; p < indices.numel(); ++p) {
    std::vector<int64_t> c = unravelIndex(p, indices.shape());
    const int64_t index = indices.getInt(p);
    if (index < -d[axis] || index >= d[axis])
      throwDiagnostic("scatter_elements", "index " + std::to_string(index) +
                                              " is out of range for axis " + std::to_string(axis) +
                                              " of extent " + std::to_string(d[axis]));
    c[axis] = index < 0 ? index + d[axis] : index;
    combine(out, ravelIndex(c, d), updates, p, a.reduction);
  }
  return out;
}

}  // namespace

void registerScatterOps(OpRegistry& r) {
  r.add(OpDef{.name = "scatter_elements",
              .args = {"data", "indices", "updates"},
              .summary = "data with updates combined at positions read from indices along axis",
              .attrs = attrsType<ScatterElementsAttrs>(),
              .typeRelation = scatterElementsRel,
              .pattern = OpPattern::kOpaque,
              .kernel = scatterElementsKernel,
              .vmBuiltin = true});
}

Expr scatterElements(Expr data, Expr indices, Expr updates, int64_t axis, std::string reduction) {
  return makeCall(opByName("scatter_elements"),
                  {std::move(data), std::move(indices), std::move(updates)},
                  makeAttrs(ScatterElementsAttrs{.axis = axis, .reduction = std::move(reduction)}));
}

}  // namespace tessera::relay
