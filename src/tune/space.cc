#include "tune/space.h"

#include <map>

#include "relay/strategy/schedule_kernel.h"
#include "support/diagnostic.h"
#include "tir/schedule/instruction.h"
#include "tir/schedule/primitive/block_primitives.h"

namespace tessera::tune {

namespace {

// The schedule after replaying the first `index` instructions of `trace`, and the replayed RV
// of each of the trace's RVs (the replayed trace has one instruction per replayed one).
struct Prefix {
  tir::Schedule sch;
  std::map<int, tir::InstOutput> rvs;  // by the trace's RV id (ids are unique across kinds)
};

std::optional<Prefix> replayPrefix(const tir::PrimFunc& func, const tir::Trace& trace,
                                   size_t index) {
  tir::Trace prefix;
  for (size_t k = 0; k < index; ++k) prefix.append(trace.insts()[k]);
  Prefix out{tir::Schedule(func, 0), {}};
  try {
    tir::applyTrace(out.sch, prefix);
  } catch (const DiagnosticError&) {
    return std::nullopt;
  }
  const std::vector<tir::Instruction>& replayed = out.sch.trace().insts();
  if (replayed.size() != index) return std::nullopt;
  auto idOf = [](const tir::InstOutput& o) {
    return std::visit([](const auto& rv) { return rv.id; }, o);
  };
  for (size_t k = 0; k < index; ++k) {
    const tir::Instruction& inst = trace.insts()[k];
    for (size_t q = 0; q < inst.outputs.size() && q < replayed[k].outputs.size(); ++q)
      out.rvs.emplace(idOf(inst.outputs[q]), replayed[k].outputs[q]);
  }
  return out;
}

// The extent of `loop` (an RV of the trace) just before instruction `index`.
std::optional<int64_t> loopExtentAt(const tir::PrimFunc& func, const tir::Trace& trace,
                                    size_t index, const tir::LoopRV& loop) {
  std::optional<Prefix> p = replayPrefix(func, trace, index);
  if (!p) return std::nullopt;
  auto it = p->rvs.find(loop.id);
  if (it == p->rvs.end()) return std::nullopt;
  const auto* mapped = std::get_if<tir::LoopRV>(&it->second);
  if (!mapped) return std::nullopt;
  const int64_t* e = tir::asConstInt(p->sch.get(*mapped)->extent);
  if (!e) return std::nullopt;
  return *e;
}

AttrValue intList(const Decision& d) {
  std::vector<AttrValue> items;
  for (int64_t v : d) items.push_back(AttrValue::integer(v));
  return AttrValue::array(std::move(items));
}

Decision fromList(const AttrValue& v) {
  Decision d;
  for (const AttrValue& item : v.asArray()) d.push_back(item.asInt());
  return d;
}

// A split's constant factors with the inferred one filled in; nullopt when it is not a perfect
// tiling of `extent` with constants (an ExprRV factor is a sampled tile's, not a knob).
std::optional<Decision> splitFactors(const tir::Instruction& inst, int64_t extent) {
  Decision d;
  int none = -1;
  int64_t product = 1;
  for (size_t f = 1; f < inst.inputs.size(); ++f) {
    if (std::holds_alternative<std::monostate>(inst.inputs[f])) {
      if (none >= 0) return std::nullopt;
      none = static_cast<int>(d.size());
      d.push_back(1);
    } else if (const auto* c = std::get_if<AttrValue>(&inst.inputs[f])) {
      if (c->asInt() <= 0) return std::nullopt;
      d.push_back(c->asInt());
      product *= c->asInt();
    } else {
      return std::nullopt;
    }
  }
  if (product <= 0 || extent % product != 0) return std::nullopt;
  if (none >= 0)
    d[none] = extent / product;
  else if (product != extent)
    return std::nullopt;
  return d;
}

// Annotate(root, "meta_schedule.parallel", constant): ParallelVectorizeUnroll's limit.
bool isParallelLimit(const tir::Instruction& inst) {
  return inst.kind == "Annotate" && inst.inputs.size() == 2 && !inst.attrs.empty() &&
         inst.attrs[0].kind() == AttrValue::Kind::kString &&
         inst.attrs[0].asString() == "meta_schedule.parallel" &&
         std::holds_alternative<AttrValue>(inst.inputs[1]);
}

}  // namespace

std::optional<std::vector<int64_t>> computeLocationsAt(const tir::PrimFunc& func,
                                                       const tir::Trace& trace, size_t index) {
  const tir::Instruction& inst = trace.insts().at(index);
  const auto* block = inst.inputs.empty() ? nullptr : std::get_if<tir::BlockRV>(&inst.inputs[0]);
  if (!block) return std::nullopt;
  std::optional<Prefix> p = replayPrefix(func, trace, index);
  if (!p) return std::nullopt;
  auto it = p->rvs.find(block->id);
  if (it == p->rvs.end() || !std::holds_alternative<tir::BlockRV>(it->second)) return std::nullopt;
  const uint64_t id = p->sch.get(std::get<tir::BlockRV>(it->second))->id;
  return tir::collectComputeLocations(p->sch.func(), id).candidates;
}

std::string Knob::str() const {
  switch (kind) {
    case Kind::kTile:
      return "SamplePerfectTile #" + std::to_string(inst) + " (extent " + std::to_string(extent) +
             ")";
    case Kind::kCategorical:
      return "SampleCategorical #" + std::to_string(inst);
    case Kind::kSplit:
      return "Split #" + std::to_string(inst) + " (extent " + std::to_string(extent) + ")";
    case Kind::kToggle:
      return "toggle #" + std::to_string(inst);
  }
  return "";
}

DesignSpace spaceFromTrace(const tir::PrimFunc& func, const tir::Trace& trace, std::string name) {
  DesignSpace space{std::move(name), trace, {}, {}, func};
  const std::vector<tir::Instruction>& insts = trace.insts();
  for (size_t i = 0; i < insts.size(); ++i) {
    const tir::Instruction& inst = insts[i];
    if (inst.kind == "EnterPostproc") break;
    Knob knob;
    knob.inst = i;
    if (inst.kind == "SamplePerfectTile" && inst.decision && !inst.inputs.empty()) {
      const auto* loop = std::get_if<tir::LoopRV>(&inst.inputs[0]);
      std::optional<int64_t> extent = loop ? loopExtentAt(func, trace, i, *loop) : std::nullopt;
      if (!extent) continue;
      knob.kind = Knob::Kind::kTile;
      knob.extent = *extent;
      knob.maxInnermost = inst.attrs.size() > 1 ? static_cast<int>(inst.attrs[1].asInt()) : -1;
      space.knobs.push_back(knob);
      space.base.push_back(fromList(*inst.decision));
    } else if (inst.kind == "SampleCategorical" && inst.decision && !inst.attrs.empty()) {
      knob.kind = Knob::Kind::kCategorical;
      knob.choices = static_cast<int64_t>(inst.attrs[0].asArray().size());
      space.knobs.push_back(knob);
      space.base.push_back({inst.decision->asInt()});
    } else if (inst.kind == "Split" && !inst.inputs.empty()) {
      const auto* loop = std::get_if<tir::LoopRV>(&inst.inputs[0]);
      bool constant = true;
      for (size_t f = 1; f < inst.inputs.size(); ++f)
        if (std::holds_alternative<tir::ExprRV>(inst.inputs[f])) constant = false;
      if (!loop || !constant) continue;
      std::optional<int64_t> extent = loopExtentAt(func, trace, i, *loop);
      std::optional<Decision> factors = extent ? splitFactors(inst, *extent) : std::nullopt;
      if (!factors || *extent <= 1) continue;
      knob.kind = Knob::Kind::kSplit;
      knob.extent = *extent;
      // Vector and register tiles: let the innermost factor grow to 4x what the rules chose.
      knob.maxInnermost = static_cast<int>(std::max<int64_t>(16, 4 * factors->back()));
      for (size_t f = 1; f < inst.inputs.size(); ++f)
        knob.inferred.push_back(std::holds_alternative<std::monostate>(inst.inputs[f]));
      space.knobs.push_back(knob);
      space.base.push_back(*factors);
    } else if (inst.kind == "SampleComputeLocation" && inst.decision && !inst.inputs.empty()) {
      std::optional<std::vector<int64_t>> candidates = computeLocationsAt(func, trace, i);
      if (!candidates) continue;
      knob.kind = Knob::Kind::kComputeLocation;
      knob.values = *candidates;
      space.knobs.push_back(knob);
      space.base.push_back({inst.decision->asInt()});
    } else if (isParallelLimit(inst)) {
      knob.kind = Knob::Kind::kParallel;
      knob.extent = std::get<AttrValue>(inst.inputs[1]).asInt();
      space.knobs.push_back(knob);
      space.base.push_back({knob.extent});
    } else if (inst.kind == "Parallel" || inst.kind == "Unroll") {
      knob.kind = Knob::Kind::kToggle;
      space.knobs.push_back(knob);
      space.base.push_back({1});
    }
  }
  return space;
}

tir::Trace DesignSpace::materialize(const Decisions& decisions) const {
  std::map<size_t, size_t> knobAt;
  for (size_t k = 0; k < knobs.size(); ++k) knobAt[knobs[k].inst] = k;
  tir::Trace out;
  const std::vector<tir::Instruction>& insts = trace.insts();
  for (size_t i = 0; i < insts.size(); ++i) {
    auto it = knobAt.find(i);
    if (it == knobAt.end()) {
      out.append(insts[i]);
      continue;
    }
    const Knob& knob = knobs[it->second];
    const Decision& d = decisions[it->second];
    tir::Instruction inst = insts[i];
    switch (knob.kind) {
      case Knob::Kind::kTile:
        inst.decision = intList(d);
        break;
      case Knob::Kind::kCategorical:
        inst.decision = AttrValue::integer(d[0]);
        break;
      case Knob::Kind::kSplit:
        for (size_t f = 0; f < d.size(); ++f)
          inst.inputs[f + 1] = knob.inferred[f] ? tir::InstInput{std::monostate{}}
                                                : tir::InstInput{AttrValue::integer(d[f])};
        break;
      case Knob::Kind::kToggle:
        if (d[0] == 0) continue;
        break;
      case Knob::Kind::kComputeLocation:
        inst.decision = AttrValue::integer(d[0]);
        break;
      case Knob::Kind::kParallel:
        inst.inputs[1] = AttrValue::integer(d[0], DataType::int64());  // as the rule records it
        break;
    }
    out.append(std::move(inst));
  }
  return out;
}

std::optional<Decisions> DesignSpace::decisionsOf(const tir::Trace& other) const {
  std::map<size_t, size_t> knobAt;
  for (size_t k = 0; k < knobs.size(); ++k) knobAt[knobs[k].inst] = k;
  Decisions out = base;
  const std::vector<tir::Instruction>& mine = trace.insts();
  // A record's postprocessing part is not part of the space's point.
  std::vector<tir::Instruction> theirs = other.insts();
  for (size_t i = 0; i < theirs.size(); ++i)
    if (theirs[i].kind == "EnterPostproc") {
      theirs.resize(i);
      break;
    }
  size_t r = 0;
  for (size_t i = 0; i < mine.size(); ++i) {
    auto it = knobAt.find(i);
    const bool present = r < theirs.size() && theirs[r].kind == mine[i].kind;
    if (it != knobAt.end() && knobs[it->second].kind == Knob::Kind::kToggle) {
      out[it->second] = {present ? 1 : 0};
      if (present) ++r;
      continue;
    }
    if (!present) return std::nullopt;
    const tir::Instruction& inst = theirs[r++];
    if (it == knobAt.end()) continue;
    const Knob& knob = knobs[it->second];
    if (knob.kind == Knob::Kind::kTile && inst.decision) {
      out[it->second] = fromList(*inst.decision);
    } else if ((knob.kind == Knob::Kind::kCategorical ||
                knob.kind == Knob::Kind::kComputeLocation) &&
               inst.decision) {
      out[it->second] = {inst.decision->asInt()};
    } else if (knob.kind == Knob::Kind::kParallel) {
      if (!isParallelLimit(inst)) return std::nullopt;
      out[it->second] = {std::get<AttrValue>(inst.inputs[1]).asInt()};
    } else if (knob.kind == Knob::Kind::kSplit) {
      std::optional<Decision> f = splitFactors(inst, knob.extent);
      if (!f) return std::nullopt;
      out[it->second] = *f;
    }
  }
  if (r != theirs.size()) return std::nullopt;
  return out;
}

DesignSpace spaceFromFunction(const tir::PrimFunc& func, const SpaceFunction& fn, std::string name,
                              int64_t seed) {
  tir::Schedule sch(func, seed);
  fn(sch);
  return spaceFromTrace(func, sch.trace(), std::move(name));
}

DesignSpace defaultSpace(const tir::PrimFunc& kernel, const target::Target& target) {
  tir::Trace trace;
  relay::strategy::scheduleKernel(kernel, target, nullptr, &trace);
  return spaceFromTrace(kernel, trace, "default");
}

void stochasticScheduleMM(tir::Schedule& sch) {
  tir::BlockRV c = sch.getBlock("C", "main");
  std::vector<tir::LoopRV> l = sch.getLoops(c);
  std::vector<tir::ExprRV> f = sch.samplePerfectTile(l[1], 2, 16);
  std::vector<tir::LoopRV> j = sch.split(l[1], {f[0], f[1]});
  sch.reorder({l[0], j[0], l[2], j[1]});
  sch.decomposeReduction(c, l[2]);
}

const SpaceFunction* findSpaceFunction(const std::string& name) {
  static const std::map<std::string, SpaceFunction> functions = {
      {"stochastic_schedule_mm", stochasticScheduleMM}};
  auto it = functions.find(name);
  return it == functions.end() ? nullptr : &it->second;
}

}  // namespace tessera::tune
