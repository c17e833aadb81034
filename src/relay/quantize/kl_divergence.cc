#include "relay/quantize/kl_divergence.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "support/check.h"

namespace tessera::relay::quantize {
namespace {

// eps spread over the zero bins, taken evenly from the others; empty when impossible.
std::vector<float> smoothDistribution(const std::vector<float>& p, float eps = 0.0001f) {
  size_t zeros = 0;
  for (float v : p) zeros += v == 0.f;
  const size_t nonzeros = p.size() - zeros;
  if (nonzeros == 0) return {};
  const float eps1 = eps * static_cast<float>(zeros) / static_cast<float>(nonzeros);
  if (eps1 >= 1.0f) return {};
  std::vector<float> out = p;
  for (size_t i = 0; i < p.size(); ++i) out[i] += p[i] == 0.f ? eps : -eps1;
  return out;
}

// KL(P || Q) after normalising both (float32, as TVM). A non-positive entry (smoothing can push a
// tiny count below zero) makes the candidate unusable instead of aborting.
float entropy(std::vector<float> p, std::vector<float> q) {
  const float pSum = std::accumulate(p.begin(), p.end(), 0.f);
  const float qSum = std::accumulate(q.begin(), q.end(), 0.f);
  float kl = 0;
  for (size_t i = 0; i < p.size(); ++i) {
    if (!(p[i] > 0 && q[i] > 0)) return std::numeric_limits<float>::infinity();
    p[i] /= pSum;
    q[i] /= qSum;
    kl += p[i] * std::log(p[i] / q[i]);
  }
  return kl;
}

}  // namespace

Histogram symmetricHistogram(const std::vector<float>& samples, int bins) {
  TS_CHECK(!samples.empty() && bins > 0) << "histogram of no samples";
  float lo = samples[0], hi = samples[0];
  for (float v : samples) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  const float t = std::max(std::fabs(lo), std::fabs(hi));
  double first = -static_cast<double>(t), last = static_cast<double>(t);
  if (first == last) {  // numpy widens an empty range by 0.5 on each side
    first -= 0.5;
    last += 0.5;
  }
  std::vector<double> edges(bins + 1);  // numpy.linspace
  const double step = (last - first) / bins;
  for (int i = 0; i <= bins; ++i) edges[i] = first + i * step;
  edges[bins] = last;
  Histogram h{std::vector<int>(bins, 0), std::vector<float>(bins + 1)};
  const double norm = bins / (last - first);
  for (float v : samples) {
    const double x = v;
    auto index = static_cast<int64_t>((x - first) * norm);
    if (index >= bins) index = bins - 1;
    if (index > 0 && x < edges[index]) --index;  // numpy's corrections for rounding
    if (index < bins - 1 && x >= edges[index + 1]) ++index;
    ++h.counts[index];
  }
  for (int i = 0; i <= bins; ++i) h.edges[i] = static_cast<float>(edges[i]);
  return h;
}

float minimizeKL(const Histogram& histogram, int quantizedBins) {
  const std::vector<int>& hist = histogram.counts;
  const int bins = static_cast<int>(hist.size());
  const int zeroBin = bins / 2, halfQuantized = quantizedBins / 2;
  TS_CHECK(zeroBin >= halfQuantized) << "fewer histogram bins than quantized bins";
  std::vector<float> thresholds(zeroBin + 1 - halfQuantized);
  std::vector<float> divergence(thresholds.size());
  std::vector<float> quantized(quantizedBins);
  for (int i = halfQuantized; i <= zeroBin; ++i) {
    const int start = zeroBin - i, stop = zeroBin + i + 1;
    thresholds[i - halfQuantized] = histogram.edges[stop];
    const int n = stop - start;
    std::vector<int> sliced(n, 0);
    std::vector<float> p(n, 0.f);
    // Outliers go to the end bins; bin `start` itself only reaches p[0] (TVM's quirk).
    for (int j = 0; j < bins; ++j) {
      if (j <= start) {
        p[0] += static_cast<float>(hist[j]);
      } else if (j >= stop) {
        p[n - 1] += static_cast<float>(hist[j]);
      } else {
        sliced[j - start] = hist[j];
        p[j - start] = static_cast<float>(hist[j]);
      }
    }
    const int merged = n / quantizedBins;
    for (int j = 0; j < quantizedBins; ++j)
      quantized[j] = static_cast<float>(
          std::accumulate(sliced.begin() + j * merged, sliced.begin() + (j + 1) * merged, 0));
    quantized.back() += static_cast<float>(
        std::accumulate(sliced.begin() + quantizedBins * merged, sliced.end(), 0));
    std::vector<float> q(n, 0.f);
    for (int j = 0; j < quantizedBins; ++j) {
      const int lo = j * merged, hi = j == quantizedBins - 1 ? n : (j + 1) * merged;
      const auto norm =
          std::count_if(sliced.begin() + lo, sliced.begin() + hi, [](int v) { return v != 0; });
      if (norm == 0) continue;
      for (int k = lo; k < hi; ++k)
        if (p[k] != 0.f) q[k] = quantized[j] / static_cast<float>(norm);
    }
    p = smoothDistribution(p);
    q = smoothDistribution(q);
    divergence[i - halfQuantized] = q.empty() || p.empty() ? std::numeric_limits<float>::infinity()
                                                           : entropy(std::move(p), std::move(q));
  }
  const auto best = std::min_element(divergence.begin(), divergence.end()) - divergence.begin();
  return thresholds[best];
}

float klDivergenceThreshold(const std::vector<float>& samples) {
  return minimizeKL(symmetricHistogram(samples, 8001), 255);
}

float percentileThreshold(const std::vector<float>& samples, double percentile) {
  TS_CHECK(!samples.empty()) << "percentile of no samples";
  std::vector<float> a(samples.size());
  for (size_t i = 0; i < samples.size(); ++i) a[i] = std::fabs(samples[i]);
  const auto k = static_cast<size_t>(static_cast<double>(a.size()) * percentile);
  std::nth_element(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(k), a.end());
  return a[k];
}

}  // namespace tessera::relay::quantize
