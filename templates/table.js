/* The report's page script: one selection shared by the whole page, and the interactive tier table.
 * Inlined into the page at render time (no network); the page reads the same without it.
 *
 * Contract for the other scripts of the page (the charts):
 *   window.LB.fields             names of the positions of each entry, e.g. ["rank", "team",
 *                                "score", "ci_low", "ci_high", "tier", ...] (tier 0: not compared);
 *   window.LB.data               every entry, best first, each an array in the order of fields;
 *   window.LB.row(team)          that entry as an object {field: value}, or null;
 *   window.LB.select(team|null)  select a team by its exact name; null (or an unknown name) clears;
 *   window.LB.selected()         the selected team's name, or null;
 *   window.LB.onSelect(fn)       call fn(team|null, row|null) after every change of the
 *                                selection, and at once if a team is already selected;
 *   window.LB.format             {score(v), share(p), fixed(x, d)}: numbers as the table prints
 *                                them (Python's rounding, ties to even), for tooltips;
 *   window.LB.csv()              the CSV the "Download CSV" button saves.
 * LB is complete as soon as this script has run (it sits in the page's head), so a later script
 * can register right away. The selection is kept in the URL hash (#team=<name, URI-encoded>),
 * so a link shares it. Team names are untrusted: this script only ever sets them as text
 * (textContent), never as markup, and shows bidi and control characters as [U+XXXX], as the
 * page's server-side rendering does.
 */
(function () {
  "use strict";
  var source = document.getElementById("lb-data");
  var payload = source ? JSON.parse(source.textContent) : { fields: [], rows: [], meta: {} };
  var fields = payload.fields, data = payload.rows, meta = payload.meta || {};
  var at = {};
  fields.forEach(function (name, i) { at[name] = i; });
  var firstIndex = new Map();          // team name -> its first (best-ranked) entry
  data.forEach(function (row, i) { if (!firstIndex.has(row[at.team])) firstIndex.set(row[at.team], i); });
  var listeners = [];
  var current = -1;                    // index of the selected entry, -1 for none

  function rowObject(i) {
    if (i < 0) return null;
    var out = {};
    fields.forEach(function (name, k) { out[name] = data[i][k]; });
    return out;
  }
  function indexOf(team) {
    if (team === null || team === undefined) return -1;
    var i = firstIndex.get(String(team));
    return i === undefined ? -1 : i;
  }
  function name(i) { return i < 0 ? null : data[i][at.team]; }
  function notify() {
    var team = name(current), row = rowObject(current);
    listeners.slice().forEach(function (fn) {
      try { fn(team, row); } catch (err) { setTimeout(function () { throw err; }); }
    });
  }
  function writeHash() {
    var url = current < 0 ? location.pathname + location.search
                          : "#team=" + encodeURIComponent(name(current));
    try { history.replaceState(null, "", url); } catch (err) {
      if (current >= 0) location.hash = url;
    }
  }
  function fromHash() {
    var match = /^#team=(.*)$/.exec(location.hash);
    if (!match) return -1;
    try { return indexOf(decodeURIComponent(match[1])); } catch (err) { return -1; }
  }
  function select(team, keepHash) {
    var i = indexOf(team);
    if (i === current) return;
    current = i;
    if (!keepHash) writeHash();
    notify();
  }

  window.LB = {
    fields: fields, data: data, meta: meta,
    row: function (team) { return rowObject(indexOf(team)); },
    select: function (team) { select(team, false); },
    selected: function () { return name(current); },
    onSelect: function (fn) {
      listeners.push(fn);
      if (current >= 0) fn(name(current), rowObject(current));
    }
  };
  current = fromHash();
  window.addEventListener("hashchange", function () {
    var i = fromHash();
    if (i !== current) { current = i; notify(); }
  });

  // --- formatting: the same text as the page's Python formatting ------------------------------
  var BIDI = /[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u00ad\u034f\u180e\u200b-\u200d\u2060-\u2064\ufeff]/g;
  var DASH = "\u2014";
  function neutral(text) {
    return String(text).replace(BIDI, function (c) {
      return "[U+" + ("000" + c.charCodeAt(0).toString(16).toUpperCase()).slice(-4) + "]";
    });
  }
  // Python's f"{x:.{d}f}": toFixed rounds an exact tie away from zero, Python to even.
  function fixed(x, d) {
    var text = x.toFixed(d), exact = Math.abs(x).toFixed(d + 30);
    if (exact.slice(-30) !== "5" + "0".repeat(29)) return text;
    var kept = exact.slice(0, exact.length - 30).replace(/\.$/, "");
    if (Number(kept.charAt(kept.length - 1)) % 2 === 1) return text;   // odd: away is to even
    return (x < 0 ? "-" : "") + kept;
  }
  function score(v) {
    if (v === null || v === undefined) return DASH;
    var text = fixed(v, meta.decimals);
    return Number(text) === 0 ? text.replace(/^-/, "") : text;
  }
  function share(p) {                                    // report/vega/common.py share_text
    if (p === null || p === undefined) return DASH;
    var x = 100 * p;
    if (x < 0.1) return "<0.1%";
    if (x > 99.9) return ">99.9%";
    return fixed(x, x < 10 || x > 90 ? 1 : 0) + "%";
  }
  window.LB.format = { score: score, share: share, fixed: fixed };
  function span(a, b) { return a === b ? String(a) : a + "\u2013" + b; }
  function count(n) { return n.toLocaleString("en-US"); }

  // tier marks, in rank order: each tier's first entry, and the highest tier above each entry
  var tierOf = at.tier === undefined ? null : data.map(function (r) { return r[at.tier]; });
  var anchor = [], above = [];
  if (tierOf) {
    var seen = new Set(), highest = 0;
    tierOf.forEach(function (t, i) {
      anchor.push(t > 0 && !seen.has(t));
      seen.add(t);
      above.push(highest);
      highest = Math.max(highest, t);
    });
  }
  function movedText(t, up) {                            // tier_table.moved_text
    if (t >= up) return "";
    var beaten = t === 1 ? "no entry is shown to beat it" : "only entries of tier" +
      (t === 2 ? " 1" : "s 1 to " + (t - 1)) + " are shown to beat it";
    return "In tier " + t + " although ranked below an entry of tier " + up + ": " + beaten +
      " (its comparisons with the entries above are noisier).";
  }

  // --- the table -------------------------------------------------------------------------------
  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function cell(key, i) {
    var r = data[i], td = el("td"), placed = !tierOf || tierOf[i] > 0;
    if (key === "rank") td.textContent = r[at.rank];
    else if (key === "team") { td.className = "team"; td.textContent = neutral(r[at.team]); }
    else if (key === "score" || key === "public" || key === "private") td.textContent = score(r[at[key]]);
    else if (key === "interval") {
      var lo = r[at.ci_low], hi = r[at.ci_high];
      td.textContent = lo === null || hi === null ? DASH : score(lo) + " \u2013 " + score(hi);
    } else if (key === "tier") {
      var t = tierOf[i];
      td.appendChild(el("i", t > 0 ? "c" + ((t - 1) % meta.palette) : "c-none"));
      td.appendChild(document.createTextNode(t > 0 ? String(t) : DASH));
      var moved = t > 0 ? movedText(t, above[i]) : "";
      if (moved) { var mark = el("span", "moved", "\u2195"); mark.title = moved; td.appendChild(mark); }
    } else if (key === "p") {
      var p = r[at.p];
      td.textContent = anchor[i] ? "anchor" : p === null ? DASH : p < 0.001 ? "<0.001" : fixed(p, 3);
    } else if (key === "rankint") {
      td.textContent = (placed ? span(r[at.rank_low], r[at.rank_high]) : DASH) + " ";
      td.appendChild(el("span", "sim", "(" + (placed ? span(r[at.sim_low], r[at.sim_high]) : DASH) + ")"));
    } else if (key === "best") td.textContent = r[at.best] ? "\u2713" : "";
    else if (at[key] !== undefined) td.textContent = share(r[at[key]]);   // p_best, p_top_<k>
    return td;
  }

  var SORT = {   // key -> [value of entry i (null sorts last), first click descending?]
    rank: [function (i) { return i; }, false],
    team: [function (i) { return String(data[i][at.team]).toLowerCase(); }, false],
    score: [function (i) { return data[i][at.score]; }, meta.higher],
    public: [function (i) { return data[i][at.public]; }, meta.higher],
    private: [function (i) { return data[i][at.private]; }, meta.higher],
    interval: [function (i) { return data[i][at.ci_low]; }, false],
    tier: [function (i) { return tierOf[i] > 0 ? tierOf[i] : null; }, false],
    p: [function (i) { return anchor[i] ? -1 : data[i][at.p]; }, false],
    rankint: [function (i) { return data[i][at.rank_low]; }, false],
    best: [function (i) { return tierOf[i] > 0 ? data[i][at.best] : null; }, true]
  };
  function sortSpec(key) {
    return SORT[key] || [function (i) { return data[i][at[key]]; }, true];   // shares
  }

  function start() {
    var table = document.getElementById("lb-table");
    if (!table || !data.length) return;
    var tbody = table.tBodies[0], tools = document.getElementById("lb-tools");
    var $ = function (id) { return document.getElementById(id); };
    var search = $("lb-search"), tierSelect = $("lb-tier"), sizeSelect = $("lb-size");
    var find = $("lb-find"), suggest = $("lb-suggest"), found = $("lb-found");
    var clear = $("lb-clear"), status = $("lb-status"), note = $("lb-print-note");
    var keys = [], state = { query: "", tier: "", key: "rank", desc: false, page: 0, size: 50 };
    var orders = {}, lower = null, printing = false;

    table.tHead.querySelectorAll("th[data-key]").forEach(function (th) {
      var key = th.getAttribute("data-key"), button = el("button", "sort");
      button.type = "button";
      while (th.firstChild) button.appendChild(th.firstChild);
      th.appendChild(button);
      keys.push(key);
      button.addEventListener("click", function () {
        var first = sortSpec(key)[1];
        state.desc = state.key === key ? !state.desc : first;
        state.key = key; state.page = 0; render();
      });
    });

    function order() {   // every entry in the chosen order; missing values last
      var id = state.key + (state.desc ? "-" : "+");
      if (orders[id]) return orders[id];
      var value = sortSpec(state.key)[0], sign = state.desc ? -1 : 1;
      var known = [], missing = [], keysOf = new Array(data.length);
      for (var i = 0; i < data.length; i++) {
        keysOf[i] = value(i);
        (keysOf[i] === null || keysOf[i] === undefined ? missing : known).push(i);
      }
      known.sort(function (a, b) {
        var x = keysOf[a], y = keysOf[b];
        return (x < y ? -sign : x > y ? sign : 0) || a - b;
      });
      return (orders[id] = known.concat(missing));
    }
    function view() {
      var all = order(), q = state.query.toLowerCase(), tier = state.tier;
      if (!q && tier === "") return all;
      if (q && !lower) lower = data.map(function (r) { return String(r[at.team]).toLowerCase(); });
      return all.filter(function (i) {
        return (tier === "" || String(tierOf[i]) === tier) && (!q || lower[i].indexOf(q) >= 0);
      });
    }
    function line(i, pinned) {
      var tr = el("tr");
      tr.setAttribute("data-i", i);
      var natural = state.key === "rank" && !state.desc && !state.query && state.tier === "";
      if (pinned) tr.className = "pinned";
      else if (i === current) tr.className = "selected";
      else if (natural && anchor[i] && i > 0) tr.className = "new";
      keys.forEach(function (key) { tr.appendChild(cell(key, i)); });
      if (pinned) tr.title = meta.pinned || "Your team, pinned at the top (click to unpin)";
      return tr;
    }
    function render() {
      var rows = view(), size = printing ? Math.min(rows.length, 500) : state.size;
      var pages = Math.max(1, Math.ceil(rows.length / size));
      state.page = printing ? 0 : Math.min(state.page, pages - 1);
      var from = state.page * size, shown = rows.slice(from, from + size);
      var frag = document.createDocumentFragment();
      if (current >= 0) frag.appendChild(line(current, true));
      shown.forEach(function (i) { frag.appendChild(line(i, false)); });
      if (!shown.length) {
        var empty = el("tr"), td = el("td", "muted", "No entry matches.");
        td.colSpan = keys.length; empty.appendChild(td); frag.appendChild(empty);
      }
      tbody.replaceChildren(frag);
      keys.forEach(function (key, k) {
        var th = table.tHead.rows[0].cells[k];
        th.setAttribute("aria-sort", key !== state.key ? "none" : state.desc ? "descending" : "ascending");
      });
      var of = count(rows.length) + (rows.length < data.length ? " (of " + count(data.length) + ")" : "");
      status.textContent = rows.length ? "Rows " + count(from + 1) + "\u2013" + count(from + shown.length) + " of " + of : "0 of " + count(data.length);
      $("lb-prev").disabled = state.page === 0;
      $("lb-next").disabled = state.page >= pages - 1;
      note.textContent = printing && rows.length > shown.length ? "Printed: the first " + count(shown.length) +
        " of " + count(rows.length) + " rows. The report's CSV and JSON hold every entry." : "";
    }
    function showSelection() {
      clear.hidden = current < 0;
      found.textContent = current < 0 ? "" : "Rank " + data[current][at.rank] + " of " + count(data.length) + ", pinned at the top of the table.";
      if (current >= 0 && document.activeElement !== find) find.value = neutral(name(current));
      render();
    }

    var timer = null;
    search.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(function () { state.query = search.value.trim(); state.page = 0; render(); }, 120);
    });
    if (tierSelect) tierSelect.addEventListener("change", function () { state.tier = tierSelect.value; state.page = 0; render(); });
    sizeSelect.addEventListener("change", function () { state.size = Number(sizeSelect.value); state.page = 0; render(); });
    $("lb-prev").addEventListener("click", function () { state.page -= 1; render(); });
    $("lb-next").addEventListener("click", function () { state.page += 1; render(); });
    tbody.addEventListener("click", function (event) {
      var tr = event.target.closest("tr[data-i]");
      if (!tr || String(window.getSelection())) return;   // selecting text is not a click
      var i = Number(tr.getAttribute("data-i"));
      window.LB.select(i === current ? null : name(i));
    });
    clear.addEventListener("click", function () { find.value = ""; window.LB.select(null); });

    function matches(text) {   // up to 8 names: those starting with the text first
      var q = text.toLowerCase(), first = [], rest = [];
      if (!lower) lower = data.map(function (r) { return String(r[at.team]).toLowerCase(); });
      for (var i = 0; i < data.length && first.length < 8; i++) {
        var k = lower[i].indexOf(q);
        if (k === 0) first.push(i); else if (k > 0 && rest.length < 8) rest.push(i);
      }
      return first.concat(rest).slice(0, 8);
    }
    function suggestions(list) {
      suggest.replaceChildren();
      list.forEach(function (i) {
        var li = el("li"), button = el("button", "", neutral(name(i)) + "  (rank " + data[i][at.rank] + ")");
        button.type = "button";
        button.addEventListener("click", function () {
          find.value = neutral(name(i)); suggest.hidden = true; window.LB.select(name(i));
        });
        li.appendChild(button); suggest.appendChild(li);
      });
      suggest.hidden = !list.length;
    }
    find.addEventListener("input", function () {
      var text = find.value;
      if (!text.trim()) { suggestions([]); found.textContent = ""; return; }
      if (indexOf(text) >= 0) { suggestions([]); window.LB.select(text); return; }
      var list = matches(text.trim());
      var same = list.filter(function (i) { return lower[i] === text.trim().toLowerCase(); });
      if (same.length === 1) { suggestions([]); window.LB.select(name(same[0])); return; }
      suggestions(list);
      found.textContent = list.length ? "" : (meta.not_found || "No team name contains this.");
    });
    find.addEventListener("keydown", function (event) {
      if (event.key === "Enter" && !suggest.hidden && suggest.firstChild) {
        event.preventDefault(); suggest.firstChild.firstChild.click();
      } else if (event.key === "Escape") suggestions([]);
    });
    $("lb-csv").addEventListener("click", function () {
      var blob = new Blob([csv()], { type: "text/csv;charset=utf-8" });
      var link = el("a");
      link.href = URL.createObjectURL(blob);
      link.download = meta.csv || "tiers.csv";
      document.body.appendChild(link); link.click(); link.remove();
      setTimeout(function () { URL.revokeObjectURL(link.href); }, 1000);
    });

    var closed = [];
    window.addEventListener("beforeprint", function () {
      printing = true; render();
      closed = Array.prototype.filter.call(document.querySelectorAll("details"), function (d) { return !d.open; });
      closed.forEach(function (d) { d.open = true; });
    });
    window.addEventListener("afterprint", function () {
      printing = false; render();
      closed.forEach(function (d) { d.open = false; });
    });

    window.LB.onSelect(showSelection);
    if ($("lb-static-note")) $("lb-static-note").hidden = true;
    tools.hidden = false;
    $("lb-pager").hidden = false;
    table.classList.add("interactive");
    render();
  }

  // --- CSV of every entry, as --csv writes it (formulas in names neutralised) -------------------
  var CSV = [["rank", "rank"], ["team", "team"], ["score", "score"], ["ci_low", "ci_low"],
             ["ci_high", "ci_high"], ["tier", "tier"], ["rank_low", "rank_ci_low"],
             ["rank_high", "rank_ci_high"], ["sim_low", "rank_sim_low"],
             ["sim_high", "rank_sim_high"], ["p_best", "p_best"], ["best", "in_best_set"],
             ["public", "public_score"], ["private", "private_score"]];
  function csvField(value) {
    var text = value === null || value === undefined ? "" : String(value);
    return /[",\r\n]/.test(text) ? '"' + text.replace(/"/g, '""') + '"' : text;
  }
  function csv() {
    var columns = CSV.filter(function (c) { return at[c[0]] !== undefined; });
    var lines = [columns.map(function (c) { return c[1]; }).join(",")];
    data.forEach(function (r) {
      lines.push(columns.map(function (c) {
        var v = r[at[c[0]]];
        if (c[0] === "team") v = /^[=+\-@\t\r]/.test(v) ? "'" + v : v;
        else if (c[0] === "tier") v = v > 0 ? v : null;
        else if (c[0] === "best") v = v ? "True" : "False";
        return csvField(v);
      }).join(","));
    });
    return lines.join("\n") + "\n";
  }
  window.LB.csv = csv;

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
