// WidenOddStores: a store of a byte vector whose length is no multiple of 16 (a padded row of the
// int8 depthwise kernels' planes: 19, 35 or 67 bytes) becomes whole 64-byte stores and one masked
// store of the rest (AVX-512 BW). LLVM's type legalization splits such a store into pieces of
// powers of two, each extracted first: a row of 35 bytes took a 32-byte store, an extract and a
// 2-byte and a 1-byte store.
#include <vector>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>

#include "codegen/llvm/llvm_backend.h"

namespace tessera::codegen {
namespace {

constexpr unsigned kZmmBytes = 64;
constexpr unsigned kXmmBytes = 16;

// The number of bytes of a store of an odd-length byte vector worth widening, or 0.
unsigned oddBytes(const llvm::StoreInst& store) {
  if (!store.isSimple()) return 0;
  auto* type = llvm::dyn_cast<llvm::FixedVectorType>(store.getValueOperand()->getType());
  if (type == nullptr || !type->getElementType()->isIntegerTy(8)) return 0;
  const unsigned n = type->getNumElements();
  return n > kXmmBytes && n % kXmmBytes != 0 ? n : 0;
}

// Lanes [begin, begin + width) of `value`, lanes past its end poison.
llvm::Value* lanes(llvm::IRBuilder<>& b, llvm::Value* value, unsigned begin, unsigned width) {
  const unsigned n = llvm::cast<llvm::FixedVectorType>(value->getType())->getNumElements();
  llvm::SmallVector<int, kZmmBytes> mask;
  for (unsigned i = 0; i < width; ++i)
    mask.push_back(begin + i < n ? static_cast<int>(begin + i) : llvm::PoisonMaskElem);
  return b.CreateShuffleVector(value, mask);
}

void widen(llvm::StoreInst* store, unsigned n) {
  llvm::IRBuilder<> b(store);
  llvm::Value* value = store->getValueOperand();
  llvm::Value* base = store->getPointerOperand();
  const llvm::Align align = store->getAlign();
  unsigned done = 0;
  for (; done + kZmmBytes <= n; done += kZmmBytes) {
    llvm::Value* at = b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), base, done);
    llvm::StoreInst* whole = b.CreateAlignedStore(lanes(b, value, done, kZmmBytes), at,
                                                  llvm::commonAlignment(align, done));
    whole->copyMetadata(*store);
  }
  const unsigned rest = n - done;
  if (rest > 0) {
    unsigned width = kXmmBytes;
    while (width < rest) width *= 2;
    llvm::SmallVector<llvm::Constant*, kZmmBytes> active;
    for (unsigned i = 0; i < width; ++i) active.push_back(b.getInt1(i < rest));
    llvm::Value* at = b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), base, done);
    llvm::Instruction* tail =
        b.CreateMaskedStore(lanes(b, value, done, width), at, llvm::commonAlignment(align, done),
                            llvm::ConstantVector::get(active));
    tail->copyMetadata(*store);
  }
  store->eraseFromParent();
}

struct WidenOddStoresPass : llvm::PassInfoMixin<WidenOddStoresPass> {
  llvm::PreservedAnalyses run(llvm::Function& function, llvm::FunctionAnalysisManager&) {
    std::vector<std::pair<llvm::StoreInst*, unsigned>> odd;
    for (llvm::BasicBlock& block : function)
      for (llvm::Instruction& inst : block)
        if (auto* store = llvm::dyn_cast<llvm::StoreInst>(&inst))
          if (const unsigned n = oddBytes(*store)) odd.emplace_back(store, n);
    for (const auto& [store, n] : odd) widen(store, n);
    return storesRewritten(!odd.empty());
  }
};

}  // namespace

void addWidenOddStores(llvm::ModulePassManager& passes) {
  passes.addPass(llvm::createModuleToFunctionPassAdaptor(WidenOddStoresPass()));
}

}  // namespace tessera::codegen
