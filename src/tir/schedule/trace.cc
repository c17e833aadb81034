// Trace printing (`apply_trace`), simplification, decision replacement and replay.
#include "tir/schedule/trace.h"

#include <cstdio>
#include <set>

#include "support/check.h"
#include "support/diagnostic.h"
#include "tir/schedule/instruction_kind_util.h"
#include "tir/schedule/schedule_state.h"
#include "tir/schedule/trace_format.h"

namespace tessera::tir {

// --- value spelling
// --------------------------------------------------------------------------------

std::string pythonValue(const AttrValue& value) {
  switch (value.kind()) {
    case AttrValue::Kind::kNone:
      return "None";
    case AttrValue::Kind::kInt:
      return std::to_string(value.asInt());
    case AttrValue::Kind::kBool:
      return value.asBool() ? "True" : "False";
    case AttrValue::Kind::kFloat: {
      char buf[64];
      std::snprintf(buf, sizeof(buf), "%.17g", value.asFloat());
      return buf;
    }
    case AttrValue::Kind::kString:
      return "\"" + value.asString() + "\"";
    case AttrValue::Kind::kArray: {
      std::string out = "[";
      for (size_t i = 0; i < value.asArray().size(); ++i) {
        out += (i ? ", " : "") + pythonValue(value.asArray()[i]);
      }
      return out + "]";
    }
    case AttrValue::Kind::kAttrs:
      break;
  }
  TS_CHECK(false) << "trace values cannot hold nested attribute objects";
  return "";
}

namespace {

std::pair<int, int> keyOf(const InstOutput& rv) {
  return std::visit(
      [&](const auto& r) { return std::pair<int, int>(static_cast<int>(rv.index()), r.id); }, rv);
}

char letterOf(const InstOutput& rv) {
  return "blv"[rv.index()];
}

}  // namespace

std::string RVNamer::define(const InstOutput& rv) {
  std::string name = letterOf(rv) + std::to_string(counter_++);
  names_[keyOf(rv)] = name;
  return name;
}

const std::string* RVNamer::find(const InstInput& in) const {
  std::optional<InstOutput> rv;
  if (const auto* b = std::get_if<BlockRV>(&in)) rv = *b;
  if (const auto* l = std::get_if<LoopRV>(&in)) rv = *l;
  if (const auto* e = std::get_if<ExprRV>(&in)) rv = *e;
  if (!rv) return nullptr;
  auto it = names_.find(keyOf(*rv));
  return it == names_.end() ? nullptr : &it->second;
}

// --- printing
// --------------------------------------------------------------------------------------

namespace {

std::string inputText(const RVNamer& names, const InstInput& in) {
  if (std::holds_alternative<std::monostate>(in)) return "None";
  if (const auto* c = std::get_if<AttrValue>(&in)) return pythonValue(*c);
  const std::string* name = names.find(in);
  TS_CHECK(name) << "trace input refers to an RV that no instruction created";
  return *name;
}

}  // namespace

std::string Trace::str() const {
  std::string out = "# from tvm import tir\ndef apply_trace(sch: tir.Schedule) -> None:\n";
  if (insts_.empty()) return out + "  pass\n";
  RVNamer names;
  for (const Instruction& inst : insts_) {
    const InstructionKind* kind = findInstructionKind(inst.kind);
    TS_CHECK(kind) << "unknown instruction kind " << inst.kind;
    std::vector<std::string> inputs;
    for (const InstInput& in : inst.inputs) inputs.push_back(inputText(names, in));
    std::string args = kind->print(inst, inputs);
    if (inst.decision)
      args += (args.empty() ? "" : ", ") + std::string("decision=") + pythonValue(*inst.decision);
    std::string lhs;
    for (size_t i = 0; i < inst.outputs.size(); ++i)
      lhs += (i ? ", " : "") + names.define(inst.outputs[i]);
    if (inst.outputs.size() == 1 && kind->listOutput) lhs += ",";
    out += "  " + (lhs.empty() ? "" : lhs + " = ") + "sch." + kind->pythonName + "(" + args + ")\n";
  }
  return out;
}

// --- trace editing
// ---------------------------------------------------------------------------------

namespace {

std::vector<Instruction> untilPostproc(const std::vector<Instruction>& insts, bool removePostproc) {
  std::vector<Instruction> out;
  for (const Instruction& inst : insts) {
    if (removePostproc && inst.kind == "EnterPostproc") break;
    out.push_back(inst);
  }
  return out;
}

}  // namespace

Trace Trace::withDecision(size_t index, AttrValue decision, bool removePostproc) const {
  if (index >= insts_.size() || !insts_[index].decision) {
    throwDiagnostic("trace",
                    "instruction " + std::to_string(index) + " is not a sampling instruction");
  }
  Trace out;
  out.insts_ = insts_;
  out.insts_[index].decision = std::move(decision);
  out.insts_ = untilPostproc(out.insts_, removePostproc);
  return out;
}

Trace Trace::simplified(bool removePostproc) const {
  std::vector<Instruction> insts = untilPostproc(insts_, removePostproc);
  std::set<std::pair<int, int>> used;
  std::vector<bool> keep(insts.size(), false);
  for (size_t i = insts.size(); i-- > 0;) {
    const Instruction& inst = insts[i];
    const InstructionKind* kind = findInstructionKind(inst.kind);
    bool needed = !kind || !kind->pure || inst.kind == "EnterPostproc";
    for (const InstOutput& o : inst.outputs) needed = needed || used.count(keyOf(o));
    if (!needed) continue;
    keep[i] = true;
    for (const InstInput& in : inst.inputs) {
      if (const auto* b = std::get_if<BlockRV>(&in)) used.insert({0, b->id});
      if (const auto* l = std::get_if<LoopRV>(&in)) used.insert({1, l->id});
      if (const auto* e = std::get_if<ExprRV>(&in)) used.insert({2, e->id});
    }
  }
  Trace out;
  for (size_t i = 0; i < insts.size(); ++i) {
    if (keep[i]) out.insts_.push_back(insts[i]);
  }
  return out;
}

// --- replay
// ----------------------------------------------------------------------------------------

void applyTrace(Schedule& sch, const Trace& trace, const std::map<size_t, AttrValue>& decisions,
                bool removePostproc) {
  std::map<std::pair<int, int>, InstOutput> rvMap;  // trace RV -> RV of `sch`
  const auto& insts = trace.insts();
  for (size_t index = 0; index < insts.size(); ++index) {
    const Instruction& inst = insts[index];
    if (inst.kind == "EnterPostproc") {
      if (removePostproc) break;
      sch.impl().record(inst);
      continue;
    }
    const InstructionKind* kind = findInstructionKind(inst.kind);
    if (!kind) throwDiagnostic("trace", "unknown instruction kind '" + inst.kind + "'");
    Instruction mapped = inst;
    for (InstInput& in : mapped.inputs) {
      std::optional<InstOutput> rv;
      if (const auto* b = std::get_if<BlockRV>(&in)) rv = *b;
      if (const auto* l = std::get_if<LoopRV>(&in)) rv = *l;
      if (const auto* e = std::get_if<ExprRV>(&in)) rv = *e;
      if (!rv) continue;
      auto it = rvMap.find(keyOf(*rv));
      if (it == rvMap.end()) {
        throwDiagnostic("trace", "instruction " + std::to_string(index) + " (" + inst.kind +
                                     ") uses an RV no earlier instruction created");
      }
      std::visit([&](const auto& r) { in = r; }, it->second);
    }
    if (auto it = decisions.find(index); it != decisions.end()) mapped.decision = it->second;
    std::vector<InstOutput> results = kind->apply(sch, mapped);
    if (results.size() != inst.outputs.size()) {
      throwDiagnostic("trace", "instruction " + std::to_string(index) + " (" + inst.kind +
                                   ") produced " + std::to_string(results.size()) +
                                   " results but the trace expects " +
                                   std::to_string(inst.outputs.size()));
    }
    for (size_t i = 0; i < results.size(); ++i) rvMap[keyOf(inst.outputs[i])] = results[i];
  }
}

// --- how its instructions replay and print (listed in instruction_kinds.cc) -------------------

std::vector<InstructionKind> traceKinds() {
  using namespace kinds;
  return {
      {.name = "EnterPostproc",
       .pythonName = "enter_postproc",
       .inputs = {0, 0},
       .attrs = {0, 0},
       .apply = [](Schedule&, const Instruction&) { return std::vector<InstOutput>{}; },
       .print = [](const Instruction&, const Inputs&) { return std::string(); }},
  };
}

}  // namespace tessera::tir
