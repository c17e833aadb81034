// The instruction kind table: for every schedule primitive, its JSON name, Python name, purity,
// how it replays (a call of the Schedule method) and how its arguments print in `apply_trace`.
// One row per primitive, data rather than static registration, so the set is visible here.
#include <cstdio>

#include "support/check.h"
#include "tir/schedule/instruction.h"
#include "tir/schedule/trace_format.h"

namespace tessera::tir {

namespace {

using Inputs = std::vector<std::string>;

template <typename RV>
RV rvAt(const Instruction& inst, size_t i) {
  TS_CHECK(i < inst.inputs.size() && std::holds_alternative<RV>(inst.inputs[i]))
      << inst.kind << ": input " << i << " has the wrong kind";
  return std::get<RV>(inst.inputs[i]);
}

const AttrValue& attrAt(const Instruction& inst, size_t i) {
  TS_CHECK(i < inst.attrs.size()) << inst.kind << ": missing attribute " << i;
  return inst.attrs[i];
}
int64_t intAttr(const Instruction& inst, size_t i) {
  return attrAt(inst, i).asInt();
}
bool boolAttr(const Instruction& inst, size_t i) {
  return attrAt(inst, i).asInt() != 0;
}
const std::string& strAttr(const Instruction& inst, size_t i) {
  return attrAt(inst, i).asString();
}

std::vector<BlockRV> blocksFrom(const Instruction& inst, size_t first) {
  std::vector<BlockRV> out;
  for (size_t i = first; i < inst.inputs.size(); ++i) out.push_back(rvAt<BlockRV>(inst, i));
  return out;
}
std::vector<LoopRV> loopsFrom(const Instruction& inst) {
  std::vector<LoopRV> out;
  for (size_t i = 0; i < inst.inputs.size(); ++i) out.push_back(rvAt<LoopRV>(inst, i));
  return out;
}
template <typename RV>
std::vector<InstOutput> outs(const std::vector<RV>& rvs) {
  return {rvs.begin(), rvs.end()};
}
bool isLoop(const Instruction& inst, size_t i) {
  return std::holds_alternative<LoopRV>(inst.inputs[i]);
}

std::string pyBool(const Instruction& inst, size_t i) {
  return boolAttr(inst, i) ? "True" : "False";
}
std::string pyAttr(const Instruction& inst, size_t i) {
  return pythonValue(attrAt(inst, i));
}
std::string joined(const Inputs& in, size_t first = 0) {
  std::string out;
  for (size_t i = first; i < in.size(); ++i) out += (i > first ? ", " : "") + in[i];
  return out;
}

// Rows for primitives with one RV input and no outputs other than what apply returns.
InstructionKind loopKindRow(const char* name, const char* py, void (Schedule::*fn)(const LoopRV&)) {
  return {.name = name,
          .pythonName = py,
          .apply =
              [fn](Schedule& s, const Instruction& i) {
                (s.*fn)(rvAt<LoopRV>(i, 0));
                return std::vector<InstOutput>{};
              },
          .print = [](const Instruction&, const Inputs& in) { return "loop=" + in[0]; }};
}

InstructionKind blockOnlyRow(const char* name, const char* py,
                             void (Schedule::*fn)(const BlockRV&)) {
  return {.name = name,
          .pythonName = py,
          .apply =
              [fn](Schedule& s, const Instruction& i) {
                (s.*fn)(rvAt<BlockRV>(i, 0));
                return std::vector<InstOutput>{};
              },
          .print = [](const Instruction&, const Inputs& in) { return "block=" + in[0]; }};
}

std::vector<InstructionKind> buildKinds() {
  std::vector<InstructionKind> k;
  // --- queries ---
  k.push_back({.name = "GetBlock",
               .pythonName = "get_block",
               .pure = true,
               .apply =
                   [](Schedule& s, const Instruction& i) {
                     return std::vector<InstOutput>{s.getBlock(strAttr(i, 0), strAttr(i, 1))};
                   },
               .print =
                   [](const Instruction& i, const Inputs&) {
                     return "name=" + pyAttr(i, 0) + ", func_name=" + pyAttr(i, 1);
                   }});
  k.push_back({.name = "GetLoops",
               .pythonName = "get_loops",
               .pure = true,
               .apply = [](Schedule& s,
                           const Instruction& i) { return outs(s.getLoops(rvAt<BlockRV>(i, 0))); },
               .print = [](const Instruction&, const Inputs& in) { return "block=" + in[0]; }});
  k.push_back({.name = "GetChildBlocks",
               .pythonName = "get_child_blocks",
               .pure = true,
               .apply =
                   [](Schedule& s, const Instruction& i) {
                     return isLoop(i, 0) ? outs(s.getChildBlocks(rvAt<LoopRV>(i, 0)))
                                         : outs(s.getChildBlocks(rvAt<BlockRV>(i, 0)));
                   },
               .print = [](const Instruction&, const Inputs& in) { return in[0]; }});
  k.push_back(
      {.name = "GetProducers",
       .pythonName = "get_producers",
       .pure = true,
       .apply = [](Schedule& s,
                   const Instruction& i) { return outs(s.getProducers(rvAt<BlockRV>(i, 0))); },
       .print = [](const Instruction&, const Inputs& in) { return "block=" + in[0]; }});
  k.push_back(
      {.name = "GetConsumers",
       .pythonName = "get_consumers",
       .pure = true,
       .apply = [](Schedule& s,
                   const Instruction& i) { return outs(s.getConsumers(rvAt<BlockRV>(i, 0))); },
       .print = [](const Instruction&, const Inputs& in) { return "block=" + in[0]; }});
  // --- loop transformations ---
  k.push_back({.name = "Split",
               .pythonName = "split",
               .apply =
                   [](Schedule& s, const Instruction& i) {
                     std::vector<SplitFactor> factors;
                     for (size_t f = 1; f < i.inputs.size(); ++f) {
                       const InstInput& in = i.inputs[f];
                       if (const auto* rv = std::get_if<ExprRV>(&in))
                         factors.push_back(*rv);
                       else if (const auto* c = std::get_if<AttrValue>(&in))
                         factors.push_back(c->asInt());
                       else
                         factors.push_back(std::monostate{});
                     }
                     bool disable = i.attrs.size() > 1 && boolAttr(i, 1);
                     return outs(s.split(rvAt<LoopRV>(i, 0), factors, boolAttr(i, 0), disable));
                   },
               .print =
                   [](const Instruction& i, const Inputs& in) {
                     std::string out = "loop=" + in[0] + ", factors=[" + joined(in, 1) +
                                       "], preserve_unit_iters=" + pyBool(i, 0);
                     if (i.attrs.size() > 1) out += ", disable_predication=" + pyBool(i, 1);
                     return out;
                   }});
  k.push_back({.name = "Fuse",
               .pythonName = "fuse",
               .apply =
                   [](Schedule& s, const Instruction& i) {
                     return std::vector<InstOutput>{s.fuse(loopsFrom(i), boolAttr(i, 0))};
                   },
               .print =
                   [](const Instruction& i, const Inputs& in) {
                     return joined(in) + ", preserve_unit_iters=" + pyBool(i, 0);
                   }});
  k.push_back({.name = "Reorder",
               .pythonName = "reorder",
               .apply =
                   [](Schedule& s, const Instruction& i) {
                     s.reorder(loopsFrom(i));
                     return std::vector<InstOutput>{};
                   },
               .print = [](const Instruction&, const Inputs& in) { return joined(in); }});
  k.push_back(
      {.name = "AddUnitLoop",
       .pythonName = "add_unit_loop",
       .apply =
           [](Schedule& s, const Instruction& i) {
             return std::vector<InstOutput>{isLoop(i, 0) ? s.addUnitLoop(rvAt<LoopRV>(i, 0))
                                                         : s.addUnitLoop(rvAt<BlockRV>(i, 0))};
           },
       .print = [](const Instruction&, const Inputs& in) { return "block_or_loop=" + in[0]; }});
  // --- loop kinds ---
  k.push_back(loopKindRow("Parallel", "parallel", &Schedule::parallel));
  k.push_back(loopKindRow("Vectorize", "vectorize", &Schedule::vectorize));
  k.push_back(loopKindRow("Unroll", "unroll", &Schedule::unroll));
  k.push_back({.name = "Bind",
               .pythonName = "bind",
               .apply =
                   [](Schedule& s, const Instruction& i) {
                     s.bind(rvAt<LoopRV>(i, 0), strAttr(i, 0));
                     return std::vector<InstOutput>{};
                   },
               .print =
                   [](const Instruction& i, const Inputs& in) {
                     return "loop=" + in[0] + ", thread_axis=" + pyAttr(i, 0);
                   }});
  // --- annotations ---
  k.push_back({.name = "Annotate",
               .pythonName = "annotate",
               .apply =
                   [](Schedule& s, const Instruction& i) {
                     TS_CHECK(i.inputs.size() == 2) << "Annotate takes a target and a value";
                     AttrValue value;
                     if (const auto* rv = std::get_if<ExprRV>(&i.inputs[1]))
                       value = AttrValue::integer(s.get(*rv), DataType::int64());
                     else if (const auto* c = std::get_if<AttrValue>(&i.inputs[1]))
                       value = *c;
                     if (isLoop(i, 0))
                       s.annotate(rvAt<LoopRV>(i, 0), strAttr(i, 0), value);
                     else
                       s.annotate(rvAt<BlockRV>(i, 0), strAttr(i, 0), value);
                     return std::vector<InstOutput>{};
                   },
               .print =
                   [](const Instruction& i, const Inputs& in) {
                     return "block_or_loop=" + in[0] + ", ann_key=" + pyAttr(i, 0) +
                            ", ann_val=" + in[1];
                   }});
  k.push_back({.name = "Unannotate",
               .pythonName = "unannotate",
               .apply =
                   [](Schedule& s, const Instruction& i) {
                     if (isLoop(i, 0))
                       s.unannotate(rvAt<LoopRV>(i, 0), strAttr(i, 0));
                     else
                       s.unannotate(rvAt<BlockRV>(i, 0), strAttr(i, 0));
                     return std::vector<InstOutput>{};
                   },
               .print =
                   [](const Instruction& i, const Inputs& in) {
                     return "block_or_loop=" + in[0] + ", ann_key=" + pyAttr(i, 0);
                   }});
  // --- moving and inlining blocks ---
  k.push_back({.name = "ComputeAt",
               .pythonName = "compute_at",
               .apply =
                   [](Schedule& s, const Instruction& i) {
                     s.computeAt(rvAt<BlockRV>(i, 0), rvAt<LoopRV>(i, 1), boolAttr(i, 0),
                                 static_cast<int>(intAttr(i, 1)));
                     return std::vector<InstOutput>{};
                   },
               .print =
                   [](const Instruction& i, const Inputs& in) {
                     return "block=" + in[0] + ", loop=" + in[1] +
                            ", preserve_unit_loops=" + pyBool(i, 0) + ", index=" + pyAttr(i, 1);
                   }});
  k.push_back({.name = "ReverseComputeAt",
               .pythonName = "reverse_compute_at",
               .apply =
                   [](Schedule& s, const Instruction& i) {
                     s.reverseComputeAt(rvAt<BlockRV>(i, 0), rvAt<LoopRV>(i, 1), boolAttr(i, 0),
                                        static_cast<int>(intAttr(i, 1)));
                     return std::vector<InstOutput>{};
                   },
               .print =
                   [](const Instruction& i, const Inputs& in) {
                     return "block=" + in[0] + ", loop=" + in[1] +
                            ", preserve_unit_loops=" + pyBool(i, 0) + ", index=" + pyAttr(i, 1);
                   }});
  k.push_back(blockOnlyRow("ComputeInline", "compute_inline", &Schedule::computeInline));
  k.push_back(blockOnlyRow("ReverseComputeInline", "reverse_compute_inline",
                           &Schedule::reverseComputeInline));
  // --- caches and storage ---
  k.push_back({.name = "CacheRead",
               .pythonName = "cache_read",
               .apply =
                   [](Schedule& s, const Instruction& i) {
                     return std::vector<InstOutput>{s.cacheRead(rvAt<BlockRV>(i, 0),
                                                                static_cast<int>(intAttr(i, 0)),
                                                                strAttr(i, 1), blocksFrom(i, 1))};
                   },
               .print =
                   [](const Instruction& i, const Inputs& in) {
                     std::string out = "block=" + in[0] + ", read_buffer_index=" + pyAttr(i, 0) +
                                       ", storage_scope=" + pyAttr(i, 1);
                     if (in.size() > 1) out += ", consumer_blocks=[" + joined(in, 1) + "]";
                     return out;
                   }});
  k.push_back({.name = "CacheWrite",
               .pythonName = "cache_write",
               .apply =
                   [](Schedule& s, const Instruction& i) {
                     return std::vector<InstOutput>{s.cacheWrite(rvAt<BlockRV>(i, 0),
                                                                 static_cast<int>(intAttr(i, 0)),
                                                                 strAttr(i, 1), blocksFrom(i, 1))};
                   },
               .print =
                   [](const Instruction& i, const Inputs& in) {
                     std::string out = "block=" + in[0] + ", write_buffer_index=" + pyAttr(i, 0) +
                                       ", storage_scope=" + pyAttr(i, 1);
                     if (in.size() > 1) out += ", consumer_blocks=[" + joined(in, 1) + "]";
                     return out;
                   }});
  k.push_back({.name = "SetScope",
               .pythonName = "set_scope",
               .apply =
                   [](Schedule& s, const Instruction& i) {
                     s.setScope(rvAt<BlockRV>(i, 0), static_cast<int>(intAttr(i, 0)),
                                strAttr(i, 1));
                     return std::vector<InstOutput>{};
                   },
               .print =
                   [](const Instruction& i, const Inputs& in) {
                     return "block=" + in[0] + ", buffer_index=" + pyAttr(i, 0) +
                            ", storage_scope=" + pyAttr(i, 1);
                   }});
  k.push_back({.name = "StorageAlign",
               .pythonName = "storage_align",
               .apply =
                   [](Schedule& s, const Instruction& i) {
                     s.storageAlign(rvAt<BlockRV>(i, 0), static_cast<int>(intAttr(i, 0)),
                                    static_cast<int>(intAttr(i, 1)),
                                    static_cast<int>(intAttr(i, 2)),
                                    static_cast<int>(intAttr(i, 3)));
                     return std::vector<InstOutput>{};
                   },
               .print =
                   [](const Instruction& i, const Inputs& in) {
                     return "block=" + in[0] + ", buffer_index=" + pyAttr(i, 0) +
                            ", axis=" + pyAttr(i, 1) + ", factor=" + pyAttr(i, 2) +
                            ", offset=" + pyAttr(i, 3);
                   }});
  // --- reductions ---
  k.push_back({.name = "DecomposeReduction",
               .pythonName = "decompose_reduction",
               .apply =
                   [](Schedule& s, const Instruction& i) {
                     return std::vector<InstOutput>{
                         s.decomposeReduction(rvAt<BlockRV>(i, 0), rvAt<LoopRV>(i, 1))};
                   },
               .print = [](const Instruction&,
                           const Inputs& in) { return "block=" + in[0] + ", loop=" + in[1]; }});
  k.push_back({.name = "RFactor",
               .pythonName = "rfactor",
               .apply =
                   [](Schedule& s, const Instruction& i) {
                     return std::vector<InstOutput>{
                         s.rfactor(rvAt<LoopRV>(i, 0), static_cast<int>(intAttr(i, 0)))};
                   },
               .print =
                   [](const Instruction& i, const Inputs& in) {
                     return "loop=" + in[0] + ", factor_axis=" + pyAttr(i, 0);
                   }});
  // --- blockize / tensorize ---
  k.push_back({.name = "Blockize",
               .pythonName = "blockize",
               .apply =
                   [](Schedule& s, const Instruction& i) {
                     return std::vector<InstOutput>{s.blockize(rvAt<LoopRV>(i, 0), boolAttr(i, 0))};
                   },
               .print =
                   [](const Instruction& i, const Inputs& in) {
                     return "target=" + in[0] + ", preserve_unit_iters=" + pyBool(i, 0);
                   }});
  k.push_back({.name = "Tensorize",
               .pythonName = "tensorize",
               .apply =
                   [](Schedule& s, const Instruction& i) {
                     if (isLoop(i, 0))
                       s.tensorize(rvAt<LoopRV>(i, 0), strAttr(i, 0), boolAttr(i, 1));
                     else
                       s.tensorize(rvAt<BlockRV>(i, 0), strAttr(i, 0), boolAttr(i, 1));
                     return std::vector<InstOutput>{};
                   },
               .print =
                   [](const Instruction& i, const Inputs& in) {
                     return "block_or_loop=" + in[0] + ", tensor_intrin=" + pyAttr(i, 0) +
                            ", preserve_unit_iters=" + pyBool(i, 1);
                   }});
  // --- sampling (decisions come from the instruction, which replay may have replaced) ---
  k.push_back({.name = "SamplePerfectTile",
               .pythonName = "sample_perfect_tile",
               .pure = true,
               .apply =
                   [](Schedule& s, const Instruction& i) {
                     std::optional<std::vector<int64_t>> decision;
                     if (i.decision) {
                       decision.emplace();
                       for (const AttrValue& d : i.decision->asArray())
                         decision->push_back(d.asInt());
                     }
                     return outs(s.samplePerfectTile(rvAt<LoopRV>(i, 0),
                                                     static_cast<int>(intAttr(i, 0)),
                                                     static_cast<int>(intAttr(i, 1)), decision));
                   },
               .print =
                   [](const Instruction& i, const Inputs& in) {
                     return "loop=" + in[0] + ", n=" + pyAttr(i, 0) +
                            ", max_innermost_factor=" + pyAttr(i, 1);
                   }});
  k.push_back({.name = "SampleCategorical",
               .pythonName = "sample_categorical",
               .pure = true,
               .apply =
                   [](Schedule& s, const Instruction& i) {
                     std::vector<int64_t> candidates;
                     std::vector<double> probs;
                     for (const AttrValue& c : attrAt(i, 0).asArray())
                       candidates.push_back(c.asInt());
                     for (const AttrValue& p : attrAt(i, 1).asArray())
                       probs.push_back(p.kind() == AttrValue::Kind::kInt ? p.asInt() : p.asFloat());
                     std::optional<int64_t> decision;
                     if (i.decision) decision = i.decision->asInt();
                     return std::vector<InstOutput>{
                         s.sampleCategorical(candidates, probs, decision)};
                   },
               .print =
                   [](const Instruction& i, const Inputs&) {
                     return "candidates=" + pyAttr(i, 0) + ", probs=" + pyAttr(i, 1);
                   }});
  k.push_back({.name = "SampleComputeLocation",
               .pythonName = "sample_compute_location",
               .pure = true,
               .apply =
                   [](Schedule& s, const Instruction& i) {
                     std::optional<int64_t> decision;
                     if (i.decision) decision = i.decision->asInt();
                     return std::vector<InstOutput>{
                         s.sampleComputeLocation(rvAt<BlockRV>(i, 0), decision)};
                   },
               .print = [](const Instruction&, const Inputs& in) { return "block=" + in[0]; }});
  k.push_back({.name = "EnterPostproc",
               .pythonName = "enter_postproc",
               .apply = [](Schedule&, const Instruction&) { return std::vector<InstOutput>{}; },
               .print = [](const Instruction&, const Inputs&) { return std::string(); }});
  return k;
}

}  // namespace

const std::vector<InstructionKind>& instructionKinds() {
  static const std::vector<InstructionKind> kinds = buildKinds();
  return kinds;
}

const InstructionKind* findInstructionKind(const std::string& name) {
  for (const InstructionKind& k : instructionKinds()) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

}  // namespace tessera::tir
