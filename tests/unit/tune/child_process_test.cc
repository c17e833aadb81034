// Work in forked children: results come back in order with several children alive at once, bytes
// intact; a child that crashes, exits, throws or hangs (killed at its timeout) is an error in its
// own slot and the others are unaffected.
#include "tune/child_process.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>
#include <stdexcept>
#include <thread>

namespace tessera::tune {
namespace {

TEST(ChildProcess, ResultsComeBackInOrderFromConcurrentChildren) {
  // Later indices finish first: the outcomes are still in index order.
  const std::vector<ChildOutcome> out = runInChildren(
      6,
      [](size_t i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10 * (6 - i)));
        return "child " + std::to_string(i) + " of " + std::to_string(getpid());
      },
      3, 60);
  ASSERT_EQ(out.size(), 6u);
  for (size_t i = 0; i < out.size(); ++i) {
    EXPECT_EQ(out[i].error, "") << i;
    EXPECT_EQ(out[i].text.rfind("child " + std::to_string(i) + " of ", 0), 0u) << out[i].text;
    // Each ran in a process other than this one.
    EXPECT_EQ(out[i].text.find(" of " + std::to_string(getpid())), std::string::npos);
  }
}

TEST(ChildProcess, BinaryResultsAndLargeOnesArriveWhole) {
  std::string bytes(300000, '\0');
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 7 + 3);
  const ChildOutcome out = runInChild([&] { return bytes; }, 60);
  EXPECT_EQ(out.error, "");
  EXPECT_TRUE(out.text == bytes);
}

TEST(ChildProcess, FailuresCostTheirOwnSlotOnly) {
  const std::vector<ChildOutcome> out = runInChildren(
      5,
      [](size_t i) -> std::string {
        switch (i) {
          case 1:  // the default action, not a sanitizer's handler: the child dies of the signal
            std::signal(SIGSEGV, SIG_DFL);
            std::raise(SIGSEGV);
            break;
          case 2:
            _exit(3);
          case 3:
            throw std::runtime_error("no schedule for this block");
          case 4:
            for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
          default:
            break;
        }
        return "fine";
      },
      2, 1.5);
  EXPECT_EQ(out[0].text, "fine");
  EXPECT_EQ(out[0].error, "");
  EXPECT_NE(out[1].error.find("crashed (signal 11"), std::string::npos) << out[1].error;
  EXPECT_EQ(out[2].error, "exited with status 3");
  EXPECT_EQ(out[3].error, "no schedule for this block");
  EXPECT_EQ(out[4].error, "timed out after 1.5 s");
  for (size_t i = 1; i < out.size(); ++i) EXPECT_EQ(out[i].text, "") << i;
}

}  // namespace
}  // namespace tessera::tune
