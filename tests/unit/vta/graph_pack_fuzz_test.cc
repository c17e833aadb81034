// Graph packing on generated graphs: random chains of int8 convolutions (1x1 and 3x3, strided,
// channel counts that are and are not multiples of the block), bias adds, requantization,
// residual adds, relus and pools, packed in both variants with random factors. Each either packs
// to a module that computes exactly what the original does on the interpreter, or fails with a
// graph_pack diagnostic; an internal error or a crash fails the test.
#include <gtest/gtest.h>

#include <random>

#include "relay/builder.h"
#include "relay/type_infer.h"
#include "support/diagnostic.h"
#include "test_util.h"
#include "vta/graph/graph_pack.h"

namespace tessera::vta {
namespace {

using namespace relay;

int64_t pickInt(std::mt19937& rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

struct Value {
  Expr e;
  int64_t c, h;
};

Value requantize(std::mt19937& rng, Expr acc, int64_t c, int64_t h) {
  acc = rightShift(acc, scalar(double(pickInt(rng, 4, 9)), DataType::int32()));
  return {cast(clip(acc, -127, 127), DataType::int8()), c, h};
}

Value convBlock(std::mt19937& rng, const Value& in, uint64_t seed) {
  const int64_t out = pickInt(rng, 3, 40);
  const int64_t k = pickInt(rng, 0, 1) ? 3 : 1;
  const int64_t stride = in.h >= 4 && pickInt(rng, 0, 3) == 0 ? 2 : 1;
  nn::Conv2DAttrs attrs;
  attrs.channels = out;
  attrs.kernelSize = std::vector<int64_t>{k, k};
  attrs.strides = {stride, stride};
  attrs.padding = {k / 2, k / 2, k / 2, k / 2};
  attrs.outDtype = DataType::int32();
  Expr w = constant(test::randomTensor({out, in.c, k, k}, DataType::int8(), seed, -20, 20));
  Expr acc = nn::conv2d(in.e, w, attrs);
  if (pickInt(rng, 0, 1))
    acc =
        add(acc, constant(test::randomTensor({out, 1, 1}, DataType::int32(), seed + 1, -300, 300)));
  const int64_t h = (in.h + 2 * (k / 2) - k) / stride + 1;
  return requantize(rng, acc, out, h);
}

// The packed result of the seed variant back in NCHW (padded channels dropped).
IRModule unpackedResult(const Function& packed, const TensorTypeNode& original, int64_t cfactor) {
  const auto* t = packed->body->checkedType->as<TensorTypeNode>();
  if (t->ndim() != 6) return IRModule::fromExpr(packed);
  std::vector<int64_t> nchw;
  for (const Dim& d : original.shape) nchw.push_back(d.value());
  const int64_t padded = t->shape[1].value() * cfactor;
  Expr out = transpose(packed->body, std::vector<int64_t>{0, 4, 1, 5, 2, 3});
  out = reshape(out, {nchw[0], padded, nchw[2], nchw[3]});
  out = stridedSlice(out, {0, 0, 0, 0}, nchw);
  return inferTypes(IRModule::fromExpr(makeFunction(packed->params, out)));
}

TEST(GraphPackFuzz, GeneratedGraphsPackExactlyOrFailCleanly) {
  int packedCount = 0, diagnostics = 0;
  for (uint32_t trial = 0; trial < 40; ++trial) {
    std::mt19937 rng(trial);
    GraphPackOptions opt;
    const bool region = trial % 2 == 0;
    opt.bfactor = pickInt(rng, 0, 3) == 0 ? 2 : 1;
    opt.cfactor = pickInt(rng, 0, 2) == 0 ? 8 : 16;
    const int64_t batch = pickInt(rng, 1, 2);
    const int64_t c0 = region ? opt.cfactor * pickInt(rng, 1, 2) : pickInt(rng, 3, 24);
    Value v{var("x", {batch, c0, 8, 8}, DataType::int8()), c0, 8};
    if (region) {
      opt.startName = "nn.max_pool2d";
      opt.stopName = "nn.global_avg_pool2d";
      v.e = nn::maxPool2d(v.e, {.poolSize = {1, 1}});
    }
    std::vector<Value> values = {v};
    const int blocks = int(pickInt(rng, 1, 4));
    for (int b = 0; b < blocks; ++b) {
      const Value& last = values.back();
      switch (pickInt(rng, 0, 5)) {
        case 0:
        case 1:
        case 2:
          values.push_back(convBlock(rng, last, trial * 100 + b * 10));
          break;
        case 3: {  // residual add with an earlier value of the same shape, else a relu
          const Value* other = nullptr;
          for (const Value& o : values)
            if (&o != &last && o.c == last.c && o.h == last.h) other = &o;
          if (!other) {
            values.push_back({nn::relu(last.e), last.c, last.h});
            break;
          }
          Expr sum = add(cast(last.e, DataType::int32()), cast(other->e, DataType::int32()));
          values.push_back({cast(clip(sum, -127, 127), DataType::int8()), last.c, last.h});
          break;
        }
        case 4:
          values.push_back({nn::relu(last.e), last.c, last.h});
          break;
        default:
          if (last.h >= 4)
            values.push_back({nn::maxPool2d(last.e, {.poolSize = {2, 2}, .strides = {2, 2}}),
                              last.c, last.h / 2});
          break;
      }
    }
    Expr body = values.back().e;
    if (region) body = nn::globalAvgPool2d(cast(body, DataType::int32()));
    const IRModule original = inferTypes(IRModule::fromExpr(function(body)));
    SCOPED_TRACE("trial " + std::to_string(trial) + (region ? " (region)" : " (seed variant)"));
    try {
      const Function packed = graphPack(original.main(), opt);
      const auto* type = original.main()->body->checkedType->as<TensorTypeNode>();
      const IRModule after =
          region ? IRModule::fromExpr(packed) : unpackedResult(packed, *type, opt.cfactor);
      EXPECT_TRUE(test::sameBehaviour(original, after, 1));
      ++packedCount;
    } catch (const DiagnosticError& e) {
      EXPECT_EQ(e.diagnostic().code, "graph_pack") << e.what();
      ++diagnostics;
    }
  }
  // Most generated graphs pack; the rest are the limits graph_pack reports (odd batches).
  EXPECT_GT(packedCount, 25) << diagnostics << " diagnostics";
}

}  // namespace
}  // namespace tessera::vta
