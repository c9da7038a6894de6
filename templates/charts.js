// Embeds every chart of the page (.lb-chart: a Vega-Lite specification in a JSON script element)
// and shares one team selection between them and the page: window.LB, when the page defines it,
// is {select(team|null), selected(), onSelect(fn), data}. Clicking a team's mark selects it
// (again: clears); every chart highlights the selected team through its `selected_team` signal.
// Charts that show the top of the board (usermeta lb_rows, lb_top) get the selected team's row
// from #lb-rows (every entry, column by column) when it ranks below; charts marked lb_fit take
// the width of their box.
(() => {
  const charts = [];   // {view, meta}
  let current = "";
  let lookup = null;   // team -> row, built on the first selection that needs it
  const rowOf = (team) => {
    if (lookup === null) {
      lookup = new Map();
      const el = document.getElementById("lb-rows");
      if (el) {
        const packed = JSON.parse(el.textContent);
        const cols = packed.columns, values = packed.values;
        const n = values.length ? values[0].length : 0;
        for (let i = 0; i < n; i++) {
          const row = {};
          for (let k = 0; k < cols.length; k++) row[cols[k]] = values[k][i];
          lookup.set(row.team, row);
        }
      }
    }
    return lookup.get(team);
  };
  // P(best) as the page writes it (report/vega/common.py, share_text)
  const share = (p) => {
    const x = 100 * p;
    if (x < 0.1) return "<0.1%";
    if (x > 99.9) return ">99.9%";
    return (x < 10 || x > 90 ? x.toFixed(1) : x.toFixed(0)) + "%";
  };
  const update = (chart) => {
    const {view, meta} = chart;
    if (meta.lb_rows) {   // the selected team's row, when it is not among the top shown
      const row = current ? rowOf(current) : undefined;
      const change = view.changeset().remove((d) => d.lb_extra === true);
      if (row && row.rank > meta.lb_top) {
        const extra = Object.assign({lb_extra: true}, row);
        if (extra.pbest !== undefined && extra.ptext === undefined) extra.ptext = share(extra.pbest);
        change.insert(extra);
      }
      view.change(meta.lb_rows, change);
    }
    view.signal("selected_team", current);
    view.runAsync();
  };
  const show = (team) => {
    current = team || "";
    charts.forEach(update);
  };
  const choose = (team) => {
    const next = team === current ? null : team;
    if (window.LB) window.LB.select(next); else show(next);
  };
  const teamOf = (item) => {
    let datum = item && item.datum;
    while (datum && typeof datum.team !== "string" && datum.datum) datum = datum.datum;
    return datum && typeof datum.team === "string" ? datum.team : null;
  };
  document.querySelectorAll(".lb-chart").forEach((box) => {
    const spec = JSON.parse(box.querySelector("script.lb-spec").textContent);
    const meta = spec.usermeta || {};
    if (meta.lb_fit) spec.width = "container";   // a phone, a half column
    vegaEmbed(box.querySelector(".lb-view"), spec, {actions: false, renderer: "svg"})
      .then((result) => {
        const chart = {view: result.view, meta: meta};
        charts.push(chart);
        box.classList.add("lb-live");
        result.view.addEventListener("click", (event, item) => {
          const team = teamOf(item);
          if (team !== null) choose(team);
        });
        if (current) update(chart);
      })
      .catch((error) => { console.error("chart " + box.id + ": " + error); });
  });
  if (window.LB) {
    window.LB.onSelect((team) => show(team));
    if (window.LB.selected()) show(window.LB.selected());
  }
})();
