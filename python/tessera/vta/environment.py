"""vta.get_env(): the VTA hardware configuration (vta_config.json) with TVM's Environment fields."""
from .. import _core
from .._te_replay import TENSORIZE_INIT


class Environment:
    """TVM's ``vta.Environment``: BATCH, BLOCK_IN, BLOCK_OUT, the widths, dtypes, SRAM scopes,
    the pragma names and the GEMM tensor intrinsic's name (``env.gemm``), read from a C++
    ``vta::Config``. Fields not listed here (LOG_*, *_ELEM_BYTES, TARGET, ...) come from it too."""

    inp_scope = "local.inp_buffer"
    wgt_scope = "local.wgt_buffer"
    acc_scope = "local.acc_buffer"
    dma_copy = "dma_copy"
    alu = "alu"

    def __init__(self, config):
        self.config = config
        self._gemm = None

    def __getattr__(self, name):
        if name.startswith("_") or name == "config":  # copy/pickle before __init__ ran
            raise AttributeError(name)
        return getattr(self.config, name)

    @property
    def target(self):
        """The config's TARGET (sim by default)."""
        return self.config.TARGET

    @property
    def target_host(self):
        """The host's target (the CPU)."""
        return "llvm"

    @property
    def gemm(self):
        """The GEMM tensor intrinsic's name ("vta.gemm" for 1x16x16), registered on first use."""
        if self._gemm is None:
            self._gemm = _core.vta_gemm_intrin_names(self.config)
            # A TE schedule's tensorize(axis, env.gemm) also resets the accumulator with the
            # reset intrinsic on the decomposed init: its nest keeps the row loop only when
            # BATCH > 1 (as vta::scheduleConv2dPacked does).
            tile_loops = 2 if self.config.BATCH > 1 else 1
            reset = self._gemm[1]
            TENSORIZE_INIT[self._gemm[0]] = lambda sch, init: sch.tensorize(
                sch.get_loops(init)[-tile_loops], reset)
        return self._gemm[0]

    @property
    def gemm_reset(self):
        """The accumulator-reset tensor intrinsic's name."""
        self.gemm  # pylint: disable=pointless-statement
        return self._gemm[1]

    def __repr__(self):
        return f"vta.Environment({self.config.model})"


_ENV = None


def get_env(config_path=None):
    """The default configuration's Environment, or the one of the vta_config.json at
    ``config_path`` (validated; DiagnosticError code ``vta_config`` when it is not)."""
    global _ENV  # pylint: disable=global-statement
    if config_path is not None:
        return Environment(_core.vta_load_config(str(config_path)))
    if _ENV is None:
        _ENV = Environment(_core.vta_default_config())
    return _ENV


def _config_of(env):
    if env is None:
        return get_env().config
    if isinstance(env, Environment):
        return env.config
    return env
