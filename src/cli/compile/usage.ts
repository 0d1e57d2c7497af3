/**
 * @module usage: the text of `wymcp compile --help`, in a module of its own so that the help shows even where the
 * compiler's optional peer dependencies are not installed (entry.ts prints it before loading them).
 */
export const COMPILE_USAGE = `Usage: wymcp compile <input>... --out <dir> [--check]
       wymcp compile <input>... --lint [--client <list>]
       wymcp compile --from <url> [--header "Name: value"] (--out <dir> | --lint)
       wymcp compile --from-stdio (--out <dir> | --lint) -- <command> [args...]
       wymcp compile (<input>... | --from <url> | --from-stdio) --lock <file> [--check]

Compiles a server's own JSON Schemas (tool inputSchema and outputSchema, elicitation requestedSchema) into
<dir>/index.js (standalone ES module: no Ajv, no eval), <dir>/index.d.ts and <dir>/manifest.json, the
SDK's jsonSchemaValidator provider. --lint reports what MCP clients refuse in the same schemas.

Inputs
  <input>         a JSON file holding a JSON Schema, a tool { name, inputSchema, outputSchema? }, an array of
                  tools or a tools/list result { tools: [...] }; or a .js/.mjs module exporting any of these
  --from URL      ask the MCP server at URL (Streamable HTTP) for its tools/list, every page
  --header H      "Name: value" sent with each request of --from (an Authorization header, say); repeatable
  --from-stdio    start "<command> [args...]" (given after --) as a stdio MCP server and ask it for its tools/list
  --save FILE     write the tools/list that --from or --from-stdio received to FILE, to compile from later
  --from and --from-stdio need @modelcontextprotocol/client (an optional peer dependency of wymcp).

Compile
  --out <dir>     the output folder (created if missing; only the three files are written)
  --check         write nothing; exit 1, naming each file, when <dir> differs from what compile would write

Lock
  --lock FILE     write the tools as a person approves them: per tool its name, the SHA-256 of its inputSchema,
                  outputSchema, description, title and annotations, and those fields in canonical form (keys sorted),
                  tools in name order, the same bytes on every run. wymcp proxy --tools-lock, wymcp stdio --tools-lock
                  and the gates (tools.lock) report, or enforce, each drift of a tools/list from it. With --check, write
                  nothing and exit 1 when FILE differs.

Lint
  --lint          for each tool schema, what clients would refuse: the tool, the JSON Pointer, the rule and who
                  refuses it (the MCP schema, the SDK's validators, a client). With --out it compiles as well.
  --client LIST   the client profiles --lint adds, comma-separated: vscode, openai, anthropic, gemini, all
                  (the default) or none. The rules of the MCP schema and the SDK always apply.
  --json          --lint findings as one JSON object per line; the summary on stderr

  -h, --help      this text

Examples
  wymcp compile tools.json --out src/mcp-tools
  wymcp compile tools.json --out src/mcp-tools --check            # in CI: exit 1 when the output is stale
  wymcp compile tools.json --lint --client vscode,openai
  wymcp compile --from http://127.0.0.1:3000/mcp --lint
  wymcp compile --from http://127.0.0.1:3000/mcp --lock tools.lock.json   # review it, commit it
  wymcp compile --from-stdio --out mcp-tools -- npx -y @modelcontextprotocol/server-filesystem /tmp

Exit codes: 0 written, up to date or no finding; 1 --check found stale output or lock, or --lint found something;
2 usage error, an input or server that cannot be read, or a schema that cannot be compiled.
`;
