// Helpers shared by the pass tests: run a pass on parsed text and print the result compactly.
#pragma once

#include <string>

#include "relay/text/parser.h"
#include "relay/text/printer.h"
#include "relay/transform/pass.h"

namespace tessera::test {

/// The module printed without type annotations: the golden texts show structure only.
inline std::string printBare(const relay::IRModule& m) {
  return relay::printModule(m, relay::PrintOptions{.types = false});
}

/// Runs `pass` on the module parsed from `text` at opt level 3.
inline relay::IRModule runPass(const relay::Pass& pass, const relay::IRModule& m) {
  relay::PassContext ctx;
  ctx.optLevel = 3;
  return (*pass)(m, ctx);
}

}  // namespace tessera::test
