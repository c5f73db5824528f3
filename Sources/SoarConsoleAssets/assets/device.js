// A browser tab as the user's iPhone: signs in through the API as an app does, asks for
// permission as the seed's flow does, registers a token the APNs emulator knows as this tab,
// shows what arrives as iOS does in the foreground (banner, inbox of 50, badge), and on a tap
// shows the route and reports the open. Sign-out removes the token, as the seed's registrar does.
"use strict";

let config = null;
let session = null;
let token = null;
let seen = 0;
let inbox = [];
let poll = null;

const $ = (id) => document.getElementById(id);

function show(section) {
  for (const id of ["device-signin", "permission", "denied", "home"]) $(id).hidden = id !== section;
}

async function api(method, path, body, prefer) {
  const headers = { apikey: config.anon_key, "content-type": "application/json" };
  if (session) headers.authorization = "Bearer " + session.access_token;
  if (prefer) headers.prefer = prefer;
  const response = await fetch(config.api_url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  const data = text ? JSON.parse(text) : null;
  if (!response.ok) throw new Error((data && (data.msg || data.message || data.error_description)) || response.statusText);
  return data;
}

function hex(bytes) { return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join(""); }

async function allow() {
  // The APNs token iOS would hand the app: 32 bytes, hex as the seed's encoder writes it.
  token = hex(crypto.getRandomValues(new Uint8Array(32)));
  await api("POST", "/rest/v1/device_tokens?on_conflict=user_id,token",
    { user_id: session.user.id, token, platform: "ios" }, "resolution=merge-duplicates,return=minimal");
  $("device-token").textContent = token;
  seen = 0;
  show("home");
  poll = setInterval(() => receive().catch(() => {}), 500);
}

async function receive() {
  const response = await fetch(`/console/device/api/deliveries?token=${token}&after=${seen}`, { headers: { authorization: "Bearer " + session.access_token } });
  if (!response.ok) return;
  const data = await response.json();
  seen = data.count;
  for (const note of data.notifications) present(note);
}

function present(note) {
  inbox.unshift({ ...note, read: false });
  inbox = inbox.slice(0, 50);
  const banner = $("banner");
  banner.querySelector(".title").textContent = note.title || "";
  banner.querySelector(".body").textContent = note.body || "";
  // iOS plays the payload's sound with the banner (seed 000: list, banner, sound in the foreground).
  banner.querySelector(".app").textContent = note.sound ? "Soar · now · 🔔 " + (typeof note.sound === "string" ? note.sound : "sound") : "Soar · now";
  banner.hidden = false;
  banner.onclick = () => open(inbox[0]);
  banner.onkeydown = (event) => { if (event.key === "Enter" || event.key === " ") open(inbox[0]); };
  clearTimeout(present.timer);
  present.timer = setTimeout(() => { banner.hidden = true; }, 8000);
  draw();
}

function draw() {
  const unread = inbox.filter((note) => !note.read).length;
  const badge = inbox.length && inbox[0].badge != null ? inbox[0].badge : unread;
  $("badge").textContent = String(badge);
  $("badge").hidden = !badge;
  $("inbox").replaceChildren(...inbox.map((note) => {
    const item = document.createElement("li");
    item.tabIndex = 0;
    item.className = note.read ? "" : "unread";
    const title = document.createElement("div");
    title.className = "title";
    title.textContent = note.title || "";
    const body = document.createElement("div");
    body.textContent = note.body || "";
    item.append(title, body);
    item.addEventListener("click", () => open(note));
    item.addEventListener("keydown", (event) => { if (event.key === "Enter") open(note); });
    return item;
  }));
}

async function open(note) {
  $("banner").hidden = true;
  note.read = true;
  draw();
  $("route").textContent = `${note.route.name} ${note.route.path}`;
  $("route-view").hidden = false;
  if (note.soar_id) {
    const now = new Date().toISOString();
    await api("PATCH", "/rest/v1/notifications?id=eq." + note.soar_id, { opened_at: now, read_at: now }, "return=minimal").catch(() => {});
  }
}

async function signOut() {
  clearInterval(poll);
  if (token) await api("DELETE", "/rest/v1/device_tokens?token=eq." + token).catch(() => {});
  await api("POST", "/auth/v1/logout").catch(() => {});
  session = null;
  token = null;
  inbox = [];
  draw();
  show("device-signin");
}

document.addEventListener("DOMContentLoaded", async () => {
  config = await (await fetch("/console/device/api/config")).json();
  if (!config.emulator) $("device-error").textContent = "The simulated device needs the APNs emulator: soar serve --with-emulator";
  $("device-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    $("device-error").textContent = "";
    try {
      session = await api("POST", "/auth/v1/token?grant_type=password", { email: $("device-email").value, password: $("device-password").value });
      show("permission");
      $("allow").focus();
    } catch (error) {
      $("device-error").textContent = error.message;
    }
  });
  $("allow").addEventListener("click", () => allow().catch((error) => { $("device-error").textContent = error.message; show("device-signin"); }));
  $("deny").addEventListener("click", () => show("denied"));
  $("settings").addEventListener("click", () => show("permission"));
  $("device-signout").addEventListener("click", signOut);
  show("device-signin");
});
