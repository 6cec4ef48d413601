// Who is signed in, kept in sessionStorage only: the key or token leaves with the tab, is never written to
// localStorage or a cookie, and is sent only to this origin's API.

export type Session = { mode: 'seller'; apiKey: string } | { mode: 'operator'; adminToken: string };

const KEY = 'pgw.dashboard.session';

export function loadSession(): Session | null {
  const raw = sessionStorage.getItem(KEY);
  if (raw === null) return null;
  try {
    const value = JSON.parse(raw) as Session;
    return value.mode === 'seller' || value.mode === 'operator' ? value : null;
  } catch {
    return null;
  }
}

export function saveSession(session: Session | null): void {
  if (session === null) sessionStorage.removeItem(KEY);
  else sessionStorage.setItem(KEY, JSON.stringify(session));
}
