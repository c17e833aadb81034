// Thread pool for parallel loops. Workers wait on a launch generation counter: they spin briefly
// (a kernel launched right after another finds them awake, the common case in a chain of small
// kernels) and then sleep on a condition variable, so an idle pool costs no CPU. A launcher takes
// the sleep mutex only when some worker is asleep (Dekker-style: both sides use seq_cst on the
// generation and the sleeper count, so a wake-up cannot be lost). std::atomic::wait is avoided:
// libstdc++ 12 can miss its notifications. The caller runs task
// 0 itself; every worker acknowledges every launch, so a launch never reuses the job fields while
// a worker may still read them.
#include "runtime/thread_pool.h"

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace tessera::runtime {
namespace {

inline void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#else
  std::this_thread::yield();
#endif
}

// Spin iterations before a worker sleeps (roughly 100-500 microseconds of pause instructions).
constexpr int kSpinBeforeSleep = 1 << 13;
// Spin iterations before a waiting launcher or barrier starts yielding its core.
constexpr int kSpinBeforeYield = 1 << 10;

/// A counter barrier over the tasks of one launch (sense reversal by phase number).
struct Barrier {
  std::atomic<int32_t> arrived{0};
  std::atomic<uint32_t> phase{0};

  void wait(int32_t numTask) {
    uint32_t myPhase = phase.load(std::memory_order_acquire);
    if (arrived.fetch_add(1, std::memory_order_acq_rel) == numTask - 1) {
      arrived.store(0, std::memory_order_relaxed);
      phase.fetch_add(1, std::memory_order_release);
      return;
    }
    for (int spin = 0; phase.load(std::memory_order_acquire) == myPhase; ++spin) {
      if (spin < kSpinBeforeYield) {
        cpuRelax();
      } else {
        std::this_thread::yield();
      }
    }
  }
};

int physicalCores() {
  int logical = static_cast<int>(std::thread::hardware_concurrency());
  if (logical <= 0) return 1;
  // With SMT on, two hardware threads share a core's vector units; kernels gain nothing from both.
  std::ifstream smt("/sys/devices/system/cpu/smt/active");
  int active = 0;
  if (smt >> active && active == 1 && logical > 1) return logical / 2;
  return logical;
}

int positiveEnv(const char* name) {
  const char* text = std::getenv(name);
  if (text == nullptr) return 0;
  int value = std::atoi(text);
  return value > 0 ? value : 0;
}

int defaultConcurrency() {
  if (int n = positiveEnv("TESSERA_NUM_THREADS")) return n;
  if (int n = positiveEnv("OMP_NUM_THREADS")) return n;
  return physicalCores();
}

thread_local bool tInsideTask = false;
thread_local std::string tLastError;

class ThreadPool {
 public:
  explicit ThreadPool(int concurrency) : concurrency_(concurrency) {
    for (int i = 1; i < concurrency_; ++i) workers_.emplace_back([this, i] { workerLoop(i); });
  }
  ~ThreadPool() {
    stop_.store(true, std::memory_order_relaxed);
    generation_.fetch_add(1);
    {
      std::lock_guard<std::mutex> lock(sleepMutex_);
      wake_.notify_all();
    }
    for (auto& w : workers_) w.join();
  }

  int concurrency() const { return concurrency_; }

  int32_t launch(TesseraParallelTask task, void* cdata, int32_t numTask) {
    if (numTask <= 0 || numTask > concurrency_) numTask = concurrency_;
    std::unique_lock<std::mutex> lock(launchMutex_, std::try_to_lock);
    if (numTask == 1 || tInsideTask || !lock.owns_lock()) return runInline(task, cdata);
    task_ = task;
    cdata_ = cdata;
    numTask_ = numTask;
    status_.store(0, std::memory_order_relaxed);
    pending_.store(concurrency_ - 1, std::memory_order_relaxed);
    generation_.fetch_add(1);
    if (sleepers_.load() > 0) {
      std::lock_guard<std::mutex> sleepLock(sleepMutex_);
      wake_.notify_all();
    }
    runTask(0);
    for (int spin = 0; pending_.load(std::memory_order_acquire) != 0; ++spin) {
      if (spin < kSpinBeforeYield) {
        cpuRelax();
      } else {
        std::this_thread::yield();
      }
    }
    int32_t status = status_.load(std::memory_order_relaxed);
    // A failing task left its message on its own thread; the caller reads it from this one.
    if (status != 0) tLastError = error_;
    return status;
  }

 private:
  static int32_t runInline(TesseraParallelTask task, void* cdata) {
    Barrier barrier;
    TesseraParallelEnv env{&barrier, 1};
    bool outer = tInsideTask;
    tInsideTask = true;
    int32_t result = task(0, &env, cdata);
    tInsideTask = outer;
    return result;
  }

  void runTask(int32_t taskId) {
    TesseraParallelEnv env{&barrier_, numTask_};
    tInsideTask = true;
    int32_t result = task_(taskId, &env, cdata_);
    tInsideTask = false;
    if (result == 0) return;
    std::lock_guard<std::mutex> lock(errorMutex_);
    if (status_.load(std::memory_order_relaxed) == 0) error_ = tLastError;
    status_.store(result, std::memory_order_relaxed);
  }

  void workerLoop(int32_t index) {
    // Generation 0 is the pool's creation; a launch may bump it before this thread first runs.
    uint32_t seen = 0;
    while (true) {
      uint32_t now = generation_.load(std::memory_order_acquire);
      for (int spin = 0; now == seen && spin < kSpinBeforeSleep; ++spin) {
        cpuRelax();
        now = generation_.load(std::memory_order_acquire);
      }
      if (now == seen) {
        std::unique_lock<std::mutex> lock(sleepMutex_);
        sleepers_.fetch_add(1);
        wake_.wait(lock, [&] { return generation_.load() != seen; });
        sleepers_.fetch_sub(1);
        continue;
      }
      seen = now;
      if (stop_.load(std::memory_order_relaxed)) return;
      if (index < numTask_) runTask(index);
      pending_.fetch_sub(1, std::memory_order_release);
    }
  }

  const int concurrency_;
  std::vector<std::thread> workers_;
  std::mutex launchMutex_;
  // The current job; written by the launcher before the generation bump that publishes it.
  TesseraParallelTask task_ = nullptr;
  void* cdata_ = nullptr;
  int32_t numTask_ = 0;
  Barrier barrier_;
  std::mutex errorMutex_;
  std::string error_;  ///< the first failing task's message
  std::atomic<int32_t> status_{0};
  std::atomic<int32_t> pending_{0};
  std::atomic<uint32_t> generation_{0};
  std::atomic<bool> stop_{false};
  std::mutex sleepMutex_;
  std::condition_variable wake_;
  std::atomic<int> sleepers_{0};
};

std::mutex gPoolMutex;
std::unique_ptr<ThreadPool> gPool;

ThreadPool& pool() {
  // The pool pointer is only replaced by setNumThreads, which callers must not race with launches.
  static std::once_flag once;
  std::call_once(once, [] {
    std::lock_guard<std::mutex> lock(gPoolMutex);
    if (!gPool) gPool = std::make_unique<ThreadPool>(defaultConcurrency());
  });
  return *gPool;
}

}  // namespace

int numThreads() {
  return pool().concurrency();
}

int defaultNumThreads() {
  return gPool ? gPool->concurrency() : defaultConcurrency();
}

void resetThreadPoolAfterFork(int n) {
  // The parent's workers do not exist in this process: joining them would never return.
  static_cast<void>(gPool.release());
  gPool = std::make_unique<ThreadPool>(n < 1 ? defaultConcurrency() : n);
}

void setNumThreads(int n) {
  pool();  // make sure the default pool exists before it is replaced
  std::lock_guard<std::mutex> lock(gPoolMutex);
  gPool.reset();
  gPool = std::make_unique<ThreadPool>(n < 1 ? 1 : n);
}

WorkspacePool::~WorkspacePool() {
  for (const Block& b : free_) std::free(b.ptr);
  for (const Block& b : used_) std::free(b.ptr);
}

void* WorkspacePool::allocate(uint64_t nbytes) {
  // aligned_alloc needs a size that is a multiple of the alignment.
  const uint64_t rounded = nbytes == 0 ? 64 : (nbytes + 63) / 64 * 64;
  // Best fit among the kept blocks that are not more than twice too large.
  size_t best = free_.size();
  for (size_t i = 0; i < free_.size(); ++i)
    if (free_[i].bytes >= rounded && free_[i].bytes <= 2 * rounded &&
        (best == free_.size() || free_[i].bytes < free_[best].bytes))
      best = i;
  Block block;
  if (best < free_.size()) {
    block = free_[best];
    free_.erase(free_.begin() + static_cast<long>(best));
    keptBytes_ -= block.bytes;
  } else {
    block = {std::aligned_alloc(64, rounded), rounded};
    if (!block.ptr) return nullptr;
  }
  used_.push_back(block);
  return block.ptr;
}

void WorkspacePool::release(void* ptr) {
  for (size_t i = used_.size(); i-- > 0;) {
    if (used_[i].ptr != ptr) continue;
    const Block block = used_[i];
    used_.erase(used_.begin() + static_cast<long>(i));
    if (keptBytes_ + block.bytes > kMaxKeptBytes) {
      std::free(block.ptr);
      return;
    }
    free_.push_back(block);
    keptBytes_ += block.bytes;
    return;
  }
  std::free(ptr);  // not from this thread's pool
}

WorkspacePool& workspacePool() {
  thread_local WorkspacePool pool;
  return pool;
}

}  // namespace tessera::runtime

using tessera::runtime::Barrier;

extern "C" {

int32_t TesseraBackendParallelLaunch(TesseraParallelTask task, void* cdata, int32_t numTask) {
  return tessera::runtime::pool().launch(task, cdata, numTask);
}

int32_t TesseraBackendParallelBarrier(int32_t taskId, TesseraParallelEnv* env) {
  static_cast<Barrier*>(env->syncHandle)->wait(env->numTask);
  return 0;
}

void* TesseraBackendAllocWorkspace(int32_t deviceType, int32_t deviceId, uint64_t nbytes,
                                   int32_t dtypeCode, int32_t dtypeBits) {
  return tessera::runtime::workspacePool().allocate(nbytes);
}

int32_t TesseraBackendFreeWorkspace(int32_t deviceType, int32_t deviceId, void* ptr) {
  tessera::runtime::workspacePool().release(ptr);
  return 0;
}

void TesseraAPISetLastError(const char* message) {
  tessera::runtime::tLastError = message;
}

void TesseraAPISetLastErrorInt(const char* message, int64_t value) {
  tessera::runtime::tLastError = std::string(message) + " (got " + std::to_string(value) + ")";
}

const char* TesseraGetLastError() {
  return tessera::runtime::tLastError.c_str();
}
}
