// registerComputes and the helpers the compute registrations share.
#include "relay/strategy/strategy.h"

#include <any>
#include <mutex>

#include "relay/op_registry.h"
#include "relay/strategy/strategy_util.h"
#include "support/check.h"
#include "support/diagnostic.h"

namespace tessera::relay::strategy {

std::vector<tir::PrimExpr> staticShapeOf(const Type& type, const std::string& what) {
  const TensorTypeNode& t = tensorTypeOf(type);
  std::vector<tir::PrimExpr> out;
  for (const Dim& d : t.shape) {
    // An unknown extent is a variable of the kernel, bound from the buffer it reaches when the
    // kernel is called (the VM allocates that buffer from the shape function), as TVM's any_dim.
    if (d.isAny()) {
      out.push_back(tir::makeSizeVar("any_dim"));
      continue;
    }
    if (!d.isConst())
      throwDiagnostic("dynamic_shape", what + ": shape " + shapeToString(t.shape) +
                                           " has a named symbolic dim; TE lowering needs static "
                                           "extents or `?`");
    out.push_back(tir::intImm(d.value()));
  }
  return out;
}

std::vector<int64_t> constExtentsOf(const Type& type, const std::string& what) {
  const TensorTypeNode& t = tensorTypeOf(type);
  std::optional<std::vector<int64_t>> dims = staticShape(t.shape);
  if (!dims)
    throwDiagnostic("topi_dynamic", what + ": shape " + shapeToString(t.shape) +
                                        " is not static; this compute needs constant extents");
  return *dims;
}

const TensorTypeNode& tensorTypeOf(const Type& type) {
  const auto* t = type ? type->as<TensorTypeNode>() : nullptr;
  TS_CHECK(t) << "expected a tensor type, got " << (type ? typeToString(type) : "nothing");
  return *t;
}

const Type& tupleField(const Type& type, size_t i) {
  const auto* t = type ? type->as<TupleTypeNode>() : nullptr;
  TS_CHECK(t && i < t->fields.size()) << "expected a tuple type with field " << i;
  return t->fields[i];
}

void setCompute(const std::string& op, FTVMCompute f) {
  kComputeMap.set(op, std::move(f), 10);
}

void registerComputes() {
  static std::once_flag once;
  std::call_once(once, [] {
    registerTensorComputes();
    registerNnComputes();
  });
}

std::vector<std::pair<std::string, std::string>> opsWithoutCompute() {
  registerComputes();
  std::vector<std::pair<std::string, std::string>> out;
  for (const std::string& op : OpRegistry::global().names()) {
    // A VM builtin (data-dependent output shapes, scatters) has no TE compute by design.
    if (kComputeMap.get(op) || OpRegistry::global().find(op)->vmBuiltin) continue;
    out.emplace_back(op, "no TE compute is registered");
  }
  return out;
}

}  // namespace tessera::relay::strategy
