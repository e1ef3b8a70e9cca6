import { z } from 'zod';
import { CLUSTER_SORT_KEYS } from '@/server/repositories/cluster-repository';
import { createTRPCRouter, operatorProcedure, viewerProcedure } from '../trpc';
import { clusterExplainProcedures } from './cluster-explain';

const name = z.string().min(1).max(253);
const short = z.string().max(200).optional();

const ZClusterFilter = z
  .object({
    search: short,
    sector: short,
    workload: short,
    state: short,
    version: short,
    reason: short,
    managed: z.boolean().optional(),
    neverUpgrades: z.boolean().optional(),
    region: short,
    /** `key=value` (or `key`: the label is set); the value may contain '=' */
    label: short,
    /** a label selector (`env=prod,tier in (web)`); an invalid one is refused with the parser's message */
    selector: z.string().max(4096).optional(),
  })
  .default({});

export const ZListClustersInput = z.object({
  filter: ZClusterFilter,
  sort: z.enum(CLUSTER_SORT_KEYS).default('name'),
  direction: z.enum(['asc', 'desc']).default('asc'),
  offset: z.number().int().min(0).max(10_000_000).default(0),
  limit: z.number().int().min(1).max(500).default(100),
});

export const clustersRouter = createTRPCRouter({
  list: viewerProcedure.input(ZListClustersInput).query(async ({ ctx, input }) => await ctx.services.clusters.list(input)),
  byName: viewerProcedure.input(z.object({ name })).query(async ({ ctx, input }) => await ctx.services.clusters.byName(input.name)),
  facets: viewerProcedure.query(async ({ ctx }) => await ctx.services.clusters.facets()),
  versionDistribution: viewerProcedure
    .input(z.object({ filter: ZClusterFilter }).default({ filter: {} }))
    .query(async ({ ctx, input }) => await ctx.services.clusters.versionDistribution(input.filter)),
  /** an operator agrees to a provider's version gate for the cluster (a write at the provider, once; audited) */
  acknowledgeVersionGate: operatorProcedure
    .input(z.object({ cluster: name, gateId: z.string().min(1).max(200) }))
    .mutation(
      async ({ ctx, input }) =>
        await ctx.services.versionGates.acknowledge({ cluster: input.cluster, gateId: input.gateId, actor: ctx.actor }),
    ),
  /** which clusters a label selector matches now (count and first names), or the parser's message: every selector editor's preview */
  previewSelector: viewerProcedure
    .input(z.object({ selector: z.string().max(4096) }))
    .query(async ({ ctx, input }) => await ctx.services.labels.preview(input.selector)),
  /** kubectl-style label changes (`key=value`, `key-`) to fleetplan's labels of a cluster (audited) */
  setLabels: operatorProcedure
    .input(z.object({ cluster: name, changes: z.array(z.string().max(400)).min(1).max(50) }))
    .mutation(async ({ ctx, input }) => await ctx.services.labels.setLabels({ ...input, actor: ctx.actor })),
  ...clusterExplainProcedures,
});
