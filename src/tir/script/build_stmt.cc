// TVMScript statements to TensorIR statements: stores, loops (`range`, `T.grid`, `T.serial` ...),
// if/else, lets, asserts, attribute scopes, `T.evaluate`, and the declarations that scope the
// statements after them (`T.decl_buffer`, `T.allocate`, buffer views, free variables). The
// statements of a suite are folded from the last one backwards, so a long flat body costs no
// recursion.
#include "support/diagnostic.h"
#include "tir/script/builder.h"

namespace tessera::tir::script {

namespace {

const PyExpr* callNamed(const PyExprPtr& e, const std::string& name) {
  if (!e || e->kind != PyExprKind::kCall) return nullptr;
  return e->base->dottedName() == name ? e.get() : nullptr;
}

std::optional<ForKind> loopKind(const std::string& name) {
  if (name == "range" || name == "T.serial") return ForKind::kSerial;
  if (name == "T.parallel") return ForKind::kParallel;
  if (name == "T.vectorized") return ForKind::kVectorized;
  if (name == "T.unroll") return ForKind::kUnrolled;
  if (name == "T.thread_binding") return ForKind::kThreadBinding;
  return std::nullopt;
}

bool isLiteralNumber(const PrimExpr& e) {
  return e->as<IntImmNode>() || e->as<FloatImmNode>();
}

// Header statements of a block or function used where they mean nothing.
bool isMisplacedHeader(const std::string& name) {
  return name == "T.reads" || name == "T.writes" || name == "T.where" || name == "T.block_attr" ||
         name == "T.func_attr" || name == "T.init";
}

}  // namespace

Builder::Builder() {
  pushScope();
}

void Builder::fail(const Span& span, const std::string& message) {
  throwDiagnostic("tvmscript", message, span);
}

const Builder::Symbol* Builder::find(const std::string& name) const {
  for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
    auto found = it->find(name);
    if (found != it->end()) return &found->second;
  }
  return nullptr;
}

Var Builder::bindVar(const std::string& name, DataType dtype) {
  auto it = pendingData_.find(name);
  if (it == pendingData_.end() || it->second.first->dtype != dtype) return makeVar(name, dtype);
  Var v = it->second.first;
  pendingData_.erase(it);
  return v;
}

void Builder::checkNoPendingData() const {
  for (const auto& [name, pending] : pendingData_)
    fail(pending.second, "undefined name '" + name + "' (the data of a buffer view)");
}

Var Builder::lookupVar(const PyExpr& e) const {
  if (e.kind == PyExprKind::kAttribute && e.base && e.base->kind == PyExprKind::kName) {
    // `A.data` is the buffer's data handle.
    if (e.text != "data") fail(e.span, "unknown attribute '" + e.dottedName() + "'");
    return lookupBuffer(*e.base)->data;
  }
  if (e.kind != PyExprKind::kName) fail(e.span, "expected a variable");
  const Symbol* s = find(e.text);
  if (!s) fail(e.span, "undefined name '" + e.text + "'");
  if (!s->var)
    fail(e.span, "'" + e.text + "' is a buffer, not a scalar; index it (" + e.text + "[...])");
  return s->var;
}

Buffer Builder::lookupBuffer(const PyExpr& e) const {
  if (e.kind != PyExprKind::kName) fail(e.span, "expected a buffer name");
  const Symbol* s = find(e.text);
  if (!s) fail(e.span, "undefined buffer '" + e.text + "'");
  if (!s->buffer) fail(e.span, "'" + e.text + "' is not a buffer");
  return s->buffer;
}

bool Builder::declareVars(const PyStmt& stmt) {
  if (stmt.kind != PyStmtKind::kAssign) return false;
  std::vector<PyExprPtr> values;
  if (stmt.value->kind == PyExprKind::kTuple && !stmt.value->parenthesized)
    values = stmt.value->items;
  else
    values.push_back(stmt.value);
  for (const PyExprPtr& t : stmt.targets)
    if (t->kind != PyExprKind::kName) return false;
  for (const PyExprPtr& v : values)
    if (v->kind != PyExprKind::kCall || !v->items.empty() || !v->kwargs.empty() ||
        !dtypeOfCallee(*v->base))
      return false;
  if (values.size() != stmt.targets.size())
    fail(stmt.span, "expected " + std::to_string(stmt.targets.size()) + " values, got " +
                        std::to_string(values.size()));
  for (size_t i = 0; i < values.size(); ++i) {
    defineVar(stmt.targets[i]->text,
              bindVar(stmt.targets[i]->text, *dtypeOfCallee(*values[i]->base)));
  }
  return true;
}

std::vector<PrimExpr> Builder::shape(const PyExpr& e) {
  std::vector<PrimExpr> out;
  if (e.kind != PyExprKind::kTuple && e.kind != PyExprKind::kList) {
    out.push_back(expr(e));
  } else {
    for (const PyExprPtr& d : e.items) out.push_back(expr(*d));
  }
  for (size_t i = 0; i < out.size(); ++i)
    if (!out[i]->dtype.isInteger() || out[i]->dtype.lanes() != 1)
      fail(e.span, "a shape needs integer dimensions, got " + out[i]->dtype.name());
  return out;
}

AttrValue Builder::attrValue(const PyExpr& e) {
  switch (e.kind) {
    case PyExprKind::kNone:
      return AttrValue();
    case PyExprKind::kBool:
      return AttrValue::boolean(e.intValue != 0);
    case PyExprKind::kString:
      return AttrValue::string(e.text);
    case PyExprKind::kList:
    case PyExprKind::kTuple: {
      std::vector<AttrValue> items;
      for (const PyExprPtr& i : e.items) items.push_back(attrValue(*i));
      return AttrValue::array(std::move(items));
    }
    default:
      break;
  }
  PrimExpr v = expr(e);
  if (const auto* i = v->as<IntImmNode>()) {
    if (v->dtype.isBool()) return AttrValue::boolean(i->value != 0);
    return AttrValue::integer(i->value, v->dtype);
  }
  if (const auto* f = v->as<FloatImmNode>()) return AttrValue::floating(f->value, v->dtype);
  fail(e.span, "an attribute value must be a constant, a string, a list or None");
}

DictAttrs Builder::dict(const PyExpr& e) {
  if (e.kind != PyExprKind::kDict) fail(e.span, "expected a dictionary {\"key\": value}");
  DictAttrs out;
  for (size_t i = 0; i + 1 < e.items.size(); i += 2) {
    std::string key = stringArg(*e.items[i], "a string key");
    if (out.has(key)) fail(e.items[i]->span, "key \"" + key + "\" repeated");
    out.set(key, attrValue(*e.items[i + 1]));
  }
  return out;
}

Buffer Builder::bufferFromCall(const std::string& name, const PyExpr& call, size_t firstArg,
                               bool definesVars) {
  // An undefined name as a whole field of a match_buffer is a variable it defines.
  auto defineUnknown = [&](const PyExpr& e) {
    if (!definesVars) return;
    std::vector<PyExprPtr> items = e.kind == PyExprKind::kTuple || e.kind == PyExprKind::kList
                                       ? e.items
                                       : std::vector<PyExprPtr>{};
    if (items.empty() && e.kind == PyExprKind::kName) items.push_back(std::make_shared<PyExpr>(e));
    for (const PyExprPtr& item : items)
      if (item->kind == PyExprKind::kName && !find(item->text))
        defineVar(item->text, bindVar(item->text, DataType::int32()));
  };
  static const char* const kKeywords[] = {"shape",       "dtype",          "data",  "strides",
                                          "elem_offset", "scope",          "align", "offset_factor",
                                          "buffer_type", "axis_separators"};
  for (const auto& [key, value] : call.kwargs) {
    bool known = false;
    for (const char* k : kKeywords) known = known || key == k;
    if (!known) fail(value->span, "unknown buffer argument '" + key + "'");
  }
  if (call.items.size() > firstArg + 2)
    fail(call.span, "too many positional arguments; the buffer's other fields are keywords");
  PyExprPtr shapeArg = call.items.size() > firstArg ? call.items[firstArg] : call.kwarg("shape");
  if (!shapeArg) fail(call.span, "a buffer needs a shape");
  PyExprPtr dtypeArg =
      call.items.size() > firstArg + 1 ? call.items[firstArg + 1] : call.kwarg("dtype");
  defineUnknown(*shapeArg);
  if (PyExprPtr strides = call.kwarg("strides")) defineUnknown(*strides);
  if (PyExprPtr offset = call.kwarg("elem_offset")) defineUnknown(*offset);
  auto b = std::make_shared<BufferNode>();
  b->name = name;
  b->shape = shape(*shapeArg);
  b->dtype = DataType::float32();
  if (dtypeArg) {
    std::optional<DataType> t = DataType::parse(stringArg(*dtypeArg, "a dtype string"));
    if (!t || t->isVoid()) fail(dtypeArg->span, "unknown dtype \"" + dtypeArg->text + "\"");
    b->dtype = *t;
  }
  if (PyExprPtr data = call.kwarg("data")) {
    // A name not defined yet is a handle that a later T.Let or allocation binds (bindVar).
    if (data->kind == PyExprKind::kName && !find(data->text)) {
      auto [it, added] =
          pendingData_.try_emplace(data->text, makeVar(data->text, DataType::handle()), data->span);
      b->data = it->second.first;
    } else {
      b->data = lookupVar(*data);
    }
    if (!b->data->dtype.isHandle()) fail(data->span, "data must be a handle");
  } else {
    b->data = makeVar(name, DataType::handle());
  }
  if (PyExprPtr strides = call.kwarg("strides")) b->strides = shape(*strides);
  if (PyExprPtr offset = call.kwarg("elem_offset")) b->elemOffset = expr(*offset);
  if (PyExprPtr scope = call.kwarg("scope")) b->scope = stringArg(*scope, "a scope string");
  auto intKeyword = [&](const char* key, int& field) {
    PyExprPtr v = call.kwarg(key);
    if (!v) return;
    if (v->kind != PyExprKind::kInt || v->intValue < 0 || v->intValue > (1 << 20))
      fail(v->span, std::string(key) + " must be a small non-negative integer");
    field = static_cast<int>(v->intValue);
  };
  intKeyword("align", b->dataAlignment);
  intKeyword("offset_factor", b->offsetFactor);
  return b;
}

Stmt Builder::body(const std::vector<PyStmtPtr>& stmts, size_t from) {
  // Each statement yields a statement, or a wrapper that takes the statements after it as its
  // body (a let, an assert, a declaration); folded from the back below.
  struct Item {
    Stmt stmt;
    std::function<Stmt(Stmt)> wrap;
  };
  std::vector<Item> items;
  for (size_t i = from; i < stmts.size(); ++i) {
    std::function<Stmt(Stmt)> scoping;
    Stmt s = statement(*stmts[i], &scoping);
    if (scoping)
      items.push_back(Item{nullptr, std::move(scoping)});
    else if (s)
      items.push_back(Item{std::move(s), nullptr});
  }
  std::vector<Stmt> tail;
  auto sequence = [&] {
    if (tail.empty()) return evaluate(intImm(0));
    std::vector<Stmt> ordered(tail.rbegin(), tail.rend());
    return seq(std::move(ordered));
  };
  for (auto it = items.rbegin(); it != items.rend(); ++it) {
    if (!it->wrap) {
      tail.push_back(it->stmt);
      continue;
    }
    Stmt wrapped = it->wrap(sequence());
    tail.clear();
    tail.push_back(std::move(wrapped));
  }
  return sequence();
}

Stmt Builder::statement(const PyStmt& s, std::function<Stmt(Stmt)>* scoping) {
  switch (s.kind) {
    case PyStmtKind::kPass:
      return nullptr;
    case PyStmtKind::kExpr: {
      if (s.value->kind == PyExprKind::kString) return nullptr;  // a docstring
      if (const PyExpr* ev = callNamed(s.value, "T.evaluate")) {
        if (ev->items.size() != 1) fail(ev->span, "T.evaluate takes one expression");
        return evaluate(expr(*ev->items[0]));
      }
      if (s.value->kind == PyExprKind::kCall) {
        std::string name = s.value->base->dottedName();
        if (isMisplacedHeader(name) || name.rfind("T.axis", 0) == 0)
          fail(s.span, name + " is only allowed at the start of a block or function");
        return evaluate(expr(*s.value));
      }
      fail(s.span, "expected a statement; an expression statement must be a call");
    }
    case PyStmtKind::kAssign:
    case PyStmtKind::kAnnAssign:
      return assignment(s, scoping);
    case PyStmtKind::kFor:
      return forLoop(s);
    case PyStmtKind::kWith:
      return withStmt(s);
    case PyStmtKind::kIf: {
      PrimExpr cond = expr(*s.value);
      if (!cond->dtype.isBool())
        fail(s.value->span, "if condition must be boolean, got " + cond->dtype.name());
      pushScope();
      Stmt thenCase = body(s.body);
      popScope();
      Stmt elseCase;
      if (!s.orelse.empty()) {
        pushScope();
        elseCase = body(s.orelse);
        popScope();
      }
      return ifThenElse(cond, thenCase, elseCase);
    }
    case PyStmtKind::kAssert: {
      PrimExpr cond = expr(*s.value);
      std::string message = s.message ? stringArg(*s.message, "an assert message string") : "";
      *scoping = [cond, message](Stmt rest) { return assertStmt(cond, message, rest); };
      return nullptr;
    }
    case PyStmtKind::kReturn:
      fail(s.span, "'return' is not supported in a PrimFunc");
    case PyStmtKind::kFunctionDef:
    case PyStmtKind::kClassDef:
      fail(s.span, "nested definitions are not supported in a PrimFunc");
  }
  return nullptr;
}

Stmt Builder::assignment(const PyStmt& s, std::function<Stmt(Stmt)>* scoping) {
  if (declareVars(s)) return nullptr;
  if (s.targets.size() != 1) fail(s.span, "expected one target");
  const PyExpr& target = *s.targets[0];
  if (target.kind == PyExprKind::kSubscript) {
    if (s.kind == PyStmtKind::kAnnAssign) fail(s.span, "a buffer store takes no annotation");
    Buffer buffer = lookupBuffer(*target.base);
    std::vector<PrimExpr> idx = indices(target, buffer);
    PrimExpr value = expr(*s.value);
    if (isLiteralNumber(value) && value->dtype != buffer->dtype.withLanes(value->dtype.lanes()))
      value = makeConst(buffer->dtype, value->as<IntImmNode>()
                                           ? static_cast<double>(value->as<IntImmNode>()->value)
                                           : value->as<FloatImmNode>()->value);
    return bufferStore(buffer, value, std::move(idx));
  }
  if (target.kind != PyExprKind::kName) fail(target.span, "expected a name or a buffer element");
  const std::string& name = target.text;
  if (!s.value) fail(s.span, "a declaration needs a value");
  const PyExpr& value = *s.value;
  std::string callee = value.kind == PyExprKind::kCall ? value.base->dottedName() : "";
  if (callee == "T.Buffer") {
    defineBuffer(name, bufferFromCall(name, value, 0));
    return nullptr;
  }
  if (callee == "T.alloc_buffer" || callee == "T.match_buffer")
    fail(s.span, callee + " must be at the start of a block or function");
  if (callee == "T.decl_buffer" || callee == "T.allocate") {
    *scoping = declaration(name, value);
    return nullptr;
  }
  // `x: T.int32 = value` (or `x = value`): a let over the statements after it.
  PrimExpr v = expr(value);
  DataType dtype = v->dtype;
  if (s.annotation) {
    std::optional<DataType> t =
        s.annotation->kind == PyExprKind::kAttribute ? dtypeOfCallee(*s.annotation) : std::nullopt;
    if (!t) fail(s.annotation->span, "expected a type annotation such as T.int32");
    if (isLiteralNumber(v) && *t != v->dtype)
      v = makeConst(*t, v->as<IntImmNode>() ? static_cast<double>(v->as<IntImmNode>()->value)
                                            : v->as<FloatImmNode>()->value);
    if (v->dtype != *t)
      fail(s.value->span, "value of type " + v->dtype.name() + " assigned to a " + t->name());
    dtype = *t;
  }
  Var var = bindVar(name, dtype);
  defineVar(name, var);
  *scoping = [var, v](Stmt rest) { return letStmt(var, v, rest); };
  return nullptr;
}

std::function<Stmt(Stmt)> Builder::declaration(const std::string& name, const PyExpr& value) {
  if (value.base->dottedName() == "T.decl_buffer") {
    bool owns = !value.kwarg("data");
    Buffer b = bufferFromCall(name, value, 0);
    defineBuffer(name, b);
    return [b, owns](Stmt rest) {
      Stmt decl = declBuffer(b, rest);
      // Without data= the buffer owns its memory: the printer's sugar for Allocate + DeclBuffer.
      if (!owns) return decl;
      return allocate(b->data, b->dtype, b->shape, b->scope, decl);
    };
  }
  if (value.items.size() < 2 || value.items.size() > 3)
    fail(value.span, "expected T.allocate([extents], \"dtype\", \"scope\")");
  std::vector<PrimExpr> extents = shape(*value.items[0]);
  std::optional<DataType> t = DataType::parse(stringArg(*value.items[1], "a dtype string"));
  if (!t || t->isVoid()) fail(value.items[1]->span, "unknown dtype");
  std::string scope =
      value.items.size() == 3 ? stringArg(*value.items[2], "a scope string") : "global";
  Var v = bindVar(name, DataType::handle());
  defineVar(name, v);
  DataType dtype = *t;
  return [v, dtype, extents, scope](Stmt rest) { return allocate(v, dtype, extents, scope, rest); };
}

Stmt Builder::scopedWith(const PyStmt& s, const std::string& callee) {
  const PyExpr& call = *s.value;
  std::string name;
  if (!s.targets.empty()) {
    if (s.targets.size() != 1 || s.targets[0]->kind != PyExprKind::kName)
      fail(s.span, "expected one name after 'as'");
    name = s.targets[0]->text;
  }
  bool needsName = callee != "T.Assert";
  if (needsName == name.empty())
    fail(s.span, needsName ? "expected 'with " + callee + "(...) as name:'"
                           : "'with T.Assert(...)' takes no 'as'");
  pushScope();
  std::function<Stmt(Stmt)> wrap;
  if (callee == "T.LetStmt") {
    if (call.items.size() != 1) fail(call.span, "expected T.LetStmt(value)");
    PrimExpr value = expr(*call.items[0]);
    Var var = bindVar(name, value->dtype);
    defineVar(name, var);
    wrap = [var, value](Stmt rest) { return letStmt(var, value, rest); };
  } else if (callee == "T.Assert") {
    if (call.items.size() != 2) fail(call.span, "expected T.Assert(condition, \"message\")");
    PrimExpr cond = expr(*call.items[0]);
    std::string message = stringArg(*call.items[1], "an assert message string");
    wrap = [cond, message](Stmt rest) { return assertStmt(cond, message, rest); };
  } else {
    wrap = declaration(name, call);
  }
  Stmt inner = wrap(body(s.body));
  popScope();
  return inner;
}

Stmt Builder::forLoop(const PyStmt& s) {
  const PyExpr& iter = *s.value;
  if (iter.kind != PyExprKind::kCall)
    fail(iter.span, "expected range(...), T.grid(...) or a loop kind");
  std::string kindName = iter.base->dottedName();
  struct Loop {
    Var var;
    PrimExpr min, extent;
  };
  std::vector<Loop> loops;
  auto loopVar = [&](size_t i, DataType dtype) {
    const PyExpr& t = *s.targets[i];
    if (t.kind != PyExprKind::kName) fail(t.span, "a loop variable must be a name");
    return makeVar(t.text, dtype);
  };
  ForKind kind = ForKind::kSerial;
  std::string thread;
  DictAttrs annotations;
  if (kindName == "T.grid") {
    if (iter.items.size() != s.targets.size() || iter.items.empty())
      fail(iter.span, "T.grid has " + std::to_string(iter.items.size()) + " extents for " +
                          std::to_string(s.targets.size()) + " loop variables");
    for (size_t i = 0; i < iter.items.size(); ++i) {
      PrimExpr extent = expr(*iter.items[i]);
      loops.push_back(Loop{loopVar(i, extent->dtype), intImm(0, extent->dtype), extent});
      // Later extents may not use earlier loop variables, so define them after the header.
    }
  } else {
    std::optional<ForKind> k = loopKind(kindName);
    if (!k) fail(iter.span, "unknown loop kind '" + kindName + "'");
    kind = *k;
    if (s.targets.size() != 1) fail(s.span, "this loop takes one variable");
    if (iter.items.empty() || iter.items.size() > 2)
      fail(iter.span, kindName + " takes an extent or a begin and an end");
    PrimExpr begin = iter.items.size() == 2 ? expr(*iter.items[0]) : nullptr;
    PrimExpr end = expr(*iter.items.back());
    if (begin && begin->dtype != end->dtype) {
      if (begin->as<IntImmNode>()) begin = intImm(begin->as<IntImmNode>()->value, end->dtype);
      if (end->as<IntImmNode>()) end = intImm(end->as<IntImmNode>()->value, begin->dtype);
    }
    PrimExpr min = begin ? begin : intImm(0, end->dtype);
    PrimExpr extent = begin ? difference(end, begin) : end;
    if (!extent->dtype.isInteger()) fail(iter.span, "loop bounds must be integers");
    loops.push_back(Loop{loopVar(0, extent->dtype), min, extent});
    for (const auto& [key, value] : iter.kwargs) {
      if (key == "thread" && kind == ForKind::kThreadBinding)
        thread = stringArg(*value, "a thread tag string");
      else if (key == "annotations" && kindName != "range")
        annotations = dict(*value);
      else
        fail(value->span, "unknown argument '" + key + "' of " + kindName);
    }
    if (kind == ForKind::kThreadBinding && thread.empty())
      fail(iter.span, "T.thread_binding needs thread=\"...\"");
  }
  for (const Loop& l : loops)
    if (!l.extent->dtype.isInteger()) fail(iter.span, "loop extents must be integers");
  pushScope();
  for (const Loop& l : loops) {
    defineVar(l.var->name, l.var);
    loopDoms_[l.var.get()] = Range{l.min, l.extent};
  }
  Stmt inner = body(s.body);
  popScope();
  for (auto it = loops.rbegin(); it != loops.rend(); ++it) {
    loopDoms_.erase(it->var.get());
    PrimExpr min = it->min;
    // A block printed T.axis.spatial/reduce where remap would do says the loop's zero has
    // another type than the domain's: an int32 zero, as TVM's create_prim_func makes (§1.8).
    if (int32ZeroLoops_.erase(it->var.get()) && isZero(min)) min = intImm(0);
    auto f = std::make_shared<ForNode>(it->var, min, it->extent, kind, inner);
    f->threadTag = thread;
    f->annotations = annotations;
    inner = f;
  }
  return inner;
}

Stmt Builder::withStmt(const PyStmt& s) {
  std::string name = s.value->kind == PyExprKind::kCall ? s.value->base->dottedName() : "";
  if (name == "T.LetStmt" || name == "T.Assert" || name == "T.decl_buffer" || name == "T.allocate")
    return scopedWith(s, name);
  if (!s.targets.empty()) fail(s.span, "'with " + name + "(...) as' is not supported");
  if (name == "T.block") return block(s);
  if (name == "T.attr") {
    const PyExpr& call = *s.value;
    if (call.items.size() != 3) fail(call.span, "expected T.attr(node, \"key\", value)");
    Var node = call.items[0]->kind == PyExprKind::kNone ? nullptr : lookupVar(*call.items[0]);
    std::string key = stringArg(*call.items[1], "an attribute key string");
    PrimExpr value = expr(*call.items[2]);
    pushScope();
    Stmt inner = body(s.body);
    popScope();
    return attrStmt(node, key, value, inner);
  }
  if (name == "T.init") fail(s.span, "T.init() is only allowed in a block");
  fail(s.value->span, "unknown 'with' statement; expected T.block(...) or T.attr(...)");
}

}  // namespace tessera::tir::script
