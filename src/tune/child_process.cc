#include "tune/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <sstream>

namespace tessera::tune {

namespace {

using Clock = std::chrono::steady_clock;

// The first byte a child writes says whether the rest is the body's result or an exception's
// message; a child that dies before writing it crashed or exited on its own.
constexpr char kResult = 'r';
constexpr char kThrown = 't';

struct Running {
  size_t index = 0;
  pid_t pid = -1;
  int fd = -1;  ///< the read end of the child's pipe
  std::string bytes;
  Clock::time_point deadline;
};

void writeAll(int fd, const std::string& bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

// Forks the child for `index`; false (and `error`) when there is no pipe or no process.
bool start(size_t index, const std::function<std::string(size_t)>& body, double timeoutSec,
           Running& child, std::string& error) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    error = std::string("cannot create a pipe: ") + std::strerror(errno);
    return false;
  }
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = fork();
  if (pid < 0) {
    error = std::string("cannot fork: ") + std::strerror(errno);
    close(fds[0]);
    close(fds[1]);
    return false;
  }
  if (pid == 0) {
    close(fds[0]);
    std::string out;
    try {
      out = kResult + body(index);
    } catch (const std::exception& e) {
      out = kThrown + std::string(e.what());
    } catch (...) {
      out = kThrown + std::string("an exception that is not a std::exception");
    }
    writeAll(fds[1], out);
    close(fds[1]);
    _exit(0);
  }
  close(fds[1]);
  child.index = index;
  child.pid = pid;
  child.fd = fds[0];
  child.deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                      std::chrono::duration<double>(timeoutSec));
  return true;
}

// Reaps `child` (killed first when it timed out) and says what it gave.
ChildOutcome finish(Running& child, bool timedOut, double timeoutSec) {
  close(child.fd);
  if (timedOut) kill(child.pid, SIGKILL);
  int status = 0;
  while (waitpid(child.pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timedOut) {
    std::ostringstream limit;
    limit << timeoutSec;
    return {"", "timed out after " + limit.str() + " s"};
  }
  if (WIFSIGNALED(status))
    return {"", "crashed (signal " + std::to_string(WTERMSIG(status)) + ": " +
                    strsignal(WTERMSIG(status)) + ")"};
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return {"", "exited with status " + std::to_string(WEXITSTATUS(status))};
  if (child.bytes.empty()) return {"", "exited without a result"};
  if (child.bytes[0] == kThrown) return {"", child.bytes.substr(1)};
  return {child.bytes.substr(1), ""};
}

}  // namespace

std::vector<ChildOutcome> runInChildren(size_t count,
                                        const std::function<std::string(size_t)>& body,
                                        size_t concurrent, double timeoutSec) {
  std::vector<ChildOutcome> outcomes(count);
  std::vector<Running> running;
  concurrent = std::max<size_t>(concurrent, 1);
  size_t next = 0;
  while (next < count || !running.empty()) {
    while (next < count && running.size() < concurrent) {
      Running child;
      std::string error;
      if (start(next, body, timeoutSec, child, error))
        running.push_back(std::move(child));
      else
        outcomes[next].error = error;
      ++next;
    }
    if (running.empty()) continue;
    // Wait for any child's output, at most until the nearest deadline (and a second at a time).
    Clock::time_point nearest = running.front().deadline;
    for (const Running& r : running) nearest = std::min(nearest, r.deadline);
    const long long waitMs = std::clamp<long long>(
        std::chrono::duration_cast<std::chrono::milliseconds>(nearest - Clock::now()).count(), 0,
        1000);
    std::vector<pollfd> fds;
    for (const Running& r : running) fds.push_back({r.fd, POLLIN, 0});
    const int ready = poll(fds.data(), fds.size(), static_cast<int>(waitMs));
    const bool pollFailed = ready < 0 && errno != EINTR;
    char buffer[65536];
    for (size_t i = running.size(); i-- > 0;) {
      Running& r = running[i];
      bool done = pollFailed;
      if (!done && fds[i].revents != 0) {
        const ssize_t n = read(r.fd, buffer, sizeof buffer);
        if (n > 0)
          r.bytes.append(buffer, static_cast<size_t>(n));
        else if (n == 0 || errno != EINTR)
          done = true;  // EOF: the child is done, or died
      }
      const bool timedOut = !done && Clock::now() >= r.deadline;
      if (!done && !timedOut) continue;
      outcomes[r.index] = finish(r, timedOut || pollFailed, timeoutSec);
      if (pollFailed) outcomes[r.index].error = "cannot wait for the child";
      running.erase(running.begin() + static_cast<std::ptrdiff_t>(i));
    }
  }
  return outcomes;
}

ChildOutcome runInChild(const std::function<std::string()>& body, double timeoutSec) {
  return runInChildren(
      1, [&body](size_t) { return body(); }, 1, timeoutSec)[0];
}

}  // namespace tessera::tune
