// Graph packing of dense layers (a Tessera extension; TVM's graph_pack leaves nn.dense alone): an
// int8 dense whose int32 result is requantized to int8 takes VTA's blocked layouts — data (N/b,
// K'/c, b, c), weight (O'/c, K'/c, c, c), per-channel bias (O'/c, b, c) — with features padded to
// whole blocks and unpacked (padding sliced off) where the rows leave; a dense with a float tail
// stays on the CPU. Every packed module computes exactly what the original does on the reference
// interpreter.
#include <gtest/gtest.h>

#include "relay/builder.h"
#include "relay/op/nn.h"
#include "relay/op/tensor.h"
#include "relay/type_infer.h"
#include "relay/visit.h"
#include "test_util.h"
#include "vta/graph/graph_pack.h"

namespace tessera::vta {
namespace {

using namespace relay;

Expr requantize(Expr acc, int64_t shift) {
  acc = rightShift(add(acc, scalar(double(1 << (shift - 1)), DataType::int32())),
                   scalar(double(shift), DataType::int32()));
  return cast(clip(acc, -127, 127), DataType::int8());
}

Expr dense(Expr x, int64_t k, int64_t o, uint64_t seed, bool units = false) {
  nn::DenseAttrs attrs{.outDtype = DataType::int32()};
  if (units) attrs.units = o;
  return nn::dense(std::move(x),
                   constant(test::randomTensor({o, k}, DataType::int8(), seed, -30, 30)), attrs);
}

Expr bias(int64_t o, uint64_t seed) {
  return constant(test::randomTensor({o}, DataType::int32(), seed, -500, 500));
}

// The quantized MLP's shape: a requantized hidden layer, then float logits.
Function mlp(int64_t n, int64_t k, int64_t hidden, int64_t classes) {
  Expr h =
      add(dense(var("x", {n, k}, DataType::int8()), k, hidden, 1, /*units=*/true), bias(hidden, 2));
  h = requantize(nn::relu(h), 8);
  Expr y = add(dense(h, hidden, classes, 3), bias(classes, 4));
  return function(multiply(cast(y, DataType::float32()), scalar(0.25, DataType::float32())));
}

// The weight ranks of the nn.dense calls, in post order.
std::vector<size_t> denseWeightRanks(const Function& fn) {
  std::vector<size_t> ranks;
  postOrderVisit(fn->body, [&](const Expr& e) {
    const auto* call = e->as<CallNode>();
    const auto* op = call ? call->op->as<OpNode>() : nullptr;
    if (op && op->name == "nn.dense")
      ranks.push_back(call->args[1]->checkedType->as<TensorTypeNode>()->ndim());
  });
  return ranks;
}

TEST(GraphPackDense, RequantizedDensePacksAndTheFloatClassifierDoesNot) {
  // K = 40 and 24 hidden units: both padded to 48 and 32.
  const IRModule original = inferTypes(IRModule::fromExpr(mlp(1, 40, 24, 10)));
  const Function packed = graphPack(original.main(), {});
  EXPECT_EQ(denseWeightRanks(packed), (std::vector<size_t>{4, 2}));
  const auto* type = packed->body->checkedType->as<TensorTypeNode>();
  EXPECT_EQ(shapeToString(type->shape), "(1, 10)");  // unpacked before the classifier
  size_t packedDenses = 0;
  postOrderVisit(packed->body, [&](const Expr& e) {
    const auto* call = e->as<CallNode>();
    const auto* op = call ? call->op->as<OpNode>() : nullptr;
    if (!op || op->name != "nn.dense" ||
        call->args[1]->checkedType->as<TensorTypeNode>()->ndim() != 4)
      return;
    ++packedDenses;
    EXPECT_EQ(shapeToString(call->args[0]->checkedType->as<TensorTypeNode>()->shape),
              "(1, 3, 1, 16)");
    EXPECT_EQ(shapeToString(call->args[1]->checkedType->as<TensorTypeNode>()->shape),
              "(2, 3, 16, 16)");
    EXPECT_EQ(shapeToString(e->checkedType->as<TensorTypeNode>()->shape), "(1, 2, 1, 16)");
    EXPECT_EQ(attrsAs<nn::DenseAttrs>(call->attrs.get())->units, 32);
  });
  EXPECT_EQ(packedDenses, 1u);
  EXPECT_TRUE(test::sameBehaviour(original, IRModule::fromExpr(packed)));

  GraphPackOptions off;
  off.packDense = false;
  EXPECT_EQ(denseWeightRanks(graphPack(original.main(), off)), (std::vector<size_t>{2, 2}));
}

// TVM's region, starting at a dense layer's rows: two requantized layers packed, the second one
// reading the first's packed rows directly (K = 48 = 3 blocks), its 20 outputs padded to 32 and
// sliced off before the stop; nn.bias_add becomes an add of the packed bias.
TEST(GraphPackDense, RegionWithChainedDenseLayers) {
  Expr x = nn::relu(var("x", {2, 64}, DataType::int8()));
  Expr h = requantize(add(dense(x, 64, 48, 5), bias(48, 6)), 7);
  Expr y = requantize(nn::biasAdd(dense(h, 48, 20, 7), bias(20, 8)), 6);
  const IRModule original = inferTypes(IRModule::fromExpr(
      function(sum(cast(y, DataType::int32()), ReduceAttrs{.axis = std::vector<int64_t>{1}}))));
  GraphPackOptions region;
  region.startName = "nn.relu";
  region.stopName = "sum";
  const Function packed = graphPack(original.main(), region);
  EXPECT_EQ(denseWeightRanks(packed), (std::vector<size_t>{4, 4}));
  size_t transposes = 0, biasAdds = 0;
  postOrderVisit(packed->body, [&](const Expr& e) {
    const auto* call = e->as<CallNode>();
    const auto* op = call ? call->op->as<OpNode>() : nullptr;
    transposes += op && op->name == "transpose";
    biasAdds += op && op->name == "nn.bias_add";
  });
  EXPECT_EQ(transposes, 4u);  // data in, two weights, rows out (the biases need none)
  EXPECT_EQ(biasAdds, 0u);
  EXPECT_TRUE(test::sameBehaviour(original, IRModule::fromExpr(packed)));
}

TEST(GraphPackDense, ErrorsNameTheDense) {
  auto error = [](const Expr& body, const GraphPackOptions& options) {
    const IRModule m = inferTypes(IRModule::fromExpr(function(body)));
    return test::diagnosticOf([&] { graphPack(m.main(), options); });
  };
  // int16 operands to int32, requantized: the shape of a VTA layer, not its dtype.
  nn::DenseAttrs i32{.outDtype = DataType::int32()};
  const Expr wide =
      nn::dense(var("x", {1, 32}, DataType::int16()),
                constant(test::randomTensor({16, 32}, DataType::int16(), 1, -9, 9)), i32);
  const Diagnostic d = error(requantize(wide, 4), {});
  EXPECT_EQ(d.code, "graph_pack");
  EXPECT_EQ(d.context, "nn.dense");
  EXPECT_NE(d.message.find("int8 x int8 -> int32, found int16 x int16"), std::string::npos)
      << d.message;
  // A batch the VTA batch factor does not divide.
  GraphPackOptions batch2;
  batch2.bfactor = 2;
  const Diagnostic b =
      error(requantize(dense(var("x", {3, 32}, DataType::int8()), 32, 16, 2), 4), batch2);
  EXPECT_NE(b.message.find("batch 3 at nn.dense is not divisible by the VTA batch factor 2"),
            std::string::npos)
      << b.message;
  // A region starting at rows that are not whole blocks.
  GraphPackOptions region;
  region.startName = "nn.relu";
  region.stopName = "sum";
  const Expr rows = requantize(dense(nn::relu(var("x", {1, 40}, DataType::int8())), 40, 16, 3), 4);
  const Diagnostic r = error(
      sum(cast(rows, DataType::int32()), ReduceAttrs{.axis = std::vector<int64_t>{1}}), region);
  EXPECT_NE(r.message.find("packing starts at nn.relu with 40 features"), std::string::npos)
      << r.message;
}

}  // namespace
}  // namespace tessera::vta
