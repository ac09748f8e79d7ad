/** createPost: the payload's field rules and their exact 422 messages. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MediaFiles, pngBytes } from './media-files.js';
import {
  BRAND,
  chars,
  emoji,
  expectErrors,
  expectValidation,
  postRequest,
  postRequestWithout,
  VALID_POLL,
} from './support.js';
import type { ContractContext } from './world.js';

export function createPostValidationContract(ctx: ContractContext): void {
  const create = (changes: Record<string, unknown>) => ctx.service.createPost(postRequest(changes));
  const accepts = async (changes: Record<string, unknown>) => {
    const created = await create(changes);
    expect(Number.isInteger(created.id)).toBe(true);
    expect(created.id).toBeGreaterThan(0);
  };

  describe('publishMode', () => {
    it('is required', async () => {
      await expectErrors(ctx.service.createPost(postRequestWithout('publishMode')), {
        publishMode: ['The publish mode field is required.'],
      });
    });

    it.each(['LATER', 'draft', 'Queue'])('rejects %j', async (publishMode) => {
      await expectErrors(create({ publishMode }), { publishMode: ['The selected publish mode is invalid.'] });
    });
  });

  describe('caption and poll', () => {
    it('requires a caption when there is no poll', async () => {
      await expectErrors(ctx.service.createPost(postRequestWithout('caption')), {
        caption: ['The caption field is required when poll is not present.'],
      });
    });

    it('accepts a poll without a caption', async () => {
      await accepts({ caption: undefined, poll: VALID_POLL });
      await accepts({ caption: undefined, publishMode: 'QUEUE', poll: VALID_POLL });
    });

    it('accepts 3000 characters and rejects 3001', async () => {
      await accepts({ caption: chars(3000) });
      await expectErrors(create({ caption: chars(3001) }), {
        caption: ['The caption may not be greater than 3000 characters.'],
      });
    });

    it('counts an emoji as one character', async () => {
      await accepts({ caption: emoji(3000) });
      await expectErrors(create({ caption: emoji(3001) }), {
        caption: ['The caption may not be greater than 3000 characters.'],
      });
    });

    it('must be a string', async () => {
      await expectErrors(create({ caption: 5 }), { caption: ['The caption must be a string.'] });
    });
  });

  describe('title, alt and link', () => {
    it.each(['title', 'alt'])('%s accepts 255 characters and rejects 256', async (field) => {
      await accepts({ [field]: chars(255) });
      await expectErrors(create({ [field]: chars(256) }), {
        [field]: [`The ${field} may not be greater than 255 characters.`],
      });
    });

    it('link accepts 1000 characters and rejects 1001', async () => {
      const base = 'https://example.com/';
      await accepts({ link: base + chars(1000 - base.length) });
      await expectErrors(create({ link: base + chars(1001 - base.length) }), {
        link: ['The link may not be greater than 1000 characters.'],
      });
    });

    it.each(['not a url', 'example.com/page', 'ftp://example.com/file'])('link rejects %j', async (link) => {
      await expectErrors(create({ link }), { link: ['The link format is invalid.'] });
    });
  });

  describe('poll', () => {
    const poll = (changes: Record<string, unknown>) => ({ poll: { ...VALID_POLL, ...changes } });

    it('accepts a full quiz', async () => {
      await accepts(
        poll({ options: ['A', 'B', 'C', 'D'], period: '7d', correctOptionIndex: 3, explanation: 'x' }),
      );
    });

    it('question: at most 280 characters', async () => {
      await accepts(poll({ question: chars(280) }));
      await expectErrors(create(poll({ question: chars(281) })), {
        'poll.question': ['The poll.question may not be greater than 280 characters.'],
      });
    });

    it('question, options and period are required', async () => {
      await expectErrors(create({ poll: {} }), {
        'poll.question': ['The poll.question field is required.'],
        'poll.options': ['The poll.options field is required.'],
        'poll.period': ['The poll.period field is required.'],
      });
    });

    it('options: 2 to 4 items', async () => {
      await expectErrors(create(poll({ options: ['Only'] })), {
        'poll.options': ['The poll.options must have at least 2 items.'],
      });
      await expectErrors(create(poll({ options: ['A', 'B', 'C', 'D', 'E'] })), {
        'poll.options': ['The poll.options may not have more than 4 items.'],
      });
    });

    it('options: each at most 30 characters, keyed by its index', async () => {
      await accepts(poll({ options: ['A', chars(30)] }));
      await expectErrors(create(poll({ options: ['A', chars(31), 'C'] })), {
        'poll.options.1': ['The poll.options.1 may not be greater than 30 characters.'],
      });
    });

    it.each(['1d', '3d', '7d'])('period accepts %s', async (period) => {
      await accepts(poll({ period }));
    });

    it('period rejects 2d', async () => {
      await expectErrors(create(poll({ period: '2d' })), {
        'poll.period': ['The selected poll.period is invalid.'],
      });
    });

    it('correctOptionIndex must name an option', async () => {
      const three = { options: ['A', 'B', 'C'] };
      await accepts(poll({ ...three, correctOptionIndex: 2 }));
      await accepts(poll({ ...three, correctOptionIndex: 0 }));
      for (const index of [-1, -2, 3, 4]) {
        await expectErrors(create(poll({ ...three, correctOptionIndex: index })), {
          'poll.correctOptionIndex': ['The poll.correct option index must be between 0 and 2.'],
        });
      }
      // Without options to count, a negative index still fails, with the bound the schema states.
      await expectErrors(create({ poll: { question: 'Q?', period: '1d', correctOptionIndex: -1 } }), {
        'poll.options': ['The poll.options field is required.'],
        'poll.correctOptionIndex': ['The poll.correct option index must be at least 0.'],
      });
      for (const index of [1.5, -1.5]) {
        const errors = await expectValidation(create(poll({ ...three, correctOptionIndex: index })));
        expect(errors['poll.correctOptionIndex']).toEqual([
          'The poll.correct option index must be an integer.',
        ]);
      }
    });

    it('explanation: at most 512 characters', async () => {
      await accepts(poll({ explanation: chars(512) }));
      await expectErrors(create(poll({ explanation: chars(513) })), {
        'poll.explanation': ['The poll.explanation may not be greater than 512 characters.'],
      });
    });

    it('must be an object', async () => {
      await expectErrors(create({ poll: 'x' }), { poll: ['The poll must be an array.'] });
    });
  });

  describe('comment', () => {
    it('accepts a comment with a delay of 0', async () => {
      await accepts({ comment: { comment: chars(1000), delay: 0 } });
    });

    it('comment: at most 1000 characters', async () => {
      await expectErrors(create({ comment: { comment: chars(1001), delay: 10 } }), {
        'comment.comment': ['The comment.comment may not be greater than 1000 characters.'],
      });
    });

    it('delay: an integer of at least 0', async () => {
      await expectErrors(create({ comment: { comment: 'First!', delay: -1 } }), {
        'comment.delay': ['The comment.delay must be at least 0.'],
      });
      await expectErrors(create({ comment: { comment: 'First!', delay: 1.5 } }), {
        'comment.delay': ['The comment.delay must be an integer.'],
      });
    });

    it('comment and delay are required', async () => {
      await expectErrors(create({ comment: {} }), {
        'comment.comment': ['The comment.comment field is required.'],
        'comment.delay': ['The comment.delay field is required.'],
      });
    });
  });

  describe('media elements', () => {
    let files: MediaFiles;
    beforeEach(() => {
      files = new MediaFiles();
    });
    afterEach(() => {
      files.remove();
    });
    const uploaded = async (brandId: number = BRAND.northwind, shade = 0) =>
      (await ctx.service.uploadMedia({ brandId, path: files.write(`m${shade}.png`, pngBytes(shade)) })).id;

    it('accepts an uploaded id or a url', async () => {
      await accepts({ media: [{ id: await uploaded() }, { url: 'https://cdn.example.com/a.jpg' }] });
    });

    it('rejects an element with both an id and a url', async () => {
      const id = await uploaded();
      await expectErrors(create({ media: [{ id, url: 'https://cdn.example.com/a.jpg' }] }), {
        'media.0': ['The media.0 must have either an id or a url, not both.'],
      });
    });

    it('rejects an element with neither, keyed by its index', async () => {
      await expectErrors(create({ media: [{ url: 'https://cdn.example.com/a.jpg' }, {}] }), {
        'media.1': ['The media.1 must have either an id or a url, not both.'],
      });
      await expectErrors(create({ media: [{ id: null, url: '' }] }), {
        'media.0': ['The media.0 must have either an id or a url, not both.'],
      });
    });

    it('rejects an unknown media id', async () => {
      await expectErrors(create({ media: [{ id: 'med_does_not_exist' }] }), {
        'media.0.id': ['The selected media.0.id is invalid.'],
      });
      await expectErrors(create({ media: [{ url: 'https://cdn.example.com/a.jpg' }, { id: 'nope' }] }), {
        'media.1.id': ['The selected media.1.id is invalid.'],
      });
    });

    it('rejects a media id uploaded to another brand of the same user', async () => {
      const kiteMedia = await uploaded(BRAND.kite, 11);
      await expectErrors(create({ media: [{ id: kiteMedia }] }), {
        'media.0.id': ['The selected media.0.id is invalid.'],
      });
    });

    it('rejects a media id uploaded by another user', async () => {
      const [harbor] = (await ctx.other.listBrands()).data;
      const path = files.write('theirs.png', pngBytes(12));
      const theirs = await ctx.other.uploadMedia({ brandId: harbor!.id, path });
      await expectErrors(create({ media: [{ id: theirs.id }] }), {
        'media.0.id': ['The selected media.0.id is invalid.'],
      });
    });

    it('rejects a url that is not a URL and a media that is not an array', async () => {
      await expectErrors(create({ media: [{ url: 'picture.jpg' }] }), {
        'media.0.url': ['The media.0.url format is invalid.'],
      });
      await expectErrors(create({ media: 'x' }), { media: ['The media must be an array.'] });
    });
  });

  describe('unknown fields and types', () => {
    it.each([
      [{ foo: 1 }, 'foo', 'The foo field is not allowed.'],
      [{ scheduleAt: '2026-11-24 09:00:00' }, 'scheduleAt', 'The schedule at field is not allowed.'],
      [{ platforms: { myspace: {} } }, 'platforms.myspace', 'The platforms.myspace field is not allowed.'],
      [{ poll: { ...VALID_POLL, foo: 1 } }, 'poll.foo', 'The poll.foo field is not allowed.'],
      [
        { platforms: { youtube: { tags: ['a'], playlist: [] } } },
        'platforms.youtube.playlist',
        'The platforms.youtube.playlist field is not allowed.',
      ],
      [
        { media: [{ url: 'https://a.example/x.png', alt: 'x' }] },
        'media.0.alt',
        'The media.0.alt field is not allowed.',
      ],
    ])('rejects %j', async (changes, key, message) => {
      await expectErrors(create(changes), { [key]: [message] });
    });

    it.each([
      [{ caption: 5 }, 'caption', 'The caption must be a string.'],
      [{ postAsStory: 'yes' }, 'postAsStory', 'The post as story field must be true or false.'],
      [{ poll: 'x' }, 'poll', 'The poll must be an array.'],
      [{ comment: 'nice' }, 'comment', 'The comment must be an array.'],
      [
        { platforms: { tiktok: { sendToInbox: 'no' } } },
        'platforms.tiktok.sendToInbox',
        'The platforms.tiktok.send to inbox field must be true or false.',
      ],
      [
        { platforms: { youtube: { tags: 'coffee' } } },
        'platforms.youtube.tags',
        'The platforms.youtube.tags must be an array.',
      ],
    ])('rejects the wrong type %j', async (changes, key, message) => {
      await expectErrors(create(changes), { [key]: [message] });
    });

    it('accepts every documented platform override', async () => {
      await accepts({
        postAsStory: true,
        platforms: {
          instagram: {
            collab: 'friend',
            location: { id: '1', name: 'Cafe' },
            trialReel: 'MANUAL',
            shareToFeed: true,
          },
          facebook: { collab: 'friend', location: { id: '2', name: 'Roastery' } },
          tiktok: { sendToInbox: false },
          youtube: { tags: ['coffee'], playlists: [{ channelId: 6, playlistIds: ['PL1'] }] },
        },
      });
    });
  });

  describe('absent values', () => {
    it('treats null and blank strings as absent', async () => {
      for (const caption of [null, '', '   ']) {
        await expectErrors(create({ caption }), {
          caption: ['The caption field is required when poll is not present.'],
        });
      }
      await expectErrors(create({ publishMode: '' }), {
        publishMode: ['The publish mode field is required.'],
      });
      await accepts({
        title: '',
        alt: null,
        link: '  ',
        poll: null,
        comment: null,
        media: null,
        scheduledAt: '',
      });
    });
  });

  describe('several failures', () => {
    it('reports every failure of the request together', async () => {
      const errors = await expectValidation(
        create({
          publishMode: 'SOMETIME',
          caption: chars(3001),
          title: chars(256),
          link: 'nope',
          postAsStory: 'yes',
          poll: { ...VALID_POLL, options: ['A'], period: '2d' },
          comment: { comment: 'hi', delay: -1 },
          media: [{}],
          extra: true,
        }),
      );
      expect(errors).toEqual({
        publishMode: ['The selected publish mode is invalid.'],
        caption: ['The caption may not be greater than 3000 characters.'],
        title: ['The title may not be greater than 255 characters.'],
        link: ['The link format is invalid.'],
        postAsStory: ['The post as story field must be true or false.'],
        'poll.options': ['The poll.options must have at least 2 items.'],
        'poll.period': ['The selected poll.period is invalid.'],
        'comment.delay': ['The comment.delay must be at least 0.'],
        'media.0': ['The media.0 must have either an id or a url, not both.'],
        extra: ['The extra field is not allowed.'],
      });
    });
  });
}
