// tir.call_llvm_pure_intrin: a named LLVM intrinsic with operands bitcast to its parameter types
// (x86 VNNI's vpdpbusd on bytes, checked against the products computed here), and the
// diagnostics for an unknown intrinsic and for operands of the wrong size.
#include <gtest/gtest.h>

#include "codegen/llvm/target.h"
#include "codegen_test_util.h"

namespace tessera::codegen::test {
namespace {

using tessera::test::randomTensor;

// C[0:16] = vpdpbusd(C[0:16], A's 64 bytes, B's 64 bytes), through `intrinsic`.
PrimFunc dotFunction(const std::string& intrinsic, int aBytes = 64) {
  Buffer a = makeBuffer("A", {intImm(aBytes)}, DataType::uint8());
  Buffer b = makeBuffer("B", {intImm(64)}, DataType::int8());
  Buffer c = makeBuffer("C", {intImm(16)}, DataType::int32());
  const DataType i32x16 = DataType::int32().withLanes(16);
  PrimExpr lanes = ramp(intImm(0), intImm(1), 16);
  PrimExpr av = bufferLoad(a, {ramp(intImm(0), intImm(1), aBytes)});
  PrimExpr bv = bufferLoad(b, {ramp(intImm(0), intImm(1), 64)});
  PrimExpr dot = call(i32x16, "tir.call_llvm_pure_intrin",
                      {stringImm(intrinsic), bufferLoad(c, {lanes}), av, bv});
  return makePrimFunc("dot", {a, b, c}, bufferStore(c, dot, {lanes}));
}

std::string compileError(const PrimFunc& f) {
  try {
    compileOne(f);
  } catch (const DiagnosticError& e) {
    return e.what();
  }
  return "";
}

TEST(CodegenLlvmIntrinsic, VnniDotProductOfBytes) {
  if (!hostTarget().hasFeature("avx512vnni")) GTEST_SKIP() << "the host has no AVX-512 VNNI";
  const PrimFunc f = dotFunction("llvm.x86.avx512.vpdpbusd.512");
  NDArray a = randomTensor({64}, DataType::uint8(), 1, 0, 256);
  NDArray b = randomTensor({64}, DataType::int8(), 2, -128, 128);
  NDArray c = randomTensor({16}, DataType::int32(), 3, -1000, 1000);
  a.setInt(0, 255);
  b.setInt(0, -128);
  std::vector<NDArray> args = {a, b, c.copy()};
  compileOne(f).call(symbolOf(f), args);
  for (int64_t lane = 0; lane < 16; ++lane) {
    int64_t expected = c.getInt(lane);
    for (int64_t k = 0; k < 4; ++k) expected += a.getInt(lane * 4 + k) * b.getInt(lane * 4 + k);
    EXPECT_EQ(args[2].getInt(lane), expected) << "lane " << lane;
  }
}

TEST(CodegenLlvmIntrinsic, Diagnostics) {
  EXPECT_NE(compileError(dotFunction("llvm.x86.no.such.thing"))
                .find("'llvm.x86.no.such.thing' is not an intrinsic of this LLVM"),
            std::string::npos);
  // 32 bytes where the intrinsic takes 64.
  EXPECT_NE(compileError(dotFunction("llvm.x86.avx512.vpdpbusd.512", 32))
                .find("operand 1 of 'llvm.x86.avx512.vpdpbusd.512' has 256 bits, the intrinsic "
                      "takes 512"),
            std::string::npos);
}

}  // namespace
}  // namespace tessera::codegen::test
