#include "runtime/file_io.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/diagnostic.h"

namespace tessera::runtime {

std::string readWholeFile(const std::string& path, const std::string& code) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throwDiagnostic(code, "cannot open file", {}, path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void writeWholeFile(const std::string& path, const std::string& text, const std::string& code) {
  const std::string temp = path + ".tmp-tessera";
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) throwDiagnostic(code, "cannot open file for writing", {}, path);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    if (!out.flush()) {
      std::remove(temp.c_str());
      throwDiagnostic(code, "write failed", {}, path);
    }
  }
  std::error_code ec;
  std::filesystem::rename(temp, path, ec);
  if (ec) {
    std::remove(temp.c_str());
    throwDiagnostic(code, "cannot rename the written file into place: " + ec.message(), {}, path);
  }
}

}  // namespace tessera::runtime
