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

namespace {
/// The base of a contiguous vector access (a Ramp of stride 1), or null.
const PrimExpr* contiguousBase(const PrimExpr& index) {
  const auto* ramp = index->as<RampNode>();
  if (ramp == nullptr || !isConstInt(ramp->stride, 1)) return nullptr;
  return &ramp->base;
}

/// A Ramp with a small constant stride above 1 (as strided convolutions read their input): its
/// stride, or 0.
int64_t smallStrideOf(const PrimExpr& index) {
  const auto* ramp = index->as<RampNode>();
  if (ramp == nullptr) return 0;
  const int64_t* stride = asConstInt(ramp->stride);
  return stride && *stride > 1 && *stride <= 4 ? *stride : 0;
}
}  // namespace

llvm::Value* CodeGenLLVM::emitLoad(const BufferLoadNode* op) {
  llvm::Value* ptr = bufferPointer(op->buffer);
  PrimExpr index = flatIndex(op->buffer, op->indices);
  DataType elemType = op->buffer->dtype;
  llvm::Type* memElem = memoryType(elemType);
  int lanes = op->dtype.lanes();
  auto fromMemory = [&](llvm::Value* v) {
    return elemType.isBool() ? builder_.CreateIsNotNull(v) : v;
  };
  auto align = llvm::Align(elemType.bytes());
  if (lanes == elemType.lanes()) {
    llvm::Value* addr = builder_.CreateInBoundsGEP(memElem, ptr, emitExpr(index));
    return fromMemory(builder_.CreateAlignedLoad(memoryType(op->dtype), addr, align));
  }
  if (const PrimExpr* base = contiguousBase(index)) {
    llvm::Value* addr = builder_.CreateInBoundsGEP(memElem, ptr, emitExpr(*base));
    return fromMemory(builder_.CreateAlignedLoad(memoryType(op->dtype), addr, align));
  }
  if (const int64_t stride = smallStrideOf(index); stride > 0 && !elemType.isBool()) {
    // Every element between the first and the last lane is in bounds when those are: load the
    // whole span contiguously and keep every stride-th element (LLVM turns it into permutes).
    const int span = static_cast<int>((lanes - 1) * stride + 1);
    llvm::Value* addr =
        builder_.CreateInBoundsGEP(memElem, ptr, emitExpr(index->as<RampNode>()->base));
    llvm::Value* wide =
        builder_.CreateAlignedLoad(llvm::FixedVectorType::get(memElem, span), addr, align);
    std::vector<int> pick;
    for (int i = 0; i < lanes; ++i) pick.push_back(static_cast<int>(i * stride));
    return builder_.CreateShuffleVector(wide, pick);
  }
  // A gather: one scalar load per lane.
  llvm::Value* indices = emitExpr(index);
  llvm::Value* result = llvm::PoisonValue::get(memoryType(op->dtype));
  for (int i = 0; i < lanes; ++i) {
    llvm::Value* idx =
        indices->getType()->isVectorTy() ? builder_.CreateExtractElement(indices, i) : indices;
    llvm::Value* addr = builder_.CreateInBoundsGEP(memElem, ptr, idx);
    result =
        builder_.CreateInsertElement(result, builder_.CreateAlignedLoad(memElem, addr, align), i);
  }
  return fromMemory(result);
}

llvm::Value* CodeGenLLVM::shuffleMask(llvm::Value* mask, const std::vector<int>& pattern,
                                      unsigned laneBits) {
  if (llvm::isa<llvm::Constant>(mask))
    return builder_.CreateShuffleVector(mask, llvm::Constant::getNullValue(mask->getType()),
                                        pattern);
  // LLVM's x86 backend moves the bits of a shuffled i1 vector one at a time through the mask
  // registers (about four instructions a lane: a strided max pool's padding test took 70% of its
  // time). As integers of the loaded element's width the shuffle is a few vector permutes.
  auto* lanes = llvm::cast<llvm::FixedVectorType>(mask->getType());
  auto* intType = llvm::FixedVectorType::get(builder_.getIntNTy(laneBits), lanes->getNumElements());
  llvm::Value* asInts = builder_.CreateSExt(mask, intType);
  llvm::Value* shuffled =
      builder_.CreateShuffleVector(asInts, llvm::Constant::getNullValue(intType), pattern);
  return builder_.CreateICmpNE(shuffled, llvm::Constant::getNullValue(shuffled->getType()));
}

// LLVM 19's x86 lowering of a masked load whose lane count is not a power of two loads lanes
// whose mask is false: on AVX2 a <10 x float> load gave lanes 8 and 9 memory's values where the
// mask said zero (a tuned winograd convolution's vectorized padding computed wrong results;
// CodegenElementwise.MaskedLoadsOfAnyWidthKeepTheirMask). The load is made at the next power of
// two, the extra lanes masked off (not read), and narrowed back.
llvm::Value* CodeGenLLVM::createMaskedLoad(llvm::Type* vecType, llvm::Value* addr,
                                           llvm::Align align, llvm::Value* mask,
                                           llvm::Value* passthru) {
  auto* type = llvm::cast<llvm::FixedVectorType>(vecType);
  const unsigned lanes = type->getNumElements();
  if (llvm::isPowerOf2_32(lanes))
    return builder_.CreateMaskedLoad(vecType, addr, align, mask, passthru);
  const unsigned wide = static_cast<unsigned>(llvm::PowerOf2Ceil(lanes));
  std::vector<int> widenMask, widenValue, narrow;
  for (unsigned i = 0; i < wide; ++i) {
    widenMask.push_back(static_cast<int>(i < lanes ? i : lanes));  // lane `lanes`: the zeros'
    widenValue.push_back(i < lanes ? static_cast<int>(i) : llvm::PoisonMaskElem);
  }
  for (unsigned i = 0; i < lanes; ++i) narrow.push_back(static_cast<int>(i));
  const unsigned laneBits = std::max(8u, type->getElementType()->getScalarSizeInBits());
  llvm::Value* wideMask = shuffleMask(mask, widenMask, laneBits);
  llvm::Value* widePassthru =
      passthru ? builder_.CreateShuffleVector(passthru, widenValue) : nullptr;
  llvm::Value* loaded =
      builder_.CreateMaskedLoad(llvm::FixedVectorType::get(type->getElementType(), wide), addr,
                                align, wideMask, widePassthru);
  return builder_.CreateShuffleVector(loaded, narrow);
}

// x86 without AVX-512BW has no masked load of 8- or 16-bit lanes, and LLVM loads such a vector
// one lane at a time, each behind a branch: the padded rows of an int8 strided depthwise
// convolution took 3.9 ms of quantized MobileNetV2's 27 on an AVX2 host. A span that lies inside
// its buffer (every padded row but the buffer's first and last) may be read whole: the plain
// load, then the mask selects. A strided load's span is read as a power of two of lanes, whose
// shuffle to every stride-th lane is a few permutes (an odd span's took an insert per lane).
llvm::Value* CodeGenLLVM::maskedLoadIn(const Buffer& buffer, llvm::Type* vecType, llvm::Value* addr,
                                       llvm::Align align, llvm::Value* mask, llvm::Value* passthru,
                                       const std::vector<int>& pick) {
  // The picked lanes, shuffled out as a power of two of them (the pattern continued while it
  // stays inside `v`) and then narrowed: a shuffle to 56 lanes took an extract and an insert
  // per lane on AVX2, one to 64 is a few packs and permutes.
  auto picked = [&](llvm::Value* v) {
    if (pick.empty()) return v;
    const int sourceLanes =
        static_cast<int>(llvm::cast<llvm::FixedVectorType>(v->getType())->getNumElements());
    const int step = pick.size() > 1 ? pick[1] - pick[0] : 1;
    std::vector<int> wide = pick;
    while (!llvm::isPowerOf2_64(wide.size())) {
      const int next = pick[0] + static_cast<int>(wide.size()) * step;
      wide.push_back(next < sourceLanes ? next : llvm::PoisonMaskElem);
    }
    llvm::Value* out = builder_.CreateShuffleVector(v, wide);
    if (wide.size() == pick.size()) return out;
    std::vector<int> narrow;
    for (size_t i = 0; i < pick.size(); ++i) narrow.push_back(static_cast<int>(i));
    return builder_.CreateShuffleVector(out, narrow);
  };
  const unsigned bits = vecType->getScalarSizeInBits();
  int64_t elements = 1;
  for (const PrimExpr& d : buffer->shape) {
    const int64_t* extent = asConstInt(d);
    elements = extent ? elements * *extent : -1;
    if (elements < 0) break;
  }
  const bool offset = buffer->elemOffset && !isConstInt(buffer->elemOffset, 0);
  if (nativeNarrowMaskedLoads_ || bits >= 32 || elements < 0 || !buffer->strides.empty() || offset)
    return picked(createMaskedLoad(vecType, addr, align, mask, passthru));
  const auto lanes = llvm::cast<llvm::FixedVectorType>(vecType)->getNumElements();
  const auto wholeLanes = pick.empty() ? lanes : static_cast<unsigned>(llvm::PowerOf2Ceil(lanes));
  llvm::Type* wholeType = llvm::FixedVectorType::get(vecType->getScalarType(), wholeLanes);
  const int64_t wholeBytes = int64_t{wholeLanes} * bits / 8;
  const int64_t bufferBytes = elements * buffer->dtype.bytes();
  llvm::Type* intPtr = builder_.getInt64Ty();
  llvm::Value* begin = builder_.CreatePtrToInt(bufferPointer(buffer), intPtr);
  llvm::Value* at = builder_.CreatePtrToInt(addr, intPtr);
  llvm::Value* inside = builder_.CreateAnd(
      builder_.CreateICmpUGE(at, begin),
      builder_.CreateICmpULE(builder_.CreateAdd(at, builder_.getInt64(wholeBytes)),
                             builder_.CreateAdd(begin, builder_.getInt64(bufferBytes))));
  llvm::Function* f = builder_.GetInsertBlock()->getParent();
  auto* whole = llvm::BasicBlock::Create(ctx_, "span_inside", f);
  auto* lanewise = llvm::BasicBlock::Create(ctx_, "span_at_edge", f);
  auto* join = llvm::BasicBlock::Create(ctx_, "span_loaded", f);
  builder_.CreateCondBr(inside, whole, lanewise);
  builder_.SetInsertPoint(whole);
  llvm::Value* plain = builder_.CreateAlignedLoad(wholeType, addr, align);
  // (A passthru comes only with a contiguous load, whose whole span is the vector.)
  if (passthru) plain = builder_.CreateSelect(mask, plain, passthru);
  plain = widenedForPhi(plain);
  llvm::BasicBlock* wholeEnd = builder_.GetInsertBlock();
  builder_.CreateBr(join);
  builder_.SetInsertPoint(lanewise);
  llvm::Value* masked = widenedForPhi(createMaskedLoad(vecType, addr, align, mask, passthru));
  llvm::BasicBlock* lanewiseEnd = builder_.GetInsertBlock();
  builder_.CreateBr(join);
  builder_.SetInsertPoint(join);
  // The stride-th lanes are picked after the join, from the span's lanes.
  return picked(joinWidened(vecType, plain, wholeEnd, masked, lanewiseEnd));
}

llvm::Value* CodeGenLLVM::widenedForPhi(llvm::Value* v) {
  auto* type = llvm::dyn_cast<llvm::FixedVectorType>(v->getType());
  if (!type || llvm::isPowerOf2_32(type->getNumElements())) return v;
  const unsigned lanes = type->getNumElements();
  std::vector<int> widen;
  for (unsigned i = 0; i < llvm::PowerOf2Ceil(lanes); ++i)
    widen.push_back(i < lanes ? static_cast<int>(i) : llvm::PoisonMaskElem);
  return builder_.CreateShuffleVector(v, widen);
}

llvm::Value* CodeGenLLVM::joinWidened(llvm::Type* type, llvm::Value* a, llvm::BasicBlock* aEnd,
                                      llvm::Value* b, llvm::BasicBlock* bEnd) {
  llvm::PHINode* phi = builder_.CreatePHI(a->getType(), 2);
  phi->addIncoming(a, aEnd);
  phi->addIncoming(b, bEnd);
  if (a->getType() == type) return phi;
  std::vector<int> narrow;
  for (unsigned i = 0; i < llvm::cast<llvm::FixedVectorType>(type)->getNumElements(); ++i)
    narrow.push_back(static_cast<int>(i));
  return builder_.CreateShuffleVector(phi, narrow);
}

llvm::Value* CodeGenLLVM::emitMaskedLoad(const BufferLoadNode* op, llvm::Value* mask,
                                         llvm::Value* passthru) {
  llvm::Value* ptr = bufferPointer(op->buffer);
  PrimExpr index = flatIndex(op->buffer, op->indices);
  llvm::Type* memElem = memoryType(op->buffer->dtype);
  llvm::Type* vecType = memoryType(op->dtype);
  const int lanes = op->dtype.lanes();
  auto align = llvm::Align(op->buffer->dtype.bytes());
  if (const PrimExpr* base = contiguousBase(index)) {
    llvm::Value* addr = builder_.CreateInBoundsGEP(memElem, ptr, emitExpr(*base));
    return maskedLoadIn(op->buffer, vecType, addr, align, mask, passthru);
  }
  if (const int64_t stride = smallStrideOf(index); stride > 0) {
    // As emitLoad's strided span, with the mask spread over the lanes it keeps (the elements in
    // between are not needed, so not read).
    const int span = static_cast<int>((lanes - 1) * stride + 1);
    std::vector<int> spread, pick;
    for (int i = 0; i < span; ++i) spread.push_back(i % stride == 0 ? i / stride : lanes);
    for (int i = 0; i < lanes; ++i) pick.push_back(static_cast<int>(i * stride));
    llvm::Value* spanMask = shuffleMask(mask, spread, std::max(8u, memElem->getScalarSizeInBits()));
    llvm::Value* addr =
        builder_.CreateInBoundsGEP(memElem, ptr, emitExpr(index->as<RampNode>()->base));
    llvm::Value* picked = maskedLoadIn(op->buffer, llvm::FixedVectorType::get(memElem, span), addr,
                                       align, spanMask, nullptr, pick);
    return builder_.CreateSelect(mask, picked, passthru);
  }
  llvm::Value* addrs = builder_.CreateInBoundsGEP(memElem, ptr, emitExpr(index));
  if (!addrs->getType()->isVectorTy())
    addrs = builder_.CreateVectorSplat(static_cast<unsigned>(lanes), addrs);
  return builder_.CreateMaskedGather(vecType, addrs, align, mask, passthru);
}

// A masked store (tir::maskedStore) with a contiguous index: llvm.masked.store, the lanes outside
// the mask neither read nor written.
bool CodeGenLLVM::emitMaskedStore(const BufferStoreNode* op, const PrimExpr& index) {
  const MaskedStoreParts parts = maskedStoreParts(*op);
  const PrimExpr* base = contiguousBase(index);
  if (!parts.mask || !base || op->buffer->dtype.isBool()) return false;
  llvm::Value* mask = emitExpr(parts.mask);
  llvm::Value* value = emitExpr(parts.value);
  llvm::Value* addr = builder_.CreateInBoundsGEP(memoryType(op->buffer->dtype),
                                                 bufferPointer(op->buffer), emitExpr(*base));
  // As createMaskedLoad: a lane count that is not a power of two is widened, the extra lanes
  // masked off.
  const unsigned lanes = llvm::cast<llvm::FixedVectorType>(value->getType())->getNumElements();
  if (!llvm::isPowerOf2_32(lanes)) {
    const unsigned wide = static_cast<unsigned>(llvm::PowerOf2Ceil(lanes));
    std::vector<int> widenValue, widenMask;
    for (unsigned i = 0; i < wide; ++i) {
      widenValue.push_back(i < lanes ? static_cast<int>(i) : llvm::PoisonMaskElem);
      widenMask.push_back(static_cast<int>(i < lanes ? i : lanes));  // lane `lanes`: false
    }
    value = builder_.CreateShuffleVector(value, widenValue);
    mask = shuffleMask(mask, widenMask,
                       std::max(8u, value->getType()->getScalarType()->getScalarSizeInBits()));
  }
  builder_.CreateMaskedStore(value, addr, llvm::Align(op->buffer->dtype.bytes()), mask);
  return true;
}

void CodeGenLLVM::emitStore(const BufferStoreNode* op) {
  llvm::Value* ptr = bufferPointer(op->buffer);
  PrimExpr index = flatIndex(op->buffer, op->indices);
  if (emitMaskedStore(op, index)) return;
  DataType elemType = op->buffer->dtype;
  llvm::Type* memElem = memoryType(elemType);
  DataType valueType = op->value->dtype;
  llvm::Value* value = emitExpr(op->value);
  int lanes = std::max(valueType.lanes(), index->dtype.lanes());
  if (valueType.lanes() == 1 && lanes > 1) value = broadcastTo(value, lanes);
  if (elemType.isBool()) value = builder_.CreateZExt(value, memoryType(elemType.withLanes(lanes)));
  auto align = llvm::Align(elemType.bytes());
  if (lanes == 1) {
    builder_.CreateAlignedStore(value, builder_.CreateInBoundsGEP(memElem, ptr, emitExpr(index)),
                                align);
    return;
  }
  if (const PrimExpr* base = contiguousBase(index)) {
    builder_.CreateAlignedStore(value, builder_.CreateInBoundsGEP(memElem, ptr, emitExpr(*base)),
                                align);
    return;
  }
  if (const int64_t stride = smallStrideOf(index); stride > 0 && !elemType.isBool()) {
    // Every stride-th element of a span: the lanes spread out to their places in a vector of the
    // span (widened to a power of two, see createMaskedLoad) and stored under a constant mask, so
    // the elements in between keep their values (AVX-512BW: one masked move of the span).
    const int span = static_cast<int>((lanes - 1) * stride + 1);
    const int wide = static_cast<int>(llvm::PowerOf2Ceil(static_cast<uint64_t>(span)));
    std::vector<int> spread;
    std::vector<llvm::Constant*> keep;
    for (int i = 0; i < wide; ++i) {
      const bool mine = i < span && i % stride == 0;
      spread.push_back(mine ? i / static_cast<int>(stride) : llvm::PoisonMaskElem);
      keep.push_back(builder_.getInt1(mine));
    }
    llvm::Value* addr =
        builder_.CreateInBoundsGEP(memElem, ptr, emitExpr(index->as<RampNode>()->base));
    builder_.CreateMaskedStore(builder_.CreateShuffleVector(value, spread), addr, align,
                               llvm::ConstantVector::get(keep));
    return;
  }
  llvm::Value* indices = emitExpr(index);
  for (int i = 0; i < lanes; ++i) {
    llvm::Value* idx =
        indices->getType()->isVectorTy() ? builder_.CreateExtractElement(indices, i) : indices;
    builder_.CreateAlignedStore(builder_.CreateExtractElement(value, i),
                                builder_.CreateInBoundsGEP(memElem, ptr, idx), align);
  }
}

}  // namespace tessera::codegen
