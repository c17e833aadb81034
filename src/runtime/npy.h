// NumPy .npy and .npz files: read and write NDArrays (little-endian, C order; .npz stored or
// deflated).
#pragma once

#include <cstdint>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "runtime/ndarray.h"

namespace tessera {

/// Reads a .npy file. Throws DiagnosticError naming the file for unreadable, malformed or
/// unsupported content (big-endian, Fortran order, object arrays, truncated data).
NDArray readNpy(const std::string& path);
/// Parses .npy bytes (`name` is used in diagnostics).
NDArray parseNpy(const std::string& bytes, const std::string& name);
/// Writes a .npy file (format version 1.0). The file is written whole or not at all.
void writeNpy(const std::string& path, const NDArray& array);
/// Serializes to .npy bytes.
std::string serializeNpy(const NDArray& array);

/// Reads every array of a .npz archive, keyed by name without the ".npy" suffix.
std::map<std::string, NDArray> readNpz(const std::string& path);
/// Writes a .npz archive (stored, uncompressed), arrays in key order. The file is written whole
/// or not at all.
void writeNpz(const std::string& path, const std::map<std::string, NDArray>& arrays);

/// Writes a .npz archive one array at a time, so that each can be freed once written (the params
/// a compile makes). The members go to a temporary file next to `path`; commit() completes the
/// archive and renames it into place. A writer destroyed without commit removes the temporary
/// file: the archive is written whole or not at all. Throws DiagnosticError (code "npy").
class NpzWriter {
 public:
  explicit NpzWriter(std::string path);
  ~NpzWriter();
  NpzWriter(const NpzWriter&) = delete;
  NpzWriter& operator=(const NpzWriter&) = delete;

  void add(const std::string& name, const NDArray& array);
  /// Completes the archive and renames it to `path` (empty: the constructor's path; another path
  /// must be on the same file system). Called again (a module exported twice), it copies the
  /// committed archive to the new path.
  void commit(const std::string& path = "");
  /// The path given to the constructor.
  const std::string& path() const { return path_; }
  /// Members written so far.
  int count() const { return count_; }

 private:
  [[noreturn]] void abandon(const std::string& why);

  std::string path_;
  std::string tmp_;
  std::ofstream out_;
  std::string central_;  ///< the central directory, written by commit
  uint64_t offset_ = 0;
  uint16_t count_ = 0;
  bool committed_ = false;
  std::string committedTo_;  ///< where commit put the archive (empty: abandoned)
};

}  // namespace tessera
