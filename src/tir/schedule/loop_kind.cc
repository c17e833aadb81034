// parallel / vectorize / unroll / bind: change a loop's ForKind after checking that every block
// below can run its iterations independently (the loop variable feeds only spatial iter vars).
#include "tir/schedule/block_analysis.h"
#include "tir/schedule/instruction_kind_util.h"
#include "tir/schedule/schedule_state.h"

namespace tessera::tir {

// The names of the instructions this file records and replays, written once.
namespace {
constexpr char kBindInst[] = "Bind";
constexpr char kParallelInst[] = "Parallel";
constexpr char kUnrollInst[] = "Unroll";
constexpr char kVectorizeInst[] = "Vectorize";
}  // namespace

namespace {

bool isThreadAxis(const std::string& axis) {
  static const char* const kAxes[] = {"blockIdx.x",  "blockIdx.y",  "blockIdx.z", "threadIdx.x",
                                      "threadIdx.y", "threadIdx.z", "vthread.x",  "vthread.y",
                                      "vthread.z",   "vthread",     "cthread"};
  for (const char* a : kAxes) {
    if (axis == a) return true;
  }
  return false;
}

// Preconditions of §3.7 for parallel/vectorize/bind: affine bindings, and the loop variable
// binds only spatial iter vars (reduce ones too for threadIdx.*, a cross-thread reduction).
void checkParallelizable(const std::string& primitive, const StmtPath& path, bool allowReduce) {
  const auto* loop = path.stmt()->as<ForNode>();
  for (const BlockRealizeNode* r : realizesUnder(path.stmt())) {
    const BlockNode* b = r->block.get();
    if (!hasAffineBindings(r)) {
      throwScheduleError(primitive, "block '" + b->name + "' under loop '" + loop->loopVar->name +
                                        "' does not have affine bindings");
    }
    for (size_t i = 0; i < b->iterVars.size(); ++i) {
      IterVarType t = b->iterVars[i].type;
      if (t == IterVarType::kDataPar || (allowReduce && t == IterVarType::kCommReduce)) continue;
      if (usesVar(r->iterValues[i], loop->loopVar.get())) {
        throwScheduleError(
            primitive, "loop '" + loop->loopVar->name + "' is bound to the non-spatial iter var '" +
                           b->iterVars[i].var->name + "' of block '" + b->name + "'");
      }
    }
  }
}

void setKind(Schedule::Impl& s, const StmtPath& path, ForKind kind, const std::string& tag) {
  auto n = std::make_shared<ForNode>(*path.stmt()->as<ForNode>());
  n->forKind = kind;
  n->threadTag = tag;
  s.commit(Schedule::Impl::replaceInBody(path, n));
}

}  // namespace

void Schedule::parallel(const LoopRV& loop) {
  StmtPath path = impl_->loopPath("parallel", loop);
  checkParallelizable("parallel", path, false);
  setKind(*impl_, path, ForKind::kParallel, "");
  impl_->record({.kind = kParallelInst, .inputs = {loop}});
}

void Schedule::vectorize(const LoopRV& loop) {
  StmtPath path = impl_->loopPath("vectorize", loop);
  checkParallelizable("vectorize", path, false);
  setKind(*impl_, path, ForKind::kVectorized, "");
  impl_->record({.kind = kVectorizeInst, .inputs = {loop}});
}

void Schedule::unroll(const LoopRV& loop) {
  StmtPath path = impl_->loopPath("unroll", loop);
  setKind(*impl_, path, ForKind::kUnrolled, "");
  impl_->record({.kind = kUnrollInst, .inputs = {loop}});
}

void Schedule::bind(const LoopRV& loop, const std::string& threadAxis) {
  StmtPath path = impl_->loopPath("bind", loop);
  if (!isThreadAxis(threadAxis)) {
    throwScheduleError(
        "bind",
        "'" + threadAxis +
            "' is not a thread axis (expected blockIdx.x/y/z, threadIdx.x/y/z, vthread.x/y/z or "
            "cthread)");
  }
  checkParallelizable("bind", path, threadAxis.rfind("threadIdx.", 0) == 0);
  setKind(*impl_, path, ForKind::kThreadBinding, threadAxis);
  impl_->record({.kind = kBindInst, .inputs = {loop}, .attrs = {AttrValue::string(threadAxis)}});
}

// --- how its instructions replay and print (listed in instruction_kinds.cc) -------------------

std::vector<InstructionKind> loopKindKinds() {
  using namespace kinds;
  return {
      loopKindRow(kParallelInst, "parallel", &Schedule::parallel),
      loopKindRow(kVectorizeInst, "vectorize", &Schedule::vectorize),
      loopKindRow(kUnrollInst, "unroll", &Schedule::unroll),
      {.name = kBindInst,
       .pythonName = "bind",
       .inputs = {1, 1},
       .attrs = {1, 1},
       .apply =
           [](Schedule& s, const Instruction& i) {
             s.bind(rvAt<LoopRV>(i, 0), strAttr(i, 0));
             return std::vector<InstOutput>{};
           },
       .print = [](const Instruction& i,
                   const Inputs& in) { return "loop=" + in[0] + ", thread_axis=" + pyAttr(i, 0); }},
  };
}

}  // namespace tessera::tir
