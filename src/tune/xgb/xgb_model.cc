#include "tune/xgb/xgb_model.h"

#include <xgboost/c_api.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "support/check.h"
#include "support/diagnostic.h"
#include "tune/database.h"
#include "tune/features.h"

namespace tessera::tune {

namespace {

void check(int rc, const char* what) {
  if (rc != 0) throwDiagnostic("tune", std::string("XGBoost: ") + what + ": " + XGBGetLastError());
}

struct Sample {
  uint64_t workload;
  std::vector<std::vector<float>> rows;
  double seconds;
};

class XgbModel : public CostModel {
 public:
  explicit XgbModel(XgbOptions options) : options_(options), random_(options.seed) {}
  ~XgbModel() override { release(); }
  std::string name() const override { return "xgb"; }
  bool needsPrograms() const override { return true; }

  std::vector<double> predict(uint64_t workload,
                              const std::vector<tir::PrimFunc>& candidates) override {
    if (!booster_)
      return options_.prior ? options_.prior->predict(workload, candidates)
                            : random_.predict(workload, candidates);
    std::vector<std::vector<std::vector<float>>> rows;
    for (const tir::PrimFunc& c : candidates)
      rows.push_back(c ? perStoreFeatures(c) : std::vector<std::vector<float>>{});
    std::vector<double> sums = packSums(rows, /*margin=*/false);
    return sums;
  }

  void update(uint64_t workload, const std::vector<tir::PrimFunc>& candidates,
              const std::vector<double>& seconds) override {
    for (size_t i = 0; i < candidates.size(); ++i)
      if (candidates[i])
        samples_.push_back({workload, perStoreFeatures(candidates[i]), seconds[i]});
    if (static_cast<int>(samples_.size()) < options_.warmupSamples) return;
    if (booster_ && samples_.size() < trainedOn_ * 6 / 5) return;  // adaptive training
    train();
  }

 private:
  void release() {
    if (booster_) XGBoosterFree(booster_);
    booster_ = nullptr;
  }

  // The rows of all candidates as one matrix (a candidate without rows gets none).
  DMatrixHandle matrix(const std::vector<std::vector<std::vector<float>>>& rows,
                       std::vector<size_t>* owner) {
    std::vector<float> flat;
    size_t n = 0;
    for (size_t c = 0; c < rows.size(); ++c)
      for (const std::vector<float>& r : rows[c]) {
        TS_CHECK(r.size() == static_cast<size_t>(kNumFeatures)) << "feature row of " << r.size();
        // A non-finite value would be "missing" or break split finding: features are finite.
        for (float v : r) flat.push_back(std::isfinite(v) ? v : 0.0f);
        owner->push_back(c);
        ++n;
      }
    if (n == 0) {
      flat.assign(kNumFeatures, 0.0f);  // XGBoost refuses an empty matrix
      n = 1;
      owner->push_back(rows.size());
    }
    DMatrixHandle m = nullptr;
    check(XGDMatrixCreateFromMat(flat.data(), n, kNumFeatures, NAN, &m), "matrix");
    return m;
  }

  std::vector<double> packSums(const std::vector<std::vector<std::vector<float>>>& rows,
                               bool margin, DMatrixHandle given = nullptr,
                               const std::vector<size_t>* givenOwner = nullptr) {
    std::vector<size_t> owner;
    DMatrixHandle m = given ? given : matrix(rows, &owner);
    const std::vector<size_t>& own = given ? *givenOwner : owner;
    bst_ulong len = 0;
    const float* out = nullptr;
    check(XGBoosterPredict(booster_, m, margin ? 1 : 0, 0, given ? 1 : 0, &len, &out), "predict");
    std::vector<double> sums(rows.size(), 0.0);
    for (bst_ulong i = 0; i < len && i < own.size(); ++i)
      if (own[i] < sums.size()) sums[own[i]] += out[i];
    if (!given) XGDMatrixFree(m);
    return sums;
  }

  void train() {
    release();
    std::map<uint64_t, double> best;
    for (const Sample& s : samples_) {
      auto it = best.find(s.workload);
      if (it == best.end() || s.seconds < it->second) best[s.workload] = s.seconds;
    }
    std::vector<std::vector<std::vector<float>>> rows;
    std::vector<double> labels;
    for (const Sample& s : samples_) {
      rows.push_back(s.rows);
      const double label =
          s.seconds >= kFailedRunSeconds || !(s.seconds > 0) ? 0.0 : best[s.workload] / s.seconds;
      labels.push_back(std::clamp(label, 0.0, 1.0));
    }
    std::vector<size_t> owner;
    DMatrixHandle m = matrix(rows, &owner);
    check(XGBoosterCreate(&m, 1, &booster_), "create");
    const std::string threads = std::to_string(options_.threads);
    const std::string seed = std::to_string(options_.seed);
    for (auto [key, value] :
         std::vector<std::pair<const char*, const char*>>{{"max_depth", "10"},
                                                          {"gamma", "0.001"},
                                                          {"min_child_weight", "0"},
                                                          {"eta", "0.2"},
                                                          {"seed", seed.c_str()},
                                                          {"nthread", threads.c_str()},
                                                          {"verbosity", "0"}})
      check(XGBoosterSetParam(booster_, key, value), "parameter");
    std::vector<float> grad(owner.size()), hess(owner.size());
    double bestRmse = INFINITY;
    int bestIter = 0;
    for (int iter = 0; iter < options_.maxRounds; ++iter) {
      std::vector<double> pred(rows.size(), 0.0);
      if (iter > 0) pred = packSums(rows, /*margin=*/true, m, &owner);
      double se = 0;
      for (size_t c = 0; c < rows.size(); ++c) se += (pred[c] - labels[c]) * (pred[c] - labels[c]);
      const double rmse = std::sqrt(se / static_cast<double>(rows.size()));
      if (options_.log && iter % 25 == 0) {
        char line[96];
        std::snprintf(line, sizeof line, "XGB iter %3d: tr-p-rmse: %.6f\n", iter, rmse);
        *options_.log << line;
      }
      if (rmse < bestRmse) {
        bestRmse = rmse;
        bestIter = iter;
      } else if (iter - bestIter >= options_.earlyStoppingRounds) {
        break;
      }
      for (size_t r = 0; r < owner.size(); ++r) {
        const size_t c = owner[r];
        const double y = c < labels.size() ? labels[c] : 0.0;
        const double p = c < pred.size() ? pred[c] : 0.0;
        grad[r] = static_cast<float>((p - y) * y);
        hess[r] = static_cast<float>(y);
      }
      check(XGBoosterBoostOneIter(booster_, m, grad.data(), hess.data(), owner.size()), "boost");
    }
    if (options_.log) {
      char line[96];
      std::snprintf(line, sizeof line, "XGB stopped. Best iteration: [%d] tr-p-rmse: %.6f\n",
                    bestIter, bestRmse);
      *options_.log << line;
    }
    XGDMatrixFree(m);
    trainedOn_ = samples_.size();
  }

  XgbOptions options_;
  RandomModel random_;
  std::vector<Sample> samples_;
  BoosterHandle booster_ = nullptr;
  size_t trainedOn_ = 0;
};

}  // namespace

std::unique_ptr<CostModel> makeXgbModel(const XgbOptions& options) {
  return std::make_unique<XgbModel>(options);
}

}  // namespace tessera::tune
