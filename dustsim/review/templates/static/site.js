/* dustsim review: interactive tables (DataTables, bundled in assets/datatables.js).
   The DataTables build is an ES module; module scripts cannot be loaded from file://, so
   its source arrives in a classic script and is imported from a blob URL. */
"use strict";

function dustsimFormat(v) {
  if (v === null || v === undefined) return "?";
  if (typeof v !== "number") return String(v);
  if (!isFinite(v)) return "?";
  if (Number.isInteger(v)) return v.toLocaleString("en-GB");
  const a = Math.abs(v);
  if (a >= 1e4) return Math.round(v).toLocaleString("en-GB");
  return Number(v.toPrecision(4)).toString();
}

function dustsimEscape(s) {
  return String(s).replace(/[&<>"']/g, c => ({"&": "&amp;", "<": "&lt;", ">": "&gt;",
    '"': "&quot;", "'": "&#39;"}[c]));
}

function dustsimColumns(spec) {
  return spec.columns.map((c, i) => ({
    title: c.title + (c.unit ? `<br><small>${dustsimEscape(c.unit)}</small>` : ""),
    className: c.num ? "dt-right" : "dt-left",
    type: c.num ? "num" : "string",
    render: (d, type, row) => {
      if (type !== "display" && type !== "filter") return d === null ? (c.num ? -Infinity : "") : d;
      let text = dustsimFormat(d);
      if (c.se !== null && row[c.se] !== null && d !== null) {
        text += " ± " + Number(row[c.se].toPrecision(2)).toString();
      }
      if (type === "filter") return text;
      text = dustsimEscape(text);
      if (c.link === "card" && d !== null && spec.cards[d]) {
        return `<a href="${dustsimEscape(spec.cards[d])}">${text}</a>`;
      }
      return text;
    },
  }));
}

async function dustsimTables() {
  const nodes = document.querySelectorAll("table.dt[data-source]");
  if (!nodes.length) return;
  const url = URL.createObjectURL(new Blob([window.DUSTSIM_DATATABLES_SRC],
                                           {type: "text/javascript"}));
  const mod = await import(url);
  URL.revokeObjectURL(url);
  const DataTable = mod.default;
  for (const node of nodes) {
    const spec = JSON.parse(document.getElementById(node.dataset.source).textContent);
    // the server-rendered first rows give way to the interactive table
    node.replaceChildren();
    const note = node.parentElement.querySelector(".static-note");
    if (note) note.remove();
    // a second header row of per-column filters
    const thead = node.createTHead();
    const titles = thead.insertRow();
    const filters = thead.insertRow();
    filters.className = "filters";
    for (const c of spec.columns) {
      titles.appendChild(document.createElement("th"));
      const th = document.createElement("th");
      const input = document.createElement("input");
      input.type = "search";
      input.placeholder = "filter";
      input.setAttribute("aria-label", "filter " + c.title);
      th.appendChild(input);
      filters.appendChild(th);
    }
    const table = new DataTable(node, {
      data: spec.data,
      columns: dustsimColumns(spec),
      order: spec.order ? [spec.order] : [],
      pageLength: spec.pageLength,
      lengthMenu: [10, 25, 100, 500, {label: "all", value: -1}],
      deferRender: true,
      orderCellsTop: true,
      autoWidth: false,
      scrollX: true,
    });
    node.dataset.ready = "1";
    table.columns().every(function (i) {
      const input = filters.cells[i].querySelector("input");
      input.addEventListener("input", () => this.search(input.value).draw());
    });
  }
  document.body.dataset.tablesReady = "1";
}

document.addEventListener("DOMContentLoaded", () => {
  dustsimTables().catch(err => { console.error("dustsim tables:", err); });
});
