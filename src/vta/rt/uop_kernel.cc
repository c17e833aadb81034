// Recording rules of micro-op kernels and the micro-op SRAM allocation policy of the reference
// runtime, which determines uop_load_nbytes and the number of LOAD UOP instructions.
#include "vta/rt/uop_kernel.h"

#include <string>

#include "support/diagnostic.h"

namespace tessera::vta {
namespace {

[[noreturn]] void fail(const std::string& message, const char* call) {
  throwDiagnostic("vta_runtime", message, {}, call);
}

}  // namespace

void UopKernel::loopBegin(const UopLoop& loop) {
  if (!uops_.empty()) {
    fail("hardware loops must be declared before the kernel's first micro-op", "uopLoopBegin");
  }
  if (loops_.size() >= 2) fail("a micro-op kernel has at most 2 hardware loops", "uopLoopBegin");
  if (loop.extent >= (1u << kLoopIterBits)) {
    fail("loop extent " + std::to_string(loop.extent) + " does not fit the 14-bit iteration field",
         "uopLoopBegin");
  }
  loops_.push_back(loop);
  ++openLoops_;
}

void UopKernel::loopEnd() {
  if (openLoops_ == 0) fail("uopLoopEnd without a matching uopLoopBegin", "uopLoopEnd");
  --openLoops_;
}

void UopKernel::push(UopMode mode, bool resetOut, const Uop& uop, AluOpcode opcode, bool useImm,
                     int32_t imm) {
  if (imm < -32768 || imm > 32767) {
    fail("ALU immediate " + std::to_string(imm) + " is outside the int16 range", "uopPush");
  }
  if (!mode_) {
    mode_ = mode;
    resetOut_ = resetOut;
    if (mode == UopMode::kAlu) {
      opcode_ = opcode;
      useImm_ = useImm;
      imm_ = imm;
    }
  } else {
    if (*mode_ != mode) fail("micro-op mode differs from the kernel's first micro-op", "uopPush");
    if (resetOut_ != resetOut) {
      fail("micro-op reset flag differs from the kernel's first micro-op", "uopPush");
    }
    if (mode == UopMode::kAlu && (opcode_ != opcode || useImm_ != useImm || imm_ != imm)) {
      fail("ALU opcode, use_imm and immediate must be the same for every micro-op of a kernel",
           "uopPush");
    }
  }
  // The accumulator write port needs two micro-ops between writes to the same entry.
  const size_t step = std::min<size_t>(2, uops_.size());
  for (size_t i = uops_.size() - step; i < uops_.size(); ++i) {
    if (uops_[i].dstIdx == uop.dstIdx) {
      fail("micro-op " + std::to_string(uops_.size()) + " writes accumulator entry " +
               std::to_string(uop.dstIdx) + " like micro-op " + std::to_string(i) +
               "; each tensor op must write a different output location than the previous two",
           "uopPush");
    }
  }
  uops_.push_back(uop);
}

void UopKernel::finish(int64_t uopDepth) const {
  if (openLoops_ != 0) fail("kernel recording ended with an open uopLoopBegin", "pushKernel");
  if (uops_.empty()) fail("kernel recording produced no micro-ops", "pushKernel");
  if (static_cast<int64_t>(uops_.size()) > uopDepth) {
    fail("kernel has " + std::to_string(uops_.size()) +
             " micro-ops, more than the micro-op buffer holds (" + std::to_string(uopDepth) + ")",
         "pushKernel");
  }
}

std::shared_ptr<UopKernel>& UopKernelCache::slot(std::optional<int32_t> closure) {
  const int64_t key = closure ? int64_t{*closure} + 1 : 0;
  if (key < 0 || key >= static_cast<int64_t>(kernels_.size()) || (closure && *closure < 0)) {
    fail("closure value " + std::to_string(closure.value_or(0)) +
             " gives kernel key outside [1, 99]; kernels may capture one int32 in [0, 98]",
         "pushKernel");
  }
  return kernels_[static_cast<size_t>(key)];
}

std::optional<std::pair<uint32_t, uint32_t>> UopSramAllocator::find(const UopKernel* kernel) const {
  auto it = ranges_.find(kernel);
  if (it == ranges_.end()) return std::nullopt;
  return it->second;
}

std::pair<uint32_t, uint32_t> UopSramAllocator::allocate(const std::shared_ptr<UopKernel>& kernel,
                                                         uint32_t size) {
  uint32_t begin = end_;
  if (end_ + size > depth_) {
    // Wrap around: restart at entry 0 and walk the resident list from its start.
    cursor_ = 0;
    begin = 0;
  }
  end_ = begin + size;
  // Evict every kernel at or after the cursor that starts inside the new range; kernels placed
  // in SRAM order stop the walk at the first one beyond it.
  const size_t evictBegin = cursor_;
  size_t i = cursor_;
  for (; i < order_.size(); ++i) {
    if (ranges_.at(order_[i].get()).first >= end_) break;
    ranges_.erase(order_[i].get());
  }
  order_.erase(order_.begin() + static_cast<std::ptrdiff_t>(evictBegin),
               order_.begin() + static_cast<std::ptrdiff_t>(i));
  order_.insert(order_.begin() + static_cast<std::ptrdiff_t>(evictBegin), kernel);
  cursor_ = evictBegin + 1;
  ranges_[kernel.get()] = {begin, end_};
  return {begin, end_};
}

void UopSramAllocator::reset() {
  end_ = 0;
  cursor_ = 0;
  order_.clear();
  ranges_.clear();
}

}  // namespace tessera::vta
