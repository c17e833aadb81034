#include "runtime/ndarray.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <sstream>

#include "support/check.h"
#include "support/diagnostic.h"
#include "support/float16.h"

namespace tessera {

// The container owns (or borrows through a DLPack deleter) the buffer and keeps the DLTensor's
// shape array alive. `foreign` is set when the memory came from another framework.
struct NDArray::Container {
  DLTensor tensor{};
  std::vector<int64_t> shape;
  void* ownedData = nullptr;
  DLManagedTensor* foreign = nullptr;
  std::shared_ptr<Container> viewOf;  // set by reshaped(): keeps the original buffer alive
  std::function<void()> release;      // set by adopt()

  ~Container() {
    if (ownedData) std::free(ownedData);
    if (release) release();
    if (foreign && foreign->deleter) foreign->deleter(foreign);
  }
};

int64_t shapeNumel(std::span<const int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::string shapeString(std::span<const int64_t> shape) {
  std::ostringstream os;
  os << "(";
  for (size_t i = 0; i < shape.size(); ++i) os << (i ? ", " : "") << shape[i];
  os << ")";
  return os.str();
}

std::vector<int64_t> rowMajorStrides(std::span<const int64_t> shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

NDArray NDArray::empty(std::vector<int64_t> shape, DataType dtype) {
  TS_CHECK(!dtype.isVoid()) << "NDArray of void dtype";
  constexpr int64_t kMaxBytes = int64_t{1} << 40;
  int64_t numel = 1;
  for (int64_t d : shape) {
    if (d < 0) throwDiagnostic("ndarray", "negative dimension in shape " + shapeString(shape));
    if (d != 0 && numel > kMaxBytes / d)
      throwDiagnostic("ndarray", "tensor of shape " + shapeString(shape) + " is too large");
    numel *= d;
  }
  const int64_t bytes = numel * dtype.bytes();
  if (bytes > kMaxBytes)
    throwDiagnostic("ndarray", "tensor of shape " + shapeString(shape) + " is too large");
  NDArray array;
  array.container_ = std::make_shared<Container>();
  Container& c = *array.container_;
  c.shape = std::move(shape);
  // 64-byte alignment suits AVX-512 loads. The block is over-allocated with malloc and aligned
  // inside rather than taken from aligned_alloc: glibc serves an aligned request of N bytes only
  // from a free chunk larger than N, so a freed tensor's chunk never fit the next tensor of the
  // same size and a program allocating and freeing equal tensors in turn (the VM in a loop or a
  // branch) grew its heap by about one tensor per step.
  const size_t allocBytes = static_cast<size_t>((std::max<int64_t>(bytes, 1) + 63) / 64 * 64);
  c.ownedData = std::malloc(allocBytes + 64);
  if (!c.ownedData) throw std::bad_alloc();
  void* aligned =
      reinterpret_cast<void*>((reinterpret_cast<uintptr_t>(c.ownedData) + 63) & ~uintptr_t{63});
  std::memset(aligned, 0, allocBytes);
  c.tensor.data = aligned;
  c.tensor.device = DLDevice{kDLCPU, 0};
  c.tensor.ndim = static_cast<int32_t>(c.shape.size());
  c.tensor.dtype = dtype.toDLPack();
  c.tensor.shape = c.shape.data();
  c.tensor.strides = nullptr;
  c.tensor.byte_offset = 0;
  return array;
}

NDArray NDArray::scalar(double value, DataType dtype) {
  NDArray a = empty({}, dtype);
  a.setFloat(0, value);
  return a;
}

NDArray NDArray::scalarInt(int64_t value, DataType dtype) {
  NDArray a = empty({}, dtype);
  a.setInt(0, value);
  return a;
}

NDArray NDArray::fromDLPack(DLManagedTensor* managed) {
  TS_CHECK(managed != nullptr);
  const DLTensor& t = managed->dl_tensor;
  auto reject = [&](const std::string& why) {
    if (managed->deleter) managed->deleter(managed);
    throwDiagnostic("dlpack", why);
  };
  if (t.device.device_type != kDLCPU) reject("only CPU tensors can be imported");
  if (t.dtype.lanes != 1) reject("vector dtypes (lanes > 1) are not supported");
  std::vector<int64_t> shape(t.shape, t.shape + t.ndim);
  if (t.strides) {
    const std::vector<int64_t> compact = rowMajorStrides(shape);
    for (int i = 0; i < t.ndim; ++i)
      if (shape[i] > 1 && t.strides[i] != compact[i])
        reject("only compact row-major tensors can be imported without a copy");
  }
  NDArray array;
  array.container_ = std::make_shared<Container>();
  Container& c = *array.container_;
  c.shape = std::move(shape);
  c.foreign = managed;
  c.tensor = t;
  c.tensor.data = static_cast<char*>(t.data) + t.byte_offset;
  c.tensor.byte_offset = 0;
  c.tensor.shape = c.shape.data();
  c.tensor.strides = nullptr;
  return array;
}

NDArray NDArray::adopt(void* data, std::vector<int64_t> shape, DataType dtype,
                       std::function<void()> release) {
  NDArray array;
  array.container_ = std::make_shared<Container>();
  Container& c = *array.container_;
  c.shape = std::move(shape);
  c.release = std::move(release);
  c.tensor.data = data;
  c.tensor.device = {kDLCPU, 0};
  c.tensor.ndim = static_cast<int32_t>(c.shape.size());
  c.tensor.dtype = dtype.toDLPack();
  c.tensor.shape = c.shape.data();
  return array;
}

NDArray NDArray::toFloat(DataType dtype) const {
  TS_CHECK(dtype.isFloat()) << "toFloat to " << dtype.name();
  NDArray out = empty(shape(), dtype);
  for (int64_t i = 0; i < numel(); ++i) out.setFloat(i, getFloat(i));
  return out;
}

bool NDArray::soleOwner() const {
  if (!container_ || container_.use_count() != 1 || container_->foreign) return false;
  const std::shared_ptr<Container>& base = container_->viewOf;
  return !base || (base.use_count() == 1 && !base->foreign && !base->viewOf);
}

namespace {
// The exported DLManagedTensor owns a reference to the container through this context.
struct ExportContext {
  std::shared_ptr<void> keepAlive;
  DLManagedTensor managed;
  std::vector<int64_t> shape;
};
}  // namespace

DLManagedTensor* NDArray::toDLPack() const {
  TS_CHECK(defined());
  auto* ctx = new ExportContext;
  ctx->keepAlive = container_;
  ctx->shape = container_->shape;
  ctx->managed.dl_tensor = container_->tensor;
  ctx->managed.dl_tensor.shape = ctx->shape.data();
  ctx->managed.manager_ctx = ctx;
  ctx->managed.deleter = [](DLManagedTensor* self) {
    delete static_cast<ExportContext*>(self->manager_ctx);
  };
  return &ctx->managed;
}

const std::vector<int64_t>& NDArray::shape() const {
  TS_CHECK(defined());
  return container_->shape;
}
DataType NDArray::dtype() const {
  TS_CHECK(defined());
  return DataType::fromDLPack(container_->tensor.dtype);
}
int64_t NDArray::numel() const {
  return shapeNumel(shape());
}
size_t NDArray::nbytes() const {
  return static_cast<size_t>(numel() * dtype().bytes());
}
void* NDArray::data() const {
  TS_CHECK(defined());
  return container_->tensor.data;
}
const DLTensor& NDArray::dlTensor() const {
  TS_CHECK(defined());
  return container_->tensor;
}

NDArray NDArray::copy() const {
  NDArray out = empty(shape(), dtype());
  std::memcpy(out.data(), data(), nbytes());
  return out;
}

NDArray NDArray::reshaped(std::vector<int64_t> newShape) const {
  TS_CHECK(shapeNumel(newShape) == numel()) << "reshape to " << shapeString(newShape);
  NDArray out;
  out.container_ = std::make_shared<Container>();
  Container& c = *out.container_;
  c.viewOf = container_;
  c.shape = std::move(newShape);
  c.tensor = container_->tensor;
  c.tensor.ndim = static_cast<int32_t>(c.shape.size());
  c.tensor.shape = c.shape.data();
  return out;
}

double NDArray::getFloat(int64_t i) const {
  const DataType t = dtype();
  const char* p = static_cast<const char*>(data());
  switch (t.code()) {
    case DataType::Code::kFloat:
      if (t.bits() == 32) return reinterpret_cast<const float*>(p)[i];
      if (t.bits() == 64) return reinterpret_cast<const double*>(p)[i];
      if (t.bits() == 16) return halfToFloat(reinterpret_cast<const uint16_t*>(p)[i]);
      break;
    case DataType::Code::kBFloat:
      return bfloat16ToFloat(reinterpret_cast<const uint16_t*>(p)[i]);
    case DataType::Code::kInt:
      return static_cast<double>(getInt(i));
    case DataType::Code::kUInt:
      return static_cast<double>(getUInt(i));
    case DataType::Code::kHandle:
      break;
  }
  TS_CHECK(false) << "unsupported dtype " << t.name();
  return 0;
}

int64_t NDArray::getInt(int64_t i) const {
  const DataType t = dtype();
  const char* p = static_cast<const char*>(data());
  if (t.isFloat()) {
    const double v = getFloat(i);
    // Float -> int truncates toward zero; out-of-range values saturate instead of being UB.
    if (std::isnan(v)) return 0;
    if (v >= 9.2233720368547758e18) return std::numeric_limits<int64_t>::max();
    if (v <= -9.2233720368547758e18) return std::numeric_limits<int64_t>::min();
    return static_cast<int64_t>(v);
  }
  if (t.code() == DataType::Code::kUInt) return static_cast<int64_t>(getUInt(i));
  switch (t.bits()) {
    case 8:
      return reinterpret_cast<const int8_t*>(p)[i];
    case 16:
      return reinterpret_cast<const int16_t*>(p)[i];
    case 32:
      return reinterpret_cast<const int32_t*>(p)[i];
    case 64:
      return reinterpret_cast<const int64_t*>(p)[i];
    default:
      break;
  }
  TS_CHECK(false) << "unsupported dtype " << t.name();
  return 0;
}

uint64_t NDArray::getUInt(int64_t i) const {
  const DataType t = dtype();
  const char* p = static_cast<const char*>(data());
  if (t.code() != DataType::Code::kUInt) return static_cast<uint64_t>(getInt(i));
  switch (t.bits()) {
    case 1:
    case 8:
      return reinterpret_cast<const uint8_t*>(p)[i];
    case 16:
      return reinterpret_cast<const uint16_t*>(p)[i];
    case 32:
      return reinterpret_cast<const uint32_t*>(p)[i];
    case 64:
      return reinterpret_cast<const uint64_t*>(p)[i];
    default:
      break;
  }
  TS_CHECK(false) << "unsupported dtype " << t.name();
  return 0;
}

void NDArray::setFloat(int64_t i, double v) const {
  const DataType t = dtype();
  char* p = static_cast<char*>(data());
  switch (t.code()) {
    case DataType::Code::kFloat:
      if (t.bits() == 32) {
        reinterpret_cast<float*>(p)[i] = static_cast<float>(v);
        return;
      }
      if (t.bits() == 64) {
        reinterpret_cast<double*>(p)[i] = v;
        return;
      }
      if (t.bits() == 16) {
        reinterpret_cast<uint16_t*>(p)[i] = floatToHalf(static_cast<float>(v));
        return;
      }
      break;
    case DataType::Code::kBFloat:
      reinterpret_cast<uint16_t*>(p)[i] = floatToBfloat16(static_cast<float>(v));
      return;
    case DataType::Code::kHandle:
      break;
    case DataType::Code::kInt:
    case DataType::Code::kUInt: {
      if (t.isBool()) {
        setUInt(i, v != 0.0 ? 1 : 0);
        return;
      }
      // Float -> int conversion truncates toward zero, saturating where C++ would be undefined.
      int64_t iv = 0;
      if (std::isnan(v))
        iv = 0;
      else if (v >= 9.2233720368547758e18)
        iv = std::numeric_limits<int64_t>::max();
      else if (v <= -9.2233720368547758e18)
        iv = std::numeric_limits<int64_t>::min();
      else
        iv = static_cast<int64_t>(v);
      if (t.code() == DataType::Code::kUInt && v >= 9.2233720368547758e18 &&
          v < 1.8446744073709552e19)
        setUInt(i, static_cast<uint64_t>(v));
      else
        setInt(i, iv);
      return;
    }
  }
  TS_CHECK(false) << "unsupported dtype " << t.name();
}

void NDArray::setInt(int64_t i, int64_t v) const {
  const DataType t = dtype();
  if (t.isFloat()) {
    setFloat(i, static_cast<double>(v));
    return;
  }
  if (t.code() == DataType::Code::kUInt) {
    setUInt(i, static_cast<uint64_t>(v));
    return;
  }
  char* p = static_cast<char*>(data());
  // Narrowing keeps the low bits (two's-complement wraparound), as integer casts do.
  switch (t.bits()) {
    case 8:
      reinterpret_cast<int8_t*>(p)[i] = static_cast<int8_t>(v);
      return;
    case 16:
      reinterpret_cast<int16_t*>(p)[i] = static_cast<int16_t>(v);
      return;
    case 32:
      reinterpret_cast<int32_t*>(p)[i] = static_cast<int32_t>(v);
      return;
    case 64:
      reinterpret_cast<int64_t*>(p)[i] = v;
      return;
    default:
      break;
  }
  TS_CHECK(false) << "unsupported dtype " << t.name();
}

void NDArray::setUInt(int64_t i, uint64_t v) const {
  const DataType t = dtype();
  if (t.code() != DataType::Code::kUInt) {
    if (t.isFloat())
      setFloat(i, static_cast<double>(v));
    else
      setInt(i, static_cast<int64_t>(v));
    return;
  }
  char* p = static_cast<char*>(data());
  switch (t.bits()) {
    case 1:
      reinterpret_cast<uint8_t*>(p)[i] = v != 0 ? 1 : 0;
      return;
    case 8:
      reinterpret_cast<uint8_t*>(p)[i] = static_cast<uint8_t>(v);
      return;
    case 16:
      reinterpret_cast<uint16_t*>(p)[i] = static_cast<uint16_t>(v);
      return;
    case 32:
      reinterpret_cast<uint32_t*>(p)[i] = static_cast<uint32_t>(v);
      return;
    case 64:
      reinterpret_cast<uint64_t*>(p)[i] = v;
      return;
    default:
      break;
  }
  TS_CHECK(false) << "unsupported dtype " << t.name();
}

bool NDArray::bitwiseEqual(const NDArray& other) const {
  if (defined() != other.defined()) return false;
  if (!defined()) return true;
  if (dtype() != other.dtype() || shape() != other.shape()) return false;
  return std::memcmp(data(), other.data(), nbytes()) == 0;
}

std::string NDArray::describe() const {
  if (!defined()) return "<undefined NDArray>";
  return "Tensor[" + shapeString(shape()) + ", " + dtype().name() + "]";
}

}  // namespace tessera
