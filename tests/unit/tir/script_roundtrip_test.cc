// Print -> parse -> print of every kernel of the test models: the kernels as lowering makes
// them, as the default x86 schedules leave them, and after the TIR lowering passes. The text
// must come back unchanged and the parsed function be structurally equal to the original.
#include <gtest/gtest.h>

#include "codegen/llvm/target.h"
#include "driver/build.h"
#include "driver/pipeline.h"
#include "relay/transform/pass.h"
#include "support/diagnostic.h"
#include "tir/printer/printer.h"
#include "tir/script/parser.h"
#include "tir/structural_equal.h"
#include "tir/transform/lower.h"
#include "unit/relay/workloads/relay_testing.h"

namespace tessera {
namespace {

std::vector<tir::PrimFunc> kernelsOf(relay::IRModule module, bool scheduled) {
  relay::PassContext ctx;
  driver::CompileState state{
      .module = std::move(module), .target = codegen::hostTarget(), .defaultSchedules = scheduled};
  state.vm = driver::needsVM(state.module);
  relay::PassContext::Scope scope(ctx);
  driver::runStep(state, ctx, "Optimize");
  driver::runStep(state, ctx, "LowerGraphToTIR");
  driver::runStep(state, ctx, "ScheduleKernels");
  return state.kernels;
}

// Round-trips each kernel; returns how many were checked.
size_t expectRoundTrips(const std::vector<tir::PrimFunc>& kernels, bool structural) {
  for (const tir::PrimFunc& k : kernels) {
    std::string text = tir::toScript(k);
    tir::PrimFunc parsed;
    try {
      parsed = tir::parsePrimFunc(text, k->name);
    } catch (const DiagnosticError& e) {
      ADD_FAILURE() << e.diagnostic().str() << "\nin\n" << text;
      continue;
    }
    EXPECT_EQ(tir::toScript(parsed), text) << k->name;
    if (structural)
      EXPECT_TRUE(tir::structuralEqual(k, parsed))
          << k->name << ": " << tir::explainDifference(k, parsed) << "\n"
          << text;
  }
  return kernels.size();
}

void roundTripModel(const relay::IRModule& module, size_t minKernels) {
  std::vector<tir::PrimFunc> plain = kernelsOf(module, false);
  EXPECT_GE(expectRoundTrips(plain, true), minKernels);
  std::vector<tir::PrimFunc> scheduled = kernelsOf(module, true);
  EXPECT_GE(expectRoundTrips(scheduled, true), minKernels);
  tir::TirModule lowered;
  for (const tir::PrimFunc& k : scheduled) lowered.add(k);
  relay::PassContext ctx;
  lowered = tir::transform::lower(std::move(lowered), ctx);
  EXPECT_GE(expectRoundTrips(lowered.functions(), true), minKernels);
}

TEST(TirScriptRoundTrip, MlpKernels) {
  roundTripModel(workloads::mlp(), 3);
}

TEST(TirScriptRoundTrip, ResNet18Kernels) {
  roundTripModel(workloads::resnet(1, 10, 18, {3, 32, 32}), 8);
}

TEST(TirScriptRoundTrip, MobileNetKernels) {
  roundTripModel(workloads::mobilenet(1, 10, {3, 32, 32}, 0.25), 8);
}

// The other relay.testing workloads at the small configurations their own test runs.
struct Workload {
  const char* name;
  relay::IRModule (*make)();
  size_t minKernels;
};

class TirScriptWorkload : public ::testing::TestWithParam<Workload> {};

TEST_P(TirScriptWorkload, EveryKernelRoundTrips) {
  roundTripModel(GetParam().make(), GetParam().minKernels);
}

INSTANTIATE_TEST_SUITE_P(
    RelayTesting, TirScriptWorkload,
    ::testing::Values(Workload{"dcgan", [] { return workloads::dcgan(1, 8, 16); }, 4},
                      Workload{"lstm", [] { return workloads::lstm(2, 8); }, 2},
                      Workload{"synthetic", [] { return workloads::synthetic(); }, 3},
                      Workload{"resnet3d",
                               [] {
                                 return workloads::resnet3d(1, 10, 8, {3, 4, 12, 12});
                               },
                               4},
                      Workload{"vgg",
                               [] {
                                 return workloads::vgg(1, 10, {3, 32, 32}, 11, true, 16);
                               },
                               4},
                      Workload{"squeezenet",
                               [] {
                                 return workloads::squeezenet(1, 10, "1.1", {3, 47, 47});
                               },
                               4},
                      Workload{
                          "densenet",
                          [] {
                            return workloads::denseNet(4, 2, {1, 2, 1, 1}, {1, 3, 224, 224}, 2, 10);
                          },
                          4},
                      Workload{"inception_v3",
                               [] {
                                 return workloads::inceptionV3(1, 10, {3, 299, 299}, 32);
                               },
                               8}),
    [](const ::testing::TestParamInfo<Workload>& info) { return std::string(info.param.name); });

TEST(TirScriptRoundTrip, WholeModuleText) {
  // A module of several kernels prints and parses as one `@I.ir_module` class.
  tir::TirModule module;
  for (const tir::PrimFunc& k : kernelsOf(workloads::mlp(), true)) module.add(k);
  std::string text = tir::toScript(module);
  tir::TirModule parsed = tir::parseScript(text);
  ASSERT_EQ(parsed.functions().size(), module.functions().size());
  EXPECT_EQ(tir::toScript(parsed), text);
}

}  // namespace
}  // namespace tessera
