"""Grundy values of the subtraction game whose moves take 1, 3 or 4 counters from a heap.

Reads its parameters as JSON on standard input ({"heaps": N}) and writes its result as
JSON on standard output: the Grundy value of every heap of 0..N-1 counters, and the
period of the sequence with the heap size where it starts.

A heap's Grundy value is the least number that is not the value of a heap one move
away (the mex rule of Sprague and Grundy). The value of heap n depends only on the
values of the k heaps below it, k the largest move, so the sequence is periodic from the
first window of k values that has been seen before.
"""

import json
import sys

SUBTRACTION_SET = (1, 3, 4)


def mex(values):
    """The least non-negative integer not in `values`."""
    n = 0
    while n in values:
        n += 1
    return n


def grundy(heaps, moves):
    """The Grundy values of heaps 0, 1, 2, ... (at least `heaps` of them, and past the
    first repeated window), and (start, period) of the sequence."""
    k = max(moves)
    values = []
    seen = {}
    start = period = None
    while len(values) < heaps or period is None:
        n = len(values)
        values.append(mex({values[n - m] for m in moves if m <= n}))
        if period is None and len(values) >= k:
            window = tuple(values[-k:])
            at = len(values) - k
            if window in seen:
                start, period = seen[window], at - seen[window]
            else:
                seen[window] = at
        if len(values) % 1000 == 0:
            print(f"progress: {min(len(values), heaps)}/{heaps}", file=sys.stderr)
    return values, start, period


def main():
    params = json.load(sys.stdin)
    moves = sorted(SUBTRACTION_SET)
    heaps = params["heaps"]
    values, start, period = grundy(heaps, moves)
    json.dump(
        {
            "moves": moves,
            "values": values[:heaps],
            "period": period,
            "preperiod": start,
            "block": values[start : start + period],
        },
        sys.stdout,
    )


main()
