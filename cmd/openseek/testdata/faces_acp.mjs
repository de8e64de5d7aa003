// The ACP row of the faces suite (faces_test.go): an editor in miniature
// that opens one session with the real ACP client library, sends one
// prompt, allows whatever it is asked, and prints what it saw as one JSON
// object on stdout.
//
// Environment: ACP_SDK (the SDK's entry file), OPENSEEK_BIN and
// OPENSEEK_ARGS (JSON array) to spawn the agent, WORKSPACE (the session
// cwd), PROMPT.
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import { pathToFileURL } from "node:url";

const acp = await import(pathToFileURL(process.env.ACP_SDK).href);
const child = spawn(process.env.OPENSEEK_BIN, JSON.parse(process.env.OPENSEEK_ARGS), {
  cwd: process.env.WORKSPACE,
  stdio: ["pipe", "pipe", "inherit"],
});
const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));

const out = { answer: "", asked: 0, toolCalls: [] };
const app = acp
  .client({ name: "openseek-faces-test" })
  .onNotification(acp.methods.client.session.update, ({ params }) => {
    const u = params.update;
    if (u.sessionUpdate === "agent_message_chunk" && u.content?.type === "text") out.answer += u.content.text;
    if (u.sessionUpdate === "tool_call") out.toolCalls.push(u.kind);
  })
  .onRequest(acp.methods.client.session.requestPermission, () => {
    out.asked++;
    return { outcome: { outcome: "selected", optionId: "allow_once" } };
  });

try {
  await app.connectWith(stream, async (cx) => {
    await cx.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
    });
    const s = await cx.request(acp.methods.agent.session.new, { cwd: process.env.WORKSPACE, mcpServers: [] });
    out.sessionId = s.sessionId;
    const r = await cx.request(acp.methods.agent.session.prompt, {
      sessionId: s.sessionId,
      prompt: [{ type: "text", text: process.env.PROMPT }],
    });
    out.stopReason = r.stopReason;
  });
} catch (e) {
  out.error = String(e?.stack ?? e);
}
child.stdin.end();
await new Promise((resolve) => child.on("exit", (code) => { out.exitCode = code; resolve(); }));
process.stdout.write(JSON.stringify(out) + "\n");
