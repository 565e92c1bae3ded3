package catalog

// servers is the catalog. Versions are pinned: `npm view PKG@VERSION
// version` confirmed each npm one when it was added, and
// TestNPMPackagesExist checks them again in CI. PyPI is not reachable from
// CI: those entries are checked for their form only. The environment
// variables are those each package reads (checked in its published code).
//
// Dropped because upstream archived them: @modelcontextprotocol/server-github
// (GitHub's own github-mcp-server replaces it, a Go binary or a container,
// not an npm package) and @modelcontextprotocol/server-postgres (no
// maintained successor); both are in modelcontextprotocol/servers-archived.
var servers = []Server{
	// The reference servers of the MCP project.
	{
		Name: "filesystem", Title: "Filesystem", Category: Files,
		Description: "Read, write, search and move files, only inside the directories you allow.",
		Homepage:    "https://github.com/modelcontextprotocol/servers/tree/main/src/filesystem",
		Registry:    NPM, Package: "@modelcontextprotocol/server-filesystem", Version: "2026.8.31",
		Fields: []Field{{
			ID: "dirs", Label: "Allowed directories", Kind: Dirs,
			Help: "choose at least one directory the server may read and write",
		}},
	},
	{
		Name: "memory", Title: "Memory", Category: MemoryReasoning,
		Description: "A persistent knowledge graph the model can add to and search.",
		Homepage:    "https://github.com/modelcontextprotocol/servers/tree/main/src/memory",
		Registry:    NPM, Package: "@modelcontextprotocol/server-memory", Version: "2026.8.31",
		Fields: []Field{{
			ID: "file", Label: "Memory file", Kind: File, Env: "MEMORY_FILE_PATH", Optional: true,
			Help:        "where the graph is kept; without it the file lives in npx's cache, which may be cleared",
			Placeholder: "/home/me/.local/share/mcp-memory.jsonl",
		}},
	},
	{
		Name: "fetch", Title: "Fetch", Category: Web,
		Description: "Fetch a web page and turn it into Markdown for the model.",
		Homepage:    "https://github.com/modelcontextprotocol/servers/tree/main/src/fetch",
		Registry:    PyPI, Package: "mcp-server-fetch", Version: "2026.10.24",
	},
	{
		Name: "git", Title: "Git", Category: DeveloperTools,
		Description: "Read, search and change Git repositories: status, diff, log, commit, branches.",
		Homepage:    "https://github.com/modelcontextprotocol/servers/tree/main/src/git",
		Registry:    PyPI, Package: "mcp-server-git", Version: "2026.10.19",
		Fields: []Field{{
			ID: "repository", Label: "Repository", Kind: Dir, Flag: "--repository", Optional: true,
			Help: "the repository to work on; without it each tool call names one",
		}},
	},
	{
		Name: "time", Title: "Time", Category: Utilities,
		Description: "The current time in any time zone, and conversions between zones.",
		Homepage:    "https://github.com/modelcontextprotocol/servers/tree/main/src/time",
		Registry:    PyPI, Package: "mcp-server-time", Version: "2026.10.19",
		Fields: []Field{{
			ID: "timezone", Label: "Local time zone", Kind: Text, Flag: "--local-timezone", Optional: true,
			Help: "an IANA time zone name; without it the system's zone is used", Placeholder: "Europe/Paris",
		}},
	},
	{
		Name: "everything", Title: "Everything", Category: DeveloperTools,
		Description: "The MCP project's test server: sample tools (echo, sum, an image, a long operation), resources and prompts to try a setup with.",
		Homepage:    "https://github.com/modelcontextprotocol/servers/tree/main/src/everything",
		Registry:    NPM, Package: "@modelcontextprotocol/server-everything", Version: "2026.8.31",
		Note: "Its sampling, elicitation and roots tools do not show here: Switchboard does not pass a server's requests on to the AI app, so the server leaves them out.",
	},
	{
		Name: "sequential-thinking", Title: "Sequential thinking", Category: MemoryReasoning,
		Description: "A tool for step-by-step problem solving that the model can revise and branch.",
		Homepage:    "https://github.com/modelcontextprotocol/servers/tree/main/src/sequentialthinking",
		Registry:    NPM, Package: "@modelcontextprotocol/server-sequential-thinking", Version: "2026.8.31",
	},

	// Third-party servers.
	{
		Name: "brave-search", Title: "Brave Search", Category: Web,
		Description: "Web, news, image and video search through the Brave Search API.",
		Homepage:    "https://github.com/brave/brave-search-mcp-server",
		Registry:    NPM, Package: "@brave/brave-search-mcp-server", Version: "2.1.4",
		Fields: []Field{{
			ID: "key", Label: "Brave Search API key", Kind: Secret, Env: "BRAVE_API_KEY",
			Help: "create one at https://brave.com/search/api/",
		}},
	},
	{
		Name: "chrome-devtools", Title: "Chrome DevTools", Category: DeveloperTools,
		Description: "Drive and inspect a Chrome browser: navigate, click, read the console and network, record traces.",
		Homepage:    "https://github.com/ChromeDevTools/chrome-devtools-mcp",
		Registry:    NPM, Package: "chrome-devtools-mcp", Version: "1.11.0",
		Note: "Needs Google Chrome installed.",
	},
	{
		Name: "context7", Title: "Context7", Category: DeveloperTools,
		Description: "Up-to-date documentation and code examples of libraries, for the model to read.",
		Homepage:    "https://github.com/upstash/context7",
		Registry:    NPM, Package: "@upstash/context7-mcp", Version: "4.1.1",
		Fields: []Field{{
			ID: "key", Label: "Context7 API key", Kind: Secret, Env: "CONTEXT7_API_KEY", Optional: true,
			Help: "optional: raises the rate limits; create one at https://context7.com/dashboard",
		}},
	},
	{
		Name: "firecrawl", Title: "Firecrawl", Category: Web,
		Description: "Scrape, crawl and search the web, with JavaScript rendering.",
		Homepage:    "https://github.com/firecrawl/firecrawl-mcp-server",
		Registry:    NPM, Package: "firecrawl-mcp", Version: "3.26.0",
		Fields: []Field{{
			ID: "key", Label: "Firecrawl API key", Kind: Secret, Env: "FIRECRAWL_API_KEY",
			Help: "create one at https://www.firecrawl.dev/app/api-keys",
		}},
	},
	{
		Name: "notion", Title: "Notion", Category: Productivity,
		Description: "Search, read and edit Notion pages and databases.",
		Homepage:    "https://github.com/makenotion/notion-mcp-server",
		Registry:    NPM, Package: "@notionhq/notion-mcp-server", Version: "2.5.2",
		Fields: []Field{{
			ID: "token", Label: "Notion integration token", Kind: Secret, Env: "NOTION_TOKEN",
			Help: "create an internal integration at https://www.notion.so/profile/integrations and share pages with it",
		}},
	},
	{
		Name: "playwright", Title: "Playwright", Category: Web,
		Description: "Browser automation through Playwright's accessibility snapshots: navigate, click, fill forms.",
		Homepage:    "https://github.com/microsoft/playwright-mcp",
		Registry:    NPM, Package: "@playwright/mcp", Version: "0.0.83",
		Note: "Downloads a browser on first use if none is installed.",
	},
	{
		Name: "sentry", Title: "Sentry", Category: DeveloperTools,
		Description: "Issues, events, traces and releases of your Sentry projects.",
		Homepage:    "https://github.com/getsentry/sentry-mcp",
		Registry:    NPM, Package: "@sentry/mcp-server", Version: "0.39.0",
		Fields: []Field{
			{
				ID: "token", Label: "Sentry user auth token", Kind: Secret, Env: "SENTRY_ACCESS_TOKEN",
				Help: "create one in Sentry under User Settings, Auth Tokens",
			},
			{
				ID: "host", Label: "Sentry host", Kind: Text, Env: "SENTRY_HOST", Optional: true,
				Help: "only for a self-hosted Sentry", Placeholder: "sentry.example.com",
			},
		},
	},
	{
		Name: "slack", Title: "Slack", Category: Productivity,
		Description: "Read channels and threads, post messages and reactions in a Slack workspace.",
		Homepage:    "https://github.com/zencoderai/slack-mcp-server",
		Registry:    NPM, Package: "@zencoderai/slack-mcp-server", Version: "0.0.1",
		Fields: []Field{
			{
				ID: "token", Label: "Slack bot token", Kind: Secret, Env: "SLACK_BOT_TOKEN",
				Help: "the xoxb- token of a Slack app installed in your workspace", Placeholder: "xoxb-…",
			},
			{
				ID: "team", Label: "Workspace (team) ID", Kind: Text, Env: "SLACK_TEAM_ID",
				Help: "the T… ID of your workspace", Placeholder: "T01234567",
			},
		},
		Note: "The maintained successor of the archived reference Slack server.",
	},
	{
		Name: "tavily", Title: "Tavily", Category: Web,
		Description: "Web search and page extraction tuned for AI agents.",
		Homepage:    "https://github.com/tavily-ai/tavily-mcp",
		Registry:    NPM, Package: "tavily-mcp", Version: "0.2.22",
		Fields: []Field{{
			ID: "key", Label: "Tavily API key", Kind: Secret, Env: "TAVILY_API_KEY",
			Help: "create one at https://app.tavily.com",
		}},
	},
}
