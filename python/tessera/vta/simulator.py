"""vta.simulator: the simulated device programs run on, and its seven counters (TVM's
``vta.testing.simulator.stats()``)."""
from .. import _core
from .environment import _config_of

_QUEUE = None


def queue(env=None):
    """The process's command queue for the default configuration (created on first use), or a
    fresh one for ``env``'s configuration."""
    global _QUEUE  # pylint: disable=global-statement
    if env is not None:
        return _core.VtaCommandQueue(_config_of(env))
    if _QUEUE is None:
        _QUEUE = _core.VtaCommandQueue(_config_of(None))
    return _QUEUE


def stats():
    """{inp_load_nbytes, wgt_load_nbytes, acc_load_nbytes, uop_load_nbytes, out_store_nbytes,
    gemm_counter, alu_counter} of the default queue since the last clear_stats()."""
    return queue().stats()


def clear_stats():
    """Resets the default queue's counters."""
    queue().clear_stats()


def debug_mode(flag):  # pylint: disable=unused-argument
    """Accepted for TVM scripts; the simulator has no debug modes from Python."""
