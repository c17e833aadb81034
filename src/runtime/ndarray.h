// NDArray: an n-dimensional, compact, row-major tensor laid out exactly as a DLPack DLTensor, with
// shared ownership. Import and export through DLManagedTensor share memory without copying.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <dlpack/dlpack.h>

#include "runtime/data_type.h"

namespace tessera {

/// A tensor value. Copying an NDArray shares the buffer (like a shared_ptr); use copy() for a deep
/// copy. Data is 64-byte aligned when Tessera allocates it. Only compact row-major tensors on the
/// CPU exist.
class NDArray {
 public:
  NDArray() = default;

  /// A zero-filled tensor. Throws DiagnosticError for a negative dimension or an overflowing size.
  static NDArray empty(std::vector<int64_t> shape, DataType dtype);
  /// A rank-0 tensor holding `value` converted to `dtype` (floats rounded, ints wrapped).
  static NDArray scalar(double value, DataType dtype);
  static NDArray scalarInt(int64_t value, DataType dtype);
  /// Takes ownership of a DLPack tensor without copying; its deleter runs when the last NDArray
  /// using the memory goes away. Throws DiagnosticError for non-CPU or non-compact tensors.
  static NDArray fromDLPack(DLManagedTensor* managed);

  /// Takes ownership of `data` (compact, row-major, on the CPU, aligned for `dtype`); `release`
  /// frees it when the last NDArray using the memory goes away. Unlike fromDLPack, the memory is
  /// then Tessera's alone (see soleOwner).
  static NDArray adopt(void* data, std::vector<int64_t> shape, DataType dtype,
                       std::function<void()> release);

  /// Exports a DLManagedTensor that shares this array's memory and keeps it alive until its deleter
  /// runs.
  DLManagedTensor* toDLPack() const;

  bool defined() const { return container_ != nullptr; }
  const std::vector<int64_t>& shape() const;
  DataType dtype() const;
  int ndim() const { return static_cast<int>(shape().size()); }
  int64_t numel() const;
  size_t nbytes() const;
  void* data() const;
  template <typename T>
  T* as() const {
    return static_cast<T*>(data());
  }
  /// The underlying DLTensor (valid while this NDArray lives).
  const DLTensor& dlTensor() const;

  /// True when this NDArray is the only one using its memory, nothing exported it, and Tessera
  /// owns the memory (not a DLPack import): the holder may then rewrite it in place.
  bool soleOwner() const;

  /// A copy converted element by element to the floating-point `dtype` (rounded to nearest
  /// even): e.g. bfloat16 values to and from the float32 that .npy files can hold.
  NDArray toFloat(DataType dtype) const;

  /// A deep copy with freshly allocated memory.
  NDArray copy() const;
  /// Same buffer viewed with another shape of equal element count.
  NDArray reshaped(std::vector<int64_t> shape) const;

  /// Generic element access by flat (row-major) index, converting through double / int64. Bool
  /// reads as 0/1; float16/bfloat16 are converted exactly.
  double getFloat(int64_t index) const;
  int64_t getInt(int64_t index) const;
  uint64_t getUInt(int64_t index) const;
  void setFloat(int64_t index, double value) const;
  void setInt(int64_t index, int64_t value) const;
  void setUInt(int64_t index, uint64_t value) const;

  /// Same dtype, same shape and identical bytes.
  bool bitwiseEqual(const NDArray& other) const;
  /// "Tensor[(2, 3), float32]"-style description for diagnostics.
  std::string describe() const;

 private:
  struct Container;
  std::shared_ptr<Container> container_;
};

/// Number of elements of a shape (1 for rank 0).
int64_t shapeNumel(std::span<const int64_t> shape);
/// "(2, 3)" — the text format's spelling of a shape.
std::string shapeString(std::span<const int64_t> shape);
/// Row-major strides (in elements) of a shape.
std::vector<int64_t> rowMajorStrides(std::span<const int64_t> shape);

}  // namespace tessera
