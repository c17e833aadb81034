// Shape functions of reshape and concatenate over symbolic dims (int64 TensorIR expressions);
// strided_slice's is beside its relation (transform_select.cc), which it shares.
#include "relay/op/shape_func_ops.h"

#include "relay/op/op_common.h"
#include "relay/op/tensor.h"

namespace tessera::relay {
// Mirrors inferNewShape (transform_shape.cc): the input position advances on every value but -2,
// -3 and -4, and the dims copied from the input take no part in the -1 division.
std::optional<std::vector<tir::PrimExpr>> reshapeExtents(const std::vector<tir::PrimExpr>& in,
                                                         const std::vector<int64_t>& newshape,
                                                         bool allowzero, DataType dtype) {
  const auto constant = [&](int64_t v) { return tir::intImm(v, dtype); };
  std::vector<tir::PrimExpr> out;
  std::vector<bool> copied;  // per output dim: taken from input dims, out of the -1 division
  std::vector<bool> used(in.size(), false);
  std::optional<size_t> inferAt;
  size_t s = 0;
  const auto emit = [&](tir::PrimExpr d, bool isCopy) {
    out.push_back(std::move(d));
    copied.push_back(isCopy);
  };
  for (size_t i = 0; i < newshape.size(); ++i) {
    const int64_t v = newshape[i];
    if (v > 0 || (v == 0 && allowzero)) {
      emit(constant(v), false);
      ++s;
    } else if (v == 0 || v == -2) {
      const size_t end = v == 0 ? s + 1 : in.size();
      if (end > in.size()) return std::nullopt;
      for (; s < end; ++s) {
        used[s] = true;
        emit(in[s], true);
      }
    } else if (v == -1) {
      inferAt = out.size();
      emit(constant(1), false);
      ++s;
    } else if (v == -3 && s + 1 < in.size()) {
      used[s] = used[s + 1] = true;
      emit(in[s] * in[s + 1], true);
      s += 2;
    } else if (v == -4 && s < in.size() && i + 2 < newshape.size()) {
      const tir::PrimExpr d0 = in[s];
      used[s++] = true;
      const int64_t f0 = newshape[++i], f1 = newshape[++i];
      const tir::PrimExpr rest = tir::floordiv(d0, constant(f0 == -1 ? f1 : f0));
      emit(f0 == -1 ? rest : constant(f0), true);
      emit(f1 == -1 ? rest : constant(f1), true);
    } else {
      return std::nullopt;
    }
  }
  if (inferAt) {
    tir::PrimExpr numer = constant(1), denom = constant(1);
    for (size_t k = 0; k < in.size(); ++k)
      if (!used[k]) numer = numer * in[k];
    for (size_t k = 0; k < out.size(); ++k)
      if (!copied[k] && k != *inferAt) denom = denom * out[k];
    out[*inferAt] = tir::floordiv(numer, denom);
  }
  return out;
}

std::optional<SymValue> reshapeShapeFunc(const CallNode& call, const std::vector<SymValue>& in) {
  if (in.empty() || in[0].isTuple) return std::nullopt;
  const auto& a = attrsOrDefault<ReshapeAttrs>(call.attrs.get());
  std::optional<SymShape> out =
      reshapeExtents(in[0].shape, a.newshape, a.allowzero, DataType::int64());
  if (!out) return std::nullopt;
  return SymValue{.shape = std::move(*out)};
}

std::optional<SymValue> concatenateShapeFunc(const CallNode& call,
                                             const std::vector<SymValue>& in) {
  if (in.empty() || !in[0].isTuple || in[0].fields.empty()) return std::nullopt;
  const std::vector<SymValue>& parts = in[0].fields;
  const int64_t rank = static_cast<int64_t>(parts[0].shape.size());
  int64_t axis = attrsOrDefault<ConcatenateAttrs>(call.attrs.get()).axis;
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return std::nullopt;
  SymShape out = parts[0].shape;
  std::vector<tir::PrimExpr> terms;
  for (const SymValue& p : parts) {
    if (static_cast<int64_t>(p.shape.size()) != rank) return std::nullopt;
    terms.push_back(p.shape[static_cast<size_t>(axis)]);
  }
  // Summed pairwise, so the expression of a detector's 90 per-class selections nests 7 deep,
  // not 90 (executables bound how deep a shape expression may nest).
  while (terms.size() > 1) {
    std::vector<tir::PrimExpr> halved;
    for (size_t k = 0; k + 1 < terms.size(); k += 2) halved.push_back(terms[k] + terms[k + 1]);
    if (terms.size() % 2) halved.push_back(terms.back());
    terms.swap(halved);
  }
  out[static_cast<size_t>(axis)] = terms.front();
  return SymValue{.shape = std::move(out)};
}

}  // namespace tessera::relay
