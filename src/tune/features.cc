#include "tune/features.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "tir/functor.h"
#include "tir/stmt.h"

namespace tessera::tune {

namespace {

float slog(double x) {
  return static_cast<float>(std::log2(std::fabs(x) + 1));
}

int64_t extentOf(const tir::ForNode* loop) {
  const int64_t* e = tir::asConstInt(loop->extent);
  return e ? std::max<int64_t>(*e, 1) : 1;
}

// Counts of the stored value's arithmetic by class (loads' indices excluded).
class ArithmeticClasses : public tir::IRVisitor {
 public:
  double counts[6] = {0, 0, 0, 0, 0, 0};
  void visitExpr(const tir::PrimExpr& e) override {
    if (const auto* b = e->as<tir::BinaryNode>()) {
      const bool f = b->dtype.isFloat();
      switch (b->op) {
        case tir::BinaryOp::kAdd:
        case tir::BinaryOp::kSub:
          ++counts[f ? 0 : 4];
          break;
        case tir::BinaryOp::kMul:
          ++counts[f ? 1 : 4];
          break;
        case tir::BinaryOp::kDiv:
        case tir::BinaryOp::kMod:
        case tir::BinaryOp::kFloorDiv:
        case tir::BinaryOp::kFloorMod:
          ++counts[f ? 2 : 4];
          break;
        default:
          ++counts[f || b->a->dtype.isFloat() ? 3 : 4];
      }
    } else if (e->kind == tir::ExprKind::kCall) {
      ++counts[5];
    }
    tir::IRVisitor::visitExpr(e);
  }

 protected:
  void visitBufferLoad(const tir::BufferLoadNode*) override {}
};

struct Access {
  tir::Buffer buffer;
  std::vector<tir::PrimExpr> indices;
  bool write = false;
};

class Extractor : public tir::IRVisitor {
 public:
  std::vector<std::vector<float>> rows;

 protected:
  void visitFor(const tir::ForNode* op) override {
    loops_.push_back(op);
    visitChildren(*op);
    loops_.pop_back();
  }
  void visitBlockRealize(const tir::BlockRealizeNode* op) override {
    const tir::BlockNode* block = op->block.get();
    for (size_t i = 0; i < block->iterVars.size() && i < op->iterValues.size(); ++i)
      bindings_[block->iterVars[i].var.get()] = op->iterValues[i];
    visitChildren(*op);
  }
  void visitBufferStore(const tir::BufferStoreNode* op) override {
    std::vector<Access> accesses{{op->buffer, op->indices, true}};
    tir::postOrderVisitExpr(op->value, [&](const tir::PrimExpr& e) {
      if (const auto* load = e->as<tir::BufferLoadNode>())
        accesses.push_back({load->buffer, load->indices, false});
    });
    rows.push_back(row(op, accesses));
    visitChildren(*op);
  }

 private:
  // The loops (positions in loops_) an expression depends on, through block bindings.
  void loopsOf(const tir::PrimExpr& e, std::set<size_t>& out, int depth = 0) const {
    tir::postOrderVisitExpr(e, [&](const tir::PrimExpr& sub) {
      const auto* v = sub->as<tir::VarNode>();
      if (!v) return;
      if (auto it = bindings_.find(v); it != bindings_.end() && depth < 8) {
        loopsOf(it->second, out, depth + 1);
        return;
      }
      for (size_t l = 0; l < loops_.size(); ++l)
        if (loops_[l]->loopVar.get() == v) out.insert(l);
    });
  }

  std::vector<float> row(const tir::BufferStoreNode* store, const std::vector<Access>& accesses) {
    std::vector<float> f;
    f.reserve(kNumFeatures);
    double prod = 1;
    for (const tir::ForNode* l : loops_) prod *= static_cast<double>(extentOf(l));
    ArithmeticClasses arith;
    arith.visitExpr(store->value);
    for (double c : arith.counts) f.push_back(slog(c * prod));
    for (tir::ForKind kind :
         {tir::ForKind::kVectorized, tir::ForKind::kUnrolled, tir::ForKind::kParallel}) {
      double n = 0, product = 1, innermost = 0;
      for (const tir::ForNode* l : loops_)
        if (l->forKind == kind) {
          ++n;
          product *= static_cast<double>(extentOf(l));
          innermost = static_cast<double>(extentOf(l));
        }
      f.insert(f.end(), {slog(n), slog(n > 0 ? product : 0), slog(innermost)});
    }
    // Buffers: the accesses of one buffer merged (a buffer both read and written is both).
    struct BufferRow {
      double unique = 0, accessed = 0, stride = 0, inner1 = 0, inner2 = 0;
      bool read = false, write = false;
    };
    std::map<const void*, BufferRow> buffers;
    for (const Access& a : accesses) {
      std::set<size_t> used;
      for (const tir::PrimExpr& i : a.indices) loopsOf(i, used);
      const double bytes = a.buffer->dtype.bytes();
      double unique = bytes, inner1 = bytes, inner2 = bytes;
      for (size_t l : used) {
        const auto e = static_cast<double>(extentOf(loops_[l]));
        unique *= e;
        if (l + 1 == loops_.size()) inner1 *= e;
        if (l + 2 >= loops_.size()) inner2 *= e;
      }
      // Stride of the innermost loop: 0 when it does not index the buffer, else the product of
      // the dimensions after the first index that uses it.
      double stride = 0;
      if (!loops_.empty()) {
        const size_t inner = loops_.size() - 1;
        for (size_t d = 0; d < a.indices.size(); ++d) {
          std::set<size_t> at;
          loopsOf(a.indices[d], at);
          if (!at.count(inner)) continue;
          stride = 1;
          for (size_t r = d + 1; r < a.buffer->shape.size(); ++r) {
            const int64_t* e = tir::asConstInt(a.buffer->shape[r]);
            stride *= e ? static_cast<double>(*e) : 1;
          }
          break;
        }
      }
      BufferRow& b = buffers[a.buffer.get()];
      b.unique = std::max(b.unique, unique);
      b.accessed += prod * bytes;
      b.stride = std::max(b.stride, stride);
      b.inner1 = std::max(b.inner1, inner1);
      b.inner2 = std::max(b.inner2, inner2);
      (a.write ? b.write : b.read) = true;
    }
    std::vector<BufferRow> sorted;
    for (auto& [key, b] : buffers) sorted.push_back(b);
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const BufferRow& x, const BufferRow& y) { return x.unique > y.unique; });
    for (size_t i = 0; i < 5; ++i) {
      if (i >= sorted.size()) {
        f.insert(f.end(), 8, 0.0f);
        continue;
      }
      const BufferRow& b = sorted[i];
      f.insert(f.end(), {b.read ? 1.0f : 0.0f, b.write ? 1.0f : 0.0f, slog(b.unique),
                         slog(b.accessed), slog(b.accessed / std::max(b.unique, 1.0)),
                         slog(b.stride), slog(b.inner1), slog(b.inner2)});
    }
    double unroll = 0;
    for (const tir::ForNode* l : loops_)
      if (const AttrValue* v = l->annotations.find("pragma_auto_unroll_max_step"))
        unroll = static_cast<double>(v->asInt());
    f.insert(f.end(), {slog(prod), slog(static_cast<double>(loops_.size())), slog(unroll)});
    for (size_t k = 1; k <= 3; ++k)
      f.push_back(k <= loops_.size()
                      ? slog(static_cast<double>(extentOf(loops_[loops_.size() - k])))
                      : 0.0f);
    return f;
  }

  std::vector<const tir::ForNode*> loops_;
  std::map<const tir::VarNode*, tir::PrimExpr> bindings_;
};

}  // namespace

std::vector<std::vector<float>> perStoreFeatures(const tir::PrimFunc& scheduled) {
  Extractor e;
  e.visitStmt(scheduled->body);
  return std::move(e.rows);
}

}  // namespace tessera::tune
