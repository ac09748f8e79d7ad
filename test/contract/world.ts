/**
 * What every implementation's `open()` must provide to the contract suite (see service-contract.ts),
 * and the types the contract files share.
 */
import type { Workspace } from '../../src/publish/connectors/schemas.js';
import type { PublishingService } from '../../src/service/publishing-service.js';

/** 2026-11-21 12:00:00 UTC, a Saturday: 07:00 EST in New York, 21:00 in Tokyo. */
export const CONTRACT_NOW = Date.UTC(2026, 10, 21, 12, 0, 0);

export const OTHER_API_KEY = 'contract-other-user-key-0001';
export const SOUTHERN_API_KEY = 'contract-southern-user-key-0001';

/** A second user with a brand of their own; neither user may see the other's brands. */
export const OTHER_WORKSPACE: Workspace = {
  brands: [
    {
      title: 'Harbor Bakery',
      description: 'Another user’s brand',
      timezone: 'Europe/Paris',
      queueTimes: ['09:00', '12:00', '17:00'],
      channels: [
        { name: 'Harbor Bakery on YouTube', type: 'YouTube', status: 'ACTIVE' },
        { name: 'Harbor Bakery on Instagram', type: 'Instagram', status: 'ACTIVE' },
      ],
      collections: [
        { title: 'Harbor All', channels: ['Harbor Bakery on YouTube', 'Harbor Bakery on Instagram'] },
      ],
    },
    // A brand with no channels and no collections: empty lists.
    { title: 'Harbor Pop-up', timezone: 'Europe/Paris' },
    // Southern-hemisphere DST, and a queue time (02:30) inside its DST gap and overlap.
    {
      title: 'Harbour Sydney',
      timezone: 'Australia/Sydney',
      queueTimes: ['02:30', '09:00'],
      channels: [{ name: 'Harbour Sydney on Bluesky', type: 'Bluesky', status: 'ACTIVE' }],
      collections: [{ title: 'Sydney All', channels: ['Harbour Sydney on Bluesky'] }],
    },
  ],
  users: [
    {
      name: 'Other User',
      timezone: 'Europe/Paris',
      apiKey: OTHER_API_KEY,
      brands: ['Harbor Bakery', 'Harbor Pop-up'],
    },
    {
      name: 'Southern User',
      timezone: 'Australia/Sydney',
      apiKey: SOUTHERN_API_KEY,
      brands: ['Harbour Sydney'],
    },
  ],
};

/** A post row as stored, for implementations that can show their store. */
export interface StoredPost {
  brandId: number;
  collectionId: number;
  publishMode: string;
  status: string;
  dueAtMs: number | null;
  payload: Record<string, unknown>;
}

/** Read-only views of the backing store; only an embedded implementation can give them. */
export interface StoreInspection {
  count(table: 'media' | 'posts'): Promise<number>;
  post(id: number): Promise<StoredPost | undefined>;
  /** Entries of the media staging directory (must be empty between uploads). */
  stagingEntries(): string[];
}

/** The service's clock, for implementations whose clock the tests can move. */
export interface ContractClock {
  set(epochMs: number): void;
  advance(ms: number): void;
}

export interface ContractWorld {
  service: PublishingService;
  other: PublishingService;
  /** Acts as the Southern User of OTHER_WORKSPACE, who sees only "Harbour Sydney". */
  southern: PublishingService;
  inspect?: StoreInspection;
  clock?: ContractClock;
  close(): Promise<void>;
}

export interface ContractOptions {
  /** Register the tests that read the store through `world.inspect`. */
  inspection: boolean;
  /** Register the tests that move the service's clock through `world.clock`. */
  clock?: boolean;
}

export interface ContractContext {
  readonly world: ContractWorld;
  readonly service: PublishingService;
  readonly other: PublishingService;
  readonly southern: PublishingService;
  /** The movable clock; throws when the implementation gives none. */
  clock(): ContractClock;
  /** The store inspection; throws when the implementation gives none. */
  inspect(): StoreInspection;
  readonly options: ContractOptions;
}
