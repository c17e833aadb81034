// The packed-function registry and DLPack interop without copies.
#include <gtest/gtest.h>

#include "mlp_modules.h"
#include "relax/block_builder.h"
#include "relax/ops.h"
#include "relax/vm.h"
#include "runtime/dlpack_import.h"
#include "runtime/packed_func.h"
#include "support/diagnostic.h"

namespace tessera {
namespace {

std::string diagnosticCode(const std::function<void()>& f) {
  try {
    f();
  } catch (const DiagnosticError& e) {
    return e.diagnostic().code + ": " + e.diagnostic().message;
  }
  return "no error";
}

TEST(PackedFunc, RegisterCallAndRemove) {
  registerGlobal("test.scale_add", [](PackedArgs args) -> PackedValue {
    checkArgCount("test.scale_add", args, 3);
    return args[0].toFloat() * args[1].toInt() + static_cast<double>(args[2].str().size());
  });
  const PackedFunc* f = findGlobal("test.scale_add");
  ASSERT_NE(f, nullptr);
  std::vector<PackedValue> args = {1.5, int64_t{4}, std::string("abc")};
  EXPECT_DOUBLE_EQ((*f)(args).toFloat(), 9.0);
  auto names = listGlobals();
  EXPECT_NE(std::find(names.begin(), names.end(), "test.scale_add"), names.end());
  EXPECT_TRUE(removeGlobal("test.scale_add"));
  EXPECT_EQ(findGlobal("test.scale_add"), nullptr);
  EXPECT_FALSE(removeGlobal("test.scale_add"));
}

TEST(PackedFunc, DuplicateNeedsOverride) {
  auto one = [](PackedArgs) -> PackedValue { return int64_t{1}; };
  auto two = [](PackedArgs) -> PackedValue { return int64_t{2}; };
  registerGlobal("test.dup", one);
  EXPECT_EQ(diagnosticCode([&] { registerGlobal("test.dup", two); }),
            "packed_func_exists: packed function 'test.dup' is already registered (pass "
            "override=true to replace it)");
  registerGlobal("test.dup", two, /*override=*/true);
  EXPECT_EQ(getGlobal("test.dup")({}).toInt(), 2);
  removeGlobal("test.dup");
}

TEST(PackedFunc, MissingNameAndWrongKinds) {
  EXPECT_EQ(
      diagnosticCode([] { getGlobal("env.nothing"); }),
      "packed_func_missing: no packed function named 'env.nothing' is registered (register it "
      "with registerGlobal before running)");
  PackedValue s("text");
  EXPECT_EQ(diagnosticCode([&] { s.tensor(); }),
            "packed_arg: packed argument: expected tensor, got str");
  EXPECT_EQ(diagnosticCode([&] { PackedValue().toInt(); }),
            "packed_arg: packed argument: expected int, got null");
  std::vector<PackedValue> two = {int64_t{1}, int64_t{2}};
  EXPECT_EQ(diagnosticCode([&] { checkArgCount("env.relu", two, 3); }),
            "packed_arg: env.relu: expected 3 arguments, got 2");
}

TEST(DLPack, RoundTripSharesMemory) {
  NDArray a = NDArray::empty({2, 3}, DataType::float32());
  DLManagedTensor* exported = a.toDLPack();
  EXPECT_EQ(exported->dl_tensor.data, a.data());
  EXPECT_EQ(exported->dl_tensor.ndim, 2);
  EXPECT_EQ(exported->dl_tensor.shape[1], 3);
  NDArray b = NDArray::fromDLPack(exported);  // takes ownership; no copy
  EXPECT_EQ(b.data(), a.data());
  b.as<float>()[4] = 42.0f;
  EXPECT_EQ(a.as<float>()[4], 42.0f);
  // The export keeps the memory alive after the original handle is gone.
  void* data = a.data();
  a = NDArray();
  EXPECT_EQ(b.data(), data);
  EXPECT_EQ(b.as<float>()[4], 42.0f);
}

TEST(DLPack, PackedFunctionWritesIntoVmOutputWithoutCopies) {
  // Seed 002's env.linear writes through a DLPack view of the VM-allocated output (torch's
  // `out=`); the view must alias the VM's buffer.
  void* seen = nullptr;
  registerGlobal(
      "test.fill_via_dlpack",
      [&](PackedArgs args) -> PackedValue {
        DLManagedTensor* view = args[1].tensor().toDLPack();
        seen = view->dl_tensor.data;
        NDArray alias = NDArray::fromDLPack(view);
        for (int64_t i = 0; i < alias.numel(); ++i) alias.as<float>()[i] = 7.0f;
        return {};
      },
      true);
  relax::SymbolScope s;
  relax::Var x = relax::makeVar("x", s.tensor({"n"}, DataType::float32()));
  relax::BlockBuilder bb;
  bb.function("main", std::vector<relax::Var>{x});
  relax::Var y = bb.emit(relax::callDpsPacked("test.fill_via_dlpack", {x}, x->sinfo));
  bb.emitFuncOutput(y);
  relax::VirtualMachine vm(relax::compile(bb.get()));
  NDArray out = vm.run("main", {NDArray::empty({5}, DataType::float32())});
  EXPECT_EQ(out.data(), seen);
  EXPECT_EQ(out.as<float>()[4], 7.0f);
  removeGlobal("test.fill_via_dlpack");
}

}  // namespace
}  // namespace tessera

namespace tessera {
namespace {

/// A foreign tensor over `storage + offsetBytes` whose deleter counts its calls.
DLManagedTensor* foreignTensor(std::vector<float>& storage, size_t offsetFloats, int64_t* shape,
                               int* deleted) {
  auto* m = new DLManagedTensor{};
  m->dl_tensor.data = storage.data() + offsetFloats;
  m->dl_tensor.device = {kDLCPU, 0};
  m->dl_tensor.ndim = 1;
  m->dl_tensor.dtype = DataType::float32().toDLPack();
  m->dl_tensor.shape = shape;
  m->manager_ctx = deleted;
  m->deleter = [](DLManagedTensor* self) {
    ++*static_cast<int*>(self->manager_ctx);
    delete self;
  };
  return m;
}

TEST(DLPack, ImportChecksAlignment) {
  alignas(64) static float buffer[32];
  int64_t shape[1] = {4};
  int deleted = 0;
  // Aligned: shared without a copy.
  auto* aligned = new DLManagedTensor{};
  aligned->dl_tensor = {buffer, {kDLCPU, 0}, 1, DataType::float32().toDLPack(), shape, nullptr, 0};
  aligned->manager_ctx = &deleted;
  aligned->deleter = [](DLManagedTensor* self) {
    ++*static_cast<int*>(self->manager_ctx);
    delete self;
  };
  {
    NDArray a = importDLPack(aligned);
    EXPECT_EQ(a.data(), static_cast<void*>(buffer));
  }
  EXPECT_EQ(deleted, 1);
  // Unaligned (4 bytes in): refused by default, copied on request; the deleter runs either way.
  for (int i = 0; i < 8; ++i) buffer[i] = static_cast<float>(i);
  std::vector<float> storage(buffer, buffer + 8);
  storage.insert(storage.begin(), 0.0f);
  DLManagedTensor* unaligned = foreignTensor(storage, 1, shape, &deleted);
  bool storageUnaligned = reinterpret_cast<uintptr_t>(storage.data() + 1) % kAllocAlignment != 0;
  ASSERT_TRUE(storageUnaligned);
  EXPECT_EQ(
      diagnosticCode([&] { importDLPack(unaligned); }),
      "dlpack_align: data in DLManagedTensor is not aligned as required by NDArray (64 bytes); "
      "import with DLPackImport::kCopyIfUnaligned to copy it");
  EXPECT_EQ(deleted, 2);
  NDArray copy =
      importDLPack(foreignTensor(storage, 1, shape, &deleted), DLPackImport::kCopyIfUnaligned);
  EXPECT_EQ(deleted, 3);
  EXPECT_NE(copy.data(), static_cast<void*>(storage.data() + 1));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(copy.data()) % kAllocAlignment, 0u);
  EXPECT_EQ(copy.as<float>()[3], 3.0f);
}

}  // namespace
}  // namespace tessera
