/**
 * A Pinterest board before any pin: what a pin may carry (capabilitiesOfPinterest) and the check
 * `connect pinterest` runs after the sign-in (verifyPinterest): the account (`GET /v5/user_account`)
 * and the board `--account` names, by its id or its name, among the account's boards.
 *
 * One channel is one board: the connection's account is the board's name, its account id the board's
 * id (what `POST /v5/pins` takes as `board_id`, a numeric string: a board's name is refused). The
 * setting `boardId` of a connection replaces the board without a new sign-in.
 */
import { type Capabilities, PLATFORM_CAPABILITIES } from '../../../domain/capabilities.js';
import type { VerifiedConnection } from '../../connector.js';
import type { ConnectInput } from '../module.js';
import { tokensSecret } from '../oauth-tokens.js';
import { pinterestOrigin } from './pinterest-failures.js';
import { boardsOf, pinterestGet } from './pinterest-oauth.js';

/**
 * What a pin takes (API v5's PinCreate and help.pinterest.com's Pin specs): a description of 800
 * characters, a title of 100, alt text of 500, a link of 2,048; one image (JPEG or PNG, 20 MB), a
 * carousel of 2 to 5 images, or one video (MP4 or MOV, 2 GB); no comments.
 */
export function capabilitiesOfPinterest(): Capabilities {
  return { ...PLATFORM_CAPABILITIES.Pinterest };
}

/**
 * Checks the sign-in's token and the board chosen (the only board when the account has one). Rejects
 * with an Error that says what to fix, never with a token.
 */
export async function verifyPinterest(input: ConnectInput): Promise<VerifiedConnection> {
  const apiRoot = pinterestOrigin(input.endpoint, 'API');
  const token = input.tokens?.accessToken ?? input.secret;
  const http = { userAgent: input.userAgent, timeoutMs: input.timeoutMs };
  const user = await pinterestGet(apiRoot, '/v5/user_account', token, http, 'the account');
  if (typeof user.username !== 'string' || !user.username) {
    throw new Error(
      'Pinterest did not name the account (user_account has no username): approve the user_accounts:read permission.',
    );
  }
  const boards = await boardsOf(apiRoot, token, http);
  const wanted = input.account?.trim();
  if (boards.length === 0) {
    throw new Error(
      `The Pinterest account ${user.username} has no board to pin to: make one on pinterest.com, then run connect pinterest again.`,
    );
  }
  const board = wanted
    ? (boards.find((candidate) => candidate.id === wanted) ??
      boards.find((candidate) => candidate.name.toLowerCase() === wanted.toLowerCase()))
    : boards.length === 1
      ? boards[0]
      : undefined;
  if (!board) {
    const known = boards.map((candidate) => `${candidate.name} (${candidate.id})`).join(', ');
    throw new Error(
      wanted
        ? `The Pinterest account ${user.username} has no board "${wanted}": give one of ${known} with --account.`
        : `The Pinterest account ${user.username} has several boards: choose one with --account (its id or its name): ${known}.`,
    );
  }
  return {
    kind: 'pinterest',
    account: board.name,
    accountId: board.id,
    endpoint: apiRoot,
    profileUrl: `https://www.pinterest.com/${encodeURIComponent(user.username)}/`,
    settings: { boardId: board.id, username: user.username },
    capabilities: capabilitiesOfPinterest(),
    secret: tokensSecret(input.tokens ?? { accessToken: token }),
  };
}
