/**
 * @module guide-blocks: what test/guides.test.ts reads of a guide in docs/guides/. A guide's fenced blocks, each with
 * its language and, for a file the reader saves, its name (```python title="server.py"); a ```sh block is run by the
 * test, and the ```text block right after it is what its commands print. A ```console block is shown, not run: its
 * `$ wymcp ...` lines are held to the command line's flags alone (an install from a registry cannot run in a test).
 */

/** One fenced block of a guide: its language, the file it is (`title="..."`), its code, and the line of its fence. */
export interface GuideBlock {
  lang: string;
  title: string | undefined;
  code: string;
  line: number;
}

/** Every fenced block of a Markdown text, in order. */
export function guideBlocks(text: string): GuideBlock[] {
  const blocks: GuideBlock[] = [];
  for (const m of text.matchAll(/^```(\w*)([^\n]*)\n([\s\S]*?)^```$/gm)) {
    blocks.push({
      lang: m[1]!,
      title: /\btitle="([^"]+)"/.exec(m[2]!)?.[1],
      code: m[3]!,
      line: text.slice(0, m.index).split("\n").length,
    });
  }
  return blocks;
}

/**
 * One step of a ```sh block: a command line (continuation lines and here-documents included), whether it runs in the
 * background (a trailing `&`), and the address its comment says it listens on (`# ... http://127.0.0.1:3000/mcp`).
 */
export interface ShellStep {
  text: string;
  background: boolean;
  address: string | undefined;
}

/**
 * The steps of a shell block. A line ending in `&` (before its comment) is a background command, which listens; the
 * lines between two such are run together.
 * @example shellSteps("a &  # http://127.0.0.1:3000/\nb\nc\n") // [{ text: "a", background: true, ... }, { text: "b\nc", ... }]
 */
export function shellSteps(code: string): ShellStep[] {
  const steps: ShellStep[] = [];
  let foreground: string[] = [];
  const flush = () => {
    if (foreground.some((line) => line.trim() !== "")) steps.push({ text: foreground.join("\n"), background: false, address: undefined });
    foreground = [];
  };
  const lines = code.replace(/\n$/, "").split("\n");
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i]!;
    while (line.endsWith("\\") && i + 1 < lines.length) line = `${line.slice(0, -1)}${lines[++i]!.trimStart()}`;
    const heredoc = /<<-?\s*'?(\w+)'?/.exec(line);
    if (heredoc) {
      const body = [line];
      while (i + 1 < lines.length && lines[i + 1]!.trim() !== heredoc[1]) body.push(lines[++i]!);
      if (i + 1 < lines.length) body.push(lines[++i]!);
      foreground.push(...body);
      continue;
    }
    const background = /^(.*?)\s&\s*(?:#(.*))?$/.exec(line);
    if (background) {
      flush();
      const address = /http:\/\/127\.0\.0\.1:\d+/.exec(background[2] ?? "")?.[0];
      steps.push({ text: background[1]!.trim(), background: true, address });
    } else foreground.push(line);
  }
  flush();
  return steps;
}

/** The `wymcp` command lines of a ```console block (`$ npx wymcp proxy ...`), as argument lists after `wymcp`. */
export function consoleCommands(code: string): string[][] {
  return code
    .split("\n")
    .filter((line) => /^\$ (?:npx )?wymcp /.test(line))
    .map((line) => splitWords(line.replace(/^\$ (?:npx )?wymcp /, "").replace(/\s+#.*$/, "")));
}

/** A command line's words, as a POSIX shell splits them: single and double quotes, no expansion. */
export function splitWords(line: string): string[] {
  const words: string[] = [];
  for (const [, single, double, bare] of line.matchAll(/'([^']*)'|"((?:[^"\\]|\\.)*)"|(\S+)/g)) {
    words.push(single ?? double?.replace(/\\(.)/g, "$1") ?? bare!);
  }
  return words;
}
