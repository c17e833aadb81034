// x86's FTVMAlterOpLayout rule for nn.conv2d (TVM's topi/x86/conv2d_alter_op.py, without tuning
// records): NCHW convolutions become NCHW[x]c ones, whose kernels keep a block of channels in
// one vector register — each output pixel's block is a vector, each weight tap a vector.
//
// Where it pays (bench/results/2026-11-25-peers-alter-op-layout.md; docs/design/x86-schedules.md):
// - depthwise convolutions always: in NCHW their vectors run along a row of pixels and every tap
//   shifts the row; in NCHW16c a tap is one vector multiply-add of whole channel blocks;
// - a dense (groups 1) convolution only when its input already arrives blocked (its producer was
//   altered): then staying blocked saves two transforms, while a chain of NCHW convolutions
//   (ResNet's Winograd and packed kernels, which are faster there) is left as it is;
// - an image stem (fewer than 8 input channels) whose consumer is blocked on its own (MobileNet's
//   first depthwise convolution): its input, all channels one block, is the smaller of the two
//   tensors to transform, and its blocked kernel is faster too (MobileNetV2's stem with its
//   transform: 0.46 -> 0.16 ms on Zen 5). ResNet's stem, whose consumers stay NCHW, is left.
// Blocks are one vector register of float32 channels (16 with AVX-512), else 8; a dense
// convolution's input block is the one its producer chose.
#include <algorithm>
#include <regex>

#include "relay/op/nn.h"
#include "relay/strategy/strategy_util.h"
#include "relay/transform/alter_op_layout.h"

namespace tessera::relay::strategy {
namespace {

/// Fewer input channels than this make a convolution an image stem (RGB, gray).
constexpr int64_t kStemChannels = 8;

// One vector register of float32 channels (16 with AVX-512), else 8.
int64_t channelBlock(int64_t channels, const target::Target& target) {
  const int64_t lanes = std::max(8, target.vectorBytes() / 4);
  if (channels % lanes == 0) return lanes;
  if (channels % 8 == 0) return 8;
  return 0;
}

/// The block of an NCHW[x]c layout, or 0 for any other layout.
int64_t nchwcBlock(const std::string& layout) {
  static const std::regex nchwc("NCHW([0-9]+)c");
  std::smatch m;
  return std::regex_match(layout, m, nchwc) ? std::stoll(m[1]) : 0;
}

std::optional<LayoutAlteration> alterConv2d(const CallNode& call,
                                            const std::vector<std::string>& heldLayouts,
                                            const std::string& consumerLayout,
                                            const target::Target& target) {
  const auto& a = attrsOf<Conv2DAttrs>(call.attrs);
  if (a.dataLayout != "NCHW" || a.kernelLayout != "OIHW" || !a.outLayout.empty()) return {};
  const Type& dataType = call.args.at(0)->checkedType;
  const Type& weightType = call.args.at(1)->checkedType;
  const auto* d = dataType ? dataType->as<TensorTypeNode>() : nullptr;
  const auto* w = weightType ? weightType->as<TensorTypeNode>() : nullptr;
  if (!d || !w || !d->dtype.isFloat() || d->dtype.bits() != 32 || !(w->dtype == d->dtype))
    return {};
  const std::optional<std::vector<int64_t>> ds = staticShape(d->shape);
  const std::optional<std::vector<int64_t>> ws = staticShape(w->shape);
  if (!ds || !ws || ds->size() != 4 || ws->size() != 4) return {};
  const int64_t channels = (*ds)[1], outChannels = (*ws)[0];

  Conv2DAttrs altered = a;
  if (a.groups == channels && outChannels == channels && (*ws)[1] == 1) {
    const int64_t block = channelBlock(channels, target);
    if (block == 0) return {};
    const std::string b = std::to_string(block);
    altered.dataLayout = "NCHW" + b + "c";
    altered.kernelLayout = "OIHW1i" + b + "o";
  } else {
    int64_t inBlock = nchwcBlock(heldLayouts.at(0));
    int64_t outBlock = channelBlock(outChannels, target);
    const int64_t wantedBlock = nchwcBlock(consumerLayout);
    if (inBlock == 0 && channels < kStemChannels && wantedBlock > 0 &&
        outChannels % wantedBlock == 0) {
      // An image stem whose consumer takes its result blocked: all its channels are one block.
      inBlock = channels;
      outBlock = wantedBlock;
    }
    if (a.groups != 1 || inBlock == 0 || channels % inBlock != 0 || outBlock == 0) return {};
    const auto [dataLayout, kernelLayout] = topi::nchwcLayouts(inBlock, outBlock);
    altered.dataLayout = dataLayout;
    altered.kernelLayout = kernelLayout;
    altered.outLayout = "NCHW" + std::to_string(outBlock) + "c";
  }
  const std::string outLayout = altered.outLayout.empty() ? altered.dataLayout : altered.outLayout;
  return LayoutAlteration{.attrs = makeAttrs(altered),
                          .argLayouts = {altered.dataLayout, altered.kernelLayout},
                          .argOriginals = {"NCHW", "OIHW"},
                          .outLayout = outLayout,
                          .outOriginal = "NCHW"};
}

}  // namespace

void registerX86AlterOpLayout() {
  registerAlterOpLayout("nn.conv2d", "cpu", alterConv2d);
}

}  // namespace tessera::relay::strategy
