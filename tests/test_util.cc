#include "test_util.h"

#include "relay/interp/interpreter.h"
#include "relay/type_infer.h"
#include "tensor_values.h"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <random>
#include <sstream>

namespace tessera::test {

NDArray randomTensor(const std::vector<int64_t>& shape, DataType dtype, uint64_t seed, double lo,
                     double hi) {
  return uniformTensor(shape, dtype, seed, lo, hi);
}

NDArray tensorOf(const std::vector<int64_t>& shape, DataType dtype,
                 const std::vector<double>& values) {
  NDArray a = NDArray::empty(shape, dtype);
  EXPECT_EQ(static_cast<int64_t>(values.size()), a.numel()) << "tensorOf: wrong value count";
  for (int64_t i = 0; i < a.numel() && i < static_cast<int64_t>(values.size()); ++i) {
    if (dtype.isFloat())
      a.setFloat(i, values[i]);
    else
      a.setInt(i, static_cast<int64_t>(values[i]));
  }
  return a;
}

std::vector<double> valuesOf(const NDArray& a) {
  std::vector<double> out(a.numel());
  for (int64_t i = 0; i < a.numel(); ++i) out[i] = a.getFloat(i);
  return out;
}

::testing::AssertionResult allClose(const NDArray& a, const NDArray& b, double rtol, double atol) {
  if (a.dtype() != b.dtype())
    return ::testing::AssertionFailure()
           << "dtype " << a.dtype().name() << " vs " << b.dtype().name();
  if (a.shape() != b.shape())
    return ::testing::AssertionFailure() << "shape " << a.describe() << " vs " << b.describe();
  for (int64_t i = 0; i < a.numel(); ++i) {
    if (a.dtype().isFloat()) {
      const double x = a.getFloat(i), y = b.getFloat(i);
      if (std::isnan(x) && std::isnan(y)) continue;
      if (!(std::fabs(x - y) <= atol + rtol * std::fabs(y)))
        return ::testing::AssertionFailure() << "element " << i << ": " << x << " vs " << y;
    } else if (a.getInt(i) != b.getInt(i)) {
      return ::testing::AssertionFailure()
             << "element " << i << ": " << a.getInt(i) << " vs " << b.getInt(i);
    }
  }
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult valuesClose(const relay::Value& a, const relay::Value& b, double rtol,
                                       double atol) {
  if (a.isTensor() && b.isTensor()) return allClose(a.tensor(), b.tensor(), rtol, atol);
  if (a.isTuple() && b.isTuple()) {
    if (a.fields().size() != b.fields().size())
      return ::testing::AssertionFailure() << "tuple sizes differ";
    for (size_t i = 0; i < a.fields().size(); ++i) {
      auto r = valuesClose(a.fields()[i], b.fields()[i], rtol, atol);
      if (!r) return r << " (tuple field " << i << ")";
    }
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "value kinds differ";
}

std::vector<relay::Value> randomInputs(const relay::IRModule& module, uint64_t seed,
                                       const std::string& fn) {
  relay::IRModule typed = relay::inferTypes(module);
  std::vector<relay::Value> inputs;
  for (const relay::Var& p : typed.lookup(fn)->params) {
    const auto* t = p->typeAnnotation->as<TensorTypeNode>();
    EXPECT_NE(t, nullptr) << "parameter %" << p->nameHint << " is not a tensor";
    if (!t) continue;
    std::optional<std::vector<int64_t>> dims = staticShape(t->shape);
    EXPECT_TRUE(dims.has_value()) << "parameter %" << p->nameHint << " has a dynamic shape";
    if (!dims) continue;
    const double lo = t->dtype.isFloat() ? -1.0 : -64.0;
    const double hi = t->dtype.isFloat() ? 1.0 : 64.0;
    inputs.emplace_back(randomTensor(*dims, t->dtype, seed + inputs.size() * 7919, lo, hi));
  }
  return inputs;
}

::testing::AssertionResult sameBehaviour(const relay::IRModule& before,
                                         const relay::IRModule& after, int trials, double rtol,
                                         double atol) {
  relay::Interpreter a(before);
  relay::Interpreter b(after);
  for (int trial = 0; trial < trials; ++trial) {
    std::vector<relay::Value> inputs = randomInputs(before, 1000 + trial);
    ::testing::AssertionResult r = valuesClose(b.run(inputs), a.run(inputs), rtol, atol);
    if (!r) return r << " (trial " << trial << ")";
  }
  return ::testing::AssertionSuccess();
}

std::string sourcePath(const std::string& relative) {
  const char* dir = std::getenv("TESSERA_SOURCE_DIR");
  return std::string(dir ? dir : TESSERA_SOURCE_DIR_DEFAULT) + "/" + relative;
}

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

}  // namespace tessera::test
