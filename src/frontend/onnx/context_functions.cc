// The global functions a model's loops become (frontend/onnx/runtime_loop.cc): declared with a
// unique name and a return type before their bodies are converted (so recursive calls type),
// then defined.
#include "frontend/onnx/context.h"

#include "support/check.h"

namespace tessera::frontend::onnx {

using relay::Expr;
using relay::ExprKind;

std::string GraphContext::declareFunction(const std::string& base, Type retType) {
  std::string name = base;
  for (int k = 1; returnTypes_.count(name); ++k) name = base + "_" + std::to_string(k);
  returnTypes_[name] = std::move(retType);
  return name;
}

void GraphContext::defineFunction(const std::string& name, relay::Function fn) {
  TS_CHECK(returnTypes_.count(name)) << "@" << name << " defined before it is declared";
  functions_[name] = std::move(fn);
}

// The op's own type relation gives the result type; every argument type is already complete, so
// an `assign` from the relation can only confirm a type or report a mismatch.
void GraphContext::setReturnType(const std::string& name, Type retType) {
  auto it = returnTypes_.find(name);
  TS_CHECK(it != returnTypes_.end()) << "setReturnType: no function @" << name << " was declared";
  it->second = std::move(retType);
}

}  // namespace tessera::frontend::onnx
