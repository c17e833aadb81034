// create_prim_func (spec tir_relax.md §1.7): post-order over the TE graph, one buffer per tensor,
// loops spatial-then-reduce, one block per output (one per op for reductions), reads/writes
// from the block body, layout_free_placeholders turned into the layout_free_buffers attribute.
#include "te/create_prim_func.h"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "support/check.h"
#include "support/diagnostic.h"
#include "tir/functor.h"

namespace tessera::te {
namespace {

using tir::Stmt;

// Producers before consumers, each op once, starting from the args' ops in order. Iterative so a
// long chain of computes does not grow the C++ stack.
std::vector<Operation> postOrder(const std::vector<Tensor>& args) {
  std::vector<Operation> order;
  std::unordered_set<const OperationNode*> done;
  for (const Tensor& root : args) {
    std::vector<std::pair<Operation, size_t>> stack{{root.op(), 0}};
    while (!stack.empty()) {
      auto& [op, next] = stack.back();
      if (done.count(op.get())) {
        stack.pop_back();
        continue;
      }
      if (next < op->inputs.size()) {
        Operation input = op->inputs[next++].op();
        if (!done.count(input.get())) stack.emplace_back(input, 0);
        continue;
      }
      done.insert(op.get());
      order.push_back(op);
      stack.pop_back();
    }
  }
  return order;
}

// Rewrites a TE expression into block terms: axis vars become block vars, tensor buffers become
// the function's buffers, and (with an index dtype override) every index is widened.
class BlockRewriter : public tir::IRMutator {
 public:
  BlockRewriter(const tir::VarMap& vars,
                const std::unordered_map<const tir::BufferNode*, Buffer>& buffers,
                std::optional<DataType> indexType)
      : vars_(vars), buffers_(buffers), indexType_(indexType) {}

  PrimExpr visitExpr(const PrimExpr& e) override {
    if (!e) return e;
    if (inIndex_ && indexType_ && e->dtype.isInt() && e->dtype != *indexType_) {
      if (const auto* imm = e->as<tir::IntImmNode>()) return tir::intImm(imm->value, *indexType_);
      if (const auto* b = e->as<tir::BinaryNode>(); b && !tir::isComparison(b->op))
        return tir::binary(b->op, visitExpr(b->a), visitExpr(b->b));
      if (e->kind != tir::ExprKind::kVar) return tir::cast(*indexType_, IRMutator::visitExpr(e));
    }
    return IRMutator::visitExpr(e);
  }
  Buffer visitBuffer(const Buffer& b) override {
    auto it = buffers_.find(b.get());
    return it == buffers_.end() ? b : it->second;
  }

 protected:
  PrimExpr visitVar(const tir::VarNode* op, const PrimExpr& self) override {
    auto it = vars_.find(op);
    if (it == vars_.end()) return self;
    // A widened index var used as a value (argmax's position) keeps the value's dtype.
    if (!inIndex_ && it->second->dtype != op->dtype) return tir::cast(op->dtype, it->second);
    return it->second;
  }
  PrimExpr visitBufferLoad(const tir::BufferLoadNode* op, const PrimExpr&) override {
    const bool outer = inIndex_;
    inIndex_ = true;
    std::vector<PrimExpr> indices;
    for (const PrimExpr& i : op->indices) indices.push_back(visitExpr(i));
    inIndex_ = false;
    PrimExpr load = tir::bufferLoad(visitBuffer(op->buffer), std::move(indices));
    inIndex_ = outer;
    return load;
  }

 private:
  const tir::VarMap& vars_;
  const std::unordered_map<const tir::BufferNode*, Buffer>& buffers_;
  std::optional<DataType> indexType_;
  bool inIndex_ = false;
};

// One region per buffer in first-access order: a point when every access uses the same indices,
// otherwise a per-dimension hull that keeps equal dimensions as points and covers the rest.
class RegionCollector {
 public:
  void add(const Buffer& b, const std::vector<PrimExpr>& indices) {
    for (auto& [buffer, accesses] : entries_) {
      if (buffer != b) continue;
      for (const auto& seen : accesses)
        if (sameIndices(seen, indices)) return;
      accesses.push_back(indices);
      return;
    }
    entries_.push_back({b, {indices}});
  }
  std::vector<tir::BufferRegion> regions(
      const std::unordered_set<const tir::BufferNode*>& skip) const {
    std::vector<tir::BufferRegion> out;
    for (const auto& [buffer, accesses] : entries_) {
      if (skip.count(buffer.get())) continue;
      tir::BufferRegion region{buffer, {}};
      for (size_t d = 0; d < accesses[0].size(); ++d) {
        bool same = true;
        for (const auto& a : accesses) same = same && tir::deepEqual(a[d], accesses[0][d]);
        const PrimExpr& first = accesses[0][d];
        if (same)
          region.region.push_back(tir::Range{first, tir::intImm(1, first->dtype)});
        else
          region.region.push_back(
              tir::Range{tir::intImm(0, buffer->shape[d]->dtype), buffer->shape[d]});
      }
      out.push_back(std::move(region));
    }
    return out;
  }

 private:
  static bool sameIndices(const std::vector<PrimExpr>& a, const std::vector<PrimExpr>& b) {
    for (size_t k = 0; k < a.size(); ++k)
      if (!tir::deepEqual(a[k], b[k])) return false;
    return true;
  }
  std::vector<std::pair<Buffer, std::vector<std::vector<PrimExpr>>>> entries_;
};

struct Builder {
  std::optional<DataType> indexType;
  std::unordered_map<const tir::BufferNode*, Buffer> buffers;  // tensor buffer -> function buffer
  std::map<std::string, int> blockNames;
  tir::VarMap shapeVars;  // with an override: int32 shape vars -> widened ones

  std::string uniqueName(const std::string& name) {
    int& count = blockNames[name];
    const std::string unique = count == 0 ? name : name + "_" + std::to_string(count);
    ++count;
    return unique;
  }

  DataType indexDtype(const PrimExpr& like) const { return indexType ? *indexType : like->dtype; }

  // A shape expression widened to the index dtype (symbolic vars are replaced consistently).
  PrimExpr widen(const PrimExpr& e) {
    if (!indexType || e->dtype == *indexType) return e;
    if (const auto* imm = e->as<tir::IntImmNode>()) return tir::intImm(imm->value, *indexType);
    if (const auto* v = e->as<tir::VarNode>()) {
      auto it = shapeVars.find(v);
      if (it != shapeVars.end()) return it->second;
      PrimExpr w = tir::makeVar(v->name, *indexType);
      shapeVars[v] = w;
      return w;
    }
    std::unordered_map<const tir::BufferNode*, Buffer> none;
    tir::postOrderVisitExpr(e, [&](const PrimExpr& n) {
      if (n->kind == tir::ExprKind::kVar) widen(n);
    });
    BlockRewriter rw(shapeVars, none, indexType);
    return tir::cast(*indexType, rw.visitExpr(e));
  }

  Buffer bufferFor(const Buffer& b) {
    auto it = buffers.find(b.get());
    if (it != buffers.end()) return it->second;
    Buffer out = b;
    if (indexType) {
      std::vector<PrimExpr> shape;
      for (const PrimExpr& d : b->shape) shape.push_back(widen(d));
      out = tir::makeBuffer(b->name, shape, b->dtype, b->scope);
    }
    buffers[b.get()] = out;
    return out;
  }

  Stmt lowerCompute(const OperationNode& op);
};

// The block statement(s) of a reduction: init stores, then combine with the old value. With
// several outputs the combined values are let-bound first so each combination sees old values.
void reductionBody(const tir::ReduceNode& r, BlockRewriter& rw, const std::vector<Buffer>& outs,
                   const std::vector<PrimExpr>& idx, Stmt* init, Stmt* body) {
  const size_t k = outs.size();
  std::vector<PrimExpr> sources, olds;
  for (size_t i = 0; i < k; ++i) {
    sources.push_back(rw.visitExpr(r.source[i]));
    olds.push_back(tir::bufferLoad(outs[i], idx));
  }
  tir::VarMap combineMap;
  for (size_t i = 0; i < k; ++i) {
    combineMap[r.combiner->lhs[i].get()] = olds[i];
    combineMap[r.combiner->rhs[i].get()] = sources[i];
  }
  std::vector<Stmt> inits, stores;
  std::vector<PrimExpr> combined;
  for (size_t i = 0; i < k; ++i) {
    PrimExpr start = r.init.empty() ? r.combiner->identity[i] : rw.visitExpr(r.init[i]);
    inits.push_back(tir::bufferStore(outs[i], start, idx));
    combined.push_back(tir::substitute(r.combiner->result[i], combineMap));
  }
  *init = tir::seq(inits);
  if (k == 1) {
    *body = tir::bufferStore(outs[0], combined[0], idx);
  } else {
    std::vector<Var> temps;
    for (size_t i = 0; i < k; ++i) {
      std::string name = "v_" + outs[i]->name;
      std::replace(name.begin(), name.end(), '.', '_');
      temps.push_back(tir::makeVar(name, combined[i]->dtype));
      stores.push_back(tir::bufferStore(outs[i], temps[i], idx));
    }
    Stmt s = tir::seq(stores);
    for (size_t i = k; i-- > 0;) s = tir::letStmt(temps[i], combined[i], s);
    *body = s;
  }
  if (!tir::isConstInt(r.condition, 1)) *body = tir::ifThenElse(rw.visitExpr(r.condition), *body);
}

Stmt Builder::lowerCompute(const OperationNode& op) {
  tir::VarMap vars;
  std::vector<IterVar> blockVars;
  std::vector<Var> loopVars;
  std::vector<Range> loopDoms;
  std::vector<PrimExpr> idx;
  auto addAxis = [&](const IterVar& axis, tir::IterVarType type) {
    Range dom{widen(axis.dom.min), widen(axis.dom.extent)};
    const DataType t = indexDtype(axis.var);
    Var loop = tir::makeVar(axis.var->name, t);
    Var bv = tir::makeVar("v_" + axis.var->name, t);
    vars[axis.var.get()] = bv;
    blockVars.push_back(IterVar{dom, bv, type});
    loopVars.push_back(loop);
    loopDoms.push_back(dom);
    if (type == tir::IterVarType::kDataPar) idx.push_back(bv);
  };
  for (const IterVar& a : op.axis) addAxis(a, tir::IterVarType::kDataPar);
  for (const IterVar& a : op.reduceAxis) addAxis(a, tir::IterVarType::kCommReduce);
  for (const auto& [from, to] : shapeVars) vars.emplace(from, to);
  std::vector<PrimExpr> bindings(loopVars.begin(), loopVars.end());
  if (blockVars.empty()) {
    // A 0-d output: one dummy spatial iter var bound to 0, and no loop.
    const DataType t = indexType ? *indexType : DataType::int32();
    blockVars.push_back(IterVar{Range{tir::intImm(0, t), tir::intImm(1, t)}, tir::makeVar("vi", t),
                                tir::IterVarType::kDataPar});
    bindings.push_back(tir::intImm(0, t));
  }
  std::vector<Buffer> outs;
  for (const Buffer& b : op.outputs) outs.push_back(bufferFor(b));
  BlockRewriter rw(vars, buffers, indexType);

  auto makeBlock = [&](std::string name, Stmt body, Stmt init) {
    auto block = std::make_shared<tir::BlockNode>();
    block->iterVars = blockVars;
    block->name = uniqueName(name);
    block->init = init;
    RegionCollector reads, writes;
    tir::postOrderVisitExprs(body, [&](const PrimExpr& e) {
      if (const auto* load = e->as<tir::BufferLoadNode>()) reads.add(load->buffer, load->indices);
    });
    tir::preOrderVisit(body, [&](const Stmt& s) {
      if (const auto* store = s->as<tir::BufferStoreNode>())
        writes.add(store->buffer, store->indices);
      return true;
    });
    std::unordered_set<const tir::BufferNode*> written;
    if (init)
      for (const Buffer& b : outs) written.insert(b.get());
    block->reads = reads.regions(written);
    block->writes = writes.regions({});
    // String-keyed hints become annotations, less the keys TVM's normaliser drops (tensors in
    // attrs, i.e. layout_free_placeholders, become a function attribute instead).
    block->annotations = op.attrs;
    for (const char* key : {"const_matrix", "auto_scheduler_simplify_const_tensor_indices",
                            "workload", "layout_free_placeholders"})
      block->annotations.erase(key);
    block->body = std::move(body);
    return tir::blockRealize(bindings, tir::boolImm(true), block);
  };

  std::vector<Stmt> blocks;
  if (const auto* r = op.body[0]->as<tir::ReduceNode>()) {
    Stmt init, body;
    reductionBody(*r, rw, outs, idx, &init, &body);
    blocks.push_back(makeBlock(op.name, body, init));
  } else {
    for (size_t i = 0; i < outs.size(); ++i) {
      Stmt store = tir::bufferStore(outs[i], rw.visitExpr(op.body[i]), idx);
      blocks.push_back(makeBlock(op.outputs[i]->name, store, nullptr));
    }
  }
  Stmt s = tir::seq(blocks);
  for (size_t d = loopVars.size(); d-- > 0;)
    s = tir::forLoop(loopVars[d], loopDoms[d].min, loopDoms[d].extent, tir::ForKind::kSerial, s);
  return s;
}

}  // namespace

tir::PrimFunc createPrimFunc(const std::vector<Tensor>& args,
                             std::optional<DataType> indexDtypeOverride) {
  if (args.empty()) throwDiagnostic("te_args", "create_prim_func: the argument list is empty");
  for (const Tensor& t : args)
    if (!t.defined()) throwDiagnostic("te_args", "create_prim_func: an argument is undefined");
  const std::vector<Operation> order = postOrder(args);
  std::unordered_set<const tir::BufferNode*> argSet;
  for (const Tensor& t : args) argSet.insert(t.buffer().get());
  for (const Operation& op : order)
    if (op->kind == OpKind::kPlaceholder && !argSet.count(op->outputs[0].get()))
      throwDiagnostic("te_args", "tensor " + op->outputs[0]->name +
                                     " is an input of the computation but is not in the "
                                     "argument list");

  Builder builder;
  builder.indexType = indexDtypeOverride;
  std::vector<Buffer> params;
  for (const Tensor& t : args) params.push_back(builder.bufferFor(t.buffer()));
  std::vector<Buffer> allocs;
  std::vector<Stmt> stages;
  for (const Operation& op : order) {
    if (op->kind != OpKind::kCompute) continue;
    for (const Buffer& b : op->outputs)
      if (!argSet.count(b.get())) allocs.push_back(builder.bufferFor(b));
    stages.push_back(builder.lowerCompute(*op));
  }
  auto root = std::make_shared<tir::BlockNode>();
  root->name = "root";
  root->allocBuffers = allocs;
  root->body = tir::seq(stages);
  Stmt body = tir::blockRealize({}, tir::boolImm(true), root);
  auto func = std::make_shared<tir::PrimFuncNode>(*tir::makePrimFunc("main", params, body));

  // layout_free_placeholders -> indices of the parameters they name (sorted, each once).
  std::vector<int64_t> layoutFree;
  for (const Operation& op : order)
    for (const Tensor& t : op->layoutFreePlaceholders)
      for (size_t p = 0; p < args.size(); ++p)
        if (args[p] == t) layoutFree.push_back(static_cast<int64_t>(p));
  std::sort(layoutFree.begin(), layoutFree.end());
  layoutFree.erase(std::unique(layoutFree.begin(), layoutFree.end()), layoutFree.end());
  if (!layoutFree.empty()) {
    std::vector<AttrValue> items;
    for (int64_t p : layoutFree) items.push_back(AttrValue::integer(p));
    DictAttrs attrs;
    attrs.set("layout_free_buffers", AttrValue::array(items));
    for (const auto& [key, value] : func->attrs.entries()) attrs.set(key, value);
    func->attrs = attrs;
  }
  return func;
}

}  // namespace tessera::te
