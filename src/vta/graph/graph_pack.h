// Graph packing for VTA (spec vta.md §8): rewrites a quantized NCHW module so that its int8
// convolutions take VTA's blocked layouts — data `NCHW{b}n{c}c`, weights `OIHW{c}o{c}i` — with
// the reshape/transpose chains, channel padding and per-channel constant packing that TVM's
// `vta.top.graph_pack` and seed 000's pack tool insert.
//
// Two variants, chosen by whether a region is named:
//  - seed 000's (no start/stop): every convolution whose output is not float gets its data input
//    padded to whole channel blocks and packed, and its weight padded on both O and I; the result
//    stays packed (padded channels included), as the seed prints it.
//  - TVM's (start/stop op names or indices): packing starts at the output of the start call and
//    stops before the stop call, whose packed inputs are unpacked (transpose, reshape, and a
//    slice that drops padded channels); values the function returns are unpacked as well.
//
// Unlike the seed's tool, each value's layout is tracked: a value already packed is never packed
// again, so chains of convolutions (ResNet) are packed once. Ops that cannot take a packed tensor
// get their inputs unpacked instead of failing type inference later. Requantized int8 dense
// layers are packed as well (GraphPackOptions::packDense), unpacked again where their rows leave.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "relay/expr.h"
#include "relay/module.h"

namespace tessera::vta {

struct GraphPackOptions {
  int64_t bfactor = 1;     ///< env.BATCH
  int64_t cfactor = 16;    ///< env.BLOCK_OUT
  int64_t weightBits = 8;  ///< env.WGT_WIDTH (only 8: Tessera has no bitpack op)
  /// TVM's region: packing starts at the first call of `startName` (or the call at post-order
  /// index `startNameIdx`) and stops before the first later call of `stopName` (or the one at
  /// `stopNameIdx`). With neither name nor index set, the seed-000 variant packs every int conv.
  std::optional<std::string> startName;
  std::optional<std::string> stopName;
  std::optional<int64_t> startNameIdx;
  std::optional<int64_t> stopNameIdx;
  bool countMeta = false;  ///< indices also count constants, as TVM's count_meta
  /// Tessera's extension (TVM's graph_pack leaves dense alone): an int8 nn.dense -> int32 whose
  /// result is requantized to int8 is packed too — data (N, K) -> (N/b, K'/c, b, c), weight
  /// (O, K) -> (O'/c, K'/c, c, c), per-channel constants (O) -> (O'/c, b, c) — so that VTA runs it.
  bool packDense = true;

  bool hasRegion() const { return startName || stopName || startNameIdx || stopNameIdx; }
  /// The packed data layout, "NCHW1n16c" for the defaults.
  std::string dataLayout() const;
  /// The packed weight layout, "OIHW16o16i" for the defaults.
  std::string kernelLayout() const;
};

/// Packs `fn` (typed or not; type inference runs first). Throws DiagnosticError (code
/// "graph_pack") naming the op and the limit when the graph cannot be packed: a region name with
/// no matching call, a batch not divisible by bfactor, region-start channels not divisible by
/// cfactor, a convolution in the region that is not int8 -> int32, a requantized dense with an
/// int32 result whose operands are not int8, dilation or groups other than 1, weight_bits other
/// than 8.
relay::Function graphPack(const relay::Function& fn, const GraphPackOptions& options);

/// graphPack on `module`'s @main; the module's other functions are kept.
relay::IRModule graphPackModule(const relay::IRModule& module, const GraphPackOptions& options);

}  // namespace tessera::vta
