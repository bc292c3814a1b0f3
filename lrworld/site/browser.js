// The results browser page: the table, and for the cell in the address (#cell=<model>|<column>)
// its questions with the model's answers, filterable by status, beside its provenance chain and
// the audit's findings. Data is the page's inline JSON; text is set with textContent only (the
// data holds titles and answers that must never become markup).
"use strict";
const DATA = JSON.parse(document.getElementById("data").textContent);
const STATUSES = ["correct", "wrong", "missed"];
let filter = "all";

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v; else if (k === "text") e.textContent = v; else e.setAttribute(k, v);
  }
  for (const c of children) if (c != null) e.append(c);
  return e;
}

const f2 = v => (v == null ? "" : v.toFixed(2));

function cellText(c, colN) {
  let t = f2(c.value);
  if (c.ci_low != null) t += ` [${f2(c.ci_low)}, ${f2(c.ci_high)}]`;
  if (c.n != null && colN != null && c.n !== colN) t += ` n=${c.n}`;
  if (c.degenerate) t += "\u2020";
  if (c.significant_vs_random) t += "*";
  return t;
}

// the LRWorld paper's figure of the cell's model and measure, and whether our interval holds it
const paperText = p => `paper ${p.value.toFixed(4)} ${p.inside == null ? "" : (p.inside ? "\u2713" : "\u2717")}`.trim();

function columnN(col) {
  const counts = {};
  for (const m of DATA.models) { const c = DATA.cells[`${m}|${col}`]; if (c && c.n != null) counts[c.n] = (counts[c.n] || 0) + 1; }
  let best = null;
  for (const [n, k] of Object.entries(counts)) if (best == null || k > counts[best] || (k === counts[best] && +n > +best)) best = n;
  return best == null ? null : +best;
}

function renderTable() {
  const t = document.getElementById("results");
  const groups = el("tr", {}, el("th", {}));
  let last = null, span = null;
  for (const c of DATA.columns) {
    const g = `${c.scale} / ${c.factor}`;
    if (g === last) span.colSpan += 1; else { span = el("th", {text: g}); span.colSpan = 1; groups.append(span); last = g; }
  }
  const head = el("tr", {}, el("th", {text: "model"}), ...DATA.columns.map(c => el("th", {text: c.name})));
  const metric = el("tr", {class: "metric"}, el("td", {text: "metric (n)"}),
    ...DATA.columns.map(c => { const n = columnN(c.name); return el("td", {text: n == null ? c.metric : `${c.metric} (n=${n})`}); }));
  t.append(el("thead", {}, groups, head), el("tbody", {}, metric, ...DATA.models.map(m => el("tr", {},
    el("th", {text: m}), ...DATA.columns.map(col => {
      const key = `${m}|${col.name}`, c = DATA.cells[key];
      const td = el("td", {class: "v", "data-cell": key});
      if (c) td.append(el("a", {href: "#cell=" + encodeURIComponent(key), text: cellText(c, columnN(col.name))}));
      if (c && c.paper) td.append(el("br"), el("span", {class: "paper", text: paperText(c.paper)}));
      return td;
    })))));
}

function kv(obj) {
  return el("table", {}, ...Object.entries(obj).filter(([, v]) => v != null).map(([k, v]) =>
    el("tr", {}, el("td", {text: k}), el("td", {text: typeof v === "object" ? JSON.stringify(v) : String(v)}))));
}

function questionView(a, prompt) {
  const labels = prompt ? prompt.labels : [];
  const name = i => (i == null ? "none" : (labels[i] || String(i)));
  const row = el("details", {class: `question ${a.status}`, "data-status": a.status, "data-qid": a.qid},
    el("summary", {}, el("span", {class: "badge", text: a.status}), `${a.qid}: chose ${name(a.parsed)}, gold ${name(prompt ? prompt.answer_index : null)}`));
  if (prompt) {
    row.append(el("div", {text: "Prompt (history and candidates as the model saw them):"}), el("pre", {text: prompt.prompt}));
    const cands = el("ol", {class: "cands", type: "A"});
    prompt.candidates.forEach((text, i) => {
      const cls = [i === prompt.answer_index ? "gold" : "", i === a.parsed ? "chosen" : ""].join(" ").trim();
      const li = el("li", {class: cls, text: `${labels[i] || ""}. ${text}`});
      if (i === prompt.answer_index) li.append(" \u2714 gold");
      if (i === a.parsed) li.append(" \u2190 chosen");
      cands.append(li);
    });
    row.append(el("div", {text: "Candidates:"}), cands);
  }
  row.append(el("div", {text: "Raw answer:"}), el("pre", {class: "raw", text: a.raw_text == null ? "(none)" : a.raw_text}),
    el("div", {text: `Parsed choice: ${name(a.parsed)}`}));
  if (a.label_logprobs && a.label_logprobs.some(v => v != null)) {
    row.append(el("div", {text: "Label log-probabilities:"}), el("table", {class: "logprobs"},
      ...a.label_logprobs.map((lp, i) => el("tr", {}, el("td", {text: labels[i] || String(i)}),
        el("td", {text: lp == null ? "" : lp.toFixed(3)}), el("td", {text: lp == null ? "" : `p=${Math.exp(lp).toFixed(3)}`})))));
  }
  return row;
}

function renderCell(key) {
  const box = document.getElementById("cell");
  box.replaceChildren();
  document.querySelectorAll("#results td.open").forEach(td => td.classList.remove("open"));
  const c = DATA.cells[key];
  if (!c) return;
  const td = document.querySelector(`#results td[data-cell="${CSS.escape(key)}"]`);
  if (td) td.classList.add("open");
  const prompts = DATA.prompts[`${c.measure}|${c.variant}`] || {};
  const counts = {all: c.answers.length};
  for (const s of STATUSES) counts[s] = c.answers.filter(a => a.status === s).length;
  const list = el("div", {id: "qlist"});
  const shown = el("p", {id: "shown"});
  const buttons = el("div", {class: "filters"}, ...["all", ...STATUSES].map(f => {
    const b = el("button", {"data-filter": f, text: `${f} (${counts[f]})`});
    b.onclick = () => { filter = f; apply(); };
    return b;
  }));
  function apply() {
    let n = 0;
    for (const q of list.children) { const on = filter === "all" || q.dataset.status === filter; q.hidden = !on; n += on; }
    for (const b of buttons.children) b.classList.toggle("on", b.dataset.filter === filter);
    shown.textContent = `showing ${n} of ${counts.all} questions`;
  }
  for (const a of c.answers) list.append(questionView(a, prompts[a.qid]));
  const q = el("div", {id: "questions"},
    el("h2", {text: `${c.model} \u00d7 ${c.column}: ${cellText(c, null)}`}),
    el("p", {id: "counts", "data-n": counts.all, "data-correct": counts.correct, "data-wrong": counts.wrong, "data-missed": counts.missed,
      text: `n ${counts.all}: correct ${counts.correct}, wrong ${counts.wrong}, missed ${counts.missed}` +
        (c.diff_vs_random != null ? `; vs random ${c.diff_vs_random >= 0 ? "+" : ""}${f2(c.diff_vs_random)} (p=${c.p_vs_random.toFixed(3)})` : "")}),
    c.paper ? el("p", {id: "paper", text: `The LRWorld paper (its Table ${c.paper.paper_table}, row ${c.paper.paper_name}): ` +
      `${c.paper.value.toFixed(4)}${c.paper.n != null ? ` over its ${c.paper.n} questions` : ""}, ` +
      (c.paper.inside == null ? "" : (c.paper.inside ? "inside" : "outside") + " our interval") +
      (c.paper.missed_rate != null ? `; its missed rate ${c.paper.missed_rate.toFixed(4)}` : "")}) : null,
    buttons, shown, list);
  const audit = DATA.audit.measures[c.measure] || {};
  const side = el("div", {id: "side"},
    el("h2", {text: "Score"}), el("p", {text: c.score_file}), kv(c.score),
    el("h2", {text: "Provenance chain"}), el("p", {text: c.provenance.record}),
    el("table", {id: "chain"}, el("tr", {}, ...["role", "path", "rule", "sha256"].map(h => el("th", {text: h}))),
      ...c.provenance.chain.map(n => el("tr", {}, el("td", {text: n.role || ""}), el("td", {text: n.path || ""}),
        el("td", {text: n.rule || ""}), el("td", {text: (n.sha256 || "").slice(0, 12)})))),
    el("h2", {text: `Audit: ${c.measure}`}),
    el("p", {id: "audit-verdict", text: `${DATA.audit.file}: ${DATA.audit.passed ? "passed" : "FAILED"}, ${DATA.audit.violations} violations`}),
    kv(audit));
  box.append(q, side);
  apply();
}

function route() {
  const m = location.hash.match(/^#cell=(.*)$/);
  filter = "all";
  renderCell(m ? decodeURIComponent(m[1]) : null);
}

renderTable();
// inside `snakemake --report` the page is a data: URL with no site around it
if (location.protocol === "data:") document.getElementById("home").hidden = true;
window.addEventListener("hashchange", route);
route();
