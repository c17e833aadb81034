// The 2-D DMA pattern (dma_pattern.h): TVM's `_get_2d_pattern` with its folding, written for
// extents that may be expressions when nothing folds.
#include "vta/tir/dma_pattern.h"

#include "support/diagnostic.h"

namespace tessera::vta {

namespace {

using tir::intImm;
using tir::PrimExpr;

[[noreturn]] void fail(const std::string& message) {
  throwDiagnostic("vta_dma", message);
}

int64_t constExtent(const DmaDim& d) {
  const int64_t* e = tir::asConstInt(d.extent);
  if (!e) fail("a folded dma_copy needs constant extents");
  return *e;
}

// Innermost dimensions forming one entry, then runs of mutually contiguous dimensions merged.
std::vector<DmaDim> fold(const std::vector<DmaDim>& dims, int64_t block) {
  size_t i = dims.size();
  int64_t product = 1;
  while (i > 0 && product < block) {
    --i;
    if (dims[i].stride != product)
      fail("a dma_copy needs contiguous innermost dimensions forming entries of " +
           std::to_string(block) + " scalars");
    product *= constExtent(dims[i]);
  }
  if (product != block)
    fail("a dma_copy needs to have block=" + std::to_string(block) + ", found " +
         std::to_string(product));
  std::vector<DmaDim> out;  // innermost first while building
  out.push_back({intImm(block), 1});
  if (i > 0 && dims[i - 1].stride != block) out.push_back({intImm(1), block});
  while (i > 0) {
    --i;
    int64_t extent = constExtent(dims[i]);
    const int64_t stride = dims[i].stride;
    // Merge outer dimensions while each steps exactly over the run so far.
    while (i > 0 && dims[i - 1].stride == extent * stride) {
      --i;
      extent *= constExtent(dims[i]);
    }
    if (stride % block != 0)
      fail("a dma_copy stride of " + std::to_string(stride) + " scalars is not a whole entry");
    out.push_back({intImm(extent), stride});
  }
  return {out.rbegin(), out.rend()};
}

}  // namespace

Pattern2D pattern2D(const std::vector<DmaDim>& dims, int64_t block, bool allowFold,
                    tir::arith::Analyzer& analyzer) {
  const std::vector<DmaDim> d = allowFold ? fold(dims, block) : dims;
  const size_t n = d.size();
  if (n == 0) fail("a dma_copy moves nothing");
  const PrimExpr one = intImm(1);
  auto extentIs = [&](size_t k, int64_t v) {
    return analyzer.canProveEqual(d[k].extent, intImm(v, d[k].extent->dtype));
  };
  if (extentIs(n - 1, block)) {
    if (d[n - 1].stride != 1) fail("cannot detect 2d pattern: entries are not contiguous");
    if (n == 1) return {one, one, one};
    if (d[n - 2].stride != block)
      fail("cannot detect 2d pattern: entries of a row are not adjacent");
    if (n == 2) return {d[0].extent, one, d[0].extent};
    if (n == 3 && d[0].stride % block == 0)
      return {d[1].extent, d[0].extent, intImm(d[0].stride / block)};
    fail("cannot detect 2d pattern over " + std::to_string(n) + " dimensions");
  }
  // BATCH > 1: the entry is the last two dimensions (batch x block lanes).
  const int64_t* lanes = n >= 2 ? tir::asConstInt(d[n - 1].extent) : nullptr;
  if (lanes && d[n - 1].stride == 1 && d[n - 2].stride == *lanes) {
    if (n == 2) return {one, one, one};
    if (n == 3 && d[0].stride == block) return {d[0].extent, one, d[0].extent};
    if (n == 4 && d[0].stride % block == 0)
      return {d[1].extent, d[0].extent, intImm(d[0].stride / block)};
  }
  fail("cannot detect 2d pattern");
}

}  // namespace tessera::vta
