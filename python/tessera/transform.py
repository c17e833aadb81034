"""tessera.transform: PassContext and Sequential (TVM's tvm.transform).

``with PassContext(opt_level=3, config={...}, disabled_pass=[...]):`` enters the C++
PassContext (ir/transform.h) for the block: every pass, relay.build and relay.quantize run in it.
"""
import json

from . import _core

Pass = _core.Pass


def _config_text(value):
    """A config value as `tessera compile --pass-config KEY=VALUE` text, which the C++ side checks
    against the key's kind."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    return json.dumps(value)


class PassContext(_core.PassContext):
    """The context passes run in: opt level, required and disabled passes, config."""

    def __init__(self, opt_level=2, required_pass=None, disabled_pass=None, instruments=None,
                 config=None):
        if instruments:
            raise NotImplementedError("pass instruments are not bound yet (use the CLI's "
                                      "--time-passes and --print-after)")
        config = {key: _config_text(value) for key, value in (config or {}).items()}
        super().__init__(opt_level, list(required_pass or []), list(disabled_pass or []), config)

    def __enter__(self):
        self._enter()
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        self._exit()

    @staticmethod
    def current():
        """The innermost context entered on this thread (the default one, opt level 2, when
        none is)."""
        return _core.PassContext.current()

    @staticmethod
    def list_configs():
        """The config keys a PassContext accepts."""
        return _core.list_configs()


def Sequential(passes=None, opt_level=0, name="sequential", required=None):
    """Runs passes in order, each only if the context's opt level and disabled list allow it."""
    if required:
        raise NotImplementedError("Sequential(required=...) is not bound; list the passes")
    return _core.sequential(list(passes or []), opt_level, name)
