// Schedule::Impl helpers: locating statements by identity, rebuilding ancestors around a
// replacement, RV tables and trace recording.
#include "tir/schedule/schedule_state.h"

#include <functional>

#include "support/check.h"
#include "tir/functor.h"
#include "tir/stmt_children.h"

namespace tessera::tir {

// --- StmtPath ----------------------------------------------------------------------------------

int StmtPath::scopeIndex() const {
  for (int i = static_cast<int>(chain.size()) - 2; i >= 0; --i) {
    if (chain[i]->kind == StmtKind::kBlock) return i;
  }
  return -1;
}

const BlockNode* StmtPath::scopeBlock() const {
  int i = scopeIndex();
  return i < 0 ? nullptr : chain[i]->as<BlockNode>();
}

std::vector<For> StmtPath::loops() const {
  std::vector<For> out;
  for (size_t i = scopeIndex() + 1; i + 1 < chain.size(); ++i) {
    if (chain[i]->kind == StmtKind::kFor)
      out.push_back(std::static_pointer_cast<const ForNode>(chain[i]));
  }
  return out;
}

// --- the current function ------------------------------------------------------------------------

PrimFunc Schedule::Impl::func(const std::string& primitive) const {
  PrimFunc f = funcName.empty() ? nullptr : mod.find(funcName);
  if (!f)
    throwScheduleError(primitive,
                       "no function is being worked on; specify the function name or call work_on");
  return f;
}

void Schedule::Impl::commit(Stmt newBody) {
  auto f = std::make_shared<PrimFuncNode>(*func());
  f->body = std::move(newBody);
  mod.add(f);
}

void Schedule::Impl::commit(PrimFunc newFunc) {
  mod.add(std::move(newFunc));
}

// --- locating statements -------------------------------------------------------------------------

std::optional<StmtPath> findPath(const Stmt& root, const std::function<bool(const Stmt&)>& match) {
  std::vector<Stmt> chain = findStmtChain(root, match);
  if (chain.empty()) return std::nullopt;
  return StmtPath{std::move(chain)};
}

std::optional<StmtPath> Schedule::Impl::findBlock(uint64_t id) const {
  return findPath(func()->body, [id](const Stmt& s) {
    const auto* b = s->as<BlockNode>();
    return b && b->id == id;
  });
}

std::optional<StmtPath> Schedule::Impl::findLoop(const VarNode* loopVar) const {
  return findPath(func()->body, [loopVar](const Stmt& s) {
    const auto* f = s->as<ForNode>();
    return f && f->loopVar.get() == loopVar;
  });
}

StmtPath Schedule::Impl::blockPath(const std::string& primitive, const BlockRV& rv) const {
  auto it = blockRVs.find(rv.id);
  if (it == blockRVs.end())
    throwScheduleError(
        primitive,
        "the block random variable is not defined in this schedule (it may have been removed)");
  auto path = findBlock(it->second);
  if (!path)
    throwScheduleError(
        primitive, "the block referenced by the random variable no longer exists in the function");
  return *path;
}

StmtPath Schedule::Impl::loopPath(const std::string& primitive, const LoopRV& rv) const {
  auto it = loopRVs.find(rv.id);
  if (it == loopRVs.end())
    throwScheduleError(
        primitive,
        "the loop random variable is not defined in this schedule (it may have been removed)");
  if (it->second == rootMark() || it->second == inlineMark()) {
    throwScheduleError(
        primitive,
        "the loop random variable is a compute-location mark (root or inline), not a loop");
  }
  auto path = findLoop(it->second.get());
  if (!path)
    throwScheduleError(primitive,
                       "the loop '" + it->second->name +
                           "' referenced by the random variable no longer exists in the function");
  return *path;
}

const BlockNode* Schedule::Impl::block(const std::string& primitive, const BlockRV& rv) const {
  return blockPath(primitive, rv).stmt()->as<BlockNode>();
}

const ForNode* Schedule::Impl::loop(const std::string& primitive, const LoopRV& rv) const {
  return loopPath(primitive, rv).stmt()->as<ForNode>();
}

const BlockRealizeNode* Schedule::Impl::realizeOf(const StmtPath& blockPath) {
  TS_CHECK(blockPath.chain.size() >= 2) << "a block path has a realize above the block";
  const auto* r = blockPath.parent()->as<BlockRealizeNode>();
  TS_CHECK(r) << "a block is always directly under its realize";
  return r;
}

// --- rebuilding
// ------------------------------------------------------------------------------------

Stmt Schedule::Impl::replaceChild(const Stmt& parent, const StmtNode* oldChild, Stmt newChild) {
  switch (parent->kind) {
    case StmtKind::kFor: {
      auto n = std::make_shared<ForNode>(*parent->as<ForNode>());
      TS_CHECK(n->body.get() == oldChild) << "replaceChild: not a child";
      n->body = newChild ? newChild : seq({});
      return n;
    }
    case StmtKind::kSeqStmt: {
      std::vector<Stmt> items;
      for (const Stmt& c : parent->as<SeqStmtNode>()->seq) {
        items.push_back(c.get() == oldChild ? newChild : c);
      }
      return seq(std::move(items));
    }
    case StmtKind::kBlockRealize: {
      const auto* r = parent->as<BlockRealizeNode>();
      TS_CHECK(newChild && newChild->kind == StmtKind::kBlock) << "a realize holds a block";
      return blockRealize(r->iterValues, r->predicate,
                          std::static_pointer_cast<const BlockNode>(newChild));
    }
    case StmtKind::kBlock: {
      auto n = copyBlock(*parent->as<BlockNode>());
      if (n->init.get() == oldChild) {
        n->init = newChild;
      } else {
        TS_CHECK(n->body.get() == oldChild) << "replaceChild: not a child";
        n->body = newChild ? newChild : seq({});
      }
      return n;
    }
    case StmtKind::kIfThenElse: {
      const auto* s = parent->as<IfThenElseNode>();
      return ifThenElse(s->condition, s->thenCase.get() == oldChild ? newChild : s->thenCase,
                        s->elseCase.get() == oldChild ? newChild : s->elseCase);
    }
    case StmtKind::kLetStmt: {
      const auto* s = parent->as<LetStmtNode>();
      return letStmt(s->var, s->value, newChild);
    }
    case StmtKind::kAttrStmt: {
      const auto* s = parent->as<AttrStmtNode>();
      return attrStmt(s->node, s->key, s->value, newChild);
    }
    case StmtKind::kAssertStmt: {
      const auto* s = parent->as<AssertStmtNode>();
      return assertStmt(s->condition, s->message, newChild);
    }
    case StmtKind::kAllocate: {
      const auto* s = parent->as<AllocateNode>();
      return allocate(s->bufferVar, s->dtype, s->extents, s->scope, newChild);
    }
    case StmtKind::kDeclBuffer:
      return declBuffer(parent->as<DeclBufferNode>()->buffer, newChild);
    case StmtKind::kBufferStore:
    case StmtKind::kEvaluate:
      break;
  }
  TS_CHECK(false) << "replaceChild: statement has no children";
  return nullptr;
}

Stmt Schedule::Impl::replaceInBody(const StmtPath& path, Stmt replacement) {
  Stmt cur = std::move(replacement);
  for (size_t i = path.chain.size() - 1; i > 0; --i) {
    cur = replaceChild(path.chain[i - 1], path.chain[i].get(), cur);
  }
  TS_CHECK(cur) << "the function body cannot be removed";
  return cur;
}

// --- RVs -----------------------------------------------------------------------------------------

BlockRV Schedule::Impl::newBlockRV(uint64_t blockId) {
  BlockRV rv{nextRV++};
  blockRVs[rv.id] = blockId;
  return rv;
}

LoopRV Schedule::Impl::newLoopRV(Var loopVar) {
  LoopRV rv{nextRV++};
  loopRVs[rv.id] = std::move(loopVar);
  return rv;
}

ExprRV Schedule::Impl::newExprRV(int64_t value) {
  ExprRV rv{nextRV++};
  exprRVs[rv.id] = value;
  return rv;
}

int64_t Schedule::Impl::exprValue(const std::string& primitive, const ExprRV& rv) const {
  auto it = exprRVs.find(rv.id);
  if (it == exprRVs.end())
    throwScheduleError(primitive, "the expression random variable is not defined in this schedule");
  return it->second;
}

const Var& Schedule::Impl::rootMark() {
  static const Var mark = makeVar("root");
  return mark;
}

const Var& Schedule::Impl::inlineMark() {
  static const Var mark = makeVar("inline");
  return mark;
}

void Schedule::Impl::record(Instruction inst) {
  if (noRecordDepth > 0) return;
  // The recording primitive and its kind's row live in one file; the arity ties them together.
  const InstructionKind* kind = findInstructionKind(inst.kind);
  TS_CHECK(kind) << "a primitive recorded the unknown instruction kind " << inst.kind;
  const std::string problem = arityProblem(*kind, inst);
  TS_CHECK(problem.empty()) << "a primitive recorded " << problem;
  trace.append(std::move(inst));
}

// --- free helpers --------------------------------------------------------------------------------

std::vector<Block> childBlocks(const Stmt& stmt) {
  std::vector<Block> out;
  // Start below `stmt` itself when it is a block, so its own children are collected.
  Stmt start = stmt;
  if (const auto* b = stmt->as<BlockNode>()) start = b->body;
  preOrderVisit(start, [&](const Stmt& s) {
    if (const auto* r = s->as<BlockRealizeNode>()) {
      out.push_back(r->block);
      return false;
    }
    return true;
  });
  return out;
}

AttrValue traceBool(bool value) {
  return AttrValue::integer(value ? 1 : 0);
}

}  // namespace tessera::tir
