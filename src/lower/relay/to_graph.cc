// lowerGraphToTIR: a walk over @main in evaluation order (iterative: no recursion whose depth the
// model controls) that builds the graph description while collecting the distinct primitive
// functions and lowering each through its op strategies; and the tuning tasks of the result.
#include "lower/relay/to_graph.h"
#include "lower/relay/schedule_provider.h"

#include "lower/relay/kernel_set.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "relay/strategy/packed_weights.h"
#include "relay/strategy/strategy.h"
#include "relay/structural_equal.h"
#include "relay/type_infer.h"
#include "relay/visit.h"
#include "support/check.h"
#include "support/diagnostic.h"
#include "tir/structural_equal.h"
#include "vta/strategy/graph_kernel.h"

namespace tessera::lower {

namespace {

using relay::Expr;
using relay::ExprKind;
using relay::Function;
using runtime::KernelCall;

// Walks @main in evaluation order, building the description and collecting kernels.
class GraphBuilder {
 public:
  // `target` null: the generic computes, nothing packed, no strategies (the reference build).
  GraphBuilder(Function main, const target::Target* target, ParamSink sink,
               const target::Target* vta)
      : main_(std::move(main)), kernelSet_(target), sink_(std::move(sink)), vta_(vta) {}

  void run() {
    detachConstants();
    for (const relay::Var& p : main_->params) {
      const Type& type = p->checkedType ? p->checkedType : p->typeAnnotation;
      const auto tensors = flattenTensorTypes(type, "%" + p->nameHint);
      if (tensors.size() != 1)
        throwDiagnostic("build", "is a tuple; graph inputs must be tensors", {}, "%" + p->nameHint);
      const int e = newEntry(tensors[0], "%" + p->nameHint);
      graph.inputs.push_back({p->nameHint, e});
      entriesOf_[p.get()] = {e};
    }
    for (const Expr& e : evaluationOrder()) visit(e);
    for (int e : entriesFor(main_->body)) graph.outputs.push_back(onDevice(e, 0));
  }

  runtime::GraphDescription graph;
  std::map<std::string, NDArray> params;
  std::vector<GraphKernel>& kernels() { return kernelSet_.kernels; }

 private:
  // Children that are evaluated before a node (primitive function bodies are not: they are
  // kernels, not dataflow).
  static std::vector<Expr> dataflowChildren(const Expr& e) {
    switch (e->kind) {
      case ExprKind::kCall:
        return exprAs<relay::CallNode>(e)->args;
      case ExprKind::kTuple:
        return exprAs<relay::TupleNode>(e)->fields;
      case ExprKind::kTupleGetItem:
        return {exprAs<relay::TupleGetItemNode>(e)->tuple};
      case ExprKind::kLet: {
        const auto* let = e->as<relay::LetNode>();
        return {let->value, let->body};
      }
      default:
        return {};
    }
  }
  template <typename T>
  static std::shared_ptr<const T> exprAs(const Expr& e) {
    return relay::exprAs<T>(e);
  }

  std::vector<Expr> evaluationOrder() {
    std::vector<Expr> order;
    std::unordered_map<const relay::ExprNode*, bool> seen;
    std::vector<std::pair<Expr, size_t>> stack{{main_->body, 0}};
    seen[main_->body.get()] = true;
    // A body that is itself a let (relay.testing's lstm) binds its variable like any other.
    if (const auto* let = main_->body->as<relay::LetNode>())
      letValues_[let->var.get()] = let->value;
    std::vector<std::vector<Expr>> children{dataflowChildren(main_->body)};
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      if (next < children.back().size()) {
        Expr child = children.back()[next++];
        if (seen[child.get()]) continue;
        seen[child.get()] = true;
        if (const auto* let = child->as<relay::LetNode>()) letValues_[let->var.get()] = let->value;
        children.push_back(dataflowChildren(child));
        stack.emplace_back(child, 0);
        continue;
      }
      order.push_back(node);
      stack.pop_back();
      children.pop_back();
    }
    return order;
  }

  // @main's constants leave the IR for constantData_, each released after its last call, so a
  // weight packed for its kernels is not held unpacked as well until the end of lowering (for a
  // large model, twice its weights at the peak). @main is rebuilt around data-less constants;
  // the caller's graph keeps its own, and its memory goes only where nothing else holds it.
  void detachConstants() {
    std::unordered_map<const relay::ExprNode*, Expr> rebuilt;
    for (const Expr& e : evaluationOrder()) {
      Expr now = e;
      if (const auto* c = e->as<relay::ConstantNode>()) {
        if (!c->hasData()) continue;
        now = relay::makeConstantWithoutData(c->declaredType, e->span);
        constantData_[now.get()] = c->data;
      } else if (e->kind != ExprKind::kVar) {
        std::vector<Expr> children = relay::exprChildren(e);
        for (Expr& child : children)
          if (auto it = child ? rebuilt.find(child.get()) : rebuilt.end(); it != rebuilt.end())
            child = it->second;
        now = relay::withChildren(e, children);
      }
      if (now == e) continue;
      now->checkedType = e->checkedType;
      rebuilt[e.get()] = now;
    }
    letValues_.clear();
    auto body = rebuilt.find(main_->body.get());
    if (body == rebuilt.end()) return;
    Function detached =
        relay::makeFunction(main_->params, body->second, main_->retType, main_->attrs, main_->span);
    detached->checkedType = main_->checkedType;
    rebuilt.clear();
    main_ = std::move(detached);
    for (const Expr& e : evaluationOrder())
      if (const auto* call = e->as<relay::CallNode>())
        for (const Expr& arg : call->args)
          if (constantData_.count(arg.get())) ++constantUses_[arg.get()];
  }

  const NDArray& constantData(const Expr& e) const {
    auto it = constantData_.find(e.get());
    if (it != constantData_.end()) return it->second;
    return e->as<relay::ConstantNode>()->data;
  }

  // After a call: a detached constant none of the remaining calls uses is released.
  void releaseConstants(const relay::CallNode& call) {
    for (const Expr& arg : call.args) {
      auto uses = constantUses_.find(arg.get());
      if (uses != constantUses_.end() && --uses->second == 0) constantData_.erase(arg.get());
    }
  }

  int newEntry(const TensorTypeNode* type, const std::string& where) {
    std::optional<std::vector<int64_t>> dims = staticShape(type->shape);
    if (!dims)
      throwDiagnostic("build", "has a non-static shape; compiled graphs need static shapes", {},
                      where);
    graph.entries.push_back({*dims, type->dtype, -1});
    return static_cast<int>(graph.entries.size()) - 1;
  }

  int newParam(const NDArray& data, int device = 0) {
    const std::string name = "p" + std::to_string(graph.params.size());
    const int e = static_cast<int>(graph.entries.size());
    graph.entries.push_back({data.shape(), data.dtype(), -1, device});
    graph.params.push_back({name, e});
    if (sink_)
      sink_(name, data);
    else
      params[name] = data;
    return e;
  }

  void visit(const Expr& e) {
    std::vector<int>& out = entriesOf_[e.get()];
    switch (e->kind) {
      case ExprKind::kVar: {
        auto it = letValues_.find(static_cast<const relay::VarNode*>(e.get()));
        // `out` was created above, so a parameter is one whose entries run() already set.
        TS_CHECK(it != letValues_.end() || !out.empty()) << "unbound variable";
        if (it != letValues_.end()) out = entriesFor(it->second);
        return;
      }
      case ExprKind::kConstant: {
        const auto* c = e->as<relay::ConstantNode>();
        if (!c->hasData() && !constantData_.count(e.get()))
          throwDiagnostic("build", "a constant has no data (the text had no metadata section)",
                          e->span, "@main");
        return;  // becomes a parameter entry when something uses it (entriesFor)
      }
      case ExprKind::kTuple:
        for (const Expr& f : exprAs<relay::TupleNode>(e)->fields) append(out, f);
        return;
      case ExprKind::kTupleGetItem:
        return visitTupleGetItem(*e->as<relay::TupleGetItemNode>(), out);
      case ExprKind::kLet:
        out = entriesFor(e->as<relay::LetNode>()->body);
        return;
      case ExprKind::kCall:
        return visitCall(*e->as<relay::CallNode>(), out);
      default:
        throwDiagnostic("build",
                        exprSummary(e) +
                            " in @main cannot be compiled to a graph (control flow, "
                            "closures and references need the VM)",
                        e->span, "@main");
    }
  }

  // The entries of a visited node. A constant gets its parameter entry on first use, so a
  // constant that only ever reaches kernels packed is not stored unpacked as well.
  const std::vector<int>& entriesFor(const Expr& e) {
    std::vector<int>& entries = entriesOf_.at(e.get());
    if (entries.empty() && e->kind == ExprKind::kConstant) entries = {newParam(constantData(e))};
    return entries;
  }

  // The parameter entry of a constant packed for a kernel; a weight shared by several calls is
  // packed and stored once.
  int packedParam(const Expr& constant, const relay::strategy::WeightPacking& packing) {
    for (const auto& [node, p, entry] : packedParams_)
      if (node == constant.get() && p == packing) return entry;
    // At its last use a detached constant is handed over, so packing may reuse its memory.
    auto data = constantData_.find(constant.get());
    auto uses = constantUses_.find(constant.get());
    NDArray packed;
    if (data != constantData_.end() && uses != constantUses_.end() && uses->second == 1) {
      NDArray weight = std::move(data->second);
      constantData_.erase(data);
      packed = relay::strategy::packWeightConsuming(std::move(weight), packing);
    } else {
      packed = relay::strategy::packWeight(constantData(constant), packing);
    }
    const int entry = newParam(packed);
    packedParams_.push_back({constant.get(), packing, entry});
    return entry;
  }

  void append(std::vector<int>& out, const Expr& e) {
    const std::vector<int>& in = entriesFor(e);
    out.insert(out.end(), in.begin(), in.end());
  }

  void visitTupleGetItem(const relay::TupleGetItemNode& get, std::vector<int>& out) {
    const auto* tuple = get.tuple->type()->as<TupleTypeNode>();
    TS_CHECK(tuple && get.index >= 0 && get.index < static_cast<int>(tuple->fields.size()));
    size_t offset = 0;
    for (int i = 0; i < get.index; ++i)
      offset += flattenTensorTypes(tuple->fields[i], "@main").size();
    const size_t count = flattenTensorTypes(tuple->fields[get.index], "@main").size();
    const std::vector<int>& all = entriesFor(get.tuple);
    out.assign(all.begin() + offset, all.begin() + offset + count);
  }

  void visitCall(const relay::CallNode& call, std::vector<int>& out) {
    // Refused before lowering: the graph executor plans every tensor's size ahead of the run.
    if (const relay::OpNode* op = builtinOp(call))
      throwDiagnostic(op->def->dataDependentShape ? "data_dependent_shape" : "vm_builtin_op",
                      op->name +
                          (op->def->dataDependentShape
                               ? " has a data-dependent output shape, which compiled graphs "
                                 "cannot hold (they need static shapes)"
                               : " has no TE compute; it runs as a VM builtin") +
                          "; the VM runs it (`tessera compile` and `tessera run` choose the VM for "
                          "such modules)",
                      call.span, "@main");
    Function fn = relay::exprAs<relay::FunctionNode>(call.op);
    if (const auto* global = call.op->as<relay::GlobalVarNode>())
      throwDiagnostic("build",
                      "@main calls @" + global->name +
                          "; build compiles @main alone "
                          "(inline the callee first)",
                      call.span, "@main");
    if (call.op->as<relay::OpNode>()) fn = wrapOpCall(call);
    if (!fn || !fn->attrs.has("Primitive"))
      throwDiagnostic("build",
                      "calls " + exprSummary(call.op) +
                          ", which is not a fused "
                          "primitive function",
                      call.span, "@main");
    if (vta_) {
      const std::string name = "vta_kernel_" + std::to_string(vtaKernels_);
      if (std::optional<vta::VtaGraphKernel> k = vta::vtaGraphKernel(fn, *vta_->vtaConfig, name)) {
        ++vtaKernels_;
        return visitVtaCall(call, std::move(*k), out);
      }
    }
    bool isNew = false;
    const KernelInfo& kernel = kernelSet_.kernelFor(fn, argumentFacts(call, ranges_), &isNew);
    if (isNew) {
      std::vector<int> entries;
      for (const NDArray& c : kernel.constants) entries.push_back(newParam(c));
      constantEntries_.push_back(std::move(entries));
    }
    KernelCall node{kernel.name, {}, {}};
    for (size_t i = 0; i < call.args.size(); ++i) {
      const relay::strategy::WeightPacking packing = kernel.packingOf(i);
      if (!packing) {
        append(node.inputs, call.args[i]);
        continue;
      }
      node.inputs.push_back(packedParam(call.args[i], packing));
    }
    for (int& e : node.inputs) e = onDevice(e, 0);
    TS_CHECK(node.inputs.size() == kernel.numInputs)
        << kernel.name << ": " << node.inputs.size() << " arguments for " << kernel.numInputs;
    const std::vector<int>& constants = constantEntries_[kernel.index];
    node.inputs.insert(node.inputs.end(), constants.begin(), constants.end());
    for (const TensorTypeNode* t : flattenTensorTypes(call.type(), kernel.name))
      node.outputs.push_back(newEntry(t, kernel.name));
    TS_CHECK(node.inputs.size() + node.outputs.size() == kernel.numParams)
        << kernel.name << ": argument count differs from the lowered function";
    out = node.outputs;
    graph.calls.push_back(std::move(node));
    releaseConstants(call);
  }

  // The device index of VTA in the description, added on first use.
  int vtaDevice() {
    for (size_t d = 0; d < graph.devices.size(); ++d)
      if (graph.devices[d].name == "vta") return static_cast<int>(d);
    graph.devices.push_back({"vta", vta_->str()});
    return static_cast<int>(graph.devices.size()) - 1;
  }

  // `entry` as an entry on `device`: itself, or a copy made once by a `__copy` call.
  int onDevice(int entry, int device) {
    if (graph.entries[entry].device == device) return entry;
    auto it = copies_.find({entry, device});
    if (it != copies_.end()) return it->second;
    runtime::TensorEntry copy = graph.entries[entry];
    copy.storage = -1;
    copy.device = device;
    graph.entries.push_back(copy);
    const int e = static_cast<int>(graph.entries.size()) - 1;
    graph.calls.push_back({runtime::kCopyKernel, {entry}, {e}});
    copies_[{entry, device}] = e;
    return e;
  }

  // A call of a fused function VTA runs: its kernel compiled for VTA, its constants stored on
  // the device, its tensor arguments copied there when they are the CPU's.
  void visitVtaCall(const relay::CallNode& call, vta::VtaGraphKernel k, std::vector<int>& out) {
    const int device = vtaDevice();
    const std::string& name = k.func->name;
    const std::vector<tir::Buffer> buffers = k.func->paramBuffers();
    TS_CHECK(buffers.size() == k.params.size() + 1) << name;
    auto shapeOf = [&](const tir::Buffer& b) {
      std::vector<int64_t> dims;
      for (const tir::PrimExpr& d : b->shape) dims.push_back(*tir::asConstInt(d));
      return dims;
    };
    KernelCall node{name, {}, {}};
    size_t nextConstant = 0;
    for (size_t i = 0; i < k.params.size(); ++i) {
      const std::vector<int64_t> shape = shapeOf(buffers[i]);
      const Expr* arg = k.params[i] >= 0 ? &call.args.at(k.params[i]) : nullptr;
      if (arg == nullptr || (*arg)->as<relay::ConstantNode>()) {
        const NDArray data = arg ? constantData(*arg) : k.constants.at(nextConstant++);
        node.inputs.push_back(newParam(data.reshaped(shape), device));
        continue;
      }
      const std::vector<int>& entries = entriesFor(*arg);
      TS_CHECK(entries.size() == 1) << name << ": a tuple argument";
      if (graph.entries[entries[0]].shape != shape)
        throwDiagnostic("build",
                        "argument " + std::to_string(i) + " has shape " +
                            shapeString(graph.entries[entries[0]].shape) +
                            " but the VTA kernel takes " + shapeString(shape),
                        call.span, name);
      node.inputs.push_back(onDevice(entries[0], device));
    }
    const std::vector<int64_t> resultShape = shapeOf(buffers.back());
    const auto results = flattenTensorTypes(call.type(), name);
    TS_CHECK(results.size() == 1 && staticShape(results[0]->shape) == resultShape) << name;
    graph.entries.push_back({resultShape, buffers.back()->dtype, -1, device});
    node.outputs.push_back(static_cast<int>(graph.entries.size()) - 1);
    out = node.outputs;
    graph.calls.push_back(std::move(node));
    auto func = std::make_shared<tir::PrimFuncNode>(*k.func);
    func->attrs.set(relay::strategy::kImplementationAttr, AttrValue::string(k.implementation));
    kernels().push_back({func, {}, 1});
    constantEntries_.emplace_back();  // kernels and constantEntries_ share their indices
    releaseConstants(call);
  }

  Function main_;
  KernelSet kernelSet_;
  relay::RangeAnalyzer ranges_;  // of @main's values
  ParamSink sink_;               // takes each param instead of `params`
  const target::Target* vta_ = nullptr;
  int vtaKernels_ = 0;
  std::map<std::pair<int, int>, int> copies_;      // (entry, device) -> its copy there
  std::vector<std::vector<int>> constantEntries_;  // per kernel: its constants' param entries
  std::unordered_map<const relay::ExprNode*, NDArray> constantData_;  // see detachConstants
  std::unordered_map<const relay::ExprNode*, int> constantUses_;      // calls yet to come
  std::unordered_map<const relay::ExprNode*, std::vector<int>> entriesOf_;
  struct PackedConstant {
    const relay::ExprNode* constant;
    relay::strategy::WeightPacking packing;
    int entry;
  };
  std::vector<PackedConstant> packedParams_;
  std::unordered_map<const relay::VarNode*, Expr> letValues_;
};

}  // namespace

LoweredGraph lowerGraphToTIR(relay::IRModule optimized, const target::Target* target,
                             ParamSink sink, const target::Target* vta) {
  Function main = optimized.main();
  optimized = relay::IRModule();  // `main` is then the builder's alone, when the caller moved it in
  TS_CHECK(!vta || vta->vtaConfig) << "a VTA target without its configuration";
  GraphBuilder builder(std::move(main), target, std::move(sink), vta);
  builder.run();
  return LoweredGraph{std::move(builder.graph), std::move(builder.params),
                      std::move(builder.kernels())};
}

std::vector<TuningTask> tuningTasks(const LoweredGraph& graph) {
  std::vector<TuningTask> tasks;
  for (const GraphKernel& k : graph.kernels) {
    if (k.func->attrs.has("tessera.device_type")) continue;  // a device's kernel, compiled as is
    const uint64_t key = workloadKey(k.func);
    auto same = std::find_if(tasks.begin(), tasks.end(),
                             [&](const TuningTask& t) { return t.workloadKey == key; });
    if (same != tasks.end()) {
      same->weight += k.calls;
      continue;
    }
    const AttrValue* impl = k.func->attrs.find(relay::strategy::kImplementationAttr);
    tasks.push_back({k.func->name, k.func, impl ? impl->asString() : "", key, k.calls});
  }
  return tasks;
}

}  // namespace tessera::lower
