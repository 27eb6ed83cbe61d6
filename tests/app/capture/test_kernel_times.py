"""Kernel times inside the program (`time --before/--after --kernel-times / --tune-dir`) without a GPU: the
paired statistics and the report on recorded run figures, the launch timer under stand-in torch events,
and the whole command through the child-process hooks with a stand-in triton and torch.  The committed
data/program-time.example.json is the document these figures make; the C++ tune report and dashboard
tests read it (tests/core/tune/test_tune_report.cpp, tests/widgets/test_tune_dashboard.cpp)."""
import json
import os
import random
import subprocess
import sys
import tempfile
import textwrap
import unittest
from unittest import mock

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(ROOT, "app", "capture"))

from sassx_capture import kernel_times, launch_timer, stats  # noqa: E402
from test_capture import FAKE_TRITON, FakeEvent, FakeTorch  # noqa: E402

EXAMPLE = os.path.join(HERE, "data", "program-time.example.json")
DATE = "2026-11-28T12:00:00Z"


def run(kernels, installed=True):
    """A run's summary: {hash: (name, [per-launch µs], cubin)}."""
    procs = [{"installed": installed, "graph_launches": 0,
              "kernels": [{"hash": h, "name": n, "cubin_sha256": c, "launches": len(ts), "times_us": ts}
                          for h, (n, ts, c) in kernels.items()]}]
    return kernel_times.run_summary(procs)


# Six interleaved pairs of a program whose rmsnorm got about 6% faster in the program, whose sgemm did
# not move beyond the noise, whose hgemm was not launched after the write-back, and that also launched a
# kernel the capture does not have.
RMS_B = [20.1, 20.3, 20.0, 20.2, 20.4, 20.1]
RMS_A = [19.0, 19.1, 18.9, 19.2, 19.0, 19.1]
SGEMM_B = [100.0, 101.5, 99.0, 100.5, 102.0, 99.5]
SGEMM_A = [100.5, 100.0, 100.8, 99.2, 101.0, 100.1]
CAPTURE = [{"name": "rmsnorm", "hash": "aa01"}, {"name": "sgemm_leakyrelu", "hash": "bb02"},
           {"name": "hgemm_leakyrelu", "hash": "cc03"}]


def example_pairs():
    pairs = []
    for i in range(6):
        before = {"aa01": ("rmsnorm", [RMS_B[i] + 3.0, RMS_B[i], RMS_B[i] - 0.1, RMS_B[i] + 0.1], "c1"),
                  "bb02": ("sgemm_leakyrelu", [SGEMM_B[i]] * 3, "c2"),
                  "cc03": ("hgemm_leakyrelu", [50.0, 50.2], "c3"),
                  "dd04": ("triton_poi_fused_extra_0", [2.0], "c4")}
        after = {"aa01": ("rmsnorm", [RMS_A[i] + 3.0, RMS_A[i], RMS_A[i] - 0.1, RMS_A[i] + 0.1], "c1-tuned"),
                 "bb02": ("sgemm_leakyrelu", [SGEMM_A[i]] * 3, "c2"),
                 "dd04": ("triton_poi_fused_extra_0", [2.0], "c4")}
        pairs.append({"before": run(before), "after": run(after)})
    return pairs


def example_result():
    """What measure_interleaved returns for those runs (the step time: 2.80 ms before, 2.79 after)."""
    step_b, step_a = [2.80, 2.83, 2.78, 2.81, 2.85, 2.79], [2.79, 2.80, 2.80, 2.77, 2.84, 2.78]
    ratios = [b / a for b, a in zip(step_b, step_a)]

    def summary(v):
        lo, hi, cov = kernel_times.median_interval(v)
        return {"values": v, "median": kernel_times.statistics.median(v), "interval": [lo, hi], "coverage": cov}

    s = summary(ratios)
    return {"program": ["python3", "bench/tune/transformer_block.py", "--steps", "50"], "pairs": 6,
            "order": "ABBA (before, after; then after, before)", "source": "pattern",
            "pattern": "step_ms=([0-9.]+)", "before_cmd": "sassx-cli tune DIR --restore",
            "after_cmd": "sassx-cli tune DIR --write-back", "before": summary(step_b), "after": summary(step_a),
            "speedup": {"ratios": ratios, "median": s["median"], "interval": s["interval"],
                        "coverage": s["coverage"]},
            "failures": [], "error": None, "kernel_timing": kernel_times.TIMING,
            "kernels": kernel_times.kernel_rows(example_pairs(), CAPTURE)}


class Statistics(unittest.TestCase):
    def test_run_summary_medians_over_launches_and_processes(self):
        procs = [{"installed": True, "graph_launches": 2,
                  "kernels": [{"hash": "h", "name": "k", "cubin_sha256": "c", "launches": 3, "times_us": [9, 1, 5]}]},
                 {"installed": False, "graph_launches": 1,
                  "kernels": [{"hash": "h", "name": "k", "cubin_sha256": "c", "launches": 2, "times_us": [4, 6]}]}]
        s = kernel_times.run_summary(procs)
        self.assertTrue(s["installed"])
        self.assertEqual(s["graph_launches"], 3)
        self.assertEqual(s["kernels"]["h"], {"name": "k", "launches": 5, "cubins": ["c"], "timed": 5,
                                             "median_us": 5.0})

    def test_paired_speedups(self):
        rows = {r["name"]: r for r in kernel_times.kernel_rows(example_pairs(), CAPTURE)}
        rms = rows["rmsnorm"]
        self.assertEqual(rms["status"], "timed")
        # a run's figure is the median of its launches (the slow first one aside), then the median of runs
        self.assertAlmostEqual(rms["before"]["median_us"], 20.2)
        self.assertEqual(rms["before"]["launches"], 24)
        s = rms["speedup"]
        raw = sorted((b + 0.05) / (a + 0.05) for b, a in zip(RMS_B, RMS_A))
        self.assertEqual(s["pairs"], 6)
        self.assertEqual(s["raw"]["interval"], [raw[0], raw[-1]])  # n=6: min..max, 96.9% coverage
        self.assertAlmostEqual(s["coverage"], 1 - 2 / 64)
        # the controls (sgemm and the uncaptured pointwise kernel ran the same cubin before and after): per
        # pair the median of their ratios is the drift, and rmsnorm's ratio is divided by it
        drift = [(b / a + 1.0) / 2 for b, a in zip(SGEMM_B, SGEMM_A)]
        corrected = sorted((b + 0.05) / (a + 0.05) / d for b, a, d in zip(RMS_B, RMS_A, drift))
        self.assertTrue(s["drift_removed"])
        self.assertEqual(s["interval"], [corrected[0], corrected[-1]])
        self.assertAlmostEqual(s["median"], (corrected[2] + corrected[3]) / 2)
        self.assertTrue(s["resolved"])
        self.assertAlmostEqual(s["noise_floor"], (20.45 - 20.05) / 2 / 20.2)
        self.assertTrue(rms["cubin_changed"])
        self.assertEqual(rms["role"], "changed")
        sg = rows["sgemm_leakyrelu"]
        self.assertEqual(sg["role"], "control")
        self.assertFalse(sg["speedup"]["resolved"])  # a control: never a verdict
        self.assertFalse(sg["speedup"]["drift_removed"])
        self.assertFalse(sg["cubin_changed"])
        hg = rows["hgemm_leakyrelu"]
        self.assertEqual(hg["status"], "not launched after")
        self.assertIsNone(hg["speedup"])
        self.assertEqual(hg["after"]["not_launched_in_pairs"], [1, 2, 3, 4, 5, 6])
        self.assertFalse(rows["triton_poi_fused_extra_0"]["in_capture"])
        # the captured kernels first, the timed ones first among them
        self.assertEqual([r["name"] for r in kernel_times.kernel_rows(example_pairs(), CAPTURE)],
                         ["rmsnorm", "sgemm_leakyrelu", "hgemm_leakyrelu", "triton_poi_fused_extra_0"])

    def test_failed_runs_and_kernels_never_seen(self):
        pairs = [{"before": run({"h": ("k", [10.0], "c")}), "after": None},
                 {"before": run({"h": ("k", [10.0], "c")}), "after": run({"h": ("k", [5.0], "c")})},
                 {"before": run({}), "after": run({"h": ("k", [5.0], "c")})}]
        rows = kernel_times.kernel_rows(pairs, [{"name": "k", "hash": "h"}, {"name": "never", "hash": "z"}])
        k = next(r for r in rows if r["name"] == "k")
        self.assertEqual(k["speedup"]["pairs"], 1)  # a failed run is no evidence; a run without it is named
        self.assertEqual(k["speedup"]["median"], 2.0)
        self.assertEqual(k["before"]["not_launched_in_pairs"], [3])
        self.assertEqual(k["after"]["not_launched_in_pairs"], [])
        never = next(r for r in rows if r["name"] == "never")
        self.assertEqual(never["status"], "not launched")
        self.assertIsNone(never["speedup"])

    def test_capture_names(self):
        b32 = kernel_times._base32("00ff")
        cap = [{"name": "a", "hash": "h1"}, {"name": "b", "triton_cache_dir": f"/cache/{b32}/"},
               {"name": "c"}, {"name": "d"}, {"name": "d_2"}]
        names = kernel_times.capture_names({"h1": "x", "00ff": "y", "h3": "c", "h4": "d", "h5": "e"}, cap)
        # by hash, by Triton's cache entry (base32 of the hash), by a symbol one captured kernel has; not
        # by a symbol two captured kernels share
        self.assertEqual(names, {"h1": "a", "00ff": "b", "h3": "c"})
        self.assertEqual(kernel_times.capture_names({"h3": "c", "h6": "c"}, cap), {})

    def test_report_text(self):
        text = kernel_times.kernels_report(example_result()["kernels"])
        lines = text.splitlines()
        self.assertIn("speed-up before/after, >1 = faster after", lines[0])
        rms = next(line for line in lines if line.strip().startswith("rmsnorm"))
        self.assertRegex(rms, r"20\.200\s+19\.100\s+1\.05\d\dx \[1\.0\d+, 1\.0\d+\] 96\.9%")
        self.assertIn("24/24", rms)
        self.assertIn("changed", rms)
        self.assertTrue(rms.endswith("faster after"))
        sg = next(line for line in lines if line.strip().startswith("sgemm_leakyrelu"))
        self.assertIn("control (same cubin before and after", sg)
        self.assertRegex(lines[1], r"controls: 2 unchanged kernel\(s\) moved 1\.00\d\dx \[")
        hg = next(line for line in lines if line.strip().startswith("hgemm_leakyrelu"))
        self.assertIn("not launched after; after: not launched in pair(s) 1, 2, 3, 4, 5, 6", hg)
        self.assertIn("not a kernel of the capture", text)
        self.assertIn("no watched kernel was launched", kernel_times.kernels_report([]))

    def test_example_document(self):
        """data/program-time.example.json is what these runs write (regenerate: SASSX_REGENERATE=1)."""
        doc = kernel_times.program_time_document(example_result(), date=DATE)
        if os.environ.get("SASSX_REGENERATE"):
            with open(EXAMPLE, "w") as f:
                json.dump(doc, f, indent=1)
                f.write("\n")
        with open(EXAMPLE) as f:
            self.assertEqual(json.load(f), json.loads(json.dumps(doc)))
        self.assertEqual(doc["format"], "sassx-program-time")
        self.assertFalse(doc["step"]["speedup"]["resolved"])
        self.assertAlmostEqual(doc["step"]["speedup"]["noise_floor"], (2.85 - 2.78) / 2 / 2.805, places=6)


def drifting_pairs(n_pairs, controls, changed, drift, noise, seed=7):
    """Pairs of runs in which every after run is `drift` faster (after time = before / drift) on top of
    uniform noise of +-noise per run figure; `changed` maps a kernel to its true speed-up."""
    rng = random.Random(seed)
    pairs = []
    for i in range(n_pairs):
        d = drift(i) if callable(drift) else drift
        before, after = {}, {}
        for k in range(controls):
            base = 10.0 + k
            before[f"c{k}"] = (f"control_{k}", [base * (1 + rng.uniform(-noise, noise))], f"cubin{k}")
            after[f"c{k}"] = (f"control_{k}", [base / d * (1 + rng.uniform(-noise, noise))], f"cubin{k}")
        for name, gain in changed.items():
            before[name] = (name, [50.0 * (1 + rng.uniform(-noise, noise))], f"{name}-original")
            after[name] = (name, [50.0 / gain / d * (1 + rng.uniform(-noise, noise))], f"{name}-tuned")
        pairs.append({"before": run(before), "after": run(after)})
    return pairs


class Controls(unittest.TestCase):
    def test_synthetic_drift_is_removed(self):
        """After runs uniformly 0.2% faster: unchanged kernels are controls, a changed kernel that did not
        move is not called faster, a real 3% gain stays."""
        rows = {r["name"]: r for r in kernel_times.kernel_rows(
            drifting_pairs(6, 20, {"tuned": 1.03, "same_speed": 1.0}, 1.002, 0.0002))}
        controls = [r for r in rows.values() if r["role"] == "control"]
        self.assertEqual(len(controls), 20)
        for r in controls:
            self.assertFalse(r["speedup"]["resolved"])
            self.assertTrue(kernel_times.row_verdict(r).startswith("control"))
        same = rows["same_speed"]["speedup"]
        lo, hi = same["raw"]["interval"]
        self.assertGreater(lo, 1.0, "without the controls the drift alone looks like a gain")
        self.assertFalse(same["resolved"])
        self.assertLessEqual(same["interval"][0], 1.0)
        self.assertGreaterEqual(same["interval"][1], 1.0)
        tuned = rows["tuned"]["speedup"]
        self.assertTrue(tuned["resolved"])
        self.assertAlmostEqual(tuned["median"], 1.03, delta=0.001)
        self.assertEqual(kernel_times.row_verdict(rows["tuned"]), "faster after")
        summary = kernel_times.controls_summary(list(rows.values()))
        self.assertEqual(summary["kernels"], 20)
        self.assertAlmostEqual(summary["median"], 1.002, delta=0.0002)

    def test_unchanged_kernels_never_called_faster(self):
        """27 unchanged kernels and 3 pairs whose after runs drift faster by different amounts: none is
        called faster or slower, and 3 pairs (75% coverage) resolve no changed kernel either."""
        rows = kernel_times.kernel_rows(drifting_pairs(3, 27, {"tuned": 1.06}, lambda i: 1.001 + 0.001 * i,
                                                       0.0005))
        verdicts = [kernel_times.row_verdict(r) for r in rows]
        self.assertEqual(sum(v.startswith("control") for v in verdicts), 27)
        self.assertFalse(any(v in ("faster after", "slower after") for v in verdicts))
        tuned = next(r for r in rows if r["name"] == "tuned")
        self.assertGreater(tuned["speedup"]["interval"][0], 1.0)
        self.assertFalse(tuned["speedup"]["resolved"])
        self.assertIn("75.0% coverage, below 95%: 6 pairs or more resolve it", kernel_times.row_verdict(tuned))

    def test_without_controls_the_drift_stays_and_is_named(self):
        rows = kernel_times.kernel_rows(drifting_pairs(6, 0, {"a": 1.0, "b": 1.05}, 1.0, 0.0001))
        self.assertIsNone(kernel_times.controls_summary(rows))
        for r in rows:
            self.assertFalse(r["speedup"]["drift_removed"])
            self.assertIn("no control kernel in these runs: drift not removed", kernel_times.row_verdict(r))
        self.assertIn("controls: none", kernel_times.kernels_report(rows))

    def test_coverage_rule(self):
        self.assertEqual(stats.pairs_needed(), 6)
        self.assertTrue(stats.resolved(1.01, 1.02, 0.96875))
        self.assertFalse(stats.resolved(1.01, 1.02, 0.9375))  # 5 pairs: min..max covers 93.8%
        self.assertFalse(stats.resolved(0.99, 1.02, 0.99))


class Timer(unittest.TestCase):
    def setUp(self):
        FakeEvent.clock[0] = 0.0
        FakeTorch.cuda.capturing = False

    def kernel(self, name, h):
        return type("CK", (), {"name": name, "hash": h, "asm": {"cubin": name.encode()}})()

    def test_watched_launches_timed_others_ignored(self):
        with tempfile.TemporaryDirectory() as d, mock.patch.object(launch_timer, "DRAIN_AT", 4):
            t = launch_timer.LaunchTimer(d, names=["k"])
            t.torch = FakeTorch
            k, other = self.kernel("k", "h"), self.kernel("other", "o")
            for i in range(10):
                for ck in (k, other):
                    t.before_launch(ck, (1,), ())
                    t.enter()
                    t.exit()
            FakeTorch.cuda.capturing = True
            t.before_launch(k, (1,), ())
            t.enter()
            t.exit()
            FakeTorch.cuda.capturing = False
            self.assertLessEqual(len(t.events), 4)   # read back as they finish, not held to the end
            self.assertGreater(t.events.pooled(), 0)  # and their events reused
            data = t.finish()
            self.assertEqual([r["name"] for r in data["kernels"]], ["k"])
            rec = data["kernels"][0]
            self.assertEqual(rec["launches"], 10)
            self.assertEqual(len(rec["times_us"]), 10)
            self.assertTrue(all(abs(x - 4.0) < 1e-6 for x in rec["times_us"]))  # one 4 µs tick apart
            self.assertEqual(data["graph_launches"], 1)
            with open(os.path.join(d, f"{os.getpid()}.times.json")) as f:
                self.assertEqual(json.load(f)["kernels"][0]["cubin_sha256"], rec["cubin_sha256"])


# A stand-in torch for the child: events read a clock the program advances by each "kernel's" time.
FAKE_TORCH = {
    "torch/__init__.py": textwrap.dedent("""
        _clock = [0.0]
        def _advance(us):
            _clock[0] += us / 1000.0
        class _Event:
            def __init__(self, enable_timing=False):
                self.t = None
            def record(self):
                self.t = _clock[0]
            def query(self):
                return True
            def synchronize(self):
                pass
            def elapsed_time(self, end):
                return end.t - self.t
        class cuda:
            Event = _Event
            @staticmethod
            def is_current_stream_capturing():
                return False
            @staticmethod
            def synchronize():
                pass
        """),
}

# The program: per step, a kernel 1.25x faster after (and its cubin changed), one unchanged, one launched
# before only, and one the capture does not have; its step time is printed as step_ms.
PROGRAM = textwrap.dedent("""
    import sys
    import torch, triton
    from triton.compiler.compiler import CompiledKernel
    state = open(sys.argv[1]).read()
    def launch(name, h, us, cubin):
        k = CompiledKernel()
        k.name, k.hash, k.asm = name, h, {"cubin": cubin}
        k.launch_metadata((1, 1, 1), 0)
        for f in triton.knobs.runtime.launch_enter_hook.calls:
            f(None)
        torch._advance(us)
        for f in triton.knobs.runtime.launch_exit_hook.calls:
            f(None)
    for step in range(20):
        launch("triton_poi_fused_add_0", "h0", 10.0 if state == "b" else 8.0, state.encode())
        launch("triton_red_fused_sum_1", "h1", 5.0, b"same")
        if state == "b":
            launch("triton_per_fused_gone_2", "h2", 3.0, b"x")
        launch("unwatched", "h9", 1.0, b"y")
    print("step_ms=" + ("2.5" if state == "b" else "2.4"))
    """)


class Command(unittest.TestCase):
    def test_tune_dir_times_the_captured_kernels(self):
        with tempfile.TemporaryDirectory() as tmp:
            for rel, text in list(FAKE_TRITON.items()) + list(FAKE_TORCH.items()):
                path = os.path.join(tmp, "site", rel)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w") as f:
                    f.write(text)
            prog, state, cap = (os.path.join(tmp, n) for n in ("prog.py", "state", "cap"))
            with open(prog, "w") as f:
                f.write(PROGRAM)
            os.makedirs(cap)
            with open(os.path.join(cap, "capture.json"), "w") as f:
                json.dump({"format": "sassx-capture", "version": 1, "kernels": [
                    {"name": "triton_poi_fused_add_0", "hash": "h0", "spec": "a.launch.json"},
                    {"name": "triton_red_fused_sum_1", "spec": "missing.launch.json"},  # no hash: by symbol
                    {"name": "triton_per_fused_gone_2", "hash": "h2", "spec": "c.launch.json"},
                    {"name": "triton_tem_never_3", "hash": "h3", "spec": "d.launch.json"}]}, f)
            env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.join(ROOT, "app", "capture"),
                                                                os.path.join(tmp, "site")]))
            cmd = [sys.executable, "-m", "sassx_capture", "time", "--runs", "2", "--pattern", r"step_ms=([0-9.]+)",
                   "--before", f"printf b > {state}", "--after", f"printf a > {state}", "--tune-dir", cap,
                   "--", sys.executable, prog, state]
            r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("speed-up 1.0417x", r.stdout)
            self.assertIn("before-state noise floor 0.00%", r.stdout)
            line = next(x for x in r.stdout.splitlines() if x.strip().startswith("triton_poi_fused_add_0"))
            self.assertRegex(line, r"10\.000\s+8\.000\s+1\.2500x \[1\.2500, 1\.2500\] 50\.0%")
            self.assertIn("40/40", line)
            self.assertIn("changed", line)
            self.assertNotIn("unwatched", r.stdout)  # not a captured kernel: not timed at all
            with open(os.path.join(cap, "program-time.json")) as f:
                doc = json.load(f)
            rows = {k["name"]: k for k in doc["kernels"]}
            self.assertEqual(rows["triton_poi_fused_add_0"]["speedup"]["median"], 1.25)
            self.assertAlmostEqual(rows["triton_red_fused_sum_1"]["speedup"]["median"], 1.0)
            self.assertFalse(rows["triton_red_fused_sum_1"]["speedup"]["resolved"])
            self.assertEqual(rows["triton_per_fused_gone_2"]["status"], "not launched after")
            self.assertEqual(rows["triton_tem_never_3"]["status"], "not launched")
            self.assertEqual(doc["pairs"], 2)
            # --json carries the same rows
            r = subprocess.run(cmd[:4] + ["--json"] + cmd[4:], env=env, capture_output=True, text=True, timeout=120)
            self.assertEqual(r.returncode, 0, r.stderr)
            out = json.loads(r.stdout)
            self.assertEqual(len(out["kernels"]), 4)
            self.assertEqual(out["kernel_timing"], kernel_times.TIMING)

    def test_refusals_are_one_line(self):
        env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "app", "capture"))
        base = [sys.executable, "-m", "sassx_capture", "time", "--runs", "1"]
        r = subprocess.run(base + ["--kernel-times", "--", "true"], env=env, capture_output=True, text=True,
                           timeout=60)
        self.assertEqual(r.returncode, 2)
        self.assertIn("--kernel-times and --tune-dir need --before/--after", r.stderr)
        with tempfile.TemporaryDirectory() as d:
            r = subprocess.run(base + ["--before", "true", "--after", "true", "--tune-dir", d, "--", "true"],
                               env=env, capture_output=True, text=True, timeout=60)
            self.assertEqual(r.returncode, 1)
            self.assertEqual(len(r.stderr.strip().splitlines()), 1)
            self.assertIn("capture.json", r.stderr)
            # a program without triton: every run fails to time anything, and says so
            r = subprocess.run(base + ["--before", "true", "--after", "true", "--kernel-times", "--", "true"],
                               env=env, capture_output=True, text=True, timeout=60)
            self.assertEqual(r.returncode, 1)
            self.assertIn("no process of any run installed the launch timer", r.stderr)


if __name__ == "__main__":
    unittest.main()
