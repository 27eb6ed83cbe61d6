#!/usr/bin/env python3
"""Read a kernel's parameter layout from a cubin (see app/capture/sassx_capture/cubin_params.py, the one
implementation; this module re-exports it for the samples/ scripts).  Usage: python3 cubin_params.py file.cubin [kernel]
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "app", "capture"))

from sassx_capture.cubin_params import (  # noqa: E402,F401
    DTYPE_SIZE, check_spec, kernel_params, kernels, spec_param_sizes)

if __name__ == "__main__":
    from sassx_capture.cubin_params import main
    sys.exit(main(sys.argv[1:]))
