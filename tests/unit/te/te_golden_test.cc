// Golden prints of create_prim_func (spec tir_relax.md §1.6, §1.8) and its structure: post-order,
// parameters vs allocations, blocks and iter kinds, layout_free_buffers, int64 override.
#include <gtest/gtest.h>

#include "te/create_prim_func.h"
#include "te/reduce.h"
#include "tir/printer/printer.h"
#include "topi/broadcast.h"
#include "topi/nn.h"

namespace tessera::te {
namespace {

// Seed 002's te_matmul and te_relu.
Tensor teMatmul(const Tensor& a, const Tensor& b) {
  IterVar k = reduceAxis(0, 128, "k");
  return compute(
      {128, 128}, [&](Var i, Var j) { return sum(a(i, k.var) * b(k.var, j), {k}); },
      ComputeOptions{.name = "matmul", .indexNames = {"i", "j"}});
}
Tensor teRelu(const Tensor& a) {
  return compute(
      {128, 128}, [&](Var i, Var j) { return te::max(a(i, j), tir::floatImm(0)); },
      ComputeOptions{.name = "relu", .indexNames = {"i", "j"}});
}

constexpr const char* kMatmulRelu = R"(@T.prim_func
def main(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32"), relu: T.Buffer((128, 128), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    # with T.block("root"):
    matmul = T.alloc_buffer((128, 128))
    for i, j, k in T.grid(128, 128, 128):
        with T.block("matmul"):
            v_i, v_j, v_k = T.axis.remap("SSR", [i, j, k])
            T.reads(A[v_i, v_k], B[v_k, v_j])
            T.writes(matmul[v_i, v_j])
            with T.init():
                matmul[v_i, v_j] = T.float32(0.0)
            matmul[v_i, v_j] = matmul[v_i, v_j] + A[v_i, v_k] * B[v_k, v_j]
    for i, j in T.grid(128, 128):
        with T.block("relu"):
            v_i, v_j = T.axis.remap("SS", [i, j])
            T.reads(matmul[v_i, v_j])
            T.writes(relu[v_i, v_j])
            relu[v_i, v_j] = T.max(matmul[v_i, v_j], T.float32(0.0))
)";

TEST(TeGoldenTest, MatmulReluMatchesSpec16) {
  Tensor a = placeholder({128, 128}, DataType::float32(), "A");
  Tensor b = placeholder({128, 128}, DataType::float32(), "B");
  Tensor d = teRelu(teMatmul(a, b));
  EXPECT_EQ(tir::toScript(createPrimFunc({a, b, d})), kMatmulRelu);
}

TEST(TeGoldenTest, IntermediateAsArgumentBecomesParameter) {
  Tensor a = placeholder({128, 128}, DataType::float32(), "A");
  Tensor b = placeholder({128, 128}, DataType::float32(), "B");
  Tensor c = teMatmul(a, b);
  Tensor d = teRelu(c);
  const std::string text = tir::toScript(createPrimFunc({a, b, c, d}));
  EXPECT_NE(text.find("matmul: T.Buffer((128, 128), \"float32\"), relu: T.Buffer"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("T.alloc_buffer"), std::string::npos) << text;
}

// §1.8: a max reduction over a symbolic int64 extent `n` (the 4 stays int32, as in TVM).
TEST(TeGoldenTest, SymbolicMaxMatchesSpec18) {
  Var n = var("n", DataType::int64());
  Tensor x = placeholder(std::vector<PrimExpr>{n, tir::intImm(4)}, DataType::float32(), "X");
  IterVar r = reduceAxis(0, 4, "r");
  Tensor t = compute(
      std::vector<PrimExpr>{n}, [&](Var i) { return te::max(x(i, r.var), {r}); },
      ComputeOptions{.name = "T", .indexNames = {"i"}});
  const std::string text = tir::toScript(createPrimFunc({x, t}));
  EXPECT_NE(text.find("def main(var_X: T.handle, var_T: T.handle):"), std::string::npos) << text;
  EXPECT_NE(text.find("n = T.int64()"), std::string::npos) << text;
  EXPECT_NE(text.find("X = T.match_buffer(var_X, (n, 4))"), std::string::npos) << text;
  EXPECT_NE(text.find("for i, r in T.grid(n, 4):"), std::string::npos) << text;
  EXPECT_NE(text.find("with T.block(\"T\"):"), std::string::npos) << text;
  EXPECT_NE(text.find("T.float32(-3.4028234663852886e+38)"), std::string::npos) << text;
  EXPECT_NE(text.find("= T.max("), std::string::npos) << text;
}

TEST(TeGoldenTest, TopiAddBroadcastMatchesSpec18) {
  Tensor lv = placeholder({1, 128}, DataType::float32(), "lv");
  Tensor b = placeholder({128}, DataType::float32(), "b");
  Tensor out = topi::add(lv, b);
  const std::string text = tir::toScript(createPrimFunc({lv, b, out}));
  EXPECT_NE(text.find("for ax0, ax1 in T.grid(1, 128):"), std::string::npos) << text;
  EXPECT_NE(text.find("with T.block(\"T_add\"):"), std::string::npos) << text;
  EXPECT_NE(text.find("T.reads(lv[v_ax0, v_ax1], b[v_ax1])"), std::string::npos) << text;
}

TEST(TeGoldenTest, DenseHasLayoutFreeBufferAttr) {
  Tensor x = placeholder({4, 8}, DataType::float32(), "x");
  Tensor w = placeholder({16, 8}, DataType::float32(), "w");
  Tensor y = topi::dense(x, w);
  const std::string text = tir::toScript(createPrimFunc({x, w, y}));
  EXPECT_NE(text.find("\"layout_free_buffers\": [1]"), std::string::npos) << text;
  EXPECT_NE(text.find("with T.block(\"T_matmul_NT\"):"), std::string::npos) << text;
  EXPECT_NE(text.find("v_i0, v_i1, v_k = T.axis.remap(\"SSR\", [i0, i1, k])"), std::string::npos)
      << text;
}

TEST(TeGoldenTest, Conv2dNchwHasPadTempThenConv) {
  Tensor x = placeholder({1, 3, 8, 8}, DataType::float32(), "data");
  Tensor w = placeholder({4, 3, 3, 3}, DataType::float32(), "kernel");
  Tensor y = topi::conv2dNchw(x, w, topi::Conv2DParams{.padding = {1, 1, 1, 1}});
  const std::string text = tir::toScript(createPrimFunc({x, w, y}));
  const size_t pad = text.find("with T.block(\"pad_temp\"):");
  const size_t conv = text.find("with T.block(\"conv2d_nchw\"):");
  ASSERT_NE(pad, std::string::npos) << text;
  ASSERT_NE(conv, std::string::npos) << text;
  EXPECT_LT(pad, conv);
  EXPECT_NE(text.find("T.axis.remap(\"SSSSRRR\", [nn, ff, yy, xx, rc, ry, rx])"), std::string::npos)
      << text;
}

TEST(TeGoldenTest, ReduceAxisWithOffsetPrintsRange) {
  Tensor a = placeholder({8}, DataType::float32(), "A");
  IterVar k = reduceAxis(2, 6, "k2");
  Tensor s = compute(
      std::vector<PrimExpr>{}, [&](const std::vector<Var>&) { return sum(a(k.var), {k}); },
      ComputeOptions{.name = "S"});
  const std::string text = tir::toScript(createPrimFunc({a, s}));
  EXPECT_NE(text.find("for k2 in range(2, 6):"), std::string::npos) << text;
}

TEST(TeGoldenTest, Int64OverrideWidensEveryIndex) {
  Tensor a = placeholder({128, 128}, DataType::float32(), "A");
  Tensor b = placeholder({128, 128}, DataType::float32(), "B");
  Tensor d = teRelu(teMatmul(a, b));
  const std::string text = tir::toScript(createPrimFunc({a, b, d}, DataType::int64()));
  EXPECT_NE(text.find("A: T.Buffer((T.int64(128), T.int64(128)), \"float32\")"), std::string::npos)
      << text;
  EXPECT_NE(text.find("T.grid(T.int64(128), T.int64(128), T.int64(128))"), std::string::npos)
      << text;
}

}  // namespace
}  // namespace tessera::te
