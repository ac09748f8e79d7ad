/**
 * The post preview page's script, as text: the apps' postMessage protocol (app-script.ts: the host's
 * tool-result notification; `tools/call` for the buttons) and the rendering of the preview that the
 * server computed (post-preview.ts): the page counts nothing.
 * Every value from the server is written with textContent, never as HTML.
 *
 * Written without template literals: it is itself one (String.raw, so its backslashes stay as written).
 */
import { APP_PROTOCOL_SCRIPT } from './app-script.js';

export const POST_PREVIEW_SCRIPT = String.raw`
(function () {
  'use strict';
  var KEY = 'social-publisher/post-preview';
${APP_PROTOCOL_SCRIPT}
  var preview = null;
  var busy = false;

  var OUTCOME = { fail: 'will fail', skip: 'skipped', change: 'changed', send: 'will send' };
  var POLL_AS = {
    native: 'sent as the platform\u2019s own poll',
    text: 'written into the text (the platform has no polls)',
    dropped: 'not sent: the platform has no polls'
  };

  function channelCard(channel, index) {
    var headingId = 'channel-' + index;
    var card = el('section', { className: 'channel', 'aria-labelledby': headingId, 'data-type': channel.type });
    card.appendChild(el('h2', { id: headingId }, [
      el('span', { text: channel.name }),
      el('span', { className: 'muted', text: channel.type + ' \u00b7 ' + channel.connector }),
      el('span', { className: 'badge ' + channel.action, text: OUTCOME[channel.action] })
    ]));
    if (channel.reason) card.appendChild(el('p', { className: 'detail', text: channel.reason }));
    if (channel.action === 'skip' || (channel.action === 'fail' && channel.reason)) {
      appendWarnings(card, channel.warnings);
      return card;
    }
    if (channel.format === 'story') card.appendChild(el('p', { className: 'detail', text: 'Posted as a Story' }));
    if (channel.title) card.appendChild(el('p', { className: 'detail' }, [el('strong', { text: channel.title })]));
    var text = el('p', { className: 'text' });
    text.appendChild(document.createTextNode(channel.text.slice(0, channel.fits)));
    if (channel.fits < channel.text.length) {
      text.appendChild(el('mark', { title: 'Beyond the limit of ' + channel.type, text: channel.text.slice(channel.fits) }));
    }
    card.appendChild(text);
    var over = channel.length > channel.limit;
    var count = channel.length + ' / ' + channel.limit + ' ' + channel.unit;
    if (channel.bytes) count += '; ' + channel.bytes.count + ' / ' + channel.bytes.limit + ' bytes';
    card.appendChild(el('p', { className: 'count' + (over || (channel.bytes && channel.bytes.count > channel.bytes.limit) ? ' over' : ''), text: count }));
    if (channel.media.length) {
      var list = el('ul', { className: 'media', 'aria-label': channel.media.length + ' media, ' + channel.type + ' takes up to ' + channel.maxMedia });
      channel.media.forEach(function (media, i) {
        var caption = (i + 1) + '. ' + media.label + (media.beyondLimit ? ' (over the limit)' : '');
        var thumbnail = preview.thumbnails && preview.thumbnails[i];
        list.appendChild(el('li', { className: media.beyondLimit ? 'over' : '' }, [
          thumbnail ? el('img', { src: thumbnail, alt: preview.alt || media.label }) : null,
          el('span', { text: thumbnail ? (i + 1) + (media.beyondLimit ? ' (over the limit)' : '') : caption })
        ]));
      });
      card.appendChild(list);
    }
    if (channel.poll) {
      var options = el('ol');
      channel.poll.options.forEach(function (option) { options.appendChild(el('li', { text: option })); });
      card.appendChild(el('div', { className: 'poll' }, [
        el('strong', { text: 'Poll: ' + channel.poll.question }), options,
        el('p', { className: 'count', text: 'Open ' + channel.poll.period + '; ' + POLL_AS[channel.poll.as] })
      ]));
    }
    if (channel.link) card.appendChild(el('p', { className: 'detail' }, [document.createTextNode('Link: '), el('code', { text: channel.link })]));
    if (channel.comment) {
      card.appendChild(el('p', { className: 'detail', text: channel.comment.posted
        ? 'Comment after ' + channel.comment.delaySeconds + ' s: ' + channel.comment.text
        : 'Comment not posted (no comments on ' + channel.type + '): ' + channel.comment.text }));
    }
    appendWarnings(card, channel.warnings);
    return card;
  }

  function appendWarnings(card, warnings) {
    if (!warnings || !warnings.length) return;
    var list = el('ul', { className: 'warnings', 'aria-label': 'Before publishing' });
    warnings.forEach(function (warning) {
      list.appendChild(el('li', { className: warning.outcome, text: OUTCOME[warning.outcome] + ': ' + warning.message }));
    });
    card.appendChild(list);
  }

  function localInput(scheduledAt) { return scheduledAt ? scheduledAt.replace(' ', 'T') : ''; }
  function wallClock(value) { var text = value.replace('T', ' '); return text.length === 16 ? text + ':00' : text; }

  function callTool(action, extra) {
    if (busy) return;
    busy = true;
    // Disabling the pressed button drops its focus: it gets it back once the answer is shown.
    var pressed = document.activeElement && document.activeElement.id;
    var refocus = function () { var again = pressed && document.getElementById(pressed); if (again) again.focus(); };
    var buttons = document.querySelectorAll('.bar button');
    buttons.forEach(function (button) { button.disabled = true; });
    setStatus('Asking the host to call ' + action.name + '\u2026');
    var args = Object.assign({}, action.arguments, extra || {});
    request('tools/call', { name: action.name, arguments: args }).then(function (result) {
      var text = textOf(result);
      busy = false;
      var next = result._meta && result._meta[KEY];
      if (next && !result.isError) render(next);
      else buttons.forEach(function (button) { button.disabled = false; });
      setStatus(text || (result.isError ? 'The call failed.' : 'Done.'), result.isError);
      refocus();
    }, function (error) {
      busy = false;
      buttons.forEach(function (button) { button.disabled = false; });
      setStatus('The host did not make the call: ' + error.message, true);
      refocus();
    });
  }

  function actionBar(data) {
    var actions = data.actions;
    if (!actions) return null;
    var when = el('input', { id: 'when', type: 'datetime-local', step: '1', value: localInput(data.time && data.time.scheduledAt) });
    var planned = data.status === 'scheduled' || data.status === 'queued';
    return el('div', { className: 'bar', role: 'group', 'aria-label': 'Publish' }, [
      el('button', { id: 'publish-now', className: 'primary', type: 'button', text: 'Publish now', onclick: function () { callTool(actions.publishNow); } }),
      el('label', {}, [document.createTextNode('Time (' + data.timezone + ')'), when]),
      el('button', { id: 'schedule', type: 'button', text: planned ? 'Change time' : 'Schedule', onclick: function () {
        if (!when.value) { setStatus('Choose a time first.', true); when.focus(); return; }
        callTool(actions.schedule, { scheduledAt: wallClock(when.value) });
      } }),
      el('button', { id: 'save-draft', type: 'button', text: 'Save as draft', onclick: function () { callTool(actions.saveDraft); } })
    ]);
  }

  function render(data) {
    preview = data;
    var app = document.getElementById('app');
    app.textContent = '';
    var title = data.postId === null ? 'Preview: nothing stored yet' : 'Post ' + data.postId + ' \u00b7 ' + data.status.replace('_', ' ');
    app.appendChild(el('h1', { text: title }));
    var times = el('p', { className: 'times' });
    if (data.time) {
      times.appendChild(el('time', { datetime: data.time.utc, text: data.time.local }));
      times.appendChild(document.createTextNode(' \u00b7 ' + data.time.utc.replace('.000Z', 'Z') + ' UTC'));
    } else {
      times.textContent = data.publishMode === 'IMMEDIATE' ? 'Goes out now' : 'No time set';
    }
    app.appendChild(times);
    var bar = actionBar(data);
    if (bar) app.appendChild(bar);
    app.appendChild(el('p', { id: 'status', role: 'status' }));
    var channels = el('div', { className: 'channels' });
    data.channels.forEach(function (channel, index) { channels.appendChild(channelCard(channel, index)); });
    app.appendChild(channels);
  }

  function showResult(result) {
    var data = result && result._meta && result._meta[KEY];
    if (data) { render(data); return; }
    var text = textOf(result);
    var app = document.getElementById('app');
    app.textContent = '';
    app.appendChild(el('p', { className: result && result.isError ? 'detail' : 'muted', role: 'status', text: text || 'Nothing to preview.' }));
  }

  startApp('social-publisher-post-preview', {
    'ui/notifications/tool-result': showResult,
    'ui/notifications/tool-cancelled': function () { if (!preview) showResult({ content: [{ type: 'text', text: 'The call was cancelled.' }] }); }
  }, 'The host did not start the preview: ');
})();
`;
