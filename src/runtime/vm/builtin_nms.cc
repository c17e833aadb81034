// vision.all_class_non_max_suppression on the VM: greedy suppression per batch and class with ONNX
// NonMaxSuppression's rules (ONNX Runtime's IoU test), rows (batch, class, box) in that order.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "runtime/vm/builtin_ops.h"
#include "support/diagnostic.h"

namespace tessera::runtime::vm::builtin {
namespace {

struct Box {
  double ymin, xmin, ymax, xmax;
};

// Corners in either order ([y1, x1, y2, x2]), or [x_center, y_center, width, height].
Box boxAt(const std::vector<double>& v, int64_t at, bool center) {
  const double a = v[at], b = v[at + 1], c = v[at + 2], d = v[at + 3];
  if (center) return {b - d / 2, a - c / 2, b + d / 2, a + c / 2};
  return {std::min(a, c), std::min(b, d), std::max(a, c), std::max(b, d)};
}

// Boxes of positive area whose intersection over union exceeds the threshold.
bool overlapsTooMuch(const Box& p, const Box& q, double threshold) {
  const double h = std::min(p.ymax, q.ymax) - std::max(p.ymin, q.ymin);
  const double w = std::min(p.xmax, q.xmax) - std::max(p.xmin, q.xmin);
  if (h <= 0 || w <= 0) return false;
  const double areaP = (p.ymax - p.ymin) * (p.xmax - p.xmin);
  const double areaQ = (q.ymax - q.ymin) * (q.xmax - q.xmin);
  const double inter = h * w, uni = areaP + areaQ - inter;
  if (areaP <= 0 || areaQ <= 0 || uni <= 0) return false;
  return inter / uni > threshold;
}

std::vector<double> floatsOf(const NDArray& x) {
  std::vector<double> out(static_cast<size_t>(x.numel()));
  for (int64_t i = 0; i < x.numel(); ++i) out[i] = x.getFloat(i);
  return out;
}

}  // namespace

VMValue allClassNms(const std::vector<NDArray>& args) {
  const char* name = "vision.all_class_non_max_suppression";
  const NDArray& boxesIn = argAt(args, 0, name);
  const NDArray& scoresIn = argAt(args, 1, name);
  const NDArray& maxOut = argAt(args, 2, name);
  const NDArray& iou = argAt(args, 3, name);
  const NDArray& scoreThreshold = argAt(args, 4, name);
  const bool center = attrsOf(args, 1, name)[0] != 0;
  if (boxesIn.ndim() != 3 || scoresIn.ndim() != 3 || boxesIn.shape()[2] != 4 ||
      scoresIn.shape()[0] != boxesIn.shape()[0] || scoresIn.shape()[2] != boxesIn.shape()[1])
    throwDiagnostic("nms_c3", "boxes " + boxesIn.describe() + " and scores " + scoresIn.describe() +
                                  " disagree on the batch or box count");
  if (maxOut.numel() > 1 || iou.numel() > 1 || scoreThreshold.numel() > 1)
    throwDiagnostic("nms_c4",
                    "max_output_boxes_per_class, iou_threshold and score_threshold must hold one "
                    "value each");
  const int64_t limit = maxOut.numel() == 1 ? std::max<int64_t>(maxOut.getInt(0), 0) : 0;
  const double threshold = iou.numel() == 1 ? iou.getFloat(0) : 0.0;
  if (!(threshold >= 0.0 && threshold <= 1.0))
    throwDiagnostic("nms_c5",
                    "iou_threshold is " + std::to_string(threshold) + "; it must be in [0, 1]");
  const bool filter = scoreThreshold.numel() == 1;
  const double minScore = filter ? scoreThreshold.getFloat(0) : 0.0;
  const std::vector<double> boxes = floatsOf(boxesIn), scores = floatsOf(scoresIn);
  const int64_t batches = boxesIn.shape()[0], n = boxesIn.shape()[1];
  const int64_t classes = scoresIn.shape()[1];

  std::vector<int64_t> rows, candidates;
  std::vector<Box> kept;
  for (int64_t b = 0; b < batches; ++b)
    for (int64_t c = 0; c < classes; ++c) {
      const double* s = scores.data() + (b * classes + c) * n;
      // NaN scores rank last; equal scores keep the lower box index first.
      const auto key = [&](int64_t i) {
        return std::isnan(s[i]) ? -std::numeric_limits<double>::infinity() : s[i];
      };
      candidates.clear();
      for (int64_t i = 0; i < n; ++i)
        if (!filter || s[i] > minScore) candidates.push_back(i);
      std::sort(candidates.begin(), candidates.end(),
                [&](int64_t p, int64_t q) { return key(p) != key(q) ? key(p) > key(q) : p < q; });
      kept.clear();
      for (int64_t i : candidates) {
        if (static_cast<int64_t>(kept.size()) >= limit) break;
        const Box box = boxAt(boxes, (b * n + i) * 4, center);
        if (std::any_of(kept.begin(), kept.end(),
                        [&](const Box& k) { return overlapsTooMuch(k, box, threshold); }))
          continue;
        kept.push_back(box);
        rows.insert(rows.end(), {b, c, i});
      }
    }
  NDArray out = NDArray::empty({static_cast<int64_t>(rows.size() / 3), 3}, DataType::int64());
  std::copy(rows.begin(), rows.end(), out.as<int64_t>());
  return VMValue{out, nullptr};
}

}  // namespace tessera::runtime::vm::builtin
