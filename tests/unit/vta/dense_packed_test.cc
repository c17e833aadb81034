// VTA's packed dense layer (TVM's dense_packed and its default schedule): the scheduled layer
// computes what the unscheduled one does on the reference evaluator; tensorized and lowered with
// VTA's passes it runs on the simulator bit for bit like a plain int8 reference, over batches of
// one and more, 16 and 32 output blocks, every epilogue form and one or two virtual threads; the
// counters of one small layer are derived by hand and the blocked matrix multiply's (spec §7.3)
// are TVM's; knobs that do not tile and tiles that overflow an SRAM are errors.
#include <gtest/gtest.h>

#include <random>

#include "../tir/transform_test_util.h"
#include "test_util.h"
#include "tir/transform/lower.h"
#include "vta/tir/host_program.h"
#include "vta/tir/passes.h"
#include "vta/topi/dense_packed.h"

namespace tessera::vta {
namespace {

using K = EpilogueOp::Kind;

struct Operands {
  std::vector<int8_t> data, weight;            // packed (N/b, K/c, b, c), (O/c, K/c, c, c)
  std::vector<std::vector<int32_t>> channels;  // per kAddChannel op, packed (O/c, b, c)
};

Operands randomOperands(const Config& c, const DensePackedShape& s, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> lane(-128, 127), bias(-3000, 3000);
  Operands o;
  o.data.resize(size_t(s.batch * s.inFeatures));
  o.weight.resize(size_t(s.outFeatures * s.inFeatures));
  for (int8_t& v : o.data) v = int8_t(lane(rng));
  for (int8_t& v : o.weight) v = int8_t(lane(rng));
  for (const EpilogueOp& op : s.epilogueOps()) {
    if (op.kind != K::kAddChannel) continue;
    std::vector<int32_t> b(size_t(s.outFeatures * c.batch()));
    for (int32_t& v : b) v = bias(rng);
    o.channels.push_back(b);
  }
  return o;
}

// The int8 reference in packed coordinates: int32 products, the epilogue with int32 wrap-around,
// the low byte kept.
std::vector<int8_t> reference(const Config& c, const DensePackedShape& s, const Operands& o) {
  const int64_t b = c.batch(), bi = c.blockIn(), bo = c.blockOut();
  const int64_t nk = s.inFeatures / bi, no = s.outFeatures / bo;
  std::vector<int8_t> out(size_t(s.batch * s.outFeatures));
  for (int64_t r = 0; r < s.batch / b; ++r)
    for (int64_t oc = 0; oc < no; ++oc)
      for (int64_t lb = 0; lb < b; ++lb)
        for (int64_t lo = 0; lo < bo; ++lo) {
          int32_t acc = 0;
          for (int64_t k = 0; k < nk; ++k)
            for (int64_t lk = 0; lk < bi; ++lk)
              acc += int32_t(o.data[size_t(((r * nk + k) * b + lb) * bi + lk)]) *
                     int32_t(o.weight[size_t(((oc * nk + k) * bo + lo) * bi + lk)]);
          size_t operand = 0;
          for (const EpilogueOp& op : s.epilogueOps()) {
            switch (op.kind) {
              case K::kShiftRight:
                acc >>= op.imm;
                break;
              case K::kShiftLeft:
                acc = int32_t(uint32_t(acc) << op.imm);
                break;
              case K::kAdd:
                acc = int32_t(uint32_t(acc) + uint32_t(op.imm));
                break;
              case K::kMax:
                acc = std::max<int32_t>(acc, int32_t(op.imm));
                break;
              case K::kMin:
                acc = std::min<int32_t>(acc, int32_t(op.imm));
                break;
              case K::kAddChannel:
                acc = int32_t(uint32_t(acc) +
                              uint32_t(o.channels[operand++][size_t((oc * b + lb) * bo + lo)]));
                break;
            }
          }
          out[size_t(((r * no + oc) * b + lb) * bo + lo)] = int8_t(acc);
        }
  return out;
}

tir::PrimFunc lowerForVta(const Config& c, const DensePackedShape& s, const DensePackedKnobs& k) {
  tir::Schedule sch(densePackedFunc(c, s));
  scheduleDensePacked(sch, c, s, k);
  tir::transform::PassContext ctx;
  addVtaLowerPasses(ctx, c);
  return tir::transform::lower(sch.func(), ctx);
}

// Runs the layer on a fresh command queue; returns the int8 result (and leaves the counters).
std::vector<int8_t> runLayer(const Config& c, const DensePackedShape& s, const DensePackedKnobs& k,
                             const Operands& o, CommandQueue& q) {
  const tir::PrimFunc lowered = lowerForVta(c, s, k);
  std::vector<DeviceBuffer> args;
  auto upload = [&](const void* p, size_t n) {
    args.push_back(q.bufferAlloc(n));
    q.bufferCopyIn(p, args.back(), 0, n);
  };
  upload(o.data.data(), o.data.size());
  upload(o.weight.data(), o.weight.size());
  for (const std::vector<int32_t>& ch : o.channels) upload(ch.data(), ch.size() * 4);
  std::vector<int8_t> result(size_t(s.batch * s.outFeatures));
  args.push_back(q.bufferAlloc(result.size()));
  runOnVta(lowered, q, args);
  q.bufferCopyOut(args.back(), 0, result.data(), result.size());
  return result;
}

DensePackedShape layer(int64_t batch, int64_t in, int64_t out,
                       std::optional<std::vector<EpilogueOp>> epilogue = std::nullopt) {
  DensePackedShape s;
  s.batch = batch;
  s.inFeatures = in;
  s.outFeatures = out;
  s.epilogue = std::move(epilogue);
  return s;
}

TEST(VtaDensePacked, ScheduledLayerComputesTheSameOnTheEvaluator) {
  const Config c = Config::defaults();
  const DensePackedShape s =
      layer(2, 48, 64, std::vector<EpilogueOp>{{K::kAddChannel}, {K::kShiftRight, 4}});
  const tir::PrimFunc plain = densePackedFunc(c, s);
  tir::Schedule sch(plain);
  scheduleDensePacked(sch, c, s, {.tileB = 2, .tileCo = 1, .tileCi = 1, .ocThreads = 2},
                      /*tensorize=*/false);
  const tir::PrimFunc lowered = tir::transform::lower(sch.func());
  EXPECT_NE(test::script(lowered).find("local.acc_buffer"), std::string::npos);
  EXPECT_TRUE(test::sameResults(plain, lowered, 1));
}

// Batches of 1, 2 and 4 rows; 16 and 32 output blocks; every epilogue form; 1 and 2 threads.
TEST(VtaDensePacked, SimulatorEqualsTheInt8ReferenceBitForBit) {
  const Config c = Config::defaults();
  const std::vector<EpilogueOp> requantize = {{K::kAddChannel},    {K::kMax, 0},   {K::kAdd, 128},
                                              {K::kShiftRight, 8}, {K::kMin, 127}, {K::kMax, -127}};
  const std::vector<EpilogueOp> shifts = {
      {K::kShiftLeft, 2}, {K::kAddChannel}, {K::kAddChannel}, {K::kShiftRight, 10}};
  struct Case {
    DensePackedShape shape;
    std::optional<DensePackedKnobs> knobs;  // the default knobs when absent
  };
  const std::vector<Case> cases = {
      {layer(1, 256, 256), std::nullopt},             // 16 output blocks, seed 004's epilogue
      {layer(1, 64, 512, requantize), std::nullopt},  // 32 output blocks
      {layer(1, 48, 256, requantize), DensePackedKnobs{1, 4, 3, 1}},
      {layer(1, 48, 256, requantize), DensePackedKnobs{1, 2, 1, 2}},
      {layer(2, 32, 64, shifts), DensePackedKnobs{2, 1, 2, 2}},
      {layer(4, 64, 32, std::vector<EpilogueOp>{}), DensePackedKnobs{2, 2, 4, 1}},
      {layer(4, 784, 128, requantize), std::nullopt},  // the FashionMNIST MLP's hidden layer
  };
  uint32_t seed = 0;
  for (const Case& t : cases) {
    const DensePackedKnobs k = t.knobs ? *t.knobs : defaultDensePackedKnobs(c, t.shape);
    SCOPED_TRACE("dense " + std::to_string(t.shape.batch) + "x" +
                 std::to_string(t.shape.inFeatures) + "->" + std::to_string(t.shape.outFeatures) +
                 " tile_b " + std::to_string(k.tileB) + " tile_co " + std::to_string(k.tileCo) +
                 " tile_ci " + std::to_string(k.tileCi) + " oc_nthread " +
                 std::to_string(k.ocThreads));
    const Operands o = randomOperands(c, t.shape, ++seed);
    CommandQueue q(c);
    EXPECT_EQ(runLayer(c, t.shape, k, o, q), reference(c, t.shape, o));
    // GEMM micro-ops: one per (row block, output block, input block).
    EXPECT_EQ(q.stats().gemmCounter,
              uint64_t(t.shape.batch * t.shape.outFeatures * t.shape.inFeatures / 256));
  }
}

// The default knobs: two threads over 8 output blocks, all 4 blocks of a thread, all 49 input
// blocks in one step (49 x 4 x 2 = 392 weight entries fit 1024).
TEST(VtaDensePacked, DefaultKnobsFitTheSrams) {
  const Config c = Config::defaults();
  const DensePackedKnobs k = defaultDensePackedKnobs(c, layer(1, 784, 128));
  EXPECT_EQ(k.ocThreads, 2);
  EXPECT_EQ(k.tileCo, 4);
  EXPECT_EQ(k.tileCi, 49);
  EXPECT_EQ(k.tileB, 1);
  // 1024 x 1024: per thread 32 output blocks x 16 input blocks = 512 weight entries.
  const DensePackedKnobs big = defaultDensePackedKnobs(c, layer(1, 1024, 1024));
  EXPECT_EQ(big.tileCo * big.tileCi * big.ocThreads, 1024);
  EXPECT_EQ(big.tileCo, 32);
}

// 1 x 32 by 32 x 64 (2 input blocks, 4 output blocks), tile_co 2, tile_ci 1, two threads (one
// output tile each), >> 8, max 0, min 127. Per thread: 2 reduction steps, each loading 1 input
// entry (16 B) and 2 x 1 weight entries (512 B), and one GEMM of 2 micro-op executions; then 3
// ALU operations over its 2 accumulator entries and one store of 2 entries (32 B). Kernels: per
// thread a reset, a GEMM and 3 ALU kernels of one micro-op each (the unit loops vanish, the
// output-block loop folds into a hardware loop).
TEST(VtaDensePacked, CountersOfASmallLayerByHand) {
  const Config c = Config::defaults();
  const DensePackedShape s = layer(1, 32, 64);
  const Operands o = randomOperands(c, s, 7);
  CommandQueue q(c);
  EXPECT_EQ(runLayer(c, s, {.tileB = 1, .tileCo = 2, .tileCi = 1, .ocThreads = 2}, o, q),
            reference(c, s, o));
  const Stats& st = q.stats();
  EXPECT_EQ(st.inpLoadNbytes, 2u * 2 * 16);
  EXPECT_EQ(st.wgtLoadNbytes, 2u * 2 * 2 * 256);
  EXPECT_EQ(st.accLoadNbytes, 0u);
  EXPECT_EQ(st.uopLoadNbytes, 2u * 5 * 4);
  EXPECT_EQ(st.outStoreNbytes, 2u * 2 * 16);
  EXPECT_EQ(st.gemmCounter, 2u * 2 * 2);
  EXPECT_EQ(st.aluCounter, 2u * 3 * 2);
}

// The blocked matrix multiply of spec §7.3 is dense_packed with tile_co = tile_ci = 16 blocks and
// one thread: TVM's measured counters.
TEST(VtaDensePacked, BlockedMatmulTutorialCounters) {
  const Config c = Config::defaults();
  const DensePackedShape s = layer(1, 1024, 1024);
  const Operands o = randomOperands(c, s, 8);
  CommandQueue q(c);
  EXPECT_EQ(runLayer(c, s, {.tileB = 1, .tileCo = 16, .tileCi = 16, .ocThreads = 1}, o, q),
            reference(c, s, o));
  const Stats& st = q.stats();
  EXPECT_EQ(st.inpLoadNbytes, 4096u);
  EXPECT_EQ(st.wgtLoadNbytes, 1048576u);
  EXPECT_EQ(st.accLoadNbytes, 0u);
  EXPECT_EQ(st.uopLoadNbytes, 20u);
  EXPECT_EQ(st.outStoreNbytes, 1024u);
  EXPECT_EQ(st.gemmCounter, 4096u);
  EXPECT_EQ(st.aluCounter, 192u);
}

TEST(VtaDensePacked, KnobsThatDoNotTileAreScheduleErrors) {
  const Config c = Config::defaults();
  auto error = [&](const DensePackedShape& s, DensePackedKnobs k) {
    tir::Schedule sch(densePackedFunc(c, layer(1, 48, 64)));
    return test::diagnosticOf([&] { scheduleDensePacked(sch, c, s, k); });
  };
  const Diagnostic ci = error(layer(1, 48, 64), {.tileCi = 2});  // 3 input blocks
  EXPECT_EQ(ci.code, "vta_schedule");
  EXPECT_NE(ci.message.find("dense_packed: tile_ci=2 does not divide the input-feature blocks (3)"),
            std::string::npos)
      << ci.message;
  const Diagnostic threads = error(layer(1, 48, 64), {.tileCo = 2, .ocThreads = 4});
  EXPECT_NE(threads.message.find("oc_nthread=4"), std::string::npos) << threads.message;
  const Diagnostic blocks =
      test::diagnosticOf([&] { densePackedFunc(c, layer(1, 40, 64)); });  // K = 40
  EXPECT_EQ(blocks.code, "vta_schedule");
  EXPECT_NE(blocks.message.find("features 40 -> 64 are not whole VTA blocks"), std::string::npos)
      << blocks.message;
}

// Knobs that tile the layer but whose tiles overflow an SRAM after virtual-thread replication:
// 2 threads x 16 output blocks x 64 input blocks = 2048 weight entries, WGT holds 1024.
TEST(VtaDensePacked, SramOverflowIsALoweringError) {
  const Config c = Config::defaults();
  const DensePackedShape s = layer(1, 1024, 512);
  const Diagnostic d = test::diagnosticOf(
      [&] { lowerForVta(c, s, {.tileB = 1, .tileCo = 16, .tileCi = 64, .ocThreads = 2}); });
  EXPECT_EQ(d.code, "vta_lower");
  EXPECT_NE(d.message.find("allocation exceeds bound of memory tag local.wgt_buffer: 2048 entries "
                           "needed, 1024 available"),
            std::string::npos)
      << d.message;
}

}  // namespace
}  // namespace tessera::vta
