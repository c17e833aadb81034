// VTA's GEMM tensor intrinsics (gemm_intrin.h), written as the description TE produces for the
// packed convolution's innermost (b_tns, oc_tns, ic_tns) loops.
#include "vta/tir/gemm_intrin.h"

#include <mutex>
#include <optional>
#include <set>

#include "tir/function.h"
#include "tir/schedule/primitive/tensor_intrin.h"
#include "tir/stmt.h"

namespace tessera::vta {
namespace {

using namespace tir;

// The three operand tiles in their SRAM scopes; with `offsets`, each has a variable elem_offset
// that tensorize binds to the tile's position (the implementation passes it to the micro-op).
struct Tiles {
  Tiles(const Config& c, bool offsets) {
    inp = tile("inp", {c.batch(), c.blockIn()}, DataType::int8(), "local.inp_buffer", offsets);
    wgt = tile("wgt", {c.blockOut(), c.blockIn()}, DataType::int8(), "local.wgt_buffer", offsets);
    out = tile("out", {c.batch(), c.blockOut()}, DataType::int32(), "local.acc_buffer", offsets);
  }
  static Buffer tile(const std::string& name, std::vector<int64_t> shape, DataType dtype,
                     const std::string& scope, bool offsets) {
    Buffer b = makeBuffer(name, {intImm(shape[0]), intImm(shape[1])}, dtype, scope);
    auto n = std::make_shared<BufferNode>(*b);
    if (offsets) n->elemOffset = makeVar(name + "_offset");
    n->offsetFactor = static_cast<int>(shape[0] * shape[1]);
    return n;
  }
  Buffer inp, wgt, out;
};

// The batch row of a tile: an iter var when BATCH > 1; with BATCH = 1 the row loop stays (a unit
// loop, as the schedule's b_tns) but blockize binds no inner iter var to it, so the description
// indexes row 0 and the matcher sees the same block shape as the target's.
struct Row {
  Row(const Config& c) : loop(makeVar("i")), extent(c.batch()) {
    if (extent > 1) var = makeVar("vi");
  }
  PrimExpr index() const { return var ? PrimExpr(*var) : intImm(0); }
  Var loop;
  int64_t extent;
  std::optional<Var> var;
};

// for i, j, k: out[i, j] = out[i, j] + int32(inp[i, k]) * int32(wgt[j, k]) (k a reduction).
PrimFunc gemmDescription(const Config& c) {
  Tiles t(c, false);
  Row row(c);
  Var j = makeVar("j"), k = makeVar("k"), vj = makeVar("vj"), vk = makeVar("vk");
  auto block = std::make_shared<BlockNode>();
  block->name = "update";
  std::vector<PrimExpr> bindings;
  if (row.var) {
    block->iterVars.push_back(
        {{intImm(0), intImm(row.extent)}, *row.var, IterVarType::kDataPar, ""});
    bindings.push_back(row.loop);
  }
  block->iterVars.push_back({{intImm(0), intImm(c.blockOut())}, vj, IterVarType::kDataPar, ""});
  block->iterVars.push_back({{intImm(0), intImm(c.blockIn())}, vk, IterVarType::kCommReduce, ""});
  bindings.push_back(j);
  bindings.push_back(k);
  const PrimExpr i = row.index();
  block->reads = {pointRegion(t.out, {i, vj}), pointRegion(t.inp, {i, vk}),
                  pointRegion(t.wgt, {vj, vk})};
  block->writes = {pointRegion(t.out, {i, vj})};
  const DataType i32 = DataType::int32();
  block->body = bufferStore(t.out,
                            bufferLoad(t.out, {i, vj}) + cast(i32, bufferLoad(t.inp, {i, vk})) *
                                                             cast(i32, bufferLoad(t.wgt, {vj, vk})),
                            {i, vj});
  Stmt nest =
      loopNest({row.loop, j, k}, {intImm(row.extent), intImm(c.blockOut()), intImm(c.blockIn())},
               blockRealize(bindings, boolImm(true), block));
  return intrinFunction({t.inp, t.wgt, t.out}, nest);
}

// for i, j: out[i, j] = 0.
PrimFunc resetDescription(const Config& c) {
  Tiles t(c, false);
  Row row(c);
  Var j = makeVar("j"), vj = makeVar("vj");
  auto block = std::make_shared<BlockNode>();
  block->name = "reset";
  std::vector<PrimExpr> bindings;
  if (row.var) {
    block->iterVars.push_back(
        {{intImm(0), intImm(row.extent)}, *row.var, IterVarType::kDataPar, ""});
    bindings.push_back(row.loop);
  }
  block->iterVars.push_back({{intImm(0), intImm(c.blockOut())}, vj, IterVarType::kDataPar, ""});
  bindings.push_back(j);
  block->writes = {pointRegion(t.out, {row.index(), vj})};
  block->body = bufferStore(t.out, intImm(0), {row.index(), vj});
  // decompose_reduction gives the init no loop for a row no iter var uses (BATCH = 1).
  const Stmt realize = blockRealize(bindings, boolImm(true), block);
  Stmt nest = row.var ? loopNest({row.loop, j}, {intImm(row.extent), intImm(c.blockOut())}, realize)
                      : loopNest({j}, {intImm(c.blockOut())}, realize);
  return intrinFunction({t.out}, nest);
}

Stmt gemmScope(PrimExpr uopPush) {
  const Var vta = makeVar("vta");
  return attrStmt(
      vta, "coproc_scope", intImm(2),
      attrStmt(vta, "coproc_uop_scope", stringImm("VTAPushGEMMOp"), evaluate(std::move(uopPush))));
}

// The address of a tile, as TVM's `buffer.access_ptr(mask)`: (data, elem_offset, extent, mask)
// with mask 1 = read, 2 = write. Passes after tensorize move it with its buffer (a virtual
// thread's copy adds its offset); the VTA lowering turns it into an SRAM entry index (§6.8).
PrimExpr accessPtr(const Buffer& b, int mask) {
  int64_t extent = 1;
  for (const PrimExpr& d : b->shape) extent *= *asConstInt(d);
  return call(DataType::handle(), "tir.tvm_access_ptr",
              {b->data, b->elemOffset, intImm(extent), intImm(mask)});
}

PrimFunc gemmImplementation(const Config& c) {
  Tiles t(c, true);
  const PrimExpr zero = intImm(0);
  return intrinFunction({t.inp, t.wgt, t.out},
                        gemmScope(call(DataType::int32(), "vta.uop_push",
                                       {zero, zero, accessPtr(t.out, 3), accessPtr(t.inp, 1),
                                        accessPtr(t.wgt, 1), zero, zero, zero})));
}

PrimFunc resetImplementation(const Config& c) {
  Tiles t(c, true);
  const PrimExpr zero = intImm(0);
  return intrinFunction(
      {t.out},
      gemmScope(call(DataType::int32(), "vta.uop_push",
                     {zero, intImm(1), accessPtr(t.out, 2), zero, zero, zero, zero, zero})));
}

std::string shapeSuffix(const Config& c) {
  if (c.batch() == 1 && c.blockIn() == 16 && c.blockOut() == 16) return "";
  return "_" + std::to_string(c.batch()) + "x" + std::to_string(c.blockIn()) + "x" +
         std::to_string(c.blockOut());
}

}  // namespace

std::string gemmIntrinName(const Config& config) {
  return "vta.gemm" + shapeSuffix(config);
}

std::string gemmResetIntrinName(const Config& config) {
  return "vta.gemm_reset" + shapeSuffix(config);
}

void registerGemmIntrinsics(const Config& config) {
  static std::mutex mutex;
  static std::set<std::string> registered;
  std::lock_guard<std::mutex> lock(mutex);
  const std::string name = gemmIntrinName(config);
  if (!registered.insert(name).second) return;
  registerTensorIntrin(name, gemmDescription(config), gemmImplementation(config));
  registerTensorIntrin(gemmResetIntrinName(config), resetDescription(config),
                       resetImplementation(config));
}

}  // namespace tessera::vta
