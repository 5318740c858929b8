"""The page's style sheet and script, inline in every report (a report must open without network access).

The script never builds HTML from strings: every text from a run is set with textContent, every element is
made with createElement, and data arrives through JSON blocks (see `browser.py`). The page's
Content-Security-Policy allows only this exact script and style (by hash), so even text that slipped through
escaping could not run.
"""

from __future__ import annotations

from typing import Final

CSS: Final = """
:root{--fg:#1d2330;--muted:#5b6475;--line:#d9dee7;--bg:#f6f7fa;--card:#fff;--accent:#0072B2;--warn:#b34700}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);
background:var(--bg)}
header.top{background:#1d2330;color:#fff;padding:14px 24px}
header.top h1{margin:0;font-size:20px}
header.top p{margin:4px 0 0;color:#c9d1e0;font-size:13px}
nav.toc{padding:8px 24px;background:#fff;border-bottom:1px solid var(--line);position:sticky;top:0;z-index:2}
nav.toc a{margin-right:14px;color:var(--accent);text-decoration:none;font-size:13px}
main{padding:8px 24px 40px;max-width:1400px}
section{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:12px 18px;margin:16px 0}
section section{border:none;border-top:1px solid var(--line);border-radius:0;padding:8px 0;margin:8px 0}
h2{margin:4px 0 8px;font-size:18px} h3{margin:8px 0;font-size:16px} h4{margin:10px 0 6px;font-size:14px}
.cards{display:flex;flex-wrap:wrap;gap:10px;margin:8px 0}
.card{border:1px solid var(--line);border-radius:6px;padding:8px 12px;min-width:150px;background:#fbfcfe}
.card .label{color:var(--muted);font-size:12px}.card .value{font-size:20px;font-weight:600}
.card .ci{color:var(--muted);font-size:12px}.card.warn{border-color:var(--warn)}
.card.warn .value{color:var(--warn)}
.callout{border-left:4px solid var(--accent);background:#eef5fb;padding:6px 10px;margin:8px 0}
.callout.warn{border-color:var(--warn);background:#fdf1ea}
.note{color:var(--muted);font-size:12px}
.tie{color:var(--warn);font-weight:600;cursor:help}
.figs{display:flex;flex-wrap:wrap;gap:12px}.figs figure{margin:0}
img.chart{max-width:100%;height:auto}
.tablewrap{overflow-x:auto;margin:6px 0}
table{border-collapse:collapse;font-size:13px}
th,td{border-bottom:1px solid var(--line);padding:3px 8px;text-align:left;vertical-align:top}
td.num{text-align:right;font-variant-numeric:tabular-nums}
th{background:#f0f2f6}
table.sortable th{cursor:pointer} table.sortable th:after{content:" \\2195";color:#9aa3b2}
caption{text-align:left;font-weight:600;padding:4px 0}
h1,h2,h3,h4,nav.toc,.card,.callout,.note,.sample .head,td{overflow-wrap:anywhere}
.card{max-width:100%}
details{margin:6px 0} summary{cursor:pointer;color:var(--accent)}
.filters{display:flex;flex-wrap:wrap;gap:8px;align-items:center;margin:8px 0}
.filters label{font-size:12px;color:var(--muted)}
select,button,input{font:inherit;padding:2px 6px}
input[type=search]{min-width:260px}
.pager{display:flex;gap:8px;align-items:center;margin:8px 0}
.sample{border:1px solid var(--line);border-radius:6px;margin:8px 0;padding:8px;display:grid;
grid-template-columns:250px 1fr;gap:10px}
.sample.noimg{grid-template-columns:1fr}
.sample .head{grid-column:1/-1;font-size:12px;color:var(--muted)}
.sample img{max-width:240px;max-height:240px;border:1px solid var(--line)}
.sample .pics{display:flex;flex-wrap:wrap;gap:4px;align-content:flex-start}
.sample .pics.many img{max-width:118px;max-height:118px}
.sample pre{white-space:pre-wrap;word-break:break-word;margin:2px 0 6px;font:12px/1.4 ui-monospace,monospace;
background:#f7f8fb;padding:4px 6px;border-radius:4px;max-height:220px;overflow:auto}
.sample .k{font-size:11px;text-transform:uppercase;color:var(--muted)}
.badge{display:inline-block;padding:0 6px;border-radius:8px;font-size:11px;color:#fff;margin-left:6px}
.o0{background:#2e7d32}.o1{background:#c62828}.o2{background:#757575}.o3{background:#6a1b9a}
"""

JS: Final = r"""
(function () {
  "use strict";
  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) { node.className = cls; }
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    return node;
  }
  function readJson(id) {
    var node = document.getElementById(id);
    return node ? JSON.parse(node.textContent) : null;
  }

  function sortable(table) {
    var heads = table.tHead ? table.tHead.rows[0].cells : [];
    Array.prototype.forEach.call(heads, function (th, col) {
      th.addEventListener("click", function () {
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        var down = th.getAttribute("aria-sort") !== "descending";
        Array.prototype.forEach.call(heads, function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", down ? "descending" : "ascending");
        function key(row) {
          var cell = row.cells[col];
          var v = cell ? cell.getAttribute("data-v") : null;
          return v === null ? (cell ? cell.textContent : "") : parseFloat(v);
        }
        rows.sort(function (a, b) {
          var x = key(a), y = key(b), r;
          if (typeof x === "number" && typeof y === "number") { r = x - y; }
          else if (typeof x === "number") { r = 1; }
          else if (typeof y === "number") { r = -1; }
          else { r = String(x).localeCompare(String(y)); }
          return down ? -r : r;
        });
        rows.forEach(function (row) { body.appendChild(row); });
      });
    });
  }
  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), sortable);

  var index = readJson("mmg-index");
  var root = document.getElementById("browser-root");
  if (index && root) { browser(index, root); }
  document.body.setAttribute("data-ready", "1");
  // Milliseconds from navigation start to a usable page: bench/report.py reads it from the DOM dump.
  document.body.setAttribute("data-ready-ms", String(Math.round(performance.now())));

  function browser(ix, root) {
    var chunks = new Map();
    var state = {page: 0, hits: []};
    var bar = el("div", "filters");
    function select(label, names, all) {
      var wrap = el("label", null, label + " ");
      var sel = document.createElement("select");
      sel.appendChild(new Option(all, "-1"));
      names.forEach(function (name, i) { sel.appendChild(new Option(name, String(i))); });
      wrap.appendChild(sel);
      bar.appendChild(wrap);
      sel.addEventListener("change", function () { state.page = 0; update(); });
      return sel;
    }
    var fRun = ix.runs.length > 1 ? select("run", ix.runs, "all runs") : null;
    var fBench = select("benchmark", ix.benches, "all benchmarks");
    var fCat = select("category", ix.cats, "all categories");
    // Only the chosen benchmark's categories are offered (category names start with "<benchmark>:").
    fBench.addEventListener("change", function () {
      var b = parseInt(fBench.value, 10), prefix = b < 0 ? "" : ix.benches[b];
      fCat.textContent = "";
      fCat.appendChild(new Option("all categories", "-1"));
      ix.cats.forEach(function (name, i) {
        if (!prefix || name === prefix || name.indexOf(prefix + ":") === 0) {
          fCat.appendChild(new Option(name, String(i)));
        }
      });
      update();
    });
    var fOut = select("outcome", ix.outcomes, "any outcome");
    var fProv = select("extraction", ix.provs, "any extraction");
    var fChg = null;
    if (ix.runs.length > 1) {
      var wrap = el("label", null, " changed vs run 1 only ");
      fChg = document.createElement("input");
      fChg.type = "checkbox";
      fChg.id = "mmg-changed";
      fChg.addEventListener("change", function () { state.page = 0; update(); });
      wrap.appendChild(fChg);
      bar.appendChild(wrap);
    }
    // Text search over each row's id, prompt, answers, target and category: every word must occur (any
    // case). The texts sit in chunks parsed on demand, so the first search parses them all, once.
    var fText = document.createElement("input");
    fText.type = "search";
    fText.id = "mmg-search";
    fText.placeholder = "search ids, prompts, answers";
    fText.setAttribute("aria-label", "search the samples' text");
    var typing = null;
    fText.addEventListener("input", function () {
      clearTimeout(typing);
      typing = setTimeout(function () { state.page = 0; update(); }, 150);
    });
    bar.insertBefore(fText, bar.firstChild);
    var hays = [];
    function hay(i) {
      if (hays[i] === undefined) {
        var t = texts(i), parts = [ix.cats[ix.cat[i]]];
        t.forEach(function (v) { if (v !== null && v !== undefined) { parts.push(String(v)); } });
        hays[i] = parts.join("\n").toLowerCase();
      }
      return hays[i];
    }
    function matches(i, words) {
      for (var w = 0; w < words.length; w++) {
        if (hay(i).indexOf(words[w]) < 0) { return false; }
      }
      return true;
    }
    var pager = el("div", "pager");
    var prev = el("button", null, "\u2190 previous"), next = el("button", null, "next \u2192");
    var info = el("span", "note");
    prev.type = next.type = "button";
    prev.addEventListener("click", function () { if (state.page > 0) { state.page--; render(); } });
    next.addEventListener("click", function () {
      if ((state.page + 1) * ix.page < state.hits.length) { state.page++; render(); }
    });
    pager.appendChild(prev); pager.appendChild(info); pager.appendChild(next);
    var list = el("div", "samples");
    root.appendChild(bar); root.appendChild(pager); root.appendChild(list);

    function val(sel) { return sel ? parseInt(sel.value, 10) : -1; }
    function update() {
      var r = val(fRun), b = val(fBench), c = val(fCat), o = val(fOut), p = val(fProv);
      var chg = fChg && fChg.checked, hits = [], n = ix.run.length;
      var words = fText.value.toLowerCase().split(/\s+/).filter(function (w) { return w.length > 0; });
      for (var i = 0; i < n; i++) {
        if ((r < 0 || ix.run[i] === r) && (b < 0 || ix.bench[i] === b) && (c < 0 || ix.cat[i] === c) &&
            (o < 0 || ix.out[i] === o) && (p < 0 || ix.prov[i] === p) && (!chg || ix.chg[i] === 1) &&
            (!words.length || matches(i, words))) {
          hits.push(i);
        }
      }
      state.hits = hits;
      render();
    }
    function texts(i) {
      var k = Math.floor(i / ix.chunk);
      if (!chunks.has(k)) { chunks.set(k, readJson("mmg-rows-" + k) || []); }
      return chunks.get(k)[i % ix.chunk];
    }
    function field(box, key, value) {
      box.appendChild(el("div", "k", key));
      box.appendChild(el("pre", null, value === null || value === undefined ? "\u2013" : value));
    }
    function render() {
      var total = state.hits.length, pages = Math.max(1, Math.ceil(total / ix.page));
      info.textContent = "page " + (state.page + 1) + " of " + pages + " \u00b7 " + total + " samples";
      prev.disabled = state.page === 0;
      next.disabled = state.page + 1 >= pages;
      list.textContent = "";
      state.hits.slice(state.page * ix.page, (state.page + 1) * ix.page).forEach(function (i) {
        var t = texts(i), img = ix.img[i];
        var pics = Array.isArray(img) ? img : (img >= 0 ? [img] : []);
        var card = el("div", pics.length ? "sample" : "sample noimg");
        var head = el("div", "head");
        if (ix.runs.length > 1) { head.appendChild(el("span", null, ix.runs[ix.run[i]] + " \u00b7 ")); }
        head.appendChild(el("span", null, ix.cats[ix.cat[i]] + " \u00b7 " + t[0] +
                                          (t[1] ? " (round " + t[1] + ")" : "")));
        head.appendChild(el("span", "badge o" + ix.out[i], ix.outcomes[ix.out[i]]));
        card.appendChild(head);
        if (pics.length) {
          var strip = el("div", pics.length > 1 ? "pics many" : "pics");
          pics.forEach(function (n, k) {
            var pic = document.createElement("img");
            pic.loading = "lazy";
            pic.decoding = "async";
            pic.alt = "sample image " + (k + 1) + " of " + pics.length;
            pic.src = readJson("mmg-img-" + n);
            strip.appendChild(pic);
          });
          card.appendChild(strip);
        }
        var box = el("div");
        field(box, "prompt", t[2]);
        field(box, "raw answer", t[3]);
        field(box, "extracted", (t[4] === null ? "(none)" : t[4]) + "   (target: " +
              (t[7] === null ? "none" : t[7]) + ")");
        field(box, "how", ix.provs[ix.prov[i]] + " \u00b7 " + (t[5] || "no extraction") +
              (t[6] ? " \u00b7 " + t[6] : ""));
        card.appendChild(box);
        list.appendChild(card);
      });
    }
    update();
  }
})();
"""
