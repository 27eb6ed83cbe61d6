"""Order statistics shared by the step time and the kernel times: the median's interval and when it decides.

A verdict ("faster", "slower") needs both an interval that excludes 1.0 and a coverage of at least
MIN_COVERAGE: with fewer runs the widest interval (min..max) covers less (5 pairs: 93.8%, 3 pairs: 75%), and
about one unchanged kernel in four would look resolved by chance with 3 pairs.
"""
import math

MIN_COVERAGE = 0.95


def median_interval(values, level=MIN_COVERAGE):
    """(lo, hi, coverage): the widest-needed order statistics x_(k) <= median <= x_(n+1-k) whose
    coverage under any continuous distribution is >= level, or min..max with its coverage when n is too
    small for that level."""
    xs = sorted(values)
    n = len(xs)
    if n == 0:
        return None, None, 0.0
    best = (xs[0], xs[-1], 1.0 - 2.0 * 0.5 ** n)
    for k in range(1, n // 2 + 1):  # P(x_(k) <= m <= x_(n+1-k)) = 1 - 2 P(Binom(n, 1/2) < k)
        tail = sum(math.comb(n, i) for i in range(k)) * 0.5 ** n
        coverage = 1.0 - 2.0 * tail
        if coverage < level:
            break
        best = (xs[k - 1], xs[n - k], coverage)
    return best


def pairs_needed(level=MIN_COVERAGE):
    """The fewest values whose min..max covers the median with `level`: 6 for 95%."""
    n = 1
    while 1.0 - 2.0 * 0.5 ** n < level:
        n += 1
    return n


def resolved(lo, hi, coverage):
    """Whether an interval of a speed-up decides a difference: it excludes 1.0 and covers enough."""
    return lo is not None and coverage >= MIN_COVERAGE and (lo > 1.0 or hi < 1.0)


def verdict(lo, hi, coverage, faster="faster after", slower="slower after"):
    if lo is None:
        return "no pair"
    if lo <= 1.0 <= hi:
        return "not resolved (the interval contains 1.0)"
    if coverage < MIN_COVERAGE:
        return (f"not resolved ({coverage * 100:.1f}% coverage, below {MIN_COVERAGE * 100:.0f}%: "
                f"{pairs_needed()} pairs or more resolve it)")
    return faster if lo > 1.0 else slower
