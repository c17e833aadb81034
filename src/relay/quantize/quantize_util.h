// Small helpers shared by the quantizer's stages.
#pragma once

#include "relay/expr.h"
#include "runtime/data_type.h"

namespace tessera::relay::quantize {

/// Whether `e` refers to no variable (a constant or a computation on constants only): TVM's
/// analysis.check_constant.
bool isConstantExpr(const Expr& e);
/// Whether no value of `e` can be negative, from its structure: a relu, a clip at or above 0, or
/// pooling, reshaping, casting, quantizing, adding, multiplying or concatenating such values
/// (constants by their values). False when unsure.
bool cannotBeNegative(const Expr& e);
/// A scalar constant of `dtype` holding `value` (converted as a cast would).
Expr scalarConstant(double value, DataType dtype);
/// The value of a scalar constant (an internal error for anything else).
double scalarValue(const Expr& e);

}  // namespace tessera::relay::quantize
