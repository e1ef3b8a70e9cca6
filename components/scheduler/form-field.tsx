'use client';
// A labelled control with its problems right under it (aria-describedby), so errors sit at the field.
import { useId, type ReactNode } from 'react';
import { SelectorPreview } from '@/components/ui/selector-preview';

export interface ControlProps {
  id: string;
  'aria-invalid'?: boolean;
  'aria-describedby'?: string;
  className?: string;
}

export function FormField({
  label,
  hint,
  problems,
  children,
  grow,
}: {
  label: string;
  hint?: string;
  problems?: string[];
  grow?: boolean;
  children: (props: ControlProps) => ReactNode;
}) {
  const id = useId();
  const errId = `${id}-err`;
  const invalid = !!problems?.length;
  return (
    <div className={`sch-field${grow ? ' grow' : ''}`}>
      <label htmlFor={id} className="small">
        {label}
        {hint && <span className="muted"> · {hint}</span>}
      </label>
      {children({
        id,
        'aria-invalid': invalid || undefined,
        'aria-describedby': invalid ? errId : undefined,
        className: invalid ? 'sch-invalid' : undefined,
      })}
      {invalid && (
        <div id={errId} className="sch-field-error small" role="alert">
          {problems.join('; ')}
        </div>
      )}
    </div>
  );
}

/** A form's label selector: the field, and under it what the selector matches now (SelectorPreview). */
export function SelectorField({
  hint,
  placeholder,
  problems,
  value,
  onChange,
}: {
  /** what the selector does here, and what empty means */
  hint: string;
  placeholder: string;
  problems?: string[];
  value: string;
  onChange: (value: string) => void;
}) {
  return (
    <FormField label="Label selector" hint={hint} problems={problems}>
      {(p) => (
        <>
          <input
            {...p}
            type="text"
            value={value}
            maxLength={4096}
            placeholder={placeholder}
            onChange={(e) => onChange(e.target.value)}
            style={{ width: 220 }}
          />
          <SelectorPreview selector={value} />
        </>
      )}
    </FormField>
  );
}

// A problem of the whole form (not of one field), shown under the submit button across the full row.
export function FormError({ message }: { message: string | null | undefined }) {
  if (!message) return null;
  return (
    <div className="banner bad small" role="alert" style={{ flexBasis: '100%' }}>
      {message}
    </div>
  );
}
