// The x86 store rewrites after LLVM's optimizations (codegen/llvm/llvm_backend.h):
// InterleaveSpreadStores joins the four stride-4 byte stores of a channel group into one 64-byte
// store, WidenOddStores turns a store of an odd number of bytes into whole and masked stores.
// Each is checked in the optimized IR (it applied, or where it must not, it did not) and
// against tir::evaluate.
#include <gtest/gtest.h>

#include "codegen_test_util.h"
#include "tir/script/parser.h"

namespace tessera::codegen::test {
namespace {

// AVX-512 BW (masked byte stores), whatever the host.
const target::Target& avx512() {
  static const target::Target t = target::Target::parse("llvm -mcpu=skylake-avx512");
  return t;
}

// out[4 p + c] = data[c, p] + 1 for `channels` of the 4 channels of each byte group, as
// the int8 kernels' data repacking writes its groups: a vector of 16 pixels per channel, the
// channels unrolled. `noalias` is the function's tir.noalias.
std::string repack(int channels, bool noalias) {
  const std::string c = std::to_string(channels);
  return R"(
@T.prim_func
def repack(data: T.Buffer((4, 64), "int8"), out: T.Buffer((256,), "int8")):
    T.func_attr({"tir.noalias": T.bool()" +
         std::string(noalias ? "True" : "False") + R"()})
    for po in range(4):
        for c in T.unroll()" +
         c + R"():
            for pi in T.vectorized(16):
                with T.block("repack"):
                    v_po, v_c, v_pi = T.axis.remap("SSS", [po, c, pi])
                    T.reads(data[v_c, v_po * 16 + v_pi])
                    T.writes(out[(v_po * 16 + v_pi) * 4 + v_c])
                    out[(v_po * 16 + v_pi) * 4 + v_c] = data[v_c, v_po * 16 + v_pi] + T.int8(1)
)";
}

// out[i] = data[i] + 1 for i < n, one vector of n lanes; out has 8 more elements, which must keep
// their values.
std::string oddRow(int n) {
  const std::string s = std::to_string(n), m = std::to_string(n + 8);
  return R"(
@T.prim_func
def row(data: T.Buffer(()" +
         s + R"(,), "int8"), out: T.Buffer(()" + m + R"(,), "int8")):
    T.func_attr({"tir.noalias": T.bool(True)})
    for i in T.vectorized()" +
         s + R"():
        with T.block("row"):
            v_i = T.axis.remap("S", [i])
            T.reads(data[v_i])
            T.writes(out[v_i])
            out[v_i] = data[v_i] + T.int8(1)
)";
}

// Compiles `func` for `target` (IR kept) and, on an AVX-512 BW host, runs it against the
// evaluator on random data.
CompiledModule compileAndCompare(const std::string& script, const target::Target& target,
                                 const std::vector<std::vector<int64_t>>& shapes) {
  const PrimFunc func = parsePrimFunc(script);
  CompiledModule m = compileKeepingIR(func, target);
  if (hostTarget().hasFeature("avx512bw") && hostTarget().hasFeature("avx512vl")) {
    std::vector<NDArray> args;
    for (size_t i = 0; i < shapes.size(); ++i)
      args.push_back(tessera::test::randomTensor(shapes[i], DataType::int8(), 30 + i, -128, 127));
    EXPECT_TRUE(matchesEvaluator(m, func, args));
  }
  return m;
}

TEST(CodegenStoreRewrites, FourSpreadStoresOfAGroupBecomeOneStore) {
  const CompiledModule m = compileAndCompare(repack(4, true), avx512(), {{4, 64}, {256}});
  EXPECT_EQ(m.llvmIR().find("llvm.masked.store.v64i8"), std::string::npos) << m.llvmIR();
  EXPECT_NE(m.llvmIR().find("store <64 x i8>"), std::string::npos) << m.llvmIR();
}

TEST(CodegenStoreRewrites, AnIncompleteGroupKeepsItsMaskedStores) {
  // Three channels of four: the group's bytes are not all written, so no whole store.
  const CompiledModule m = compileAndCompare(repack(3, true), avx512(), {{4, 64}, {256}});
  EXPECT_NE(m.llvmIR().find("llvm.masked.store.v64i8"), std::string::npos);
  EXPECT_EQ(m.llvmIR().find("store <64 x i8>"), std::string::npos);
}

TEST(CodegenStoreRewrites, StoresDoNotMovePastLoadsThatMayReadThem) {
  // Without noalias a channel's load of `data` may read what the previous channel stored to
  // `out`, so the stores stay where they are.
  const CompiledModule m = compileAndCompare(repack(4, false), avx512(), {{4, 64}, {256}});
  EXPECT_NE(m.llvmIR().find("llvm.masked.store.v64i8"), std::string::npos);
}

TEST(CodegenStoreRewrites, OddByteStoresBecomeWholeAndMaskedStores) {
  for (const int n : {19, 35, 67}) {
    const CompiledModule m = compileAndCompare(oddRow(n), avx512(), {{n}, {n + 8}});
    const std::string odd = "store <" + std::to_string(n) + " x i8>";
    EXPECT_EQ(m.llvmIR().find(odd), std::string::npos) << n << ": " << m.llvmIR();
    EXPECT_NE(m.llvmIR().find("llvm.masked.store.v"), std::string::npos) << n;
  }
}

TEST(CodegenStoreRewrites, OddByteStoresStayWithoutAvx512bw) {
  const target::Target haswell = target::Target::parse("llvm -mcpu=haswell -mattr=+avx2,+fma");
  const CompiledModule m = compileAndCompare(oddRow(35), haswell, {{35}, {43}});
  EXPECT_NE(m.llvmIR().find("store <35 x i8>"), std::string::npos) << m.llvmIR();
}

}  // namespace
}  // namespace tessera::codegen::test
