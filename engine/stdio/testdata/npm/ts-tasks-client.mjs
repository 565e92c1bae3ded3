// Clients on the official TypeScript MCP SDK (1.32, experimental tasks),
// driven line by line, for the gateway's tasks tests (app/cli's
// TestGatewayTasks). Each client is an app: its own StdioClientTransport
// running COMMAND [ARG...] (a bridge), with this process's environment
// (as an app's entry with an "env" passes it: the test's sandboxed host is
// not at the user's rendezvous).
//
// usage: node ts-tasks-client.mjs -- COMMAND [ARG...]
// stdin: one JSON command a line; stdout: one JSON answer a line
// ({"ok":true,...} or {"ok":false,"error":MESSAGE}), in order:
//   {"op":"connect","app":"a"}                          -> {"tasks": the server's tasks capability}
//     with "elicit": VALUE the app declares elicitation and accepts every request with
//     {"interpretation": VALUE}
//   {"op":"call","app":"a","tool":T,"args":{},"ttl":N}  -> {"task": the CreateTaskResult's task}
//   {"op":"get"|"cancel","app":"a","taskId":ID}         -> {"task": ...}
//   {"op":"result","app":"a","taskId":ID}               -> {"text", "isError", "related": _meta's related-task id}
//   {"op":"list","app":"a"}                             -> {"ids": [taskId...]}
//   {"op":"stream","app":"a","tool":T,"args":{}}        -> the SDK's own callToolStream, polling the task
//                                                          to its end: {"statuses": [...], "text", "isError"}
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CallToolResultSchema, CreateTaskResultSchema, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import readline from "node:readline";

const argv = process.argv.slice(2);
const dash = argv.indexOf("--");
if (dash < 0 || dash === argv.length - 1) {
  console.error("usage: node ts-tasks-client.mjs -- COMMAND [ARG...]");
  process.exit(2);
}
const [command, ...args] = argv.slice(dash + 1);
const apps = new Map();

function text(result) {
  return (result.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n");
}

async function run(cmd) {
  const client = apps.get(cmd.app);
  switch (cmd.op) {
    case "connect": {
      const c = new Client({ name: cmd.app, version: "1.0.0" }, cmd.elicit ? { capabilities: { elicitation: { form: {} } } } : undefined);
      if (cmd.elicit) {
        c.setRequestHandler(ElicitRequestSchema, async () => ({ action: "accept", content: { interpretation: cmd.elicit } }));
      }
      await c.connect(new StdioClientTransport({ command, args, env: process.env, stderr: "inherit" }));
      apps.set(cmd.app, c);
      return { tasks: c.getServerCapabilities()?.tasks ?? null };
    }
    case "call": {
      const res = await client.request(
        { method: "tools/call", params: { name: cmd.tool, arguments: cmd.args ?? {}, task: { ttl: cmd.ttl ?? 60000 } } },
        CreateTaskResultSchema,
      );
      return { task: res.task };
    }
    case "get":
      return { task: await client.experimental.tasks.getTask(cmd.taskId) };
    case "cancel":
      return { task: await client.experimental.tasks.cancelTask(cmd.taskId) };
    case "result": {
      const res = await client.experimental.tasks.getTaskResult(cmd.taskId, CallToolResultSchema);
      return { text: text(res), isError: !!res.isError, related: res._meta?.["io.modelcontextprotocol/related-task"]?.taskId ?? null };
    }
    case "list": {
      const res = await client.experimental.tasks.listTasks();
      return { ids: res.tasks.map((t) => t.taskId), statuses: res.tasks.map((t) => t.status) };
    }
    case "stream": {
      const statuses = [];
      let taskId = null;
      for await (const m of client.experimental.tasks.callToolStream(
        { name: cmd.tool, arguments: cmd.args ?? {} },
        CallToolResultSchema,
        { task: { ttl: 60000 } },
      )) {
        if (m.type === "taskCreated") taskId = m.task.taskId;
        if (m.type === "taskStatus") statuses.push(m.task.status);
        if (m.type === "result") return { taskId, statuses, text: text(m.result), isError: !!m.result.isError };
        if (m.type === "error") throw m.error;
      }
      throw new Error("the stream ended without a result");
    }
  }
  throw new Error("unknown op " + cmd.op);
}

const rl = readline.createInterface({ input: process.stdin });
for await (const line of rl) {
  if (!line.trim()) continue;
  let out;
  try {
    out = { ok: true, ...(await run(JSON.parse(line))) };
  } catch (e) {
    out = { ok: false, error: String(e?.message ?? e) };
  }
  console.log(JSON.stringify(out));
}
for (const c of apps.values()) await c.close();
