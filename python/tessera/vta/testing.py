"""vta.testing: ``from tessera.vta.testing import simulator``, as seed 004 imports it."""
from . import simulator  # pylint: disable=unused-import
