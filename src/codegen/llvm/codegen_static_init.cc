// CodeGenLLVM: `coproc_uop_scope` (TVM's static-init scope). A coprocessor's micro-op kernel is
// recorded once per distinct closure value and then reused from a cache, so its body is not
// inline code: it becomes a private function `int finit(void* closure)` that unpacks the
// variables the body reads from a struct, and the scope becomes one call of the runtime function
// the attribute names, `F(&handle, finit, &closure, sizeof closure)`, where `handle` is a static
// cell of this call site (the runtime's kernel cache for it). VTA's VTAPushGEMMOp /
// VTAPushALUOp take exactly this signature (vta/rt/c_api.h).
#include "codegen/llvm/codegen_llvm.h"
#include "support/diagnostic.h"

namespace tessera::codegen {

using namespace tir;

void CodeGenLLVM::emitStaticInitScope(const AttrStmtNode* op) {
  const auto* push = op->value->as<StringImmNode>();
  llvm::GlobalVariable* pushSlot = push ? slotOf(push->value) : nullptr;
  if (pushSlot == nullptr)
    throwDiagnostic("codegen", "function '" + funcName_ +
                                   "': a coproc_uop_scope names no runtime function that the "
                                   "module can call (is the device runtime registered?)");
  auto* i32 = builder_.getInt32Ty();
  auto* ptrTy = builder_.getPtrTy();
  const std::vector<const VarNode*> captured = capturedVars(op->body);
  std::vector<llvm::Type*> fieldTypes;
  std::vector<llvm::Value*> values;
  for (const VarNode* v : captured) {
    values.push_back(fn_.vars.at(v));
    fieldTypes.push_back(values.back()->getType());
  }
  auto* closureTy = llvm::StructType::get(ctx_, fieldTypes);
  const std::string base = funcName_ + "_uop_" + std::to_string(lambdaCount_++);

  // The site's kernel cache, owned by the runtime once set.
  auto* handle = new llvm::GlobalVariable(module_, ptrTy, false, llvm::GlobalValue::PrivateLinkage,
                                          llvm::ConstantPointerNull::get(ptrTy), base + "_handle");
  handle->setAlignment(llvm::Align(8));

  // finit(closure): the body over the unpacked variables.
  FunctionState outer = fn_;
  llvm::IRBuilderBase::InsertPoint ip = builder_.saveIP();
  auto* finitTy = llvm::FunctionType::get(i32, {ptrTy}, false);
  auto* finit = llvm::Function::Create(finitTy, llvm::GlobalValue::PrivateLinkage, base, module_);
  FunctionState state;
  state.function = finit;
  state.allocaBlock = llvm::BasicBlock::Create(ctx_, "entry", finit);
  fn_ = std::move(state);
  auto* body = llvm::BasicBlock::Create(ctx_, "body", finit);
  builder_.SetInsertPoint(body);
  for (unsigned i = 0; i < captured.size(); ++i) {
    llvm::Value* field = builder_.CreateLoad(
        fieldTypes[i], builder_.CreateStructGEP(closureTy, finit->getArg(0), i), captured[i]->name);
    fn_.vars[captured[i]] = field;
  }
  emitStmt(op->body);
  builder_.CreateRet(builder_.getInt32(0));
  builder_.SetInsertPoint(fn_.allocaBlock);
  builder_.CreateBr(body);
  fn_ = outer;
  builder_.restoreIP(ip);

  // The push.
  llvm::Value* closure = llvm::ConstantPointerNull::get(ptrTy);
  uint64_t nbytes = 0;
  if (!captured.empty()) {
    llvm::AllocaInst* cell = entryAlloca(closureTy, nullptr, 8);
    for (unsigned i = 0; i < values.size(); ++i)
      builder_.CreateStore(values[i], builder_.CreateStructGEP(closureTy, cell, i));
    closure = cell;
    nbytes = module_.getDataLayout().getTypeAllocSize(closureTy);
  }
  auto* pushTy = llvm::FunctionType::get(i32, {ptrTy, ptrTy, ptrTy, i32}, false);
  llvm::Value* status =
      builder_.CreateCall(pushTy, builder_.CreateLoad(ptrTy, pushSlot, push->value),
                          {handle, finit, closure, builder_.getInt32(static_cast<int>(nbytes))});
  // The runtime recorded its diagnostic as the thread's last error.
  auto* failBB = llvm::BasicBlock::Create(ctx_, "uop_fail", fn_.function);
  auto* doneBB = llvm::BasicBlock::Create(ctx_, "uop_end", fn_.function);
  builder_.CreateCondBr(builder_.CreateICmpEQ(status, builder_.getInt32(0)), doneBB, failBB);
  builder_.SetInsertPoint(failBB);
  builder_.CreateRet(builder_.getInt32(-1));
  builder_.SetInsertPoint(doneBB);
}

}  // namespace tessera::codegen
