// TOPI computes that the relay catalogue does not reach directly (matmul transposes and batch
// broadcasting, NCHWc convolution, prelu, tile, repeat), checked with tir::evaluate against
// reference loops or against another compute.
#include <gtest/gtest.h>

#include "te/create_prim_func.h"
#include "test_util.h"
#include "tir/eval/eval.h"
#include "tir/printer/printer.h"
#include "topi/nn.h"
#include "topi/transform.h"

namespace tessera::topi {
namespace {

using te::placeholder;
using test::allClose;
using test::randomTensor;
using test::tensorOf;
using test::valuesOf;

NDArray run(const std::vector<Tensor>& args, std::vector<NDArray> inputs) {
  const Tensor& out = args.back();
  NDArray o = NDArray::empty(constShape(out, "test"), out.dtype());
  inputs.push_back(o);
  tir::evaluate(te::createPrimFunc(args), inputs);
  return o;
}

TEST(TopiTest, MatmulTransposesAndBatchBroadcast) {
  // a: (2, 1, 5, 3) used transposed -> (.., 3, 5); b: (4, 5, 6) -> out (2, 4, 3, 6).
  Tensor a = placeholder({2, 1, 5, 3}, DataType::float32(), "a");
  Tensor b = placeholder({4, 5, 6}, DataType::float32(), "b");
  Tensor c = matmul(a, b, /*transposeA=*/true, /*transposeB=*/false);
  EXPECT_EQ(c.name(), "T_matmul_TN");
  NDArray av = randomTensor({2, 1, 5, 3}, DataType::float32(), 1);
  NDArray bv = randomTensor({4, 5, 6}, DataType::float32(), 2);
  NDArray out = run({a, b, c}, {av, bv});
  std::vector<double> x = valuesOf(av), y = valuesOf(bv), expect;
  for (int p = 0; p < 2; ++p)
    for (int q = 0; q < 4; ++q)
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 6; ++j) {
          double s = 0;
          for (int k = 0; k < 5; ++k) s += x[(p * 5 + k) * 3 + i] * y[(q * 5 + k) * 6 + j];
          expect.push_back(s);
        }
  EXPECT_TRUE(allClose(out, tensorOf({2, 4, 3, 6}, DataType::float32(), expect), 1e-5, 1e-5));
}

TEST(TopiTest, MatmulNamesFollowTransposeFlags) {
  Tensor a = placeholder({3, 3}, DataType::float32(), "a");
  EXPECT_EQ(matmul(a, a).name(), "T_matmul_NN");
  EXPECT_EQ(matmul(a, a, false, true).op()->tag, "dense");
  EXPECT_EQ(matmul(a, a, true, true).name(), "T_matmul_TT");
}

// conv2d_NCHWc on re-blocked operands equals conv2d_nchw re-blocked.
TEST(TopiTest, Conv2dNCHWcMatchesNchw) {
  Tensor x = placeholder({1, 4, 6, 5}, DataType::float32(), "x");
  Tensor w = placeholder({6, 4, 3, 3}, DataType::float32(), "w");
  Conv2DParams p{.strides = {2, 1}, .padding = {1, 1, 1, 1}};
  Tensor ref = layoutTransform(conv2dNchw(x, w, p), "NCHW", "NCHW2c", shapeOf({1, 3, 3, 5, 2}));
  const auto [dataLayout, kernelLayout] = nchwcLayouts(2, 2);
  EXPECT_EQ(dataLayout, "NCHW2c");
  EXPECT_EQ(kernelLayout, "OIHW2i2o");
  Tensor xc = layoutTransform(x, "NCHW", dataLayout, shapeOf({1, 2, 6, 5, 2}));
  Tensor wc = layoutTransform(w, "OIHW", kernelLayout, shapeOf({3, 2, 3, 3, 2, 2}));
  Tensor got = conv2dNCHWc(xc, wc, p);
  NDArray xv = randomTensor({1, 4, 6, 5}, DataType::float32(), 3);
  NDArray wv = randomTensor({6, 4, 3, 3}, DataType::float32(), 4);
  EXPECT_TRUE(allClose(run({x, w, got}, {xv, wv}), run({x, w, ref}, {xv, wv}), 1e-5, 1e-5));
}

TEST(TopiTest, PreluScalesNegativesPerChannel) {
  Tensor x = placeholder({2, 3}, DataType::float32(), "x");
  Tensor alpha = placeholder({3}, DataType::float32(), "alpha");
  NDArray out = run({x, alpha, prelu(x, alpha, 1)},
                    {tensorOf({2, 3}, DataType::float32(), {-1, 2, -3, 4, -5, 6}),
                     tensorOf({3}, DataType::float32(), {0.5, 0.25, 0.125})});
  EXPECT_TRUE(allClose(out, tensorOf({2, 3}, DataType::float32(), {-0.5, 2, -0.375, 4, -1.25, 6})));
}

TEST(TopiTest, TileAndRepeatFollowNumpy) {
  Tensor x = placeholder({2, 3}, DataType::int32(), "x");
  NDArray xv = tensorOf({2, 3}, DataType::int32(), {1, 2, 3, 4, 5, 6});
  NDArray t = run({x, tile(x, {2, 1, 2})}, {xv});
  ASSERT_EQ(t.shape(), (std::vector<int64_t>{2, 2, 6}));
  EXPECT_TRUE(allClose(t,
                       tensorOf({2, 2, 6}, DataType::int32(), {1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6,
                                                               1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6}),
                       0, 0));
  NDArray r = run({x, repeat(x, 2, -1)}, {xv});
  EXPECT_TRUE(
      allClose(r, tensorOf({2, 6}, DataType::int32(), {1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6}), 0, 0));
}

TEST(TopiErrorsTest, BroadcastMismatchIsADiagnostic) {
  Tensor a = placeholder({3, 4}, DataType::float32(), "a");
  Tensor b = placeholder({5}, DataType::float32(), "b");
  Diagnostic d = test::diagnosticOf([&] { broadcastShape(a.shape(), b.shape(), "T_add"); });
  EXPECT_EQ(d.code, "topi_broadcast");
  EXPECT_NE(d.message.find("extents 4 and 5 do not broadcast"), std::string::npos) << d.message;
}

TEST(TopiErrorsTest, ConvWindowLargerThanInput) {
  Tensor x = placeholder({1, 1, 2, 2}, DataType::float32(), "x");
  Tensor w = placeholder({1, 1, 3, 3}, DataType::float32(), "w");
  Diagnostic d = test::diagnosticOf([&] { conv2dNchw(x, w, {}); });
  EXPECT_EQ(d.code, "topi_conv");
}

}  // namespace
}  // namespace tessera::topi
