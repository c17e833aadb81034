// Accuracy of the inline exp/log/tanh/erf/sigmoid expansions against <cmath> (in ulps of the
// result type), on the vector path (8-lane ramps) and the scalar path, plus the check that a
// scalar loop using them is vectorized by LLVM rather than calling libm per element.
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

#include <gtest/gtest.h>

#include "codegen_test_util.h"

namespace tessera::codegen::test {
namespace {

/// Distance in representable values between two floats of the same sign convention.
int64_t ulpDistance(double expected, double actual, DataType dtype) {
  if (std::isnan(expected) || std::isnan(actual))
    return std::isnan(expected) == std::isnan(actual) ? 0 : INT32_MAX;
  if (expected == actual) return 0;
  auto ordered = [&](double v) -> int64_t {
    if (dtype.bits() == 32) {
      float f = static_cast<float>(v);
      int32_t bits;
      std::memcpy(&bits, &f, 4);
      return bits < 0 ? int64_t{INT32_MIN} - bits : bits;
    }
    int64_t bits;
    std::memcpy(&bits, &v, 8);
    return bits < 0 ? INT64_MIN - bits : bits;
  };
  int64_t d = ordered(expected) - ordered(actual);
  return d < 0 ? -d : d;
}

/// Y = op(X) over n elements, 8 lanes at a time when `vector`.
PrimFunc unaryFunc(const std::string& op, DataType dtype, int64_t n, bool vector) {
  Buffer x = makeBuffer("X", {intImm(n)}, dtype);
  Buffer y = makeBuffer("Y", {intImm(n)}, dtype);
  if (vector) {
    Stmt body = loop("i", n / 8, [&](Var i) {
      PrimExpr index = ramp(PrimExpr(i) * 8, intImm(1), 8);
      return bufferStore(y, call(dtype.withLanes(8), op, {bufferLoad(x, {index})}), {index});
    });
    return makePrimFunc("f", {x, y}, body);
  }
  Stmt body = loop(
      "i", n, [&](Var i) { return bufferStore(y, call(dtype, op, {bufferLoad(x, {i})}), {i}); });
  return makePrimFunc("f", {x, y}, body);
}

struct Case {
  const char* op;
  std::function<double(double)> reference;
  double lo, hi;
  int64_t maxUlpF32;
};

double sigmoidRef(double x) {
  return 1.0 / (1.0 + std::exp(-x));
}

const Case kCases[] = {
    {"tir.exp", [](double x) { return std::exp(x); }, -103.0, 88.7, 2},
    {"tir.log", [](double x) { return std::log(x); }, 1e-30, 1e30, 2},
    {"tir.tanh", [](double x) { return std::tanh(x); }, -9.0, 9.0, 3},
    {"tir.erf", [](double x) { return std::erf(x); }, -4.5, 4.5, 4},
    {"tir.sigmoid", sigmoidRef, -80.0, 80.0, 3},
};

std::vector<double> samples(const Case& c, int64_t n) {
  std::vector<double> xs;
  bool logSpaced = std::string(c.op) == "tir.log";
  for (int64_t i = 0; i < n; ++i) {
    double t = static_cast<double>(i) / static_cast<double>(n - 1);
    xs.push_back(logSpaced ? std::exp(std::log(c.lo) + t * (std::log(c.hi) - std::log(c.lo)))
                           : c.lo + t * (c.hi - c.lo));
  }
  // Points near zero and the branch switches of the expansions.
  size_t k = 1;
  for (double v : {0.0, -0.0, 1e-7, -1e-7, 0.3, 0.624, 0.626, -0.626, 0.999, 1.0, 1.001, -1.001}) {
    if (v >= c.lo && v <= c.hi) xs[k++] = v;
  }
  return xs;
}

int64_t maxUlpError(const Case& c, DataType dtype, bool vector, const std::vector<double>& xs) {
  int64_t n = static_cast<int64_t>(xs.size());
  NDArray x = NDArray::empty({n}, dtype);
  for (int64_t i = 0; i < n; ++i) x.setFloat(i, xs[i]);
  NDArray y = NDArray::empty({n}, dtype);
  compileOne(unaryFunc(c.op, dtype, n, vector)).call("f", {x, y});
  int64_t worst = 0;
  for (int64_t i = 0; i < n; ++i) {
    double in = x.getFloat(i);  // the input as rounded to dtype
    double expected = c.reference(in);
    if (dtype.bits() == 32) expected = static_cast<float>(expected);
    int64_t d = ulpDistance(expected, y.getFloat(i), dtype);
    EXPECT_LE(d, c.maxUlpF32) << c.op << "(" << in << ") = " << y.getFloat(i) << ", expected "
                              << expected;
    worst = std::max(worst, d);
  }
  return worst;
}

TEST(CodegenMath, Float32AccuracyVectorAndScalar) {
  for (const Case& c : kCases) {
    std::vector<double> xs = samples(c, 4096);
    int64_t vec = maxUlpError(c, DataType::float32(), true, xs);
    int64_t scalar = maxUlpError(c, DataType::float32(), false, xs);
    std::printf("%-12s float32 max error: %lld ulp (vector), %lld ulp (scalar)\n", c.op,
                static_cast<long long>(vec), static_cast<long long>(scalar));
  }
}

TEST(CodegenMath, Float64ExpLogSigmoid) {
  for (const Case& c : kCases) {
    std::string op = c.op;
    if (op == "tir.tanh" || op == "tir.erf") continue;  // libm per lane for float64
    Case wide = c;
    wide.maxUlpF32 = 2;
    std::vector<double> xs = samples(c, 1024);
    int64_t worst = maxUlpError(wide, DataType::float64(), true, xs);
    std::printf("%-12s float64 max error: %lld ulp\n", c.op, static_cast<long long>(worst));
  }
}

TEST(CodegenMath, SpecialValues) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto run = [&](const char* op, std::vector<double> in) {
    int64_t n = 8;
    NDArray x = NDArray::empty({n}, DataType::float32());
    for (int64_t i = 0; i < n; ++i) x.setFloat(i, in[i]);
    NDArray y = NDArray::empty({n}, DataType::float32());
    compileOne(unaryFunc(op, DataType::float32(), n, true)).call("f", {x, y});
    return tessera::test::valuesOf(y);
  };
  std::vector<double> e = run("tir.exp", {inf, -inf, 0.0, 1000.0, -1000.0, 1.0, nan, -87.0});
  EXPECT_EQ(e[0], inf);
  EXPECT_EQ(e[1], 0.0);
  EXPECT_EQ(e[2], 1.0);
  EXPECT_EQ(e[3], inf);
  EXPECT_EQ(e[4], 0.0);
  EXPECT_TRUE(std::isnan(e[6]));
  std::vector<double> l = run("tir.log", {0.0, -1.0, inf, 1.0, nan, 1e-45, 2.0, 0.5});
  EXPECT_EQ(l[0], -inf);
  EXPECT_TRUE(std::isnan(l[1]));
  EXPECT_EQ(l[2], inf);
  EXPECT_EQ(l[3], 0.0);
  EXPECT_TRUE(std::isnan(l[4]));
  EXPECT_NEAR(l[5], std::log(static_cast<double>(std::numeric_limits<float>::denorm_min())), 1e-5);
  std::vector<double> t = run("tir.tanh", {inf, -inf, 50.0, -50.0, nan, 0.0, 1e-30, -1e-30});
  EXPECT_EQ(t[0], 1.0);
  EXPECT_EQ(t[1], -1.0);
  EXPECT_EQ(t[2], 1.0);
  EXPECT_EQ(t[3], -1.0);
  EXPECT_TRUE(std::isnan(t[4]));
  EXPECT_EQ(t[5], 0.0);
  std::vector<double> s = run("tir.sigmoid", {inf, -inf, 0.0, 100.0, -100.0, nan, 1.0, -1.0});
  EXPECT_EQ(s[0], 1.0);
  EXPECT_EQ(s[1], 0.0);
  EXPECT_EQ(s[2], 0.5);
  std::vector<double> r = run("tir.erf", {inf, -inf, 0.0, 10.0, -10.0, nan, 1.0, -1.0});
  EXPECT_EQ(r[0], 1.0);
  EXPECT_EQ(r[1], -1.0);
  EXPECT_EQ(r[2], 0.0);
  EXPECT_TRUE(std::isnan(r[5]));
}

TEST(CodegenMath, ScalarLoopsUsingMathAreVectorized) {
  for (const char* op : {"tir.exp", "tir.tanh", "tir.erf", "tir.sigmoid", "tir.log"}) {
    std::string ir = compileOne(unaryFunc(op, DataType::float32(), 1024, false)).llvmIR();
    EXPECT_NE(ir.find("x float>"), std::string::npos) << op << " was not vectorized";
    EXPECT_EQ(ir.find("@expf"), std::string::npos) << op;
    EXPECT_EQ(ir.find("@tanhf"), std::string::npos) << op;
    EXPECT_EQ(ir.find("@logf"), std::string::npos) << op;
  }
}

}  // namespace
}  // namespace tessera::codegen::test
