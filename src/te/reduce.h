// Reductions in tensor expressions: reduce axes, the built-in sum/max/min reducers, user-defined
// commutative reducers (including tuple-valued ones such as argmax), and the elementwise helpers
// that share their names (spec tir_relax.md §1.4).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "te/tensor.h"

namespace tessera::te {

/// A reduction axis over [dom.min, dom.min + dom.extent) (kind kCommReduce).
IterVar reduceAxis(Range dom, std::string name = "rv");
/// A reduction axis over [begin, end).
IterVar reduceAxis(int64_t begin, int64_t end, std::string name = "rv");

/// Optional parts of a reduction: a condition (elements where it is false are skipped) and a
/// start value that replaces the reducer's identity.
struct ReduceOptions {
  PrimExpr where = nullptr;
  PrimExpr init = nullptr;
};

/// `fold(combiner, init or identity, source over axes where cond)`.
PrimExpr sum(PrimExpr source, std::vector<IterVar> axes, ReduceOptions options = {});
PrimExpr max(PrimExpr source, std::vector<IterVar> axes, ReduceOptions options = {});
PrimExpr min(PrimExpr source, std::vector<IterVar> axes, ReduceOptions options = {});
/// The product reduction (used by topi's prod).
PrimExpr prod(PrimExpr source, std::vector<IterVar> axes, ReduceOptions options = {});
/// Elementwise forms (`te.max(a, 0)` is a binary max, not a reduction); integers are immediates
/// of the other operand's dtype.
PrimExpr sum(PrimExpr a, PrimExpr b);
PrimExpr max(PrimExpr a, PrimExpr b);
PrimExpr min(PrimExpr a, PrimExpr b);

/// A user-defined commutative reducer. `combine(x, y)` receives one variable per tuple field for
/// each side; `identity(dtypes)` returns one constant per field.
class CommReducerFn {
 public:
  using FCombine =
      std::function<std::vector<PrimExpr>(const std::vector<Var>&, const std::vector<Var>&)>;
  using FIdentity = std::function<std::vector<PrimExpr>(const std::vector<DataType>&)>;
  CommReducerFn(FCombine combine, FIdentity identity, std::string name)
      : combine_(std::move(combine)), identity_(std::move(identity)), name_(std::move(name)) {}

  /// A tuple-valued reduction: one Reduce expression per field (pass them all to computeMulti).
  std::vector<PrimExpr> operator()(const std::vector<PrimExpr>& sources, std::vector<IterVar> axes,
                                   ReduceOptions options = {},
                                   std::vector<PrimExpr> init = {}) const;
  /// A single-valued reduction.
  PrimExpr operator()(PrimExpr source, std::vector<IterVar> axes, ReduceOptions options = {}) const;
  /// The elementwise fold of two values (single-valued reducers only).
  PrimExpr operator()(PrimExpr a, PrimExpr b) const;

 private:
  FCombine combine_;
  FIdentity identity_;
  std::string name_;
};

/// `comm_reducer(fcombine, fidentity, name)`.
CommReducerFn commReducer(CommReducerFn::FCombine combine, CommReducerFn::FIdentity identity,
                          std::string name = "reduce");

/// Lazy choice (`tir.if_then_else`) and eager select.
PrimExpr ifThenElse(PrimExpr cond, PrimExpr t, PrimExpr f);
PrimExpr select(PrimExpr cond, PrimExpr t, PrimExpr f);

}  // namespace tessera::te
