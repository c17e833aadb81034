// The Relax TVMScript printer. PrimFuncs are printed by tir::toScript and indented into the class.
// Constants are numbered in order of first appearance across the module, as TVM's metadata table.
#include "relax/printer.h"

#include <algorithm>
#include <set>
#include <sstream>

#include "relax/ops.h"
#include "tir/functor.h"
#include "tir/printer/printer.h"

namespace tessera::relax {

namespace {

class Printer {
 public:
  std::string out;
  bool usedConstants = false;

  void printFunction(const FunctionNode& func, const std::string& name, int indent) {
    indent_ = indent;
    line("@R.function" + std::string(func.attrs.has("global_symbol") ? "" : "(private=True)"));
    std::string params;
    for (const Var& p : func.params) {
      if (!params.empty()) params += ", ";
      params += p->name + ": " + sinfoScript(p->sinfo, true);
    }
    line("def " + name + "(" + params + ") -> " + sinfoScript(func.ret, true) + ":");
    ++indent_;
    for (const std::string& v : symbolicVars(func)) line(v + " = T.int64()");
    if (referencesModule(func)) line("cls = Module");
    for (const BindingBlock& block : func.blocks) printBlock(block);
    line("return " + expr(func.body));
    --indent_;
  }

 private:
  int indent_ = 0;
  std::map<const ExprNode*, int> constants_;

  void line(const std::string& text) { out += std::string(4 * indent_, ' ') + text + "\n"; }

  static std::vector<std::string> symbolicVars(const FunctionNode& func) {
    std::set<std::string> names;  // TVM prints them sorted by name
    auto collect = [&](const StructInfo& s, auto&& self) -> void {
      if (s->shape)
        for (const tir::PrimExpr& d : *s->shape)
          tir::postOrderVisitExpr(d, [&](const tir::PrimExpr& x) {
            if (const auto* v = x->as<tir::VarNode>()) names.insert(v->name);
          });
      for (const StructInfo& f : s->fields) self(f, self);
    };
    for (const Var& p : func.params) collect(p->sinfo, collect);
    collect(func.ret, collect);
    for (const BindingBlock& b : func.blocks)
      for (const Binding& bind : b.bindings) collect(bind.var->sinfo, collect);
    return {names.begin(), names.end()};
  }

  static bool referencesModule(const FunctionNode& func) {
    for (const BindingBlock& b : func.blocks)
      for (const Binding& bind : b.bindings)
        if (const auto* call = bind.value->as<CallNode>())
          for (const Expr& a : call->args)
            if (a->as<GlobalVarNode>()) return true;
    return false;
  }

  void printBlock(const BindingBlock& block) {
    if (!block.dataflow) {
      for (const Binding& b : block.bindings) printBinding(b);
      return;
    }
    line("with R.dataflow():");
    ++indent_;
    std::string outputs;
    for (const Binding& b : block.bindings) {
      printBinding(b);
      if (!b.var->dataflow) outputs += (outputs.empty() ? "" : ", ") + b.var->name;
    }
    line("R.output(" + outputs + ")");
    --indent_;
  }

  void printBinding(const Binding& b) {
    // An alias prints its annotation, as TVM does: `gv: R.Tensor(...) = lv1`.
    if (b.value->as<VarNode>()) {
      line(b.var->name + ": " + sinfoScript(b.var->sinfo) + " = " + expr(b.value));
      return;
    }
    line(b.var->name + " = " + expr(b.value));
  }

  std::string tuple(const std::vector<Expr>& fields) {
    std::string s = "(";
    for (size_t i = 0; i < fields.size(); ++i) s += (i ? ", " : "") + expr(fields[i]);
    return s + (fields.size() == 1 ? ",)" : ")");
  }

  std::string outSinfo(const CallNode& call) {
    const StructInfo& s = call.sinfoArgs.at(0);
    if (s->kind != StructInfoKind::kTuple) return sinfoScript(s);
    std::string list = "[";
    for (size_t i = 0; i < s->fields.size(); ++i)
      list += (i ? ", " : "") + sinfoScript(s->fields[i]);
    return list + "]";
  }

  std::string call(const CallNode& c) {
    if (c.op == kCallTir || c.op == kCallDpsPacked) {
      const Expr& callee = c.args.at(0);
      std::string target = c.op == kCallTir ? "cls." + callee->as<GlobalVarNode>()->name
                                            : "\"" + callee->as<ExternFuncNode>()->name + "\"";
      std::string fn = c.op == kCallTir ? "R.call_tir(" : "R.call_dps_packed(";
      return fn + target + ", " + expr(c.args.at(1)) + ", out_sinfo=" + outSinfo(c) + ")";
    }
    std::string name = "R." + c.op.substr(c.op.find('.') + 1);
    std::string s = name + "(";
    for (size_t i = 0; i < c.args.size(); ++i) s += (i ? ", " : "") + expr(c.args[i]);
    if (c.op == "relax.permute_dims") {
      s += ", axes=[";
      for (size_t i = 0; i < c.axes.size(); ++i) s += (i ? ", " : "") + std::to_string(c.axes[i]);
      s += "]";
    }
    if (c.op == "relax.matmul") s += ", out_dtype=\"void\"";
    return s + ")";
  }

 public:
  std::string expr(const Expr& e) {
    switch (e->kind) {
      case ExprKind::kVar:
        return e->as<VarNode>()->name;
      case ExprKind::kConstant: {
        auto [it, inserted] = constants_.emplace(e.get(), static_cast<int>(constants_.size()));
        usedConstants = true;
        return "metadata[\"relax.expr.Constant\"][" + std::to_string(it->second) + "]";
      }
      case ExprKind::kCall:
        return call(*e->as<CallNode>());
      case ExprKind::kTuple:
        return tuple(e->as<TupleNode>()->fields);
      case ExprKind::kTupleGetItem: {
        const auto* item = e->as<TupleGetItemNode>();
        return expr(item->tuple) + "[" + std::to_string(item->index) + "]";
      }
      case ExprKind::kShapeExpr: {
        std::string s = "R.shape([";
        const auto& values = e->as<ShapeExprNode>()->values;
        for (size_t i = 0; i < values.size(); ++i) s += (i ? ", " : "") + tir::toString(values[i]);
        return s + "])";
      }
      case ExprKind::kGlobalVar:
        return "cls." + e->as<GlobalVarNode>()->name;
      case ExprKind::kExternFunc:
        return "R.ExternFunc(\"" + e->as<ExternFuncNode>()->name + "\")";
    }
    return "?";
  }
};

constexpr const char* kMetadataNote =
    "# Metadata omitted. Use show_meta=True in script() method to show it.\n";

std::string indentLines(const std::string& text) {
  std::istringstream in(text);
  std::string out;
  for (std::string l; std::getline(in, l);) out += (l.empty() ? "" : "    ") + l + "\n";
  return out;
}

}  // namespace

std::string toScript(const Function& func, const std::string& name) {
  Printer p;
  p.printFunction(*func, name, 0);
  return p.out + (p.usedConstants ? kMetadataNote : "");
}

std::string toScript(const IRModule& module) {
  Printer p;
  p.out =
      "# from tvm.script import ir as I\n# from tvm.script import tir as T\n# from tvm.script "
      "import "
      "relax as R\n\n@I.ir_module\nclass Module:\n";
  bool first = true;
  for (const IRModule::Entry& e : module.entries()) {
    if (!first) p.out += "\n";
    first = false;
    if (const auto* prim = std::get_if<tir::PrimFunc>(&e.func)) {
      auto named = std::make_shared<tir::PrimFuncNode>(**prim);
      named->name = e.name;
      p.out += indentLines(tir::toScript(tir::PrimFunc(named)));
      continue;
    }
    p.printFunction(*std::get<Function>(e.func), e.name, 1);
  }
  return p.out + (p.usedConstants ? kMetadataNote : "");
}

}  // namespace tessera::relax
