// `with T.block("name"):` to a BlockRealize: iter vars (`T.axis.spatial/reduce/scan/opaque`,
// `T.axis.remap`), the predicate (`T.where`), access regions (`T.reads`/`T.writes`, inferred when
// omitted), annotations, block allocations and match buffers, `with T.init():`, and the body.
#include "support/diagnostic.h"
#include "tir/script/access_regions.h"
#include "tir/script/builder.h"

namespace tessera::tir::script {

namespace {

std::optional<IterVarType> axisKind(const std::string& name) {
  if (name == "T.axis.spatial" || name == "T.axis.S") return IterVarType::kDataPar;
  if (name == "T.axis.reduce" || name == "T.axis.R") return IterVarType::kCommReduce;
  if (name == "T.axis.scan") return IterVarType::kOrdered;
  if (name == "T.axis.opaque") return IterVarType::kOpaque;
  return std::nullopt;
}

std::string calleeOf(const PyExprPtr& e) {
  return e && e->kind == PyExprKind::kCall ? e->base->dottedName() : "";
}

}  // namespace

bool Builder::blockAxes(const PyStmt& s, BlockNode& block, std::vector<PrimExpr>& bindings,
                        std::vector<bool>& remapped) {
  if (s.kind != PyStmtKind::kAssign) return false;
  std::string callee = calleeOf(s.value);
  if (callee == "T.axis.remap") {
    const PyExpr& call = *s.value;
    if (call.items.size() != 2 || call.items[1]->kind != PyExprKind::kList)
      fail(call.span, "expected T.axis.remap(\"SR\", [i, k])");
    std::string kinds = stringArg(*call.items[0], "a string of S and R");
    const auto& vars = call.items[1]->items;
    if (kinds.size() != vars.size() || kinds.size() != s.targets.size())
      fail(call.span, "T.axis.remap has " + std::to_string(kinds.size()) + " kinds, " +
                          std::to_string(vars.size()) + " loop variables and " +
                          std::to_string(s.targets.size()) + " targets");
    std::vector<IterVar> made;
    for (size_t i = 0; i < kinds.size(); ++i) {
      if (kinds[i] != 'S' && kinds[i] != 'R')
        fail(call.items[0]->span,
             "T.axis.remap kinds are 'S' and 'R', got '" + std::string(1, kinds[i]) + "'");
      Var loop = lookupVar(*vars[i]);
      auto dom = loopDoms_.find(loop.get());
      if (dom == loopDoms_.end())
        fail(vars[i]->span, "'" + vars[i]->text + "' is not the variable of an enclosing loop");
      if (s.targets[i]->kind != PyExprKind::kName) fail(s.targets[i]->span, "expected a name");
      IterVar iv{dom->second, makeVar(s.targets[i]->text, loop->dtype),
                 kinds[i] == 'S' ? IterVarType::kDataPar : IterVarType::kCommReduce, ""};
      made.push_back(iv);
      bindings.push_back(loop);
    }
    for (const IterVar& iv : made) {
      defineVar(iv.var->name, iv.var);
      block.iterVars.push_back(iv);
      remapped.push_back(true);
    }
    return true;
  }
  std::optional<IterVarType> kind = axisKind(callee);
  if (!kind) {
    if (callee.rfind("T.axis.", 0) == 0) fail(s.value->span, "unknown axis kind '" + callee + "'");
    return false;
  }
  const PyExpr& call = *s.value;
  if (s.targets.size() != 1 || s.targets[0]->kind != PyExprKind::kName)
    fail(s.span, callee + " defines one iter var");
  if (call.items.size() != 2 || !call.kwargs.empty())
    fail(call.span, "expected " + callee + "(extent or (begin, end), binding)");
  PrimExpr binding = expr(*call.items[1]);
  Range dom;
  const PyExpr& d = *call.items[0];
  if (d.kind == PyExprKind::kTuple && d.items.size() == 2) {
    PrimExpr begin = expr(*d.items[0]);
    dom = Range{begin, difference(expr(*d.items[1]), begin)};
  } else {
    dom = Range{intImm(0, binding->dtype), expr(d)};
    if (const auto* lit = dom.extent->as<IntImmNode>())
      if (dom.extent->dtype != binding->dtype) dom.extent = intImm(lit->value, binding->dtype);
  }
  if (!binding->dtype.isInteger() || dom.extent->dtype != binding->dtype)
    fail(call.span, "the domain and binding of " + s.targets[0]->text +
                        " must be integers of one type, got " + dom.extent->dtype.name() + " and " +
                        binding->dtype.name());
  IterVar iv{dom, makeVar(s.targets[0]->text, binding->dtype), *kind, ""};
  defineVar(iv.var->name, iv.var);
  block.iterVars.push_back(iv);
  bindings.push_back(binding);
  remapped.push_back(false);
  return true;
}

void Builder::noteExplicitRuns(const BlockNode& block, const std::vector<PrimExpr>& bindings,
                               const std::vector<bool>& remapped) {
  // The printer's remap rule (printer.cc): runs of at least two S/R iter vars each bound to an
  // enclosing loop's variable with that loop's domain.
  auto trivial = [&](size_t i) -> const VarNode* {
    const IterVar& iv = block.iterVars[i];
    if (remapped[i] || !isZero(iv.dom.min)) return nullptr;
    if (iv.type != IterVarType::kDataPar && iv.type != IterVarType::kCommReduce) return nullptr;
    const auto* v = bindings[i]->as<VarNode>();
    auto dom = v ? loopDoms_.find(v) : loopDoms_.end();
    if (dom == loopDoms_.end() || !deepEqual(dom->second.extent, iv.dom.extent)) return nullptr;
    return v;
  };
  size_t i = 0;
  while (i < block.iterVars.size()) {
    size_t j = i;
    while (j < block.iterVars.size() && trivial(j)) ++j;
    if (j - i >= 2)
      for (size_t k = i; k < j; ++k)
        if (trivial(k)->dtype != DataType::int32()) int32ZeroLoops_.insert(trivial(k));
    i = j == i ? i + 1 : j;
  }
}

BufferRegion Builder::region(const PyExpr& e) {
  if (e.kind == PyExprKind::kName) return fullRegion(lookupBuffer(e));
  if (e.kind != PyExprKind::kSubscript) fail(e.span, "expected a buffer region such as A[i, 0:4]");
  Buffer buffer = lookupBuffer(*e.base);
  BufferRegion r{buffer, {}};
  for (const PyExprPtr& item : e.items) {
    if (item->kind == PyExprKind::kSlice) {
      r.region.push_back(sliceRange(*item));
      continue;
    }
    PrimExpr index = expr(*item);
    r.region.push_back(Range{index, intImm(1, index->dtype)});
  }
  if (static_cast<int>(r.region.size()) != buffer->ndim())
    fail(e.span, "region of " + buffer->name + " has " + std::to_string(r.region.size()) +
                     " dimensions, the buffer " + std::to_string(buffer->ndim()));
  return r;
}

std::vector<BufferRegion> Builder::regions(const PyExpr& call) {
  std::vector<BufferRegion> out;
  for (const PyExprPtr& arg : call.items) {
    if (arg->kind == PyExprKind::kList || arg->kind == PyExprKind::kTuple) {
      for (const PyExprPtr& r : arg->items) out.push_back(region(*r));
      continue;
    }
    out.push_back(region(*arg));
  }
  return out;
}

Stmt Builder::block(const PyStmt& s) {
  const PyExpr& call = *s.value;
  if (call.items.size() != 1 || !call.kwargs.empty()) fail(call.span, "expected T.block(\"name\")");
  auto b = std::make_shared<BlockNode>();
  b->name = stringArg(*call.items[0], "a block name string");
  std::vector<PrimExpr> bindings;
  std::vector<bool> remapped;
  PrimExpr predicate = boolImm(true);
  bool haveReads = false, haveWrites = false;
  pushScope();
  // The header: everything before the first statement of the body.
  size_t i = 0;
  for (; i < s.body.size(); ++i) {
    const PyStmt& st = *s.body[i];
    if (blockAxes(st, *b, bindings, remapped)) continue;
    std::string callee = calleeOf(st.value);
    if (st.kind == PyStmtKind::kAssign && st.targets.size() == 1 &&
        st.targets[0]->kind == PyExprKind::kName &&
        (callee == "T.alloc_buffer" || callee == "T.match_buffer")) {
      const std::string& name = st.targets[0]->text;
      if (callee == "T.alloc_buffer") {
        Buffer buffer = bufferFromCall(name, *st.value, 0);
        b->allocBuffers.push_back(buffer);
        defineBuffer(name, buffer);
        continue;
      }
      if (st.value->items.empty()) fail(st.value->span, "T.match_buffer needs a source region");
      BufferRegion source = region(*st.value->items[0]);
      Buffer buffer = bufferFromCall(name, *st.value, 1, /*definesVars=*/true);
      b->matchBuffers.push_back(MatchBufferRegion{buffer, source});
      defineBuffer(name, buffer);
      continue;
    }
    if (st.kind == PyStmtKind::kExpr && callee == "T.where") {
      if (st.value->items.size() != 1) fail(st.span, "T.where takes one condition");
      predicate = expr(*st.value->items[0]);
      if (!predicate->dtype.isBool()) fail(st.span, "T.where needs a boolean condition");
      continue;
    }
    if (st.kind == PyStmtKind::kExpr && (callee == "T.reads" || callee == "T.writes")) {
      bool reads = callee == "T.reads";
      if (reads ? haveReads : haveWrites) fail(st.span, callee + " repeated");
      (reads ? b->reads : b->writes) = regions(*st.value);
      (reads ? haveReads : haveWrites) = true;
      continue;
    }
    if (st.kind == PyStmtKind::kExpr && callee == "T.block_attr") {
      if (st.value->items.size() != 1) fail(st.span, "T.block_attr takes one dictionary");
      b->annotations = dict(*st.value->items[0]);
      continue;
    }
    if (st.kind == PyStmtKind::kWith && callee == "T.init") {
      if (b->init) fail(st.span, "T.init() repeated");
      pushScope();
      b->init = body(st.body);
      popScope();
      continue;
    }
    break;
  }
  noteExplicitRuns(*b, bindings, remapped);
  b->body = body(s.body, i);
  popScope();
  if (!haveReads || !haveWrites) {
    AccessRegions inferred = inferAccessRegions(*b);
    if (!haveReads) b->reads = std::move(inferred.reads);
    if (!haveWrites) b->writes = std::move(inferred.writes);
  }
  return blockRealize(std::move(bindings), predicate, b);
}

}  // namespace tessera::tir::script
