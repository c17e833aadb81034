// vtaGraphKernel (graph_kernel.h).
#include "vta/strategy/graph_kernel.h"

#include "support/diagnostic.h"
#include "vta/strategy/alu_strategy.h"
#include "vta/strategy/conv2d_strategy.h"
#include "vta/strategy/dense_strategy.h"
#include "vta/tir/passes.h"

namespace tessera::vta {

namespace {

tir::PrimFunc named(const tir::PrimFunc& func, const std::string& name) {
  auto node = std::make_shared<tir::PrimFuncNode>(*lowerVtaHostIntrin(func));
  node->name = name;
  node->attrs.set("global_symbol", AttrValue::string(name));
  return node;
}

// The int8 result VTA's store makes; a GEMM function returning anything else is an error.
void requireInt8Result(const relay::Function& fn) {
  const auto* result =
      fn->body->checkedType ? fn->body->checkedType->as<TensorTypeNode>() : nullptr;
  if (!result || result->dtype != DataType::int8())
    throwDiagnostic("vta_strategy",
                    "VTA stores int8 results; this function returns " +
                        (result ? result->dtype.name() : std::string("a non-tensor")) +
                        " (end the chain with a cast to int8)",
                    fn->body->span);
}

// A GEMM kernel's tensor parameters in PrimFunc order: data, weight, per-channel operands.
void addGemmParams(const GemmOperands& kernel, VtaGraphKernel& out) {
  out.params.push_back(kernel.dataParam);
  out.params.push_back(kernel.weightParam);
  if (kernel.weightParam < 0) out.constants.push_back(kernel.weight);
  for (size_t i = 0; i < kernel.operandParams.size(); ++i) {
    out.params.push_back(kernel.operandParams[i]);
    if (kernel.operandParams[i] < 0) out.constants.push_back(kernel.constants[i]);
  }
}

}  // namespace

std::optional<VtaGraphKernel> vtaGraphKernel(const relay::Function& fn, const Config& config,
                                             const std::string& name) {
  VtaGraphKernel out;
  if (isVtaConvFunction(fn, config)) {
    const VtaConv2dKernel kernel = readConv2dKernel(fn, config);
    requireInt8Result(fn);
    out.func = named(compileConv2dKernel(kernel, config), name);
    out.implementation = "conv2d_packed.vta";
    addGemmParams(kernel, out);
    return out;
  }
  if (isVtaDenseFunction(fn)) {
    const VtaDenseKernel kernel = readDenseKernel(fn, config);
    requireInt8Result(fn);
    out.func = named(compileDenseKernel(kernel, config), name);
    out.implementation = "dense_packed.vta";
    addGemmParams(kernel, out);
    return out;
  }
  if (std::optional<VtaAluKernel> alu = readAluKernel(fn, config)) {
    out.func = named(compileAluKernel(*alu, config), name);
    out.implementation = "alu_packed.vta";
    out.params = alu->operandParams;
    return out;
  }
  return std::nullopt;
}

}  // namespace tessera::vta
