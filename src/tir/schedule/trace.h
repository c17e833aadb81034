// Trace: the instructions a schedule executed, with their sampling decisions. It prints as the
// Python `apply_trace` script TVM shows, serialises to TVM's JSON form `[[insts], [decisions]]`,
// and replays on a fresh schedule of the original function (optionally with new decisions).
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "tir/schedule/instruction.h"

namespace tessera::tir {

class Trace {
 public:
  const std::vector<Instruction>& insts() const { return insts_; }
  void append(Instruction inst) { insts_.push_back(std::move(inst)); }
  bool empty() const { return insts_.empty(); }

  /// `# from tvm import tir` / `def apply_trace(sch: tir.Schedule) -> None:` / two-space lines.
  std::string str() const;
  /// `[[["GetBlock",[],["C","main"],["b0"]], ...], [[2,[64,2]]]]` (compact JSON).
  std::string toJson() const;
  /// Parses the JSON form; throws DiagnosticError (code "trace") on malformed input.
  static Trace fromJson(const std::string& json);

  /// A copy whose instruction `index` has `decision` (a sampling instruction).
  Trace withDecision(size_t index, AttrValue decision, bool removePostproc) const;
  /// Drops pure instructions whose outputs are never used (scanning backwards).
  Trace simplified(bool removePostproc) const;

 private:
  std::vector<Instruction> insts_;
};

/// Replays `trace` on `sch` (a fresh schedule of the original function), mapping the trace's RVs
/// to new ones. Sampling instructions use `decisions[index]` when given, else the recorded
/// decision (validated/repaired by the sampler). With `removePostproc`, stops at EnterPostproc.
void applyTrace(Schedule& sch, const Trace& trace,
                const std::map<size_t, AttrValue>& decisions = {}, bool removePostproc = false);

}  // namespace tessera::tir
