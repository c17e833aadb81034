#!/usr/bin/python3
"""Peer benchmark: Tessera against PyTorch eager, TorchScript and ONNX Runtime on real models.

For each model of tests/models/make_models.py (batch 1) and each thread count, the engines run
interleaved: after a warm-up, the runs are taken in blocks of BLOCK runs, round-robin across the
engines (the engine that starts a block rotates), so a slow drift of the machine (another process,
frequency) affects every engine alike. A short pause after each block lets the idle threads of the
engine just run (ONNX Runtime's and OpenMP's spin-wait) park before the next engine starts. Each
engine reports the wall time of single inferences:
  * tessera: `tessera run DIR --input ... --bench 3` in a fresh process per block (its
    time_evaluator does one untimed warm-up call first); with 3 runs the printed min, median and
    max are exactly the three samples. TESSERA_NUM_THREADS sets the threads.
  * eager, torchscript: torch_worker.py (nn.Module under no_grad; trace + freeze), one process
    per model, torch.set_num_threads; PyTorch's BLAS is OpenBLAS (pthread) via LD_LIBRARY_PATH.
  * ort: ort_worker.js, onnxruntime-node on the same .onnx file, intraOpNumThreads.
  * tessera_int8 (with --engines): `tessera quantize` (KL-divergence calibration on the reference
    input and 3 seeded random ones, every conv2d quantized), compiled and run as tessera is.
  * tessera_int8_pc (with --engines): the same with Tessera's precision options beyond
    relay.quantize: per-channel weight scales, uint8 for values after relu, rounded average
    pooling (`--weight-scale per_channel_max --unsigned-inputs true --rounding TONEAREST`).
  * tessera_tuned (with --engines and --tune-db DIR): `tessera compile --db DIR/MODEL` (the
    tuning database of `tessera tune`, bench/tune_models.sh), compiled with TESSERA_NUM_THREADS
    set to the one thread count of the run (records are matched by it), run as tessera is.
  * torch_int8 (with --engines): torch_worker.py int8, PyTorch's post-training static
    quantization on its oneDNN engine (torchvision's quantizable CNNs).
Every engine's output is first checked against PyTorch's reference (max abs diff in the report).
Tessera's compile time is the wall time of one `tessera compile` per model.

Writes bench/results/YYYY-MM-DD-peers.md (min / median / p90 per engine, Tessera's ratio to each
peer, compile times, the machine and the command). See bench/peers/README.md.
Usage: /usr/bin/python3 bench/peers/run_peers.py [--models a,b] [--threads 1,2] [--runs 30] ...
"""
import argparse
import datetime
import glob
import json
import os
import pathlib
import platform
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]
PEERS = ROOT / "bench" / "peers"
MAKE_MODELS = ROOT / "tests" / "models" / "make_models.py"
PYTHON = "/usr/bin/python3"  # Debian's, with torch
ENGINES = ["tessera", "tessera_tuned", "eager", "torchscript", "ort", "tessera_int8",
           "tessera_int8_pc",
           "torch_int8"]
DEFAULT_ENGINES = ["tessera", "eager", "torchscript", "ort"]
TITLES = {"tessera": "Tessera", "eager": "PyTorch eager", "torchscript": "TorchScript",
          "ort": "ONNX Runtime", "tessera_tuned": "Tessera tuned", "tessera_int8": "Tessera int8",
          "tessera_int8_pc": "Tessera int8 (per-channel, uint8)", "torch_int8": "PyTorch int8"}
# engines run through the tessera CLI
TESSERAS = ["tessera", "tessera_tuned", "tessera_int8", "tessera_int8_pc"]
INT8_SAMPLES = 4  # calibration inputs of `tessera quantize` (as many as PyTorch's int8 gets)
TESSERA_BLOCK = 3  # runs per `tessera run --bench` call: min, median, max are then every sample


class Worker:
    """A peer engine in a child process speaking one JSON request/reply per line."""

    def __init__(self, argv, env=None):
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, env=env)

    def ask(self, **request):
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"{self.proc.args[:3]} exited with {self.proc.wait()}")
        reply = json.loads(line)
        if "error" in reply:
            raise RuntimeError(f"{self.proc.args[:3]}: {reply['error']}")
        return reply

    def setThreads(self, n):
        self.ask(cmd="threads", n=n)

    def run(self, k):
        return self.ask(cmd="run", k=k)["ms"]

    def check(self):
        return self.ask(cmd="check")["max_abs_diff"]

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


class Tessera:
    """Tessera through its CLI: one `tessera run DIR --bench 3` process per block of runs."""

    UNITS = {"s": 1e3, "ms": 1.0, "us": 1e-3}

    def __init__(self, binary, compiled, inputName, inputFile, refFile):
        self.base = [binary, "run", str(compiled), "--input", f"{inputName}={inputFile}"]
        self.refFile = refFile
        self.threads = 1

    def setThreads(self, n):
        self.threads = n

    def call(self, extra):
        env = dict(os.environ, TESSERA_NUM_THREADS=str(self.threads))
        proc = subprocess.run(self.base + extra, env=env, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"tessera run failed ({proc.returncode}): {proc.stderr.strip()}")
        return proc.stdout

    def run(self, k):
        samples = []
        while len(samples) < k:
            out = self.call(["--bench", str(TESSERA_BLOCK)])
            stats = dict(re.findall(r"(min|median|max) ([0-9.]+ (?:s|ms|us))", out))
            ms = {key: float(v.split()[0]) * self.UNITS[v.split()[1]] for key, v in stats.items()}
            samples += [ms["min"], ms["median"], ms["max"]]
        return samples[:k]

    def check(self):
        with tempfile.TemporaryDirectory() as tmp:
            self.call(["--output", f"{tmp}/out.npy"])
            out = np.load(f"{tmp}/out.npy")
        return float(np.abs(out - np.load(self.refFile)).max())

    def close(self):
        pass


class CpuMeter:
    """CPU time used by other processes than the benchmark: the machine-wide busy time of
    /proc/stat less this process's, its waited-for children's (os.times) and that of the live
    worker processes `pids` (/proc/PID/stat)."""

    def __init__(self, pids=()):
        self.pids = list(pids)
        self.start = self.sample()

    def sample(self):
        tick = os.sysconf("SC_CLK_TCK")
        fields = [int(v) for v in pathlib.Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
        busy = (sum(fields[:3]) + fields[5] + fields[6]) / tick
        t = os.times()
        own = t.user + t.system + t.children_user + t.children_system
        for pid in self.pids:
            # utime and stime are fields 14 and 15; the command name (field 2) may hold spaces.
            try:
                stat = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except FileNotFoundError:  # a worker that failed was waited for: os.times has it
                continue
            own += (int(stat[11]) + int(stat[12])) / tick
        return time.monotonic(), busy, own

    def otherCores(self):
        """Average number of cores other processes kept busy since construction."""
        wall0, busy0, own0 = self.start
        wall, busy, own = self.sample()
        return max(0.0, (busy - busy0) - (own - own0)) / max(wall - wall0, 1e-3)


def waitIdle(limit, pids, log):
    """Waits up to `limit` seconds for a 3-second window in which other processes use less than
    0.2 cores; says so once when it has to wait."""
    deadline = time.monotonic() + limit
    waited = False
    while limit > 0:
        meter = CpuMeter(pids)
        time.sleep(3)
        cores = meter.otherCores()
        if cores < 0.2:
            if waited:
                log("machine idle again")
            return
        if time.monotonic() > deadline:
            log(f"machine still busy ({cores:.2f} cores used by other processes); going on")
            return
        if not waited:
            log(f"waiting up to {limit:g} s for an idle machine ({cores:.2f} cores used by other "
                "processes)")
            waited = True


def openblasDir():
    hits = sorted(glob.glob("/usr/lib/*/openblas-pthread/libblas.so.3"))
    return str(pathlib.Path(hits[0]).parent) if hits else None


def compileModel(binary, onnx, outDir, flags=(), env=None):
    start = time.perf_counter()
    proc = subprocess.run([binary, "compile", str(onnx), "-o", str(outDir), *flags],
                          capture_output=True, text=True, env=env)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"tessera compile {onnx.name} failed: {proc.stderr.strip()}")
    kernels = re.search(r"^(\d+) kernels", proc.stdout, re.M)
    return seconds, int(kernels.group(1)) if kernels else None


def quantizeModel(binary, onnx, inputName, inputFile, outDir, flags=()):
    """`tessera quantize` (KL divergence on INT8_SAMPLES inputs: the reference input and seeded
    random ones) then `tessera compile`; returns the seconds both took and the kernel count."""
    x = np.load(inputFile)
    rng = np.random.default_rng(20261126)
    data = np.concatenate([x] + [rng.standard_normal(x.shape, dtype=np.float32)
                                 for _ in range(INT8_SAMPLES - 1)])
    outDir.mkdir(parents=True, exist_ok=True)
    dataset, relay = outDir / "calibration.npz", outDir / "quantized.relay"
    np.savez(dataset, **{inputName: data})
    start = time.perf_counter()
    proc = subprocess.run([binary, "quantize", str(onnx), "--calibrate-mode", "kl_divergence",
                           "--dataset", str(dataset), "--skip-conv-layers", "none", *flags,
                           "-o", str(relay)], capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"tessera quantize {onnx.name} failed: {proc.stderr.strip()}")
    seconds = time.perf_counter() - start
    compileSeconds, kernels = compileModel(binary, relay, outDir / "compiled")
    return seconds + compileSeconds, kernels


def stats(ms):
    a = np.asarray(ms)
    return {"min": float(a.min()), "median": float(np.median(a)),
            "p90": float(np.percentile(a, 90)), "n": len(ms)}


def timeSegment(workers, engines, threads, args, failed, log):
    """The timed runs of every engine at one thread count, round-robin; {engine: [ms]}. An
    engine whose worker fails (PyTorch's quantized MobileNetV2 aborts at 2 threads when oneDNN
    has no AMX) is recorded in `failed` with the reason and left out of the rest of the model's
    runs; the others go on."""
    def attempt(engine, call):
        try:
            return call()
        except RuntimeError as e:
            failed[engine] = f"{threads} thread(s): {e}"
            log(f"{engine} failed at {threads} thread(s), left out from here: {e}")
            return None

    samples = {e: [] for e in engines}
    for engine in engines:
        if engine not in failed:
            attempt(engine, lambda: workers[engine].setThreads(threads))
        if engine not in failed and engine not in TESSERAS:  # a tessera call warms up itself
            attempt(engine, lambda: workers[engine].run(args.warmup))
    blocks = -(-args.runs // args.block)
    for b in range(blocks):
        order = engines[b % len(engines):] + engines[:b % len(engines)]
        for engine in order:
            if engine in failed:
                continue
            ms = attempt(engine, lambda: workers[engine].run(args.block))
            if ms is not None:
                samples[engine] += ms
            # Idle worker threads of the engine just run may spin for a while (ONNX Runtime's,
            # OpenMP's); let them park before the next engine starts.
            time.sleep(args.settle / 1e3)
    return samples


def benchModel(name, inputName, args, engines, compiled, torchEnv, log):
    """Returns {threads: {engine: stats}}, {engine: max abs diff} and {threads: the average
    number of cores other processes used during the kept attempt} for one model. A thread
    count's runs are taken again (up to --retries times) when other processes used more than
    0.25 cores meanwhile."""
    cache = args.cache
    workers = {}
    for engine in engines:
        if engine in TESSERAS:
            workers[engine] = Tessera(args.tessera, compiled[engine], inputName,
                                      cache / f"{name}.input.npy", cache / f"{name}.ref.npy")
        elif engine == "ort":
            workers[engine] = Worker(["node", str(PEERS / "ort_worker.js"), name, inputName,
                                      str(cache)])
        else:
            mode = "int8" if engine == "torch_int8" else engine
            workers[engine] = Worker([PYTHON, str(PEERS / "torch_worker.py"), mode, name,
                                      str(cache)], env=torchEnv)
    pids = [w.proc.pid for w in workers.values() if isinstance(w, Worker)]
    results, diffs, other, failed = {}, {}, {}, {}
    try:
        for engine in engines:
            workers[engine].setThreads(args.threads[0])
            diffs[engine] = workers[engine].check()
        for threads in args.threads:
            for attempt in range(args.retries + 1):
                waitIdle(args.wait_idle, pids, log)
                meter = CpuMeter(pids)
                samples = timeSegment(workers, engines, threads, args, failed, log)
                other[threads] = meter.otherCores()
                if other[threads] <= 0.25 or attempt == args.retries:
                    break
                log(f"{name}, {threads} thread(s): other processes used {other[threads]:.2f} "
                    "cores meanwhile; taking the runs again")
            results[threads] = {e: stats(samples[e]) if samples[e] and e not in failed else None
                                for e in engines}
            log(f"{name}, {threads} thread(s): " + ", ".join(
                f"{e} {results[threads][e]['median']:.2f} ms" if results[threads][e] else
                f"{e} failed" for e in engines) +
                f"; other processes {other[threads]:.2f} cores")
    finally:
        for engine, w in workers.items():
            try:
                w.close()
            except (BrokenPipeError, OSError):  # its process already exited
                pass
    return results, diffs, other, failed


def machine():
    cpu = "unknown CPU"
    for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    memKb = int(re.search(r"MemTotal:\s+(\d+)", pathlib.Path("/proc/meminfo").read_text())[1])
    return f"{cpu}, {os.cpu_count()} logical CPUs, {memKb / 2**20:.0f} GiB RAM, " \
           f"Linux {platform.release()}"


def tesseraVersion():
    def git(*a):
        return subprocess.run(["git", "-C", str(ROOT), *a], capture_output=True,
                              text=True).stdout.strip()
    dirty = git("status", "--porcelain", "--untracked-files=no")
    return git("rev-parse", "--short", "HEAD") + (" + uncommitted changes" if dirty else "")


def fmt(ms):
    return f"{ms:.1f}" if ms >= 10 else f"{ms:.2f}"


def report(args, engines, models, compileInfo, results, diffs, loads, failed, info, command,
           version):
    today = datetime.date.today().isoformat()
    lines = [f"# Peer benchmark: Tessera vs PyTorch, TorchScript, ONNX Runtime — {today}", "",
             f"Machine: {machine()}. The machine may be shared: the last table gives the CPU "
             "other processes used during each thread count's runs (which were taken again, up "
             f"to {args.retries} times, when that exceeded 0.25 cores).", "",
             f"Software: Tessera {version} (release build); {info}.", "",
             "Command:", "", "```", command, "```", "",
             f"Method: batch 1, float32, random weights (`tests/models/make_models.py`). Per model "
             f"and thread count, each engine is checked against PyTorch's reference output, warmed "
             f"up ({args.warmup} runs; a Tessera process warms up itself), then timed over "
             f"{args.runs} single inferences taken in blocks of {args.block}, round-robin across "
             f"the engines, with a {args.settle:g} ms pause after each block (idle threads of one "
             f"engine that spin would otherwise slow the next one's 2-thread runs several times "
             f"over). Times are wall milliseconds per inference: min / median / p90 "
             f"(numpy's linear-interpolated 90th percentile). Tessera: `tessera run DIR --bench "
             f"{TESSERA_BLOCK}` per block with TESSERA_NUM_THREADS; PyTorch and TorchScript: "
             f"torch.set_num_threads; ONNX Runtime: intraOpNumThreads (1 inter-op thread).", ""]
    for t in (t for t in TESSERAS if t in engines):
        what = {"tessera": "`tessera compile`", "tessera_tuned": "`tessera compile --db`"}.get(
            t, "`tessera quantize` + `tessera compile`")
        lines += [f"## {TITLES[t]} compile time", "", f"| model | {what} (s) | kernels |",
                  "|---|---:|---:|"]
        lines += [f"| {m} | {compileInfo[m][t][0]:.2f} | {compileInfo[m][t][1]} |"
                  for m in models]
        lines += [""]
    for threads in args.threads:
        lines += [f"## {threads} thread{'s' if threads > 1 else ''}: latency (ms, min / median / "
                  f"p90)", "", "| model | " + " | ".join(TITLES[e] for e in engines) + " |",
                  "|---|" + "---:|" * len(engines)]
        for m in models:
            r = results[m][threads]
            lines.append(f"| {m} | " + " | ".join(
                f"{fmt(r[e]['min'])} / {fmt(r[e]['median'])} / {fmt(r[e]['p90'])}" if r[e]
                else "failed" for e in engines) + " |")
        for t in (t for t in TESSERAS if t in engines):
            peers = [e for e in engines if e != t]
            if not peers:
                continue
            lines += ["", f"{TITLES[t]}'s median time divided by the other's (above 1: "
                      f"{TITLES[t]} is slower), {threads} thread{'s' if threads > 1 else ''}:",
                      "", "| model | " + " | ".join(f"{TITLES[t]} / {TITLES[e]}" for e in peers) +
                      " |", "|---|" + "---:|" * len(peers)]
            for m in models:
                r = results[m][threads]
                lines.append(f"| {m} | " + " | ".join(
                    f"{r[t]['median'] / r[e]['median']:.2f}" if r[t] and r[e] else "—"
                    for e in peers) + " |")
        lines += [""]
    lines += ["## Output check and other load", "",
              "Max abs diff of each engine's output from PyTorch's reference (`NAME.ref.npy`, "
              "eager PyTorch with one thread), and the average number of cores that other "
              "processes kept busy during each thread count's timed runs (/proc/stat less the "
              "benchmark's own CPU time; 2 threads on a 2-core machine suffer from any).", "",
              "| model | " + " | ".join(TITLES[e] for e in engines) + " | other load (cores) |",
              "|---|" + "---:|" * (len(engines) + 1)]
    for m in models:
        load = ", ".join(f"{t}t: {loads[m][t]:.2f}" for t in args.threads)
        lines.append(f"| {m} | " + " | ".join(
            "shape differs" if diffs[m][e] is None else f"{diffs[m][e]:.2g}" for e in engines) +
            f" | {load} |")
    failures = [(m, e, why) for m in models for e, why in failed[m].items()]
    if failures:
        lines += ["", "Engines that failed (left out of the model's later runs):", ""]
        lines += [f"* {m}, {TITLES[e]}: {why}" for m, e, why in failures]
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    listing = subprocess.run([PYTHON, str(MAKE_MODELS), "--list"], capture_output=True,
                             text=True, check=True).stdout.split("\n")
    known = dict(line.split() for line in listing if line.strip())
    parser.add_argument("--models", default=",".join(known),
                        help=f"comma-separated subset of {','.join(known)} (default: all)")
    parser.add_argument("--engines", default=",".join(DEFAULT_ENGINES),
                        help=f"comma-separated subset of {','.join(ENGINES)} (default: "
                        f"{','.join(DEFAULT_ENGINES)})")
    parser.add_argument("--threads", default="1,2", help="thread counts (default 1,2)")
    parser.add_argument("--runs", type=int, default=30, help="timed runs per engine (default 30)")
    parser.add_argument("--warmup", type=int, default=5, help="warm-up runs (default 5)")
    parser.add_argument("--block", type=int, default=TESSERA_BLOCK,
                        help=f"runs per round-robin block (default {TESSERA_BLOCK})")
    parser.add_argument("--tessera", default=str(ROOT / "build/release/tools/tessera/tessera"))
    parser.add_argument("--cache", default=os.environ.get(
        "TESSERA_MODEL_CACHE", str(pathlib.Path.home() / ".cache" / "tessera-models")))
    parser.add_argument("--settle", type=float, default=50, metavar="MS",
                        help="pause after each block, so that spinning threads park (default 50)")
    parser.add_argument("--wait-idle", type=float, default=300, metavar="SECONDS",
                        help="before each model, wait up to this long for other processes to "
                        "use less than 0.2 cores (default 300; 0: don't wait)")
    parser.add_argument("--retries", type=int, default=2,
                        help="take a thread count's runs again, up to this many times, when other "
                        "processes used more than 0.25 cores meanwhile (default 2)")
    parser.add_argument("--onednn-isa", metavar="ISA",
                        help="limit PyTorch's oneDNN to this instruction set "
                        "(ONEDNN_MAX_CPU_ISA, e.g. AVX512_CORE_VNNI: no AMX)")
    parser.add_argument("--tune-db", metavar="DIR",
                        help="tuning databases DIR/MODEL for the tessera_tuned engine")
    parser.add_argument("--out", help="report file (default bench/results/YYYY-MM-DD-peers.md)")
    args = parser.parse_args()
    models = args.models.split(",")
    engines = args.engines.split(",")
    args.threads = [int(t) for t in args.threads.split(",")]
    args.cache = pathlib.Path(args.cache)
    for m in models:
        if m not in known:
            parser.error(f"unknown model {m!r}; known: {', '.join(known)}")
    for e in engines:
        if e not in ENGINES:
            parser.error(f"unknown engine {e!r}; known: {', '.join(ENGINES)}")
    if "tessera_tuned" in engines and (not args.tune_db or len(args.threads) != 1):
        parser.error("tessera_tuned needs --tune-db DIR and one --threads count (the tuning "
                     "records are made for one thread count)")
    command = shlex.join([PYTHON, os.path.relpath(__file__, ROOT)] + sys.argv[1:])
    out = pathlib.Path(args.out) if args.out else \
        ROOT / "bench" / "results" / f"{datetime.date.today().isoformat()}-peers.md"

    def log(text):
        print(f"run_peers: {text}", file=sys.stderr, flush=True)

    subprocess.run([PYTHON, str(MAKE_MODELS), "--out", str(args.cache)] + models, check=True)
    blas = openblasDir()
    torchEnv = dict(os.environ)
    if args.onednn_isa:
        torchEnv["ONEDNN_MAX_CPU_ISA"] = args.onednn_isa
    if blas:
        torchEnv["LD_LIBRARY_PATH"] = blas + (":" + os.environ["LD_LIBRARY_PATH"]
                                              if os.environ.get("LD_LIBRARY_PATH") else "")
    probe = Worker([PYTHON, str(PEERS / "torch_worker.py"), "eager", models[0], str(args.cache)],
                   env=torchEnv)
    torchInfo = probe.ask(cmd="info")
    probe.close()
    ortInfo = Worker(["node", str(PEERS / "ort_worker.js"), models[0], known[models[0]],
                      str(args.cache)])
    ortVersions = ortInfo.ask(cmd="info")
    ortInfo.close()
    blasText = ", ".join(torchInfo["blas"]) or "no BLAS library mapped"
    isa = f", oneDNN limited to {args.onednn_isa}" if args.onednn_isa else ""
    info = (f"PyTorch {torchInfo['torch']} (Debian{isa}), BLAS: {blasText} "
            f"(LD_LIBRARY_PATH={blas}); ONNX Runtime {ortVersions['onnxruntime']} "
            f"(onnxruntime-node, CPU) on Node {ortVersions['node']}")
    log(info)

    compileInfo, results, diffs, loads, failed = {}, {}, {}, {}, {}
    with tempfile.TemporaryDirectory(prefix="tessera-peers-") as tmp:
        # A snapshot of the binary, so that a rebuild during the run cannot change or remove it.
        version = tesseraVersion()  # of the checkout when the binary is copied
        if any(t in engines for t in TESSERAS):
            args.tessera = shutil.copy2(args.tessera, pathlib.Path(tmp) / "tessera")
        for m in models:
            compiled = {t: pathlib.Path(tmp) / m / t for t in TESSERAS}
            compileInfo[m] = {}
            waitIdle(args.wait_idle, [], log)
            onnx = args.cache / f"{m}.onnx"
            if "tessera" in engines:
                compileInfo[m]["tessera"] = compileModel(args.tessera, onnx, compiled["tessera"])
                log(f"{m}: tessera compile {compileInfo[m]['tessera'][0]:.2f} s")
            if "tessera_tuned" in engines:
                env = dict(os.environ, TESSERA_NUM_THREADS=str(args.threads[0]))
                compileInfo[m]["tessera_tuned"] = compileModel(
                    args.tessera, onnx, compiled["tessera_tuned"],
                    ("--db", str(pathlib.Path(args.tune_db) / m)), env)
                log(f"{m}: tessera compile --db {compileInfo[m]['tessera_tuned'][0]:.2f} s")
            precise = ("--weight-scale", "per_channel_max", "--unsigned-inputs", "true",
                       "--rounding", "TONEAREST")
            for t, flags in (("tessera_int8", ()), ("tessera_int8_pc", precise)):
                if t not in engines:
                    continue
                compileInfo[m][t] = quantizeModel(args.tessera, onnx, known[m],
                                                  args.cache / f"{m}.input.npy", compiled[t], flags)
                compiled[t] = compiled[t] / "compiled"
                log(f"{m}: {t} quantize + compile {compileInfo[m][t][0]:.2f} s")
            results[m], diffs[m], loads[m], failed[m] = benchModel(
                m, known[m], args, engines, compiled, torchEnv, log)
    text = report(args, engines, models, compileInfo, results, diffs, loads, failed, info,
                  command, version)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    print(text)
    log(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
