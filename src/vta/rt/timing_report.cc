// Reporting for the cycle model: utilisation, the critical path merged into per-module segments,
// and the text table and JSON forms that `tessera vta sim` prints.
#include <cstdio>

#include <nlohmann/json.hpp>

#include "vta/rt/timing.h"

namespace tessera::vta {
namespace {

double ratio(uint64_t part, uint64_t whole) {
  return whole == 0 ? 0.0 : static_cast<double>(part) / static_cast<double>(whole);
}

constexpr std::array<Stage, 3> kModules = {Stage::kLoad, Stage::kCompute, Stage::kStore};

}  // namespace

double TimingReport::utilisation(Stage m) const {
  return ratio(module(m).busy, totalCycles);
}

double TimingReport::gemmUtilisation() const {
  return ratio(gemmCycles, totalCycles);
}

std::vector<CriticalSegment> TimingReport::criticalSegments() const {
  std::vector<CriticalSegment> segments;
  for (size_t index : criticalPath) {
    const InstructionTiming& t = instructions[index];
    if (segments.empty() || segments.back().module != t.module) {
      segments.push_back(CriticalSegment{t.module, index, index, 0, 0});
    }
    CriticalSegment& s = segments.back();
    s.last = index;
    ++s.instructions;
    s.cycles += t.cost();
  }
  return segments;
}

std::string TimingReport::format(size_t maxSegments) const {
  std::string out;
  char line[160];
  std::snprintf(line, sizeof line,
                "Timing model (simulated cycles; DMA %llu B/cycle + %llu cycles per row, GEMM %llu "
                "cycle/uop, ALU %llu cycles/uop):\n",
                static_cast<unsigned long long>(params.dmaBytesPerCycle),
                static_cast<unsigned long long>(params.dmaLatencyCycles),
                static_cast<unsigned long long>(params.gemmCyclesPerUop),
                static_cast<unsigned long long>(params.aluCyclesPerUop));
  out += line;
  std::snprintf(line, sizeof line, "\ttotal_cycles    : %16llu\n",
                static_cast<unsigned long long>(totalCycles));
  out += line;
  out += "\tmodule     insns        busy   util   wait-token         idle\n";
  for (Stage m : kModules) {
    const ModuleTiming& mt = module(m);
    std::snprintf(line, sizeof line, "\t%-8s %7llu %11llu %5.1f%% %12llu %12llu\n", stageName(m),
                  static_cast<unsigned long long>(mt.instructions),
                  static_cast<unsigned long long>(mt.busy), 100.0 * utilisation(m),
                  static_cast<unsigned long long>(mt.waitTotal()),
                  static_cast<unsigned long long>(mt.idle));
    out += line;
    for (int q = 0; q < kTokenQueueCount; ++q) {
      if (mt.wait[q] == 0) continue;
      std::snprintf(line, sizeof line, "\t           waits on %-15s %12llu\n",
                    tokenQueueName(TokenQueue(q)), static_cast<unsigned long long>(mt.wait[q]));
      out += line;
    }
  }
  std::snprintf(line, sizeof line, "\tgemm_utilisation: %15.1f%% (%llu GEMM micro-op cycles)\n",
                100.0 * gemmUtilisation(), static_cast<unsigned long long>(gemmCycles));
  out += line;
  const std::vector<CriticalSegment> segments = criticalSegments();
  std::array<uint64_t, 3> perModule{};
  for (const CriticalSegment& s : segments) perModule[int(s.module) - 1] += s.cycles;
  std::snprintf(line, sizeof line,
                "\tcritical path   : %zu instructions in %zu segments (load %llu, compute %llu, "
                "store %llu cycles)\n",
                criticalPath.size(), segments.size(), static_cast<unsigned long long>(perModule[0]),
                static_cast<unsigned long long>(perModule[1]),
                static_cast<unsigned long long>(perModule[2]));
  out += line;
  for (size_t i = 0; i < segments.size() && i < maxSegments; ++i) {
    const CriticalSegment& s = segments[i];
    std::snprintf(line, sizeof line, "\t  %-8s insns %zu..%zu (%llu on the path), %llu cycles\n",
                  stageName(s.module), s.first, s.last,
                  static_cast<unsigned long long>(s.instructions),
                  static_cast<unsigned long long>(s.cycles));
    out += line;
  }
  if (segments.size() > maxSegments) {
    out += "\t  ... " + std::to_string(segments.size() - maxSegments) + " more segments\n";
  }
  return out;
}

std::string TimingReport::toJson() const {
  nlohmann::ordered_json j;
  j["total_cycles"] = totalCycles;
  j["params"] = {{"dma_bytes_per_cycle", params.dmaBytesPerCycle},
                 {"dma_latency_cycles", params.dmaLatencyCycles},
                 {"gemm_cycles_per_uop", params.gemmCyclesPerUop},
                 {"alu_cycles_per_uop", params.aluCyclesPerUop},
                 {"compute_pipeline_cycles", params.computePipelineCycles},
                 {"issue_cycles", params.issueCycles}};
  nlohmann::ordered_json mods = nlohmann::ordered_json::object();
  for (Stage m : kModules) {
    const ModuleTiming& mt = module(m);
    nlohmann::ordered_json waits = nlohmann::ordered_json::object();
    for (int q = 0; q < kTokenQueueCount; ++q) {
      if (mt.wait[q] != 0) waits[tokenQueueName(TokenQueue(q))] = mt.wait[q];
    }
    mods[stageName(m)] = {{"instructions", mt.instructions},
                          {"busy_cycles", mt.busy},
                          {"utilisation", utilisation(m)},
                          {"wait_cycles", waits},
                          {"idle_cycles", mt.idle}};
  }
  j["modules"] = mods;
  j["gemm_cycles"] = gemmCycles;
  j["gemm_utilisation"] = gemmUtilisation();
  nlohmann::ordered_json path = nlohmann::ordered_json::array();
  for (const CriticalSegment& s : criticalSegments()) {
    path.push_back({{"module", stageName(s.module)},
                    {"first", s.first},
                    {"last", s.last},
                    {"instructions", s.instructions},
                    {"cycles", s.cycles}});
  }
  j["critical_path"] = {{"instructions", criticalPath.size()}, {"segments", path}};
  return j.dump();
}

}  // namespace tessera::vta
