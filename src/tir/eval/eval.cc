// Reference evaluator for TensorIR. The function is first compiled to slot form (eval_compile.cc);
// the interpreter below then runs it directly. Vector values are computed lane by lane: lane l of
// Ramp(b, s, n) is b + l*s and a Broadcast gives its value in every lane, so every other operation
// is simply applied per lane. A vector store evaluates all lanes before writing any.
#include "tir/eval/eval.h"

#include <sstream>

#include "support/check.h"
#include "support/diagnostic.h"
#include "tir/eval/eval_program.h"

namespace tessera::tir {

namespace evalimpl {
namespace {

bool isConstLayout(const Program& p, const BufferInfo& info) {
  auto isConst = [&](int e) { return e < 0 || p.exprs[e].op == Op::kConst; };
  for (int e : info.shape)
    if (!isConst(e)) return false;
  for (int e : info.strides)
    if (!isConst(e)) return false;
  return isConst(info.elemOffset);
}

class Interpreter {
 public:
  explicit Interpreter(const Program& p)
      : p_(p),
        vars_(p.slotNames.size(), Scalar{0}),
        vecVars_(p.slotNames.size()),
        storage_(p.slotNames.size()),
        bufs_(p.buffers.size()) {
    for (const BufferInfo& info : p.buffers) constLayout_.push_back(isConstLayout(p, info));
  }

  void bindParams(const std::string& funcName, const std::vector<NDArray>& args);
  void run() { exec(p_.root); }

 private:
  Scalar eval(int id, int lane);
  /// eval() with leaves (constants, scalar variables) handled without a call: most operands are.
  Scalar operand(int id, int lane) {
    const ExprCode& e = p_.exprs[id];
    if (e.op == Op::kConst) return e.imm;
    if (e.op == Op::kVar && e.lanes == 1) return vars_[e.slot];
    return eval(id, lane);
  }
  void exec(int id);
  void execBlock(const StmtCode& s);
  void execStore(const StmtCode& s);
  int64_t evalInt(int id) { return eval(id, 0).i; }

  // --- buffers ---
  /// Fixes the layout of buffer `slot` from its declared shape/strides/offset.
  void declare(int slot);
  void allocate(int dataSlot, int64_t elements, DataType dtype);
  /// Elements a buffer's layout spans from the start of its memory.
  static int64_t footprint(const BufferState& st);
  const BufferState& state(int slot) {
    BufferState& st = bufs_[slot];
    // Views that are never declared (flattened buffers) take their layout at first use; one whose
    // shape depends on variables is re-derived every time.
    if (!st.ready || !constLayout_[slot]) declare(slot);
    return st;
  }
  uint8_t* address(int slot, const int64_t* idx, size_t n, const char* access);
  [[noreturn]] void outOfBounds(int slot, const int64_t* idx, size_t n, const char* access,
                                const std::string& why);

  const Program& p_;
  std::vector<Scalar> vars_;
  std::vector<std::vector<Scalar>> vecVars_;  ///< lanes of vector-valued let variables
  std::vector<Storage> storage_;              ///< by data-variable slot
  std::vector<BufferState> bufs_;
  std::vector<bool> constLayout_;
};

void Interpreter::declare(int slot) {
  const BufferInfo& info = p_.buffers[slot];
  BufferState& st = bufs_[slot];
  st.shape.clear();
  for (int e : info.shape) st.shape.push_back(evalInt(e));
  st.strides.assign(st.shape.size(), 1);
  if (!info.strides.empty()) {
    for (size_t d = 0; d < info.strides.size() && d < st.strides.size(); ++d)
      st.strides[d] = evalInt(info.strides[d]);
  } else {
    for (int d = static_cast<int>(st.shape.size()) - 2; d >= 0; --d)
      st.strides[d] = st.strides[d + 1] * st.shape[d + 1];
  }
  st.elemOffset = info.elemOffset >= 0 ? evalInt(info.elemOffset) : 0;
  st.ready = true;
}

int64_t Interpreter::footprint(const BufferState& st) {
  // Padded strides (storage_align) make the allocation larger than the product of the shape.
  int64_t last = st.elemOffset;
  for (size_t d = 0; d < st.shape.size(); ++d) {
    if (st.shape[d] <= 0) return 0;
    last += (st.shape[d] - 1) * st.strides[d];
  }
  return last + 1;
}

void Interpreter::allocate(int dataSlot, int64_t elements, DataType dtype) {
  if (elements < 0) throwDiagnostic("tir_eval", "allocation of a negative number of elements");
  auto mem = std::make_shared<std::vector<uint8_t>>(static_cast<size_t>(elements) * dtype.bytes());
  storage_[dataSlot] = Storage{mem->data(), static_cast<int64_t>(mem->size()), mem};
  vars_[dataSlot].i = dataSlot;
}

void Interpreter::outOfBounds(int slot, const int64_t* idx, size_t n, const char* access,
                              const std::string& why) {
  std::ostringstream os;
  os << "out-of-bounds " << access << " of buffer " << p_.buffers[slot].buffer->name << "[";
  for (size_t i = 0; i < n; ++i) os << (i ? ", " : "") << idx[i];
  os << "]: " << why;
  throwDiagnostic("tir_eval_oob", os.str());
}

uint8_t* Interpreter::address(int slot, const int64_t* idx, size_t n, const char* access) {
  const BufferState& st = state(slot);
  const BufferInfo& info = p_.buffers[slot];
  if (n != st.shape.size())
    outOfBounds(slot, idx, n, access,
                "buffer has " + std::to_string(st.shape.size()) + " dimensions");
  int64_t offset = st.elemOffset;
  for (size_t d = 0; d < n; ++d) {
    if (idx[d] < 0 || idx[d] >= st.shape[d])
      outOfBounds(slot, idx, n, access,
                  "index " + std::to_string(idx[d]) + " of dimension " + std::to_string(d) +
                      " is outside [0, " + std::to_string(st.shape[d]) + ")");
    offset += idx[d] * st.strides[d];
  }
  const Storage& mem = storage_[info.dataSlot];
  if (!mem.base)
    throwDiagnostic("tir_eval", "buffer " + info.buffer->name +
                                    " is accessed but no memory is "
                                    "bound to its data pointer " +
                                    info.buffer->data->name);
  int64_t bytes = info.buffer->dtype.bytes();
  if (offset < 0 || (offset + 1) * bytes > mem.bytes)
    outOfBounds(slot, idx, n, access,
                "element " + std::to_string(offset) + " is outside the " +
                    std::to_string(mem.bytes / bytes) + " elements of its memory");
  return mem.base + offset * bytes;
}

Scalar Interpreter::eval(int id, int lane) {
  const ExprCode& e = p_.exprs[id];
  switch (e.op) {
    case Op::kConst:
      return e.imm;
    case Op::kVar:
      return e.lanes > 1 ? vecVars_[e.slot][lane] : vars_[e.slot];
    case Op::kCast:
      return castScalar(e.argType, e.dtype, operand(e.kids[0], lane));
    case Op::kBinary: {
      Scalar a = operand(e.kids[0], lane);
      Scalar b = operand(e.kids[1], lane);
      return binary(e.binop, e.argType, a, b, "expression");
    }
    case Op::kNot: {
      Scalar s;
      s.i = eval(e.kids[0], lane).i == 0;
      return s;
    }
    case Op::kSelect: {
      // Both branches are evaluated (Select is not lazy; a faulting branch is a real error).
      Scalar c = eval(e.kids[0], lane);
      Scalar t = eval(e.kids[1], lane);
      Scalar f = eval(e.kids[2], lane);
      return c.i ? t : f;
    }
    case Op::kLoad: {
      size_t n = e.kids.size();
      if (n <= 8) {
        int64_t idx[8];
        for (size_t d = 0; d < n; ++d) idx[d] = operand(e.kids[d], lane).i;
        return readElement(address(e.slot, idx, n, "read"), e.dtype);
      }
      std::vector<int64_t> idx(n);
      for (size_t d = 0; d < n; ++d) idx[d] = eval(e.kids[d], lane).i;
      return readElement(address(e.slot, idx.data(), n, "read"), e.dtype);
    }
    case Op::kRamp: {
      Scalar base = eval(e.kids[0], 0);
      Scalar stride = eval(e.kids[1], 0);
      if (e.dtype.isFloat()) {
        Scalar s;
        s.f = roundFloat(base.f + lane * stride.f, e.dtype);
        return s;
      }
      Scalar s;
      s.i = wrapInt(
          static_cast<int64_t>(static_cast<uint64_t>(base.i) +
                               static_cast<uint64_t>(lane) * static_cast<uint64_t>(stride.i)),
          e.dtype);
      return s;
    }
    case Op::kBroadcast:
      return eval(e.kids[0], 0);
    case Op::kLet: {
      Scalar v = eval(e.kids[0], lane);
      const ExprCode& valueCode = p_.exprs[e.kids[0]];
      if (valueCode.dtype.isHandle()) {
        // A pointer chosen at run time (SelectLoadSource): the variable's value is the slot of
        // the data variable whose storage it names, and buffers on it read that storage.
        storage_[e.slot] = storage_[v.i];
        vars_[e.slot] = v;
      } else if (valueCode.lanes > 1) {
        std::vector<Scalar>& lanes = vecVars_[e.slot];
        lanes.resize(valueCode.lanes);
        lanes[lane] = v;
      } else {
        vars_[e.slot] = v;
      }
      return eval(e.kids[1], lane);
    }
    case Op::kCall: {
      if (e.intrinsic == Intrinsic::kIfThenElse) {
        // Lazy: only the chosen branch is evaluated (guards out-of-bounds padding reads).
        return eval(e.kids[0], lane).i ? eval(e.kids[1], lane) : eval(e.kids[2], lane);
      }
      Scalar args[4];
      size_t n = std::min<size_t>(e.kids.size(), 4);
      for (size_t i = 0; i < n; ++i) args[i] = eval(e.kids[i], lane);
      return intrinsic(e.intrinsic, e.dtype, n ? e.argType : e.dtype, args, n);
    }
  }
  TS_CHECK(false) << "unknown compiled expression";
  return Scalar{0};
}

void Interpreter::execStore(const StmtCode& s) {
  size_t nidx = s.exprs.size() - 1;
  int lanes = p_.exprs[s.exprs[0]].lanes;
  for (size_t d = 0; d < nidx; ++d) lanes = std::max(lanes, p_.exprs[s.exprs[d + 1]].lanes);
  DataType dtype = p_.buffers[s.buffer].buffer->dtype.element();
  if (lanes == 1 && nidx <= 8) {
    Scalar v = eval(s.exprs[0], 0);
    int64_t idx[8];
    for (size_t d = 0; d < nidx; ++d) idx[d] = operand(s.exprs[d + 1], 0).i;
    writeElement(address(s.buffer, idx, nidx, "write"), dtype, v);
    return;
  }
  // All lanes are read before any is written, as a vector store does.
  std::vector<Scalar> values(lanes);
  std::vector<int64_t> idx(static_cast<size_t>(lanes) * nidx);
  std::vector<bool> active(lanes, true);  // a masked store's lanes
  for (int l = 0; l < lanes; ++l) {
    if (s.predicate >= 0) active[l] = eval(s.predicate, l).i != 0;
    if (!active[l]) continue;
    values[l] = eval(s.exprs[0], l);
    for (size_t d = 0; d < nidx; ++d) idx[l * nidx + d] = eval(s.exprs[d + 1], l).i;
  }
  for (int l = 0; l < lanes; ++l)
    if (active[l]) writeElement(address(s.buffer, &idx[l * nidx], nidx, "write"), dtype, values[l]);
}

void Interpreter::execBlock(const StmtCode& s) {
  for (const IterCode& it : s.iters) vars_[it.slot] = operand(it.value, 0);
  if (s.predicate >= 0 && !eval(s.predicate, 0).i) return;
  bool atReductionStart = true;
  for (size_t k = 0; k < s.iters.size(); ++k) {
    const IterCode& it = s.iters[k];
    int64_t v = vars_[it.slot].i;
    int64_t lo = it.constDomain ? it.lo : evalInt(it.min);
    int64_t hi = it.constDomain ? it.hi : lo + evalInt(it.extent);
    if (v < lo || v >= hi)
      throwDiagnostic("tir_eval", "block " + s.text + ": iter var " + p_.slotNames[it.slot] +
                                      " is bound to " + std::to_string(v) +
                                      ", outside its domain [" + std::to_string(lo) + ", " +
                                      std::to_string(hi) + ")");
    if (it.reduce && v != lo) atReductionStart = false;
  }
  for (int b : s.allocBuffers) {
    declare(b);
    constLayout_[b] = true;
    allocate(p_.buffers[b].dataSlot, footprint(bufs_[b]), p_.buffers[b].buffer->dtype);
  }
  for (const MatchCode& m : s.matches) {
    // The view shares the source's memory, starting at the region's corner.
    const BufferState& src = state(m.sourceBuffer);
    int64_t offset = src.elemOffset;
    for (size_t d = 0; d < m.regionMins.size() && d < src.strides.size(); ++d)
      offset += evalInt(m.regionMins[d]) * src.strides[d];
    BufferState& view = bufs_[m.viewBuffer];
    view.shape.clear();
    for (int e : p_.buffers[m.viewBuffer].shape) view.shape.push_back(evalInt(e));
    size_t rank = view.shape.size();
    view.strides.assign(src.strides.end() - std::min(rank, src.strides.size()), src.strides.end());
    view.strides.resize(rank, 1);
    view.elemOffset = offset;
    view.ready = true;
    storage_[p_.buffers[m.viewBuffer].dataSlot] = storage_[p_.buffers[m.sourceBuffer].dataSlot];
    vars_[p_.buffers[m.viewBuffer].dataSlot] = vars_[p_.buffers[m.sourceBuffer].dataSlot];
    for (size_t d = 0; d < m.strideSlots.size() && d < rank; ++d)
      if (m.strideSlots[d] >= 0) vars_[m.strideSlots[d]].i = view.strides[d];
    if (m.elemOffsetSlot >= 0) vars_[m.elemOffsetSlot].i = offset;
    // The declared layout was just fixed here; keep it even if it mentions variables.
    constLayout_[m.viewBuffer] = true;
  }
  if (s.init >= 0 && atReductionStart) exec(s.init);
  exec(s.kids[0]);
}

void Interpreter::exec(int id) {
  const StmtCode& s = p_.stmts[id];
  switch (s.op) {
    case SOp::kStore:
      execStore(s);
      return;
    case SOp::kEvaluate:
      eval(s.exprs[0], 0);
      return;
    case SOp::kLet: {
      const ExprCode& value = p_.exprs[s.exprs[0]];
      if (value.lanes > 1) {
        std::vector<Scalar>& lanes = vecVars_[s.slot];
        lanes.resize(value.lanes);
        for (int l = 0; l < value.lanes; ++l) lanes[l] = eval(s.exprs[0], l);
      } else {
        vars_[s.slot] = eval(s.exprs[0], 0);
      }
      exec(s.kids[0]);
      return;
    }
    case SOp::kAssert:
      if (!eval(s.exprs[0], 0).i) throwDiagnostic("tir_eval_assert", "assertion failed: " + s.text);
      if (!s.kids.empty()) exec(s.kids[0]);
      return;
    case SOp::kIf:
      if (eval(s.exprs[0], 0).i)
        exec(s.kids[0]);
      else if (s.kids.size() > 1)
        exec(s.kids[1]);
      return;
    case SOp::kFor: {
      int64_t lo = evalInt(s.exprs[0]);
      int64_t hi = lo + evalInt(s.exprs[1]);
      // Parallel, vectorized, unrolled and thread-bound loops all run serially here.
      for (int64_t v = lo; v < hi; ++v) {
        vars_[s.slot].i = v;
        exec(s.kids[0]);
      }
      return;
    }
    case SOp::kSeq:
      for (int k : s.kids) exec(k);
      return;
    case SOp::kBlock:
      execBlock(s);
      return;
    case SOp::kAllocate: {
      int64_t n = 1;
      for (int e : s.exprs) n *= evalInt(e);
      allocate(s.slot, n, s.dtype);
      exec(s.kids[0]);
      return;
    }
    case SOp::kDeclBuffer:
      declare(s.buffer);
      constLayout_[s.buffer] = true;
      exec(s.kids[0]);
      return;
    case SOp::kNop:
      return;
  }
}

void Interpreter::bindParams(const std::string& funcName, const std::vector<NDArray>& args) {
  if (args.size() != p_.paramBuffers.size())
    throwDiagnostic("tir_eval_args",
                    "function " + funcName + " expects " + std::to_string(p_.paramBuffers.size()) +
                        " tensor arguments but got " + std::to_string(args.size()));
  std::vector<bool> bound(vars_.size(), false);
  for (size_t a = 0; a < args.size(); ++a) {
    int slot = p_.paramBuffers[a];
    const BufferInfo& info = p_.buffers[slot];
    const NDArray& arr = args[a];
    std::string where =
        "function " + funcName + " argument " + std::to_string(a) + " (" + info.buffer->name + ")";
    if (!arr.defined()) throwDiagnostic("tir_eval_args", where + ": no tensor given");
    if (arr.dtype() != info.buffer->dtype)
      throwDiagnostic("tir_eval_args", where + ": expected dtype " + info.buffer->dtype.name() +
                                           " but got " + arr.dtype().name());
    if (arr.ndim() != static_cast<int>(info.shape.size()))
      throwDiagnostic("tir_eval_args", where + ": expected " + std::to_string(info.shape.size()) +
                                           " dimensions but got " + arr.describe());
    for (size_t d = 0; d < info.shape.size(); ++d) {
      const ExprCode& dim = p_.exprs[info.shape[d]];
      int64_t actual = arr.shape()[d];
      // A symbolic dimension is defined by its first occurrence and checked at the others.
      if (dim.op == Op::kVar && !bound[dim.slot]) {
        vars_[dim.slot].i = actual;
        bound[dim.slot] = true;
        continue;
      }
      int64_t expected = evalInt(info.shape[d]);
      if (expected != actual)
        throwDiagnostic("tir_eval_args", where + ": dimension " + std::to_string(d) + " is " +
                                             std::to_string(actual) + " but the function needs " +
                                             std::to_string(expected));
    }
    std::vector<int64_t> strides = rowMajorStrides(arr.shape());
    for (size_t d = 0; d < info.strides.size() && d < strides.size(); ++d) {
      const ExprCode& st = p_.exprs[info.strides[d]];
      if (st.op == Op::kVar && !bound[st.slot]) {
        vars_[st.slot].i = strides[d];
        bound[st.slot] = true;
      } else if (evalInt(info.strides[d]) != strides[d]) {
        throwDiagnostic("tir_eval_args", where + ": the function needs a non-compact layout");
      }
    }
    if (info.elemOffset >= 0 && p_.exprs[info.elemOffset].op == Op::kVar)
      vars_[p_.exprs[info.elemOffset].slot].i = 0;
    storage_[info.dataSlot] =
        Storage{static_cast<uint8_t*>(arr.data()), static_cast<int64_t>(arr.nbytes()), nullptr};
    vars_[info.dataSlot].i = info.dataSlot;  // a handle's value: its slot
    declare(slot);
    constLayout_[slot] = true;  // shape variables are fixed for the whole call
  }
}

}  // namespace
}  // namespace evalimpl

void evaluate(const PrimFunc& func, const std::vector<NDArray>& args) {
  TS_CHECK(func) << "evaluate needs a function";
  evalimpl::Program program = evalimpl::compile(*func);
  evalimpl::Interpreter interp(program);
  interp.bindParams(func->name, args);
  interp.run();
}

}  // namespace tessera::tir
