// What a Docker build context keeps: .dockerignore's patterns read as Docker (moby's patternmatcher) reads
// them, so that a spec can prove every path the Dockerfile copies reaches the build.

/** One .dockerignore line: a path pattern, and whether it re-includes (`!`) what earlier lines left out. */
export interface IgnorePattern {
  readonly exclusion: boolean;
  readonly regex: RegExp;
  readonly source: string;
}

/** Parses .dockerignore: comments and blank lines dropped, leading `/` and `./` removed, last line wins. */
export function parseDockerignore(text: string): IgnorePattern[] {
  const patterns: IgnorePattern[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const exclusion = !line.startsWith('!');
    const pattern = (exclusion ? line : line.slice(1).trim())
      .replace(/^(\.?\/)+/, '')
      .replace(/\/+$/, '');
    patterns.push({ exclusion, regex: globToRegExp(pattern), source: line });
  }
  return patterns;
}

/**
 * Go's filepath.Match with moby's `**` (any number of directories). A pattern matches a path or any of its
 * parent directories, so `docs` leaves out everything under docs/.
 */
function globToRegExp(glob: string): RegExp {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob.charAt(i);
    if (c === '*' && glob.charAt(i + 1) === '*') {
      i++;
      if (glob.charAt(i + 1) === '/') {
        i++;
        out += '(?:.*/)?';
      } else {
        out += '.*';
      }
    } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else if (c === '[') {
      const end = glob.indexOf(']', i);
      out +=
        end === -1 ? '\\[' : glob.slice(i, end + 1).replace(/^\[\^?!?/, (m) => m.replace('!', '^'));
      if (end !== -1) i = end;
    } else out += c.replace(/[.+^${}()|\\]/g, '\\$&');
  }
  return new RegExp(`^${out}(?:/.*)?$`);
}

/** Whether a path of the context (relative, `/`-separated) is left out of the build. */
export function isIgnored(patterns: readonly IgnorePattern[], path: string): boolean {
  const clean = path.replace(/^(\.?\/)+/, '').replace(/\/+$/, '');
  let ignored = false;
  for (const p of patterns) if (p.regex.test(clean)) ignored = p.exclusion;
  return ignored;
}

/** The context paths of the Dockerfile's COPY instructions (not `--from` stages), `${ARG}` expanded by `args`. */
export function copySources(dockerfile: string, args: Readonly<Record<string, string>>): string[] {
  const sources: string[] = [];
  for (const line of dockerfile.split('\n')) {
    const words = line.trim().split(/\s+/);
    if (words[0]?.toUpperCase() !== 'COPY' || words.some((w) => w.startsWith('--from'))) continue;
    const operands = words.slice(1).filter((w) => !w.startsWith('--'));
    for (const source of operands.slice(0, -1)) {
      sources.push(
        source.replace(
          /\$\{(\w+)\}|\$(\w+)/g,
          (_, a?: string, b?: string) => args[a ?? b ?? ''] ?? '',
        ),
      );
    }
  }
  return sources;
}
