// CodeGenLLVM: parallel loops (spec §4.4). A `parallel` loop becomes three pieces: a closure on the
// caller's stack holding the loop bounds and every variable the body uses; a task function
// `(task_id, env, closure)` that unpacks it and computes its static block [begin, end) of the
// iteration space; and a body function taking the bounds and the captured variables as
// parameters, so buffer pointers keep their noalias attribute inside the task. The caller hands
// the task to TesseraBackendParallelLaunch and returns its error code when it fails.
#include "codegen/llvm/codegen_llvm.h"
#include "support/diagnostic.h"

namespace tessera::codegen {

using namespace tir;

void CodeGenLLVM::emitParallelFor(const ForNode* op) {
  if (fn_.insideParallel) {
    throwDiagnostic("codegen", "function '" + funcName_ + "': parallel loop '" + op->loopVar->name +
                                   "' is nested inside another parallel loop (fuse them instead)");
  }
  llvm::Type* ivType = llvmType(op->loopVar->dtype);
  llvm::Value* minV = builder_.CreateSExtOrTrunc(emitExpr(op->min), ivType);
  llvm::Value* extentV = builder_.CreateSExtOrTrunc(emitExpr(op->extent), ivType);
  std::vector<const VarNode*> captured = capturedVars(op->body);
  std::vector<llvm::Value*> capturedValues;
  std::vector<llvm::Type*> fieldTypes = {ivType, ivType};
  for (const VarNode* v : captured) {
    capturedValues.push_back(fn_.vars.at(v));
    fieldTypes.push_back(capturedValues.back()->getType());
  }
  auto* closureTy = llvm::StructType::get(ctx_, fieldTypes);
  std::string base = funcName_ + "_parallel_" + std::to_string(lambdaCount_++);
  auto* i32 = builder_.getInt32Ty();
  auto* ptrTy = builder_.getPtrTy();

  FunctionState outer = fn_;
  llvm::IRBuilderBase::InsertPoint ip = builder_.saveIP();

  // The body: for loopVar in [begin, end) over the captured variables.
  llvm::Function* bodyFn = beginOutlined(base + "_body", {ivType, ivType}, captured, noalias_);
  fn_.insideParallel = true;
  emitSerialLoop(op->loopVar, bodyFn->getArg(0), bodyFn->getArg(1), op->body, nullptr);
  builder_.CreateRet(builder_.getInt32(0));
  builder_.SetInsertPoint(fn_.allocaBlock);
  builder_.CreateBr(&*std::next(bodyFn->begin()));

  // The task: static block partition, step = ceil(extent / num_task).
  auto* taskTy = llvm::FunctionType::get(i32, {i32, ptrTy, ptrTy}, false);
  auto* task = llvm::Function::Create(taskTy, llvm::GlobalValue::PrivateLinkage, base, module_);
  builder_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", task));
  llvm::Value* taskId = builder_.CreateIntCast(task->getArg(0), ivType, true);
  auto* envTy = llvm::StructType::get(ctx_, {ptrTy, i32});
  llvm::Value* numTask = builder_.CreateIntCast(
      builder_.CreateLoad(i32, builder_.CreateStructGEP(envTy, task->getArg(1), 1)), ivType, true);
  std::vector<llvm::Value*> fields;
  for (unsigned i = 0; i < fieldTypes.size(); ++i) {
    fields.push_back(builder_.CreateLoad(fieldTypes[i],
                                         builder_.CreateStructGEP(closureTy, task->getArg(2), i)));
  }
  llvm::Value* extent = fields[1];
  llvm::Value* step = builder_.CreateSDiv(
      builder_.CreateSub(builder_.CreateAdd(extent, numTask), llvm::ConstantInt::get(ivType, 1)),
      numTask);
  auto smin = [&](llvm::Value* a, llvm::Value* b) {
    return builder_.CreateSelect(builder_.CreateICmpSLT(a, b), a, b);
  };
  llvm::Value* begin = smin(builder_.CreateMul(taskId, step), extent);
  llvm::Value* end = smin(builder_.CreateAdd(begin, step), extent);
  std::vector<llvm::Value*> callArgs = {builder_.CreateAdd(fields[0], begin),
                                        builder_.CreateAdd(fields[0], end)};
  callArgs.insert(callArgs.end(), fields.begin() + 2, fields.end());
  builder_.CreateRet(builder_.CreateCall(bodyFn, callArgs));

  fn_ = outer;
  builder_.restoreIP(ip);

  // The launch.
  llvm::AllocaInst* closure = entryAlloca(closureTy, nullptr, 8);
  std::vector<llvm::Value*> values = {minV, extentV};
  values.insert(values.end(), capturedValues.begin(), capturedValues.end());
  for (unsigned i = 0; i < values.size(); ++i) {
    builder_.CreateStore(values[i], builder_.CreateStructGEP(closureTy, closure, i));
  }
  auto* launchTy = llvm::FunctionType::get(i32, {ptrTy, ptrTy, i32}, false);
  llvm::Value* status =
      builder_.CreateCall(launchTy, runtimeFunction("__TesseraBackendParallelLaunch", launchTy),
                          {task, closure, builder_.getInt32(0)});
  auto* failBB = llvm::BasicBlock::Create(ctx_, "parallel_fail", fn_.function);
  auto* doneBB = llvm::BasicBlock::Create(ctx_, "parallel_end", fn_.function);
  builder_.CreateCondBr(builder_.CreateICmpEQ(status, builder_.getInt32(0)), doneBB, failBB);
  builder_.SetInsertPoint(failBB);
  builder_.CreateRet(status);  // the task's message is already the launcher's last error
  builder_.SetInsertPoint(doneBB);
}

}  // namespace tessera::codegen
