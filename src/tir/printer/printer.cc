// TVMScript printer for TensorIR, following TVM 0.16's printed form (spec §2.6) with Tessera's
// float rule (`T.float32(0.0)`): functions, loops and `T.grid` nests, blocks with `T.axis.remap`,
// regions, init, allocations and the flat statements lowering produces. Names are scoped: a name
// is free again once the loop or block defining it ends, and collisions get `_1`, `_2` suffixes.
#include "tir/printer/printer.h"

#include <unordered_set>

#include "tir/functor.h"
#include "tir/printer/script_printer.h"

namespace tessera::tir {

namespace script {

namespace {

std::string sanitize(const std::string& hint) {
  std::string s = hint.empty() ? "v" : hint;
  for (char& c : s)
    if (c == '.') c = '_';
  return s;
}

const char* iterKindName(IterVarType type) {
  switch (type) {
    case IterVarType::kDataPar:
      return "spatial";
    case IterVarType::kCommReduce:
      return "reduce";
    case IterVarType::kOrdered:
      return "scan";
    default:
      return "opaque";
  }
}

bool isTrue(const PrimExpr& e) {
  return !e || isConstInt(e, 1);
}

// A parameter buffer that the signature can spell as `A: T.Buffer((128, 128), "float32")`: no
// symbolic dimension to define and nothing beyond shape and dtype to say.
bool isSimpleParamBuffer(const BufferNode& b) {
  for (const PrimExpr& d : b.shape)
    if (!d->as<IntImmNode>()) return false;
  return b.strides.empty() && (!b.elemOffset || isZero(b.elemOffset)) && b.scope == "global" &&
         b.dataAlignment == 64 && b.offsetFactor == 1;
}

// A serial loop that may join a `T.grid` nest.
bool isPlainSerial(const ForNode* f) {
  return f->forKind == ForKind::kSerial && isZero(f->min) && f->annotations.empty() &&
         f->threadTag.empty();
}

}  // namespace

std::string Printer::define(const void* node, const std::string& hint) {
  if (reserved_.erase(node)) return names_.at(node);
  std::string base = sanitize(hint);
  std::string name = base;
  // `T` and `I` are the script's module aliases; a variable of that name would shadow them.
  auto taken = [&](const std::string& n) { return n == "T" || n == "I" || inUse_[n] > 0; };
  for (int k = 1; taken(name); ++k) name = base + "_" + std::to_string(k);
  ++inUse_[name];
  names_[node] = name;
  if (scopes_.empty()) pushScope();
  scopes_.back().push_back(node);
  return name;
}

void Printer::popScope() {
  for (const void* node : scopes_.back()) {
    reserved_.erase(node);
    auto it = names_.find(node);
    if (it == names_.end()) continue;
    --inUse_[it->second];
    names_.erase(it);
  }
  scopes_.pop_back();
}

std::string Printer::nameOf(const VarNode* v) const {
  auto it = names_.find(v);
  return it != names_.end() ? it->second : sanitize(v->name);
}

std::string Printer::nameOf(const BufferNode* b) const {
  auto it = names_.find(b);
  return it != names_.end() ? it->second : sanitize(b->name);
}

void Printer::line(const std::string& text) {
  out_.append(static_cast<size_t>(indent_) * 4, ' ');
  out_ += text;
  out_ += '\n';
}

void Printer::printImplicitDefs(const StmtNode* s) {
  auto it = implicitDefs_.find(s);
  if (it == implicitDefs_.end()) return;
  for (const ImplicitDef& d : it->second) {
    if (d.var) {
      std::string name = define(d.var, d.var->name);
      line(name + " = T." + d.var->dtype.name() + "()");
      continue;
    }
    const VarNode* dataVar = d.buffer->data.get();
    if (!names_.count(dataVar)) {
      // The data pointer is bound later (by a T.Let in the statement, say): name it now so that
      // the binding prints with the name the view refers to.
      define(dataVar, dataVar->name);
      reserved_.insert(dataVar);
    }
    std::string data = nameOf(dataVar);
    std::string name = define(d.buffer, d.buffer->name);
    line(name + " = T.Buffer(" + bufferDeclArgs(d.buffer, false) + ", data=" + data + ")");
  }
}

void Printer::printBody(const Stmt& s) {
  ++indent_;
  pushScope();
  printLast(s);
  popScope();
  --indent_;
}

void Printer::printLast(const Stmt& s) {
  bool outer = concise_;
  concise_ = true;
  printStmt(s);
  concise_ = outer;
}

void Printer::printScoped(const std::string& head, const void* node, const std::string& hint,
                          const Stmt& body) {
  pushScope();
  std::string name = node ? define(node, hint) : "";
  line("with " + head + (name.empty() ? "" : " as " + name) + ":");
  ++indent_;
  printLast(body);
  --indent_;
  popScope();
}

void Printer::printBufferDecl(const BufferNode* b, const std::string& head, bool withDtype) {
  std::string name = define(b, b->name);
  if (!names_.count(b->data.get())) names_[b->data.get()] = name + ".data";
  line(name + " = " + head + bufferDeclArgs(b, withDtype) + ")");
}

void Printer::printStmt(const Stmt& s) {
  printImplicitDefs(s.get());
  switch (s->kind) {
    case StmtKind::kBufferStore: {
      const auto* op = s->as<BufferStoreNode>();
      line(nameOf(op->buffer.get()) + indices(op->indices) + " = " + expr(op->value));
      return;
    }
    case StmtKind::kEvaluate: {
      const auto* op = s->as<EvaluateNode>();
      line(op->value->as<CallNode>() ? expr(op->value) : "T.evaluate(" + expr(op->value) + ")");
      return;
    }
    case StmtKind::kLetStmt: {
      const auto* op = s->as<LetStmtNode>();
      std::string value = expr(op->value);
      if (!concise_) {
        printScoped("T.LetStmt(" + value + ")", op->var.get(), op->var->name, op->body);
        return;
      }
      std::string name = define(op->var.get(), op->var->name);
      line(name + ": T." + op->var->dtype.name() + " = " + value);
      printStmt(op->body);
      return;
    }
    case StmtKind::kAttrStmt: {
      const auto* op = s->as<AttrStmtNode>();
      std::string node = op->node ? nameOf(op->node.get()) : "None";
      line("with T.attr(" + node + ", " + quoted(op->key) + ", " + expr(op->value) + "):");
      printBody(op->body);
      return;
    }
    case StmtKind::kAssertStmt: {
      const auto* op = s->as<AssertStmtNode>();
      if (!concise_ && op->body) {
        printScoped("T.Assert(" + expr(op->condition) + ", " + quoted(op->message) + ")", nullptr,
                    "", op->body);
        return;
      }
      line("assert " + expr(op->condition) + ", " + quoted(op->message));
      if (op->body) printStmt(op->body);
      return;
    }
    case StmtKind::kIfThenElse: {
      const auto* op = s->as<IfThenElseNode>();
      line("if " + expr(op->condition) + ":");
      printBody(op->thenCase);
      if (!op->elseCase) return;
      line("else:");
      printBody(op->elseCase);
      return;
    }
    case StmtKind::kFor:
      printFor(s->as<ForNode>());
      return;
    case StmtKind::kSeqStmt: {
      const auto& items = s->as<SeqStmtNode>()->seq;
      bool outer = concise_;
      for (size_t i = 0; i < items.size(); ++i) {
        concise_ = outer && i + 1 == items.size();
        printStmt(items[i]);
      }
      concise_ = outer;
      return;
    }
    case StmtKind::kBlock: {
      // A block outside a realize (only in hand-built fragments) prints with empty bindings.
      auto realize = std::make_shared<BlockRealizeNode>(
          std::vector<PrimExpr>{}, boolImm(true), std::static_pointer_cast<const BlockNode>(s));
      printBlockRealize(realize.get());
      return;
    }
    case StmtKind::kBlockRealize:
      printBlockRealize(s->as<BlockRealizeNode>());
      return;
    case StmtKind::kAllocate:
      printAllocate(s->as<AllocateNode>());
      return;
    case StmtKind::kDeclBuffer: {
      const auto* op = s->as<DeclBufferNode>();
      std::string data = nameOf(op->buffer->data.get());
      std::string args = bufferDeclArgs(op->buffer.get(), false) + ", data=" + data;
      if (!concise_) {
        printScoped("T.decl_buffer(" + args + ")", op->buffer.get(), op->buffer->name, op->body);
        return;
      }
      std::string name = define(op->buffer.get(), op->buffer->name);
      line(name + " = T.decl_buffer(" + args + ")");
      printStmt(op->body);
      return;
    }
  }
}

void Printer::printAllocate(const AllocateNode* op) {
  // Allocate + DeclBuffer of the same memory prints as one `T.decl_buffer` (TVM's sugar).
  if (const auto* decl = op->body->as<DeclBufferNode>()) {
    if (decl->buffer->data.get() == op->bufferVar.get()) {
      printImplicitDefs(op->body.get());
      std::string args = bufferDeclArgs(decl->buffer.get(), false);
      if (!concise_) {
        pushScope();
        std::string name = define(decl->buffer.get(), decl->buffer->name);
        names_[op->bufferVar.get()] = name + ".data";
        line("with T.decl_buffer(" + args + ") as " + name + ":");
        ++indent_;
        printLast(decl->body);
        --indent_;
        popScope();
        return;
      }
      std::string name = define(decl->buffer.get(), decl->buffer->name);
      names_[op->bufferVar.get()] = name + ".data";
      line(name + " = T.decl_buffer(" + args + ")");
      printStmt(decl->body);
      return;
    }
  }
  std::string head = "T.allocate([" + exprList(op->extents) + "], " + quoted(op->dtype.name()) +
                     ", " + quoted(op->scope) + ")";
  if (!concise_) {
    printScoped(head, op->bufferVar.get(), op->bufferVar->name, op->body);
    return;
  }
  std::string name = define(op->bufferVar.get(), op->bufferVar->name);
  line(name + " = " + head);
  printStmt(op->body);
}

void Printer::printFor(const ForNode* op) {
  std::vector<const ForNode*> nest{op};
  // Perfectly nested plain serial loops print as one `T.grid`, unless a declaration must be
  // printed between two of them or an extent depends on an outer loop of the nest.
  while (isPlainSerial(nest.back())) {
    const auto* inner = nest.back()->body->as<ForNode>();
    if (!inner || !isPlainSerial(inner) || implicitDefs_.count(inner)) break;
    bool dependent = false;
    for (const ForNode* f : nest) dependent = dependent || usesVar(inner->extent, f->loopVar.get());
    if (dependent) break;
    nest.push_back(inner);
  }
  std::string header;
  if (nest.size() > 1) {
    std::vector<PrimExpr> extents;
    for (const ForNode* f : nest) extents.push_back(f->extent);
    header = "T.grid(" + exprList(extents) + ")";
  } else {
    std::string range =
        isZero(op->min) ? expr(op->extent) : expr(op->min) + ", " + expr(add(op->min, op->extent));
    if (op->forKind == ForKind::kSerial && op->annotations.empty()) {
      header = "range(" + range + ")";
    } else {
      header = std::string("T.") + forKindName(op->forKind) + "(" + range;
      if (op->forKind == ForKind::kThreadBinding) header += ", thread=" + quoted(op->threadTag);
      if (!op->annotations.empty()) header += ", annotations=" + dictScript(op->annotations);
      header += ")";
    }
  }
  pushScope();
  std::string vars;
  for (const ForNode* f : nest) {
    vars += (vars.empty() ? "" : ", ") + define(f->loopVar.get(), f->loopVar->name);
    enclosingLoops_[f->loopVar.get()] = f;
  }
  line("for " + vars + " in " + header + ":");
  ++indent_;
  printLast(nest.back()->body);
  --indent_;
  for (const ForNode* f : nest) enclosingLoops_.erase(f->loopVar.get());
  popScope();
}

void Printer::printIterVars(const BlockRealizeNode* realize) {
  const BlockNode* block = realize->block.get();
  size_t n = block->iterVars.size();
  // An iter var may use the remap shorthand when it is bound to an enclosing loop's variable with
  // exactly that loop's domain; only runs of two or more use it (TVM's rule).
  auto remappable = [&](size_t i) {
    const IterVar& iv = block->iterVars[i];
    if (iv.type != IterVarType::kDataPar && iv.type != IterVarType::kCommReduce) return false;
    if (i >= realize->iterValues.size()) return false;
    const auto* v = realize->iterValues[i]->as<VarNode>();
    if (!v) return false;
    auto it = enclosingLoops_.find(v);
    return it != enclosingLoops_.end() && deepEqual(it->second->min, iv.dom.min) &&
           deepEqual(it->second->extent, iv.dom.extent);
  };
  auto single = [&](size_t i) {
    const IterVar& iv = block->iterVars[i];
    std::string dom = isZero(iv.dom.min) ? expr(iv.dom.extent)
                                         : "(" + expr(iv.dom.min) + ", " +
                                               expr(add(iv.dom.min, iv.dom.extent)) + ")";
    std::string value = i < realize->iterValues.size() ? expr(realize->iterValues[i]) : "None";
    std::string name = define(iv.var.get(), iv.var->name);
    line(name + " = T.axis." + iterKindName(iv.type) + "(" + dom + ", " + value + ")");
  };
  size_t i = 0;
  while (i < n) {
    size_t j = i;
    while (j < n && remappable(j)) ++j;
    if (j - i >= 2) {
      std::string kinds, values, names;
      for (size_t k = i; k < j; ++k) {
        kinds += block->iterVars[k].type == IterVarType::kDataPar ? "S" : "R";
        values += (k > i ? ", " : "") + expr(realize->iterValues[k]);
      }
      for (size_t k = i; k < j; ++k) {
        const Var& v = block->iterVars[k].var;
        names += (k > i ? ", " : "") + define(v.get(), v->name);
      }
      line(names + " = T.axis.remap(" + quoted(kinds) + ", [" + values + "])");
      i = j;
      continue;
    }
    single(i);
    ++i;
  }
}

void Printer::printBlockHeader(const BlockRealizeNode* realize) {
  const BlockNode* block = realize->block.get();
  printIterVars(realize);
  if (!isTrue(realize->predicate)) line("T.where(" + expr(realize->predicate) + ")");
  std::string reads, writes;
  for (const BufferRegion& r : block->reads) reads += (reads.empty() ? "" : ", ") + region(r);
  for (const BufferRegion& r : block->writes) writes += (writes.empty() ? "" : ", ") + region(r);
  line("T.reads(" + reads + ")");
  line("T.writes(" + writes + ")");
  if (!block->annotations.empty()) line("T.block_attr(" + dictScript(block->annotations) + ")");
}

void Printer::printBlockRealize(const BlockRealizeNode* realize) {
  const BlockNode* block = realize->block.get();
  bool root = block->name == "root" && block->iterVars.empty() && isTrue(realize->predicate) &&
              block->annotations.empty() && !block->init && block->matchBuffers.empty();
  if (root) {
    // The root block prints as a comment; its allocations and body stay at this level.
    line("# with T.block(\"root\"):");
    for (const Buffer& b : block->allocBuffers) printBufferDecl(b.get(), "T.alloc_buffer(", false);
    printLast(block->body);
    return;
  }
  line("with T.block(" + quoted(block->name) + "):");
  ++indent_;
  pushScope();
  printBlockHeader(realize);
  for (const Buffer& b : block->allocBuffers) printBufferDecl(b.get(), "T.alloc_buffer(", false);
  for (const MatchBufferRegion& m : block->matchBuffers)
    printBufferDecl(m.buffer.get(), "T.match_buffer(" + region(m.source) + ", ", false);
  if (block->init) {
    line("with T.init():");
    printBody(block->init);
  }
  printLast(block->body);
  popScope();
  --indent_;
}

void Printer::printFunction(const PrimFuncNode& func, int indent) {
  indent_ = indent;
  pushScope();
  implicitDefs_ = placeImplicitDefs(func);
  const AttrValue* symbol = func.attrs.find("global_symbol");
  line(symbol ? "@T.prim_func" : "@T.prim_func(private=True)");
  std::string params;
  std::vector<std::pair<const VarNode*, const BufferNode*>> matched;
  for (const Var& p : func.params) {
    if (!params.empty()) params += ", ";
    Buffer b = func.bufferOf(p);
    if (!b) {
      params += define(p.get(), p->name) + ": T." + p->dtype.name();
      continue;
    }
    if (isSimpleParamBuffer(*b)) {
      std::string name = define(b.get(), b->name);
      names_[b->data.get()] = name + ".data";
      params += name + ": T.Buffer(" + shapeTuple(b->shape) + ", " + quoted(b->dtype.name()) + ")";
      continue;
    }
    params += define(p.get(), p->name) + ": T.handle";
    matched.emplace_back(p.get(), b.get());
  }
  line("def " + func.name + "(" + params + "):");
  ++indent_;
  DictAttrs attrs = func.attrs;
  if (symbol && symbol->kind() == AttrValue::Kind::kString && symbol->asString() == func.name)
    attrs.erase("global_symbol");
  if (!attrs.empty()) line("T.func_attr(" + dictScript(attrs) + ")");
  for (const auto& [param, b] : matched) {
    // A symbolic dimension is declared right before the first buffer that mentions it.
    auto declareVars = [&](const PrimExpr& e) {
      postOrderVisitExpr(e, [&](const PrimExpr& x) {
        const auto* v = x->as<VarNode>();
        if (!v || names_.count(v)) return;
        line(define(v, v->name) + " = T." + v->dtype.name() + "()");
      });
    };
    for (const PrimExpr& d : b->shape) declareVars(d);
    for (const PrimExpr& s : b->strides) declareVars(s);
    if (b->elemOffset) declareVars(b->elemOffset);
    printBufferDecl(b, "T.match_buffer(" + nameOf(param) + ", ", false);
  }
  printImplicitDefs(nullptr);
  concise_ = true;
  if (func.body)
    printStmt(func.body);
  else
    line("T.evaluate(0)");
  --indent_;
  popScope();
  implicitDefs_.clear();
}

}  // namespace script

std::string toScript(const PrimFunc& func) {
  script::Printer p;
  p.printFunction(*func, 0);
  return p.take();
}

std::string toScript(const TirModule& module) {
  std::string out = "# from tvm.script import ir as I\n# from tvm.script import tir as T\n\n";
  out += "@I.ir_module\nclass Module:\n";
  bool first = true;
  for (const PrimFunc& f : module.functions()) {
    if (!first) out += "\n";
    first = false;
    script::Printer p;
    p.printFunction(*f, 1);
    out += p.take();
  }
  return out;
}

std::string toString(const PrimExpr& e) {
  script::Printer p;
  return p.expr(e);
}

std::string toString(const Stmt& s) {
  script::Printer p;
  p.printLooseStmt(s);
  return p.take();
}

}  // namespace tessera::tir
