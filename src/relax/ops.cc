// Struct-info deduction of the Relax operators. Symbolic dimensions are compared structurally:
// two different variables are not provably equal, so such a pair is rejected rather than guessed.
#include "relax/ops.h"

#include <algorithm>

#include "support/diagnostic.h"
#include "tir/printer/printer.h"

namespace tessera::relax {

namespace {

[[noreturn]] void opError(const std::string& op, const std::string& message) {
  throwDiagnostic("relax_op", op + ": " + message);
}

/// The tensor struct info of an argument, which must have a known shape.
const StructInfoNode& knownTensor(const std::string& op, const Expr& e, const char* what) {
  const StructInfoNode& s = *e->sinfo;
  if (!s.isTensor() || !s.shape)
    opError(op, std::string(what) + " must be a tensor with a known shape, got " +
                    sinfoScript(e->sinfo));
  return s;
}

Expr makeCall(std::string op, std::vector<Expr> args, StructInfo sinfo) {
  return std::make_shared<CallNode>(std::move(op), std::move(args), std::vector<StructInfo>{},
                                    std::move(sinfo));
}

void checkOutSinfo(const std::string& op, const StructInfo& out) {
  auto tensorWithShape = [](const StructInfo& s) { return s->isTensor() && s->shape.has_value(); };
  if (tensorWithShape(out)) return;
  if (out->kind == StructInfoKind::kTuple && !out->fields.empty() &&
      std::all_of(out->fields.begin(), out->fields.end(), tensorWithShape))
    return;
  opError(op, "out_sinfo must be a tensor (or tuple of tensors) with a known shape, got " +
                  sinfoScript(out));
}

Expr dpsCall(const char* op, Expr callee, std::vector<Expr> args, StructInfo out) {
  checkOutSinfo(op, out);
  for (const Expr& a : args)
    if (!a->sinfo->isTensor())
      opError(op, "arguments must be tensors, got " + sinfoScript(a->sinfo));
  auto call = std::make_shared<CallNode>(
      op, std::vector<Expr>{std::move(callee), makeTuple(std::move(args))},
      std::vector<StructInfo>{out}, out);
  return call;
}

Expr broadcastOp(const std::string& op, Expr a, Expr b) {
  const StructInfoNode& sa = knownTensor(op, a, "lhs");
  const StructInfoNode& sb = knownTensor(op, b, "rhs");
  if (sa.dtype != sb.dtype)
    opError(op, "dtypes differ: " + sa.dtype.name() + " and " + sb.dtype.name());
  const auto& x = *sa.shape;
  const auto& y = *sb.shape;
  size_t n = std::max(x.size(), y.size());
  std::vector<tir::PrimExpr> out(n);
  for (size_t i = 0; i < n; ++i) {
    // Align from the right, as numpy does.
    tir::PrimExpr dx = i + x.size() >= n ? x[i + x.size() - n] : dim(1);
    tir::PrimExpr dy = i + y.size() >= n ? y[i + y.size() - n] : dim(1);
    if (tir::deepEqual(dx, dy) || tir::isOne(dy)) {
      out[i] = dx;
    } else if (tir::isOne(dx)) {
      out[i] = dy;
    } else {
      opError(op, "cannot broadcast dimension " + dimString(dx) + " with " + dimString(dy) +
                      " (shapes " + sinfoScript(a->sinfo) + " and " + sinfoScript(b->sinfo) + ")");
    }
  }
  return makeCall(op, {std::move(a), std::move(b)}, tensorSInfo(std::move(out), sa.dtype));
}

}  // namespace

Expr callTir(const std::string& primFunc, std::vector<Expr> args, StructInfo out) {
  return dpsCall(kCallTir, makeGlobalVar(primFunc), std::move(args), std::move(out));
}

Expr callDpsPacked(const std::string& name, std::vector<Expr> args, StructInfo out) {
  return dpsCall(kCallDpsPacked, makeExternFunc(name), std::move(args), std::move(out));
}

Expr add(Expr a, Expr b) {
  return broadcastOp("relax.add", std::move(a), std::move(b));
}

Expr multiply(Expr a, Expr b) {
  return broadcastOp("relax.multiply", std::move(a), std::move(b));
}

Expr relu(Expr x) {
  knownTensor("relax.nn.relu", x, "data");
  StructInfo s = x->sinfo;
  return makeCall("relax.nn.relu", {std::move(x)}, std::move(s));
}

Expr matmul(Expr a, Expr b) {
  const std::string op = "relax.matmul";
  const StructInfoNode& sa = knownTensor(op, a, "lhs");
  const StructInfoNode& sb = knownTensor(op, b, "rhs");
  const auto& x = *sa.shape;
  const auto& y = *sb.shape;
  if (x.size() < 2 || x.size() != y.size())
    opError(op, "expected operands of equal rank >= 2, got " + sinfoScript(a->sinfo) + " and " +
                    sinfoScript(b->sinfo));
  if (sa.dtype != sb.dtype)
    opError(op, "dtypes differ: " + sa.dtype.name() + " and " + sb.dtype.name());
  size_t r = x.size();
  for (size_t i = 0; i + 2 < r; ++i)
    if (!tir::deepEqual(x[i], y[i]))
      opError(op, "batch dimension " + std::to_string(i) + " differs");
  const int64_t* kx = tir::asConstInt(x[r - 1]);
  const int64_t* ky = tir::asConstInt(y[r - 2]);
  bool sameK = tir::deepEqual(x[r - 1], y[r - 2]);
  if (!sameK && (!kx || !ky || *kx != *ky))
    opError(op,
            "reduction dimensions differ: " + dimString(x[r - 1]) + " and " + dimString(y[r - 2]));
  std::vector<tir::PrimExpr> out(x.begin(), x.end() - 1);
  out.push_back(y[r - 1]);
  return makeCall(op, {std::move(a), std::move(b)}, tensorSInfo(std::move(out), sa.dtype));
}

Expr permuteDims(Expr x, std::vector<int64_t> axes) {
  const std::string op = "relax.permute_dims";
  const StructInfoNode& s = knownTensor(op, x, "data");
  int64_t rank = static_cast<int64_t>(s.shape->size());
  if (axes.empty())
    for (int64_t i = rank - 1; i >= 0; --i) axes.push_back(i);
  if (static_cast<int64_t>(axes.size()) != rank)
    opError(op, "expected " + std::to_string(rank) + " axes, got " + std::to_string(axes.size()));
  std::vector<bool> seen(rank, false);
  std::vector<tir::PrimExpr> out;
  for (int64_t& a : axes) {
    if (a < 0) a += rank;
    if (a < 0 || a >= rank || seen[a])
      opError(op, "axes must be a permutation of 0.." + std::to_string(rank - 1));
    seen[a] = true;
    out.push_back((*s.shape)[a]);
  }
  auto call =
      std::make_shared<CallNode>(op, std::vector<Expr>{std::move(x)}, std::vector<StructInfo>{},
                                 tensorSInfo(std::move(out), s.dtype));
  call->axes = std::move(axes);
  return call;
}

bool isHighLevelOp(const std::string& op) {
  return op == "relax.add" || op == "relax.multiply" || op == "relax.nn.relu" ||
         op == "relax.matmul" || op == "relax.permute_dims";
}

}  // namespace tessera::relax
