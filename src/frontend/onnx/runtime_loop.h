// An ONNX Loop whose trip count or condition is known only at run time, as a tail-recursive
// global function the VM runs in place (its `if` decides whether to go on):
//
//   def @onnx_loop(%iter, %max_trip_count, %cond, %v..., %invariant...) -> (v...) {
//     if (%iter < %max_trip_count && %cond) { @onnx_loop(%iter + 1, ..., body(...)) } else {
//     (%v...) }
//   }
//
// Loop-invariant values the body reads from outside are computed once, before the loop, and
// passed in as parameters.
#pragma once

#include "frontend/onnx/context.h"

namespace tessera::frontend::onnx {

/// Converts Loop node `n` (its body, `carried` loop-carried values, `scans` scan outputs) into a
/// recursive function and a call of it; the node's outputs are bound. A diagnostic (code
/// "onnx_dynamic") when it has scan outputs, which would need a shape known only at run time, and
/// (code "onnx_loop") when a loop-carried value changes type.
void convertRuntimeLoop(NodeContext& n, const ::onnx::GraphProto& body, size_t carried,
                        size_t scans);

}  // namespace tessera::frontend::onnx
