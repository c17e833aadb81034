// The answer of a rule that may not fit its input (a schedule for a kernel, a strategy for a
// call): applies, or does not apply and why. Rules return it instead of throwing, so "does not
// fit" is ordinary control flow and the reason can be shown (`tessera compile --explain-strategy`).
#pragma once

#include <string>
#include <utility>

namespace tessera {

struct Applicability {
  bool applies = true;
  std::string reason;  ///< why not, when it does not apply (lower-case, no final period)

  static Applicability yes() { return {}; }
  static Applicability no(std::string why) { return {false, std::move(why)}; }
  explicit operator bool() const { return applies; }
};

}  // namespace tessera
