// PrimFunc: a TensorIR function (buffer parameters, symbolic shape variables, a body whose
// outermost statement is the root block's realize), and TirModule, an ordered set of them.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ir/attr_value.h"
#include "tir/stmt.h"

namespace tessera::tir {

class PrimFuncNode {
 public:
  std::string name;         ///< the function's name in its module ("main")
  std::vector<Var> params;  ///< handle params (tensors) and scalar params
  /// Tensor parameters: param -> buffer. A parameter without an entry is a scalar.
  std::vector<std::pair<Var, Buffer>> bufferMap;
  Stmt body;
  /// "global_symbol", "tir.noalias", "layout_free_buffers", "tir.is_entry_func", "target", ...
  DictAttrs attrs;

  /// The buffer bound to `param`, or null for a scalar parameter.
  Buffer bufferOf(const Var& param) const;
  /// The buffers of the tensor parameters in parameter order.
  std::vector<Buffer> paramBuffers() const;
};
using PrimFunc = std::shared_ptr<const PrimFuncNode>;

/// A function with a fresh handle parameter named `var_<buffer name>` per buffer (in order), the
/// attributes global_symbol=name and tir.noalias=true, and `body`.
PrimFunc makePrimFunc(std::string name, const std::vector<Buffer>& buffers, Stmt body);

/// A copy of `func` with the attribute `key` set to `value` (replaced where present).
PrimFunc withAttr(const PrimFunc& func, const std::string& key, AttrValue value);
/// A copy of `func` without the attribute `key`.
PrimFunc withoutAttr(const PrimFunc& func, const std::string& key);

/// An ordered collection of PrimFuncs by name.
class TirModule {
 public:
  void add(PrimFunc func);  ///< replaces a function of the same name
  PrimFunc find(const std::string& name) const;
  const std::vector<PrimFunc>& functions() const { return functions_; }
  bool empty() const { return functions_.empty(); }

 private:
  std::vector<PrimFunc> functions_;
};

}  // namespace tessera::tir
