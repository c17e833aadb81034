// BlockBuilder and emit_te's argument conversion (TVM's gen_call_tir_inputs, seed naming rules of
// spec §0: placeholders take the Relax variable's own name).
#include "relax/block_builder.h"

#include <unordered_map>

#include "relax/ops.h"
#include "support/diagnostic.h"
#include "te/create_prim_func.h"
#include "tir/functor.h"
#include "tir/printer/printer.h"

namespace tessera::relax {

namespace {

[[noreturn]] void builderError(const std::string& message) {
  throwDiagnostic("block_builder", message);
}

/// The printed body of a PrimFunc under a fixed name: equal text means an identical function.
std::string structuralKey(const tir::PrimFunc& func) {
  auto copy = std::make_shared<tir::PrimFuncNode>(*func);
  copy->name = "f";
  copy->attrs.erase("global_symbol");
  return tir::toScript(tir::PrimFunc(copy));
}

std::string positionalName(size_t index) {
  if (index < 26) return std::string(1, static_cast<char>('A' + index));
  return "input" + std::to_string(index);
}

}  // namespace

std::string addPrimFunc(IRModule& module, const tir::PrimFunc& func, const std::string& nameHint) {
  std::string key = structuralKey(func);
  for (const IRModule::Entry& e : module.entries()) {
    const auto* prim = std::get_if<tir::PrimFunc>(&e.func);
    if (prim && structuralKey(*prim) == key) return e.name;
  }
  std::string name = module.uniqueName(nameHint);
  auto named = std::make_shared<tir::PrimFuncNode>(*func);
  named->name = name;
  module.add(name, tir::PrimFunc(named));
  return name;
}

Expr callTe(IRModule& module, const std::string& primFuncName, const TeFunction& f,
            const std::vector<Expr>& args) {
  // Fresh variables per PrimFunc, so the PrimFunc shares no variable with its caller.
  std::unordered_map<const tir::VarNode*, tir::PrimExpr> toFresh;
  std::unordered_map<const tir::VarNode*, tir::PrimExpr> toCaller;
  std::vector<te::Tensor> placeholders;
  for (size_t i = 0; i < args.size(); ++i) {
    const StructInfoNode& s = *args[i]->sinfo;
    if (!s.isTensor() || !s.shape)
      builderError("emit_te '" + primFuncName + "': argument " + std::to_string(i) +
                   " must be a tensor with a known shape (use match_cast), got " +
                   sinfoScript(args[i]->sinfo));
    std::vector<tir::PrimExpr> shape;
    for (const tir::PrimExpr& d : *s.shape) {
      tir::postOrderVisitExpr(d, [&](const tir::PrimExpr& x) {
        const auto* v = x->as<tir::VarNode>();
        if (!v || toFresh.count(v)) return;
        tir::Var fresh = tir::makeVar(v->name, v->dtype);
        toFresh[v] = fresh;
        toCaller[fresh.get()] = x;
      });
      shape.push_back(tir::substitute(d, toFresh));
    }
    const auto* var = args[i]->as<VarNode>();
    placeholders.push_back(te::placeholder(shape, s.dtype, var ? var->name : positionalName(i)));
  }
  te::Tensor out = f(placeholders);
  if (!out.defined())
    builderError("emit_te '" + primFuncName + "': the TE function returned no tensor");
  std::vector<tir::PrimExpr> outShape;
  for (const tir::PrimExpr& d : out.shape()) {
    tir::PrimExpr mapped = tir::substitute(tir::cast(DataType::int64(), d), toCaller);
    tir::postOrderVisitExpr(mapped, [&](const tir::PrimExpr& x) {
      const auto* v = x->as<tir::VarNode>();
      if (v && toCaller.count(v))
        builderError("emit_te '" + primFuncName + "': output dimension " + tir::toString(d) +
                     " uses a variable that is not a dimension of an input");
    });
    outShape.push_back(mapped);
  }
  std::vector<te::Tensor> params = placeholders;
  params.push_back(out);
  tir::PrimFunc prim = te::createPrimFunc(params, DataType::int64());
  auto priv = std::make_shared<tir::PrimFuncNode>(*prim);
  priv->attrs.erase("global_symbol");  // emit_te's PrimFuncs are private
  std::string name = addPrimFunc(module, tir::PrimFunc(priv), primFuncName);
  return callTir(name, args, tensorSInfo(std::move(outShape), out.dtype()));
}

BlockBuilder::DataflowScope::~DataflowScope() {
  if (bb_->frame_ && !bb_->frame_->blocks.empty() && bb_->frame_->blocks.back().dataflow)
    bb_->endDataflow();
}

void BlockBuilder::function(const std::string& name, std::optional<std::vector<Var>> params,
                            bool isPrivate) {
  if (frame_)
    builderError("function '" + name + "': functions cannot nest (still building '" + frame_->name +
                 "')");
  frame_ = FunctionFrame{name, std::move(params), isPrivate, {BindingBlock{}}};
}

BlockBuilder::FunctionFrame& BlockBuilder::frame(const char* what) {
  if (!frame_) builderError(std::string(what) + ": no function is open (call function() first)");
  return *frame_;
}

BlockBuilder::DataflowScope BlockBuilder::dataflow() {
  beginDataflow();
  return DataflowScope(this);
}

void BlockBuilder::beginDataflow() {
  FunctionFrame& f = frame("dataflow");
  if (f.blocks.back().dataflow) builderError("dataflow: already inside a dataflow block");
  if (f.blocks.back().bindings.empty()) f.blocks.pop_back();
  f.blocks.push_back(BindingBlock{true, {}});
}

void BlockBuilder::endDataflow() {
  FunctionFrame& f = frame("dataflow");
  if (!f.blocks.back().dataflow) builderError("dataflow: not inside a dataflow block");
  if (f.blocks.back().bindings.empty()) f.blocks.pop_back();
  f.blocks.push_back(BindingBlock{});
}

std::string BlockBuilder::freshName(const std::string& hint) {
  int& count = nameCounts_[hint];
  std::string name = count == 0 ? hint : hint + std::to_string(count);
  ++count;
  return name;
}

Expr BlockBuilder::normalize(const Expr& expr) {
  // ANF: a call's arguments and a tuple's fields must be leaves; call_tir's argument tuple is the
  // one tuple that stays inline (it is how the op is printed and compiled).
  auto leaf = [&](const Expr& e) -> Expr { return isLeaf(e) ? e : emit(e); };
  if (const auto* call = expr->as<CallNode>()) {
    bool changed = false;
    std::vector<Expr> args;
    for (const Expr& a : call->args) {
      Expr n = a;
      if (const auto* tuple = a->as<TupleNode>()) {
        std::vector<Expr> fields;
        for (const Expr& f : tuple->fields) fields.push_back(leaf(f));
        n = makeTuple(std::move(fields));
        changed = true;
      } else {
        n = leaf(a);
        changed |= n != a;
      }
      args.push_back(n);
    }
    if (!changed) return expr;
    auto copy = std::make_shared<CallNode>(*call);
    copy->args = std::move(args);
    return copy;
  }
  if (const auto* tuple = expr->as<TupleNode>()) {
    std::vector<Expr> fields;
    for (const Expr& f : tuple->fields) fields.push_back(leaf(f));
    return makeTuple(std::move(fields));
  }
  if (const auto* item = expr->as<TupleGetItemNode>())
    return makeTupleGetItem(leaf(item->tuple), item->index);
  return expr;
}

Var BlockBuilder::bind(const Expr& expr, const std::string& nameHint, bool dataflowVar) {
  Expr value = normalize(expr);
  FunctionFrame& f = frame("emit");
  std::string name = freshName(nameHint.empty() ? (dataflowVar ? "lv" : "gv") : nameHint);
  Var var = dataflowVar ? makeDataflowVar(name, value->sinfo) : makeVar(name, value->sinfo);
  f.blocks.back().bindings.push_back({var, value});
  return var;
}

Var BlockBuilder::emit(const Expr& expr, const std::string& nameHint) {
  bool inDataflow = frame("emit").blocks.back().dataflow;
  return bind(expr, nameHint, inDataflow);
}

Var BlockBuilder::emitOutput(const Expr& expr, const std::string& nameHint) {
  if (!frame("emitOutput").blocks.back().dataflow)
    builderError("emitOutput: only allowed inside a dataflow block");
  return bind(expr, nameHint, false);
}

Var BlockBuilder::emitTe(const std::string& primFuncName, const TeFunction& f,
                         const std::vector<Expr>& args) {
  return emit(callTe(module_, primFuncName, f, args));
}

std::string BlockBuilder::emitFuncOutput(const Expr& output,
                                         std::optional<std::vector<Var>> params) {
  FunctionFrame& f = frame("emitFuncOutput");
  if (f.blocks.back().dataflow)
    builderError("emitFuncOutput: the dataflow block of '" + f.name + "' is still open");
  if (f.params && params)
    builderError("emitFuncOutput: function parameters of '" + f.name +
                 "' have been initialized in function()");
  if (!f.params && !params)
    builderError("emitFuncOutput: Relax function '" + f.name + "' must have parameters");
  std::string name = f.name;
  if (module_.contains(name))
    builderError("emitFuncOutput: module already has a function named '" + name + "'");
  auto func = std::make_shared<FunctionNode>();
  func->params = params ? std::move(*params) : std::move(*f.params);
  func->body = normalize(output);
  func->blocks = std::move(f.blocks);
  if (!func->blocks.empty() && func->blocks.back().bindings.empty()) func->blocks.pop_back();
  func->ret = func->body->sinfo;
  if (!f.isPrivate) func->attrs.set("global_symbol", AttrValue::string(name));
  frame_.reset();
  module_.add(name, Function(func));
  return name;
}

const IRModule& BlockBuilder::get() const {
  if (frame_)
    builderError("get: function '" + frame_->name + "' was not finished with emitFuncOutput");
  return module_;
}

}  // namespace tessera::relax
