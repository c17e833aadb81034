// Thresholds of the quantizer's calibrate stage that come from sample statistics (spec
// relay.md §5.7): TensorRT's KL-divergence minimisation as TVM implements it, and percentile.
#pragma once

#include <vector>

namespace tessera::relay::quantize {

/// numpy.histogram(samples, bins, range=(-t, t)) with t = max |sample| (counts, and the bin
/// edges in float32), as TVM's _find_scale_by_kl computes them.
struct Histogram {
  std::vector<int> counts;
  std::vector<float> edges;
};
Histogram symmetricHistogram(const std::vector<float>& samples, int bins);

/// The threshold minimising KL(P || Q) between the clipped histogram and its quantization to
/// `quantizedBins` levels (TVM's MinimizeKL, quirks included).
float minimizeKL(const Histogram& histogram, int quantizedBins);
/// TVM's _find_scale_by_kl: 8001 bins, 255 quantized bins (int8).
float klDivergenceThreshold(const std::vector<float>& samples);
/// TVM's _find_scale_by_percentile: the k-th smallest |sample|, k = floor(n * 0.99999).
float percentileThreshold(const std::vector<float>& samples, double percentile = 0.99999);

}  // namespace tessera::relay::quantize
