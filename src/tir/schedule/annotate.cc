// annotate / unannotate: set or remove a string-keyed hint on a loop or a block.
#include "tir/schedule/instruction_kind_util.h"
#include "tir/schedule/schedule_state.h"

namespace tessera::tir {

// The names of the instructions this file records and replays, written once.
namespace {
constexpr char kAnnotateInst[] = "Annotate";
constexpr char kUnannotateInst[] = "Unannotate";
}  // namespace

namespace {

void setLoopAnnotations(Schedule::Impl& s, const StmtPath& path, const Annotations& ann) {
  auto n = std::make_shared<ForNode>(*path.stmt()->as<ForNode>());
  n->annotations = ann;
  s.commit(Schedule::Impl::replaceInBody(path, n));
}

void setBlockAnnotations(Schedule::Impl& s, const StmtPath& path, const Annotations& ann) {
  auto n = copyBlock(*path.stmt()->as<BlockNode>());
  n->annotations = ann;
  s.commit(Schedule::Impl::replaceInBody(path, n));
}

}  // namespace

void Schedule::annotate(const LoopRV& loop, const std::string& key, const AttrValue& value) {
  StmtPath path = impl_->loopPath("annotate", loop);
  Annotations ann = path.stmt()->as<ForNode>()->annotations;
  ann.set(key, value);
  setLoopAnnotations(*impl_, path, ann);
  impl_->record(
      {.kind = kAnnotateInst, .inputs = {loop, value}, .attrs = {AttrValue::string(key)}});
}

void Schedule::annotate(const BlockRV& block, const std::string& key, const AttrValue& value) {
  StmtPath path = impl_->blockPath("annotate", block);
  Annotations ann = path.stmt()->as<BlockNode>()->annotations;
  ann.set(key, value);
  setBlockAnnotations(*impl_, path, ann);
  impl_->record(
      {.kind = kAnnotateInst, .inputs = {block, value}, .attrs = {AttrValue::string(key)}});
}

void Schedule::annotate(const LoopRV& loop, const std::string& key, const ExprRV& value) {
  StmtPath path = impl_->loopPath("annotate", loop);
  Annotations ann = path.stmt()->as<ForNode>()->annotations;
  ann.set(key, AttrValue::integer(impl_->exprValue("annotate", value), DataType::int64()));
  setLoopAnnotations(*impl_, path, ann);
  impl_->record(
      {.kind = kAnnotateInst, .inputs = {loop, value}, .attrs = {AttrValue::string(key)}});
}

void Schedule::annotate(const BlockRV& block, const std::string& key, const ExprRV& value) {
  StmtPath path = impl_->blockPath("annotate", block);
  Annotations ann = path.stmt()->as<BlockNode>()->annotations;
  ann.set(key, AttrValue::integer(impl_->exprValue("annotate", value), DataType::int64()));
  setBlockAnnotations(*impl_, path, ann);
  impl_->record(
      {.kind = kAnnotateInst, .inputs = {block, value}, .attrs = {AttrValue::string(key)}});
}

void Schedule::unannotate(const LoopRV& loop, const std::string& key) {
  StmtPath path = impl_->loopPath("unannotate", loop);
  Annotations ann = path.stmt()->as<ForNode>()->annotations;
  if (!ann.has(key))
    throwScheduleError("unannotate", "loop '" + path.stmt()->as<ForNode>()->loopVar->name +
                                         "' has no annotation '" + key + "'");
  ann.erase(key);
  setLoopAnnotations(*impl_, path, ann);
  impl_->record({.kind = kUnannotateInst, .inputs = {loop}, .attrs = {AttrValue::string(key)}});
}

void Schedule::unannotate(const BlockRV& block, const std::string& key) {
  StmtPath path = impl_->blockPath("unannotate", block);
  Annotations ann = path.stmt()->as<BlockNode>()->annotations;
  if (!ann.has(key))
    throwScheduleError("unannotate", "block '" + path.stmt()->as<BlockNode>()->name +
                                         "' has no annotation '" + key + "'");
  ann.erase(key);
  setBlockAnnotations(*impl_, path, ann);
  impl_->record({.kind = kUnannotateInst, .inputs = {block}, .attrs = {AttrValue::string(key)}});
}

// --- how its instructions replay and print (listed in instruction_kinds.cc) -------------------

std::vector<InstructionKind> annotateKinds() {
  using namespace kinds;
  return {
      {.name = kAnnotateInst,
       .pythonName = "annotate",
       .inputs = {2, 2},
       .attrs = {1, 1},
       .apply =
           [](Schedule& s, const Instruction& i) {
             TS_CHECK(i.inputs.size() == 2) << "Annotate takes a target and a value";
             if (const auto* rv = std::get_if<ExprRV>(&i.inputs[1])) {
               if (isLoop(i, 0))
                 s.annotate(rvAt<LoopRV>(i, 0), strAttr(i, 0), *rv);
               else
                 s.annotate(rvAt<BlockRV>(i, 0), strAttr(i, 0), *rv);
               return std::vector<InstOutput>{};
             }
             AttrValue value;
             if (const auto* c = std::get_if<AttrValue>(&i.inputs[1])) value = *c;
             if (isLoop(i, 0))
               s.annotate(rvAt<LoopRV>(i, 0), strAttr(i, 0), value);
             else
               s.annotate(rvAt<BlockRV>(i, 0), strAttr(i, 0), value);
             return std::vector<InstOutput>{};
           },
       .print =
           [](const Instruction& i, const Inputs& in) {
             return "block_or_loop=" + in[0] + ", ann_key=" + pyAttr(i, 0) + ", ann_val=" + in[1];
           }},
      {.name = kUnannotateInst,
       .pythonName = "unannotate",
       .inputs = {1, 1},
       .attrs = {1, 1},
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
           }},
  };
}

}  // namespace tessera::tir
