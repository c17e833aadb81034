// PrimFunc and TirModule: a TensorIR function's parameters and their buffers, and the ordered
// module of functions a build compiles.
#include "tir/function.h"

namespace tessera::tir {

Buffer PrimFuncNode::bufferOf(const Var& param) const {
  for (const auto& [var, buffer] : bufferMap)
    if (var == param) return buffer;
  return nullptr;
}

std::vector<Buffer> PrimFuncNode::paramBuffers() const {
  std::vector<Buffer> out;
  for (const Var& p : params)
    if (Buffer b = bufferOf(p)) out.push_back(b);
  return out;
}

PrimFunc withAttr(const PrimFunc& func, const std::string& key, AttrValue value) {
  auto copy = std::make_shared<PrimFuncNode>(*func);
  copy->attrs.set(key, std::move(value));
  return copy;
}

PrimFunc withoutAttr(const PrimFunc& func, const std::string& key) {
  auto copy = std::make_shared<PrimFuncNode>(*func);
  copy->attrs.erase(key);
  return copy;
}

PrimFunc makePrimFunc(std::string name, const std::vector<Buffer>& buffers, Stmt body) {
  auto f = std::make_shared<PrimFuncNode>();
  for (const Buffer& b : buffers) {
    Var param = makeVar("var_" + b->name, DataType::handle());
    f->params.push_back(param);
    f->bufferMap.emplace_back(param, b);
  }
  f->body = std::move(body);
  f->attrs.set("global_symbol", AttrValue::string(name));
  f->attrs.set("tir.noalias", AttrValue::boolean(true));
  f->name = std::move(name);
  return f;
}

void TirModule::add(PrimFunc func) {
  for (PrimFunc& f : functions_) {
    if (f->name == func->name) {
      f = std::move(func);
      return;
    }
  }
  functions_.push_back(std::move(func));
}

PrimFunc TirModule::find(const std::string& name) const {
  for (const PrimFunc& f : functions_)
    if (f->name == name) return f;
  return nullptr;
}

}  // namespace tessera::tir
