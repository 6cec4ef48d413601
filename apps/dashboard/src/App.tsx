import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { Gateway } from '@pgw/sdk';
import { Admin } from './admin';
import type { Locale } from './format';
import { MESSAGES } from './i18n';
import { Operator } from './pages/Operator';
import { Anticipation } from './pages/Anticipation';
import { BalanceHistory } from './pages/BalanceHistory';
import { ChargeDetail } from './pages/ChargeDetail';
import { Charges } from './pages/Charges';
import { Home } from './pages/Home';
import { Receivables } from './pages/Receivables';
import { loadSession, saveSession, type Session } from './session';
import { Choice } from './form';
import { LocaleContext, useT } from './ui';

/** The page in the address after '#': `charges`, `charges/ch_…`, `operator/sellers`… */
function useRoute(): string {
  const read = () => decodeURIComponent(window.location.hash.replace(/^#\/?/, ''));
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const onChange = () => setRoute(read());
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

const SELLER_PAGES = ['home', 'charges', 'receivables', 'anticipation', 'balance'] as const;
const OPERATOR_PAGES = [
  'tenants',
  'sellers',
  'api-keys',
  'pricing-plans',
  'webhooks',
  'jobs',
  'dead-letters',
] as const;

export function App() {
  const [locale, setLocale] = useState<Locale>(() =>
    sessionStorage.getItem('pgw.dashboard.locale') === 'en' ? 'en' : 'pt-BR',
  );
  const [session, setSession] = useState<Session | null>(loadSession);
  const route = useRoute();
  const t = MESSAGES[locale];

  useEffect(() => {
    document.documentElement.lang = locale;
    sessionStorage.setItem('pgw.dashboard.locale', locale);
  }, [locale]);

  const gateway = useMemo(
    () =>
      session?.mode === 'seller'
        ? new Gateway({
            apiKey: session.apiKey,
            baseUrl: window.location.origin,
            retry: { retriesMax: 1 },
          })
        : null,
    [session],
  );
  const admin = useMemo(
    () => (session?.mode === 'operator' ? new Admin(session.adminToken) : null),
    [session],
  );

  const signOut = () => {
    saveSession(null);
    setSession(null);
    window.location.hash = '';
  };

  const [page, ...rest] = route.split('/');
  const pages: readonly string[] = session?.mode === 'operator' ? OPERATOR_PAGES : SELLER_PAGES;
  const current = pages.includes(page ?? '') ? page : pages[0];
  const label: Record<string, string> = {
    home: t.home,
    charges: t.charges,
    receivables: t.receivables,
    anticipation: t.anticipation,
    balance: t.balanceHistory,
    tenants: t.tenants,
    sellers: t.sellers,
    'api-keys': t.apiKeys,
    'pricing-plans': t.pricingPlans,
    webhooks: t.webhooks,
    jobs: t.jobs,
    'dead-letters': t.deadLetters,
  };

  return (
    <LocaleContext.Provider value={locale}>
      <header className="top">
        <span className="brand">{t.appName}</span>
        <button
          type="button"
          onClick={() => setLocale(locale === 'pt-BR' ? 'en' : 'pt-BR')}
          aria-label={`${t.language}: ${t.switchTo}`}
          lang={locale === 'pt-BR' ? 'en' : 'pt-BR'}
        >
          {t.switchTo}
        </button>
        {session !== null && (
          <button type="button" onClick={signOut}>
            {t.signOut}
          </button>
        )}
      </header>
      {session !== null && (
        <nav
          className="tabs"
          aria-label={session.mode === 'operator' ? t.operatorMode : t.sellerMode}
        >
          {pages.map((p) => (
            <a key={p} href={`#/${p}`} aria-current={p === current ? 'page' : undefined}>
              {label[p]}
            </a>
          ))}
        </nav>
      )}
      <main>
        {session === null && <SignIn onSignIn={(s) => (saveSession(s), setSession(s))} />}
        {gateway !== null && current === 'home' && <Home gateway={gateway} />}
        {gateway !== null &&
          current === 'charges' &&
          (rest[0] ? (
            <ChargeDetail gateway={gateway} id={rest[0]} />
          ) : (
            <Charges gateway={gateway} />
          ))}
        {gateway !== null && current === 'receivables' && <Receivables gateway={gateway} />}
        {gateway !== null && current === 'anticipation' && <Anticipation gateway={gateway} />}
        {gateway !== null && current === 'balance' && <BalanceHistory gateway={gateway} />}
        {admin !== null && current !== undefined && <Operator admin={admin} page={current} />}
      </main>
    </LocaleContext.Provider>
  );
}

function SignIn({ onSignIn }: { onSignIn: (session: Session) => void }) {
  const t = useT();
  const [mode, setMode] = useState<'seller' | 'operator'>('seller');
  const [secret, setSecret] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const value = secret.trim();
    if (mode === 'seller') {
      if (!/^sk_(test|live)_/.test(value)) return setProblem(t.apiKey);
      onSignIn({ mode, apiKey: value });
    } else {
      if (value === '') return setProblem(t.adminToken);
      onSignIn({ mode, adminToken: value });
    }
  };
  return (
    <form className="card signin" onSubmit={submit}>
      <h1>{t.signIn}</h1>
      <Choice
        legend={`${t.sellerMode} / ${t.operatorMode}`}
        name="mode"
        options={[
          { value: 'seller', label: t.sellerMode },
          { value: 'operator', label: t.operatorMode },
        ]}
        value={mode}
        onChange={setMode}
      />
      <label htmlFor="secret">{mode === 'seller' ? t.apiKey : t.adminToken}</label>
      <input
        id="secret"
        type="password"
        autoComplete="off"
        value={secret}
        onChange={(e) => setSecret(e.target.value)}
        aria-invalid={problem !== null}
        aria-describedby="secret-help"
        required
      />
      <p id="secret-help" className="help">
        {problem ?? t.keptInSession}
      </p>
      <button type="submit" className="primary">
        {t.signIn}
      </button>
    </form>
  );
}
