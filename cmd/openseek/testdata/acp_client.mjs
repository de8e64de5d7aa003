// An editor in miniature: drives `openseek acp` with the real ACP client
// library (@agentclientprotocol/sdk) over stdio and prints what it saw as
// one JSON object on stdout. The Go test (acp_test.go) checks it.
//
// Environment: ACP_SDK (the SDK's entry file), OPENSEEK_BIN and
// OPENSEEK_ARGS (JSON array) to spawn the agent, WORKSPACE (the session cwd).
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import { pathToFileURL } from "node:url";

const acp = await import(pathToFileURL(process.env.ACP_SDK).href);
const child = spawn(process.env.OPENSEEK_BIN, JSON.parse(process.env.OPENSEEK_ARGS), {
  cwd: process.env.WORKSPACE,
  stdio: ["pipe", "pipe", "inherit"],
});
const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));

const out = { updates: {}, asked: [] };
let phase = "none";
let onUpdate = () => {};
const app = acp
  .client({ name: "openseek-acp-test" })
  .onNotification(acp.methods.client.session.update, ({ params }) => {
    (out.updates[phase] ??= []).push(params.update);
    onUpdate(params);
  })
  .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
    out.asked.push(params);
    // Allow the first question, reject the others.
    const optionId = out.asked.length === 1 ? "allow_once" : "reject_once";
    return { outcome: { outcome: "selected", optionId } };
  });

const cwd = process.env.WORKSPACE;
try {
  await app.connectWith(stream, async (cx) => {
    out.init = await cx.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: false },
    });
    const s = await cx.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
    out.sessionId = s.sessionId;

    phase = "turn";
    const r1 = await cx.request(acp.methods.agent.session.prompt, {
      sessionId: s.sessionId,
      prompt: [
        { type: "text", text: "fix the greeting and record it" },
        { type: "resource", resource: { uri: "file://" + cwd + "/a.txt", text: "hello world\n", mimeType: "text/plain" } },
      ],
    });
    out.turnStop = r1.stopReason;

    // A turn that stalls: cancel it once it streams.
    phase = "cancel";
    const streaming = new Promise((resolve) => { onUpdate = resolve; });
    const pending = cx.request(acp.methods.agent.session.prompt, {
      sessionId: s.sessionId,
      prompt: [{ type: "text", text: "take your time" }],
    });
    await streaming;
    onUpdate = () => {};
    await cx.notify(acp.methods.agent.session.cancel, { sessionId: s.sessionId });
    out.cancelStop = (await pending).stopReason;

    // Errors keep the connection up.
    try {
      await cx.request(acp.methods.agent.session.prompt, { sessionId: "cli-no-such", prompt: [{ type: "text", text: "x" }] });
      out.unknownSession = "accepted";
    } catch (e) {
      out.unknownSession = String(e.message ?? e);
    }

    phase = "replay";
    await cx.request(acp.methods.agent.session.load, { sessionId: s.sessionId, cwd, mcpServers: [] });
  });
} catch (e) {
  out.error = String(e?.stack ?? e);
}
child.stdin.end();
await new Promise((resolve) => child.on("exit", (code) => { out.exitCode = code; resolve(); }));
process.stdout.write(JSON.stringify(out) + "\n");
