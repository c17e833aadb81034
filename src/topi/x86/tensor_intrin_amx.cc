// The AMX tensor intrinsic of the int8 convolution (topi/nn_int8_amx.h): 32 output channels x all
// pixels, in units of 32 pixels over the whole reduction, each unit's 2 x 2 int32 tiles staying in
// tile registers from its first step to its last. The tile configuration (a serialising
// instruction) is loaded once per call. One is registered per geometry (the reduction's extent and
// the operands' strides are part of the description), on first use.
#include <mutex>
#include <set>

#include "tir/function.h"
#include "tir/schedule/primitive/tensor_intrin.h"
#include "tir/stmt.h"
#include "topi/nn_int8_amx.h"
#include "topi/x86/tensor_intrin.h"

namespace tessera::topi::x86 {
namespace {

using namespace tir;

constexpr int64_t kTiles = 8;
// Tile registers: the four accumulators (block b, pixel half h) are 2b + h; the weights of block b
// are 4 + b; the data of half h is 6 + h.
constexpr int64_t kWeightTile = 4, kDataTile = 6;

// The operands, shaped as the regions the intrinsic reads and writes: the weights of 2 blocks at
// every step, the data every pixel reaches, the 2 x 16 x pixels accumulators.
struct AmxBuffers {
  Buffer w, d, c;
  explicit AmxBuffers(const AmxConvGeometry& g, DataType dataDtype)
      : w(makeBuffer("W",
                     {intImm(2), intImm(g.steps), intImm(kAmxTileRows), intImm(kAmxStepChannels)},
                     DataType::int8())),
        d(makeBuffer("D", {intImm(g.groups), intImm(g.dataPixels)}, DataType::int32())),
        c(makeBuffer("C", {intImm(2), intImm(kAmxTileRows), intImm(g.pixels)}, DataType::int32())) {
  }
};

// for mo < pixels / 32, b < 2, lane < 16, mi < 32, c, ky, kx, g < 16: C[b, lane, 32 mo + mi] +=
// amxConvProduct, as the compute's reduction block is written once the schedule has split its
// pixels into units of 32 and decomposed the reduction.
PrimFunc description(const AmxConvGeometry& g, const AmxBuffers& p, DataType dataDtype) {
  const bool taps = g.kh * g.kw > 1;
  // As in the compute, reduction axes of extent 1 are left out.
  const bool chunks = g.groups > kAmxTileRows;
  std::vector<std::pair<std::string, int64_t>> dims = {
      {"b", 2}, {"lane", kAmxTileRows}, {"m", g.pixels}};
  if (chunks) dims.push_back({"c", g.groups / kAmxTileRows});
  if (taps) dims.insert(dims.end(), {{"ky", g.kh}, {"kx", g.kw}});
  dims.push_back({"g", kAmxTileRows});
  std::vector<Var> loops, iters;
  std::vector<PrimExpr> extents;
  auto block = std::make_shared<BlockNode>();
  block->name = "update";
  for (size_t i = 0; i < dims.size(); ++i) {
    loops.push_back(makeVar(dims[i].first));
    iters.push_back(makeVar("v" + dims[i].first));
    extents.push_back(intImm(dims[i].second));
    block->iterVars.push_back({{intImm(0), extents.back()},
                               iters.back(),
                               i < 3 ? IterVarType::kDataPar : IterVarType::kCommReduce,
                               ""});
  }
  const size_t t = chunks ? 4 : 3;    // index of the first tap's iter var
  const size_t r = taps ? t + 2 : t;  // of the quadruple's
  AmxConvIndex at{iters[0],
                  iters[1],
                  iters[2],
                  chunks ? PrimExpr(iters[3]) : intImm(0),
                  taps ? PrimExpr(iters[t]) : PrimExpr(),
                  taps ? PrimExpr(iters[t + 1]) : PrimExpr(),
                  iters[r]};
  AmxOperand w = [&](const std::vector<PrimExpr>& i) { return bufferLoad(p.w, i); };
  AmxOperand d = [&](const std::vector<PrimExpr>& i) { return bufferLoad(p.d, i); };
  std::vector<PrimExpr> out = {iters[0], iters[1], iters[2]};
  auto whole = [](const Buffer& b) {
    BufferRegion region{b, {}};
    for (const PrimExpr& e : b->shape) region.region.push_back(Range{intImm(0), e});
    return region;
  };
  block->reads = {whole(p.c), whole(p.w), whole(p.d)};
  block->writes = {whole(p.c)};
  block->body =
      bufferStore(p.c, bufferLoad(p.c, out) + amxConvProduct(g, dataDtype, w, d, at), out);
  // The loops: the pixels' units outermost, then b, lane, the unit's pixels and the reduction.
  Var mo = makeVar("mo"), mi = makeVar("mi");
  std::vector<PrimExpr> values(loops.begin(), loops.end());
  // (A single unit's split leaves the pixel bound to mi alone.)
  values[2] = g.pixels == kAmxUnit ? PrimExpr(mi) : PrimExpr(mo) * kAmxUnit + mi;
  std::vector<Var> nest = {mo, loops[0], loops[1], mi};
  std::vector<PrimExpr> nestExtents = {intImm(g.pixels / kAmxUnit), extents[0], extents[1],
                                       intImm(kAmxUnit)};
  nest.insert(nest.end(), loops.begin() + 3, loops.end());
  nestExtents.insert(nestExtents.end(), extents.begin() + 3, extents.end());
  return intrinFunction({p.w, p.d, p.c},
                        loopNest(nest, nestExtents, blockRealize(values, boolImm(true), block)));
}

PrimExpr addressOf(const Buffer& b, std::vector<PrimExpr> index) {
  return call(DataType::handle(), "tir.address_of", {bufferLoad(b, std::move(index))});
}

Stmt intrinsic(const std::string& name, std::vector<PrimExpr> args) {
  args.insert(args.begin(), stringImm(name));
  return evaluate(call(DataType::voidType(), "tir.call_llvm_intrin", std::move(args)));
}

PrimExpr tile(int64_t t) {
  return intImm(t, DataType::int8());
}

// The tile configuration (palette 1, every tile 16 rows of 64 bytes) in a 64-byte local buffer.
std::vector<Stmt> configureTiles(const Buffer& cfg) {
  std::vector<Stmt> s;
  const DataType u8 = DataType::uint8();
  s.push_back(bufferStore(cfg, broadcast(intImm(0, u8), 64), {ramp(intImm(0), intImm(1), 64)}));
  s.push_back(bufferStore(cfg, intImm(1, u8), {intImm(0)}));
  for (int64_t t = 0; t < kTiles; ++t) {
    s.push_back(bufferStore(cfg, intImm(kAmxStepChannels, u8), {intImm(16 + 2 * t)}));
    s.push_back(bufferStore(cfg, intImm(kAmxTileRows, u8), {intImm(48 + t)}));
  }
  s.push_back(intrinsic("llvm.x86.ldtilecfg", {addressOf(cfg, {intImm(0)})}));
  return s;
}

// Loads the accumulators, runs every reduction step on the tile unit, stores them back.
PrimFunc implementation(const AmxConvGeometry& g, const AmxBuffers& p, DataType dataDtype) {
  const std::string product =
      dataDtype == DataType::uint8() ? "llvm.x86.tdpbsud" : "llvm.x86.tdpbssd";
  const PrimExpr wStride = intImm(kAmxStepChannels, DataType::int64());
  const PrimExpr dStride = intImm(g.dataPixels * 4, DataType::int64());
  const PrimExpr cStride = intImm(g.pixels * 4, DataType::int64());
  Buffer cfg = makeBuffer("tile_config", {intImm(64)}, DataType::uint8(), "local");
  std::vector<Stmt> body = configureTiles(cfg);
  // One unit of 32 pixels (mo) at a time: its accumulators in, every step, back out.
  Var mo = makeVar("mo");
  std::vector<Stmt> unit;
  auto accumulator = [&](int64_t b, int64_t h) {
    return addressOf(p.c, {intImm(b), intImm(0), PrimExpr(mo) * kAmxUnit + h * kAmxTileRows});
  };
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t h = 0; h < 2; ++h)
      unit.push_back(
          intrinsic("llvm.x86.tileloadd64", {tile(2 * b + h), accumulator(b, h), cStride}));

  // Per chunk of 64 input channels (c), every tap, unrolled: each has its constant offset.
  Var c = makeVar("c");
  std::vector<Stmt> stepBody;
  for (int64_t ky = 0; ky < g.kh; ++ky)
    for (int64_t kx = 0; kx < g.kw; ++kx) {
      PrimExpr step = PrimExpr(c) * (g.kh * g.kw) + (ky * g.kw + kx);
      PrimExpr pixel = PrimExpr(mo) * kAmxUnit + g.tapOffset(ky, kx);
      for (int64_t b = 0; b < 2; ++b)
        stepBody.push_back(
            intrinsic("llvm.x86.tileloadd64",
                      {tile(kWeightTile + b),
                       addressOf(p.w, {intImm(b), step, intImm(0), intImm(0)}), wStride}));
      for (int64_t h = 0; h < 2; ++h)
        stepBody.push_back(intrinsic(
            "llvm.x86.tileloadd64",
            {tile(kDataTile + h),
             addressOf(p.d, {PrimExpr(c) * kAmxTileRows, pixel + h * kAmxTileRows}), dStride}));
      for (int64_t b = 0; b < 2; ++b)
        for (int64_t h = 0; h < 2; ++h)
          stepBody.push_back(
              intrinsic(product, {tile(2 * b + h), tile(kWeightTile + b), tile(kDataTile + h)}));
    }
  unit.push_back(
      forLoop(c, intImm(0), intImm(g.groups / kAmxTileRows), ForKind::kSerial, seq(stepBody)));
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t h = 0; h < 2; ++h)
      unit.push_back(
          intrinsic("llvm.x86.tilestored64", {tile(2 * b + h), accumulator(b, h), cStride}));
  body.push_back(forLoop(mo, intImm(0), intImm(g.pixels / kAmxUnit), ForKind::kSerial, seq(unit)));
  body.push_back(intrinsic("llvm.x86.tilerelease", {}));

  auto tiles = std::make_shared<BlockNode>();
  tiles->name = "amx_tiles";
  tiles->allocBuffers = {cfg};
  tiles->body = seq(body);
  return intrinFunction({p.w, p.d, p.c}, blockRealize({}, boolImm(true), tiles));
}

}  // namespace

std::string amxConvIntrinsic(const AmxConvGeometry& g, DataType dataDtype) {
  const std::string name =
      "x86.amx_conv_" + std::string(dataDtype == DataType::uint8() ? "u8" : "s8") + "_k" +
      std::to_string(g.kh) + "x" + std::to_string(g.kw) + "_c" +
      std::to_string(g.groups / kAmxTileRows) + "_p" + std::to_string(g.pitch) + "_m" +
      std::to_string(g.pixels) + "_d" + std::to_string(g.dataPixels) + "_s" +
      std::to_string(g.stride) + "_f" + std::to_string(g.phasePixels);
  static std::mutex mutex;
  static std::set<std::string> registered;
  std::lock_guard<std::mutex> lock(mutex);
  if (registered.insert(name).second) {
    AmxBuffers desc(g, dataDtype), impl(g, dataDtype);
    registerTensorIntrin(name, description(g, desc, dataDtype), implementation(g, impl, dataDtype),
                         /*override=*/true);
  }
  return name;
}

}  // namespace tessera::topi::x86
