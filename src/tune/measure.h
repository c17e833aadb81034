// Builder and runner (MetaSchedule's LocalBuilder / LocalRunner). Candidates (scheduled PrimFuncs)
// are built in child processes, several at a time, each with a timeout: a child lowers and
// compiles its candidate with LLVM and sends the object files back, which this process links.
// Each is then run in a child of its own (tune/child_process.h), one at a time, with a timeout, so
// a candidate that crashes, hangs or miscomputes costs one trial and not the tuning run. The
// child checks the candidate's output against the reference on its first call, then times it as
// time_evaluator does. Arguments live in shared memory, so the reference kernel's outputs come
// back from its child too.
//
// The child of fork() has only the forking thread, so each child that runs a kernel starts a
// runtime thread pool of its own (runtime::resetThreadPoolAfterFork).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "codegen/llvm/build.h"
#include "runtime/ndarray.h"
#include "target/target.h"
#include "tir/function.h"

namespace tessera::tune {

/// time_evaluator's knobs for a measurement (TVM's EvaluatorConfig and LocalRunner defaults),
/// plus the runner's timeout and a cooldown between candidates.
struct MeasureOptions {
  int number = 3;
  int repeat = 1;
  double minRepeatMs = 100;
  double timeoutSec = 30;
  double cooldownMs = 0;  ///< sleep before each candidate runs
  /// Bytes written before every measurement to evict the caches (TVM's
  /// enable_cpu_cache_flush / cache_flush_bytes); 0: none.
  int64_t cacheFlushBytes = 0;
  int threads = 0;  ///< threads of the measured kernels (0: the runtime's default)
};

/// A candidate compiled (or why it did not build).
struct BuildResult {
  std::optional<codegen::CompiledModule> module;
  std::string entry;  ///< the function to call
  std::string error;  ///< empty when built
};

/// The builder pool's knobs (TVM's LocalBuilder: max_workers, timeout_sec).
struct BuildOptions {
  int workers = 0;         ///< builds at a time (0: the machine's hardware threads)
  double timeoutSec = 30;  ///< a build taking longer fails ("timed out after 30 s")
};

/// Lowers and compiles `scheduled` for `target` (host-compatible) in this process. Errors are
/// returned, not thrown.
BuildResult buildCandidate(const tir::PrimFunc& scheduled, const target::Target& target);
/// The builder pool: buildCandidate for each of `scheduled`, each in a child process (at most
/// `options.workers` at a time, under the caller's pass context), linked here. A build that
/// fails, crashes or times out is an error in its own slot ("build error: ...", "crashed
/// (signal 11: ...)", "timed out after 30 s"); results in order.
std::vector<BuildResult> buildCandidates(const std::vector<tir::PrimFunc>& scheduled,
                                         const target::Target& target,
                                         const BuildOptions& options = {});

/// The arguments a workload is measured with (random values, in shared memory) and every
/// argument's contents after the reference ran (what each candidate must reproduce).
struct MeasureInput {
  std::vector<NDArray> args;
  std::vector<NDArray> expected;
};

/// Arguments for `func`'s buffer parameters filled with seeded random values ([-1, 1) for
/// floats, small integers otherwise) and the expected results: the reference evaluator
/// (tir::evaluate) on the unscheduled `func` when its loop nests are small, else `func`
/// compiled as the plain loop nest (no schedule) and run in a child process. Throws
/// DiagnosticError (code "tune") when the reference itself fails.
MeasureInput makeMeasureInput(const tir::PrimFunc& func, const target::Target& target,
                              uint64_t seed = 1, int threads = 0);

/// What one measurement gave: seconds per call for each repeat, or an error.
struct RunResult {
  std::vector<double> runSecs;
  std::string error;  ///< empty on success: "crashed (signal 11)", "timed out after 30 s", ...
  bool ok() const { return error.empty(); }
};

/// Where candidates run: the local machine now, a remote one later.
class Runner {
 public:
  virtual ~Runner() = default;
  /// Checks `kernel`'s results on `input` (on the first call), then times it.
  virtual RunResult run(const std::function<void(const std::vector<NDArray>&)>& kernel,
                        const MeasureInput& input) = 0;
  /// run() of a built candidate (a build error is the result's error).
  RunResult run(const BuildResult& build, const MeasureInput& input);
};

/// One candidate at a time, each in a forked child with a timeout.
class LocalRunner : public Runner {
 public:
  explicit LocalRunner(MeasureOptions options = {}) : options_(options) {}
  using Runner::run;
  RunResult run(const std::function<void(const std::vector<NDArray>&)>& kernel,
                const MeasureInput& input) override;

 private:
  MeasureOptions options_;
};

}  // namespace tessera::tune
