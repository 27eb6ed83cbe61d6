"""Kernels captured at the driver (libsassx_hook.so), without a GPU: what two processes' hooks wrote
(listings, a launch spec with recorded values, cubins) merged into capture.json with every kernel's
origin, share and skip reason; Triton kernels left to their Triton records; the hook's environment; and
`run --print-env`."""
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import unittest
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(ROOT, "app", "capture"))

from sassx_capture import capture_json, driver, kernel_times  # noqa: E402
from test_capture import load_cubin, load_record, process  # noqa: E402

FLASH = "_ZN5flash15flash_fwd_kernelILi128EEEvNS_6ParamsE"
IMAGE = "a" * 64
CUBLAS_IMAGE = "c" * 64


def hook_process(pid, triton_sha, flash_launches, flash_us, with_spec):
    return {"format": driver.RECORDS_FORMAT, "version": 1, "pid": pid, "cupti": "libcupti.so.12",
            "graph_launches": 0, "problems": [],
            "images": [{"sha256": IMAGE, "origin": "library", "arch": "sm_90", "closed_source": None,
                        "library": "/venv/lib/python3.12/site-packages/torch/lib/libtorch_cuda.so"},
                       {"sha256": CUBLAS_IMAGE, "origin": "library", "arch": "sm_90", "closed_source": "cuBLAS",
                        "library": "/venv/site-packages/nvidia/cublas/lib/libcublasLt.so.12"},
                       {"sha256": triton_sha, "origin": "jit", "arch": "sm_90", "library": ""}],
            "kernels": [
                {"key": driver.kernel_key(IMAGE, FLASH), "symbol": FLASH, "image_sha256": IMAGE,
                 "ran_sha256": IMAGE, "launches": flash_launches, "graph_captured_launches": 0,
                 "gpu_time_us": flash_us, "spec": "flash.launch.json" if with_spec else None, "skipped": None},
                {"key": driver.kernel_key(CUBLAS_IMAGE, "sm90_xmma_gemm"), "symbol": "sm90_xmma_gemm",
                 "image_sha256": CUBLAS_IMAGE, "ran_sha256": CUBLAS_IMAGE, "launches": 8,
                 "graph_captured_launches": 0, "gpu_time_us": 300.0, "spec": None,
                 "skipped": "cuBLAS is NVIDIA's closed-source library: its license does not allow disassembling "
                            "its kernels"},
                {"key": driver.kernel_key(triton_sha, "gemm_leakyrelu"), "symbol": "gemm_leakyrelu",
                 "image_sha256": triton_sha, "ran_sha256": triton_sha, "launches": 2, "graph_captured_launches": 0,
                 "gpu_time_us": 100.0, "spec": None, "skipped": None},
                {"key": driver.kernel_key(IMAGE, "graph_only"), "symbol": "graph_only", "image_sha256": IMAGE,
                 "ran_sha256": IMAGE, "launches": 0, "graph_captured_launches": 4, "gpu_time_us": 0.0,
                 "spec": None, "skipped": None}]}


class DriverCapture(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.raw = os.path.join(self.tmp.name, "raw")
        self.ddir = os.path.join(self.raw, driver.DRIVER_DIR)
        os.makedirs(self.ddir)
        self.cubin = load_cubin("gemm_leakyrelu")  # any cubin: the hook copies the image it saw
        with open(os.path.join(self.ddir, IMAGE + ".cubin"), "wb") as f:
            f.write(self.cubin)
        values = bytes(range(256)) * 16
        os.makedirs(os.path.join(self.ddir, "flash.values"))
        with open(os.path.join(self.ddir, "flash.values", "mem0.bin.z"), "wb") as f:
            f.write(zlib.compress(values))
        spec = {"name": FLASH, "kernel": FLASH, "cubin": IMAGE + ".cubin", "grid": [4, 16, 1], "block": [128, 1, 1],
                "dynamic_shared": 49152,
                "params": [{"name": "p0", "kind": "bytes", "size": 16, "hex": "00" * 16,
                            "pointers": [{"at": 0, "to": "mem0", "offset": 0}]}],
                "memory": [{"name": "mem0", "dtype": "u8", "count": 4096, "role": "inout",
                            "init": {"kind": "recorded", "file": "flash.values/mem0.bin.z", "encoding": "zlib",
                                     "bytes": 4096, "sha256": hashlib.sha256(values).hexdigest()},
                            "reference": {"sha256": "b" * 64}}],
                "driver": {"image_sha256": IMAGE, "origin": "library", "library": "libtorch_cuda.so"}}
        with open(os.path.join(self.ddir, "flash.launch.json"), "w") as f:
            json.dump(spec, f)
        triton_sha = hashlib.sha256(self.cubin).hexdigest()
        for pid, (launches, us, with_spec) in {11: (3, 500.0, True), 12: (1, 100.0, False)}.items():
            with open(os.path.join(self.ddir, f"{pid}.driver.json"), "w") as f:
                json.dump(hook_process(pid, triton_sha, launches, us, with_spec), f)
        with open(os.path.join(self.ddir, "13.driver.json"), "w") as f:
            f.write("{truncated")

    def tearDown(self):
        self.tmp.cleanup()

    def build(self):
        procs, problems = driver.read_driver_records(self.ddir)
        self.assertEqual(len(procs), 2)
        self.assertEqual(len(problems), 1)
        self.assertIn("13.driver.json", problems[0])
        triton = load_record("gemm_leakyrelu")
        triton.update(hash="h1", launches=2, event_time_us=90.0)
        return capture_json.build_capture([process([triton])], ["python", "prefill.py"], {"h1": self.cubin},
                                          raw_dir=self.raw, driver_processes=procs)

    def test_every_kernel_listed_with_origin_share_and_reason(self):
        cap, spec_files, cubins, values = self.build()
        self.assertEqual(cap["time_source"], driver.HOOK_TIME_SOURCE)
        self.assertEqual(cap["total_gpu_time_us"], 600.0 + 600.0 + 200.0)  # flash, cuBLAS, the Triton kernel
        by = {k["name"]: k for k in cap["kernels"]}
        flash = by[driver.safe_name(FLASH)]
        self.assertEqual(flash["origin"], "library")
        self.assertIn("libtorch_cuda.so", flash["library"])
        self.assertEqual(flash["launches"], 4)
        self.assertEqual(flash["gpu_time_us"], 600.0)
        self.assertAlmostEqual(flash["time_share"], 600.0 / 1400.0, places=5)
        self.assertEqual(flash["hash"], driver.kernel_key(IMAGE, FLASH))
        # the Triton kernel keeps its Triton record, with the hook's GPU time for its cubin
        gemm = by["gemm_leakyrelu"]
        self.assertEqual(gemm["origin"], "triton")
        self.assertEqual(gemm["gpu_time_us"], 200.0)
        self.assertEqual(sum(1 for k in cap["kernels"] if k.get("symbol") == "gemm_leakyrelu"), 0)
        skipped = {s["name"]: s for s in cap["skipped"]}
        self.assertIn("closed-source", skipped["sm90_xmma_gemm"]["reason"])
        self.assertAlmostEqual(skipped["sm90_xmma_gemm"]["time_share"], 600.0 / 1400.0, places=5)
        self.assertIn("CUDA graphs", skipped["graph_only"]["reason"])
        self.assertAlmostEqual(cap["reach"]["closed_source"], 600.0 / 1400.0, places=5)
        self.assertAlmostEqual(cap["reach"]["captured"], 800.0 / 1400.0, places=5)
        # the spec renamed into the capture, its values and cubin beside it
        spec = spec_files[flash["spec"]]
        self.assertEqual(spec["cubin"], flash["cubin"])
        self.assertEqual(flash["cubin"], driver.safe_name(FLASH) + ".sm_90.cubin")
        self.assertEqual(cubins[flash["cubin"]], self.cubin)
        rel = spec["memory"][0]["init"]["file"]
        self.assertEqual(rel, driver.safe_name(FLASH) + ".values/mem0.bin.z")
        self.assertTrue(os.path.isfile(values[rel]))

    def test_written_capture_reads_back(self):
        cap, spec_files, cubins, values = self.build()
        out = os.path.join(self.tmp.name, "cap")
        os.makedirs(out)
        capture_json.write_capture(out, cap, spec_files, cubins, values)
        name = driver.safe_name(FLASH)
        with open(os.path.join(out, f"{name}.launch.json")) as f:
            spec = json.load(f)
        self.assertEqual(spec["memory"][0]["name"], "mem0")
        self.assertTrue(os.path.isfile(os.path.join(out, name + ".values", "mem0.bin.z")))
        from sassx_capture.runner import summary
        text = summary(cap, out)
        self.assertIn("sassx can tune 57.1% of the GPU time; NVIDIA's closed-source libraries hold 42.9%", text)
        self.assertIn("(library: /venv/site-packages/nvidia/cublas/lib/libcublasLt.so.12)", text)

    def test_timing_injects_the_hook_for_driver_kernels(self):
        cap, _s, _c, _v = self.build()
        hook = os.path.join(self.tmp.name, driver.HOOK_NAME)
        open(hook, "w").close()
        os.environ["SASSX_HOOK"] = hook
        try:
            tune = os.path.join(self.tmp.name, "tune")
            os.makedirs(os.path.join(tune, "tuned"))
            timing = kernel_times.KernelTiming({"x"}, cap["kernels"], tune_dir=tune)
            env, _d = timing.environment({})
            self.assertNotIn(driver.ENV_TUNED, env)  # no manifest yet: nothing to run in place
            with open(os.path.join(tune, "tuned", "manifest.json"), "w") as f:
                f.write("{}")
            env, _d = timing.environment({})
            timing.close()
        finally:
            del os.environ["SASSX_HOOK"]
        self.assertEqual(env[driver.ENV_INJECTION], hook)
        self.assertEqual(json.loads(env[driver.ENV_TIME_KEYS]), [driver.kernel_key(IMAGE, FLASH)])
        self.assertEqual(env[driver.ENV_TUNED], os.path.join(tune, "tuned"))

    def test_triton_kernel_without_cache_entry_is_timed_at_the_driver(self):
        """Its write-back goes to DIR/tuned, where only the hook knows the tuned cubin ran."""
        cap, _s, cubins, _v = self.build()
        gemm = next(k for k in cap["kernels"] if k["name"] == "gemm_leakyrelu")
        gemm["triton_cache_dir"] = None
        gemm["symbol"] = "gemm_leakyrelu"
        tune = os.path.join(self.tmp.name, "tune")
        os.makedirs(tune)
        with open(os.path.join(tune, gemm["cubin"]), "wb") as f:
            f.write(cubins[gemm["cubin"]])
        hook = os.path.join(self.tmp.name, driver.HOOK_NAME)
        open(hook, "w").close()
        os.environ["SASSX_HOOK"] = hook
        try:
            timing = kernel_times.KernelTiming({"gemm_leakyrelu"}, cap["kernels"], tune_dir=tune)
            env, _d = timing.environment({})
            timing.close()
        finally:
            del os.environ["SASSX_HOOK"]
        key = driver.kernel_key(driver.sha256_hex(cubins[gemm["cubin"]]), "gemm_leakyrelu")
        self.assertIn(key, json.loads(env[driver.ENV_TIME_KEYS]))
        self.assertNotIn("gemm_leakyrelu", json.loads(env["SASSX_CAPTURE_TIME_NAMES"]))
        self.assertEqual(kernel_times.capture_names({key: "gemm_leakyrelu"}, cap["kernels"]), {key: "gemm_leakyrelu"})


HOOK_PROBE = """
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
print("returned", lib.InitializeInjection())
"""


class HookWithoutDriver(unittest.TestCase):
    """The built libsassx_hook.so on a machine without libcuda: asked for nothing it does nothing; asked to
    substitute or capture, it says in one line why it is inactive, and never fails the program."""

    def setUp(self):
        self.hook, why = driver.find_hook()
        if not self.hook:
            self.skipTest(why)

    def call(self, **env):
        e = {k: v for k, v in os.environ.items() if not k.startswith("SASSX_")}
        e.update(env)
        return subprocess.run([sys.executable, "-c", HOOK_PROBE, self.hook], env=e, capture_output=True, text=True,
                              timeout=60)

    def test_nothing_asked(self):
        r = self.call()
        self.assertEqual((r.returncode, r.stdout.strip(), r.stderr), (0, "returned 1", ""))

    def test_no_driver_one_line(self):
        with tempfile.TemporaryDirectory() as d:
            for env in ({"SASSX_TUNED": d}, {"SASSX_HOOK_CAPTURE": d}):
                r = self.call(**env)
                self.assertEqual(r.returncode, 0)
                self.assertEqual(r.stdout.strip(), "returned 1")
                lines = r.stderr.strip().splitlines()
                self.assertEqual(len(lines), 1, r.stderr)
                self.assertTrue(lines[0].startswith("sassx: hook inactive: "), lines[0])


class Environment(unittest.TestCase):
    def test_find_hook(self):
        self.assertIn("is not a file", driver.find_hook({"SASSX_HOOK": "/nonexistent/libsassx_hook.so"})[1])
        p, why = driver.find_hook({"SASSX_BUILD_DIR": "/nonexistent-build"})
        self.assertIsNone(p)
        self.assertIn("SASSX_HOOK", why)

    def test_loading_and_allocator(self):
        # Modules load eagerly whenever the hook is asked for something; XLA's per-buffer allocator only
        # for a capture; the program's own settings win.
        cap = driver.hook_environment({}, "/h.so", capture_dir="/c")
        self.assertEqual(cap["CUDA_MODULE_LOADING"], "EAGER")
        self.assertEqual(cap["XLA_PYTHON_CLIENT_ALLOCATOR"], "platform")
        tuned = driver.hook_environment({}, "/h.so", tuned="/t")
        self.assertEqual(tuned["CUDA_MODULE_LOADING"], "EAGER")
        self.assertNotIn("XLA_PYTHON_CLIENT_ALLOCATOR", tuned)
        own = driver.hook_environment({"CUDA_MODULE_LOADING": "LAZY", "XLA_PYTHON_CLIENT_ALLOCATOR": "bfc"},
                                      "/h.so", capture_dir="/c")
        self.assertEqual(own["CUDA_MODULE_LOADING"], "LAZY")
        self.assertEqual(own["XLA_PYTHON_CLIENT_ALLOCATOR"], "bfc")

    def test_run_print_env(self):
        with tempfile.TemporaryDirectory() as d:
            hook = os.path.join(d, driver.HOOK_NAME)
            open(hook, "w").close()
            tuned = os.path.join(d, "tuned")
            os.makedirs(tuned)
            env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "app", "capture"), SASSX_HOOK=hook,
                       SASSX_CUPTI="/opt/libcupti.so.12")
            cmd = [sys.executable, "-m", "sassx_capture", "run", "--tuned", tuned, "--print-env"]
            r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=60)
            self.assertEqual(r.returncode, 1)  # no manifest: refused in one line
            self.assertEqual(len(r.stderr.strip().splitlines()), 1)
            self.assertIn("no manifest.json", r.stderr)
            with open(os.path.join(tuned, "manifest.json"), "w") as f:
                f.write("{}")
            r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=60)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn(f"export CUDA_INJECTION64_PATH={hook}", r.stdout)
            self.assertIn("export SASSX_CUPTI=/opt/libcupti.so.12", r.stdout)
            self.assertIn(f"export SASSX_TUNED={tuned}", r.stdout)


if __name__ == "__main__":
    unittest.main()
