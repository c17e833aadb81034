// Recorded VTA programs: one device run (configuration, encoded instruction stream, and the DRAM
// image it runs against) with a documented binary file format (docs/user/vta.md), and the entry
// points behind `tessera vta sim PROGRAM` and `tessera vta disasm PROGRAM`.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "vta/rt/config.h"
#include "vta/rt/isa.h"
#include "vta/rt/stats.h"

namespace tessera::vta {

/// The contents of one DRAM allocation.
struct DramSegment {
  uint64_t physAddr = 0;  ///< page-aligned physical address
  std::vector<uint8_t> bytes;
  bool operator==(const DramSegment&) const = default;
};

/// One device run: everything the simulator needs to reproduce it bit for bit. `dram` holds every
/// live allocation at the start of the run, including the micro-op staging area the LOAD UOP
/// instructions read from.
struct Program {
  Config config;
  std::vector<EncodedInstruction> instructions;
  std::vector<DramSegment> dram;
  bool operator==(const Program&) const = default;
};

/// The file image of `program` (format "TSVTAPRG" version 1, little-endian; docs/user/vta.md).
std::vector<uint8_t> serializeProgram(const Program& program);
/// Parses a file image; truncation, a bad magic or version, an invalid configuration or
/// overlapping segments are DiagnosticErrors (vta_program) naming `source` and the byte offset.
Program parseProgram(std::span<const uint8_t> bytes, const std::string& source = "program");

/// Writes `program` to `path` (throws DiagnosticError vta_program when the file cannot be written).
void saveProgram(const Program& program, const std::string& path);
/// Reads a program file (throws DiagnosticError vta_program when unreadable or malformed).
Program loadProgram(const std::string& path);

/// The result of simulating a program: the counters and the DRAM contents after the run.
struct SimulationResult {
  Stats stats;
  std::vector<DramSegment> dram;
};

/// Runs `program` on a fresh simulator with its recorded DRAM image. Execution problems are
/// DiagnosticErrors naming the instruction (see Simulator::run).
SimulationResult simulateProgram(const Program& program);
/// The counters of simulateProgram (what `tessera vta sim` prints with Stats::format()).
Stats simulate(const Program& program);

/// The decoded instruction stream of `program` (a bad word is a DiagnosticError naming it), for the
/// timing model and the trace writer.
std::vector<Instruction> decodeInstructions(const Program& program);

/// A listing of `program`: a header (configuration model, instruction count, DRAM segments) and
/// one line per instruction; with `withUops`, each LOAD UOP is followed by the micro-ops it loads.
std::string disassemble(const Program& program, bool withUops = false);

}  // namespace tessera::vta
