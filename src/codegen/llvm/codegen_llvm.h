// CodeGenLLVM: translates lowered TensorIR into an llvm::Module. One instance per module; each
// PrimFunc becomes an external function with the C signature of runtime/module.h, each parallel
// loop a private task function. Split by concern: codegen_llvm.cc (functions, statements),
// codegen_expr.cc (expressions), codegen_math.cc (intrinsic calls and vectorizable math),
// codegen_parallel.cc (parallel loops), codegen_packed_api.cc (argument checks and binding).
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include "tir/function.h"

namespace tessera::codegen {

class CodeGenLLVM {
 public:
  /// `definesSlots`: the module defines the runtime C-function slots (runtime/module.h); a module
  /// linked beside one that does (a part of a module compiled in parallel) only declares them.
  /// `extraSlots`: slots beyond the CPU runtime's that the module's code calls (another target's
  /// runtime, e.g. "__VTALoadBuffer2D"; see runtimeSlotsOf), made on demand.
  CodeGenLLVM(llvm::LLVMContext& ctx, llvm::Module& module, bool definesSlots = true,
              const std::vector<std::string>& extraSlots = {});

  /// Emits `func` as an exported function named by its global_symbol (else its name).
  void addFunction(const tir::PrimFunc& func);
  /// Emits `__tessera_functions__` (the comma-separated function symbols, which the loader
  /// reads), for a one-function module `__tessera_main__` naming the entry function, and
  /// `__tessera_slots__` listing the runtime C-function slots the code defines
  /// (runtime/module.h); `__tessera_amx_tiles__` too when `usesAmxTiles`.
  void addModuleInfo(const std::vector<std::string>& symbols, bool usesAmxTiles = false);
  /// Whether `func` issues AMX tile instructions (calls an `llvm.x86.tile*` or
  /// `llvm.x86.ldtilecfg` intrinsic): such code runs only where the process may use the tiles.
  static bool usesAmxTiles(const tir::PrimFunc& func);
  /// Whether the target has masked loads of 8- and 16-bit lanes (x86: AVX-512BW; the default).
  /// Without them such loads of a span inside its buffer are plain loads and selects.
  void setNarrowMaskedLoads(bool native) { nativeNarrowMaskedLoads_ = native; }
  /// The exported symbol of `func`: its global_symbol, else its name.
  static std::string symbolOf(const tir::PrimFunc& func);
  /// The runtime slots beyond the CPU runtime's that `func` calls: "__" + the name of every
  /// `tir.call_extern` whose function is registered in the runtime's C-function registry
  /// (runtime/c_functions.h) and of every `coproc_uop_scope`'s push function, and the device
  /// argument check for a function with a `tessera.device_type` other than the CPU's.
  static std::vector<std::string> runtimeSlotsOf(const tir::PrimFunc& func);

  // --- used by the per-concern files ------------------------------------------------------------
  llvm::Type* llvmType(DataType dtype);
  /// The in-memory type of an element (bool is a byte).
  llvm::Type* memoryType(DataType dtype);
  llvm::Value* emitExpr(const tir::PrimExpr& e);
  void emitStmt(const tir::Stmt& s);

 private:
  /// Per-function state; parallel task functions get their own while their body is emitted.
  struct FunctionState {
    llvm::Function* function = nullptr;
    llvm::BasicBlock* allocaBlock = nullptr;  ///< entry block; static allocas go here
    std::unordered_map<const tir::VarNode*, llvm::Value*> vars;
    bool insideParallel = false;
  };

  // Expressions (codegen_expr.cc).
  llvm::Value* emitBfloat16Round(llvm::Value* value, int lanes);
  llvm::Value* emitCast(DataType to, const tir::PrimExpr& value);
  llvm::Value* emitBinary(const tir::BinaryNode* op);
  llvm::Value* emitFloorDivMod(bool isDiv, DataType dtype, llvm::Value* a, llvm::Value* b);
  llvm::Value* emitLoad(const tir::BufferLoadNode* op);
  /// The vector load's lanes where `mask` is set, `passthru`'s elsewhere; no other lane is read.
  /// builder_.CreateMaskedLoad, with a lane count that is not a power of two widened to one.
  llvm::Value* createMaskedLoad(llvm::Type* vecType, llvm::Value* addr, llvm::Align align,
                                llvm::Value* mask, llvm::Value* passthru);
  /// shufflevector(mask, zeros, pattern) of a vector of i1 (a pattern index past the mask's
  /// lanes picks false), shuffled as integers of `laneBits` bits and compared back.
  llvm::Value* shuffleMask(llvm::Value* mask, const std::vector<int>& pattern, unsigned laneBits);
  llvm::Value* emitMaskedLoad(const tir::BufferLoadNode* op, llvm::Value* mask,
                              llvm::Value* passthru);
  /// createMaskedLoad of `vecType` at `addr` in `buffer`, shuffled by `pick` when it is not
  /// empty; where the target has no masked loads of its lanes, a plain load when the span lies
  /// inside the buffer (checked at run time).
  llvm::Value* maskedLoadIn(const tir::Buffer& buffer, llvm::Type* vecType, llvm::Value* addr,
                            llvm::Align align, llvm::Value* mask, llvm::Value* passthru,
                            const std::vector<int>& pick = {});
  /// A vector about to reach a phi, widened to a power of two of lanes (the added lanes poison):
  /// LLVM passes a value of another lane count between blocks one lane at a time through memory.
  /// Emitted where the value is made, before its block's branch.
  llvm::Value* widenedForPhi(llvm::Value* v);
  /// The phi of `a` (from `aEnd`) and `b` (from `bEnd`), both widenedForPhi, narrowed back to
  /// `type`.
  llvm::Value* joinWidened(llvm::Type* type, llvm::Value* a, llvm::BasicBlock* aEnd, llvm::Value* b,
                           llvm::BasicBlock* bEnd);
  llvm::Value* emitRamp(const tir::RampNode* op);
  llvm::Value* broadcastTo(llvm::Value* scalar, int lanes);
  llvm::Value* bufferPointer(const tir::Buffer& buffer);
  /// The flat element index of a load/store (row-major when not yet flattened).
  tir::PrimExpr flatIndex(const tir::Buffer& buffer, const std::vector<tir::PrimExpr>& indices);
  llvm::Value* lookupVar(const tir::VarNode* var);

  // Calls (codegen_math.cc).
  llvm::Value* emitCall(const tir::CallNode* op);
  /// `tir.call_llvm_pure_intrin` / `tir.call_llvm_intrin`: a named, non-overloaded LLVM
  /// intrinsic; operands and result are bitcast where only the element type differs.
  llvm::Value* emitLlvmIntrinsic(const tir::CallNode* op);
  /// `tir.address_of(B[i])`: the address of one (flattened) buffer element.
  llvm::Value* emitAddressOf(const tir::CallNode* op);
  llvm::Value* emitIfThenElse(const tir::CallNode* op);
  llvm::Value* emitExp(llvm::Value* x);
  llvm::Value* emitLog(llvm::Value* x);
  llvm::Value* emitTanh(llvm::Value* x);
  llvm::Value* emitErf(llvm::Value* x);
  llvm::Value* emitSigmoid(llvm::Value* x);
  /// `base` to the power `exponent` in the integer type `dtype` (scalar or vector), exactly and
  /// wrapping, as the reference kernel computes it.
  llvm::Value* emitIntPow(DataType dtype, llvm::Value* base, llvm::Value* exponent);
  llvm::Value* callLibm(const std::string& name, llvm::Value* x);
  llvm::Value* fconst(llvm::Type* type, double value);

  // Statements (codegen_llvm.cc).
  void emitStore(const tir::BufferStoreNode* op);
  bool emitMaskedStore(const tir::BufferStoreNode* op, const tir::PrimExpr& index);
  void emitFor(const tir::ForNode* op);
  void emitSerialLoop(const tir::Var& loopVar, llvm::Value* begin, llvm::Value* end,
                      const tir::Stmt& body, llvm::MDNode* loopMetadata);
  void emitAllocate(const tir::AllocateNode* op);
  void emitAssert(const tir::AssertStmtNode* op);
  /// Branches to a block that sets `message` and returns -1 when `ok` is false.
  void emitCheck(llvm::Value* ok, const std::string& message, llvm::Value* actual = nullptr);
  void emitParallelFor(const tir::ForNode* op);  // codegen_parallel.cc
  /// `coproc_uop_scope = "F" { body }`: body outlined into `int finit(void* closure)`, called
  /// through the runtime function F with a per-site handle (codegen_static_init.cc).
  void emitStaticInitScope(const tir::AttrStmtNode* op);

  /// Checks the packed arguments and binds parameters, data pointers and shape variables in fn_
  /// (codegen_packed_api.cc).
  void emitPackedPrologue(const tir::PrimFunc& func, llvm::Value* args, llvm::Value* numArgs);
  /// DLTensor as an LLVM struct, field by field.
  llvm::StructType* dlTensorType();
  /// A scalar parameter (a rank-0 tensor), checked inline; returns its value.
  llvm::Value* emitScalarArgument(llvm::Value* tensor, DataType dtype, const std::string& name);
  /// One call of TesseraAPICheckTensorArg against the buffer's constant description; the kernel
  /// returns -1 when it fails.
  void emitTensorArgumentCheck(llvm::Value* tensor, const tir::BufferNode& buffer,
                               const std::string& name);
  /// The variables `s` uses that are bound in the current function, in first-use order: what an
  /// outlined function (compute body, parallel task) receives.
  std::vector<const tir::VarNode*> capturedVars(const tir::Stmt& s) const;
  /// A private function `i32 name(prefix..., captured...)` whose handle parameters are noalias
  /// when `noalias`; fn_ is switched to it (the caller saves and restores the previous state).
  llvm::Function* beginOutlined(const std::string& name, const std::vector<llvm::Type*>& prefix,
                                const std::vector<const tir::VarNode*>& captured, bool noalias);

  llvm::Value* runtimeFunction(const std::string& slot, llvm::FunctionType* type);
  /// The slot of the runtime C function `name` ("__" + name), or null when the module has none.
  llvm::GlobalVariable* slotOf(const std::string& name) const;
  llvm::Value* stringConstant(const std::string& text);
  llvm::AllocaInst* entryAlloca(llvm::Type* type, llvm::Value* count, int align);

  llvm::LLVMContext& ctx_;
  llvm::Module& module_;
  llvm::IRBuilder<> builder_;
  FunctionState fn_;
  std::unordered_map<std::string, llvm::GlobalVariable*> slots_;
  std::unordered_map<std::string, llvm::Constant*> strings_;
  std::string funcName_;                 ///< the PrimFunc being emitted (for error messages)
  bool noalias_ = false;                 ///< the PrimFunc has tir.noalias
  bool nativeNarrowMaskedLoads_ = true;  ///< see setNarrowMaskedLoads
  /// Where the PrimFunc's tensor arguments live (DLDeviceType): its `tessera.device_type`
  /// attribute, else the CPU. A host program for a device (VTA) receives device buffers.
  int deviceType_ = 1;
  int lambdaCount_ = 0;
};

}  // namespace tessera::codegen
