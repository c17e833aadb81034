// Timelines of the cycle model in the Chrome "Trace Event Format" (JSON with "traceEvents"), which
// chrome://tracing and https://ui.perfetto.dev display: one track per module with a slice per
// instruction and per token wait, plus a track that repeats the critical path.
#pragma once

#include <span>
#include <string>

#include "vta/rt/config.h"
#include "vta/rt/isa.h"
#include "vta/rt/timing.h"

namespace tessera::vta {

/// Thread ids of the tracks ("tid" of every event; pid is always 1).
inline constexpr int kTraceLoadTid = 1;
inline constexpr int kTraceComputeTid = 2;
inline constexpr int kTraceStoreTid = 3;
inline constexpr int kTraceCriticalTid = 4;

/// The trace of `program` as timed by `report`. Time unit: one trace microsecond ("ts", "dur") is
/// one simulated cycle, as the metadata says. Complete events ("ph": "X") carry args index,
/// the disassembled instruction and whether it is on the critical path; waits are named
/// "wait <queue>" with the producing instruction's index.
std::string chromeTrace(const Config& cfg, std::span<const Instruction> program,
                        const TimingReport& report);

/// Writes chromeTrace to `path`; a file that cannot be written is a DiagnosticError (vta_trace).
void writeChromeTrace(const std::string& path, const Config& cfg,
                      std::span<const Instruction> program, const TimingReport& report);

}  // namespace tessera::vta
