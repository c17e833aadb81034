// CodeGenLLVM: functions and statements. A PrimFunc becomes a packed entry function (argument
// checks, then a call) and a private compute function whose buffer pointers are noalias
// parameters: when LLVM inlines it the noalias facts survive as scoped alias metadata, which is
// what lets the loop vectorizer work without runtime alias checks.
#include "codegen/llvm/codegen_llvm.h"

#include <algorithm>
#include <set>

#include <dlpack/dlpack.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/MDBuilder.h>

#include "runtime/c_functions.h"
#include "runtime/module.h"
#include "support/diagnostic.h"
#include "tir/functor.h"

namespace tessera::codegen {

using namespace tir;

namespace {

// Allocations at or above this size go to the workspace allocator. TVM's limit is 1 KiB; ours is
// larger so that a schedule's accumulator tile (8 x 32 floats is exactly 1 KiB) stays an alloca,
// which LLVM promotes to registers; a heap tile would be loaded and stored at every step.
constexpr int64_t kMaxStackAlloca = 16 * 1024;

}  // namespace

CodeGenLLVM::CodeGenLLVM(llvm::LLVMContext& ctx, llvm::Module& module, bool definesSlots,
                         const std::vector<std::string>& extraSlots)
    : ctx_(ctx), module_(module), builder_(ctx) {
  // Every module defines the CPU runtime's slots and those its code calls of other runtimes, and
  // lists them (kSlotListSymbol), so the loader fills exactly what the code may call from the
  // runtime's C-function registry.
  std::vector<std::string> names = runtime::cpuRuntimeSlots();
  names.insert(names.end(), extraSlots.begin(), extraSlots.end());
  for (const std::string& name : names) {
    if (slots_.count(name)) continue;
    auto* ptrTy = llvm::PointerType::getUnqual(ctx_);
    auto* slot = new llvm::GlobalVariable(
        module_, ptrTy, false, llvm::GlobalValue::ExternalLinkage,
        definesSlots ? llvm::ConstantPointerNull::get(ptrTy) : nullptr, name);
    slot->setAlignment(llvm::Align(8));
    // Bind references to this module's own slot even when another module defines the same name.
    // A declaration keeps default visibility: it is reached through the GOT, which the linker
    // (or the JIT) binds to the defining part's protected slot.
    if (definesSlots) slot->setVisibility(llvm::GlobalValue::ProtectedVisibility);
    slots_[name] = slot;
  }
}

std::string CodeGenLLVM::symbolOf(const PrimFunc& func) {
  if (const AttrValue* sym = func->attrs.find("global_symbol")) return sym->asString();
  return func->name;
}

bool CodeGenLLVM::usesAmxTiles(const tir::PrimFunc& func) {
  struct Finder : tir::IRVisitor {
    bool found = false;
    void visitCall(const tir::CallNode* op) override {
      const auto* name = op->args.empty() ? nullptr : op->args[0]->as<tir::StringImmNode>();
      if (op->op.starts_with("tir.call_llvm") && name &&
          (name->value.starts_with("llvm.x86.tile") || name->value == "llvm.x86.ldtilecfg"))
        found = true;
      if (!found) tir::IRVisitor::visitCall(op);
    }
  } finder;
  finder.visitStmt(func->body);
  return finder.found;
}

void CodeGenLLVM::addModuleInfo(const std::vector<std::string>& symbols, bool usesAmxTiles) {
  auto addString = [&](const std::string& name, const std::string& text) {
    auto* init = llvm::ConstantDataArray::getString(ctx_, text);
    auto* global = new llvm::GlobalVariable(module_, init->getType(), true,
                                            llvm::GlobalValue::WeakAnyLinkage, init, name);
    global->setVisibility(llvm::GlobalValue::ProtectedVisibility);
    global->setAlignment(llvm::Align(1));
  };
  std::string list;
  for (const std::string& s : symbols) list += (list.empty() ? "" : ",") + s;
  addString(runtime::kFunctionListSymbol, list);
  if (symbols.size() == 1) addString(runtime::kEntryNameSymbol, symbols[0]);
  std::vector<std::string> slots;
  for (const auto& [name, global] : slots_) slots.push_back(name);
  std::sort(slots.begin(), slots.end());  // deterministic output
  std::string slotList;
  for (const std::string& s : slots) slotList += (slotList.empty() ? "" : ",") + s;
  addString(runtime::kSlotListSymbol, slotList);
  if (usesAmxTiles) addString(runtime::kAmxTilesSymbol, "1");
}

void CodeGenLLVM::addFunction(const PrimFunc& func) {
  funcName_ = symbolOf(func);
  if (module_.getFunction(funcName_) != nullptr) {
    throwDiagnostic("codegen", "two functions have the symbol '" + funcName_ + "'");
  }
  const AttrValue* noalias = func->attrs.find("tir.noalias");
  noalias_ = noalias != nullptr && noalias->asBool();
  const AttrValue* device = func->attrs.find("tessera.device_type");
  deviceType_ = device != nullptr ? static_cast<int>(device->asInt()) : kDLCPU;
  auto* i32 = builder_.getInt32Ty();
  auto* ptrTy = builder_.getPtrTy();
  auto* type = llvm::FunctionType::get(i32, {ptrTy, i32}, false);
  auto* fn = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage, funcName_, module_);
  fn->getArg(0)->setName("args");
  fn->getArg(1)->setName("num_args");
  fn_ = FunctionState{};
  fn_.function = fn;
  fn_.allocaBlock = llvm::BasicBlock::Create(ctx_, "entry", fn);
  auto* start = llvm::BasicBlock::Create(ctx_, "prologue", fn);
  builder_.SetInsertPoint(start);
  emitPackedPrologue(func, fn->getArg(0), fn->getArg(1));

  // The body goes into its own function; see the file comment.
  std::vector<const VarNode*> captured = capturedVars(func->body);
  std::vector<llvm::Value*> actuals;
  for (const VarNode* v : captured) actuals.push_back(fn_.vars.at(v));
  FunctionState outer = fn_;
  llvm::IRBuilderBase::InsertPoint ip = builder_.saveIP();
  llvm::Function* compute = beginOutlined(funcName_ + "_compute_", {}, captured, noalias_);
  emitStmt(func->body);
  builder_.CreateRet(builder_.getInt32(0));
  builder_.SetInsertPoint(fn_.allocaBlock);
  builder_.CreateBr(&*std::next(compute->begin()));
  fn_ = outer;
  builder_.restoreIP(ip);
  builder_.CreateRet(builder_.CreateCall(compute, actuals));
  builder_.SetInsertPoint(fn_.allocaBlock);
  builder_.CreateBr(start);
}

llvm::Function* CodeGenLLVM::beginOutlined(const std::string& name,
                                           const std::vector<llvm::Type*>& prefix,
                                           const std::vector<const VarNode*>& captured,
                                           bool noalias) {
  std::vector<llvm::Type*> params = prefix;
  for (const VarNode* v : captured) params.push_back(fn_.vars.at(v)->getType());
  auto* type = llvm::FunctionType::get(builder_.getInt32Ty(), params, false);
  auto* fn = llvm::Function::Create(type, llvm::GlobalValue::PrivateLinkage, name, module_);
  FunctionState state;
  state.function = fn;
  state.insideParallel = fn_.insideParallel;
  for (size_t i = 0; i < captured.size(); ++i) {
    llvm::Argument* arg = fn->getArg(static_cast<unsigned>(prefix.size() + i));
    arg->setName(captured[i]->name);
    if (noalias && arg->getType()->isPointerTy()) arg->addAttr(llvm::Attribute::NoAlias);
    state.vars[captured[i]] = arg;
  }
  state.allocaBlock = llvm::BasicBlock::Create(ctx_, "entry", fn);
  fn_ = std::move(state);
  builder_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "body", fn));
  return fn;
}

std::vector<const VarNode*> CodeGenLLVM::capturedVars(const Stmt& s) const {
  std::vector<const VarNode*> out;
  std::unordered_map<const VarNode*, bool> seen;
  auto note = [&](const VarNode* v) {
    if (fn_.vars.count(v) == 0 || seen[v]) return;
    seen[v] = true;
    out.push_back(v);
  };
  auto noteExpr = [&](const PrimExpr& e) {
    if (e == nullptr) return;
    postOrderVisitExpr(e, [&](const PrimExpr& x) {
      if (const auto* v = x->as<VarNode>()) note(v);
    });
  };
  auto noteBuffer = [&](const Buffer& b) {
    note(b->data.get());
    for (const PrimExpr& e : b->shape) noteExpr(e);
    for (const PrimExpr& e : b->strides) noteExpr(e);
    noteExpr(b->elemOffset);
  };
  preOrderVisit(s, [&](const Stmt& st) {
    if (const auto* store = st->as<BufferStoreNode>()) noteBuffer(store->buffer);
    if (const auto* decl = st->as<DeclBufferNode>()) noteBuffer(decl->buffer);
    return true;
  });
  postOrderVisitExprs(s, [&](const PrimExpr& x) {
    if (const auto* v = x->as<VarNode>()) note(v);
    if (const auto* load = x->as<BufferLoadNode>()) noteBuffer(load->buffer);
  });
  return out;
}

llvm::Value* CodeGenLLVM::runtimeFunction(const std::string& slot, llvm::FunctionType* type) {
  return builder_.CreateLoad(builder_.getPtrTy(), slots_.at(slot), slot);
}

llvm::GlobalVariable* CodeGenLLVM::slotOf(const std::string& name) const {
  auto it = slots_.find("__" + name);
  return it == slots_.end() ? nullptr : it->second;
}

std::vector<std::string> CodeGenLLVM::runtimeSlotsOf(const PrimFunc& func) {
  std::set<std::string> slots;
  const AttrValue* device = func->attrs.find("tessera.device_type");
  if (device != nullptr && device->asInt() != kDLCPU)
    slots.insert("__TesseraAPICheckDeviceTensorArg");
  preOrderVisit(func->body, [&](const Stmt& s) {
    const auto* attr = s->as<AttrStmtNode>();
    if (attr && attr->key == "coproc_uop_scope")
      if (const auto* f = attr->value->as<StringImmNode>()) slots.insert("__" + f->value);
    return true;
  });
  postOrderVisitExprs(func->body, [&](const PrimExpr& e) {
    const auto* call = e->as<CallNode>();
    if (call == nullptr || call->op != "tir.call_extern" || call->args.empty()) return;
    const auto* name = call->args[0]->as<StringImmNode>();
    if (name && runtime::findCFunction("__" + name->value)) slots.insert("__" + name->value);
  });
  return {slots.begin(), slots.end()};
}

llvm::Value* CodeGenLLVM::stringConstant(const std::string& text) {
  auto it = strings_.find(text);
  if (it != strings_.end()) return it->second;
  auto* init = llvm::ConstantDataArray::getString(ctx_, text);
  auto* global = new llvm::GlobalVariable(module_, init->getType(), true,
                                          llvm::GlobalValue::PrivateLinkage, init, ".str");
  global->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
  strings_[text] = global;
  return global;
}

llvm::AllocaInst* CodeGenLLVM::entryAlloca(llvm::Type* type, llvm::Value* count, int align) {
  llvm::IRBuilder<> entry(fn_.allocaBlock, fn_.allocaBlock->begin());
  llvm::AllocaInst* slot = entry.CreateAlloca(type, count);
  slot->setAlignment(llvm::Align(align));
  return slot;
}

void CodeGenLLVM::emitCheck(llvm::Value* ok, const std::string& message, llvm::Value* actual) {
  auto* fail = llvm::BasicBlock::Create(ctx_, "assert_fail", fn_.function);
  auto* pass = llvm::BasicBlock::Create(ctx_, "assert_end", fn_.function);
  llvm::MDBuilder md(ctx_);
  builder_.CreateCondBr(ok, pass, fail, md.createLikelyBranchWeights());
  builder_.SetInsertPoint(fail);
  auto* ptrTy = builder_.getPtrTy();
  if (actual != nullptr) {
    auto* type =
        llvm::FunctionType::get(builder_.getVoidTy(), {ptrTy, builder_.getInt64Ty()}, false);
    llvm::Value* wide = builder_.CreateSExtOrTrunc(actual, builder_.getInt64Ty());
    builder_.CreateCall(type, runtimeFunction("__TesseraAPISetLastErrorInt", type),
                        {stringConstant(message), wide});
  } else {
    auto* type = llvm::FunctionType::get(builder_.getVoidTy(), {ptrTy}, false);
    builder_.CreateCall(type, runtimeFunction("__TesseraAPISetLastError", type),
                        {stringConstant(message)});
  }
  builder_.CreateRet(builder_.getInt32(-1));
  builder_.SetInsertPoint(pass);
}

void CodeGenLLVM::emitStmt(const Stmt& s) {
  switch (s->kind) {
    case StmtKind::kBufferStore:
      return emitStore(s->as<BufferStoreNode>());
    case StmtKind::kEvaluate: {
      const PrimExpr& value = s->as<EvaluateNode>()->value;
      if (value->as<IntImmNode>() == nullptr) emitExpr(value);
      return;
    }
    case StmtKind::kLetStmt: {
      const auto* op = s->as<LetStmtNode>();
      llvm::Value* value = emitExpr(op->value);
      value->setName(op->var->name);
      fn_.vars[op->var.get()] = value;
      return emitStmt(op->body);
    }
    case StmtKind::kAttrStmt: {
      const auto* op = s->as<AttrStmtNode>();
      if (op->key == "coproc_uop_scope") return emitStaticInitScope(op);
      // pragma_*, compute_scope and the like carry no code of their own on the CPU.
      return emitStmt(op->body);
    }
    case StmtKind::kAssertStmt:
      return emitAssert(s->as<AssertStmtNode>());
    case StmtKind::kIfThenElse: {
      const auto* op = s->as<IfThenElseNode>();
      llvm::Value* cond = emitExpr(op->condition);
      auto* thenBB = llvm::BasicBlock::Create(ctx_, "if_then", fn_.function);
      auto* endBB = llvm::BasicBlock::Create(ctx_, "if_end", fn_.function);
      auto* elseBB = op->elseCase ? llvm::BasicBlock::Create(ctx_, "if_else", fn_.function) : endBB;
      builder_.CreateCondBr(cond, thenBB, elseBB);
      builder_.SetInsertPoint(thenBB);
      emitStmt(op->thenCase);
      builder_.CreateBr(endBB);
      if (op->elseCase) {
        builder_.SetInsertPoint(elseBB);
        emitStmt(op->elseCase);
        builder_.CreateBr(endBB);
      }
      builder_.SetInsertPoint(endBB);
      return;
    }
    case StmtKind::kFor:
      return emitFor(s->as<ForNode>());
    case StmtKind::kSeqStmt:
      for (const Stmt& st : s->as<SeqStmtNode>()->seq) emitStmt(st);
      return;
    case StmtKind::kBlock:
    case StmtKind::kBlockRealize: {
      const auto* realize = s->as<BlockRealizeNode>();
      std::string name = realize ? realize->block->name : s->as<BlockNode>()->name;
      throwDiagnostic("codegen", "function '" + funcName_ +
                                     "': code generation needs lowered TensorIR but found block '" +
                                     name + "' (run the lowering pipeline first)");
    }
    case StmtKind::kAllocate:
      return emitAllocate(s->as<AllocateNode>());
    case StmtKind::kDeclBuffer:
      // A declared buffer is a view of a data variable that is already bound.
      return emitStmt(s->as<DeclBufferNode>()->body);
  }
}

void CodeGenLLVM::emitAssert(const AssertStmtNode* op) {
  emitCheck(emitExpr(op->condition), op->message);
  if (op->body) emitStmt(op->body);
}

void CodeGenLLVM::emitFor(const ForNode* op) {
  if (op->forKind == ForKind::kParallel) return emitParallelFor(op);
  // Bounds take the loop variable's type (lowering may leave an int64 extent on an int32 loop).
  llvm::Type* ivType = llvmType(op->loopVar->dtype);
  llvm::Value* begin = builder_.CreateSExtOrTrunc(emitExpr(op->min), ivType);
  llvm::Value* end =
      builder_.CreateAdd(begin, builder_.CreateSExtOrTrunc(emitExpr(op->extent), ivType));
  // Loops that survive lowering with a kind keep it as a hint to LLVM's loop passes.
  std::vector<llvm::Metadata*> hints;
  auto hint = [&](const char* name, bool withValue) {
    std::vector<llvm::Metadata*> prop{llvm::MDString::get(ctx_, name)};
    if (withValue) prop.push_back(llvm::ConstantAsMetadata::get(builder_.getTrue()));
    hints.push_back(llvm::MDNode::get(ctx_, prop));
  };
  if (op->forKind == ForKind::kUnrolled && asConstInt(op->extent) != nullptr)
    hint("llvm.loop.unroll.full", false);
  if (op->forKind == ForKind::kVectorized) hint("llvm.loop.vectorize.enable", true);
  // The pragma sits inside the loop it is about (lower_opaque_block.cc).
  const auto* pragma = op->body->as<AttrStmtNode>();
  if (pragma != nullptr && pragma->key == kPragmaLLVMVectorize && op->forKind == ForKind::kSerial) {
    // Fully unrolled first (a short constant trip count), the loop would leave its body to be
    // vectorized across the loop around it, with gathers.
    hint("llvm.loop.unroll.disable", false);
    hint("llvm.loop.vectorize.enable", true);
  }
  llvm::MDNode* metadata = nullptr;
  if (!hints.empty()) {
    hints.insert(hints.begin(), nullptr);
    metadata = llvm::MDNode::getDistinct(ctx_, hints);
    metadata->replaceOperandWith(0, metadata);
  }
  emitSerialLoop(op->loopVar, begin, end, op->body, metadata);
}

void CodeGenLLVM::emitSerialLoop(const Var& loopVar, llvm::Value* begin, llvm::Value* end,
                                 const Stmt& body, llvm::MDNode* loopMetadata) {
  llvm::BasicBlock* preheader = builder_.GetInsertBlock();
  auto* header = llvm::BasicBlock::Create(ctx_, "for_begin", fn_.function);
  auto* bodyBB = llvm::BasicBlock::Create(ctx_, "for_body", fn_.function);
  auto* exitBB = llvm::BasicBlock::Create(ctx_, "for_end", fn_.function);
  builder_.CreateBr(header);
  builder_.SetInsertPoint(header);
  llvm::PHINode* index = builder_.CreatePHI(begin->getType(), 2, loopVar->name);
  index->addIncoming(begin, preheader);
  builder_.CreateCondBr(builder_.CreateICmpSLT(index, end), bodyBB, exitBB);
  builder_.SetInsertPoint(bodyBB);
  fn_.vars[loopVar.get()] = index;
  emitStmt(body);
  llvm::Value* next =
      builder_.CreateAdd(index, llvm::ConstantInt::get(index->getType(), 1), "", false, true);
  llvm::BranchInst* latch = builder_.CreateBr(header);
  if (loopMetadata != nullptr) latch->setMetadata(llvm::LLVMContext::MD_loop, loopMetadata);
  index->addIncoming(next, builder_.GetInsertBlock());
  builder_.SetInsertPoint(exitBB);
}

void CodeGenLLVM::emitAllocate(const AllocateNode* op) {
  llvm::Type* elem = memoryType(op->dtype);
  int64_t bytes = op->dtype.bytes() * op->dtype.lanes();
  bool constant = true;
  int64_t count = 1;
  for (const PrimExpr& e : op->extents) {
    const int64_t* c = asConstInt(e);
    if (c == nullptr) {
      constant = false;
      break;
    }
    count *= *c;
  }
  if (constant && count * bytes < kMaxStackAlloca) {
    fn_.vars[op->bufferVar.get()] = entryAlloca(elem, builder_.getInt32(count), 64);
    return emitStmt(op->body);
  }
  llvm::Value* n = builder_.getInt64(bytes);
  for (const PrimExpr& e : op->extents) {
    n = builder_.CreateMul(n, builder_.CreateSExtOrTrunc(emitExpr(e), builder_.getInt64Ty()));
  }
  auto* i32 = builder_.getInt32Ty();
  auto* ptrTy = builder_.getPtrTy();
  auto* allocTy =
      llvm::FunctionType::get(ptrTy, {i32, i32, builder_.getInt64Ty(), i32, i32}, false);
  llvm::CallInst* ptr = builder_.CreateCall(
      allocTy, runtimeFunction("__TesseraBackendAllocWorkspace", allocTy),
      {builder_.getInt32(1), builder_.getInt32(0), n,
       builder_.getInt32(static_cast<int>(op->dtype.code())), builder_.getInt32(op->dtype.bits())},
      op->bufferVar->name);
  // A fresh block, as malloc's: without `noalias` LLVM must assume that a serial kernel's
  // intermediate buffers overlap one another and the arguments, and leaves their loops scalar
  // (a parallel loop's outlined body gets noalias pointers, so only kernels built for one core
  // suffered: a winograd convolution ran 3x slower at -num-cores=1).
  ptr->addRetAttr(llvm::Attribute::NoAlias);
  emitCheck(builder_.CreateIsNotNull(ptr),
            funcName_ + ": cannot allocate workspace for '" + op->bufferVar->name + "' of bytes",
            n);
  fn_.vars[op->bufferVar.get()] = ptr;
  emitStmt(op->body);
  auto* freeTy = llvm::FunctionType::get(i32, {i32, i32, ptrTy}, false);
  builder_.CreateCall(freeTy, runtimeFunction("__TesseraBackendFreeWorkspace", freeTy),
                      {builder_.getInt32(1), builder_.getInt32(0), ptr});
}

}  // namespace tessera::codegen
