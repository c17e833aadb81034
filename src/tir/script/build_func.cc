// `@T.prim_func def name(params):` to a PrimFunc, and the module-level entry points. The top of a
// function body declares: attributes (`T.func_attr`), symbolic variables (`n = T.int64()`),
// parameter buffers (`T.match_buffer`), root-block allocations (`T.alloc_buffer`) and buffer
// views; the rest is the body. A body with blocks or allocations is wrapped in the root block
// (printed as the comment `# with T.block("root"):`), as TVM's parser does.
#include <algorithm>

#include "support/diagnostic.h"
#include "tir/functor.h"
#include "tir/script/builder.h"
#include "tir/script/parser.h"
#include "tir/script/py_parser.h"

namespace tessera::tir {

namespace script {

namespace {

std::string decoratorName(const PyExprPtr& d) {
  const PyExpr& callee = d->kind == PyExprKind::kCall ? *d->base : *d;
  std::string name = callee.dottedName();
  size_t dot = name.rfind('.');
  return dot == std::string::npos ? name : name.substr(dot + 1);
}

bool containsBlock(const Stmt& s) {
  bool found = false;
  preOrderVisit(s, [&](const Stmt& st) {
    found = found || st->as<BlockRealizeNode>() || st->as<BlockNode>();
    return !found;
  });
  return found;
}

// The explicitly written root block: `with T.block("root"):` as the whole body.
bool isExplicitRoot(const Stmt& s) {
  const auto* r = s->as<BlockRealizeNode>();
  return r && r->block->name == "root" && r->block->iterVars.empty();
}

}  // namespace

std::string definitionKind(const PyStmt& def) {
  for (const PyExprPtr& d : def.decorators) {
    std::string name = decoratorName(d);
    if (name == "prim_func" || name == "function" || name == "ir_module") return name;
  }
  return "";
}

bool isPrivate(const PyStmt& def) {
  for (const PyExprPtr& d : def.decorators) {
    if (d->kind != PyExprKind::kCall) continue;
    for (const auto& [key, value] : d->kwargs) {
      if (key != "private") Builder::fail(value->span, "unknown decorator argument '" + key + "'");
      if (value->kind != PyExprKind::kBool)
        Builder::fail(value->span, "private takes True or False");
      if (value->intValue) return true;
    }
  }
  return false;
}

PrimFunc Builder::primFunc(const PyStmt& def) {
  auto f = std::make_shared<PrimFuncNode>();
  f->name = def.name;
  if (!isPrivate(def)) f->attrs.set("global_symbol", AttrValue::string(def.name));
  if (def.returns) fail(def.returns->span, "a PrimFunc has no return annotation");
  pushScope();
  std::vector<const VarNode*> handles;
  for (const PyParam& p : def.params) {
    if (!p.annotation)
      fail(p.span, "parameter '" + p.name + "' needs a type (T.handle, T.Buffer(...), T.int32)");
    const PyExpr& a = *p.annotation;
    if (a.kind == PyExprKind::kCall && a.base->dottedName() == "T.Buffer") {
      Buffer b = bufferFromCall(p.name, a, 0);
      Var handle = makeVar("var_" + p.name, DataType::handle());
      f->params.push_back(handle);
      f->bufferMap.emplace_back(handle, b);
      defineBuffer(p.name, b);
      continue;
    }
    std::optional<DataType> t = dtypeOfCallee(a);
    if (!t)
      fail(a.span, "expected T.handle, T.Buffer(shape, dtype) or a scalar type such as T.int32");
    Var v = makeVar(p.name, *t);
    f->params.push_back(v);
    if (t->isHandle()) handles.push_back(v.get());
    defineVar(p.name, v);
  }
  // The declarations at the top of the body.
  std::vector<Buffer> rootAllocs;
  size_t i = 0;
  for (; i < def.body.size(); ++i) {
    const PyStmt& st = *def.body[i];
    if (st.kind == PyStmtKind::kExpr && st.value->kind == PyExprKind::kString) continue;
    if (declareVars(st)) continue;
    std::string callee =
        st.value && st.value->kind == PyExprKind::kCall ? st.value->base->dottedName() : "";
    if (st.kind == PyStmtKind::kExpr && callee == "T.func_attr") {
      if (st.value->items.size() != 1) fail(st.span, "T.func_attr takes one dictionary");
      DictAttrs attrs = dict(*st.value->items[0]);
      for (const auto& [key, value] : attrs.entries()) f->attrs.set(key, value);
      continue;
    }
    bool named = st.kind == PyStmtKind::kAssign && st.targets.size() == 1 &&
                 st.targets[0]->kind == PyExprKind::kName;
    if (!named) break;
    const std::string& name = st.targets[0]->text;
    if (callee == "T.match_buffer") {
      if (st.value->items.empty()) fail(st.value->span, "T.match_buffer needs a handle parameter");
      Var handle = lookupVar(*st.value->items[0]);
      bool isParam = std::find(handles.begin(), handles.end(), handle.get()) != handles.end();
      if (!isParam)
        fail(st.value->items[0]->span,
             "T.match_buffer at the top of a function takes a T.handle parameter");
      if (f->bufferOf(handle))
        fail(st.value->items[0]->span, "parameter '" + handle->name + "' already has a buffer");
      Buffer b = bufferFromCall(name, *st.value, 1);
      f->bufferMap.emplace_back(handle, b);
      defineBuffer(name, b);
      continue;
    }
    if (callee == "T.alloc_buffer") {
      Buffer b = bufferFromCall(name, *st.value, 0);
      rootAllocs.push_back(b);
      defineBuffer(name, b);
      continue;
    }
    if (callee == "T.Buffer") {
      defineBuffer(name, bufferFromCall(name, *st.value, 0));
      continue;
    }
    break;
  }
  // The buffer map follows parameter order, as the printer expects.
  std::vector<std::pair<Var, Buffer>> ordered;
  for (const Var& p : f->params)
    if (Buffer b = f->bufferOf(p)) ordered.emplace_back(p, b);
  f->bufferMap = std::move(ordered);
  Stmt body = this->body(def.body, i);
  checkNoPendingData();
  popScope();
  if (!rootAllocs.empty() || (containsBlock(body) && !isExplicitRoot(body))) {
    auto root = std::make_shared<BlockNode>();
    root->name = "root";
    root->allocBuffers = std::move(rootAllocs);
    root->body = body;
    body = blockRealize({}, boolImm(true), root);
  }
  f->body = body;
  return f;
}

PrimFunc buildPrimFunc(const PyStmt& def) {
  Builder builder;
  return builder.primFunc(def);
}

}  // namespace script

namespace {

void collectPrimFuncs(const std::vector<script::PyStmtPtr>& stmts, TirModule& module,
                      bool inClass) {
  using script::PyStmtKind;
  for (const script::PyStmtPtr& s : stmts) {
    if (s->kind == PyStmtKind::kExpr && s->value->kind == script::PyExprKind::kString) continue;
    if (s->kind == PyStmtKind::kPass) continue;
    // `cls = Module`-style lines and imports are not definitions; anything else is misplaced.
    std::string kind = s->kind == PyStmtKind::kFunctionDef || s->kind == PyStmtKind::kClassDef
                           ? script::definitionKind(*s)
                           : "";
    if (s->kind == PyStmtKind::kClassDef && kind == "ir_module" && !inClass) {
      collectPrimFuncs(s->body, module, true);
      continue;
    }
    if (s->kind == PyStmtKind::kFunctionDef && kind == "prim_func") {
      if (module.find(s->name))
        script::Builder::fail(s->span, "function '" + s->name + "' defined twice");
      module.add(script::buildPrimFunc(*s));
      continue;
    }
    if (kind == "function")
      script::Builder::fail(s->span, "'" + s->name +
                                         "' is a Relax function; read the module with the Relax "
                                         "parser (tessera tir reads both)");
    script::Builder::fail(s->span, inClass ? "expected a @T.prim_func definition in the module"
                                           : "expected @I.ir_module class or @T.prim_func def");
  }
}

}  // namespace

TirModule parseScript(std::string_view text, const std::string& sourceName) {
  TirModule module;
  collectPrimFuncs(script::parsePython(text, sourceName), module, false);
  if (module.empty())
    throwDiagnostic("tvmscript", "no @T.prim_func definition in the script", {}, sourceName);
  return module;
}

PrimFunc parsePrimFunc(std::string_view text, const std::string& sourceName) {
  TirModule module = parseScript(text, sourceName);
  if (module.functions().size() != 1)
    throwDiagnostic("tvmscript",
                    "expected one PrimFunc, found " + std::to_string(module.functions().size()), {},
                    sourceName);
  return module.functions()[0];
}

}  // namespace tessera::tir
