// CodeGenLLVM: the packed-function prologue (the calling convention of runtime/module.h; spec §4.3's MakePackedAPI). It checks every
// argument against the PrimFunc's buffers before any data is touched, binds symbolic shape
// variables from the first whole-dimension occurrence, and asserts all later occurrences.
#include <cstddef>

#include <dlpack/dlpack.h>

#include "codegen/llvm/codegen_llvm.h"
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

void CodeGenLLVM::emitPackedPrologue(const PrimFunc& func, llvm::Value* args,
                                     llvm::Value* numArgs) {
  auto* i8 = builder_.getInt8Ty();
  auto* i16 = builder_.getInt16Ty();
  auto* i32 = builder_.getInt32Ty();
  auto* i64 = builder_.getInt64Ty();
  auto* ptrTy = builder_.getPtrTy();
  auto* tensorTy =
      llvm::StructType::get(ctx_, {ptrTy, i32, i32, i32, i8, i8, i16, ptrTy, ptrTy, i64});
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
    emitCheck(builder_.CreateIsNotNull(tensor), name + " is expected to be a non-null DLTensor");
    auto field = [&](DLTensorField index, llvm::Type* type) {
      return builder_.CreateLoad(type, builder_.CreateStructGEP(tensorTy, tensor, index));
    };
    DataType dtype = buffer ? buffer->dtype : param->dtype;
    int ndim = buffer ? buffer->ndim() : 0;
    llvm::Value* actualNdim = field(kNdim, i32);
    emitCheck(builder_.CreateICmpEQ(actualNdim, builder_.getInt32(ndim)),
              name + ".ndim is expected to equal " + std::to_string(ndim), actualNdim);
    llvm::Value* dtypeOk = builder_.CreateAnd(
        builder_.CreateAnd(
            builder_.CreateICmpEQ(field(kDtypeCode, i8),
                                  builder_.getInt8(static_cast<uint8_t>(dtype.code()))),
            builder_.CreateICmpEQ(field(kDtypeBits, i8), builder_.getInt8(dtype.bits()))),
        builder_.CreateICmpEQ(field(kDtypeLanes, i16), builder_.getInt16(1)));
    emitCheck(dtypeOk, name + ".dtype is expected to be " + dtype.name());
    llvm::Value* deviceType = field(kDeviceType, i32);
    emitCheck(builder_.CreateICmpEQ(deviceType, builder_.getInt32(kDLCPU)),
              name + ".device_type is expected to be 1 (CPU)", deviceType);
    llvm::Value* byteOffset = field(kByteOffset, i64);
    emitCheck(builder_.CreateICmpEQ(byteOffset, builder_.getInt64(0)),
              name + ".byte_offset is expected to be 0", byteOffset);
    llvm::Value* data = field(kData, ptrTy);
    fn_.vars[param.get()] = tensor;

    if (!buffer) {
      // A scalar parameter: a rank-0 tensor holding the value.
      emitCheck(builder_.CreateIsNotNull(data), name + ".data is expected to be non-null");
      llvm::Value* value = builder_.CreateLoad(memoryType(dtype), data, param->name);
      if (dtype.isBool()) value = builder_.CreateIsNotNull(value);
      fn_.vars[param.get()] = value;
      continue;
    }

    llvm::Value* shape = field(kShape, ptrTy);
    std::vector<llvm::Value*> dims;
    llvm::Value* numel = builder_.getInt64(1);
    for (int d = 0; d < ndim; ++d) {
      llvm::Value* dim =
          builder_.CreateLoad(i64, builder_.CreateInBoundsGEP(i64, shape, builder_.getInt32(d)));
      dims.push_back(dim);
      numel = builder_.CreateMul(numel, dim);
      const PrimExpr& expected = buffer->shape[d];
      std::string where = name + ".shape[" + std::to_string(d) + "]";
      std::string message = "Argument " + where +
                            " has an unsatisfied constraint: " + exprText(expected) + " == " + f +
                            "_" + buffer->name + "_shape[" + std::to_string(d) + "]";
      if (const int64_t* c = asConstInt(expected)) {
        emitCheck(builder_.CreateICmpEQ(dim, builder_.getInt64(*c)), message, dim);
        continue;
      }
      const auto* var = expected->as<VarNode>();
      if (var == nullptr) {
        deferred.push_back({expected, dim, message});
        continue;
      }
      llvm::Type* varType = llvmType(var->dtype);
      auto it = fn_.vars.find(var);
      if (it == fn_.vars.end()) {
        llvm::Value* bound = builder_.CreateTrunc(dim, varType, var->name);
        fn_.vars[var] = bound;
        continue;
      }
      emitCheck(builder_.CreateICmpEQ(builder_.CreateSExtOrTrunc(it->second, i64), dim), message,
                dim);
    }
    // Compactness: strides, when given, must be row-major (size-1 dimensions may have any).
    llvm::Value* strides = field(kStrides, ptrTy);
    if (ndim > 0) {
      auto* checkBB = llvm::BasicBlock::Create(ctx_, "check_strides", fn_.function);
      auto* doneBB = llvm::BasicBlock::Create(ctx_, "strides_ok", fn_.function);
      builder_.CreateCondBr(builder_.CreateIsNull(strides), doneBB, checkBB);
      builder_.SetInsertPoint(checkBB);
      llvm::Value* expectedStride = builder_.getInt64(1);
      llvm::Value* compact = builder_.getTrue();
      for (int d = ndim - 1; d >= 0; --d) {
        llvm::Value* stride = builder_.CreateLoad(
            i64, builder_.CreateInBoundsGEP(i64, strides, builder_.getInt32(d)));
        llvm::Value* ok = builder_.CreateOr(builder_.CreateICmpEQ(stride, expectedStride),
                                            builder_.CreateICmpEQ(dims[d], builder_.getInt64(1)));
        compact = builder_.CreateAnd(compact, ok);
        expectedStride = builder_.CreateMul(expectedStride, dims[d]);
      }
      emitCheck(compact, name + ".strides: expected to be compact array");
      builder_.CreateBr(doneBB);
      builder_.SetInsertPoint(doneBB);
    }
    emitCheck(builder_.CreateOr(builder_.CreateIsNotNull(data),
                                builder_.CreateICmpEQ(numel, builder_.getInt64(0))),
              name + ".data is expected to be non-null");
    fn_.vars[buffer->data.get()] = data;
  }
  for (const Deferred& d : deferred) {
    llvm::Value* expected = builder_.CreateSExtOrTrunc(emitExpr(d.expected), i64);
    emitCheck(builder_.CreateICmpEQ(expected, d.actual), d.message, d.actual);
  }
}

}  // namespace tessera::codegen
