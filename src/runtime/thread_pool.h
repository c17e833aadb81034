// The backend runtime that compiled kernels call: a low-overhead thread pool for parallel loops
// (TVM's TVMBackendParallelLaunch contract, spec §4.4), 64-byte aligned workspace memory, and the
// per-thread error message a failing kernel leaves for its caller. The C entry points have fixed
// names and signatures because generated code calls them (through the slots of
// runtime/c_functions.h).
#pragma once

#include <cstdint>
#include <vector>

extern "C" {

/// What a parallel task sees of its launch: a handle for TesseraBackendParallelBarrier and the
/// number of tasks running (task ids are 0 .. numTask-1).
struct TesseraParallelEnv {
  void* syncHandle;
  int32_t numTask;
};

/// One task of a parallel launch; a non-zero return reports failure to the launcher.
typedef int32_t (*TesseraParallelTask)(int32_t taskId, TesseraParallelEnv* env, void* cdata);

/// Runs `task` as `numTask` concurrent tasks (0: the pool's concurrency; larger requests are
/// clamped to it, so every task runs concurrently and barriers cannot deadlock). The caller runs
/// task 0. A launch from inside a task, or while another thread's launch holds the pool, runs
/// inline with one task. Returns 0, or the first non-zero task result.
int32_t TesseraBackendParallelLaunch(TesseraParallelTask task, void* cdata, int32_t numTask);
/// Waits until every task of the current launch has reached the barrier.
int32_t TesseraBackendParallelBarrier(int32_t taskId, TesseraParallelEnv* env);

/// `nbytes` of 64-byte aligned memory (null when it cannot be allocated). The device and dtype
/// arguments are part of the ABI for future devices; only the CPU (device type 1) exists.
void* TesseraBackendAllocWorkspace(int32_t deviceType, int32_t deviceId, uint64_t nbytes,
                                   int32_t dtypeCode, int32_t dtypeBits);
int32_t TesseraBackendFreeWorkspace(int32_t deviceType, int32_t deviceId, void* ptr);

/// Records the calling thread's error message (a kernel then returns non-zero).
void TesseraAPISetLastError(const char* message);
/// Like TesseraAPISetLastError, appending " (got <value>)" so shape errors name the actual size.
void TesseraAPISetLastErrorInt(const char* message, int64_t value);
/// The calling thread's last error message ("" when none).
const char* TesseraGetLastError();
}

namespace tessera::runtime {

/// The pool's concurrency: TESSERA_NUM_THREADS, else OMP_NUM_THREADS, else the number of physical
/// cores, unless setNumThreads changed it.
int numThreads();
/// numThreads() without starting the pool (a process that forks must not have started it).
int defaultNumThreads();
/// In the child of fork(): a new pool of `n` threads (0: the default concurrency) in place of the
/// parent's, whose worker threads the child does not have (its memory is left, not freed).
void resetThreadPoolAfterFork(int n);
/// Resizes the pool to `n` threads including the caller (n >= 1; 1 makes every launch inline).
/// Must not be called while a launch is running.
void setNumThreads(int n);

/// The workspace memory of generated kernels on one thread (TVM's WorkspacePool): blocks a
/// kernel frees are kept for the next allocation of a similar size, so a kernel called in a loop
/// does not map and unmap fresh pages for its intermediate buffers on every call. Up to
/// kMaxKeptBytes stay cached per thread. Blocks are 64-byte aligned.
class WorkspacePool {
 public:
  static constexpr uint64_t kMaxKeptBytes = uint64_t{256} << 20;
  WorkspacePool() = default;
  WorkspacePool(const WorkspacePool&) = delete;
  WorkspacePool& operator=(const WorkspacePool&) = delete;
  ~WorkspacePool();
  /// A block of at least `nbytes`; null when memory runs out.
  void* allocate(uint64_t nbytes);
  /// Returns a block from allocate() (a pointer the pool does not know is freed).
  void release(void* ptr);

 private:
  struct Block {
    void* ptr = nullptr;
    uint64_t bytes = 0;
  };
  std::vector<Block> free_;
  std::vector<Block> used_;
  uint64_t keptBytes_ = 0;
};

/// The calling thread's workspace pool.
WorkspacePool& workspacePool();

}  // namespace tessera::runtime
