// The workspace pool behind generated kernels' TesseraBackendAllocWorkspace: aligned blocks,
// freed blocks reused for requests of a similar size, distinct blocks while in use.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

#include "runtime/thread_pool.h"

namespace tessera::runtime {
namespace {

TEST(WorkspacePool, BlocksAreAlignedAndDistinctWhileInUse) {
  WorkspacePool pool;
  void* a = pool.allocate(100);
  void* b = pool.allocate(100);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_NE(a, b);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % 64, 0u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b) % 64, 0u);
  std::memset(a, 1, 100);
  std::memset(b, 2, 100);
  EXPECT_EQ(static_cast<unsigned char*>(a)[99], 1);
  pool.release(a);
  pool.release(b);
}

TEST(WorkspacePool, FreedBlockIsReusedForASimilarSize) {
  WorkspacePool pool;
  void* a = pool.allocate(1 << 20);
  pool.release(a);
  EXPECT_EQ(pool.allocate((1 << 20) - 64), a);  // fits, not twice too large
  void* small = pool.allocate(64);              // a megabyte block is not handed out for this
  EXPECT_NE(small, a);
  pool.release(small);
  pool.release(a);
  EXPECT_NE(pool.allocate(4 << 20), a);  // too small for the request
}

TEST(WorkspacePool, ZeroBytesGivesAUsableBlock) {
  WorkspacePool pool;
  void* a = pool.allocate(0);
  EXPECT_NE(a, nullptr);
  pool.release(a);
}

}  // namespace
}  // namespace tessera::runtime
