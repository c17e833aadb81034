// CodeGenLLVM: expressions. Integer floor division and modulo get explicit sign fix-ups (LLVM has
// only truncating forms); float-to-int casts saturate (llvm.fpto[su]i.sat, or clamp-then-convert
// for narrow types, which vectorizes), matching the reference evaluator instead of C's undefined
// behaviour; bool is i1 in registers and a byte in memory.
#include "codegen/llvm/codegen_llvm.h"

#include <cmath>

#include <llvm/IR/Intrinsics.h>
#include <llvm/Support/MathExtras.h>

#include "support/check.h"
#include "support/diagnostic.h"

namespace tessera::codegen {

using namespace tir;

llvm::Type* CodeGenLLVM::llvmType(DataType dtype) {
  llvm::Type* scalar = nullptr;
  if (dtype.isHandle()) return builder_.getPtrTy();
  if (dtype.isBool()) {
    scalar = builder_.getInt1Ty();
  } else if (dtype.code() == DataType::Code::kBFloat) {
    scalar = builder_.getBFloatTy();
  } else if (dtype.isFloat()) {
    switch (dtype.bits()) {
      case 16:
        scalar = builder_.getHalfTy();
        break;
      case 32:
        scalar = builder_.getFloatTy();
        break;
      case 64:
        scalar = builder_.getDoubleTy();
        break;
      default:
        break;
    }
  } else if (dtype.isInteger()) {
    scalar = builder_.getIntNTy(dtype.bits());
  }
  if (scalar == nullptr) {
    throwDiagnostic("codegen", "function '" + funcName_ + "': unsupported dtype " + dtype.name());
  }
  if (dtype.lanes() == 1) return scalar;
  return llvm::FixedVectorType::get(scalar, dtype.lanes());
}

llvm::Type* CodeGenLLVM::memoryType(DataType dtype) {
  if (dtype.isBool()) return llvmType(DataType::int8().withLanes(dtype.lanes()));
  return llvmType(dtype);
}

llvm::Value* CodeGenLLVM::lookupVar(const VarNode* var) {
  auto it = fn_.vars.find(var);
  if (it == fn_.vars.end()) {
    throwDiagnostic("codegen", "function '" + funcName_ + "': variable '" + var->name +
                                   "' is used but not defined");
  }
  return it->second;
}

llvm::Value* CodeGenLLVM::broadcastTo(llvm::Value* scalar, int lanes) {
  if (lanes == 1) return scalar;
  return builder_.CreateVectorSplat(lanes, scalar);
}

llvm::Value* CodeGenLLVM::emitExpr(const PrimExpr& e) {
  switch (e->kind) {
    case ExprKind::kIntImm: {
      int64_t value = e->as<IntImmNode>()->value;
      if (e->dtype.isBool()) return builder_.getInt1(value != 0);
      return llvm::ConstantInt::get(llvmType(e->dtype), static_cast<uint64_t>(value),
                                    e->dtype.isInt());
    }
    case ExprKind::kFloatImm:
      return llvm::ConstantFP::get(llvmType(e->dtype), e->as<FloatImmNode>()->value);
    case ExprKind::kStringImm:
      return stringConstant(e->as<StringImmNode>()->value);
    case ExprKind::kVar:
      return lookupVar(e->as<VarNode>());
    case ExprKind::kCast:
      return emitCast(e->dtype, e->as<CastNode>()->value);
    case ExprKind::kBinary:
      return emitBinary(e->as<BinaryNode>());
    case ExprKind::kNot:
      return builder_.CreateNot(emitExpr(e->as<NotNode>()->a));
    case ExprKind::kSelect: {
      const auto* op = e->as<SelectNode>();
      return builder_.CreateSelect(emitExpr(op->cond), emitExpr(op->t), emitExpr(op->f));
    }
    case ExprKind::kBufferLoad:
      return emitLoad(e->as<BufferLoadNode>());
    case ExprKind::kRamp:
      return emitRamp(e->as<RampNode>());
    case ExprKind::kBroadcast: {
      const auto* op = e->as<BroadcastNode>();
      return broadcastTo(emitExpr(op->value), op->lanes);
    }
    case ExprKind::kLet: {
      const auto* op = e->as<LetNode>();
      fn_.vars[op->var.get()] = emitExpr(op->value);
      return emitExpr(op->body);
    }
    case ExprKind::kCall:
      return emitCall(e->as<CallNode>());
    case ExprKind::kReduce:
      throwDiagnostic("codegen", "function '" + funcName_ +
                                     "': a TE reduction reached code generation (lower it first)");
  }
  TS_CHECK(false) << "unhandled expression kind";
  return nullptr;
}

// Float to bfloat16 as support/float16.cc rounds it (nearest, ties to even; NaN stays a quiet
// NaN), in integer operations: LLVM would otherwise call __truncsfbf2, which libgcc 12 and the JIT
// do not have. A double goes through float first (rounding twice in rare halfway cases).
llvm::Value* CodeGenLLVM::emitBfloat16Round(llvm::Value* value, int lanes) {
  llvm::Type* f32 = llvmType(DataType::float32().withLanes(lanes));
  llvm::Type* i32 = llvmType(DataType::int32().withLanes(lanes));
  llvm::Type* i16 = llvmType(DataType::int16().withLanes(lanes));
  if (value->getType() != f32) value = builder_.CreateFPCast(value, f32);
  llvm::Value* bits = builder_.CreateBitCast(value, i32);
  auto constant = [&](uint32_t c) { return llvm::ConstantInt::get(i32, c); };
  llvm::Value* high = builder_.CreateLShr(bits, constant(16));
  llvm::Value* bias = builder_.CreateAdd(constant(0x7fff), builder_.CreateAnd(high, constant(1)));
  llvm::Value* rounded = builder_.CreateLShr(builder_.CreateAdd(bits, bias), constant(16));
  llvm::Value* quietNan = builder_.CreateOr(high, constant(0x40));
  llvm::Value* isNan = builder_.CreateFCmpUNO(value, value);
  llvm::Value* result = builder_.CreateSelect(isNan, quietNan, rounded);
  return builder_.CreateBitCast(builder_.CreateTrunc(result, i16),
                                llvmType(DataType(DataType::Code::kBFloat, 16, lanes)));
}

llvm::Value* CodeGenLLVM::emitCast(DataType to, const PrimExpr& valueExpr) {
  DataType from = valueExpr->dtype;
  llvm::Value* value = emitExpr(valueExpr);
  if (from.lanes() == 1 && to.lanes() > 1) {
    value = broadcastTo(value, to.lanes());
    from = from.withLanes(to.lanes());
  }
  llvm::Type* target = llvmType(to);
  if (from == to) return value;
  if (to.isBool()) {
    if (from.isFloat())
      return builder_.CreateFCmpUNE(value, llvm::Constant::getNullValue(value->getType()));
    return builder_.CreateIsNotNull(value);
  }
  if (from.isFloat() && to.isFloat() && to.code() == DataType::Code::kBFloat &&
      from.code() != DataType::Code::kBFloat)
    return emitBfloat16Round(value, to.lanes());
  if (from.isFloat() && to.isFloat()) return builder_.CreateFPCast(value, target);
  if ((from.element() == DataType::float32() || from.element() == DataType::float64()) &&
      to.isInteger() && to.bits() < 32) {
    // Saturating to a narrow type as clamp-then-convert: the same values as fpto[su]i.sat (NaN
    // gives 0; the bounds are exact in float), but x86 converts whole vectors this way, where
    // LLVM expands the saturating intrinsic lane by lane.
    llvm::Type* ft = value->getType();
    const double lo = to.isInt() ? -std::ldexp(1.0, to.bits() - 1) : 0.0;
    const double hi =
        to.isInt() ? std::ldexp(1.0, to.bits() - 1) - 1 : std::ldexp(1.0, to.bits()) - 1;
    llvm::Value* v = builder_.CreateSelect(builder_.CreateFCmpUNO(value, value),
                                           llvm::ConstantFP::get(ft, 0.0), value);
    v = builder_.CreateBinaryIntrinsic(llvm::Intrinsic::maxnum, v, llvm::ConstantFP::get(ft, lo));
    v = builder_.CreateBinaryIntrinsic(llvm::Intrinsic::minnum, v, llvm::ConstantFP::get(ft, hi));
    llvm::Type* i32 = llvmType(DataType::int32().withLanes(to.lanes()));
    return builder_.CreateTrunc(builder_.CreateFPToSI(v, i32), target);
  }
  if (from.isFloat()) {
    auto id = to.isInt() ? llvm::Intrinsic::fptosi_sat : llvm::Intrinsic::fptoui_sat;
    return builder_.CreateIntrinsic(id, {target, value->getType()}, {value});
  }
  bool fromSigned = from.isInt();
  if (to.isFloat()) {
    return fromSigned ? builder_.CreateSIToFP(value, target) : builder_.CreateUIToFP(value, target);
  }
  if (from.isHandle() || to.isHandle()) {
    throwDiagnostic(
        "codegen", "function '" + funcName_ + "': cannot cast " + from.name() + " to " + to.name());
  }
  return builder_.CreateIntCast(value, target, fromSigned);
}

llvm::Value* CodeGenLLVM::emitFloorDivMod(bool isDiv, DataType dtype, llvm::Value* a,
                                          llvm::Value* b) {
  if (dtype.isFloat()) {
    llvm::Value* q =
        builder_.CreateUnaryIntrinsic(llvm::Intrinsic::floor, builder_.CreateFDiv(a, b));
    return isDiv ? q : builder_.CreateFSub(a, builder_.CreateFMul(q, b));
  }
  if (dtype.isUInt() || dtype.isBool())
    return isDiv ? builder_.CreateUDiv(a, b) : builder_.CreateURem(a, b);
  // Truncating results are off by one exactly when the remainder is non-zero and its sign differs
  // from the divisor's.
  llvm::Value* rem = builder_.CreateSRem(a, b);
  llvm::Value* zero = llvm::Constant::getNullValue(a->getType());
  llvm::Value* fix = builder_.CreateAnd(
      builder_.CreateICmpNE(rem, zero),
      builder_.CreateICmpNE(builder_.CreateICmpSLT(rem, zero), builder_.CreateICmpSLT(b, zero)));
  if (isDiv) {
    llvm::Value* quot = builder_.CreateSDiv(a, b);
    return builder_.CreateSub(quot, builder_.CreateZExt(fix, a->getType()));
  }
  return builder_.CreateSelect(fix, builder_.CreateAdd(rem, b), rem);
}

llvm::Value* CodeGenLLVM::emitBinary(const BinaryNode* op) {
  DataType dtype = op->a->dtype;
  llvm::Value* a = emitExpr(op->a);
  llvm::Value* b = emitExpr(op->b);
  // binary() may leave a scalar beside a vector; splat it.
  int lanes = std::max(op->a->dtype.lanes(), op->b->dtype.lanes());
  if (lanes > 1) {
    if (op->a->dtype.lanes() == 1) a = broadcastTo(a, lanes);
    if (op->b->dtype.lanes() == 1) b = broadcastTo(b, lanes);
    dtype = dtype.withLanes(lanes);
  }
  bool isFloat = dtype.isFloat();
  bool isSigned = dtype.isInt();
  switch (op->op) {
    case BinaryOp::kAdd:
      return isFloat ? builder_.CreateFAdd(a, b) : builder_.CreateAdd(a, b, "", false, isSigned);
    case BinaryOp::kSub:
      return isFloat ? builder_.CreateFSub(a, b) : builder_.CreateSub(a, b, "", false, isSigned);
    case BinaryOp::kMul:
      return isFloat ? builder_.CreateFMul(a, b) : builder_.CreateMul(a, b, "", false, isSigned);
    case BinaryOp::kDiv:
      if (isFloat) return builder_.CreateFDiv(a, b);
      return isSigned ? builder_.CreateSDiv(a, b) : builder_.CreateUDiv(a, b);
    case BinaryOp::kMod:
      if (isFloat) return builder_.CreateFRem(a, b);
      return isSigned ? builder_.CreateSRem(a, b) : builder_.CreateURem(a, b);
    case BinaryOp::kFloorDiv:
      return emitFloorDivMod(true, dtype, a, b);
    case BinaryOp::kFloorMod:
      return emitFloorDivMod(false, dtype, a, b);
    // min/max follow std::min/std::max (the reference evaluator's), including for NaN.
    case BinaryOp::kMin:
      return builder_.CreateSelect(isFloat    ? builder_.CreateFCmpOLT(b, a)
                                   : isSigned ? builder_.CreateICmpSLT(b, a)
                                              : builder_.CreateICmpULT(b, a),
                                   b, a);
    case BinaryOp::kMax:
      return builder_.CreateSelect(isFloat    ? builder_.CreateFCmpOLT(a, b)
                                   : isSigned ? builder_.CreateICmpSLT(a, b)
                                              : builder_.CreateICmpULT(a, b),
                                   b, a);
    case BinaryOp::kEQ:
      return isFloat ? builder_.CreateFCmpOEQ(a, b) : builder_.CreateICmpEQ(a, b);
    case BinaryOp::kNE:
      return isFloat ? builder_.CreateFCmpUNE(a, b) : builder_.CreateICmpNE(a, b);
    case BinaryOp::kLT:
      return isFloat ? builder_.CreateFCmpOLT(a, b)
                     : (isSigned ? builder_.CreateICmpSLT(a, b) : builder_.CreateICmpULT(a, b));
    case BinaryOp::kLE:
      return isFloat ? builder_.CreateFCmpOLE(a, b)
                     : (isSigned ? builder_.CreateICmpSLE(a, b) : builder_.CreateICmpULE(a, b));
    case BinaryOp::kGT:
      return isFloat ? builder_.CreateFCmpOGT(a, b)
                     : (isSigned ? builder_.CreateICmpSGT(a, b) : builder_.CreateICmpUGT(a, b));
    case BinaryOp::kGE:
      return isFloat ? builder_.CreateFCmpOGE(a, b)
                     : (isSigned ? builder_.CreateICmpSGE(a, b) : builder_.CreateICmpUGE(a, b));
    case BinaryOp::kAnd:
      return builder_.CreateAnd(a, b);
    case BinaryOp::kOr:
      return builder_.CreateOr(a, b);
  }
  TS_CHECK(false) << "unhandled binary operator";
  return nullptr;
}

llvm::Value* CodeGenLLVM::emitRamp(const RampNode* op) {
  llvm::Value* base = broadcastTo(emitExpr(op->base), op->lanes);
  llvm::Value* stride = broadcastTo(emitExpr(op->stride), op->lanes);
  std::vector<llvm::Constant*> steps;
  llvm::Type* scalar = llvmType(op->base->dtype);
  for (int i = 0; i < op->lanes; ++i) steps.push_back(llvm::ConstantInt::get(scalar, i));
  llvm::Value* offsets = builder_.CreateMul(stride, llvm::ConstantVector::get(steps));
  return builder_.CreateAdd(base, offsets);
}

PrimExpr CodeGenLLVM::flatIndex(const Buffer& buffer, const std::vector<PrimExpr>& indices) {
  if (indices.size() == 1 && buffer->elemOffset == nullptr) return indices[0];
  // Not flattened yet: row-major (or explicit strides), plus the element offset.
  PrimExpr flat;
  for (size_t i = 0; i < indices.size(); ++i) {
    PrimExpr term = indices[i];
    if (!buffer->strides.empty()) {
      term = term * cast(term->dtype.element(), buffer->strides[i]);
    } else {
      for (size_t j = i + 1; j < buffer->shape.size(); ++j) {
        term = term * cast(term->dtype.element(), buffer->shape[j]);
      }
    }
    flat = flat ? flat + term : term;
  }
  if (flat == nullptr) flat = intImm(0);
  if (buffer->elemOffset != nullptr) flat = flat + cast(flat->dtype.element(), buffer->elemOffset);
  return flat;
}

llvm::Value* CodeGenLLVM::bufferPointer(const Buffer& buffer) {
  return lookupVar(buffer->data.get());
}

}  // namespace tessera::codegen
