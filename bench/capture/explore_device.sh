#!/bin/bash
# One exploratory device run: versions, where Inductor launches from, and the capture of each program
# under the capture tool given as $1 (a directory holding sassx_capture).
set -u
CAP=${1:-app/capture}
export PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
python3 -c 'import torch, triton, sys; print(sys.version); print("torch", torch.__version__, "triton", triton.__version__, torch.cuda.get_device_name())'
python3 - <<'PY'
import inspect, re
import torch._inductor.runtime.triton_heuristics as th
src = inspect.getsource(th)
for pat in ("launch_enter_hook", "launch_metadata", "StaticallyLaunched", "use_static_cuda_launcher"):
    for m in re.finditer(pat, src):
        line = src.count("\n", 0, m.start()) + 1
        print(f"triton_heuristics.py:{line}: {src.splitlines()[line-1].strip()[:150]}")
try:
    import torch._inductor.runtime.static_cuda_launcher as sl
    s = inspect.getsource(sl)
    print("static_cuda_launcher mentions hooks:", "launch_enter_hook" in s)
except Exception as e:
    print("no static launcher module", e)
import torch.utils._triton as ut
print(inspect.getsource(ut.has_triton_package))
PY
for p in flex_attention inductor_model triton_jit triton_autotune; do
  echo "##### $p"
  PYTHONPATH=$CAP timeout 240 python3 -m sassx_capture -o /tmp/cap_$p -- python3 bench/capture/diag_wrap.py bench/capture/programs/$p.py 2>&1 | grep -v "^  *[0-9.]*%" | tail -40
  ls /tmp/cap_$p/raw 2>/dev/null | head; 
done
