// The VM interpreter loop and its shape binding. Shape expressions in allocations are evaluated
// with the variables bound at entry; storage becomes tensors through a DLPack view so the tensor
// shares the storage's memory and keeps it alive.
#include "runtime/vm/vm.h"

#include <algorithm>
#include <chrono>
#include <unordered_map>

#include "runtime/thread_pool.h"
#include "runtime/vm/builtins.h"
#include "support/diagnostic.h"

namespace tessera::runtime::vm {

namespace {

std::vector<int64_t> concreteShape(const std::vector<ShapeExpr>& shape, const ShapeEnv& env,
                                   const std::string& where) {
  std::vector<int64_t> out;
  for (const ShapeExpr& d : shape) {
    auto v = evalShape(d, env);
    if (!v) throwDiagnostic("vm_shape", where + ": cannot evaluate dimension " + d.text);
    out.push_back(*v);
  }
  return out;
}

/// A tensor sharing `storage`'s memory with another shape and dtype.
NDArray viewOf(const NDArray& storage, std::vector<int64_t> shape, DataType dtype) {
  struct Context {
    DLManagedTensor* base;
    std::vector<int64_t> shape;
  };
  DLManagedTensor* base = storage.toDLPack();
  auto* ctx = new Context{base, std::move(shape)};
  auto* view = new DLManagedTensor{};
  view->dl_tensor = base->dl_tensor;
  view->dl_tensor.ndim = static_cast<int32_t>(ctx->shape.size());
  view->dl_tensor.shape = ctx->shape.data();
  view->dl_tensor.strides = nullptr;
  view->dl_tensor.dtype = dtype.toDLPack();
  view->manager_ctx = ctx;
  view->deleter = [](DLManagedTensor* self) {
    auto* c = static_cast<Context*>(self->manager_ctx);
    c->base->deleter(c->base);
    delete c;
    delete self;
  };
  return NDArray::fromDLPack(view);
}

[[noreturn]] void inputError(const std::string& func, size_t index, const Param& param,
                             const NDArray& arg, const std::string& problem) {
  throwDiagnostic("vm_input", func + ": argument " + std::to_string(index) + " ('" + param.name +
                                  "', " + param.annotation + ") got " + arg.describe() + ": " +
                                  problem);
}

/// Checks the inputs against the parameters' annotations and binds symbolic dimensions. Whole-
/// dimension variables are bound first so composite dimensions can be checked afterwards.
ShapeEnv bindInputs(const VMFunction& fn, const std::vector<NDArray>& args) {
  if (args.size() != fn.params.size())
    throwDiagnostic("vm_input", fn.name + ": expected " + std::to_string(fn.params.size()) +
                                    " arguments, got " + std::to_string(args.size()));
  ShapeEnv env(fn.numShapeVars);
  for (int pass = 0; pass < 2; ++pass)
    for (size_t i = 0; i < args.size(); ++i) {
      const Param& p = fn.params[i];
      const Param& s = p;
      if (!s.isTensor) continue;
      const NDArray& a = args[i];
      if (!a.defined()) inputError(fn.name, i, p, a, "argument is null");
      if (s.ndim >= 0 && a.ndim() != s.ndim)
        inputError(fn.name, i, p, a,
                   "expected rank " + std::to_string(s.ndim) + ", got " + std::to_string(a.ndim()));
      if (!s.dtype.isVoid() && a.dtype() != s.dtype)
        inputError(fn.name, i, p, a,
                   "expected dtype " + s.dtype.name() + ", got " + a.dtype().name());
      if (!s.shape) continue;
      for (int d = 0; d < a.ndim(); ++d) {
        const ShapeExpr& want = (*s.shape)[d];
        int64_t got = a.shape()[d];
        const bool v = want.kind == ShapeExpr::Kind::kVar;
        if (pass == 0 && v && !env[want.value]) {
          env[want.value] = got;
          continue;
        }
        auto value = evalShape(want, env);
        if (pass == 0 && !value) continue;  // composite of a variable bound later
        if (!value)
          inputError(fn.name, i, p, a,
                     "dimension " + std::to_string(d) + " (" + want.text +
                         ") cannot be determined from the inputs");
        if (*value != got)
          inputError(
              fn.name, i, p, a,
              "dimension " + std::to_string(d) + " must be " + want.text +
                  (want.kind != ShapeExpr::Kind::kConst ? " = " + std::to_string(*value) : "") +
                  ", got " + std::to_string(got));
      }
    }
  return env;
}

// Per instruction, the registers it reads for the last time (not those it returns): the VM drops
// them after it, so a tensor lives from its allocation to its last use rather than to the end of
// the function. Valid because jumps only go forward: in code order, no path reads a register after
// its last read. A function with a backward jump (no compiler writes one) keeps every register.
std::vector<std::vector<int>> lastReads(const VMFunction& fn) {
  std::vector<std::vector<int>> freeAfter(fn.code.size());
  for (size_t pc = 0; pc < fn.code.size(); ++pc) {
    const Instruction& inst = fn.code[pc];
    if ((inst.op == Opcode::kIf || inst.op == Opcode::kGoto) && inst.index <= static_cast<int>(pc))
      return freeAfter;
  }
  std::vector<int> last(fn.numRegisters, -1);
  for (size_t pc = 0; pc < fn.code.size(); ++pc)
    for (const Operand& o : fn.code[pc].args)
      if (o.kind == Operand::Kind::kRegister && o.index >= 0 && o.index < fn.numRegisters)
        last[o.index] = static_cast<int>(pc);
  for (int r = 0; r < fn.numRegisters; ++r) {
    const int pc = last[r];
    if (pc < 0) continue;
    const Opcode op = fn.code[pc].op;
    if (op == Opcode::kRet || op == Opcode::kTailCall || fn.code[pc].dst == r) continue;
    freeAfter[pc].push_back(r);
  }
  return freeAfter;
}

// A value whose extents the program learns when it runs (a builtin's result, the join of
// branches): its unbound dims bind shape variables, the rest are checked.
void matchShape(const VMFunction& fn, const Instruction& inst, const VMValue& value,
                ShapeEnv& env) {
  const NDArray& t = value.tensor;
  const std::string where = fn.name + ": match_shape";
  if (value.isTuple() || !t.defined())
    throwDiagnostic("vm_shape", where + " expected a tensor, got a tuple");
  if (t.ndim() != static_cast<int>(inst.shape.size()) ||
      (!inst.dtype.isVoid() && t.dtype() != inst.dtype))
    throwDiagnostic("vm_shape", where + " expected rank " + std::to_string(inst.shape.size()) +
                                    " and dtype " + inst.dtype.name() + ", got " + t.describe());
  for (size_t d = 0; d < inst.shape.size(); ++d) {
    const ShapeExpr& want = inst.shape[d];
    const int64_t got = t.shape()[d];
    if (want.kind == ShapeExpr::Kind::kVar && want.value >= 0 &&
        want.value < static_cast<int64_t>(env.size()) && !env[want.value]) {
      env[want.value] = got;
      continue;
    }
    const std::optional<int64_t> value = evalShape(want, env);
    if (!value || *value != got)
      throwDiagnostic("vm_shape", where + ": dimension " + std::to_string(d) + " must be " +
                                      want.text + ", got " + std::to_string(got));
  }
}

// Two extents an op of the next kernel needs equal: a mismatch is an error naming the op and both
// extents, before the kernel could read out of bounds.
void assertEqual(const VMFunction& fn, const Instruction& inst, const ShapeEnv& env) {
  const std::optional<int64_t> a = evalShape(inst.shape.at(0), env),
                               b = evalShape(inst.shape.at(1), env);
  if (!a || !b)
    throwDiagnostic(
        "vm_shape",
        inst.func + ": cannot evaluate " + inst.shape[0].text + " or " + inst.shape[1].text, {},
        fn.name);
  if (*a != *b)
    throwDiagnostic("vm_shape",
                    inst.func + " differ at run time: " + std::to_string(*a) + " vs " +
                        std::to_string(*b) + " (" + inst.shape[0].text + " vs " +
                        inst.shape[1].text + ")",
                    {}, fn.name);
}

std::vector<NDArray> tensorArgs(const std::vector<VMValue>& values, const std::string& callee) {
  std::vector<NDArray> out;
  for (const VMValue& v : values) {
    if (v.isTuple())
      throwDiagnostic("vm_call", callee + ": expected tensor arguments, got a tuple");
    out.push_back(v.tensor);
  }
  return out;
}

// A kernel compiled for one row, called on row views: the data pointer moves by a row's bytes and
// the leading extent reads 1.
void callRows(const KernelFunction& kernel, const Instruction& inst,
              const std::vector<NDArray>& args) {
  int64_t rows = -1;
  std::vector<DLTensor> tensors(args.size());
  std::vector<std::vector<int64_t>> shapes(args.size());
  std::vector<int64_t> rowBytes(args.size(), 0);
  std::vector<void*> pointers(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    tensors[i] = args[i].dlTensor();
    pointers[i] = &tensors[i];
    if (inst.shape.at(i).value == 0) continue;
    if (args[i].ndim() == 0)
      throwDiagnostic("vm_call", inst.func + ": a row argument has no leading axis");
    const int64_t n = args[i].shape()[0];
    if (rows >= 0 && n != rows)
      throwDiagnostic("vm_call", inst.func + ": row arguments disagree on the row count (" +
                                     std::to_string(rows) + " vs " + std::to_string(n) + ")");
    rows = n;
    shapes[i] = args[i].shape();
    shapes[i][0] = 1;
    tensors[i].shape = shapes[i].data();
    rowBytes[i] = n == 0 ? 0 : static_cast<int64_t>(args[i].nbytes()) / n;
  }
  for (int64_t r = 0; r < rows; ++r) {
    for (size_t i = 0; i < args.size(); ++i)
      if (rowBytes[i] != 0)
        tensors[i].data = static_cast<char*>(args[i].dlTensor().data) + r * rowBytes[i];
    if (kernel(pointers.data(), static_cast<int32_t>(pointers.size())) != 0)
      throwDiagnostic("codegen_call", TesseraGetLastError(), {}, inst.func);
  }
}

}  // namespace

VirtualMachine::VirtualMachine(Executable exec) : exec_(std::move(exec)) {
  // Every name is resolved once, here: call_kernel to its compiled kernel, call_packed first
  // among the compiled kernels, then in the packed registry.
  for (const auto& [fname, fn] : exec_.functions) {
    FunctionPlan& plan = plans_[fname];
    for (const Instruction& inst : fn.code) {
      const bool compiled = inst.op == Opcode::kCallKernel || inst.op == Opcode::kCallKernelRows;
      const bool call = compiled || inst.op == Opcode::kCallPacked;
      KernelFunction kernel = call ? exec_.kernels.getKernel(inst.func) : nullptr;
      plan.kernels.push_back(compiled ? kernel : nullptr);
      plan.builtins.push_back(inst.op == Opcode::kCallBuiltin ? findBuiltin(inst.func) : nullptr);
      if (inst.op == Opcode::kCallBuiltin && !plan.builtins.back())
        throwDiagnostic("vm_missing_function",
                        fname + ": builtin '" + inst.func + "' is not a builtin of this runtime");
      if (compiled && !kernel)
        throwDiagnostic("vm_missing_function",
                        fname + ": kernel '" + inst.func + "' is not among the compiled kernels");
      if (inst.op != Opcode::kCallPacked || kernel || packed_.count(inst.func)) continue;
      const PackedFunc* f = findGlobal(inst.func);
      if (!f)
        throwDiagnostic("vm_missing_function",
                        fname + ": call_dps_packed target '" + inst.func +
                            "' is neither a compiled PrimFunc nor a registered packed function");
      packed_[inst.func] = *f;
    }
    plan.freeAfter = lastReads(fn);
  }
}

VMValue VirtualMachine::invoke(const std::string& func, const std::vector<NDArray>& args) const {
  auto it = exec_.functions.find(func);
  if (it == exec_.functions.end())
    throwDiagnostic("vm_input", "the executable has no function named '" + func + "'");
  std::vector<VMValue> values;
  for (const NDArray& a : args) values.push_back({a, nullptr});
  return execute(it->second, std::move(values), bindInputs(it->second, args));
}

const VMFunction& VirtualMachine::callee(const VMFunction& caller, const std::string& name) const {
  auto it = exec_.functions.find(name);
  if (it == exec_.functions.end())
    throwDiagnostic("vm_call", caller.name + " calls '" + name + "', which the executable lacks");
  return it->second;
}

// The shape variables of a call between VM functions, bound from its tensor arguments (tuples
// are passed through unchecked: the compiler typed them).
ShapeEnv VirtualMachine::bindCall(const VMFunction& fn, const std::vector<VMValue>& args) const {
  // Without shape variables there is nothing to bind, and the compiler typed the arguments.
  if (fn.numShapeVars == 0) return {};
  std::vector<NDArray> tensors;
  for (const VMValue& v : args) tensors.push_back(v.isTuple() ? NDArray() : v.tensor);
  return bindInputs(fn, tensors);
}

VMValue VirtualMachine::execute(const VMFunction& entry, std::vector<VMValue> args,
                                ShapeEnv env) const {
  const VMFunction* fn = &entry;
  std::vector<VMValue> regs(fn->numRegisters);
  std::move(args.begin(), args.end(), regs.begin());
  auto load = [&](const Operand& o) -> VMValue {
    if (o.kind == Operand::Kind::kConstant) return VMValue{exec_.constants.at(o.index), nullptr};
    return regs.at(o.index);
  };
  const FunctionPlan* plan = &plans_.at(fn->name);
  std::vector<DLTensor> tensors;  // a kernel call's arguments, reused
  std::vector<void*> pointers;
  size_t pc = 0;
  while (pc < fn->code.size()) {
    const Instruction& inst = fn->code[pc];
    // A compiled kernel is called directly with its tensors (the hot path of a loop).
    if (inst.op == Opcode::kCallKernel) {
      tensors.resize(inst.args.size());
      pointers.resize(inst.args.size());
      for (size_t i = 0; i < inst.args.size(); ++i) {
        const Operand& o = inst.args[i];
        const VMValue* v = o.kind == Operand::Kind::kRegister ? &regs.at(o.index) : nullptr;
        if (v && v->isTuple())
          throwDiagnostic("vm_call", inst.func + ": expected tensor arguments, got a tuple");
        tensors[i] = (v ? v->tensor : exec_.constants.at(o.index)).dlTensor();
        pointers[i] = &tensors[i];
      }
      const auto start =
          profiling_ ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
      if (plan->kernels[pc](pointers.data(), static_cast<int32_t>(pointers.size())) != 0)
        throwDiagnostic("codegen_call", TesseraGetLastError(), {}, inst.func);
      if (profiling_) {
        auto [it, fresh] = profiling_->kernels.try_emplace(inst.func, 0.0, 0);
        if (fresh) profiling_->order.push_back(inst.func);
        it->second.first +=
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        ++it->second.second;
      }
      for (int r : plan->freeAfter[pc]) regs[r] = VMValue{};
      ++pc;
      continue;
    }
    const size_t at = pc++;
    std::vector<VMValue> operands;
    for (const Operand& o : inst.args) operands.push_back(load(o));
    switch (inst.op) {
      case Opcode::kAllocStorage: {
        std::vector<int64_t> shape = concreteShape(inst.shape, env, fn->name);
        int64_t bytes = shapeNumel(shape) * inst.dtype.bytes();
        regs[inst.dst].tensor = NDArray::empty({bytes}, DataType::uint8());
        break;
      }
      case Opcode::kAllocTensor:
        // Without a storage operand the tensor gets memory of its own.
        regs[inst.dst].tensor =
            operands.empty()
                ? NDArray::empty(concreteShape(inst.shape, env, fn->name), inst.dtype)
                : viewOf(operands[0].tensor, concreteShape(inst.shape, env, fn->name), inst.dtype);
        break;
      case Opcode::kCallKernel:
        break;  // handled above
      case Opcode::kCallPacked: {
        std::vector<NDArray> tensors = tensorArgs(operands, inst.func);
        if (auto p = packed_.find(inst.func); p != packed_.end()) {
          std::vector<PackedValue> packedArgs(tensors.begin(), tensors.end());
          p->second(packedArgs);
        } else {
          exec_.kernels.call(inst.func, tensors);
        }
        break;
      }
      case Opcode::kMakeTuple:
        regs[inst.dst] = VMValue{{}, std::make_shared<std::vector<VMValue>>(operands)};
        break;
      case Opcode::kTupleGetItem:
        if (!operands[0].isTuple() || inst.index < 0 ||
            inst.index >= static_cast<int>(operands[0].tuple->size()))
          throwDiagnostic("vm_call", fn->name + ": field " + std::to_string(inst.index) +
                                         " of a value that has no such field");
        regs[inst.dst] = (*operands[0].tuple)[inst.index];
        break;
      case Opcode::kCopy:
        regs[inst.dst] = operands[0];
        break;
      case Opcode::kRet:
        return operands[0];
      case Opcode::kIf: {
        const NDArray& cond = operands[0].tensor;
        if (operands[0].isTuple() || cond.numel() != 1)
          throwDiagnostic("vm_call", fn->name + ": the condition of an if must be one value");
        if (cond.getFloat(0) == 0) pc = static_cast<size_t>(inst.index);
        break;
      }
      case Opcode::kGoto:
        pc = static_cast<size_t>(inst.index);
        break;
      case Opcode::kInvoke: {
        const VMFunction& target = callee(*fn, inst.func);
        ShapeEnv calleeEnv = bindCall(target, operands);
        regs[inst.dst] = execute(target, std::move(operands), std::move(calleeEnv));
        break;
      }
      case Opcode::kMatchShape:
        matchShape(*fn, inst, operands[0], env);
        break;
      case Opcode::kAssertEqual:
        assertEqual(*fn, inst, env);
        break;
      case Opcode::kCallKernelRows:
        callRows(plan->kernels[at], inst, tensorArgs(operands, inst.func));
        break;
      case Opcode::kCallBuiltin: {
        std::vector<NDArray> tensors = tensorArgs(operands, inst.func);
        regs[inst.dst] = (*plan->builtins[at])(tensors);
        break;
      }
      case Opcode::kTailCall: {
        // The callee takes over this frame, so a loop written as recursion runs in constant
        // stack and memory whatever its trip count.
        fn = &callee(*fn, inst.func);
        plan = &plans_.at(fn->name);
        env = bindCall(*fn, operands);
        regs.assign(fn->numRegisters, VMValue{});
        std::move(operands.begin(), operands.end(), regs.begin());
        pc = 0;
        continue;
      }
    }
    for (int r : plan->freeAfter[at]) regs[r] = VMValue{};
  }
  throwDiagnostic("vm_call", fn->name + ": program ended without ret");
}

std::vector<KernelTime> VirtualMachine::profile(const std::string& func,
                                                const std::vector<NDArray>& args, int runs) const {
  invoke(func, args);
  std::vector<ProfileRun> samples(static_cast<size_t>(std::max(runs, 1)));
  for (ProfileRun& sample : samples) {
    profiling_ = &sample;
    try {
      invoke(func, args);
    } catch (...) {
      profiling_ = nullptr;
      throw;
    }
    profiling_ = nullptr;
  }
  std::vector<KernelTime> out;
  for (const ProfileRun& sample : samples)
    for (const std::string& name : sample.order)
      if (std::none_of(out.begin(), out.end(),
                       [&](const KernelTime& k) { return k.kernel == name; }))
        out.push_back({name, 0, 0});
  for (KernelTime& k : out) {
    std::vector<double> seconds;
    for (const ProfileRun& sample : samples) {
      auto it = sample.kernels.find(k.kernel);
      seconds.push_back(it == sample.kernels.end() ? 0.0 : it->second.first);
    }
    std::sort(seconds.begin(), seconds.end());
    k.seconds = seconds[seconds.size() / 2];
    auto last = samples.back().kernels.find(k.kernel);
    k.calls = last == samples.back().kernels.end() ? 0 : last->second.second;
  }
  return out;
}

NDArray VirtualMachine::run(const std::string& func, const std::vector<NDArray>& args) const {
  VMValue v = invoke(func, args);
  if (v.isTuple()) throwDiagnostic("vm_call", func + ": returns a tuple; use invoke()");
  return v.tensor;
}

}  // namespace tessera::runtime::vm
