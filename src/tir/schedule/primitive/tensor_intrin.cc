// The process-wide tensor-intrinsic table. Registration happens at run time from user code or
// tests (no static constructors), so it is guarded by a mutex.
#include "tir/schedule/primitive/tensor_intrin.h"

#include <map>
#include <mutex>

#include "support/diagnostic.h"
#include "tir/stmt.h"

namespace tessera::tir {

namespace {

struct Registry {
  std::mutex mutex;
  std::map<std::string, TensorIntrin> intrins;
};

Registry& registry() {
  static Registry r;
  return r;
}

std::string shapeText(const Buffer& b) {
  std::string out = "(";
  for (size_t i = 0; i < b->shape.size(); ++i) {
    const int64_t* c = asConstInt(b->shape[i]);
    out += (i ? ", " : "") + (c ? std::to_string(*c) : std::string("?"));
  }
  return out + ")";
}

void checkMatchingParams(const std::string& name, const PrimFunc& desc, const PrimFunc& impl) {
  std::vector<Buffer> d = desc->paramBuffers(), i = impl->paramBuffers();
  if (d.size() != i.size())
    throwDiagnostic("tensor_intrin", "tensor intrinsic '" + name + "': the description has " +
                                         std::to_string(d.size()) +
                                         " buffer parameters but the implementation has " +
                                         std::to_string(i.size()));
  for (size_t k = 0; k < d.size(); ++k) {
    bool same = d[k]->dtype == i[k]->dtype && d[k]->ndim() == i[k]->ndim();
    for (int a = 0; same && a < d[k]->ndim(); ++a) same = deepEqual(d[k]->shape[a], i[k]->shape[a]);
    if (!same)
      throwDiagnostic("tensor_intrin", "tensor intrinsic '" + name + "': buffer parameter " +
                                           std::to_string(k) + " is " + shapeText(d[k]) +
                                           " in the description but " + shapeText(i[k]) +
                                           " in the implementation (or differs in dtype)");
  }
}

}  // namespace

BufferRegion pointRegion(const Buffer& b, const std::vector<PrimExpr>& index) {
  BufferRegion r{b, {}};
  for (const PrimExpr& i : index) r.region.push_back(Range{i, intImm(1)});
  return r;
}

PrimFunc intrinFunction(const std::vector<Buffer>& buffers, Stmt body) {
  auto root = std::make_shared<BlockNode>();
  root->name = "root";
  root->body = std::move(body);
  return makePrimFunc("main", buffers, blockRealize({}, boolImm(true), root));
}

void registerTensorIntrin(const std::string& name, PrimFunc desc, PrimFunc impl, bool override) {
  checkMatchingParams(name, desc, impl);
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (!override && r.intrins.count(name))
    throwDiagnostic("tensor_intrin", "tensor intrinsic '" + name +
                                         "' is already registered (pass override=true to "
                                         "replace it)");
  r.intrins[name] = {std::move(desc), std::move(impl)};
}

const TensorIntrin& getTensorIntrin(const std::string& name) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.intrins.find(name);
  if (it == r.intrins.end())
    throwDiagnostic("tensor_intrin", "no tensor intrinsic named '" + name + "' is registered");
  return it->second;
}

std::vector<std::string> tensorIntrinNames() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<std::string> out;
  for (const auto& [name, intrin] : r.intrins) out.push_back(name);
  return out;
}

}  // namespace tessera::tir
