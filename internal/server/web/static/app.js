// OpenSeek web app: the live half of the server-rendered pages. It loads
// the page with the token, follows a session's event stream (SSE) and
// posts protocol commands; the server renders everything already in the
// log. No framework, no build step.
//
// The token never travels in a cookie or a URL a server sees: the printed
// URL carries it in the fragment (#token=…), which this script moves into
// the tab's sessionStorage (it survives reloads and same-tab links) and
// sends as `Authorization: Bearer` on every request. A browser sends
// cookies to every port of a host, so a cookie would reach any other
// program listening on 127.0.0.1.
"use strict";

(() => {
  const $ = (sel, root = document) => root.querySelector(sel);
  const el = (tag, cls, text) => {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  };

  // banner shows a message the user must see; kind is "warn" or "error".
  // A message shows once: not again while it is on the page, and a
  // dismissed workspace warning not again in this tab.
  function banner(text, kind = "warn") {
    const box = $("#banners");
    if (!box || dismissed().includes(text)) return;
    for (const t of box.querySelectorAll(".banner-text")) if (t.textContent === text) return;
    const b = el("div", "banner " + kind);
    b.setAttribute("role", kind === "error" ? "alert" : "status");
    b.append(el("span", "banner-text", text));
    const x = el("button", "close", "×");
    x.type = "button";
    x.title = "dismiss";
    x.setAttribute("aria-label", "dismiss");
    b.append(x);
    box.append(b);
  }
  const DISMISSED_KEY = "openseek.dismissed";
  const dismissed = () => { try { return JSON.parse(sessionStorage.getItem(DISMISSED_KEY)) || []; } catch (_) { return []; } };
  // banners drops the warnings this tab dismissed before from the notice
  // area (the server renders the workspace's warnings there).
  function banners() {
    for (const b of document.querySelectorAll("#banners .banner")) {
      if (dismissed().includes($(".banner-text", b).textContent)) b.remove();
    }
  }
  // dismiss closes a notice; a workspace warning (the server renders them
  // on every page) stays dismissed in this tab.
  function dismiss(e) {
    const x = e.target instanceof Element ? e.target.closest(".banner .close") : null;
    if (!x) return;
    const b = x.closest(".banner");
    if (b.classList.contains("workspace")) {
      sessionStorage.setItem(DISMISSED_KEY, JSON.stringify([...dismissed(), $(".banner-text", b).textContent].slice(-50)));
    }
    b.remove();
  }

  // errorText reads {"error": "..."} from a failed response.
  async function errorText(res) {
    let text = res.status + " " + res.statusText;
    try {
      const body = await res.json();
      if (body && body.error) text = body.error;
    } catch (_) { /* not JSON: keep the status */ }
    return text;
  }

  // --- the token ---
  const TOKEN_KEY = "openseek.token";
  // takeToken moves #token=… from the address bar (and the history entry)
  // into sessionStorage and returns the tab's token, or null.
  function takeToken() {
    if (location.hash.startsWith("#token=")) {
      const t = decodeURIComponent(location.hash.slice("#token=".length));
      history.replaceState(history.state, "", location.pathname + location.search);
      if (t) sessionStorage.setItem(TOKEN_KEY, t);
    }
    return sessionStorage.getItem(TOKEN_KEY);
  }
  const token = () => sessionStorage.getItem(TOKEN_KEY) || "";

  // base is the path this workspace's pages and API are served under
  // ("" unless the server holds several workspaces).
  const base = () => document.body.dataset.base || "";

  // api is fetch with the token; no cookie is ever sent.
  function api(url, init = {}) {
    const headers = Object.assign({ Authorization: "Bearer " + token() }, init.headers || {});
    return fetch(url, Object.assign({}, init, { headers, credentials: "omit", cache: "no-store", referrerPolicy: "no-referrer" }));
  }

  async function post(url, body) {
    let res;
    try {
      res = await api(url, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    } catch (e) {
      throw new Error("the server did not answer (" + e.message + ")");
    }
    if (!res.ok) throw new Error(await errorText(res));
    return res.status === 204 ? null : res.json().catch(() => null);
  }

  // carryToken puts the token in the fragment of a link of this app as
  // the user is about to follow it, so that a new tab (which starts with
  // empty sessionStorage) has it too. In-page anchors are left alone.
  function carryToken(e) {
    const a = e.target instanceof Element ? e.target.closest("a[href]") : null;
    if (!a || a.origin !== location.origin || a.getAttribute("href").startsWith("#") || !token()) return;
    a.hash = "token=" + encodeURIComponent(token());
  }

  // events reads a server-sent event stream with fetch (an EventSource
  // cannot send the Authorization header), reconnecting with
  // Last-Event-ID after a drop. cb.event(name, data) gets each event;
  // cb.open() and cb.lost(final, why) report the connection.
  function events(url, cb) {
    let last = null, wait = 1000;
    // once reads one connection to its end; it returns why it ended and
    // whether to give up (nothing live here, or a refusal).
    async function once() {
      const headers = { Accept: "text/event-stream" };
      if (last !== null) headers["Last-Event-ID"] = last;
      const res = await api(url, { headers });
      if (res.status === 204) return { why: "the session is not live here", final: true };
      if (!res.ok) return { why: await errorText(res), final: [401, 403, 404, 409].includes(res.status) };
      cb.open();
      wait = 1000;
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buf = "", name = "", data = [], id = null;
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return { why: "the stream ended", final: false };
        buf += value;
        const lines = buf.split(/\r\n|\r|\n/);
        buf = lines.pop();
        for (const line of lines) {
          if (line === "") {
            if (id !== null) last = id;
            if (data.length) cb.event(name || "message", data.join("\n"), id);
            name = ""; data = []; id = null;
            continue;
          }
          if (line.startsWith(":")) continue;
          const i = line.indexOf(":");
          const field = i < 0 ? line : line.slice(0, i);
          let v = i < 0 ? "" : line.slice(i + 1);
          if (v.startsWith(" ")) v = v.slice(1);
          if (field === "event") name = v;
          else if (field === "data") data.push(v);
          else if (field === "id" && !v.includes("\0")) id = v;
          else if (field === "retry" && /^\d+$/.test(v)) wait = Number(v);
        }
      }
    }
    (async () => {
      for (;;) {
        let end;
        try { end = await once(); } catch (e) { end = { why: e.message, final: false }; }
        cb.lost(end.final, end.why);
        if (end.final) return;
        await new Promise((r) => setTimeout(r, wait));
        wait = Math.min(wait * 2, 15000);
      }
    })();
  }

  // clock is a time of day as the server renders it (15:04:05).
  const clock = (d = new Date()) => [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, "0")).join(":");

  // --- the sidebar: new, search, switch, the running ones marked ---
  function sidebar() {
    const nav = $("#nav");
    if (!nav) return;
    // A phone shows the conversation first; the list folds under its
    // title (and opens again on a wider screen).
    const narrow = matchMedia("(max-width: 760px)");
    nav.open = !narrow.matches;
    narrow.addEventListener("change", () => { nav.open = !narrow.matches; });
    const search = $("#session-search");
    const list = $("#session-nav");
    const filter = () => {
      const q = search.value.trim().toLowerCase();
      let shown = 0;
      for (const li of list.children) {
        const hit = !q || li.textContent.toLowerCase().includes(q) || li.dataset.id.toLowerCase().includes(q);
        li.hidden = !hit;
        if (hit) shown++;
      }
      $("#no-match").hidden = shown > 0 || !q;
    };
    search.addEventListener("input", filter);
    // The running marks follow the server (a GET changes nothing); a
    // session started elsewhere joins the list.
    const refresh = async () => {
      if (document.hidden) return;
      let rows;
      try {
        const res = await api(base() + "/v1/sessions");
        if (!res.ok) return;
        rows = await res.json();
      } catch (_) { return; }
      const current = $("#chat")?.dataset.session;
      for (const r of rows.reverse()) {
        if (r.review || /-sr-\d+$/.test(r.id)) continue;
        let li = list.querySelector(`li[data-id="${CSS.escape(r.id)}"]`);
        if (!li) {
          li = el("li");
          li.dataset.id = r.id;
          const a = el("a");
          a.href = base() + "/sessions/" + encodeURIComponent(r.id);
          if (r.id === current) a.setAttribute("aria-current", "page");
          const dot = el("span", "running", "●");
          dot.title = "running";
          dot.setAttribute("aria-label", "running");
          a.append(el("span", "title", clip(r.title || "(no prompt yet)", 120)), dot);
          li.append(a);
          list.prepend(li);
        } else if (r.title && $(".title", li).textContent === "(no prompt yet)") {
          $(".title", li).textContent = clip(r.title.replace(/\s+/g, " ").trim(), 120);
        }
        li.classList.toggle("busy", !!r.busy);
        $(".running", li).hidden = !r.busy;
      }
      filter();
    };
    setInterval(refresh, 3000);
    document.addEventListener("visibilitychange", refresh);
    nav.refresh = refresh;
  }
  const clip = (s, n) => s.length <= n ? s : s.slice(0, n - 1) + "…";

  // --- notifications ---
  // notify shows a browser notification when the tab is hidden, only
  // after the user granted it with the Notify me button (never asked on
  // load).
  function notify(title, body) {
    if (!document.hidden || !("Notification" in window) || Notification.permission !== "granted") return;
    try {
      const n = new Notification(title, { body, tag: "openseek" });
      n.onclick = () => { window.focus(); n.close(); };
    } catch (_) {
      // Some browsers (Chrome on Android) show notifications only from a
      // service worker: the page goes on without one.
    }
  }
  function notifyButton() {
    const b = $("#notify");
    if (!b || !("Notification" in window) || Notification.permission === "granted" || Notification.permission === "denied") return;
    b.hidden = false;
    b.addEventListener("click", async () => {
      const p = await Notification.requestPermission();
      b.hidden = p !== "default";
      if (p === "denied") banner("Notifications are blocked for this page; the browser's site settings can allow them.");
    });
  }

  // --- the session list ---
  function sessionsPage() {
    const btn = $("#new-session");
    if (!btn) return;
    btn.addEventListener("click", async () => {
      btn.disabled = true;
      try {
        const made = await post(base() + "/v1/sessions", {});
        location.assign(base() + "/sessions/" + encodeURIComponent(made.id));
      } catch (e) {
        banner("Could not start a session: " + e.message, "error");
        btn.disabled = false;
      }
    });
  }

  // --- the chat page ---
  function chatPage(chat) {
    const id = chat.dataset.session;
    const log = $("#log");
    const cmdURL = base() + "/v1/sessions/" + encodeURIComponent(id) + "/commands";
    const state = $("#state");
    const input = $("#prompt");
    const cancel = $("#cancel");
    const enqueueBtn = $("#enqueue");
    const totals = $("#totals");
    let busy = chat.dataset.busy === "true";
    let cur = null; // the assistant message of the running step
    const timers = new Map(); // tool call id -> interval

    function setBusy(b) {
      busy = b;
      chat.dataset.busy = String(b);
      if (state) {
        state.textContent = b ? "working…" : "idle";
        state.classList.toggle("busy", b);
      }
      if (cancel) cancel.hidden = !b;
      if (enqueueBtn) enqueueBtn.hidden = !b;
      $("#nav")?.refresh?.();
      if (input) input.placeholder = b ? "Steer the running turn (Enter), or queue for after it (Tab); Esc interrupts…" : "Ask something. Enter sends, Shift+Enter adds a line.";
    }
    const scroll = () => window.scrollTo(0, document.body.scrollHeight);
    const add = (node) => { log.append(node); scroll(); return node; };

    function userMsg(text, label = "you") {
      const m = el("div", "msg user");
      const who = el("div", "who", label + " ");
      who.append(el("span", "time", clock()));
      m.append(who, el("div", "text", text));
      return add(m);
    }

    // message returns the assistant block of the running step.
    function message() {
      if (!cur) {
        const m = el("div", "msg assistant live");
        const answer = el("div", "answer");
        m.append(answer);
        cur = { m, answer, text: "", reasoning: null, rtext: "" };
        add(m);
      }
      return cur;
    }
    function foldReasoning(c) {
      if (!c.reasoning || c.reasoning.tagName === "DETAILS") return;
      const d = el("details", "reasoning");
      d.append(el("summary", "", "reasoning"), el("div", "text", c.rtext));
      c.reasoning.replaceWith(d);
      c.reasoning = d;
    }
    function endStep() {
      if (cur) {
        foldReasoning(cur);
        cur.m.classList.remove("live");
        if (!cur.text && !cur.rtext) cur.m.remove();
      }
      cur = null;
    }

    // card is the card of a tool call, made while it runs: folded to its
    // head line (tool, arguments, then exit badge and duration), its body
    // the calls a script made; the server renders it whole when the
    // result arrives (cardDone).
    function card(callID, name, args, parent) {
      let c = document.getElementById("tool-" + callID);
      if (c) return c;
      c = el("details", "card tool pending");
      c.id = "tool-" + callID;
      c.dataset.toolCall = callID;
      const head = el("summary", "card-head");
      head.append(el("span", "name", name), document.createTextNode(" "), el("span", "args", args || ""));
      c.append(head, el("div", "card-body"));
      // A call a script made goes inside the script's card.
      const p = parent && document.getElementById("tool-" + parent);
      if (p) {
        const body = $(".card-body", p);
        let box = body.querySelector(":scope > .children");
        if (!box) {
          box = el("div", "children");
          body.prepend(box);
        }
        box.append(c);
        return c;
      }
      return add(c);
    }
    function argsBrief(raw) {
      try {
        const o = JSON.parse(raw);
        if (o && typeof o === "object" && !Array.isArray(o)) {
          return Object.keys(o).sort().map((k) => {
            const v = typeof o[k] === "string" ? o[k] : JSON.stringify(o[k]);
            return k + ": " + clip(v.replace(/\s+/g, " ").trim(), 120);
          }).join(" · ");
        }
      } catch (_) { /* not JSON: show it raw */ }
      return clip(String(raw).replace(/\s+/g, " ").trim(), 200);
    }
    // contentText is the text of protocol content: a string or parts.
    const contentText = (c) => typeof c === "string" ? c
      : Array.isArray(c) ? c.filter((p) => p && p.type === "text").map((p) => p.text).join("\n") : JSON.stringify(c);

    // elapsedTimer counts the seconds since now into span; clearInterval
    // stops it.
    const secondsSince = (start) => Math.round((Date.now() - start) / 1000) + "s";
    function elapsedTimer(span) {
      const start = Date.now();
      span.dataset.start = String(start);
      return setInterval(() => { span.textContent = secondsSince(start); }, 1000);
    }

    function toolStarted(ev) {
      endStep();
      const c = card(ev.tool_call_id, ev.tool_name, argsBrief(ev.arguments), ev.parent);
      if (c.classList.contains("done")) return;
      const head = $(".card-head", c);
      if (!$(".spinner", head)) {
        const spin = el("span", "spinner");
        spin.setAttribute("aria-label", "running");
        const t = el("span", "elapsed", "0s");
        head.append(" ", spin, t);
        timers.set(ev.tool_call_id, elapsedTimer(t));
      }
    }
    async function toolResult(ev) {
      endStep();
      const c = card(ev.tool_call_id, ev.tool_name, "");
      if (c.classList.contains("done")) return;
      clearInterval(timers.get(ev.tool_call_id));
      timers.delete(ev.tool_call_id);
      c.classList.remove("pending");
      c.classList.add("done");
      if (ev.is_error) c.classList.add("error");
      const head = $(".card-head", c);
      head.querySelectorAll(".spinner").forEach((s) => s.remove());
      const t = $(".elapsed", head);
      if (t) t.classList.add("final");
      // The server renders the finished card (exit badge, notes, diff) as
      // it renders the history; the open/closed state stays the reader's.
      try {
        const res = await api(base() + "/sessions/" + encodeURIComponent(id) + "/cards/" + encodeURIComponent(ev.tool_call_id));
        if (!res.ok) throw new Error(res.status);
        const tpl = document.createElement("template");
        tpl.innerHTML = await res.text();
        const done = tpl.content.querySelector("details.card");
        const kids = $(".card-body > .children", c);
        if (!done) throw new Error("no card");
        if (kids && !$(".card-body > .children", done)) $(".card-body", done).prepend(kids);
        done.open = c.open;
        if (!$(".elapsed", done) && t) $(".card-head", done).append(" ", t);
        c.replaceWith(done);
      } catch (_) {
        if (ev.content) $(".card-body", c).append(el("pre", "result", ev.content));
      }
      scroll();
    }

    // The build check: "checking: <command>" with its elapsed time while it
    // runs, replaced by how it ended (and a failure's output).
    let check = null; // { card, timer, span } of the running check
    function verifyStarted(ev) {
      endStep();
      const c = el("div", "card check pending");
      const head = el("div", "card-head");
      const spin = el("span", "spinner");
      spin.setAttribute("aria-label", "running");
      const span = el("span", "elapsed", "0s");
      head.append(el("span", "name", "checking:"), " ", el("span", "args", ev.command), " ", spin, " ", span);
      c.append(head);
      if (check) clearInterval(check.timer);
      check = { card: c, span, timer: elapsedTimer(span) };
      add(c);
    }
    function verifyResult(ev) {
      endStep();
      let c = null, took = "";
      if (check) {
        clearInterval(check.timer);
        c = check.card;
        took = secondsSince(Number(check.span.dataset.start));
        check = null;
      } else {
        c = add(el("div", "card check"));
      }
      c.classList.remove("pending");
      c.classList.add("done");
      if (!ev.ok) c.classList.add("error");
      const outcome = ev.ok ? "passed" : ev.timed_out ? "timed out" : ev.exit_code < 0 ? "could not run" : "failed (exit " + ev.exit_code + ")";
      const head = el("div", "card-head");
      head.append(el("span", "name", (ev.ok ? "✓" : "✗") + " check " + outcome + ":"), " ", el("span", "args", ev.command));
      if (took) head.append(" ", el("span", "elapsed final", took));
      c.replaceChildren(head);
      if (!ev.ok && ev.output) c.append(el("pre", "result", ev.output));
      scroll();
    }

    // sessionLabel: "Don't ask again for <code>git push</code> in this
    // session", naming the prefixes allowing for the session covers.
    function sessionLabel(button, ps) {
      if (!ps.length) { button.textContent = "Allow for this session"; return; }
      button.append("Don't ask again for ");
      ps.forEach((p, i) => {
        if (i > 0) button.append(i === ps.length - 1 ? " and " : ", ");
        button.append(el("code", "", p));
      });
      button.append(" in this session");
    }

    // approval shows a question: allow once, allow for the session (naming
    // what it covers), or deny with a reason the agent reads. A question
    // already shown (a replay to a late page) is not shown twice; one the
    // server rendered from the log as waiting becomes this live card.
    function approval(ev) {
      const old = document.getElementById("approval-" + ev.id);
      if (old && !old.classList.contains("record")) return;
      endStep();
      const box = el("div", "card approval");
      box.id = "approval-" + ev.id;
      box.append(el("div", "card-head", "Approval needed: " + ev.tool_name));
      if (ev.detail) box.append(el("div", "detail", ev.detail));
      if (ev.body) box.append(el("pre", "body", ev.body));
      const row = el("div", "actions");
      const buttons = () => box.querySelectorAll("button, input");
      const answer = async (allow, remember, reason) => {
        buttons().forEach((b) => { b.disabled = true; });
        const cmd = { command: "approval", id: ev.id, allow };
        if (remember) cmd.remember = true;
        if (reason) cmd.reason = reason;
        try {
          await post(cmdURL, cmd);
        } catch (e) {
          banner("Your answer to the approval was not taken: " + e.message, "error");
          buttons().forEach((b) => { b.disabled = false; });
        }
      };
      if (chat.dataset.readonly !== "true") {
        const prefixes = ev.prefixes || [];
        const once = el("button", "primary approve", "Allow once");
        const session = el("button", "session");
        sessionLabel(session, prefixes);
        const no = el("button", "deny", "Deny…");
        once.type = session.type = no.type = "button";
        once.onclick = () => answer(true, false);
        session.onclick = () => answer(true, true);
        const why = el("form", "deny-reason");
        why.hidden = true;
        const reason = el("input", "reason");
        reason.type = "text";
        reason.placeholder = "Why not? The agent reads your reason (optional)";
        reason.setAttribute("aria-label", "reason for denying");
        const send = el("button", "deny-send", "Deny");
        send.type = "submit";
        why.append(reason, send);
        why.addEventListener("submit", (e) => { e.preventDefault(); answer(false, false, reason.value.trim()); });
        no.onclick = () => { why.hidden = false; no.disabled = true; reason.focus(); };
        row.append(once, session, no);
        box.append(row, why);
      } else {
        box.append(row);
      }
      if (old) old.replaceWith(box); else add(box);
      scroll();
    }
    function approvalResolved(ev) {
      const box = document.getElementById("approval-" + ev.id);
      if (!box) return;
      box.classList.add("resolved");
      const form = $(".deny-reason", box);
      if (form) form.remove();
      const out = [el("span", "outcome", ev.outcome.replace(/_/g, " "))];
      if (ev.reason) out.push(document.createTextNode(" "), el("span", "reason", "— " + ev.reason));
      $(".actions", box).replaceChildren(...out);
    }

    function summary(ev) {
      endStep();
      setBusy(false);
      const u = ev.usage || {};
      const ratio = u.prompt_tokens ? Math.round(100 * u.prompt_cache_hit_tokens / u.prompt_tokens) : 0;
      let text = ev.outcome.replace(/_/g, " ") + " · " + ev.steps + (ev.steps === 1 ? " step · " : " steps · ") + (ev.duration_ms / 1000).toFixed(1) + "s · tokens: " +
        u.prompt_tokens + " in (" + ratio + "% cache hits), " + u.completion_tokens + " out";
      // The one cost rule (render.CostText): a turn with an unknown price says so.
      text += ev.cost_usd !== null && ev.cost_usd !== undefined ? " · cost $" + ev.cost_usd.toFixed(4) : " · cost unknown";
      add(el("div", "msg turn-summary", text));
      addTotals(u, ev.cost_usd);
      if (changes && changes.open) loadChanges();
      runQueued(ev.outcome === "interrupted");
    }

    // kilo, contextHealth and compactionText write what render.ContextLine
    // and render.CompactionText write for the other faces.
    const kilo = (n) => n < 1000 ? String(n) : n < 1e6 ? Math.round(n / 1000) + "k" : (n / 1e6).toFixed(1) + "M";
    const count = (n, noun) => n + " " + noun + (n === 1 ? "" : "s");
    function contextHealth(ev) {
      const box = $("#context-meter");
      if (!box) return;
      let text = "context " + kilo(ev.used_tokens) + "/" + kilo(ev.window) + " · " + count(ev.compactions, "compaction");
      if (ev.rereads_avoided > 0) text += " · " + count(ev.rereads_avoided, "re-read") + " avoided";
      box.textContent = text;
      box.title = Math.round(100 * ev.used_tokens / Math.max(ev.window, 1)) + "% of the model's context window";
      box.hidden = false;
    }
    function compactionText(ev) {
      let text = "compacted events " + ev.from_sequence + ".." + ev.to_sequence + " (" + ev.trigger + ", " + count(ev.turns, "turn") +
        "): context " + kilo(ev.tokens_before) + " → " + kilo(ev.tokens_after) + " tokens";
      if (ev.files.length) text += "; files: " + ev.files.slice(0, 8).join(", ") + (ev.files.length > 8 ? " and " + (ev.files.length - 8) + " more" : "");
      if (ev.hook_replaced) text += "; summary from a PostCompact hook";
      return text;
    }

    // addTotals adds a turn to the session's totals (the meter by the
    // prompt box), in the server's words (render.UsageLine,
    // render.CostText).
    function addTotals(u, cost) {
      if (!totals) return;
      const d = totals.dataset;
      const n = (k, v) => { d[k] = String(Number(d[k] || 0) + (v || 0)); return Number(d[k]); };
      n("in", u.prompt_tokens); n("hit", u.prompt_cache_hit_tokens); n("out", u.completion_tokens);
      const known = d.costKnown !== "false" && cost !== null && cost !== undefined;
      d.costKnown = String(known);
      if (known) n("cost", cost);
      live = { in: 0, hit: 0, out: 0 };
      meter();
    }
    // live counts the running turn's tokens, response by response (the
    // usage event), until its summary adds the turn to the totals.
    let live = { in: 0, hit: 0, out: 0 };
    function meter() {
      const d = totals.dataset;
      const tin = Number(d.in || 0) + live.in, hit = Number(d.hit || 0) + live.hit, out = Number(d.out || 0) + live.out;
      const known = d.costKnown !== "false";
      totals.textContent = "tokens: " + tin + " in (" + (tin ? Math.round(100 * hit / tin) : 0) + "% cache hits), " + out + " out · cost " +
        (known ? "$" + Number(d.cost || 0).toFixed(4) : "unknown") + (live.in || live.out ? " + this turn's" : "");
      totals.hidden = false;
    }
    function usage(ev) {
      if (!totals || !ev.usage) return;
      live.in += ev.usage.prompt_tokens || 0;
      live.hit += ev.usage.prompt_cache_hit_tokens || 0;
      live.out += ev.usage.completion_tokens || 0;
      meter();
    }

    // warning mirrors protocol.Warning: the sentence a person must see.
    function warning(name, ev) {
      switch (name) {
        case "background_notice": return ev.content;
        case "mcp_config_ignored": return "MCP config ignored: " + ev.reason;
        case "mcp_config_unreadable": return "MCP config " + ev.path + " could not be read: " + ev.error;
        case "mcp_config_invalid": return "MCP config " + ev.path + " is invalid: " + ev.error;
        case "mcp_connect_failed": return "MCP server " + ev.server + " could not start: " + ev.error;
        case "mcp_list_tools_failed": return "MCP server " + ev.server + ": listing its tools failed: " + ev.error;
        case "mcp_list_tools_timeout": return "MCP server " + ev.server + " did not list its tools in time";
        case "mcp_no_tools": return "MCP server " + ev.server + " offers no tools";
        case "mcp_tool_duplicate": return "MCP server " + ev.server + " offered tool " + ev.tool + " twice; the second was dropped";
        case "mcp_tools_capped": return "MCP server " + ev.server + ": only " + ev.kept + " of its tools were registered (tool cap)";
        case "mcp_server_skipped_over_cap": return "MCP server " + ev.server + " was skipped: the tool cap was reached";
        // attempt counts requests (the first retry is attempt 2): show retries.
        case "stream_retry": return "model request failed (" + ev.reason + "); retry " + Math.max(ev.attempt - 1, 1) + " of " + Math.max(ev.max_attempts - 1, 1);
        case "command_error": return "command refused: " + ev.error;
        case "session_error": return "session error: " + ev.error;
        case "agent_setup_failed": return "the agent could not start: " + ev.error;
        case "compaction_failed": case "auto_compaction_failed": return "compaction failed: " + ev.error;
        case "tool_call_decode_error": return "tool call " + ev.tool_name + " could not be read: " + ev.error;
        case "unverified_claim": return ev.message;
      }
      return null;
    }
    const warnings = ["background_notice", "mcp_config_ignored", "mcp_config_unreadable", "mcp_config_invalid",
      "mcp_connect_failed", "mcp_list_tools_failed", "mcp_list_tools_timeout", "mcp_no_tools", "mcp_tool_duplicate",
      "mcp_tools_capped", "mcp_server_skipped_over_cap", "stream_retry", "command_error", "session_error",
      "agent_setup_failed", "compaction_failed", "auto_compaction_failed", "tool_call_decode_error",
      "unverified_claim"];

    const handlers = {
      agent_step: () => { endStep(); setBusy(true); },
      reasoning_delta: (ev) => {
        const c = message();
        if (!c.reasoning) {
          c.reasoning = el("div", "reasoning live");
          c.m.insertBefore(c.reasoning, c.answer);
        }
        c.rtext += ev.content;
        if (c.reasoning.tagName === "DETAILS") $(".text", c.reasoning).textContent = c.rtext;
        else c.reasoning.textContent = c.rtext;
        scroll();
      },
      reasoning_message: (ev) => { const c = message(); c.rtext = ev.content; foldReasoning(c); },
      assistant_delta: (ev) => {
        const c = message();
        foldReasoning(c);
        c.text += ev.content;
        c.answer.textContent = c.text;
        c.answer.classList.add("streaming");
        scroll();
      },
      assistant_message: async (ev) => {
        const c = message();
        foldReasoning(c);
        c.text = ev.content;
        c.answer.textContent = ev.content;
        // The server renders the answer (package markdown, as in the
        // history); until it answers, and if it cannot, it is plain text.
        try {
          const r = await post(base() + "/markdown", { markdown: ev.content });
          c.answer.innerHTML = r.html;
        } catch (_) { /* the text stays */ }
        c.answer.classList.remove("streaming");
      },
      tool_started: toolStarted,
      tool_result: toolResult,
      verify_started: verifyStarted,
      verify_result: verifyResult,
      approval_requested: (ev) => { approval(ev); notify("OpenSeek: approval needed", ev.tool_name + ": " + (ev.detail || "")); },
      approval_resolved: approvalResolved,
      steer_applied: (ev) => { endStep(); userMsg(contentText(ev.content), "you (steer)"); },
      steer_dropped: () => banner("Your steer came after the turn ended and was not used; send it as a new prompt."),
      agent_aborted: (ev) => add(el("div", "msg status", "[agent aborted] " + (ev.reason || ""))),
      turn_failed: (ev) => add(el("div", "msg status error", "[agent failed] " + ev.error)),
      max_steps_exhausted: () => add(el("div", "msg status", "[agent failed] the step limit was reached")),
      context_yield: () => add(el("div", "msg status", "context ceiling reached: continuing from a checkpoint summary")),
      compaction_finished: (ev) => add(el("div", "msg notice", "compacted events " + ev.from_sequence + "–" + ev.to_sequence)),
      context_health: contextHealth,
      compaction_report: (ev) => add(el("div", "msg notice compaction-report", compactionText(ev))),
      turn_summary: (ev) => { summary(ev); notify("OpenSeek: turn " + ev.outcome.replace(/_/g, " "), $(".heading h1")?.textContent || id); },
      usage,
      stream_reset: () => location.reload(),
    };

    function follow() {
      const since = chat.dataset.since || "0";
      const on = {};
      for (const [name, fn] of Object.entries(handlers)) on[name] = fn;
      for (const name of warnings) on[name] = (ev) => {
        const w = warning(name, ev);
        if (w) banner(w, name.endsWith("error") || name.endsWith("failed") ? "error" : "warn");
      };
      let lost = false;
      events(base() + "/v1/sessions/" + encodeURIComponent(id) + "/events?since=" + encodeURIComponent(since), {
        event: (name, data, seq) => {
          if (seq !== null) chat.dataset.seq = seq; // the newest event read (tests wait on it)
          const fn = on[name];
          if (!fn) return;
          let ev;
          try { ev = JSON.parse(data); } catch (_) { return; }
          // One event's trouble (a browser that refuses a notification)
          // never stops the stream: the events after it still show.
          try { fn(ev, name); } catch (e) { console.error("openseek: showing " + name + ":", e); }
        },
        open: () => { if (lost) banner("Live stream reconnected."); lost = false; chat.dataset.live = "true"; },
        lost: (final, why) => {
          chat.dataset.live = "false";
          if (final) banner("The live stream closed (" + why + "); reload the page to follow the session.", "error");
          else if (!lost) { lost = true; banner("The live stream was interrupted (" + why + "); reconnecting…"); }
        },
      });
    }

    // The queue, as in the terminal UI: Tab (or Queue) while a turn runs
    // keeps the message in this tab for after the turn. When the turn
    // ends the first is sent as a prompt, the rest wait for the turns
    // they start; after an interrupt nothing is sent unasked: they go
    // back into the input.
    const queueBox = $("#queue");
    const queued = [];
    function showQueue() {
      if (!queueBox) return;
      // The queue grows the prompt area pinned to the bottom: a reader at
      // the end stays there, so it never covers the last card (an
      // approval's buttons).
      const atEnd = window.innerHeight + window.scrollY >= document.body.scrollHeight - 40;
      queueBox.replaceChildren(...queued.map((text, i) => {
        const li = el("li", "queued");
        const x = el("button", "remove", "×");
        x.type = "button";
        x.title = "remove from the queue";
        x.setAttribute("aria-label", "remove the queued message " + clip(text.replace(/\s+/g, " ").trim(), 60));
        x.addEventListener("click", () => { queued.splice(i, 1); showQueue(); input.focus(); });
        li.append(el("span", "mark", "queued"), el("span", "text", text.replace(/\s+/g, " ").trim()), x);
        li.title = text;
        return li;
      }));
      queueBox.hidden = queued.length === 0;
      if (atEnd) scroll();
    }
    function enqueue() {
      if (!busy) return send();
      const text = input.value;
      if (!text.trim()) return;
      queued.push(text);
      input.value = "";
      showQueue();
      input.focus();
    }
    function runQueued(interrupted) {
      if (!queued.length) return;
      if (interrupted) {
        input.value = [...queued, input.value].filter((s) => s.trim()).join("\n\n");
        queued.length = 0;
        showQueue();
        add(el("div", "msg notice", "the queued messages are back in the input (the turn was interrupted)"));
        return;
      }
      send(queued.shift());
      showQueue();
    }

    // sending counts the prompts and steers posted and not yet answered
    // (chat.dataset.sending: tests wait on it).
    let sending = 0;
    chat.dataset.sending = "0";
    // send posts the input (a steer while a turn runs, else a prompt), or
    // a queued message as the next prompt, leaving the input alone.
    async function send(next) {
      const fromQueue = next !== undefined;
      const text = fromQueue ? next : input.value;
      if (!text.trim()) return;
      const wasBusy = busy;
      const cmd = busy && !fromQueue ? { command: "steer", kind: "prompt", content: text } : { command: "prompt", content: text };
      // A prompt shows, and the page turns busy, before it is posted: the
      // turn it starts comes on the event stream, which may bring it to
      // its end before the POST's answer arrives (a busy machine), and
      // nothing may turn the page busy after that end.
      let shown = null;
      if (cmd.command === "prompt") {
        endStep();
        shown = userMsg(text);
        setBusy(true);
      }
      if (!fromQueue) input.disabled = true;
      chat.dataset.sending = String(++sending);
      try {
        await post(cmdURL, cmd);
        if (!fromQueue) input.value = "";
        const h1 = $(".heading h1");
        if (shown && h1 && h1.textContent === id) h1.textContent = clip(text.replace(/\s+/g, " ").trim(), 80);
      } catch (e) {
        if (shown) {
          shown.remove();
          setBusy(wasBusy);
        }
        if (fromQueue) {
          queued.unshift(text);
          showQueue();
        }
        banner("Your " + (fromQueue ? "queued message" : cmd.command) + " was not sent: " + e.message, "error");
      } finally {
        chat.dataset.sending = String(--sending);
        if (!fromQueue) {
          input.disabled = false;
          input.focus();
        }
      }
    }

    // The changes panel: the session's whole diff and its turns, loaded
    // when opened (and again after each turn while open); a turn's
    // Rewind asks once more before it restores the files.
    const changes = $("#changes");
    async function loadChanges() {
      const body = $("#changes-body");
      try {
        const res = await api(base() + "/sessions/" + encodeURIComponent(id) + "/changes");
        if (!res.ok) throw new Error(res.status + " " + res.statusText);
        const tpl = document.createElement("template");
        tpl.innerHTML = await res.text();
        body.replaceChildren(tpl.content);
      } catch (e) {
        body.replaceChildren(el("p", "banner error", "The changes could not be read (" + e.message + ")."));
      }
    }
    async function rewindClick(e) {
      const b = e.target instanceof Element ? e.target.closest("button") : null;
      if (!b) return;
      const li = b.closest("li");
      if (b.classList.contains("rewind") || b.classList.contains("rewind-cancel")) {
        const ask = b.classList.contains("rewind");
        $(".rewind", li).hidden = ask;
        $(".confirm", li).hidden = !ask;
        (ask ? $(".rewind-confirm", li) : $(".rewind", li)).focus();
      } else if (b.classList.contains("rewind-confirm")) {
        b.disabled = true;
        try {
          await post(base() + "/sessions/" + encodeURIComponent(id) + "/rewind", { turn: Number(b.dataset.turn) });
          location.reload();
        } catch (err) {
          banner("The rewind was refused: " + err.message, "error");
          b.disabled = false;
        }
      }
    }
    // "Show earlier": a long session's page starts with its last blocks;
    // the server renders the ones before on demand.
    log.addEventListener("click", async (e) => {
      const b = e.target instanceof Element ? e.target.closest("#earlier") : null;
      if (!b) return;
      b.disabled = true;
      try {
        const res = await api(base() + "/sessions/" + encodeURIComponent(id) + "/blocks?to=" + encodeURIComponent(b.dataset.to));
        if (!res.ok) throw new Error(res.status + " " + res.statusText);
        const tpl = document.createElement("template");
        tpl.innerHTML = await res.text();
        b.replaceWith(tpl.content);
        $("#earlier")?.focus();
      } catch (err) {
        banner("The earlier part of the session could not be loaded: " + err.message, "error");
        b.disabled = false;
      }
    });
    if (changes) {
      changes.addEventListener("toggle", () => { if (changes.open) loadChanges(); });
      changes.addEventListener("click", rewindClick);
    }

    if (chat.dataset.readonly === "true") return;
    $("#prompt-form").addEventListener("submit", (e) => { e.preventDefault(); send(); });
    input.addEventListener("keydown", (e) => {
      if (e.key === "Enter" && !e.shiftKey && !e.isComposing) { e.preventDefault(); send(); }
      // Tab queues only while a turn runs and there is text: otherwise it
      // moves the focus, as everywhere on a page.
      if (e.key === "Tab" && !e.shiftKey && !e.ctrlKey && !e.altKey && !e.metaKey && !e.isComposing && busy && input.value.trim()) {
        e.preventDefault();
        enqueue();
      }
      // Backspace in an empty input takes the last queued message back.
      if (e.key === "Backspace" && input.value === "" && queued.length) {
        e.preventDefault();
        input.value = queued.pop();
        showQueue();
      }
    });
    enqueueBtn?.addEventListener("click", enqueue);
    const interrupt = async () => {
      try { await post(cmdURL, { command: "cancel" }); } catch (e) { banner("Cancel was not sent: " + e.message, "error"); }
    };
    $("#cancel").addEventListener("click", interrupt);
    // Esc interrupts the running turn (not while typing a denial's reason,
    // where it only leaves the field).
    document.addEventListener("keydown", (e) => {
      if (e.key !== "Escape" || !busy || e.isComposing) return;
      if (e.target instanceof Element && e.target.closest(".deny-reason")) return;
      e.preventDefault();
      interrupt();
    });
    setBusy(busy);
    if (chat.dataset.open === "true") follow();
    else {
      // A session on disk is resumed by a POST (reading its stream changes
      // nothing), then followed from the start of its live window.
      post(base() + "/v1/sessions", { id }).then(follow, (e) => banner("Could not resume the session: " + e.message, "error"));
    }
  }

  // load replaces the shell (the page a navigation gets, with no data)
  // with the page fetched with the token.
  async function load() {
    const t = takeToken();
    const loading = $("#loading");
    const say = (text) => { if (loading) loading.textContent = text; };
    if (!t) {
      say("");
      banner("This page needs the server's token: open the URL that `openseek serve --http` (or `openseek inspect`) printed, which ends in #token=…", "error");
      return;
    }
    let res;
    try {
      res = await api(location.pathname + location.search, { headers: { Accept: "text/html" } });
    } catch (e) {
      say("");
      banner("The server did not answer (" + e.message + "); is it still running?", "error");
      return;
    }
    if (res.status === 401) {
      sessionStorage.removeItem(TOKEN_KEY);
      say("");
      banner("The server refused the token (" + await errorText(res) + "); open the URL it printed.", "error");
      return;
    }
    const doc = new DOMParser().parseFromString(await res.text(), "text/html");
    document.title = doc.title;
    document.body.replaceWith(document.importNode(doc.body, true));
    banners();
    sidebar();
    notifyButton();
    sessionsPage();
    const chat = $("#chat");
    if (chat) chatPage(chat);
    if (location.hash.length > 1) {
      const target = document.getElementById(decodeURIComponent(location.hash.slice(1)));
      if (target) target.scrollIntoView();
    }
  }

  for (const type of ["pointerdown", "focusin", "contextmenu"]) document.addEventListener(type, carryToken, true);
  document.addEventListener("click", dismiss);
  // The printed URL pasted into a tab already showing this page changes
  // only the fragment: no page load, so take the token and load again.
  window.addEventListener("hashchange", () => {
    if (location.hash.startsWith("#token=")) {
      takeToken();
      location.reload();
    }
  });
  document.addEventListener("DOMContentLoaded", () => {
    if (document.body.dataset.shell === "true") load();
    else {
      takeToken();
      banners();
      sidebar();
      notifyButton();
      sessionsPage();
      const chat = $("#chat");
      if (chat) chatPage(chat);
    }
  });
})();
