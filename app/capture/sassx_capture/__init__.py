"""sassx_capture: capture the Triton kernels a Python program launches as sassx launch specs.

    python -m sassx_capture -o DIR -- python train.py ARGS      # DIR/capture.json, specs, cubins
    python -m sassx_capture time --runs 5 -- python train.py    # the program's time over fresh runs

Importing the package needs neither torch nor triton (docs/capture.md); only the captured program does.
"""
__version__ = "0.1.0"

from .capture_json import build_capture, read_records, write_capture  # noqa: F401
from .specs import spec_from_record  # noqa: F401

__all__ = ["build_capture", "read_records", "write_capture", "spec_from_record"]
