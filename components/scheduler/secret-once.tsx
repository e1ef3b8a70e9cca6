'use client';
// The signing secret of a just-created hook or webhook: the server returns it only in the create
// answer, so this banner is the one chance to copy it.
import { useState } from 'react';

function CopyButton({ text }: { text: string }) {
  const [copied, setCopied] = useState<'yes' | 'no' | null>(null);
  return (
    <button
      type="button"
      className="btn"
      onClick={() => {
        // navigator.clipboard is missing outside secure contexts (plain http on a LAN address).
        if (!navigator.clipboard) {
          setCopied('no');
          return;
        }
        navigator.clipboard.writeText(text).then(
          () => setCopied('yes'),
          () => setCopied('no'),
        );
      }}
    >
      {copied === 'yes' ? 'Copied' : copied === 'no' ? 'Copy failed: select the text' : 'Copy'}
    </button>
  );
}

export function SecretOnce({
  created,
  storeWith,
  copyable,
  testId,
  onDismiss,
}: {
  created: { name: string; secret: string };
  /** Who verifies the signatures, as in "store it with the receiver". */
  storeWith: string;
  copyable?: boolean;
  testId: string;
  onDismiss: () => void;
}) {
  return (
    <div className="banner warn" role="status" style={{ margin: 12 }} data-testid={testId}>
      <div style={{ marginBottom: 6 }}>
        <strong>Signing secret of “{created.name}”.</strong> It is shown only now: store it with {storeWith} to verify signatures.
      </div>
      <div className="sch-secret">
        <code>{created.secret}</code>
        {copyable && <CopyButton text={created.secret} />}
        <button type="button" className="btn" onClick={onDismiss}>
          I stored it
        </button>
      </div>
    </div>
  );
}
