// Reading the element-wise chain a fused graph function applies after VTA's GEMM operator (a
// packed nn.conv2d or nn.dense): from the result back to that call, each op mapped to ALU stages
// of the requantize epilogue (vta/topi/epilogue.h) — clip as min then max, as TVM's VTA schedule
// does; relu as max 0; int32 casts vanish; the int8 cast is the store's truncation. Anything else
// is an error at its op (code "vta_strategy"): a function holding such a call must run on VTA.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "ir/type.h"
#include "relay/expr.h"
#include "runtime/ndarray.h"
#include "vta/topi/epilogue.h"

namespace tessera::vta {

struct EpilogueChain {
  std::vector<EpilogueOp> ops;  ///< in execution order
  /// For each kAddChannel operand in order: the function parameter that feeds it, or -1 when it
  /// is a constant (then in `constants`, at the same position).
  std::vector<int> operandParams;
  std::vector<NDArray> constants;
  relay::Expr anchor;  ///< the GEMM operator's call the chain starts at
};

/// Where a GEMM kernel's tensors come from, in its PrimFunc's order: data, weight, the epilogue's
/// per-channel operands.
struct GemmOperands {
  int dataParam = 0, weightParam = 1;  ///< -1 for a constant weight (then `weight`)
  NDArray weight;
  /// For each kAddChannel operand in order: the function parameter that feeds it, or -1 when it
  /// is a constant (then in `constants`, at the same position).
  std::vector<int> operandParams;
  std::vector<NDArray> constants;
};

/// The operands of `gemm` (the chain's anchor; its data a parameter of `fn`, its weight one or a
/// constant) and of the chain. `layer` names the op in errors ("convolution", "dense layer").
GemmOperands gemmOperands(const relay::Function& fn, const EpilogueChain& chain,
                          const std::string& layer);

/// The per-channel operand shape an `add` with a tensor must have, given the packed output shape.
using ChannelOperandShape = std::function<std::vector<int64_t>(const std::vector<int64_t>& out)>;

/// Reads `fn`'s body back to the first call of `anchorOp`. `operandShape` gives the one tensor
/// shape an `add` may have (described as `operandForm` in the error otherwise).
EpilogueChain readEpilogueChain(const relay::Function& fn, const std::string& anchorOp,
                                const ChannelOperandShape& operandShape,
                                const std::string& operandForm);

/// A "vta_strategy" error at `call` (its span, the op's name as context).
[[noreturn]] void failAt(const relay::CallNode& call, const std::string& message);

/// The name of `call`'s op ("" for a function call).
const std::string& opNameOf(const relay::CallNode& call);

/// `e`'s tensor type, or null.
const TensorTypeNode* tensorTypeOfExpr(const relay::Expr& e);

/// `e`'s static extents, or an error at `at`.
std::vector<int64_t> staticDimsAt(const relay::Expr& e, const relay::CallNode& at);

/// The index of `e` among `fn`'s parameters, or -1.
int paramIndexOf(const relay::Function& fn, const relay::Expr& e);

}  // namespace tessera::vta
