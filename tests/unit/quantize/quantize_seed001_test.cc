// Seed 001: the partition pass under each rule configuration the seed prints (default rules, all
// reset, a relu rule only, a max_pool2d rule only, one identity rule for both, and the dense/add
// rules), then the KL-calibrated quantize followed by FuseOps. The seed cuts every print short;
// the lines it shows are compared (spans removed, as in the golden text tests), and the rest is
// checked by the boundaries each configuration must produce.
#include <gtest/gtest.h>

#include <cmath>
#include <regex>

#include "../driver/build_test_util.h"
#include "relay/quantize/quantize.h"
#include "relay/quantize/quantize_util.h"
#include "relay/text/parser.h"
#include "relay/text/printer.h"
#include "relay/transform/pass_table.h"
#include "relay/type_infer.h"
#include "test_util.h"

namespace tessera::relay::quantize {
namespace {

std::string withoutHeader(const std::string& text) {
  std::string out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    if (text.compare(pos, 2, "//") != 0) out += text.substr(pos, end - pos) + "\n";
    pos = end + 1;
  }
  return out;
}

std::string withoutSpans(const std::string& text) {
  return std::regex_replace(text, std::regex(" span=[^ \n]*"), "");
}

// The model after prerequisite_optimize, with seeded random weights.
IRModule seed001Model() {
  const std::string text = withoutHeader(
      test::readFile(test::sourcePath("tests/golden/text/seed001_prerequisite_fn.relay")));
  IRModule m = inferTypes(IRModule::fromExpr(parseExpr(text, "seed001")));
  return driver::test::withRandomConstants(m, 11);
}

std::string partitioned(const IRModule& m) {
  return printExpr(inferExprTypes(partition(m.main())));
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + 1)) ++n;
  return n;
}

// The seed's printed lines (In [4], [12], [16], [17]: identical up to where the seed stops).
const char* kBoundaryAfterFirstRelu =
    R"(fn (%data: Tensor[(1, 3, 4, 4), float32] /* ty=Tensor[(1, 3, 4, 4), float32] */) -> Tensor[(1, 8), float32] {
  %0 = nn.conv2d(%data, meta[relay.Constant][0] /* ty=Tensor[(16, 3, 3, 3), float32] */, padding=[1, 1, 1, 1], channels=16, kernel_size=[3, 3]) /* ty=Tensor[(1, 16, 4, 4), float32] */;
  %1 = nn.relu(%0) /* ty=Tensor[(1, 16, 4, 4), float32] */;
  %2 = annotation.cast_hint(%1, dtype="int8") /* ty=Tensor[(1, 16, 4, 4), float32] */;
  %3 = annotation.stop_fusion(%2) /* ty=Tensor[(1, 16, 4, 4), float32] */;
  %4 = nn.conv2d(%3, meta[relay.Constant][1] /* ty=Tensor[(16, 16, 3, 3), float32] */, padding=[1, 1, 1, 1], channels=16, kernel_size=[3, 3]) /* ty=Tensor[(1, 16, 4, 4), float32] */;
  %5 = add(%4, meta[relay.Constant][2] /* ty=Tensor[(16, 1, 1), float32] */) /* ty=Tensor[(1, 16, 4, 4), float32] */;
  %6 = nn.relu(%5) /* ty=Tensor[(1, 16, 4, 4), float32])";

// In [6] and [14]: no boundary before the max pool.
const char* kNoBoundary =
    R"(fn (%data: Tensor[(1, 3, 4, 4), float32] /* ty=Tensor[(1, 3, 4, 4), float32] */) -> Tensor[(1, 8), float32] {
  %0 = nn.conv2d(%data, meta[relay.Constant][0] /* ty=Tensor[(16, 3, 3, 3), float32] */, padding=[1, 1, 1, 1], channels=16, kernel_size=[3, 3]) /* ty=Tensor[(1, 16, 4, 4), float32] */;
  %1 = nn.relu(%0) /* ty=Tensor[(1, 16, 4, 4), float32] */;
  %2 = nn.conv2d(%1, meta[relay.Constant][1] /* ty=Tensor[(16, 16, 3, 3), float32] */, padding=[1, 1, 1, 1], channels=16, kernel_size=[3, 3]) /* ty=Tensor[(1, 16, 4, 4), float32] */;
  %3 = add(%2, meta[relay.Constant][2] /* ty=Tensor[(16, 1, 1), float32] */) /* ty=Tensor[(1, 16, 4, 4), float32] */;
  %4 = nn.relu(%3) /* ty=Tensor[(1, 16, 4, 4), float32] */;
  %5 = nn.max_pool2d(%4, pool_size=[2, 2], strides=[2, 2], padding=[0, 0, 0, 0]) /* ty=Tensor[(1, 16, 2, 2), float32])";

void expectPrefix(const std::string& printed, const std::string& seedLines) {
  EXPECT_EQ(printed.substr(0, seedLines.size()), seedLines) << printed;
}

const char* kDefaultOps[] = {"nn.conv2d", "nn.relu", "nn.max_pool2d",       "add",
                             "multiply",  "clip",    "nn.global_avg_pool2d"};

// Seed 001's reset_partition().
void resetPartition() {
  for (const char* op : kDefaultOps) kPartitionRules.reset(op);
}

std::optional<RewriteValue> identityPartitionFunction(const CallNode& call,
                                                      const std::vector<RewriteValue>& args) {
  auto [partitioned, expr] = partitionExprCheck(args[0]);
  return partitionedExpr(forwardOp(call, {expr}));
}

// The suite changes the global rule registry in the order the seed does; each test restores the
// built-in rules when it ends.
class Seed001 : public ::testing::Test {
 protected:
  void SetUp() override { registerBuiltinRules(); }
  void TearDown() override {
    kPartitionRules.reset("nn.dense");
    restoreBuiltinPartitionRules();
  }
  IRModule model = seed001Model();
};

TEST_F(Seed001, DefaultRulesPutOneBoundaryAfterTheFirstReluAndOneAfterThePool) {
  const std::string printed = partitioned(model);
  expectPrefix(printed, kBoundaryAfterFirstRelu);
  EXPECT_EQ(count(printed, "annotation.cast_hint"), 2u) << printed;
  EXPECT_EQ(count(printed, "annotation.stop_fusion"), 2u);
}

TEST_F(Seed001, AllRulesResetInsertNothing) {
  resetPartition();
  const std::string printed = partitioned(model);
  expectPrefix(printed, kNoBoundary);
  EXPECT_EQ(printed, printExpr(inferExprTypes(model.main())));
}

TEST_F(Seed001, ReluRuleOnlyMarksEveryReluOutput) {
  resetPartition();
  registerPartitionFunction("nn.relu", [](const CallNode& call, const auto& args) {
    std::vector<Expr> plain;
    for (const RewriteValue& a : args) plain.push_back(a.realize());
    return std::optional<RewriteValue>(partitionedExpr(forwardOp(call, plain)));
  });
  const std::string printed = partitioned(model);
  expectPrefix(printed, kBoundaryAfterFirstRelu);
  EXPECT_EQ(count(printed, "annotation.cast_hint"), 4u) << printed;  // four relus
}

TEST_F(Seed001, MaxPoolRuleOnlyMarksThePool) {
  resetPartition();
  registerPartitionFunction("nn.max_pool2d", [](const CallNode& call, const auto& args) {
    return std::optional<RewriteValue>(partitionedExpr(forwardOp(call, {args[0].realize()})));
  });
  const std::string printed = partitioned(model);
  expectPrefix(printed, kNoBoundary);
  EXPECT_EQ(count(printed, "annotation.cast_hint"), 1u) << printed;
}

TEST_F(Seed001, SharedIdentityRuleForReluAndPool) {
  resetPartition();
  registerPartitionFunction("nn.relu", identityPartitionFunction);
  registerPartitionFunction("nn.max_pool2d", identityPartitionFunction);
  const std::string printed = partitioned(model);
  expectPrefix(printed, kBoundaryAfterFirstRelu);
  // relu1 (before conv2), the pool (before the flatten), dense1's and dense2's relus.
  EXPECT_EQ(count(printed, "annotation.cast_hint"), 4u) << printed;
}

// add_partition_generic and dense_partition_function of the seed, with the identity rules.
std::optional<RewriteValue> addPartitionGeneric(const CallNode& call,
                                                const std::vector<RewriteValue>& args) {
  auto [lhsIn, lhs] = partitionExprCheck(args[0]);
  auto [rhsIn, rhs] = partitionExprCheck(args[1]);
  if (lhsIn && rhsIn)
    return partitionedExpr(forwardOp(call, {args[0].realize(), args[1].realize()}));
  if (!lhsIn && rhsIn) return RewriteValue(forwardOp(call, {lhs, args[1].realize()}));
  if (lhsIn && !rhsIn) {
    if (isConstantExpr(rhs)) return partitionedExpr(forwardOp(call, {lhs, rhs}));
    return RewriteValue(forwardOp(call, {args[0].realize(), rhs}));
  }
  return std::nullopt;
}

int denseDataPartitioned = 0;  // the seed prints the argument's type in that case

std::optional<RewriteValue> densePartitionFunction(const CallNode& call,
                                                   const std::vector<RewriteValue>& args) {
  auto [dataIn, data] = partitionExprCheck(args[0]);
  auto [kernelIn, kernel] = partitionExprCheck(args[1]);
  EXPECT_FALSE(kernelIn);
  if (dataIn) {
    ++denseDataPartitioned;
    data = args[0].realize();
  }
  return partitionedExpr(forwardOp(call, {data, kernel}));
}

void registerSeedDenseAddRules() {
  resetPartition();
  kPartitionRules.reset("nn.dense");
  registerPartitionFunction("nn.dense", densePartitionFunction);
  registerPartitionFunction("nn.relu", identityPartitionFunction);
  registerPartitionFunction("nn.max_pool2d", identityPartitionFunction);
  registerPartitionFunction("add", addPartitionGeneric);
}

TEST_F(Seed001, DenseAndAddRules) {
  registerSeedDenseAddRules();
  denseDataPartitioned = 0;
  const std::string printed = partitioned(model);
  expectPrefix(printed, kBoundaryAfterFirstRelu);
  EXPECT_EQ(denseDataPartitioned, 2);  // the seed prints QPartitionExpr twice
  // relu1, the pool, dense1's relu, dense2's relu and the result.
  EXPECT_EQ(count(printed, "annotation.cast_hint"), 5u) << printed;
}

// In [18]-[19]: quantize with KL calibration on one random batch, then FuseOps. The scale the
// seed prints (77.4988) comes from its random batch, so it is masked; so are the %N numbers of
// let-bound values, which count every node of the later fused functions (Tessera's come out 4
// higher: docs/design/quantization.md). Kernel boundaries, parameter names and types are compared.
const char* kFusedPrefix =
    R"(def @main(%data: Tensor[(1, 3, 4, 4), float32] /* ty=Tensor[(1, 3, 4, 4), float32] */) -> Tensor[(1, 8), float32] {
  %44 = fn (%p08: Tensor[(1, 3, 4, 4), float32] /* ty=Tensor[(1, 3, 4, 4), float32] */, Primitive=1) -> Tensor[(1, 3, 4, 4), int8] {
    %41 = multiply(%p08, Xf /* ty=float32 */) /* ty=Tensor[(1, 3, 4, 4), float32] */;
    %42 = round(%41) /* ty=Tensor[(1, 3, 4, 4), float32] */;
    %43 = clip(%42, a_min=-127f, a_max=127f) /* ty=Tensor[(1, 3, 4, 4), float32] */;
    cast(%43, dtype="int8") /* ty=Tensor[(1, 3, 4, 4), int8] */
  } /* ty=fn (Tensor[(1, 3, 4, 4), float32]) -> Tensor[(1, 3, 4, 4), int8] */;
  %45 = %44(%data) /* ty=Tensor[(1, 3, 4, 4), int8] */;
  %46 = fn (%p07: Tensor[(1, 3, 4, 4), int8] /* ty=Tensor[(1, 3, 4, 4), int8] */, %p14: Tensor[(16, 3, 3, 3), int8] /* ty=Tensor[(16, 3, 3, 3), int8] */, Primitive=1) -> Tensor[(1, 16, 4, 4), int8] {
)";

TEST_F(Seed001, KlQuantizeThenFuseOps) {
  registerSeedDenseAddRules();
  QConfig cfg = QConfig::scoped();
  cfg.calibrateMode = "kl_divergence";
  cfg.weightScale = "max";
  cfg.skipConvLayers = std::vector<int64_t>{};
  cfg.skipDenseLayer = false;
  QConfigScope scope(cfg);
  const CalibrationDataset dataset = {
      {{"data", test::randomTensor({1, 3, 4, 4}, DataType::float32(), 5, -2, 2)}}};
  denseDataPartitioned = 0;
  const IRModule q = quantize(model, {}, dataset);
  EXPECT_EQ(denseDataPartitioned, 2);
  PassContext ctx;
  const std::string fused = printModule((*passByName("FuseOps"))(q, ctx));
  auto mask = [](const std::string& text) {
    const std::string scale =
        std::regex_replace(text, std::regex("multiply\\(%p08, [0-9.e+-]+f"), "multiply(%p08, Xf");
    return std::regex_replace(scale, std::regex("%[0-9]+"), "%N");
  };
  const std::string expected = mask(kFusedPrefix);
  EXPECT_EQ(mask(fused).substr(0, expected.size()), expected) << fused;
}

// With a real calibration set (50 batches) the int8 model follows the float one: the output's
// error is a small fraction of its magnitude, on inputs calibration did not see.
TEST_F(Seed001, KlCalibratedModelTracksTheFloatModel) {
  QConfig cfg = QConfig::scoped();
  cfg.calibrateMode = "kl_divergence";
  cfg.skipConvLayers = std::vector<int64_t>{};
  QConfigScope scope(cfg);
  CalibrationDataset dataset;
  for (uint64_t i = 0; i < 50; ++i)
    dataset.push_back({{"data", test::randomTensor({1, 3, 4, 4}, DataType::float32(), 100 + i)}});
  const IRModule q = quantize(model, {}, dataset);
  for (uint64_t trial = 0; trial < 5; ++trial) {
    const NDArray x = test::randomTensor({1, 3, 4, 4}, DataType::float32(), 900 + trial);
    const NDArray ref = runOnInterpreter(model, {{"data", x}}).at(0);
    const NDArray got = runOnInterpreter(q, {{"data", x}}).at(0);
    double err = 0, norm = 0;
    for (int64_t i = 0; i < ref.numel(); ++i) {
      err += std::pow(got.getFloat(i) - ref.getFloat(i), 2);
      norm += std::pow(ref.getFloat(i), 2);
    }
    EXPECT_LT(std::sqrt(err / norm), 0.1) << "trial " << trial;
  }
}

}  // namespace
}  // namespace tessera::relay::quantize
