// The graph fuzzer's generator: random well-typed graph-IR functions (chains and DAGs of registered
// ops with random attributes and small static shapes) drawn from a byte stream (libFuzzer) or a
// seed. Each op generator chooses its operands among the values built so far and draws attributes
// that fit their shapes, so type inference must accept every graph: a rejection is a generator bug
// or a wrong type relation, and is reported as IllTypedGraph with the offending call printed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "relay/expr.h"
#include "relay/module.h"
#include "runtime/data_type.h"
#include "runtime/ndarray.h"
#include "tensor_values.h"

namespace tessera::fuzz {

/// The source of every random decision. From bytes, each decision reads the next byte(s) and an
/// exhausted input chooses 0, so a short input is a small graph and libFuzzer's mutations of a byte
/// change one decision; from a seed, decisions come from a PRNG.
class Choices {
 public:
  explicit Choices(uint64_t seed) : rng_(seed) {}
  Choices(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  /// A value in [0, n); n must be positive.
  uint32_t below(uint32_t n);
  /// A value in [lo, hi] (inclusive).
  int64_t range(int64_t lo, int64_t hi) { return lo + below(static_cast<uint32_t>(hi - lo + 1)); }
  /// True with the given percent probability.
  bool chance(int percent) { return below(100) < static_cast<uint32_t>(percent); }
  /// A seed for tensor data, so data need not spend fuzzer bytes element by element.
  uint64_t dataSeed() { return below(1u << 30); }

 private:
  std::optional<std::mt19937_64> rng_;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  size_t pos_ = 0;
};

/// One value of the graph under construction, with its inferred static type.
struct GenValue {
  relay::Expr expr;
  std::vector<int64_t> shape;
  DataType dtype;
  /// Computed without floating-point rounding that depends on evaluation order (data movement,
  /// max/min, integer arithmetic, ...). Discontinuous ops (round, sign, comparisons, argmax,
  /// float-to-int casts) take only exact float operands: on a value that the compiled code
  /// rounds differently by one ulp they would turn a harmless difference into a false finding.
  bool exact = true;
};

/// Type inference rejected a generated call: a generator bug, unless the op's relation is wrong
/// (the message prints the call and the diagnostic, to decide which).
class IllTypedGraph : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The state op generators build on: the values so far and helpers to draw shapes and tensors.
class GraphGen {
 public:
  explicit GraphGen(Choices& choices) : choices_(choices) {}

  Choices& rng() { return choices_; }
  /// A random value accepted by `accept`, preferring the newest one (so chains form) and otherwise
  /// any earlier one (so DAGs form); nullopt when none qualifies. A copy: later pushes may move
  /// the pool.
  std::optional<GenValue> pick(const std::function<bool(const GenValue&)>& accept);
  /// `pick`, or a fresh input drawn by `make` when none qualifies or by chance.
  GenValue pickOr(const std::function<bool(const GenValue&)>& accept,
                  const std::function<GenValue()>& make);
  /// A new parameter of the function.
  GenValue input(const std::vector<int64_t>& shape, DataType dtype);
  /// A constant with seeded random data in [lo, hi) (integers rounded down; bool: coin flips).
  relay::Expr constant(const std::vector<int64_t>& shape, DataType dtype, double lo = -1,
                       double hi = 1);
  /// A constant or, by chance, a new parameter: weights of either kind exercise different passes
  /// (FoldConstant and FoldScaleAxis need constants; build() binds parameters).
  relay::Expr weight(const std::vector<int64_t>& shape, DataType dtype, double lo = -1,
                     double hi = 1);
  /// A rank-0 constant.
  relay::Expr scalar(double value, DataType dtype);
  /// A random static shape of rank in [minRank, maxRank] with extents in [1, maxDim].
  std::vector<int64_t> shape(int minRank, int maxRank, int maxDim = 5);
  /// A shape that broadcasts against `shape` (trailing dims kept or set to 1, leading ones
  /// dropped).
  std::vector<int64_t> broadcastPeer(const std::vector<int64_t>& shape);
  /// Infers `e`'s type and records it as a new value; throws IllTypedGraph on a type error and
  /// when the type is not a tensor with a static shape.
  const GenValue& push(relay::Expr e, bool exact);
  /// Infers `e` (a call with a tuple type, e.g. split) and returns it without recording it.
  relay::Expr typed(relay::Expr e);

  const std::vector<GenValue>& values() const { return values_; }
  /// Indices of values no later value uses (the candidates for the function's outputs).
  std::vector<size_t> unused() const;

 private:
  Choices& choices_;
  std::vector<GenValue> values_;
  std::vector<bool> used_;
  int nextName_ = 0;
};

/// One row of the generator table: a name for statistics and a function that appends one op (or
/// a short idiom, such as a guarded log) and returns false when it cannot apply.
struct OpGenerator {
  const char* name;
  bool (*make)(GraphGen& g);
};

/// The generator tables, one per file: elementwise ops, reductions and casts; shape transforms and
/// selection; nn ops (convolutions, dense, pools, norms, ...). Ops with data-dependent output
/// shapes (OpDef::dataDependentShape) are in none: every graph is compiled, and they cannot be.
std::span<const OpGenerator> elementwiseGenerators();
std::span<const OpGenerator> transformGenerators();
std::span<const OpGenerator> nnGenerators();

/// Predicates op generators share.
bool isFloat(const GenValue& v);
bool isInt(const GenValue& v);
bool isBool(const GenValue& v);
int64_t numel(const std::vector<int64_t>& shape);
/// Whether `a` and `b` broadcast (numpy rules).
bool broadcastable(const std::vector<int64_t>& a, const std::vector<int64_t>& b);

struct GenOptions {
  int maxOps = 16;  ///< op generator applications (a guarded op counts once)
};

/// A random well-typed @main; the ops applied are named in `trace` when it is given.
relay::IRModule generateGraph(Choices& choices, const GenOptions& options = {},
                              std::vector<std::string>* trace = nullptr);

}  // namespace tessera::fuzz
