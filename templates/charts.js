// Embeds every chart of the page (.lb-chart: a Vega-Lite specification in a JSON script element)
// and follows the page's one team selection, window.LB (templates/table.js; its contract is at
// the top of that file): every chart highlights the selected team through its `selected_team`
// signal, clicking a team's mark selects it (again: clears), and the charts that show the top of
// the board (usermeta lb_rows, lb_top) add the selected team's row, from LB.row, when it ranks
// below. Pages without LB (simulate, plan, choose) keep the selection among their charts. Charts
// marked lb_fit take the width of their box. Names are shown as the page shows them: bidi and
// control characters as [U+XXXX] (report/render.py, neutral_bidi), which the charts' data holds.
//
// A chart is drawn when it comes within a screen of the view (IntersectionObserver), not all on
// open: a page's 7-15 charts took 0.5-1 s of a 1.2-1.7 s open (benchmarks/bench_lazy_charts.py),
// and a phone reader may never scroll to most of them. A chart with a static drawing shows that
// until then. Before printing (beforeprint, or the print media turning on) every chart without
// a static drawing is drawn: the drawing ends in the same task (no network, no timer), so it is
// on paper. window.LBCharts.drawAll() draws every chart not drawn yet and resolves when all are
// done (a script that reads the charts, or saves the whole page, calls it first).
(() => {
  const LB = window.LB || null;
  const charts = [];   // {view, meta}
  let current = "";    // the selected team as the charts name it
  const UNSAFE = /[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u00ad\u034f\u180e\u200b-\u200d\u2060-\u2064\ufeff]/g;
  const shown = (name) => String(name).replace(UNSAFE, (c) =>
    "[U+" + c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0") + "]");
  let rawOf = null;    // a shown name -> the team's own name (LB's), built on the first click
  const rawName = (name) => {
    if (!LB) return name;
    if (rawOf === null) {
      rawOf = new Map();
      const at = LB.fields.indexOf("team");
      LB.data.forEach((row) => { if (!rawOf.has(shown(row[at]))) rawOf.set(shown(row[at]), row[at]); });
    }
    return rawOf.has(name) ? rawOf.get(name) : name;
  };
  // P(best) as the page writes it (report/vega/common.py, share_text)
  const share = (p) => {
    const x = 100 * p;
    if (x < 0.1) return "<0.1%";
    if (x > 99.9) return ">99.9%";
    return (x < 10 || x > 90 ? x.toFixed(1) : x.toFixed(0)) + "%";
  };
  // the table's row of the selected team, with the charts' field names (vega/analyze.py)
  const chartRow = (row) => {
    const out = {lb_extra: true, rank: row.rank, team: shown(row.team), score: row.score,
                 lo: row.ci_low, hi: row.ci_high, tier: row.tier, rlo: row.rank_low,
                 rhi: row.rank_high, slo: row.sim_low, shi: row.sim_high, pbest: row.p_best};
    if (typeof out.pbest === "number") out.ptext = share(out.pbest);
    return out;
  };
  let row = null;      // LB's row of the selected team
  const update = (chart) => {
    const {view, meta} = chart;
    if (meta.lb_rows) {   // the selected team's row, when it is not among the top shown
      const change = view.changeset().remove((d) => d.lb_extra === true);
      if (row && row.rank > meta.lb_top) change.insert(chartRow(row));
      view.change(meta.lb_rows, change);
    }
    view.signal("selected_team", current);
    view.runAsync();
  };
  const show = (team, lbRow) => {
    current = team ? shown(team) : "";
    row = lbRow || null;
    charts.forEach(update);
  };
  const choose = (name) => {
    const same = name === current;
    if (LB) LB.select(same ? null : rawName(name)); else show(same ? null : name, null);
  };
  const teamOf = (item) => {
    let datum = item && item.datum;
    while (datum && typeof datum.team !== "string" && datum.datum) datum = datum.datum;
    return datum && typeof datum.team === "string" ? datum.team : null;
  };
  const embed = (box) => {
    const spec = JSON.parse(box.querySelector("script.lb-spec").textContent);
    const meta = spec.usermeta || {};
    if (meta.lb_fit) spec.width = "container";   // a phone, a half column
    return vegaEmbed(box.querySelector(".lb-view"), spec, {actions: false, renderer: "svg"})
      .then((result) => {
        const chart = {view: result.view, meta: meta};
        charts.push(chart);
        box.classList.add("lb-live");
        scrollHint(box);
        result.view.addResizeListener(() => scrollHint(box));   // the hint follows a refit
        if (meta.lb_fit) follow(box, result.view);
        result.view.addEventListener("click", (event, item) => {
          const team = teamOf(item);
          if (team !== null) choose(team);
        });
        if (current) update(chart);
      })
      .catch((error) => { console.error("chart " + box.id + ": " + error); });
  };
  // A chart that takes its box's width follows the box, not only the window: Vega-Lite refits
  // on the window's resize event alone, and a box that changes width without one (a window made
  // narrower before the page had laid out, as headless Chromium does) left the chart at its first
  // width, its right edge (the ECDF's last numbers, the legends) past the box (issue 43).
  // A chart inside a closed <details> gets no resize notice (it is laid out, not rendered), so
  // it refits when the details opens.
  const follow = (box, view) => {
    const holder = box.querySelector(".lb-view");
    const refit = () => {
      const width = holder.clientWidth;
      if (width > 0 && Math.abs(view.signal("width") - width) > 1) {
        view.signal("width", width).runAsync().then(() => scrollHint(box));
      }
    };
    if ("ResizeObserver" in window) new ResizeObserver(refit).observe(holder);
    for (let d = box.closest("details"); d; d = d.parentElement && d.parentElement.closest("details")) {
      d.addEventListener("toggle", refit);
    }
  };
  // A chart wider than its box (a phone; its text keeps a legible size) says it scrolls
  // sideways: a line that stays at the box's left edge while the chart scrolls under it.
  const scrollHint = (box) => {
    let hint = box.querySelector(".lb-scroll-hint");
    const wide = box.scrollWidth > box.clientWidth + 1;
    if (wide && hint === null) {
      hint = document.createElement("p");
      hint.className = "lb-scroll-hint";
      hint.textContent = "Wider than the screen: scroll the chart sideways \u2192";
      box.insertBefore(hint, box.querySelector(".lb-view"));
    }
    if (hint !== null) hint.hidden = !wide;
  };
  window.addEventListener("resize", () =>
    document.querySelectorAll(".lb-chart.lb-live").forEach(scrollHint));
  const boxes = [...document.querySelectorAll(".lb-chart")].filter(
    (box) => box.querySelector("script.lb-spec") !== null);
  const drawing = new Map();   // box -> the promise of its drawing, once started
  let near = null;             // the observer of the charts not drawn yet
  const draw = (box) => {
    if (!drawing.has(box)) {
      if (near) near.unobserve(box);
      drawing.set(box, embed(box));
    }
    return drawing.get(box);
  };
  const drawAll = () => Promise.all(boxes.map(draw)).then(() => undefined);
  if ("IntersectionObserver" in window) {
    near = new IntersectionObserver((seen) => seen.forEach((e) => {
      if (e.isIntersecting) draw(e.target);
    }), {rootMargin: "100% 0px"});   // a screen above and below the view
    boxes.forEach((box) => near.observe(box));
  } else {
    drawAll();
  }
  // on paper a chart with a static drawing prints that (charts.css); the others are drawn now
  const forPaper = () => boxes.filter((box) => !box.classList.contains("has-static")).forEach(draw);
  window.addEventListener("beforeprint", forPaper);
  window.matchMedia("print").addEventListener("change", (e) => { if (e.matches) forPaper(); });
  window.LBCharts = {drawAll: drawAll};
  if (LB) LB.onSelect((team, lbRow) => show(team, lbRow));
})();
