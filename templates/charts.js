// Embeds every chart of the page (.lb-chart: a Vega-Lite specification in a JSON script element)
// and shares one team selection between them and the page: window.LB, when the page defines it,
// is {select(team|null), selected(), onSelect(fn), data}. Clicking a team's mark selects it
// (again: clears); every chart highlights the selected team through its `selected_team` signal.
// Charts that show the top of the board take the selected team's row from #lb-rows; charts
// marked lb_fit take the width of their box.
(() => {
  const views = [];
  let current = "";
  const rowsEl = document.getElementById("lb-rows");
  let rows = null;
  if (rowsEl) {
    const packed = JSON.parse(rowsEl.textContent);
    const n = packed.values.length ? packed.values[0].length : 0;
    rows = new Array(n);
    for (let i = 0; i < n; i++) {
      const row = {};
      packed.columns.forEach((name, k) => { row[name] = packed.values[k][i]; });
      rows[i] = row;
    }
  }
  const show = (team) => {
    current = team || "";
    for (const view of views) {
      view.signal("selected_team", current);
      view.runAsync();
    }
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
  const embeds = [];
  document.querySelectorAll(".lb-chart").forEach((box) => {
    const spec = JSON.parse(box.querySelector("script.lb-spec").textContent);
    const meta = spec.usermeta || {};
    if (meta.lb_rows && rows && spec.datasets) spec.datasets[meta.lb_rows] = rows;
    const target = box.querySelector(".lb-view");
    if (meta.lb_fit) {   // the live chart takes its box's width (a phone, a half column)
      spec.width = "container";
    }
    embeds.push(vegaEmbed(target, spec, {actions: false, renderer: "svg"}).then((result) => {
      const view = result.view;
      views.push(view);
      box.classList.add("lb-live");
      view.addEventListener("click", (event, item) => {
        const team = teamOf(item);
        if (team !== null) choose(team);
      });
      if (current) { view.signal("selected_team", current); view.runAsync(); }
    }).catch((error) => { console.error("chart " + box.id + ": " + error); }));
  });
  if (window.LB) {
    window.LB.onSelect((team) => show(team));
    if (window.LB.selected()) show(window.LB.selected());
  }
})();
