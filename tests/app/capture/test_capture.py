"""sassx_capture without a GPU: spec writing from recorded launch metadata (tests/app/capture/data), the
capture directory, time shares, the child-process bootstrap (with a stand-in triton) and the timing
statistics.  Run: python3 -m unittest discover -s tests/app/capture -v  (ctest: test_capture)."""
import array
import copy
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest
import zlib
from unittest import mock

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(ROOT, "app", "capture"))

from sassx_capture import capture_json, specs, stats, timing  # noqa: E402
from sassx_capture.runner import child_environment  # noqa: E402

CAPTURED = os.path.join(ROOT, "samples", "triton", "captured")
DATA = os.path.join(HERE, "data")


def load_record(name):
    with open(os.path.join(DATA, f"{name}.record.json")) as f:
        return json.load(f)


def load_cubin(name):
    with open(os.path.join(CAPTURED, f"{name}.sm_90.cubin"), "rb") as f:
        return f.read()


def tensor_arg(name, ptr, nbytes, dtype="torch.float32", changed=False, stats=None, sig="*fp32", es=4):
    return {"name": name, "sig": sig, "kind": "tensor", "dtype": dtype, "shape": [nbytes // es], "stride": [1],
            "storage_offset": 0, "element_size": es, "data_ptr": ptr, "storage_nbytes": nbytes,
            "extent_bytes": nbytes, "span_bytes": nbytes, "device": "cuda:0", "changed": changed,
            "changed_beyond": False,
            "stats": stats or {"numel": nbytes // es, "zero": False, "finite": nbytes // es, "min": -2.0,
                               "max": 3.0, "mean": 0.1, "std": 0.4}}


def record(name="triton_poi_fused_add_0", args=None, h="h0", launches=1, event_us=10.0, **kw):
    rec = {"hash": h, "name": name, "triton_version": "3.6.0", "arch": 90, "num_warps": 4, "num_stages": 1,
           "num_ctas": 1, "cluster_dims": [1, 1, 1], "shared": 0, "global_scratch_size": 0,
           "profile_scratch_size": 0, "grid": [64, 1, 1], "launches": launches, "event_time_us": event_us,
           "cache_entry": f"/cache/{h.upper()}", "scratch_params": 2,
           "args": args if args is not None else [
               tensor_arg("in_ptr0", 1 << 20, 4096), tensor_arg("out_ptr0", 2 << 20, 4096, changed=True),
               {"name": "xnumel", "sig": "i32", "kind": "int", "value": 1024},
               {"name": "XBLOCK", "sig": "constexpr", "kind": "constexpr", "value": 128}]}
    rec.update(kw)
    return rec


LABELS = array.array("q", [-100 if i % 7 == 3 else (i * 37) % 31996 for i in range(256)]).tobytes()


def loss_record(h="hl"):
    """A cross-entropy-like kernel: float logits, int64 labels with the ignore index -100, one loss per row."""
    logits = tensor_arg("logits", 1 << 20, 1 << 16, stats={"numel": 16384, "zero": False, "finite": 16384,
                                                         "min": -9.0, "max": 9.5, "mean": 0.0, "std": 2.0})
    labels = tensor_arg("labels", 2 << 20, len(LABELS), dtype="torch.int64", sig="*i64", es=8,
                        stats={"numel": 256, "zero": False, "min": -100, "max": 31995})
    labels["values"] = {"file": f"{h}.arg1.bin.z", "bytes": len(LABELS), "sha256": hashlib.sha256(LABELS).hexdigest()}
    loss = tensor_arg("loss", 3 << 20, 1024, changed=True, stats={"numel": 256, "zero": True})
    return record(name="triton_red_fused_nll_loss_0", h=h, args=[logits, labels, loss,
                                                                 {"name": "rnumel", "sig": "i32", "kind": "int",
                                                                  "value": 64}])


def process(kernels, total=None, per_name=None, device="NVIDIA H200"):
    return {"format": capture_json.RECORDS_FORMAT, "version": 1, "pid": 1, "argv": ["train.py"], "device": device,
            "total_gpu_time_us": total, "profiler_kernel_us": per_name, "kernels": kernels, "warnings": []}


class SampleSpecs(unittest.TestCase):
    """The two Triton samples' recorded launches give exactly the committed captured specs."""

    def check_sample(self, name):
        with open(os.path.join(CAPTURED, f"{name}.launch.json")) as f:
            want = json.load(f)
        spec, reason = specs.spec_from_record(load_record(name), name, load_cubin(name), f"{name}.sm_90.cubin")
        self.assertIsNone(reason)
        self.assertEqual(spec["params"], want["params"])
        for key in ("name", "kernel", "cubin", "grid", "block", "dynamic_shared", "bytes", "triton"):
            self.assertEqual(spec[key], want[key], key)
        self.assertNotIn("flops", spec)  # work a launch cannot tell: the sample adds it

    def test_gemm_leakyrelu(self):
        self.check_sample("gemm_leakyrelu")

    def test_attention_fwd(self):
        self.check_sample("attention_fwd")

    def test_cubin_with_other_parameter_count_is_skipped(self):
        rec = load_record("gemm_leakyrelu")
        rec["args"] = rec["args"][:-5] + rec["args"][-4:]  # drop alpha
        spec, reason = specs.spec_from_record(rec, "g", load_cubin("gemm_leakyrelu"))
        self.assertIsNone(spec)
        self.assertIn("param", reason)


class SpecRules(unittest.TestCase):
    def spec(self, rec, **kw):
        return specs.spec_from_record(rec, rec["name"], **kw)

    def test_pointwise_kernel(self):
        spec, reason = self.spec(record())
        self.assertIsNone(reason)
        p = spec["params"]
        self.assertEqual([x["name"] for x in p], ["in_ptr0", "out_ptr0", "xnumel", "scratch0", "scratch1"])
        self.assertEqual(p[0], {"name": "in_ptr0", "kind": "buffer", "dtype": "f32", "count": 1024,
                                "init": {"kind": "normal", "mean": 0.1, "std": 0.4}, "role": "input"})
        self.assertEqual(p[1]["role"], "output")
        self.assertEqual(p[1]["init"], {"kind": "zeros"})
        self.assertEqual(p[2], {"name": "xnumel", "kind": "scalar", "dtype": "i32", "value": 1024})
        self.assertEqual(p[3], {"name": "scratch0", "kind": "null"})
        self.assertEqual(spec["triton"]["constexprs"], {"XBLOCK": 128})
        self.assertEqual(spec["triton"]["cache_entries"], ["H0"])
        self.assertEqual(spec["block"], [128, 1, 1])
        self.assertEqual(spec["bytes"], 8192)

    def test_inout_buffer(self):
        stats = {"numel": 1024, "zero": False, "finite": 1024, "min": -1.0, "max": 1.0, "mean": 0.0, "std": 0.577}
        args = [tensor_arg("x", 1 << 20, 4096, changed=True, stats=stats),
                tensor_arg("in_out_ptr0", 2 << 20, 4096, changed=False)]
        spec, reason = self.spec(record(args=args))
        self.assertIsNone(reason)
        self.assertEqual(spec["params"][0]["role"], "inout")  # written, and it held data before
        self.assertEqual(spec["params"][0]["init"], {"kind": "uniform", "low": -1.0, "high": 1.0})
        self.assertEqual(spec["params"][1]["role"], "inout")  # Inductor's name says so

    def test_in_place_kernel_is_written_as_an_alias(self):
        """An RMSNorm backward writing dX into dY's memory: dX becomes an alias of dY, which is inout."""
        stats = {"numel": 1024, "zero": False, "finite": 1024, "min": -4.0, "max": 4.1, "mean": 0.0, "std": 1.0}
        args = [tensor_arg("dY", 1 << 20, 4096, changed=True, stats=stats),
                tensor_arg("X", 2 << 20, 4096),
                tensor_arg("W", 3 << 20, 256),
                tensor_arg("dX", 1 << 20, 4096, changed=True, stats=stats),
                {"name": "n", "sig": "i32", "kind": "int", "value": 1024}]
        spec, reason = self.spec(record(args=args))
        self.assertIsNone(reason)
        p = spec["params"]
        self.assertEqual(p[0], {"name": "dY", "kind": "buffer", "dtype": "f32", "count": 1024,
                                "init": {"kind": "normal", "mean": 0.0, "std": 1.0}, "role": "inout"})
        self.assertEqual(p[3], {"name": "dX", "kind": "buffer", "dtype": "f32", "count": 1024,
                                "alias": {"of": "dY", "offset": 0}})
        self.assertEqual(p[1]["role"], "input")
        self.assertEqual(spec["bytes"], 4096 + 4096 + 256)  # the shared memory once
        # a view further into the same storage: an alias at its byte offset, counted to the storage's end
        args[3] = tensor_arg("dX", (1 << 20) + 1024, 3072, changed=True, stats=stats)
        spec, reason = self.spec(record(args=args))
        self.assertIsNone(reason)
        self.assertEqual(spec["params"][3]["alias"], {"of": "dY", "offset": 1024})
        self.assertEqual(spec["params"][3]["count"], 768)

    def test_overlap_past_the_storage_is_refused(self):
        args = [tensor_arg("in_ptr0", 1 << 20, 4096), tensor_arg("out_ptr0", (1 << 20) + 2048, 4096, changed=True)]
        spec, reason = self.spec(record(args=args))
        self.assertIsNone(spec)
        self.assertIn("in_ptr0 and out_ptr0 share memory and the kernel writes it, but out_ptr0 reaches past the "
                      "end of in_ptr0's storage", reason)

    def test_aliasing_read_only_arguments_pass(self):
        args = [tensor_arg("in_ptr0", 1 << 20, 4096), tensor_arg("in_ptr1", 1 << 20, 4096),
                tensor_arg("out_ptr0", 2 << 20, 4096, changed=True)]
        spec, reason = self.spec(record(args=args))
        self.assertIsNone(reason)
        self.assertEqual([p["role"] for p in spec["params"][:3]], ["input", "input", "output"])

    def test_int_index_tensor(self):
        idx = tensor_arg("in_ptr0", 1 << 20, 8192, dtype="torch.int64", sig="*i64", es=8,
                         stats={"numel": 1024, "zero": False, "min": 0, "max": 50256})
        rec = record(args=[idx, tensor_arg("out_ptr0", 2 << 20, 4096, changed=True)])
        spec, reason = self.spec(rec)  # no values recorded (e.g. over the recorder's limit): skipped
        self.assertIsNone(spec)
        self.assertIn("integer argument in_ptr0 holds 0..50256, maybe indices: its values were not recorded", reason)
        idx["values_problem"] = "its 80.0 MiB of values were not recorded (... --max-values-mib)"
        spec, reason = self.spec(rec)
        self.assertIn("80.0 MiB of values were not recorded", reason)
        spec, reason = self.spec(rec, int_inputs="skip")
        self.assertIsNone(spec)
        self.assertIn("--int-inputs skip", reason)
        spec, reason = self.spec(rec, int_inputs="range")
        self.assertIsNone(reason)
        self.assertEqual(spec["params"][0]["init"], {"kind": "randint", "low": 0, "high": 50257})
        self.assertEqual(spec["params"][0]["dtype"], "i64")

    def test_sentinel_labels_use_recorded_values(self):
        """A loss kernel whose labels hold -100 (the ignore index) among class indices: no distribution
        fits, so the spec takes the values recorded at the first launch."""
        rec = loss_record()
        spec, reason = self.spec(rec)
        self.assertIsNone(reason)
        labels = spec["params"][1]
        values = rec["args"][1]["values"]
        self.assertEqual(labels, {"name": "labels", "kind": "buffer", "dtype": "i64", "count": 256,
                                  "init": {"kind": "recorded", "file": "triton_red_fused_nll_loss_0.values/labels.bin.z",
                                           "encoding": "zlib", "bytes": 2048, "sha256": values["sha256"]},
                                  "role": "input"})
        self.assertEqual(spec["params"][0]["init"]["kind"], "normal")  # floats keep their fitted draws
        self.assertEqual(specs.recorded_params(spec), ["labels"])
        spec, reason = self.spec(rec, max_values_bytes=1024)
        self.assertIsNone(spec)
        self.assertIn("need 0.0 MiB of recorded values, over the limit of 0.0 MiB per spec (--max-values-mib)",
                      reason)

    def test_bool_mask_and_constant_int(self):
        mask = tensor_arg("in_ptr0", 1 << 20, 1024, dtype="torch.bool", sig="*i1", es=1,
                          stats={"numel": 1024, "zero": False, "min": 0, "max": 1})
        const = tensor_arg("in_ptr1", 2 << 20, 4096, dtype="torch.int32", sig="*i32",
                           stats={"numel": 1024, "zero": False, "min": 7, "max": 7})
        spec, reason = self.spec(record(args=[mask, const]))
        self.assertIsNone(reason)
        self.assertEqual(spec["params"][0]["init"], {"kind": "randint", "low": 0, "high": 2})
        self.assertEqual(spec["params"][0]["dtype"], "u8")
        self.assertEqual(spec["params"][1]["init"], {"kind": "constant", "value": 7})

    def test_unreproducible_arguments(self):
        cases = {
            "raw address": {"name": "p", "sig": "*fp32", "kind": "int", "value": 140000000},
            "TMA descriptor": {"name": "d", "sig": "nvTmaDesc", "kind": "other", "type": "TmaDescKernelParam"},
            "dtype float8_e4m3fn": tensor_arg("f", 1 << 20, 1024, dtype="torch.float8_e4m3fn", sig="*fp8e4nv", es=1),
            "snapshot limit": dict(tensor_arg("big", 1 << 20, 4096), snapshot="over the snapshot limit"),
            "no numeric value": {"name": "s", "sig": "i32", "kind": "other", "type": "SymInt"},
        }
        for want, arg in cases.items():
            spec, reason = self.spec(record(args=[arg]))
            self.assertIsNone(spec, want)
            self.assertIn(want, reason)

    def test_unreproducible_launches(self):
        for kw, want in (({"num_ctas": 2}, "cluster launch"), ({"cluster_dims": [2, 1, 1]}, "cluster launch"),
                         ({"launch_cooperative_grid": True}, "cooperative"), ({"grid": [0, 1, 1]}, "grid"),
                         ({"problem": "3 launch arguments for a signature of 4 entries"}, "signature of 4")):
            spec, reason = self.spec(record(**kw))
            self.assertIsNone(spec, kw)
            self.assertIn(want, reason)

    def test_incomplete_record_is_a_reason_not_a_crash(self):
        rec = record()
        del rec["num_warps"]
        spec, reason = self.spec(rec)
        self.assertIsNone(spec)
        self.assertIn("incomplete launch record", reason)

    def test_global_scratch_becomes_a_buffer(self):
        spec, reason = self.spec(record(global_scratch_size=256, grid=[8, 2, 1]))
        self.assertIsNone(reason)
        self.assertEqual(spec["params"][-2], {"name": "scratch0", "kind": "buffer", "dtype": "u8", "count": 4096,
                                              "init": {"kind": "zeros"}, "role": "input"})
        self.assertEqual(spec["params"][-1], {"name": "scratch1", "kind": "null"})

    def test_fit_float_init(self):
        fit = specs.fit_float_init
        self.assertEqual(fit({"zero": True}), {"kind": "zeros"})
        self.assertEqual(fit({"finite": 5, "min": 1.0, "max": 1.0, "mean": 1.0, "std": 0.0}),
                         {"kind": "constant", "value": 1.0})
        self.assertEqual(fit({"finite": 9, "min": -0.0442, "max": 0.0441, "mean": 0.0001, "std": 0.0255}),
                         {"kind": "uniform", "low": -0.044, "high": 0.044})
        self.assertEqual(fit({"finite": 9, "min": -40.0, "max": 41.0, "mean": -0.003, "std": 8.2}),
                         {"kind": "normal", "mean": 0.0, "std": 8.2})


class CaptureDirectory(unittest.TestCase):
    def gemm(self, h, launches, event_us):
        rec = copy.deepcopy(load_record("gemm_leakyrelu"))
        rec.update(hash=h, launches=launches, event_time_us=event_us)
        return rec

    def test_duplicate_kernels_and_shared_symbols(self):
        a = self.gemm("h1", 3, 30.0)
        b = self.gemm("h1", 2, 20.0)  # the same kernel in another process
        c = self.gemm("h2", 1, 50.0)  # another specialisation of the same symbol
        procs = [process([a, c], total=400.0, per_name={"gemm_leakyrelu": 90.0, "sgemm": 200.0}),
                 process([b], total=100.0, per_name={"gemm_leakyrelu": 60.0})]
        cubin = load_cubin("gemm_leakyrelu")
        cap, spec_files, cubins, _v = capture_json.build_capture(procs, ["python", "train.py"],
                                                                 {"h1": cubin, "h2": cubin})
        self.assertEqual(cap["skipped"], [])
        names = sorted(k["name"] for k in cap["kernels"])
        self.assertEqual(names, ["gemm_leakyrelu", "gemm_leakyrelu_2"])
        by = {k["name"]: k for k in cap["kernels"]}
        self.assertEqual(by["gemm_leakyrelu"]["launches"], 5)
        self.assertEqual(by["gemm_leakyrelu_2"]["launches"], 1)
        # the symbol's profiled 150 us, split by event time 50:50
        self.assertAlmostEqual(by["gemm_leakyrelu"]["gpu_time_us"], 75.0)
        self.assertEqual(cap["total_gpu_time_us"], 500.0)
        self.assertAlmostEqual(by["gemm_leakyrelu"]["time_share"], 0.15)
        self.assertLessEqual(sum(k["time_share"] for k in cap["kernels"]), 1.0)
        self.assertEqual(by["gemm_leakyrelu_2"]["cubin"], "gemm_leakyrelu_2.sm_90.cubin")
        self.assertEqual(cubins["gemm_leakyrelu_2.sm_90.cubin"], cubin)
        self.assertEqual(spec_files["gemm_leakyrelu_2.launch.json"]["name"], "gemm_leakyrelu_2")
        self.assertEqual(spec_files["gemm_leakyrelu_2.launch.json"]["kernel"], "gemm_leakyrelu")
        self.assertEqual(cap["time_source"], capture_json.PROFILER_SOURCE)

    def test_shares_without_profiler_sum_to_one_at_most(self):
        recs = [self.gemm(f"h{i}", 1, us) for i, us in enumerate((1.0, 2.0, 4.0))]
        cubin = load_cubin("gemm_leakyrelu")
        cap, _s, _c, _v = capture_json.build_capture([process(recs)], ["p"], {f"h{i}": cubin for i in range(3)})
        self.assertEqual(cap["total_gpu_time_us"], 7.0)
        self.assertEqual(cap["time_source"], capture_json.EVENTS_SOURCE)
        shares = [k["time_share"] for k in cap["kernels"]]
        self.assertEqual([k["name"] for k in cap["kernels"]],
                         ["gemm_leakyrelu_3", "gemm_leakyrelu_2", "gemm_leakyrelu"])  # by time
        self.assertLessEqual(sum(shares), 1.0)
        self.assertGreater(sum(shares), 0.99999)

    def test_processes_without_kernels_keep_profiled_times(self):
        """Compile workers write records without kernels or profiler figures: the profiled time stands."""
        procs = [process([record(h="a", event_us=5.0)], total=100.0, per_name={"triton_poi_fused_add_0": 20.0}),
                 process([], device=None)]
        cap, _specs, _cubins, _v = capture_json.build_capture(procs, ["p"], {"a": b"x"})
        self.assertEqual(cap["time_source"], capture_json.PROFILER_SOURCE)
        self.assertEqual(cap["device"], "NVIDIA H200")
        self.assertAlmostEqual(cap["total_gpu_time_us"], 100.0)

    def test_missing_cubin_is_skipped(self):
        cap, _s, _c, _v = capture_json.build_capture([process([self.gemm("h1", 1, 1.0)])], ["p"], {})
        self.assertEqual(cap["kernels"], [])
        self.assertEqual(cap["skipped"][0]["reason"], "the cubin was not recorded")

    def test_write_and_read_back(self):
        gemm = load_record("gemm_leakyrelu")
        alias = record(name="triton_poi_fused_bad_1", h="h9", args=[
            tensor_arg("in_ptr0", 1 << 20, 4096), tensor_arg("out_ptr0", (1 << 20) + 4000, 4096, changed=True)])
        with tempfile.TemporaryDirectory() as d:
            raw = os.path.join(d, "raw")
            os.makedirs(raw)
            with open(os.path.join(raw, "1.records.json"), "w") as f:
                json.dump(process([gemm, alias], total=2000.0, per_name={"gemm_leakyrelu": 1500.0}), f)
            with open(os.path.join(raw, f"{gemm['hash']}.cubin"), "wb") as f:
                f.write(load_cubin("gemm_leakyrelu"))
            with open(os.path.join(raw, "2.records.json"), "w") as f:
                f.write("{truncated")
            procs, cubins, problems = capture_json.read_records(raw)
            self.assertEqual(len(procs), 1)
            self.assertEqual(len(problems), 1)
            cap, s, c, v = capture_json.build_capture(procs, ["python", "t.py"], cubins, date="2026-11-26T23:00:00Z",
                                                      raw_dir=raw)
            capture_json.write_capture(d, cap, s, c, v)
            with open(os.path.join(d, "capture.json")) as f:
                back = json.load(f)
            self.assertEqual(back["format"], "sassx-capture")
            self.assertEqual(back["version"], 1)
            self.assertEqual(back["program"], ["python", "t.py"])
            self.assertEqual(back["device"], "NVIDIA H200")
            k = back["kernels"][0]
            self.assertEqual(set(k), {"name", "hash", "spec", "cubin", "launches", "gpu_time_us", "time_share",
                                      "triton_cache_dir", "origin"})
            self.assertEqual(k["origin"], "triton")
            self.assertEqual(k["hash"], gemm["hash"])  # Triton's kernel hash: what `time --tune-dir` matches
            self.assertEqual(k["time_share"], 0.75)
            self.assertTrue(os.path.isfile(os.path.join(d, k["spec"])))
            with open(os.path.join(d, k["cubin"]), "rb") as f:
                self.assertEqual(f.read(), load_cubin("gemm_leakyrelu"))
            with open(os.path.join(d, k["spec"])) as f:
                self.assertEqual(json.load(f)["cubin"], k["cubin"])
            self.assertEqual([x["name"] for x in back["skipped"]], ["triton_poi_fused_bad_1"])
            self.assertIn("share memory", back["skipped"][0]["reason"])


    def test_recorded_values_and_aliases_in_the_directory(self):
        stats = {"numel": 1024, "zero": False, "finite": 1024, "min": -4.0, "max": 4.1, "mean": 0.0, "std": 1.0}
        inplace = record(name="rmsnorm_bwd", h="hi", args=[
            tensor_arg("dY", 1 << 20, 4096, changed=True, stats=stats), tensor_arg("X", 2 << 20, 4096),
            tensor_arg("dX", 1 << 20, 4096, changed=True, stats=stats)])
        loss, gone = loss_record("hl"), loss_record("hg")
        gone["name"] = "triton_red_fused_nll_loss_1"
        with tempfile.TemporaryDirectory() as d:
            raw = os.path.join(d, "raw")
            os.makedirs(raw)
            with open(os.path.join(raw, "hl.arg1.bin.z"), "wb") as f:
                f.write(zlib.compress(LABELS))
            cubins = {"hi": b"cubin-i", "hl": b"cubin-l", "hg": b"cubin-g"}
            # stand-in cubins: the specs are written without their KPARAM_INFO check
            orig = capture_json.spec_from_record
            with mock.patch.object(capture_json, "spec_from_record",
                                   lambda rec, name, _cubin, *rest: orig(rec, name, None, *rest)):
                cap, s, c, v = capture_json.build_capture([process([inplace, loss, gone])], ["p"], cubins,
                                                          raw_dir=raw)
            by = {k["name"]: k for k in cap["kernels"]}
            self.assertEqual(by["rmsnorm_bwd"]["aliases"], ["dX"])
            self.assertEqual(by["triton_red_fused_nll_loss_0"]["recorded_values"], ["labels"])
            self.assertNotIn("recorded_values", by["rmsnorm_bwd"])
            # the values file vanished from raw/: refused with the parameter named
            self.assertEqual(cap["skipped"], [{"name": "triton_red_fused_nll_loss_1", "launches": 1,
                                               "reason": "the recorded values of labels are missing from raw/ "
                                                         "(hg.arg1.bin.z)",
                                               "gpu_time_us": 10.0, "time_share": cap["skipped"][0]["time_share"]}])
            capture_json.write_capture(d, cap, s, c, v)
            with open(os.path.join(d, "triton_red_fused_nll_loss_0.launch.json")) as f:
                init = json.load(f)["params"][1]["init"]
            with open(os.path.join(d, init["file"]), "rb") as f:
                data = zlib.decompress(f.read())
            self.assertEqual(len(data), init["bytes"])
            self.assertEqual(hashlib.sha256(data).hexdigest(), init["sha256"])
            self.assertEqual(array.array("q", data)[3], -100)
            from sassx_capture.runner import summary
            text = summary(cap, d)
            self.assertIn("triton_red_fused_nll_loss_0  (recorded values: labels)", text)
            self.assertIn("rmsnorm_bwd  (aliased: dX)", text)

    def test_specs_command_rebuilds_the_directory(self):
        gemm = load_record("gemm_leakyrelu")
        with tempfile.TemporaryDirectory() as d:
            raw = os.path.join(d, "raw")
            os.makedirs(raw)
            with open(os.path.join(raw, "7.records.json"), "w") as f:
                json.dump(process([gemm], total=None, per_name=None), f)
            with open(os.path.join(raw, f"{gemm['hash']}.cubin"), "wb") as f:
                f.write(load_cubin("gemm_leakyrelu"))
            env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "app", "capture"))
            r = subprocess.run([sys.executable, "-m", "sassx_capture", "specs", d], env=env, capture_output=True,
                               text=True, timeout=60)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("captured 1 kernels (0 skipped)", r.stdout)
            with open(os.path.join(d, "capture.json")) as f:
                cap = json.load(f)
            self.assertEqual(cap["program"], ["train.py"])  # the recorded argv when there was no capture.json
            with open(os.path.join(d, "gemm_leakyrelu.launch.json")) as f, \
                    open(os.path.join(CAPTURED, "gemm_leakyrelu.launch.json")) as g:
                self.assertEqual(json.load(f)["params"], json.load(g)["params"])
            r = subprocess.run([sys.executable, "-m", "sassx_capture", "specs", raw], env=env, capture_output=True,
                               text=True, timeout=60)
            self.assertEqual(r.returncode, 1)
            self.assertIn("holds no kernel: no Python process of the program imported triton", r.stderr)


FAKE_TRITON = {
    "triton/__init__.py": "__version__ = '3.6.0'\nfrom . import compiler, knobs\n",
    "triton/knobs.py": textwrap.dedent("""
        class HookChain:
            def __init__(self):
                self.calls = []
            def add(self, f):
                self.calls.append(f)
        class runtime:
            launch_enter_hook = HookChain()
            launch_exit_hook = HookChain()
        """),
    "triton/tools.py": "",
    "triton/compiler/__init__.py": "from . import compiler\n",
    "triton/compiler/compiler.py": textwrap.dedent("""
        class CompiledKernel:
            def launch_metadata(self, grid, stream, *args):
                return None
        """),
}

# Inductor's static launcher, as far as the recorder sees it: a class whose run goes to the driver.
FAKE_STATIC_LAUNCHER = {
    "torch/__init__.py": "",
    "torch/_inductor/__init__.py": "",
    "torch/_inductor/runtime/__init__.py": "",
    "torch/_inductor/runtime/static_triton_launcher.py": textwrap.dedent("""
        import triton
        class StaticallyLaunchedCudaKernel:
            def __init__(self, name):
                self.name = name
            def run(self, *args):
                return len(args)
        """),
}

PRINT_WRAPPED = textwrap.dedent("""
    import triton
    from triton.compiler.compiler import CompiledKernel
    print("wrapped", getattr(CompiledKernel.launch_metadata, "_sassx_capture", False))
    print("hooks", len(triton.knobs.runtime.launch_enter_hook.calls),
          len(triton.knobs.runtime.launch_exit_hook.calls))
    """)


class Bootstrap(unittest.TestCase):
    """`python -m sassx_capture -- PROGRAM` reaches the program's own Python: the hooks are in place as soon
    as it imports triton (a stand-in here: no GPU), and nothing else is imported for it."""

    def run_capture(self, program_text, tmp, extra=None):
        for rel, text in list(FAKE_TRITON.items()) + list((extra or {}).items()):
            path = os.path.join(tmp, "site", rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
        prog = os.path.join(tmp, "prog.py")
        with open(prog, "w") as f:
            f.write(program_text)
        env = dict(os.environ, PYTHONPATH=os.path.join(tmp, "site"))
        env["PYTHONPATH"] = os.pathsep.join([os.path.join(ROOT, "app", "capture"), env["PYTHONPATH"]])
        return subprocess.run([sys.executable, "-m", "sassx_capture", "-o", os.path.join(tmp, "out"), "--",
                               sys.executable, prog], env=env, capture_output=True, text=True, timeout=60)

    def test_hooks_installed_at_triton_import(self):
        with tempfile.TemporaryDirectory() as tmp:
            r = self.run_capture(textwrap.dedent("""
                import sys
                assert "triton" not in sys.modules and "torch" not in sys.modules
                import triton
                from triton.compiler.compiler import CompiledKernel
                print("wrapped", getattr(CompiledKernel.launch_metadata, "_sassx_capture", False))
                print("hooks", len(triton.knobs.runtime.launch_enter_hook.calls),
                      len(triton.knobs.runtime.launch_exit_hook.calls))
                print("torch", "torch" in sys.modules)
                """), tmp)
            self.assertIn("wrapped True", r.stdout, r.stderr)
            self.assertIn("hooks 1 1", r.stdout)
            self.assertIn("torch False", r.stdout)
            # no kernel launched: a one-line error that says so, exit 1, no capture.json
            self.assertEqual(r.returncode, 1)
            self.assertIn("nothing captured: triton was imported in 1 process and its launch hooks were "
                          "installed, but no Triton kernel was launched", r.stderr)
            self.assertFalse(os.path.exists(os.path.join(tmp, "out", "capture.json")))

    def test_hooks_installed_after_find_spec_lookups(self):
        """torch.cuda's initialisation looks triton up with importlib.util.find_spec before anything imports
        it (torch.compile'd programs): the hook must wait for the real import."""
        with tempfile.TemporaryDirectory() as tmp:
            r = self.run_capture(textwrap.dedent("""
                import importlib.util, sys
                assert importlib.util.find_spec("triton") is not None
                assert importlib.util.find_spec("triton") is not None
                assert "triton" not in sys.modules
                """) + PRINT_WRAPPED, tmp)
            self.assertIn("wrapped True", r.stdout, r.stderr)
            self.assertIn("hooks 1 1", r.stdout)

    def test_hooks_installed_on_import_through_spec(self):
        """A lazy import (find_spec, module_from_spec, exec_module) runs the hook too."""
        with tempfile.TemporaryDirectory() as tmp:
            r = self.run_capture(textwrap.dedent("""
                import importlib.util, sys
                spec = importlib.util.find_spec("triton")
                mod = importlib.util.module_from_spec(spec)
                sys.modules["triton"] = mod
                spec.loader.exec_module(mod)
                """) + PRINT_WRAPPED, tmp)
            self.assertIn("wrapped True", r.stdout, r.stderr)

    def test_triton_imported_past_the_hook(self):
        """triton imported while the hook was away: the recorder starts at the next triton submodule."""
        with tempfile.TemporaryDirectory() as tmp:
            r = self.run_capture(textwrap.dedent("""
                import sys
                away = [f for f in sys.meta_path if getattr(f, "wants", None) and f.wants("triton")]
                assert len(away) == 1
                for f in away:
                    sys.meta_path.remove(f)
                import triton
                from triton.compiler.compiler import CompiledKernel
                print("before", getattr(CompiledKernel.launch_metadata, "_sassx_capture", False))
                sys.meta_path[:0] = away
                import triton.tools
                """) + PRINT_WRAPPED, tmp)
            self.assertIn("before False", r.stdout, r.stderr)
            self.assertIn("wrapped True", r.stdout, r.stderr)
            self.assertIn("hooks 1 1", r.stdout)

    def test_launches_past_launch_metadata_are_reported(self):
        """Launches the enter hook saw without launch_metadata: the message counts them by kernel."""
        with tempfile.TemporaryDirectory() as tmp:
            r = self.run_capture(PRINT_WRAPPED + textwrap.dedent("""
                rt = triton.knobs.runtime
                for i in range(12):
                    md = {"name": "triton_tem_fused_flex_attention_0" if i % 3 else "triton_poi_fused_0"}
                    for f in rt.launch_enter_hook.calls:
                        f(md)
                    for f in rt.launch_exit_hook.calls:
                        f(md)
                """), tmp)
            self.assertEqual(r.returncode, 1)
            self.assertIn("nothing captured: Triton's launch hook saw 12 launches of 2 kernels "
                          "(triton_tem_fused_flex_attention_0, triton_poi_fused_0) that never called "
                          "CompiledKernel.launch_metadata", r.stderr)
            self.assertNotIn("no Triton kernel was launched", r.stderr)

    def test_static_launcher_launches_are_reported(self):
        with tempfile.TemporaryDirectory() as tmp:
            r = self.run_capture(textwrap.dedent("""
                from torch._inductor.runtime.static_triton_launcher import StaticallyLaunchedCudaKernel
                k = StaticallyLaunchedCudaKernel("triton_red_fused_sum_0")
                for _ in range(3):
                    assert k.run(1, 1, 1, None) == 4
                """), tmp, extra=FAKE_STATIC_LAUNCHER)
            self.assertEqual(r.returncode, 1)
            self.assertIn("Inductor's static launcher ran 3 launches of 1 kernels (triton_red_fused_sum_0)",
                          r.stderr)
            raw = os.path.join(tmp, "out", "raw")
            records = [fn for fn in os.listdir(raw) if fn.endswith(".records.json")]
            with open(os.path.join(raw, records[0])) as f:
                hooks = json.load(f)["hooks"]
            self.assertEqual(hooks["static_launcher_launches"], {"triton_red_fused_sum_0": 3})
            self.assertTrue(hooks["installed"])

    def test_program_without_triton(self):
        with tempfile.TemporaryDirectory() as tmp:
            r = self.run_capture("import importlib.util\nimportlib.util.find_spec('triton')\n", tmp)
            self.assertEqual(r.returncode, 1)
            self.assertIn("nothing captured: no Python process of the program imported triton", r.stderr)

    def test_failing_program_status_is_returned(self):
        with tempfile.TemporaryDirectory() as tmp:
            r = self.run_capture("import sys\nsys.exit(3)\n", tmp)
            self.assertEqual(r.returncode, 3)
            self.assertIn("exited with status 3", r.stderr)

    def test_explain_empty(self):
        from sassx_capture.runner import explain_empty

        def proc(**hooks):
            h = {"installed": True, "problem": None, "launch_metadata_calls": 0, "enter_hook_calls": 0,
                 "graph_launches": 0, "hook_only_launches": {}, "static_launcher_launches": {}}
            h.update(hooks)
            return dict(process([]), hooks=h)

        self.assertIn("no Python process of the program imported triton", explain_empty([], 0))
        self.assertTrue(explain_empty([], 2).endswith("the program exited with status 2"))
        msg = explain_empty([proc(installed=False, problem="Triton 2.1 has no CompiledKernel.launch_metadata")], 0)
        self.assertIn("hooks were not installed: Triton 2.1 has no CompiledKernel.launch_metadata", msg)
        msg = explain_empty([proc(graph_launches=40, launch_metadata_calls=40)], 0)
        self.assertIn("40 Triton launches happened during CUDA-graph capture", msg)
        # counts add up over processes; a compile worker that launched nothing adds nothing
        msg = explain_empty([proc(hook_only_launches={"a": 2}), proc(hook_only_launches={"a": 1, "b": 5}),
                             proc()], 0)
        self.assertIn("saw 8 launches of 2 kernels (b, a)", msg)
        msg = explain_empty([proc(), proc()], 0)
        self.assertIn("imported in 2 processes and its launch hooks were installed, but no Triton kernel", msg)

    def test_child_environment(self):
        env = child_environment("/x/raw", {"profiler": False}, base={"PYTHONPATH": "/mine"})
        paths = env["PYTHONPATH"].split(os.pathsep)
        self.assertTrue(paths[0].endswith(os.path.join("sassx_capture", "boot")))
        self.assertEqual(paths[-1], "/mine")
        self.assertEqual(env["TORCHINDUCTOR_USE_STATIC_CUDA_LAUNCHER"], "0")
        self.assertEqual(json.loads(env["SASSX_CAPTURE_OPTIONS"]), {"profiler": False})


class FakeEvent:
    clock = [0.0]

    def __init__(self, enable_timing=False):
        self.t = None

    def record(self):
        FakeEvent.clock[0] += 0.004  # ms: each event 4 us after the last
        self.t = FakeEvent.clock[0]

    def query(self):
        return True

    def synchronize(self):
        pass

    def elapsed_time(self, end):
        return end.t - self.t


class FakeTorch:
    """What the recorder asks of torch on a launch without tensor arguments."""
    class Tensor:
        pass

    class cuda:
        Event = FakeEvent
        capturing = False

        @staticmethod
        def is_current_stream_capturing():
            return FakeTorch.cuda.capturing

        @staticmethod
        def synchronize():
            pass

        @staticmethod
        def get_device_name():
            return "Fake GPU"


class FakeSource:
    def __init__(self, signature, arg_names, constants=None):
        self.signature = signature
        self.fn = type("Fn", (), {"arg_names": arg_names})()
        self.constants = constants or {}


class FakeKernel:
    def __init__(self, h, src, tmp=None):
        self.hash = h
        self.name = "k"
        self.src = src
        self.asm = {"cubin": b"\x7fELF-not-really"}
        self.metadata = {"name": "k", "num_warps": 4, "num_stages": 2, "shared": 0,
                         "target": {"backend": "cuda", "arch": 90, "warp_size": 32}}
        self.metadata_group = {}
        if tmp:
            entry = os.path.join(tmp, "cache", "ENTRY")
            os.makedirs(entry, exist_ok=True)
            for fn in ("k.cubin", "k.json"):
                with open(os.path.join(entry, fn), "wb") as f:
                    f.write(b"x")
            self.metadata_group = {"k.json": os.path.join(entry, "k.json"), "k.cubin": os.path.join(entry, "k.cubin")}


class RecorderWithoutGpu(unittest.TestCase):
    """The recorder's bookkeeping with stand-ins for torch and Triton's kernel objects (the tensor
    snapshots need a GPU and run on the device machine only)."""

    def recorder(self, tmp):
        from sassx_capture.recorder import Recorder
        r = Recorder(os.path.join(tmp, "raw"), use_profiler=False)
        r.torch = FakeTorch
        return r

    def test_align_jit_and_inductor_launches(self):
        from sassx_capture.recorder import Recorder
        r = Recorder("/nonexistent")
        # Triton's JIT launch: every parameter, constexprs too, in the signature's order
        src = FakeSource({"x": "*fp32", "n": "i32", "B": "constexpr"}, ["x", "n", "B"])
        pairs, problem = r._align(FakeKernel("h", src), (None, 7, 128))
        self.assertIsNone(problem)
        self.assertEqual(pairs, [("x", "*fp32", None), ("n", "i32", 7), ("B", "constexpr", 128)])
        # a constexpr missing from the signature but among the constants (older Triton)
        src = FakeSource({"x": "*fp32", "n": "i32"}, ["x", "n", "B"], constants={"B": 128})
        pairs, problem = r._align(FakeKernel("h", src), (None, 7, 128))
        self.assertEqual(pairs[2], ("B", "constexpr", 128))
        # runtime arguments only (signature indexed by position)
        src = FakeSource({0: "*fp32", 1: "i32", 2: "constexpr"}, ["x", "n", "B"])
        pairs, problem = r._align(FakeKernel("h", src), (None, 7))
        self.assertEqual(pairs, [("x", "*fp32", None), ("n", "i32", 7)])
        pairs, problem = r._align(FakeKernel("h", src), (None,))
        self.assertIsNone(pairs)
        self.assertIn("1 launch arguments for a signature of 3", problem)

    def test_launches_counted_timed_and_written(self):
        with tempfile.TemporaryDirectory() as tmp:
            r = self.recorder(tmp)
            src = FakeSource({"x": "*fp32", "n": "i32", "s": "fp32", "B": "constexpr"}, ["x", "n", "s", "B"])
            k = FakeKernel("abc123", src, tmp)
            for _ in range(3):
                r.before_launch(k, (4, 2), (None, 7, 0.5, 64))
                r.enter()
                r.exit()
            FakeTorch.cuda.capturing = True
            try:
                r.before_launch(k, (4,), (None, 7, 0.5, 64))
                r.enter()
                r.exit()
            finally:
                FakeTorch.cuda.capturing = False
            data = r.finish()
            self.assertEqual(r.warnings[-1][:2], "1 ")  # the launch during graph capture, said
            rec = data["kernels"][0]
            self.assertEqual(rec["launches"], 3)
            self.assertAlmostEqual(rec["event_time_us"], 12.0)
            self.assertEqual(rec["grid"], [4, 2, 1])
            self.assertEqual(rec["arch"], 90)
            self.assertEqual(rec["cache_entry"], os.path.join(tmp, "cache", "ENTRY"))
            self.assertEqual([a["kind"] for a in rec["args"]], ["none", "int", "float", "constexpr"])
            self.assertIsNone(data["total_gpu_time_us"])
            with open(os.path.join(tmp, "raw", "abc123.cubin"), "rb") as f:
                self.assertEqual(f.read(), k.asm["cubin"])
            with open(os.path.join(tmp, "raw", f"{os.getpid()}.records.json")) as f:
                self.assertEqual(json.load(f)["kernels"][0]["launches"], 3)
            spec, reason = specs.spec_from_record(rec, "k")
            self.assertIsNone(reason)
            self.assertEqual(spec["params"], [{"name": "x", "kind": "null"},
                                              {"name": "n", "kind": "scalar", "dtype": "i32", "value": 7},
                                              {"name": "s", "kind": "scalar", "dtype": "f32", "value": 0.5}])

    def test_integer_inputs_are_recorded(self):
        """The first launch's integer inputs go to raw/ as zlib files with their size and SHA-256; a kernel's
        values past --max-values-mib are not written, and the record says why."""
        class Snapshot:
            def __init__(self, data):
                self.data = data

            def numpy(self):
                return self.data

        with tempfile.TemporaryDirectory() as tmp:
            from sassx_capture.recorder import Recorder
            r = Recorder(os.path.join(tmp, "raw"), use_profiler=False, max_values_bytes=3000)
            os.makedirs(r.raw_dir)
            labels = {"name": "labels", "dtype": "torch.int64", "stats": {"min": -100, "max": 31995}}
            logits = {"name": "logits", "dtype": "torch.float32", "stats": {"min": -1.0, "max": 1.0}}
            const = {"name": "n", "dtype": "torch.int32", "stats": {"min": 7, "max": 7}}
            big = {"name": "idx", "dtype": "torch.int32", "stats": {"min": 0, "max": 9}}
            rec = {"hash": "hh", "args": [logits, labels, const, big]}
            r._record_values(rec, [(logits, Snapshot(array.array("b", b"\0" * 64))),
                                   (labels, Snapshot(array.array("b", LABELS))),
                                   (const, Snapshot(array.array("b", b"\7" * 16))),
                                   (big, Snapshot(array.array("b", b"\1" * 2048)))])
            self.assertEqual(labels["values"], {"file": "hh.arg1.bin.z", "bytes": 2048,
                                                "sha256": hashlib.sha256(LABELS).hexdigest()})
            with open(os.path.join(tmp, "raw", "hh.arg1.bin.z"), "rb") as f:
                self.assertEqual(zlib.decompress(f.read()), LABELS)
            self.assertNotIn("values", logits)  # floats keep their fitted draws
            self.assertNotIn("values", const)   # one value: a constant
            self.assertNotIn("values", big)
            self.assertIn("--max-values-mib", big["values_problem"])

    def test_enter_without_launch_metadata_is_counted(self):
        with tempfile.TemporaryDirectory() as tmp:
            r = self.recorder(tmp)
            src = FakeSource({"x": "*fp32", "n": "i32"}, ["x", "n"])
            k = FakeKernel("h1", src, tmp)
            r.before_launch(k, (1,), (None, 3))
            r.enter({"name": "k"})
            r.exit()
            lazy = type("LazyDict", (), {})()
            lazy.data = {"name": "triton_tem_fused_0"}
            for md in (lazy, lazy, None):  # launches that bypassed launch_metadata
                r.enter(md)
                r.exit(md)
            rep = r.hooks_report()
            self.assertEqual(rep["launch_metadata_calls"], 1)
            self.assertEqual(rep["enter_hook_calls"], 4)
            self.assertEqual(rep["hook_only_launches"]["triton_tem_fused_0"], 2)
            self.assertEqual(sum(rep["hook_only_launches"].values()), 3)
            self.assertEqual(r.kernels["h1"]["launches"], 1)
            data = r.finish()
            self.assertEqual(data["hooks"]["enter_hook_calls"], 4)
            self.assertTrue(any("did not call CompiledKernel.launch_metadata" in w for w in data["warnings"]))

    def test_empty_process_is_written(self):
        """A process that imported triton and launched nothing (a compile worker) still says so."""
        with tempfile.TemporaryDirectory() as tmp:
            from sassx_capture.recorder import Recorder
            r = Recorder(os.path.join(tmp, "raw"), use_profiler=False, write_empty=True)
            data = r.finish()
            self.assertEqual(data["kernels"], [])
            self.assertFalse(data["hooks"]["installed"])
            self.assertTrue(os.path.exists(os.path.join(tmp, "raw", f"{os.getpid()}.records.json")))

    def test_failed_first_launch_keeps_its_reason(self):
        with tempfile.TemporaryDirectory() as tmp:
            r = self.recorder(tmp)
            k = FakeKernel("bad", None)
            k.metadata = None  # no metadata at all
            r.before_launch(k, (1,), ())
            r.enter()
            r.exit()
            rec = r.kernels["bad"]
            self.assertEqual(rec["launches"], 1)
            spec, reason = specs.spec_from_record(rec, "k")
            self.assertIsNone(spec)
            self.assertTrue(reason)


class Timing(unittest.TestCase):
    def test_median_interval(self):
        lo, hi, cov = stats.median_interval([5.0, 1.0, 3.0, 2.0, 4.0])
        self.assertEqual((lo, hi), (1.0, 5.0))
        self.assertAlmostEqual(cov, 1 - 2 / 32)
        lo, hi, cov = stats.median_interval(list(range(1, 21)))
        self.assertGreaterEqual(cov, 0.95)
        self.assertEqual((lo, hi), (6, 15))  # n=20: x_(6)..x_(15), coverage 95.9%

    def test_values_from_output_and_speedup(self):
        text = "compiling\nstep_ms=10.0\nstep_ms=4.0\nstep_ms=4.5 loss=1\n"
        self.assertEqual(timing.values_from_output(text, r"step_ms=([0-9.]+)", skip=1), [4.0, 4.5])
        base = {"median": 4.0, "interval": [3.8, 4.2]}
        now = {"median": 2.0, "interval": [1.9, 2.1]}
        s = timing.compare(now, base)
        self.assertAlmostEqual(s["speedup"], 2.0)
        self.assertAlmostEqual(s["interval"][0], 3.8 / 2.1)
        self.assertAlmostEqual(s["noise_floor"], 0.05)

    def test_time_command(self):
        env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "app", "capture"))
        r = subprocess.run([sys.executable, "-m", "sassx_capture", "time", "--runs", "3", "--json", "--pattern",
                            r"step_ms=([0-9.]+)", "--", sys.executable, "-c", "print('step_ms=2.5')"],
                           env=env, capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        out = json.loads(r.stdout)
        self.assertEqual(out["values"], [2.5, 2.5, 2.5])
        self.assertEqual(out["median"], 2.5)
        r = subprocess.run([sys.executable, "-m", "sassx_capture", "time", "--runs", "1", "--", sys.executable, "-c",
                            "raise SystemExit(2)"], env=env, capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 1)
        self.assertIn("run 1: exited with status 2", r.stderr)

    def test_interleaved_before_after(self):
        # The program's step time is whatever state file the setup commands last wrote: 4.0 before, 3.2
        # after, so every pair's ratio is 1.25 and the runs alternate ABBA.
        env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "app", "capture"))
        with tempfile.TemporaryDirectory() as d:
            state, log = os.path.join(d, "state"), os.path.join(d, "log")
            prog = (f"import sys; v=open({state!r}).read(); open({log!r},'a').write(v+' '); "
                    "print('step_ms=' + {'b': '4.0', 'a': '3.2'}[v])")
            cmd = [sys.executable, "-m", "sassx_capture", "time", "--runs", "4", "--json", "--pattern",
                   r"step_ms=([0-9.]+)", "--before", f"printf b > {state}", "--after", f"printf a > {state}",
                   "--", sys.executable, "-c", prog]
            r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
            self.assertEqual(r.returncode, 0, r.stderr)
            out = json.loads(r.stdout)
            self.assertEqual(open(log).read().split(), ["b", "a", "a", "b", "b", "a", "a", "b"])
            self.assertEqual(out["before"]["values"], [4.0] * 4)
            self.assertEqual(out["after"]["values"], [3.2] * 4)
            self.assertEqual(len(out["speedup"]["ratios"]), 4)
            self.assertAlmostEqual(out["speedup"]["median"], 1.25)
            text = subprocess.run([c for c in cmd if c != "--json"], env=env, capture_output=True, text=True,
                                  timeout=120).stdout
            self.assertIn("speed-up 1.2500x", text)
            self.assertIn("faster after", text)
            # A failing setup stops the comparison: a wrong state must not be timed as the other.
            bad = cmd[:]
            bad[bad.index("--after") + 1] = "exit 3"
            r = subprocess.run(bad, env=env, capture_output=True, text=True, timeout=120)
            self.assertEqual(r.returncode, 1)
            self.assertIn("'exit 3' exited with status 3", r.stderr)
            r = subprocess.run(cmd[:6] + ["--before", "true", "--", "true"], env=env, capture_output=True,
                               text=True, timeout=60)
            self.assertEqual(r.returncode, 2)
            self.assertIn("--before and --after go together", r.stderr)


if __name__ == "__main__":
    unittest.main()
