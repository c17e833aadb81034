// Page allocator and address translation of the simulated VTA DRAM.
#include "vta/rt/dram.h"

#include <cstring>
#include <string>

#include "support/diagnostic.h"

namespace tessera::vta {
namespace {

uint64_t pagesFor(uint64_t nbytes) {
  return (nbytes + Dram::kPageBytes - 1) / Dram::kPageBytes;
}

std::string hex(uint64_t v) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  do {
    s.insert(s.begin(), digits[v & 15]);
    v >>= 4;
  } while (v != 0);
  return "0x" + s;
}

}  // namespace

uint64_t Dram::allocate(uint64_t nbytes) {
  if (nbytes == 0) nbytes = 1;
  const uint64_t pages = pagesFor(nbytes);
  uint64_t first = nextPage_;
  // First fit among freed runs keeps the address space compact (the reference reuses freed blocks).
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    if (it->second < pages) continue;
    first = it->first;
    const uint64_t rest = it->second - pages;
    free_.erase(it);
    if (rest > 0) free_[first + pages] = rest;
    break;
  }
  if (first == nextPage_) nextPage_ += pages;
  Block block{pages, nbytes, std::make_unique<uint8_t[]>(pages * kPageBytes)};
  std::memset(block.data.get(), 0, pages * kPageBytes);
  blocks_.emplace(first, std::move(block));
  return (first + 1) * kPageBytes;
}

void Dram::allocateAt(uint64_t physAddr, uint64_t nbytes) {
  if (physAddr == 0 || physAddr % kPageBytes != 0) {
    throwDiagnostic("vta_dram", "allocation address " + hex(physAddr) +
                                    " is not a non-zero multiple of the 4096-byte page");
  }
  if (nbytes == 0) nbytes = 1;
  const uint64_t first = physAddr / kPageBytes - 1;
  const uint64_t pages = pagesFor(nbytes);
  if (first + pages < first) throwDiagnostic("vta_dram", "allocation size overflows");
  auto next = blocks_.lower_bound(first);
  const bool overlapsNext = next != blocks_.end() && next->first < first + pages;
  const bool overlapsPrev =
      next != blocks_.begin() && std::prev(next)->first + std::prev(next)->second.pages > first;
  if (overlapsNext || overlapsPrev) {
    throwDiagnostic("vta_dram", "allocation at " + hex(physAddr) + " of " + std::to_string(nbytes) +
                                    " bytes overlaps another allocation");
  }
  // Remove the pages from the free runs they may fall into.
  std::map<uint64_t, uint64_t> keep;
  for (auto [start, count] : free_) {
    const uint64_t end = start + count;
    if (end <= first || start >= first + pages) {
      keep[start] = count;
      continue;
    }
    if (start < first) keep[start] = first - start;
    if (end > first + pages) keep[first + pages] = end - (first + pages);
  }
  free_ = std::move(keep);
  if (first + pages > nextPage_) {
    if (first > nextPage_) free_[nextPage_] = first - nextPage_;
    nextPage_ = first + pages;
  }
  Block block{pages, nbytes, std::make_unique<uint8_t[]>(pages * kPageBytes)};
  std::memset(block.data.get(), 0, pages * kPageBytes);
  blocks_.emplace(first, std::move(block));
}

void Dram::free(uint64_t physAddr) {
  auto it = physAddr >= kPageBytes && physAddr % kPageBytes == 0
                ? blocks_.find(physAddr / kPageBytes - 1)
                : blocks_.end();
  if (it == blocks_.end()) {
    throwDiagnostic("vta_dram", "free of " + hex(physAddr) + ", which is not a live allocation");
  }
  free_[it->first] = it->second.pages;
  blocks_.erase(it);
}

const Dram::Block* Dram::find(uint64_t physAddr, uint64_t nbytes, uint64_t* offset) const {
  if (physAddr < kPageBytes) return nullptr;  // address 0 (and page -1) is never valid
  const uint64_t page = physAddr / kPageBytes - 1;
  auto it = blocks_.upper_bound(page);
  if (it == blocks_.begin()) return nullptr;
  --it;
  const uint64_t start = (it->first + 1) * kPageBytes;
  const uint64_t off = physAddr - start;
  // Only the requested bytes are valid, not the tail of the last page: reading past a tensor is a
  // program bug the simulator must report.
  if (off > it->second.nbytes || nbytes > it->second.nbytes - off) return nullptr;
  *offset = off;
  return &it->second;
}

uint8_t* Dram::translate(uint64_t physAddr, uint64_t nbytes) {
  uint64_t offset = 0;
  const Block* block = find(physAddr, nbytes, &offset);
  return block ? block->data.get() + offset : nullptr;
}

const uint8_t* Dram::translate(uint64_t physAddr, uint64_t nbytes) const {
  uint64_t offset = 0;
  const Block* block = find(physAddr, nbytes, &offset);
  return block ? block->data.get() + offset : nullptr;
}

std::vector<DramRange> Dram::allocations() const {
  std::vector<DramRange> out;
  out.reserve(blocks_.size());
  for (const auto& [page, block] : blocks_) {
    out.push_back(DramRange{(page + 1) * kPageBytes, block.nbytes});
  }
  return out;
}

}  // namespace tessera::vta
