// The AMX tensor intrinsic of the int8 convolution (topi/nn_int8_amx.h): 32 output channels x 32
// pixels over the whole reduction, as 2 x 2 int32 tiles that stay in tile registers from the first
// step to the last. One is registered per geometry (the reduction's extent and the operands'
// strides are part of the description), on first use.
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

// The operands, shaped as the regions the unit reads and writes: the weights of 2 blocks at every
// step, the data its 32 pixels reach, the 2 x 16 x 32 accumulators.
struct AmxBuffers {
  Buffer w, d, c;
  explicit AmxBuffers(const AmxConvGeometry& g, DataType dataDtype)
      : w(makeBuffer("W",
                     {intImm(2), intImm(g.steps), intImm(kAmxTileRows), intImm(kAmxStepChannels)},
                     DataType::int8())),
        d(makeBuffer("D", {intImm(g.groups), intImm(kAmxUnit + g.reach), intImm(4)}, dataDtype)),
        c(makeBuffer("C", {intImm(2), intImm(kAmxTileRows), intImm(kAmxUnit)}, DataType::int32())) {
  }
};

PrimFunc rootFunction(const std::vector<Buffer>& buffers, Stmt body) {
  auto root = std::make_shared<BlockNode>();
  root->name = "root";
  root->body = std::move(body);
  return makePrimFunc("main", buffers, blockRealize({}, boolImm(true), root));
}

// for b < 2, lane < 16, m < 32, c, ky, kx, g < 16, k < 4: C[b, lane, m] += the product of
// amxConvProduct, as the compute's reduction block (after decompose_reduction) is written.
PrimFunc description(const AmxConvGeometry& g, const AmxBuffers& p) {
  const bool taps = g.kh * g.kw > 1;
  // As in the compute, reduction axes of extent 1 are left out.
  const bool chunks = g.groups > kAmxTileRows;
  std::vector<std::pair<std::string, int64_t>> dims = {
      {"b", 2}, {"lane", kAmxTileRows}, {"m", kAmxUnit}};
  if (chunks) dims.push_back({"c", g.groups / kAmxTileRows});
  if (taps) dims.insert(dims.end(), {{"ky", g.kh}, {"kx", g.kw}});
  dims.insert(dims.end(), {{"g", kAmxTileRows}, {"k", 4}});
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
                  iters[r],
                  iters[r + 1]};
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
  block->body = bufferStore(p.c, bufferLoad(p.c, out) + amxConvProduct(g, w, d, at), out);
  std::vector<PrimExpr> values(loops.begin(), loops.end());
  return rootFunction({p.w, p.d, p.c},
                      loopNest(loops, extents, blockRealize(values, boolImm(true), block)));
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
  auto accumulator = [&](int64_t b, int64_t h) {
    return addressOf(p.c, {intImm(b), intImm(0), intImm(h * kAmxTileRows)});
  };
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t h = 0; h < 2; ++h)
      body.push_back(
          intrinsic("llvm.x86.tileloadd64", {tile(2 * b + h), accumulator(b, h), cStride}));

  Var c = makeVar("c"), ky = makeVar("ky"), kx = makeVar("kx");
  const bool taps = g.kh * g.kw > 1;
  PrimExpr step = taps ? (PrimExpr(c) * g.kh + ky) * g.kw + kx : PrimExpr(c);
  PrimExpr offset = taps ? PrimExpr(ky) * g.pitch + kx : intImm(0);
  std::vector<Stmt> stepBody;
  for (int64_t b = 0; b < 2; ++b)
    stepBody.push_back(intrinsic(
        "llvm.x86.tileloadd64",
        {tile(kWeightTile + b), addressOf(p.w, {intImm(b), step, intImm(0), intImm(0)}), wStride}));
  for (int64_t h = 0; h < 2; ++h)
    stepBody.push_back(intrinsic(
        "llvm.x86.tileloadd64",
        {tile(kDataTile + h),
         addressOf(p.d, {PrimExpr(c) * kAmxTileRows, offset + h * kAmxTileRows, intImm(0)}),
         dStride}));
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t h = 0; h < 2; ++h)
      stepBody.push_back(
          intrinsic(product, {tile(2 * b + h), tile(kWeightTile + b), tile(kDataTile + h)}));
  Stmt steps = seq(stepBody);
  if (taps) steps = loopNest({ky, kx}, {intImm(g.kh), intImm(g.kw)}, steps);
  body.push_back(forLoop(c, intImm(0), intImm(g.groups / kAmxTileRows), ForKind::kSerial, steps));

  for (int64_t b = 0; b < 2; ++b)
    for (int64_t h = 0; h < 2; ++h)
      body.push_back(
          intrinsic("llvm.x86.tilestored64", {tile(2 * b + h), accumulator(b, h), cStride}));
  body.push_back(intrinsic("llvm.x86.tilerelease", {}));

  auto unit = std::make_shared<BlockNode>();
  unit->name = "amx_tiles";
  unit->allocBuffers = {cfg};
  unit->body = seq(body);
  return rootFunction({p.w, p.d, p.c}, blockRealize({}, boolImm(true), unit));
}

}  // namespace

std::string amxConvIntrinsic(const AmxConvGeometry& g, DataType dataDtype) {
  const std::string name =
      "x86.amx_conv_" + std::string(dataDtype == DataType::uint8() ? "u8" : "s8") + "_k" +
      std::to_string(g.kh) + "x" + std::to_string(g.kw) + "_c" +
      std::to_string(g.groups / kAmxTileRows) + "_p" + std::to_string(g.pitch) + "_m" +
      std::to_string(g.pixels) + "_d" + std::to_string(g.dataPixels);
  static std::mutex mutex;
  static std::set<std::string> registered;
  std::lock_guard<std::mutex> lock(mutex);
  if (registered.insert(name).second) {
    AmxBuffers desc(g, dataDtype), impl(g, dataDtype);
    registerTensorIntrin(name, description(g, desc), implementation(g, impl, dataDtype),
                         /*override=*/true);
  }
  return name;
}

}  // namespace tessera::topi::x86
