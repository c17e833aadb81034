// The seed-002 FashionMNIST MLP as Relax modules (spec tir_relax.md §7.2): all generated kernels,
// all library kernels through the registered packed functions `env.linear` / `env.relu`, a
// mixture of both, and the mixture with its weights bound as constants. Shared by the example
// program and the tests.
#pragma once

#include <map>
#include <string>

#include "relax/expr.h"
#include "runtime/ndarray.h"

namespace tessera::mlp_vm {

/// `linear0(x (1, m), w (n, m), b (n,), z (1, n))`: z = x @ w.T + b through a local `Y (1, n)`.
tir::PrimFunc linear0();
/// linear0 for fixed shapes (1, in) x (hidden, in) -> (1, hidden): seed 002's MyModuleMixture's,
/// the one it tunes.
tir::PrimFunc linear0(int64_t in, int64_t hidden);
/// `relu0(x (1, n), y (1, n))`: y = max(x, 0).
tir::PrimFunc relu0();

/// Registers `env.linear(x, w, b, out)` and `env.relu(x, out)` (plain C++ loops, destination
/// passing), replacing earlier registrations.
void registerEnvFunctions();

/// Variant (a): main calls the module's own linear0/relu0 through call_dps_packed, with symbolic
/// shapes `x (1, "m")`, `w0 ("n", "m")`, `b0 ("n",)`, `w1 ("k", "n")`, `b1 ("k",)`.
relax::IRModule myModule();
/// Variant (b): the same main calling `env.linear` and `env.relu`.
relax::IRModule myModuleWithExternCall();
/// Variant (c): linear0 as TIR for the first layer, `env.relu`, `env.linear` for the second; fixed
/// shapes (1, in) x (hidden, in) -> (1, hidden) -> (1, out).
relax::IRModule myModuleMixture(int64_t in = 784, int64_t hidden = 128, int64_t out = 10);
/// Variant (e): built with BlockBuilder and emitTe from TOPI dense/add and a TE relu, weights as
/// constants (seed 002's from_fx result).
relax::IRModule fromBuilder(const std::map<std::string, NDArray>& params);

/// Random float32 parameters w0 (hidden, in), b0 (hidden,), w1 (out, hidden), b1 (out,).
std::map<std::string, NDArray> randomParams(int64_t in, int64_t hidden, int64_t out, uint32_t seed);
/// The numpy reference: relu(x @ w0.T + b0) @ w1.T + b1, in double, rounded to float32.
NDArray referenceMlp(const NDArray& x, const std::map<std::string, NDArray>& params);
/// Index of the largest logit of a (1, k) tensor.
int64_t argmax(const NDArray& logits);

}  // namespace tessera::mlp_vm
