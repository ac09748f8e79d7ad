/**
 * The connector contract (test/support/connector-contract.ts) for YouTube, on its loopback stand-in.
 * A YouTube delivery is several steps (the session, the upload, the processing): the suite's `deliver`
 * runs them as the engine does (youtube-steps.ts `stepped`), and its trouble is aimed at the session's
 * PUTs, the last of which makes the video.
 */
import { type ContractWorld, connectorContract, contractJob } from '../support/connector-contract.js';
import { startYouTubeServer } from '../support/youtube-server.js';
import { openAgainst, stepped, videoFile, youtubeContext } from '../support/youtube-steps.js';
import { SESSION_ROUTE } from '../support/youtube-uploads.js';

async function setUpYouTube(): Promise<ContractWorld> {
  const server = await startYouTubeServer();
  const records = [videoFile('med_contract', 300 * 1024)];
  const tokens = server.tokens();
  const job = (caption?: string, title = 'A video of the connector contract') => {
    const base = contractJob('YouTube', caption);
    return { ...base, content: { ...base.content, title, media: [{ id: 'med_contract' }] } };
  };
  return {
    kit: server.kit,
    open: async ({ timeoutMs, log }) =>
      stepped(await openAgainst(server, youtubeContext(records, { timeoutMs, log }), tokens)),
    job: job(),
    createRoute: SESSION_ROUTE,
    published: () => [...server.videos.keys()],
    secrets: () => [...server.kit.credentials.all(), ...server.signIn.issuedRefreshTokens],
    refusalStatus: 400,
    refusedJob: { job: job(undefined, 'T'.repeat(101)), said: 'YouTube takes at most 100' },
  };
}

connectorContract('youtube', setUpYouTube, {
  idempotent: false,
  steps: { confirm: true },
  // The session is asked first (the probe): an answer that comes late was the probe's, which makes
  // nothing; the video is made by the chunk after it, which the next check sends.
  knownGaps: ['late-answer'],
});
