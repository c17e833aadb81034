// Importing foreign DLPack tensors with the alignment check TVM applies (spec tir_relax.md §5.12):
// compiled kernels assume Tessera's 64-byte alignment, so an unaligned tensor is refused, or
// copied when the caller asks for it explicitly.
#pragma once

#include <dlpack/dlpack.h>

#include "runtime/ndarray.h"

namespace tessera {

/// Bytes of alignment compiled code assumes for tensor data.
inline constexpr size_t kAllocAlignment = 64;

enum class DLPackImport {
  kRequireAligned,   ///< refuse unaligned data (DiagnosticError code "dlpack_align")
  kCopyIfUnaligned,  ///< copy unaligned data into a fresh aligned tensor; share aligned data
};

/// Takes ownership of `managed` (its deleter runs exactly once, also on error) and wraps it without
/// copying when its data is aligned.
NDArray importDLPack(DLManagedTensor* managed, DLPackImport mode = DLPackImport::kRequireAligned);

}  // namespace tessera
