// Helpers shared by BackwardFoldScaleAxis and ForwardFoldScaleAxis (TVM's fold_scale_axis.cc and
// pattern_utils.h): messages, scale/axis matching and weight scaling. Internal to this folder.
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "relay/builder.h"

namespace tessera::relay::scale_axis {

/// TVM's Message: the axes a scale may be folded along, and whether it must be positive (relu).
struct Message {
  std::vector<int64_t> axes;
  bool requirePositive = false;
};

using Messages = std::unordered_map<const ExprNode*, Message>;

inline const CallNode* callOf(const Expr& e, std::initializer_list<const char*> names) {
  const auto* call = e->as<CallNode>();
  const auto* op = call ? call->op->as<OpNode>() : nullptr;
  if (!op) return nullptr;
  for (const char* n : names)
    if (op->name == n) return call;
  return nullptr;
}

inline const TensorTypeNode* tensorOf(const Expr& e) {
  return e->checkedType ? e->checkedType->as<TensorTypeNode>() : nullptr;
}

/// TVM's MatchBroadcastToLeftAxes: `rhs` broadcast against `lhs` varies only along `axes`. When
/// `value` is given it becomes `rhs` squeezed to just those axes. Rank-0 scales are not folded.
inline bool matchAxes(const Expr& lhs, const Expr& rhs, const std::vector<int64_t>& axes,
                      Expr* value = nullptr) {
  const TensorTypeNode* tl = tensorOf(lhs);
  const TensorTypeNode* tr = tensorOf(rhs);
  if (!tl || !tr || tr->ndim() == 0 || tl->ndim() < tr->ndim()) return false;
  const int base = tl->ndim() - tr->ndim();
  std::vector<int64_t> squeezeAxes;
  size_t j = 0;
  for (int i = 0; i < tl->ndim(); ++i) {
    if (j < axes.size() && i == axes[j]) {
      if (i < base || !(tl->shape[i] == tr->shape[i - base])) return false;
      ++j;
    } else if (i >= base) {
      if (!(tr->shape[i - base] == Dim(int64_t{1}))) return false;
      squeezeAxes.push_back(i - base);
    }
  }
  if (value && !squeezeAxes.empty()) *value = squeeze(*value, squeezeAxes);
  return true;
}

inline bool allPositiveConstant(const Expr& e) {
  const auto* c = e->as<ConstantNode>();
  if (!c || !c->hasData()) return false;
  for (int64_t i = 0; i < c->data.numel(); ++i)
    if (!(c->data.getFloat(i) > 0)) return false;
  return true;
}

/// Index of the channel axis when both layouts are simple (no sub-axes), else nullopt.
inline std::optional<int64_t> convChannelAxis(const nn::Conv2DAttrs& a, const std::string& layout) {
  const std::string out = layout.empty() ? a.dataLayout : layout;
  const auto isBlocked = [](const std::string& s) {
    return std::any_of(s.begin(), s.end(), [](char ch) { return ch >= 'a' && ch <= 'z'; });
  };
  if (a.groups != 1 || isBlocked(out) || isBlocked(a.kernelLayout)) return std::nullopt;
  return static_cast<int64_t>(out.find('C'));
}

/// `scale` (a vector along one axis) shaped to broadcast along `axis` of a rank-`ndim` tensor.
inline Expr expandTo(Expr scale, int ndim, int64_t axis) {
  const int numPad = ndim - static_cast<int>(axis) - 1;
  return numPad > 0 ? expandDims(std::move(scale), 1, numPad) : scale;
}

/// Weight scaled along the kernel axis `axisName` (O for backward, I for forward).
inline Expr scaleWeight(const Expr& weight, const nn::Conv2DAttrs& a, char axisName,
                        const Expr& s) {
  const auto axis = static_cast<int64_t>(a.kernelLayout.find(axisName));
  return multiply(weight, expandTo(s, static_cast<int>(a.kernelLayout.size()), axis));
}

}  // namespace tessera::relay::scale_axis
