#include "tune/flops.h"

#include <algorithm>

#include "tir/functor.h"
#include "tir/stmt.h"

namespace tessera::tune {

namespace {

bool countsAsFlop(tir::BinaryOp op) {
  switch (op) {
    case tir::BinaryOp::kAdd:
    case tir::BinaryOp::kSub:
    case tir::BinaryOp::kMul:
    case tir::BinaryOp::kDiv:
    case tir::BinaryOp::kMod:
    case tir::BinaryOp::kFloorDiv:
    case tir::BinaryOp::kFloorMod:
    case tir::BinaryOp::kMin:
    case tir::BinaryOp::kMax:
      return true;
    default:
      return false;
  }
}

// Arithmetic of a stored value; loads' indices are index arithmetic, not counted.
class ArithmeticCounter : public tir::IRVisitor {
 public:
  int64_t n = 0;
  void visitExpr(const tir::PrimExpr& e) override {
    if (const auto* b = e->as<tir::BinaryNode>())
      if (countsAsFlop(b->op)) ++n;
    tir::IRVisitor::visitExpr(e);
  }

 protected:
  void visitBufferLoad(const tir::BufferLoadNode*) override {}
};

int64_t arithmetic(const tir::PrimExpr& e) {
  if (!e) return 0;
  ArithmeticCounter c;
  c.visitExpr(e);
  return c.n;
}

int64_t extentOrOne(const tir::PrimExpr& e) {
  const int64_t* v = tir::asConstInt(e);
  return v ? std::max<int64_t>(*v, 1) : 1;
}

class Counter : public tir::IRVisitor {
 public:
  explicit Counter(bool flops) : flops_(flops) {}
  double total = 0;

 protected:
  void visitFor(const tir::ForNode* op) override {
    const double saved = scale_;
    scale_ *= static_cast<double>(extentOrOne(op->extent));
    visitChildren(*op);
    scale_ = saved;
  }
  void visitBufferStore(const tir::BufferStoreNode* op) override {
    total += scale_ * static_cast<double>(flops_ ? arithmetic(op->value) : 1);
  }

 private:
  bool flops_;
  double scale_ = 1;
};

int64_t count(const tir::PrimFunc& func, bool flops) {
  Counter c(flops);
  c.visitStmt(func->body);
  return std::max<int64_t>(1, static_cast<int64_t>(c.total));
}

}  // namespace

int64_t estimateFlops(const tir::PrimFunc& func) {
  return count(func, true);
}
int64_t estimateStoreExecutions(const tir::PrimFunc& func) {
  return count(func, false);
}

}  // namespace tessera::tune
