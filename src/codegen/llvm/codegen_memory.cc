// CodeGenLLVM: buffer loads and stores. A vector access is a plain load or store when its index
// is contiguous, a span read or written under a constant mask when it is strided by a small
// constant, a gather or lane-by-lane stores otherwise; an access under a per-lane condition is an
// llvm.masked.load or .store (loads made safe where x86 has none for narrow lanes, and at lane
// counts LLVM 19 lowers wrongly). bool is a byte in memory.
#include <llvm/IR/Intrinsics.h>
#include <llvm/Support/MathExtras.h>

#include "codegen/llvm/codegen_llvm.h"
#include "support/check.h"
#include "support/diagnostic.h"

namespace tessera::codegen {

using namespace tir;

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
