// Runs a PrimFunc lowered for VTA (host_program.h): the host side of TVM's generated code,
// interpreted. Scalar expressions are evaluated on int64; each call becomes the runtime API call
// of the same name on the command queue; a micro-op scope becomes VTAPushGEMMOp / VTAPushALUOp
// with a kernel cache per scope (TVM's static handle per call site) and the scope's one free
// variable as the closure, its body recorded once per closure value.
#include "vta/tir/host_program.h"

#include <memory>
#include <unordered_map>
#include <unordered_set>

#include "support/diagnostic.h"
#include "tir/functor.h"
#include "tir/printer/printer.h"

namespace tessera::vta {

namespace {

using namespace tir;

[[noreturn]] void fail(const std::string& message) {
  throwDiagnostic("vta_host", message);
}

class HostRunner {
 public:
  HostRunner(CommandQueue& q) : q_(q) {}

  void bind(const Var& data, DeviceBuffer buffer) { buffers_[data.get()] = buffer; }
  void run(const Stmt& s) { exec(s); }

 private:
  int64_t eval(const PrimExpr& e);
  void exec(const Stmt& s);
  void call(const CallNode& c);
  void pushKernel(const AttrStmtNode& scope, bool gemm);
  uint32_t u32(const PrimExpr& e, const char* what) {
    const int64_t v = eval(e);
    if (v < 0 || v > 0xffffffffLL)
      fail(std::string(what) + " = " + std::to_string(v) + " is out of range");
    return static_cast<uint32_t>(v);
  }
  DeviceBuffer buffer(const PrimExpr& e) {
    const auto* v = e->as<VarNode>();
    auto it = v ? buffers_.find(v) : buffers_.end();
    if (it == buffers_.end())
      fail("a DMA names '" + toString(e) + "', which is not a device buffer");
    return it->second;
  }

  CommandQueue& q_;
  std::unordered_map<const VarNode*, int64_t> env_;
  std::unordered_map<const VarNode*, DeviceBuffer> buffers_;
  std::unordered_map<const AttrStmtNode*, std::unique_ptr<UopKernelCache>> sites_;
};

int64_t HostRunner::eval(const PrimExpr& e) {
  if (const int64_t* c = asConstInt(e)) return *c;
  if (const auto* v = e->as<VarNode>()) {
    auto it = env_.find(v);
    if (it == env_.end()) fail("host code reads '" + v->name + "', which has no value");
    return it->second;
  }
  if (const auto* c = e->as<CastNode>()) return eval(c->value);
  if (const auto* s = e->as<SelectNode>()) return eval(s->cond) ? eval(s->t) : eval(s->f);
  if (const auto* b = e->as<BinaryNode>()) {
    const int64_t x = eval(b->a), y = eval(b->b);
    auto floorDiv = [&] {
      if (y == 0) fail("division by zero in host code");
      return x / y - ((x % y != 0) && ((x < 0) != (y < 0)));
    };
    switch (b->op) {
      case BinaryOp::kAdd:
        return x + y;
      case BinaryOp::kSub:
        return x - y;
      case BinaryOp::kMul:
        return x * y;
      case BinaryOp::kDiv:
        return y ? x / y : (fail("division by zero in host code"), 0);
      case BinaryOp::kMod:
        return y ? x % y : (fail("division by zero in host code"), 0);
      case BinaryOp::kFloorDiv:
        return floorDiv();
      case BinaryOp::kFloorMod:
        return x - floorDiv() * y;
      case BinaryOp::kMin:
        return std::min(x, y);
      case BinaryOp::kMax:
        return std::max(x, y);
      case BinaryOp::kEQ:
        return x == y;
      case BinaryOp::kNE:
        return x != y;
      case BinaryOp::kLT:
        return x < y;
      case BinaryOp::kLE:
        return x <= y;
      case BinaryOp::kGT:
        return x > y;
      case BinaryOp::kGE:
        return x >= y;
      case BinaryOp::kAnd:
        return x && y;
      case BinaryOp::kOr:
        return x || y;
    }
  }
  if (const auto* c = e->as<CallNode>(); c && c->op == "vta.command_handle") return 0;
  fail("host code cannot evaluate '" + toString(e) + "'");
}

void HostRunner::exec(const Stmt& s) {
  if (!s) return;
  if (const auto* q = s->as<SeqStmtNode>()) {
    for (const Stmt& c : q->seq) exec(c);
  } else if (const auto* f = s->as<ForNode>()) {
    const int64_t begin = eval(f->min), end = begin + eval(f->extent);
    for (int64_t i = begin; i < end; ++i) {
      env_[f->loopVar.get()] = i;
      exec(f->body);
    }
  } else if (const auto* l = s->as<LetStmtNode>()) {
    env_[l->var.get()] = eval(l->value);
    exec(l->body);
  } else if (const auto* a = s->as<AttrStmtNode>()) {
    const auto* kind = a->value->as<StringImmNode>();
    if (a->key == "coproc_uop_scope" && kind && kind->value == "VTAPushGEMMOp")
      pushKernel(*a, true);
    else if (a->key == "coproc_uop_scope" && kind && kind->value == "VTAPushALUOp")
      pushKernel(*a, false);
    else
      exec(a->body);
  } else if (const auto* b = s->as<IfThenElseNode>()) {
    if (eval(b->condition))
      exec(b->thenCase);
    else
      exec(b->elseCase);
  } else if (const auto* d = s->as<DeclBufferNode>()) {
    exec(d->body);
  } else if (const auto* ev = s->as<EvaluateNode>()) {
    if (const auto* c = ev->value->as<CallNode>()) return call(*c);
    eval(ev->value);
  } else if (const auto* al = s->as<AllocateNode>()) {
    fail("host code allocates '" + al->bufferVar->name + "' in scope '" + al->scope +
         "'; a VTA program keeps its data in device buffers and SRAM");
  } else {
    fail("host code cannot run '" + toString(s) + "'");
  }
}

void HostRunner::call(const CallNode& c) {
  auto arg = [&](size_t i) { return eval(c.args.at(i)); };
  if (c.op == "vta.coproc_dep_push") return q_.depPush(int(arg(0)), int(arg(1)));
  if (c.op == "vta.coproc_dep_pop") return q_.depPop(int(arg(0)), int(arg(1)));
  if (c.op == "vta.coproc_sync") return q_.synchronize();
  if (c.op == "vta.uop_push")
    return q_.uopPush(int(arg(0)), int(arg(1)), u32(c.args[2], "dst"), u32(c.args[3], "src"),
                      u32(c.args[4], "wgt"), int(arg(5)), int(arg(6)), int32_t(arg(7)));
  const auto* name =
      c.op == "tir.call_extern" && !c.args.empty() ? c.args[0]->as<StringImmNode>() : nullptr;
  if (!name) fail("host code cannot call '" + c.op + "'");
  const std::string& fn = name->value;
  if (fn == "VTAUopLoopBegin")
    return q_.uopLoopBegin(u32(c.args[1], "extent"), u32(c.args[2], "dst factor"),
                           u32(c.args[3], "src factor"), u32(c.args[4], "wgt factor"));
  if (fn == "VTAUopLoopEnd") return q_.uopLoopEnd();
  if (fn == "VTALoadBuffer2D")
    return q_.loadBuffer2D(buffer(c.args[2]), u32(c.args[3], "offset"), u32(c.args[4], "x_size"),
                           u32(c.args[5], "y_size"), u32(c.args[6], "x_stride"),
                           u32(c.args[7], "x_pad_before"), u32(c.args[8], "y_pad_before"),
                           u32(c.args[9], "x_pad_after"), u32(c.args[10], "y_pad_after"),
                           u32(c.args[11], "sram index"), MemType(arg(12)));
  if (fn == "VTAStoreBuffer2D")
    return q_.storeBuffer2D(u32(c.args[2], "sram index"), MemType(arg(3)), buffer(c.args[4]),
                            u32(c.args[5], "offset"), u32(c.args[6], "x_size"),
                            u32(c.args[7], "y_size"), u32(c.args[8], "x_stride"));
  fail("host code cannot call '" + fn + "'");
}

// The variables a scope reads that it does not bind: its closure.
std::vector<const VarNode*> freeVars(const Stmt& body) {
  std::unordered_set<const VarNode*> bound, seen;
  std::vector<const VarNode*> free;
  preOrderVisit(body, [&](const Stmt& s) {
    if (const auto* f = s->as<ForNode>()) bound.insert(f->loopVar.get());
    if (const auto* l = s->as<LetStmtNode>()) bound.insert(l->var.get());
    return true;
  });
  postOrderVisitExprs(body, [&](const PrimExpr& e) {
    const auto* v = e->as<VarNode>();
    if (v && !bound.count(v) && v->dtype.isInt() && seen.insert(v).second) free.push_back(v);
  });
  return free;
}

void HostRunner::pushKernel(const AttrStmtNode& scope, bool gemm) {
  const std::vector<const VarNode*> free = freeVars(scope.body);
  if (free.size() > 1)
    fail("a micro-op kernel captures " + std::to_string(free.size()) +
         " values; VTA kernels take at most one (disable tir.CommonSubexprElimTIR)");
  std::unique_ptr<UopKernelCache>& site = sites_[&scope];
  if (!site) site = std::make_unique<UopKernelCache>();
  std::optional<int32_t> closure;
  if (!free.empty()) {
    auto it = env_.find(free[0]);
    if (it == env_.end())
      fail("a micro-op kernel reads '" + free[0]->name + "', which has no value");
    closure = int32_t(it->second);
  }
  auto record = [&](int32_t value) {
    if (!free.empty()) env_[free[0]] = value;
    exec(scope.body);
  };
  if (gemm)
    q_.pushGemmOp(*site, closure, record);
  else
    q_.pushAluOp(*site, closure, record);
}

}  // namespace

void runOnVta(const PrimFunc& func, CommandQueue& queue, const std::vector<DeviceBuffer>& args) {
  const std::vector<Buffer> params = func->paramBuffers();
  if (params.size() != args.size())
    fail("'" + func->name + "' takes " + std::to_string(params.size()) + " buffers, given " +
         std::to_string(args.size()));
  HostRunner runner(queue);
  for (size_t i = 0; i < args.size(); ++i) runner.bind(params[i]->data, args[i]);
  runner.run(func->body);
}

}  // namespace tessera::vta
