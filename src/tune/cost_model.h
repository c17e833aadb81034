// The cost model interface of the search: scores candidates (higher: predicted faster) and
// learns from measurements. RandomModel is MetaSchedule's random model (uniform scores), the
// baseline a learned model is compared with.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "tir/function.h"

namespace tessera::tune {

class CostModel {
 public:
  virtual ~CostModel() = default;
  virtual std::string name() const = 0;
  /// Whether predict() looks at the programs (the search then replays every candidate it scores).
  virtual bool needsPrograms() const = 0;
  /// One score per candidate (scheduled, unlowered; null entries when !needsPrograms()).
  virtual std::vector<double> predict(uint64_t workload,
                                      const std::vector<tir::PrimFunc>& candidates) = 0;
  /// Measured candidates of `workload` with their run seconds (kFailedRunSeconds for failures).
  virtual void update(uint64_t workload, const std::vector<tir::PrimFunc>& candidates,
                      const std::vector<double>& seconds) = 0;
};

class RandomModel : public CostModel {
 public:
  explicit RandomModel(uint64_t seed = 0) : rng_(seed) {}
  std::string name() const override { return "random"; }
  bool needsPrograms() const override { return false; }
  std::vector<double> predict(uint64_t, const std::vector<tir::PrimFunc>& candidates) override {
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::vector<double> out;
    for (size_t i = 0; i < candidates.size(); ++i) out.push_back(u(rng_));
    return out;
  }
  void update(uint64_t, const std::vector<tir::PrimFunc>&, const std::vector<double>&) override {}

 private:
  std::mt19937_64 rng_;
};

}  // namespace tessera::tune
