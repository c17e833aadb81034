// Shape functions of reshape and concatenate over symbolic dims (int64 TensorIR expressions);
// strided_slice's is beside its relation (transform_select.cc), which it shares.
#include "relay/op/shape_func_ops.h"

#include "relay/op/op_common.h"
#include "relay/op/tensor.h"

namespace tessera::relay {
namespace {

tir::PrimExpr constDim(int64_t v) {
  return tir::intImm(v, DataType::int64());
}

}  // namespace

// Mirrors inferNewShape (transform_shape.cc): the input position advances on every value but -2,
// -3 and -4, and the dims copied from the input take no part in the -1 division.
std::optional<SymValue> reshapeShapeFunc(const CallNode& call, const std::vector<SymValue>& in) {
  if (in.empty() || in[0].isTuple) return std::nullopt;
  const auto& a = attrsOrDefault<ReshapeAttrs>(call.attrs.get());
  const SymShape& x = in[0].shape;
  SymShape out;
  std::vector<bool> copied;
  std::vector<bool> used(x.size(), false);
  std::optional<size_t> inferAt;
  size_t s = 0;
  for (int64_t v : a.newshape) {
    if (v > 0 || (v == 0 && a.allowzero)) {
      out.push_back(constDim(v));
      copied.push_back(false);
      ++s;
    } else if (v == 0 || v == -2) {
      const size_t end = v == 0 ? s + 1 : x.size();
      if (s >= x.size() && v == 0) return std::nullopt;
      for (; s < end; ++s) {
        used[s] = true;
        out.push_back(x[s]);
        copied.push_back(true);
      }
    } else if (v == -1) {
      inferAt = out.size();
      out.push_back(constDim(1));
      copied.push_back(false);
      ++s;
    } else if (v == -3 && s + 1 < x.size()) {
      used[s] = used[s + 1] = true;
      out.push_back(x[s] * x[s + 1]);
      copied.push_back(true);
      s += 2;
    } else {
      return std::nullopt;
    }
  }
  if (inferAt) {
    tir::PrimExpr numer = constDim(1), denom = constDim(1);
    for (size_t k = 0; k < x.size(); ++k)
      if (!used[k]) numer = numer * x[k];
    for (size_t k = 0; k < out.size(); ++k)
      if (!copied[k] && k != *inferAt) denom = denom * out[k];
    out[*inferAt] = tir::floordiv(numer, denom);
  }
  return SymValue{.shape = std::move(out)};
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
