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

// clang-format off
/// Layout of inputs | attrs per kind (what record() must be given; booleans as traceBool()):
///   GetBlock            -                       | name, func_name        -> block
///   GetLoops            block                   | -                      -> loops
///   GetChildBlocks      block or loop           | -                      -> blocks
///   GetProducers/GetConsumers block             | -                      -> blocks
///   Split               loop, factors (None/int/ExprRV) | preserve_unit_iters, disable_predication -> loops
///   Fuse                loops                   | preserve_unit_iters    -> loop
///   Reorder             loops                   | -
///   AddUnitLoop         block or loop           | -                      -> loop
///   Parallel/Vectorize/Unroll loop              | -
///   Bind                loop                    | thread_axis
///   Annotate            block or loop, value    | key
///   Unannotate          block or loop           | key
///   ComputeAt/ReverseComputeAt block, loop      | preserve_unit_loops, index
///   ComputeInline/ReverseComputeInline block    | -
///   CacheRead/CacheWrite block, consumer blocks | buffer_index, storage_scope -> block
///   SetScope            block                   | buffer_index, storage_scope
///   StorageAlign        block                   | buffer_index, axis, factor, offset
///   DecomposeReduction  block, loop             | -                      -> block
///   RFactor             loop                    | factor_axis            -> block
///   Blockize            loop                    | preserve_unit_iters    -> block
///   Tensorize           block or loop           | intrin_name, preserve_unit_iters
///   SamplePerfectTile   loop                    | n, max_innermost_factor -> ExprRVs; decision [ints]
///   SampleCategorical   -                       | candidates [ints], probs [floats] -> ExprRV; decision index
///   SampleComputeLocation block                 | -                      -> loop; decision int
///   EnterPostproc       -                       | -
// clang-format on
struct Instruction {
  std::string kind;  ///< JSON name, e.g. "GetBlock", "SamplePerfectTile"
  std::vector<InstInput> inputs;
  std::vector<AttrValue> attrs;  ///< booleans are stored as 0/1 integers (TVM's JSON form)
  std::vector<InstOutput> outputs;
  std::optional<AttrValue> decision;  ///< sampling instructions only
};

/// How one instruction kind prints and replays. Rows live in instruction_kinds.cc.
struct InstructionKind {
  std::string name;        ///< "Split"
  std::string pythonName;  ///< "split"
  bool pure = false;  ///< no IR change: a simplification may drop it when its outputs are unused
  /// Runs the instruction on `sch` with inputs already mapped to `sch`'s RVs; returns the outputs.
  std::function<std::vector<InstOutput>(Schedule& sch, const Instruction& inst)> apply;
  /// The Python keyword arguments ("loop=l2, n=2, ...") given the printed inputs; the decision is
  /// appended by the printer.
  std::function<std::string(const Instruction& inst, const std::vector<std::string>& inputs)> print;
};

/// The kind named `name` (JSON name), or null.
const InstructionKind* findInstructionKind(const std::string& name);
/// Every kind, in table order.
const std::vector<InstructionKind>& instructionKinds();

}  // namespace tessera::tir
