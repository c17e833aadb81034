#include "tune/measure.h"

#include <sys/mman.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "runtime/thread_pool.h"
#include "runtime/time_evaluator.h"
#include "support/diagnostic.h"
#include "tir/eval/eval.h"
#include "tir/transform/lower.h"
#include "tune/child_process.h"
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

// The bytes of `objects` for the pipe from a builder child: every count and every string's length
// as 8 bytes in host order (the reader is the same program on the same machine), then the bytes.
std::string encode(const codegen::CompiledObjects& objects) {
  std::string out;
  auto putCount = [&out](uint64_t n) { out.append(reinterpret_cast<const char*>(&n), sizeof n); };
  auto put = [&](const std::string& s) {
    putCount(s.size());
    out += s;
  };
  for (const std::vector<std::string>* list : {&objects.objects, &objects.names}) {
    putCount(list->size());
    for (const std::string& s : *list) put(s);
  }
  put(objects.entry);
  put(objects.triple);
  return out;
}

codegen::CompiledObjects decode(const std::string& bytes) {
  size_t at = 0;
  auto getCount = [&]() {
    uint64_t n = 0;
    if (bytes.size() - at < sizeof n) throw std::runtime_error("truncated build result");
    std::memcpy(&n, bytes.data() + at, sizeof n);
    at += sizeof n;
    return n;
  };
  auto get = [&]() {
    const uint64_t n = getCount();
    if (bytes.size() - at < n) throw std::runtime_error("truncated build result");
    std::string s = bytes.substr(at, n);
    at += n;
    return s;
  };
  codegen::CompiledObjects objects;
  for (std::vector<std::string>* list : {&objects.objects, &objects.names}) {
    const uint64_t n = getCount();
    if (n > bytes.size()) throw std::runtime_error("corrupt build result");
    list->resize(n);
    for (std::string& s : *list) s = get();
  }
  objects.entry = get();
  objects.triple = get();
  return objects;
}

// Throws DiagnosticError when `scheduled` does not lower or compile.
codegen::CompiledModule compileCandidate(const tir::PrimFunc& scheduled,
                                         const target::Target& target, bool link) {
  // Lowered as the build lowers it: with its target (NarrowFixedPointMultiply reads it).
  tir::TirModule module;
  module.add(
      tir::transform::lower(tir::withAttr(scheduled, "target", AttrValue::string(target.str()))));
  return codegen::compile(module, target, {.keepIR = false, .threads = 1, .link = link});
}

}  // namespace

BuildResult buildCandidate(const tir::PrimFunc& scheduled, const target::Target& target) {
  BuildResult result;
  try {
    codegen::CompiledModule lib = compileCandidate(scheduled, target, /*link=*/true);
    result.entry = lib.entryName();
    result.module = std::move(lib);
  } catch (const DiagnosticError& e) {
    result.error = "build error: " + e.diagnostic().str();
  }
  return result;
}

std::vector<BuildResult> buildCandidates(const std::vector<tir::PrimFunc>& scheduled,
                                         const target::Target& target,
                                         const BuildOptions& options) {
  const size_t workers = static_cast<size_t>(
      options.workers > 0 ? options.workers : std::max(1u, std::thread::hardware_concurrency()));
  // The child compiles without linking (the objects are linked here) and sends the objects.
  const std::vector<ChildOutcome> outcomes = runInChildren(
      scheduled.size(),
      [&](size_t i) {
        try {
          return encode(compileCandidate(scheduled[i], target, /*link=*/false).objects());
        } catch (const DiagnosticError& e) {
          throw std::runtime_error("build error: " + e.diagnostic().str());
        }
      },
      workers, options.timeoutSec);
  std::vector<BuildResult> results(scheduled.size());
  for (size_t i = 0; i < outcomes.size(); ++i) {
    BuildResult& result = results[i];
    if (!outcomes[i].error.empty()) {
      result.error = outcomes[i].error;
      continue;
    }
    try {
      codegen::CompiledModule lib = codegen::CompiledModule::fromObjects(decode(outcomes[i].text));
      result.entry = lib.entryName();
      result.module = std::move(lib);
    } catch (const DiagnosticError& e) {
      result.error = "build error: " + e.diagnostic().str();
    } catch (const std::exception& e) {
      result.error = std::string("build error: ") + e.what();
    }
  }
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
  ChildOutcome outcome = runInChild(
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
  ChildOutcome outcome = runInChild(
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
          if (!wrong.empty()) throw std::runtime_error("wrong output: " + wrong);
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
