#include "support/check.h"

namespace tessera {

void failCheck(const char* condition, const std::string& message, std::source_location where) {
  std::ostringstream os;
  os << "internal error: check '" << condition << "' failed at " << where.file_name() << ":"
     << where.line();
  if (!message.empty()) os << ": " << message;
  throw InternalError(os.str());
}

}  // namespace tessera
