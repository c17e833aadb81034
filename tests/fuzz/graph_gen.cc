// The generator's core: decisions, the value pool and the top-level loop over the op generators.
#include "graph_gen.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "relay/builder.h"
#include "relay/text/printer.h"
#include "relay/type_infer.h"
#include "runtime/ndarray.h"
#include "support/diagnostic.h"

namespace tessera::fuzz {

uint32_t Choices::below(uint32_t n) {
  if (n <= 1) return 0;
  if (rng_) return static_cast<uint32_t>((*rng_)() % n);
  // One byte per small decision keeps libFuzzer's byte-level mutations meaningful; larger ranges
  // read as many bytes as they need.
  uint32_t value = 0;
  for (uint64_t span = 1; span < n; span <<= 8) {
    const uint8_t byte = pos_ < size_ ? data_[pos_++] : 0;
    value = (value << 8) | byte;
  }
  return value % n;
}

bool isFloat(const GenValue& v) {
  return v.dtype.isFloat();
}
bool isInt(const GenValue& v) {
  return v.dtype.isInt();
}
bool isBool(const GenValue& v) {
  return v.dtype.isBool();
}
int64_t numel(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}
bool broadcastable(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  for (size_t i = 1; i <= std::min(a.size(), b.size()); ++i) {
    const int64_t x = a[a.size() - i], y = b[b.size() - i];
    if (x != y && x != 1 && y != 1) return false;
  }
  return true;
}

std::optional<GenValue> GraphGen::pick(const std::function<bool(const GenValue&)>& accept) {
  std::vector<size_t> fits;
  for (size_t i = 0; i < values_.size(); ++i)
    if (accept(values_[i])) fits.push_back(i);
  if (fits.empty()) return std::nullopt;
  // The newest value more often than not, so long chains (layer_norm after layer_norm) are common.
  if (choices_.chance(55)) return values_[fits.back()];
  return values_[fits[choices_.below(static_cast<uint32_t>(fits.size()))]];
}

GenValue GraphGen::pickOr(const std::function<bool(const GenValue&)>& accept,
                          const std::function<GenValue()>& make) {
  if (!choices_.chance(15))
    if (std::optional<GenValue> v = pick(accept)) return *v;
  return make();
}

GenValue GraphGen::input(const std::vector<int64_t>& shape, DataType dtype) {
  relay::Var v = relay::var("p" + std::to_string(nextName_++), shape, dtype);
  return push(v, true);
}

relay::Expr GraphGen::constant(const std::vector<int64_t>& shape, DataType dtype, double lo,
                               double hi) {
  return relay::constant(test::uniformTensor(shape, dtype, choices_.dataSeed(), lo, hi));
}

relay::Expr GraphGen::weight(const std::vector<int64_t>& shape, DataType dtype, double lo,
                             double hi) {
  if (choices_.chance(25)) return input(shape, dtype).expr;
  return constant(shape, dtype, lo, hi);
}

relay::Expr GraphGen::scalar(double value, DataType dtype) {
  return relay::scalar(value, dtype);
}

std::vector<int64_t> GraphGen::shape(int minRank, int maxRank, int maxDim) {
  std::vector<int64_t> dims(static_cast<size_t>(choices_.range(minRank, maxRank)));
  for (int64_t& d : dims) d = choices_.chance(20) ? 1 : choices_.range(1, maxDim);
  return dims;
}

std::vector<int64_t> GraphGen::broadcastPeer(const std::vector<int64_t>& shape) {
  const size_t drop =
      choices_.chance(30) ? choices_.below(static_cast<uint32_t>(shape.size()) + 1) : 0;
  std::vector<int64_t> peer(shape.begin() + static_cast<std::ptrdiff_t>(drop), shape.end());
  for (int64_t& d : peer)
    if (choices_.chance(25)) d = 1;
  return peer;
}

relay::Expr GraphGen::typed(relay::Expr e) {
  try {
    return relay::inferExprTypes(e);
  } catch (const DiagnosticError& err) {
    throw IllTypedGraph(
        "type inference rejected a generated call (a generator bug unless the "
        "op's type relation is wrong): " +
        err.diagnostic().str() + "\n" + relay::printExpr(e));
  }
}

const GenValue& GraphGen::push(relay::Expr e, bool exact) {
  const relay::Expr t = typed(e);
  const auto* type = t->checkedType ? t->checkedType->as<TensorTypeNode>() : nullptr;
  std::optional<std::vector<int64_t>> dims;
  if (type) dims = staticShape(type->shape);
  if (!dims) throw IllTypedGraph("generated value is not a static tensor:\n" + relay::printExpr(e));

  // Mark the values `e` is built on as used, walking down to them through the idiom's new nodes.
  std::map<const relay::ExprNode*, size_t> index;
  for (size_t i = 0; i < values_.size(); ++i) index[values_[i].expr.get()] = i;
  std::vector<relay::Expr> stack{e};
  while (!stack.empty()) {
    const relay::Expr x = stack.back();
    stack.pop_back();
    if (x.get() != e.get()) {
      if (auto it = index.find(x.get()); it != index.end()) {
        used_[it->second] = true;
        continue;
      }
    }
    if (const auto* call = x->as<relay::CallNode>())
      for (const relay::Expr& a : call->args) stack.push_back(a);
    else if (const auto* tup = x->as<relay::TupleNode>())
      for (const relay::Expr& f : tup->fields) stack.push_back(f);
    else if (const auto* get = x->as<relay::TupleGetItemNode>())
      stack.push_back(get->tuple);
  }
  values_.push_back(GenValue{e, *dims, type->dtype, exact});
  used_.push_back(false);
  return values_.back();
}

std::vector<size_t> GraphGen::unused() const {
  std::vector<size_t> out;
  for (size_t i = 0; i < values_.size(); ++i)
    if (!used_[i]) out.push_back(i);
  return out;
}

namespace {

DataType inputDtype(Choices& c) {
  if (c.chance(75)) return DataType::float32();
  return c.chance(75) ? DataType::int32() : DataType::boolType();
}

}  // namespace

relay::IRModule generateGraph(Choices& choices, const GenOptions& options,
                              std::vector<std::string>* trace) {
  GraphGen g(choices);
  // Image-shaped inputs often, so the nn generators find operands without making their own.
  const int numInputs = static_cast<int>(choices.range(1, 2));
  for (int i = 0; i < numInputs; ++i) {
    const DataType dtype = inputDtype(choices);
    if (dtype.isFloat() && choices.chance(40))
      g.input({choices.range(1, 2), choices.range(1, 6), choices.range(3, 7), choices.range(3, 7)},
              dtype);
    else
      g.input(g.shape(0, 4), dtype);
  }

  std::vector<OpGenerator> table;
  for (const OpGenerator& gen : elementwiseGenerators()) table.push_back(gen);
  for (const OpGenerator& gen : transformGenerators()) table.push_back(gen);
  for (const OpGenerator& gen : nnGenerators()) table.push_back(gen);
  const int numOps = static_cast<int>(choices.range(1, options.maxOps));
  for (int i = 0; i < numOps; ++i) {
    // A generator that does not apply (no operand of the kind it needs) gives way to another.
    for (int attempt = 0; attempt < 8; ++attempt) {
      const OpGenerator& gen = table[choices.below(static_cast<uint32_t>(table.size()))];
      if (!gen.make(g)) continue;
      if (trace) trace->push_back(gen.name);
      break;
    }
  }

  // Outputs: the newest value and up to two other unused ones (a tuple), so DAGs with several
  // sinks and tuple outputs are exercised. Parameters are outputs only by chance.
  std::vector<relay::Expr> outputs{g.values().back().expr};
  for (size_t i : g.unused()) {
    if (outputs.size() >= 3 || i + 1 == g.values().size()) continue;
    const bool isParam = g.values()[i].expr->as<relay::VarNode>() != nullptr;
    if (isParam && !choices.chance(10)) continue;
    if (choices.chance(70)) outputs.push_back(g.values()[i].expr);
  }
  const relay::Expr body = outputs.size() == 1 ? outputs[0] : relay::tuple(outputs);
  try {
    return relay::inferTypes(relay::IRModule::fromExpr(relay::function(body)));
  } catch (const DiagnosticError& err) {
    throw IllTypedGraph("type inference rejected the generated function: " +
                        err.diagnostic().str() + "\n" + relay::printExpr(body));
  }
}

}  // namespace tessera::fuzz
