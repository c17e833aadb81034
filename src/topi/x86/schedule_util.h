// Helpers shared by the x86 schedules: block roles (output, reduction) and tile-size choice.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "support/applicability.h"
#include "tir/schedule/schedule.h"

namespace tessera::topi::x86 {

struct ScheduleOptions;

/// The answer of an anchor schedule that does not fit its kernel: `anchor` is the block it tiles,
/// `why` what did not match.
Applicability notApplicable(const std::string& anchor, const std::string& why);
/// Whether the block writes a buffer of the function's parameters (an output of the kernel).
bool writesOutput(const tir::Schedule& sch, const tir::BlockRV& block);
/// Whether the block has a reduction iter var.
bool isReduction(const tir::Schedule& sch, const tir::BlockRV& block);
/// The constant extent of a loop (nullopt when symbolic).
std::optional<int64_t> extentOf(const tir::Schedule& sch, const tir::LoopRV& loop);
/// Iterations of all `loops` (0 when one is symbolic).
int64_t workOf(const tir::Schedule& sch, const std::vector<tir::LoopRV>& loops);
/// The largest divisor of `n` that is at most `limit` (1 when none is larger).
int64_t largestDivisorAtMost(int64_t n, int64_t limit);
/// Rows of an outer-product tile (one broadcast value per row against `lanes` float32 lanes of
/// vectors): at most 16 vector accumulators within the register budget, at most 8 rows. The
/// packed dense and the pointwise conv2d share it.
int64_t broadcastRowLimit(int64_t lanes, const ScheduleOptions& options);
/// The tile size for `n` items at most `limit` to a tile: the largest divisor of `n` when it is at
/// least 3/4 of `limit` (every tile whole), else `limit` itself, the last tile partial (the split
/// leaves a predicate that LoopPartition peels off, where the tile loop is a loop of its own).
/// ResNet's channel counts are powers of two: with AVX2's 6-row limit a divisor gave 4 rows.
int64_t tileExtent(int64_t n, int64_t limit);
/// Vector registers of `lanes` float32 lanes (at least one).
int64_t vectorsOf(int64_t lanes, const ScheduleOptions& options);
/// The vector accumulators a register tile may hold: `cap`, or fewer when `registers` less the
/// tile's other live vectors (`operands`: weight vectors, a broadcast input) and one spare cannot
/// hold that many. With AVX2's 16 registers a tile of 14 accumulators spilled in its inner loop;
/// AVX-512's 32 hold every cap the schedules use.
int64_t accumulatorBudget(int registers, int64_t operands, int64_t cap);
/// The blocks directly under the root block, in program order.
std::vector<tir::BlockRV> rootBlocks(tir::Schedule& sch);
/// The block named `name`, if the function has exactly one.
std::optional<tir::BlockRV> findBlock(tir::Schedule& sch, const std::string& name);
/// The only root-level block that writes an output, or nullopt (several outputs, or none).
std::optional<tir::BlockRV> soleOutputBlock(tir::Schedule& sch);

/// The loops of `block` below its first `outer` loops (none when it has fewer).
std::vector<tir::LoopRV> innerLoops(tir::Schedule& sch, const tir::BlockRV& block, size_t outer);
/// Unrolls all but the last of `loops` and vectorizes the last (a register tile's loops).
void vectorizeTile(tir::Schedule& sch, const std::vector<tir::LoopRV>& loops);
/// Fuses `loops` (a chain from the outermost) and makes the result parallel when numCores > 1.
void parallelTiles(tir::Schedule& sch, const std::vector<tir::LoopRV>& loops, int numCores);

}  // namespace tessera::topi::x86
