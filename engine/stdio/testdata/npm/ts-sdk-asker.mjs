// An app on the official TypeScript MCP SDK that answers a server's
// requests (issue 30 §1): it declares elicitation, sampling and roots,
// and answers each with fixed values that name it. Started as
// ts-sdk-client.mjs is: StdioClientTransport with no `env`, so the bridge
// gets only the SDK's default environment.
//
// usage: node ts-sdk-asker.mjs CALLS_JSON -- COMMAND [ARG...]
// CALLS_JSON is [[tool, args], ...]; prints one JSON line: {"texts":
// [each call's text], "asked": [the methods the app was asked, in order]}.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";

const argv = process.argv.slice(2);
const dash = argv.indexOf("--");
if (dash !== 1 || dash === argv.length - 1) {
  console.error("usage: node ts-sdk-asker.mjs CALLS_JSON -- COMMAND [ARG...]");
  process.exit(2);
}
const calls = JSON.parse(argv[0]);
const [command, ...args] = argv.slice(dash + 1);

const asked = [];
const client = new Client(
  { name: "ts-sdk-asker", version: "1.0.0" },
  { capabilities: { elicitation: { form: {} }, sampling: {}, roots: { listChanged: true } } },
);
client.setRequestHandler(ElicitRequestSchema, async () => {
  asked.push("elicitation/create");
  return { action: "accept", content: { name: "Tess from the TypeScript app" } };
});
client.setRequestHandler(CreateMessageRequestSchema, async () => {
  asked.push("sampling/createMessage");
  return { model: "ts-model", role: "assistant", content: { type: "text", text: "sampled by the TypeScript app" } };
});
client.setRequestHandler(ListRootsRequestSchema, async () => {
  asked.push("roots/list");
  return { roots: [{ uri: "file:///ts/project", name: "ts" }] };
});
const transport = new StdioClientTransport({ command, args, stderr: "inherit" });
await client.connect(transport);
await client.listTools(); // as apps do before they call
const texts = [];
for (const [tool, toolArgs] of calls) {
  const result = await client.callTool({ name: tool, arguments: toolArgs });
  texts.push((result.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n"));
}
console.log(JSON.stringify({ texts, asked }));
await client.close();
