// The Relay text printer (spec §2.4–2.6). It follows TVM's RelayTextPrinter step for step, because
// printed IR is compared byte for byte with TVM's: one temporary counter for the whole job, a
// post-order walk of each body's dataflow graph (callee first, then arguments), and a node's text
// built from its children (arguments, then attributes, then callee). The dataflow walk uses an
// explicit stack; only true nesting (function bodies, if branches, lets used as values) recurses,
// and that is capped.
#include "relay/text/printer.h"

#include <cctype>
#include <unordered_map>
#include <unordered_set>

#include "relay/op_registry.h"
#include "relay/text/metadata.h"
#include "relay/text/print_values.h"
#include "relay/visit.h"
#include "support/diagnostic.h"

namespace tessera::relay {

namespace {

using text::attrsItems;
using text::attrValueText;

// Nested scopes deeper than this would risk the stack; the parser caps its input at 500 levels.
constexpr int kMaxPrintNesting = 1000;

class Printer {
 public:
  explicit Printer(const PrintOptions& options) : options_(options), exact_(options.metadata) {}

  std::string module(const IRModule& module) {
    std::string out;
    int counter = 0;
    for (const auto& [name, fn] : module.functions()) {
      countParents(fn);
      if (counter++ != 0) out += "\n";
      // A definition gets no type comment and is not memoized: it is not an expression.
      out += printFunc("def @" + name, *fn) + "\n";
    }
    return out;
  }

  std::string expr(const Expr& e) {
    countParents(e);
    return printScope(e);
  }

  // The header and the metadata section (or the notice that it was left out).
  std::string finish(const std::string& body) const {
    std::string out = options_.header ? "#[version = \"0.0.5\"]\n" : "";
    out += body;
    if (metaConstants_.empty()) return out;
    if (options_.metadata) return out + "\n#[metadata]\n" + text::encodeMetadata(metaConstants_);
    if (options_.header)
      out +=
          "\n/* For debugging purposes the metadata section has been omitted.\n"
          " * To include it, print with PrintOptions::metadata (`tessera print --metadata`).\n"
          " */";
    return out;
  }

 private:
  // --- the dependency graph: how many references each node has ------------------------------
  void countParents(const Expr& root) {
    parents_.clear();
    postOrderVisit(root, [this](const Expr& node) {
      for (const Expr& child : exprChildren(node)) ++parents_[child.get()];
    });
  }

  bool isUnique(const Expr& e) const {
    auto it = parents_.find(e.get());
    return it == parents_.end() || it->second <= 1;
  }

  static bool alwaysInline(const Expr& e) {
    return e->kind == ExprKind::kGlobalVar || e->kind == ExprKind::kConstant ||
           e->kind == ExprKind::kOp || e->kind == ExprKind::kVar;
  }

  // --- layout -------------------------------------------------------------------------------
  std::string nl() const { return "\n" + std::string(static_cast<size_t>(indent_), ' '); }

  // Lines are produced with the indentation of the block they will appear in, which is known
  // when they are produced: a node's lines go to the scope its parent is printed in.
  std::string printBody(const Expr& body) {
    indent_ += 2;
    std::string inner = nl() + printScope(body);
    indent_ -= 2;
    return "{" + inner + nl() + "}";
  }

  std::string printScope(const Expr& node) {
    docStack_.emplace_back();
    std::string printed = printExpr(node, /*tryInline=*/true);
    std::string doc = std::move(docStack_.back()) + printed;
    docStack_.pop_back();
    return doc;
  }

  // TVM's PrintExpr: inline what is always inlined (and a body's root used once); give every
  // other node a `%N = ...;` line the first time it is printed.
  std::string printExpr(const Expr& e, bool tryInline = false) {
    const bool inlineExpr = alwaysInline(e) || (tryInline && isUnique(e));
    std::string printed;
    if (!inlineExpr && e->kind == ExprKind::kLet) {
      indent_ += 2;
      std::string inner = nl() + visitExpr(e);
      indent_ -= 2;
      printed = "(" + inner + nl() + ")";
    } else {
      printed = visitExpr(e);
    }
    printed += optionalInfo(e);
    const ExprNode* key = e.get();
    if (e->kind == ExprKind::kVar) {
      // A variable first met here, not as a parameter or let binding, is free.
      if (varMemo_.insert(key).second) {
        if (auto it = resultMemo_.find(key); it != resultMemo_.end())
          docStack_.back() += "free_var " + it->second + ";" + nl();
      }
      return memo_[key];
    }
    if (inlineExpr) return memo_[key] = printed;
    if (!varMemo_.insert(key).second) return memo_[key];
    std::string temp = "%" + std::to_string(tempCounter_++);
    memo_[key] = temp;
    docStack_.back() += temp + " = " + printed + ";" + nl();
    return temp;
  }

  // TVM's VisitExpr + ExpandDataflow: visits the unvisited dataflow sub-graph in post order, the
  // callee before the arguments, each node once.
  std::string visitExpr(const Expr& e) {
    if (auto it = memo_.find(e.get()); it != memo_.end()) return it->second;
    struct Frame {
      Expr node;
      bool expanded;
    };
    std::vector<Frame> stack{{e, false}};
    auto push = [&](const Expr& child) {
      if (!memo_.count(child.get())) stack.push_back({child, false});
    };
    while (!stack.empty()) {
      if (memo_.count(stack.back().node.get())) {
        stack.pop_back();
        continue;
      }
      if (stack.back().expanded) {
        Expr node = std::move(stack.back().node);
        stack.pop_back();
        visitLeaf(node);
        continue;
      }
      stack.back().expanded = true;
      const Expr node = stack.back().node;
      // Pushed in reverse so that the callee is visited first, then arguments left to right.
      if (const auto* call = node->as<CallNode>()) {
        for (size_t i = call->args.size(); i-- > 0;) push(call->args[i]);
        push(call->op);
      } else if (const auto* tuple = node->as<TupleNode>()) {
        for (size_t i = tuple->fields.size(); i-- > 0;) push(tuple->fields[i]);
      } else if (const auto* item = node->as<TupleGetItemNode>()) {
        push(item->tuple);
      }
    }
    return memo_.at(e.get());
  }

  void visitLeaf(const Expr& e) {
    if (memo_.count(e.get())) return;
    std::string result = visitNode(e);
    // A variable's node text went to memo_ in allocVar; keep its full declaration for free_var.
    if (memo_.count(e.get()))
      resultMemo_[e.get()] = std::move(result);
    else
      memo_[e.get()] = std::move(result);
  }

  std::string visitNode(const Expr& e) {
    switch (e->kind) {
      case ExprKind::kVar:
        return allocVar(*exprAs<VarNode>(e));
      case ExprKind::kGlobalVar:
        return "@" + e->as<GlobalVarNode>()->name;
      case ExprKind::kOp:
        return e->as<OpNode>()->name;
      case ExprKind::kConstant:
        return constantText(e);
      case ExprKind::kCall:
        return callText(*e->as<CallNode>());
      case ExprKind::kTuple: {
        const auto* tuple = e->as<TupleNode>();
        std::string s = "(";
        for (size_t i = 0; i < tuple->fields.size(); ++i)
          s += (i ? ", " : "") + printExpr(tuple->fields[i]);
        return s + (tuple->fields.size() == 1 ? ",)" : ")");
      }
      case ExprKind::kTupleGetItem: {
        const auto* item = e->as<TupleGetItemNode>();
        return printExpr(item->tuple) + "." + std::to_string(item->index);
      }
      case ExprKind::kIf: {
        NestingGuard guard(*this);
        const auto* node = e->as<IfNode>();
        std::string s = "if (" + printExpr(node->cond) + ") ";
        s += printBody(node->thenBranch);
        return s + " else " + printBody(node->elseBranch);
      }
      case ExprKind::kLet:
        return letText(e);
      case ExprKind::kFunction: {
        NestingGuard guard(*this);
        return printFunc("fn ", *e->as<FunctionNode>());
      }
    }
    return "";
  }

  // --- node kinds ---------------------------------------------------------------------------
  std::string constantText(const Expr& e) {
    const auto* c = e->as<ConstantNode>();
    if (text::isSimpleScalar(*c, exact_)) return text::scalarLiteral(*c, exact_);
    auto [it, added] = metaIndex_.emplace(e.get(), metaConstants_.size());
    if (added) metaConstants_.push_back(exprAs<ConstantNode>(e));
    return "meta[relay.Constant][" + std::to_string(it->second) + "]";
  }

  std::string callText(const CallNode& call) {
    // Arguments first, so their lines come before the callee's (TVM: "this places op closer to
    // its call site").
    std::vector<std::string> items;
    for (const Expr& arg : call.args) items.push_back(printExpr(arg));
    if (call.attrs) {
      const auto* op = call.op->as<OpNode>();
      // The parser needs the type key when the callee is not an op, or (round-trip form) when
      // the attrs are not of the op's declared type.
      const bool withTypeKey =
          !op || (exact_ && std::string(call.attrs->typeKey()) != op->def->attrs.typeKey);
      std::string attrs = attrsItems(*call.attrs, exact_, exact_, withTypeKey);
      if (!attrs.empty()) items.push_back(std::move(attrs));
    }
    std::string s = printExpr(call.op) + "(";
    for (size_t i = 0; i < items.size(); ++i) s += (i ? ", " : "") + items[i];
    return s + ")";
  }

  // A chain of lets prints as consecutive `let` lines; the temporaries of each value land just
  // before its line.
  std::string letText(const Expr& e) {
    NestingGuard guard(*this);
    const size_t base = docStack_.size();
    Expr current = e;
    while (const auto* let = current->as<LetNode>()) {
      std::string line = "let " + allocVar(*let->var) + " = ";
      line += printExpr(let->value, /*tryInline=*/true);
      line += ";" + nl();
      docStack_.push_back(std::move(line));
      current = let->body;
    }
    std::string body = printScope(current);
    std::string out;
    for (size_t i = base; i < docStack_.size(); ++i) out += docStack_[i];
    docStack_.resize(base);
    return out + body;
  }

  std::string printFunc(const std::string& prefix, const FunctionNode& fn) {
    std::string s = prefix + "(";
    std::vector<std::string> items;
    for (const Var& param : fn.params) items.push_back(allocVar(*param));
    for (const auto& [key, value] : fn.attrs.entries())
      items.push_back(key + "=" + attrValueText(value, exact_, exact_));
    for (size_t i = 0; i < items.size(); ++i) s += (i ? ", " : "") + items[i];
    s += ") ";
    if (fn.retType) s += "-> " + typeToString(fn.retType) + " ";
    return s + printBody(fn.body);
  }

  // Declares a variable: a unique name, its annotation and its type comment.
  std::string allocVar(const VarNode& var) {
    // A variable bound twice is malformed IR; TVM prints it anyway, marked.
    if (auto it = memo_.find(&var); it != memo_.end()) return it->second + "-malformed-ir";
    std::string name = var.nameHint;
    if (name.empty() || !std::isalpha(static_cast<unsigned char>(name[0]))) name = "v" + name;
    std::string unique = uniqueName("%" + name);
    memo_[&var] = unique;
    if (var.typeAnnotation) unique += ": " + typeToString(var.typeAnnotation);
    return unique + optionalInfo(var);
  }

  // TVM's GetUniqueName: the first use keeps the name, later ones append 1, 2, ... to it.
  std::string uniqueName(const std::string& prefix) {
    std::string name = prefix;
    if (auto it = nameCounters_.find(prefix); it != nameCounters_.end()) {
      while (true) {
        name = prefix + std::to_string(++it->second);
        if (!nameCounters_.count(name)) break;
      }
    }
    nameCounters_[name] = 0;
    return name;
  }

  // ` /* ty=T span=S */`, once per node.
  std::string optionalInfo(const Expr& e) { return optionalInfo(*e); }
  std::string optionalInfo(const ExprNode& e) {
    if (!optInfoMemo_.insert(&e).second) return "";
    switch (e.kind) {
      case ExprKind::kConstant:
      case ExprKind::kCall:
      case ExprKind::kVar:
      case ExprKind::kFunction:
      case ExprKind::kTuple:
      case ExprKind::kTupleGetItem:
        break;
      case ExprKind::kGlobalVar:
      case ExprKind::kOp:
      case ExprKind::kLet:
      case ExprKind::kIf:
        return "";
    }
    const bool type = options_.types && e.checkedType;
    // Spans at line 0 are provenance labels from frontends; positions in a parsed text file
    // (line >= 1) serve diagnostics and are printed only on request.
    const bool span =
        options_.spans && e.span.defined() && (e.span.line == 0 || options_.textSpans);
    if (!type && !span) return "";
    std::string s = " /*";
    if (type) s += " ty=" + typeToString(e.checkedType);
    if (span) s += " span=" + e.span.str();
    return s + " */";
  }

  class NestingGuard {
   public:
    explicit NestingGuard(Printer& p) : p_(p) {
      if (++p_.nesting_ > kMaxPrintNesting)
        throwDiagnostic("print_depth", "functions, ifs and lets are nested deeper than " +
                                           std::to_string(kMaxPrintNesting) +
                                           " levels; the printer does not go deeper");
    }
    ~NestingGuard() { --p_.nesting_; }
    NestingGuard(const NestingGuard&) = delete;
    NestingGuard& operator=(const NestingGuard&) = delete;

   private:
    Printer& p_;
  };

  const PrintOptions& options_;
  const bool exact_;  ///< the round-trip form: floats with all needed digits, attrs type keys
  int indent_ = 0;
  int nesting_ = 0;
  int tempCounter_ = 0;
  std::vector<std::string> docStack_;
  std::unordered_map<const ExprNode*, std::string> memo_;
  std::unordered_map<const ExprNode*, std::string> resultMemo_;
  std::unordered_set<const ExprNode*> varMemo_;
  std::unordered_set<const ExprNode*> optInfoMemo_;
  std::unordered_map<std::string, int> nameCounters_;
  std::unordered_map<const ExprNode*, int> parents_;
  std::unordered_map<const ExprNode*, size_t> metaIndex_;
  std::vector<Constant> metaConstants_;
};

}  // namespace

std::string printModule(const IRModule& module, const PrintOptions& options) {
  Printer printer(options);
  return printer.finish(printer.module(module));
}

std::string printExpr(const Expr& e, const PrintOptions& options) {
  Printer printer(options);
  return printer.finish(printer.expr(e));
}

std::string printRoundTrip(const IRModule& module) {
  PrintOptions options;
  options.header = true;
  options.metadata = true;
  return printModule(module, options);
}

}  // namespace tessera::relay
