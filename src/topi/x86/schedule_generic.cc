// The generic x86 schedule steps every kernel gets, after its anchor schedule (chosen by the op
// strategy, relay/strategy/) or without one: inline elementwise stages, vectorized reductions
// (across lanes, or inside their consumer with a register accumulator),
// parallel outer loops.
#include <algorithm>
#include <thread>

#include "tir/functor.h"
#include "tir/schedule/attempt.h"
#include "tir/schedule/block_analysis.h"
#include "tir/stmt.h"
#include "topi/x86/schedule.h"
#include "topi/x86/schedule_util.h"

namespace tessera::topi::x86 {
namespace {

// Rows shorter than this are fused with the rows around them when that keeps accesses elementwise.
constexpr int64_t kShortRow = 64;

bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// A `pad_temp` stage that pads nothing is a copy: inlining it costs nothing.
bool padsSomething(const tir::Schedule& sch, const tir::BlockRV& pad) {
  const tir::BlockNode* b = sch.get(pad);
  if (b->reads.empty() || b->writes.empty()) return true;
  const auto& in = b->reads[0].buffer->shape;
  const auto& out = b->writes[0].buffer->shape;
  for (size_t d = 0; d < in.size() && d < out.size(); ++d) {
    const int64_t* i = tir::asConstInt(in[d]);
    const int64_t* o = tir::asConstInt(out[d]);
    if (!i || !o || *i != *o) return true;
  }
  return false;
}

bool hasParallelLoop(const tir::Schedule& sch, const std::vector<tir::LoopRV>& loops) {
  for (const tir::LoopRV& l : loops)
    if (sch.get(l)->forKind != tir::ForKind::kSerial) return true;
  return false;
}

// Loops as createPrimFunc made them: one serial loop per iter var, spatial ones first. A block
// an earlier step scheduled is left alone by the later ones.
bool unscheduled(const tir::Schedule& sch, const std::vector<tir::LoopRV>& loops,
                 const tir::BlockNode* block) {
  return !loops.empty() && loops.size() == block->iterVars.size() && !hasParallelLoop(sch, loops);
}

// The number of leading spatial iter vars of an unscheduled block.
size_t leadingSpatial(const tir::BlockNode* block) {
  size_t spatial = 0;
  while (spatial < block->iterVars.size() &&
         block->iterVars[spatial].type == tir::IterVarType::kDataPar)
    ++spatial;
  return spatial;
}

// int32 lanes of a vector register.
int64_t int32Lanes(const ScheduleOptions& options) {
  return std::max(1, options.vectorBytes / 4);
}

// Whether vectorizeReductions takes a reduction whose innermost loop has `extent` iterations:
// whole vectors, at least two.
bool reducesWholeVectors(std::optional<int64_t> extent, int64_t lanes) {
  return extent && *extent % lanes == 0 && *extent >= 2 * lanes;
}

// Whether an access indexes its trailing `count` dimensions by exactly the block's last `count`
// iter vars, in order and over the same extents.
bool indexesTrailingByIterVars(const tir::BlockNode* block, const tir::Buffer& buffer,
                               const std::vector<tir::PrimExpr>& indices, size_t count) {
  const size_t nv = block->iterVars.size(), nd = indices.size();
  if (nd < count) return false;
  for (size_t j = 1; j <= count; ++j) {
    const tir::IterVar& iv = block->iterVars[nv - j];
    const int64_t* dim = tir::asConstInt(buffer->shape[nd - j]);
    const int64_t* extent = tir::asConstInt(iv.dom.extent);
    if (indices[nd - j].get() != iv.var.get() || !dim || !extent || *dim != *extent) return false;
  }
  return true;
}

// Whether an access uses none of the block's last `count` iter vars (broadcast over them).
bool ignoresTrailingIterVars(const tir::BlockNode* block, const std::vector<tir::PrimExpr>& indices,
                             size_t count) {
  const size_t nv = block->iterVars.size();
  for (size_t j = 1; j <= count; ++j)
    for (const tir::PrimExpr& index : indices)
      if (tir::usesVar(index, block->iterVars[nv - j].var.get())) return false;
  return true;
}

// The number of trailing dimensions of an elementwise block that every access of the block reads
// as its output (or not at all): fused, they are one loop over contiguous elements with the same
// indices as before, and no index arithmetic.
size_t elementwiseTrailingDims(const tir::BlockNode* block) {
  const auto* store = block->body ? block->body->as<tir::BufferStoreNode>() : nullptr;
  if (store == nullptr || block->init != nullptr) return 0;
  size_t count = 0;
  while (count < block->iterVars.size()) {
    const size_t next = count + 1;
    bool ok = indexesTrailingByIterVars(block, store->buffer, store->indices, next);
    tir::postOrderVisitExpr(store->value, [&](const tir::PrimExpr& e) {
      if (const auto* load = e->as<tir::BufferLoadNode>())
        ok = ok && (indexesTrailingByIterVars(block, load->buffer, load->indices, next) ||
                    ignoresTrailingIterVars(block, load->indices, next));
    });
    if (!ok) break;
    count = next;
  }
  return count;
}

}  // namespace

void inlineElementwise(tir::Schedule& sch, const std::vector<std::string>& keep) {
  bool progress = true;
  while (progress) {
    progress = false;
    for (const tir::BlockRV& b : rootBlocks(sch)) {
      const std::string name = sch.get(b)->name;
      if (writesOutput(sch, b) || isReduction(sch, b)) continue;
      const bool copyOnly = name == "pad_temp" && !padsSomething(sch, b);
      if (contains(keep, name) && !copyOnly) continue;
      // A stage read several times by each consumer is copied into every read, so chains of them
      // grow multiplicatively (Faster R-CNN's proposal decoding reads one concatenation through
      // four slices, each read again by several ops: its compile never ended in simplification).
      if (!tir::inliningStaysSmall(sch, b)) continue;
      // Not inlinable (e.g. read at an index it cannot be substituted into): it stays a stage.
      progress = bool(tir::attempt(sch, [&](tir::Schedule& s) {
        s.computeInline(b);
        return Applicability::yes();
      }));
      if (progress) break;  // the block list changed
    }
  }
}

// Fuses the first `spatial` of `loops` (leading spatial loops) until there are a few tasks per
// core, keeping the innermost spatial loop for the vectorizer when there is more than one, and
// makes the result parallel when the block has `work` iterations or more in total.
void parallelizeLeading(tir::Schedule& sch, const std::vector<tir::LoopRV>& loops, size_t spatial,
                        int64_t work, const ScheduleOptions& options) {
  if (options.numCores <= 1 || spatial == 0 || work < options.minParallelWork) return;
  const size_t maxFused = spatial > 1 ? spatial - 1 : 1;
  size_t fused = 0;
  int64_t tasks = 1;
  while (fused < maxFused && tasks < 4 * options.numCores) {
    const std::optional<int64_t> e = extentOf(sch, loops[fused++]);
    if (!e) return;
    tasks *= *e;
  }
  if (tasks < 2) return;
  tir::LoopRV outer = loops[0];
  if (fused > 1) outer = sch.fuse({loops.begin(), loops.begin() + static_cast<long>(fused)});
  sch.parallel(outer);
}

void vectorizeReductions(tir::Schedule& sch, const ScheduleOptions& options) {
  const int64_t lanes = int32Lanes(options);
  for (const tir::BlockRV& b : rootBlocks(sch)) {
    std::vector<tir::LoopRV> loops = sch.getLoops(b);
    const tir::BlockNode* block = sch.get(b);
    // Unscheduled, with a reduction over the innermost loop of whole vectors.
    if (!unscheduled(sch, loops, block) ||
        block->iterVars.back().type != tir::IterVarType::kCommReduce ||
        !reducesWholeVectors(extentOf(sch, loops.back()), lanes))
      continue;
    const int factorAxis =
        static_cast<int>(block->writes.empty() ? 0 : block->writes[0].buffer->ndim());
    // A reducer rfactor cannot split stays a scalar loop.
    tir::attempt(sch, [&](tir::Schedule& s) {
      const int64_t work = workOf(s, loops);
      const size_t spatial = loops.size() - 1;
      std::vector<tir::LoopRV> k = s.split(loops.back(), {std::monostate{}, lanes});
      // The rf-block keeps one partial result per lane: its lane loop is innermost and becomes
      // a vector; the original block then reduces the lanes. Both run their rows in parallel.
      tir::BlockRV rf = s.rfactor(k[1], factorAxis);
      s.vectorize(k[1]);
      parallelizeLeading(s, s.getLoops(rf), spatial, work, options);
      parallelizeLeading(s, s.getLoops(b), spatial, work, options);
      return Applicability::yes();
    });
  }
}

namespace {

// Whether every read of `buffer` in `consumer` (an elementwise block) takes one element at the
// consumer's own indices, over all of the buffer's dimensions.
bool readsElementwise(const tir::BlockNode* consumer, const tir::Buffer& buffer) {
  const auto* store = consumer->body ? consumer->body->as<tir::BufferStoreNode>() : nullptr;
  if (store == nullptr || consumer->init != nullptr ||
      static_cast<size_t>(buffer->ndim()) != consumer->iterVars.size())
    return false;
  bool reads = false, ok = true;
  tir::postOrderVisitExpr(store->value, [&](const tir::PrimExpr& e) {
    const auto* load = e->as<tir::BufferLoadNode>();
    if (load == nullptr || load->buffer.get() != buffer.get()) return;
    reads = true;
    ok = ok && indexesTrailingByIterVars(consumer, buffer, load->indices, buffer->ndim());
  });
  return reads && ok;
}

}  // namespace

void reduceInConsumers(tir::Schedule& sch, const ScheduleOptions& options) {
  const int64_t lanes = int32Lanes(options);
  for (const tir::BlockRV& b : rootBlocks(sch)) {
    std::vector<tir::LoopRV> loops = sch.getLoops(b);
    const tir::BlockNode* block = sch.get(b);
    if (!unscheduled(sch, loops, block) || block->writes.size() != 1 || block->init == nullptr ||
        writesOutput(sch, b))
      continue;
    const size_t spatial = leadingSpatial(block);
    bool trailingReduce = spatial < loops.size();
    for (size_t i = spatial; i < loops.size(); ++i)
      trailingReduce = trailingReduce && block->iterVars[i].type == tir::IterVarType::kCommReduce;
    // Integer reductions only: reassociating them (LLVM's vector reduction) is exact.
    const tir::Buffer& out = block->writes[0].buffer;
    if (!trailingReduce || !out->dtype.isInteger()) continue;
    // Whole vectors are vectorizeReductions' (rfactor over the lanes).
    const std::optional<int64_t> inner = extentOf(sch, loops.back());
    if (!inner || reducesWholeVectors(inner, lanes)) continue;
    std::vector<tir::BlockRV> consumers = sch.getConsumers(b);
    if (consumers.size() != 1) continue;
    const tir::BlockRV consumer = consumers[0];
    std::vector<tir::LoopRV> consumerLoops = sch.getLoops(consumer);
    const tir::BlockNode* c = sch.get(consumer);
    if (isReduction(sch, consumer) || !unscheduled(sch, consumerLoops, c) ||
        static_cast<size_t>(out->ndim()) != spatial || !readsElementwise(c, out))
      continue;
    tir::attempt(sch, [&](tir::Schedule& s) {
      // The consumer's loops run in parallel by the reduction's work, which they now carry.
      parallelizeLeading(s, consumerLoops, consumerLoops.size(), workOf(s, loops), options);
      consumerLoops = s.getLoops(consumer);
      s.computeAt(b, consumerLoops.back());
      std::vector<tir::LoopRV> window = s.getLoops(b);
      window.erase(window.begin(), window.begin() + static_cast<long>(consumerLoops.size()));
      if (window.empty()) return notApplicable("generic", "no window loops below the consumer");
      const tir::LoopRV taps = window.size() > 1 ? s.fuse(window) : window[0];
      s.decomposeReduction(b, taps);
      s.annotate(taps, tir::kPragmaLLVMVectorize, AttrValue::integer(1));
      return Applicability::yes();
    });
  }
}

void vectorizeWindows(tir::Schedule& sch, const ScheduleOptions& options) {
  constexpr int64_t kMaxWindow = 64, kMaxLanes = 64, kUnrolledWindow = 9;
  for (const tir::BlockRV& b : rootBlocks(sch)) {
    std::vector<tir::LoopRV> loops = sch.getLoops(b);
    const tir::BlockNode* block = sch.get(b);
    // One output: a reduction of several values (argmax's index and value) keeps its loops.
    if (!unscheduled(sch, loops, block) || block->writes.size() != 1) continue;
    const size_t spatial = leadingSpatial(block);
    if (spatial == 0 || spatial == loops.size()) continue;
    int64_t window = 1;
    for (size_t i = spatial; i < loops.size(); ++i) {
      if (block->iterVars[i].type != tir::IterVarType::kCommReduce) window = kMaxWindow + 1;
      window *= extentOf(sch, loops[i]).value_or(kMaxWindow + 1);
    }
    const std::optional<int64_t> columns = extentOf(sch, loops[spatial - 1]);
    if (window > kMaxWindow || !columns || *columns < 4) continue;
    const int64_t lanes =
        *columns <= kMaxLanes ? *columns : largestDivisorAtMost(*columns, kMaxLanes);
    if (lanes < 4) continue;
    // The innermost spatial loop goes inside the window's loops, as vector lanes: each output
    // still reduces its window in the same order.
    tir::attempt(sch, [&](tir::Schedule& s) {
      const int64_t work = workOf(s, loops);
      std::vector<tir::LoopRV> order(loops.begin(), loops.begin() + static_cast<long>(spatial) - 1);
      tir::LoopRV column = loops[spatial - 1];
      tir::LoopRV lane = column;
      if (lanes != *columns) {
        std::vector<tir::LoopRV> split = s.split(column, {std::monostate{}, lanes});
        order.push_back(split[0]);
        lane = split[1];
      }
      order.insert(order.end(), loops.begin() + static_cast<long>(spatial), loops.end());
      order.push_back(lane);
      s.reorder(order);
      s.vectorize(lane);
      if (window <= kUnrolledWindow)
        for (size_t i = spatial; i < loops.size(); ++i) s.unroll(loops[i]);
      parallelizeLeading(s, s.getLoops(b), spatial, work, options);
      return Applicability::yes();
    });
  }
}

void parallelizeOuterLoops(tir::Schedule& sch, const ScheduleOptions& options) {
  for (const tir::BlockRV& b : rootBlocks(sch)) {
    std::vector<tir::LoopRV> loops = sch.getLoops(b);
    const tir::BlockNode* block = sch.get(b);
    if (!unscheduled(sch, loops, block)) continue;
    const size_t spatial = leadingSpatial(block);
    // Fusing or parallelizing may be refused (e.g. loops another block shares): stays serial.
    tir::attempt(sch, [&](tir::Schedule& s) {
      const int64_t work = workOf(s, loops);
      std::vector<tir::LoopRV> outer = loops;
      // An elementwise block whose rows are short (14 columns: LLVM unrolls such a loop and
      // leaves it scalar) runs its trailing elementwise dimensions as one long loop, which LLVM
      // vectorizes (ResNet-50's int8 residual additions: 16 scalar instructions an element).
      const size_t trailing = spatial == loops.size() ? elementwiseTrailingDims(block) : 0;
      if (trailing >= 2 && extentOf(s, loops.back()).value_or(0) < kShortRow) {
        outer.resize(loops.size() - trailing);
        outer.push_back(s.fuse({loops.end() - static_cast<long>(trailing), loops.end()}));
      }
      parallelizeLeading(s, outer, spatial - (loops.size() - outer.size()), work, options);
      return Applicability::yes();
    });
  }
}

void scheduleGeneric(tir::Schedule& sch, const ScheduleOptions& options, bool anchored) {
  // Every step keeps the kernel's meaning, and each either succeeds or leaves the schedule as it
  // was (tir::attempt), so whatever fits is kept.
  if (!anchored) inlineElementwise(sch, {});
  vectorizeReductions(sch, options);
  // Windows with columns to vectorize across (ResNet's 3x3 max pool) are vectorizeWindows'.
  vectorizeWindows(sch, options);
  reduceInConsumers(sch, options);
  parallelizeOuterLoops(sch, options);
}

}  // namespace tessera::topi::x86
