// Masked loads of 8- and 16-bit lanes on x86 without AVX-512BW (an AVX2 CPU): a vector whose
// span lies inside its buffer is loaded whole and selected; one at the buffer's edges is loaded
// lane by lane. Padded rows (contiguous and stride 2, as a strided int8 depthwise convolution
// phase-splits its input) are compiled for Haswell and compared with tir::evaluate: the rows
// before the buffer's first and after its last take the lane-by-lane path, the rest the whole
// one.
#include <gtest/gtest.h>

#include <regex>

#include "codegen/llvm/target.h"
#include "codegen_test_util.h"
#include "tir/script/parser.h"
#include "tir/transform/lower.h"

namespace tessera::codegen::test {
namespace {

// out[c, y, p, x] = p0[c, y - 1, stride * x + p - 1] inside the input, else -7: `stride` phases
// of each padded row, a vector over x.
std::string paddedRows(const std::string& dtype, int64_t width, int64_t stride) {
  const int64_t lanes = (width + 2 + stride - 1) / stride;
  const std::string w = std::to_string(width), x = std::to_string(lanes),
                    s = std::to_string(stride);
  return R"(
@T.prim_func
def pad(p0: T.Buffer((3, 5, )" +
         w + R"(), ")" + dtype + R"("), out: T.Buffer((3, 7, )" + s + ", " + x + R"(), ")" + dtype +
         R"(")):
    T.func_attr({"tir.noalias": T.bool(True)})
    for c, y, p in T.grid(3, 7, )" +
         s + R"():
        for x in T.vectorized()" +
         x + R"():
            with T.block("pad"):
                v_c, v_y, v_p, v_x = T.axis.remap("SSSS", [c, y, p, x])
                T.reads(p0[v_c, v_y - 1, v_x * )" +
         s + R"( + v_p - 1])
                T.writes(out[v_c, v_y, v_p, v_x])
                out[v_c, v_y, v_p, v_x] = T.if_then_else(v_y >= 1 and v_y < 6 and v_x * )" +
         s + R"( + v_p >= 1 and v_x * )" + s + " + v_p < " + std::to_string(width + 1) +
         R"(, p0[v_c, v_y - 1, v_x * )" + s + R"( + v_p - 1], T.)" + dtype + R"((-7))
)";
}

TEST(CodegenNarrowMaskedLoad, PaddedRowsMatchTheEvaluatorWithoutAvx512bw) {
  if (!hostTarget().hasFeature("avx2")) GTEST_SKIP() << "the host has no AVX2";
  const target::Target haswell = target::Target::parse("llvm -mcpu=haswell -mattr=+avx2,+fma");
  for (const DataType dtype : {DataType::int8(), DataType::int16()})
    for (const int64_t stride : {1, 2})
      for (const int64_t width : {13, 30, 112}) {
        const PrimFunc func = parsePrimFunc(paddedRows(dtype.name(), width, stride));
        const int64_t lanes = (width + 2 + stride - 1) / stride;
        const std::vector<NDArray> args = {
            tessera::test::randomTensor({3, 5, width}, dtype, 21, -100, 100),
            NDArray::empty({3, 7, stride, lanes}, dtype)};
        std::vector<NDArray> expected = deepCopy(args), actual = deepCopy(args);
        evaluate(func, expected);
        const CompiledModule m = compileOne(tir::transform::lower(func), haswell);
        m.call("pad", actual);
        const std::string what =
            dtype.name() + " width " + std::to_string(width) + " stride " + std::to_string(stride);
        EXPECT_TRUE(tessera::test::allClose(actual[1], expected[1], 0, 0)) << what;
        EXPECT_NE(m.llvmIR().find("span_inside"), std::string::npos) << what;
        // No vector of a lane count that is not a power of two passes between blocks (AVX2
        // moved such a phi through memory one lane at a time).
        const std::regex phi(R"(phi <(\d+) x i)");
        for (auto it = std::sregex_iterator(m.llvmIR().begin(), m.llvmIR().end(), phi);
             it != std::sregex_iterator(); ++it) {
          const int lanes = std::stoi((*it)[1].str());
          EXPECT_EQ(lanes & (lanes - 1), 0) << what << ": " << it->str();
        }
      }
}

// With AVX-512BW the masked load is one instruction: no run-time test of the span.
TEST(CodegenNarrowMaskedLoad, Avx512bwKeepsTheMaskedLoad) {
  const target::Target skylake =
      target::Target::parse("llvm -mcpu=skylake-avx512 -mattr=+avx512f,+avx512bw");
  const PrimFunc func = parsePrimFunc(paddedRows("int8", 30, 2));
  TirModule module;
  module.add(tir::transform::lower(func));
  CompileOptions options;
  options.keepIR = true;
  const CompiledModule m = compile(module, skylake, options);
  EXPECT_EQ(m.llvmIR().find("span_inside"), std::string::npos);
}

}  // namespace
}  // namespace tessera::codegen::test
