import type { InputHTMLAttributes, ReactNode } from 'react';
import { useT } from './ui';

/** A form field's visible label, its text, and what to do with the text typed or chosen. */
export interface FieldProps {
  label: string;
  value: string;
  onChange: (value: string) => void;
}

/**
 * A text input with its label before it (label `for` the input's id), as the inline forms lay them
 * out; `onChange` receives the new text. Other input attributes pass through.
 */
export function TextField({
  id,
  label,
  value,
  onChange,
  ...input
}: FieldProps & { id: string } & Omit<
    InputHTMLAttributes<HTMLInputElement>,
    'id' | 'value' | 'onChange'
  >) {
  return (
    <>
      <label htmlFor={id}>{label}</label>
      <input id={id} value={value} onChange={(e) => onChange(e.target.value)} {...input} />
    </>
  );
}

/** An input inside its label, as the grid forms lay them out; other input attributes pass through. */
export function Field({
  label,
  value,
  onChange,
  ...input
}: FieldProps & Omit<InputHTMLAttributes<HTMLInputElement>, 'value' | 'onChange'>) {
  return (
    <label>
      {label}
      <input value={value} onChange={(e) => onChange(e.target.value)} {...input} />
    </label>
  );
}

/** One choice of a few, as radio buttons named `name` in a fieldset. */
export function Choice<V extends string>({
  legend,
  name,
  options,
  value,
  onChange,
  className,
}: {
  legend: ReactNode;
  name: string;
  options: readonly { value: V; label: string }[];
  value: V;
  onChange: (value: V) => void;
  className?: string;
}) {
  return (
    <fieldset className={className}>
      <legend>{legend}</legend>
      {options.map((option) => (
        <label key={option.value}>
          <input
            type="radio"
            name={name}
            checked={value === option.value}
            onChange={() => onChange(option.value)}
          />{' '}
          {option.label}
        </label>
      ))}
    </fieldset>
  );
}

/** The button of a form that makes something, off while an action runs. */
export function CreateButton({ busy }: { busy: boolean }) {
  const t = useT();
  return (
    <button type="submit" disabled={busy}>
      {t.create}
    </button>
  );
}

/** Things to pick as options: the name, then the id (names need not be unique). */
export function NamedOptions({
  items,
}: {
  items: readonly { id: string; name: string }[] | undefined;
}) {
  return (
    <>
      {items?.map((item) => (
        <option key={item.id} value={item.id}>
          {item.name} ({item.id})
        </option>
      ))}
    </>
  );
}
