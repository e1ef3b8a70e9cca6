import { z } from 'zod';
import { CLUSTER_SORT_KEYS } from '@/server/repositories/cluster-repository';
import { createTRPCRouter, viewerProcedure } from '../trpc';
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
  list: viewerProcedure.input(ZListClustersInput).query(({ ctx, input }) => ctx.services.clusters.list(input)),
  byName: viewerProcedure.input(z.object({ name })).query(({ ctx, input }) => ctx.services.clusters.byName(input.name)),
  facets: viewerProcedure.query(({ ctx }) => ctx.services.clusters.facets()),
  versionDistribution: viewerProcedure
    .input(z.object({ filter: ZClusterFilter }).default({ filter: {} }))
    .query(({ ctx, input }) => ctx.services.clusters.versionDistribution(input.filter)),
  ...clusterExplainProcedures,
});
