// A fresh directory under the system's temporary directory, removed with everything in it when
// the object goes: tests that write databases or compiled models leave nothing behind in /tmp.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <string>

namespace tessera {

class ScratchDir {
 public:
  /// A new directory named `tessera_<prefix>_XXXXXX` (unique, so parallel tests never share it).
  explicit ScratchDir(const std::string& prefix) {
    std::string pattern =
        (std::filesystem::temp_directory_path() / ("tessera_" + prefix + "_XXXXXX")).string();
    if (mkdtemp(pattern.data()) == nullptr)
      throw std::filesystem::filesystem_error("mkdtemp", pattern,
                                              std::error_code(errno, std::generic_category()));
    path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::string str() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

}  // namespace tessera
