"""The report's charts as Vega-Lite specifications (built with Altair): one module per page's
charts (analyze, ranks, shakeup, curves, simulate, plan, choose), shared look and selection in
:mod:`~leaderboard.report.vega.common`, and the page embedding in
:mod:`~leaderboard.report.vega.embed`."""
