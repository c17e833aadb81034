// The x86 tensor intrinsics: each a description (the loop nest tensorize recognises, written as
// the TE compute produces it) and an implementation (vector loads, one LLVM intrinsic call).
#include "topi/x86/tensor_intrin.h"

#include <mutex>

#include "tir/function.h"
#include "tir/schedule/primitive/tensor_intrin.h"
#include "tir/stmt.h"

namespace tessera::topi::x86 {
namespace {

using namespace tir;

BufferRegion pointRegion(const Buffer& b, const std::vector<PrimExpr>& index) {
  BufferRegion r{b, {}};
  for (const PrimExpr& i : index) r.region.push_back(Range{i, intImm(1)});
  return r;
}

PrimFunc rootFunction(const std::vector<Buffer>& buffers, Stmt body) {
  auto root = std::make_shared<BlockNode>();
  root->name = "root";
  root->body = std::move(body);
  return makePrimFunc("main", buffers, blockRealize({}, boolImm(true), root));
}

struct DotBuffers {
  Buffer a = makeBuffer("A", {intImm(4)}, DataType::uint8());
  Buffer b = makeBuffer("B", {intImm(16), intImm(4)}, DataType::int8());
  Buffer c = makeBuffer("C", {intImm(16)}, DataType::int32());
};

// for j < 16, k < 4: C[j] = C[j] + int32(A[k]) * int32(B[j, k]), as a reduction block over k.
PrimFunc vnniDescription() {
  DotBuffers p;
  Var j = makeVar("j"), k = makeVar("k"), vj = makeVar("vj"), vk = makeVar("vk");
  auto block = std::make_shared<BlockNode>();
  block->name = "update";
  block->iterVars = {{{intImm(0), intImm(16)}, vj, IterVarType::kDataPar, ""},
                     {{intImm(0), intImm(4)}, vk, IterVarType::kCommReduce, ""}};
  block->reads = {pointRegion(p.c, {vj}), pointRegion(p.a, {vk}), pointRegion(p.b, {vj, vk})};
  block->writes = {pointRegion(p.c, {vj})};
  const DataType i32 = DataType::int32();
  block->body = bufferStore(p.c,
                            bufferLoad(p.c, {vj}) + cast(i32, bufferLoad(p.a, {vk})) *
                                                        cast(i32, bufferLoad(p.b, {vj, vk})),
                            {vj});
  Stmt nest = loopNest({j, k}, {intImm(16), intImm(4)}, blockRealize({j, k}, boolImm(true), block));
  return rootFunction({p.a, p.b, p.c}, nest);
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
  return rootFunction({p.a, p.b, p.c}, bufferStore(p.c, dot, {lanes}));
}

struct SharedWeightBuffers {
  Buffer a = makeBuffer("A", {intImm(16), intImm(4)}, DataType::uint8());
  Buffer b = makeBuffer("B", {intImm(4)}, DataType::int8());
  Buffer c = makeBuffer("C", {intImm(16)}, DataType::int32());
};

// for j < 16, k < 4: C[j] = C[j] + int32(A[j, k]) * int32(B[k]).
PrimFunc sharedWeightDescription() {
  SharedWeightBuffers p;
  Var j = makeVar("j"), k = makeVar("k"), vj = makeVar("vj"), vk = makeVar("vk");
  auto block = std::make_shared<BlockNode>();
  block->name = "update";
  block->iterVars = {{{intImm(0), intImm(16)}, vj, IterVarType::kDataPar, ""},
                     {{intImm(0), intImm(4)}, vk, IterVarType::kCommReduce, ""}};
  block->reads = {pointRegion(p.c, {vj}), pointRegion(p.a, {vj, vk}), pointRegion(p.b, {vk})};
  block->writes = {pointRegion(p.c, {vj})};
  const DataType i32 = DataType::int32();
  block->body = bufferStore(p.c,
                            bufferLoad(p.c, {vj}) + cast(i32, bufferLoad(p.a, {vj, vk})) *
                                                        cast(i32, bufferLoad(p.b, {vk})),
                            {vj});
  Stmt nest = loopNest({j, k}, {intImm(16), intImm(4)}, blockRealize({j, k}, boolImm(true), block));
  return rootFunction({p.a, p.b, p.c}, nest);
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
  return rootFunction({p.a, p.b, p.c}, bufferStore(p.c, dot, {lanes}));
}

}  // namespace

void registerTensorIntrinsics() {
  static std::once_flag once;
  std::call_once(once, [] {
    registerTensorIntrin(kVnniDot16x4, vnniDescription(), vnniImplementation());
    registerTensorIntrin(kVnniDot16x4SharedWeight, sharedWeightDescription(),
                         sharedWeightImplementation());
  });
}

}  // namespace tessera::topi::x86
