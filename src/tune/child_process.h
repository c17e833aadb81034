// Work in forked children with a deadline: the tuner builds and runs every candidate in a child
// process of its own, so a candidate that crashes the compiler or its kernel, or never finishes,
// costs one trial and not the tuning run (MetaSchedule's LocalBuilder and LocalRunner do the same
// with worker processes and timeout_sec).
//
// A child has only the thread that forked it: whatever the body needs from a thread pool it starts
// itself (runtime::resetThreadPoolAfterFork). It writes the body's result to a pipe and leaves with
// _exit, so neither destructors nor the parent's atexit handlers run in it.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace tessera::tune {

/// What a child's work gave: the body's result, or why there is none.
struct ChildOutcome {
  std::string text;  ///< what the body returned (bytes: it may be binary)
  /// Empty on success; otherwise the message of an exception the body threw, or
  /// "crashed (signal 11: Segmentation fault)", "timed out after 30 s", "exited with status 3".
  std::string error;
};

/// Runs body(i) for every i < count, each in a child process of its own, at most `concurrent`
/// (at least 1) alive at a time, each killed when it outlives `timeoutSec`. Outcomes in order of
/// i. Call it from one thread at a time.
std::vector<ChildOutcome> runInChildren(size_t count,
                                        const std::function<std::string(size_t)>& body,
                                        size_t concurrent, double timeoutSec);

/// runInChildren for a single body.
ChildOutcome runInChild(const std::function<std::string()>& body, double timeoutSec);

}  // namespace tessera::tune
