// Workload runners: random packed tensors in, device output and plain reference out.
#include "vta_workload_runs.h"

#include <algorithm>

namespace tessera::vta::test {
namespace {

int32_t clipMax(const Config& cfg) {
  return (1 << (cfg.inpWidth() - 1)) - 1;
}
size_t accLanes(const Config& cfg) {
  return size_t(cfg.batch()) * cfg.blockOut();
}

RunResult finish(CommandQueue& q, DeviceBuffer out, size_t lanes, std::vector<int32_t> expected) {
  RunResult r;
  r.out = download(q, out, q.config().outWidth(), lanes);
  r.expected = std::move(expected);
  r.stats = q.stats();
  r.stream = q.lastRun();
  return r;
}

}  // namespace

RunResult runMatmulTutorial(const Config& cfg) {
  CommandQueue q(cfg);
  const int b = cfg.batch(), bi = cfg.blockIn(), bo = cfg.blockOut();
  const auto a =
      randomInts(size_t(16) * b * bi, laneMin(cfg.inpWidth()), laneMax(cfg.inpWidth()), 1);
  const auto w =
      randomInts(size_t(256) * bo * bi, laneMin(cfg.wgtWidth()), laneMax(cfg.wgtWidth()), 2);
  DeviceBuffer da = upload(q, a, cfg.inpWidth());
  DeviceBuffer dw = upload(q, w, cfg.wgtWidth());
  const size_t lanes = size_t(16) * b * bo;
  DeviceBuffer dc = q.bufferAlloc(lanes * cfg.outWidth() / 8);
  reference::matmulTutorial(q, da, dw, dc);
  return finish(q, dc, lanes,
                truncateAll(referenceMatmul(a, w, 1, 16, 16, b, bi, bo), cfg.outWidth()));
}

RunResult runBlockedMatmul(const Config& cfg) {
  CommandQueue q(cfg);
  const int b = cfg.batch(), bi = cfg.blockIn(), bo = cfg.blockOut();
  const int icb = 1024 / bi, ocb = 1024 / bo;
  const auto d =
      randomInts(size_t(icb) * b * bi, laneMin(cfg.inpWidth()), laneMax(cfg.inpWidth()), 3);
  const auto w =
      randomInts(size_t(ocb) * icb * bo * bi, laneMin(cfg.wgtWidth()), laneMax(cfg.wgtWidth()), 4);
  DeviceBuffer dd = upload(q, d, cfg.inpWidth());
  DeviceBuffer dw = upload(q, w, cfg.wgtWidth());
  const size_t lanes = size_t(ocb) * b * bo;
  DeviceBuffer dr = q.bufferAlloc(lanes * cfg.outWidth() / 8);
  reference::blockedMatmul(q, dd, dw, dr);
  return finish(
      q, dr, lanes,
      shiftClip(referenceMatmul(d, w, 1, icb, ocb, b, bi, bo), cfg.inpWidth(), clipMax(cfg)));
}

reference::Conv2dWorkload smallConv2d(const Config& cfg) {
  reference::Conv2dWorkload w = reference::Conv2dWorkload::seed004(cfg);
  w.inChannels = 4 * cfg.blockIn();
  w.outChannels = 8 * cfg.blockOut();
  w.height = w.width = 8;
  w.hBlock = 4;
  w.ocBlocks = 2;
  w.threads = 2;
  return w;
}

RunResult runConv2d(const Config& cfg, const reference::Conv2dWorkload& w) {
  CommandQueue q(cfg);
  const auto data = randomInts(size_t(w.batch) * w.inChannels * w.height * w.width,
                               laneMin(cfg.inpWidth()), laneMax(cfg.inpWidth()), 5);
  const auto kernel = randomInts(size_t(w.outChannels) * w.inChannels * w.kernel * w.kernel,
                                 laneMin(cfg.wgtWidth()), laneMax(cfg.wgtWidth()), 6);
  DeviceBuffer dd = upload(
      q, packData(data, w.batch, w.inChannels, w.height, w.width, cfg.batch(), cfg.blockIn()),
      cfg.inpWidth());
  DeviceBuffer dk = upload(
      q, packKernel(kernel, w.outChannels, w.inChannels, w.kernel, cfg.blockOut(), cfg.blockIn()),
      cfg.wgtWidth());
  const size_t lanes = size_t(w.batch) * w.outChannels * w.outHeight() * w.outWidth();
  DeviceBuffer dr = q.bufferAlloc(reference::conv2dOutputBytes(cfg, w));
  reference::conv2d(q, w, dd, dk, dr);
  return finish(
      q, dr, lanes,
      referenceConv2d(data, kernel, w.batch, w.inChannels, w.height, w.width, w.outChannels,
                      w.kernel, w.pad, w.shift, w.clipMax, cfg.batch(), cfg.blockOut()));
}

RunResult runGemm(const Config& cfg, bool smt) {
  CommandQueue q(cfg);
  const int b = cfg.batch(), bi = cfg.blockIn(), bo = cfg.blockOut();
  const auto x =
      randomInts(size_t(4) * b * bi, laneMin(cfg.inpWidth()), laneMax(cfg.inpWidth()), 7);
  const auto w =
      randomInts(size_t(4) * bo * bi, laneMin(cfg.wgtWidth()), laneMax(cfg.wgtWidth()), 8);
  DeviceBuffer dx = upload(q, x, cfg.inpWidth());
  DeviceBuffer dw = upload(q, w, cfg.wgtWidth());
  const size_t lanes = size_t(16) * b * bo;
  DeviceBuffer dy = q.bufferAlloc(lanes * cfg.outWidth() / 8);
  reference::gemm(q, dx, dw, dy, smt);
  return finish(q, dy, lanes,
                shiftClip(referenceMatmul(x, w, 4, 1, 4, b, bi, bo), 8, clipMax(cfg)));
}

RunResult runSaveLoadOut(const Config& cfg) {
  CommandQueue q(cfg);
  const auto x = randomInts(36 * accLanes(cfg), 1, 9, 9);
  DeviceBuffer dx = upload(q, x, 32);
  DeviceBuffer dy = q.bufferAlloc(x.size() * cfg.outWidth() / 8);
  reference::saveLoadOut(q, dx, dy);
  return finish(q, dy, x.size(), truncateAll(x, cfg.outWidth()));
}

RunResult runPaddedLoad(const Config& cfg, int yBefore, int xBefore, int yAfter, int xAfter) {
  CommandQueue q(cfg);
  const size_t lanesPerEntry = accLanes(cfg);
  const auto x = randomInts(15 * lanesPerEntry, 0, 9, 10);
  const int rows = 3 + yBefore + yAfter, cols = 5 + xBefore + xAfter;
  std::vector<int32_t> expected(size_t(rows) * cols * lanesPerEntry, 0);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 5; ++c)
      for (size_t l = 0; l < lanesPerEntry; ++l)
        expected[((size_t(r) + yBefore) * cols + c + xBefore) * lanesPerEntry + l] =
            x[(size_t(r) * 5 + c) * lanesPerEntry + l];
  DeviceBuffer dx = upload(q, x, 32);
  DeviceBuffer dy = q.bufferAlloc(expected.size() * cfg.outWidth() / 8);
  reference::paddedLoad(q, dx, dy, yBefore, xBefore, yAfter, xAfter);
  return finish(q, dy, expected.size(), truncateAll(expected, cfg.outWidth()));
}

RunResult runAluImm(const Config& cfg, AluOpcode op, int32_t imm, bool shiftLeft) {
  CommandQueue q(cfg);
  const auto a = randomInts(64 * accLanes(cfg), -16, 15, 11);
  std::vector<int32_t> expected = a;
  for (int32_t& v : expected) {
    switch (op) {
      case AluOpcode::kMin:
        v = std::min(v, imm);
        break;
      case AluOpcode::kMax:
        v = std::max(v, imm);
        break;
      case AluOpcode::kAdd:
        v = v + imm;
        break;
      case AluOpcode::kShr:
        v = shiftLeft ? int32_t(uint32_t(v) << imm) : v >> imm;
        break;
      case AluOpcode::kMul:
        v = v * imm;
        break;
    }
  }
  DeviceBuffer da = upload(q, a, 32);
  DeviceBuffer dr = q.bufferAlloc(a.size() * cfg.outWidth() / 8);
  reference::aluImm(q, op, shiftLeft ? -imm : imm, da, dr);
  return finish(q, dr, a.size(), truncateAll(expected, cfg.outWidth()));
}

RunResult runAluTensor(const Config& cfg, AluOpcode op) {
  CommandQueue q(cfg);
  const auto a = randomInts(64 * accLanes(cfg), -16, 15, 12);
  const auto b = randomInts(64 * accLanes(cfg), -16, 15, 13);
  std::vector<int32_t> expected(a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    switch (op) {
      case AluOpcode::kMin:
        expected[i] = std::min(a[i], b[i]);
        break;
      case AluOpcode::kMax:
        expected[i] = std::max(a[i], b[i]);
        break;
      case AluOpcode::kAdd:
        expected[i] = a[i] + b[i];
        break;
      case AluOpcode::kShr:
        expected[i] = b[i] >= 0 ? a[i] >> b[i] : a[i] << -b[i];
        break;
      case AluOpcode::kMul:
        expected[i] = a[i] * b[i];
        break;
    }
  }
  DeviceBuffer da = upload(q, a, 32);
  DeviceBuffer db = upload(q, b, 32);
  DeviceBuffer dr = q.bufferAlloc(a.size() * cfg.outWidth() / 8);
  reference::aluTensor(q, op, da, db, dr);
  return finish(q, dr, a.size(), truncateAll(expected, cfg.outWidth()));
}

RunResult runRelu(const Config& cfg) {
  CommandQueue q(cfg);
  const auto a = randomInts(80 * accLanes(cfg), -256, 255, 14);
  std::vector<int32_t> expected = a;
  for (int32_t& v : expected) v = std::clamp(v, 0, clipMax(cfg));
  DeviceBuffer da = upload(q, a, 32);
  DeviceBuffer dr = q.bufferAlloc(a.size() * cfg.outWidth() / 8);
  reference::relu(q, da, dr);
  return finish(q, dr, a.size(), truncateAll(expected, cfg.outWidth()));
}

RunResult runShiftAndScale(const Config& cfg, int32_t immShift, int32_t immScale) {
  CommandQueue q(cfg);
  const auto a = randomInts(16 * accLanes(cfg), -10, 9, 15);
  std::vector<int32_t> expected = a;
  for (int32_t& v : expected) v = (v + immShift) >> immScale;
  DeviceBuffer da = upload(q, a, 32);
  DeviceBuffer dr = q.bufferAlloc(a.size() * cfg.outWidth() / 8);
  reference::shiftAndScale(q, da, dr, immShift, immScale);
  return finish(q, dr, a.size(), truncateAll(expected, cfg.outWidth()));
}

}  // namespace tessera::vta::test
