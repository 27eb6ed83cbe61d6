"""The timed loop the bench/tune programs share: untimed warm-up steps, then one `step_ms=...` line per
timed step (the pattern `sassx_capture time --pattern 'step_ms=([0-9.]+)'` reads), each step bracketed by
CUDA events and synchronised once at its end, so that a step's time is its GPU time plus what launching
it costs.  Returns the times (ms) and the last step's result."""
import statistics


def time_steps(torch, step, warmup, steps):
    for _ in range(warmup):
        step()
    torch.cuda.synchronize()
    times, result = [], None
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for _ in range(steps):
        start.record()
        result = step()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
        print(f"step_ms={times[-1]:.4f}", flush=True)
    return times, result


def summary(times, what):
    """One closing line: the number of steps, their median and what the program says of itself."""
    return f"summary: {len(times)} steps, median {statistics.median(times):.4f} ms, {what}"
