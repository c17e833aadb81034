"""tessera.meta_schedule (pytest): seed 002's tune_tir over a ScheduleFn space (the stochastic
matmul schedule) and over the default space, the database on disk and reopened, compile_tir's
schedule built and checked against NumPy; bad input raising DiagnosticError, a failing space
function's exception reaching the caller."""
import re

import numpy as np
import pytest

import tessera
from tessera import meta_schedule as ms
from tessera import te

TARGET = "llvm --num-cores=1"


def matmul_module():
    A = te.placeholder((128, 128), name="A")
    B = te.placeholder((128, 128), name="B")
    k = te.reduce_axis((0, 128), name="k")
    C = te.compute((128, 128), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    return tessera.IRModule.from_expr(te.create_prim_func([A, B, C]))


def stochastic_schedule_mm(sch):
    block_C = sch.get_block("C", "main")
    i, j, k = sch.get_loops(block=block_C)
    j_factors = sch.sample_perfect_tile(loop=j, n=2)
    j_0, j_1 = sch.split(loop=j, factors=j_factors)
    sch.reorder(i, j_0, k, j_1)
    sch.decompose_reduction(block_C, k)
    return sch


def check_matmul(sch):
    lib = tessera.build(sch.mod, target="llvm")
    rng = np.random.default_rng(0)
    a, b = (rng.uniform(size=(128, 128)).astype("float32") for _ in range(2))
    c = tessera.nd.empty((128, 128), "float32")
    lib["main"](tessera.nd.array(a), tessera.nd.array(b), c)
    np.testing.assert_allclose(c.numpy(), a @ b, rtol=1e-4, atol=1e-4)


def test_tune_tir_schedule_fn(tmp_path, capsys):
    mod = matmul_module()
    database = ms.tune_tir(mod=mod, target=TARGET, max_trials_global=16, num_trials_per_iter=16,
                           space=ms.space_generator.ScheduleFn(stochastic_schedule_mm),
                           work_dir=str(tmp_path / "tune_tmp"), task_name="main",
                           cost_model="random", seed=1)
    log = capsys.readouterr().out
    # The space has five programs (128 = a * b with b <= 16): all measured, then it is exhausted.
    assert database.num_workloads() == 1
    assert 1 <= database.num_records() <= 5
    assert 'TaskScheduler picks Task #0: "main"' in log
    assert re.search(r"\[Task #0: main\] Trial #0: GFLOPs: [0-9.]+\. Time: [0-9.]+ us\.", log)
    assert " ID | Name |    FLOP | Weight | Speed (GFLOPS) | Latency (us) |" in log
    assert re.search(r"  0 \| main \| 4194304 \|      1 \|.*\|    Y $", log, re.M)
    assert "Task #0 has finished. Remaining task(s): 0" in log
    assert f"Total trials: {database.num_records()}" in log
    assert (tmp_path / "tune_tmp" / "logs" / "tune_tir.log").read_text() == log
    # Reopened from disk, the same records; compile_tir replays the best.
    reopened = ms.Database(str(tmp_path / "tune_tmp"))
    assert reopened.num_records() == database.num_records()
    sch = ms.tir_integration.compile_tir(reopened, mod, TARGET)
    text = sch.mod.script()
    assert "j_0" in text and "j_1" in text and "C_init" in text
    check_matmul(sch)


def test_tune_tir_default_space(capsys):
    mod = matmul_module()
    database = ms.tune_tir(mod=mod, target=TARGET, max_trials_global=4, num_trials_per_iter=4,
                           cost_model="random", strategy="replay-trace", verbose=False)
    assert database.num_records() >= 1
    check_matmul(ms.tir_integration.compile_tir(database, mod, TARGET))
    # TVM's default space generator by name: the rule-made spaces beside the default one, ranked
    # by the analytic model.
    capsys.readouterr()
    rules = ms.tune_tir(mod=mod, target=TARGET, max_trials_global=6, num_trials_per_iter=6,
                        space="post-order-apply", cost_model="analytic", database=ms.Database())
    assert "[post-order-apply #0: " in capsys.readouterr().out
    check_matmul(ms.tir_integration.compile_tir(rules, mod, TARGET))
    check_matmul(ms.tir_integration.compile_tir(database, mod, TARGET))
    # A database with nothing for this workload: None, as TVM's compile_tir gives.
    assert ms.tir_integration.compile_tir(ms.Database(), mod, TARGET) is None


def test_bad_input():
    mod = matmul_module()
    with pytest.raises(tessera.DiagnosticError) as raised:
        ms.tune_tir(mod=mod, target="llvm", max_trials_global=4, verbose=False)
    assert raised.value.code == "tune" and "num-cores" in str(raised.value)
    with pytest.raises(tessera.DiagnosticError, match="must be positive"):
        ms.tune_tir(mod=mod, target=TARGET, max_trials_global=0, verbose=False)
    with pytest.raises(tessera.DiagnosticError, match="cost_model must be 'xgb', 'analytic' or 'random'"):
        ms.tune_tir(mod=mod, target=TARGET, max_trials_global=4, cost_model="gbm",
                    verbose=False)
    with pytest.raises(tessera.DiagnosticError, match="expected a PrimFunc"):
        ms.tune_tir(mod=42, target=TARGET, max_trials_global=4, verbose=False)
    with pytest.raises(TypeError, match="unsupported arguments builder"):
        ms.tune_tir(mod=mod, target=TARGET, max_trials_global=4, builder="local")

    def failing(sch):
        raise KeyError("from the space function")

    with pytest.raises(KeyError, match="from the space function"):
        ms.tune_tir(mod=mod, target=TARGET, max_trials_global=4, verbose=False,
                    space=ms.space_generator.ScheduleFn(failing))
