// Instruction: one executed schedule primitive as the trace records it — its kind (the JSON name,
// "Split"), inputs (RVs, None, or constants), attributes (constants), outputs (new RVs) and, for a
// sampling instruction, its decision. The kind table says how each kind prints and replays.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "ir/attr_value.h"
#include "tir/schedule/schedule.h"

namespace tessera::tir {

/// An instruction input: None (e.g. an inferred split factor), an RV, or a constant.
using InstInput = std::variant<std::monostate, BlockRV, LoopRV, ExprRV, AttrValue>;
/// An instruction output: the RV it created.
using InstOutput = std::variant<BlockRV, LoopRV, ExprRV>;

struct Instruction {
  std::string kind;  ///< JSON name, e.g. "GetBlock", "SamplePerfectTile"
  std::vector<InstInput> inputs;
  std::vector<AttrValue> attrs;  ///< booleans are stored as 0/1 integers (TVM's JSON form)
  std::vector<InstOutput> outputs;
  std::optional<AttrValue> decision;  ///< sampling instructions only
};

/// How many inputs or attributes an instruction kind takes: [min, max], max kVariadic for no bound.
struct Arity {
  static constexpr int kVariadic = -1;
  int min = 0;
  int max = 0;
  bool admits(size_t n) const {
    return static_cast<int>(n) >= min && (max == kVariadic || static_cast<int>(n) <= max);
  }
};

/// How one instruction kind records, prints and replays. Each schedule primitive's file defines
/// the rows of the instructions it records (its `...Kinds()` function, listed in
/// instruction_kinds.cc), next to the primitive itself.
struct InstructionKind {
  std::string name;        ///< "Split"
  std::string pythonName;  ///< "split"
  bool pure = false;  ///< no IR change: a simplification may drop it when its outputs are unused
  Arity inputs;       ///< RVs, None or constants: checked when recorded and when read from JSON
  Arity attrs;        ///< constants (booleans as 0/1)
  bool listOutput = false;  ///< returns a list (printed `l0, = sch.get_loops(...)` for one)
  /// Runs the instruction on `sch` with inputs already mapped to `sch`'s RVs; returns the outputs.
  std::function<std::vector<InstOutput>(Schedule& sch, const Instruction& inst)> apply;
  /// The Python keyword arguments ("loop=l2, n=2, ...") given the printed inputs; the decision is
  /// appended by the printer.
  std::function<std::string(const Instruction& inst, const std::vector<std::string>& inputs)> print;
};

/// The kind named `name` (JSON name), or null.
const InstructionKind* findInstructionKind(const std::string& name);
/// Why `inst` does not fit its kind's arity (empty when it does, or the kind is unknown).
std::string arityProblem(const InstructionKind& kind, const Instruction& inst);
/// Every kind, in table order.
const std::vector<InstructionKind>& instructionKinds();

}  // namespace tessera::tir
