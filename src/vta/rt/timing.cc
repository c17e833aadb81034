// The cycle model: instruction costs from the configuration and the parameters, and the schedule of
// three in-order modules linked by token queues. Reporting lives in timing_report.cc.
#include "vta/rt/timing.h"

#include <algorithm>

#include "support/check.h"
#include "support/diagnostic.h"

namespace tessera::vta {
namespace {

uint64_t ceilDiv(uint64_t a, uint64_t b) {
  return (a + b - 1) / b;
}

// The queue a module pops (prev = true: from its previous stage), as in the simulator's routing.
int popQueue(Stage m, bool prev) {
  switch (m) {
    case Stage::kLoad:
      return prev ? -1 : int(TokenQueue::kC2L);
    case Stage::kCompute:
      return prev ? int(TokenQueue::kL2C) : int(TokenQueue::kS2C);
    case Stage::kStore:
      return prev ? int(TokenQueue::kC2S) : -1;
    case Stage::kNone:
      break;
  }
  return -1;
}

int pushQueue(Stage m, bool prev) {
  switch (m) {
    case Stage::kLoad:
      return prev ? -1 : int(TokenQueue::kL2C);
    case Stage::kCompute:
      return prev ? int(TokenQueue::kC2L) : int(TokenQueue::kC2S);
    case Stage::kStore:
      return prev ? int(TokenQueue::kS2C) : -1;
    case Stage::kNone:
      break;
  }
  return -1;
}

// One token in flight: when it becomes available and which instruction pushed it (-1: before the
// run). Tokens carry no data, so the k-th pop of a queue takes the k-th push; pushes of one queue
// come from one in-order module and so are already sorted by time.
struct Token {
  uint64_t ready = 0;
  int64_t producer = -1;
};

// Walks back from the last instruction to finish through whatever bound each start time.
std::vector<size_t> criticalPathOf(const std::vector<InstructionTiming>& timing,
                                   const std::vector<int64_t>& modulePred) {
  std::vector<size_t> path;
  if (timing.empty()) return path;
  size_t cur = 0;
  for (size_t i = 1; i < timing.size(); ++i) {
    if (timing[i].finish >= timing[cur].finish) cur = i;  // ties: the later instruction (FINISH)
  }
  while (true) {
    path.push_back(cur);
    const InstructionTiming& t = timing[cur];
    // A token wait is recorded only when it delayed the start past the module's free time, so
    // the token's producer finished exactly at `start`; otherwise the module predecessor did.
    int64_t pred = t.waitedFor >= 0 ? t.waitedFor : modulePred[cur];
    if (t.start == 0 || pred < 0) break;
    TS_CHECK(timing[size_t(pred)].finish == t.start) << "critical path link at " << cur;
    cur = size_t(pred);
  }
  std::reverse(path.begin(), path.end());
  return path;
}

}  // namespace

const char* tokenQueueName(TokenQueue q) {
  switch (q) {
    case TokenQueue::kL2C:
      return "load->compute";
    case TokenQueue::kC2L:
      return "compute->load";
    case TokenQueue::kC2S:
      return "compute->store";
    case TokenQueue::kS2C:
      return "store->compute";
  }
  return "?";
}

uint64_t instructionCycles(const Config& cfg, const Instruction& insn, const TimingParams& p) {
  const uint64_t bw = std::max<uint64_t>(p.dmaBytesPerCycle, 1);
  switch (insn.opcode) {
    case Opcode::kFinish:
      return p.issueCycles;
    case Opcode::kLoad:
    case Opcode::kStore: {
      if (insn.isNop()) return p.issueCycles;
      // Bytes crossing the bus: DRAM entries (ACC_8BIT reads 1/4 of its SRAM entry). Padding is
      // written into SRAM by the module while it waits on the bus, so it costs no extra cycles.
      const MemType type = insn.opcode == Opcode::kStore ? MemType::kOut : insn.memType;
      const uint64_t rowBytes =
          uint64_t{insn.xSize} * static_cast<uint64_t>(dramElemBytes(cfg, type));
      return p.issueCycles + uint64_t{insn.ySize} * (p.dmaLatencyCycles + ceilDiv(rowBytes, bw));
    }
    case Opcode::kGemm:
    case Opcode::kAlu: {
      // Reset GEMMs also walk their micro-ops (each zeroes an accumulator entry).
      const uint64_t uops = uint64_t{insn.iterOut} * insn.iterIn *
                            (insn.uopEnd > insn.uopBgn ? insn.uopEnd - insn.uopBgn : 0);
      const uint64_t perUop = insn.opcode == Opcode::kGemm ? p.gemmCyclesPerUop : p.aluCyclesPerUop;
      return p.issueCycles + p.computePipelineCycles + uops * perUop;
    }
  }
  return p.issueCycles;
}

TimingReport estimateTiming(const Config& cfg, std::span<const Instruction> program,
                            const TimingParams& params, const TokenQueues& initial) {
  TimingReport report;
  report.params = params;
  report.instructions.resize(program.size());
  std::array<std::vector<size_t>, 3> queues;  // program indices per module, in order
  for (size_t i = 0; i < program.size(); ++i) {
    const Stage m = program[i].module();
    TS_CHECK(m != Stage::kNone) << "unroutable instruction " << i;
    queues[int(m) - 1].push_back(i);
    report.instructions[i].module = m;
  }
  std::array<std::vector<Token>, kTokenQueueCount> tokens;
  const std::array<uint64_t, kTokenQueueCount> initialCount = {initial.l2c, initial.c2l,
                                                               initial.c2s, initial.s2c};
  for (int q = 0; q < kTokenQueueCount; ++q) tokens[q].resize(initialCount[q]);
  std::array<size_t, kTokenQueueCount> popped{};
  std::array<size_t, 3> head{};
  std::array<uint64_t, 3> freeAt{};
  std::array<int64_t, 3> last = {-1, -1, -1};
  std::vector<int64_t> modulePred(program.size(), -1);

  // Schedules the head of module `mi` while its tokens exist. Start times depend only on
  // finish times already fixed, so the order in which modules are visited does not matter.
  auto advance = [&](int mi) {
    bool progress = false;
    const Stage m = Stage(mi + 1);
    while (head[mi] < queues[mi].size()) {
      const size_t index = queues[mi][head[mi]];
      const Instruction& insn = program[index];
      const int qPrev = insn.dep.popPrev ? popQueue(m, true) : -1;
      const int qNext = insn.dep.popNext ? popQueue(m, false) : -1;
      auto missing = [&](int q) { return q >= 0 && popped[q] >= tokens[q].size(); };
      if (missing(qPrev) || missing(qNext)) break;
      InstructionTiming& t = report.instructions[index];
      t.start = freeAt[mi];
      for (int q : {qPrev, qNext}) {
        if (q < 0) continue;
        const Token& token = tokens[q][popped[q]++];
        if (token.ready <= t.start) continue;
        t.start = token.ready;
        t.waitedFor = token.producer;
        t.waitQueue = TokenQueue(q);
      }
      t.finish = t.start + instructionCycles(cfg, insn, params);
      ModuleTiming& mt = report.modules[mi];
      if (t.waitedFor >= 0) mt.wait[int(t.waitQueue)] += t.start - freeAt[mi];
      mt.busy += t.cost();
      ++mt.instructions;
      if (insn.opcode == Opcode::kGemm && !insn.resetReg) {
        report.gemmCycles += t.cost() - params.issueCycles - params.computePipelineCycles;
      }
      for (int q : {insn.dep.pushPrev ? pushQueue(m, true) : -1,
                    insn.dep.pushNext ? pushQueue(m, false) : -1}) {
        if (q >= 0) tokens[q].push_back(Token{t.finish, int64_t(index)});
      }
      modulePred[index] = last[mi];
      last[mi] = int64_t(index);
      freeAt[mi] = t.finish;
      ++head[mi];
      progress = true;
    }
    return progress;
  };
  while (advance(0) || advance(1) || advance(2)) {
  }

  for (int mi = 0; mi < 3; ++mi) {
    if (head[mi] == queues[mi].size()) continue;
    const size_t index = queues[mi][head[mi]];
    throwDiagnostic("vta_deadlock",
                    "deadlock in the timing model: the instruction waits for a token that is "
                    "never pushed",
                    {}, instructionContext(program[index], index));
  }
  for (const InstructionTiming& t : report.instructions) {
    report.totalCycles = std::max(report.totalCycles, t.finish);
  }
  for (ModuleTiming& mt : report.modules) {
    mt.idle = report.totalCycles - mt.busy - mt.waitTotal();
  }
  report.criticalPath = criticalPathOf(report.instructions, modulePred);
  return report;
}

}  // namespace tessera::vta
