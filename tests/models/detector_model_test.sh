#!/usr/bin/env bash
# Usage: detector_model_test.sh TESSERA_BINARY SOURCE_DIR NAME SIZE. A torchvision detector with
# random weights (tests/models/detector_model.py), exported to ONNX with its postprocessing:
# `tessera compile` builds it once for the VM (data-dependent counts: NonZero, GatherND, TopK by a
# run-time k, NMS), and the one build runs two images, each matching PyTorch's detections: the
# same count, and each detection found near its position with its label, its score within 1e-4
# and its box corners within 0.05 pixel (scores equal to rounding may swap places).
set -euo pipefail
source "$(dirname "$0")/model_test_lib.sh"
model_test_setup "$1" "$2" detector_model.py "$3" "$4"
name="$3"

"$tessera" compile "$work/$name.onnx" -o "$work/$name.vm" >"$work/compile.log"
grep -q "VM program" "$work/compile.log" ||
  { echo "FAIL: $name did not compile for the VM"; cat "$work/compile.log"; exit 1; }
for k in 0 1; do
  "$tessera" run "$work/$name.vm" --input "images=$work/img$k.npy" --output "$work/out$k.npz" \
    >"$work/run.log"
  grep -q "^engine: compiled (VM)" "$work/run.log" ||
    { echo "FAIL: $name image $k did not run on the VM"; cat "$work/run.log"; exit 1; }
  "$python" - "$work/out$k.npz" "$work/ref$k" <<'PY'
import sys
import numpy as np
out = np.load(sys.argv[1])
# SSD and RetinaNet return boxes, scores, labels; Faster R-CNN boxes, labels, scores.
fields = [out[f"output_{i}"] for i in range(3)]
boxes = next(f for f in fields if f.ndim == 2)
labels = next(f for f in fields if f.dtype.kind == "i")
scores = next(f for f in fields if f.ndim == 1 and f.dtype.kind == "f")
ref = [np.load(f"{sys.argv[2]}_{key}.npy") for key in ("boxes", "scores", "labels")]
assert boxes.shape == ref[0].shape and scores.shape == ref[1].shape, (boxes.shape, ref[0].shape)
# Scores within float rounding of each other may come out in either order (and, at the cut of
# the last kept box, either may be kept): each PyTorch detection must be found among the compiled
# ones with its label, its score within 1e-4 and its box within 0.05 pixel, near its position.
used = np.zeros(len(scores), bool)
cut = float(ref[1].min(initial=0))
score_diff = box_diff = 0.0
for i in range(len(ref[1])):
    near = [j for j in range(max(0, i - 8), min(len(scores), i + 9))
            if not used[j] and labels[j] == ref[2][i] and abs(scores[j] - ref[1][i]) <= 1e-4
            and np.abs(boxes[j] - ref[0][i]).max() <= 0.05]
    if not near:
        assert abs(ref[1][i] - cut) <= 1e-4, ("detection", i, "not found", ref[1][i], ref[2][i])
        continue
    j = min(near, key=lambda j: abs(scores[j] - ref[1][i]))
    used[j] = True
    score_diff = max(score_diff, abs(float(scores[j] - ref[1][i])))
    box_diff = max(box_diff, float(np.abs(boxes[j] - ref[0][i]).max()))
print(f"{used.sum()} of {len(ref[1])} detections match: max score diff {score_diff:.2e}, "
      f"max box diff {box_diff:.2e}")
PY
done
echo "$name: compiled once for the VM; two images match PyTorch's detections"
