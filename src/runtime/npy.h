// NumPy .npy and .npz files: read and write NDArrays (little-endian, C order; .npz stored or
// deflated).
#pragma once

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
/// Writes a .npz archive (stored, uncompressed), arrays in key order.
void writeNpz(const std::string& path, const std::map<std::string, NDArray>& arrays);

}  // namespace tessera
