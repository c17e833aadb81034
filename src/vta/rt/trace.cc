// Chrome trace output of the cycle model. Events are emitted per track in time order, which
// viewers do not require but keeps the file diffable and deterministic.
#include "vta/rt/trace.h"

#include <fstream>

#include <nlohmann/json.hpp>

#include "support/check.h"
#include "support/diagnostic.h"
#include "vta/rt/disasm.h"

namespace tessera::vta {
namespace {

using Json = nlohmann::ordered_json;

int tidOf(Stage m) {
  return static_cast<int>(m);
}  // load 1, compute 2, store 3

// The short slice name: what a viewer shows inside the box.
std::string sliceName(const Instruction& insn) {
  if (insn.isNop()) return nopName(insn);
  std::string s(opcodeName(insn.opcode));
  if (insn.opcode == Opcode::kLoad) s += " " + std::string(memTypeName(insn.memType));
  if (insn.opcode == Opcode::kAlu) s += " " + std::string(aluOpcodeName(insn.aluOpcode));
  if (insn.opcode == Opcode::kGemm && insn.resetReg) s += " reset";
  return s;
}

Json metadata(const char* what, int tid, Json args) {
  return Json{{"name", what}, {"ph", "M"}, {"pid", 1}, {"tid", tid}, {"args", std::move(args)}};
}

Json slice(std::string name, const char* cat, int tid, uint64_t ts, uint64_t dur, Json args) {
  return Json{{"name", std::move(name)},
              {"cat", cat},
              {"ph", "X"},
              {"pid", 1},
              {"tid", tid},
              {"ts", ts},
              {"dur", dur},
              {"args", std::move(args)}};
}

}  // namespace

std::string chromeTrace(const Config& cfg, std::span<const Instruction> program,
                        const TimingReport& report) {
  TS_CHECK(program.size() == report.instructions.size()) << "report of another program";
  Json events = Json::array();
  events.push_back(metadata("process_name", 0,
                            {{"name", "VTA " + cfg.model() + " (1 us = 1 simulated cycle)"}}));
  const std::array<std::pair<int, const char*>, 4> tracks = {
      std::pair{kTraceLoadTid, "load"}, std::pair{kTraceComputeTid, "compute"},
      std::pair{kTraceStoreTid, "store"}, std::pair{kTraceCriticalTid, "critical path"}};
  for (const auto& [tid, name] : tracks) {
    events.push_back(metadata("thread_name", tid, {{"name", name}}));
    events.push_back(metadata("thread_sort_index", tid, {{"sort_index", tid}}));
  }
  std::vector<bool> critical(program.size(), false);
  for (size_t index : report.criticalPath) critical[index] = true;

  // Program order within a module is execution order, so each module's previous finish is the
  // start of any token wait of its next instruction.
  std::array<uint64_t, 3> prevFinish{};
  for (size_t i = 0; i < program.size(); ++i) {
    const InstructionTiming& t = report.instructions[i];
    const int tid = tidOf(t.module);
    uint64_t& free = prevFinish[tid - 1];
    if (t.waitedFor >= 0 && t.start > free) {
      events.push_back(slice(std::string("wait ") + tokenQueueName(t.waitQueue), "wait", tid, free,
                             t.start - free, {{"index", i}, {"token_from", t.waitedFor}}));
    }
    free = t.finish;
    Json args = {{"index", i}, {"insn", disassemble(program[i])}, {"critical", critical[i]}};
    events.push_back(slice(sliceName(program[i]), "insn", tid, t.start, t.cost(), std::move(args)));
  }
  for (size_t index : report.criticalPath) {
    const InstructionTiming& t = report.instructions[index];
    events.push_back(slice(sliceName(program[index]), "critical", kTraceCriticalTid, t.start,
                           t.cost(), {{"index", index}}));
  }
  Json trace;
  trace["traceEvents"] = std::move(events);
  trace["displayTimeUnit"] = "ns";
  trace["otherData"] = {{"time_unit", "1 trace microsecond = 1 simulated cycle"},
                        {"model", cfg.model()},
                        {"total_cycles", report.totalCycles}};
  return trace.dump();
}

void writeChromeTrace(const std::string& path, const Config& cfg,
                      std::span<const Instruction> program, const TimingReport& report) {
  const std::string text = chromeTrace(cfg, program, report);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  out.close();
  if (!out) throwDiagnostic("vta_trace", "cannot write trace file", {}, path);
}

}  // namespace tessera::vta
