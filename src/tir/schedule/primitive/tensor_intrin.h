// The tensor-intrinsic registry (specs/tir_relax.md §3.9): a name maps to a description PrimFunc
// (the computation tensorize recognises) and an implementation PrimFunc (what replaces it).
// Both have the same buffer parameters, matched by position.
#pragma once

#include <string>
#include <vector>

#include "tir/function.h"

namespace tessera::tir {

struct TensorIntrin {
  PrimFunc desc;
  PrimFunc impl;
};

/// Registers `name`. Throws DiagnosticError (code "tensor_intrin") when the name exists and
/// `override` is false, or when desc and impl do not have matching buffer parameters (count,
/// shape, dtype).
void registerTensorIntrin(const std::string& name, PrimFunc desc, PrimFunc impl,
                          bool override = false);
/// The intrinsic named `name`; throws DiagnosticError (code "tensor_intrin") when unknown.
const TensorIntrin& getTensorIntrin(const std::string& name);
/// The registered names, sorted.
std::vector<std::string> tensorIntrinNames();

// Helpers for writing descriptions and implementations.

/// A one-element region of `b` at `index`.
BufferRegion pointRegion(const Buffer& b, const std::vector<PrimExpr>& index);
/// A function over `buffers` whose body sits in the root block, as create_prim_func makes them.
PrimFunc intrinFunction(const std::vector<Buffer>& buffers, Stmt body);

}  // namespace tessera::tir
