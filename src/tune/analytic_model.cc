#include "tune/analytic_model.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "support/diagnostic.h"
#include "tir/arith/analyzer.h"
#include "tir/arith/linear_sum.h"
#include "tir/functor.h"
#include "tir/printer/printer.h"
#include "tir/stmt.h"
#include "tir/transform/lower.h"

namespace tessera::tune {

MachineModel MachineModel::of(const target::Target& target) {
  MachineModel m;
  m.vectorBytes = target.vectorBytes();
  m.vectorRegisters = target.vectorRegisters();
  m.cores = std::max(target.numCores, 1);
  return m;
}

namespace {

constexpr int64_t kUnknownExtent = 16;  // a loop of symbolic extent
constexpr int64_t kMaxExpandedUnroll = 64;
constexpr double kParallelLaunchCycles = 1000;  // waking the thread pool and joining it

bool isFloatMul(const tir::PrimExpr& e) {
  const auto* b = e->as<tir::BinaryNode>();
  return b && b->op == tir::BinaryOp::kMul && b->dtype.isFloat();
}

int64_t extentOf(const tir::ForNode* loop) {
  const int64_t* e = tir::asConstInt(loop->extent);
  return e ? std::max<int64_t>(*e, 0) : kUnknownExtent;
}

// One memory access of a straight-line body, in program order.
struct Access {
  std::string key;  // the buffer and its index: one address (or vector of addresses)
  bool store = false;
  bool varying = true;  // its address depends on the loop being costed
  bool floatValue = false;
  double ops = 1;  // micro-ops: vector registers it spans, or one per lane when strided
  bool scalar = true;
  int bits = 32;
  /// The step of its (flattened) address per iteration of the loop: 0 when invariant, -1 when
  /// not affine in the loop variable.
  int64_t stride = 0;
  double bytes = 4;
  /// A load whose data is not kept in L1 between executions of the loop (see BodyCollector).
  bool beyondL1 = false;
};

// The work of a straight-line body (no loops): arithmetic micro-ops and its accesses.
struct Body {
  double arith = 0;
  bool scalar = true;  // no vector arithmetic (a candidate for LLVM's loop vectorizer)
  std::vector<Access> accesses;
};

class BodyCollector {
 public:
  /// `outerVar`: the innermost loop around `loopVar`'s that iterates more than once (null when
  /// none).
  BodyCollector(const MachineModel& m, const tir::VarNode* loopVar,
                const tir::VarNode* outerVar = nullptr)
      : m_(m), loopVar_(loopVar), outerVar_(outerVar) {}

  /// Adds `s` to the body; false when it holds a loop that is not expanded here.
  bool add(const tir::Stmt& s) {
    using K = tir::StmtKind;
    switch (s->kind) {
      case K::kBufferStore: {
        const auto* st = s->as<tir::BufferStoreNode>();
        value(st->value);
        for (const tir::PrimExpr& i : st->indices) indexLoads(i);
        body_.accesses.push_back(access(st->buffer.get(), st->indices, st->value->dtype, true));
        return true;
      }
      case K::kEvaluate:
        value(s->as<tir::EvaluateNode>()->value);
        return true;
      case K::kLetStmt: {
        const auto* let = s->as<tir::LetStmtNode>();
        indexLoads(let->value);
        lets_[let->var.get()] = tir::substitute(let->value, lets_);
        return add(let->body);
      }
      case K::kAttrStmt:
        return add(s->as<tir::AttrStmtNode>()->body);
      case K::kAssertStmt:
        return true;
      case K::kIfThenElse: {
        const auto* ite = s->as<tir::IfThenElseNode>();
        indexLoads(ite->condition);
        body_.arith += 1;
        if (!add(ite->thenCase)) return false;
        return !ite->elseCase || add(ite->elseCase);
      }
      case K::kSeqStmt:
        for (const tir::Stmt& c : s->as<tir::SeqStmtNode>()->seq)
          if (!add(c)) return false;
        return true;
      case K::kAllocate:
        return add(s->as<tir::AllocateNode>()->body);
      case K::kDeclBuffer:
        return add(s->as<tir::DeclBufferNode>()->body);
      case K::kFor: {
        // A short unrolled loop that lowering left to LLVM is straight-line code once unrolled.
        const auto* loop = s->as<tir::ForNode>();
        const int64_t* n = tir::asConstInt(loop->extent);
        const int64_t* lo = tir::asConstInt(loop->min);
        if (loop->forKind != tir::ForKind::kUnrolled || !n || !lo || *n > kMaxExpandedUnroll)
          return false;
        for (int64_t i = 0; i < *n; ++i) {
          tir::VarMap map{{loop->loopVar.get(), tir::intImm(*lo + i, loop->loopVar->dtype)}};
          if (!add(tir::substitute(loop->body, map))) return false;
        }
        return true;
      }
      default:
        return false;
    }
  }

  const Body& body() const { return body_; }

 private:
  double registers(DataType t) const {
    const double bytes = t.bits() * t.lanes() / 8.0;
    return std::max(1.0, std::ceil(bytes / m_.vectorBytes));
  }

  Access access(const tir::BufferNode* buffer, const std::vector<tir::PrimExpr>& indices,
                DataType valueType, bool store) {
    Access a;
    a.store = store;
    a.key = buffer->data->name + "@" + std::to_string(reinterpret_cast<uintptr_t>(buffer));
    a.floatValue = valueType.isFloat();
    a.scalar = valueType.lanes() == 1;
    a.bits = valueType.bits();
    bool strided = false;
    bool usesOuter = outerVar_ == nullptr;
    for (const tir::PrimExpr& raw : indices) {
      const tir::PrimExpr i = tir::arith::simplify(tir::substitute(raw, lets_));
      usesOuter = usesOuter || tir::usesVar(i, outerVar_);
      a.key += "[" + tir::toString(i) + "]";
      const int64_t step = strideOf(i);
      a.stride = a.stride == 0 ? step : (step == 0 ? a.stride : -1);
      if (i->dtype.lanes() > 1) {
        const auto* ramp = i->as<tir::RampNode>();
        const int64_t* stride = ramp ? tir::asConstInt(ramp->stride) : nullptr;
        // A broadcast index reads one element; a ramp of stride 1 one vector; else a gather.
        if (!i->as<tir::BroadcastNode>() && !(stride && *stride == 1)) strided = true;
      }
    }
    a.varying = a.stride != 0;
    a.ops = strided ? valueType.lanes() : registers(valueType);
    a.bytes = valueType.bits() * valueType.lanes() / 8.0;
    // A load of a buffer that does not fit beside the others in L1, at addresses that change
    // with the loop around this one, misses L1 each time the loop runs: what it streams per
    // iteration comes from L2 (a matmul's B panel under a wide register tile). One whose
    // addresses repeat in every run of this loop is served from L1 (the A rows of the tile).
    a.beyondL1 = !store && usesOuter && bufferBytes(buffer) > m_.l1Bytes / 2;
    return a;
  }

  static double bufferBytes(const tir::BufferNode* buffer) {
    double elements = 1;
    for (const tir::PrimExpr& d : buffer->shape) {
      const int64_t* n = tir::asConstInt(d);
      if (!n) return INFINITY;
      elements *= static_cast<double>(*n);
    }
    return elements * buffer->dtype.bits() * buffer->dtype.lanes() / 8.0;
  }

  // The step of `index` per iteration of the loop: its coefficient when it is affine in the
  // loop variable, 0 when it does not use it, -1 otherwise.
  int64_t strideOf(const tir::PrimExpr& index) const {
    if (!loopVar_) return -1;  // not in a loop: every access is paid
    if (!tir::usesVar(index, loopVar_)) return 0;
    if (index->dtype.lanes() > 1) return -1;
    int64_t coeff = 0;
    for (const tir::arith::LinearTerm& t : tir::arith::toLinear(index).terms) {
      if (t.atom.get() == static_cast<const tir::PrimExprNode*>(loopVar_))
        coeff = t.coeff;
      else if (tir::usesVar(t.atom, loopVar_))
        return -1;
    }
    return coeff;
  }

  // The loads in an index expression (indirect accesses), without its integer arithmetic.
  void indexLoads(const tir::PrimExpr& e) {
    tir::postOrderVisitExpr(e, [&](const tir::PrimExpr& x) {
      if (const auto* load = x->as<tir::BufferLoadNode>())
        body_.accesses.push_back(access(load->buffer.get(), load->indices, load->dtype, false));
    });
  }

  // A stored or evaluated value: its loads and its arithmetic (a multiply feeding an add is one
  // fused multiply-add).
  void value(const tir::PrimExpr& e) {
    using tir::BinaryOp;
    if (const auto* load = e->as<tir::BufferLoadNode>()) {
      for (const tir::PrimExpr& i : load->indices) indexLoads(i);
      body_.accesses.push_back(access(load->buffer.get(), load->indices, load->dtype, false));
      return;
    }
    if (const auto* b = e->as<tir::BinaryNode>()) {
      if (b->dtype.lanes() > 1) body_.scalar = false;
      const bool fused = b->dtype.isFloat() &&
                         (b->op == BinaryOp::kAdd || b->op == BinaryOp::kSub) &&
                         (isFloatMul(b->a) || isFloatMul(b->b));
      if (!fused) body_.arith += registers(b->dtype);
      value(b->a);
      value(b->b);
      return;
    }
    if (const auto* call = e->as<tir::CallNode>()) {
      const bool math =
          call->op.find("exp") != std::string::npos || call->op.find("log") != std::string::npos ||
          call->op.find("tanh") != std::string::npos || call->op.find("erf") != std::string::npos ||
          call->op.find("pow") != std::string::npos ||
          call->op.find("sigmoid") != std::string::npos;
      body_.arith += (math ? m_.intrinsicOps : 1) * registers(call->dtype);
      for (const tir::PrimExpr& a : call->args) value(a);
      return;
    }
    if (const auto* cast = e->as<tir::CastNode>()) {
      body_.arith += registers(cast->dtype);
      value(cast->value);
      return;
    }
    if (const auto* sel = e->as<tir::SelectNode>()) {
      body_.arith += registers(sel->dtype);
      value(sel->cond);
      value(sel->t);
      value(sel->f);
      return;
    }
    if (const auto* bc = e->as<tir::BroadcastNode>()) {
      value(bc->value);
      return;
    }
    if (const auto* let = e->as<tir::LetNode>()) {
      value(let->value);
      lets_[let->var.get()] = tir::substitute(let->value, lets_);
      value(let->body);
      return;
    }
    if (const auto* n = e->as<tir::NotNode>()) value(n->a);
  }

  const MachineModel& m_;
  const tir::VarNode* loopVar_;
  const tir::VarNode* outerVar_;
  tir::VarMap lets_;  // let variables in scope, by their values
  Body body_;
};

// Cycles of a straight-line body run once, or per iteration of the loop it is the body of.
struct IterationCost {
  double perIteration = 0;
  double setup = 0;  // hoisted loads, accumulators loaded before and stored after the loop
};

IterationCost costBody(const Body& body, const MachineModel& m, bool inLoop) {
  // LLVM's view of the accesses: a second load of an address already loaded or stored in the
  // body is forwarded; of several stores to one address only the last remains.
  struct Address {
    bool loadedFirst = false, stored = false, varying = true, isFloat = true, beyondL1 = false;
    double ops = 1, bytes = 4;
    int stores = 0, loads = 0;
  };
  std::map<std::string, Address> addresses;
  std::vector<std::string> order;
  for (const Access& a : body.accesses) {
    auto [it, fresh] = addresses.try_emplace(a.key);
    Address& ad = it->second;
    if (fresh) {
      order.push_back(a.key);
      ad.loadedFirst = !a.store;
      ad.varying = a.varying;
      ad.ops = a.ops;
      ad.isFloat = a.floatValue;
      ad.beyondL1 = a.beyondL1;
      ad.bytes = a.bytes;
    }
    if (a.store) {
      ad.stored = true;
      ++ad.stores;
    } else {
      ++ad.loads;
    }
  }
  double loads = 0, stores = 0, setup = 0, chain = 0, l2Bytes = 0;
  double accumulatorRegisters = 0, hoistedRegisters = 0;
  // Elements a body updates several times (unrolled reductions) live in registers between their
  // accesses while they fit; beyond that every update is a load and a store again. (A value only
  // loaded twice is one load.)
  double reusedRegisters = 0, reuseLoads = 0, reuseStores = 0;
  for (const std::string& key : order) {
    const Address& ad = addresses.at(key);
    if (inLoop && !ad.varying) {
      // Invariant in the loop: an accumulator kept in registers across it (its chain of updates
      // bounds an iteration by their latency), a store sunk after it, or a hoisted load.
      if (ad.stored && ad.loads > 0) {
        accumulatorRegisters += ad.ops;
        chain = std::max(chain, ad.loads * (ad.isFloat ? m.fmaLatency : 1.0));
        setup += 2 * ad.ops;
      } else if (ad.stored) {
        setup += ad.ops;
      } else {
        hoistedRegisters += ad.ops;
        setup += ad.ops;
      }
      continue;
    }
    if (ad.loadedFirst) loads += ad.ops;
    if (ad.loadedFirst && ad.beyondL1 && inLoop) l2Bytes += ad.bytes;
    if (ad.stored) stores += ad.ops;
    if (ad.stored && ad.loads + ad.stores > 1) {
      reusedRegisters += ad.ops;
      reuseLoads += (ad.loads - (ad.loadedFirst ? 1 : 0)) * ad.ops;
      reuseStores += std::max(0, ad.stores - 1) * ad.ops;
    }
  }
  // Registers: two are kept for temporaries. Accumulators that do not fit all stay in memory
  // (LLVM's promotion then spills across the whole loop: measured, such tiles run at the speed
  // of a load and a store per update); hoisted values past the file are reloaded.
  const double free = m.vectorRegisters - 2;
  if (accumulatorRegisters > free) {
    loads += accumulatorRegisters;
    stores += accumulatorRegisters;
    accumulatorRegisters = 0;
    chain = 0;
  }
  loads += std::max(0.0, hoistedRegisters - (free - accumulatorRegisters));
  if (reusedRegisters + accumulatorRegisters > free) {
    loads += reuseLoads;
    stores += reuseStores;
  }
  const double ops = body.arith + loads + stores + (inLoop ? 1 : 0);
  const double issue = ops > m.opCacheOps ? m.issuePerCycle / 2 : m.issuePerCycle;
  double cycles =
      std::max({body.arith / m.fmaPerCycle, loads / m.loadsPerCycle, stores / m.storesPerCycle,
                ops / issue, chain, l2Bytes / m.l2BytesPerCycle});
  if (inLoop) cycles = std::max(cycles, 1.0);
  return {cycles, setup / m.loadsPerCycle};
}

class Estimator {
 public:
  explicit Estimator(const MachineModel& m) : m_(m) {}

  // Cycles of one execution of `s`.
  double cycles(const tir::Stmt& s) {
    using K = tir::StmtKind;
    switch (s->kind) {
      case K::kFor:
        return loop(s->as<tir::ForNode>());
      case K::kSeqStmt: {
        double total = 0;
        for (const tir::Stmt& c : s->as<tir::SeqStmtNode>()->seq) total += cycles(c);
        return total;
      }
      case K::kLetStmt:
        return cycles(s->as<tir::LetStmtNode>()->body);
      case K::kAttrStmt:
        return cycles(s->as<tir::AttrStmtNode>()->body);
      case K::kAllocate:
        return cycles(s->as<tir::AllocateNode>()->body);
      case K::kDeclBuffer:
        return cycles(s->as<tir::DeclBufferNode>()->body);
      case K::kIfThenElse: {
        const auto* ite = s->as<tir::IfThenElseNode>();
        return 1 + std::max(cycles(ite->thenCase), ite->elseCase ? cycles(ite->elseCase) : 0.0);
      }
      default:
        return straightLine(s);
    }
  }

 private:
  double straightLine(const tir::Stmt& s) {
    BodyCollector collector(m_, nullptr);
    if (!collector.add(s)) return 0;
    return costBody(collector.body(), m_, /*inLoop=*/false).perIteration;
  }

  double loop(const tir::ForNode* loop) {
    const auto n = static_cast<double>(extentOf(loop));
    double total = 0;
    BodyCollector collector(m_, loop->loopVar.get(),
                            outerLoops_.empty() ? nullptr : outerLoops_.back());
    if (collector.add(loop->body)) {
      const Body& body = collector.body();
      const IterationCost c = costBody(body, m_, /*inLoop=*/true);
      total = iterations(loop, body, n) * c.perIteration + c.setup;
    } else {
      if (n > 1) outerLoops_.push_back(loop->loopVar.get());
      total = n * (cycles(loop->body) + 1);
      if (n > 1) outerLoops_.pop_back();
    }
    if (loop->forKind == tir::ForKind::kParallel && m_.cores > 1 && n > 0) {
      const double perCore = std::ceil(n / m_.cores);
      total = total / n * perCore + kParallelLaunchCycles;
    }
    return total;
  }

  // Iterations of a loop over a straight-line body after LLVM's loop vectorizer, which widens a
  // serial loop of scalar code whose accesses are contiguous or invariant in it and that stores
  // to no invariant address (a float reduction, which it may not reorder), by a vector of the
  // widest element; the remainder runs scalar.
  double iterations(const tir::ForNode* loop, const Body& body, double n) const {
    if (loop->forKind != tir::ForKind::kSerial || !body.scalar) return n;
    int bits = 8;
    for (const Access& a : body.accesses) {
      if (!a.scalar || (a.stride != 0 && a.stride != 1) || (a.store && a.stride == 0)) return n;
      bits = std::max(bits, a.bits);
    }
    const double lanes = m_.vectorBytes * 8.0 / bits;
    if (n < lanes) return n;
    return std::floor(n / lanes) + std::fmod(n, lanes);
  }

  const MachineModel& m_;
  std::vector<const tir::VarNode*> outerLoops_;  // loops of more than one iteration around
};

class AnalyticModel : public CostModel {
 public:
  explicit AnalyticModel(MachineModel m) : m_(m) {}
  std::string name() const override { return "analytic"; }
  bool needsPrograms() const override { return true; }

  std::vector<double> predict(uint64_t, const std::vector<tir::PrimFunc>& candidates) override {
    std::vector<double> cycles(candidates.size(), 0.0);
    double best = INFINITY;
    for (size_t i = 0; i < candidates.size(); ++i) {
      if (!candidates[i]) continue;
      try {
        cycles[i] = estimateCycles(tir::transform::lower(candidates[i]), m_);
      } catch (const DiagnosticError&) {
        cycles[i] = 0;  // does not lower: it would fail to build
      }
      if (cycles[i] > 0) best = std::min(best, cycles[i]);
    }
    std::vector<double> scores(candidates.size(), 0.0);
    for (size_t i = 0; i < candidates.size(); ++i)
      if (cycles[i] > 0) scores[i] = best / cycles[i];
    return scores;
  }
  void update(uint64_t, const std::vector<tir::PrimFunc>&, const std::vector<double>&) override {}

 private:
  MachineModel m_;
};

}  // namespace

double estimateCycles(const tir::PrimFunc& lowered, const MachineModel& machine) {
  Estimator e(machine);
  return std::max(1.0, e.cycles(lowered->body));
}

std::unique_ptr<CostModel> makeAnalyticModel(const target::Target& target) {
  return std::make_unique<AnalyticModel>(MachineModel::of(target));
}

}  // namespace tessera::tune
