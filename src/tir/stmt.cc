#include "tir/stmt.h"

#include <atomic>

#include "support/check.h"
#include "tir/function.h"

namespace tessera::tir {

// --- buffers -------------------------------------------------------------------------------------

Buffer makeBuffer(std::string name, std::vector<PrimExpr> shape, DataType dtype,
                  std::string scope) {
  auto b = std::make_shared<BufferNode>();
  b->data = makeVar(name, DataType::handle());
  b->name = std::move(name);
  b->dtype = dtype;
  b->shape = std::move(shape);
  b->scope = std::move(scope);
  return b;
}

Buffer withShape(const Buffer& buffer, std::vector<PrimExpr> shape) {
  auto b = std::make_shared<BufferNode>(*buffer);
  b->shape = std::move(shape);
  b->strides.clear();
  return b;
}

BufferRegion fullRegion(const Buffer& buffer) {
  BufferRegion r{buffer, {}};
  for (const PrimExpr& d : buffer->shape) r.region.push_back(Range{intImm(0, d->dtype), d});
  return r;
}

// --- statements ----------------------------------------------------------------------------------

const char* forKindName(ForKind kind) {
  switch (kind) {
    case ForKind::kSerial:
      return "serial";
    case ForKind::kParallel:
      return "parallel";
    case ForKind::kVectorized:
      return "vectorized";
    case ForKind::kUnrolled:
      return "unroll";
    case ForKind::kThreadBinding:
      return "thread_binding";
  }
  return "?";
}

uint64_t BlockNode::nextId() {
  static std::atomic<uint64_t> counter{1};
  return counter.fetch_add(1);
}

Stmt bufferStore(Buffer buffer, PrimExpr value, std::vector<PrimExpr> indices) {
  TS_CHECK(buffer && value) << "bufferStore needs a buffer and a value";
  return std::make_shared<BufferStoreNode>(std::move(buffer), std::move(value), std::move(indices));
}
Stmt maskedStore(Buffer buffer, PrimExpr mask, PrimExpr value, std::vector<PrimExpr> indices) {
  TS_CHECK(mask && value && mask->dtype.lanes() > 1 && mask->dtype.lanes() == value->dtype.lanes())
      << "maskedStore needs a vector mask of the value's lanes";
  PrimExpr current = std::make_shared<BufferLoadNode>(value->dtype, buffer, indices);
  PrimExpr blend = call(value->dtype, "tir.if_then_else", {mask, value, current});
  return bufferStore(std::move(buffer), std::move(blend), std::move(indices));
}
MaskedStoreParts maskedStoreParts(const BufferStoreNode& op) {
  const auto* blend = op.value->as<CallNode>();
  if (!blend || blend->op != "tir.if_then_else" || blend->args.size() != 3 ||
      blend->args[0]->dtype.lanes() <= 1)
    return {};
  const auto* current = blend->args[2]->as<BufferLoadNode>();
  if (!current || current->buffer != op.buffer || current->indices.size() != op.indices.size())
    return {};
  for (size_t i = 0; i < op.indices.size(); ++i)
    if (!deepEqual(current->indices[i], op.indices[i])) return {};
  return {blend->args[0], blend->args[1]};
}
Stmt evaluate(PrimExpr value) {
  return std::make_shared<EvaluateNode>(std::move(value));
}
Stmt letStmt(Var var, PrimExpr value, Stmt body) {
  return std::make_shared<LetStmtNode>(std::move(var), std::move(value), std::move(body));
}
Stmt attrStmt(Var node, std::string key, PrimExpr value, Stmt body) {
  return std::make_shared<AttrStmtNode>(std::move(node), std::move(key), std::move(value),
                                        std::move(body));
}
Stmt assertStmt(PrimExpr condition, std::string message, Stmt body) {
  return std::make_shared<AssertStmtNode>(std::move(condition), std::move(message),
                                          std::move(body));
}
Stmt ifThenElse(PrimExpr condition, Stmt thenCase, Stmt elseCase) {
  return std::make_shared<IfThenElseNode>(std::move(condition), std::move(thenCase),
                                          std::move(elseCase));
}
Stmt forLoop(Var loopVar, PrimExpr min, PrimExpr extent, ForKind kind, Stmt body) {
  return std::make_shared<ForNode>(std::move(loopVar), std::move(min), std::move(extent), kind,
                                   std::move(body));
}

Stmt seq(std::vector<Stmt> stmts) {
  std::vector<Stmt> flat;
  for (Stmt& s : stmts) {
    if (!s) continue;
    if (const auto* inner = s->as<SeqStmtNode>()) {
      for (const Stmt& x : inner->seq) flat.push_back(x);
    } else {
      flat.push_back(std::move(s));
    }
  }
  if (flat.size() == 1) return flat[0];
  return std::make_shared<SeqStmtNode>(std::move(flat));
}

Stmt blockRealize(std::vector<PrimExpr> iterValues, PrimExpr predicate, Block block) {
  TS_CHECK(iterValues.size() == block->iterVars.size())
      << "block " << block->name << " has " << block->iterVars.size() << " iter vars but "
      << iterValues.size() << " bindings";
  if (!predicate) predicate = boolImm(true);
  return std::make_shared<BlockRealizeNode>(std::move(iterValues), std::move(predicate),
                                            std::move(block));
}

Stmt allocate(Var bufferVar, DataType dtype, std::vector<PrimExpr> extents, std::string scope,
              Stmt body) {
  return std::make_shared<AllocateNode>(std::move(bufferVar), dtype, std::move(extents),
                                        std::move(scope), std::move(body));
}
Stmt declBuffer(Buffer buffer, Stmt body) {
  return std::make_shared<DeclBufferNode>(std::move(buffer), std::move(body));
}

std::shared_ptr<BlockNode> copyBlock(const BlockNode& block) {
  return std::make_shared<BlockNode>(block);
}

Stmt loopNest(const std::vector<Var>& loopVars, const std::vector<PrimExpr>& extents, Stmt body) {
  TS_CHECK(loopVars.size() == extents.size()) << "loopNest: vars and extents differ in length";
  for (size_t i = loopVars.size(); i-- > 0;)
    body = forLoop(loopVars[i], intImm(0, loopVars[i]->dtype), extents[i], ForKind::kSerial,
                   std::move(body));
  return body;
}

}  // namespace tessera::tir
