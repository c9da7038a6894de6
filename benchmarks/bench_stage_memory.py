"""Benchmark: each stage's CPU seconds and memory high-water mark in one ``leaderboard`` run.

The command runs in this process; the pipeline's stages (below, or ``--stages
module:function,...``) are wrapped to add up their CPU seconds and wall time, and a thread reads
the process's resident set (``/proc/self/statm``) every 20 ms, so each stage's peak RSS and its
rise above the RSS at its start are known; ``--log`` prints every stage's entry and exit with the
RSS then (the order in which memory is taken and given back)::

    python benchmarks/bench_stage_memory.py [--log] [--stages ...] -- analyze board.csv \\
        --metric auc --n-test 10000 --prevalence 0.1 --quiet -o r.html --json r.json

The scores board of 100,000 entries is ``bench_scale_scores.board(100000, False)`` written to
CSV (as ``bench_goals.py`` writes it). Linux only (``/proc``).
"""
from __future__ import annotations

import argparse
import functools
import importlib
import os
import resource
import sys
import threading
import time

STAGES = ("leaderboard.pipelines.run:run_analysis,leaderboard.pipelines.scores:analyze,"
          "leaderboard.pipelines.assumptions:correlation_sweep,"
          "leaderboard.tiers.replicates:RankReplicates.normal,leaderboard.tiers.ranking:rank_board,"
          "leaderboard.tiers.stability:stability,leaderboard.tiers.winners_curse:winners_curse,"
          "leaderboard.tiers.closed_sets:simultaneous,leaderboard.tiers.closed_sets:marginal,"
          "leaderboard.tiers.closed_sets:best,leaderboard.tiers.closed_sets:_layout,"
          "leaderboard.pipelines.run:with_card,leaderboard.report.html:write_html,"
          "leaderboard.report.json_out:write_json")
PAGE = os.sysconf("SC_PAGE_SIZE")


def rss() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * PAGE / 2 ** 20


class _Frame:
    """One stage's call in progress (compared by identity: two may start at the same RSS)."""

    def __init__(self, start: float) -> None:
        self.peak = start


class Meter:
    def __init__(self) -> None:
        self.active: list[_Frame] = []
        self.peak = 0.0
        self.totals: dict[str, list[float]] = {}
        self.log: list[tuple] = []
        threading.Thread(target=self._sample, daemon=True).start()

    def _sample(self) -> None:
        while True:
            now = rss()
            self.peak = max(self.peak, now)
            for frame in list(self.active):
                frame.peak = max(frame.peak, now)
            time.sleep(0.02)

    def wrap(self, fn, name: str):
        @functools.wraps(fn)
        def timed(*args, **kwargs):
            cpu, wall, start = time.process_time(), time.perf_counter(), rss()
            frame = _Frame(start)
            self.active.append(frame)
            self.log.append((name, "in", start))
            try:
                return fn(*args, **kwargs)
            finally:
                self.active.remove(frame)
                end = rss()
                frame.peak = max(frame.peak, end)
                self.log.append((name, "out", end))
                t = self.totals.setdefault(name, [0, 0.0, 0.0, 0.0, 0.0])
                t[0] += 1
                t[1] += time.process_time() - cpu
                t[2] += time.perf_counter() - wall
                t[3] = max(t[3], frame.peak)
                t[4] = max(t[4], frame.peak - start)
        return timed


def install(meter: Meter, stages: str) -> None:
    for item in stages.split(","):
        module_name, attr = item.split(":")
        module = importlib.import_module(module_name)
        if "." in attr:   # a classmethod
            owner_name, method = attr.split(".")
            owner = getattr(module, owner_name)
            setattr(owner, method, classmethod(meter.wrap(getattr(owner, method).__func__, attr)))
            continue
        old = getattr(module, attr)
        new = meter.wrap(old, attr)
        for other in list(sys.modules.values()):   # names imported elsewhere too
            if getattr(other, "__name__", "").startswith("leaderboard") and \
                    getattr(other, attr, None) is old:
                setattr(other, attr, new)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stages", default=STAGES)
    parser.add_argument("--log", action="store_true", help="every entry and exit with its RSS")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    meter = Meter()
    from leaderboard.cli import main as cli
    install(meter, args.stages)
    cpu, wall = time.process_time(), time.perf_counter()
    try:
        cli(command)
    except SystemExit:
        pass
    print(f"run {time.process_time() - cpu:.2f} s CPU, {time.perf_counter() - wall:.1f} s wall; "
          f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:,.0f} MB "
          f"(load {os.getloadavg()[0]:.1f})")
    print(f"  {'stage':28s} {'calls':>5s} {'CPU s':>7s} {'wall s':>7s} {'peak MB':>8s} {'+MB':>6s}")
    for name, (calls, c, w, peak, rise) in sorted(meter.totals.items(), key=lambda x: -x[1][1]):
        print(f"  {name:28s} {calls:5d} {c:7.2f} {w:7.1f} {peak:8,.0f} {rise:6,.0f}")
    if args.log:
        for name, way, at in meter.log:
            print(f"    {name} {way} {at:,.0f} MB")


if __name__ == "__main__":
    main()
