// TensorIR statements: stores, loops, blocks (the unit schedules work on), and the statements that
// lowering introduces (Allocate, DeclBuffer, attribute statements). Nodes are immutable once
// shared; a transformation copies the node it changes (`auto n = std::make_shared<ForNode>(*old)`).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ir/attr_value.h"
#include "tir/buffer.h"
#include "tir/expr.h"

namespace tessera::tir {

enum class StmtKind : uint8_t {
  kBufferStore,
  kEvaluate,
  kLetStmt,
  kAttrStmt,
  kAssertStmt,
  kIfThenElse,
  kFor,
  kSeqStmt,
  kBlock,
  kBlockRealize,
  kAllocate,
  kDeclBuffer,
};

class StmtNode;
using Stmt = std::shared_ptr<const StmtNode>;

class StmtNode {
 public:
  explicit StmtNode(StmtKind kind) : kind(kind) {}
  virtual ~StmtNode() = default;
  StmtNode(const StmtNode&) = default;
  StmtNode& operator=(const StmtNode&) = delete;

  const StmtKind kind;

  template <typename T>
  const T* as() const {
    return kind == T::kKind ? static_cast<const T*>(this) : nullptr;
  }
};

/// String-keyed hints on loops and blocks (`pragma_auto_unroll_max_step`, `buffer_dim_align`, ...).
using Annotations = DictAttrs;

/// buffer[indices] = value (a Ramp index makes it a vector store).
class BufferStoreNode : public StmtNode {
 public:
  static constexpr StmtKind kKind = StmtKind::kBufferStore;
  BufferStoreNode(Buffer buffer, PrimExpr value, std::vector<PrimExpr> indices)
      : StmtNode(kKind),
        buffer(std::move(buffer)),
        value(std::move(value)),
        indices(std::move(indices)) {}
  Buffer buffer;
  PrimExpr value;
  std::vector<PrimExpr> indices;
  template <typename Self, typename V>
  static void fields(Self& n, V& v) {
    v.bufferUse(n.buffer);
    v.expr(n.value);
    v.exprs(n.indices, "index count");
  }
};

class EvaluateNode : public StmtNode {
 public:
  static constexpr StmtKind kKind = StmtKind::kEvaluate;
  explicit EvaluateNode(PrimExpr value) : StmtNode(kKind), value(std::move(value)) {}
  PrimExpr value;
  template <typename Self, typename V>
  static void fields(Self& n, V& v) {
    v.expr(n.value);
  }
};

class LetStmtNode : public StmtNode {
 public:
  static constexpr StmtKind kKind = StmtKind::kLetStmt;
  LetStmtNode(Var var, PrimExpr value, Stmt body)
      : StmtNode(kKind), var(std::move(var)), value(std::move(value)), body(std::move(body)) {}
  Var var;
  PrimExpr value;
  Stmt body;
  template <typename Self, typename V>
  static void fields(Self& n, V& v) {
    v.expr(n.value);
    v.varDef(n.var);
    v.stmt(n.body);
  }
};

/// The loop annotation (a pragma) that leaves a serial loop to LLVM's loop vectorizer: not
/// unrolled first, vectorizing it requested (a short reduction into a register, topi/x86's
/// reduceInConsumers).
inline constexpr const char kPragmaLLVMVectorize[] = "pragma_llvm_vectorize";

/// A keyed attribute around a statement: "pragma_*" from loop annotations, "thread_extent" from
/// thread-bound loops, "compute_scope", ... `node` is an optional variable the attribute is about.
class AttrStmtNode : public StmtNode {
 public:
  static constexpr StmtKind kKind = StmtKind::kAttrStmt;
  AttrStmtNode(Var node, std::string key, PrimExpr value, Stmt body)
      : StmtNode(kKind),
        node(std::move(node)),
        key(std::move(key)),
        value(std::move(value)),
        body(std::move(body)) {}
  Var node;
  std::string key;
  PrimExpr value;
  Stmt body;
  template <typename Self, typename V>
  static void fields(Self& n, V& v) {
    v.value(n.key, "attribute key");
    v.attrSubject(n.node);
    v.expr(n.value);
    v.stmt(n.body);
  }
};

class AssertStmtNode : public StmtNode {
 public:
  static constexpr StmtKind kKind = StmtKind::kAssertStmt;
  AssertStmtNode(PrimExpr condition, std::string message, Stmt body)
      : StmtNode(kKind),
        condition(std::move(condition)),
        message(std::move(message)),
        body(std::move(body)) {}
  PrimExpr condition;
  std::string message;
  Stmt body;  ///< may be null
  template <typename Self, typename V>
  static void fields(Self& n, V& v) {
    v.expr(n.condition);
    v.value(n.message, "assert message");
    v.stmt(n.body);
  }
};

class IfThenElseNode : public StmtNode {
 public:
  static constexpr StmtKind kKind = StmtKind::kIfThenElse;
  IfThenElseNode(PrimExpr condition, Stmt thenCase, Stmt elseCase)
      : StmtNode(kKind),
        condition(std::move(condition)),
        thenCase(std::move(thenCase)),
        elseCase(std::move(elseCase)) {}
  PrimExpr condition;
  Stmt thenCase;
  Stmt elseCase;  ///< may be null
  template <typename Self, typename V>
  static void fields(Self& n, V& v) {
    v.expr(n.condition);
    v.stmt(n.thenCase);
    v.stmt(n.elseCase);
  }
};

enum class ForKind : uint8_t {
  kSerial = 0,
  kParallel = 1,
  kVectorized = 2,
  kUnrolled = 3,
  kThreadBinding = 4
};
const char* forKindName(
    ForKind kind);  ///< "serial", "parallel", "vectorized", "unroll", "thread_binding"

/// for loopVar in [min, min + extent). The loop variable's node is the loop's identity: schedules
/// refer to a loop by it.
class ForNode : public StmtNode {
 public:
  static constexpr StmtKind kKind = StmtKind::kFor;
  ForNode(Var loopVar, PrimExpr min, PrimExpr extent, ForKind forKind, Stmt body)
      : StmtNode(kKind),
        loopVar(std::move(loopVar)),
        min(std::move(min)),
        extent(std::move(extent)),
        forKind(forKind),
        body(std::move(body)) {}
  Var loopVar;
  PrimExpr min;
  PrimExpr extent;
  ForKind forKind;
  Stmt body;
  std::string threadTag;  ///< for kThreadBinding: "threadIdx.x", "blockIdx.y", "vthread.x"
  Annotations annotations;
  template <typename Self, typename V>
  static void fields(Self& n, V& v) {
    v.expr(n.min);
    v.expr(n.extent);
    v.value(n.forKind, "loop kind");
    v.value(n.threadTag, "thread tag");
    v.value(n.annotations, "loop annotations");
    v.varDef(n.loopVar);
    v.stmt(n.body);
  }
};

class SeqStmtNode : public StmtNode {
 public:
  static constexpr StmtKind kKind = StmtKind::kSeqStmt;
  explicit SeqStmtNode(std::vector<Stmt> seq) : StmtNode(kKind), seq(std::move(seq)) {}
  std::vector<Stmt> seq;
  template <typename Self, typename V>
  static void fields(Self& n, V& v) {
    v.stmts(n.seq, "sequence length");
  }
};

/// A block: an isolated unit of computation over its iter vars. The body may use only the iter
/// vars, visible buffers and its own allocations. `id` is a stable identity that survives copies
/// made by transformations (schedules refer to a block by it); fresh blocks get a fresh id.
class BlockNode : public StmtNode {
 public:
  static constexpr StmtKind kKind = StmtKind::kBlock;
  BlockNode() : StmtNode(kKind), id(nextId()) {}
  std::vector<IterVar> iterVars;
  std::vector<BufferRegion> reads;
  std::vector<BufferRegion> writes;
  std::string name;
  Stmt body;
  Stmt init;  ///< may be null; runs when every reduce iter var is at its domain minimum
  std::vector<Buffer> allocBuffers;
  std::vector<MatchBufferRegion> matchBuffers;
  Annotations annotations;
  uint64_t id;  ///< not a field: two blocks with the same fields are equal whatever their ids

  static uint64_t nextId();
  /// Iter vars, allocations and match buffers are defined before the regions and the body that
  /// use them.
  template <typename Self, typename V>
  static void fields(Self& n, V& v) {
    v.value(n.name, "block name");
    v.iterVars(n.iterVars, "block iter var count");
    v.bufferDefs(n.allocBuffers, "block allocation count");
    v.matchBuffers(n.matchBuffers, "block match buffer count");
    v.regions(n.reads, "block read count");
    v.regions(n.writes, "block write count");
    v.value(n.annotations, "block annotations");
    v.stmt(n.init);
    v.stmt(n.body);
  }
};
using Block = std::shared_ptr<const BlockNode>;

/// Executes `block` once with its iter vars bound to `iterValues`, when `predicate` holds.
class BlockRealizeNode : public StmtNode {
 public:
  static constexpr StmtKind kKind = StmtKind::kBlockRealize;
  BlockRealizeNode(std::vector<PrimExpr> iterValues, PrimExpr predicate, Block block)
      : StmtNode(kKind),
        iterValues(std::move(iterValues)),
        predicate(std::move(predicate)),
        block(std::move(block)) {}
  std::vector<PrimExpr> iterValues;
  PrimExpr predicate;  ///< bool; `true` when there is none
  Block block;
  template <typename Self, typename V>
  static void fields(Self& n, V& v) {
    v.exprs(n.iterValues, "iter value count");
    v.expr(n.predicate);
    v.block(n.block);
  }
};

/// Memory for `bufferVar` (a handle) of `extents` elements of `dtype` for the duration of `body`.
class AllocateNode : public StmtNode {
 public:
  static constexpr StmtKind kKind = StmtKind::kAllocate;
  AllocateNode(Var bufferVar, DataType dtype, std::vector<PrimExpr> extents, std::string scope,
               Stmt body)
      : StmtNode(kKind),
        bufferVar(std::move(bufferVar)),
        dtype(dtype),
        extents(std::move(extents)),
        scope(std::move(scope)),
        body(std::move(body)) {}
  Var bufferVar;
  DataType dtype;
  std::vector<PrimExpr> extents;
  std::string scope;
  Stmt body;
  template <typename Self, typename V>
  static void fields(Self& n, V& v) {
    v.value(n.dtype, "allocation dtype");
    v.exprs(n.extents, "allocation rank");
    v.value(n.scope, "allocation scope");
    v.varDef(n.bufferVar);
    v.stmt(n.body);
  }
};

/// Declares `buffer` (a view over an existing data variable) for `body`.
class DeclBufferNode : public StmtNode {
 public:
  static constexpr StmtKind kKind = StmtKind::kDeclBuffer;
  DeclBufferNode(Buffer buffer, Stmt body)
      : StmtNode(kKind), buffer(std::move(buffer)), body(std::move(body)) {}
  Buffer buffer;
  Stmt body;
  template <typename Self, typename V>
  static void fields(Self& n, V& v) {
    v.bufferDef(n.buffer);
    v.stmt(n.body);
  }
};

using For = std::shared_ptr<const ForNode>;
using BlockRealize = std::shared_ptr<const BlockRealizeNode>;

// --- construction --------------------------------------------------------------------------------

Stmt bufferStore(Buffer buffer, PrimExpr value, std::vector<PrimExpr> indices);
/// A masked store, `buffer[i] = if_then_else(mask, value, buffer[i])` with a vector `mask`: the
/// lanes outside the mask are neither read nor written (VectorizeLoop writes it for a per-lane
/// condition around a store; code generation and the evaluator honour it).
Stmt maskedStore(Buffer buffer, PrimExpr mask, PrimExpr value, std::vector<PrimExpr> indices);
/// The mask and value of a masked store (both null when `op` is not one).
struct MaskedStoreParts {
  PrimExpr mask, value;
};
MaskedStoreParts maskedStoreParts(const BufferStoreNode& op);
Stmt evaluate(PrimExpr value);
Stmt letStmt(Var var, PrimExpr value, Stmt body);
Stmt attrStmt(Var node, std::string key, PrimExpr value, Stmt body);
Stmt assertStmt(PrimExpr condition, std::string message, Stmt body);
Stmt ifThenElse(PrimExpr condition, Stmt thenCase, Stmt elseCase = nullptr);
Stmt forLoop(Var loopVar, PrimExpr min, PrimExpr extent, ForKind kind, Stmt body);
/// A sequence; flattens nested sequences, drops nulls, and returns the single element unwrapped.
Stmt seq(std::vector<Stmt> stmts);
Stmt blockRealize(std::vector<PrimExpr> iterValues, PrimExpr predicate, Block block);
Stmt allocate(Var bufferVar, DataType dtype, std::vector<PrimExpr> extents, std::string scope,
              Stmt body);
Stmt declBuffer(Buffer buffer, Stmt body);
/// A copy of `block` keeping its id (for transformations that change a block in place).
std::shared_ptr<BlockNode> copyBlock(const BlockNode& block);

/// The nest `for v in grid: body` over `loopVars` with the given extents (min 0, serial).
Stmt loopNest(const std::vector<Var>& loopVars, const std::vector<PrimExpr>& extents, Stmt body);

}  // namespace tessera::tir
