// CodeGenLLVM: calls of named LLVM intrinsics (`tir.call_llvm_pure_intrin`), the way tensor
// intrinsics reach instructions LLVM does not select from plain IR (x86 VNNI's vpdpbusd, ...).
// The first argument names the intrinsic; the others are its operands. An operand whose type
// differs from the intrinsic's parameter only in how its bits are split into lanes (int8x64 for
// <16 x i32>) is bitcast, so a TIR expression need not spell LLVM's exact types, which also
// change between LLVM versions. `tir.address_of(B[i])` is the address of one buffer element, for
// intrinsics that take a pointer (AMX's tile loads and stores).
#include <llvm/IR/Intrinsics.h>

#include "codegen/llvm/codegen_llvm.h"
#include "support/diagnostic.h"

namespace tessera::codegen {

using namespace tir;

namespace {

// Whether `from` can be bitcast to `to`: both first-class, non-aggregate, of the same size.
bool sameBits(llvm::Type* from, llvm::Type* to) {
  return from->isSingleValueType() && to->isSingleValueType() && !from->isPointerTy() &&
         !to->isPointerTy() && from->getPrimitiveSizeInBits() == to->getPrimitiveSizeInBits();
}

}  // namespace

llvm::Value* CodeGenLLVM::emitLlvmIntrinsic(const CallNode* op) {
  const auto* callee = op->args.empty() ? nullptr : op->args[0]->as<StringImmNode>();
  if (callee == nullptr)
    throwDiagnostic("codegen", op->op + ": the first argument must name the LLVM intrinsic");
  const std::string& intrinsic = callee->value;
  const llvm::Intrinsic::ID id = llvm::Function::lookupIntrinsicID(intrinsic);
  if (id == llvm::Intrinsic::not_intrinsic)
    throwDiagnostic("codegen", "function '" + funcName_ + "': '" + intrinsic +
                                   "' is not an intrinsic of this LLVM");
  if (llvm::Intrinsic::isOverloaded(id))
    throwDiagnostic("codegen", "function '" + funcName_ + "': the overloaded intrinsic '" +
                                   intrinsic + "' needs its types spelled out (not supported)");
  llvm::Function* fn = llvm::Intrinsic::getDeclaration(&module_, id);
  llvm::FunctionType* type = fn->getFunctionType();
  if (type->getNumParams() != op->args.size() - 1)
    throwDiagnostic("codegen", "function '" + funcName_ + "': '" + intrinsic + "' takes " +
                                   std::to_string(type->getNumParams()) + " operands, not " +
                                   std::to_string(op->args.size() - 1));
  std::vector<llvm::Value*> args;
  for (unsigned i = 0; i < type->getNumParams(); ++i) {
    llvm::Value* v = emitExpr(op->args[i + 1]);
    llvm::Type* want = type->getParamType(i);
    if (v->getType() != want && v->getType()->isIntegerTy() && want->isIntegerTy()) {
      // An immediate operand (AMX's tile numbers are i8) written as a plain integer.
      v = builder_.CreateSExtOrTrunc(v, want);
    } else if (v->getType() != want) {
      if (!sameBits(v->getType(), want))
        throwDiagnostic("codegen", "function '" + funcName_ + "': operand " + std::to_string(i) +
                                       " of '" + intrinsic + "' has " +
                                       std::to_string(v->getType()->getPrimitiveSizeInBits()) +
                                       " bits, the intrinsic takes " +
                                       std::to_string(want->getPrimitiveSizeInBits()));
      v = builder_.CreateBitCast(v, want);
    }
    args.push_back(v);
  }
  llvm::Value* result = builder_.CreateCall(fn, args);
  // An intrinsic called for its effect (AMX's tile loads, stores and products) returns nothing.
  if (result->getType()->isVoidTy()) return result;
  llvm::Type* ret = llvmType(op->dtype);
  if (result->getType() == ret) return result;
  if (!sameBits(result->getType(), ret))
    throwDiagnostic("codegen", "function '" + funcName_ + "': '" + intrinsic +
                                   "' returns a different size than the call's " +
                                   op->dtype.name());
  return builder_.CreateBitCast(result, ret);
}

llvm::Value* CodeGenLLVM::emitAddressOf(const CallNode* op) {
  const auto* load = op->args.size() == 1 ? op->args[0]->as<BufferLoadNode>() : nullptr;
  if (load == nullptr || load->dtype.lanes() != 1)
    throwDiagnostic("codegen",
                    "function '" + funcName_ + "': tir.address_of takes one scalar buffer element");
  return builder_.CreateInBoundsGEP(memoryType(load->buffer->dtype), bufferPointer(load->buffer),
                                    emitExpr(flatIndex(load->buffer, load->indices)));
}

}  // namespace tessera::codegen
