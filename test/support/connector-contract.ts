/**
 * The connector contract: what every connector must make of its platform's answers (style.md rule 13),
 * checked against the platform's stand-in through the fake-platform kit's scripted trouble. A connector's
 * test file runs it with a setup that opens the connector against a fresh stand-in:
 *
 *   connectorContract('mastodon', setUpMastodon, { idempotent: true, rateLimitHeaders: true });
 *
 * The cases: a post is sent with the platform's id; a revoked credential asks for a reconnect; a 429
 * waits as long as the platform says; a 5xx or a 408 is transient, and so is a connection refused; a
 * request that went out and got no answer (lost, late, cut) is unknown (a connector that looks for the
 * post after may find it sent, once), and an idempotent connector sending it again publishes it once; a
 * refusal is refused with the platform's words; and no secret (token, password) ever appears in an
 * outcome, a line the connector logs or an error it throws, even when the platform repeats it. The
 * optional steps (prepare, confirm) have cases of their own, run only for a connector that has them.
 *
 * Only the port (src/ports.ts) is imported here: the setups, in the contract-*.test.ts files, are the one
 * place that knows a connector.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PlatformContent } from '../../src/domain/delivery.js';
import type {
  ConfirmOutcome,
  DeliveryJob,
  FailureKind,
  PrepareOutcome,
  Publisher,
  StepOutcome,
} from '../../src/ports.js';
import type { FakePlatform } from './fake-platform/kit.js';

/** A fresh stand-in with the connector's way in. */
export interface ContractWorld {
  kit: FakePlatform;
  /** Opens the connector against the stand-in (verifying the account first, as `connect` does). */
  open(options: ContractOpenOptions): Promise<Publisher>;
  /** A delivery the platform takes as it is (text only). */
  job: DeliveryJob;
  /** The kit's route of the request that creates the post. */
  createRoute: string;
  /** The posts the stand-in holds, by the id the connector reports for them (`externalId`). */
  published(): string[];
  /** Every secret in use (tokens, passwords, sessions), read when the case ends. */
  secrets(): string[];
  /** The account the stand-in counts requests against (for its rate-limit counters). */
  account?: string;
  /** The status of the platform's refusals of content. Default 400. */
  refusalStatus?: number;
  /** A delivery the platform refuses by its own rules, and what it says then. */
  refusedJob?: { job: DeliveryJob; said: string };
}

/** What the suite gives the setup to open the connector with (the rest of its context is the setup's). */
export interface ContractOpenOptions {
  /** Deadline of one request. */
  timeoutMs: number;
  /** The operator's log: every line is checked for secrets. */
  log: (line: string) => void;
}

export type ContractCase = 'transient-408' | 'rate-limit-counters' | 'lost-answer' | 'late-answer';

export interface ContractOptions {
  /** What the connector's `idempotent` must say; an idempotent one is checked to publish a resend once. */
  idempotent: boolean;
  /** The optional steps the connector has; their cases run only then. */
  steps?: { prepare?: boolean; confirm?: boolean };
  /** The stand-in sends rate-limit headers of its counters on every answer (and `account` is set). */
  rateLimitHeaders?: boolean;
  /**
   * The connector's `confirm` can tell its posts apart only by what they say (X: no key, no record of
   * ours): the delivery never sent that it must find absent has a text of its own.
   */
  confirmsByContent?: boolean;
  /** Cases the connector is known to fail today, run as `it.fails`: each one a gap to close. */
  knownGaps?: readonly ContractCase[];
}

/** The deadline of the cases where no answer comes: short, so that they end soon. */
const SHORT_MS = 400;

type Outcome = StepOutcome | PrepareOutcome | ConfirmOutcome;

/** A text post for `platform`, as the engine hands it to the connector on its first attempt. */
export function contractJob(
  platform: PlatformContent['platform'],
  caption = 'A post of the connector contract',
): DeliveryJob {
  return {
    deliveryId: 1,
    postId: 1,
    brandId: 1,
    channel: { id: 1, name: `Contract on ${platform}`, type: platform },
    content: { platform, format: 'feed', caption, media: [] },
    idempotencyKey: 'store-contract:delivery-1',
    dueAtMs: Date.UTC(2027, 0, 5, 9),
    attempt: 1,
    state: {},
  };
}

/** The rest of a connector's context (a ConnectorContext): no media to load, the wall clock. */
export function contractContext({ timeoutMs, log }: ContractOpenOptions) {
  return {
    loadMedia: async (): Promise<never> => {
      throw new Error('The contract posts carry no media.');
    },
    saveSecret: async () => {},
    clock: { now: () => Date.now() },
    log,
    timeoutMs,
    userAgent: 'social-publisher-mcp/contract',
  };
}

export function connectorContract(
  name: string,
  setup: () => Promise<ContractWorld>,
  options: ContractOptions,
): void {
  describe(`the connector contract: ${name}`, () => {
    let world: ContractWorld;
    let opened: Publisher[];
    /** Everything the connector said: outcomes, log lines, errors it threw. */
    let said: string[];

    beforeEach(async () => {
      world = await setup();
      opened = [];
      said = [];
    });

    afterEach(async () => {
      await Promise.all(opened.map((publisher) => publisher.close?.()));
      await world.kit.close();
      const secrets = world.secrets().filter((secret) => secret.length >= 6);
      for (const text of said) for (const secret of secrets) expect(text).not.toContain(secret);
    });

    const gap = (id: ContractCase) => (options.knownGaps?.includes(id) ? it.fails : it);

    async function open(timeoutMs = 5_000): Promise<Publisher> {
      const publisher = await world.open({ timeoutMs, log: (line) => said.push(line) });
      opened.push(publisher);
      return publisher;
    }

    /** Runs one step, keeping what it said (or threw) for the secret check. */
    async function step<T extends Outcome>(run: () => Promise<T>): Promise<T> {
      try {
        const outcome = await run();
        said.push(JSON.stringify(outcome));
        return outcome;
      } catch (error) {
        said.push(String(error), error instanceof Error ? (error.stack ?? '') : '');
        throw error;
      }
    }

    const deliver = (publisher: Publisher, job = world.job) => step(() => publisher.deliver(job));
    const onCreate = (count = 1) => ({ route: world.createRoute, count });

    function expectFailure(outcome: Outcome, kind: FailureKind) {
      expect(outcome).toMatchObject({ ok: false, kind, reason: expect.any(String) });
    }

    /** Unknown, or (a connector that looks for the post after the failure) sent as the one post there. */
    function expectUnknownOrFound(outcome: Outcome) {
      if (outcome.ok === true) expect(world.published()).toEqual([outcome.externalId]);
      else expectFailure(outcome, 'unknown');
    }

    it('says what it is: a name, whether it deduplicates, the optional steps it has', async () => {
      const publisher = await open();
      expect(publisher.name).toMatch(/\S/);
      expect(publisher.idempotent).toBe(options.idempotent);
      expect(typeof publisher.prepare === 'function').toBe(options.steps?.prepare === true);
      expect(typeof publisher.confirm === 'function').toBe(options.steps?.confirm === true);
    });

    it('sends a post, reporting the id the platform gave it', async () => {
      const outcome = await deliver(await open());
      expect(outcome).toMatchObject({ ok: true, externalId: expect.stringMatching(/\S/) });
      expect(world.published()).toEqual([outcome.ok === true && outcome.externalId]);
    });

    it('asks for a reconnect when the credential is revoked', async () => {
      const publisher = await open();
      world.kit.revoke();
      expectFailure(await deliver(publisher), 'reconnect');
      expect(world.published()).toEqual([]);
    });

    it('waits as long as a 429 says', async () => {
      const publisher = await open();
      world.kit.rateLimitNext({ retryAfterSeconds: 17 }, onCreate());
      const outcome = await deliver(publisher);
      expectFailure(outcome, 'rate_limited');
      expect(outcome).toMatchObject({ retryAfterMs: 17_000 });
      expect(world.published()).toEqual([]);
    });

    it('is transient on a 500, a 502 and a 503', async () => {
      const publisher = await open();
      for (const status of [500, 502, 503]) {
        world.kit.failNext(status, undefined, onCreate());
        expectFailure(await deliver(publisher), 'transient');
      }
      expect(world.published()).toEqual([]);
    });

    gap('transient-408')('is transient on a 408 (the platform timed the request out)', async () => {
      const publisher = await open();
      world.kit.failNext(408, undefined, onCreate());
      expectFailure(await deliver(publisher), 'transient');
    });

    it('is transient when the connection is refused (nothing was sent)', async () => {
      const publisher = await open();
      await world.kit.close();
      expectFailure(await deliver(publisher), 'transient');
    });

    it('is unknown when the request went out and no answer came, or the connection was cut', async () => {
      const publisher = await open(SHORT_MS);
      world.kit.hang('forever', onCreate());
      expectFailure(await deliver(publisher), 'unknown');
      world.kit.dropNext(onCreate());
      expectFailure(await deliver(publisher), 'unknown');
      expect(world.published()).toEqual([]);
    });

    gap('lost-answer')(
      `is unknown when the post was made and its answer lost${options.idempotent ? '; sent again, it is published once' : ''}`,
      async () => {
        const publisher = await open(SHORT_MS);
        world.kit.hangAfterCreating(onCreate());
        expectUnknownOrFound(await deliver(publisher));
        expect(world.published()).toHaveLength(1);
        if (!options.idempotent) return;
        const again = await deliver(publisher, { ...world.job, attempt: 2 });
        expect(again).toMatchObject({ ok: true });
        expect(world.published()).toEqual([again.ok === true && again.externalId]);
      },
    );

    gap('late-answer')('is unknown when the answer comes too late, and the post is made once', async () => {
      const publisher = await open(SHORT_MS);
      world.kit.hang(SHORT_MS * 3, onCreate());
      expectFailure(await deliver(publisher), 'unknown');
      await expect.poll(() => world.published().length, { timeout: 5_000 }).toBe(1);
      if (!options.idempotent) return;
      expect(await deliver(publisher, { ...world.job, attempt: 2 })).toMatchObject({ ok: true });
      expect(world.published()).toHaveLength(1);
    });

    it("refuses what the platform refuses, in the platform's words", async () => {
      const publisher = await open();
      const words = 'The stand-in will not take this post (contract)';
      world.kit.failNext(world.refusalStatus ?? 400, words, onCreate());
      const outcome = await deliver(publisher);
      expectFailure(outcome, 'refused');
      expect(outcome).toMatchObject({ reason: expect.stringContaining(words) });
      const refused = world.refusedJob;
      if (refused) {
        const natural = await deliver(publisher, refused.job);
        expectFailure(natural, 'refused');
        expect(natural).toMatchObject({ reason: expect.stringContaining(refused.said) });
      }
      expect(world.published()).toEqual([]);
    });

    it('never repeats a secret, even when the platform does', async () => {
      const publisher = await open(SHORT_MS);
      const echo = `Refused near ${world.secrets().join(' ')}`;
      for (const status of [world.refusalStatus ?? 400, 401, 500]) {
        world.kit.failNext(status, echo, onCreate());
        await deliver(publisher);
      }
      const garbled = { status: 200, headers: { 'content-type': 'text/html' }, body: `<p>${echo}</p>` };
      world.kit.answerNext(garbled, onCreate());
      await deliver(publisher);
      world.kit.rateLimitNext({ retryAfterSeconds: 1, headers: { 'x-echo': echo } }, onCreate());
      await deliver(publisher);
      // The afterEach hook looks for every secret in every outcome, log line and error of the case.
    });

    if (options.rateLimitHeaders) {
      gap('rate-limit-counters')(
        'reports the limit the headers say, and waits for the reset once it is spent',
        async () => {
          const publisher = await open();
          const account = world.account ?? '';
          const sent = await deliver(publisher);
          expect(sent).toMatchObject({ ok: true });
          const counters = world.kit.requestsTo(world.createRoute)[0]?.rateLimit;
          expect(counters, 'the stand-in sent its rate-limit headers').toBeDefined();
          // A connector that reports the account's limit reports what the platform's headers said.
          if (sent.ok === true && sent.limit && counters) {
            expect(sent.limit.remaining).toBe(counters.remaining);
            expect(Math.abs(sent.limit.resetAtMs - counters.resetAtMs)).toBeLessThan(1_000);
          }
          const resetAtMs = Date.now() + 42_000;
          world.kit.rateLimits.set(account, { remaining: 0, resetAtMs });
          const outcome = await deliver(publisher, {
            ...world.job,
            idempotencyKey: `${world.job.idempotencyKey}-2`,
          });
          expectFailure(outcome, 'rate_limited');
          const wait = outcome.ok === false ? (outcome.retryAfterMs ?? 0) : 0;
          expect(Math.abs(wait - 42_000)).toBeLessThan(2_000);
        },
      );
    }

    if (options.steps?.prepare) {
      it('prepares ahead, and the commit takes what was prepared', async () => {
        const publisher = await open();
        const prepared = await step(() => publisher.prepare!(world.job));
        expect(['prepared', 'pending']).toContain(prepared.ok);
        if (prepared.ok !== 'prepared') return;
        expect(world.published()).toEqual([]);
        const outcome = await deliver(publisher, { ...world.job, state: prepared.state });
        expect(outcome).toMatchObject({ ok: true });
        expect(world.published()).toHaveLength(1);
      });

      it('asks for a reconnect from prepare when the credential is revoked (when it asks the platform)', async () => {
        const publisher = await open();
        world.kit.revoke();
        const asked = world.kit.log.length;
        const outcome = await step(() => publisher.prepare!(world.job));
        // A job with nothing to prepare (no media) is prepared without a request.
        if (outcome.ok === 'prepared' && world.kit.log.length === asked) return;
        expectFailure(outcome, 'reconnect');
      });
    }

    if (options.steps?.confirm) {
      it('confirms a post whose answer was lost, and says absent of one never made', async () => {
        const publisher = await open(SHORT_MS);
        world.kit.hangAfterCreating(onCreate());
        await deliver(publisher);
        const found = await step(() => publisher.confirm!(world.job));
        expect(found).toMatchObject({ ok: true });
        expect(world.published()).toEqual([found.ok === true && found.externalId]);
        const never = { ...world.job, deliveryId: world.job.deliveryId + 1, idempotencyKey: 'never-sent' };
        if (options.confirmsByContent) {
          never.content = { ...never.content, caption: `${never.content.caption} (never sent)` };
        }
        expect(await publisher.confirm!(never)).toEqual({ ok: 'absent' });
      });
    }
  });
}
