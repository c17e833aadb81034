// The read and write regions of a block written without `T.reads`/`T.writes` (the seeds' hand
// written TVMScript omits them), as TVM's parser fills them in.
#pragma once

#include <vector>

#include "tir/stmt.h"

namespace tessera::tir::script {

struct AccessRegions {
  std::vector<BufferRegion> reads;
  std::vector<BufferRegion> writes;
};

/// The regions `block`'s body and init access, buffers in order of first access. Per dimension:
/// one point when every access uses the same index in the block's variables, the hull of
/// constant indices, an inner loop's range for an index that is that loop's variable, else the
/// whole dimension. Nested blocks contribute their declared regions, widened to whole buffers.
/// The block's own allocations are not accesses, and a reduction block (one with `init`) does
/// not list what it writes among its reads (the update reads its own output, as TVM prints it).
AccessRegions inferAccessRegions(const BlockNode& block);

}  // namespace tessera::tir::script
