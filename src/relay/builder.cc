#include "relay/builder.h"

#include "relay/op_registry.h"
#include "support/diagnostic.h"

namespace tessera::relay {

Var var(const std::string& name, const std::vector<int64_t>& shape, DataType dtype) {
  return makeVar(name, tensorType(shape, dtype));
}
Var var(const std::string& name) {
  return makeVar(name, nullptr);
}
Var var(const std::string& name, Type type) {
  return makeVar(name, std::move(type));
}
Expr constant(NDArray value) {
  return makeConstant(std::move(value));
}
Expr scalar(double value, DataType dtype) {
  return makeConstant(NDArray::scalar(value, dtype));
}
Expr tuple(std::vector<Expr> fields) {
  return makeTuple(std::move(fields));
}
Expr tupleGetItem(Expr t, int index) {
  return makeTupleGetItem(std::move(t), index);
}
Function function(Expr body) {
  std::vector<Var> params =
      freeVars(body);  // before `body` is moved: argument order is unspecified
  return makeFunction(std::move(params), std::move(body));
}

Expr callOp(const std::string& opName, std::vector<Expr> args,
            const std::vector<std::pair<std::string, AttrValue>>& attrs) {
  Op op = opByName(opName);
  Attrs built;
  if (!op->def->attrs.typeKey.empty()) {
    std::string error;
    built = makeAttrs(op->def->attrs.typeKey, attrs, error);
    if (!built) throwDiagnostic("attrs", error, Span{}, opName);
  } else if (!attrs.empty()) {
    throwDiagnostic("attrs", "takes no attributes", Span{}, opName);
  }
  return makeCall(op, std::move(args), built);
}

}  // namespace tessera::relay
