/**
 * Whether a parsed JSON value nests objects and arrays more than `depthMax` levels (the value itself, when
 * an object or array, is level 1). Iterative, and it stops at the first path too deep: it is meant for
 * input that V8's recursive JSON.stringify (and any recursive walk) would overflow the stack on: a body
 * well under 1 MB does it with 10,000 levels.
 */
export function nestsDeeperThan(value: unknown, depthMax: number): boolean {
  const pending: Array<[unknown, number]> = [[value, 1]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [node, depth] = next;
    if (node === null || typeof node !== 'object') continue;
    if (depth > depthMax) return true;
    for (const child of Object.values(node)) {
      if (child !== null && typeof child === 'object') pending.push([child, depth + 1]);
    }
  }
  return false;
}

/**
 * Whether free-form JSON (integrator metadata) serializes to more than `charsMax` characters. Depth is
 * checked first: each level costs at least two characters once serialized, so a value nested deeper than
 * charsMax / 2 is too long without calling the recursive JSON.stringify that would overflow on it.
 */
export function serializesLongerThan(value: unknown, charsMax: number): boolean {
  return nestsDeeperThan(value, charsMax / 2) || JSON.stringify(value).length > charsMax;
}
