// The aligned DLPack import. NDArray::fromDLPack does the layout checks and the sharing; this adds
// the alignment policy on top of it.
#include "runtime/dlpack_import.h"

#include <cstdint>
#include <cstring>

#include "support/check.h"
#include "support/diagnostic.h"

namespace tessera {

NDArray importDLPack(DLManagedTensor* managed, DLPackImport mode) {
  TS_CHECK(managed != nullptr);
  const DLTensor& t = managed->dl_tensor;
  auto address = reinterpret_cast<uintptr_t>(static_cast<const char*>(t.data) + t.byte_offset);
  bool aligned = address % kAllocAlignment == 0;
  if (aligned) return NDArray::fromDLPack(managed);
  if (mode == DLPackImport::kRequireAligned) {
    if (managed->deleter) managed->deleter(managed);
    throwDiagnostic("dlpack_align",
                    "data in DLManagedTensor is not aligned as required by NDArray (" +
                        std::to_string(kAllocAlignment) +
                        " bytes); import with DLPackImport::kCopyIfUnaligned to copy it");
  }
  // Wrap first (layout checks, ownership), then copy into aligned memory and drop the foreign one.
  NDArray foreign = NDArray::fromDLPack(managed);
  NDArray copy = NDArray::empty(foreign.shape(), foreign.dtype());
  std::memcpy(copy.data(), foreign.data(), foreign.nbytes());
  return copy;
}

}  // namespace tessera
