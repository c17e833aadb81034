// `tessera demo`: the embedded default example (placeholder until the op builders land).
#include "cli.h"

namespace tessera::cli {
const char* const kDemoUsage = "usage: tessera demo\n";
int cmdDemo(Args& args) {
  return kExitOk;
}
}  // namespace tessera::cli
