// The check that a realized module never narrows a value to int8 (or uint8) unbounded: every
// cast to int8 of a wider integer or a float is reached from a clip within [-127, 127] (to uint8:
// of any other type, from a clip within [0, 255]) through casts and range-keeping ops (relu,
// pooling, reshapes, stop_fusion). An unclipped int32 sum cast to int8 wraps around instead of
// saturating. Shared by the unit and the model tests.
#pragma once

#include <algorithm>
#include <iterator>
#include <string>

#include <gtest/gtest.h>

#include "relay/module.h"
#include "relay/op/op_common.h"
#include "relay/op/tensor.h"
#include "relay/visit.h"

namespace tessera::test {

using relay::CallNode;
using relay::Expr;
using relay::ExprNode;
using relay::OpNode;

inline const OpNode* opOf(const CallNode& call) {
  return call.op->as<OpNode>();
}

/// Whether the values of `e` provably lie in [lo, hi].
inline bool clippedTo(const Expr& e, double lo, double hi) {
  static const char* const kKeepRange[] = {"cast",
                                           "nn.relu",
                                           "reshape",
                                           "transpose",
                                           "strided_slice",
                                           "nn.max_pool2d",
                                           "nn.avg_pool2d",
                                           "nn.global_avg_pool2d",
                                           "nn.batch_flatten",
                                           "annotation.stop_fusion",
                                           "annotation.cast_hint"};
  for (const ExprNode* node = e.get();;) {
    const auto* call = node->as<CallNode>();
    const OpNode* op = call ? opOf(*call) : nullptr;
    if (!op || call->args.empty()) return false;
    if (op->name == "clip") {
      const auto* a = attrsAs<relay::ClipAttrs>(call->attrs.get());
      return a && a->aMin >= lo && a->aMax <= hi;
    }
    if (std::find_if(std::begin(kKeepRange), std::end(kKeepRange),
                     [&](const char* k) { return op->name == k; }) == std::end(kKeepRange))
      return false;
    node = call->args[0].get();
  }
}

/// Every narrowing cast to int8 in `module`'s @main is clipped first; the count of int8 casts
/// checked goes to `checked`.
inline ::testing::AssertionResult noUnclippedInt8Cast(const relay::IRModule& module,
                                                      int* checked = nullptr) {
  int count = 0;
  std::string bad;
  relay::postOrderVisit(module.main(), [&](const Expr& node) {
    const auto* call = node->as<CallNode>();
    const OpNode* op = call ? opOf(*call) : nullptr;
    if (!op || op->name != "cast") return;
    const auto* attrs = attrsAs<relay::CastAttrs>(call->attrs.get());
    const auto* from =
        call->args[0]->checkedType ? call->args[0]->checkedType->as<TensorTypeNode>() : nullptr;
    if (!attrs || !from) return;
    const bool toUnsigned = attrs->dtype == DataType::uint8();
    if (!(attrs->dtype == DataType::int8()) && !toUnsigned) return;
    const bool narrowing = from->dtype.isFloat() || from->dtype.bits() > 8 ||
                           (toUnsigned ? from->dtype.isInt() : from->dtype.isUInt());
    if (!narrowing) return;
    ++count;
    if ((toUnsigned ? clippedTo(call->args[0], 0, 255) : clippedTo(call->args[0], -127, 127)) ||
        !bad.empty())
      return;
    const auto* arg = call->args[0]->as<CallNode>();
    const OpNode* argOp = arg ? opOf(*arg) : nullptr;
    bad = "cast(" + (argOp ? argOp->name + "(...)" : std::string("...")) + ": " +
          from->dtype.name() + ", dtype=\"" + attrs->dtype.name() + "\")";
  });
  if (checked) *checked = count;
  if (!bad.empty()) return ::testing::AssertionFailure() << "unclipped cast to int8: " << bad;
  return ::testing::AssertionSuccess();
}

}  // namespace tessera::test
