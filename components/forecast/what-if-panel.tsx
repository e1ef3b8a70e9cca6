'use client';
// What-if overrides for the forecast: policy parameters changed in memory only (never saved).
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { inferRouterInputs } from '@trpc/server';
import type { AppRouter } from '@/server/api/root';
import { useTRPC } from '@/components/trpc/client';

export type WhatIf = NonNullable<inferRouterInputs<AppRouter>['forecast']['run']['overrides']>;

export function WhatIfPanel({
  value,
  onChange,
  sectors,
  onApply,
}: {
  value: WhatIf;
  onChange: (v: WhatIf) => void;
  sectors: string[];
  onApply: () => void;
}) {
  const trpc = useTRPC();
  const [open, setOpen] = useState(false);
  // Loaded when the panel opens, so it is not batched behind a long first forecast request.
  const org = useQuery({ ...trpc.policies.organization.queryOptions(), enabled: open });
  const [soak, setSoak] = useState({ sector: '', days: '' });
  const [mpu, setMpu] = useState({ sector: '', value: '' });
  const [block, setBlock] = useState('');
  const [unblock, setUnblock] = useState('');

  const soakList = value.sectorSoakDays ?? [];
  const mpuList = value.sectorMaxParallel ?? [];
  const blockList = value.blockVersions ?? [];
  const unblockList = value.unblockPatterns ?? [];
  const count =
    soakList.length +
    mpuList.length +
    blockList.length +
    unblockList.length +
    (value.ignoreFreeze ? 1 : 0) +
    (value.ignoreExclusions ? 1 : 0);

  const chip = (key: string, text: string, remove: () => void) => (
    <span key={key} className="badge accent">
      {text}
      <button type="button" className="chip-remove" aria-label={`Remove what-if: ${text}`} onClick={remove}>
        ×
      </button>
    </span>
  );

  return (
    <details className="what-if" onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>
        What-if: change policy parameters for this forecast only{' '}
        {count > 0 && (
          <span className="badge warn">
            {count} change{count === 1 ? '' : 's'}
          </span>
        )}
      </summary>
      <div className="what-if-grid">
        <form
          className="what-if-row"
          onSubmit={(e) => {
            e.preventDefault();
            const days = Number(soak.days);
            if (!soak.sector || soak.days === '' || !Number.isFinite(days) || days < 0) return;
            onChange({
              ...value,
              sectorSoakDays: [...soakList.filter((s) => s.sector !== soak.sector), { sector: soak.sector, soakDays: days }],
            });
          }}
        >
          <span className="small muted what-if-label">soakDays of a sector</span>
          <select aria-label="Sector for soakDays" value={soak.sector} onChange={(e) => setSoak({ ...soak, sector: e.target.value })}>
            <option value="">sector…</option>
            {sectors.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
          <input
            type="number"
            aria-label="soakDays"
            min={0}
            max={365}
            step="any"
            value={soak.days}
            onChange={(e) => setSoak({ ...soak, days: e.target.value })}
            style={{ width: 80 }}
          />
          <button className="btn" type="submit">
            Set
          </button>
        </form>
        <form
          className="what-if-row"
          onSubmit={(e) => {
            e.preventDefault();
            if (!mpu.sector) return;
            onChange({
              ...value,
              sectorMaxParallel: [
                ...mpuList.filter((s) => s.sector !== mpu.sector),
                { sector: mpu.sector, value: mpu.value.trim() || null },
              ],
            });
          }}
        >
          <span className="small muted what-if-label">maxParallelUpgrades</span>
          <select
            aria-label="Sector for maxParallelUpgrades"
            value={mpu.sector}
            onChange={(e) => setMpu({ ...mpu, sector: e.target.value })}
          >
            <option value="">sector…</option>
            {sectors.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
          <input
            type="text"
            aria-label="maxParallelUpgrades value"
            placeholder='"3", "50%" or empty'
            maxLength={10}
            value={mpu.value}
            onChange={(e) => setMpu({ ...mpu, value: e.target.value })}
            style={{ width: 130 }}
          />
          <button className="btn" type="submit">
            Set
          </button>
        </form>
        <form
          className="what-if-row"
          onSubmit={(e) => {
            e.preventDefault();
            const v = block.trim();
            if (!v) return;
            // a plain version becomes an exact pattern; anything else is taken as a regex
            const pattern = /^\d+\.\d+\.\d+(-[\w.]+)?$/.test(v) ? `^${v.replace(/\./g, '\\.')}$` : v;
            if (!blockList.includes(pattern)) onChange({ ...value, blockVersions: [...blockList, pattern] });
            setBlock('');
          }}
        >
          <span className="small muted what-if-label">block a version</span>
          <input
            type="text"
            aria-label="Version or regex to block"
            placeholder="4.13.43 or a regex"
            maxLength={200}
            value={block}
            onChange={(e) => setBlock(e.target.value)}
            style={{ width: 180 }}
          />
          <button className="btn" type="submit">
            Block
          </button>
        </form>
        <form
          className="what-if-row"
          onSubmit={(e) => {
            e.preventDefault();
            if (unblock && !unblockList.includes(unblock)) onChange({ ...value, unblockPatterns: [...unblockList, unblock] });
          }}
        >
          <span className="small muted what-if-label">unblock</span>
          <select
            aria-label="Blocked pattern to lift"
            value={unblock}
            onChange={(e) => setUnblock(e.target.value)}
            style={{ maxWidth: 260 }}
          >
            <option value="">blocked pattern…</option>
            {(org.data?.blockedVersions ?? []).map((b) => (
              <option key={b.pattern} value={b.pattern}>
                {b.pattern}
              </option>
            ))}
          </select>
          <button className="btn" type="submit">
            Unblock
          </button>
        </form>
        <div className="what-if-row">
          <label className="small">
            <input
              type="checkbox"
              checked={!!value.ignoreFreeze}
              onChange={(e) => onChange({ ...value, ignoreFreeze: e.target.checked })}
            />{' '}
            ignore the freeze
          </label>
          <label className="small">
            <input
              type="checkbox"
              checked={!!value.ignoreExclusions}
              onChange={(e) => onChange({ ...value, ignoreExclusions: e.target.checked })}
            />{' '}
            ignore maintenance exclusions
          </label>
        </div>
      </div>
      <div className="what-if-row" style={{ padding: '0 12px 12px' }}>
        <div className="chips">
          {soakList.map((s) =>
            chip(`soak-${s.sector}`, `${s.sector} soakDays ${s.soakDays ?? 'none'}`, () =>
              onChange({ ...value, sectorSoakDays: soakList.filter((x) => x !== s) }),
            ),
          )}
          {mpuList.map((s) =>
            chip(`mpu-${s.sector}`, `${s.sector} maxParallel ${s.value ?? 'none'}`, () =>
              onChange({ ...value, sectorMaxParallel: mpuList.filter((x) => x !== s) }),
            ),
          )}
          {blockList.map((p) =>
            chip(`block-${p}`, `block ${p}`, () => onChange({ ...value, blockVersions: blockList.filter((x) => x !== p) })),
          )}
          {unblockList.map((p) =>
            chip(`unblock-${p}`, `unblock ${p}`, () => onChange({ ...value, unblockPatterns: unblockList.filter((x) => x !== p) })),
          )}
        </div>
        <span style={{ flex: 1 }} />
        <button className="btn" type="button" disabled={count === 0} onClick={() => onChange({})}>
          Clear
        </button>
        <button className="btn primary" type="button" onClick={onApply}>
          Run with what-if
        </button>
      </div>
    </details>
  );
}
