// A client on the official TypeScript MCP SDK, started the way the AI apps
// built on it (Claude Desktop, the MCP Inspector) start a stdio server:
// StdioClientTransport with no `env`, so the server gets only the SDK's
// getDefaultEnvironment() (HOME LOGNAME PATH SHELL TERM USER on Unix).
//
// usage: node ts-sdk-client.mjs TOOL ARGS_JSON -- COMMAND [ARG...]
// Prints one JSON line: {"tools": [names], "text": the tool's text result}.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const argv = process.argv.slice(2);
const dash = argv.indexOf("--");
if (dash < 2 || dash === argv.length - 1) {
  console.error("usage: node ts-sdk-client.mjs TOOL ARGS_JSON -- COMMAND [ARG...]");
  process.exit(2);
}
const [tool, argsJSON] = argv;
const [command, ...args] = argv.slice(dash + 1);

const transport = new StdioClientTransport({ command, args, stderr: "inherit" });
const client = new Client({ name: "ts-sdk-client", version: "1.0.0" });
await client.connect(transport);
const { tools } = await client.listTools();
const result = await client.callTool({ name: tool, arguments: JSON.parse(argsJSON) });
const text = (result.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n");
console.log(JSON.stringify({ tools: tools.map((t) => t.name), text, isError: !!result.isError }));
await client.close();
