"""Benchmark: submissions mode at scale, streamed (issue 16). Memory, time, and Dask vs in-process.

Generates its data in a temporary folder (deleted at the end unless --keep) and runs every case in
a child process of this run, so that each peak RSS is its own:

(a) 2,000 CSV files x 100,000 rows, AUC: the streamed run's RSS once 500 files and once all
    2,000 files are scored (memory must not grow with the files), its peak and time; the same
    500 files streamed, and read into memory first (every prediction held, then scored: the
    data flow before streaming), with the ratios. ``--baseline DIR`` also runs the in-memory
    case with the package found in DIR (a checkout of the code before streaming).
(b) 200 Parquet files x 1,000,000 rows, AUC: RSS at 50 and at 200 files, peak and time.
(c) ``leaderboard analyze`` on the 500 files of (a) in this process and on a local Dask cluster of
    two worker processes: the JSON outputs compared byte for byte, the wall times (cluster start
    included) and their ratio.

Replicates: 200 by default (the default of the command is 2,000; time grows linearly with them,
memory does not). The machine's cores are shared: times are noisy, ratios come from this run.

    python benchmarks/bench_streaming.py [--quick] [--replicates 200] [--dir /tmp] [--keep]
                                         [--baseline DIR]
    python benchmarks/bench_streaming.py --sizing 10000000    # per-entry costs at 10M rows

``--sizing ROWS`` measures one entry's costs at ROWS rows (reading CSV and Parquet, preparing,
scoring one replicate, drawing one replicate's weights) and extrapolates to 10,000 entries.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

FULL = {"a": (2000, 100_000, 500), "b": (200, 1_000_000, 50)}
QUICK = {"a": (200, 20_000, 50), "b": (20, 200_000, 5)}
BYTES_PER_ROW = {"csv": 15, "parquet": 12}   # measured on the generated files


def generate(folder: Path, files: int, rows: int, fmt: str, seed: int = 0) -> None:
    """A solution (10% positives, 30% public rows) and ``files`` submissions of varying skill,
    rows shuffled, written with pyarrow; a manifest of every file."""
    import pyarrow as pa
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    y = (rng.random(rows) < 0.1).astype(np.int64)
    ids = np.arange(1, rows + 1)
    usage = np.where(rng.random(rows) < 0.3, "Public", "Private")
    pcsv.write_csv(pa.table({"id": ids, "target": y, "Usage": usage}), folder / "solution.csv")
    shared = rng.standard_normal(rows)
    subs = folder / "subs"
    subs.mkdir()
    names = []
    for k in range(files):
        skill = 1.6 - 0.8 * k / max(files - 1, 1)
        score = skill * y + 0.7 * shared + 0.7 * rng.standard_normal(rows)
        order = rng.permutation(rows)
        table = pa.table({"id": ids[order],
                          "target": np.round(1 / (1 + np.exp(2 - score[order])), 6)})
        name = f"team{k:05d}.{fmt}"
        if fmt == "csv":
            pcsv.write_csv(table, subs / name)
        else:
            pq.write_table(table, subs / name)
        names.append(name)
    for count in {files, FULL["a"][2], QUICK["a"][2], FULL["b"][2], QUICK["b"][2]}:
        if count <= files:
            lines = ["team,file"] + [f"{Path(n).stem},{n}" for n in names[:count]]
            (subs / f"manifest_{count}.csv").write_text("\n".join(lines) + "\n")


def rss_mb() -> float:
    """This process's resident memory now (Linux /proc)."""
    with open(f"/proc/{os.getpid()}/status", encoding="ascii") as status:
        line = next(x for x in status if x.startswith("VmRSS"))
    return int(line.split()[1]) / 1024


def peak_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def child(mode: str, folder: str, manifest: str, replicates: int, marks: list[int]) -> None:
    """One case, in its own process: prints a JSON line of times and memory."""
    from leaderboard.metrics import get_metric
    from leaderboard.pipelines import submissions as pipeline
    from leaderboard.pipelines import submission_scoring
    from leaderboard.options import NoiseOptions, RankOptions
    from leaderboard.pipelines.scores import Settings
    from leaderboard.ingest.submissions import read_solution, read_submissions

    seen: dict[str, float] = {}
    if mode == "stream":   # record RSS as the files go by
        class Recording(submission_scoring.Progress):
            def advance(self, steps: int = 1) -> None:
                super().advance(steps)
                for mark in marks:
                    if self.done >= mark and str(mark) not in seen:
                        seen[str(mark)] = round(rss_mb())
        submission_scoring.Progress = Recording
    start = time.perf_counter()
    metric = get_metric("auc")
    solution = read_solution(Path(folder) / "solution.csv", kind=metric.kind,
                             max_bytes=2 ** 34)
    settings = Settings(metric, NoiseOptions(higher_is_better=True),
                        RankOptions(replicates=replicates))
    after_solution = rss_mb()
    path = Path(folder) / "subs" / manifest
    if mode == "stream":
        from leaderboard.ingest.submissions.files import list_submissions
        subs = list_submissions(path, solution, kind=metric.kind, max_bytes=2 ** 34)
    else:
        subs = read_submissions(path, solution, kind=metric.kind, max_bytes=2 ** 34)
        seen["all read"] = round(rss_mb())
    result = pipeline.analyze_submissions(solution, subs, settings)
    print(json.dumps({"seconds": time.perf_counter() - start, "peak_mb": round(peak_mb()),
                      "after_solution_mb": round(after_solution), "rss_mb": seen,
                      "entries": len(result.table),
                      "top": float(result.table["score"].iloc[0])}))


def run_child(args: list[str], pythonpath: str | None = None) -> dict:
    env = dict(os.environ)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    out = subprocess.run([sys.executable, __file__, "--child", *args], capture_output=True,
                         text=True, env=env, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def run_cli(folder: Path, manifest: str, replicates: int, out: Path, *extra: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "leaderboard", "analyze", "--solution",
                    str(folder / "solution.csv"), "--submissions",
                    str(folder / "subs" / manifest), "--metric", "auc", "--replicates",
                    str(replicates), "--json", str(out), "-o", str(out.with_suffix(".html")),
                    "--quiet", *extra], check=True)
    return time.perf_counter() - start


def sizing(root: Path, rows: int, replicates: int) -> None:
    """Per-entry costs at ``rows`` rows, measured once each, and what they extrapolate to for a
    competition of 10,000 submissions scored on 2,000 replicates (the command's default)."""
    from leaderboard.engine.work import Split
    from leaderboard.metrics import get_metric
    from leaderboard.noise.bootstrap import replicate_scores
    from leaderboard.noise.weights import count_block, resampling
    from leaderboard.ingest.safe_read import read_file
    from leaderboard.ingest.submissions import read_solution
    from leaderboard.ingest.submissions.validate import make_plan, validate

    generate(root, 1, rows, "parquet")
    (root / "csv").mkdir()
    generate(root / "csv", 1, rows, "csv")   # the same seed: the same solution and predictions
    clock = time.perf_counter
    start = clock()
    solution = read_solution(root / "solution.csv", kind="scores", max_bytes=2 ** 34)
    t_solution, mb_solution = clock() - start, rss_mb()
    plan = make_plan(solution, "scores")
    timings = {}
    for fmt, path in (("csv", root / "csv" / "subs" / "team00000.csv"),
                      ("parquet", root / "subs" / "team00000.parquet")):
        start = clock()
        prediction, _ = validate(read_file(path, max_bytes=2 ** 34), plan)
        timings[fmt] = clock() - start
    impl = get_metric("auc").impl
    split = Split("private", np.ones(rows, bool), solution.target, None, 2)
    before = rss_mb()
    start = clock()
    prepared = impl.prepare(split.y, [prediction])
    t_prepare, mb_prepared = clock() - start, rss_mb() - before
    plans = {how: resampling(split.y, how) for how in ("plain", "poisson")}
    t_weights = {}
    for how, plan_ in plans.items():
        start = clock()
        count_block(plan_, 0, 0)
        t_weights[how] = (clock() - start) / 32
    start = clock()
    replicate_scores(impl, prepared, plans["plain"], replicates, 0)
    t_replicate = (clock() - start) / replicates - t_weights["plain"]
    per_entry = timings["parquet"] + t_prepare + 2000 * t_replicate
    print(f"sizing at {rows:,} rows (one entry, AUC, {replicates} replicates measured): solution "
          f"{t_solution:.0f} s and {mb_solution:,.0f} MB; reading and validating one file "
          f"{timings['csv']:.1f} s CSV, {timings['parquet']:.1f} s Parquet; preparing "
          f"{t_prepare:.1f} s, {mb_prepared:,.0f} MB kept; scoring {t_replicate:.3f} s per "
          f"replicate; weights {t_weights['plain']:.3f} s per replicate (plain), "
          f"{t_weights['poisson']:.3f} (poisson), drawn once per batch")
    core_hours = 10_000 * per_entry / 3600
    print(f"  per entry at 2,000 replicates: {per_entry / 60:.1f} core-minutes; 10,000 entries: "
          f"{core_hours:,.0f} core-hours + weights {2000 * t_weights['plain'] / 60:.0f} "
          f"core-minutes per batch")


def case(folder: Path, name: str, files: int, rows: int, fmt: str, replicates: int) -> Path:
    """Generate one case's data into ``folder`` and say what it is."""
    folder.mkdir()
    start = time.perf_counter()
    generate(folder, files, rows, fmt)
    size = sum(f.stat().st_size for f in (folder / "subs").iterdir()) / 2**30
    print(f"{name} {files:,} {fmt} files x {rows:,} rows ({size:.2f} GB) generated in "
          f"{time.perf_counter() - start:.0f} s; AUC, {replicates} replicates")
    return folder


def streamed(folder: Path, files: int, part: int, replicates: int) -> dict:
    """The streamed run on every file, with its RSS after ``part`` files and after all."""
    out = run_child(["stream", str(folder), f"manifest_{files}.csv", str(replicates),
                     f"{part},{files}"])
    print(f"  streamed, {files:,} files: {out['seconds']:.0f} s, peak {out['peak_mb']:,} MB; "
          f"RSS {out['rss_mb'][str(part)]:,} MB after {part} files, "
          f"{out['rss_mb'][str(files)]:,} MB after {files:,} (solution read: "
          f"{out['after_solution_mb']:,} MB)")
    return out


def check_disk(where: Path, needed: int) -> None:
    free = shutil.disk_usage(where).free
    print(f"disk: {free / 2**30:.1f} GB free at {where}, about {needed / 2**30:.1f} GB needed")
    if free < 1.5 * needed:
        sys.exit("not enough free disk for the generated data: give --dir elsewhere or --quick")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes (a minute)")
    parser.add_argument("--replicates", type=int, default=200)
    parser.add_argument("--dir", default=tempfile.gettempdir(), help="where to generate")
    parser.add_argument("--keep", action="store_true", help="keep the generated data")
    parser.add_argument("--baseline", help="a checkout whose package runs the in-memory case too")
    parser.add_argument("--sizing", type=int, metavar="ROWS", help="only measure the per-entry "
                        "costs at ROWS rows (e.g. 10000000) and extrapolate to 10,000 entries")
    parser.add_argument("--child", nargs=5, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        mode, folder, manifest, replicates, marks = args.child
        return child(mode, folder, manifest, int(replicates),
                     [int(m) for m in marks.split(",") if m])
    if args.sizing:
        root = Path(tempfile.mkdtemp(prefix="bench-sizing-", dir=args.dir))
        check_disk(root, 3 * args.sizing * BYTES_PER_ROW["csv"])
        try:
            return sizing(root, args.sizing, min(args.replicates, 64))
        finally:
            shutil.rmtree(root, ignore_errors=True)
    sizes = QUICK if args.quick else FULL
    (files_a, rows_a, part_a), (files_b, rows_b, part_b) = sizes["a"], sizes["b"]
    root = Path(tempfile.mkdtemp(prefix="bench-streaming-", dir=args.dir))
    check_disk(root, files_a * rows_a * BYTES_PER_ROW["csv"]
               + files_b * rows_b * BYTES_PER_ROW["parquet"])
    R = args.replicates
    try:
        a = case(root / "a", "(a)", files_a, rows_a, "csv", R)
        full = streamed(a, files_a, part_a, R)
        part = run_child(["stream", str(a), f"manifest_{part_a}.csv", str(R), f"{part_a}"])
        memory = run_child(["memory", str(a), f"manifest_{part_a}.csv", str(R), ""])
        print(f"  {part_a} files streamed: {part['seconds']:.0f} s, peak {part['peak_mb']:,} MB; "
              f"read into memory first: {memory['seconds']:.0f} s, peak {memory['peak_mb']:,} MB "
              f"({memory['rss_mb']['all read']:,} MB once read)")
        print(f"  ratios: peak {files_a:,} / {part_a} files streamed "
              f"{full['peak_mb'] / part['peak_mb']:.2f}; {part_a} files, streamed / in memory: "
              f"peak {part['peak_mb'] / memory['peak_mb']:.2f}, time "
              f"{part['seconds'] / memory['seconds']:.2f}")
        assert full["entries"] == files_a and part["top"] == memory["top"]
        if args.baseline:
            before = run_child(["memory", str(a), f"manifest_{part_a}.csv", str(R), ""],
                               pythonpath=args.baseline)
            print(f"  the code in {args.baseline}, {part_a} files in memory: "
                  f"{before['seconds']:.0f} s, peak {before['peak_mb']:,} MB; streamed / it: "
                  f"peak {part['peak_mb'] / before['peak_mb']:.2f}, time "
                  f"{part['seconds'] / before['seconds']:.2f}")
            assert before["top"] == part["top"]

        alone = run_cli(a, f"manifest_{part_a}.csv", R, root / "alone.json")
        spread = run_cli(a, f"manifest_{part_a}.csv", R, root / "dask.json", "--workers", "2")
        same = (root / "alone.json").read_bytes() == (root / "dask.json").read_bytes()
        print(f"(c) analyze on {part_a} files, in this process {alone:.0f} s, on 2 local Dask "
              f"workers {spread:.0f} s (ratio {spread / alone:.2f}, cluster start included); "
              f"JSON identical byte for byte: {same}")
        assert same
        shutil.rmtree(a)

        streamed(case(root / "b", "(b)", files_b, rows_b, "parquet", R), files_b, part_b, R)
    finally:
        if args.keep:
            print(f"data kept in {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
