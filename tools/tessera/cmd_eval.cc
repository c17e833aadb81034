// `tessera classify` and `tessera eval`: the FashionMNIST main job. Both compile an image
// classifier (an ONNX or Relay model with one image input and one logits output) and run it one
// image at a time; classify prints each prediction by class name, eval measures accuracy over the
// 10,000 test images and can check that every prediction equals a reference (PyTorch's).
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>

#include "cli.h"
#include "codegen/llvm/target.h"
#include "driver/build.h"
#include "quantize_options.h"
#include "runtime/graph_executor/graph_executor.h"
#include "runtime/npy.h"
#include "support/diagnostic.h"

namespace tessera::cli {

const char* const kClassifyUsage =
    "usage: tessera classify MODEL [--samples FILE.npz] [--target T]\n"
    "\n"
    "Compiles an image classifier (ONNX or Relay; one input, logits output) and prints the\n"
    "predicted class of each sample image next to its true label.\n"
    "  --samples FILE.npz  `images` (N x 784 or N x 1 x 28 x 28 float32 in [0, 1]) and `labels`\n"
    "                      (default: examples/fashion_mnist/samples.npz)\n"
    "  --target T          LLVM target string (default: the host CPU)\n";

const char* const kEvalUsage =
    "usage: tessera eval MODEL [--data DIR] [--limit N] [--reference FILE.npz:KEY] [--target T]\n"
    "\n"
    "Compiles an image classifier and reports its accuracy on the FashionMNIST test set.\n"
    "  --data DIR     directory with t10k-images-idx3-ubyte.gz and t10k-labels-idx1-ubyte.gz\n"
    "                 (default: /usr/share/datasets/fashion-mnist, Debian's "
    "dataset-fashion-mnist)\n"
    "  --limit N      only the first N images\n"
    "  --reference F:KEY  compare every prediction with array KEY of F (e.g.\n"
    "                 examples/fashion_mnist/reference.npz:mlp_pred, PyTorch's predictions);\n"
    "                 exit 1 when any differs\n"
    "  --target T     LLVM target string (default: the host CPU)\n"
    "  --quantize     quantize the model to int8 first (relay.quantize), calibrated on the first\n"
    "                 100 training images (--samples N, or --dataset FILE.npz); "
    "options:\n" TESSERA_QUANTIZE_OPTIONS_USAGE;

namespace {

const char* const kClassNames[10] = {"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
                                     "Sandal",      "Shirt",   "Sneaker",  "Bag",   "Ankle boot"};

std::string gunzip(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) throwDiagnostic("eval_data", "cannot open " + path, {}, path);
  std::string out;
  char buffer[1 << 16];
  int n = 0;
  while ((n = gzread(f, buffer, sizeof buffer)) > 0) out.append(buffer, static_cast<size_t>(n));
  const bool failed = n < 0;
  gzclose(f);
  if (failed) throwDiagnostic("eval_data", "cannot decompress " + path, {}, path);
  return out;
}

uint32_t bigEndian32(const std::string& bytes, size_t offset) {
  uint32_t v = 0;
  for (size_t i = 0; i < 4; ++i) v = (v << 8) | static_cast<uint8_t>(bytes[offset + i]);
  return v;
}

struct Dataset {
  int64_t count = 0;
  std::vector<float> pixels;  ///< count x 784, scaled to [0, 1]
  std::vector<int64_t> labels;
};

// The IDX files of MNIST-style datasets: magic 0x803 (images) / 0x801 (labels), big-endian dims.
// `split` is "t10k" (the test set) or "train".
Dataset readFashionMnist(const std::string& dir, const std::string& split = "t10k") {
  const std::string imagesPath = dir + "/" + split + "-images-idx3-ubyte.gz";
  const std::string labelsPath = dir + "/" + split + "-labels-idx1-ubyte.gz";
  const std::string images = gunzip(imagesPath);
  const std::string labels = gunzip(labelsPath);
  if (images.size() < 16 || bigEndian32(images, 0) != 0x803 || bigEndian32(images, 8) != 28 ||
      bigEndian32(images, 12) != 28)
    throwDiagnostic("eval_data", "not an IDX file of 28x28 images", {}, imagesPath);
  if (labels.size() < 8 || bigEndian32(labels, 0) != 0x801)
    throwDiagnostic("eval_data", "not an IDX label file", {}, labelsPath);
  Dataset d;
  d.count = bigEndian32(images, 4);
  if (bigEndian32(labels, 4) != d.count || images.size() < 16 + d.count * 784 ||
      labels.size() < 8 + static_cast<size_t>(d.count))
    throwDiagnostic("eval_data", "image and label files disagree on the number of images", {}, dir);
  d.pixels.resize(d.count * 784);
  for (int64_t i = 0; i < d.count * 784; ++i)
    d.pixels[i] = static_cast<float>(static_cast<uint8_t>(images[16 + i])) / 255.0f;
  for (int64_t i = 0; i < d.count; ++i) d.labels.push_back(static_cast<uint8_t>(labels[8 + i]));
  return d;
}

target::Target targetOf(Args& args) {
  const std::optional<std::string> text = args.value("--target");
  return text ? target::Target::parse(*text) : codegen::hostTarget();
}

// A compiled classifier taking one 784-pixel image per run.
class Classifier {
 public:
  Classifier(const relay::IRModule& module, const std::string& modelPath,
             const target::Target& target) {
    built_ = driver::build(module, target);
    executor_ = std::make_unique<runtime::GraphExecutor>(built_.model());
    if (executor_->numInputs() != 1 || executor_->numOutputs() != 1)
      throwDiagnostic("eval_model", "a classifier needs one input and one output", {}, modelPath);
    const runtime::TensorEntry& in = executor_->inputInfo(0);
    int64_t elements = 1;
    for (int64_t d : in.shape) elements *= d;
    if (elements != 784 || in.dtype != DataType::float32())
      throwDiagnostic("eval_model",
                      "the input must hold one 28x28 float32 image (784 values), found " +
                          std::to_string(elements) + " values of " + in.dtype.name(),
                      {}, modelPath);
    input_ = NDArray::empty(in.shape, DataType::float32());
  }

  int64_t classify(const float* pixels) {
    std::copy(pixels, pixels + 784, static_cast<float*>(input_.data()));
    executor_->setInput(0, input_);
    executor_->run();
    const NDArray logits = executor_->getOutput(0);
    int64_t best = 0;
    const int64_t n = logits.numel();
    for (int64_t i = 1; i < n; ++i)
      if (logits.getFloat(i) > logits.getFloat(best)) best = i;
    return best;
  }

 private:
  driver::Built built_;
  std::unique_ptr<runtime::GraphExecutor> executor_;
  NDArray input_;
};

std::string className(int64_t c) {
  return c >= 0 && c < 10 ? kClassNames[c] : "class " + std::to_string(c);
}

}  // namespace

int cmdClassify(Args& args) {
  const target::Target target = targetOf(args);
  const std::string samplesPath =
      args.value("--samples").value_or("examples/fashion_mnist/samples.npz");
  const std::vector<std::string> files = args.positionals();
  if (files.size() != 1) throw UsageError{"expected exactly one MODEL"};
  const std::map<std::string, NDArray> samples = readNpz(samplesPath);
  if (!samples.count("images") || !samples.count("labels"))
    throwDiagnostic("eval_data", "expected arrays 'images' and 'labels'", {}, samplesPath);
  const NDArray& images = samples.at("images");
  const NDArray& labels = samples.at("labels");
  if (images.dtype() != DataType::float32() || images.numel() != labels.numel() * 784)
    throwDiagnostic("eval_data", "'images' must be float32 with 784 values per label", {},
                    samplesPath);
  const auto start = std::chrono::steady_clock::now();
  Classifier classifier(loadModule(files[0], {}), files[0], target);
  const double compileMs =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::printf("compiled %s in %.0f ms\n", files[0].c_str(), compileMs);
  const float* pixels = static_cast<const float*>(images.data());
  int correct = 0;
  for (int64_t i = 0; i < labels.numel(); ++i) {
    const int64_t predicted = classifier.classify(pixels + i * 784);
    const int64_t truth = labels.getInt(i);
    correct += predicted == truth;
    std::printf("image %lld: predicted %-12s true %-12s %s\n", static_cast<long long>(i),
                className(predicted).c_str(), className(truth).c_str(),
                predicted == truth ? "" : "(wrong)");
  }
  std::printf("%d of %lld correct\n", correct, static_cast<long long>(labels.numel()));
  return kExitOk;
}

// The model quantized as `options` say; calibrated on the first 100 (or --samples) training
// images unless a --dataset is given.
relay::IRModule quantizeForEval(const relay::IRModule& module, QuantizeOptions& options,
                                const std::string& dir) {
  relay::quantize::CalibrationDataset dataset;
  if (!options.datasetPath) {
    const Dataset train = readFashionMnist(dir, "train");
    const relay::Var& input = module.main()->params.at(0);
    const auto* t = input->typeAnnotation ? input->typeAnnotation->as<TensorTypeNode>() : nullptr;
    const std::optional<std::vector<int64_t>> shape = t ? staticShape(t->shape) : std::nullopt;
    if (!shape) throwDiagnostic("eval_model", "the model's input has no static shape");
    const int64_t n = std::min<int64_t>(options.samples.value_or(100), train.count);
    for (int64_t i = 0; i < n; ++i) {
      NDArray image = NDArray::empty(*shape, DataType::float32());
      if (image.numel() != 784)
        throwDiagnostic("eval_model", "the input must hold one 28x28 image (784 values)");
      std::copy(train.pixels.begin() + i * 784, train.pixels.begin() + (i + 1) * 784,
                static_cast<float*>(image.data()));
      dataset.push_back({{input->nameHint, image}});
    }
  }
  driver::Quantized q = driver::quantizeModel(
      module, quantizeRequest(module, options, std::move(dataset)), options.context);
  std::printf("quantized: %s\n", options.config.str().c_str());
  if (options.report) std::fputs(q.report.c_str(), stderr);
  return q.module;
}

int cmdEval(Args& args) {
  const target::Target target = targetOf(args);
  const std::string dir = args.value("--data").value_or("/usr/share/datasets/fashion-mnist");
  const std::optional<std::string> limitText = args.value("--limit");
  const std::optional<std::string> reference = args.value("--reference");
  std::optional<QuantizeOptions> quantize;
  if (args.flag("--quantize")) quantize = parseQuantizeOptions(args);
  const std::vector<std::string> files = args.positionals();
  if (files.size() != 1) throw UsageError{"expected exactly one MODEL"};
  int64_t limit = -1;
  if (limitText) {
    try {
      limit = std::stoll(*limitText);
    } catch (const std::exception&) {
      throw UsageError{"--limit expects a number"};
    }
  }
  NDArray expected;
  if (reference) {
    const size_t colon = reference->rfind(':');
    if (colon == std::string::npos) throw UsageError{"--reference expects FILE.npz:KEY"};
    const std::map<std::string, NDArray> ref = readNpz(reference->substr(0, colon));
    const std::string key = reference->substr(colon + 1);
    if (!ref.count(key))
      throwDiagnostic("eval_data", "no array named " + key, {}, reference->substr(0, colon));
    expected = ref.at(key);
  }
  const Dataset data = readFashionMnist(dir);
  const int64_t count = limit < 0 ? data.count : std::min(limit, data.count);
  if (expected.defined() && expected.numel() < count)
    throwDiagnostic("eval_data", "the reference has fewer predictions than images", {}, *reference);
  relay::IRModule module = loadModule(files[0], {});
  if (quantize) module = quantizeForEval(module, *quantize, dir);
  Classifier classifier(module, files[0], target);
  int64_t correct = 0, agree = 0;
  const auto start = std::chrono::steady_clock::now();
  for (int64_t i = 0; i < count; ++i) {
    const int64_t predicted = classifier.classify(data.pixels.data() + i * 784);
    correct += predicted == data.labels[i];
    if (expected.defined()) agree += predicted == expected.getInt(i);
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("accuracy: %.4f (%lld of %lld)  [%.1f us per image]\n",
              static_cast<double>(correct) / static_cast<double>(count),
              static_cast<long long>(correct), static_cast<long long>(count),
              seconds * 1e6 / static_cast<double>(count));
  if (expected.defined()) {
    std::printf("same prediction as the reference: %lld of %lld\n", static_cast<long long>(agree),
                static_cast<long long>(count));
    if (agree != count) return kExitError;
  }
  return kExitOk;
}

}  // namespace tessera::cli
