// The analytic cost model against measurements on seed 002's 128^3 matmul (the calibration
// behind tune/analytic_model.h's constants):
//   cost_model_probe                      lists the rule-made spaces and their knobs
//   cost_model_probe SPACE "d0;d1;..."    one point (each d a comma list, one per knob):
//                                           its estimate, then GFLOP/s alternating with the FMA
//                                           peak loop [a 3rd argument prints the scheduled
//                                           kernel, a 5th the lowered one, a 4th stops after]
//   cost_model_probe --db DIR             every record of a tune_matmul database: the
//                                           recorded GFLOP/s, in-process now, the estimate, and
//                                           four runs in a measuring child (LocalRunner)
// Run with TESSERA_NUM_THREADS=1 and pinned (taskset -c 1).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "codegen/llvm/target.h"
#include "fma_peak.h"
#include "lower/relay/schedule_provider.h"
#include "seed_matmul.h"
#include "tir/printer/printer.h"
#include "tir/schedule/attempt.h"
#include "tir/transform/lower.h"
#include "tune/analytic_model.h"
#include "tune/database.h"
#include "tune/flops.h"
#include "tune/measure.h"
#include "tune/postproc/postproc.h"
#include "tune/rules/post_order_apply.h"

using namespace tessera;

int main(int argc, char** argv) {
  const tir::PrimFunc mm = bench::matmul128();
  target::Target target = codegen::hostTarget();
  target.numCores = 1;
  std::vector<tune::DesignSpace> spaces = tune::rules::ruleSpaces(mm, target, 0);
  if (argc < 3) {
    for (size_t s = 0; s < spaces.size(); ++s) {
      std::printf("space %zu:", s);
      for (size_t k = 0; k < spaces[s].knobs.size(); ++k) {
        std::printf(" [%s =", spaces[s].knobs[k].str().c_str());
        for (int64_t v : spaces[s].base[k]) std::printf(" %lld", (long long)v);
        std::printf("]");
      }
      std::printf("\n");
    }
    return 0;
  }
  if (std::string(argv[1]) == "--db") {
    const tune::Database db(argv[2]);
    const tune::MeasureInput input = tune::makeMeasureInput(mm, target, 1, 1);
    const int64_t flops = tune::estimateFlops(mm);
    for (const tune::TuningRecord& r :
         db.topK(lower::workloadKey(mm), tune::recordTarget(target), 1000)) {
      lower::TracedSchedule sc = lower::applyTunedTrace(mm, r.trace);
      if (!sc.func) continue;
      const double est =
          tune::estimateCycles(tir::transform::lower(*sc.func), tune::MachineModel::of(target));
      const tune::BuildResult b = tune::buildCandidate(*sc.func, target);
      for (int i = 0; i < 50; ++i) b.module->call(b.entry, input.args);
      const auto start = std::chrono::steady_clock::now();
      for (int i = 0; i < 300; ++i) b.module->call(b.entry, input.args);
      const double secs =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / 300;
      tune::LocalRunner runner({.number = 10, .repeat = 1, .minRepeatMs = 0, .threads = 1});
      std::string child;
      for (int rep = 0; rep < 4; ++rep) {
        const tune::RunResult rr = runner.run(b, input);
        child += " " + std::to_string(rr.ok() ? flops / rr.runSecs.front() / 1e9 : -1.0);
      }
      std::printf("recorded %6.1f now %6.1f GFLOP/s estimate %5.1f%% child%s\n",
                  flops / r.mean() / 1e9, flops / secs / 1e9, 100.0 * 128 * 128 * 128 / (est * 16),
                  child.c_str());
    }
    return 0;
  }
  const size_t s = std::atoi(argv[1]);
  tune::Decisions d;
  std::stringstream ss(argv[2]);
  std::string part;
  while (std::getline(ss, part, ';')) {
    tune::Decision one;
    std::stringstream ps(part);
    std::string v;
    while (std::getline(ps, v, ',')) one.push_back(std::atoll(v.c_str()));
    d.push_back(one);
  }
  tir::Trace trace = spaces[s].materialize(d);
  tir::Schedule sch(mm, 0);
  const Applicability answer = tir::attempt(sch, [&](tir::Schedule& x) {
    tir::applyTrace(x, trace);
    return tune::postproc::applyPostprocs(x, tune::postproc::defaultPostprocs());
  });
  if (!answer) {
    std::printf("rejected: %s\n", answer.reason.c_str());
    return 1;
  }
  lower::TracedSchedule scheduled = lower::applyTunedTrace(mm, sch.trace());
  if (argc > 3) std::printf("%s", tir::toScript(*scheduled.func).c_str());
  const double est =
      tune::estimateCycles(tir::transform::lower(*scheduled.func), tune::MachineModel::of(target));
  std::printf("estimate %.0f cycles (%.1f%% of peak) ", est, 100.0 * 128 * 128 * 128 / (est * 16));
  if (argc > 5) std::printf("%s", tir::toScript(tir::transform::lower(*scheduled.func)).c_str());
  const tune::BuildResult built = tune::buildCandidate(*scheduled.func, target);
  if (argc > 4) {
    std::printf("%s", built.module->llvmIR().c_str());
    return 0;
  }
  const tune::MeasureInput input = tune::makeMeasureInput(mm, target, 1, 1);
  const int64_t flops = tune::estimateFlops(mm);
  auto kernel = [&](int calls) {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i) built.module->call(built.entry, input.args);
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return static_cast<double>(flops) * calls / secs / 1e9;
  };
  kernel(200);
  float sink = 0;
  std::vector<double> k, p, r;
  for (int i = 0; i < 9; ++i) {
    p.push_back(bench::fmaGflops(5'000'000, sink));
    k.push_back(kernel(1000));
    r.push_back(k.back() / p.back());
  }
  std::printf("kernel %.1f GFLOP/s peak %.1f ratio %.1f%%\n", bench::median(k), bench::median(p),
              100 * bench::median(r));
  return sink == 12345.f ? 1 : 0;
}
