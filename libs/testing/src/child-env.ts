/**
 * What a spec's child process inherits from the caller's shell: only what finds programs and writes files.
 * Everything the child is meant to see is passed by the spec itself, so a variable a developer happens to
 * have set (ADMIN_TOKEN, PORT, DATABASE_URL…) cannot change what the test proves.
 */
export const INHERITED_VARIABLES = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'TZ'] as const;

/** The environment of a child process: the inherited few, then `meant`. */
export function childEnv(
  meant: Readonly<Record<string, string>>,
  parent: NodeJS.ProcessEnv = process.env,
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const name of INHERITED_VARIABLES) {
    const value = parent[name];
    if (value !== undefined) env[name] = value;
  }
  return { ...env, ...meant };
}
