#include "tune/mutator.h"

#include <algorithm>

namespace tessera::tune {

namespace {

std::vector<int64_t> primeFactors(int64_t n) {
  std::vector<int64_t> out;
  for (int64_t p = 2; p * p <= n; ++p)
    while (n % p == 0) {
      out.push_back(p);
      n /= p;
    }
  if (n > 1) out.push_back(n);
  return out;
}

// TVM's draw of how a prime power p^e is shared among n tiles (specs/tir_relax.md §3.10): for
// two tiles a uniform split point; for more, a prime (e = 1) goes to a uniform tile and a higher
// power is a uniform composition of e into n parts (stars and bars: n - 1 bars among e + n - 1
// places, without replacement).
std::vector<int> composition(int e, size_t n, std::mt19937_64& rng) {
  std::vector<int> parts(n, 0);
  if (n == 1) {
    parts[0] = e;
  } else if (n == 2) {
    parts[0] = std::uniform_int_distribution<int>(0, e)(rng);
    parts[1] = e - parts[0];
  } else if (e == 1) {
    parts[std::uniform_int_distribution<size_t>(0, n - 1)(rng)] = 1;
  } else {
    const int places = e + static_cast<int>(n) - 1;
    std::vector<int> order(static_cast<size_t>(places));
    for (int i = 0; i < places; ++i) order[static_cast<size_t>(i)] = i;
    for (size_t i = 0; i + 1 < n; ++i)  // a partial Fisher-Yates shuffle picks the bars
      std::swap(order[i], order[std::uniform_int_distribution<size_t>(i, order.size() - 1)(rng)]);
    std::vector<int> bars(order.begin(), order.begin() + static_cast<long>(n - 1));
    std::sort(bars.begin(), bars.end());
    int previous = -1;
    for (size_t i = 0; i + 1 < n; ++i) {
      parts[i] = bars[i] - previous - 1;
      previous = bars[i];
    }
    parts[n - 1] = places - previous - 1;
  }
  return parts;
}

bool isTile(const Knob& k) {
  return k.kind == Knob::Kind::kTile || k.kind == Knob::Kind::kSplit;
}

std::optional<Decision> mutateTile(const Knob& knob, const Decision& d, std::mt19937_64& rng) {
  const size_t n = d.size();
  std::vector<size_t> from;
  for (size_t i = 0; i < n; ++i)
    if (d[i] > 1) from.push_back(i);
  if (from.empty() || n < 2) return std::nullopt;
  for (int attempt = 0; attempt < 16; ++attempt) {
    const size_t x = from[std::uniform_int_distribution<size_t>(0, from.size() - 1)(rng)];
    size_t y = std::uniform_int_distribution<size_t>(0, n - 2)(rng);
    if (y >= x) ++y;
    std::vector<int64_t> divisors;
    for (int64_t v = 2; v <= d[x]; ++v)
      if (d[x] % v == 0 && (y != n - 1 || knob.maxInnermost < 0 || d[y] * v <= knob.maxInnermost))
        divisors.push_back(v);
    if (divisors.empty()) continue;
    const int64_t v = divisors[std::uniform_int_distribution<size_t>(0, divisors.size() - 1)(rng)];
    Decision out = d;
    out[x] /= v;
    out[y] *= v;
    return out;
  }
  return std::nullopt;
}

}  // namespace

Decision samplePerfectTiling(int64_t extent, size_t n, int maxInnermost, std::mt19937_64& rng) {
  if (n == 0) return {};
  // Prime powers p^e of the extent.
  std::vector<std::pair<int64_t, int>> powers;
  for (int64_t p : primeFactors(extent)) {
    if (!powers.empty() && powers.back().first == p)
      ++powers.back().second;
    else
      powers.push_back({p, 1});
  }
  for (int attempt = 0; attempt < 100; ++attempt) {
    Decision d(n, 1);
    for (const auto& [p, e] : powers) {
      for (int part = 0; int x : composition(e, n, rng)) {
        for (int k = 0; k < x; ++k) d[static_cast<size_t>(part)] *= p;
        ++part;
      }
    }
    if (maxInnermost < 0 || d.back() <= maxInnermost) return d;
  }
  Decision d(n, 1);  // everything outside: always within the limit
  d[0] = extent;
  return d;
}

Decisions sampleDecisions(const DesignSpace& space, std::mt19937_64& rng) {
  Decisions out;
  for (size_t k = 0; k < space.knobs.size(); ++k) {
    const Knob& knob = space.knobs[k];
    switch (knob.kind) {
      case Knob::Kind::kTile:
      case Knob::Kind::kSplit:
        out.push_back(
            samplePerfectTiling(knob.extent, space.base[k].size(), knob.maxInnermost, rng));
        break;
      case Knob::Kind::kCategorical:
        out.push_back({std::uniform_int_distribution<int64_t>(0, knob.choices - 1)(rng)});
        break;
      case Knob::Kind::kToggle:
        out.push_back({1});
        break;
      case Knob::Kind::kComputeLocation:
        // The base point's candidates; replay repairs one that the other decisions rule out.
        out.push_back(
            {knob.values[std::uniform_int_distribution<size_t>(0, knob.values.size() - 1)(rng)]});
        break;
      case Knob::Kind::kParallel:
        out.push_back({knob.extent});
        break;
    }
  }
  return out;
}

std::optional<Decisions> mutate(const DesignSpace& space, const Decisions& decisions,
                                std::mt19937_64& rng) {
  std::vector<size_t> tiles, categoricals, toggles, locations, parallels;
  for (size_t k = 0; k < space.knobs.size(); ++k) {
    const Knob& knob = space.knobs[k];
    if (isTile(knob)) tiles.push_back(k);
    if (knob.kind == Knob::Kind::kCategorical && knob.choices > 1) categoricals.push_back(k);
    if (knob.kind == Knob::Kind::kToggle) toggles.push_back(k);
    if (knob.kind == Knob::Kind::kComputeLocation && knob.values.size() > 1) locations.push_back(k);
    if (knob.kind == Knob::Kind::kParallel) parallels.push_back(k);
  }
  struct Option {
    double p;
    std::vector<size_t>* knobs;
  };
  std::vector<Option> options;
  if (!tiles.empty()) options.push_back({0.90, &tiles});
  if (!categoricals.empty()) options.push_back({0.03, &categoricals});
  if (!locations.empty()) options.push_back({0.05, &locations});
  if (!toggles.empty()) options.push_back({0.02, &toggles});
  if (!parallels.empty()) options.push_back({0.02, &parallels});
  for (int attempt = 0; attempt < 8 && !options.empty(); ++attempt) {
    std::vector<double> weights;
    for (const Option& o : options) weights.push_back(o.p);
    const Option& o =
        options[std::discrete_distribution<size_t>(weights.begin(), weights.end())(rng)];
    const size_t k = (*o.knobs)[std::uniform_int_distribution<size_t>(0, o.knobs->size() - 1)(rng)];
    const Knob& knob = space.knobs[k];
    Decisions out = decisions;
    if (isTile(knob)) {
      std::optional<Decision> d = mutateTile(knob, decisions[k], rng);
      if (!d) continue;
      out[k] = *d;
    } else if (knob.kind == Knob::Kind::kCategorical) {
      int64_t v = std::uniform_int_distribution<int64_t>(0, knob.choices - 2)(rng);
      if (v >= decisions[k][0]) ++v;
      out[k] = {v};
    } else if (knob.kind == Knob::Kind::kComputeLocation) {
      std::optional<Decision> d = mutateComputeLocation(space, decisions, k, rng);
      if (!d) continue;
      out[k] = *d;
    } else if (knob.kind == Knob::Kind::kParallel) {
      std::optional<Decision> d = mutateParallel(space, decisions, k, rng);
      if (!d) continue;
      out[k] = *d;
    } else {
      out[k] = {1 - decisions[k][0]};
    }
    return out;
  }
  return std::nullopt;
}

}  // namespace tessera::tune
