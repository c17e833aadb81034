// The x86 tensor intrinsics: each a description (the loop nest tensorize recognises, written as
// the TE compute produces it) and an implementation (vector loads, one or two LLVM intrinsic
// calls).
#include "topi/x86/tensor_intrin.h"

#include <functional>
#include <mutex>

#include "support/check.h"
#include "tir/function.h"
#include "tir/schedule/primitive/tensor_intrin.h"
#include "tir/stmt.h"

namespace tessera::topi::x86 {
namespace {

using namespace tir;

struct DotBuffers {
  Buffer a = makeBuffer("A", {intImm(4)}, DataType::uint8());
  Buffer b = makeBuffer("B", {intImm(16), intImm(4)}, DataType::int8());
  Buffer c = makeBuffer("C", {intImm(16)}, DataType::int32());
};

// The index of an operand of the 16 x 4 dot product from the block's iter vars (j: lane, k: byte).
using DotIndex = std::function<std::vector<PrimExpr>(const Var& j, const Var& k)>;

// for j < 16, k < depth: C[j] = C[j] + int32(A[ai(j, k)]) * int32(B[bi(j, k)]), as a reduction
// block over k: the description every intrinsic here shares, with its own operand shapes.
PrimFunc dotDescription(const Buffer& a, const Buffer& b, const Buffer& c, DotIndex ai, DotIndex bi,
                        int64_t depth = 4) {
  Var j = makeVar("j"), k = makeVar("k"), vj = makeVar("vj"), vk = makeVar("vk");
  auto block = std::make_shared<BlockNode>();
  block->name = "update";
  block->iterVars = {{{intImm(0), intImm(16)}, vj, IterVarType::kDataPar, ""},
                     {{intImm(0), intImm(depth)}, vk, IterVarType::kCommReduce, ""}};
  block->reads = {pointRegion(c, {vj}), pointRegion(a, ai(vj, vk)), pointRegion(b, bi(vj, vk))};
  block->writes = {pointRegion(c, {vj})};
  const DataType i32 = DataType::int32();
  block->body = bufferStore(c,
                            bufferLoad(c, {vj}) + cast(i32, bufferLoad(a, ai(vj, vk))) *
                                                      cast(i32, bufferLoad(b, bi(vj, vk))),
                            {vj});
  Stmt nest =
      loopNest({j, k}, {intImm(16), intImm(depth)}, blockRealize({j, k}, boolImm(true), block));
  return intrinFunction({a, b, c}, nest);
}

// C[j] += int32(A[k]) * int32(B[j, k]): the data group shared by all lanes.
PrimFunc vnniDescription() {
  DotBuffers p;
  return dotDescription(
      p.a, p.b, p.c, [](const Var&, const Var& k) { return std::vector<PrimExpr>{k}; },
      [](const Var& j, const Var& k) {
        return std::vector<PrimExpr>{j, k};
      });
}

// C[0:16] = vpdpbusd(C[0:16], the 4 bytes of A broadcast to every lane, B's 64 bytes).
PrimFunc vnniImplementation() {
  DotBuffers p;
  const DataType i32x16 = DataType::int32().withLanes(16);
  PrimExpr lanes = ramp(intImm(0), intImm(1), 16);
  PrimExpr group = call(DataType::int32(), "tir.reinterpret",
                        {bufferLoad(p.a, {ramp(intImm(0), intImm(1), 4)})});
  PrimExpr weights = call(i32x16, "tir.reinterpret",
                          {bufferLoad(p.b, {intImm(0), ramp(intImm(0), intImm(1), 64)})});
  PrimExpr dot = call(i32x16, "tir.call_llvm_pure_intrin",
                      {stringImm("llvm.x86.avx512.vpdpbusd.512"), bufferLoad(p.c, {lanes}),
                       broadcast(group, 16), weights});
  return intrinFunction({p.a, p.b, p.c}, bufferStore(p.c, dot, {lanes}));
}

struct SharedWeightBuffers {
  Buffer a = makeBuffer("A", {intImm(16), intImm(4)}, DataType::uint8());
  Buffer b = makeBuffer("B", {intImm(4)}, DataType::int8());
  Buffer c = makeBuffer("C", {intImm(16)}, DataType::int32());
};

// C[j] += int32(A[j, k]) * int32(B[k]): the weight group shared by all lanes.
PrimFunc sharedWeightDescription() {
  SharedWeightBuffers p;
  return dotDescription(
      p.a, p.b, p.c,
      [](const Var& j, const Var& k) {
        return std::vector<PrimExpr>{j, k};
      },
      [](const Var&, const Var& k) { return std::vector<PrimExpr>{k}; });
}

// C[0:16] = vpdpbusd(C[0:16], A's 64 bytes, the 4 bytes of B broadcast to every lane).
PrimFunc sharedWeightImplementation() {
  SharedWeightBuffers p;
  const DataType i32x16 = DataType::int32().withLanes(16);
  PrimExpr lanes = ramp(intImm(0), intImm(1), 16);
  PrimExpr data = call(i32x16, "tir.reinterpret",
                       {bufferLoad(p.a, {intImm(0), ramp(intImm(0), intImm(1), 64)})});
  PrimExpr weights = call(DataType::int32(), "tir.reinterpret",
                          {bufferLoad(p.b, {ramp(intImm(0), intImm(1), 4)})});
  PrimExpr dot = call(i32x16, "tir.call_llvm_pure_intrin",
                      {stringImm("llvm.x86.avx512.vpdpbusd.512"), bufferLoad(p.c, {lanes}), data,
                       broadcast(weights, 16)});
  return intrinFunction({p.a, p.b, p.c}, bufferStore(p.c, dot, {lanes}));
}

// The pair form's operands: A (2,) int16 data shared by all lanes, B (16, 2) int16 weights
// (sharedWeight: A (16, 2) per pixel, B (2,) shared), C (16,) int32.
struct PairBuffers {
  explicit PairBuffers(bool sharedWeight)
      : a(makeBuffer("A",
                     sharedWeight ? std::vector<PrimExpr>{intImm(16), intImm(2)}
                                  : std::vector<PrimExpr>{intImm(2)},
                     DataType::int16())),
        b(makeBuffer("B",
                     sharedWeight ? std::vector<PrimExpr>{intImm(2)}
                                  : std::vector<PrimExpr>{intImm(16), intImm(2)},
                     DataType::int16())) {}
  Buffer a, b;
  Buffer c = makeBuffer("C", {intImm(16)}, DataType::int32());
};

PrimFunc pairDescription(bool sharedWeight) {
  PairBuffers p(sharedWeight);
  DotIndex shared = [](const Var&, const Var& k) { return std::vector<PrimExpr>{k}; };
  DotIndex perLane = [](const Var& j, const Var& k) { return std::vector<PrimExpr>{j, k}; };
  return dotDescription(p.a, p.b, p.c, sharedWeight ? perLane : shared,
                        sharedWeight ? shared : perLane, 2);
}

// C[0:8] and C[8:16] each += one vpmaddwd of a half of the per-lane operand's 32 int16 with the
// shared operand's 2 int16 broadcast to every lane (as one int32).
PrimFunc pairImplementation(bool sharedWeight) {
  PairBuffers p(sharedWeight);
  const Buffer& perLane = sharedWeight ? p.a : p.b;
  const Buffer& shared = sharedWeight ? p.b : p.a;
  const DataType i16x16 = DataType::int16().withLanes(16);
  PrimExpr group = call(DataType::int32(), "tir.reinterpret",
                        {bufferLoad(shared, {ramp(intImm(0), intImm(1), 2)})});
  PrimExpr broadcasted = call(i16x16, "tir.reinterpret", {broadcast(group, 8)});
  std::vector<Stmt> halves;
  for (int64_t half = 0; half < 2; ++half) {
    PrimExpr lanes = ramp(intImm(8 * half), intImm(1), 8);
    PrimExpr operand = bufferLoad(perLane, {intImm(8 * half), ramp(intImm(0), intImm(1), 16)});
    PrimExpr dot = call(DataType::int32().withLanes(8), "tir.call_llvm_pure_intrin",
                        {stringImm("llvm.x86.avx2.pmadd.wd"), broadcasted, operand});
    halves.push_back(bufferStore(p.c, bufferLoad(p.c, {lanes}) + dot, {lanes}));
  }
  return intrinFunction({p.a, p.b, p.c}, seq(std::move(halves)));
}

// The byte form on AVX2: for each half of the 16 lanes, vpmaddubsw of the uint8 operand with the
// int8 one (16 int16 pair sums), vpmaddwd of those with ones (8 int32 sums of 4 products), vpaddd.
PrimFunc byteImplementation(bool sharedWeight) {
  const Buffer a = makeBuffer("A",
                              sharedWeight ? std::vector<PrimExpr>{intImm(16), intImm(4)}
                                           : std::vector<PrimExpr>{intImm(4)},
                              DataType::uint8());
  const Buffer b = makeBuffer("B",
                              sharedWeight ? std::vector<PrimExpr>{intImm(4)}
                                           : std::vector<PrimExpr>{intImm(16), intImm(4)},
                              DataType::int8());
  const Buffer c = makeBuffer("C", {intImm(16)}, DataType::int32());
  const Buffer& perLane = sharedWeight ? a : b;
  const Buffer& shared = sharedWeight ? b : a;
  PrimExpr group = call(DataType::int32(), "tir.reinterpret",
                        {bufferLoad(shared, {ramp(intImm(0), intImm(1), 4)})});
  const DataType sharedBytes = (sharedWeight ? DataType::int8() : DataType::uint8()).withLanes(32);
  PrimExpr broadcasted = call(sharedBytes, "tir.reinterpret", {broadcast(group, 8)});
  PrimExpr ones = broadcast(intImm(1, DataType::int16()), 16);
  std::vector<Stmt> halves;
  for (int64_t half = 0; half < 2; ++half) {
    PrimExpr lanes = ramp(intImm(8 * half), intImm(1), 8);
    PrimExpr operand = bufferLoad(perLane, {intImm(8 * half), ramp(intImm(0), intImm(1), 32)});
    PrimExpr u8 = sharedWeight ? operand : broadcasted;
    PrimExpr s8 = sharedWeight ? broadcasted : operand;
    PrimExpr pairs = call(DataType::int16().withLanes(16), "tir.call_llvm_pure_intrin",
                          {stringImm("llvm.x86.avx2.pmadd.ub.sw"), u8, s8});
    PrimExpr quads = call(DataType::int32().withLanes(8), "tir.call_llvm_pure_intrin",
                          {stringImm("llvm.x86.avx2.pmadd.wd"), pairs, ones});
    halves.push_back(bufferStore(c, bufferLoad(c, {lanes}) + quads, {lanes}));
  }
  return intrinFunction({a, b, c}, seq(std::move(halves)));
}

// The window form's operands: A (15 * stride + 4,) uint8, one row's bytes; B (4,) int8; C (16,)
// int32.
struct WindowBuffers {
  explicit WindowBuffers(int64_t stride)
      : a(makeBuffer("A", {intImm(15 * stride + 4)}, DataType::uint8())) {}
  Buffer a;
  Buffer b = makeBuffer("B", {intImm(4)}, DataType::int8());
  Buffer c = makeBuffer("C", {intImm(16)}, DataType::int32());
};

// C[j] += int32(A[stride * j + k]) * int32(B[k]).
PrimFunc windowDescription(int64_t stride) {
  WindowBuffers p(stride);
  return dotDescription(
      p.a, p.b, p.c,
      [stride](const Var& j, const Var& k) {
        return std::vector<PrimExpr>{PrimExpr(j) * intImm(stride) + PrimExpr(k)};
      },
      [](const Var&, const Var& k) { return std::vector<PrimExpr>{k}; });
}

// C[0:16] = vpdpbusd(C[0:16], vpermb(A's bytes, table), B's 4 bytes broadcast): A is read with a
// masked load of its own bytes (the row may end there), and the table's int32 lane j holds the
// byte indices stride * j + 0, 1, 2, 3, little-endian.
PrimFunc windowImplementation(int64_t stride) {
  WindowBuffers p(stride);
  const DataType i32x16 = DataType::int32().withLanes(16);
  PrimExpr bytes = ramp(intImm(0), intImm(1), 64);
  PrimExpr row = call(DataType::uint8().withLanes(64), "tir.if_then_else",
                      {lt(bytes, broadcast(intImm(15 * stride + 4), 64)), bufferLoad(p.a, {bytes}),
                       broadcast(intImm(0, DataType::uint8()), 64)});
  PrimExpr table = ramp(intImm(0x03020100), intImm(stride * 0x01010101), 16);
  PrimExpr taps = call(i32x16, "tir.call_llvm_pure_intrin",
                       {stringImm("llvm.x86.avx512.permvar.qi.512"), row, table});
  PrimExpr weights = call(DataType::int32(), "tir.reinterpret",
                          {bufferLoad(p.b, {ramp(intImm(0), intImm(1), 4)})});
  PrimExpr lanes = ramp(intImm(0), intImm(1), 16);
  PrimExpr dot = call(i32x16, "tir.call_llvm_pure_intrin",
                      {stringImm("llvm.x86.avx512.vpdpbusd.512"), bufferLoad(p.c, {lanes}), taps,
                       broadcast(weights, 16)});
  return intrinFunction({p.a, p.b, p.c}, bufferStore(p.c, dot, {lanes}));
}

}  // namespace

std::string vnniWindowIntrinsic(int64_t stride) {
  TS_CHECK(stride == 1 || stride == 2) << "the window intrinsic takes stride 1 or 2";
  return "x86.vnni_window_16x4_u8s8i32_s" + std::to_string(stride);
}

void registerTensorIntrinsics() {
  static std::once_flag once;
  std::call_once(once, [] {
    registerTensorIntrin(kVnniDot16x4, vnniDescription(), vnniImplementation());
    registerTensorIntrin(kVnniDot16x4SharedWeight, sharedWeightDescription(),
                         sharedWeightImplementation());
    registerTensorIntrin(kAvx2Dot16x2, pairDescription(false), pairImplementation(false));
    registerTensorIntrin(kAvx2Dot16x2SharedWeight, pairDescription(true), pairImplementation(true));
    registerTensorIntrin(kAvx2Dot16x4, vnniDescription(), byteImplementation(false));
    registerTensorIntrin(kAvx2Dot16x4SharedWeight, sharedWeightDescription(),
                         byteImplementation(true));
    for (int64_t stride : {1, 2})
      registerTensorIntrin(vnniWindowIntrinsic(stride), windowDescription(stride),
                           windowImplementation(stride));
  });
}

}  // namespace tessera::topi::x86
