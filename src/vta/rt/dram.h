// Device DRAM of the simulated VTA (spec §4.1): a paged physical address space whose buffers are
// 4 KiB aligned and never start at address 0, so every `phys / entry_bytes` is exact.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

namespace tessera::vta {

/// One live allocation: its physical address and size in bytes.
struct DramRange {
  uint64_t physAddr = 0;
  uint64_t nbytes = 0;
};

/// The simulated DRAM. Allocations take whole 4 KiB pages; the physical address of an allocation
/// whose first page has index p is (p + 1) * 4096. Freed pages are reused first-fit. Contents of
/// fresh allocations are zero.
class Dram {
 public:
  static constexpr uint64_t kPageBytes = 4096;

  Dram() = default;
  Dram(const Dram&) = delete;
  Dram& operator=(const Dram&) = delete;

  /// Allocates `nbytes` (at least 1) and returns the physical address.
  uint64_t allocate(uint64_t nbytes);
  /// Creates an allocation at a given page-aligned physical address (used to rebuild the DRAM of
  /// a recorded program). Throws DiagnosticError (vta_dram) when misaligned or overlapping.
  void allocateAt(uint64_t physAddr, uint64_t nbytes);
  /// Releases the allocation starting at `physAddr`; throws DiagnosticError (vta_dram) when
  /// `physAddr` does not start a live allocation.
  void free(uint64_t physAddr);

  /// Host view of [physAddr, physAddr + nbytes) when it lies inside one live allocation, else
  /// nullptr (address 0, unmapped, or running past the end of the allocation).
  uint8_t* translate(uint64_t physAddr, uint64_t nbytes);
  const uint8_t* translate(uint64_t physAddr, uint64_t nbytes) const;

  /// The live allocations in address order.
  std::vector<DramRange> allocations() const;

 private:
  struct Block {
    uint64_t pages = 0;
    uint64_t nbytes = 0;
    std::unique_ptr<uint8_t[]> data;
  };
  const Block* find(uint64_t physAddr, uint64_t nbytes, uint64_t* offset) const;

  std::map<uint64_t, Block> blocks_;   // first page -> block
  std::map<uint64_t, uint64_t> free_;  // first free page -> page count
  uint64_t nextPage_ = 0;              // first never-used page
};

}  // namespace tessera::vta
