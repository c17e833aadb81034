// SelectLoadSource: a chain of lazy selects whose every branch reads a buffer at the same index up
// to a constant,
//
//   if_then_else(c1, A[i], if_then_else(c2, B[i - 1568], C[i - 2352]))
//
// (a concatenation: one branch per input, the conditions on the concatenated axis), becomes one
// read through a selected pointer,
//
//   let src = select(c1, A, select(c2, B, C)) in src[i + select(c1, 0, select(c2, -1568, -2352))]
//
// Exactly one element is read either way. When the conditions do not depend on the innermost loop
// (a concatenation along an outer axis), LLVM hoists both selects out of it and is left with one
// simple loop, where the branch chain made it unswitch the loop into one copy per input: code and
// compile time linear in the number of inputs, for each of DenseNet's ~100 concatenations of up
// to 48 inputs (a third of its compile time before).
#include <algorithm>
#include <optional>

#include "tir/arith/analyzer.h"
#include "tir/functor.h"
#include "tir/structural_equal.h"
#include "tir/transform/pass_util.h"
#include "tir/transform/transform.h"

namespace tessera::tir::transform {

namespace {

struct Branch {
  PrimExpr cond;  ///< null for the last (else) branch
  const BufferLoadNode* load;
};

// The branches of `e` when it is an if_then_else chain of at least two loads with scalar
// conditions; empty otherwise.
std::vector<Branch> chainOf(const PrimExpr& e) {
  std::vector<Branch> branches;
  const PrimExpr* rest = &e;
  while (const auto* call = (*rest)->as<CallNode>()) {
    if (call->op != "tir.if_then_else" || call->args.size() != 3) return {};
    const auto* load = call->args[1]->as<BufferLoadNode>();
    if (load == nullptr || call->args[0]->dtype.lanes() != 1) return {};
    branches.push_back({call->args[0], load});
    rest = &call->args[2];
  }
  const auto* last = (*rest)->as<BufferLoadNode>();
  if (last == nullptr || branches.empty()) return {};
  branches.push_back({nullptr, last});
  return branches;
}

// The base and (for a Ramp) stride and lanes of a flat index.
struct IndexForm {
  PrimExpr base;
  PrimExpr stride;  ///< null for a scalar index
  int lanes = 1;
};

std::optional<IndexForm> indexForm(const BufferLoadNode& load) {
  if (load.indices.size() != 1) return std::nullopt;
  const PrimExpr& index = load.indices[0];
  if (const auto* ramp = index->as<RampNode>())
    return IndexForm{ramp->base, ramp->stride, ramp->lanes};
  if (index->dtype.lanes() != 1) return std::nullopt;
  return IndexForm{index, nullptr, 1};
}

// The rewritten read, or null when the chain does not qualify: every branch a global buffer of
// the first branch's element type, read with the same lanes and stride at an index that differs
// from the first branch's by a constant.
PrimExpr selectSource(const std::vector<Branch>& branches) {
  const BufferLoadNode& first = *branches[0].load;
  const std::optional<IndexForm> form = indexForm(first);
  if (!form) return nullptr;
  std::vector<int64_t> offsets;
  for (const Branch& b : branches) {
    const BufferLoadNode& load = *b.load;
    if (load.buffer->dtype != first.buffer->dtype || load.dtype != first.dtype ||
        load.buffer->scope != "global")
      return nullptr;
    const std::optional<IndexForm> f = indexForm(load);
    if (!f || f->lanes != form->lanes || (f->stride == nullptr) != (form->stride == nullptr))
      return nullptr;
    if (f->stride && !structuralEqual(f->stride, form->stride)) return nullptr;
    const PrimExpr delta = arith::simplify(f->base - form->base);
    const int64_t* c = asConstInt(delta);
    if (c == nullptr) return nullptr;
    offsets.push_back(*c);
  }
  // The selected buffer is declared as large as the largest branch buffer (bounds checks).
  int64_t extent = 0;
  for (const Branch& b : branches) {
    const int64_t* n =
        b.load->buffer->shape.size() == 1 ? asConstInt(b.load->buffer->shape[0]) : nullptr;
    if (n == nullptr) return nullptr;
    extent = std::max(extent, *n);
  }
  const DataType indexType = form->base->dtype;
  Buffer source = makeBuffer("concat_src", {intImm(extent, indexType)}, first.buffer->dtype);
  PrimExpr pointer = branches.back().load->buffer->data;
  PrimExpr offset = intImm(offsets.back(), indexType);
  for (size_t k = branches.size() - 1; k-- > 0;) {
    pointer = select(branches[k].cond, branches[k].load->buffer->data, pointer);
    offset = select(branches[k].cond, intImm(offsets[k], indexType), offset);
  }
  PrimExpr base = form->base + offset;
  PrimExpr index = form->stride ? ramp(base, form->stride, form->lanes) : base;
  return let(source->data, pointer, bufferLoad(source, {index}));
}

// Top-down, so a chain is rewritten whole rather than from its innermost pair outwards.
class SourceSelector : public IRMutator {
 protected:
  PrimExpr visitCall(const CallNode* op, const PrimExpr& self) override {
    const std::vector<Branch> branches = chainOf(self);
    if (branches.empty()) return IRMutator::visitCall(op, self);
    // A chain that does not qualify stays whole: its tail alone would trade a branch on an inner
    // loop's variable for a per-element pointer choice.
    PrimExpr rewritten = selectSource(branches);
    return rewritten ? rewritten : self;
  }
};

}  // namespace

PrimFunc selectLoadSource(const PrimFunc& func) {
  SourceSelector selector;
  return withBody(func, selector.visitStmt(func->body));
}

}  // namespace tessera::tir::transform
