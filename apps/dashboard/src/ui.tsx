import { createContext, useContext, useEffect, useId, useRef, type ReactNode } from 'react';
import { GatewayError } from '@pgw/sdk';
import { AdminError } from './admin';
import type { Locale } from './format';
import { MESSAGES, type Messages } from './i18n';

export const LocaleContext = createContext<Locale>('pt-BR');

export function useT(): Messages {
  return MESSAGES[useContext(LocaleContext)];
}

export function useLocale(): Locale {
  return useContext(LocaleContext);
}

/** An API error as the API said it: its message, its code and the request id to quote to support. */
export function ErrorBox({ error }: { error: unknown }) {
  const t = useT();
  if (error === null || error === undefined) return null;
  const requestId =
    error instanceof GatewayError || error instanceof AdminError ? error.requestId : null;
  const code = error instanceof GatewayError || error instanceof AdminError ? error.code : null;
  return (
    <div role="alert" className="error">
      <strong>{t.error}:</strong> {error instanceof Error ? error.message : String(error)}
      {code !== null && <span className="code"> ({code})</span>}
      {requestId !== null && (
        <div>
          {t.requestId}: <code data-testid="request-id">{requestId}</code>
        </div>
      )}
    </div>
  );
}

/** What an action did, announced politely; nothing while there is none. */
export function Notice({ text }: { text: string | null }) {
  if (!text) return null;
  return (
    <p role="status" className="notice">
      {text}
    </p>
  );
}

/**
 * An action that moves money or changes access asks first: the question, then Confirm or Cancel. Focus
 * goes to Cancel (the safe choice) and Escape cancels, so it is usable from the keyboard.
 */
export function Confirm({
  question,
  onConfirm,
  onCancel,
  busy,
}: {
  question: string;
  onConfirm: () => void;
  onCancel: () => void;
  busy: boolean;
}) {
  const t = useT();
  const cancel = useRef<HTMLButtonElement>(null);
  const titleId = useId();
  useEffect(() => cancel.current?.focus(), []);
  return (
    <div
      role="alertdialog"
      aria-modal="false"
      aria-labelledby={titleId}
      className="confirm"
      onKeyDown={(e) => e.key === 'Escape' && onCancel()}
    >
      <p id={titleId}>{question}</p>
      <button type="button" className="primary" onClick={onConfirm} disabled={busy}>
        {t.confirm}
      </button>{' '}
      <button type="button" ref={cancel} onClick={onCancel} disabled={busy}>
        {t.cancel}
      </button>
    </div>
  );
}

export function Section({ title, children }: { title: string; children: ReactNode }) {
  const id = useId();
  return (
    <section aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}
