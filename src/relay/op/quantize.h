// The op the quantizer's annotate stage inserts: relay.op.annotation.simulated_quantize (spec
// relay.md §5.6). It stands for "this value will be quantized with scale dom_scale to
// [clip_min, clip_max]" and, run on floats, simulates exactly that.
#pragma once

#include <string>

#include "ir/attrs.h"
#include "relay/expr.h"

namespace tessera::relay {

/// TVM's QAnnotateKind: what a simulated_quantize quantizes.
enum class QAnnotateKind : int { kIdentity = 0, kInput = 1, kWeight = 2, kActivation = 3 };

struct SimulatedQuantizeAttrs {
  static constexpr const char* kTypeKey = "relay.attrs.SimulatedQuantizeAttrs";
  int kind = 0;
  bool sign = true;
  std::string rounding = "round";
  template <typename V>
  static void fields(V& v) {
    v.required("kind", &SimulatedQuantizeAttrs::kind);
    v("sign", &SimulatedQuantizeAttrs::sign);
    v("rounding", &SimulatedQuantizeAttrs::rounding);
  }
};

/// simulated_quantize(data, dom_scale, clip_min, clip_max, kind): identity for kIdentity, else
/// round(clip(data / dom_scale, clip_min, clip_max)) * dom_scale.
Expr simulatedQuantize(Expr data, Expr domScale, Expr clipMin, Expr clipMax, QAnnotateKind kind);

}  // namespace tessera::relay
