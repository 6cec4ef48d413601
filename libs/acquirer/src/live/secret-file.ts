import { readFileSync } from 'node:fs';
import { ConfigError } from '@pgw/platform-http';

// Secrets of the live rails come from files a deployment mounts (`NAME_FILE`), or for a developer's
// shell from the variable itself (`NAME`). A message names the variable and the path, never the content.

/** The bytes of a file a variable names (a key, a certificate); a ConfigError names the path when unreadable. */
export function readSecretFileBytes(variable: string, path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    throw new ConfigError(
      `${variable}: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
}

/** A one-line secret held in a file: its text without surrounding white space (an editor's final newline). */
export function readSecretFile(variable: string, path: string): string {
  return readSecretFileBytes(variable, path).toString('utf8').trim();
}

/**
 * Exactly one of `<name>_FILE` (a path) and `<name>` (the value): the secret, at least `minLength`
 * characters. Errors name the variables, never a value.
 */
export function envSecretOrFile(env: NodeJS.ProcessEnv, name: string, minLength = 1): string {
  const fileVariable = `${name}_FILE`;
  const file = env[fileVariable];
  const inline = env[name];
  const hasFile = file !== undefined && file !== '';
  const hasInline = inline !== undefined && inline !== '';
  if (hasFile === hasInline)
    throw new ConfigError(`exactly one of ${fileVariable} and ${name} is required`);
  const value = hasFile ? readSecretFile(fileVariable, file) : (inline as string);
  if (hasFile && value === '') throw new ConfigError(`${fileVariable} names an empty file`);
  if (value.length < minLength)
    throw new ConfigError(
      `${hasFile ? fileVariable : name}: the secret must have at least ${minLength} characters`,
    );
  return value;
}
