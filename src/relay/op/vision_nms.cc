// vision.all_class_non_max_suppression (kOpaque, data-dependent shape): greedy non-maximum
// suppression of every class of every batch, with ONNX NonMaxSuppression's rules (TVM's op with
// output_format "onnx"). The number of boxes kept depends on the scores and overlaps, so the
// result is (?, 3) int64 rows (batch, class, box); TVM pads it to B*C*N rows and returns the count
// beside it. The thresholds and the per-class limit are tensors read when the kernel runs.
#include <algorithm>
#include <limits>
#include <numeric>
#include <string>

#include "relay/op/dynamic.h"
#include "relay/op/op_common.h"
#include "relay/op/op_families.h"
#include "support/check.h"
#include "support/diagnostic.h"

namespace tessera::relay {
namespace {

// A scalar input: at most one element (an empty score_threshold means "no threshold").
void checkScalar(const TypeReporter& r, size_t i, bool integer, const char* code) {
  const TensorTypeNode* t = r.tensorArg(i);
  const std::string what = OpRegistry::global().find(r.opName())->args[i];
  if (integer ? !t->dtype.isInteger() : !t->dtype.isFloat())
    r.fail(code, what + " of type " + typeToString(r.arg(i)) + " must be " +
                     (integer ? "an integer" : "a floating-point") + " scalar");
  const std::optional<std::vector<int64_t>> dims = staticShape(t->shape);
  int64_t numel = 1;
  for (int64_t d : dims.value_or(std::vector<int64_t>{})) numel *= d;
  if (t->ndim() > 1 || (dims && numel > 1))
    r.fail(code, what + " of type " + typeToString(r.arg(i)) + " must hold one value");
}

std::optional<Type> nmsRel(const TypeReporter& r) {
  for (size_t i = 0; i < 5; ++i)
    if (!r.tensorArg(i)) return std::nullopt;
  const TensorTypeNode* boxes = r.tensorArg(0);
  const TensorTypeNode* scores = r.tensorArg(1);
  const auto& a = r.attrs<AllClassNmsAttrs>();
  if (a.outputFormat != "onnx")
    r.fail("nms_c1", "output_format \"" + a.outputFormat + "\" is not supported; only \"onnx\" is");
  const std::string pair =
      "boxes of type " + typeToString(r.arg(0)) + " and scores of type " + typeToString(r.arg(1));
  if (!boxes->dtype.isFloat() || boxes->dtype != scores->dtype)
    r.fail("nms_c2", pair + " must share one floating-point dtype");
  const auto known = [](const Dim& d, int64_t v) { return !d.isConst() || d.value() == v; };
  if (boxes->ndim() != 3 || scores->ndim() != 3 || !known(boxes->shape[2], 4))
    r.fail("nms_c3", pair + " must have shapes (batch, boxes, 4) and (batch, classes, boxes)");
  const auto same = [](const Dim& x, const Dim& y) {
    return !x.isConst() || !y.isConst() || x.value() == y.value();
  };
  if (!same(boxes->shape[0], scores->shape[0]) || !same(boxes->shape[1], scores->shape[2]))
    r.fail("nms_c3", pair + " disagree on the batch or box count");
  checkScalar(r, 2, true, "nms_c4");
  checkScalar(r, 3, false, "nms_c4");
  checkScalar(r, 4, false, "nms_c4");
  return tensorType(Shape{Dim::any(), Dim(3)}, DataType::int64());
}

// One box as [min, max] extents on each axis: corners in either order ([y1, x1, y2, x2]), or a
// center and size ([x_center, y_center, width, height]).
struct Extent {
  double y0, x0, y1, x1;
  double area() const { return (y1 - y0) * (x1 - x0); }
};

Extent extentOf(const NDArray& boxes, int64_t at, bool center) {
  const double v0 = boxes.getFloat(at), v1 = boxes.getFloat(at + 1);
  const double v2 = boxes.getFloat(at + 2), v3 = boxes.getFloat(at + 3);
  if (center) return {v1 - v3 / 2, v0 - v2 / 2, v1 + v3 / 2, v0 + v2 / 2};
  return {std::min(v0, v2), std::min(v1, v3), std::max(v0, v2), std::max(v1, v3)};
}

// ONNX Runtime's rule: overlapping boxes of positive area whose IoU exceeds the threshold.
bool suppresses(const Extent& a, const Extent& b, double iouThreshold) {
  const double iy0 = std::max(a.y0, b.y0), iy1 = std::min(a.y1, b.y1);
  const double ix0 = std::max(a.x0, b.x0), ix1 = std::min(a.x1, b.x1);
  if (iy1 <= iy0 || ix1 <= ix0) return false;
  const double inter = (iy1 - iy0) * (ix1 - ix0);
  const double areaA = a.area(), areaB = b.area();
  const double uni = areaA + areaB - inter;
  if (areaA <= 0 || areaB <= 0 || uni <= 0) return false;
  return inter / uni > iouThreshold;
}

Value nmsKernel(const std::vector<Value>& args, const AttrsNode* attrs, const Type&) {
  const NDArray& boxes = tensorAt(args, 0);
  const NDArray& scores = tensorAt(args, 1);
  const NDArray& maxOut = tensorAt(args, 2);
  const NDArray& iou = tensorAt(args, 3);
  const NDArray& scoreThreshold = tensorAt(args, 4);
  const bool center = attrsOrDefault<AllClassNmsAttrs>(attrs).centerPointBox;
  const int64_t batches = boxes.shape()[0], count = boxes.shape()[1];
  const int64_t classes = scores.shape()[1];
  if (scores.shape()[0] != batches || scores.shape()[2] != count || boxes.shape()[2] != 4)
    throwDiagnostic("nms_c3", "boxes " + boxes.describe() + " and scores " + scores.describe() +
                                  " disagree on the batch or box count");
  if (maxOut.numel() > 1 || iou.numel() > 1 || scoreThreshold.numel() > 1)
    throwDiagnostic("nms_c4",
                    "max_output_boxes_per_class, iou_threshold and score_threshold "
                    "must hold one value each");
  const int64_t limit = maxOut.numel() == 1 ? std::max<int64_t>(maxOut.getInt(0), 0) : 0;
  const double iouThreshold = iou.numel() == 1 ? iou.getFloat(0) : 0.0;
  if (!(iouThreshold >= 0.0 && iouThreshold <= 1.0))
    throwDiagnostic("nms_c5",
                    "iou_threshold is " + std::to_string(iouThreshold) + "; it must be in [0, 1]");

  std::vector<int64_t> rows;  // flattened (batch, class, box) triples
  std::vector<int64_t> order;
  std::vector<Extent> kept;
  for (int64_t b = 0; b < batches; ++b) {
    for (int64_t c = 0; c < classes; ++c) {
      const int64_t scoreBase = (b * classes + c) * count;
      order.clear();
      for (int64_t i = 0; i < count; ++i)
        if (scoreThreshold.numel() == 0 ||
            scores.getFloat(scoreBase + i) > scoreThreshold.getFloat(0))
          order.push_back(i);
      // Highest score first; among equal scores the lower index (stable over ascending ids).
      // NaN ranks as -inf, so the order stays a strict weak one.
      const auto key = [&](int64_t i) {
        const double v = scores.getFloat(scoreBase + i);
        return v != v ? -std::numeric_limits<double>::infinity() : v;
      };
      std::stable_sort(order.begin(), order.end(),
                       [&](int64_t p, int64_t q) { return key(p) > key(q); });
      kept.clear();
      for (int64_t i : order) {
        if (static_cast<int64_t>(kept.size()) >= limit) break;
        const Extent box = extentOf(boxes, (b * count + i) * 4, center);
        const bool suppressed = std::any_of(kept.begin(), kept.end(), [&](const Extent& k) {
          return suppresses(k, box, iouThreshold);
        });
        if (suppressed) continue;
        kept.push_back(box);
        rows.insert(rows.end(), {b, c, i});
      }
    }
  }
  NDArray out = NDArray::empty({static_cast<int64_t>(rows.size() / 3), 3}, DataType::int64());
  for (size_t k = 0; k < rows.size(); ++k) out.setInt(static_cast<int64_t>(k), rows[k]);
  return out;
}

}  // namespace

void registerVisionOps(OpRegistry& r) {
  r.add(OpDef{
      .name = "vision.all_class_non_max_suppression",
      .args = {"boxes", "scores", "max_output_boxes_per_class", "iou_threshold", "score_threshold"},
      .summary = "greedy NMS per batch and class (ONNX rules): (?, 3) int64 rows",
      .attrs = attrsType<AllClassNmsAttrs>(),
      .typeRelation = nmsRel,
      .pattern = OpPattern::kOpaque,
      .kernel = nmsKernel,
      .dataDependentShape = true});
}

Expr allClassNonMaxSuppression(Expr boxes, Expr scores, Expr maxOutputBoxesPerClass,
                               Expr iouThreshold, Expr scoreThreshold, bool centerPointBox) {
  return makeCall(opByName("vision.all_class_non_max_suppression"),
                  {std::move(boxes), std::move(scores), std::move(maxOutputBoxesPerClass),
                   std::move(iouThreshold), std::move(scoreThreshold)},
                  makeAttrs(AllClassNmsAttrs{.centerPointBox = centerPointBox}));
}

}  // namespace tessera::relay
