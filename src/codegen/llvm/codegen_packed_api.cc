// CodeGenLLVM: the packed-function prologue (the calling convention of runtime/module.h; spec
// §4.3's MakePackedAPI). It checks every argument against the PrimFunc's buffers before any data is
// touched, binds symbolic shape variables from the first whole-dimension occurrence, and asserts
// all later occurrences.
#include <cstddef>

#include <dlpack/dlpack.h>

#include <llvm/IR/MDBuilder.h>

#include "codegen/llvm/codegen_llvm.h"
#include "runtime/arg_check.h"
#include "support/diagnostic.h"

namespace tessera::codegen {

using namespace tir;

// The struct type below mirrors DLTensor field by field.
static_assert(offsetof(DLTensor, data) == 0);
static_assert(offsetof(DLTensor, device) == 8);
static_assert(offsetof(DLTensor, ndim) == 16);
static_assert(offsetof(DLTensor, dtype) == 20);
static_assert(offsetof(DLTensor, shape) == 24);
static_assert(offsetof(DLTensor, strides) == 32);
static_assert(offsetof(DLTensor, byte_offset) == 40);

namespace {

enum DLTensorField : unsigned {
  kData = 0,
  kDeviceType = 1,
  kDeviceId = 2,
  kNdim = 3,
  kDtypeCode = 4,
  kDtypeBits = 5,
  kDtypeLanes = 6,
  kShape = 7,
  kStrides = 8,
  kByteOffset = 9,
};

std::string exprText(const PrimExpr& e) {
  if (const auto* v = e->as<VarNode>()) return v->name;
  if (const int64_t* c = asConstInt(e)) return std::to_string(*c);
  return "a shape expression";
}

}  // namespace

llvm::StructType* CodeGenLLVM::dlTensorType() {
  auto* ptrTy = builder_.getPtrTy();
  auto* i8 = builder_.getInt8Ty();
  auto* i16 = builder_.getInt16Ty();
  auto* i32 = builder_.getInt32Ty();
  return llvm::StructType::get(
      ctx_, {ptrTy, i32, i32, i32, i8, i8, i16, ptrTy, ptrTy, builder_.getInt64Ty()});
}

llvm::Value* CodeGenLLVM::emitScalarArgument(llvm::Value* tensor, DataType dtype,
                                             const std::string& name) {
  auto* i32 = builder_.getInt32Ty();
  llvm::StructType* tensorTy = dlTensorType();
  auto field = [&](unsigned index, llvm::Type* type) {
    return builder_.CreateLoad(type, builder_.CreateStructGEP(tensorTy, tensor, index));
  };
  emitCheck(builder_.CreateIsNotNull(tensor), name + " is expected to be a non-null DLTensor");
  llvm::Value* actualNdim = field(kNdim, i32);
  emitCheck(builder_.CreateICmpEQ(actualNdim, builder_.getInt32(0)),
            name + ".ndim is expected to equal 0", actualNdim);
  llvm::Value* dtypeOk = builder_.CreateAnd(
      builder_.CreateAnd(
          builder_.CreateICmpEQ(field(kDtypeCode, builder_.getInt8Ty()),
                                builder_.getInt8(static_cast<uint8_t>(dtype.code()))),
          builder_.CreateICmpEQ(field(kDtypeBits, builder_.getInt8Ty()),
                                builder_.getInt8(dtype.bits()))),
      builder_.CreateICmpEQ(field(kDtypeLanes, builder_.getInt16Ty()), builder_.getInt16(1)));
  emitCheck(dtypeOk, name + ".dtype is expected to be " + dtype.name());
  llvm::Value* deviceType = field(kDeviceType, i32);
  emitCheck(builder_.CreateICmpEQ(deviceType, builder_.getInt32(deviceType_)),
            name + ".device_type is expected to be " + std::to_string(deviceType_) +
                (deviceType_ == kDLCPU ? " (CPU)" : ""),
            deviceType);
  llvm::Value* byteOffset = field(kByteOffset, builder_.getInt64Ty());
  emitCheck(builder_.CreateICmpEQ(byteOffset, builder_.getInt64(0)),
            name + ".byte_offset is expected to be 0", byteOffset);
  llvm::Value* data = field(kData, builder_.getPtrTy());
  emitCheck(builder_.CreateIsNotNull(data), name + ".data is expected to be non-null");
  llvm::Value* value = builder_.CreateLoad(memoryType(dtype), data, name);
  return dtype.isBool() ? builder_.CreateIsNotNull(value) : value;
}

void CodeGenLLVM::emitTensorArgumentCheck(llvm::Value* tensor, const BufferNode& buffer,
                                          const std::string& name) {
  auto* ptrTy = builder_.getPtrTy();
  auto* i32 = builder_.getInt32Ty();
  auto* i8 = builder_.getInt8Ty();
  // A TesseraTensorArgSpec (runtime/arg_check.h) as a private constant.
  std::vector<llvm::Constant*> dims;
  for (const PrimExpr& extent : buffer.shape) {
    const int64_t* c = asConstInt(extent);
    dims.push_back(builder_.getInt64(c ? *c : kTesseraSymbolicDim));
  }
  auto* dimsType = llvm::ArrayType::get(builder_.getInt64Ty(), dims.size());
  auto* dimsGlobal =
      new llvm::GlobalVariable(module_, dimsType, true, llvm::GlobalValue::PrivateLinkage,
                               llvm::ConstantArray::get(dimsType, dims), ".shape");
  auto* specType = llvm::StructType::get(ctx_, {ptrTy, ptrTy, ptrTy, ptrTy, i32, i8, i8});
  const std::string shapeName = funcName_ + "_" + buffer.name + "_shape";
  auto* spec = llvm::ConstantStruct::get(
      specType, {llvm::cast<llvm::Constant>(stringConstant(name)),
                 llvm::cast<llvm::Constant>(stringConstant(shapeName)),
                 llvm::cast<llvm::Constant>(stringConstant(buffer.dtype.name())), dimsGlobal,
                 builder_.getInt32(static_cast<int32_t>(dims.size())),
                 builder_.getInt8(static_cast<uint8_t>(buffer.dtype.code())),
                 builder_.getInt8(static_cast<uint8_t>(buffer.dtype.bits()))});
  auto* specGlobal = new llvm::GlobalVariable(module_, specType, true,
                                              llvm::GlobalValue::PrivateLinkage, spec, ".argspec");
  llvm::Value* status = nullptr;
  if (deviceType_ == kDLCPU) {
    auto* checkType = llvm::FunctionType::get(i32, {ptrTy, ptrTy}, false);
    status = builder_.CreateCall(
        checkType, runtimeFunction("__TesseraAPICheckTensorArg", checkType), {tensor, specGlobal});
  } else {
    auto* checkType = llvm::FunctionType::get(i32, {ptrTy, ptrTy, i32}, false);
    status = builder_.CreateCall(checkType,
                                 runtimeFunction("__TesseraAPICheckDeviceTensorArg", checkType),
                                 {tensor, specGlobal, builder_.getInt32(deviceType_)});
  }
  // The runtime has recorded the message; the kernel only returns.
  auto* fail = llvm::BasicBlock::Create(ctx_, "arg_fail", fn_.function);
  auto* pass = llvm::BasicBlock::Create(ctx_, "arg_ok", fn_.function);
  llvm::MDBuilder md(ctx_);
  builder_.CreateCondBr(builder_.CreateICmpEQ(status, builder_.getInt32(0)), pass, fail,
                        md.createLikelyBranchWeights());
  builder_.SetInsertPoint(fail);
  builder_.CreateRet(builder_.getInt32(-1));
  builder_.SetInsertPoint(pass);
}

void CodeGenLLVM::emitPackedPrologue(const PrimFunc& func, llvm::Value* args,
                                     llvm::Value* numArgs) {
  auto* i64 = builder_.getInt64Ty();
  auto* ptrTy = builder_.getPtrTy();
  llvm::StructType* tensorTy = dlTensorType();
  const std::string& f = funcName_;
  int n = static_cast<int>(func->params.size());
  emitCheck(builder_.CreateICmpEQ(numArgs, builder_.getInt32(n)),
            f + ": num_args should be " + std::to_string(n), numArgs);

  // Shape expressions that are neither constants nor plain variables are checked once every
  // variable is bound.
  struct Deferred {
    PrimExpr expected;
    llvm::Value* actual;
    std::string message;
  };
  std::vector<Deferred> deferred;

  for (int i = 0; i < n; ++i) {
    const Var& param = func->params[i];
    Buffer buffer = func->bufferOf(param);
    std::string name = f + "." + (buffer ? buffer->name : param->name);
    llvm::Value* slot = builder_.CreateInBoundsGEP(ptrTy, args, builder_.getInt32(i));
    llvm::Value* tensor = builder_.CreateLoad(ptrTy, slot, param->name);
    if (!buffer) {
      fn_.vars[param.get()] = emitScalarArgument(tensor, param->dtype, name);
      continue;
    }
    emitTensorArgumentCheck(tensor, *buffer.get(), name);
    fn_.vars[param.get()] = tensor;
    auto field = [&](DLTensorField index, llvm::Type* type) {
      return builder_.CreateLoad(type, builder_.CreateStructGEP(tensorTy, tensor, index));
    };
    const int ndim = buffer->ndim();
    llvm::Value* data = field(kData, ptrTy);
    llvm::Value* shape = field(kShape, ptrTy);
    for (int d = 0; d < ndim; ++d) {
      const PrimExpr& expected = buffer->shape[d];
      if (asConstInt(expected) != nullptr) continue;  // checked by TesseraAPICheckTensorArg
      llvm::Value* dim =
          builder_.CreateLoad(i64, builder_.CreateInBoundsGEP(i64, shape, builder_.getInt32(d)));
      std::string message = "Argument " + name + ".shape[" + std::to_string(d) +
                            "] has an unsatisfied constraint: " + exprText(expected) + " == " + f +
                            "_" + buffer->name + "_shape[" + std::to_string(d) + "]";
      const auto* var = expected->as<VarNode>();
      if (var == nullptr) {
        deferred.push_back({expected, dim, message});
        continue;
      }
      auto it = fn_.vars.find(var);
      if (it == fn_.vars.end()) {
        fn_.vars[var] = builder_.CreateTrunc(dim, llvmType(var->dtype), var->name);
        continue;
      }
      emitCheck(builder_.CreateICmpEQ(builder_.CreateSExtOrTrunc(it->second, i64), dim), message,
                dim);
    }
    fn_.vars[buffer->data.get()] = data;
  }
  for (const Deferred& d : deferred) {
    llvm::Value* expected = builder_.CreateSExtOrTrunc(emitExpr(d.expected), i64);
    emitCheck(builder_.CreateICmpEQ(expected, d.actual), d.message, d.actual);
  }
}

}  // namespace tessera::codegen
