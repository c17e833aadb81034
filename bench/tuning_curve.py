#!/usr/bin/python3
"""Search efficiency of the auto-tuner's cost models (issue 26): best latency against trials for
XGBoost and the random model, same search (evolutionary), same budget, same seeds.

For each task and seed it runs the tuner once with `--cost-model xgb` (which ranks with the
analytic model until its first training) and once with `--cost-model random`, interleaved (xgb seed 0, random seed 0, xgb seed 1, ...), each from an
empty database, on one thread (pinned with `taskset -c CPU` when taskset exists), and reads the
run's `--curve` CSV (one row per measured candidate: trial, task, task_trial, seconds,
best_seconds_task, elapsed_s).

Tasks:
  * matmul: seed 002's plain 128^3 matmul PrimFunc (block C, no weight packing) over the rule-made
    spaces, through examples/tune_matmul (`--rules`; TVM's default evaluator: number 3, min_repeat_ms 100).
  * dense: tests/data/tune/matmul128.relay with its weights bound (the packed NT dense) through
    `tessera tune`: the default schedule's space and the rule-made ones.
  * conv (not in the default set): a ResNet-18 3x3 conv2d + bias + ReLU (1x128x28x28 -> 128, pad
    1, seeded random weights) through `tessera tune`; some of its candidates take minutes to
    compile (see the results file), so it does not fit a short benchmark.

Figure of merit (issue 26's target: at most a third of the trials): per task and seed, the
number of trials the xgb run needs before its best latency is at or below the random run's
final best, as a fraction of the budget; the median over seeds (a run that never gets there
counts as more than the budget).

Writes a Markdown report (--out) and an SVG plot (--svg): best GFLOP/s against trials, the
median over seeds per model (thin lines: each seed), one panel per task.
Usage: /usr/bin/python3 bench/tuning_curve.py [--trials 512] [--seeds 3] [--tasks matmul,dense]
       [--min-repeat-ms 20] [--work DIR] [--out FILE.md] [--svg FILE.svg] [--cpu 1]
"""
import argparse
import csv
import datetime
import os
import pathlib
import random
import shutil
import statistics
import struct
import subprocess
import sys
import time
import zipfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
MODELS = ("xgb", "random")
COLORS = {"xgb": "#d62728", "random": "#1f77b4"}
CONV_RELAY = """#[version = "0.0.5"]
def @main(%x: Tensor[(1, 128, 28, 28), float32], %w: Tensor[(128, 128, 3, 3), float32], %b: Tensor[(128), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1], channels=128, kernel_size=[3, 3]);
  %1 = nn.bias_add(%0, %b);
  nn.relu(%1)
}
"""
FLOPS = {"matmul": 2 * 128**3, "dense": 2 * 128**3, "conv": 2 * 128 * 128 * 9 * 28 * 28}
TITLES = {
    "matmul": "seed 002's plain 128^3 matmul (rule-made spaces)",
    "dense": "matmul128.relay, packed dense (default + rule spaces)",
    "conv": "ResNet-18 conv2d 3x3, 128->128, 28x28",
}


def npy(shape, values):
    """One float32 .npy file (NumPy's format 1.0), without NumPy."""
    dims = f"({shape[0]},)" if len(shape) == 1 else str(tuple(shape))
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': %s, }" % dims
    header += " " * (64 - (10 + len(header) + 1) % 64) + "\n"
    return (b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() +
            struct.pack(f"<{len(values)}f", *values))


def conv_inputs(work):
    relay = work / "conv3x3_128.relay"
    relay.write_text(CONV_RELAY)
    params = work / "conv3x3_128.npz"
    rng = random.Random(0)
    with zipfile.ZipFile(params, "w") as z:
        z.writestr("w.npy", npy((128, 128, 3, 3), [rng.uniform(-0.05, 0.05) for _ in range(147456)]))
        z.writestr("b.npy", npy((128,), [rng.uniform(-0.1, 0.1) for _ in range(128)]))
    return relay, params


def command(task, model, seed, args, db, curve):
    pin = ["taskset", "-c", str(args.cpu)] if shutil.which("taskset") else []
    common = ["--trials", str(args.trials), "--seed", str(seed), "--cost-model", model,
              "--curve", str(curve)]
    if task == "matmul":
        return pin + [str(args.tune_matmul), str(db), "--rules"] + common
    if task == "dense":
        relay = ROOT / "tests/data/tune/matmul128.relay"
        params = ROOT / "tests/data/tune/matmul128_w.npz"
    else:
        relay, params = conv_inputs(args.work)
    return pin + [str(args.tessera), "tune", str(relay), "--params", str(params), "--db", str(db),
                  "--threads", "1", "--min-repeat-ms", str(args.min_repeat_ms)] + common


def read_curve(path, trials):
    """Best latency (seconds) after each trial, 1..trials (None before the first valid one), and
    each trial's own latency (None: failed)."""
    best, secs = [], []
    with open(path) as f:
        for row in csv.DictReader(f):
            b = row["best_seconds_task"]
            best.append(float(b) if b else None)
            secs.append(float(row["seconds"]) if row["seconds"] else None)
    return best[:trials], secs[:trials]


def trials_to_reach(best, target):
    for i, b in enumerate(best):
        if b is not None and b <= target:
            return i + 1
    return None


def load_note():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def cpu_note():
    family = model = "?"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("cpu family") and family == "?":
                family = line.split(":", 1)[1].strip()
            if line.startswith("model name") and model == "?":
                model = line.split(":", 1)[1].strip()
    return f"cpu family {family}, {model}, {os.cpu_count()} logical CPUs"


def median_curve(curves):
    n = min(len(c) for c in curves)
    out = []
    for i in range(n):
        vals = [c[i] for c in curves if c[i] is not None]
        out.append(statistics.median(vals) if len(vals) == len(curves) else None)
    return out


def svg_plot(results, tasks, trials, path):
    """One panel per task: best GFLOP/s (median over seeds, thick; each seed, thin) vs trials."""
    pw, ph, ml, mr, mt, mb = 460, 300, 60, 15, 40, 45
    width = pw * len(tasks)
    height = ph + 40
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'font-family="sans-serif" font-size="11">',
           f'<rect width="{width}" height="{height}" fill="white"/>']
    for k, task in enumerate(tasks):
        x0 = k * pw
        runs = results[task]
        gf = {m: [[FLOPS[task] / b / 1e9 if b else None for b in runs[m][s]] for s in runs[m]]
              for m in MODELS}
        ymax = max(v for m in MODELS for c in gf[m] for v in c if v is not None) * 1.08
        ymax = max(ymax, 1e-9)
        px = lambda t: x0 + ml + (pw - ml - mr) * t / trials  # noqa: E731
        py = lambda g: mt + (ph - mt - mb) * (1 - g / ymax)  # noqa: E731
        out.append(f'<text x="{x0 + pw / 2}" y="16" text-anchor="middle" font-size="12" '
                   f'font-weight="bold">{TITLES[task]}</text>')
        # Axes, grid, ticks.
        out.append(f'<line x1="{px(0)}" y1="{py(0)}" x2="{px(trials)}" y2="{py(0)}" '
                   'stroke="black"/>')
        out.append(f'<line x1="{px(0)}" y1="{py(0)}" x2="{px(0)}" y2="{py(ymax)}" '
                   'stroke="black"/>')
        step = 64 if trials > 256 else 32
        for t in range(0, trials + 1, step):
            out.append(f'<line x1="{px(t)}" y1="{py(0)}" x2="{px(t)}" y2="{py(0) + 4}" '
                       'stroke="black"/>')
            out.append(f'<text x="{px(t)}" y="{py(0) + 15}" text-anchor="middle">{t}</text>')
        ystep = nice_step(ymax / 5)
        g = 0.0
        while g <= ymax:
            out.append(f'<line x1="{px(0)}" y1="{py(g)}" x2="{px(trials)}" y2="{py(g)}" '
                       'stroke="#ddd"/>')
            out.append(f'<text x="{px(0) - 5}" y="{py(g) + 4}" text-anchor="end">{g:g}</text>')
            g += ystep
        out.append(f'<text x="{x0 + ml + (pw - ml - mr) / 2}" y="{ph - 8}" '
                   'text-anchor="middle">trials</text>')
        out.append(f'<text x="{x0 + 14}" y="{mt + (ph - mt - mb) / 2}" text-anchor="middle" '
                   f'transform="rotate(-90 {x0 + 14} {mt + (ph - mt - mb) / 2})">'
                   'best GFLOP/s</text>')
        # A third of the budget, and the random model's final (median) best.
        out.append(f'<line x1="{px(trials / 3)}" y1="{py(0)}" x2="{px(trials / 3)}" '
                   f'y2="{py(ymax)}" stroke="#888" stroke-dasharray="4,3"/>')
        out.append(f'<text x="{px(trials / 3) + 3}" y="{py(ymax) + 10}" fill="#555">1/3 of the '
                   'trials</text>')
        rmed = median_curve(gf["random"])
        if rmed and rmed[-1] is not None:
            out.append(f'<line x1="{px(0)}" y1="{py(rmed[-1])}" x2="{px(trials)}" '
                       f'y2="{py(rmed[-1])}" stroke="{COLORS["random"]}" stroke-dasharray="2,3"/>')
        for m in MODELS:
            for c in gf[m]:
                out.append(polyline(c, px, py, COLORS[m], 0.8, 0.35))
            med = median_curve(gf[m])
            out.append(polyline(med, px, py, COLORS[m], 2.2, 1.0))
        for j, m in enumerate(MODELS):
            ly = py(ymax * 0.12) + 14 * j
            out.append(f'<line x1="{px(trials * 0.62)}" y1="{ly}" x2="{px(trials * 0.70)}" '
                       f'y2="{ly}" stroke="{COLORS[m]}" stroke-width="2.2"/>')
            out.append(f'<text x="{px(trials * 0.72)}" y="{ly + 4}">{m} (median of '
                       f'{len(gf[m])} seeds)</text>')
    out.append(f'<text x="8" y="{height - 8}" fill="#555">Thin lines: each seed. Dotted: the '
               'random model\'s final median best. Higher is better.</text>')
    out.append("</svg>")
    path.write_text("\n".join(out) + "\n")


def nice_step(x):
    for base in (1, 2, 5, 10, 20, 25, 50, 100, 200, 500):
        if base >= x:
            return float(base)
    return float(x)


def polyline(values, px, py, color, width, opacity):
    """The best-so-far curve as steps: a point where the value changes, and the last one."""
    pts, last = [], None
    for i, v in enumerate(values):
        if v is None:
            continue
        if last is not None and v != last:
            pts.append(f"{px(i + 1):.1f},{py(last):.1f}")
        if v != last or i == len(values) - 1:
            pts.append(f"{px(i + 1):.1f},{py(v):.1f}")
        last = v
    pts = " ".join(pts)
    return (f'<polyline points="{pts}" fill="none" stroke="{color}" stroke-width="{width}" '
            f'stroke-opacity="{opacity}"/>')


def fmt_us(s):
    return f"{s * 1e6:.2f}" if s is not None else "N/A"


def fmt_reach(n, trials):
    return f"{n} ({n / trials:.2f})" if n is not None else f"not within {trials}"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--trials", type=int, default=512)
    p.add_argument("--seeds", type=int, default=3)
    p.add_argument("--tasks", default="matmul,dense")
    p.add_argument("--min-repeat-ms", type=float, default=20)
    p.add_argument("--cpu", type=int, default=1)
    p.add_argument("--tessera", default=str(ROOT / "build/release/tools/tessera/tessera"))
    p.add_argument("--tune-matmul",
                   default=str(ROOT / "build/release/examples/tune_matmul/tune_matmul"))
    p.add_argument("--work", default="/tmp/tessera-tuning-curve")
    p.add_argument("--out", default="/tmp/tuning-curve.md")
    p.add_argument("--svg", default="/tmp/tuning-curve.svg")
    p.add_argument("--round", type=int, default=64,
                   help="trials per round (the tuners' default), for the per-round table")
    p.add_argument("--reuse", action="store_true",
                   help="read the curves (and run.txt: wall times, load) already in --work "
                   "instead of running")
    args = p.parse_args()
    args.work = pathlib.Path(args.work)
    args.work.mkdir(parents=True, exist_ok=True)
    tasks = args.tasks.split(",")
    for t in tasks:
        if t not in FLOPS:
            sys.exit(f"unknown task {t} (matmul, dense, conv)")
    # Copies, so a rebuild during the run does not change the binaries.
    for attr in ("tessera", "tune_matmul"):
        src = pathlib.Path(getattr(args, attr))
        dst = args.work / src.name
        if not args.reuse:
            shutil.copy2(src, dst)
        setattr(args, attr, dst)

    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    notes = args.work / "run.txt"  # name: value lines (wall seconds per run, load, commit, ...)
    saved = {}
    if args.reuse:
        for line in notes.read_text().splitlines():
            key, _, value = line.partition(": ")
            saved[key] = value
    else:
        notes.write_text("")

    def note(key, value):
        with open(notes, "a") as f:
            f.write(f"{key}: {value}\n")

    load_start = saved.get("load_start") or load_note()
    commit = saved.get("commit") or commit
    started = datetime.datetime.now(datetime.timezone.utc)
    if "date" in saved:
        started = datetime.datetime.fromisoformat(saved["date"])
    if not args.reuse:
        note("load_start", load_start)
        note("commit", commit)
        note("date", started.isoformat())
    t0 = time.monotonic()
    results = {t: {m: {} for m in MODELS} for t in tasks}
    measured = {t: {m: {} for m in MODELS} for t in tasks}
    walls = {k: float(v) for k, v in saved.items() if k.startswith(tuple(tasks))}
    commands = {}
    for task in tasks:
        for seed in range(args.seeds):
            for model in MODELS:
                name = f"{task}-{model}-s{seed}"
                db = args.work / f"{name}.db"
                curve = args.work / f"{name}.csv"
                cmd = command(task, model, seed, args, db, curve)
                commands[(task, model)] = cmd
                if not args.reuse:
                    shutil.rmtree(db, ignore_errors=True)
                    s = time.monotonic()
                    with open(args.work / f"{name}.log", "w") as log:
                        rc = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT).returncode
                    walls[name] = time.monotonic() - s
                    note(name, f"{walls[name]:.1f}")
                    print(f"{name}: {walls[name]:.0f} s, rc {rc}, load {load_note()}", flush=True)
                    if rc != 0:
                        sys.exit(f"{name} failed (rc {rc}); see {args.work / (name + '.log')}")
                results[task][model][seed], measured[task][model][seed] = read_curve(
                    curve, args.trials)
    total = float(saved["total_s"]) if "total_s" in saved else time.monotonic() - t0
    load_end = saved.get("load_end") or load_note()
    if not args.reuse:
        note("total_s", f"{total:.1f}")
        note("load_end", load_end)

    lines = [f"# Tuning curve: XGBoost vs the random cost model — {started:%Y-%m-%d}", "",
             f"- Tessera {commit} (release build), {cpu_note()}",
             f"- Load average (1, 5, 15 min) at the start: {load_start}; at the end: {load_end}",
             f"- {args.trials} trials per run, {args.seeds} seeds, one thread, pinned to CPU "
             f"{args.cpu}; benchmark wall time {total / 60:.1f} min",
             "", "Commands (SEED, MODEL, DB, CSV vary):", "", "```"]
    for task in tasks:
        lines.append(" ".join(str(c) for c in commands[(task, "xgb")]))
    lines += ["```", ""]
    figure = {}
    for task in tasks:
        r = results[task]
        lines += [f"## {TITLES[task]}", "",
                  "| seed | xgb final best (us) | random final best (us) | xgb trials to random's "
                  "final (fraction) | random trials to xgb's final (fraction) | xgb at 1/3 (us) "
                  "| random at 1/3 (us) | wall xgb / random (s) |",
                  "|---|---|---|---|---|---|---|---|"]
        fractions = []
        third = args.trials // 3
        for seed in range(args.seeds):
            x, rnd = r["xgb"][seed], r["random"][seed]
            xn = trials_to_reach(x, rnd[-1]) if rnd[-1] is not None else None
            rn = trials_to_reach(rnd, x[-1]) if x[-1] is not None else None
            fractions.append(xn / args.trials if xn is not None else float("inf"))
            w = (f"{walls.get(f'{task}-xgb-s{seed}', 0):.0f} / "
                 f"{walls.get(f'{task}-random-s{seed}', 0):.0f}")
            lines.append(f"| {seed} | {fmt_us(x[-1])} | {fmt_us(rnd[-1])} | "
                         f"{fmt_reach(xn, args.trials)} | {fmt_reach(rn, args.trials)} | "
                         f"{fmt_us(x[third - 1])} | {fmt_us(rnd[third - 1])} | {w} |")
        med = statistics.median(fractions)
        figure[task] = med
        xm = median_curve(list(r["xgb"].values()))
        rm = median_curve(list(r["random"].values()))
        lines += ["", f"Median over seeds: xgb needs **{med:.2f}** of the budget to reach the "
                  f"random model's final best" + (" (not reached)" if med == float("inf") else "")
                  + f"; median final best: xgb {fmt_us(xm[-1])} us "
                  f"({FLOPS[task] / xm[-1] / 1e9:.1f} GFLOP/s), random {fmt_us(rm[-1])} us "
                  f"({FLOPS[task] / rm[-1] / 1e9:.1f} GFLOP/s).", ""]
        lines += ["Median best latency (us) after N trials:", "",
                  "| model | " + " | ".join(str(n) for n in checkpoints(args.trials)) + " |",
                  "|---|" + "---|" * len(checkpoints(args.trials))]
        for m, c in (("xgb", xm), ("random", rm)):
            lines.append(f"| {m} | " + " | ".join(fmt_us(c[n - 1]) for n in
                                                   checkpoints(args.trials)) + " |")
        lines += ["", f"Median latency (us) of the candidates measured in each round of "
                  f"{args.round} (median over the round, then over seeds; failed ones left out): "
                  "whether the model steers the search to faster programs.", "",
                  "| model | " + " | ".join(f"{a + 1}-{min(a + args.round, args.trials)}"
                                           for a in range(0, args.trials, args.round)) + " |",
                  "|---|" + "---|" * len(range(0, args.trials, args.round))]
        for m in MODELS:
            cells = []
            for a in range(0, args.trials, args.round):
                per_seed = []
                for seed in range(args.seeds):
                    vals = [v for v in measured[task][m][seed][a:a + args.round] if v is not None]
                    if vals:
                        per_seed.append(statistics.median(vals))
                cells.append(fmt_us(statistics.median(per_seed)) if per_seed else "N/A")
            lines.append(f"| {m} | " + " | ".join(cells) + " |")
        lines.append("")
    pathlib.Path(args.out).write_text("\n".join(lines) + "\n")
    svg_plot(results, tasks, args.trials, pathlib.Path(args.svg))
    print("\n".join(lines))
    print(f"figure of merit (median fraction of the budget): {figure}")


def checkpoints(trials):
    pts = [64, 128, 192, 256, 384, trials]
    return sorted({n for n in pts if n <= trials})


if __name__ == "__main__":
    main()
