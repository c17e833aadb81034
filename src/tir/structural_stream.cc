// TensorIR programs written as canonical token streams.
//
// Every node is written once, field by field as its field list says (`tir/node_fields.h`), into a
// flat list of tokens in which variables and buffers appear as the number of their first
// occurrence instead of their address. Buffers, functions and reducers, which are not nodes, are
// written here.
#include "tir/structural_stream.h"

#include <algorithm>
#include <bit>
#include <string>
#include <unordered_map>
#include <utility>

#include "support/check.h"
#include "tir/node_fields.h"

namespace tessera::tir::structural {

bool sameToken(const Token& a, const Token& b) {
  if (a.tag != b.tag || a.value != b.value || a.text != b.text) return false;
  if (!a.attr || !b.attr) return a.attr == b.attr;
  return *a.attr == *b.attr;
}

uint64_t packDType(DataType t) {
  return static_cast<uint64_t>(t.code()) | static_cast<uint64_t>(t.bits()) << 8 |
         static_cast<uint64_t>(t.lanes()) << 16;
}

DataType unpackDType(uint64_t value) {
  return DataType(static_cast<DataType::Code>(value & 0xff), static_cast<int>(value >> 8 & 0xff),
                  static_cast<int>(value >> 16 & 0xffff));
}

namespace {

// A pending piece of the stream. Composite items (an expression, a statement, a declaration) are
// expanded when popped, so numbers are handed out in stream order.
enum class ItemKind : uint8_t { kToken, kExpr, kStmt, kVarDef, kBufferDef, kBufferUse };

struct Item {
  ItemKind kind;
  // kExpr: variables first seen inside this expression are definitions (buffer shapes, the data
  // handle, an AttrStmt's node) rather than free uses.
  bool defining = false;
  const void* node = nullptr;
  Token token{};
};

// Writes programs as token streams with an explicit stack (expression chains and statement nests
// can be deeper than the call stack allows). Each node is expanded by reading its field list
// (`tir/node_fields.h`) with the role methods below.
class Serializer : public FieldVisitor<Serializer> {
 public:
  std::vector<Token> tokens;
  std::vector<const VarNode*> freeVars;

  void addExpr(const PrimExpr& e) { push(exprItem(e, false)); }
  void addStmt(const Stmt& s) { push(stmtItem(s)); }
  void addBuffer(const Buffer& b) {
    push(b ? Item{ItemKind::kBufferDef, false, b.get()} : tokenItem(Tag::kAbsent, 0, "buffer"));
  }
  void addFunc(const PrimFunc& f);

  void run() {
    while (!stack_.empty()) {
      Item item = stack_.back();
      stack_.pop_back();
      expand(item);
    }
  }

 private:
  static Item tokenItem(Tag tag, uint64_t value, const char* what) {
    return Item{ItemKind::kToken, false, nullptr, Token{tag, value, {}, nullptr, what}};
  }
  static Item exprItem(const PrimExpr& e, bool defining) {
    if (!e) return tokenItem(Tag::kAbsent, 0, "expression");
    return Item{ItemKind::kExpr, defining, e.get()};
  }
  static Item stmtItem(const Stmt& s) {
    if (!s) return tokenItem(Tag::kAbsent, 0, "statement");
    return Item{ItemKind::kStmt, false, s.get()};
  }
  void push(Item item) { stack_.push_back(item); }

  // --- the roles of the field lists: each appends to the expansion of the current item ----------
 public:
  void expr(const PrimExpr& e) { pending_.push_back(exprItem(e, defining_)); }
  void stmt(const Stmt& s) { pending_.push_back(stmtItem(s)); }
  void block(const Block& b) { stmt(b); }
  void varDef(const Var& v) {
    TS_CHECK(v) << "structural equality: a null variable definition";
    pending_.push_back(Item{ItemKind::kVarDef, false, v.get()});
  }
  // "thread_extent" introduces its thread variable here, so a first sighting is a definition.
  void attrSubject(const Var& v) { defExpr(v); }
  void bufferDef(const Buffer& b) {
    TS_CHECK(b) << "structural equality: a null buffer declaration";
    pending_.push_back(Item{ItemKind::kBufferDef, false, b.get()});
  }
  void bufferUse(const Buffer& b) {
    TS_CHECK(b) << "structural equality: a null buffer reference";
    pending_.push_back(Item{ItemKind::kBufferUse, false, b.get()});
  }
  void reducer(const CommReducerRef& combiner) {
    TS_CHECK(combiner) << "structural equality: a Reduce without a combiner";
    const CommReducer& c = *combiner;
    text(c.name, "reducer name");
    count(c.lhs.size(), "reducer arity");
    for (const Var& v : c.lhs) varDef(v);
    count(c.rhs.size(), "reducer arity");
    for (const Var& v : c.rhs) varDef(v);
    exprs(c.result, "reducer results");
    exprs(c.identity, "reducer identities");
  }
  void count(size_t n, const char* what) { tok(Tag::kCount, n, what); }
  void value(int v, const char* what) { integer(v, what); }
  void value(int64_t v, const char* what) { integer(v, what); }
  void value(IterVarType v, const char* what) { integer(static_cast<int64_t>(v), what); }
  void value(double v, const char* what) { tok(Tag::kFloat, std::bit_cast<uint64_t>(v), what); }
  void value(const std::string& s, const char* what) { text(s, what); }
  void value(BinaryOp op, const char* what) {
    tok(Tag::kBinaryOp, static_cast<uint64_t>(op), what);
  }
  void value(ForKind k, const char* what) { tok(Tag::kForKind, static_cast<uint64_t>(k), what); }
  void value(DataType t, const char* what) { tok(Tag::kDType, packDType(t), what); }
  void value(const Annotations& d, const char* what) { attrs(d, what); }

 private:
  void tok(Tag tag, uint64_t value, const char* what) {
    pending_.push_back(tokenItem(tag, value, what));
  }
  void text(std::string_view s, const char* what) {
    pending_.push_back(
        Item{ItemKind::kToken, false, nullptr, Token{Tag::kString, 0, s, nullptr, what}});
  }
  void dtype(DataType t) { tok(Tag::kDType, packDType(t), "dtype"); }
  void integer(int64_t v, const char* what) { tok(Tag::kInt, static_cast<uint64_t>(v), what); }
  void defExpr(const PrimExpr& e) { pending_.push_back(exprItem(e, true)); }
  void attrs(const DictAttrs& d, const char* what) {
    // Sorted by key: dictionaries are sets, and the stream must not depend on insertion order.
    std::vector<const std::pair<std::string, AttrValue>*> entries;
    for (const auto& entry : d.entries()) entries.push_back(&entry);
    std::sort(entries.begin(), entries.end(),
              [](const auto* a, const auto* b) { return a->first < b->first; });
    count(entries.size(), what);
    for (const auto* entry : entries)
      pending_.push_back(Item{ItemKind::kToken, false, nullptr,
                              Token{Tag::kAttr, 0, entry->first, &entry->second, what}});
  }

  // --- expansion ---------------------------------------------------------------------------------
  void expand(const Item& item) {
    defining_ = item.defining;
    switch (item.kind) {
      case ItemKind::kToken:
        tokens.push_back(item.token);
        break;
      case ItemKind::kVarDef:
        defineVar(static_cast<const VarNode*>(item.node));
        break;
      case ItemKind::kBufferDef:
        declareBuffer(static_cast<const BufferNode*>(item.node));
        break;
      case ItemKind::kBufferUse:
        useBuffer(static_cast<const BufferNode*>(item.node));
        break;
      case ItemKind::kExpr:
        expandExpr(*static_cast<const PrimExprNode*>(item.node));
        break;
      case ItemKind::kStmt:
        expandStmt(*static_cast<const StmtNode*>(item.node));
        break;
    }
    flush();
  }

  // Moves the expansion onto the stack, reversed so that its first item is popped first.
  void flush() {
    for (size_t i = pending_.size(); i-- > 0;) stack_.push_back(pending_[i]);
    pending_.clear();
  }

  // A definition always takes a fresh number, so a variable bound twice (a reducer shared by the
  // Reduce nodes of a tuple reduction) matches two distinct variables on the other side.
  void defineVar(const VarNode* v) { numberVar(v, Tag::kVarDef, "variable definition"); }

  void useVar(const VarNode* v, bool defining) {
    auto it = ids_.find(v);
    if (it != ids_.end()) {
      tokens.push_back(Token{Tag::kVarUse, it->second, {}, nullptr, "variable"});
      return;
    }
    if (defining) return defineVar(v);
    freeVars.push_back(v);
    numberVar(v, Tag::kFreeVar, "free variable");
  }

  void numberVar(const VarNode* v, Tag tag, const char* what) {
    uint64_t id = nextId_++;
    ids_[v] = id;
    tokens.push_back(Token{tag, id, {}, nullptr, what});
    tokens.push_back(Token{Tag::kDType, packDType(v->dtype), {}, nullptr, "variable dtype"});
    tokens.push_back(Token{Tag::kInt, v->sizeVar, {}, nullptr, "size var"});
  }

  void declareBuffer(const BufferNode* b) {
    uint64_t id = nextId_++;
    ids_[b] = id;
    tokens.push_back(Token{Tag::kBufferDef, id, {}, nullptr, "buffer declaration"});
    bufferFields(*b, true);
  }

  // A buffer used without a declaration (a view made by lowering, or any buffer of a bare
  // statement) is declared implicitly at its first use. Its data variable is then an ordinary
  // use, not a definition, so it anchors the buffer: free data means a free buffer.
  void useBuffer(const BufferNode* b) {
    auto it = ids_.find(b);
    if (it != ids_.end()) {
      tokens.push_back(Token{Tag::kBufferUse, it->second, {}, nullptr, "buffer"});
      return;
    }
    uint64_t id = nextId_++;
    ids_[b] = id;
    tokens.push_back(Token{Tag::kBufferFirstUse, id, {}, nullptr, "undeclared buffer"});
    bufferFields(*b, false);
  }

  // The name is not a field: buffers, like variables, are identified by where they are declared.
  void bufferFields(const BufferNode& b, bool declared) {
    pending_.push_back(exprItem(b.data, declared));
    dtype(b.dtype);
    count(b.shape.size(), "buffer rank");
    for (const PrimExpr& e : b.shape) defExpr(e);
    count(b.strides.size(), "buffer strides");
    for (const PrimExpr& e : b.strides) defExpr(e);
    defExpr(b.elemOffset);
    text(b.scope, "buffer scope");
    integer(b.dataAlignment, "buffer alignment");
    integer(b.offsetFactor, "buffer offset factor");
  }

  void expandExpr(const PrimExprNode& e);
  void expandStmt(const StmtNode& s);

  std::vector<Item> stack_;
  std::vector<Item> pending_;
  bool defining_ = false;
  // Looked up only, never iterated: addresses decide nothing about the stream's order.
  std::unordered_map<const void*, uint64_t> ids_;
  uint64_t nextId_ = 0;
};

void Serializer::addFunc(const PrimFunc& f) {
  if (!f) return push(tokenItem(Tag::kAbsent, 0, "function"));
  tok(Tag::kFunc, 0, "function");
  count(f->params.size(), "parameter count");
  for (const Var& p : f->params) varDef(p);
  count(f->bufferMap.size(), "buffer map size");
  for (const auto& [param, buffer] : f->bufferMap) {
    expr(param);
    bufferDef(buffer);
  }
  attrs(f->attrs, "function attributes");
  stmt(f->body);
  flush();
}

void Serializer::expandExpr(const PrimExprNode& e) {
  if (e.kind == ExprKind::kVar) return useVar(static_cast<const VarNode*>(&e), defining_);
  tok(Tag::kExprKind, static_cast<uint64_t>(e.kind), "expression kind");
  dtype(e.dtype);
  withExprNode(e, [this](const auto& node) { readFields(node, *this); });
}

void Serializer::expandStmt(const StmtNode& s) {
  tok(Tag::kStmtKind, static_cast<uint64_t>(s.kind), "statement kind");
  withStmtNode(s, [this](const auto& node) { readFields(node, *this); });
}

template <typename T>
Stream serialize(const T& root, void (Serializer::*add)(const T&)) {
  Serializer s;
  (s.*add)(root);
  s.run();
  return {std::move(s.tokens), std::move(s.freeVars)};
}

}  // namespace

Stream streamOf(const PrimExpr& e) {
  return serialize(e, &Serializer::addExpr);
}
Stream streamOf(const Stmt& s) {
  return serialize(s, &Serializer::addStmt);
}
Stream streamOf(const Buffer& b) {
  return serialize(b, &Serializer::addBuffer);
}
Stream streamOf(const PrimFunc& f) {
  return serialize(f, &Serializer::addFunc);
}

}  // namespace tessera::tir::structural
