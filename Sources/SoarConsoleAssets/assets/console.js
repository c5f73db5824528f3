// The Soar console: one page, its views drawn from /console/api/* with the DOM's own methods
// (text is always set as text, never as markup). The session is an HttpOnly cookie; every change
// carries the session's CSRF token.
"use strict";

let csrf = "";
// What the page on show has running (timers, a live channel), stopped when another is shown.
let leavePage = () => {};

async function api(method, path, body) {
  const headers = { "content-type": "application/json" };
  if (method !== "GET") headers["x-csrf-token"] = csrf;
  const response = await fetch("/console/api" + path, {
    method, headers, credentials: "same-origin", body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await response.json().catch(() => ({}));
  if (response.status === 401) { showSignIn(); throw new Error(data.message || "Sign in first"); }
  if (!response.ok) throw new Error(data.message || response.statusText);
  return data;
}

function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (name === "text") node.textContent = value;
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value);
  }
  for (const child of children) if (child != null) node.append(child);
  return node;
}

function table(columns, rows, rowAttributes = () => ({})) {
  return el("table", {},
    el("thead", {}, el("tr", {}, ...columns.map(([title]) => el("th", { scope: "col", text: title })))),
    el("tbody", {}, ...rows.map((row) => el("tr", rowAttributes(row), ...columns.map(([, value]) => el("td", {}, value(row)))))));
}

// The console's realtime channel (Phoenix's vsn 1.0.0 over /console/api/realtime, the session
// cookie going with it): `onSends` gets the recent sends each time they change, `onState` says
// "live" once joined and "closed" when the channel or socket ends.
function liveSends(onSends, onState) {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  const socket = new WebSocket(`${scheme}//${location.host}/console/api/realtime?vsn=1.0.0`);
  const topic = "realtime:console:sends";
  let ref = 0, heartbeat = null, ended = false;
  const send = (t, event, payload) => socket.send(JSON.stringify({ topic: t, event, payload, ref: String(++ref), join_ref: "1" }));
  const end = () => { if (!ended) { ended = true; clearInterval(heartbeat); onState("closed"); } };
  socket.onopen = () => {
    send(topic, "phx_join", { config: { broadcast: { self: false, ack: false }, presence: { key: "" }, private: true } });
    heartbeat = setInterval(() => send("phoenix", "heartbeat", {}), 25000);
  };
  socket.onmessage = (message) => {
    const m = JSON.parse(message.data);
    if (m.topic !== topic) return;
    if (m.event === "phx_reply" && m.ref === "1") m.payload.status === "ok" ? onState("live") : socket.close();
    else if (m.event === "broadcast" && m.payload.event === "sends") onSends(m.payload.payload);
    else if (m.event === "phx_close" || m.event === "phx_error") socket.close();
  };
  socket.onclose = end;
  socket.onerror = end;
  return () => { ended = true; clearInterval(heartbeat); socket.close(); };
}

// The recent sends to `draw`, now and each time they change: through the live channel (opened
// again when it ends), read every second meanwhile. Returns what stops it.
function followSends(draw, showState = () => {}) {
  let stopped = false, close = () => {}, poll = null;
  const read = () => api("GET", "/sends").then((rows) => { if (!stopped) draw(rows); }).catch(() => {});
  const polling = () => { if (!poll) poll = setInterval(read, 1000); };
  const open = () => {
    close = liveSends((rows) => { if (!stopped) draw(rows); }, (state) => {
      if (stopped) return;
      showState(state);
      if (state === "live") { clearInterval(poll); poll = null; read(); }
      else { polling(); setTimeout(() => { if (!stopped) open(); }, 2000); }
    });
  };
  read();
  polling();
  open();
  return () => { stopped = true; clearInterval(poll); close(); };
}

function showSignIn() {
  leavePage();
  document.getElementById("app").hidden = true;
  document.getElementById("signin").hidden = false;
  document.getElementById("login-email").focus();
}

function showApp(session) {
  csrf = session.csrf;
  document.getElementById("who").textContent = session.email;
  document.getElementById("signin").hidden = true;
  document.getElementById("app").hidden = false;
  route();
}

const pages = { overview, users, devices, sends, compose, data, mailbox, storage, emulator };

function route(event) {
  leavePage();
  leavePage = () => {};
  const name = (location.hash || "#overview").slice(1).split("/")[0];
  const page = pages[name] ? name : "overview";
  for (const link of document.querySelectorAll("nav a")) {
    if (link.getAttribute("href") === "#" + page) link.setAttribute("aria-current", "page"); else link.removeAttribute("aria-current");
  }
  const main = document.getElementById("page");
  main.replaceChildren(el("p", { text: "Loading…" }));
  // Chosen from the menu (not the first page shown): the keyboard goes on in the page it opened.
  const chosen = event && event.type === "hashchange";
  pages[page](main).catch((error) => main.replaceChildren(el("p", { role: "alert", text: error.message })))
    .then(() => { if (chosen) main.focus({ preventScroll: true }); });
}

function card(label, value) {
  return el("div", { class: "card" }, el("div", { text: label }), el("div", { class: "value", text: String(value) }));
}

async function overview(main) {
  const data = await api("GET", "/overview");
  const rate = data.success_rate == null ? "–" : (100 * data.success_rate).toFixed(1) + "%";
  const chart = svg("svg", { class: "chart", "data-testid": "overview-chart", role: "img", "aria-label": "Delivered and failed, recent sends", viewBox: "0 0 300 80", width: "600", height: "160" });
  const most = Math.max(1, ...data.recent.map((s) => s.delivered + s.failed));
  data.recent.forEach((send, index) => {
    const x = index * 10, delivered = 76 * send.delivered / most, failed = 76 * send.failed / most;
    chart.append(svgRect(x, 78 - delivered - failed, delivered, ""), svgRect(x, 78 - failed, failed, "failed"));
  });
  main.replaceChildren(
    el("h1", { text: "Overview" }),
    el("div", { class: "cards" }, card("Users", data.users), card("Devices", data.devices), card("Sends today", data.sends_today), card("Delivered (recent sends)", rate)),
    el("h2", { text: "Devices by environment" }), table([["Environment", (r) => r[0]], ["Devices", (r) => String(r[1])]], Object.entries(data.devices_by_environment)),
    el("h2", { text: "Devices by app" }), table([["Bundle id", (r) => r[0]], ["Devices", (r) => String(r[1])]], Object.entries(data.devices_by_bundle)),
    el("h2", { text: "Delivery, recent sends" }), chart,
    el("h2", { text: "Failures by Apple's reason" }), table([["Reason", (r) => r[0]], ["Count", (r) => String(r[1])]], Object.entries(data.failures_by_reason)),
    el("h2", { text: "Tokens removed by Apple's reason" }), table([["Reason", (r) => r[0]], ["Tokens removed", (r) => String(r[1])]], Object.entries(data.tokens_removed_by_reason)));
}

/// An SVG element (document.createElement would make an HTML element of that name, drawn as nothing).
function svg(tag, attributes) {
  const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  return node;
}

function svgRect(x, y, height, kind) {
  return svg("rect", kind ? { x, y, width: 8, height, class: kind } : { x, y, width: 8, height });
}

function searchable(main, title, load, draw) {
  const input = el("input", { id: "search", type: "search", placeholder: "Search" });
  const results = el("div");
  const run = async () => results.replaceChildren(draw(await load(input.value)));
  input.addEventListener("input", run);
  main.replaceChildren(el("h1", { text: title }), el("label", { for: "search", text: "Search" }), input, results);
  return run();
}

function users(main) {
  const detail = el("section", { "aria-live": "polite" });
  const shown = searchable(main, "Users", (q) => api("GET", "/users?q=" + encodeURIComponent(q)), (rows) =>
    table([["Email", (u) => el("button", { type: "button", class: "link", text: u.email || u.id, onclick: () => userDetail(u.id, detail) })],
      ["Id", (u) => el("span", { class: "mono", text: u.id })], ["Created", (u) => u.created_at], ["Last sign-in", (u) => u.last_sign_in_at || "–"]], rows));
  main.append(detail);
  return shown;
}

async function userDetail(id, into) {
  const user = await api("GET", "/users/" + id);
  const act = (label, method, path, done) => el("button", { type: "button", text: label, onclick: async () => {
    if (!confirm(`${label}: ${user.email || user.id}?`)) return;
    await api(method, path).then(done).catch((error) => alert(error.message));
  } });
  into.replaceChildren(
    el("h2", { text: user.email || user.id }),
    el("p", {}, act("Sign out everywhere", "POST", `/users/${id}/signout`, () => alert("Their sessions ended")), " ",
      act("Delete user", "DELETE", `/users/${id}`, () => { into.replaceChildren(); route(); })),
    el("h3", { text: "Sessions" }),
    table([["Signed in", (s) => s.created_at], ["Last refreshed", (s) => s.refreshed_at], ["Level", (s) => s.aal],
      ["Revoke", (s) => act("Revoke", "DELETE", `/users/${id}/sessions/${s.id}`, () => userDetail(id, into))]], user.sessions),
    el("h3", { text: "Devices" }),
    table([["Token", (d) => el("span", { class: "mono", text: d.token })], ["Environment", (d) => d.environment || "unknown"], ["Last seen", (d) => d.updated_at || "–"]], user.devices),
    el("h3", { text: "Inbox" }),
    table([["Sent", (n) => n.created_at || "–"], ["Title", (n) => n.title || "–"], ["Body", (n) => n.body || "–"], ["Opened", (n) => n.opened_at || "–"]], user.inbox));
}

async function data(main) {
  const tables = await api("GET", "/tables");
  const rows = el("section", { "aria-live": "polite" });
  const pick = el("select", { id: "table-pick" }, ...tables.map((t) => el("option", { value: t.name, text: `${t.name} (${t.kind})` })));
  const show = async () => {
    const chosen = tables.find((t) => t.name === pick.value);
    const data = await api("GET", "/tables/" + encodeURIComponent(pick.value));
    rows.replaceChildren(
      el("h2", { text: "Schema" }),
      table([["Column", (c) => c.name + (chosen.primary_key.includes(c.name) ? " (key)" : "")], ["Type", (c) => c.type], ["Null", (c) => c.nullable ? "yes" : "no"]], chosen.columns),
      el("h2", { text: "Rows (first 50, read-only)" }),
      table(chosen.columns.map((c) => [c.name, (r) => r[c.name] == null ? "–" : typeof r[c.name] === "object" ? JSON.stringify(r[c.name]) : String(r[c.name])]), data));
  };
  pick.addEventListener("change", () => show().catch((error) => rows.replaceChildren(el("p", { role: "alert", text: error.message }))));
  main.replaceChildren(el("h1", { text: "Data" }), el("label", { for: "table-pick", text: "Table or view" }), pick, rows);
  if (tables.length) await show();
}

async function mailbox(main) {
  const mails = await api("GET", "/mailbox");
  main.replaceChildren(el("h1", { text: "Mailbox" }), el("p", { class: "hint", text: "Mail the server would have sent, while no SMTP server is set." }),
    table([["Sent", (m) => m.created_at], ["To", (m) => m.to], ["Subject", (m) => m.subject], ["Text", (m) => el("pre", { text: m.text })]], mails));
}

async function storage(main) {
  const buckets = await api("GET", "/storage");
  const objects = el("section", { "aria-live": "polite" });
  const open = async (bucket) => objects.replaceChildren(el("h2", { text: bucket }),
    table([["Name", (o) => o.name], ["Size", (o) => String((o.metadata || {}).size ?? "–")], ["Type", (o) => (o.metadata || {}).mimetype || "–"], ["Updated", (o) => o.updated_at || "–"]],
      await api("GET", "/storage/" + encodeURIComponent(bucket))));
  main.replaceChildren(el("h1", { text: "Storage" }),
    table([["Bucket", (b) => el("button", { type: "button", class: "link", text: b.id, onclick: () => open(b.id) })], ["Public", (b) => b.public ? "yes" : "no"],
      ["Size limit", (b) => b.file_size_limit == null ? "–" : String(b.file_size_limit)]], buckets), objects);
}

function devices(main) {
  return searchable(main, "Devices", (q) => api("GET", "/devices?q=" + encodeURIComponent(q)), (rows) =>
    table([["Token", (d) => el("span", { class: "mono", text: d.token })], ["User", (d) => d.email || d.user_id || "–"], ["Environment", (d) => d.environment || "unknown"],
      ["Bundle id", (d) => d.bundle_id || "default"], ["Last seen", (d) => d.updated_at || "–"]], rows, () => ({ "data-testid": "device-row" })));
}

async function sends(main) {
  let chosen = null;
  const detail = (s) => el("section", { "aria-live": "polite" },
    el("h2", { text: "Send " + s.send_id }),
    table([["Measure", (r) => r[0]], ["Value", (r) => r[1]]], [
      ["created", s.created_at], ["finished", s.finished_at || "not yet"], ["total", String(s.total)], ["queued", String(s.pending)],
      ["delivered", String(s.delivered)], ["failed", String(s.failed)], ["tokens removed", String(s.removed)], ["opened", String(s.opens)],
      ["sent again after a restart", String(s.redelivered)],
      ["suppressed", Object.entries(s.suppressed).map(([why, count]) => `${why} ${count}`).join(", ")],
      ["webhooks", Object.entries(s.webhooks).map(([state, count]) => `${state} ${count}`).join(", ")],
    ]),
    el("h3", { text: "Failures by Apple's reason" }),
    table([["Reason", (r) => r[0]], ["Devices", (r) => String(r[1])]], Object.entries(s.reasons)));
  let rows = [];
  const state = el("p", { class: "hint", "data-testid": "sends-live", role: "status", text: "Connecting…" });
  const draw = () => {
    const current = chosen && rows.find((s) => s.send_id === chosen);
    const focused = document.activeElement && document.activeElement.dataset.sendId;
    main.replaceChildren(el("h1", { text: "Sends" }), state, table([
      ["Sent", (s) => s.created_at],
      ["Id", (s) => el("button", { type: "button", class: "link mono", "data-send-id": s.send_id, text: s.send_id.slice(0, 8), onclick: () => { chosen = s.send_id; draw(); } })],
      ["Progress", (s) => `${s.total} total, ${s.pending} queued, ${s.delivered} delivered, ${s.failed} failed, ${s.removed} removed, ${s.opens} opened`],
      ["Failures", (s) => Object.entries(s.reasons).map(([reason, count]) => `${reason} ${count}`).join(", ") || "–"],
    ], rows, () => ({ "data-testid": "send-row" })), current ? detail(current) : null);
    // A redraw keeps the keyboard's place.
    if (focused) { const again = main.querySelector(`[data-send-id="${focused}"]`); if (again) again.focus(); }
  };
  let drawn = "";
  leavePage = followSends((fresh) => {
    // Drawn again only when something changed: the keyboard's place and the reader's stay put.
    const text = JSON.stringify(fresh);
    if (text === drawn) return;
    drawn = text;
    rows = fresh;
    draw();
  },
    (live) => { state.textContent = live === "live" ? "Live: progress as it happens" : "Reconnecting; reading every second meanwhile"; });
  draw();
}

async function compose(main) {
  const field = (id, label, attributes = {}) => [el("label", { for: id, text: label }), el("input", { id, "data-testid": id, ...attributes })];
  const preview = el("div", { class: "banner" }, el("div", { class: "app", text: "Your app · now" }), el("div", { class: "title" }), el("div", { class: "body" }));
  const status = el("p", { id: "send-status", "data-testid": "send-status", role: "status" });
  const form = el("form", {},
    ...field("compose-audience", "Audience (all, or a user's email)", { value: "all", required: "" }),
    ...field("compose-title", "Title"), ...field("compose-body", "Body", { required: "" }),
    ...field("compose-link", "Deep link (soar:///… or a universal link)", { placeholder: "soar:///notifications" }),
    ...field("compose-image", "Image (https URL, shown by the app's extension)", { placeholder: "the picture's https URL", type: "url" }),
    el("p", { class: "hint", id: "compose-size" }),
    el("button", { type: "submit", "data-testid": "compose-send", text: "Send" }), status);
  const value = (id) => form.querySelector("#" + id).value;
  const update = () => {
    preview.querySelector(".title").textContent = value("compose-title");
    preview.querySelector(".body").textContent = value("compose-body");
    const payload = { aps: { alert: { title: value("compose-title"), body: value("compose-body") }, sound: "default", "mutable-content": value("compose-image") ? 1 : undefined },
      deeplink: value("compose-link") || undefined, image_url: value("compose-image") || undefined };
    // Checked by the server as `soar payload validate` checks it, a moment after the last key.
    clearTimeout(update.timer);
    update.timer = setTimeout(async () => {
      const check = await api("POST", "/validate", payload).catch((error) => ({ valid: false, error: error.message }));
      form.querySelector("#compose-size").textContent = check.valid
        ? `valid: ${check.size} of ${check.limit} bytes` + (check.route ? ` · a tap opens ${check.route}` : "")
        : `not valid: ${check.error}`;
    }, 250);
  };
  form.addEventListener("input", update);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    status.textContent = "Sending…";
    try {
      const sent = await api("POST", "/compose", {
        audience: value("compose-audience"), title: value("compose-title"), body: value("compose-body"), link: value("compose-link"), image: value("compose-image"),
      });
      leavePage();
      leavePage = followSends((rows) => {
        const s = rows.find((row) => row.send_id === sent.send_id);
        if (s) status.textContent = `${s.pending} queued, ${s.delivered} delivered, ${s.failed} failed`;
      });
    } catch (error) {
      status.textContent = error.message;
    }
  });
  main.replaceChildren(el("h1", { text: "Compose" }), el("div", { class: "compose" }, form, el("div", { class: "phone", "aria-label": "Preview" }, preview)));
  update();
}

document.addEventListener("DOMContentLoaded", async () => {
  window.addEventListener("hashchange", route);
  document.getElementById("signin-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const error = document.getElementById("signin-error");
    error.textContent = "";
    try {
      showApp(await api("POST", "/session", { email: document.getElementById("login-email").value, password: document.getElementById("login-password").value }));
    } catch (failure) {
      error.textContent = failure.message;
    }
  });
  document.getElementById("signout").addEventListener("click", async () => { await api("DELETE", "/session").catch(() => {}); showSignIn(); });
  try { showApp(await api("GET", "/session")); } catch { showSignIn(); }
});

async function emulator(main) {
  const stats = await api("GET", "/emulator/stats");
  const deliveries = await api("GET", "/emulator/deliveries");
  const faults = await api("GET", "/emulator/faults");
  const status = el("p", { role: "status" });
  const form = el("form", {},
    el("label", { for: "fault-status", text: "Answer with status (429, 500, 503; empty: none)" }), el("input", { id: "fault-status", type: "number", value: faults.status ?? "" }),
    el("label", { for: "fault-every", text: "Every Nth request" }), el("input", { id: "fault-every", type: "number", min: "1", value: faults.every ?? 1 }),
    el("label", { for: "fault-latency", text: "Latency (ms)" }), el("input", { id: "fault-latency", type: "number", min: "0", value: faults.latency_ms ?? 0 }),
    el("button", { type: "submit", text: "Set faults" }),
    el("button", { type: "button", text: "Clear faults", onclick: async () => { await api("DELETE", "/emulator/faults"); status.textContent = "Faults cleared"; } }),
    status);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const number = (id) => form.querySelector("#" + id).value === "" ? null : Number(form.querySelector("#" + id).value);
    await api("POST", "/emulator/faults", { status: number("fault-status"), every: number("fault-every") || 1, latency_ms: number("fault-latency") || 0 })
      .then(() => { status.textContent = "Faults set"; }, (error) => { status.textContent = error.message; });
  });
  main.replaceChildren(el("h1", { text: "APNs emulator" }),
    el("div", { class: "cards" }, card("Requests", stats.requests), card("Accepted", stats.accepted), card("Connections", stats.connections_total ?? 0)),
    el("h2", { text: "Faults" }), form,
    el("h2", { text: "Deliveries (newest first)" }),
    el("button", { type: "button", text: "Clear deliveries", onclick: async () => { await api("DELETE", "/emulator/deliveries"); route(); } }),
    table([["Time", (d) => d.time || "–"], ["Token", (d) => el("span", { class: "mono", text: (d.token || "").slice(0, 16) + "…" })], ["Environment", (d) => d.environment || "–"],
      ["Payload", (d) => el("pre", { text: JSON.stringify(d.payload) })]], deliveries.slice().reverse().slice(0, 200)));
}
