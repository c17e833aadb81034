#include "tune/measure.h"

#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <sstream>
#include <thread>

#include "ir/transform.h"
#include "runtime/thread_pool.h"
#include "runtime/time_evaluator.h"
#include "support/diagnostic.h"
#include "tir/eval/eval.h"
#include "tir/transform/lower.h"
#include "tune/flops.h"

namespace tessera::tune {

namespace {

// Above this many store executions the reference is the compiled plain loop nest, not the
// evaluator (which would take seconds per task on a convolution).
constexpr int64_t kEvaluatorLimit = int64_t{1} << 24;

// Memory that a forked child writes and the parent reads.
NDArray sharedArray(const std::vector<int64_t>& shape, DataType dtype) {
  size_t bytes = static_cast<size_t>(dtype.bytes()) * static_cast<size_t>(dtype.lanes());
  for (int64_t d : shape) bytes *= static_cast<size_t>(std::max<int64_t>(d, 0));
  const size_t mapped = std::max<size_t>(bytes, 1);
  void* p = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throwDiagnostic("tune", "cannot map shared memory for an argument");
  return NDArray::adopt(p, shape, dtype, [p, mapped] { munmap(p, mapped); });
}

void fillRandom(const NDArray& a, std::mt19937_64& rng) {
  const DataType t = a.dtype();
  std::uniform_real_distribution<double> real(-1.0, 1.0);
  std::uniform_int_distribution<int64_t> small(-8, 7), small01(0, 1), smallU(0, 15);
  for (int64_t i = 0; i < a.numel(); ++i) {
    if (t.isFloat())
      a.setFloat(i, real(rng));
    else if (t.isBool())
      a.setUInt(i, static_cast<uint64_t>(small01(rng)));
    else if (t.isUInt())
      a.setUInt(i, static_cast<uint64_t>(smallU(rng)));
    else
      a.setInt(i, small(rng));
  }
}

// Outputs start as garbage in the child, so a candidate that skips elements cannot pass by
// leaving the last candidate's values in place.
void poison(const NDArray& a) {
  std::memset(a.data(), 0x7f, a.nbytes());
}

bool sameContents(const NDArray& a, const NDArray& b) {
  return a.nbytes() == b.nbytes() && std::memcmp(a.data(), b.data(), a.nbytes()) == 0;
}

// Floats: within a tolerance scaled by the largest expected magnitude (the candidate sums in
// another order); integers exactly. The first mismatch, or "".
std::string compare(const NDArray& got, const NDArray& want, size_t index) {
  const DataType t = want.dtype();
  if (t.isFloat()) {
    double scale = 1;
    for (int64_t i = 0; i < want.numel(); ++i) scale = std::max(scale, std::fabs(want.getFloat(i)));
    const double tolerance = (t.bits() <= 16 ? 2e-2 : 1e-3) * scale;
    for (int64_t i = 0; i < want.numel(); ++i) {
      const double g = got.getFloat(i), w = want.getFloat(i);
      if (!(std::fabs(g - w) <= tolerance))
        return "argument " + std::to_string(index) + " element " + std::to_string(i) + " is " +
               std::to_string(g) + ", expected " + std::to_string(w);
    }
    return "";
  }
  if (!sameContents(got, want))
    return "argument " + std::to_string(index) + " differs from the reference";
  return "";
}

// Runs `body` in a child; returns what it wrote to its pipe, or the error of a child that
// crashed, failed or outlived the timeout.
struct ChildOutcome {
  std::string text;
  std::string error;
};
ChildOutcome inChild(const std::function<std::string()>& body, double timeoutSec) {
  int fds[2];
  if (pipe(fds) != 0) return {"", "cannot create a pipe"};
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return {"", "cannot fork"};
  }
  if (pid == 0) {
    close(fds[0]);
    std::string out;
    try {
      out = body();
    } catch (const std::exception& e) {
      out = std::string("error ") + e.what();
    }
    size_t done = 0;
    while (done < out.size()) {
      const ssize_t n = write(fds[1], out.data() + done, out.size() - done);
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    close(fds[1]);
    _exit(0);  // no destructors, no atexit handlers of the parent's libraries
  }
  close(fds[1]);
  std::string text;
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(timeoutSec);
  bool timedOut = false;
  char buf[4096];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now())
                          .count();
    if (left <= 0) {
      timedOut = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(std::min<long long>(left, 1000)));
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    const ssize_t n = read(fds[0], buf, sizeof buf);
    if (n <= 0) break;  // EOF: the child is done (or died)
    text.append(buf, static_cast<size_t>(n));
  }
  close(fds[0]);
  if (timedOut) kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  std::ostringstream limit;
  limit << timeoutSec;
  if (timedOut) return {"", "timed out after " + limit.str() + " s"};
  if (WIFSIGNALED(status))
    return {"", "crashed (signal " + std::to_string(WTERMSIG(status)) + ": " +
                    strsignal(WTERMSIG(status)) + ")"};
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return {"", "exited with status " + std::to_string(WEXITSTATUS(status))};
  if (text.rfind("error ", 0) == 0) return {"", text.substr(6)};
  return {text, ""};
}

}  // namespace

BuildResult buildCandidate(const tir::PrimFunc& scheduled, const target::Target& target) {
  BuildResult result;
  try {
    tir::TirModule module;
    module.add(tir::transform::lower(scheduled));
    codegen::CompiledModule lib = codegen::compile(module, target, {.keepIR = false, .threads = 1});
    result.entry = lib.entryName();
    result.module = std::move(lib);
  } catch (const DiagnosticError& e) {
    result.error = "build error: " + e.diagnostic().str();
  }
  return result;
}

std::vector<BuildResult> buildCandidates(const std::vector<tir::PrimFunc>& scheduled,
                                         const target::Target& target, int threads) {
  std::vector<BuildResult> results(scheduled.size());
  const size_t workers = std::min<size_t>(
      scheduled.size(),
      static_cast<size_t>(threads > 0 ? threads
                                      : std::max(1u, std::thread::hardware_concurrency())));
  std::atomic<size_t> next{0};
  transform::PassContext& ctx = transform::PassContext::current();
  auto work = [&] {
    transform::PassContext::Scope scope(ctx);
    for (size_t i = next++; i < scheduled.size(); i = next++) {
      try {
        results[i] = buildCandidate(scheduled[i], target);
      } catch (const std::exception& e) {  // an internal error fails this candidate only
        results[i].error = std::string("build error: ") + e.what();
      }
    }
  };
  if (workers <= 1) {
    work();
    return results;
  }
  std::vector<std::thread> pool;
  for (size_t w = 1; w < workers; ++w) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  return results;
}

MeasureInput makeMeasureInput(const tir::PrimFunc& func, const target::Target& target,
                              uint64_t seed, int threads) {
  MeasureInput input;
  std::mt19937_64 rng(seed);
  for (const tir::Var& p : func->params) {
    const tir::Buffer b = func->bufferOf(p);
    if (!b)
      throwDiagnostic("tune", "cannot measure a kernel with scalar parameters", {}, func->name);
    std::vector<int64_t> shape;
    for (const tir::PrimExpr& d : b->shape) {
      const int64_t* v = tir::asConstInt(d);
      if (!v) throwDiagnostic("tune", "cannot measure a kernel of symbolic shape", {}, func->name);
      shape.push_back(*v);
    }
    NDArray a = NDArray::empty(shape, b->dtype);
    fillRandom(a, rng);
    NDArray e = sharedArray(shape, b->dtype);
    std::memcpy(e.data(), a.data(), a.nbytes());
    input.args.push_back(a);
    input.expected.push_back(e);
  }
  if (estimateStoreExecutions(func) <= kEvaluatorLimit) {
    tir::evaluate(func, input.expected);
    return input;
  }
  BuildResult plain = buildCandidate(func, target);
  if (!plain.module) throwDiagnostic("tune", "the reference does not build: " + plain.error);
  ChildOutcome outcome = inChild(
      [&] {
        runtime::resetThreadPoolAfterFork(threads);
        plain.module->call(plain.entry, input.expected);
        return std::string("ok");
      },
      /*timeoutSec=*/600);
  if (!outcome.error.empty())
    throwDiagnostic("tune", "the reference run failed: " + outcome.error, {}, func->name);
  return input;
}

RunResult Runner::run(const BuildResult& build, const MeasureInput& input) {
  if (!build.module) return {{}, build.error};
  const codegen::CompiledModule& lib = *build.module;
  const std::string entry = build.entry;
  return run([&lib, entry](const std::vector<NDArray>& args) { lib.call(entry, args); }, input);
}

RunResult LocalRunner::run(const std::function<void(const std::vector<NDArray>&)>& kernel,
                           const MeasureInput& input) {
  if (options_.cooldownMs > 0)
    std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(options_.cooldownMs));
  const MeasureOptions options = options_;
  ChildOutcome outcome = inChild(
      [&] {
        runtime::resetThreadPoolAfterFork(options.threads);
        std::vector<NDArray> args;
        for (size_t i = 0; i < input.args.size(); ++i) {
          args.push_back(input.args[i].copy());
          if (!sameContents(input.args[i], input.expected[i])) poison(args.back());
        }
        kernel(args);
        for (size_t i = 0; i < args.size(); ++i) {
          const std::string wrong = compare(args[i], input.expected[i], i);
          if (!wrong.empty()) return "error wrong output: " + wrong;
        }
        std::vector<uint8_t> flush(
            static_cast<size_t>(std::max<int64_t>(options.cacheFlushBytes, 0)));
        TimeEvaluatorOptions timing{
            .number = options.number, .repeat = options.repeat, .minRepeatMs = options.minRepeatMs};
        if (!flush.empty())
          timing.beforeMeasurement = [&flush] {
            // Written, so the lines are owned here and the kernel's data is evicted.
            static uint8_t round = 0;
            std::memset(flush.data(), ++round, flush.size());
          };
        const TimingResult t = timeEvaluator([&] { kernel(args); }, timing);
        std::ostringstream out;
        out.precision(17);
        for (double s : t.results) out << s << " ";
        return out.str();
      },
      options_.timeoutSec);
  RunResult result;
  if (!outcome.error.empty()) {
    result.error = outcome.error;
    return result;
  }
  std::istringstream in(outcome.text);
  double s = 0;
  while (in >> s) result.runSecs.push_back(s);
  if (result.runSecs.empty()) result.error = "the child reported no times";
  return result;
}

}  // namespace tessera::tune
