// The distinct kernels of a fused module, shared by the two lowerings of the graph IR: to a graph
// executor description (to_graph.h) and to VM code (to_vm.h). Each distinct primitive
// function, called with constants in the same places, becomes one kernel lowered through its op
// strategies and named after its ops.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "lower/relay/lower_primitive.h"
#include "relay/expr.h"
#include "relay/strategy/strategy.h"
#include "relay/value_range.h"
#include "target/target.h"
#include "tir/function.h"

namespace tessera::lower {

/// One kernel of the graph.
struct GraphKernel {
  /// As lowered by its op strategies, named `fused_<ops in evaluation order>` (`_1`, `_2`, ... for
  /// different functions with the same ops), not yet scheduled.
  tir::PrimFunc func;
  /// The implementation chosen for each of its calls that has strategies.
  std::vector<relay::strategy::StrategyChoice> choices;
  int calls = 0;  ///< calls of the kernel in the module
};

/// What a call of a kernel needs to know: its arguments in the lowered function's order are the
/// flattened tensor arguments (a packed weight passed packed), the kernel's own constants, then
/// one output per flattened tensor of the call's type.
struct KernelInfo {
  size_t index = 0;  ///< in KernelSet::kernels
  std::string name;
  size_t numInputs = 0;            ///< flattened tensor parameters before the constants
  size_t numParams = 0;            ///< all PrimFunc parameters: inputs, constants, outputs
  std::vector<NDArray> constants;  ///< the lowered function's constants, in parameter order
  std::vector<LoweredFunction::PackedParam> packed;

  /// How argument `param` is packed (empty: passed as it is).
  relay::strategy::WeightPacking packingOf(size_t param) const;
};

/// What a call site knows of its arguments, by index: which are constants, and which int8 or
/// uint8 ones are proven to lie in [0, 127] (relay/value_range.h; int8 kernels may then multiply
/// them as bytes).
struct ArgumentFacts {
  std::vector<size_t> constants;
  std::vector<size_t> smallNonNegative;
  bool operator==(const ArgumentFacts&) const = default;
};

/// The facts of the arguments of `call` (in the function whose ranges `ranges` analyses).
ArgumentFacts argumentFacts(const relay::CallNode& call, relay::RangeAnalyzer& ranges);

/// The kernels of a module, in order of first use.
class KernelSet {
 public:
  /// `target` null: the generic computes, nothing packed, no strategies (the reference build).
  explicit KernelSet(const target::Target* target) : target_(target) {}

  /// The kernel of a call of the primitive function `fn` with arguments as `facts` says; lowered
  /// on first request. `isNew` tells the caller to set up its constants.
  const KernelInfo& kernelFor(const relay::Function& fn, const ArgumentFacts& facts,
                              bool* isNew = nullptr);

  std::vector<GraphKernel> kernels;

 private:
  struct Entry {
    relay::Function fn;
    uint64_t hash;
    ArgumentFacts facts;
    bool dataFactsMatter;  // LoweredFunction::dataFactsMatter
    KernelInfo info;
  };
  const target::Target* target_;
  std::vector<Entry> entries_;
  std::map<std::string, int> nameUses_;
};

/// "fused_nn_conv2d_add": `fused` and the ops of `fn` in evaluation order, dots as underscores.
std::string kernelBaseName(const relay::Function& fn);

/// The tensors of a (possibly nested tuple) type, in order; DiagnosticError (code "build") naming
/// `where` for anything else.
std::vector<const TensorTypeNode*> flattenTensorTypes(const Type& type, const std::string& where);

/// The op that runs as a VM builtin (OpDef::vmBuiltin: argwhere, unique, scatter_elements, ...)
/// that `call` runs, itself or inside its fused function; null when there is none.
const relay::OpNode* builtinOp(const relay::CallNode& call);

/// A primitive function wrapping one op call that FuseOps left alone (it does not run at opt
/// level 0), so every op reaches the code generator through the same path.
relay::Function wrapOpCall(const relay::CallNode& call);

/// `func` named `name` (its name and global_symbol), as kernels are named.
tir::PrimFunc withKernelName(const tir::PrimFunc& func, const std::string& name);

}  // namespace tessera::lower
