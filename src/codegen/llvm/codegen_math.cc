// CodeGenLLVM: intrinsic calls. exp, log, tanh, erf and sigmoid are expanded inline into
// straight-line arithmetic (range reduction + polynomial, selects for special cases) that works on
// scalars and vectors alike, so loops using them vectorize instead of calling libm per element.
// Accuracy for float32 (tested against <cmath> in math_intrinsics_test.cc): exp <= 2 ulp, log <= 2
// ulp, tanh <= 3 ulp, sigmoid <= 3 ulp, erf <= 4 ulp. float64 exp, log and sigmoid use the same
// scheme with longer polynomials; float64 tanh and erf call libm per lane.
#include <cmath>

#include <llvm/IR/Intrinsics.h>

#include "codegen/llvm/codegen_llvm.h"
#include "support/diagnostic.h"

namespace tessera::codegen {

using namespace tir;

namespace {

bool isFloat32(llvm::Type* t) {
  return t->getScalarType()->isFloatTy();
}
bool isFloat64(llvm::Type* t) {
  return t->getScalarType()->isDoubleTy();
}

/// The integer type with the same shape as the float type `t`.
llvm::Type* intTypeLike(llvm::Type* t) {
  llvm::Type* scalar = llvm::IntegerType::get(t->getContext(), t->getScalarSizeInBits());
  if (auto* vec = llvm::dyn_cast<llvm::FixedVectorType>(t)) {
    return llvm::FixedVectorType::get(scalar, vec->getNumElements());
  }
  return scalar;
}

}  // namespace

llvm::Value* CodeGenLLVM::fconst(llvm::Type* type, double value) {
  return llvm::ConstantFP::get(type, value);
}

llvm::Value* CodeGenLLVM::callLibm(const std::string& name, llvm::Value* x) {
  llvm::Type* type = x->getType();
  llvm::Type* scalar = type->getScalarType();
  std::string symbol = isFloat32(type) ? name + "f" : name;
  llvm::FunctionCallee fn = module_.getOrInsertFunction(symbol, scalar, scalar);
  auto* vec = llvm::dyn_cast<llvm::FixedVectorType>(type);
  if (vec == nullptr) return builder_.CreateCall(fn, {x});
  llvm::Value* result = llvm::PoisonValue::get(type);
  for (unsigned i = 0; i < vec->getNumElements(); ++i) {
    llvm::Value* lane = builder_.CreateCall(fn, {builder_.CreateExtractElement(x, i)});
    result = builder_.CreateInsertElement(result, lane, i);
  }
  return result;
}

llvm::Value* CodeGenLLVM::emitExp(llvm::Value* x) {
  llvm::Type* t = x->getType();
  bool f64 = isFloat64(t);
  llvm::Type* it = intTypeLike(t);
  // Clamping keeps n in range for the two-step scaling below; results still overflow to inf and
  // underflow gradually through denormals to 0.
  llvm::Value* isNan = builder_.CreateFCmpUNO(x, x);
  llvm::Value* hi = fconst(t, f64 ? 710.0 : 89.0);
  llvm::Value* lo = fconst(t, f64 ? -746.0 : -104.0);
  llvm::Value* xc = builder_.CreateSelect(isNan, fconst(t, 0.0), x);
  xc = builder_.CreateSelect(builder_.CreateFCmpOGT(xc, hi), hi, xc);
  xc = builder_.CreateSelect(builder_.CreateFCmpOLT(xc, lo), lo, xc);
  // x = n ln2 + r with |r| <= ln2/2; ln2 split in two so n*ln2hi is exact.
  llvm::Value* n = builder_.CreateUnaryIntrinsic(
      llvm::Intrinsic::floor,
      builder_.CreateFAdd(builder_.CreateFMul(xc, fconst(t, 1.4426950408889634)), fconst(t, 0.5)));
  double ln2hi = f64 ? 6.93145751953125E-1 : 0.693359375;
  double ln2lo = f64 ? 1.42860682030941723212E-6 : -2.12194440e-4;
  llvm::Value* r = builder_.CreateFSub(xc, builder_.CreateFMul(n, fconst(t, ln2hi)));
  r = builder_.CreateFSub(r, builder_.CreateFMul(n, fconst(t, ln2lo)));
  // Taylor polynomial of e^r: degree 7 (float32) / 13 (float64) keeps truncation below 0.1 ulp.
  int degree = f64 ? 13 : 7;
  double factorial = 1.0;
  for (int k = 1; k <= degree; ++k) factorial *= k;
  llvm::Value* p = fconst(t, 1.0 / factorial);
  for (int k = degree - 1; k >= 0; --k) {
    factorial /= (k + 1);
    p = builder_.CreateFAdd(builder_.CreateFMul(p, r), fconst(t, 1.0 / factorial));
  }
  // 2^n as two powers of two built from exponent bits, each within the normal range.
  int mantissa = f64 ? 52 : 23;
  int bias = f64 ? 1023 : 127;
  llvm::Value* ni = builder_.CreateFPToSI(n, it);
  llvm::Value* n1 = builder_.CreateAShr(ni, llvm::ConstantInt::get(it, 1));
  llvm::Value* n2 = builder_.CreateSub(ni, n1);
  auto pow2 = [&](llvm::Value* e) {
    llvm::Value* bits = builder_.CreateShl(builder_.CreateAdd(e, llvm::ConstantInt::get(it, bias)),
                                           llvm::ConstantInt::get(it, mantissa));
    return builder_.CreateBitCast(bits, t);
  };
  llvm::Value* result = builder_.CreateFMul(builder_.CreateFMul(p, pow2(n1)), pow2(n2));
  return builder_.CreateSelect(isNan, x, result);
}

llvm::Value* CodeGenLLVM::emitLog(llvm::Value* x) {
  llvm::Type* t = x->getType();
  bool f64 = isFloat64(t);
  llvm::Type* it = intTypeLike(t);
  int mantissa = f64 ? 52 : 23;
  int bias = f64 ? 1023 : 127;
  auto ic = [&](int64_t v) { return llvm::ConstantInt::get(it, static_cast<uint64_t>(v), true); };
  // Denormals are scaled into the normal range first.
  double minNormal = f64 ? 2.2250738585072014e-308 : 1.17549435e-38;
  llvm::Value* tiny = builder_.CreateFCmpOLT(x, fconst(t, minNormal));
  llvm::Value* xs =
      builder_.CreateSelect(tiny, builder_.CreateFMul(x, fconst(t, std::ldexp(1.0, mantissa))), x);
  llvm::Value* bits = builder_.CreateBitCast(xs, it);
  llvm::Value* e = builder_.CreateSub(
      builder_.CreateAnd(builder_.CreateLShr(bits, ic(mantissa)), ic(f64 ? 0x7ff : 0xff)),
      ic(bias));
  e = builder_.CreateSub(e, builder_.CreateSelect(tiny, ic(mantissa), ic(0)));
  int64_t mantMask = (int64_t{1} << mantissa) - 1;
  llvm::Value* m = builder_.CreateBitCast(
      builder_.CreateOr(builder_.CreateAnd(bits, ic(mantMask)), ic(int64_t{bias} << mantissa)), t);
  // m in [1, 2) -> [sqrt(1/2), sqrt(2)) so that f = m - 1 is small and exact.
  llvm::Value* big = builder_.CreateFCmpOGT(m, fconst(t, M_SQRT2));
  m = builder_.CreateSelect(big, builder_.CreateFMul(m, fconst(t, 0.5)), m);
  e = builder_.CreateAdd(e, builder_.CreateZExt(big, it));
  llvm::Value* f = builder_.CreateFSub(m, fconst(t, 1.0));
  // log(m) = 2 atanh(s), s = f / (2 + f), |s| <= 0.1716.
  llvm::Value* s = builder_.CreateFDiv(f, builder_.CreateFAdd(f, fconst(t, 2.0)));
  llvm::Value* z = builder_.CreateFMul(s, s);
  int terms = f64 ? 11 : 4;
  llvm::Value* poly = fconst(t, 1.0 / (2 * terms + 1));
  for (int k = terms - 1; k >= 0; --k) {
    poly = builder_.CreateFAdd(builder_.CreateFMul(poly, z), fconst(t, 1.0 / (2 * k + 1)));
  }
  llvm::Value* logm = builder_.CreateFMul(builder_.CreateFMul(s, fconst(t, 2.0)), poly);
  llvm::Value* ef = builder_.CreateSIToFP(e, t);
  double ln2hi = f64 ? 6.93147180369123816490e-01 : 0.693359375;
  double ln2lo = f64 ? 1.90821492927058770002e-10 : -2.12194440e-4;
  llvm::Value* result =
      builder_.CreateFAdd(builder_.CreateFMul(ef, fconst(t, ln2hi)),
                          builder_.CreateFAdd(logm, builder_.CreateFMul(ef, fconst(t, ln2lo))));
  // Special cases: log(0) = -inf, log(inf) = inf, log(negative or NaN) = NaN.
  llvm::Value* inf = fconst(t, INFINITY);
  result = builder_.CreateSelect(builder_.CreateFCmpOEQ(x, fconst(t, 0.0)), fconst(t, -INFINITY),
                                 result);
  result = builder_.CreateSelect(builder_.CreateFCmpOEQ(x, inf), inf, result);
  return builder_.CreateSelect(builder_.CreateFCmpULT(x, fconst(t, 0.0)), fconst(t, NAN), result);
}

llvm::Value* CodeGenLLVM::emitTanh(llvm::Value* x) {
  llvm::Type* t = x->getType();
  if (!isFloat32(t)) return callLibm("tanh", x);
  llvm::Value* ax = builder_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
  // Small |x|: odd minimax polynomial (Cephes tanhf); large: 1 - 2 / (e^{2|x|} + 1), which has no
  // cancellation once tanh(|x|) > 0.55.
  llvm::Value* z = builder_.CreateFMul(x, x);
  const double coeffs[] = {-5.70498872745E-3, 2.06390887954E-2, -5.37397155531E-2, 1.33314422036E-1,
                           -3.33332819422E-1};
  llvm::Value* p = fconst(t, coeffs[0]);
  for (int i = 1; i < 5; ++i)
    p = builder_.CreateFAdd(builder_.CreateFMul(p, z), fconst(t, coeffs[i]));
  llvm::Value* small = builder_.CreateFAdd(builder_.CreateFMul(builder_.CreateFMul(p, z), x), x);
  llvm::Value* e2 = emitExp(builder_.CreateFMul(ax, fconst(t, 2.0)));
  llvm::Value* large = builder_.CreateFSub(
      fconst(t, 1.0), builder_.CreateFDiv(fconst(t, 2.0), builder_.CreateFAdd(e2, fconst(t, 1.0))));
  large = builder_.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, large, x);
  // NaN compares false and takes the small path, which propagates it.
  return builder_.CreateSelect(builder_.CreateFCmpOGE(ax, fconst(t, 0.625)), large, small);
}

llvm::Value* CodeGenLLVM::emitErf(llvm::Value* x) {
  llvm::Type* t = x->getType();
  if (!isFloat32(t)) return callLibm("erf", x);
  llvm::Value* ax = builder_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
  // |x| < 1: Maclaurin series x * sum (-1)^n x^{2n} / (n! (2n+1)) * 2/sqrt(pi), 11 terms.
  llvm::Value* z = builder_.CreateFMul(x, x);
  const int terms = 11;
  auto coeff = [](int n) {
    double fact = 1.0;
    for (int k = 2; k <= n; ++k) fact *= k;
    return (n % 2 == 0 ? 1.0 : -1.0) * M_2_SQRTPI / (fact * (2 * n + 1));
  };
  llvm::Value* p = fconst(t, coeff(terms - 1));
  for (int n = terms - 2; n >= 0; --n) {
    p = builder_.CreateFAdd(builder_.CreateFMul(p, z), fconst(t, coeff(n)));
  }
  llvm::Value* small = builder_.CreateFMul(x, p);
  // |x| >= 1: erf = 1 - erfc, erfc from the Chebyshev fit of Numerical Recipes' erfcc
  // (fractional error < 1.2e-7), evaluated on the clamped |x|.
  llvm::Value* az =
      builder_.CreateSelect(builder_.CreateFCmpOGT(ax, fconst(t, 10.0)), fconst(t, 10.0), ax);
  llvm::Value* tt = builder_.CreateFDiv(
      fconst(t, 1.0), builder_.CreateFAdd(fconst(t, 1.0), builder_.CreateFMul(az, fconst(t, 0.5))));
  const double cheb[] = {0.17087277,  -0.82215223, 1.48851587, -1.13520398, 0.27886807,
                         -0.18628806, 0.09678418,  0.37409196, 1.00002368,  -1.26551223};
  llvm::Value* q = fconst(t, cheb[0]);
  for (int i = 1; i < 10; ++i)
    q = builder_.CreateFAdd(builder_.CreateFMul(q, tt), fconst(t, cheb[i]));
  llvm::Value* arg = builder_.CreateFSub(q, builder_.CreateFMul(az, az));
  llvm::Value* erfc = builder_.CreateFMul(tt, emitExp(arg));
  llvm::Value* large = builder_.CreateBinaryIntrinsic(llvm::Intrinsic::copysign,
                                                      builder_.CreateFSub(fconst(t, 1.0), erfc), x);
  return builder_.CreateSelect(builder_.CreateFCmpOGE(ax, fconst(t, 1.0)), large, small);
}

llvm::Value* CodeGenLLVM::emitSigmoid(llvm::Value* x) {
  llvm::Type* t = x->getType();
  llvm::Value* e = emitExp(builder_.CreateFNeg(x));
  return builder_.CreateFDiv(fconst(t, 1.0), builder_.CreateFAdd(fconst(t, 1.0), e));
}

// Square-and-multiply over every bit of the exponent, branch-free (one select per bit) so scalars
// and vectors take the same path; plain multiplications wrap. A signed exponent's sign bit is
// handled apart: a negative exponent gives the integer part of the real result, 0 except for
// bases 1 and -1.
llvm::Value* CodeGenLLVM::emitIntPow(DataType dtype, llvm::Value* base, llvm::Value* exponent) {
  llvm::Type* t = base->getType();
  if (exponent->getType() != t) exponent = broadcastTo(exponent, dtype.lanes());
  const bool isSigned = dtype.isInt();
  const int valueBits = dtype.bits() - (isSigned ? 1 : 0);
  llvm::Value* one = llvm::ConstantInt::get(t, 1);
  llvm::Value* result = one;
  llvm::Value* square = base;
  for (int k = 0; k < valueBits; ++k) {
    llvm::Value* bit = builder_.CreateAnd(exponent, llvm::ConstantInt::get(t, uint64_t{1} << k));
    result = builder_.CreateSelect(builder_.CreateIsNotNull(bit),
                                   builder_.CreateMul(result, square), result);
    if (k + 1 < valueBits) square = builder_.CreateMul(square, square);
  }
  if (!isSigned) return result;
  llvm::Value* zero = llvm::Constant::getNullValue(t);
  llvm::Value* minusOne = llvm::ConstantInt::getSigned(t, -1);
  llvm::Value* odd = builder_.CreateIsNotNull(builder_.CreateAnd(exponent, one));
  llvm::Value* ofNegative =
      builder_.CreateSelect(builder_.CreateICmpEQ(base, one), one,
                            builder_.CreateSelect(builder_.CreateICmpEQ(base, minusOne),
                                                  builder_.CreateSelect(odd, minusOne, one), zero));
  return builder_.CreateSelect(builder_.CreateICmpSLT(exponent, zero), ofNegative, result);
}

namespace {

// Splits a vector condition's conjunction into the terms that are broadcast scalars and the
// rest (each the conjunction of its terms, null when there is none).
void splitBroadcastTerms(const PrimExpr& cond, PrimExpr& scalar, PrimExpr& vector) {
  if (const auto* both = cond->as<BinaryNode>(); both && both->op == BinaryOp::kAnd) {
    splitBroadcastTerms(both->a, scalar, vector);
    splitBroadcastTerms(both->b, scalar, vector);
    return;
  }
  if (const auto* b = cond->as<BroadcastNode>()) {
    scalar = scalar ? logicalAnd(scalar, b->value) : b->value;
    return;
  }
  vector = vector ? logicalAnd(vector, cond) : cond;
}

}  // namespace

llvm::Value* CodeGenLLVM::emitIfThenElse(const CallNode* op) {
  // A vector condition with broadcast scalar terms (a padded row's "this row is inside"): the
  // scalar part branches, and only the rest masks lanes. Built as a vector of i1 whose lane count
  // is not a power of two, the splat cost AVX2 an insert per lane (a strided int8 max pool spent
  // most of its time there).
  if (op->args[0]->dtype.lanes() > 1) {
    PrimExpr scalar, vector;
    splitBroadcastTerms(op->args[0], scalar, vector);
    if (scalar)
      return emitExpr(
          ifThenElse(scalar, vector ? ifThenElse(vector, op->args[1], op->args[2]) : op->args[1],
                     op->args[2]));
  }
  llvm::Value* cond = emitExpr(op->args[0]);
  if (cond->getType()->isVectorTy()) {
    // A vector load reads only the lanes the condition selects (VectorizeLoop lets nothing
    // else that reads memory under a vector condition).
    if (const auto* load = op->args[1]->as<BufferLoadNode>(); load && load->dtype.lanes() > 1)
      return emitMaskedLoad(load, cond, emitExpr(op->args[2]));
    return builder_.CreateSelect(cond, emitExpr(op->args[1]), emitExpr(op->args[2]));
  }
  // Lazy: only the taken branch runs (it may load out of bounds otherwise).
  auto* thenBB = llvm::BasicBlock::Create(ctx_, "ite_then", fn_.function);
  auto* elseBB = llvm::BasicBlock::Create(ctx_, "ite_else", fn_.function);
  auto* endBB = llvm::BasicBlock::Create(ctx_, "ite_end", fn_.function);
  builder_.CreateCondBr(cond, thenBB, elseBB);
  builder_.SetInsertPoint(thenBB);
  llvm::Value* a = emitExpr(op->args[1]);
  llvm::Type* type = a->getType();
  a = widenedForPhi(a);
  llvm::BasicBlock* thenEnd = builder_.GetInsertBlock();
  builder_.CreateBr(endBB);
  builder_.SetInsertPoint(elseBB);
  llvm::Value* b = widenedForPhi(emitExpr(op->args[2]));
  llvm::BasicBlock* elseEnd = builder_.GetInsertBlock();
  builder_.CreateBr(endBB);
  builder_.SetInsertPoint(endBB);
  return joinWidened(type, a, thenEnd, b, elseEnd);
}

llvm::Value* CodeGenLLVM::emitCall(const CallNode* op) {
  const std::string& name = op->op;
  if (name == "tir.if_then_else") return emitIfThenElse(op);
  if (name == "tir.call_llvm_pure_intrin" || name == "tir.call_llvm_intrin")
    return emitLlvmIntrinsic(op);
  if (name == "tir.address_of") return emitAddressOf(op);
  if (name == "tir.call_extern" || name == "tir.call_pure_extern") {
    std::vector<llvm::Value*> args;
    std::vector<llvm::Type*> types;
    for (size_t i = 1; i < op->args.size(); ++i) {
      args.push_back(emitExpr(op->args[i]));
      types.push_back(args.back()->getType());
    }
    const auto* callee = op->args.at(0)->as<StringImmNode>();
    if (callee == nullptr)
      throwDiagnostic("codegen", name + ": the first argument must name the function");
    llvm::Type* ret = op->dtype.isVoid() ? builder_.getVoidTy() : llvmType(op->dtype);
    auto* type = llvm::FunctionType::get(ret, types, false);
    // A function of a runtime library is reached through its slot (runtime/c_functions.h).
    if (llvm::GlobalVariable* slot = slotOf(callee->value))
      return builder_.CreateCall(type, builder_.CreateLoad(builder_.getPtrTy(), slot), args);
    return builder_.CreateCall(module_.getOrInsertFunction(callee->value, type), args);
  }
  std::vector<llvm::Value*> args;
  for (const PrimExpr& a : op->args) args.push_back(emitExpr(a));
  auto unary = [&](llvm::Intrinsic::ID id) {
    return builder_.CreateUnaryIntrinsic(id, args.at(0));
  };
  // Half-precision math runs in float32 and rounds once at the end.
  auto viaFloat = [&](auto&& fn) -> llvm::Value* {
    llvm::Value* x = args.at(0);
    if (isFloat32(x->getType()) || isFloat64(x->getType())) return fn(x);
    llvm::Type* wide = llvmType(DataType::float32().withLanes(op->dtype.lanes()));
    llvm::Value* result = fn(builder_.CreateFPExt(x, wide));
    if (x->getType()->getScalarType()->isBFloatTy())
      return emitBfloat16Round(result, op->dtype.lanes());
    return builder_.CreateFPTrunc(result, x->getType());
  };
  if (name == "tir.likely") return args.at(0);
  if (name == "tir.exp") return viaFloat([&](llvm::Value* x) { return emitExp(x); });
  if (name == "tir.log") return viaFloat([&](llvm::Value* x) { return emitLog(x); });
  if (name == "tir.tanh") return viaFloat([&](llvm::Value* x) { return emitTanh(x); });
  if (name == "tir.erf") return viaFloat([&](llvm::Value* x) { return emitErf(x); });
  if (name == "tir.sigmoid") return viaFloat([&](llvm::Value* x) { return emitSigmoid(x); });
  if (name == "tir.sqrt") return unary(llvm::Intrinsic::sqrt);
  if (name == "tir.rsqrt") {
    return builder_.CreateFDiv(fconst(args[0]->getType(), 1.0), unary(llvm::Intrinsic::sqrt));
  }
  if (name == "tir.floor") return unary(llvm::Intrinsic::floor);
  if (name == "tir.ceil") return unary(llvm::Intrinsic::ceil);
  if (name == "tir.trunc") return unary(llvm::Intrinsic::trunc);
  // round: half away from zero, matching the graph-level reference kernel and the evaluator.
  if (name == "tir.round") return unary(llvm::Intrinsic::round);
  if (name == "tir.nearbyint") return unary(llvm::Intrinsic::nearbyint);
  if (name == "tir.exp2") return unary(llvm::Intrinsic::exp2);
  if (name == "tir.log2") return unary(llvm::Intrinsic::log2);
  if (name == "tir.log10") return unary(llvm::Intrinsic::log10);
  if (name == "tir.sin") return unary(llvm::Intrinsic::sin);
  if (name == "tir.cos") return unary(llvm::Intrinsic::cos);
  // LLVM 19's inverse trigonometric intrinsics become libm calls (one per lane for vectors).
  if (name == "tir.asin")
    return viaFloat(
        [&](llvm::Value* x) { return builder_.CreateUnaryIntrinsic(llvm::Intrinsic::asin, x); });
  if (name == "tir.acos")
    return viaFloat(
        [&](llvm::Value* x) { return builder_.CreateUnaryIntrinsic(llvm::Intrinsic::acos, x); });
  if (name == "tir.atan")
    return viaFloat(
        [&](llvm::Value* x) { return builder_.CreateUnaryIntrinsic(llvm::Intrinsic::atan, x); });
  if (name == "tir.pow") {
    // llvm.pow is floating-point only.
    if (op->dtype.isInteger()) return emitIntPow(op->dtype, args.at(0), args.at(1));
    return builder_.CreateBinaryIntrinsic(llvm::Intrinsic::pow, args.at(0), args.at(1));
  }
  if (name == "tir.fma") {
    return builder_.CreateIntrinsic(llvm::Intrinsic::fma, {args[0]->getType()}, args);
  }
  if (name == "tir.fabs" || name == "tir.abs") {
    if (op->dtype.isFloat()) return unary(llvm::Intrinsic::fabs);
    if (op->dtype.isUInt()) return args.at(0);
    return builder_.CreateBinaryIntrinsic(llvm::Intrinsic::abs, args.at(0), builder_.getFalse());
  }
  if (name == "tir.isnan") return builder_.CreateFCmpUNO(args.at(0), args.at(0));
  if (name == "tir.isinf") {
    return builder_.CreateFCmpOEQ(unary(llvm::Intrinsic::fabs),
                                  fconst(args[0]->getType(), INFINITY));
  }
  if (name == "tir.isfinite") {
    return builder_.CreateFCmpOLT(unary(llvm::Intrinsic::fabs),
                                  fconst(args[0]->getType(), INFINITY));
  }
  if (name == "tir.shift_left") return builder_.CreateShl(args.at(0), args.at(1));
  if (name == "tir.shift_right") {
    return op->dtype.isInt() ? builder_.CreateAShr(args.at(0), args.at(1))
                             : builder_.CreateLShr(args.at(0), args.at(1));
  }
  if (name == "tir.bitwise_and") return builder_.CreateAnd(args.at(0), args.at(1));
  if (name == "tir.bitwise_or") return builder_.CreateOr(args.at(0), args.at(1));
  if (name == "tir.bitwise_xor") return builder_.CreateXor(args.at(0), args.at(1));
  if (name == "tir.bitwise_not") return builder_.CreateNot(args.at(0));
  if (name == "tir.clz") {
    return builder_.CreateBinaryIntrinsic(llvm::Intrinsic::ctlz, args.at(0), builder_.getFalse());
  }
  if (name == "tir.popcount") return unary(llvm::Intrinsic::ctpop);
  if (name == "tir.reinterpret") return builder_.CreateBitCast(args.at(0), llvmType(op->dtype));
  throwDiagnostic("codegen", "function '" + funcName_ + "': unsupported intrinsic '" + name + "'");
}

}  // namespace tessera::codegen
