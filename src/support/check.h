// Always-on internal invariant checks. A failure is a bug in Tessera, never a user error: it
// reports the source location and aborts the current operation with InternalError.
#pragma once

#include <source_location>
#include <sstream>
#include <stdexcept>
#include <string>

namespace tessera {

/// Thrown when an internal invariant does not hold.
class InternalError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

[[noreturn]] void failCheck(const char* condition, const std::string& message,
                            std::source_location where = std::source_location::current());

namespace detail {
/// Streams the message parts only on failure, so a passing check costs one branch.
class CheckMessage {
 public:
  template <typename T>
  CheckMessage& operator<<(const T& value) {
    os_ << value;
    return *this;
  }
  std::string str() const { return os_.str(); }

 private:
  std::ostringstream os_;
};
}  // namespace detail

}  // namespace tessera

/// TS_CHECK(cond) << "context " << value;  — stays on in release builds.
#define TS_CHECK(cond)                                                                         \
  for (bool ts_check_ok_ = static_cast<bool>(cond); !ts_check_ok_; ts_check_ok_ = true)        \
    for (::tessera::detail::CheckMessage ts_msg_;; ::tessera::failCheck(#cond, ts_msg_.str())) \
  ts_msg_ << ""
