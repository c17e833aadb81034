// The Relax half of the TVMScript parser: module, functions, bindings and expressions. Struct
// info and symbolic dimensions go through the TIR builder, which resolves the function's shape
// variables (`m = T.int64()` or a "m" string in the signature).
#include "relax/script_parser.h"

#include <set>
#include <unordered_map>

#include "relax/ops.h"
#include "support/diagnostic.h"
#include "tir/script/builder.h"
#include "tir/script/parser.h"
#include "tir/script/py_parser.h"

namespace tessera::relax {

namespace {

using tir::script::PyExpr;
using tir::script::PyExprKind;
using tir::script::PyExprPtr;
using tir::script::PyStmt;
using tir::script::PyStmtKind;
using tir::script::PyStmtPtr;

[[noreturn]] void fail(const Span& span, const std::string& message) {
  throwDiagnostic("tvmscript", message, span);
}

std::string calleeName(const PyExprPtr& e) {
  return e && e->kind == PyExprKind::kCall ? e->base->dottedName() : "";
}

// Runs `make` (an op constructor whose diagnostics carry no place) so that its error is
// reported at `span`.
template <typename F>
Expr located(const Span& span, F&& make) {
  try {
    return make();
  } catch (const DiagnosticError& e) {
    if (e.diagnostic().span.defined()) throw;
    Diagnostic d = e.diagnostic();
    d.span = span;
    throw DiagnosticError(std::move(d));
  }
}

class FunctionParser {
 public:
  /// `primFuncs`: names of the module's PrimFuncs (null for a lone function).
  explicit FunctionParser(const std::set<std::string>* primFuncs) : primFuncs_(primFuncs) {}

  Function parse(const PyStmt& def) {
    auto f = std::make_shared<FunctionNode>();
    if (!tir::script::isPrivate(def)) f->attrs.set("global_symbol", AttrValue::string(def.name));
    for (const tir::script::PyParam& p : def.params) {
      if (!p.annotation) fail(p.span, "parameter '" + p.name + "' needs a struct info annotation");
      Var v = makeVar(p.name, sinfo(*p.annotation, true));
      f->params.push_back(v);
      bind(p.name, v);
    }
    StructInfo ret = def.returns ? sinfo(*def.returns, true) : nullptr;
    BindingBlock plain;
    for (size_t i = 0; i < def.body.size(); ++i) {
      const PyStmt& s = *def.body[i];
      if (s.kind == PyStmtKind::kPass) continue;
      if (s.kind == PyStmtKind::kExpr && s.value->kind == PyExprKind::kString) continue;
      if (declaration(s)) continue;
      if (isModuleAlias(s)) continue;
      if (s.kind == PyStmtKind::kWith && calleeName(s.value) == "R.dataflow") {
        if (!plain.bindings.empty()) f->blocks.push_back(std::move(plain));
        plain = BindingBlock{};
        f->blocks.push_back(dataflow(s));
        continue;
      }
      if (s.kind == PyStmtKind::kReturn) {
        if (i + 1 != def.body.size()) fail(def.body[i + 1]->span, "statements after 'return'");
        if (!s.value) fail(s.span, "a Relax function returns a value");
        f->body = expr(*s.value);
        continue;
      }
      plain.bindings.push_back(binding(s, false));
    }
    if (!plain.bindings.empty()) f->blocks.push_back(std::move(plain));
    if (!f->body) fail(def.span, "function '" + def.name + "' has no 'return'");
    f->ret = ret ? ret : f->body->sinfo;
    return f;
  }

 private:
  const std::set<std::string>* primFuncs_;
  tir::script::Builder tir_;
  std::unordered_map<std::string, Var> vars_;
  /// Symbolic shape variables by name (one per function).
  std::unordered_map<std::string, tir::Var> symbols_;

  void bind(const std::string& name, Var v) { vars_[name] = std::move(v); }

  tir::Var symbol(const std::string& name) {
    auto it = symbols_.find(name);
    if (it != symbols_.end()) return it->second;
    tir::Var v = tir::makeVar(name, DataType::int64());
    symbols_.emplace(name, v);
    tir_.defineVar(name, v);
    return v;
  }

  // `m = T.int64()` / `m, n = T.int64(), T.int64()`: names for the signature's "m", "n" (the
  // printer declares them after the signature that first uses them).
  bool declaration(const PyStmt& s) {
    if (s.kind != PyStmtKind::kAssign) return false;
    std::vector<PyExprPtr> values = s.value->kind == PyExprKind::kTuple && !s.value->parenthesized
                                        ? s.value->items
                                        : std::vector<PyExprPtr>{s.value};
    if (values.size() != s.targets.size()) return false;
    for (size_t i = 0; i < values.size(); ++i) {
      const PyExpr& v = *values[i];
      if (v.kind != PyExprKind::kCall || !v.items.empty() ||
          s.targets[i]->kind != PyExprKind::kName)
        return false;
      std::optional<DataType> t = tir::script::Builder::dtypeOfCallee(*v.base);
      if (!t) return false;
      if (*t != DataType::int64()) fail(v.span, "a Relax shape variable is a T.int64()");
    }
    for (const PyExprPtr& t : s.targets) symbol(t->text);
    return true;
  }

  static bool isModuleAlias(const PyStmt& s) {
    return s.kind == PyStmtKind::kAssign && s.targets.size() == 1 &&
           s.targets[0]->kind == PyExprKind::kName && s.targets[0]->text == "cls" &&
           s.value->kind == PyExprKind::kName;
  }

  // --- struct info ----------------------------------------------------------------------------
  tir::PrimExpr dimension(const PyExpr& e, bool declares) {
    if (e.kind == PyExprKind::kString) {
      if (!declares && !symbols_.count(e.text))
        fail(e.span, "undefined shape variable \"" + e.text + "\"");
      return symbol(e.text);
    }
    tir::PrimExpr d = tir_.expr(e);
    if (const auto* imm = d->as<tir::IntImmNode>()) return dim(imm->value);
    if (d->dtype != DataType::int64())
      fail(e.span, "a tensor dimension must be an int64 expression, got " + d->dtype.name());
    return d;
  }

  std::vector<tir::PrimExpr> dims(const PyExpr& e, bool declares) {
    if (e.kind != PyExprKind::kTuple && e.kind != PyExprKind::kList)
      fail(e.span, "expected a shape tuple such as (1, \"n\")");
    std::vector<tir::PrimExpr> out;
    for (const PyExprPtr& d : e.items) out.push_back(dimension(*d, declares));
    return out;
  }

  static DataType dtypeOf(const PyExpr& e) {
    if (e.kind != PyExprKind::kString) fail(e.span, "expected a dtype string");
    std::optional<DataType> t = DataType::parse(e.text);
    if (!t) fail(e.span, "unknown dtype \"" + e.text + "\"");
    return *t;
  }

  StructInfo sinfo(const PyExpr& e, bool declares) {
    if (e.kind == PyExprKind::kList) {
      // out_sinfo=[R.Tensor(...), R.Tensor(...)]: several outputs.
      std::vector<StructInfo> fields;
      for (const PyExprPtr& f : e.items) fields.push_back(sinfo(*f, declares));
      return tupleSInfo(std::move(fields));
    }
    std::string name = e.kind == PyExprKind::kCall ? e.base->dottedName() : e.dottedName();
    if (name == "R.Object") return objectSInfo();
    if (name == "R.Tuple") {
      std::vector<StructInfo> fields;
      if (e.kind == PyExprKind::kCall)
        for (const PyExprPtr& f : e.items) fields.push_back(sinfo(*f, declares));
      return tupleSInfo(std::move(fields));
    }
    if (name == "R.Shape") {
      if (e.kind != PyExprKind::kCall || e.items.size() != 1)
        fail(e.span, "expected R.Shape([dims...])");
      return shapeSInfo(dims(*e.items[0], declares));
    }
    if (name != "R.Tensor")
      fail(e.span, "expected struct info (R.Tensor, R.Tuple, R.Shape, R.Object)");
    if (e.kind != PyExprKind::kCall) return tensorSInfoNdim(-1, DataType::voidType());
    PyExprPtr shapeArg = e.kwarg("shape"), dtypeArg = e.kwarg("dtype"), ndimArg = e.kwarg("ndim");
    for (const auto& [key, value] : e.kwargs)
      if (key != "shape" && key != "dtype" && key != "ndim")
        fail(value->span, "unknown R.Tensor argument '" + key + "'");
    size_t next = 0;
    if (next < e.items.size() && e.items[next]->kind != PyExprKind::kString)
      shapeArg = e.items[next++];
    if (next < e.items.size()) dtypeArg = e.items[next++];
    if (next < e.items.size()) fail(e.items[next]->span, "too many arguments to R.Tensor");
    DataType dtype = dtypeArg ? dtypeOf(*dtypeArg) : DataType::voidType();
    if (shapeArg) {
      if (ndimArg) fail(ndimArg->span, "R.Tensor takes a shape or ndim, not both");
      return tensorSInfo(dims(*shapeArg, declares), dtype);
    }
    int ndim = -1;
    if (ndimArg) {
      if (ndimArg->kind != PyExprKind::kInt || ndimArg->intValue < -1 || ndimArg->intValue > 64)
        fail(ndimArg->span, "ndim must be an integer in [-1, 64]");
      ndim = static_cast<int>(ndimArg->intValue);
    }
    return tensorSInfoNdim(ndim, dtype);
  }

  // --- bindings -------------------------------------------------------------------------------
  Binding binding(const PyStmt& s, bool dataflowVar) {
    if ((s.kind != PyStmtKind::kAssign && s.kind != PyStmtKind::kAnnAssign) ||
        s.targets.size() != 1 || s.targets[0]->kind != PyExprKind::kName || !s.value)
      fail(s.span, "expected a binding 'name = expression'");
    const std::string& name = s.targets[0]->text;
    Expr value = expr(*s.value);
    StructInfo info = value->sinfo;
    if (s.annotation) {
      info = sinfo(*s.annotation, false);
      if (info->kind != value->sinfo->kind && info->kind != StructInfoKind::kObject)
        fail(s.annotation->span, "annotation " + sinfoScript(info) + " does not fit the value's " +
                                     sinfoScript(value->sinfo));
    }
    Var v = dataflowVar ? makeDataflowVar(name, info) : makeVar(name, info);
    bind(name, v);
    return Binding{v, value};
  }

  BindingBlock dataflow(const PyStmt& s) {
    if (!s.targets.empty()) fail(s.span, "'with R.dataflow()' takes no 'as'");
    if (s.body.empty() || calleeName(s.body.back()->value) != "R.output")
      fail(s.span, "a dataflow block ends with R.output(...)");
    std::set<std::string> outputs;
    const PyExpr& out = *s.body.back()->value;
    for (const PyExprPtr& o : out.items) {
      if (o->kind != PyExprKind::kName) fail(o->span, "R.output takes variable names");
      outputs.insert(o->text);
    }
    BindingBlock block;
    block.dataflow = true;
    std::vector<std::string> local;
    for (size_t i = 0; i + 1 < s.body.size(); ++i) {
      const PyStmt& st = *s.body[i];
      if (st.kind == PyStmtKind::kPass) continue;
      if (calleeName(st.value) == "R.output") fail(st.span, "R.output must end the dataflow block");
      std::string name = st.targets.size() == 1 ? st.targets[0]->text : "";
      bool isOutput = outputs.count(name) > 0;
      block.bindings.push_back(binding(st, !isOutput));
      if (!isOutput) local.push_back(name);
    }
    for (const PyExprPtr& o : out.items)
      if (!vars_.count(o->text)) fail(o->span, "R.output of undefined variable '" + o->text + "'");
    // Dataflow variables are not visible after their block.
    for (const std::string& name : local) {
      auto it = vars_.find(name);
      if (it != vars_.end() && it->second->dataflow) vars_.erase(it);
    }
    return block;
  }

  // --- expressions ----------------------------------------------------------------------------
  Expr expr(const PyExpr& e) {
    switch (e.kind) {
      case PyExprKind::kName: {
        auto it = vars_.find(e.text);
        if (it == vars_.end()) fail(e.span, "undefined variable '" + e.text + "'");
        return it->second;
      }
      case PyExprKind::kTuple: {
        std::vector<Expr> fields;
        for (const PyExprPtr& f : e.items) fields.push_back(operand(*f));
        return makeTuple(std::move(fields));
      }
      case PyExprKind::kSubscript: {
        if (e.base->kind == PyExprKind::kName && e.base->text == "metadata")
          fail(e.span,
               "constants are not part of the text (the metadata section is omitted); "
               "bind them again with BindParams");
        if (e.base->kind == PyExprKind::kSubscript && e.base->base->kind == PyExprKind::kName &&
            e.base->base->text == "metadata")
          fail(e.span,
               "constants are not part of the text (the metadata section is omitted); "
               "bind them again with BindParams");
        if (e.items.size() != 1 || e.items[0]->kind != PyExprKind::kInt)
          fail(e.span, "a tuple index must be one integer literal");
        Expr tuple = expr(*e.base);
        int index = static_cast<int>(e.items[0]->intValue);
        return located(e.span, [&] { return makeTupleGetItem(tuple, index); });
      }
      case PyExprKind::kAttribute:
        return globalRef(e);
      case PyExprKind::kCall:
        return call(e);
      default:
        break;
    }
    fail(e.span, "expected a Relax expression");
  }

  Expr globalRef(const PyExpr& e) {
    if (e.base->kind != PyExprKind::kName || e.base->text != "cls")
      fail(e.span, "expected a module function such as cls.f");
    if (!primFuncs_) fail(e.span, "'cls." + e.text + "' needs a module (use @I.ir_module)");
    if (!primFuncs_->count(e.text))
      fail(e.span, "the module has no PrimFunc named '" + e.text + "'");
    return makeGlobalVar(e.text);
  }

  // An operand, which normal form requires to be a leaf (a variable, a tuple of them, ...).
  Expr operand(const PyExpr& e) {
    Expr x = expr(e);
    if (!isLeaf(x))
      fail(e.span,
           "a call's arguments must be variables or constants (normal form): bind the "
           "nested call to a variable first");
    return x;
  }

  std::vector<Expr> argList(const PyExpr& e) {
    if (e.kind != PyExprKind::kTuple && e.kind != PyExprKind::kList) return {operand(e)};
    std::vector<Expr> out;
    for (const PyExprPtr& a : e.items) out.push_back(operand(*a));
    return out;
  }

  Expr dpsCall(const PyExpr& e, bool tir) {
    const char* fn = tir ? "R.call_tir" : "R.call_dps_packed";
    for (const auto& [key, value] : e.kwargs) {
      if (key == "tir_vars")
        fail(value->span, "call_tir with tir_vars is not supported by Tessera's Relax");
      if (key != "out_sinfo")
        fail(value->span, std::string("unknown argument '") + key + "' of " + fn);
    }
    PyExprPtr out = e.kwarg("out_sinfo");
    if (e.items.size() == 3 && !out) out = e.items[2];
    if (e.items.size() < 2 || e.items.size() > 3 || !out ||
        (e.items.size() == 3 && e.kwarg("out_sinfo")))
      fail(e.span, std::string("expected ") + fn + "(function, (args...), out_sinfo=...)");
    const PyExpr& callee = *e.items[0];
    std::vector<Expr> args = argList(*e.items[1]);
    StructInfo outInfo = sinfo(*out, false);
    if (tir) {
      std::string name;
      if (callee.kind == PyExprKind::kString) {
        name = callee.text;
        if (primFuncs_ && !primFuncs_->count(name))
          fail(callee.span, "the module has no PrimFunc named '" + name + "'");
      } else {
        name = globalRef(callee)->as<GlobalVarNode>()->name;
      }
      return located(e.span, [&] { return callTir(name, args, outInfo); });
    }
    std::string name;
    if (callee.kind == PyExprKind::kString) {
      name = callee.text;
    } else if (callee.kind == PyExprKind::kCall && callee.base->dottedName() == "R.ExternFunc" &&
               callee.items.size() == 1 && callee.items[0]->kind == PyExprKind::kString) {
      name = callee.items[0]->text;
    } else {
      fail(callee.span, "R.call_dps_packed calls a function by name: a string");
    }
    return located(e.span, [&] { return callDpsPacked(name, args, outInfo); });
  }

  Expr call(const PyExpr& e) {
    std::string name = e.base->dottedName();
    if (name == "R.call_tir") return dpsCall(e, true);
    if (name == "R.call_dps_packed") return dpsCall(e, false);
    if (name == "R.shape") {
      if (e.items.size() != 1) fail(e.span, "expected R.shape([dims...])");
      return makeShapeExpr(dims(*e.items[0], false));
    }
    if (name == "R.ExternFunc") {
      if (e.items.size() != 1 || e.items[0]->kind != PyExprKind::kString)
        fail(e.span, "expected R.ExternFunc(\"name\")");
      return makeExternFunc(e.items[0]->text);
    }
    std::vector<Expr> args;
    for (const PyExprPtr& a : e.items) args.push_back(operand(*a));
    auto arity = [&](size_t n) {
      if (args.size() != n)
        fail(e.span, name + " takes " + std::to_string(n) + " arguments, got " +
                         std::to_string(args.size()));
    };
    auto noKeywords = [&](std::initializer_list<const char*> allowed) {
      for (const auto& [key, value] : e.kwargs) {
        bool ok = false;
        for (const char* a : allowed) ok = ok || key == a;
        if (!ok) fail(value->span, "unknown argument '" + key + "' of " + name);
      }
    };
    if (name == "R.add" || name == "R.multiply") {
      arity(2);
      noKeywords({});
      return located(e.span, [&] {
        return name == "R.add" ? add(args[0], args[1]) : multiply(args[0], args[1]);
      });
    }
    if (name == "R.nn.relu") {
      arity(1);
      noKeywords({});
      return located(e.span, [&] { return relu(args[0]); });
    }
    if (name == "R.matmul") {
      arity(2);
      noKeywords({"out_dtype"});
      if (PyExprPtr od = e.kwarg("out_dtype"))
        if (od->kind != PyExprKind::kString || (od->text != "void" && od->text != ""))
          fail(od->span, "R.matmul's out_dtype other than \"void\" is not supported");
      return located(e.span, [&] { return matmul(args[0], args[1]); });
    }
    if (name == "R.permute_dims") {
      arity(1);
      noKeywords({"axes"});
      std::vector<int64_t> axes;
      if (PyExprPtr a = e.kwarg("axes"); a && a->kind != PyExprKind::kNone) {
        if (a->kind != PyExprKind::kList && a->kind != PyExprKind::kTuple)
          fail(a->span, "axes must be a list of integers");
        for (const PyExprPtr& x : a->items) {
          bool negative = x->kind == PyExprKind::kUnary && x->text == "-" &&
                          x->items[0]->kind == PyExprKind::kInt;
          if (x->kind != PyExprKind::kInt && !negative) fail(x->span, "axes must be integers");
          axes.push_back(negative ? -x->items[0]->intValue : x->intValue);
        }
      }
      return located(e.span, [&] { return permuteDims(args[0], axes); });
    }
    fail(e.base->span, "unsupported Relax function '" + name +
                           "' (Tessera's Relax has call_tir, call_dps_packed, add, multiply, "
                           "matmul, permute_dims, nn.relu, shape)");
  }
};

// The definitions of a script: its ir_module class's body, or the top level.
std::vector<PyStmtPtr> definitions(const std::vector<PyStmtPtr>& top) {
  for (const PyStmtPtr& s : top)
    if (s->kind == PyStmtKind::kClassDef && tir::script::definitionKind(*s) == "ir_module")
      return s->body;
  return top;
}

}  // namespace

IRModule parseScript(std::string_view text, const std::string& sourceName) {
  std::vector<PyStmtPtr> top = tir::script::parsePython(text, sourceName);
  std::vector<PyStmtPtr> defs = definitions(top);
  std::set<std::string> primFuncs, names;
  for (const PyStmtPtr& s : defs) {
    if (s->kind == PyStmtKind::kExpr && s->value->kind == PyExprKind::kString) continue;
    if (s->kind == PyStmtKind::kPass) continue;
    std::string kind = s->kind == PyStmtKind::kFunctionDef ? tir::script::definitionKind(*s) : "";
    if (kind != "prim_func" && kind != "function")
      fail(s->span, "expected @T.prim_func or @R.function definitions (in an @I.ir_module class)");
    if (!names.insert(s->name).second) fail(s->span, "function '" + s->name + "' defined twice");
    if (kind == "prim_func") primFuncs.insert(s->name);
  }
  if (names.empty())
    throwDiagnostic("tvmscript", "no function definition in the script", {}, sourceName);
  IRModule module;
  for (const PyStmtPtr& s : defs) {
    if (s->kind != PyStmtKind::kFunctionDef) continue;
    if (primFuncs.count(s->name)) {
      module.add(s->name, tir::script::buildPrimFunc(*s));
      continue;
    }
    FunctionParser parser(&primFuncs);
    module.add(s->name, parser.parse(*s));
  }
  return module;
}

std::pair<std::string, Function> parseFunction(std::string_view text,
                                               const std::string& sourceName) {
  std::vector<PyStmtPtr> top = tir::script::parsePython(text, sourceName);
  const PyStmt* def = nullptr;
  for (const PyStmtPtr& s : top) {
    if (s->kind == PyStmtKind::kExpr && s->value->kind == PyExprKind::kString) continue;
    if (s->kind != PyStmtKind::kFunctionDef || tir::script::definitionKind(*s) != "function")
      fail(s->span, "expected one @R.function definition");
    if (def) fail(s->span, "expected one @R.function definition, found a second");
    def = s.get();
  }
  if (!def) throwDiagnostic("tvmscript", "no @R.function definition in the script", {}, sourceName);
  FunctionParser parser(nullptr);
  return {def->name, parser.parse(*def)};
}

}  // namespace tessera::relax
