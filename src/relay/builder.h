// The C++ builder API for graph IR: variables, constants and one function per op (declared in the
// op family headers), so a model reads like the Python frontends:
//
//   auto data = var("data", {1, 3, 224, 224});
//   auto conv = nn::conv2d(data, var("conv_weight"), {.strides = {2, 2}, .padding = {1, 1},
//                                                     .channels = 32, .kernelSize = {{3, 3}}});
//   auto bn = nn::batchNorm(conv, var("bn_gamma"), var("bn_beta"), var("bn_mean"), var("bn_var"));
//   auto fn = function(nn::relu(tupleGetItem(bn, 0)));
#pragma once

#include <string>
#include <vector>

#include "relay/expr.h"
#include "relay/module.h"
#include "relay/op/nn.h"
#include "relay/op/tensor.h"

namespace tessera::relay {

/// A variable with a tensor type annotation.
Var var(const std::string& name, const std::vector<int64_t>& shape,
        DataType dtype = DataType::float32());
/// A variable whose type inference will determine (e.g. weights typed by conv2d's channels
/// attribute).
Var var(const std::string& name);
/// A variable with any type annotation.
Var var(const std::string& name, Type type);
/// A constant from an NDArray, or a scalar.
Expr constant(NDArray value);
Expr scalar(double value, DataType dtype = DataType::float32());
Expr tuple(std::vector<Expr> fields);
Expr tupleGetItem(Expr tuple, int index);
/// A function over the free variables of `body` (in first-use order), like
/// relay.Function(free_vars(b), b).
Function function(Expr body);
/// A call of an op by name with attrs built from key=value pairs (errors if a key is unknown).
Expr callOp(const std::string& opName, std::vector<Expr> args,
            const std::vector<std::pair<std::string, AttrValue>>& attrs = {});

}  // namespace tessera::relay
