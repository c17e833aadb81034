// InjectCoProcSync for VTA (spec vta.md §6.6): the dependency tokens between the load (1), compute
// (2) and store (3) queues, and the final synchronisation.
//
// Each `coproc_scope = q` statement is a unit entering and leaving queue q. Walking a sequence,
// each unit is linked to the one before it: when the first leaves another queue than the second
// enters, the first pushes a token at its end and the second pops it at its start. A loop is a
// unit made of its body, linked around once more (the next iteration waits for this one); its
// pushes and pops at the seam are what it pushes and pops as a whole. A token pushed by one unit
// that the next does not pop is drained right after it; one the next pops that nobody pushed is
// pre-seeded right before it. Around the whole body, tokens the first unit pops are pre-seeded and
// tokens the last one pushes are drained, so a call leaves the queues as it found them, and
// `vta.coproc_sync()` ends the body. Other statements with a body (attributes such as a virtual
// thread, lets, declarations) are transparent: linking one links the unit it starts or ends with.
#include <set>

#include "support/diagnostic.h"
#include "tir/functor.h"
#include "tir/transform/pass_util.h"
#include "vta/tir/passes.h"

namespace tessera::vta {

namespace {

using namespace tir;
using Pair = std::pair<int64_t, int64_t>;

Stmt depCall(const char* name, const Pair& p) {
  return evaluate(call(DataType::int32(), name, {intImm(p.first), intImm(p.second)}));
}

struct Node {
  enum Kind { kPlain, kScope, kLoop, kWrapper } kind = kPlain;
  Stmt stmt;
  std::vector<Node> children;  // kLoop / kWrapper: the body, flattened
  bool unit = false;
  std::set<int64_t> enter, exit;
  std::set<Pair> enterPop, exitPush;
  std::vector<Stmt> atStart, atEnd;          // the unit's own pops and pushes
  std::vector<Stmt> seedBefore, drainAfter;  // at the level of the enclosing sequence
  Node* first = nullptr;                     // kWrapper: the units it forwards to
  Node* last = nullptr;
};

// A wrapper is transparent: linking it links the unit it starts (ends) with.
Node& head(Node& n) {
  return n.kind == Node::kWrapper ? head(*n.first) : n;
}
Node& tail(Node& n) {
  return n.kind == Node::kWrapper ? tail(*n.last) : n;
}

bool holdsScope(const Stmt& s) {
  bool found = false;
  preOrderVisit(s, [&](const Stmt& x) {
    if (const auto* a = x->as<AttrStmtNode>(); a && a->key == "coproc_scope") found = true;
    return !found;
  });
  return found;
}

Stmt bodyOf(const Stmt& s) {
  if (const auto* a = s->as<AttrStmtNode>()) return a->body;
  if (const auto* l = s->as<LetStmtNode>()) return l->body;
  if (const auto* d = s->as<DeclBufferNode>()) return d->body;
  if (const auto* a = s->as<AllocateNode>()) return a->body;
  return nullptr;
}

void build(const Stmt& s, std::vector<Node>& out) {
  if (!s) return;
  if (const auto* q = s->as<SeqStmtNode>()) {
    for (const Stmt& c : q->seq) build(c, out);
    return;
  }
  Node n;
  n.stmt = s;
  if (const auto* a = s->as<AttrStmtNode>(); a && a->key == "coproc_scope") {
    const int64_t* queue = asConstInt(a->value);
    if (!queue) throwDiagnostic("vta_sync", "a coproc_scope needs a constant queue id");
    n.kind = Node::kScope;
    n.unit = true;
    n.enter = n.exit = {*queue};
  } else if (const auto* f = s->as<ForNode>()) {
    n.kind = Node::kLoop;
    build(f->body, n.children);
  } else if (Stmt body = bodyOf(s)) {
    n.kind = Node::kWrapper;
    build(body, n.children);
  } else if (holdsScope(s)) {
    throwDiagnostic("vta_sync", "accelerator scopes under a conditional are not supported");
  }
  out.push_back(std::move(n));
}

// Links consecutive units `prev` -> `next`; returns the token pairs both sides agree on.
std::set<Pair> link(Node& prevUnit, Node& nextUnit) {
  Node& prev = tail(prevUnit);
  Node& next = head(nextUnit);
  if (prev.exitPush.empty() && next.enterPop.empty() && prev.exit.size() == 1 &&
      next.enter.size() == 1) {
    const Pair p{*prev.exit.begin(), *next.enter.begin()};
    if (p.first == p.second) return {};
    prev.atEnd.push_back(depCall("vta.coproc_dep_push", p));
    next.atStart.push_back(depCall("vta.coproc_dep_pop", p));
    prev.exitPush = next.enterPop = {p};
    return {p};
  }
  for (int64_t from : prev.exit)
    for (int64_t to : next.enter) {
      if (from == to) continue;
      const Pair p{from, to};
      if (prev.exitPush.insert(p).second) prev.atEnd.push_back(depCall("vta.coproc_dep_push", p));
      if (next.enterPop.insert(p).second) next.atStart.push_back(depCall("vta.coproc_dep_pop", p));
    }
  std::set<Pair> matched;
  for (const Pair& p : prev.exitPush) {
    if (next.enterPop.count(p))
      matched.insert(p);
    else
      prev.drainAfter.push_back(depCall("vta.coproc_dep_pop", p));
  }
  for (const Pair& p : next.enterPop)
    if (!prev.exitPush.count(p)) next.seedBefore.push_back(depCall("vta.coproc_dep_push", p));
  return matched;
}

std::pair<Node*, Node*> planSequence(std::vector<Node>& list);

void planComposite(Node& n) {
  auto [first, last] = planSequence(n.children);
  if (!first) return;
  n.unit = true;
  n.enter = first->enter;
  n.exit = last->exit;
  if (n.kind == Node::kLoop) {
    n.exitPush = n.enterPop = link(*last, *first);  // the next iteration follows this one
  } else {
    n.first = first;
    n.last = last;
  }
}

std::pair<Node*, Node*> planSequence(std::vector<Node>& list) {
  Node *first = nullptr, *last = nullptr;
  for (Node& n : list) {
    if (n.kind == Node::kLoop || n.kind == Node::kWrapper) planComposite(n);
    if (!n.unit) continue;
    if (last) link(*last, n);
    if (!first) first = &n;
    last = &n;
  }
  return {first, last};
}

Stmt rebuild(const Node& n);

Stmt rebuildSequence(const std::vector<Node>& list) {
  std::vector<Stmt> out;
  for (const Node& n : list) out.push_back(rebuild(n));
  return seq(std::move(out));
}

Stmt with(std::vector<Stmt> before, Stmt s, const std::vector<Stmt>& after) {
  before.push_back(std::move(s));
  before.insert(before.end(), after.begin(), after.end());
  return seq(std::move(before));
}

Stmt rebuild(const Node& n) {
  Stmt s = n.stmt;
  switch (n.kind) {
    case Node::kPlain:
      break;
    case Node::kScope: {
      const auto* a = s->as<AttrStmtNode>();
      s = attrStmt(a->node, a->key, a->value, with(n.atStart, a->body, n.atEnd));
      break;
    }
    case Node::kLoop: {
      auto f = std::make_shared<ForNode>(*s->as<ForNode>());
      f->body = rebuildSequence(n.children);
      s = with(n.atStart, f, n.atEnd);
      break;
    }
    case Node::kWrapper: {
      const Stmt body = rebuildSequence(n.children);
      if (const auto* a = s->as<AttrStmtNode>())
        s = attrStmt(a->node, a->key, a->value, body);
      else if (const auto* l = s->as<LetStmtNode>())
        s = letStmt(l->var, l->value, body);
      else if (const auto* d = s->as<DeclBufferNode>())
        s = declBuffer(d->buffer, body);
      else if (const auto* a = s->as<AllocateNode>())
        s = allocate(a->bufferVar, a->dtype, a->extents, a->scope, body);
      break;
    }
  }
  return with(n.seedBefore, s, n.drainAfter);
}

}  // namespace

PrimFunc injectCoProcSync(const PrimFunc& func) {
  if (!holdsScope(func->body)) return func;
  std::vector<Node> top;
  build(func->body, top);
  auto [first, last] = planSequence(top);
  // Balance the tokens across calls: what the first unit pops is pre-seeded before it, what the
  // last one pushes is drained after it.
  Node& begin = head(*first);
  Node& end = tail(*last);
  std::vector<Stmt> seeds;
  for (const Pair& p : begin.enterPop) seeds.push_back(depCall("vta.coproc_dep_push", p));
  begin.seedBefore.insert(begin.seedBefore.begin(), seeds.begin(), seeds.end());
  for (const Pair& p : end.exitPush) end.drainAfter.push_back(depCall("vta.coproc_dep_pop", p));
  const Stmt sync = evaluate(call(DataType::int32(), "vta.coproc_sync", {}));
  return tir::transform::withBody(func, seq({rebuildSequence(top), sync}));
}

}  // namespace tessera::vta
